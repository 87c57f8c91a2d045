#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Cost profile per hook (make bench runs it at full length, make check a
# short smoke run), in the diag guest under -icount: the TSC follows
# executed instructions (tsc_hz reads 1 GHz: a cycle is a nanosecond, a
# guest instruction four), so the figures repeat.
#
# 1. Dispatch: nsight_hookbench calls a function with nothing, an empty
#    tracepoint probe, an ftrace_ops, a kprobe, a kretprobe and (6.12) an
#    fprobe attached; the extra TSC cycles per call are what reaching a
#    handler costs with each mechanism.
# 2. Per hook: the UDP echo (msgload server on CPU 1, Poisson client on
#    CPU 0, over veth) and memcached (msgload's memcache client), each
#    captured with every default source and /sys/kernel/nsight/profile on;
#    <debugfs>/nsight/hook_profile gives each hook's calls, records,
#    bytes and cycles inside the handler. Printed per hook: calls per
#    message, handler cycles per call, the dispatch of its mechanism from
#    part 1, bytes per call and per message. A message is a request or a
#    reply as one side of the exchange sees it: each crosses this kernel
#    twice (client and server), like the "bytes per message" of
#    30-diag-bench.
#
# Lines starting with "T " are collected by scripts/bench.sh. Asserted:
# every mechanism's handler ran as often as it was called, the profile
# counts agree with the capture's counters (records written, dropped),
# every default hook that the workload must hit was hit. Never timing.
#
# 3. Request marks: twostage bench's marks with no capture and with one,
#    the mark handler's cycles from the hook profile, a getppid() beside.
# 4. The futex and sample sources (asked for, so left out of part 2's
#    default set): 29-diag-lock's server (msgload server -L: every request
#    under a mutex that its "lockholder" thread, on the server's CPU,
#    takes nsight_cost_hold us after it last let it go and holds for as
#    long), the same client at nsight_cost_lock_rate requests/s
#    (29-diag-lock's 500), captured with the default sources, futex and
#    sample (every 1 ms, the default period); its per-hook table, the
#    futex_wait and futex_wake hooks' calls per message, handler cycles,
#    ftrace's dispatch from part 1 and bytes per call, and the sample
#    handler's cycles and bytes per sample.
#
# nsight_cost_n (requests per workload), nsight_cost_rate (requests/s),
# nsight_cost_calls (target calls per mechanism), nsight_cost_marks
# (begin/end pairs of request marks), nsight_cost_hold (part 4's hold and
# interval, us), nsight_cost_lock_rate (part 4's requests/s).
. /lib/nsight/lib.sh
. /tests/diag-lib.sh

N=${nsight_cost_n:-200}
RATE=${nsight_cost_rate:-1000}
CALLS=${nsight_cost_calls:-25600}
MARKS=${nsight_cost_marks:-5000}
HOLD=${nsight_cost_hold:-1000}
LOCK_RATE=${nsight_cost_lock_rate:-500}
S=/sys/kernel/nsight
D=/sys/kernel/debug/nsight
H=/sys/kernel/debug/nsight_hookbench

ktap_plan 10
nsight_load
netns_pair nsa nsb 10.16.0.1 10.16.0.2
hz=$(cat $S/tsc_hz)

# 1. Dispatch per mechanism.
check "load nsight_hookbench" insmod /lib/nsight/nsight_hookbench.ko
at_exit "rmmod nsight_hookbench 2>/dev/null"
: >/tmp/cost.mech
: >/tmp/cost.err
for m in none tracepoint ftrace kprobe kretprobe fprobe; do
	if ! echo "$m $CALLS" >$H/run 2>/tmp/cost.werr; then
		# fprobe exists in 6.12 only.
		[ $m = fprobe ] && continue
		echo "$m: $(cat /tmp/cost.werr)" >>/tmp/cost.err
		continue
	fi
	r=$(cat $H/result)
	ktap_diag "hookbench: $r"
	echo "$r" | awk -v m=$m -v n="$CALLS" '{
		for (i = 1; i < NF; i++) v[$i] = $(i + 1)
		want = (m == "kretprobe" || m == "fprobe") ? 2 * n : (m == "none" ? 0 : n)
		if (v["handled"] != want) { print m ": handled " v["handled"] ", wanted " want > "/tmp/cost.err"; exit }
		print m, v["batch_cycles_med"] / 256, v["batch_cycles_min"] / 256
	}' >>/tmp/cost.mech
done
check "every mechanism's handler ran once per call (twice for entry and return)" \
	sh -c 'cat /tmp/cost.err; [ ! -s /tmp/cost.err ]'
