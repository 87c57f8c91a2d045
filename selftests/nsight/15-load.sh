#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Load and faults. Two rate-limited UDP floods over veth while:
#  - a 64 KiB buffer per CPU is drained by readers of the relay files once
#    a second, slower than the records come (nsight_load_secs, default 60 s):
#    records lost, none unaccounted (hits == written + dropped, in total
#    and on every CPU);
#  - the same buffer is left undrained, then dumped and analysed: the
#    stream agrees with the kernel's counters;
#  - captures start and stop as often as they can for nsight_cycle_secs
#    (default 20 s), through sysfs and netlink in turn, every source on
#    (each cycle registers and unregisters every probe: about 1 s under
#    TCG, most of it the RCU grace periods of each ftrace hook's
#    unregistration); then nsight_toggle_count times (default 10,000; make check
#    runs the full count in the Debian 6.12 guest, fewer on the slower
#    kernels) through sysfs with sched_switch alone;
#  - CPU 1 goes offline and online three times during a capture with the
#    sample source on; the dump analyses cleanly;
#  - the module is unloaded while tracing with relay readers and status
#    clients busy, then reloaded and used.
# The test kernel adds KASAN, lockdep and kmemleak to all of it.
. /lib/nsight/lib.sh

S=/sys/kernel/nsight
D=/sys/kernel/debug/nsight
CPU1=/sys/devices/system/cpu/cpu1/online
FLOOD_SECS=${nsight_load_secs:-60}
CYCLE_SECS=${nsight_cycle_secs:-20}
TOGGLES=${nsight_toggle_count:-10000}

# Floods from nsa to nsb: every process sends 32 datagrams every 3 ms.
traffic_start() {
	for port in 9501 9502; do
		ip netns exec nsb udp_pair recv $port 1000000000 600000 >/dev/null 2>&1 &
		echo $! >>/tmp/load.pids
		ip netns exec nsa udp_pair flood 10.15.0.2 $port 3600 >/dev/null 2>&1 &
		echo $! >>/tmp/load.pids
	done
}

traffic_stop() {
	# shellcheck disable=SC2046
	[ -f /tmp/load.pids ] && kill $(cat /tmp/load.pids) 2>/dev/null
	rm -f /tmp/load.pids
	wait
}

# drain SECS: read every CPU's relay file once a second for SECS seconds
# (in the background; relay reads consume what they return).
drain() {
	(
		end=$(($(date +%s) + $1))
		while [ "$(date +%s)" -lt $end ]; do
			for f in $D/cpu[0-9]*; do
				cat "$f" >/dev/null 2>&1
			done
			sleep 1
		done
	) &
	echo $! >>/tmp/load.pids
}

# counters_add_up: hits == written + dropped in total and on every CPU;
# prints the totals.
counters_add_up() {
	h=$(cat $S/hook_hits) w=$(cat $S/records_written) d=$(cat $S/records_dropped)
	echo "hits $h written $w dropped $d"
	[ "$h" -eq $((w + d)) ] || { echo "total: hits $h != written $w + dropped $d"; return 1; }
	for c in $S/cpu[0-9]*; do
		h=$(cat $c/hook_hits) w=$(cat $c/records_written) d=$(cat $c/records_dropped)
		[ "$h" -eq $((w + d)) ] ||
			{ echo "${c##*/}: hits $h != written $w + dropped $d"; return 1; }
	done
}

# dump_analyze NAME: dump the stopped capture and analyse it strictly: the
# check must be ok and agree with the kernel's record and drop counts.
dump_analyze() {
	w=$(cat $S/records_written) d=$(cat $S/records_dropped)
	nsightctl dump -o /tmp/$1.nsight 2>/tmp/$1.dump.err || { cat /tmp/$1.dump.err; return 1; }
	nsight-analyze --verbose --strict /tmp/$1.nsight >/tmp/$1.txt 2>&1
	rc=$?
	grep -E '^(check|records):' /tmp/$1.txt
	[ $rc -eq 0 ] && grep -q '^check: ok' /tmp/$1.txt &&
		grep -q "^records: $w .*dropped: $d " /tmp/$1.txt ||
		{ tail -n 30 /tmp/$1.txt; return 1; }
}

at_exit "traffic_stop; [ -w $CPU1 ] && echo 1 > $CPU1"
ktap_plan 18
nsight_load
NCPUS=$(ls -d $S/cpu[0-9]* | wc -l)
check "two namespaces over veth" netns_pair nsa nsb 10.15.0.1 10.15.0.2
traffic_start

# 1. Flood into 64 KiB buffers drained once a second.
check "64 KiB buffers" nsightctl config --buffer-size 64K
check "start the drained flood" nsightctl start
drain "$FLOOD_SECS"
sleep "$FLOOD_SECS"
check "stop after $FLOOD_SECS s" nsightctl stop
out=$(counters_add_up)
rc=$?
ktap_diag "drained flood, $FLOOD_SECS s: $out"
set -- $out
# Undrained, a buffer holds at most 64 KiB / 16 bytes = 4096 records.
check "drained flood: records lost and drained, every one counted" sh -c "
	echo '$out'; [ $rc -eq 0 ] && [ ${6:-0} -gt 0 ] && [ ${4:-0} -gt $((NCPUS * 4096)) ]"

