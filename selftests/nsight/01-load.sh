#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Load and unload: interfaces appear and disappear, taint stays out-of-tree.
. /lib/nsight/lib.sh

ncpus=$(grep -c ^processor /proc/cpuinfo)
taint_before=$(cat /proc/sys/kernel/tainted)

ktap_plan 10
check "insmod" insmod "$NSIGHT_KO"
check "sysfs files present" sh -c '
	for f in enable sources buffer_size tsc_hz hook_hits records_written \
		 records_dropped cpu0/hook_hits cpu0/records_written \
		 cpu0/records_dropped cpu0/buffer_used; do
		test -e /sys/kernel/nsight/$f || { echo "missing $f"; exit 1; }
	done'
check "relay file per cpu" sh -c "
	i=0
	while [ \$i -lt $ncpus ]; do
		test -e /sys/kernel/debug/nsight/cpu\$i || { echo missing cpu\$i; exit 1; }
		i=\$((i + 1))
	done"
check "genl family answers" nsightctl status
check "defaults" sh -c '
	[ "$(cat /sys/kernel/nsight/enable)" = 0 ] &&
	[ "$(cat /sys/kernel/nsight/sources)" = '$NSIGHT_DEFAULT_SOURCES' ] &&
	[ "$(cat /sys/kernel/nsight/sample_period)" = 1000000 ] &&
	[ "$(cat /sys/kernel/nsight/buffer_size)" = 4194304 ] &&
	[ "$(cat /sys/kernel/nsight/records_written)" = 0 ]'
check "tsc_hz is set" sh -c '[ "$(cat /sys/kernel/nsight/tsc_hz)" -gt 0 ]'
# Only O (out-of-tree, 4096) and E (unsigned, 8192) may be added, and N
# (test, 262144) on kernels with KUnit, where the module carries its suites.
allowed=$((4096 | 8192))
[ -d /sys/kernel/debug/kunit ] && allowed=$((allowed | 262144))
check "taint only out-of-tree" sh -c "
	t=\$(cat /proc/sys/kernel/tainted)
	new=\$(( t & ~$taint_before ))
	echo \"taint before $taint_before after \$t\"
	[ \$(( new & ~$allowed )) -eq 0 ]"
check "rmmod" rmmod nsight
check "interfaces gone" sh -c '
	! test -e /sys/kernel/nsight && ! test -e /sys/kernel/debug/nsight &&
	! nsightctl status 2>/dev/null'
check "reload and unload" sh -c "/sbin/insmod $NSIGHT_KO && nsightctl status >/dev/null && /sbin/rmmod nsight"
ktap_finish
