#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Recording without loss (make bench at full length, make check short), in
# the diag guest under -icount: the UDP echo and memcached, each at rising
# request rates, captured with `nsightctl record` and the default settings
# (every default source, 4 MiB per CPU), its reader in the same guest. Per
# rate: records written and dropped, MB/s of stream, the CPU time
# nsightctl took, the rate the client achieved; then the highest rate
# recorded without a drop.
#
# Parameters (kernel command line): nsight_rec_rates (requests/s, rising,
# comma-separated), nsight_rec_secs (seconds per rate).
. /lib/nsight/lib.sh
. /tests/diag-lib.sh

RATES=$(echo "${nsight_rec_rates:-1000,5000}" | tr , ' ')
SECS=${nsight_rec_secs:-2}
S=/sys/kernel/nsight
HZ=$(getconf CLK_TCK 2>/dev/null || echo 100)

ktap_plan 4
nsight_load
netns_pair nsa nsb 10.16.0.1 10.16.0.2
memcached_start
check "memcached answers" test $? -eq 0
: >/tmp/rec.rows

# rec_run WORKLOAD RATE [RECORD ARGS]: one recording; appends "WORKLOAD
# RATE WRITTEN DROPPED STREAM_BYTES CPU_TICKS SENT RECEIVED P50_US SECONDS
# P99_US" to /tmp/rec.rows (SECONDS: the load's, over which CPU_TICKS are
# counted).
rec_run() {
	n=$(($2 * SECS))
	rm -f /tmp/rec.nsight
	# shellcheck disable=SC2086
	nsightctl record $3 -o /tmp/rec.nsight 2>/tmp/rec.err &
	rp=$!
	wait_until 600 0.1 grep -q 1 $S/enable
	# nsightctl's utime + stime in clock ticks while the load runs (the
	# start, whose attaching of hooks is system time of nsightctl, and
	# the final drain are left out), and the time it ran.
	k0=$(awk '{ print $14 + $15 }' /proc/$rp/stat)
	t0=$(cut -d ' ' -f 1 /proc/uptime)
	load_run "$1" "$n" "$2" /tmp/rec.client
	k1=$(awk '{ print $14 + $15 }' /proc/$rp/stat 2>/dev/null)
	t1=$(cut -d ' ' -f 1 /proc/uptime)
	ticks=$((${k1:-0} - ${k0:-0}))
	kill -INT $rp
	wait $rp
	rc=$?
	# In windows: the analysis of a whole minute would not fit in the
	# guest's memory beside the capture on its tmpfs.
	if [ $rc -ne 0 ] || ! nsight-analyze --strict --window 1s /tmp/rec.nsight >/tmp/rec.txt 2>&1; then
		cat /tmp/rec.err /tmp/rec.txt
		echo "$1 $2 failed" >>/tmp/rec.rows
		return
	fi
	awk -v c="$1 $2" -v w="$(cat $S/records_written)" -v d="$(cat $S/records_dropped)" \
		-v b="$(wc -c </tmp/rec.nsight)" -v t="${ticks:-0}" -v e="$t0 $t1" '$1 == "sent" {
		for (i = 1; i < NF; i++) v[$i] = $(i + 1)
		split(e, u, " ")
		print c, w, d, b, t, v["sent"], v["received"], v["p50_us"], u[2] - u[1], v["p99_us"] }' \
		/tmp/rec.client >>/tmp/rec.rows
	ktap_diag "$1 $2/s: $(tail -n 1 /tmp/rec.err); client: $(cat /tmp/rec.client)"
}

for w in udp memcached; do
	for r in $RATES; do
		rec_run $w $r
	done
done
# --compress: the stream's size before (nsightctl's summary) and after
# zstd, and nsightctl's CPU time, at the first rate.
r1=$(echo $RATES | cut -d ' ' -f 1)
mv /tmp/rec.rows /tmp/rec.rows.plain
rec_run udp "$r1" --compress
mv /tmp/rec.rows /tmp/rec.rows.z
mv /tmp/rec.rows.plain /tmp/rec.rows
zraw=$(awk '$2 == "recorded" { print $(NF - 3) }' /tmp/rec.err)
ktap_diag "$(awk -v raw="${zraw:-0}" -v hz="$HZ" -v secs="$SECS" '$3 != "failed" {
	printf "T record --compress udp %d req/s x %d s: %d bytes of stream in %d (%.1fx), nsightctl %.1f%% of a CPU\n",
		$2, secs, raw, $5, $5 ? raw / $5 : 0, 100 * $6 / hz / $10 }' /tmp/rec.rows.z)"

# The flight recorder at the first rate, with a trigger that never fires:
# its reader's CPU and the client's latency beside the plain recording's
# (the hooks are the same; what differs is the reader).
mv /tmp/rec.rows /tmp/rec.rows.plain
rec_run udp "$r1" "--flight-recorder --trigger latency>1000ms"
mv /tmp/rec.rows /tmp/rec.rows.f
mv /tmp/rec.rows.plain /tmp/rec.rows
ktap_diag "$(tail -n 1 /tmp/rec.err)"
ktap_diag "$(awk -v hz="$HZ" -v secs="$SECS" 'FNR == 1 { f = FILENAME }
	f ~ /\.f$/ && $3 != "failed" { fl = sprintf("nsightctl %.1f%% of a CPU, %d bytes of stream, client p50 %s us p99 %s us", 100 * $6 / hz / $10, $5, $9, $11) }
	f !~ /\.f$/ && $1 == "udp" && !pl { pl = sprintf("nsightctl %.1f%% of a CPU, %d bytes of stream, client p50 %s us p99 %s us", 100 * $6 / hz / $10, $5, $9, $11) }
	END { printf "T record --flight-recorder (no trigger fired) udp %s req/s x %d s: %s; plain record: %s\n", r, secs, fl, pl }' \
	r="$r1" /tmp/rec.rows.f /tmp/rec.rows)"

awk -v secs="$SECS" -v hz="$HZ" '
	$3 == "failed" { next }
	{ printf "T record %-9s %6d req/s x %d s: %9d records, %7d dropped, %6.2f MB/s of stream, nsightctl %4.1f%% of a CPU, client %d sent %d received, p50 %s us\n",
		$1, $2, secs, $3, $4, $5 / $10 / 1e6, 100 * $6 / hz / $10, $7, $8, $9
	  if ($4 == 0 && $2 > best[$1]) best[$1] = $2 }
	END {
		printf "T record: highest rate without a drop (default settings, %d s): udp %s req/s, memcached %s req/s\n",
			secs, best["udp"] ? best["udp"] : "none", best["memcached"] ? best["memcached"] : "none"
	}' /tmp/rec.rows >/tmp/rec.table
while IFS= read -r l; do ktap_diag "$l"; done </tmp/rec.table
nrates=$(echo $RATES | wc -w)
check "every recording gave a whole stream that analyzes with --strict" \
	test "$(cat /tmp/rec.rows /tmp/rec.rows.z /tmp/rec.rows.f | grep -c failed)" -eq 0
check "every rate measured for both workloads" \
	test "$(wc -l </tmp/rec.rows)" -eq $((2 * nrates))
check "the recordings held records" \
	test "$(awk '$3 > 0' /tmp/rec.rows | wc -l)" -eq $((2 * nrates))
netns_cleanup
nsight_unload
ktap_finish
