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

# guest_initramfs OUT KVER NSIGHT_KO TEST_KO: the guests' initramfs (the
# module, the test modules beside TEST_KO, the tools, the test programs,
# memcached and selftests/nsight) for kernel KVER, written to OUT.
guest_initramfs() {
	_sp=$top/build/selftests
	"$top/selftests/harness/mkinitramfs.sh" --out "$1" --kver "$2" \
		--kmods "veth e1000e" --file "$3:/lib/nsight/nsight.ko" \
		--file "$4:/lib/nsight/nsight_busywork.ko" \
		--file "${4%/*}/nsight_slowpath.ko:/lib/nsight/nsight_slowpath.ko" \
		--bin "$top/userspace/nsightctl" --bin "$top/userspace/nsight-analyze" \
		--bin "$_sp/udp_pair" --bin "$_sp/run_as" --bin "$_sp/nl_probe" \
		--bin "$_sp/write_file" --bin "$_sp/nl_fuzz" --bin "$_sp/toggle" \
		--bin "$_sp/msgload" --bin "$_sp/tsc_pairs" --bin "$_sp/clock_churn" \
		--bin "$_sp/hog" --bin "$_sp/trace_check" --bin "$_sp/recloop" \
		--bin /usr/bin/memcached --tests "$top/selftests/nsight"
}
