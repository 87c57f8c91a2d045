#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A full UDP receive buffer: msgload's echo server (SO_RCVBUF 2 KiB) is
# stopped while an open-loop client sends it 200 requests, so its buffer
# fills whatever the guest's speed and the rest are dropped; then it goes
# on and serves what was queued. Every drop the kernel counts
# (RcvbufErrors in the server namespace's /proc/net/snmp) is one sock_drop
# record, and the analysis names the loop: "UDP receive buffer full" with
# the server's socket and the number dropped.
. /lib/nsight/lib.sh

PORT=9400
N=200

# rcvbuf_errors: the server namespace's UDP RcvbufErrors.
rcvbuf_errors() {
	ip netns exec nsb cat /proc/net/snmp | awk '
		$1 == "Udp:" && !hdr { for (i = 2; i <= NF; i++) if ($i == "RcvbufErrors") col = i; hdr = 1; next }
		$1 == "Udp:" && hdr { print $col; exit }'
}

ktap_plan 5
nsight_load
netns_pair nsa nsb 10.17.0.1 10.17.0.2
ip netns exec nsb taskset -c 1 msgload server -p udp -P $PORT -B 2048 \
	>/tmp/rcvbuf.server 2>&1 &
at_exit "killall msgload 2>/dev/null"
wait_until 100 0.1 grep -qs listening /tmp/rcvbuf.server
spid=$(awk '/^listening/ {print $4}' /tmp/rcvbuf.server)
before=$(rcvbuf_errors)
check "start capture" nsightctl start
kill -STOP "$spid"
ip netns exec nsa taskset -c 0 msgload client -p udp -a 10.17.0.2 -P $PORT -n $N -r 1000 \
	-s 7 -T 1000 >/tmp/rcvbuf.client 2>&1 &
cpid=$!
# The client's sends are done when its last request is a second old.
sleep 1
kill -CONT "$spid"
wait $cpid
check "stop capture" nsightctl stop
after=$(rcvbuf_errors)
killall msgload 2>/dev/null
dropped=$((after - before))
nsightctl dump -o /tmp/rcvbuf.nsight 2>/tmp/rcvbuf.dump
nsight-analyze --verbose /tmp/rcvbuf.nsight >/tmp/rcvbuf.txt 2>&1
records=$(awk '$1 == "sock_drop" {print $2}' /tmp/rcvbuf.txt)
ktap_diag "client: $(cat /tmp/rcvbuf.client)"
ktap_diag "RcvbufErrors $before -> $after, sock_drop records ${records:-0}"
grep -A1 '^resource loops:' /tmp/rcvbuf.txt | while IFS= read -r _l; do ktap_diag "  $_l"; done
check "the buffer overflowed" test "$dropped" -gt 0
check "one sock_drop record per drop the kernel counted" test "${records:-0}" = "$dropped"
check "the loop named with the server's socket" \
	grep -q "^  UDP receive buffer full: 0.0.0.0:$PORT msgload\[$spid\] rx: $dropped datagrams dropped" \
	/tmp/rcvbuf.txt
ktap_finish
