#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build nsight.ko (and the selftests' test module) against several kernels,
# each in its own copy of the sources under build/kmod/<tag>/, and fail on
# any compiler warning.
#
#   scripts/build-modules.sh [TAG=KDIR ...]
#
# Without arguments: deb612 and deb61 (the installed Debian headers), and
# "test" when the test kernel is cached (build-test-kernel.sh --path).
# Prints "TAG PATH-TO-nsight.ko PATH-TO-nsight_busywork.ko" per kernel (the
# other test modules, nsight_slowpath.ko and nsight_wpbench.ko, are beside
# nsight_busywork.ko).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"

default_targets() {
	for tag in deb612 deb61 test; do
		d=$(kdir_of $tag 2>/dev/null) && [ -n "$d" ] && echo "$tag=$d"
	done
	true
}

[ $# -gt 0 ] || set -- $(default_targets)
[ $# -gt 0 ] || { echo "build-modules: no kernel build trees (run make deps)" >&2; exit 1; }

fail=0
for t in "$@"; do
	tag=${t%%=*}
	kdir=${t#*=}
	out=$top/build/kmod/$tag
	stage_module_tree "$out"
	if ! { make -s -C "$kdir" M="$out" modules &&
	       make -s -C "$kdir" M="$out/testmod" modules; } >"$out/build.log" 2>&1; then
		echo "build-modules: $tag: build failed:" >&2
		cat "$out/build.log" >&2
		fail=1
		continue
	fi
	if grep -q 'warning:' "$out/build.log"; then
		echo "build-modules: $tag: warnings:" >&2
		cat "$out/build.log" >&2
		fail=1
		continue
	fi
	echo "$tag $out/module/nsight.ko $out/testmod/nsight_busywork.ko"
done
exit $fail
