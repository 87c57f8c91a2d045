#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Forecast validation (seeds/002 §4): capture a scenario with its cause,
# predict the server's p99 without it (nsight-analyze --what-if
# 'remove:CAUSE'), capture the same workload without the cause, and
# compare: the prediction error must be under 25%. Two scenarios: a CPU
# hog beside the echo server, a periodic one (1.5 ms of every 4 ms at nice
# -5: a batch job), and the busy work item (23-diag-kworker, 1.5 ms of
# every 4 ms). A hog that takes every spare cycle (20-diag-hog) leaves no
# idle time on the server's core in its capture, so the wake-ups from idle
# the run without it pays have no reference there (Documentation/nsight.rst,
# What-if predictions).
#
# Stacked (seeds/002's successive predictions): with the hog and the work
# item together (the core 75% busy), --what-if remove:HOG --what-if
# remove:KW predicts, at step 1, the capture with the work item alone and,
# at step 2, the one with neither; the bound is 35%: the second step
# carries the first one's error and a reference taken on a core that
# seldom idles (steps 1 and 2: 7.6% and 23.2%, then 2.8% and 1.9%, in two
# boots, 2026-11-28).
#
# Throughput (seeds/002's bandwidth prediction): the server spinning 1 ms
# a request (msgload -w 1000) beside the periodic hog, captured at 200
# requests/s; the capacity predicted now and without the hog
# (lib/diagnose/capacity.c) is compared with the rate the server reaches when the
# client offers 1,200/s, more than it can serve (msgload server's "served
# N in T us"), with and without the hog; and the capacity of the capture
# without the hog with the latter. Bounds 25%, and 35% for the capacity
# with the hog: the model keeps the hog's share of the core at what it
# took at 200/s, but the scheduler shares the hog's busy stretches with a
# saturated server (nice -5 against 0). Why 1 ms and a small overload:
# single-threaded TCG under -icount runs the vCPUs in turn on one clock,
# so the client core's work in a saturated run slows the server's core
# as no second real core would; with 300 us a request and 6,000/s offered
# the model was 11% high without the hog (2,683/s predicted, 2,424/s
# measured).
#
# 3,000 requests per capture: a p99 of 1,000 is their 10th slowest, and
# under TCG about 1% of requests meet a rare wake-up of 100-170 us (the
# same rate with and without the cause), so at 1,000 the error swung
# between 0% and 22% from boot to boot; pooling three pairs gave 3%.
. /lib/nsight/lib.sh
. /tests/diag-lib.sh
DIAG_N=${nsight_forecast_count:-3000}

HOG='hog interference (A)'
KW='OS threads: nsight_busywork_fn [nsight_busywork] (A)'

# wi_col FILE PID ROW COL [STEP]: column COL (2 p50, 3 p99, 4 p99.9; ns)
# of ROW ("now" or "predicted") of PID's rx group in the verbose what-if
# text, of "what-if step STEP:" if given.
wi_col() {
	awk -v pid="$2" -v row="$3" -v col="$4" -v head="what-if${5:+ step $5}:" '
	index($0, head) == 1 { on = 1; next }
	on && index($1, "[" pid "]") && $2 == "rx:" { grp = 1; next }
	grp && $1 == row { print $col; exit }' "$1"
}

# err_pct PREDICTED MEASURED: |p - m| / m in percent, or inf.
err_pct() {
	awk -v p="${1:-0}" -v m="${2:-0}" 'BEGIN {
		if (m <= 0 || p <= 0) { print "inf"; exit }
		e = (p - m) / m * 100; if (e < 0) e = -e; printf "%.1f", e }'
}

# forecast NAME WITH WITHOUT SPID_WITH SPID_WITHOUT CAUSE: compare the
# prediction from capture WITH to the measurement in capture WITHOUT.
forecast() {
	nsight-analyze --verbose --what-if "remove:$6" /tmp/$2.nsight >/tmp/$2.wi 2>&1
	nsight-analyze --verbose --what-if "remove:$6" /tmp/$3.nsight >/tmp/$3.wi 2>&1
	sed -n '/^what-if:/,/^  [^ ]*\] tx:/p' /tmp/$2.wi | head -n 9 |
		while IFS= read -r l; do ktap_diag "$1: $l"; done
	for c in 2 3; do
		w=$(wi_col /tmp/$2.wi "$4" now $c)
		p=$(wi_col /tmp/$2.wi "$4" predicted $c)
		m=$(wi_col /tmp/$3.wi "$5" now $c)
		e=$(err_pct "$p" "$m")
		[ $c = 2 ] && n=p50 || n=p99
		ktap_diag "forecast $1: $n with the cause ${w:-?} ns, predicted without it ${p:-?} ns, measured without it ${m:-?} ns: error $e%"
	done
	check "$1: p99 with the cause, predicted and measured without it" \
		test -n "$w" -a -n "$p" -a -n "$m"
	check "$1: p99 prediction error under 25% ($e%)" \
		awk -v e="$e" 'BEGIN { exit !(e != "inf" && e + 0 < 25) }'
}

# stacked SPID_BOTH SPID_KW SPID_NONE: the two steps from capture "both"
# against the measured "kworker" (step 1) and "nokworker" (step 2).
stacked() {
	nsight-analyze --verbose --what-if "remove:$HOG" --what-if "remove:$KW" /tmp/both.nsight \
		>/tmp/both.wi 2>&1
	sed -n "/^what-if step/p; /\\[$1\\] rx:/,/next bottleneck/p" /tmp/both.wi |
		while IFS= read -r l; do ktap_diag "stacked: $l"; done
	for step in 1 2; do
		[ $step = 1 ] && truth=kworker spid=$2 || truth=nokworker spid=$3
		w=$(wi_col /tmp/both.wi "$1" now 3 $step)
		p=$(wi_col /tmp/both.wi "$1" predicted 3 $step)
		m=$(wi_col /tmp/$truth.wi "$spid" now 3)
		e=$(err_pct "$p" "$m")
		ktap_diag "stacked step $step: p99 with both causes ${w:-?} ns, predicted ${p:-?} ns, measured ($truth) ${m:-?} ns: error $e%"
		check "stacked step $step: p99 prediction error under 35% ($e%)" \
			awk -v e="$e" 'BEGIN { exit !(e != "inf" && e + 0 < 35) }'
	done
}

