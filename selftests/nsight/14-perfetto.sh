#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# nsight-analyze --perfetto on a real capture: a UDP echo server pinned to
# CPU 1 in one namespace, a client pinned to CPU 0 in another. The trace
# passes trace_check (fields, B/E matched and in order per track, async
# b/e and flow s/f matched), the CPUs' contexts nest, every complete
# message has its async track, and every complete RX message a hand-off
# flow bound to context slices at both ends (Perfetto draws it from them).
. /lib/nsight/lib.sh

N=${nsight_perfetto_count:-300}
PORT=9400

# ms: milliseconds since boot (busybox date has no %N).
ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

# count NAME: the number after NAME in trace_check's counts.
count() {
	awk -v k="$1" '/^# (events|tracks) / { for (i = 2; i < NF; i++) if ($i == k || $i == k ":") print $(i + 1) }' \
		/tmp/pf.check | head -n 1
}

ktap_plan 8
nsight_load
netns_pair nsa nsb 10.17.0.1 10.17.0.2

check "start" nsightctl start
ip netns exec nsb taskset -c 1 msgload server -p udp -P $PORT -n "$N" >/tmp/pf.server 2>&1 &
srv=$!
wait_until 100 0.1 grep -q listening /tmp/pf.server
ip netns exec nsa taskset -c 0 msgload client -p udp -a 10.17.0.2 -P $PORT -n "$N" -g 2000 \
	>/tmp/pf.client 2>&1
wait_until 100 0.1 exited $srv
kill $srv 2>/dev/null
wait $srv
check "stop" nsightctl stop
nsightctl dump -o /tmp/pf.nsight 2>/dev/null

t0=$(ms)
check "nsight-analyze --perfetto" sh -c \
	"nsight-analyze --verbose --messages --perfetto /tmp/t.json /tmp/pf.nsight >/tmp/pf.txt 2>&1 && [ -s /tmp/t.json ]"
t1=$(ms)
trace_check /tmp/t.json >/tmp/pf.check 2>&1
rc=$?

# The --messages lines (chains' and the critical path's also begin "  rx N").
complete=$(grep -E '^  (rx|tx) [0-9]+ (udp|tcp) ' /tmp/pf.txt | grep -vc incomplete)
rx=$(grep -E '^  rx [0-9]+ (udp|tcp) ' /tmp/pf.txt | grep -vc incomplete)
drops=$(awk '/^records:/ {for (i = 1; i < NF; i++) if ($i == "dropped:") print $(i + 1)}' /tmp/pf.txt)
B=$(count B)
depth=$(count max_depth)
tracks=$(count tracks)
async=$(count async)
flows=$(count flows)
unbound=$(count unbound)
ktap_diag "client: $(cat /tmp/pf.client)"
ktap_diag "capture $(wc -c </tmp/pf.nsight) bytes, records dropped ${drops:-?}; trace $(wc -c </tmp/t.json) bytes in $((t1 - t0)) ms (with the analysis)"
ktap_diag "messages complete $complete (rx $rx); trace_check:"
ktap_diag "$(grep '^# \(events\|tracks\) ' /tmp/pf.check | sed 's/^# //')"

check "trace_check: the trace is valid" sh -c "cat /tmp/pf.check; [ $rc -eq 0 ]"
check "CPU tracks with nested contexts" \
	test "${tracks:-0}" -ge 2 -a "${B:-0}" -gt 0 -a "${depth:-0}" -ge 2
check "one async track per complete message" test "${async:--1}" -eq "$complete" -a "$complete" -gt 0
check "one hand-off flow per complete RX message" test "${flows:--1}" -eq "$rx" -a "$rx" -gt 0
# The CPU tracks cover each CPU from its first record to its last (lost
# records and unknown time are slices too): every hand-off has slices there.
check "hand-off flows bound to slices at both ends" test "${unbound:--1}" -eq 0
netns_cleanup
nsight_unload
ktap_finish
