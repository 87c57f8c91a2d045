#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# nsightctl over generic netlink, and the kernel's attribute validation.
. /lib/nsight/lib.sh

S=/sys/kernel/nsight

# exits CODE CMD...: CMD must exit with CODE.
exits() {
	want=$1
	shift
	"$@" >/tmp/exits.out 2>&1
	got=$?
	[ $got -eq "$want" ] && return 0
	echo "exit $got, want $want:"
	cat /tmp/exits.out
	return 1
}

nsight_load
nsightctl stop >/dev/null 2>&1
nl_probe >/tmp/nl_probe.out 2>&1
nl_cases=$(grep -c -E '^(PASS|FAIL) ' /tmp/nl_probe.out)
ktap_plan $((16 + nl_cases))

check "status" nsightctl status
check "status --json" sh -c 'nsightctl status --json | grep -q "\"enabled\""'
check "config --sources" sh -c "nsightctl config --sources handoff && [ \"\$(cat $S/sources)\" = handoff ]"
check "config --buffer-size" sh -c "nsightctl config --buffer-size 1M && [ \"\$(cat $S/buffer_size)\" = 1048576 ]"
check "config prints current" sh -c 'nsightctl config | grep -q handoff'
check "config unknown source is usage error" exits 2 nsightctl config --sources bogus
check "config bad size is usage error" exits 2 nsightctl config --buffer-size 12Q
check "start" sh -c "nsightctl start && [ \"\$(cat $S/enable)\" = 1 ]"
check "start twice fails" exits 1 nsightctl start
check "config while running fails" exits 1 nsightctl config --sources all
check "stop" sh -c "nsightctl stop && [ \"\$(cat $S/enable)\" = 0 ]"
check "stop twice fails" exits 1 nsightctl stop
check "sysfs start, netlink stop" sh -c "echo 1 > $S/enable && nsightctl status --json | grep -q '\"enabled\": *true' && nsightctl stop"
check "unknown command is usage error" exits 2 nsightctl frobnicate
check "--help" exits 0 nsightctl --help
check "start --help" exits 0 nsightctl start --help

while read -r verdict name rest; do
	case $verdict in
	PASS) ktap_ok "netlink $name" ;;
	FAIL) ktap_fail "netlink $name" "$rest" ;;
	esac
done </tmp/nl_probe.out
nsight_unload
ktap_finish
