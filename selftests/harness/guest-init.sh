#!/bin/sh
# /init of the nsight test guest (busybox sh, PID 1). Installed by mkinitramfs.sh.
#
# Kernel command-line variables (unknown key=value words reach /init as
# environment variables):
#   nsight_tests=a,b | all | none  tests in /tests to run, comma/space separated,
#                          with or without .sh; all (default) = every executable
#                          /tests/[0-9]*.sh in sorted order
#   nsight_timeout=SECONDS per-test timeout (default 300)
#   nsight_shell=1         after the tests, start a shell instead of rebooting
#   nsight_loglevel=N      console log level during the tests (default 1: kernel
#                          messages would interleave with the KTAP output; they
#                          are dumped from dmesg at the end anyway, and oopses
#                          and panics still reach the console)
#   nsight_kmemleak=0      skip the kmemleak scans at the end (kernels with
#                          kmemleak: ~7-10 s); =boot also forgets leaks
#                          suspected before the tests
#
# Output on the console: NSIGHT-GUEST-START, a KTAP document with one result
# per test (the scripts print their own subtests, indented), the dmesg between
# "---- dmesg ----" and "---- end dmesg ----", then NSIGHT-GUEST-DONE.
# Every test runs as `sh /tests/NAME` with NSIGHT_KO, NSIGHT_LIB, KVER and the
# nsight_* variables in its environment; exit 0 = ok, 4 = skip, else not ok.

PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t debugfs debugfs /sys/kernel/debug
[ -d /sys/kernel/tracing ] && mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=755 tmpfs /run
hostname nsight-guest
/sbin/ip link set lo up

NSIGHT_KO=${NSIGHT_KO:-/lib/nsight/nsight.ko}
NSIGHT_LIB=/lib/nsight/lib.sh
KVER=$(uname -r)
HOME=/root
export NSIGHT_KO NSIGHT_LIB KVER HOME

timeout_s=${nsight_timeout:-300}
case $timeout_s in ''|*[!0-9]*) timeout_s=300 ;; esac
modname=${NSIGHT_KO##*/}
modname=${modname%%.ko*}

dmesg -n "${nsight_loglevel:-1}" 2>/dev/null

# kmemleak reports an object only from its second scan on (the first one
# records a checksum) and only once it is 5 s old; a scan takes ~3.5 s on
# the test kernel under TCG. The test kernel's boot leaked nothing, so by
# default no scan before the tests; nsight_kmemleak=boot scans twice and
# clears the suspects first (+7 s).
kmemleak=
if [ "${nsight_kmemleak:-1}" != 0 ] && [ -w /sys/kernel/debug/kmemleak ]; then
	kmemleak=/sys/kernel/debug/kmemleak
	if [ "$nsight_kmemleak" = boot ]; then
		echo scan >$kmemleak
		echo scan >$kmemleak
		echo clear >$kmemleak
	fi
fi

# Resolve the test list.
want=$(echo "${nsight_tests:-all}" | tr ',' ' ')
list=
case $want in
all)
	for f in /tests/[0-9]*.sh; do
		[ -f "$f" ] && [ -x "$f" ] && list="$list ${f##*/}"
	done ;;
none) ;;
*)
	for t in $want; do
		if [ ! -f "/tests/$t" ] && [ -f "/tests/$t.sh" ]; then t=$t.sh; fi
		list="$list $t"
	done ;;
esac
set -- $list

echo "NSIGHT-GUEST-START"
echo "KTAP version 1"
echo "1..$#"
echo "# nsight-tests:$list"
echo "# kernel $KVER, up $(cut -d' ' -f1 /proc/uptime) s, per-test timeout ${timeout_s} s"

i=0
for t in "$@"; do
	i=$((i + 1))
	name=${t%.sh}
	if [ ! -f "/tests/$t" ]; then
		echo "# $name: no such test in /tests"
		echo "not ok $i - $name"
		continue
	fi
	start=$(date +%s)
	# setsid: the test becomes leader of its own process group (pgid = pid),
	# so whatever it leaves running, even after a timeout, can be killed.
	(cd /tmp && exec timeout -k 10 "$timeout_s" setsid sh "/tests/$t") &
	pid=$!
	# (2>/dev/null: the shell's "Killed"/"Terminated" job notice)
	wait $pid 2>/dev/null
	rc=$?
	kill -KILL "-$pid" 2>/dev/null
	end=$(date +%s)
	dur=$((end - start))

	# Leftovers would make the next test fail for the wrong reason.
	if grep -q "^$modname " /proc/modules 2>/dev/null; then
		echo "# $name left $modname loaded; unloading it"
		/sbin/rmmod "$modname" 2>&1 | sed 's/^/# /'
	fi
	if [ -n "$(/sbin/ip netns list 2>/dev/null)" ]; then
		echo "# $name left network namespaces:" $(/sbin/ip netns list | cut -d' ' -f1) "; deleting them"
		/sbin/ip -all netns delete 2>&1 | sed 's/^/# /'
	fi

	echo "# $name: exit $rc after $dur s"
	case $rc in
	0) echo "ok $i - $name" ;;
	4) echo "ok $i - $name # SKIP" ;;
	*)
		# timeout sends TERM (143), then KILL (137) ten seconds later.
		if [ $dur -ge "$timeout_s" ] && { [ $rc -eq 143 ] || [ $rc -eq 137 ] || [ $rc -eq 124 ]; }; then
			echo "not ok $i - $name # TIMEOUT after $timeout_s s"
		else
			echo "not ok $i - $name"
		fi ;;
	esac
done

if [ -n "$kmemleak" ]; then
	echo scan >$kmemleak
	# Let what the last test allocated reach the 5 s minimum age.
	age=$(($(date +%s) - ${end:-0}))
	[ $age -ge 6 ] || sleep $((6 - age))
	echo scan >$kmemleak
fi
echo "---- dmesg ----"
dmesg
if [ -n "$kmemleak" ]; then
	echo "---- kmemleak ----"
	cat $kmemleak
fi
echo "---- end dmesg ----"
echo "NSIGHT-GUEST-DONE"
sync

if [ "${nsight_shell:-0}" = 1 ]; then
	dmesg -n 7
	echo "nsight_shell=1: starting a shell; exit it to power off"
	setsid cttyhack sh -l
fi
reboot -f
# reboot -f should not return; PID 1 must never exit (that panics).
while :; do sleep 3600; done
