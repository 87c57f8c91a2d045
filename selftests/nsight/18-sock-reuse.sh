#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Socket ids across address reuse: twenty short TCP connections, one after
# another, to memcached (one worker thread, CPU 1), each sending three
# "get"s. TCP sockets come from a SLAB_TYPESAFE_BY_RCU cache, so a closed
# connection's struct sock is soon the next one's. An id derived from the
# address made the two one socket to the analyzer, whose flow (the first
# connection's ports) no later packet matched: those requests were left
# incomplete. Every request must be a complete message, every connection
# its own socket.
. /lib/nsight/lib.sh
. /tests/diag-lib.sh

CONNS=20
GETS=3

ktap_plan 4
nsight_load
netns_pair nsa nsb 10.16.0.1 10.16.0.2
nsightctl start
memcached_start
check "memcached answers" test $? -eq 0
ok=0 i=0
while [ $i -lt $CONNS ]; do
	i=$((i + 1))
	ip netns exec nsa taskset -c 0 msgload client -p memcache -a 10.16.0.2 -P 11211 \
		-n $GETS -g 2000 -T 10000 >/tmp/sr.client 2>&1 &&
		grep -q "received $GETS" /tmp/sr.client && ok=$((ok + 1))
done
nsightctl stop
killall memcached 2>/dev/null
check "$CONNS connections of $GETS replies" test $ok -eq $CONNS
nsightctl dump -o /tmp/sr.nsight 2>/dev/null
nsight-analyze --verbose --messages /tmp/sr.nsight >/tmp/sr.txt 2>&1
# memcached's requests: rx messages to its port, complete or not.
grep -E '^  rx [0-9]+ tcp .*> 10\.16\.0\.2:11211 ' /tmp/sr.txt >/tmp/sr.rx
complete=$(grep -vc incomplete /tmp/sr.rx)
incomplete=$(grep -c incomplete /tmp/sr.rx)
# One client port per connection (msgload's; the memcached_up probes' are
# netcat's), each a socket of its own.
ports=$(grep -v incomplete /tmp/sr.rx | sed -n 's/.* 10\.16\.0\.1:\([0-9]*\) > .*/\1/p' |
	sort -u | wc -l)
ktap_diag "requests: $complete complete, $incomplete incomplete, from $ports client ports"
grep -m3 incomplete /tmp/sr.rx | while IFS= read -r l; do ktap_diag "incomplete: $l"; done
check "every request a complete message" test "$incomplete" -eq 0 -a "$complete" -ge $((CONNS * GETS))
check "a socket per connection" test "$ports" -ge $CONNS
ktap_finish
