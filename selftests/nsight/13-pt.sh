#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Intel PT: the "pt" file tells the state (absent where the CPU has no PT,
# as in a TCG guest, consistent with /proc/cpuinfo), pt_filter takes valid
# IP ranges and refuses the rest, and a capture selecting pt runs either
# way. Where the guest has intel_pt, a short trace is read back instead.
# On kernels with KUnit, the nsight_pt suite's result is reported too.
. /lib/nsight/lib.sh

S=/sys/kernel/nsight
D=/sys/kernel/debug/nsight/pt
K=/sys/kernel/debug/kunit/nsight_pt/results
ncpus=$(grep -c ^processor /proc/cpuinfo)
has_pt=0
grep -qw intel_pt /proc/cpuinfo && has_pt=1

ktap_plan 17
nsight_load
ktap_diag "intel_pt in /proc/cpuinfo: $has_pt; $S/pt:
$(cat $S/pt)"

if [ -r $K ]; then
	cases=$(grep -c -E '^[[:space:]]+ok [0-9]+ ' $K)
	ktap_diag "kunit nsight_pt: $cases results ok, $(grep -c -E '^[[:space:]]+not ok ' $K) not ok"
	check "kunit nsight_pt" sh -c "! grep -q -E '^[[:space:]]*not ok ' $K && grep -q -E '^ok [0-9]+ nsight_pt' $K || { cat $K; exit 1; }"
else
	ktap_skip "kunit nsight_pt" "kernel $(uname -r) has no KUnit"
fi

check "pt file readable" test -r $S/pt
if [ $has_pt = 0 ]; then
	check "state absent (no intel_pt)" sh -c "[ \"\$(sed -n 1p $S/pt)\" = 'state: absent' ]"
	check "absent says why" grep -q '^reason: ..' $S/pt
else
	check "state available (intel_pt)" sh -c "sed -n 1p $S/pt | grep -q -x -E 'state: (available|busy)'"
	check "capabilities listed" grep -q '^topa: yes$' $S/pt
fi

ranges=$(sed -n 's/^ip_filter_ranges: //p' $S/pt)
R1=0xffffffff81000000-0xffffffff82000000
R2=0x400000-0x500000
check "pt_filter is none at first" sh -c "[ \"\$(cat $S/pt_filter)\" = none ]"
if [ $has_pt = 0 ] || [ "${ranges:-0}" -ge 2 ]; then
	check "pt_filter takes a range list" sh -c "echo $R1,$R2 > $S/pt_filter && [ \"\$(cat $S/pt_filter)\" = $R1,$R2 ]"
else
	check "pt_filter takes no more ranges than the CPU has ($ranges)" \
		write_fails $S/pt_filter "$R1,$R2" "too long"
fi
check "pt_filter rejects garbage" write_fails $S/pt_filter garbage "Invalid argument"
check "pt_filter rejects an empty range" write_fails $S/pt_filter 0x2000-0x1000 "Invalid argument"
check "pt_filter rejects 5 ranges" write_fails $S/pt_filter \
	"0x1000-0x2000,0x3000-0x4000,0x5000-0x6000,0x7000-0x8000,0x9000-0xa000" "too long"
check "pt_filter none clears" sh -c "echo none > $S/pt_filter && [ \"\$(cat $S/pt_filter)\" = none ]"

check "sources all includes pt" sh -c "echo all > $S/sources && grep -q -E '(^|,)pt(,|\$)' $S/sources"
check "capture with pt starts" nsightctl start
check "pt_filter busy while capturing" write_fails $S/pt_filter none "busy"
if [ $has_pt = 0 ]; then
	check "state stays absent while capturing" sh -c "[ \"\$(sed -n 1p $S/pt)\" = 'state: absent' ]"
	check "status via netlink" sh -c "nsightctl status >/tmp/pt-status && cat /tmp/pt-status && grep -q -i 'pt.*absent' /tmp/pt-status"
else
	check "state tracing while capturing" sh -c "sed -n 1p $S/pt | grep -q -E 'state: (tracing|busy)'"
	check "status via netlink" sh -c "nsightctl status >/tmp/pt-status && cat /tmp/pt-status && grep -q -i -E 'pt.*(tracing|busy)' /tmp/pt-status"
fi
# Some work to trace.
i=0
while [ $i -lt 200 ]; do cat /proc/self/stat >/dev/null; i=$((i + 1)); done
check "capture stops" nsightctl stop

if [ $has_pt = 0 ]; then
	check "no PT trace in debugfs" sh -c "
		n=0
		for f in $D/cpu*; do
			[ -e \"\$f\" ] || continue
			n=\$((n + 1))
			b=\$(cat \"\$f\" | wc -c)
			[ \$b -eq 0 ] || { echo \"\$f: \$b bytes\"; exit 1; }
		done
		echo \"\$n cpu files\"
		[ \$n -eq $ncpus ]"
else
	# A PT stream starts with (and repeats) PSB: 02 82 eight times.
	check "PT trace read back" sh -c "
		found=0
		for f in $D/cpu*; do
			b=\$(cat \"\$f\" | wc -c)
			echo \"\$f: \$b bytes\"
			[ \$b -gt 0 ] || continue
			od -An -tx1 -v \"\$f\" | tr -d ' \n' | grep -q 02820282028202820282028202820282 && found=1
		done
		[ \$found = 1 ]"
fi
nsight_unload
ktap_finish
