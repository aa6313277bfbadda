#!/usr/bin/env bash
# Reproduces the HPCC-paper table of docs/studies/hpcc.md: WebSearch at 30% and 50% load,
# DCQCN against HPCC, on the 128-host spine-leaf. Four runs of about half
# a minute to a minute each on one core; results under out/hpcc-paper/.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o /tmp/dcsim ./cmd/dcsim
for load in 0.3 0.5; do
	for cc in dcqcn hpcc; do
		echo "== load $load, $cc"
		/tmp/dcsim run hpcc-paper --set workload.load=$load --set cc.algorithm=$cc \
			--out out/hpcc-paper/$cc-$load
	done
done
