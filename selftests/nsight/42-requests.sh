#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Requests across threads: twostage receives each request on CPU 0 and
# hands it to its worker "ts-work" on CPU 1, where "hog" (nice -5) runs;
# the marks of nsight_request.h (/dev/nsight) let nsight-analyze follow each
# request to the worker, join it with the reply the worker sends between
# its resume and end marks, and name the hog behind the slow ones, which
# the receiving thread's messages alone cannot show. Also the device's answers
# to bad and unwanted marks, and rmmod while a process holds it open.
. /lib/nsight/lib.sh
. /tests/diag-lib.sh

DIAG_N=${nsight_requests_count:-400}

ktap_plan 16
diag_setup

twostage probe >/tmp/rq.probe 2>&1
check "no capture: an unknown op is EINVAL" grep -qx "unknown-op EINVAL" /tmp/rq.probe
check "no capture: non-zero flags are EINVAL" grep -qx "flags EINVAL" /tmp/rq.probe
check "no capture: another command is ENOTTY" grep -qx "command ENOTTY" /tmp/rq.probe
check "no capture: a mark is ENODATA" grep -qx "mark ENODATA" /tmp/rq.probe
check "no capture: the state page says so" grep -qx "state 0" /tmp/rq.probe
check "the state page cannot be mapped writable" grep -qx "writable-map EPERM" /tmp/rq.probe
nsightctl config --sources "${NSIGHT_DEFAULT_SOURCES%,request}" >/dev/null
nsightctl start
twostage probe >/tmp/rq.probe 2>&1
nsightctl stop
nsightctl config --sources "$NSIGHT_DEFAULT_SOURCES" >/dev/null
check "a capture without the request source: ENODATA, state 0" \
	sh -c "grep -qx 'mark ENODATA' /tmp/rq.probe && grep -qx 'state 0' /tmp/rq.probe"

ip netns exec nsb taskset -c 1 hog -5 >/dev/null 2>&1 &
hpid=$!
at_exit "kill $hpid 2>/dev/null"
nsightctl start
twostage probe >/tmp/rq.probe 2>&1
check "a capture with it: a mark is written, state 1" \
	sh -c "grep -qx 'mark ok' /tmp/rq.probe && grep -qx 'state 1' /tmp/rq.probe"
rm -f /tmp/rq.server
ip netns exec nsb twostage server -P $DIAG_PORT -n "$DIAG_N" -c 0 -C 1 >/tmp/rq.server 2>&1 &
spid=$!
at_exit "kill $spid \$(awk '/^listening/ {print \$4}' /tmp/rq.server) 2>/dev/null; sleep 1"
wait_until 100 0.1 grep -qs listening /tmp/rq.server
ip netns exec nsa taskset -c 0 msgload client -p udp -a 10.16.0.2 -P $DIAG_PORT \
	-n "$DIAG_N" -r "$DIAG_RATE" -s 7 -T 10000 >/tmp/rq.client 2>&1
wait_until 50 0.1 exited $spid
nsightctl stop
kill $hpid
kill $spid 2>/dev/null
wait $spid 2>/dev/null
ktap_diag "server: $(cat /tmp/rq.server | tr '\n' ' ') client: $(cat /tmp/rq.client)"
check "every mark was recorded" grep -q "^served $DIAG_N marks-failed 0" /tmp/rq.server

pid=$(awk '/^listening/ {print $4}' /tmp/rq.server)
nsightctl dump -o /tmp/rq.nsight 2>/tmp/rq.dump
nsight-analyze --verbose /tmp/rq.nsight >/tmp/rq.txt 2>&1
# The server's section: its "requests:" line and the indented ones under it.
awk -v h="requests: twostage[$pid]: " 'index($0, h) == 1 { p = 1; print; next }
	p && /^  / { print; next } { p = 0 }' /tmp/rq.txt | head -n 16 |
	while IFS= read -r l; do
		ktap_diag "  $l"
	done
head=$(grep "^requests: twostage\[$pid\]: " /tmp/rq.txt)
check "the requests of twostage are followed" test -n "$head"
complete=$(echo "$head" | sed -n 's/.* marked, \([0-9]*\) complete.*/\1/p')
check "at least 90% of the requests are complete (${complete:-0} of $DIAG_N)" \
	test "${complete:-0}" -ge $((DIAG_N * 9 / 10))
who=$(sed -n "/^requests: twostage\[$pid\]: /{n;p;}" /tmp/rq.txt)
tids=$(echo "$who" |
	sed -n 's/.*begun most by tid \([0-9]*\), ended most by tid \([0-9]*\);.*/\1 \2/p')
check "begun on one thread, ended on another ($tids)" \
	sh -c "set -- $tids; [ \$# -eq 2 ] && [ \$1 != \$2 ]"
# The worker's sendto() between resume and end: the request's response.
resp=$(echo "$who" | sed -n 's/.*; \([0-9]*\) complete with their response$/\1/p')
check "at least 90% of the requests are joined with their reply (${resp:-0} of ${complete:-0} complete)" \
	test "${resp:-0}" -ge $((DIAG_N * 9 / 10))
top=$(sed -n "/^requests: twostage\[$pid\]: /,/^[a-z]/p" /tmp/rq.txt |
	sed -n '/^  tail (/{n;p;q;}')
check "the slow requests' first cause is the hog on the worker's CPU ($top)" \
	sh -c "echo '$top' | grep -q 'preempted by task:hog'"
# A server that marked once (no capture: ENODATA) keeps the device open.
ip netns exec nsb twostage server -P $((DIAG_PORT + 1)) >/tmp/rq2.server 2>&1 &
s2=$!
at_exit "kill $s2 \$(awk '/^listening/ {print \$4}' /tmp/rq2.server) 2>/dev/null; sleep 1"
wait_until 100 0.1 grep -qs listening /tmp/rq2.server
ip netns exec nsa msgload client -p udp -a 10.16.0.2 -P $((DIAG_PORT + 1)) -n 1 \
	-T 10000 >/dev/null 2>&1
check "rmmod is refused while a process holds /dev/nsight" sh -c "! rmmod nsight 2>/dev/null"
# $! is ip's shell; the server's own pid is in its "listening" line.
p2=$(awk '/^listening/ {print $4}' /tmp/rq2.server)
kill $p2 $s2 2>/dev/null
wait_until 50 0.1 exited $p2
check "the module unloads once it exited" nsight_unload
ktap_finish
