# SPDX-License-Identifier: GPL-2.0
# Shared by the diagnosis scenarios (2x-diag-*.sh): a UDP echo server in
# namespace nsb pinned to CPU 1 (the application core), an open-loop client
# in nsa pinned to CPU 0, one injected cause, and the cause nsight-analyze
# names first for the server's messages.

DIAG_N=${nsight_diag_count:-1000}
DIAG_RATE=${nsight_diag_rate:-200}
DIAG_PORT=9300

diag_setup() {
	nsight_load
	nsightctl config --buffer-size 32M
	netns_pair nsa nsb 10.16.0.1 10.16.0.2
}

# softirq_flood_start: costly receive processing on the application core
# (CPU 1): RPS of nsb's veth to CPU 1, a sink on CPU 0 whose
# 4,000-instruction socket filter runs on every datagram where it is
# received, and a flood to it (10.16.0.2:9301) from CPU 1 in nsa, since
# veth receives on the sender's CPU. The sink has written "listening" to
# /tmp/sink.out once its filter is attached. softirq_flood_stop ends both
# and the RPS.
softirq_flood_start() {
	ip netns exec nsb sh -c 'echo 2 > /sys/class/net/veth0/queues/rx-0/rps_cpus'
	# A 4000-instruction filter needs more than the default socket option
	# memory.
	echo 1048576 > /proc/sys/net/core/optmem_max
	ip netns exec nsb sh -c 'echo 1048576 > /proc/sys/net/core/optmem_max' 2>/dev/null
	ip netns exec nsb taskset -c 0 udp_pair recv 9301 1000000000 20000 4000 \
		>/tmp/sink.out 2>&1 &
	sleep 0.5
	ip netns exec nsa taskset -c 1 udp_pair flood 10.16.0.2 9301 600 >/dev/null 2>&1 &
	# Started through the ip wrapper in the background: killed by name.
	at_exit "killall udp_pair 2>/dev/null"
}

softirq_flood_stop() {
	killall udp_pair 2>/dev/null
	wait_until 50 0.1 sh -c '! pidof udp_pair'
	ip netns exec nsb sh -c 'echo 0 > /sys/class/net/veth0/queues/rx-0/rps_cpus'
}

# flood_in_rxwork FILE PID: the receive work behind PID's RX causes in the
# analysis FILE lists the flood's flow (to 10.16.0.2:9301).
flood_in_rxwork() {
	sed -n "/^diagnosis: [^ ]*\[$2\] rx:/,/^  coverage:/p" "$1" |
		grep -q '^      udp [0-9.:]* > 10.16.0.2:9301: '
}

# memcached_start: memcached (one worker thread) in nsb on CPU 1, port
# 11211, killed at exit; returns 1 if it does not answer within 10 s.
memcached_start() {
	ip netns exec nsb taskset -c 1 memcached -u root -l 10.16.0.2 -p 11211 -U 0 -t 1 \
		>/tmp/mc.log 2>&1 &
	at_exit "killall memcached 2>/dev/null"
	wait_until 50 0.2 memcached_up
}

# load_run udp|memcached N RATE OUT [SERVER_ARGS]: N requests at RATE/s
# (Poisson, seed 7) from msgload's client on CPU 0 in nsa to the UDP echo
# server (started here, on CPU 1 in nsb, with SERVER_ARGS) or to memcached;
# the client's output goes to OUT.
load_run() {
	case $1 in
	udp)
		rm -f /tmp/load.server
		# shellcheck disable=SC2086
		ip netns exec nsb taskset -c 1 msgload server -p udp -P $DIAG_PORT -n "$2" ${5:-} \
			>/tmp/load.server 2>&1 &
		_lr_pid=$!
		wait_until 100 0.1 grep -qs listening /tmp/load.server
		ip netns exec nsa taskset -c 0 msgload client -p udp -a 10.16.0.2 \
			-P $DIAG_PORT -n "$2" -r "$3" -s 7 -T 10000 >"$4" 2>&1
		kill $_lr_pid 2>/dev/null
		wait $_lr_pid 2>/dev/null
		;;
	memcached)
		ip netns exec nsa taskset -c 0 msgload client -p memcache -a 10.16.0.2 \
			-P 11211 -n "$2" -r "$3" -s 7 -T 10000 >"$4" 2>&1
		;;
	esac
}

# memcached_up: memcached answers "version".
memcached_up() {
	ip netns exec nsa sh -c 'printf "version\r\n" | nc -w 1 10.16.0.2 11211' \
		2>/dev/null | grep -q VERSION
}

# A row of a diagnosis table in the 100-column view (cause, share, excess,
# msgs, main, median): row() gives the cause, and sets ROW_SHARE.
DIAG_ROW_AWK='
function row(line,    f, n, i, c) {
	sub(/^ +/, "", line)
	n = split(line, f, / +/)
	c = f[1]
	for (i = 2; i <= n - 5; i++)
		c = c " " f[i]
	ROW_SHARE = f[n - 4]
	return c
}'

