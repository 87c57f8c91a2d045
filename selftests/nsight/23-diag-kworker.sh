#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Diagnosis scenario 4: a test module keeps a work item spinning on the
# application core: the work function is the first cause,
# "OS threads: nsight_busywork_fn [nsight_busywork] (A)" (the symbol as %ps
# prints it, with its module).
. /lib/nsight/lib.sh
. /tests/diag-lib.sh

ktap_plan 3
diag_setup
check "load the busy worker" insmod /lib/nsight/nsight_busywork.ko cpu=1 period_us=4000 spin_us=1500
at_exit "rmmod nsight_busywork 2>/dev/null"
diag_run kworker "" ""
rmmod nsight_busywork
check "server's messages diagnosed" test -n "$DIAG_TOP"
check "first cause: the busy work function (A)" test "$DIAG_TOP" = "OS threads: nsight_busywork_fn [nsight_busywork] (A)"
ktap_finish