# 2. The same, undrained, through dump and analyze.
check "undrained flood" sh -c "nsightctl start && sleep 5 && nsightctl stop"
out=$(counters_add_up)
rc=$?
ktap_diag "undrained flood, 5 s: $out"
check "undrained flood: every record counted" sh -c "echo '$out'; [ $rc -eq 0 ]"
check "undrained flood: dump and analyze agree with the counters" dump_analyze flood

# 3. Start/stop cycles under traffic: every source on (each cycle attaches
# and detaches every probe), then sched_switch alone (quick cycles racing
# with a busy tracepoint).
cycles() {
	n=0 end=$(($(date +%s) + $1))
	while [ "$(date +%s)" -lt $end ]; do
		if [ $((n % 2)) -eq 0 ]; then
			echo 1 > $S/enable && echo 0 > $S/enable || return 1
		else
			nsightctl start >/dev/null && nsightctl stop >/dev/null || return 1
		fi
		n=$((n + 1))
	done
	echo $n > /tmp/load.cycles
}
nsightctl config --buffer-size 1M --sources all
t0=$(date +%s)
check "start/stop cycles for $CYCLE_SECS s, every source, sysfs and netlink in turn" \
	cycles "$CYCLE_SECS"
all_cycles=$(cat /tmp/load.cycles 2>/dev/null)
t1=$(date +%s)
ktap_diag "start/stop cycles: ${all_cycles:-?} with every source in $((t1 - t0)) s"
nsightctl config --sources sched_switch
check "$TOGGLES start/stop cycles through sysfs, sched_switch alone" sh -c "
	toggle $S/enable $TOGGLES >/tmp/load.toggle 2>&1; rc=\$?; cat /tmp/load.toggle; exit \$rc"
ktap_diag "$(cat /tmp/load.toggle)"
check "after the cycles: stopped, status answers" sh -c "
	[ \$(cat $S/enable) = 0 ] && nsightctl status >/dev/null"
out=$(counters_add_up)
rc=$?
check "after the cycles: hits == written + dropped" sh -c "echo '$out'; [ $rc -eq 0 ]"

# 4. CPU 1 offline and online during a capture, with the sample source.
if [ "$NCPUS" -ge 2 ] && [ -w $CPU1 ]; then
	nsightctl config --buffer-size 4M --sources all --sample-period 1ms
	check "hotplug: cpu1 offline/online 3 times during a capture" sh -c "
		nsightctl start || exit 1
		sleep 1
		for i in 1 2 3; do
			echo 0 > $CPU1 || exit 1
			[ \$(cat $CPU1) = 0 ] || exit 1
			nsightctl status >/dev/null || exit 1
			sleep 1
			echo 1 > $CPU1 || exit 1
			sleep 1
		done
		nsightctl stop"
	out=$(counters_add_up)
	rc=$?
	ktap_diag "hotplug capture: $out"
	check "hotplug: every record counted" sh -c "echo '$out'; [ $rc -eq 0 ]"
	check "hotplug: dump and analyze agree with the counters" dump_analyze hotplug
else
	ktap_skip "hotplug: cpu1 offline/online 3 times during a capture" "cpu1 cannot go offline"
	ktap_skip "hotplug: every record counted" "cpu1 cannot go offline"
	ktap_skip "hotplug: dump and analyze agree with the counters" "cpu1 cannot go offline"
fi

# 5. Unload while tracing, with relay readers and netlink clients busy.
nsightctl config --buffer-size 256K --sources all
check "start for the unload" nsightctl start
drain 10
(
	end=$(($(date +%s) + 10))
	while [ "$(date +%s)" -lt $end ]; do
		nsightctl status >/dev/null 2>&1
		cat $S/hook_hits $D/cpu0 >/dev/null 2>&1
	done
) &
echo $! >>/tmp/load.pids
sleep 2
# A reader with a cpuN file open holds the module (rmmod: in use, at once:
# O_NONBLOCK); these readers open and close in a loop, so rmmod gets in
# between within a few tries.
check "rmmod while tracing, readers and clients busy" wait_until 50 0.1 rmmod nsight
check "reload, capture, counters add up" sh -c "
	/sbin/insmod $NSIGHT_KO && nsightctl start && sleep 1 && nsightctl stop &&
	[ \$(cat $S/records_written) -gt 0 ] &&
	[ \$(cat $S/hook_hits) -eq \$((\$(cat $S/records_written) + \$(cat $S/records_dropped))) ]"
traffic_stop
netns_cleanup
nsight_unload
ktap_finish