# top_cause FILE PID [DIR]: the first cause of the diagnosis of PID's
# received (or DIR: tx) messages, and its share of the tail's excess
# latency ("cause|share").
# second_share FILE PID [DIR]: the second cause's share ("0%" if none),
# for the margin a check has.
# first_causes FILE PID N [DIR]: its first N causes, a line each.
top_cause() {
	awk -v pid="$2" -v dir="${3:-rx}:" "$DIAG_ROW_AWK"'
	$1 == "diagnosis:" && index($2, "[" pid "]") && $3 == dir { want = 2; next }
	want == 2 && /^  no cause:/ { print "|0%"; exit }
	want == 2 { want = 1; next }	# the table header
	want == 1 { c = row($0); print c "|" ROW_SHARE; exit }' "$1"
}

second_share() {
	awk -v pid="$2" -v dir="${3:-rx}:" "$DIAG_ROW_AWK"'
	$1 == "diagnosis:" && index($2, "[" pid "]") && $3 == dir { want = 3; next }
	want == 3 { want = 2; next }	# the table header
	want && /^  coverage:/ { print "0%"; exit }
	want && /^  [^ ]/ && want-- == 1 { row($0); print ROW_SHARE; exit }' "$1"
}

first_causes() {
	awk -v pid="$2" -v n="$3" -v dir="${4:-rx}:" "$DIAG_ROW_AWK"'
	$1 == "diagnosis:" && index($2, "[" pid "]") && $3 == dir { on = 1; hdr = 1; next }
	on && hdr { hdr = 0; next }	# the table header
	on && (!/^  / || /^  coverage:/ || /^  no cause:/) { exit }
	on && /^  [^ ]/ { print row($0); if (++k == n) exit }' "$1"
}

# band_first FILE PID [DIR]: the first row of PID's cause table in the
# "band pA-pB of both captures" section (--tail pA-pB --baseline, the
# compact text): "cause|this capture's share|the baseline's share", a
# share "-" where that band lacks the cause; "|-|-" with no cause.
band_first() {
	awk -v pid="$2" -v dir="${3:-rx}" '
	/^band p/ { band = 1; next }
	!/^  / { band = 0; on = 0 }
	band && $1 == "comm[pid]" { on = 0; next }
	band && index($1, "[" pid "]") && $2 == dir && $3 == "this" { on = 1; next }
	on && /^  no cause in either band/ { print "|-|-"; exit }
	on && $1 == "cause" { rows = 1; next }
	on && rows && /^  [^ ]/ {
		c = $1; for (i = 2; i <= NF - 4; i++) c = c " " $i
		print c "|" $(NF - 3) "|" $(NF - 1); exit
	}' "$1"
}

# coverage FILE PID: the median coverage of PID's diagnosis.
coverage() {
	awk -v pid="$2" '
	$1 == "diagnosis:" && index($2, "[" pid "]") && $3 == "rx:" { on = 1; next }
	on && $1 == "coverage:" { print $3; exit }' "$1" | tr -d ','
}

# diag_explain NAME WHAT DUMP_RC ANALYZE_RC: when no cause was found for
# WHAT, the evidence a CI log needs to tell why: both exit codes, the
# dump's messages, the analysis's diagnosis headers and "no cause" lines,
# its other output's head, and the guest's free memory and /tmp.
# clean_top_ok INJECTED: a run with nothing injected does not lead with an
# injected kind (an extended regular expression of causes), unless that
# cause explains under half of the tail: the system's own noise (a kworker
# on the application core, "OS threads") can come first by a hair, as
# 36-diag-sockperf's clean run once gave it (31% against 30%). DIAG_TOP
# and DIAG_SHARE as diag_run or diag_analyze set them.
clean_top_ok() {
	echo "$DIAG_TOP" | grep -qE "$1" || return 0
	echo "leads with '$DIAG_TOP' at ${DIAG_SHARE:-?} of the tail"
	case ${DIAG_SHARE%\%} in ''|*[!0-9]*) return 1 ;; esac
	[ "${DIAG_SHARE%\%}" -lt 50 ]
}

diag_explain() {
	ktap_diag "$1: no cause for $2: dump exit $3, analyze exit $4"
	{
		sed 's/^/dump: /' /tmp/$1.dump 2>/dev/null
		grep '^diagnosis:\|no cause:\|skipped:\|^lost\|drop' /tmp/$1.txt | head -n 20
		head -n 8 /tmp/$1.txt
		free -k | head -n 2
		df -k /tmp | tail -n 1
	} | while IFS= read -r _l; do ktap_diag "  $_l"; done
}

