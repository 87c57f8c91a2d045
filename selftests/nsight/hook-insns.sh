#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench's instructions per hook: scripts/hook-insns.sh boots this (by
# name: it is not one of the numbered tests) under QEMU's insn-count plugin
# (selftests/harness/insn-count.c), which counts every kernel instruction
# executed. Three captures: recloop with the message sources (its round
# trips on CPU 0), then the UDP echo and memcached with the default
# sources; the module's text address goes to the log (NSIGHT-TEXT) for the
# host to find its functions in the counts.
#
# Parameters (kernel command line): nsight_insns_loops (recloop round
# trips, default 10000), nsight_insns_n (requests of each workload at
# 1,000/s, default 1000).
. /lib/nsight/lib.sh
. /tests/diag-lib.sh

LOOPS=${nsight_insns_loops:-10000}
N=${nsight_insns_n:-1000}
S=/sys/kernel/nsight

ktap_plan 4
nsight_load
netns_pair nsa nsb 10.16.0.1 10.16.0.2
echo 33554432 >$S/buffer_size

echo net_rx,net_tx,handoff,app >$S/sources
echo 1 >$S/enable
taskset -c 0 recloop "$LOOPS" >/tmp/insns.rl
echo 0 >$S/enable
written=$(cat $S/records_written)
ktap_diag "$(cat /tmp/insns.rl)"
ktap_diag "records: recloop $written"
# 9 a round trip, and the capture's own (clock) records.
check "recloop: 9 records per round trip" test "$written" -ge $((9 * LOOPS)) -a "$written" -lt $((9 * LOOPS + 100))

# The default sources: all but sample, pt and futex.
echo all >$S/sources
echo "$(sed 's/,sample//; s/,pt//; s/,futex//' $S/sources)" >$S/sources
# capture W: one capture of workload W (udp or memcached).
capture() {
	echo 1 >$S/enable
	load_run "$1" "$N" 1000 /tmp/insns.$1
	echo 0 >$S/enable
	ktap_diag "$(cat /tmp/insns.$1)"
	ktap_diag "records: $1 $(cat $S/records_written)"
	check "$1: replies" grep -q "received [1-9]" /tmp/insns.$1
}
capture udp
memcached_start
capture memcached

check "the module's text address" test -r /sys/module/nsight/sections/.text
echo "NSIGHT-TEXT $(cat /sys/module/nsight/sections/.text)"
ktap_finish
