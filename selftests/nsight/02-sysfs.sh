#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# sysfs control: valid writes work, garbage is rejected with the right errno,
# configuration is refused while a capture runs, counters add up.
. /lib/nsight/lib.sh

S=/sys/kernel/nsight

ktap_plan 29
nsight_load
for v in 2 -1 yes 1x " 1" 0x1 10 on; do
	check "enable rejects '$v'" write_fails $S/enable "$v" "Invalid argument"
done
check "sources rejects bogus" write_fails $S/sources bogus "Invalid argument"
check "sources rejects partly bogus" write_fails $S/sources "handoff,bogus" "Invalid argument"
check "sources accepts a list" sh -c "echo handoff,clock > $S/sources && [ \"\$(cat $S/sources)\" = handoff,clock ]"
check "sources accepts all" sh -c "echo all > $S/sources && [ \"\$(cat $S/sources)\" = $NSIGHT_ALL_SOURCES ]"
check "buffer_size rejects too small" write_fails $S/buffer_size 4096 "Invalid argument"
check "buffer_size rejects too big" write_fails $S/buffer_size 4294967295 "Invalid argument"
check "buffer_size rejects garbage" write_fails $S/buffer_size 1M "Invalid argument"
check "buffer_size accepts 1 MiB" sh -c "echo 1048576 > $S/buffer_size && [ \"\$(cat $S/buffer_size)\" = 1048576 ]"
check "sample_period rejects too short" write_fails $S/sample_period 9999 "Invalid argument"
check "sample_period rejects too long" write_fails $S/sample_period 2000000000 "Invalid argument"
check "sample_period rejects garbage" write_fails $S/sample_period 50us "Invalid argument"
check "sample_period accepts 100 us" sh -c "echo 100000 > $S/sample_period && [ \"\$(cat $S/sample_period)\" = 100000 ]"
check "enable 1 starts" sh -c "echo 1 > $S/enable && [ \"\$(cat $S/enable)\" = 1 ]"
check "enable 1 again is fine" sh -c "echo 1 > $S/enable"
check "sources busy while running" write_fails $S/sources handoff "busy"
check "buffer_size busy while running" write_fails $S/buffer_size 65536 "busy"
check "sample_period busy while running" write_fails $S/sample_period 50000 "busy"
sleep 1
check "enable 0 stops" sh -c "echo 0 > $S/enable && [ \"\$(cat $S/enable)\" = 0 ]"
check "records were written" sh -c "[ \$(cat $S/records_written) -gt 0 ]"
check "hits == written + dropped" sh -c "
	h=\$(cat $S/hook_hits) w=\$(cat $S/records_written) d=\$(cat $S/records_dropped)
	echo \"hits \$h written \$w dropped \$d\"
	[ \$h -eq \$((w + d)) ]"
check "per-cpu counters sum to totals" sh -c "
	sum=0
	for c in $S/cpu*; do sum=\$((sum + \$(cat \$c/records_written))); done
	echo \"sum \$sum total \$(cat $S/records_written)\"
	[ \$sum -eq \$(cat $S/records_written) ]"
nsight_unload
ktap_finish
