#!/bin/sh
# Boot a QEMU guest with an initramfs from mkinitramfs.sh, run the tests in it
# and judge the result.
#
# usage: run-guest.sh --kernel BZIMAGE --initrd CPIO --log FILE
#            [--tests "a b"|all] [--timeout SECONDS] [--test-timeout SECONDS]
#            [--append "extra cmdline"] [--icount] [--smp N] [--mem M]
#            [--qemu-args "ARGS"] [--dmesg-ignore ERE] [--shell]
#
#   --tests          test names in /tests (default all)
#   --timeout        wall-clock limit for the whole guest, QEMU is killed after
#                    it (default 1200)
#   --test-timeout   per-test limit inside the guest (nsight_timeout, default 300)
#   --append         more kernel command-line words (nsight_* variables reach the tests)
#   --icount         -icount shift=2,sleep=off: guest time follows instructions
#                    (for benchmarks; see GUEST-NOTES.md)
#   --smp, --mem     vCPUs (default 2) and memory in MB (default 1024)
#   --qemu-args      extra QEMU arguments (word-split); if they contain -nic,
#                    -netdev or -device, "-nic none" is left out
#   --dmesg-ignore   dmesg lines matching this ERE are not counted as problems
#   --shell          interactive: serial on this terminal, nsight_shell=1,
#                    no judging (Ctrl-A X quits QEMU)
#
# Prints on stdout the guest's KTAP with one more top-level result,
# "dmesg clean", appended (the plan is adjusted). Results of tests that never
# reported (guest crashed or hung) are filled in as "not ok ... # ERROR".
# Kernel problems found in dmesg (or in the whole log if the guest never
# dumped it) go to stderr with context. Exit 0 only if the guest finished,
# every test passed or was skipped, and dmesg is clean; otherwise 1 with the
# reason on stderr (2 for usage errors). A guest that dies of the emulator's
# double fault (GUEST-NOTES.md) with no nsight frame in the oops boots once
# more for the tests left, the one that was running included, with
# nsight_retry=1; a "# run-guest:" line in the KTAP and on stderr says so,
# and the first boot's serial log is kept as LOG.boot1.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
prog=run-guest

usage() {
	sed -n 's/^# \{0,1\}//; 5,8p' "$0" >&2
	exit 2
}
die() { echo "$prog: $*" >&2; exit 2; }

kernel= initrd= log= tests=all wall=1200 test_timeout= append= icount= smp=2 mem=1024
qemu_args= ignore= shell=0
while [ $# -gt 0 ]; do
	case $1 in
	--kernel|--initrd|--log|--tests|--timeout|--test-timeout|--append|--smp|--mem|--qemu-args|--dmesg-ignore)
		[ $# -ge 2 ] || usage
		case $1 in
		--kernel) kernel=$2 ;;
		--initrd) initrd=$2 ;;
		--log) log=$2 ;;
		--tests) tests=$2 ;;
		--timeout) wall=$2 ;;
		--test-timeout) test_timeout=$2 ;;
		--append) append="$append $2" ;;
		--smp) smp=$2 ;;
		--mem) mem=$2 ;;
		--qemu-args) qemu_args="$qemu_args $2" ;;
		--dmesg-ignore) ignore=$2 ;;
		esac
		shift 2 ;;
	--icount) icount="-icount shift=2,sleep=off"; shift ;;
	--shell) shell=1; shift ;;
	-h|--help) usage ;;
	*) echo "$prog: unknown argument: $1" >&2; usage ;;
	esac
done
[ -n "$kernel" ] && [ -n "$initrd" ] || usage
[ -n "$log" ] || [ $shell = 1 ] || usage
[ -r "$kernel" ] || die "kernel $kernel: not readable"
[ -r "$initrd" ] || die "initrd $initrd: not readable"
for n in "$wall" "$smp" "$mem" ${test_timeout:+"$test_timeout"}; do
	case $n in ''|*[!0-9]*) die "not a number: $n" ;; esac
done
# The list travels as one kernel command-line word: commas, no spaces.
tests=$(echo $tests | tr ' ' ',')
case $tests in *[!A-Za-z0-9._,+-]*) die "bad test name in: $tests" ;; esac

qemu=${QEMU:-qemu-system-x86_64}
cmdline="console=ttyS0 panic=-1 quiet nsight_tests=$tests"
[ -z "$test_timeout" ] || cmdline="$cmdline nsight_timeout=$test_timeout"
cmdline="$cmdline${append}"

nic="-nic none"
case " $qemu_args " in *" -nic "*|*" -netdev "*|*" -device "*) nic= ;; esac

