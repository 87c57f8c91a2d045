#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Diagnosis with Debian's nginx driven by wrk (one connection, closed
# loop, 2 s): nginx (no master process, one worker) pinned to the
# application core. Injected: a CPU competitor with a 25% duty cycle (hog,
# 1 ms of every 4 ms) on that core: "hog interference (A)" must come
# first. The clean run must not name an injected kind first.
. /lib/nsight/lib.sh
. /tests/diag-lib.sh

INJECTED='interference \(A\)|Head-of-line blocking|Receive processing \(A\)|OS threads|Page faults'

mkdir -p /tmp/ngx
cat >/tmp/ngx/nginx.conf <<'CONF'
daemon off;
user root root;
master_process off;
worker_processes 1;
pid /tmp/ngx/nginx.pid;
error_log /tmp/ngx/error.log;
events { worker_connections 64; }
http {
	access_log off;
	client_body_temp_path /tmp/ngx/body;
	proxy_temp_path /tmp/ngx/proxy;
	fastcgi_temp_path /tmp/ngx/fastcgi;
	uwsgi_temp_path /tmp/ngx/uwsgi;
	scgi_temp_path /tmp/ngx/scgi;
	server {
		listen 10.16.0.2:8080;
		location / { return 200 "hello\n"; }
	}
}
CONF

# nginx_run NAME: capture 2 s of wrk and analyse it; sets DIAG_TOP and
# DIAG_SHARE for nginx.
nginx_run() {
	nsightctl start
	ip netns exec nsb taskset -c 1 nginx -c /tmp/ngx/nginx.conf -p /tmp/ngx \
		-e /tmp/ngx/error.log >/tmp/$1.server 2>&1 &
	at_exit "killall nginx 2>/dev/null"
	wait_until 100 0.1 test -s /tmp/ngx/nginx.pid
	_pid=$(cat /tmp/ngx/nginx.pid)
	ip netns exec nsa taskset -c 0 wrk -t 1 -c 1 -d 2s --latency http://10.16.0.2:8080/ \
		>/tmp/$1.client 2>&1
	_crc=$?
	nsightctl stop
	killall nginx 2>/dev/null
	wait_until 50 0.1 sh -c '! pidof nginx'
	rm -f /tmp/ngx/nginx.pid
	diag_analyze "$1" "$_pid"
	ktap_diag "$1: wrk exit $_crc: $(grep -a 'requests in\|99%' /tmp/$1.client | tr -s ' ' | tr '\n' ' ')"
}

ktap_plan 5
diag_setup
# No khugepaged: it collapses earlier scenarios' memory (redis) on any core,
# and a millisecond of it in the clean run is a competitor no one injected.
echo never > /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null
ip netns exec nsb taskset -c 1 hog 0 0 1000 4000 >/dev/null 2>&1 &
hpid=$!
# "ip netns exec" forks: the hog is its child, killed by name.
at_exit "killall hog 2>/dev/null"
nginx_run nginx_hog
killall hog 2>/dev/null
wait $hpid 2>/dev/null
check "wrk ran (hog)" grep -q "requests in" /tmp/nginx_hog.client
check "nginx's messages diagnosed" test -n "$DIAG_TOP"
check "first cause: hog interference (A)" test "$DIAG_TOP" = "hog interference (A)"
nginx_run nginx_clean
check "wrk ran (clean)" grep -q "requests in" /tmp/nginx_clean.client
check "clean: no injected kind leads the tail" clean_top_ok "$INJECTED"
ktap_finish
