#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Unloading while a capture runs under traffic, and start/stop under
# traffic: probes are detached and synchronized before memory goes away.
. /lib/nsight/lib.sh

S=/sys/kernel/nsight
CYCLES=${nsight_cycles:-20}

ktap_plan 6
netns_pair nsa nsb 10.12.0.1 10.12.0.2
ip netns exec nsb udp_pair recv 9001 1000000000 30000 >/dev/null 2>&1 &
rpid=$!
ip netns exec nsa udp_pair flood 10.12.0.2 9001 ${nsight_flood_secs:-20} >/dev/null 2>&1 &
fpid=$!

check "load and start under traffic" sh -c "/sbin/insmod $NSIGHT_KO && nsightctl start"
sleep 2
check "records flowing" sh -c "[ \$(cat $S/records_written) -gt 0 ]"
check "rmmod while enabled" rmmod nsight
check "reload" insmod "$NSIGHT_KO"
check "$CYCLES start/stop cycles under traffic" sh -c "
	i=0
	while [ \$i -lt $CYCLES ]; do
		echo 1 > $S/enable && echo 0 > $S/enable || exit 1
		i=\$((i + 1))
	done"
check "start, then rmmod" sh -c "nsightctl start && /sbin/rmmod nsight"
kill $fpid $rpid 2>/dev/null
wait
netns_cleanup
ktap_finish
