#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Diagnosis scenario 1: a CPU hog named "hog", pinned to the application
# core at a higher priority, must be the first cause: "hog interference (A)".
# Beside a clean run (--tail p90-p99.9 --baseline), the same band of both
# captures against the clean run's fastest 20%: the hog's cause first, with
# a share in this capture's column and none in the clean run's.
. /lib/nsight/lib.sh
. /tests/diag-lib.sh

ktap_plan 4
diag_setup
hog_start -5
diag_run hog "" ""
hog_stop
top=$DIAG_TOP
spid=$DIAG_SPID
check "server's messages diagnosed" test -n "$top"
check "first cause: hog interference (A)" test "$top" = "hog interference (A)"
windows_same hog 100ms
check "100 ms windows hold the same messages" test $? -eq 0
diag_run hogclean "" ""
nsight-analyze --color never --tail p90-p99.9 --baseline /tmp/hogclean.nsight /tmp/hog.nsight \
	>/tmp/hog.band.txt 2>&1
band=$(band_first /tmp/hog.band.txt "$spid")
ktap_diag "hog beside hogclean, p90-p99.9: first cause|this|baseline: '$band'"
sed -n '/^band p/,/^[^ ]/p' /tmp/hog.band.txt | head -n 12 |
	while IFS= read -r _l; do ktap_diag "  $_l"; done
# "hog interference (A)|N%|-": a share in this capture's column, a dash in the baseline's.
band_ok() {
	_here=${band#*|}
	[ "${band%%|*}" = "hog interference (A)" ] && [ "${_here%|*}" != "-" ] &&
		[ "${band##*|}" = "-" ]
}
check "band beside a clean run: the hog's share here, none there" band_ok
ktap_finish
