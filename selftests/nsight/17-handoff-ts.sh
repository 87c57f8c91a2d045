#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kernel's own hand-off timestamp (patches/0001,
# SOF_TIMESTAMPING_RX_HANDOFF in ts[1] of SCM_TIMESTAMPING) against nsight's
# records: UDP over IPv4 and IPv6 between two namespaces, captured by nsight.
# For every datagram the receiver reads ts[0] (RX software), ts[1] (the
# hand-off) and the time recvmsg() returned, all CLOCK_REALTIME; the
# nsight-analyze --json --messages stages are converted to CLOCK_REALTIME
# too. Every datagram must be a complete nsight message with
# n <= ts1 <= h <= a (nsight's h is the entry of sock_def_readable(), which
# the patch's timestamp precedes) and ts0 <= ts1 <= recv.
#
# A second capture sends 1,000 datagrams over IPv4 300 us apart: the
# reader is often still busy with one when the next arrives and may take
# it between its enqueue and nsight's hand-off record (an early read, see
# Documentation/nsight.rst, Message lifetimes); each must still be one
# complete message.
#
# Only the test kernel carries the patch: on other kernels setsockopt()
# rejects the unknown flag with EINVAL and the test is skipped.
. /lib/nsight/lib.sh

N=${nsight_handoff_count:-200}

handoff_ts recv 9279 0 /dev/null >/tmp/ho.probe 2>&1
case $? in
0) ;;
4) ktap_skip_all "kernel without SOF_TIMESTAMPING_RX_HANDOFF (patches/0001): $(cat /tmp/ho.probe)" ;;
*) ktap_plan 1; ktap_fail "probe SO_TIMESTAMPING with RX_HANDOFF" "$(cat /tmp/ho.probe)"; ktap_finish ;;
esac

ktap_plan 10
nsight_load
netns_pair nsa nsb 10.17.0.1 10.17.0.2
ip -n nsa addr add fd17::1/64 dev veth0 nodad
ip -n nsb addr add fd17::2/64 dev veth0 nodad

# The capture starts before the receivers (a receive call entered before
# the capture is not seen). The sender pauses 2 ms between datagrams, so
# the receiver usually sleeps in recvmsg() when one arrives.
check "start" nsightctl start
ip netns exec nsb taskset -c 1 handoff_ts recv 9270 "$N" /tmp/ho4 >/tmp/ho4.log 2>&1 &
r4=$!
ip netns exec nsb taskset -c 1 handoff_ts recv 9271 "$N" /tmp/ho6 -6 >/tmp/ho6.log 2>&1 &
r6=$!
wait_until 100 0.1 sh -c 'grep -q listening /tmp/ho4.log && grep -q listening /tmp/ho6.log'
check "send $N datagrams over IPv4" ip netns exec nsa taskset -c 0 handoff_ts send 10.17.0.2 9270 "$N" 2000
check "send $N datagrams over IPv6" ip netns exec nsa taskset -c 0 handoff_ts send fd17::2 9271 "$N" 2000
wait $r4
rc4=$?
wait $r6
rc6=$?
check "stop" nsightctl stop
check "receivers read $N datagrams each, all with SCM_TIMESTAMPING" \
	sh -c "cat /tmp/ho4.log /tmp/ho6.log; [ $rc4 -eq 0 ] && [ $rc6 -eq 0 ]"

nsightctl dump -o /tmp/ho.nsight 2>/dev/null
nsight-analyze --json --messages /tmp/ho.nsight >/tmp/ho.json 2>/tmp/ho.err
check "nsight-analyze --json --messages" sh -c "cat /tmp/ho.err; [ -s /tmp/ho.json ]"
handoff_ts check /tmp/ho4 /tmp/ho.json 9270 >/tmp/ho4.check 2>&1
c4=$?
handoff_ts check /tmp/ho6 /tmp/ho.json 9271 >/tmp/ho6.check 2>&1
c6=$?
ktap_diag "IPv4: $(cat /tmp/ho4.check)"
ktap_diag "IPv6: $(cat /tmp/ho6.check)"
check "IPv4: every datagram n <= handoff <= h <= a and ts0 <= handoff <= recv" test $c4 -eq 0
check "IPv6: every datagram n <= handoff <= h <= a and ts0 <= handoff <= recv" test $c6 -eq 0
# Control: the same records with one hand-off moved past nsight's h (1 us
# before the application's receive) must be rejected.
awk 'NR == 100 { $3 = $4 - 1000 } { print }' /tmp/ho4 >/tmp/ho4.bad
check "control: a hand-off after nsight's h is rejected" \
	sh -c "! handoff_ts check /tmp/ho4.bad /tmp/ho.json 9270"

nsightctl start
ip netns exec nsb taskset -c 1 handoff_ts recv 9272 1000 /tmp/ho7 >/tmp/ho7.log 2>&1 &
r7=$!
wait_until 100 0.1 grep -q listening /tmp/ho7.log
ip netns exec nsa taskset -c 0 handoff_ts send 10.17.0.2 9272 1000 300
wait $r7
nsightctl stop
nsightctl dump -o /tmp/ho7.nsight 2>/dev/null
nsight-analyze --json --messages /tmp/ho7.nsight >/tmp/ho7.json 2>/tmp/ho7.err
handoff_ts check /tmp/ho7 /tmp/ho7.json 9272 >/tmp/ho7.check 2>&1
c7=$?
ktap_diag "IPv4, 300 us apart: $(head -c 2000 /tmp/ho7.check)"
ktap_diag "early reads: $(grep -Eo '"early_read": ?true' /tmp/ho7.json | wc -l)"
check "IPv4, 300 us apart: every datagram a complete message in order" test $c7 -eq 0
netns_cleanup
nsight_unload
ktap_finish
