#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Overhead benchmark (make bench runs it at full length, make check a short
# smoke run), in the diag guest under -icount: guest time follows executed
# instructions, so the figures repeat and do not depend on the host's load.
#
# 1. Latency overhead, the paper's Table 2: the UDP echo (msgload server on
#    CPU 1, open-loop Poisson client on CPU 0, over veth) and memcached (one
#    worker thread on CPU 1, msgload's memcache client) at a low and a high
#    rate, each under five configurations: none; (a) nsight, context and
#    message sources; (b) nsight plus sampling (1 ms); (c) ftrace recording
#    the tracepoints nsight uses and a kprobe event on sock_def_readable;
#    (d) function_graph on the network stack's entry points; (e) where
#    make bench put bpftrace (Debian's) in the initramfs, bpftrace printing
#    the events of (c) into its perf buffers; (f) trace-cmd recording, with
#    the script of 'nsightctl trace-cmd-args', what nsight-analyze reads
#    from a capture without the module (nsight.rst "Captures without the
#    module"). The client's
#    p50, p99 and p99.9 are printed as ratios to "none", on lines starting
#    with "T ", which scripts/bench.sh collects, and what nsight adds to
#    p50 and p99 as a share of what ftrace adds (the target: a third).
# 2. Cost per record: recloop (a loopback UDP round trip in a tight loop on
#    CPU 0) without and with nsight's message sources; the extra guest time
#    divided by the records written.
#
# 3. Write path: the test module nsight_wpbench calls nsight_mark() (the
#    record write path every hook takes: nsight_emit(), then
#    nsight_buffer_write()) flat out on CPU 0 in a capture with no source
#    on, for each record size; the time and TSC cycles of the loop divided
#    by the records; and the same calls with no capture running (the gate
#    alone). The capture of marks is dumped and analysed strictly.
# 4. Drain limit: nsight_wpbench writes 64-byte marks on CPU 0 at a rising
#    rate while relay_drain consumes CPU 0's buffer from CPU 1 (64 KiB
#    buffers, the smallest); the highest rate without a drop, and the rate
#    written flat out, with its drops.
#
# Asserted: every cell of the table measured, every traced configuration
# recorded something, nsight lost no record; nsight_wpbench's own
# count of written, dropped and refused marks equals CPU 0's counters in
# every run. Never timing.
#
# nsight_bench_n (requests per cell at the low rate; the high rate sends
# 5x as many), nsight_bench_low / nsight_bench_high (requests/s),
# nsight_bench_loops (recloop iterations), nsight_bench_reps (repetitions of
# the whole table, configurations in alternating order; each cell is the
# median of its repetitions), nsight_bench_marks (marks per write-path
# run), nsight_bench_sizes (record sizes, bytes), nsight_bench_rates (the
# paced rates of the drain limit, records/s, rising), nsight_bench_drain_ms
# (guest milliseconds per rate).
. /lib/nsight/lib.sh
. /tests/diag-lib.sh

