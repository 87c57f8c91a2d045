#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Diagnosis scenario 3: receive processing on the application core while
# the application is busy. veth runs a packet's receive processing on the
# CPU that sent it, so every sender here runs on CPU 1, the server's core
# (RPS points there too): the requests, and a stream of other packets each
# run through a costly socket filter in the receive softirq. The server
# works 100 us per request. "Receive processing (A)" must come first, with
# the flood's flow among the receive work behind it. (With
# the senders on CPU 0 and only RPS moving the work, every packet needs an
# IPI, and in an emulated guest waiting for the other vCPU would swamp the
# effect.)
. /lib/nsight/lib.sh
. /tests/diag-lib.sh

ktap_plan 4
diag_setup
softirq_flood_start
check "costly receive filter attached" grep -q listening /tmp/sink.out
DIAG_CLIENT_CPU=1
diag_run softirq "-w 100" ""
softirq_flood_stop
check "server's messages diagnosed" test -n "$DIAG_TOP"
check "first cause: Receive processing (A)" test "$DIAG_TOP" = "Receive processing (A)"
# The traffic behind it: the flood to the sink's port among the flows shown.
check "receive work names the flood's flow" flood_in_rxwork /tmp/softirq.txt "$DIAG_SPID"
ktap_finish
