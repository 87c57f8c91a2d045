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
