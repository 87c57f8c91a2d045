#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The flight recorder: `nsightctl record --flight-recorder` on the UDP echo
# server while a batch job named "hog", pinned to the application core at
# a higher priority, burns 40 ms of every second (under -icount the
# server's messages then wait 1 to 6 ms instead of about 0.1). Only the windows around
# the messages it delays are kept; nsight-analyze names each window's
# message first and, for at least one, the hog as its first cause. Then
# the command's errors: a bad trigger, options without the flight
# recorder, and a quiet capture that saves no window.
. /lib/nsight/lib.sh
. /tests/diag-lib.sh

ktap_plan 10
diag_setup
# The default buffers (256 KiB sub-buffers): the flight recorder keeps
# or leaves out whole sub-buffers, and diag_setup's are 4 MiB each.
nsightctl config --buffer-size 4M

check "a bad trigger is a usage error" sh -c \
	'nsightctl record --flight-recorder --trigger "latency<5ms" -o /tmp/fr.bad; test $? -eq 2'
check "--flight-recorder needs --trigger" sh -c \
	'nsightctl record --flight-recorder -o /tmp/fr.bad; test $? -eq 2'
check "--before needs --flight-recorder" sh -c \
	'nsightctl record --before 10ms -o /tmp/fr.bad; test $? -eq 2'

# hog NICE SECONDS BUSY_US PERIOD_US
hog_start -10 0 40000 1000000
# nsightctl on CPU 0: its copies on the application core show up as
# "nsightctl interference" in the windows (as they would on a real core,
# only longer under the emulator).
taskset -c 0 nsightctl record --flight-recorder --trigger 'latency>1ms' --before 300ms --after 50ms \
	--port $DIAG_PORT -o /tmp/fr.nsight 2>/tmp/fr.err &
rp=$!
wait_until 600 0.1 grep -q 1 /sys/kernel/nsight/enable
load_run udp "$DIAG_N" "$DIAG_RATE" /tmp/fr.client
hog_stop
kill -INT $rp
wait $rp
rc=$?
while IFS= read -r l; do ktap_diag "record: $l"; done </tmp/fr.err
ktap_diag "client: $(cat /tmp/fr.client)"
check "record --flight-recorder exits 0" test $rc -eq 0
windows=$(awk '$2 == "flight" { for (i = 1; i < NF; i++) if ($(i + 1) == "windows") print $i }' /tmp/fr.err)
check "windows were saved" test "${windows:-0}" -gt 0
nsight-analyze --strict --color never /tmp/fr.nsight >/tmp/fr.txt 2>&1
arc=$?
grep '^window\|trigger:\|its \|^check\|flight' /tmp/fr.txt | head -n 40 |
	while IFS= read -r l; do ktap_diag "  $l"; done
check "the capture analyses with --strict (counters add up)" test $arc -eq 0
check "one analysis per saved window" \
	test "$(grep -c '^window [0-9]*:' /tmp/fr.txt)" -eq "${windows:-0}"
check "each window names its message first" \
	test "$(grep -c '^  trigger: msgload' /tmp/fr.txt)" -eq "${windows:-0}"
check "the hog is the first cause of a triggering message" \
	grep -q '^  its causes.*: hog interference (A)' /tmp/fr.txt

# Nothing passes a trigger of 10 s: no window, a whole stream. Smaller
# sub-buffers (32 KiB): the 2 s of compact records fill several per CPU,
# of which the first is kept and the others left out.
nsightctl config --buffer-size 512K
taskset -c 0 nsightctl record --flight-recorder --trigger 'latency>10000ms' --duration 2 \
	-o /tmp/fr.quiet 2>/tmp/fr.qerr &
qp=$!
wait_until 600 0.1 grep -q 1 /sys/kernel/nsight/enable
load_run udp 200 "$DIAG_RATE" /tmp/fr.qclient
wait $qp
qrc=$?
while IFS= read -r l; do ktap_diag "quiet: $l"; done </tmp/fr.qerr
check "a quiet flight recording saves no window, leaves records out, stays whole" sh -c \
	"test $qrc -eq 0 && grep -q ' 0 windows saved' /tmp/fr.qerr &&
	 ! grep -q ' 0 records outside them' /tmp/fr.qerr &&
	 nsight-analyze --strict /tmp/fr.quiet >/tmp/fr.qtxt 2>&1"
netns_cleanup
nsight_unload
ktap_finish