ktap_diag "$(awk -v hz="$hz" '
	$1 == "none" { base = $2 }
	{ c[NR] = $1; v[NR] = $2 }
	END {
		printf "T dispatch, cycles per call to reach an empty handler (nsight_hookbench, median batch of 256; tsc_hz %.0f):", hz
		for (i = 1; i <= NR; i++)
			if (c[i] != "none")
				printf " %s %.0f;", c[i], v[i] - base
		printf " (the call itself: %.0f)\n", base
	}' /tmp/cost.mech)"

# 2. Per hook.
memcached_start
check "memcached answers" test $? -eq 0
echo 8388608 >$S/buffer_size
echo 1 >$S/profile
echo all >$S/sources
# The default sources: all but sample, pt and futex (asked for: futex's
# hooks fire on every contended lock of every process, part 4 measures
# them on their own workload).
echo "$(sed 's/,sample//; s/,pt//; s/,futex//' $S/sources)" >$S/sources

# workload W: one capture of W (udp, memcached, or lock: the UDP echo
# server taking 29-diag-lock's mutex); writes /tmp/cost.W.prof (the hook
# profile), .client (msgload's output) and .counters.
workload() {
	echo 1 >$S/enable
	case $1 in
	lock) load_run udp "$N" "$LOCK_RATE" /tmp/cost.lock.client "-L $HOLD -I $HOLD -C 1" ;;
	*) load_run "$1" "$N" "$RATE" /tmp/cost.$1.client ;;
	esac
	echo 0 >$S/enable
	cat $D/hook_profile >/tmp/cost.$1.prof
	echo "$(cat $S/records_written) $(cat $S/records_dropped)" >/tmp/cost.$1.counters
	ktap_diag "$1: $(cat /tmp/cost.$1.client)"
	ktap_diag "$(cat /tmp/cost.$1.prof)"
}

# agrees W: the profile's records and drops are the capture's counters.
agrees() {
	awk -v f=/tmp/cost.$1.counters 'BEGIN { getline c < f; split(c, k, " ") }
		$1 != "hook" && $1 !~ /^#/ { w += $5; d += $6 }
		END { if (w != k[1] || d != k[2]) { print "profile " w "/" d ", counters " k[1] "/" k[2]; exit 1 } }' \
		/tmp/cost.$1.prof
}

# msgs W: the messages of W, two per reply the client received.
msgs() {
	received=$(awk '$1 == "sent" { for (i = 1; i < NF; i++) if ($i == "received") print $(i + 1) }' \
		/tmp/cost.$1.client)
	echo $((2 * ${received:-0}))
}

# table W: the per-hook table of W as "T " lines.
table() {
	awk -v w="$1" -v msgs="$(msgs "$1")" -v hz="$hz" -v mf=/tmp/cost.mech '
	BEGIN {
		while ((getline l < mf) > 0) { split(l, f, " "); disp[f[1]] = f[2] - 0 }
		base = disp["none"]
		printf "T %s: %d messages; per hook: calls per message, cycles in the handler per call, dispatch cycles of its mechanism, bytes per call and per message\n", w, msgs
		printf "T   %-24s %-16s %9s %9s %9s %9s %9s %9s\n", "hook", "mechanism", "calls/msg", "handler", "dispatch", "total", "bytes", "bytes/msg"
	}
	$1 == "hook" || $1 ~ /^#/ { next }
	{
		calls = $4; m = $2; d = 0
		# An entry-and-return probe: the entry row is charged the
		# dispatch of the entry, the return row the rest.
		if (m ~ /-entry$/) { sub(/-entry$/, "", m); m = (m == "kretprobe") ? "kprobe" : "ftrace" }
		if (m ~ /-(ret|exit)$/) { sub(/-(ret|exit)$/, "", m); e = (m == "kretprobe") ? "kprobe" : "ftrace"
			if ((m in disp) && (e in disp)) d = disp[m] - disp[e]; m = "" }
		if (m in disp) d = disp[m] - base
		tot = $9 + d
		printf "T   %-24s %-16s %9.2f %9d %9.0f %9.0f %9d %9.1f\n", $1, $2, calls / msgs, $9, d, tot, $10, $7 / msgs
		sc += calls * tot; sb += $7; sr += $5
	}
	END {
		printf "T   all hooks: %.0f cycles (%.1f us at tsc_hz) and %.0f bytes, %.1f records per message\n", sc / msgs, sc / msgs / hz * 1e6, sb / msgs, sr / msgs
	}' /tmp/cost.$1.prof
}

