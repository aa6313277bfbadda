#!/usr/bin/env bash
# Threshold sensitivity of ARN+AFI (docs/studies/arn-afi.md, "The
# experiment"): one threshold at a time around the defaults (hcd_th 0.5,
# lcd_th 0.25, fc_th 0.5 of a 64 KB VC buffer, crt 1 us), on the arn-afi
# scenario shrunk to a k = 8 fat-tree (128 hosts) under H25, at nice 5.
# Each line of the summary CSV is one setting.
#
#   examples/isolation/sweep.sh examples/results/isolation-sweep
set -euo pipefail
out=${1:?usage: sweep.sh OUTPREFIX}
scheme=${SCHEME:-arn-afi-gap0}
cd "$(dirname "$0")/../.."
go build -o /tmp/isolation-sweep ./examples/isolation
first=1
for set in "" hcd_th=0.25 hcd_th=0.75 lcd_th=0.1 lcd_th=0.4 fc_th=0.25 fc_th=0.75 crt=0s crt=5us; do
	extra=()
	[ -n "$set" ] && extra=(-set "switch.isolation.$set")
	nice -n 5 /tmp/isolation-sweep run "$out.tmp" -k 8 -hot H25 -schemes "$scheme" "${extra[@]}" 2>/dev/null
	if [ $first = 1 ]; then
		head -1 "$out.tmp-summary.csv" | sed 's/^/setting,/' > "$out.csv"
		first=0
	fi
	tail -n +2 "$out.tmp-summary.csv" | sed "s/^/${set:-default},/" >> "$out.csv"
done
rm -f "$out.tmp.csv" "$out.tmp-summary.csv"
cat "$out.csv"