if [ $shell = 1 ]; then
	# shellcheck disable=SC2086
	exec "$qemu" -accel tcg,thread=single -cpu max -smp "$smp" -m "$mem" \
		-kernel "$kernel" -initrd "$initrd" -append "$cmdline nsight_shell=1" \
		-display none -no-reboot -serial mon:stdio $nic $icount $qemu_args
fi

case $log in *,*) die "log path must not contain commas (QEMU option syntax)" ;; esac
mkdir -p "$(dirname "$log")"
rm -f "$log"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nsight-run.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP

# boot LIMIT SERIAL-LOG CMDLINE: one boot; its exit status in rc.
boot() {
	rc=0
	# shellcheck disable=SC2086
	timeout -k 10 "$1" "$qemu" -accel tcg,thread=single -cpu max -smp "$smp" -m "$mem" \
		-kernel "$kernel" -initrd "$initrd" -append "$3" \
		-display none -no-reboot -monitor none -serial "file:$2" $nic $icount $qemu_args \
		</dev/null >"$tmp/qemu.out" 2>&1 || rc=$?
}

start=$(date +%s)
boot "$wall" "$log" "$cmdline"

# QEMU 7.2's TCG now and then double-faults the guest kernel in
# kmem_cache_alloc_node() under socket traffic, with or without the module
# (GUEST-NOTES.md). When a guest dies so, with no nsight frame in the
# oops, it boots once more (nsight_retry=1) for the test that was running
# and those after it; the log keeps both boots, the KTAP says so.
retry_note=
if [ $shell = 0 ] && ! grep -q 'NSIGHT-GUEST-DONE' "$log" 2>/dev/null &&
   grep -q 'traps: PANIC: double fault' "$log" 2>/dev/null &&
   ! sed -n '/traps: PANIC: double fault/,$p' "$log" | grep -q '\[nsight'; then
	tr -d '\r' <"$log" >"$tmp/boot1"
	sed -n '/NSIGHT-GUEST-START/,$p' "$tmp/boot1" >"$tmp/sec1"
	# The tests of the first boot, and those it gave a result for.
	all=$(sed -n 's/^# nsight-tests: *//p' "$tmp/sec1" | head -n 1)
	sed -n -E 's/^(not )?ok [0-9]+ - ([^ #]+).*/\2/p' "$tmp/sec1" >"$tmp/done1"
	left=
	for t in $all; do
		grep -q -x -F "${t%.sh}" "$tmp/done1" || left="$left,${t%.sh}"
	done
	left=${left#,}
	spent=$(($(date +%s) - start))
	if [ -n "$left" ] && [ $((wall - spent)) -gt 60 ]; then
		crashed=${left%%,*}
		mv "$log" "$log.boot1"
		retry_note="# run-guest: the guest double-faulted in $crashed (QEMU TCG, no nsight frame; GUEST-NOTES.md, log $log.boot1); booted again for: $left"
		echo "$prog: ${retry_note#\# run-guest: }" >&2
		boot $((wall - spent)) "$log.boot2" \
			"$(echo "$cmdline" | sed "s/nsight_tests=[^ ]*/nsight_tests=$left/") nsight_retry=1"
		# One log: the first boot's results, then the second boot's,
		# numbered on; the second boot's dmesg and end marker.
		ndone=$(wc -l <"$tmp/done1")
		last=$(grep -n -E '^(not )?ok [0-9]+ - ' "$tmp/boot1" | tail -n 1 | cut -d: -f1)
		{
			if [ -n "$last" ]; then
				sed -n "1,${last}p" "$tmp/boot1"
			else
				sed -n '1,/^# nsight-tests:/p' "$tmp/boot1"
			fi
			echo "$retry_note"
			tr -d '\r' <"$log.boot2" | sed -n '/^# nsight-tests:/,$p' | sed 1d |
				awk -v off="$ndone" '/^(not )?ok [0-9]+ - / {
					n = $1 == "not" ? 3 : 2
					$n = $n + off
				} { print }'
		} >"$log"
	fi
fi
elapsed=$(($(date +%s) - start))

