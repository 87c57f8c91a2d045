#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# KUnit suites built into nsight.ko run when it loads, on kernels with
# KUnit; their results are reported here case by case.
. /lib/nsight/lib.sh

K=/sys/kernel/debug/kunit
SUITES="nsight_buffer nsight_control nsight_pkt nsight_timeconv nsight_pt nsight_pt_cr3"

if [ ! -d $K ]; then
	ktap_plan 1
	ktap_skip "kunit" "kernel $(uname -r) has no KUnit"
	ktap_finish
fi

insmod "$NSIGHT_KO" || { ktap_plan 1; ktap_fail "insmod"; ktap_finish; }
ncases=0
for s in $SUITES; do
	[ -r $K/$s/results ] || continue
	# A case result is a line indented once (4 spaces) below the suite.
	ncases=$((ncases + $(grep -c -E '^    (not )?ok [0-9]+ ' $K/$s/results)))
done
ktap_plan $((ncases + $(echo $SUITES | wc -w)))
for s in $SUITES; do
	if [ ! -r $K/$s/results ]; then
		ktap_fail "kunit $s" "no results for suite $s"
		continue
	fi
	ktap_ok "kunit $s ran"
	grep -E '^    (not )?ok [0-9]+ ' $K/$s/results > /tmp/kunit.$s
	while read -r first second third rest; do
		if [ "$first" = ok ]; then
			case "$rest" in
			*"# SKIP"*) ktap_skip "$s.$third" "${rest#*# SKIP}" ;;
			*) ktap_ok "$s.$third" ;;
			esac
		else
			ktap_fail "$s.${rest%% *}" "see dmesg"
			sed 's/^/# /' $K/$s/results
		fi
	done < /tmp/kunit.$s
done
rmmod nsight
ktap_finish
