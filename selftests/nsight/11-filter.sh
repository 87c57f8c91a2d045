#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Filters: only the selected service's network events are recorded; the
# filter is set and read through sysfs and netlink alike.
. /lib/nsight/lib.sh

S=/sys/kernel/nsight
N=${nsight_filter_count:-200}

ktap_plan 11
nsight_load
netns_pair nsa nsb 10.14.0.1 10.14.0.2
check "default: no filter" sh -c "[ \"\$(cat $S/filter)\" = none ]"
check "sysfs filter set" sh -c "echo 'port=9000 addr=10.14.0.2' > $S/filter && [ \"\$(cat $S/filter)\" = 'port=9000 addr=10.14.0.2' ]"
check "sysfs rejects a bad port" write_fails $S/filter "port=0" "Invalid argument"
check "sysfs rejects an unknown kind" write_fails $S/filter "host=x" "Invalid argument"
check "sysfs rejects too many entries" write_fails $S/filter "port=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17" "too long"
check "netlink filter set and shown" sh -c "nsightctl config --filter 'port=9000' && nsightctl status | grep -q 'port=9000' && [ \"\$(cat $S/filter)\" = port=9000 ]"

check "filter busy while running" sh -c "nsightctl start && { write_file $S/filter none; rc=\$?; nsightctl stop; [ \$rc -ne 0 ]; }"

# The receivers wait out the start (attaching every hook takes seconds
# under the debug kernel in a loaded emulator): 60 s of silence at most.
ip netns exec nsb udp_pair recv 9000 "$N" 60000 >/tmp/r0 2>&1 &
p0=$!
ip netns exec nsb udp_pair recv 9001 "$N" 60000 >/tmp/r1 2>&1 &
p1=$!
until grep -q listening /tmp/r0 && grep -q listening /tmp/r1; do sleep 0.1; done
nsightctl start
ip netns exec nsa udp_pair send 10.14.0.2 9000 "$N" 8 2000 >/dev/null
ip netns exec nsa udp_pair send 10.14.0.2 9001 "$N" 8 2000 >/dev/null
wait $p0 $p1
nsightctl stop
nsightctl dump -o /tmp/f.nsight
nsight-analyze --verbose /tmp/f.nsight >/tmp/f.txt 2>&1
handoffs=$(awk '$1 == "handoff" {print $2}' /tmp/f.txt)
ktap_diag "filter port=9000: sent $N to 9000 and $N to 9001, handoff records ${handoffs:-0}; $(cat /tmp/r0) and $(cat /tmp/r1)"
check "only the filtered port's hand-offs" sh -c "[ '${handoffs:-0}' = '$N' ]"
check "packet records present" sh -c "awk '\$1 == \"pkt\" && \$2 >= $N {f=1} END {exit !f}' /tmp/f.txt"
check "context records unfiltered" sh -c "awk '\$1 == \"sched_switch\" && \$2 > 0 {f=1} END {exit !f}' /tmp/f.txt"
check "filter none clears" sh -c "nsightctl config --filter none && [ \"\$(cat $S/filter)\" = none ]"
netns_cleanup
nsight_unload
ktap_finish
