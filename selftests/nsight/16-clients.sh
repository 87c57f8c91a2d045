#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Concurrent nsightctl clients under UDP traffic for nsight_clients_secs
# (default 15 s): status, status --json, two config loops with different
# values, start/stop and sysfs readers, all at once. Every command must
# exit as its state allows (status 0; config, start and stop 0 or 1 for
# EBUSY/EALREADY; never a usage error or a signal); afterwards the module
# is stopped and holds one of the configured values (or the one before, if
# every config call met a running capture). Then random netlink
# requests (nl_fuzz: up to 100000 or nsight_nlfuzz_secs, default 20 s),
# each answered with success or a documented error; and the module still
# captures, dumps and analyses cleanly.
. /lib/nsight/lib.sh

S=/sys/kernel/nsight
SECS=${nsight_clients_secs:-15}
BAD=/tmp/clients.bad

# loop NAME OKCODES CMD...: run CMD until the time is up; count the runs in
# /tmp/clients.NAME, note exits not in OKCODES (e.g. "0 1") in $BAD.
loop() {
	name=$1 ok=$2
	shift 2
	(
		n=0 end=$(($(date +%s) + SECS))
		while [ "$(date +%s)" -lt $end ]; do
			"$@" >/tmp/clients.$name.out 2>&1
			rc=$?
			case " $ok " in
			*" $rc "*) ;;
			*) echo "$name: '$*' exited $rc: $(tail -n 3 /tmp/clients.$name.out)" >>$BAD ;;
			esac
			n=$((n + 1))
		done
		echo $n >/tmp/clients.$name
	) &
}

status_json() {
	nsightctl status --json | grep -q '"enabled"'
}

start_stop() {
	nsightctl start || return
	nsightctl stop
}

sysfs_read() {
	cat $S/enable $S/sources $S/buffer_size $S/hook_hits $S/records_written \
		$S/records_dropped $S/cpu0/buffer_used >/dev/null
}

ktap_plan 7
nsight_load
netns_pair nsa nsb 10.16.1.1 10.16.1.2
ip netns exec nsb udp_pair recv 9601 1000000000 600000 >/dev/null 2>&1 &
rpid=$!
ip netns exec nsa udp_pair flood 10.16.1.2 9601 3600 >/dev/null 2>&1 &
fpid=$!
at_exit "kill $rpid $fpid 2>/dev/null"
rm -f $BAD
# What holds if no config call got in (each found a capture running: a
# loaded guest runs the loops only a few times).
b0=$(cat $S/buffer_size) s0=$(cat $S/sources)

loop status "0" nsightctl status
loop json "0" status_json
loop config1 "0 1" nsightctl config --sources handoff,net_rx,sched_switch --buffer-size 1M
loop config2 "0 1" nsightctl config --sources all --buffer-size 2M
loop startstop "0 1" start_stop
loop sysfs "0" sysfs_read
wait_for() {
	for n in status json config1 config2 startstop sysfs; do
		i=0
		while [ ! -f /tmp/clients.$n ] && [ $i -lt $((SECS * 10 + 600)) ]; do
			sleep 0.1
			i=$((i + 1))
		done
	done
}
wait_for
counts=
for n in status json config1 config2 startstop sysfs; do
	counts="$counts $n $(cat /tmp/clients.$n 2>/dev/null || echo '?')"
done
ktap_diag "runs in $SECS s:$counts"
check "every client finished" sh -c "for n in status json config1 config2 startstop sysfs; do [ -f /tmp/clients.\$n ] || { echo \"\$n did not finish\"; exit 1; }; done"
check "no unexpected exit" sh -c "[ ! -s $BAD ] || { head -n 20 $BAD; exit 1; }"
nsightctl stop >/dev/null 2>&1
check "stopped, status answers" sh -c "[ \$(cat $S/enable) = 0 ] && nsightctl status >/dev/null"
check "configuration is one of those set" sh -c "
	b=\$(cat $S/buffer_size) s=\$(cat $S/sources)
	echo \"buffer_size \$b sources \$s\"
	case \$b in 1048576|2097152|$b0) ;; *) exit 1 ;; esac
	[ \"\$s\" = sched_switch,handoff,net_rx ] ||
		[ \"\$s\" = \"$NSIGHT_ALL_SOURCES\" ] || [ \"\$s\" = \"$s0\" ]"
check "random netlink requests answered as documented" sh -c "
	nl_fuzz ${nsight_nlfuzz_seed:-1} 100000 ${nsight_nlfuzz_secs:-20} >/tmp/nl_fuzz.out; rc=\$?
	cat /tmp/nl_fuzz.out; exit \$rc"
ktap_diag "nl_fuzz: $(cat /tmp/nl_fuzz.out)"
nsightctl stop >/dev/null 2>&1
check "configure, capture after the clients" sh -c "
	nsightctl config --sources $NSIGHT_DEFAULT_SOURCES --buffer-size 4M --filter none \
		--sample-period 1ms && nsightctl start && sleep 2 && nsightctl stop"
check "dump and analyze agree with the counters" sh -c "
	nsightctl dump -o /tmp/clients.nsight &&
	nsight-analyze --verbose --strict /tmp/clients.nsight >/tmp/clients.txt 2>&1; rc=\$?
	grep -E '^(check|records):' /tmp/clients.txt
	[ \$rc -eq 0 ] && grep -q '^check: ok' /tmp/clients.txt &&
	[ \$(cat $S/hook_hits) -eq \$((\$(cat $S/records_written) + \$(cat $S/records_dropped))) ]"
kill $rpid $fpid 2>/dev/null
wait
netns_cleanup
nsight_unload
ktap_finish