N_LOW=${nsight_bench_n:-100}
N_HIGH=$((N_LOW * 5))
R_LOW=${nsight_bench_low:-200}
R_HIGH=${nsight_bench_high:-2000}
LOOPS=${nsight_bench_loops:-2000}
REPS=${nsight_bench_reps:-1}
MARKS=${nsight_bench_marks:-20000}
# Lists are comma-separated (kernel command line parameters).
SIZES=$(echo "${nsight_bench_sizes:-32,64,128}" | tr , ' ')
RATES=$(echo "${nsight_bench_rates:-50000,200000}" | tr , ' ')
DRAIN_MS=${nsight_bench_drain_ms:-200}
CONFIGS="none nsight sampled ftrace fgraph"
# (e) bpftrace where make bench put it in the initramfs (it is big).
command -v bpftrace >/dev/null 2>&1 && CONFIGS="$CONFIGS bpftrace"
# (f) trace-cmd, which the initramfs has.
command -v trace-cmd >/dev/null 2>&1 && CONFIGS="$CONFIGS tracecmd"
CONFIGS_REV=$(echo $CONFIGS | awk '{ for (i = NF; i > 0; i--) printf "%s%s", $i, (i > 1 ? " " : "") }')
NCONF=$(echo $CONFIGS | wc -w)
S=/sys/kernel/nsight
T=/sys/kernel/tracing
NSIGHT_SRC=sched_switch,handoff,clock,net_rx,net_tx,app,sched_waking,irq,softirq,idle,fault,workqueue,napi
# The tracepoints nsight's sources attach to, as ftrace events.
EVENTS="sched/sched_switch sched/sched_waking irq/irq_handler_entry irq/irq_handler_exit
irq/softirq_entry irq/softirq_exit power/cpu_idle workqueue/workqueue_execute_start
workqueue/workqueue_execute_end napi/napi_poll net/netif_rx net/napi_gro_receive_entry
net/netif_receive_skb net/net_dev_queue net/net_dev_start_xmit skb/skb_copy_datagram_iovec
exceptions/page_fault_user exceptions/page_fault_kernel"
# The same events for bpftrace; each line printed starts with E (counted).
BPF_PROG='tracepoint:sched:sched_switch { printf("E %d %d %d\n", cpu, args->prev_pid, args->next_pid); }
tracepoint:sched:sched_waking { printf("E %d %d\n", cpu, args->pid); }
tracepoint:irq:irq_handler_entry, tracepoint:irq:irq_handler_exit { printf("E %d %d\n", cpu, args->irq); }
tracepoint:irq:softirq_entry, tracepoint:irq:softirq_exit { printf("E %d %d\n", cpu, args->vec); }
tracepoint:power:cpu_idle { printf("E %d %d\n", cpu, args->state); }
tracepoint:workqueue:workqueue_execute_start, tracepoint:workqueue:workqueue_execute_end { printf("E %d %p\n", cpu, args->work); }
tracepoint:napi:napi_poll { printf("E %d %d\n", cpu, args->work); }
tracepoint:net:netif_rx, tracepoint:net:napi_gro_receive_entry, tracepoint:net:netif_receive_skb,
tracepoint:net:net_dev_queue, tracepoint:net:net_dev_start_xmit { printf("E %d %p %d\n", cpu, args->skbaddr, args->len); }
tracepoint:skb:skb_copy_datagram_iovec { printf("E %d %p %d\n", cpu, args->skbaddr, args->len); }
tracepoint:exceptions:page_fault_user, tracepoint:exceptions:page_fault_kernel { printf("E %d %lx\n", cpu, args->address); }
kprobe:sock_def_readable { printf("E %d %p\n", cpu, arg0); }'
GRAPH_FUNCS="net_rx_action __netif_receive_skb ip_rcv __udp4_lib_rcv tcp_v4_rcv
udp_sendmsg udp_recvmsg tcp_sendmsg tcp_recvmsg sock_def_readable dev_queue_xmit"

ktap_plan 13
nsight_load
netns_pair nsa nsb 10.16.0.1 10.16.0.2
: >/tmp/bench.cells
: >/tmp/bench.records

sum_files() { cat "$@" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }

# ftrace_entries: events in the ring buffers, kept and overwritten.
ftrace_entries() {
	cat $T/per_cpu/cpu*/stats | awk '$1 == "entries:" || $1 == "overrun:" { s += $2 } END { print s + 0 }'
}

