#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make check: every suite, one summary line at the end.
#
#   userspace   unit tests of the library and tools (ASan + UBSan)
#   fuzz-regress  the libFuzzer targets (userspace/fuzz) over their corpus:
#               seeds and the inputs of every crash fixed
#   pt-bench    a smoke run of the Intel PT decoding benchmark
#   html        the HTML report in headless Chromium (scripts/check-html.sh)
#   packaging   make install, man --warnings, rst2html, bash completion,
#               DKMS against the installed kernels (scripts/check-packaging.sh)
#   fleet       the ClickHouse export and fleet queries against two real
#               clickhouse-server 18.16 shards on loopback (scripts/check-fleet.sh);
#               after guest-twohost, again with its six captures (fleet-twohost)
#   lint        checkpatch, sparse against Debian 6.12 and 6.1, the layers
#               of userspace/lib (scripts/check-layers.sh)
#   patches     each kernel patch in patches/ applies cleanly (dry run) to
#               the pinned linux-source-6.12 and is checkpatch clean
#               (scripts/check-patches.sh)
#   build       the module against Debian 6.12, 6.1 and the test kernel,
#               without warnings
#   guest-*     the selftests in QEMU guests: Debian 6.12, Debian 6.1, and
#               the test kernel (KUnit, KASAN, lockdep, kmemleak) which also
#               runs the KUnit suites; and the diagnosis scenarios
#               in two more Debian 6.12 guests under -icount (diag1 runs
#               selftests/nsight/2?-diag-*.sh, diag2 3?-diag-*.sh and all
#               of 43-tracecmd.sh, about equal halves), so that their timing
#               does not depend on the load of the host (guest time follows
#               executed instructions)
#   guest-twohost  two Debian 6.12 guests joined by a QEMU socket netdev,
#               the server's clock stepped and skewed, the client's egress
#               delayed; nsight-analyze --merge of their captures
#               (scripts/check-twohost.sh), after the other guests
#   guest-igb   one Debian 6.12 guest under QEMU 10 (bookworm-backports'
#               qemu-system-x86, fetched and cached by scripts/qemu-igb.sh;
#               skipped when it cannot be fetched) with an igb NIC:
#               selftests/nsight/*-igb.sh, the NIC hardware stamps of a
#               NIC that gives them (Debian 12's QEMU 7.2 has no igb)
#
# Logs and KTAP of each suite go to build/check/. The last line is
# "N passed, N failed, N skipped"; the exit status is 1 if anything failed.
#
# Environment: NSIGHT_GUESTS="deb612 deb61 test diag1 diag2 twohost igb" (which guests to boot),
# NSIGHT_TESTS="01-load 05-udp" (which guest tests, default all),
# NSIGHT_CACHE (the test kernel's and QEMU 10's cache, default /var/cache/nsight).
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
harness=$top/selftests/harness
out=$top/build/check
guests=${NSIGHT_GUESTS:-deb612 deb61 test diag1 diag2 twohost igb}
# take TAG: whether $guests names TAG, which then leaves it: a suite run
# on its own after the guests booted in parallel.
take() {
	case " $guests " in
	*" $1 "*) guests=$(echo " $guests " | sed "s/ $1 / /"); return 0 ;;
	esac
	return 1
}
twohost=
igb=
take twohost && twohost=1
take igb && igb=1
# Test lists: the diagnosis scenarios run in the "diag" guests only.
diag1_tests=$(cd "$top/selftests/nsight" && ls 2?-diag-*.sh | tr '\n' ' ')
# 43-tracecmd's scenario comparisons too (nsight_tracecmd_all=1 below):
# without -icount the host's load shows as the server's idle and queueing.
diag2_tests="$(cd "$top/selftests/nsight" && ls 3?-diag-*.sh | tr '\n' ' ')43-tracecmd.sh"
# The igb tests in the igb guest only (QEMU 10).
igb_tests=$(cd "$top/selftests/nsight" && ls [0-9]*-igb.sh | tr '\n' ' ')
other_tests=$(cd "$top/selftests/nsight" && ls [0-9]*.sh | grep -v -e '-diag-' -e '-igb\.sh' | tr '\n' ' ')
rm -rf "$out"
mkdir -p "$out"

pass=0 fail=0 skip=0
t0=$(date +%s)

# suite NAME KTAP-FILE: add its leaf results to the totals.
suite() {
	set -- "$1" "$2" $("$harness/ktap-count.sh" < "$2")
	pass=$((pass + $3)) fail=$((fail + $4)) skip=$((skip + $5))
	printf '%-14s %4d passed, %d failed, %d skipped\n' "$1:" "$3" "$4" "$5"
	if [ "$4" -gt 0 ]; then
		grep -E '^[[:space:]]*not ok' "$2" | sed 's/^[[:space:]]*/    /'
		failed_diagnostics "$2"
	fi
}

