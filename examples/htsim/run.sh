#!/usr/bin/env bash
# The htsim side-by-side (docs/performance.md, "Side by side with htsim"): the same
# 128-host k = 8 fat-tree of 100 Gbps links and 1 us hops, a permutation of
# 125 MB flows starting at 0, MTU 1000, 10 ms simulated, run by htsim's
# RoCE model and by dcsim (DCQCN, the default, and cc none, which sends at
# line rate as htsim_roce does), interleaved, ROUNDS times each, at nice 5.
# One CSV line per run: simulator, round, wall seconds, CPU seconds (user +
# system, children included), data packets delivered (in order), peak
# resident memory (MiB), delivered data packets per CPU second.
#
#   HTSIM=/path/to/csg-htsim/sim/datacenter/htsim_roce examples/htsim/run.sh [ROUNDS] > examples/results/htsim.csv
#
# htsim_roce must print its sinks' delivered bytes (a five-line patch to
# sim/datacenter/main_roce.cpp, in docs/performance.md): stock htsim prints only
# "New: 0 Rtx: 0", and its new-packet counter is never incremented.
# Run from the repository root.
set -euo pipefail
: "${HTSIM:?set HTSIM to the htsim_roce binary}"
rounds=${1:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go run ./examples/htsim gen "$work"
go build -o "$work/dcsim" ./cmd/dcsim
. "$(dirname "$0")/timed.sh"
echo "sim,round,wall_s,cpu_s,maxrss_mib,delivered_pkts,delivered_per_cpu_s"
for r in $(seq "$rounds"); do
	t=$(cd "$work" && timed "$work/htsim.out" "$HTSIM" -nodes 128 -tm perm128.cm -strat ecmp_host -paths 1 -end 10000 \
		-mtu 1000 -linkspeed 100000 -hop_latency 1 -q 1000 -o "$work/logout.dat")
	d=$(awk '/^Delivered bytes:/ {print $6}' "$work/htsim.out")
	IFS=, read -r wall cpu rss <<<"$t"
	echo "htsim,$r,$wall,$cpu,$rss,$d,$(awk -v d="$d" -v c="$cpu" 'BEGIN {printf "%.0f", d / c}')"
	for cc in dcqcn none; do
		t=$(timed "$work/dcsim.out" "$work/dcsim" run --quiet --out "$work/run-$cc" \
			--set topology.kind=fat-tree --set topology.k=8 --set topology.fabric_link=100Gbps \
			--set workload.kind=flowlist --set "workload.flowlist.file=$work/perm128.csv" \
			--set duration=1us --set drain_limit=9999us --set cc.algorithm=$cc)
		d=$(go run ./examples/htsim delivered "$work/run-$cc" | cut -d' ' -f1)
		IFS=, read -r wall cpu rss <<<"$t"
		echo "dcsim-$cc,$r,$wall,$cpu,$rss,$d,$(awk -v d="$d" -v c="$cpu" 'BEGIN {printf "%.0f", d / c}')"
	done
done
