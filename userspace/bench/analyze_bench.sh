#!/bin/sh
# SPDX-License-Identifier: MIT
# analyze_bench.sh GEN ANALYZE RECORDS CG_RECORDS DIR [WINDOW] (make
# bench-analyze): nsight-analyze's throughput on a synthetic capture of
# RECORDS records (written by GEN into DIR once and kept): wall and CPU
# time, records/s, MB/s, peak memory, with one thread and the default (and
# that both give the same report); the same with --window WINDOW
# (default 100ms), and that the windows hold the same complete messages;
# with --whole-diagnosis too, and that its diagnosis is the one without
# windows; then its instructions per record under callgrind on a capture of
# CG_RECORDS records (repeatable, unlike time), without and with --window,
# if valgrind is installed and CG_RECORDS is not 0.
set -eu
gen=$1 analyze=$2 n=$3 cg_n=$4 dir=$5 window=${6:-100ms}
mkdir -p "$dir"

capture() {
	f=$dir/bench-$1.nsight
	[ -s "$f" ] || "$gen" "$1" "$f" >&2
	echo "$f"
}

big=$(capture "$n")
bytes=$(wc -c <"$big")
# One thread, then the default (two where two CPUs are online): the same
# report, checked.
threads=$(getconf _NPROCESSORS_ONLN)
for t in 1 default; do
	if [ "$t" = 1 ]; then set -- --threads 1; else set --; fi
	/usr/bin/time -f '%e %U %S %M' -o "$dir/bench-$n-$t.time" "$analyze" "$@" --verbose "$big" \
		>"$dir/bench-$n-$t.txt"
	grep -q '^check: ok' "$dir/bench-$n-$t.txt" || { echo "bench-analyze: the check failed:" >&2; head -n 20 "$dir/bench-$n-$t.txt" >&2; exit 1; }
done
cmp -s "$dir/bench-$n-1.txt" "$dir/bench-$n-default.txt" || { echo "bench-analyze: --threads 1 and the default differ" >&2; exit 1; }
cp "$dir/bench-$n-default.txt" "$dir/bench-$n.txt"
recs=$(sed -n 's/^records: \([0-9]*\) .*/\1/p' "$dir/bench-$n.txt")
echo "capture:     $recs records, $(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }') MB ($threads CPUs online)"
for t in 1 default; do
	read -r wall user sys rss <"$dir/bench-$n-$t.time"
	awk -v t="$t" -v r="$recs" -v b="$bytes" -v w="$wall" -v u="$user" -v s="$sys" -v m="$rss" 'BEGIN {
		printf "%-12s %.2f s wall (%.2f user, %.2f sys): %.2f M records/s, %.1f MB/s; peak memory %.0f MB (%.1f bytes per record, %.2fx the capture)\n",
			(t == "1" ? "1 thread:" : "default:"), w, u, s, r / w / 1e6, b / w / 1e6, m / 1024, m * 1024 / r, m * 1024 / b
	}'
done
grep -E '^(check|latency|diagnosis):' "$dir/bench-$n.txt" | head -n 3

# The same capture a window at a time: memory follows the window.
/usr/bin/time -f '%e %U %S %M' -o "$dir/bench-$n-window.time" "$analyze" --verbose \
	--window "$window" "$big" >"$dir/bench-$n-window.txt"
read -r wall user sys rss <"$dir/bench-$n-window.time"
complete() { sed -n 's/^latency: [0-9]* messages, \([0-9]*\) complete.*/\1/p' "$1" | awk '{ s += $1 } END { print s + 0 }'; }
whole=$(complete "$dir/bench-$n.txt")
windowed=$(complete "$dir/bench-$n-window.txt")
nwin=$(grep -c '^window [0-9]*:' "$dir/bench-$n-window.txt" || true)
awk -v r="$recs" -v b="$bytes" -v w="$wall" -v m="$rss" -v win="$window" -v k="$nwin" 'BEGIN {
	printf "windowed:    --window %s, %d windows: %.2f s wall, %.2f M records/s, peak memory %.0f MB (%.3fx the capture)\n",
		win, k, w, r / w / 1e6, m / 1024, m * 1024 / b
}'
echo "             complete messages: $whole without windows, $windowed in the windows"
[ "$whole" = "$windowed" ] || { echo "bench-analyze: the windows do not hold the same complete messages" >&2; exit 1; }

# The whole capture's diagnosis from the windows (--whole-diagnosis): the
# same groups and causes as without windows, in the windows' memory.
/usr/bin/time -f '%e %U %S %M' -o "$dir/bench-$n-wdx.time" "$analyze" --verbose \
	--window "$window" --whole-diagnosis "$big" >"$dir/bench-$n-wdx.txt"