fail=0
reasons=
reason() { reasons="$reasons$1
"; fail=1; }

[ -f "$log" ] || : >"$log"
tr -d '\r' <"$log" >"$tmp/log"
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	reason "timeout: QEMU killed after $wall s"
elif [ $rc -ne 0 ]; then
	reason "QEMU exited with status $rc: $(tail -n 5 "$tmp/qemu.out")"
fi
started=0 finished=0
grep -q 'NSIGHT-GUEST-START' "$tmp/log" && started=1
grep -q 'NSIGHT-GUEST-DONE' "$tmp/log" && finished=1
if [ $started = 0 ]; then
	reason "boot failure: the guest never started the tests"
elif [ $finished = 0 ]; then
	reason "the guest did not finish (crash or hang during the tests)"
fi

# dmesg section, or the whole log when the guest never got to dump it.
if grep -q '^---- dmesg ----$' "$tmp/log"; then
	sed -n '/^---- dmesg ----$/,/^---- end dmesg ----$/p' "$tmp/log" | sed '1d;$d' >"$tmp/dmesg"
	where="dmesg"
else
	cp "$tmp/log" "$tmp/dmesg"
	where="the serial log (no dmesg dump)"
fi
pat='BUG:|WARNING:|KASAN|Kernel panic|Oops|kernel BUG at|UBSAN:|possible recursive locking|circular locking dependency|sleeping function called from invalid context|inconsistent lock state|suspicious RCU usage|unreferenced object|Call Trace:'
if [ -n "$ignore" ]; then
	grep -E "$pat" "$tmp/dmesg" | grep -v -E "$ignore" >"$tmp/problems" || true
else
	grep -E "$pat" "$tmp/dmesg" >"$tmp/problems" || true
fi
nproblems=$(wc -l <"$tmp/problems")
if [ "$nproblems" -gt 0 ]; then
	reason "$nproblems kernel problem line(s) in $where"
	{
		echo "$prog: kernel problems in $where ($nproblems line(s)), with context:"
		# Context around each reported line (grep -C merges overlapping ranges).
		grep -n -F -x -f "$tmp/problems" -C 15 "$tmp/dmesg"
		echo "$prog: end of kernel problems"
	} >&2
fi

# KTAP: from the start marker to the dmesg dump (or the end of the log), with
# missing top-level results filled in and "dmesg clean" appended.
awk -v done="$finished" -v clean="$([ "$nproblems" -eq 0 ] && echo 1 || echo 0)" \
	-v why="$( [ $started = 1 ] && echo "guest did not finish" || echo "boot failure")" '
BEGIN { insec = 0; plan = -1; nres = 0; ntests = 0 }
/NSIGHT-GUEST-START/ { insec = 1; next }
insec && /^---- dmesg ----$/ { insec = 0; next }
!insec { next }
plan < 0 && /^1\.\.[0-9]+/ {
	plan = substr($0, 4) + 0
	print "1.." plan + 1
	next
}
/^# nsight-tests:/ {
	ntests = split(substr($0, 16), names, " ")
	for (i = 1; i <= ntests; i++) sub(/\.sh$/, "", names[i])
}
/^(not )?ok [0-9]+/ { nres++ }
{ print }
END {
	if (plan < 0) {
		# Nothing usable from the guest: a minimal document of our own.
		print "KTAP version 1"
		print "1..2"
		print "not ok 1 - boot # ERROR " why
		plan = 1
	} else if (!done) {
		for (i = nres + 1; i <= plan; i++)
			printf "not ok %d - %s # ERROR %s\n", i, (i <= ntests ? names[i] : "test " i), why
	}
	printf "%s %d - dmesg clean\n", clean ? "ok" : "not ok", plan + 1
}' "$tmp/log" >"$tmp/ktap"
cat "$tmp/ktap"

# Results filled in above ("# ERROR") are explained by the boot/finish reason.
failed_tests=$(grep -E '^not ok [0-9]+ - ' "$tmp/ktap" | grep -v -i -e '# SKIP' -e '# ERROR' |
	sed -E 's/^not ok [0-9]+ - //; s/ #.*//' | grep -v -x 'dmesg clean' | tr '\n' ' ' || true)
[ -z "$failed_tests" ] || reason "test failures: $failed_tests"
missing=$(grep -E '^not ok [0-9]+ - .* # ERROR' "$tmp/ktap" | grep -v -E '^not ok 1 - boot #' |
	sed -E 's/^not ok [0-9]+ - //; s/ #.*//' | tr '\n' ' ' || true)
[ -z "$missing" ] || reason "tests without a result: $missing"

set -- $("$here/ktap-count.sh" <"$tmp/ktap")
echo "$prog: $1 passed, $2 failed, $3 skipped; guest ran $elapsed s (log: $log)" >&2
if [ $fail = 1 ]; then
	printf '%s' "$reasons" | sed "s/^/$prog: FAIL: /" >&2
	if [ $started = 0 ] || [ $finished = 0 ]; then
		echo "$prog: last 40 lines of $log:" >&2
		tail -n 40 "$tmp/log" | sed 's/^/  | /' >&2
		[ ! -s "$tmp/qemu.out" ] || { echo "$prog: QEMU said:" >&2; sed 's/^/  | /' "$tmp/qemu.out" >&2; }
	fi
	exit 1
fi
exit 0
