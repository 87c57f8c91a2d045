#!/bin/sh
# SPDX-License-Identifier: MIT
# regress.sh BUILD CORPUS TARGET...: run each libFuzzer target BUILD/fuzz_TARGET
# once over every file in CORPUS/TARGET/ (seeds and the inputs of crashes
# that were fixed), as KTAP: one result per target. Any sanitizer report,
# crash, leak or input slower than 20 s fails it.
build=$1 corpus=$2
shift 2
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$(dirname "$0")/../tests/lsan.supp:print_suppressions=0}"
echo "KTAP version 1"
echo "1..$#"
i=0 failed=0
for t in "$@"; do
	i=$((i + 1))
	dir=$corpus/$t
	n=$(find "$dir" -type f 2>/dev/null | wc -l)
	if [ "$n" -eq 0 ]; then
		echo "not ok $i - fuzz_$t: no corpus in $dir"
		failed=1
		continue
	fi
	start=$(date +%s)
	log=$(find "$dir" -type f -print0 | sort -z |
		timeout -k 5 300 xargs -0 "$build/fuzz_$t" -timeout=20 -rss_limit_mb=2048 2>&1)
	rc=$?
	ran=$(printf '%s\n' "$log" | grep -c '^Executed ')
	secs=$(($(date +%s) - start))
	if [ $rc -eq 0 ] && [ "$ran" -eq "$n" ]; then
		echo "ok $i - fuzz_$t: $n inputs in $secs s"
	else
		echo "not ok $i - fuzz_$t: exit $rc, $ran of $n inputs ran"
		printf '%s\n' "$log" | grep -v -e '^Running: ' -e '^Executed ' | tail -n 40 | sed 's/^/# /'
		failed=1
	fi
done
exit $failed
