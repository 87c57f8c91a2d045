#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Message lifetimes: a UDP and a TCP echo server in one namespace, pinned to
# CPU 1, a client in another, pinned to CPU 0, over veth. Every request the
# server read is reconstructed as n <= h <= a with the hand-off from the
# client's core (veth delivers on the sender's CPU) to the server's, and
# every reply the server sent has a complete TX lifetime.
#
# The capture starts before the servers, so that no receive is already in
# flight (a call entered before its probe was attached is not seen). The
# client pauses 2 ms between requests, so the server is asleep in read()
# when a request arrives: otherwise TCP may queue the segment to the socket
# backlog and hand it off on the server's own core when it releases the
# socket, which is right but not what this test pins down.
. /lib/nsight/lib.sh

N=${nsight_msg_count:-300}

# msgs FILE DIR PROTO DST: the complete message lines of one direction,
# protocol and destination ("addr:port", or "" for any).
msgs() {
	grep -E "^  $2 [0-9]+ $3 " "$1" | grep -v incomplete |
		{ [ -n "$4" ] && grep -F "> $4 " || cat; }
}

# field NAME: the value after the field NAME on each line of stdin.
field() {
	awk -v f="$1" '{ for (i = 1; i < NF; i++) if ($i == f) print $(i + 1) }'
}

ktap_plan 13
nsight_load
netns_pair nsa nsb 10.15.0.1 10.15.0.2

check "start" nsightctl start
ip netns exec nsb taskset -c 1 msgload server -p udp -P 9200 -n "$N" >/tmp/su 2>&1 &
su=$!
ip netns exec nsb taskset -c 1 msgload server -p tcp -P 9201 -n "$N" >/tmp/st 2>&1 &
st=$!
until grep -q listening /tmp/su && grep -q listening /tmp/st; do sleep 0.1; done

ip netns exec nsa taskset -c 0 msgload client -p udp -a 10.15.0.2 -P 9200 -n "$N" -g 2000 >/tmp/cu 2>&1
ip netns exec nsa taskset -c 0 msgload client -p tcp -a 10.15.0.2 -P 9201 -n "$N" -g 2000 >/tmp/ct 2>&1
check "UDP client: $N replies" sh -c "cat /tmp/cu; grep -q 'received $N' /tmp/cu"
check "TCP client: $N replies" sh -c "cat /tmp/ct; grep -q 'received $N' /tmp/ct"
# Servers that missed requests would wait for ever: give them 10 s.
wait_until 100 0.1 exited $su $st
kill $su $st 2>/dev/null
wait $su $st
check "stop" nsightctl stop
nsightctl dump -o /tmp/lt.nsight 2>/dev/null
nsight-analyze --verbose --messages /tmp/lt.nsight >/tmp/lt.txt 2>&1
size=$(wc -c </tmp/lt.nsight)
served_u=$(awk '/^served/ {print $2}' /tmp/su)
served_t=$(awk '/^served/ {print $2}' /tmp/st)
drops=$(awk '/^records:/ {for (i = 1; i < NF; i++) if ($i == "dropped:") print $(i + 1)}' /tmp/lt.txt)

msgs /tmp/lt.txt rx udp 10.15.0.2:9200 >/tmp/rx_u
msgs /tmp/lt.txt rx tcp 10.15.0.2:9201 >/tmp/rx_t
cat /tmp/rx_u /tmp/rx_t >/tmp/rx_all
# The UDP server socket is bound to any address: match its port.
grep -E '^  tx [0-9]+ udp ' /tmp/lt.txt | grep -F ':9200 > ' >/tmp/tx_u
grep -E '^  tx [0-9]+ tcp ' /tmp/lt.txt | grep -F ':9201 > ' >/tmp/tx_t
total=$(awk '/^messages:/ {print $2}' /tmp/lt.txt)
n_rx_u=$(wc -l </tmp/rx_u)
n_rx_t=$(wc -l </tmp/rx_t)
n_tx_u=$(grep -vc incomplete /tmp/tx_u)
n_tx_t=$(grep -vc incomplete /tmp/tx_t)
# n <= h <= a: no negative segment, and every line has both segments.
n_seg=$( { field 'n->h' </tmp/rx_all; field 'h->a' </tmp/rx_all; } | grep -c '^[0-9][0-9]*$')
cores_u=$(field cpu </tmp/rx_u | sort | uniq -c | tr '\n' ' ')
cores_t=$(field cpu </tmp/rx_t | sort | uniq -c | tr '\n' ' ')
bad_u=$(field cpu </tmp/rx_u | grep -vc '^0->1$')
# A TCP segment that arrives while the server holds the socket lock waits
# in the socket's backlog and is processed, and made readable, on the
# server's own core when it releases the lock: 1->1. Rare, but legitimate.
bad_t=$(field cpu </tmp/rx_t | grep -Evc '^(0->1|1->1)$')
backlog_t=$(field cpu </tmp/rx_t | grep -c '^1->1$')
ktap_diag "served udp ${served_u:-0} tcp ${served_t:-0}; reconstructed rx udp $n_rx_u tcp $n_rx_t, complete tx udp $n_tx_u tcp $n_tx_t; records dropped ${drops:-?}"
ktap_diag "hand-off cores udp: $cores_u; tcp: $cores_t"
ktap_diag "capture $size bytes, ${total:-0} messages, $((size / ${total:-1})) bytes per message"
grep -m3 -E '^  (rx|tx) [0-9]+ .* incomplete' /tmp/lt.txt | while read -r l; do ktap_diag "incomplete: $l"; done

# Every request the server read is a complete lifetime (or lost to drops).
check "UDP requests reconstructed" test $n_rx_u -gt 0 -a $((${served_u:-0} - n_rx_u)) -le ${drops:-0} -a $n_rx_u -le ${served_u:-0}
check "TCP requests reconstructed" test $n_rx_t -gt 0 -a $((${served_t:-0} - n_rx_t)) -le ${drops:-0} -a $n_rx_t -le ${served_t:-0}
check "n <= h <= a for every message" test "$n_seg" -eq $((2 * (n_rx_u + n_rx_t)))
check "UDP hand-off cores 0 -> 1" test "$bad_u" -eq 0 -a "$n_rx_u" -gt 0
check "TCP hand-off cores 0 -> 1 (or 1 -> 1 from the backlog, under 10%)" \
	test "$bad_t" -eq 0 -a "$n_rx_t" -gt 0 -a $((backlog_t * 10)) -lt "$n_rx_t"
check "UDP replies: complete TX lifetimes" test "$n_tx_u" -eq "${served_u:-0}"
check "TCP replies: complete TX lifetimes" test "$n_tx_t" -ge "${served_t:-0}"
check "latency summary per application" sh -c "grep -A3 '^latency:' /tmp/lt.txt | grep -q 'msgload'"
check "JSON messages" sh -c "nsight-analyze --json --messages /tmp/lt.nsight | grep -q '\"messages\"'"
netns_cleanup
nsight_unload
ktap_finish