# cfg_start CONFIG / cfg_stop CONFIG WORKLOAD LOAD: switch a configuration on
# and off; cfg_stop appends "WORKLOAD LOAD CONFIG RECORDS [HITS WRITTEN
# DROPPED BYTES]" to /tmp/bench.records.
cfg_start() {
	case $1 in
	nsight|sampled)
		src=$NSIGHT_SRC
		[ "$1" = sampled ] && src=$src,sample
		echo "$src" >$S/sources
		echo 1 >$S/enable
		;;
	ftrace)
		echo 8192 >$T/buffer_size_kb
		for e in $EVENTS; do
			[ -f $T/events/$e/enable ] && echo 1 >$T/events/$e/enable
		done
		echo 'p:nsbench/sock_def_readable sock_def_readable' >>$T/kprobe_events
		echo 1 >$T/events/nsbench/enable
		echo >$T/trace
		echo 1 >$T/tracing_on
		;;
	bpftrace)
		# The events of (c), each printed (cpu and a field or two) into
		# bpftrace's perf buffers, its reader writing to /dev/null.
		rm -f /tmp/bench.bpf.out
		bpftrace -e "$BPF_PROG" >/tmp/bench.bpf.out 2>&1 &
		bpid=$!
		wait_until 3000 0.1 grep -qs '^Attaching' /tmp/bench.bpf.out
		# "Attaching N probes..." comes before they are all attached.
		sleep 2
		;;
	tracecmd)
		# The script records until trace-cmd gets SIGINT, then removes
		# its kprobes.
		rm -f /tmp/bench.tc.dat /tmp/bench.tc.out
		nsightctl trace-cmd-args -o /tmp/bench.tc.dat >/tmp/bench.tc.sh
		sh /tmp/bench.tc.sh >/tmp/bench.tc.out 2>&1 &
		tcpid=$!
		wait_until 3000 0.1 grep -qs 'Ctrl^C' /tmp/bench.tc.out
		;;
	fgraph)
		echo 8192 >$T/buffer_size_kb
		for f in $GRAPH_FUNCS; do
			echo "$f" >>$T/set_graph_function 2>/dev/null
		done
		echo function_graph >$T/current_tracer
		ktap_diag "function_graph on $(grep -c . $T/set_graph_function) functions:" \
			$(cat $T/set_graph_function)
		echo >$T/trace
		echo 1 >$T/tracing_on
		;;
	esac
}

cfg_stop() {
	case $1 in
	none)
		echo "$2 $3 $1 0" >>/tmp/bench.records
		;;
	nsight|sampled)
		echo 0 >$S/enable
		echo "$2 $3 $1 $(cat $S/records_written) $(cat $S/hook_hits)" \
			"$(cat $S/records_written) $(cat $S/records_dropped)" \
			"$(sum_files $S/cpu*/buffer_used)" >>/tmp/bench.records
		;;
	ftrace)
		echo 0 >$T/tracing_on
		echo "$2 $3 $1 $(ftrace_entries)" >>/tmp/bench.records
		echo 0 >$T/events/enable
		echo 0 >$T/events/nsbench/enable
		echo '-:nsbench/sock_def_readable' >>$T/kprobe_events
		echo >$T/trace
		;;
	bpftrace)
		kill -INT $bpid
		wait $bpid
		echo "$2 $3 $1 $(grep -c '^E' /tmp/bench.bpf.out)" >>/tmp/bench.records
		;;
	tracecmd)
		killall -INT trace-cmd 2>/dev/null
		wait $tcpid
		# Its records: the trace.dat's bytes.
		echo "$2 $3 $1 $(wc -c </tmp/bench.tc.dat 2>/dev/null || echo 0)" >>/tmp/bench.records
		rm -f /tmp/bench.tc.dat
		;;
	fgraph)
		echo 0 >$T/tracing_on
		echo "$2 $3 $1 $(ftrace_entries)" >>/tmp/bench.records
		echo nop >$T/current_tracer
		echo >$T/set_graph_function
		echo >$T/trace
		;;
	esac
}

# cell WORKLOAD LOAD CONFIG: one measurement; appends "WORKLOAD LOAD CONFIG
# P50 P999 RECEIVED SENT P99" to /tmp/bench.cells.
cell() {
	n=$N_LOW rate=$R_LOW
	[ "$2" = high ] && n=$N_HIGH rate=$R_HIGH
	cfg_start "$3"
	load_run "$1" "$n" "$rate" /tmp/bench.client
	cfg_stop "$3" "$1" "$2"
	awk -v c="$1 $2 $3" '$1 == "sent" {
		for (i = 1; i < NF; i++) v[$i] = $(i + 1)
		print c, v["p50_us"], v["p999_us"], v["received"], v["sent"], v["p99_us"] }' \
		/tmp/bench.client >>/tmp/bench.cells
	ktap_diag "$1 $2 $3: $(cat /tmp/bench.client)"
}

