#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The TCP send path of msgload's echo server, beyond Nagle (35-diag-nagle):
# - loss on the server's way out: netem drops 10% of what the server's
#   namespace sends (its replies, one segment each), closed loop, so
#   nothing follows a lost reply and the retransmission timer (a tail loss
#   probe or the RTO, about 200 ms) sends it again. The server's sends must
#   be diagnosed "TCP send lost and retransmitted ..." first. Open loop
#   (500 requests/s), later replies follow a lost one: the peer's SACKs
#   prompt the copy ("... after duplicate ACKs") or the replies after it
#   fill the congestion window ("TCP send held by a full congestion
#   window"), as the random losses fall: one of these must come first.
#   400 requests there: with 100 (10 losses) the draw of netem's losses
#   once left 5 retransmitted replies against 6 whose wait the analysis
#   named "Idle after task:msgload" (1 run in 7, 2026-11-28).
#   The same run without netem must not name a retransmission first.
# - a slow reader: the client's receive buffer is 1 KiB (a window smaller
#   than the 1,400-byte replies) and it reads every tenth reply 20 ms late,
#   so the rest of that reply waits for the window: "TCP send held by the
#   peer's full receive window (A)" first, and the resource loop "peer's
#   TCP receive window full" with the server's flow.
# - a shaped link: tbf at 100 kbit/s on the server's way out holds each
#   1,400-byte reply about 110 ms in the qdisc: the resource loop
#   "transmit queue held packets" names the device.
. /lib/nsight/lib.sh
. /tests/diag-lib.sh

N=100
N_OPEN=400
PORT=9320

# loss_run NAME: N closed-loop requests over TCP, captured and analysed;
# sets DIAG_TOP/DIAG_SHARE for the server's sends.
loss_run() {
	tcp_echo_run "$1" $PORT $N
	diag_report_group "$1" "$DIAG_SPID" tx "the server's sends"
}

ktap_plan 12
diag_setup
modprobe sch_netem 2>/dev/null
check "netem on the server's veth" ip netns exec nsb /sbin/tc qdisc add dev veth0 root netem loss 10%
loss_run loss
ktap_diag "loss: $(ip netns exec nsb /sbin/tc -s qdisc show dev veth0 | tr -s ' \n' ' ')"
check "client got every reply (loss)" grep -q "received $N" /tmp/loss.client
check "server's sends diagnosed" test -n "$DIAG_TOP"
check "first cause: a retransmission" sh -c "echo '$DIAG_TOP' | grep -q '^TCP send lost and retransmitted'"
# Open loop (500 requests/s): later replies follow a lost one; the peer's
# SACKs prompt its copy (fast retransmit), or the replies after it fill
# the congestion window and wait, as netem's random losses fall.
tcp_echo_run loss_open $PORT $N_OPEN "-r 500 -s 7"
diag_report_group loss_open "$DIAG_SPID" tx "the server's sends"
check "open loop: first cause a retransmission or the congestion window" \
	sh -c "echo '$DIAG_TOP' | grep -qE '^TCP send (held by a full congestion window|lost and retransmitted)'"
ip netns exec nsb /sbin/tc qdisc del dev veth0 root
loss_run noloss
check "client got every reply (no loss)" grep -q "received $N" /tmp/noloss.client
check "no loss: no retransmission first" sh -c "! echo '$DIAG_TOP' | grep -q 'retransmitted'"
tcp_echo_run slow $PORT $N "-S 1400 -B 1024 -D 20000" "-S 1400"
diag_report_group slow "$DIAG_SPID" tx "the server's sends"
grep -A1 '^resource loops:' /tmp/slow.txt | while IFS= read -r _l; do ktap_diag "  $_l"; done
check "client got every reply (slow reader)" grep -q "received $N" /tmp/slow.client
check "slow reader: first cause the peer's window" \
	test "$DIAG_TOP" = "TCP send held by the peer's full receive window (A)"
check "slow reader: the loop named" \
	grep -q "^  peer's TCP receive window full: .* msgload\[$DIAG_SPID\] tx: " /tmp/slow.txt
modprobe sch_tbf 2>/dev/null
check "tbf on the server's veth" \
	ip netns exec nsb /sbin/tc qdisc add dev veth0 root tbf rate 100kbit burst 1600 latency 2s
tcp_echo_run shaped $PORT 30 "-S 1400" "-S 1400"
ip netns exec nsb /sbin/tc qdisc del dev veth0 root
ktap_diag "shaped: client: $(cat /tmp/shaped.client)"
grep -A1 '^resource loops:' /tmp/shaped.txt | while IFS= read -r _l; do ktap_diag "  $_l"; done
check "shaped: the device's transmit queue named" \
	grep -q "^  transmit queue held packets: device [0-9]*: [1-9][0-9]* packets waited" /tmp/shaped.txt
ktap_finish