# failed_diagnostics KTAP-FILE: the first 30 diagnostic lines of each failed
# top-level test, so that a CI log that shows only this summary still says
# what the test saw.
failed_diagnostics() {
	awk '
	function flush(name, i) {
		print "    diagnostics of " name ":"
		for (i = 1; i <= nd && i <= 30; i++)
			print "      " d[i]
		if (nd > 30)
			print "      (" nd - 30 " more in the log)"
	}
	/^KTAP version/ { nd = 0; next }
	/^(not )?ok [0-9]+/ {
		if ($1 == "not") {
			name = $0
			sub(/^not ok [0-9]+ -? */, "", name)
			flush(name)
		}
		nd = 0
		next
	}
	/^[ \t]*# / {
		line = $0
		sub(/^[ \t]*# /, "", line)
		if (line !~ /^(nsight-tests:|kernel [0-9])/)
			d[++nd] = line
	}' "$1"
}

# one_result FILE NAME OK|FAIL [LOG]: a KTAP document with a single result.
one_result() {
	{
		echo "KTAP version 1"
		echo "1..1"
		if [ "$3" = OK ]; then
			echo "ok 1 - $2"
		else
			echo "not ok 1 - $2"
			[ -n "${4:-}" ] && tail -n 40 "$4" | sed 's/^/# /'
		fi
	} > "$1"
}

elapsed() { echo "$(( $(date +%s) - $1 )) s"; }

echo "== building userspace and test programs"
if make -s -C "$top/userspace" >"$out/build-userspace.log" 2>&1 &&
   make -s -C "$top/selftests" >>"$out/build-userspace.log" 2>&1; then
	one_result "$out/build-userspace.ktap" "userspace builds" OK
else
	one_result "$out/build-userspace.ktap" "userspace builds" FAIL "$out/build-userspace.log"
fi
suite build-user "$out/build-userspace.ktap"

echo "== userspace unit tests (ASan + UBSan)"
t=$(date +%s)
make -s -C "$top/userspace" test >"$out/userspace.ktap" 2>"$out/userspace.err" ||
	echo "not ok 999 - userspace test run ($(tail -n 1 "$out/userspace.err"))" >>"$out/userspace.ktap"
suite userspace "$out/userspace.ktap"
echo "   ($(elapsed $t))"

echo "== fuzz targets over their corpus (libFuzzer, ASan + UBSan)"
t=$(date +%s)
if ! make -s -C "$top/userspace" fuzz-regress >"$out/fuzz-regress.ktap" 2>"$out/fuzz-regress.err" &&
   ! grep -q '^not ok' "$out/fuzz-regress.ktap"; then
	one_result "$out/fuzz-regress.ktap" "fuzz targets build and run" FAIL "$out/fuzz-regress.err"
fi
suite fuzz-regress "$out/fuzz-regress.ktap"
echo "   ($(elapsed $t))"

echo "== Intel PT decoder bench, smoke run (2 MB synthesized)"
if make -s -C "$top/userspace" bench-pt PT_BENCH_ARGS="--size 2" >"$out/pt-bench.log" 2>&1; then
	one_result "$out/pt-bench.ktap" "pt decoder bench smoke" OK
else
	one_result "$out/pt-bench.ktap" "pt decoder bench smoke" FAIL "$out/pt-bench.log"
fi
suite pt-bench "$out/pt-bench.ktap"
tail -n 3 "$out/pt-bench.log" | sed 's/^/   /'

echo "== HTML report in headless Chromium"
t=$(date +%s)
"$top/scripts/check-html.sh" >"$out/html.ktap" 2>"$out/html.err"
suite html "$out/html.ktap"
echo "   ($(elapsed $t))"

echo "== packaging: install, man pages, docutils, completion, DKMS"
t=$(date +%s)
"$top/scripts/check-packaging.sh" >"$out/packaging.ktap" 2>"$out/packaging.err"
suite packaging "$out/packaging.ktap"
echo "   ($(elapsed $t))"

echo "== fleet view: two ClickHouse shards on loopback"
t=$(date +%s)
"$top/scripts/check-fleet.sh" "$out" >"$out/fleet.ktap" 2>"$out/fleet.err"
suite fleet "$out/fleet.ktap"
echo "   ($(elapsed $t))"

echo "== lint"
"$top/scripts/lint.sh" >"$out/lint.ktap" 2>&1
suite lint "$out/lint.ktap"

