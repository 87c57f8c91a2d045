#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# dump -> analyze round trip, bad streams rejected, and loss accounting
# when a small buffer overflows.
. /lib/nsight/lib.sh

S=/sys/kernel/nsight

# Context switches on demand: short-lived processes.
churn() {
	end=$(( $(date +%s) + $1 ))
	while [ "$(date +%s)" -lt $end ]; do
		/bin/true
	done
}

ktap_plan 14
nsight_load
check "capture" sh -c "nsightctl start && sleep 1 && nsightctl stop"
check "dump" sh -c "nsightctl dump -o /tmp/cap.nsight"
check "analyze --strict" sh -c "nsight-analyze --verbose --strict /tmp/cap.nsight | tee /tmp/cap.txt"
check "sched_switch records" sh -c "awk '\$1 == \"sched_switch\" && \$2 > 0 {f=1} END {exit !f}' /tmp/cap.txt"
check "one clock_sync record" sh -c "awk '\$1 == \"clock_sync\" && \$2 == 1 {f=1} END {exit !f}' /tmp/cap.txt"
check "timekeeper records" sh -c "awk '\$1 == \"timekeeper\" && \$2 > 0 {f=1} END {exit !f}' /tmp/cap.txt"
check "analyze reads stdin" sh -c "nsight-analyze < /tmp/cap.nsight | grep -q '^check: ok'"

size=$(wc -c < /tmp/cap.nsight)
head -c $((size / 2)) /tmp/cap.nsight > /tmp/trunc.nsight
# Cut short (Ctrl-C during a dump): analysed up to the cut, with a warning
# naming the byte; --strict fails on it.
check "truncated stream: analysed up to the cut, byte named, --strict exits 1" sh -c "
	nsight-analyze /tmp/trunc.nsight >/tmp/trunc.txt 2>/tmp/trunc.err; rc=\$?
	cat /tmp/trunc.err
	[ \$rc -eq 0 ] && grep -q 'warning: truncated at byte [0-9]' /tmp/trunc.err &&
	grep -q 'cut short at byte' /tmp/trunc.txt &&
	! nsight-analyze --strict /tmp/trunc.nsight >/dev/null 2>&1"
cp /tmp/cap.nsight /tmp/bad.nsight
printf '\377\377\377\377' | dd of=/tmp/bad.nsight bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
check "corrupt stream: exit 1" sh -c "
	nsight-analyze /tmp/bad.nsight >/dev/null 2>/tmp/bad.err; rc=\$?
	cat /tmp/bad.err
	[ \$rc -eq 1 ]"

check "dump refused while running" sh -c "
	nsightctl start && { nsightctl dump -o /tmp/x.nsight; rc=\$?; nsightctl stop; [ \$rc -eq 1 ]; }"

# Overflow a 64 KiB buffer with context records, nobody reading: a switch
# and its wake-up are 32 bytes, so about 2,000 switches on one CPU, which
# the debug kernel takes tens of seconds to make (a slower emulator more).
nsightctl config --buffer-size 65536 --sources sched_switch,sched_waking,idle
nsightctl start
churn 3
i=0
while [ "$(cat $S/records_dropped)" -eq 0 ] && [ $i -lt 60 ]; do
	churn 1
	i=$((i + 1))
done
nsightctl stop
h=$(cat $S/hook_hits) w=$(cat $S/records_written) d=$(cat $S/records_dropped)
ktap_diag "overflow: hits $h written $w dropped $d"
check "small buffer overflowed" sh -c "[ $d -gt 0 ]"
check "overflow: hits == written + dropped" sh -c "[ $h -eq $((w + d)) ]"
check "overflow: dump and analyze account for every drop" sh -c "
	nsightctl dump -o /tmp/ovf.nsight 2>/tmp/ovf.err; cat /tmp/ovf.err
	grep -q 'dropped' /tmp/ovf.err &&
	nsight-analyze --verbose --strict /tmp/ovf.nsight > /tmp/ovf.txt && cat /tmp/ovf.txt &&
	grep -q '^check: ok' /tmp/ovf.txt &&
	grep -q '^records: $w .*dropped: $d ' /tmp/ovf.txt"
nsightctl config --buffer-size 4M --sources all
check "restart after overflow starts clean" sh -c "
	nsightctl start && nsightctl stop && [ \$(cat $S/records_dropped) -eq 0 ]"
nsight_unload
ktap_finish
