#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Diagnosis scenario 2: the server takes a batch of requests per wake-up
# and then works on each in turn; requests that become readable meanwhile
# wait behind the others: "Head-of-line blocking (A)" first.
. /lib/nsight/lib.sh
. /tests/diag-lib.sh

ktap_plan 2
diag_setup
diag_run hol "-b 8 -w 300" ""
check "server's messages diagnosed" test -n "$DIAG_TOP"
check "first cause: Head-of-line blocking (A)" test "$DIAG_TOP" = "Head-of-line blocking (A)"
ktap_finish