# hog_start [HOG ARGS]: the hog on CPU 1 in nsb, its pid in $hpid (ip is a
# shell function here, so $! would be a subshell's: killing it would leave
# the hog running); hog_stop ends it.
hog_start() {
	rm -f /tmp/hog.pid
	ip netns exec nsb taskset -c 1 sh -c 'echo $$ >/tmp/hog.pid; exec hog "$@"' hog "$@" \
		>/dev/null 2>&1 &
	wait_until 50 0.1 test -s /tmp/hog.pid
	hpid=$(cat /tmp/hog.pid)
	at_exit "kill $hpid 2>/dev/null"
}

hog_stop() {
	kill "$hpid"
	wait_until 50 0.1 exited "$hpid"
}

# diag_run NAME "SERVER ARGS" "CLIENT ARGS": capture one run of the
# workload and analyse it into /tmp/NAME.txt. The client runs on CPU 0, or
# on DIAG_CLIENT_CPU. Sets DIAG_SPID, and through diag_analyze DIAG_TOP
# (cause), DIAG_SHARE and DIAG_COVERAGE.
diag_run() {
	_n=$1
	nsightctl start
	# Not an earlier scenario's file of the same name: its "listening"
	# line would pass the wait before this server truncates it.
	rm -f /tmp/$_n.server
	ip netns exec nsb taskset -c 1 msgload server -p udp -P $DIAG_PORT -n "$DIAG_N" $2 \
		>/tmp/$_n.server 2>&1 &
	_s=$!
	wait_until 100 0.1 grep -qs listening /tmp/$_n.server
	DIAG_SPID=$(awk '/^listening/ {print $4}' /tmp/$_n.server)
	ip netns exec nsa taskset -c "${DIAG_CLIENT_CPU:-0}" msgload client -p udp \
		-a 10.16.0.2 -P $DIAG_PORT -n "$DIAG_N" -r "$DIAG_RATE" -s 7 -T 10000 $3 \
		>/tmp/$_n.client 2>&1
	wait_until 50 0.1 exited $_s
	kill $_s 2>/dev/null
	wait $_s
	nsightctl stop
	diag_analyze "$_n" "$DIAG_SPID"
}

# The message lines of an analysis with --messages, without their ids
# (numbered per window with --window), sorted.
message_lines() {
	awk '/^messages: / { on = 1; next }
	     on && /^  (rx|tx) [0-9]+ / { sub(/^  /, ""); $2 = ""; print; next }
	     { on = 0 }' "$1" | sort
}