memcached_start
check "memcached answers" test $? -eq 0
echo 8388608 >$S/buffer_size

# Warm-up (the first requests after boot pay for cold caches and page
# faults), not counted.
cell udp low none
cell memcached low none
: >/tmp/bench.cells
: >/tmp/bench.records
r=0
while [ $r -lt "$REPS" ]; do
	order=$CONFIGS
	[ $((r % 2)) = 1 ] && order=$CONFIGS_REV
	for w in udp memcached; do
		for l in low high; do
			for c in $order; do
				cell $w $l $c
			done
		done
	done
	r=$((r + 1))
done

# The table: ratios to "none" of the same workload and load, each cell the
# median of its repetitions.
awk -v rl="$R_LOW" -v rh="$R_HIGH" -v nl="$N_LOW" -v nh="$N_HIGH" -v reps="$REPS" -v configs="$CONFIGS" '
	function median(list,   v, n, i, j, t) {
		n = split(list, v, " ")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	{ k = $1 " " $2 " " $3
	  l50[k] = l50[k] " " $4; l99[k] = l99[k] " " $8; l999[k] = l999[k] " " $5 }
	END {
		for (k in l50) {
			p50[k] = median(l50[k])
			p99[k] = median(l99[k])
			p999[k] = median(l999[k])
		}
		printf "T Client latency under tracing, ratio to no tracing (p50 / p99 / p99.9);\n"
		printf "T low = %d req/s x %d, high = %d req/s x %d; median of runs: %d; -icount shift=2,sleep=off\n", rl, nl, rh, nh, reps
		printf "T %-16s %16s %16s %16s %16s\n", "", "udp low", "udp high", "mc low", "mc high"
		nc = split(configs, cf, " ")
		name["none"] = "none"; name["nsight"] = "(a) nsight"
		name["sampled"] = "(b) +sampling"; name["ftrace"] = "(c) ftrace"
		name["fgraph"] = "(d) fn_graph"; name["bpftrace"] = "(e) bpftrace"
		name["tracecmd"] = "(f) trace-cmd"
		split("udp low|udp high|memcached low|memcached high", col, "|")
		for (i = 1; i <= nc; i++) {
			line = sprintf("T %-16s", name[cf[i]])
			for (j = 1; j <= 4; j++) {
				k = col[j] " " cf[i]
				b = col[j] " none"
				if (cf[i] == "none")
					s = sprintf("%.0f/%.0f/%.0fus", p50[k], p99[k], p999[k])
				else if (p50[b] > 0 && p99[b] > 0 && p999[b] > 0)
					s = sprintf("%.2f/%.2f/%.2f", p50[k] / p50[b], p99[k] / p99[b], p999[k] / p999[b])
				else
					s = "-"
				line = line sprintf(" %16s", s)
			}
			print line
		}
		# The target: nsight adds at most a third of what ftrace adds.
		for (o = 1; o <= nc; o++) {
			if (cf[o] != "ftrace" && cf[o] != "bpftrace" && cf[o] != "tracecmd")
				continue
			line = "T nsight added / " cf[o] " added (p50 / p99):"
			for (j = 1; j <= 4; j++) {
				n = col[j] " nsight"; f = col[j] " " cf[o]; b = col[j] " none"
				# + 0: busybox awk compares split() strings as strings.
				if (p50[f] + 0 > p50[b] + 0 && p99[f] + 0 > p99[b] + 0)
					line = line sprintf(" %s %.2f/%.2f;", col[j], (p50[n] - p50[b]) / (p50[f] - p50[b]), (p99[n] - p99[b]) / (p99[f] - p99[b]))
				else
					line = line sprintf(" %s -;", col[j])
			}
			print line
		}
	}' /tmp/bench.cells >/tmp/bench.table
while IFS= read -r l; do ktap_diag "$l"; done </tmp/bench.table
check "every cell measured ($((4 * NCONF)) cells, each with replies, $REPS times)" \
	test "$(awk '$4 != "" && $6 > 0' /tmp/bench.cells | wc -l)" -eq $((4 * NCONF * REPS))
check "no cell of the table is missing" sh -c '! grep -q " - " /tmp/bench.table'
check "every traced configuration recorded events" \
	test "$(awk '$3 != "none" && $4 > 0' /tmp/bench.records | wc -l)" -eq $((4 * (NCONF - 1) * REPS))
# A cell that lost records would make nsight look cheaper than it is.
check "nsight: no record dropped in any cell" \
	test "$(awk 'NF == 8 && $5 == $6 && $7 == 0' /tmp/bench.records | wc -l)" -eq $((8 * REPS))

# Bytes per message: the UDP echo at the high rate under (a); every request
# and reply crosses this guest's kernel twice (client and server side).
awk '$1 == "udp" && $2 == "high" && $3 == "nsight" {
	print $8, $4; exit }' /tmp/bench.records >/tmp/bench.bytes
