#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# PTP hardware clocks: nsightctl dump reads every PHC against
# CLOCK_REALTIME into the stream (record at its start, every 10 s and at
# its end), and nsight-analyze reports how each maps to system time and,
# over a recording, how it drifted. Needs a NIC with a PHC (the guests get an e1000e).
. /lib/nsight/lib.sh

# Nothing loads drivers in the test guest: an emulated e1000e needs its
# module (built in or absent on the test kernel).
modprobe e1000e 2>/dev/null
set -- /sys/class/ptp/ptp*
if [ ! -e "$1" ]; then
	ktap_skip_all "no PTP hardware clock in this guest"
fi
ip link set "$(ls /sys/class/ptp/ptp0/device/net 2>/dev/null | head -n 1)" up 2>/dev/null

ktap_plan 5
nsight_load
check "capture" sh -c "nsightctl start && nsightctl stop"
nsightctl dump -o /tmp/phc.nsight 2>/tmp/phc.err
check "dump read the PHCs" sh -c "cat /tmp/phc.err; grep -q 'readings of [1-9][0-9]* PTP hardware clock' /tmp/phc.err"
nsight-analyze /tmp/phc.nsight >/tmp/phc.txt 2>&1
ifname=$(ls /sys/class/ptp/ptp0/device/net 2>/dev/null | head -n 1)
ktap_diag "$(grep '^phc:' /tmp/phc.txt)"
check "analyze reports ptp0 and its NIC" sh -c "grep -q '^phc: ptp0 ${ifname:--} (ifindex [0-9]*) \(extended\|precise\), [1-9][0-9]* readings' /tmp/phc.txt"
check "JSON carries the readings" sh -c "nsight-analyze --json /tmp/phc.nsight | grep -q '\"phc_index\"'"
# record reads the PHCs at its start, every 10 s and at its end: the
# analysis follows each clock's drift over the capture.
nsightctl record --duration 12 -o /tmp/phcrec.nsight 2>/tmp/phcrec.err
nsight-analyze /tmp/phcrec.nsight >/tmp/phcrec.txt 2>&1
ktap_diag "$(grep '^phc:' /tmp/phcrec.txt)"
# (QEMU's e1000e PHC does not run: the report says so.)
check "record: readings over the capture, the drift reported" sh -c "
	grep -q '^phc: ptp0 .*, drift [-+][0-9]* ns over 1[0-9].[0-9] s ([-+][0-9.]* ppm)' /tmp/phcrec.txt"
nsight_unload
ktap_finish
