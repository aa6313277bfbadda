#!/usr/bin/env bash
# htsim and dcsim against fabric size (docs/performance.md, "Side by side with htsim",
# "At 8,192 hosts"): the side-by-side's permutation of 125 MB flows on a
# k = 8 fat-tree (128 hosts) for 2 ms and on a k = 32 one (8,192 hosts)
# for 200 us, each simulator in turn, ROUNDS times, at nice 5 under
# /usr/bin/time. One CSV line per run: simulator, hosts, simulated us,
# round, wall s, CPU s, peak RSS MiB, data packets delivered.
#
#   HTSIM=/path/to/htsim_roce examples/htsim/scale.sh [ROUNDS] > examples/results/htsim-scale.csv
#   THREADS="1 2" HTSIM=... examples/htsim/scale.sh   # dcsim also on the parallel engine
#
# htsim_roce needs the delivered-bytes patch of run.sh. Run from the
# repository root.
set -euo pipefail
: "${HTSIM:?set HTSIM to the htsim_roce binary}"
rounds=${1:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go run ./examples/htsim gen "$work" 128
go run ./examples/htsim gen "$work" 8192
go build -o "$work/dcsim" ./cmd/dcsim
go build -o "$work/htsimx" ./examples/htsim
. "$(dirname "$0")/timed.sh"
echo "sim,hosts,sim_us,round,wall_s,cpu_s,maxrss_mib,delivered_pkts"
for r in $(seq "$rounds"); do
	for n in 128 8192; do
		case $n in 128) k=8 end=2000 ;; 8192) k=32 end=200 ;; esac
		t=$(cd "$work" && timed "$work/htsim.out" "$HTSIM" -nodes $n -tm perm$n.cm -strat ecmp_host -paths 1 -end $end \
			-mtu 1000 -linkspeed 100000 -hop_latency 1 -q 1000 -o "$work/logout.dat")
		echo "htsim,$n,$end,$r,$t,$(awk '/^Delivered bytes:/ {print $6}' "$work/htsim.out")"
		for cc in none dcqcn; do
			# THREADS: also run dcsim on the parallel engine (--threads N)
			# for each N listed, e.g. THREADS="1 2".
			for th in seq ${THREADS:-}; do
				flag=() name=dcsim-$cc
				if [ "$th" != seq ]; then flag=(--threads "$th") name=dcsim-$cc-t$th; fi
				t=$(timed "$work/dcsim.out" "$work/dcsim" run --quiet --out "$work/run-$cc" "${flag[@]}" \
					--set topology.kind=fat-tree --set topology.k=$k --set topology.fabric_link=100Gbps \
					--set workload.kind=flowlist --set "workload.flowlist.file=$work/perm$n.csv" \
					--set duration=1us --set drain_limit=$((end - 1))us --set cc.algorithm=$cc)
				echo "$name,$n,$end,$r,$t,$("$work/htsimx" delivered "$work/run-$cc" | cut -d' ' -f1)"
			done
		done
	done
done
