# SPDX-License-Identifier: GPL-2.0
# Shared helpers of the host-side scripts (sourced).

# stage_module_tree DIR: copy the module sources (not build products) to
# DIR, so several kernels can be built side by side; the selftests' test
# module goes to DIR/testmod.
stage_module_tree() {
	mkdir -p "$1"
	rsync -a --delete --include '*/' --exclude '*.mod.c' \
		--include '*.[ch]' --include 'Kbuild' --exclude '*' \
		"$top/Kbuild" "$top/module" "$top/uapi" "$1/"
	rsync -a --delete --include '*.[ch]' --include 'Kbuild' --exclude '*' \
		"$top/selftests/modules/" "$1/testmod/"
}

# kdir_of TAG: the build tree of a supported kernel (deb612, deb61, test).
kdir_of() {
	case $1 in
	deb612) ls -d /lib/modules/6.12.*-amd64/build 2>/dev/null | tail -n 1 ;;
	deb61) ls -d /lib/modules/6.1.*-amd64/build 2>/dev/null | tail -n 1 ;;
	test) d=$("$top/selftests/harness/build-test-kernel.sh" --path) && echo "$d/obj" ;;
	*) return 1 ;;
	esac
}

# guest_initramfs OUT KVER NSIGHT_KO TEST_KO [MKINITRAMFS-ARGS...]: the
# guests' initramfs (the module, the test modules beside TEST_KO, the tools,
# the test programs, the real servers and load generators from Debian
# (memcached, sockperf, redis-server and redis-benchmark, nginx, wrk), tc
# with sch_netem and sch_tbf for loss and shaping, linuxptp's hwstamp_ctl
# (an outside view of a NIC's timestamping setting), hwts_tx (a NIC's TX
# stamps against a capture's),
# selftests/nsight and whatever the further arguments add) for kernel KVER,
# written to OUT.
guest_initramfs() {
	_sp=$top/build/selftests
	_gi_out=$1 _gi_kver=$2 _gi_ko=$3 _gi_testko=$4
	shift 4
	"$top/selftests/harness/mkinitramfs.sh" --out "$_gi_out" --kver "$_gi_kver" \
		--kmods "veth e1000e sch_netem sch_tbf" --file "$_gi_ko:/lib/nsight/nsight.ko" \
		--file "$_gi_testko:/lib/nsight/nsight_busywork.ko" \
		--file "${_gi_testko%/*}/nsight_slowpath.ko:/lib/nsight/nsight_slowpath.ko" \
		--file "${_gi_testko%/*}/nsight_wpbench.ko:/lib/nsight/nsight_wpbench.ko" \
		--file "${_gi_testko%/*}/nsight_hookbench.ko:/lib/nsight/nsight_hookbench.ko" \
		--bin "$top/userspace/nsightctl" --bin "$top/userspace/nsight-analyze" \
		--bin "$_sp/udp_pair" --bin "$_sp/run_as" --bin "$_sp/nl_probe" \
		--bin "$_sp/write_file" --bin "$_sp/nl_fuzz" --bin "$_sp/toggle" \
		--bin "$_sp/msgload" --bin "$_sp/tsc_pairs" --bin "$_sp/clock_churn" \
		--bin "$_sp/hog" --bin "$_sp/trace_check" --bin "$_sp/recloop" \
		--bin "$_sp/handoff_ts" --bin "$_sp/relay_drain" --bin "$_sp/twostage" \
		--bin /usr/bin/trace-cmd \
		--bin /usr/bin/memcached --bin /usr/bin/sockperf --bin /usr/bin/redis-server \
		--bin /usr/bin/redis-benchmark --bin /usr/bin/redis-cli --bin /usr/sbin/nginx \
		--bin /usr/bin/wrk --bin /usr/bin/stress-ng --bin /usr/sbin/tc \
		--bin /usr/sbin/hwstamp_ctl --bin "$_sp/hwts_tx" \
		--tests "$top/selftests/nsight" "$@"
}

# checkpatch_pl: print the path of checkpatch.pl from linux-source-6.12,
# extracted once into $NSIGHT_CACHE (default /var/cache/nsight).
checkpatch_pl() {
	cache=${NSIGHT_CACHE:-/var/cache/nsight}
	ver=$(dpkg-query -W -f '${Version}' linux-source-6.12 2>/dev/null) || return 1
	dir=$cache/checkpatch-$ver
	if [ ! -x "$dir/scripts/checkpatch.pl" ]; then
		mkdir -p "$dir.tmp"
		tar -C "$dir.tmp" --strip-components=1 -xf /usr/src/linux-source-6.12.tar.xz \
			linux-source-6.12/scripts/checkpatch.pl \
			linux-source-6.12/scripts/spelling.txt \
			linux-source-6.12/scripts/const_structs.checkpatch || return 1
		rm -rf "$dir"
		mv "$dir.tmp" "$dir"
	fi
	echo "$dir/scripts/checkpatch.pl"
}

# ktap_result OK|FAIL NAME [DETAIL]: one KTAP result line, numbered by the
# caller's $n (incremented); FAIL sets the caller's failed=1. DETAIL (text,
# such as a log's tail) follows as "# " lines, whatever the result.
ktap_result() {
	n=$((n + 1))
	if [ "$1" = OK ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=1
	fi
	[ -z "${3:-}" ] || printf '%s\n' "$3" | sed 's/^/# /'
}
