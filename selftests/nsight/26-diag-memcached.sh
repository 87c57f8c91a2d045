#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Diagnosis with a real server: memcached (one worker thread) pinned to the
# application core, a CPU hog beside it, and msgload's memcache client
# sending "get" requests with open-loop Poisson arrivals over TCP and
# measuring each request's latency. "hog interference (A)" must come first.
# With the futex source on (the lock records on a real server): the
# locks: section names futex words of memcached's process that its
# threads slept on, woken by another of its threads from inside
# futex_wake() on the word. What they are (icount, 2026-11-29, two boots,
# 14 and 16 futex records): the worker never sleeps on a lock here (one
# worker, its GETs miss and take their item lock uncontended); the words
# are the LRU crawler's condition variable (mc-itemcrawler waits there
# until mc-lrumaint starts a crawl, the main thread at start-up until the
# crawler runs) and a mutex beside it (by the order of the calls,
# lru_crawler_lock), slept on by mc-itemcrawler until mc-lrumaint let it
# go, or by the main thread until mc-itemcrawler did, and held 586 and
# 638 us after such a sleep.
. /lib/nsight/lib.sh
. /tests/diag-lib.sh

ktap_plan 6
diag_setup
ip netns exec nsb taskset -c 1 hog -5 >/dev/null 2>&1 &
# "ip netns exec" forks: the hog is its child, killed by name.
at_exit "killall hog 2>/dev/null"
nsightctl config --sources "$NSIGHT_DEFAULT_SOURCES,futex"
nsightctl start
memcached_start
check "memcached answers" test $? -eq 0
mpid=$(pidof memcached)
ip netns exec nsa taskset -c 0 msgload client -p memcache -a 10.16.0.2 -P 11211 \
	-n "$DIAG_N" -r "$DIAG_RATE" -s 7 -T 10000 >/tmp/mc.client 2>&1
nsightctl stop
# memcached's threads, for the locks: check.
mtids=$(ls /proc/"$mpid"/task | tr '\n' ' ')
killall hog 2>/dev/null
kill $mpid 2>/dev/null
diag_analyze mc "$mpid"
nsight-analyze --verbose /tmp/mc.nsight >/tmp/mc.verbose 2>&1
grep '^diagnosis:\|^latency:' -A4 /tmp/mc.txt | head -n 30 | while IFS= read -r l; do ktap_diag "  $l"; done
check "client got every reply" grep -q "received $DIAG_N" /tmp/mc.client
check "memcached's messages diagnosed" test -n "$DIAG_TOP"
check "first cause: hog interference (A)" test "$DIAG_TOP" = "hog interference (A)"
# The locks of memcached's process, and how many of them a thread of its
# own released (woke their sleeper from inside futex_wake() on the word).
sed -n '/^locks:/,/^[^ ]/p' /tmp/mc.txt | grep "^  futex 0x[0-9a-f]* of [^ ]*\[$mpid\]: " |
	while IFS= read -r l; do ktap_diag "  $l"; done
released=$(awk -v pid="$mpid" -v tids=" $mtids " '
	/^locks:/ { on = 1; next }
	on && !/^  / { exit }
	on && index($0, "[" pid "]: ") &&
	    match($0, /woken most by [^ ]* tid [0-9]+ \([0-9]+ times, [1-9][0-9]* in futex_wake on it\)/) {
		split(substr($0, RSTART, RLENGTH), w, " ")
		if (index(tids, " " w[6] " "))
			n++
	}
	END { print n + 0 }' /tmp/mc.txt)
ktap_diag "mc: $(awk '/^futex / { print $2 }' /tmp/mc.verbose) futex records; $released of memcached's locks released by its own threads (tids $mtids)"
check "locks: a futex of memcached's process released by one of its threads" test "$released" -gt 0
windows_same mc 100ms
check "100 ms windows hold the same messages" test $? -eq 0
ktap_finish
