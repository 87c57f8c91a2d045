#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Diagnosis with Debian's redis-server: pinned to the application core,
# driven by redis-benchmark (GET, one connection) from the other
# namespace. Injected: a kernel work item spinning 1.5 ms of every 4 ms on
# the server's core (the test module nsight_busywork): the work function
# must come first. Then fork: with 12,000-odd 1 KiB keys, BGSAVE every
# 150 ms forks a child that inherits the server's core and writes the
# snapshot there: that child, "redis-server interference (A)", must come
# first (its copy-on-write faults in the server come far behind). The
# clean run must not name an injected kind first.
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

ktap_plan 7
diag_setup
check "load the busy worker" insmod /lib/nsight/nsight_busywork.ko cpu=1 period_us=4000 spin_us=1500
at_exit "rmmod nsight_busywork 2>/dev/null"
redis_run redis_kworker
rmmod nsight_busywork
check "redis-benchmark ran (kworker)" grep -q "requests per second" /tmp/redis_kworker.client
check "first cause: the busy work function (A)" \
	test "$DIAG_TOP" = "OS threads: nsight_busywork_fn [nsight_busywork] (A)"
# Fork: BGSAVE's child beside the server.
nsightctl config --buffer-size 32M
ip netns exec nsb taskset -c 1 redis-server --bind 10.16.0.2 --port 6379 --save '' \
	--appendonly no --protected-mode no --dir /tmp >/tmp/redis_fork.server 2>&1 &
wait_until 100 0.1 grep -qs 'Ready to accept connections' /tmp/redis_fork.server
_pid=$(pidof redis-server)
ip netns exec nsa redis-benchmark -h 10.16.0.2 -p 6379 -c 4 -n 20000 -r 20000 -d 1024 -t set \
	-q >/dev/null 2>&1
nsightctl start
(
	for _i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		ip netns exec nsa redis-cli -h 10.16.0.2 bgsave >/dev/null 2>&1
		sleep 0.15
	done
) &
ip netns exec nsa taskset -c 0 redis-benchmark -h 10.16.0.2 -p 6379 -c 1 -n 2000 -r 20000 \
	-d 1024 -t set -q >/tmp/redis_fork.client 2>&1
nsightctl stop
killall redis-server 2>/dev/null
wait_until 50 0.1 sh -c '! pidof redis-server'
diag_analyze redis_fork "$_pid"
_saves=$(grep -c 'Background saving started' /tmp/redis_fork.server)
ktap_diag "redis_fork: $_saves BGSAVE forks in the capture"
check "BGSAVE forked" test "$_saves" -gt 0
check "first cause: the BGSAVE child (A)" test "$DIAG_TOP" = "redis-server interference (A)"
redis_run redis_clean
check "redis-benchmark ran (clean)" grep -q "requests per second" /tmp/redis_clean.client
check "clean: no injected kind leads the tail" clean_top_ok "$INJECTED"
ktap_finish
