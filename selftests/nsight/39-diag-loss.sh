#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Loss on the server's way out: netem drops 10% of what the TCP echo
# server's namespace sends (its replies, one segment each), closed loop,
# so nothing follows a lost reply and the retransmission timer (a tail loss
# probe or the RTO, about 200 ms) sends it again. The server's sends must
# be diagnosed "TCP send lost and retransmitted ..." first. The same run
# without netem must not name a retransmission first.
. /lib/nsight/lib.sh
. /tests/diag-lib.sh

N=100
PORT=9320

# loss_run NAME: N closed-loop requests over TCP, captured and analysed;
# sets DIAG_TOP/DIAG_SHARE for the server's sends.
loss_run() {
	tcp_echo_run "$1" $PORT $N
	diag_report_group "$1" "$DIAG_SPID" tx "the server's sends"
}

ktap_plan 6
diag_setup
modprobe sch_netem 2>/dev/null
check "netem on the server's veth" ip netns exec nsb /sbin/tc qdisc add dev veth0 root netem loss 10%
loss_run loss
ktap_diag "loss: $(ip netns exec nsb /sbin/tc -s qdisc show dev veth0 | tr -s ' \n' ' ')"
check "client got every reply (loss)" grep -q "received $N" /tmp/loss.client
check "server's sends diagnosed" test -n "$DIAG_TOP"
check "first cause: a retransmission" sh -c "echo '$DIAG_TOP' | grep -q '^TCP send lost and retransmitted'"
ip netns exec nsb /sbin/tc qdisc del dev veth0 root
loss_run noloss
check "client got every reply (no loss)" grep -q "received $N" /tmp/noloss.client
check "no loss: no retransmission first" sh -c "! echo '$DIAG_TOP' | grep -q 'retransmitted'"
ktap_finish
