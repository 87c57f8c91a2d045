#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kernel patches in patches/ (see patches/README): each one applies
# cleanly, in name order, to a fresh unpack of the pinned kernel source
# (/usr/src/linux-source-6.12.tar.xz: only the files the series touches are
# unpacked; each patch is tried with --dry-run, then applied so that the
# next one sees it), is checkpatch clean (--strict), and patches/README
# names the source version they apply to. Prints KTAP.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
tarball=/usr/src/linux-source-6.12.tar.xz
n=0
failed=0

set -- "$top"/patches/*.patch
[ -e "$1" ] || set --
echo "KTAP version 1"
echo "1..$((2 * $# + 1))"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log=$tmp/log

ver=$(dpkg-query -W -f '${Version}' linux-source-6.12 2>/dev/null)
if [ -n "$ver" ] && grep -qF "$ver" "$top/patches/README"; then
	ktap_result OK "patches/README names linux-source-6.12 $ver"
else
	echo "installed linux-source-6.12: ${ver:-none}" >"$log"
	ktap_result FAIL "patches/README names the installed linux-source-6.12 version" "$(cat "$log")"
fi
[ $# -gt 0 ] || exit $failed

# The pristine files the series modifies (new files are not in the tarball).
sed -n 's|^--- a/|linux-source-6.12/|p' "$@" | sed 's/\t.*//' | sort -u >"$tmp/files"
mkdir "$tmp/src"
if ! tar -C "$tmp/src" --strip-components=1 -xf "$tarball" -T "$tmp/files" 2>"$log"; then
	echo "(cannot unpack the touched files of $tarball)" >>"$log"
	unpacked=0
else
	unpacked=1
fi
cp=$(checkpatch_pl) || cp=
for p in "$@"; do
	name=${p##*/}
	if [ $unpacked = 1 ] &&
	   (cd "$tmp/src" && patch -p1 --dry-run --batch --forward --fuzz=0 <"$p" &&
	    patch -p1 --batch --forward --fuzz=0 --quiet <"$p") >"$log" 2>&1; then
		ktap_result OK "$name applies to linux-source-6.12 $ver"
	else
		ktap_result FAIL "$name applies to linux-source-6.12 $ver" "$(cat "$log")"
	fi
	if [ -n "$cp" ] && perl "$cp" --no-tree --strict --terse "$p" >"$log" 2>&1; then
		ktap_result OK "$name: checkpatch --strict clean"
	else
		[ -n "$cp" ] || echo "cannot extract checkpatch.pl from $tarball" >"$log"
		ktap_result FAIL "$name: checkpatch --strict clean" "$(cat "$log")"
	fi
done
exit $failed