read -r wall user sys rss <"$dir/bench-$n-wdx.time"
# The diagnosis's groups, without the receive work that only the analysis
# without windows gives (its line and the flows under it).
dxblock() {
	awk '/^diagnosis: / { on = 1; rw = 0; print; next }
	     on && /^  / { if ($0 ~ /^    receive work behind/) { rw = 1; next }
			   if (rw && $0 ~ /^      /) next
			   rw = 0; print; next }
	     { on = 0 }' "$1"
}
# The critical path of each group's tail, and of each tail message.
cpblock() {
	awk '/^critical path: / { on = 1; print; next } on && /^  / { print; next } { on = 0 }' "$1"
}
{ dxblock "$dir/bench-$n.txt"; cpblock "$dir/bench-$n.txt"; } >"$dir/bench-$n.dx"
sed -n '/^whole capture:/,$p' "$dir/bench-$n-wdx.txt" >"$dir/bench-$n-wdx.whole"
{ dxblock "$dir/bench-$n-wdx.whole"; cpblock "$dir/bench-$n-wdx.whole"; } >"$dir/bench-$n-wdx.dx"
rm -f "$dir/bench-$n-wdx.whole"
awk -v r="$recs" -v b="$bytes" -v w="$wall" -v m="$rss" -v win="$window" 'BEGIN {
	printf "whole dx:    --window %s --whole-diagnosis: %.2f s wall, %.2f M records/s, peak memory %.0f MB (%.3fx the capture)\n",
		win, w, r / w / 1e6, m / 1024, m * 1024 / b
}'
if cmp -s "$dir/bench-$n.dx" "$dir/bench-$n-wdx.dx"; then
	echo "             diagnosis: the same $(grep -c '^diagnosis: ' "$dir/bench-$n.dx") groups, causes and critical paths as without windows"
else
	echo "bench-analyze: the whole capture's diagnosis or critical path from the windows differs" >&2
	diff "$dir/bench-$n.dx" "$dir/bench-$n-wdx.dx" | head -n 10 >&2
	exit 1
fi

# The report streamed (--stream always; what --stream auto does when the
# capture would not fit): the same diagnosis and critical paths, in the
# memory of its windows.
/usr/bin/time -f '%e %U %S %M' -o "$dir/bench-$n-stream.time" "$analyze" --verbose \
	--stream always "$big" >"$dir/bench-$n-stream.txt"
read -r wall user sys rss <"$dir/bench-$n-stream.time"
{ dxblock "$dir/bench-$n-stream.txt"; cpblock "$dir/bench-$n-stream.txt"; } >"$dir/bench-$n-stream.dx"
awk -v r="$recs" -v b="$bytes" -v w="$wall" -v u="$user" -v m="$rss" \
	-v k="$(sed -n 's/^streamed: \([0-9]*\) windows of \([^,]*\),.*/\1 windows of \2/p' "$dir/bench-$n-stream.txt")" 'BEGIN {
	printf "streamed:    --stream always (%s): %.2f s wall (%.2f user), %.2f M records/s, peak memory %.0f MB (%.3fx the capture)\n",
		k, w, u, r / w / 1e6, m / 1024, m * 1024 / b
}'
if cmp -s "$dir/bench-$n.dx" "$dir/bench-$n-stream.dx"; then
	echo "             diagnosis: the same groups, causes and critical paths as without streaming"
else
	echo "bench-analyze: the streamed report's diagnosis or critical path differs" >&2
	diff "$dir/bench-$n.dx" "$dir/bench-$n-stream.dx" | head -n 10 >&2
	exit 1
fi

[ "$cg_n" -gt 0 ] || exit 0
if ! command -v valgrind >/dev/null 2>&1; then
	echo "callgrind:   valgrind is not installed"
	exit 0
fi
small=$(capture "$cg_n")
valgrind --tool=callgrind --callgrind-out-file="$dir/callgrind.out" "$analyze" --threads 1 --verbose "$small" \
	>"$dir/bench-$cg_n.txt" 2>"$dir/callgrind.log"
ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$dir/callgrind.log")
cg_recs=$(sed -n 's/^records: \([0-9]*\) .*/\1/p' "$dir/bench-$cg_n.txt")
awk -v i="$ir" -v r="$cg_recs" 'BEGIN {
	printf "callgrind:   %d instructions for %d records, %.0f per record\n", i, r, i / r }'
echo "             (callgrind_annotate $dir/callgrind.out for the functions)"
valgrind --tool=callgrind --callgrind-out-file="$dir/callgrind-window.out" "$analyze" --threads 1 --verbose \
	--window "$window" "$small" >/dev/null 2>"$dir/callgrind-window.log"
ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$dir/callgrind-window.log")
awk -v i="$ir" -v r="$cg_recs" -v win="$window" 'BEGIN {
	printf "             with --window %s: %d instructions, %.0f per record (each window reads its margins too)\n", win, i, i / r }'