read -r bytes recs </tmp/bench.bytes
msgs=$(awk '$1 == "udp" && $2 == "high" && $3 == "nsight" { print 2 * $6; exit }' /tmp/bench.cells)
ktap_diag "$(awk -v b="$bytes" -v r="$recs" -v m="$msgs" 'BEGIN {
	printf "T bytes per message (udp high, (a)): %.0f bytes, %.1f records (%d messages, %d bytes, %d records; %.1f bytes per record)", b / m, r / m, m, b, r, b / r }')"

# 2. Per-record cost.
killall memcached 2>/dev/null
echo net_rx,net_tx,handoff,app >$S/sources
echo 33554432 >$S/buffer_size
taskset -c 0 recloop "$LOOPS" >/tmp/rl.off
echo 1 >$S/enable
taskset -c 0 recloop "$LOOPS" >/tmp/rl.on
echo 0 >$S/enable
hits=$(cat $S/hook_hits) written=$(cat $S/records_written) dropped=$(cat $S/records_dropped)
used=$(sum_files $S/cpu*/buffer_used)
ktap_diag "recloop without nsight: $(cat /tmp/rl.off)"
ktap_diag "recloop with nsight (net_rx,net_tx,handoff,app): $(cat /tmp/rl.on)"
ktap_diag "recloop: hook hits $hits, written $written, dropped $dropped, $used bytes"
check "recloop: records written, hits == written + dropped" \
	test "$written" -gt 0 -a "$hits" -eq $((written + dropped))
check "recloop ran both times" test -s /tmp/rl.off -a -s /tmp/rl.on
ktap_diag "$(awk -v w="$written" -v u="$used" -v l="$LOOPS" -v hz="$(cat $S/tsc_hz)" '
	$1 == "recloop:" { ns[FILENAME] = $5; tsc[FILENAME] = $7 }
	END {
		on = "/tmp/rl.on"; off = "/tmp/rl.off"
		d = ns[on] - ns[off]; c = tsc[on] - tsc[off]
		printf "T per record: %.0f ns, %.0f TSC cycles (tsc_hz %.0f); %.1f records and %.0f bytes per loop, %.1f bytes per record;", d / w, c / w, hz, w / l, u / l, u / w
		printf " one CPU wrote %.0f records/s in the loop without drops; writing alone would allow %.0f records/s\n", w / ns[on] * 1e9, 1e9 / (d / w)
	}' /tmp/rl.off /tmp/rl.on)"

# 3. Write path.
W=/sys/kernel/debug/nsight_wpbench
WP=/sys/module/nsight_wpbench/parameters
C0=$S/cpu0
check "load nsight_wpbench" insmod /lib/nsight/nsight_wpbench.ko
at_exit "rmmod nsight_wpbench 2>/dev/null"
echo none >$S/sources
# Room for every mark of the largest size (and the sub-buffer headers).
echo $SIZES | awk -v n="$MARKS" '{ m = 0; for (i = 1; i <= NF; i++) if ($i > m) m = $i
	b = n * m * 17 / 16 + 1048576; if (b < 33554432) b = 33554432
	printf "%d\n", (b > 268435456 ? 268435456 : b) }' >$S/buffer_size

