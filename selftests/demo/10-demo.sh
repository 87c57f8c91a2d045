#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The demo's guest side: capture UDP traffic between two namespaces with
# nsight, dump it, and send the capture to the host over the console
# (base64 between markers) where nsight-analyze reads it.
. /lib/nsight/lib.sh

N=${nsight_demo_count:-1000}

ktap_plan 5
nsight_load
netns_pair nsa nsb 10.13.0.1 10.13.0.2
ip netns exec nsb udp_pair recv 9100 "$N" 10000 >/tmp/recv.out 2>&1 &
rpid=$!
until grep -q listening /tmp/recv.out; do sleep 0.1; done

check "nsightctl start" nsightctl start
check "send $N datagrams" sh -c "/sbin/ip netns exec nsa udp_pair send 10.13.0.2 9100 $N 8 2000"
wait $rpid
check "nsightctl stop" nsightctl stop
ktap_diag "$(nsightctl status)"
check "nsightctl dump" nsightctl dump -o /tmp/demo.nsight
echo "NSIGHT-CAPTURE-BEGIN"
base64 /tmp/demo.nsight
echo "NSIGHT-CAPTURE-END"
check "capture sent" test -s /tmp/demo.nsight
ktap_finish
