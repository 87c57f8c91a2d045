#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The TCP send path: msgload's client writes each request in two halves
# with Nagle on (-W), so the second half waits in the send queue until the
# server's delayed ACK of the first (about 40 ms); the server answers only
# whole requests. nsight records the sender's state at each send and the
# ACK that released the held segment: the client's sends must be
# diagnosed "TCP send held by Nagle for the peer's delayed ACK (A)". The
# same client writing each request at once with TCP_NODELAY must not name
# a TCP send hold first.
. /lib/nsight/lib.sh
. /tests/diag-lib.sh

N=100
PORT=9310

# nagle_run NAME CLIENT_ARGS: N closed-loop requests over TCP, captured
# and analysed; sets CPID (the client's pid: the msgload process with sends
# that is not the server, as "ip netns exec" forks) and DIAG_TOP/DIAG_SHARE
# for the client's sends.
nagle_run() {
	tcp_echo_run "$1" $PORT $N "$2"
	CPID=$(awk -v s="[$DIAG_SPID]" '$1 == "diagnosis:" && $3 == "tx:" && !index($2, s) {
		sub(/.*\[/, "", $2); sub(/\].*/, "", $2); print $2; exit }' /tmp/$1.txt)
	diag_report_group "$1" "$CPID" tx "the client's sends"
}

ktap_plan 5
diag_setup
nagle_run nagle -W
check "client got every reply (Nagle)" grep -q "received $N" /tmp/nagle.client
check "client's sends diagnosed" test -n "$DIAG_TOP"
check "first cause: Nagle and the delayed ACK" \
	test "$DIAG_TOP" = "TCP send held by Nagle for the peer's delayed ACK (A)"
nagle_run nodelay ""
check "client got every reply (TCP_NODELAY)" grep -q "received $N" /tmp/nodelay.client
check "TCP_NODELAY: no TCP send hold first" sh -c "! echo '$DIAG_TOP' | grep -q '^TCP send held'"
ktap_finish