# wpb ARGS: one run of nsight_wpbench ("COUNT [RATE]"); wpb_parse sets
# count written dropped refused ns cycles batch batch_ns_med batch_ns_min
# batch_cycles_med batch_cycles_min elapsed from its result.
wpb() {
	echo "$1" >$W/run || return 1
	wpb_parse
}

wpb_parse() {
	set -- $(cat $W/result)
	while [ $# -ge 2 ]; do
		case $1 in
		count|written|dropped|refused|ns|cycles|batch|batch_*) eval "$1=\$2" ;;
		elapsed_ns) elapsed=$2 ;;
		esac
		shift 2
	done
}

# capture on|off: start or stop a capture from CPU 1, so that CPU 0's
# buffer gets nothing but the marks (starting writes a clock_sync record).
capture() {
	v=0
	[ "$1" = on ] && v=1
	taskset -c 1 sh -c "echo $v >$S/enable"
}

# cpu0_agrees: CPU 0's counters are nsight_wpbench's own count.
cpu0_agrees() {
	h=$(cat $C0/hook_hits) w=$(cat $C0/records_written) d=$(cat $C0/records_dropped)
	[ "$h" -eq "$count" ] && [ "$w" -eq "$written" ] && [ "$d" -eq "$dropped" ] &&
		[ "$h" -eq $((w + d)) ] && [ "$refused" -eq 0 ] && return 0
	echo "nsight_wpbench: count $count written $written dropped $dropped" \
		"refused $refused; cpu0: hits $h written $w dropped $d"
	return 1
}

: >/tmp/wp.runs
: >/tmp/wp.err
hits0=$(cat $S/hook_hits)
wpb "$MARKS"
ktap_diag "no capture: $(cat $W/result)"
check "no capture: every mark refused, none counted" \
	test "${refused:-0}" -eq "$MARKS" -a "$(cat $S/hook_hits)" -eq "$hits0"
wp_run() {
	echo "$1 $count $ns $cycles $batch $batch_ns_med $batch_ns_min" \
		"$batch_cycles_med $batch_cycles_min" >>/tmp/wp.runs
}
wp_run gate
ok=1
for sz in $SIZES; do
	echo "$sz" >$WP/size
	capture on
	wpb "$MARKS" || ok=0
	capture off
	ktap_diag "marks of $sz bytes: $(cat $W/result)"
	cpu0_agrees >>/tmp/wp.err || ok=0
	[ "$written" -eq "$MARKS" ] || { echo "$sz bytes: $dropped dropped" >>/tmp/wp.err; ok=0; }
	wp_run "$sz"
done
check "write path: every mark written, CPU 0's counters agree (sizes $SIZES)" \
	sh -c "cat /tmp/wp.err 2>/dev/null; [ $ok = 1 ]"
check "a capture of marks dumps and analyses" sh -c "
	nsightctl dump -o /tmp/wp.nsight &&
	nsight-analyze --verbose --strict /tmp/wp.nsight >/tmp/wp.txt 2>&1 &&
	grep -q '^check: ok' /tmp/wp.txt &&
	grep -q '^records: $(cat $S/records_written) .*dropped: 0 ' /tmp/wp.txt ||
	{ tail -n 30 /tmp/wp.txt; exit 1; }"
# Per record: over the whole run (interrupts and, in the emulator, the
# other vCPU's instructions included), and the median and minimum batch.
ktap_diag "$(awk -v hz="$(cat $S/tsc_hz)" -v n="$MARKS" '
	{ cell = sprintf("%.0f/%.0f/%.0f ns, %.0f/%.0f/%.0f TSC cycles", $3 / $2, $6 / $5, $7 / $5, $4 / $2, $8 / $5, $9 / $5) }
	$1 == "gate" { gate = cell; next }
	{ line = line sprintf("%s%d bytes: %s", sep, $1, cell); sep = "; " }
	END {
		printf "T write path (nsight_wpbench: nsight_mark() flat out on CPU 0, %d marks per size, tsc_hz %.0f), per record, mean/median batch/minimum batch: %s;", n, hz, line
		printf " the call with no capture running: %s\n", gate
	}' /tmp/wp.runs)"

