#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Diagnosis with a real server: memcached (one worker thread) pinned to the
# application core, a CPU hog beside it, and msgload's memcache client
# sending "get" requests with open-loop Poisson arrivals over TCP and
# measuring each request's latency. "hog interference (A)" must come first.
. /lib/nsight/lib.sh
. /tests/diag-lib.sh

ktap_plan 5
diag_setup
ip netns exec nsb taskset -c 1 hog -5 >/dev/null 2>&1 &
# "ip netns exec" forks: the hog is its child, killed by name.
at_exit "killall hog 2>/dev/null"
nsightctl start
memcached_start
check "memcached answers" test $? -eq 0
mpid=$(pidof memcached)
ip netns exec nsa taskset -c 0 msgload client -p memcache -a 10.16.0.2 -P 11211 \
	-n "$DIAG_N" -r "$DIAG_RATE" -s 7 -T 10000 >/tmp/mc.client 2>&1
nsightctl stop
killall hog 2>/dev/null
kill $mpid 2>/dev/null
diag_analyze mc "$mpid"
grep '^diagnosis:\|^latency:' -A4 /tmp/mc.txt | head -n 30 | while IFS= read -r l; do ktap_diag "  $l"; done
check "client got every reply" grep -q "received $DIAG_N" /tmp/mc.client
check "memcached's messages diagnosed" test -n "$DIAG_TOP"
check "first cause: hog interference (A)" test "$DIAG_TOP" = "hog interference (A)"
windows_same mc 100ms
check "100 ms windows hold the same messages" test $? -eq 0
ktap_finish
