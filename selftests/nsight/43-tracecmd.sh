#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# No module needed: the hog scenario of 20-diag-hog (a UDP echo server in
# nsb on CPU 1 with "hog" at nice -5 beside it, an open-loop client in nsa
# on CPU 0) captured once with nsight.ko and once with trace-cmd, through
# the script 'nsightctl trace-cmd-args' prints (kprobe events and the
# kernel's own tracepoints). nsight-analyze reads the trace.dat, says what
# such a capture cannot give, and must name the same first cause.
. /lib/nsight/lib.sh
. /tests/diag-lib.sh

DIAG_N=${nsight_tracecmd_count:-400}
ktap_plan 7
diag_setup
ip netns exec nsb taskset -c 1 hog -5 >/dev/null 2>&1 &
hpid=$!
at_exit "kill $hpid 2>/dev/null"
diag_run tcmod "" ""
ktap_diag "nsight.ko: first cause '$DIAG_TOP' (${DIAG_SHARE:-?})"
top_mod=$DIAG_TOP
check "nsight.ko: the server's messages diagnosed" test -n "$top_mod"

# The same workload, recorded by trace-cmd with nsight.ko idle. The
# script trace-cmd runs is a new shell, whose "ip" may be busybox's
# applet: iproute2's, by its path.
ipbin=
for p in /usr/sbin/ip /sbin/ip /usr/bin/ip /bin/ip; do
	[ -x $p ] && ! $p -V 2>&1 | grep -qi busybox && { ipbin=$p; break; }
done
cat >/tmp/tc.load <<EOS
#!/bin/sh
rm -f /tmp/tc.server
$ipbin netns exec nsb taskset -c 1 msgload server -p udp -P $DIAG_PORT -n $DIAG_N >/tmp/tc.server 2>&1 &
s=\$!
i=0
while ! grep -qs listening /tmp/tc.server && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i + 1)); done
$ipbin netns exec nsa taskset -c 0 msgload client -p udp -a 10.16.0.2 -P $DIAG_PORT -n $DIAG_N \
	-r $DIAG_RATE -s 7 -T 10000 >/tmp/tc.client 2>&1
i=0
while kill -0 \$s 2>/dev/null && [ \$i -lt 50 ]; do sleep 0.1; i=\$((i + 1)); done
kill \$s 2>/dev/null
EOS
chmod +x /tmp/tc.load
mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
nsightctl trace-cmd-args -o /tmp/tc.dat >/tmp/tc.rec.sh
(cd /tmp && sh /tmp/tc.rec.sh /tmp/tc.load >/tmp/tc.rec.out 2>&1)
rc=$?
ktap_diag "trace-cmd: exit $rc; server: $(tr '\n' ' ' </tmp/tc.server) client: $(cat /tmp/tc.client)"
head -n 20 /tmp/tc.rec.out | while IFS= read -r l; do ktap_diag "rec: $l"; done
trace-cmd report -i /tmp/tc.dat 2>/dev/null | awk '{ for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { print $(i + 1); break } }' |
	sort | uniq -c | sort -rn | head -n 25 | while IFS= read -r l; do ktap_diag "events: $l"; done
check "trace-cmd recorded the workload" test $rc -eq 0 -a -s /tmp/tc.dat
pid=$(awk '/^listening/ {print $4}' /tmp/tc.server)
nsight-analyze /tmp/tc.dat >/tmp/tc.txt 2>&1
arc=$?
sed -n '/^source:/,/^latency:/p' /tmp/tc.txt | while IFS= read -r l; do ktap_diag "  $l"; done
check "nsight-analyze reads the trace.dat (exit $arc)" test $arc -eq 0
check "it names the source" grep -q '^source: trace-cmd trace.dat' /tmp/tc.txt
check "it says what the capture cannot give" grep -q '^not in this capture: ' /tmp/tc.txt
t=$(top_cause /tmp/tc.txt "$pid")
top_tc=${t%|*}
sed -n "/^diagnosis: [^ ]*\[$pid\] rx:/,/^diagnosis:\|^\$/p" /tmp/tc.txt | head -n 12 |
	while IFS= read -r l; do ktap_diag "  $l"; done
check "trace-cmd: the server's messages diagnosed" test -n "$top_tc"
check "the same first cause as nsight.ko's ('$top_tc', '$top_mod')" test "$top_tc" = "$top_mod"
kill $hpid
ktap_finish
