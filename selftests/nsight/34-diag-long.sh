#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A long recording (make bench: 10 minutes; make check: a few seconds):
# the UDP echo server at nsight_long_rate requests/s for nsight_long_secs
# seconds, captured with `nsightctl record` and the default settings. Its
# stream goes to the raw virtio disk /dev/vda when the guest has one (make
# bench attaches it, and analyses the stream on the host afterwards: a
# 10-minute capture does not fit in the guest's memory), else to /tmp,
# where it is analysed with --strict --window 1s. Reports the records,
# drops, bytes of stream and nsightctl's CPU.
. /lib/nsight/lib.sh
. /tests/diag-lib.sh

RATE=${nsight_long_rate:-1000}
SECS=${nsight_long_secs:-5}
HZ=$(getconf CLK_TCK 2>/dev/null || echo 100)
S=/sys/kernel/nsight

ktap_plan 3
nsight_load
netns_pair nsa nsb 10.16.0.1 10.16.0.2
# make bench puts virtio_blk in the initramfs and attaches the disk.
if modprobe virtio_blk 2>/dev/null; then
	wait_until 50 0.1 test -b /dev/vda
fi
if [ -b /dev/vda ]; then
	out=/dev/vda
else
	out=/tmp/long.nsight
fi
ktap_diag "long: ${SECS} s at ${RATE} req/s into $out"

nsightctl record -o $out 2>/tmp/long.err &
rp=$!
wait_until 600 0.1 grep -q 1 $S/enable
k0=$(awk '{ print $14 + $15 }' /proc/$rp/stat)
t0=$(cut -d ' ' -f 1 /proc/uptime)
load_run udp $((RATE * SECS)) "$RATE" /tmp/long.client
k1=$(awk '{ print $14 + $15 }' /proc/$rp/stat 2>/dev/null)
t1=$(cut -d ' ' -f 1 /proc/uptime)
kill -INT $rp
wait $rp
rc=$?
sync
cat /tmp/long.err
ktap_diag "client: $(cat /tmp/long.client)"
check "a long recording ends with exit 0" test $rc -eq 0
bytes=$(awk '$2 == "recorded" { print $(NF - 3) }' /tmp/long.err)
ktap_diag "$(awk -v w="$(cat $S/records_written)" -v d="$(cat $S/records_dropped)" \
	-v b="${bytes:-0}" -v t=$((${k1:-0} - ${k0:-0})) -v e="$t0 $t1" -v hz="$HZ" \
	-v secs="$SECS" -v rate="$RATE" -v out="$out" 'BEGIN {
	split(e, u, " ")
	printf "T long recording: udp %d req/s x %d s: %d records, %d dropped, %d bytes of stream (%.1f MB/min), nsightctl %.1f%% of a CPU, to %s\n",
		rate, secs, w, d, b, b / 1e6 / (secs / 60), 100 * t / hz / (u[2] - u[1]), out }')"
check "nothing dropped" test "$(cat $S/records_dropped)" -eq 0
if [ "$out" = /dev/vda ]; then
	# The host reads the stream back from the disk image: its length.
	echo "NSIGHT-LONG-BYTES ${bytes:-0}"
	check "the stream's length is known" test "${bytes:-0}" -gt 0
else
	check "the capture analyses with --strict in 1 s windows" \
		sh -c "nsight-analyze --strict --window 1s $out >/tmp/long.txt 2>&1"
fi
netns_cleanup
nsight_unload
ktap_finish
