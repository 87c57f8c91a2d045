#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Diagnosis scenario 1: a CPU hog named "hog", pinned to the application
# core at a higher priority, must be the first cause: "hog interference (A)".
. /lib/nsight/lib.sh
. /tests/diag-lib.sh

ktap_plan 3
diag_setup
ip netns exec nsb taskset -c 1 hog -5 >/dev/null 2>&1 &
hpid=$!
at_exit "kill $hpid 2>/dev/null"
diag_run hog "" ""
kill $hpid
check "server's messages diagnosed" test -n "$DIAG_TOP"
check "first cause: hog interference (A)" test "$DIAG_TOP" = "hog interference (A)"
windows_same hog 100ms
check "100 ms windows hold the same messages" test $? -eq 0
ktap_finish