echo "== kernel patches against linux-source-6.12"
"$top/scripts/check-patches.sh" >"$out/patches.ktap" 2>&1
suite patches "$out/patches.ktap"

echo "== test kernel (cached in ${NSIGHT_CACHE:-/var/cache/nsight})"
t=$(date +%s)
if tk=$("$harness/build-test-kernel.sh" 2>"$out/test-kernel.log"); then
	one_result "$out/test-kernel.ktap" "test kernel available" OK
else
	one_result "$out/test-kernel.ktap" "test kernel builds" FAIL "$out/test-kernel.log"
	tk=
fi
suite test-kernel "$out/test-kernel.ktap"
echo "   ($(elapsed $t))"

echo "== module builds"
targets=
for tag in deb612 deb61 test; do
	d=$(kdir_of $tag 2>/dev/null) && [ -n "$d" ] && targets="$targets $tag=$d"
done
"$top/scripts/build-modules.sh" $targets >"$out/modules.list" 2>"$out/modules.log"
{
	echo "KTAP version 1"
	echo "1..3"
	i=0
	for tag in deb612 deb61 test; do
		i=$((i + 1))
		if grep -q "^$tag " "$out/modules.list"; then
			echo "ok $i - module builds without warnings against $tag"
		else
			echo "not ok $i - module builds without warnings against $tag"
		fi
	done
	sed 's/^/# /' "$out/modules.log"
} >"$out/modules.ktap"
suite build "$out/modules.ktap"

# guest TAG: build the initramfs and boot the guest in the background.
guest() {
	tag=$1
	tests=${NSIGHT_TESTS:-$other_tests}
	icount=
	# 15-load's 10,000 sysfs start/stop cycles take about 5 min under TCG:
	# the full count runs on Debian 6.12, whose guest finishes well before
	# the debug kernel's; the slower kernels run fewer.
	case $tag in
	deb612) toggles=10000 ;;
	deb61) toggles=2000 ;;
	*) toggles=1000 ;;
	esac
	case $tag in
	diag1 | diag2)
		# Debian 6.12 under -icount (Debian 6.1 does not boot with it here,
		# and the debug kernel's RCU stalls under it).
		[ $tag = diag1 ] && tests=${NSIGHT_TESTS:-$diag1_tests} ||
			tests=${NSIGHT_TESTS:-$diag2_tests}
		tag=deb612
		icount=--icount
		;;
	esac
	ko=$(awk -v t="$tag" '$1 == t {print $2}' "$out/modules.list")
	testko=$(awk -v t="$tag" '$1 == t {print $3}' "$out/modules.list")
	case $tag in
	test)
		[ -n "$tk" ] || return 1
		kernel=$tk/bzImage
		kver=$(cat "$tk/release")
		;;
	*)
		kver=$(basename "$(dirname "$(kdir_of $tag)")")
		kernel=/boot/vmlinuz-$kver
		;;
	esac
	[ -n "$ko" ] && [ -r "$kernel" ] || return 1
	guest_initramfs "$out/guest-$1.cpio.gz" "$kver" "$ko" "$testko" \
		2>"$out/guest-$1.err" || return 1
	# The wall limit leaves room for a slower host: here the longest guest
	# runs about 1,300 s, on one CI machine TCG ran the same guest 2.5
	# times slower; 4,200 s plus the other suites stay inside CI's 90 min.
	"$harness/run-guest.sh" --kernel "$kernel" --initrd "$out/guest-$1.cpio.gz" \
		--log "$out/guest-$1.serial.log" --tests "$tests" --timeout 4200 \
		--test-timeout 1500 --append "tsc=reliable nsight_toggle_count=$toggles" \
		${icount:+--append nsight_tracecmd_all=1} $icount \
		--qemu-args "-netdev user,id=n0 -device e1000e,netdev=n0" \
		>"$out/guest-$1.ktap" 2>>"$out/guest-$1.err"
}

echo "== guests: $guests (in parallel; serial logs in build/check/)"
t=$(date +%s)
pids=
for tag in $guests; do
	( guest "$tag" || [ -s "$out/guest-$tag.ktap" ] ||
	  one_result "$out/guest-$tag.ktap" "guest $tag boots and runs" FAIL \
		"$out/guest-$tag.err" ) &
	pids="$pids $!"
