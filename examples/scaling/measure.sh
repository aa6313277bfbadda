#!/usr/bin/env bash
# Measures dcsim's speed and memory against the number of hosts with
# cmd/dcsim's BenchmarkLargeFabric (the default's workload: WebSearch at
# 50%, DCQCN, MTU 1000, 100 us of arrivals plus the drain, on the 128-host
# spine-leaf and k-ary fat-trees of 1024, 3456 and 8192 hosts), each size
# in its own process at nice 5, so that its peak resident memory is its
# own. CPU time, not wall time: on a shared machine wall time counts the
# other processes too. One CSV line per size: hosts, data packets per CPU
# second, data packets delivered per CPU second, heap in use at the end
# (MiB), peak resident memory (MiB). Run from the repository root:
#
#   examples/scaling/measure.sh > examples/results/scaling.csv
#   go run ./examples/scaling examples/results/scaling.csv examples/scaling.png
set -euo pipefail
bin=$(mktemp -d)/bench.test
go test -c -o "$bin" ./cmd/dcsim
echo "hosts,pkts_per_cpu_s,delivered_per_cpu_s,heap_mib,maxrss_mib"
for h in 128 1024 3456 8192; do
	line=$(cd cmd/dcsim && nice -n 5 "$bin" -test.run '^$' -test.bench "LargeFabric/hosts=$h\$" -test.benchtime 1x | grep '^BenchmarkLargeFabric')
	metric() { awk -v m="$1" '{for (i = 2; i <= NF; i++) if ($i == m) print $(i-1)}' <<<"$line"; }
	echo "$h,$(metric pkts/cpu-s),$(metric dlv/cpu-s),$(metric heapMiB),$(metric maxrssMiB)"
done
