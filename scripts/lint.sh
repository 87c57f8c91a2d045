#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Kernel-style checks of the module: checkpatch.pl (from linux-source-6.12,
# cached) and sparse (C=2) against each Debian kernel; and the layers of
# userspace/lib (scripts/check-layers.sh). Prints KTAP.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
n=0
failed=0

echo "KTAP version 1"
echo "1..4"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

if cp=$(checkpatch_pl); then
	# shellcheck disable=SC2046
	if perl "$cp" --no-tree --strict --terse --show-types \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG -f \
		$(find "$top/module" "$top/uapi" "$top/selftests/modules" -name '*.[ch]' ! -name '*.mod.c' | sort) >"$log" 2>&1; then
		ktap_result OK "checkpatch"
	else
		ktap_result FAIL "checkpatch" "$(cat "$log")"
	fi
else
	echo "# cannot extract checkpatch.pl from linux-source-6.12" >"$log"
	ktap_result FAIL "checkpatch" "$(cat "$log")"
fi

for tag in deb612 deb61; do
	kdir=$(kdir_of $tag)
	out=$top/build/sparse/$tag
	stage_module_tree "$out"
	if [ -z "$kdir" ]; then
		echo "# no headers for $tag" >"$log"
		ktap_result FAIL "sparse $tag" "$(cat "$log")"
	elif { make -s -C "$kdir" M="$out" C=2 CHECK="sparse" modules &&
	       make -s -C "$kdir" M="$out/testmod" C=2 CHECK="sparse" modules; } >"$log" 2>&1 &&
	     ! grep -E "^$out/.*(warning|error):" "$log" >/dev/null; then
		ktap_result OK "sparse $tag"
	else
		ktap_result FAIL "sparse $tag" "$(cat "$log")"
	fi
done

if "$top/scripts/check-layers.sh" >"$log" 2>&1; then
	ktap_result OK "userspace/lib layers"
else
	ktap_result FAIL "userspace/lib layers" "$(cat "$log")"
fi
exit $failed