done
wait $pids
for tag in $guests; do
	[ -s "$out/guest-$tag.ktap" ] ||
		one_result "$out/guest-$tag.ktap" "guest $tag" FAIL "$out/guest-$tag.err"
	suite "guest-$tag" "$out/guest-$tag.ktap"
	# Each guest's wall time, so that a CI log that shows only this summary
	# still says which guest is the long pole on that machine.
	ran=$(sed -n 's/.*; guest ran \([0-9]*\) s.*/\1/p' "$out/guest-$tag.err" | tail -n 1)
	[ -z "$ran" ] || echo "   (guest-$tag ran $ran s)"
	grep -h '^# run-guest: ' "$out/guest-$tag.ktap" | sed 's/^# /   /' || true
done
echo "   ($(elapsed $t))"

if [ -n "$twohost" ]; then
	echo "== two guests: nsight-analyze --merge (build/check/twohost/)"
	t=$(date +%s)
	"$top/scripts/check-twohost.sh" "$out" "$(awk '$1 == "deb612" {print $2}' "$out/modules.list")" \
		>"$out/guest-twohost.ktap" 2>"$out/guest-twohost.err"
	suite guest-twohost "$out/guest-twohost.ktap"
	echo "   ($(elapsed $t))"

	# The fleet view again, with the guests' captures of the two-host
	# test (three scenarios, client and server) among the synthetic ones.
	caps=
	for c in "$out"/twohost/*/client.nsight "$out"/twohost/*/server.nsight; do
		[ -s "$c" ] || continue
		s=${c%/*}
		caps="$caps ${s##*/}-$(basename "$c" .nsight)=$c"
	done
	if [ -n "$caps" ]; then
		echo "== fleet view with the two-host test's captures"
		t=$(date +%s)
		NSIGHT_FLEET_CAPTURES="$caps" "$top/scripts/check-fleet.sh" "$out/twohost" \
			>"$out/fleet-twohost.ktap" 2>"$out/fleet-twohost.err"
		suite fleet-twohost "$out/fleet-twohost.ktap"
		echo "   ($(elapsed $t))"
	fi
fi

# guest_igb KTAP-FILE: the igb guest, Debian 6.12 under QEMU 10; skipped
# when scripts/qemu-igb.sh cannot fetch QEMU 10.
guest_igb() {
	"$top/scripts/qemu-igb.sh" >"$out/qemu-igb.paths" 2>"$out/qemu-igb.err"
	case $? in
	0) ;;
	2)
		printf 'KTAP version 1\n1..1\nok 1 - guest igb # SKIP QEMU 10 not available: %s\n' \
			"$(head -n 1 "$out/qemu-igb.err")" >"$1"
		return 0
		;;
	*)
		one_result "$1" "QEMU 10 from bookworm-backports runs, with igb" FAIL "$out/qemu-igb.err"
		return 0
		;;
	esac
	qemu=$(awk '$1 == "qemu" {print $2}' "$out/qemu-igb.paths")
	moddir=$(awk '$1 == "module-dir" {print $2}' "$out/qemu-igb.paths")
	datadir=$(awk '$1 == "data-dir" {print $2}' "$out/qemu-igb.paths")
	ko=$(awk '$1 == "deb612" {print $2}' "$out/modules.list")
	testko=$(awk '$1 == "deb612" {print $3}' "$out/modules.list")
	kver=$(basename "$(dirname "$(kdir_of deb612)")")
	if [ -z "$ko" ] || [ ! -r "/boot/vmlinuz-$kver" ] ||
	   ! guest_initramfs "$out/guest-igb.cpio.gz" "$kver" "$ko" "$testko" --kmods igb \
		2>"$out/guest-igb.err"; then
		one_result "$1" "guest igb: Debian 6.12's module and initramfs" FAIL "$out/guest-igb.err"
		return 0
	fi
	QEMU=$qemu QEMU_MODULE_DIR=$moddir "$harness/run-guest.sh" --kernel "/boot/vmlinuz-$kver" \
		--initrd "$out/guest-igb.cpio.gz" --log "$out/guest-igb.serial.log" --tests "$igb_tests" \
		--timeout 1200 --test-timeout 900 --append tsc=reliable \
		--qemu-args "-L $datadir -netdev user,id=n0 -device igb,netdev=n0" \
		>"$1" 2>>"$out/guest-igb.err"
	[ -s "$1" ] || one_result "$1" "guest igb boots and runs" FAIL "$out/guest-igb.err"
}

if [ -n "$igb" ]; then
	echo "== igb guest: NIC hardware stamps under QEMU 10 (scripts/qemu-igb.sh)"
	t=$(date +%s)
	guest_igb "$out/guest-igb.ktap"
	suite guest-igb "$out/guest-igb.ktap"
	sed -n 's/^qemu /   QEMU 10: /p' "$out/qemu-igb.paths"
	echo "   ($(elapsed $t))"
fi

echo "== total wall time $(elapsed $t0)"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
