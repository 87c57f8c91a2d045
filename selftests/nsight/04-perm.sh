#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# An unprivileged process can read state but change nothing.
. /lib/nsight/lib.sh

S=/sys/kernel/nsight
NOBODY=65534

ktap_plan 8
nsight_load
sources=$(cat $S/sources)
check "unprivileged sysfs write denied" sh -c "! run_as $NOBODY sh -c 'echo 1 > $S/enable' 2>/dev/null"
check "unprivileged sysfs config denied" sh -c "! run_as $NOBODY sh -c 'echo none > $S/sources' 2>/dev/null"
check "unprivileged sysfs read allowed" run_as $NOBODY cat $S/enable
check "unprivileged relay read denied" sh -c "! run_as $NOBODY cat /sys/kernel/debug/nsight/cpu0 >/dev/null 2>&1"
check "unprivileged nsightctl start fails" sh -c "
	run_as $NOBODY nsightctl start >/tmp/perm.out 2>&1; rc=\$?
	cat /tmp/perm.out
	[ \$rc -eq 1 ] && grep -q CAP_NET_ADMIN /tmp/perm.out"
check "unprivileged netlink gets EPERM" sh -c "run_as $NOBODY nl_probe --eperm"
check "still stopped" sh -c "[ \"\$(cat $S/enable)\" = 0 ]"
check "config unchanged" sh -c "[ \"\$(cat $S/sources)\" = $sources ]"
nsight_unload
ktap_finish
