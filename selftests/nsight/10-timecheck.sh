#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Time reconciliation, the NSight paper's §6.1 test: TSC stamps converted
# with the timekeeper parameters in force at each instant never run ahead
# of or behind CLOCK_REALTIME read right after them, while another task
# keeps changing the clock (frequency, offset slews, forward steps). The
# same capture converted with only the first parameters must fail.
# Readings taken while the kernel was publishing new parameters to the vDSO
# could have used either set: they are reported as ambiguous, not checked,
# and must stay under 5% of the conversions.
. /lib/nsight/lib.sh

PAIRS=${nsight_pairs:-1000000}
MIN_CHANGES=1000

ktap_plan 7
if ! grep -q '^tsc' /sys/devices/system/clocksource/clocksource0/current_clocksource; then
	ktap_skip_all "clocksource is $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource), not the TSC (boot with tsc=reliable)"
fi
nsight_load
check "capture clock records only" sh -c "nsightctl config --sources clock --buffer-size 16M && nsightctl start"
# Pairs are taken in rounds for as long as the clock keeps changing, and at
# least $PAIRS of them (a slow kernel makes fewer changes per second).
clock_churn 600 $((MIN_CHANGES + 200)) >/tmp/churn.out 2>&1 &
cpid=$!
: >/tmp/pairs.bin
taken=0
while [ $taken -lt "$PAIRS" ] || kill -0 $cpid 2>/dev/null; do
	tsc_pairs /tmp/round.bin 250000 >/dev/null || break
	cat /tmp/round.bin >>/tmp/pairs.bin
	taken=$((taken + 250000))
done
kill $cpid 2>/dev/null
wait $cpid
check "take at least $PAIRS TSC/clock_gettime pairs" sh -c "[ $taken -ge $PAIRS ]"
changes=$(awk '/^changes/ {print $2}' /tmp/churn.out)
nsightctl stop
nsightctl dump -o /tmp/time.nsight
check "at least $MIN_CHANGES clock changes" sh -c "cat /tmp/churn.out; [ ${changes:-0} -ge $MIN_CHANGES ]"

nsight-analyze --time-check /tmp/pairs.bin --strict /tmp/time.nsight >/tmp/tc.out 2>&1
rc=$?
line=$(grep '^time-check:' /tmp/tc.out)
ktap_diag "clock changes: ${changes:-0}; $line"
check "in-force parameters: 0 inversions" sh -c "cat /tmp/tc.out; [ $rc -eq 0 ] && echo '$line' | grep -q ' 0 inversions'"
conv=$(echo "$line" | awk '{print $2}')
amb=$(echo "$line" | awk '{for (i = 2; i <= NF; i++) if ($i == "ambiguous") print $(i - 1)}')
check "at least $PAIRS conversions" sh -c "[ ${conv:-0} -ge $PAIRS ]"
check "ambiguous readings under 5%" sh -c "[ -n '$amb' ] && [ \$(( ${amb:-0} * 20 )) -lt ${conv:-0} ]"

nsight-analyze --time-check /tmp/pairs.bin --time-params first --strict \
	/tmp/time.nsight >/tmp/tc1.out 2>&1
rc1=$?
line1=$(grep '^time-check:' /tmp/tc1.out)
ktap_diag "first parameters only: $line1"
check "first parameters only: inversions found" sh -c "cat /tmp/tc1.out; [ $rc1 -eq 1 ] && ! echo '$line1' | grep -q ' 0 inversions'"
nsightctl config --sources all --buffer-size 4M
nsight_unload
ktap_finish
