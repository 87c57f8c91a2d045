#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# nsightctl record: the buffers drained while the capture runs, so that a
# capture holds more than its buffers; the ways it stops (duration, size,
# signal, a stop from elsewhere); the stream on a pipe; one reader at a
# time; the module held while it reads; loss told when it begins.
. /lib/nsight/lib.sh

S=/sys/kernel/nsight
BUF=65536

# Context switches on demand: short-lived processes.
churn() {
	end=$(( $(date +%s) + $1 ))
	while [ "$(date +%s)" -lt $end ]; do
		/bin/true
	done
}

# dumped BYTES from nsightctl's report on stderr (file $1).
dumped() { awk '$2 == "dumped" { print $3 }' "$1"; }

ktap_plan 19
nsight_load
ncpu=$(nproc)
check "record --help" sh -c "nsightctl record --help | grep -q -- --max-size"
check "bad duration: usage error" sh -c "nsightctl record -o /tmp/x --duration 5x; [ \$? -eq 2 ]"
check "bad size: usage error" sh -c "nsightctl record -o /tmp/x --max-size lots; [ \$? -eq 2 ]"

nsightctl config --buffer-size $BUF --sources sched_switch,sched_waking,softirq,idle
# The reference: the same churn into the same buffers, dumped at the end.
nsightctl start
churn 6
nsightctl stop
nsightctl dump -o /tmp/ref.nsight 2>/tmp/ref.err
ref_dropped=$(cat $S/records_dropped)
ref_bytes=$(dumped /tmp/ref.err)

churn 14 &
cp=$!
nsightctl record -o /tmp/rec.nsight --duration 12 2>/tmp/rec.err
rc=$?
wait $cp
cat /tmp/rec.err
rec_bytes=$(dumped /tmp/rec.err)
rec_written=$(cat $S/records_written)
rec_dropped=$(cat $S/records_dropped)
ktap_diag "buffers $BUF bytes x $ncpu CPUs; dump after the capture: $ref_bytes bytes, $ref_dropped dropped; record: $rec_bytes bytes, $rec_written written, $rec_dropped dropped"
check "record --duration: exit 0, capture stopped" sh -c "[ $rc -eq 0 ] && [ \"\$(cat $S/enable)\" = 0 ]"
check "record holds more than the buffers" sh -c "[ ${rec_bytes:-0} -gt $((BUF * ncpu)) ]"
check "record: analyze --strict accounts for every record" sh -c "
	nsight-analyze --verbose --strict /tmp/rec.nsight >/tmp/rec.txt 2>&1; rc=\$?; cat /tmp/rec.txt
	[ \$rc -eq 0 ] && grep -q '^check: ok' /tmp/rec.txt &&
	grep -q '^records: $rec_written .*dropped: $rec_dropped ' /tmp/rec.txt"

# churn_while PID: churn until PID exits.
churn_while() {
	while kill -0 "$1" 2>/dev/null; do
		/bin/true
	done
}
ok_stream() { nsight-analyze --strict "$1" | grep -q '^check: ok'; }

nsightctl record -o /tmp/max.nsight --max-size 64K 2>/tmp/max.err &
p=$!
churn_while $p
wait $p
rc=$?
cat /tmp/max.err
check "record --max-size stops by itself" sh -c "
	[ $rc -eq 0 ] && [ $(dumped /tmp/max.err) -ge 65536 ]"
check "record --max-size: a whole stream" ok_stream /tmp/max.nsight