# cap_col FILE PID ROW: the rate (messages/s) of ROW ("now" or
# "predicted") in the capacity of PID's rx group in the verbose what-if
# text ("none" when the model gives none).
cap_col() {
	awk -v pid="$2" -v row="$3" '
	index($0, "what-if") == 1 { on = 1; next }
	on && index($1, "[" pid "]") && $2 == "rx:" { grp = 1; next }
	grp && /^    capacity: no prediction/ { print "none"; exit }
	grp && /^    capacity \(/ { cap = 1; next }
	cap && $1 == row { print $2; exit }' "$1"
}

# saturate NAME: the server (-w 1000) offered 1,200 requests/s, more than
# it serves: sets SAT_RATE to the rate it served (requests/s) from its
# "served N in T us"; its output is /tmp/NAME.server.
saturate() {
	rm -f /tmp/$1.server
	ip netns exec nsb taskset -c 1 msgload server -p udp -P $DIAG_PORT -n 1500 -w 1000 \
		>/tmp/$1.server 2>&1 &
	_sat=$!
	wait_until 100 0.1 grep -qs listening /tmp/$1.server
	ip netns exec nsa taskset -c 0 msgload client -p udp -a 10.16.0.2 -P $DIAG_PORT \
		-n 6000 -r 1200 -s 7 -T 1000 >/tmp/$1.client 2>&1
	wait_until 50 0.1 exited $_sat
	kill $_sat 2>/dev/null
	wait $_sat
	# The client's sends fail once the server has gone: its last line only.
	ktap_diag "$1: $(grep served /tmp/$1.server); client: $(tail -n 1 /tmp/$1.client)"
	SAT_RATE=$(awk '$1 == "served" && $3 == "in" && $4 > 0 { printf "%.0f", ($2 - 1) * 1e6 / $4 }' \
		/tmp/$1.server)
}

# capacity_check: the throughput forecast against saturated runs.
capacity_check() {
	_n=$DIAG_N
	DIAG_N=1000
	hog_start -5 0 1500 4000
	diag_run caphog "-w 1000" ""
	caphog_spid=$DIAG_SPID
	saturate caphog_sat
	sat_hog=$SAT_RATE
	hog_stop
	diag_run capnohog "-w 1000" ""
	capnohog_spid=$DIAG_SPID
	saturate capnohog_sat
	sat_nohog=$SAT_RATE
	DIAG_N=$_n
	nsight-analyze --verbose --what-if "remove:$HOG" /tmp/caphog.nsight >/tmp/caphog.wi 2>&1
	nsight-analyze --verbose --what-if "remove:$HOG" /tmp/capnohog.nsight >/tmp/capnohog.wi 2>&1
	awk -v pid="$caphog_spid" 'index($0, "what-if") == 1 { w = 1 }
		w && index($1, "[" pid "]") && $2 == "rx:" { on = 1 }
		on && /^    capacity/ { cap = 1 }
		cap { print; if (++n == 3) exit }' /tmp/caphog.wi |
		while IFS= read -r l; do ktap_diag "capacity: $l"; done
	now=$(cap_col /tmp/caphog.wi "$caphog_spid" now)
	pred=$(cap_col /tmp/caphog.wi "$caphog_spid" predicted)
	clean=$(cap_col /tmp/capnohog.wi "$capnohog_spid" now)
	for c in "with the hog:$now:$sat_hog:35" "without the hog, predicted:$pred:$sat_nohog:25" \
		 "without the hog, from its capture:$clean:$sat_nohog:25"; do
		what=${c%%:*}; c=${c#*:}
		p=${c%%:*}; c=${c#*:}
		m=${c%%:*}; bound=${c#*:}
		e=$(err_pct "$p" "$m")
		ktap_diag "capacity $what: model ${p:-?}/s, measured ${m:-?}/s: error $e%"
		check "capacity $what: error under $bound% ($e%)" \
			awk -v e="$e" -v b="$bound" 'BEGIN { exit !(e != "inf" && e + 0 < b) }'
	done
}

ktap_plan 11
diag_setup

hog_start -5 0 1500 4000
diag_run hog "" ""
hog_spid=$DIAG_SPID
hog_stop
check "first cause with the hog: $HOG" test "$DIAG_TOP" = "$HOG"
diag_run nohog "" ""
forecast hog hog nohog "$hog_spid" "$DIAG_SPID" "$HOG"

insmod /lib/nsight/nsight_busywork.ko cpu=1 period_us=4000 spin_us=1500
at_exit "rmmod nsight_busywork 2>/dev/null"
hog_start -5 0 1500 4000
diag_run both "" ""
both_spid=$DIAG_SPID
hog_stop
diag_run kworker "" ""
kw_spid=$DIAG_SPID
rmmod nsight_busywork
check "first cause with the busy work item: $KW" test "$DIAG_TOP" = "$KW"
diag_run nokworker "" ""
forecast kworker kworker nokworker "$kw_spid" "$DIAG_SPID" "$KW"
stacked "$both_spid" "$kw_spid" "$DIAG_SPID"
capacity_check
ktap_finish