# The gate: a capture stopped, and its buffers freed by a resize, while
# marks are being written. Once CPU 0 has written some, the capture stops;
# the run goes on with every later mark refused.
echo 64 >$WP/size
capture on
echo 2000000 >$W/run &
wpid=$!
wait_until 600 0.05 sh -c "[ \$(cat $C0/hook_hits) -ge 1000 ]"
capture off
h=$(cat $C0/hook_hits) w=$(cat $C0/records_written) d=$(cat $C0/records_dropped)
echo 65536 >$S/buffer_size
wait $wpid
wpb_rc=$?
wpb_parse
ktap_diag "stopped and resized under marks: $(cat $W/result); cpu0: hits $h written $w dropped $d"
check "stop and resize while marks are written: each one written, dropped or refused, CPU 0 agrees" sh -c "
	[ $wpb_rc = 0 ] && [ $((written + dropped + refused)) = $count ] &&
	[ $written -gt 0 ] && [ $refused -gt 0 ] &&
	[ $h = $((written + dropped)) ] && [ $w = $written ] && [ $d = $dropped ]"

# 4. Drain limit.
: >/tmp/drain.runs
: >/tmp/drain.err
# drain_step RATE: DRAIN_MS of marks at RATE records/s (0: as many as the
# paced runs' last rate would write, flat out) with CPU 0's buffer drained
# from CPU 1; appends "RATE COUNT WRITTEN DROPPED ELAPSED_NS BYTES_READ".
drain_step() {
	rate=$1
	n=$((rate * DRAIN_MS / 1000))
	[ "$rate" = 0 ] && n=$FLAT
	capture on
	taskset -c 1 relay_drain /sys/kernel/debug/nsight/cpu0 >/tmp/drain.out 2>&1 &
	dpid=$!
	wait_until 200 0.05 grep -qs ready /tmp/drain.out
	wpb "$n $rate" || echo "rate $rate: nsight_wpbench failed" >>/tmp/drain.err
	kill -TERM $dpid
	wait $dpid
	capture off
	ktap_diag "rate $rate: $(cat $W/result); $(cat /tmp/drain.out)"
	cpu0_agrees >>/tmp/drain.err
	echo "$rate $count $written $dropped $elapsed" \
		"$(awk '$1 == "relay_drain:" { print $3 }' /tmp/drain.out)" >>/tmp/drain.runs
}
for r in $RATES; do
	FLAT=$((r * DRAIN_MS / 1000))
	drain_step "$r"
	[ "$dropped" -eq 0 ] || break
done
drain_step 0
check "drain: every run's marks counted on CPU 0, the reader read them" sh -c "
	cat /tmp/drain.err; [ ! -s /tmp/drain.err ] &&
	awk '\$6 + 0 == 0 { exit 1 }' /tmp/drain.runs"
ktap_diag "$(awk -v ms="$DRAIN_MS" '
	$1 > 0 && $4 == 0 { best = $1; ba = $2 / ($5 / 1e9) }
	$1 > 0 && $4 > 0 && !first { first = $1; fd = $4; fc = $2 }
	$1 == 0 { fr = $2 / ($5 / 1e9); fdr = $4; fcnt = $2 }
	END {
		printf "T drain limit (64 KiB buffers, relay_drain on CPU 1, 64-byte marks on CPU 0, %d ms per rate):", ms
		if (best) printf " highest paced rate without drops %d records/s (%.0f records/s achieved, %.1f MB/s);", best, ba, ba * 64 / 1e6
		else printf " every paced rate dropped;"
		if (first) printf " first with drops %d records/s (%d of %d dropped);", first, fd, fc
		printf " flat out %.0f records/s written, %d of %d dropped (%.1f%%)\n", fr, fdr, fcnt, 100 * fdr / fcnt
	}' /tmp/drain.runs)"
ktap_finish