nsightctl record -o /tmp/int.nsight 2>/tmp/int.err &
p=$!
wait_until 60 0.5 grep -q 1 $S/enable
churn 3
kill -INT $p
wait $p
rc=$?
cat /tmp/int.err
check "SIGINT ends a recording with a whole stream" sh -c "
	[ $rc -eq 0 ] && [ \"\$(cat $S/enable)\" = 0 ] &&
	nsight-analyze --strict /tmp/int.nsight | grep -q '^check: ok'"

# A second reader is refused before it starts anything; rmmod is refused
# while the first holds the buffers open; SIGINT twice still ends with a
# whole stream.
nsightctl record -o /tmp/two.nsight 2>/tmp/two.err &
p=$!
wait_until 60 0.5 grep -q 1 $S/enable
nsightctl record -o /tmp/second.nsight --duration 1 2>/tmp/second.err
rc2=$?
rmmod nsight 2>/tmp/rmmod.err
rmrc=$?
churn 1
kill -INT $p
kill -INT $p
wait $p
rc=$?
cat /tmp/second.err /tmp/rmmod.err /tmp/two.err
check "a second record while one runs: exit 1, says why, no file" sh -c "
	[ $rc2 -eq 1 ] && grep -q 'another nsightctl record or dump is reading' /tmp/second.err &&
	[ ! -e /tmp/second.nsight ]"
check "rmmod while a recording reads is refused" sh -c "[ $rmrc -ne 0 ] && [ -d $S ]"
check "SIGINT twice: exit 0 and a whole stream" sh -c "
	[ $rc -eq 0 ] && nsight-analyze --strict /tmp/two.nsight | grep -q '^check: ok'"

# The reader stopped while the CPUs write: its buffers fill, and record
# says when and where loss began.
nsightctl record -o /tmp/stall.nsight 2>/tmp/stall.err &
p=$!
wait_until 60 0.5 grep -q 1 $S/enable
kill -STOP $p
# Compact records: 64 KiB per CPU hold a few seconds of this churn.
churn 10
kill -CONT $p
sleep 2
kill -INT $p
wait $p
rc=$?
cat /tmp/stall.err
check "loss is told: which CPU, and by when" sh -c "
	[ $rc -eq 0 ] && grep -q 'cpu [0-9]* began dropping records by [0-9.]* s' /tmp/stall.err &&
	nsight-analyze --strict /tmp/stall.nsight | grep -q '^check: ok'"

nsightctl record -o /tmp/ext.nsight 2>/tmp/ext.err &
p=$!
wait_until 60 0.5 grep -q 1 $S/enable
churn 2
nsightctl stop
wait $p
rc=$?
cat /tmp/ext.err
check "a stop from elsewhere ends a recording" sh -c "
	[ $rc -eq 0 ] && grep -q 'stopped elsewhere' /tmp/ext.err &&
	nsight-analyze --strict /tmp/ext.nsight | grep -q '^check: ok'"

nsightctl start
churn 1
nsightctl record -o /tmp/att.nsight --duration 2 2>/tmp/att.err
rc=$?
cat /tmp/att.err
check "record takes over a running capture" sh -c "
	[ $rc -eq 0 ] && [ \"\$(cat $S/enable)\" = 0 ] &&
	nsight-analyze --strict /tmp/att.nsight | grep -q '^check: ok'"

check "record -o - | nsight-analyze -" sh -c "
	nsightctl record -o - --duration 3 2>/tmp/pipe.err | nsight-analyze --strict - >/tmp/pipe.txt; rc=\$?
	cat /tmp/pipe.err /tmp/pipe.txt
	[ \$rc -eq 0 ] && grep -q '^check: ok' /tmp/pipe.txt"

nsightctl record --compress -o /tmp/z.nsight --duration 2 2>/tmp/z.err
rc=$?
cat /tmp/z.err
ktap_diag "record --compress: $(wc -c </tmp/z.nsight) bytes for $(awk '$2 == "recorded" { print $(NF - 3) }' /tmp/z.err) of stream"
check "record --compress: a zstd stream that nsight-analyze reads as is" sh -c "
	[ $rc -eq 0 ] && [ \"\$(head -c 4 /tmp/z.nsight | od -An -tx1 | tr -d ' ')\" = 28b52ffd ] &&
	nsight-analyze --strict /tmp/z.nsight | grep -q '^check: ok' &&
	nsight-analyze --strict - </tmp/z.nsight | grep -q '^check: ok'"
check "dump --compress | nsight-analyze -" sh -c "
	nsightctl start && sleep 1 && nsightctl stop &&
	nsightctl dump --compress | nsight-analyze --strict - | grep -q '^check: ok'"

mkdir -p /tmp/small
mount -t tmpfs -o size=64k tmpfs /tmp/small
nsightctl record -o /tmp/small/cap.nsight --no-ksyms 2>/tmp/full.err &
p=$!
churn_while $p &
wait $p
rc=$?
cat /tmp/full.err
ls -l /tmp/small
check "a full disk: exit 1, file named, capture stopped, no file left" sh -c "
	[ $rc -eq 1 ] && grep -q '/tmp/small/cap.nsight.*No space left' /tmp/full.err &&
	[ \"\$(cat $S/enable)\" = 0 ] && [ ! -e /tmp/small/cap.nsight ]"
umount /tmp/small
nsightctl config --buffer-size 4M --sources all
nsight_unload
ktap_finish