# windows_same NAME WIDTH: /tmp/NAME.nsight analysed in windows of WIDTH
# holds the same messages as without windows (each message lasting less
# than a window is read whole by the window it starts in).
windows_same() {
	nsight-analyze --messages --color never /tmp/$1.nsight >/tmp/$1.msgs.txt 2>&1
	nsight-analyze --messages --color never --window "$2" /tmp/$1.nsight \
		>/tmp/$1.win.txt 2>&1
	_wrc=$?
	message_lines /tmp/$1.msgs.txt >/tmp/$1.msgs
	message_lines /tmp/$1.win.txt >/tmp/$1.wmsgs
	ktap_diag "$1: --window $2: exit $_wrc, $(grep -c '^window [0-9]*:' /tmp/$1.win.txt) windows, $(wc -l </tmp/$1.wmsgs) messages ($(wc -l </tmp/$1.msgs) without windows)"
	[ $_wrc -eq 0 ] && [ -s /tmp/$1.msgs ] && cmp -s /tmp/$1.msgs /tmp/$1.wmsgs && return 0
	# The promise holds for captures whose messages are shorter than a
	# window (a guest far slower than usual can stretch one past it).
	_wns=$(echo "$2" | awk '/ms$/ { print $0 * 1000000; next } /s$/ { print $0 * 1000000000 }')
	_long=$(awk '{ for (i = 1; i < NF; i++) if ($i == "total" && $(i + 1) + 0 >= w) n++ }
		     END { print n + 0 }' w="$_wns" /tmp/$1.msgs)
	if [ $_wrc -eq 0 ] && [ "$_long" -gt 0 ]; then
		ktap_diag "$1: $_long messages lasted a window ($2) or longer: windows may split them, not compared"
		return 0
	fi
	diff /tmp/$1.msgs /tmp/$1.wmsgs | head -n 6 | while IFS= read -r _l; do ktap_diag "  $_l"; done
	grep -v '^  ' /tmp/$1.win.txt | grep -i 'error\|nsight-analyze' | head -n 3 |
		while IFS= read -r _l; do ktap_diag "  $_l"; done
	return 1
}

# tcp_echo_run NAME PORT N [CLIENT_ARGS [SERVER_ARGS]]: N closed-loop
# requests (1 ms apart) from msgload's TCP client on CPU 0 in nsa to its
# echo server on CPU 1 in nsb, captured into /tmp/NAME.nsight and analysed
# into /tmp/NAME.txt; the client's output is /tmp/NAME.client. Sets
# DIAG_SPID (the server's pid).
tcp_echo_run() {
	rm -f /tmp/$1.server
	nsightctl start
	ip netns exec nsb taskset -c 1 msgload server -p tcp -P $2 -n $3 ${5:-} \
		>/tmp/$1.server 2>&1 &
	_s=$!
	wait_until 100 0.1 grep -qs listening /tmp/$1.server
	DIAG_SPID=$(awk '/^listening/ {print $4}' /tmp/$1.server)
	ip netns exec nsa taskset -c 0 msgload client -p tcp -a 10.16.0.2 -P $2 \
		-n $3 -g 1000 -T 10000 ${4:-} >/tmp/$1.client 2>&1
	wait_until 50 0.1 exited $_s
	kill $_s 2>/dev/null
	wait $_s
	nsightctl stop
	nsightctl dump -o /tmp/$1.nsight 2>/tmp/$1.dump
	nsight-analyze /tmp/$1.nsight >/tmp/$1.txt 2>&1
}

# diag_report_group NAME PID DIR WHO: the diagnosis of PID's DIR (rx, tx)
# messages in /tmp/NAME.txt: sets DIAG_TOP and DIAG_SHARE, and prints the
# first cause with the second's share, the coverage, the first cause at
# p99 and the head of the table. WHO names them in the log.
diag_report_group() {
	_t=$(top_cause /tmp/$1.txt "$2" "$3")
	DIAG_TOP=${_t%|*}
	DIAG_SHARE=${_t#*|}
	ktap_diag "$1: client: $(cat /tmp/$1.client)"
	ktap_diag "$1: top cause of $4 '$DIAG_TOP', share of tail ${DIAG_SHARE:-?} (the second cause's $(second_share /tmp/$1.txt "$2" "$3")), $(awk -v pid="$2" -v dir="$3:" '
		$1 == "diagnosis:" { on = index($2, "[" pid "]") && $3 == dir; next }
		on && $1 == "coverage:" { sub(/^ +/, ""); print; exit }' /tmp/$1.txt)"
	diag_at_p99 "$1" "$2" "$3"
	sed -n "/^diagnosis: [^ ]*\[$2\] $3:/,/^diagnosis:\|^\$/p" /tmp/$1.txt |
		head -n 12 | while IFS= read -r _l; do ktap_diag "  $_l"; done
}

# diag_at_p99 NAME PID [DIR]: the first cause of /tmp/NAME.nsight at the p99
# tail, its share and the coverage, for the record (no check).
diag_at_p99() {
	nsight-analyze --tail p99 /tmp/$1.nsight >/tmp/$1.p99.txt 2>&1
	_t99=$(top_cause /tmp/$1.p99.txt "$2" "${3:-rx}")
	ktap_diag "$1: at p99: top cause '${_t99%|*}', share of tail ${_t99#*|}; $(awk -v pid="$2" -v dir="${3:-rx}:" '
		$1 == "diagnosis:" { on = index($2, "[" pid "]") && $3 == dir; next }
		on && $1 == "coverage:" { sub(/^ +/, ""); print; exit }' /tmp/$1.p99.txt)"
}

# diag_analyze NAME PID: dump the stopped capture to /tmp/NAME.nsight,
# analyse it into /tmp/NAME.txt and report PID's diagnosis (with the
# client's line from /tmp/NAME.client). Sets DIAG_TOP (cause), DIAG_SHARE
# and DIAG_COVERAGE.
diag_analyze() {
	nsightctl dump -o /tmp/$1.nsight 2>/tmp/$1.dump
	_drc=$?
	nsight-analyze ${DIAG_ANALYZE_ARGS:-} /tmp/$1.nsight >/tmp/$1.txt 2>&1
	_arc=$?
	_t=$(top_cause /tmp/$1.txt "$2")
	DIAG_TOP=${_t%|*}
	DIAG_SHARE=${_t#*|}
	DIAG_COVERAGE=$(coverage /tmp/$1.txt "$2")
	ktap_diag "$1: client: $(cat /tmp/$1.client)"
	ktap_diag "$1: top cause '$DIAG_TOP', share of tail ${DIAG_SHARE:-?} (the second cause's $(second_share /tmp/$1.txt "$2")), median coverage ${DIAG_COVERAGE:-?}"
	diag_at_p99 "$1" "$2"
	[ -n "$DIAG_TOP" ] || diag_explain "$1" "pid $2" $_drc $_arc
	sed -n "/^diagnosis: [^ ]*\[$2\] rx:/,/^diagnosis:\|^\$/p" /tmp/$1.txt |
		head -n 16 | while IFS= read -r _l; do ktap_diag "  $_l"; done
}
