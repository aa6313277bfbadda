# Sourced by run.sh and scale.sh, after they set $work.
# timed OUT CMD... runs CMD at nice 5 under /usr/bin/time with its output in
# OUT and prints "wall_s,cpu_s,maxrss_mib" (CPU is user + system).
timed() {
	local out=$1
	shift
	/usr/bin/time -f '%e,%U,%S,%M' -o "$work/time" nice -n 5 "$@" >"$out" 2>&1
	awk -F, '{printf "%s,%.2f,%.1f", $1, $2 + $3, $4 / 1024}' "$work/time"
}
