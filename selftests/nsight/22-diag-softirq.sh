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
ip netns exec nsb sh -c 'echo 2 > /sys/class/net/veth0/queues/rx-0/rps_cpus'
# The sink reads on CPU 0; its filter runs where the packet is received.
# A 4000-instruction filter needs more than the default socket option
# memory.
echo 1048576 > /proc/sys/net/core/optmem_max
ip netns exec nsb sh -c 'echo 1048576 > /proc/sys/net/core/optmem_max' 2>/dev/null
ip netns exec nsb taskset -c 0 udp_pair recv 9301 1000000000 20000 4000 >/tmp/sink.out 2>&1 &
sleep 0.5
check "costly receive filter attached" grep -q listening /tmp/sink.out
ip netns exec nsa taskset -c 1 udp_pair flood 10.16.0.2 9301 600 >/dev/null 2>&1 &
# "ip netns exec" forks: the flood and the sink are killed by name.
at_exit "killall udp_pair 2>/dev/null"
DIAG_CLIENT_CPU=1
diag_run softirq "-w 100" ""
killall udp_pair 2>/dev/null
check "server's messages diagnosed" test -n "$DIAG_TOP"
check "first cause: Receive processing (A)" test "$DIAG_TOP" = "Receive processing (A)"
# The traffic behind it: the flood to the sink's port among the flows shown.
sed -n "/^diagnosis: [^ ]*\[$DIAG_SPID\] rx:/,/^  coverage:/p" /tmp/softirq.txt >/tmp/softirq.server
check "receive work names the flood's flow" grep -q '^      udp [0-9.:]* > 10.16.0.2:9301: ' /tmp/softirq.server
ktap_finish