workload udp
workload memcached
agrees_both() { agrees udp && agrees memcached; }
check "profile records and drops equal the capture counters (udp, memcached)" agrees_both
check "udp: the message hooks were hit" sh -c "
	for h in netif_rx netif_receive_skb net_dev_queue net_dev_start_xmit sched_switch; do
		awk -v h=\$h '\$1 == h && \$4 > 0 { f = 1 } END { exit !f }' /tmp/cost.udp.prof ||
			{ echo \"\$h not hit\"; exit 1; }
	done"
check "memcached: the receive hooks were hit" sh -c "
	awk '\$1 ~ /^(sock_def_readable|sk_data_ready)/ && \$4 > 0 { f = 1 } END { exit !f }' /tmp/cost.memcached.prof"
table udp >/tmp/cost.table
table memcached >>/tmp/cost.table
while IFS= read -r l; do ktap_diag "$l"; done </tmp/cost.table

# 3. Request marks (/dev/nsight, nsight_request.h): a mark with no capture
# (ENODATA), one written in a capture (the handler's cycles from the hook
# profile), and the cheapest system call, getppid(), beside them.
twostage bench -n "$MARKS" >/tmp/cost.marks.off 2>&1
echo 1 >$S/enable
twostage bench -n "$MARKS" >/tmp/cost.marks.on 2>&1
echo 0 >$S/enable
cat $D/hook_profile >/tmp/cost.marks.prof
ktap_diag "no capture: $(cat /tmp/cost.marks.off); capture: $(cat /tmp/cost.marks.on)"
ktap_diag "$(grep NSIGHT_IOC_REQUEST /tmp/cost.marks.prof)"
# bench's first mark opens the device: it is profiled, not counted as ok.
check "request marks: each one written and profiled" sh -c "
	grep -q ' ok $((2 * MARKS)) ' /tmp/cost.marks.on &&
	grep -q ' ok 0 ' /tmp/cost.marks.off &&
	awk '\$1 == \"NSIGHT_IOC_REQUEST\" && \$4 == $((2 * MARKS + 1)) && \$5 == \$4 { f = 1 }
	     END { exit !f }' /tmp/cost.marks.prof"
ktap_diag "$(awk -v f=/tmp/cost.marks.on '
	BEGIN { getline on < f; split(on, o, " ") }
	$1 == "NSIGHT_IOC_REQUEST" { h = $9; b = $10 }
	$1 == "marks" { printf "T request marks: %s ns per mark with no capture (ENODATA), %s ns with one (handler %d cycles, %d bytes), getppid() %s ns\n", $4, o[4], h, b, o[8] }' \
	/tmp/cost.marks.prof /tmp/cost.marks.off)"
# 4. The futex and sample sources on the lock-holder server.
echo "$(cat $S/sources),futex,sample" >$S/sources
echo 1000000 >$S/sample_period
workload lock
check "lock: profile records and drops equal the capture counters" agrees lock
# Each futex_wait, futex_wake and sample call is a record (or a drop).
check "lock: the futex and sample hooks were hit, a record per call" sh -c "
	for h in futex_wait futex_wake cpu-clock; do
		awk -v h=\$h '\$1 == h && \$4 > 0 && \$4 == \$5 + \$6 { f = 1 } END { exit !f }' \
			/tmp/cost.lock.prof || { echo \"\$h: not hit, or calls without records\"; exit 1; }
	done"
table lock | while IFS= read -r l; do ktap_diag "$l"; done
ktap_diag "$(awk -v msgs="$(msgs lock)" -v mf=/tmp/cost.mech '
	BEGIN { while ((getline l < mf) > 0) { split(l, f, " "); disp[f[1]] = f[2] - 0 } }
	$1 == "futex_wait" || $1 == "futex_wake" || $1 == "cpu-clock" {
		c[$1] = $4; h[$1] = $9; b[$1] = $10
	}
	END {
		d = disp["ftrace"] - disp["none"]
		printf "T futex source (the 29-diag-lock server, %d messages): futex_wait %.2f calls per message, %d cycles in the handler + %.0f ftrace dispatch, %d bytes per call; futex_wake %.2f calls per message, %d + %.0f cycles, %d bytes per call\n", msgs, msgs ? c["futex_wait"] / msgs : 0, h["futex_wait"], d, b["futex_wait"], msgs ? c["futex_wake"] / msgs : 0, h["futex_wake"], d, b["futex_wake"]
		printf "T sample source (every 1 ms, the same capture): %d samples, %d cycles in the handler per sample (the perf hrtimer interrupt that calls it not included), %d bytes per sample\n", c["cpu-clock"], h["cpu-clock"], b["cpu-clock"]
	}' /tmp/cost.lock.prof)"
echo 0 >$S/profile
check "profile off again" test "$(cat $S/profile)" = 0
ktap_finish
