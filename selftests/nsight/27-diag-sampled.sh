#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Diagnosis scenario 7, function-level evidence from sampling: a test
# module's kprobe on ip_rcv calls nsight_slow_rcv(), which spins 200 us, on
# one request in 50. veth receives on the sender's CPU, so the spin runs
# in the receive softirq on the client's core: the receive core (R). With
# the sample source on (every 100 us) and the tail at p97 (30 messages, 20
# of them slowed), the first cause must be that function under receive
# processing: "Receive processing: nsight_slow_rcv [nsight_slowpath] (R)".
. /lib/nsight/lib.sh
. /tests/diag-lib.sh

ktap_plan 5
diag_setup
check "sample source selected" nsightctl config --sources all --sample-period 100us
check "load the slow receive path" insmod /lib/nsight/nsight_slowpath.ko port=$DIAG_PORT every=50 spin_us=200
at_exit "rmmod nsight_slowpath 2>/dev/null"
DIAG_ANALYZE_ARGS="--tail p97"
diag_run sampled "" ""
rmmod nsight_slowpath
sed -n '/^evidence:/,/^diagnosis:/p' /tmp/sampled.txt | grep -v '^diagnosis:' |
	while IFS= read -r l; do ktap_diag "$l"; done
check "evidence: sampled stacks at 100 us" grep -q 'kernel functions from sampled stacks, resolution 100 us' /tmp/sampled.txt
check "server's messages diagnosed" test -n "$DIAG_TOP"
check "first cause: the slow function under receive processing (R)" \
	test "$DIAG_TOP" = "Receive processing: nsight_slow_rcv [nsight_slowpath] (R)"
ktap_finish
