#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Diagnosis scenario 5: the request handler writes a random amount of
# freshly mapped memory each time (a page-fault storm): "Page faults (A)".
. /lib/nsight/lib.sh
. /tests/diag-lib.sh

ktap_plan 2
diag_setup
diag_run faults "-t 512 -R -s 3" ""
check "server's messages diagnosed" test -n "$DIAG_TOP"
check "first cause: Page faults (A)" test "$DIAG_TOP" = "Page faults (A)"
ktap_finish
