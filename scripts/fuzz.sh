#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fuzz the userspace library with libFuzzer, one target at a time.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# SECONDS per target (default 600); TARGETs among stream, analysis, window, ksyms,
# categories (default all). Each target starts from its seeds in
# userspace/fuzz/corpus/TARGET/ and the corpus it grew in earlier runs,
# build/fuzz/TARGET/ (kept). Crashing inputs land in
# build/fuzz/artifacts/TARGET/; to keep one as a regression once it is
# fixed, copy it into userspace/fuzz/corpus/TARGET/ (make fuzz-regress runs
# them all in every make check). Logs: build/fuzz/TARGET.log.
#
# libFuzzer runs in fork mode (one job: the machine is shared), so that it
# goes on after a crash and collects them all.
#
# Environment: FUZZ_ARGS (more libFuzzer options).
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
secs=600
case ${1:-} in
''|*[!0-9]*) ;;
*) secs=$1; shift ;;
esac
targets=${*:-stream analysis window ksyms categories}
out=$top/build/fuzz

make -s -C "$top/userspace" fuzz-build || exit 1
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
status=0
for t in $targets; do
	bin=$top/userspace/build-fuzz/fuzz_$t
	seeds=$top/userspace/fuzz/corpus/$t
	[ -x "$bin" ] && [ -d "$seeds" ] || { echo "fuzz: unknown target $t" >&2; exit 2; }
	mkdir -p "$out/$t" "$out/artifacts/$t"
	before=$(ls "$out/artifacts/$t" | wc -l)
	t0=$(date +%s)
	rm -f "$out/$t.time"
	timer=
	[ -x /usr/bin/time ] && timer="/usr/bin/time -o $out/$t.time -f %U+%S"
	# shellcheck disable=SC2086
	$timer "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -use_value_profile=1 \
		-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
		-print_final_stats=1 -artifact_prefix="$out/artifacts/$t/" ${FUZZ_ARGS:-} \
		"$out/$t" "$seeds" >"$out/$t.log" 2>&1
	rc=$?
	wall=$(($(date +%s) - t0))
	cpu=$(tail -n 1 "$out/$t.time" 2>/dev/null | awk -F+ '{printf "%d", $1 + $2}')
	# The last status line: "#N: cov: C ft: F corp: K ..." (fork mode) or
	# "#N  REDUCE cov: C ft: F corp: K/..." (in-process).
	last=$(grep -E '^#[0-9]+' "$out/$t.log" | tail -n 1)
	execs=$(echo "$last" | sed -n 's/^#\([0-9]*\).*/\1/p')
	cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\).*/cov \1, ft \2, corpus \3/p')
	crashes=$(($(ls "$out/artifacts/$t" | wc -l) - before))
	echo "fuzz_$t: ${wall} s, ${cpu:-?} CPU s, ${execs:-?} execs, ${cov:-?}, exit $rc, $crashes new crash input(s)"
	if [ $rc -ne 0 ]; then
		status=1
		grep -m 1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$out/$t.log" |
			sed 's/^/    /'
		ls -t "$out/artifacts/$t" | head -n 1 | sed "s|^|    $out/artifacts/$t/|"
	fi
done
exit $status
