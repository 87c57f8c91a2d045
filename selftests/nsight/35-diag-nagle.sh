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
	rm -f /tmp/$1.server
	nsightctl start
	ip netns exec nsb taskset -c 1 msgload server -p tcp -P $PORT -n $N \
		>/tmp/$1.server 2>&1 &
	_s=$!
	wait_until 100 0.1 grep -qs listening /tmp/$1.server
	_spid=$(awk '/^listening/ {print $4}' /tmp/$1.server)
	ip netns exec nsa taskset -c 0 msgload client -p tcp -a 10.16.0.2 -P $PORT \
		-n $N -g 1000 -T 10000 $2 >/tmp/$1.client 2>&1
	wait_until 50 0.1 exited $_s
	kill $_s 2>/dev/null
	wait $_s
	nsightctl stop
	nsightctl dump -o /tmp/$1.nsight 2>/tmp/$1.dump
	nsight-analyze /tmp/$1.nsight >/tmp/$1.txt 2>&1
	CPID=$(awk -v s="[$_spid]" '$1 == "diagnosis:" && $3 == "tx:" && !index($2, s) {
		sub(/.*\[/, "", $2); sub(/\].*/, "", $2); print $2; exit }' /tmp/$1.txt)
	_t=$(top_cause /tmp/$1.txt "$CPID" tx)
	DIAG_TOP=${_t%|*}
	DIAG_SHARE=${_t#*|}
	ktap_diag "$1: client: $(cat /tmp/$1.client)"
	ktap_diag "$1: top cause of the client's sends '$DIAG_TOP', share of tail ${DIAG_SHARE:-?} (the second cause's $(second_share /tmp/$1.txt "$CPID" tx)), $(awk -v pid="$CPID" '
		$1 == "diagnosis:" { on = index($2, "[" pid "]") && $3 == "tx:"; next }
		on && $1 == "coverage:" { sub(/^ +/, ""); print; exit }' /tmp/$1.txt)"
	diag_at_p99 "$1" "$CPID" tx
	sed -n "/^diagnosis: [^ ]*\[$CPID\] tx:/,/^diagnosis:\|^\$/p" /tmp/$1.txt |
		head -n 10 | while IFS= read -r _l; do ktap_diag "  $_l"; done
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
