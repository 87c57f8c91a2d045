#!/bin/sh
# Run KTAP test binaries, show their output and total the results.
# Fails if any test failed, or a binary exited non-zero or ran fewer tests
# than its plan (a crash or sanitizer abort).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$(dirname "$0")/lsan.supp:print_suppressions=0}"

passed=0
failed=0
broken=0
for t in "$@"; do
	echo "# $t"
	out=$("$t" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	p=$(printf '%s\n' "$out" | grep -c '^ok ')
	f=$(printf '%s\n' "$out" | grep -c '^not ok ')
	plan=$(printf '%s\n' "$out" | sed -n 's/^1\.\.\([0-9]*\)$/\1/p' | head -n 1)
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] || [ -z "$plan" ] || [ $((p + f)) -ne "$plan" ]; then
		# A result of its own, so KTAP counters see the crash too.
		printf 'KTAP version 1\n1..1\nnot ok 1 - %s exited with status %s after %s of %s tests\n' \
			"$t" "$rc" $((p + f)) "${plan:-?}"
		broken=$((broken + 1))
	fi
done
echo "userspace: $passed passed, $((failed + broken)) failed"
[ "$failed" -eq 0 ] && [ "$broken" -eq 0 ]
