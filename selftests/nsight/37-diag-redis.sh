#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Diagnosis with Debian's redis-server: pinned to the application core,
# driven by redis-benchmark (GET, one connection) from the other
# namespace. Injected: a kernel work item spinning 1.5 ms of every 4 ms on
# the server's core (the test module nsight_busywork): the work function
# must come first. The clean run must not name an injected kind first.
. /lib/nsight/lib.sh
. /tests/diag-lib.sh

INJECTED='interference \(A\)|Head-of-line blocking|Receive processing \(A\)|OS threads|Page faults'

# redis_run NAME: capture 1,000 GETs and analyse them; sets DIAG_TOP and
# DIAG_SHARE for redis-server.
redis_run() {
	nsightctl start
	ip netns exec nsb taskset -c 1 redis-server --bind 10.16.0.2 --port 6379 \
		--save '' --appendonly no --protected-mode no --io-threads 1 \
		>/tmp/$1.server 2>&1 &
	at_exit "killall redis-server 2>/dev/null"
	wait_until 100 0.1 grep -qs 'Ready to accept connections' /tmp/$1.server
	_pid=$(pidof redis-server)
	ip netns exec nsa taskset -c 0 redis-benchmark -h 10.16.0.2 -p 6379 -c 1 -n 1000 \
		-t get -q >/tmp/$1.client 2>&1
	_crc=$?
	nsightctl stop
	killall redis-server 2>/dev/null
	wait_until 50 0.1 sh -c '! pidof redis-server'
	diag_analyze "$1" "$_pid"
	ktap_diag "$1: redis-benchmark exit $_crc: $(tr '\r' '\n' </tmp/$1.client | grep -a 'requests per second' | tail -n 1)"
}

ktap_plan 5
diag_setup
check "load the busy worker" insmod /lib/nsight/nsight_busywork.ko cpu=1 period_us=4000 spin_us=1500
at_exit "rmmod nsight_busywork 2>/dev/null"
redis_run redis_kworker
rmmod nsight_busywork
check "redis-benchmark ran (kworker)" grep -q "requests per second" /tmp/redis_kworker.client
check "first cause: the busy work function (A)" \
	test "$DIAG_TOP" = "OS threads: nsight_busywork_fn [nsight_busywork] (A)"
redis_run redis_clean
check "redis-benchmark ran (clean)" grep -q "requests per second" /tmp/redis_clean.client
check "clean: first cause is not an injected kind" sh -c "! echo '$DIAG_TOP' | grep -qE '$INJECTED'"
ktap_finish
