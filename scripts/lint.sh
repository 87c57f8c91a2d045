#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Kernel-style checks of the module: checkpatch.pl (from linux-source-6.12,
# cached) and sparse (C=2) against each Debian kernel. Prints KTAP.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
cache=${NSIGHT_CACHE:-/var/cache/nsight}
n=0
failed=0

result() {	# result OK|FAIL name [logfile]
	n=$((n + 1))
	if [ "$1" = OK ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		[ -n "${3:-}" ] && sed 's/^/# /' "$3"
		failed=1
	fi
}

checkpatch() {
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

echo "KTAP version 1"
echo "1..3"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

if cp=$(checkpatch); then
	# shellcheck disable=SC2046
	if perl "$cp" --no-tree --strict --terse --show-types \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG -f \
		$(find "$top/module" "$top/uapi" "$top/selftests/modules" -name '*.[ch]' ! -name '*.mod.c' | sort) >"$log" 2>&1; then
		result OK "checkpatch"
	else
		result FAIL "checkpatch" "$log"
	fi
else
	echo "# cannot extract checkpatch.pl from linux-source-6.12" >"$log"
	result FAIL "checkpatch" "$log"
fi

for tag in deb612 deb61; do
	kdir=$(kdir_of $tag)
	out=$top/build/sparse/$tag
	stage_module_tree "$out"
	if [ -z "$kdir" ]; then
		echo "# no headers for $tag" >"$log"
		result FAIL "sparse $tag" "$log"
	elif { make -s -C "$kdir" M="$out" C=2 CHECK="sparse" modules &&
	       make -s -C "$kdir" M="$out/testmod" C=2 CHECK="sparse" modules; } >"$log" 2>&1 &&
	     ! grep -E "^$out/.*(warning|error):" "$log" >/dev/null; then
		result OK "sparse $tag"
	else
		result FAIL "sparse $tag" "$log"
	fi
done
exit $failed
