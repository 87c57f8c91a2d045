#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# UDP over a veth pair between two namespaces: one hand-off record per
# datagram, nothing lost, and the dump agrees with the kernel's counters.
. /lib/nsight/lib.sh

N=${nsight_udp_count:-2000}
PORT=9000
S=/sys/kernel/nsight

ktap_plan 7
nsight_load
netns_pair nsa nsb 10.11.0.1 10.11.0.2

ip netns exec nsb udp_pair recv $PORT "$N" 10000 >/tmp/udp.recv 2>&1 &
rpid=$!
wait_until 100 0.1 grep -q listening /tmp/udp.recv

check "start capture" nsightctl start
check "send $N datagrams" sh -c "/sbin/ip netns exec nsa udp_pair send 10.11.0.2 $PORT $N 16 2000"
wait $rpid
check "stop capture" nsightctl stop
received=$(awk '/^received/ {print $2}' /tmp/udp.recv)
check "receiver got all $N" sh -c "cat /tmp/udp.recv; [ '$received' = '$N' ]"

nsightctl dump -o /tmp/udp.nsight 2>/tmp/udp.dump.err
nsight-analyze --verbose --strict /tmp/udp.nsight >/tmp/udp.txt 2>&1
arc=$?
handoffs=$(awk '$1 == "handoff" {print $2}' /tmp/udp.txt)
dropped=$(cat $S/records_dropped)
written=$(cat $S/records_written)
hits=$(cat $S/hook_hits)
ktap_diag "udp: sent $N, received $received, handoff records ${handoffs:-0}, records written $written, dropped $dropped, hook hits $hits"
check "analyze: stream consistent with kernel counters" sh -c "cat /tmp/udp.txt; [ $arc -eq 0 ] && grep -q '^check: ok' /tmp/udp.txt"
check "one hand-off record per datagram" sh -c "[ '${handoffs:-0}' = '$N' ]"
check "no record lost, hits == written + dropped" sh -c "[ $dropped -eq 0 ] && [ $hits -eq \$(( $written + $dropped )) ]"
netns_cleanup
nsight_unload
ktap_finish
