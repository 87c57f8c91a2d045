#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Diagnosis scenario 6: nothing injected. No cause of the kinds the other
# scenarios inject (another process's interference, head-of-line blocking,
# receive processing or kernel work on the application core, page faults)
# may be first, or, but for head-of-line blocking, explain $MAX_SHARE% or
# more of the tail's excess latency. Poisson arrivals queue behind each
# other now and then without any injection: in clean runs head-of-line
# blocking was the main cause of 18% to 28% of the tail, each by about one
# request's service time (42-46 us), against milliseconds in 21-diag-hol.
# What remains is the platform's own latency, in an emulated guest mostly
# waiting for the other vCPU to run ("Idle after ..."): reported, with the
# coverage, but not a false injected cause.
. /lib/nsight/lib.sh
. /tests/diag-lib.sh

MAX_SHARE=25
INJECTED='interference \(A\)|Head-of-line blocking|Receive processing \(A\)|OS threads|Page faults'
SHARE_CHECKED='interference \(A\)|Receive processing \(A\)|OS threads|Page faults'

ktap_plan 3
diag_setup
diag_run clean "" ""
pid=$DIAG_SPID
# Rows of the server's cause table: "cause|share".
awk -v pid="$pid" '
	$1 == "diagnosis:" { on = index($2, "[" pid "]") && $3 == "rx:"; hdr = on; next }
	on && hdr { hdr = 0; next }
	on && /^  coverage:/ { on = 0 }
	on && /^  [^ ]/ {
		line = $0; sub(/^ +/, "", line); n = split(line, f, / +/)
		# cause, share, excess, msgs, main, median (the 100-column view)
		c = f[1]; for (i = 2; i <= n - 5; i++) c = c " " f[i]
		print c "|" f[n - 4]
	}' /tmp/clean.txt >/tmp/clean.causes
bad=$(grep -E "$SHARE_CHECKED" /tmp/clean.causes | awk -F'|' -v max=$MAX_SHARE '{ s = $2; sub(/%/, "", s); if (s + 0 >= max) print }')
check "coverage reported" test -n "$DIAG_COVERAGE"
check "no injected kind leads the tail" clean_top_ok "$INJECTED"
check "no injected kind but queueing explains $MAX_SHARE% of the tail's excess" test -z "$bad"
ktap_finish
