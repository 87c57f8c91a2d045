#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Diagnosis with Debian's sockperf: its UDP server pinned to the
# application core, sockperf ping-pong (200 messages/s) from the other
# namespace. Injected: a CPU competitor with a 43% duty cycle (hog, 3 ms
# of every 7 ms, at nice -5: the server waits for its bursts) on the
# server's core: "hog interference (A)" must come first. Then Debian's
# stress-ng as the competitor (one CPU stressor at 43% load on that core):
# "stress-ng-cpu interference (A)". Then a softirq flood (as 22-diag-softirq:
# packets through a costly socket filter, received on the server's core,
# the ping-pong client on that core too, since veth receives on the
# sender's CPU): "Receive processing (A)" with the flood's flow behind it.
# The clean run (no competitor) must not name an injected kind first.
. /lib/nsight/lib.sh
. /tests/diag-lib.sh

INJECTED='interference \(A\)|Head-of-line blocking|Receive processing \(A\)|OS threads|Page faults'

# sockperf_run NAME: capture sockperf ping-pong for 3 s and analyse it;
# sets DIAG_TOP and DIAG_SHARE for the server.
sockperf_run() {
	nsightctl start
	ip netns exec nsb taskset -c 1 sockperf server -i 10.16.0.2 -p 11111 \
		>/tmp/$1.server 2>&1 &
	at_exit "killall sockperf 2>/dev/null"
	wait_until 50 0.1 pidof sockperf
	_pid=$(pidof sockperf)
	ip netns exec nsa taskset -c "${SOCKPERF_CLIENT_CPU:-0}" sockperf ping-pong \
		-i 10.16.0.2 -p 11111 -t 3 --mps 200 >/tmp/$1.client 2>&1
	_crc=$?
	nsightctl stop
	killall sockperf 2>/dev/null
	diag_analyze "$1" "$_pid"
	ktap_diag "$1: sockperf exit $_crc: $(grep -a 'percentile 99.000\|Summary: Latency' /tmp/$1.client | tr -s ' ' | tr '\n' ' ')"
}

ktap_plan 11
diag_setup
ip netns exec nsb taskset -c 1 hog -5 0 3000 7000 >/dev/null 2>&1 &
hpid=$!
# "ip netns exec" forks: the hog is its child, killed by name.
at_exit "killall hog 2>/dev/null"
sockperf_run sockperf_hog
killall hog 2>/dev/null
wait $hpid 2>/dev/null
check "sockperf ran (hog)" grep -q "Summary: Latency" /tmp/sockperf_hog.client
check "sockperf's messages diagnosed" test -n "$DIAG_TOP"
check "first cause: hog interference (A)" test "$DIAG_TOP" = "hog interference (A)"
taskset -c 1 stress-ng --cpu 1 --cpu-load 43 --taskset 1 -t 600 >/dev/null 2>&1 &
at_exit "killall stress-ng stress-ng-cpu 2>/dev/null"
sockperf_run sockperf_stressng
killall stress-ng stress-ng-cpu 2>/dev/null
wait_until 50 0.1 sh -c '! pidof stress-ng stress-ng-cpu'
check "sockperf ran (stress-ng)" grep -q "Summary: Latency" /tmp/sockperf_stressng.client
check "first cause: stress-ng-cpu interference (A)" test "$DIAG_TOP" = "stress-ng-cpu interference (A)"
softirq_flood_start
check "costly receive filter attached" grep -q listening /tmp/sink.out
SOCKPERF_CLIENT_CPU=1
sockperf_run sockperf_flood
SOCKPERF_CLIENT_CPU=
softirq_flood_stop
check "sockperf ran (flood)" grep -q "Summary: Latency" /tmp/sockperf_flood.client
check "first cause: Receive processing (A)" test "$DIAG_TOP" = "Receive processing (A)"
check "flood: receive work names the flood's flow" flood_in_rxwork /tmp/sockperf_flood.txt "$_pid"
sockperf_run sockperf_clean
check "sockperf ran (clean)" grep -q "Summary: Latency" /tmp/sockperf_clean.client
check "clean: no injected kind leads the tail" clean_top_ok "$INJECTED"
ktap_finish
