#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One side of the two-guest test (scripts/check-twohost.sh): two QEMU
# guests joined by a socket netdev, each running nsight; the client sends
# UDP requests to the server's msgload echo server. The server's clock is
# set off (nsight_clock_step seconds) and skewed (adjtimex frequency
# nsight_clock_freq, in 2^-16 ppm) first. Each side measures its clock
# against the host's before and after (timeprobe, over the user-mode NIC),
# captures the msgload flow only, and prints its capture gzip'ed and
# base64-encoded between NSIGHT-CAPTURE-BEGIN/END lines for the host to
# merge. Either side can delay its egress on the guest link with netem
# (nsight_netem); the server can run a periodic CPU hog (10 ms of every
# 27 ms at nice -5, a period prime to the requests' 20 ms) on its echo
# server's core (nsight_hog=1, both pinned to the last CPU); that server
# also records the scheduler and interrupt context, for a diagnosis.
#
# Variables (kernel command line): nsight_role=client|server, nsight_mac
# (the MAC of the NIC on the guest link), nsight_requests, nsight_gap_us,
# nsight_probe_port, nsight_netem (netem options with + for blanks),
# nsight_hog.
. /lib/nsight/lib.sh

ROLE=${nsight_role:?}
N=${nsight_requests:-300}
GAP=${nsight_gap_us:-20000}
PORT=9000
READY=9001
DONE=9002
if [ "$ROLE" = server ]; then
	ME=10.77.0.2 PEER=10.77.0.1
else
	ME=10.77.0.1 PEER=10.77.0.2
fi

ktap_plan 8
nsight_load

# The guest link is the NIC with our MAC, the host link (slirp) the other.
# Nothing loads drivers in the guest.
modprobe e1000e 2>/dev/null
i=0
while [ "$(ls /sys/class/net | wc -l)" -lt 3 ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
link='' hostif=''
for d in /sys/class/net/*; do
	n=${d##*/}
	[ "$n" = lo ] && continue
	if [ "$(cat "$d/address")" = "$nsight_mac" ]; then link=$n; else hostif=$n; fi
done
check "network: guest link $link, host link $hostif" sh -c "
	/sbin/ip addr add $ME/24 dev $link && /sbin/ip link set $link up &&
	/sbin/ip addr add 10.0.2.15/24 dev $hostif && /sbin/ip link set $hostif up"

if [ "$ROLE" = server ]; then
	check "clock: step ${nsight_clock_step:-0} s, frequency ${nsight_clock_freq:-0}" sh -c "
		date -s @\$((\$(date +%s) + ${nsight_clock_step:-0})) >/dev/null &&
		adjtimex -f ${nsight_clock_freq:-0} >/dev/null"
else
	check "clock: left as booted" true
fi

# The host's time against ours, before (the host reads the diagnostic).
probe() {
	timeprobe query 10.0.2.2 "$nsight_probe_port" 30 >"/tmp/probe.$1" 2>&1
	ktap_diag "probe$1 $(cat "/tmp/probe.$1")"
}
probe 1
check "time probe before" grep -q '^probe ' /tmp/probe.1

# The hog's server records the scheduler and interrupt context too, so
# that nsight-analyze diagnoses its capture alone (the hog named as the
# cause; the fleet check compares the exported causes with it); context
# records are never filtered, the network records are, to the flow.
# A larger buffer holds the extra records of the whole run (without
# drops; the merge checks count the requests found whole).
sources=handoff,clock,net_rx,net_tx,app buffer=4M
if [ "$ROLE" = server ] && [ "${nsight_hog:-0}" = 1 ]; then
	sources=$sources,sched_switch,sched_waking,irq,softirq,idle buffer=16M
fi
check "capture the msgload flow (sources $sources)" sh -c "
	nsightctl config --sources $sources --buffer-size $buffer --filter port=$PORT &&
	nsightctl start"

if [ -n "${nsight_netem:-}" ]; then
	netem=$(echo "$nsight_netem" | tr '+' ' ')
	ktap_diag "netem on $link: $netem"
	modprobe sch_netem 2>/dev/null
	# shellcheck disable=SC2086
	/sbin/tc qdisc add dev "$link" root netem $netem || ktap_diag "tc failed"
fi
if [ "$ROLE" = server ]; then
	cpu=$(($(nproc) - 1))
	if [ "${nsight_hog:-0}" = 1 ]; then
		ktap_diag "hog (10 ms of every 27 ms, nice -5) on CPU $cpu, the echo server's core"
		taskset -c $cpu hog -5 0 10000 27000 >/dev/null 2>&1 &
		at_exit "kill $! 2>/dev/null"
	fi
	taskset -c $cpu msgload server -p udp -P $PORT >/tmp/server.log 2>&1 &
	spid=$!
	at_exit "kill $spid 2>/dev/null"
	# Ready once the echo server listens: answer one beacon, then wait
	# for the client's "done" beacon.
	i=0
	until grep -q listening /tmp/server.log || [ $i -ge 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	msgload server -p udp -P $READY -n 1 >/dev/null 2>&1
	check "client done" sh -c "timeout 200 msgload server -p udp -P $DONE -n 1 | grep -q 'served 1'"
	kill $spid
	check "echo server ran" grep -q listening /tmp/server.log
else
	i=0
	until msgload client -p udp -a $PEER -P $READY -n 1 -T 500 | grep -q 'received 1' ||
	      [ $i -ge 120 ]; do
		i=$((i + 1))
	done
	check "server ready" test $i -lt 120
	check "$N requests answered" sh -c "
		msgload client -p udp -a $PEER -P $PORT -n $N -g $GAP -T 5000 >/tmp/client.log;
		cat /tmp/client.log; grep -q 'sent $N received $N' /tmp/client.log"
	i=0
	until msgload client -p udp -a $PEER -P $DONE -n 1 -T 500 | grep -q 'received 1' ||
	      [ $i -ge 20 ]; do
		i=$((i + 1))
	done
fi
nsightctl stop
probe 2
check "time probe after" grep -q '^probe ' /tmp/probe.2

nsightctl dump --no-ksyms --no-phc -o /tmp/cap.nsight 2>/tmp/dump.err
check "dump" sh -c "cat /tmp/dump.err; [ -s /tmp/cap.nsight ]"
echo "NSIGHT-CAPTURE-BEGIN $ROLE"
gzip -c /tmp/cap.nsight | base64
echo "NSIGHT-CAPTURE-END $ROLE"
nsight_unload
ktap_finish
