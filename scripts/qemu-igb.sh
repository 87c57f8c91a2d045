#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# QEMU 10 for the igb guest (suite guest-igb of make check). Debian 12's
# QEMU 7.2 has no igb; bookworm-backports' QEMU 10.0.2 has one whose TX
# hardware stamps are real. This fetches qemu-system-x86, qemu-system-common
# and qemu-system-data of the version pinned below with an apt setup of its
# own (a sources list naming only bookworm-backports, its own package lists
# and download cache, no lock: the system's apt state and its QEMU are
# left alone), unpacks them (dpkg -x) into NSIGHT_CACHE/qemu-VERSION
# (default /var/cache/nsight; reused when present, fetched when absent),
# checks that the emulator runs and has igb, and prints:
#
#   qemu PATH         the emulator
#   module-dir PATH   its modules (QEMU_MODULE_DIR)
#   data-dir PATH     its firmware and option ROMs (-L)
#
# Exit 0; 2 if the packages cannot be fetched (no network: the caller
# skips the suite), 1 if the unpacked emulator does not run or has no igb;
# the reason on stderr. NSIGHT_DEBIAN_MIRROR replaces deb.debian.org.
set -u

VERSION=1:10.0.2+ds-2+deb13u1~bpo12+1
PKGS="qemu-system-x86 qemu-system-common qemu-system-data"
MIRROR=${NSIGHT_DEBIAN_MIRROR:-http://deb.debian.org/debian}

prog="qemu-igb"
dir=${NSIGHT_CACHE:-/var/cache/nsight}/qemu-${VERSION#*:}
qemu=$dir/usr/bin/qemu-system-x86_64
moddir=$dir/usr/lib/x86_64-linux-gnu/qemu
datadir=$dir/usr/share/qemu

# fetch: download and unpack into $dir (through a directory of this run's
# own, renamed into place at the end, so that an interrupted fetch leaves
# nothing half unpacked and two runs do not meet).
fetch() {
	work=$dir.tmp.$$
	rm -rf "$work"
	mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs" "$work/root" || {
		echo "$prog: cannot make $work" >&2
		return 1
	}
	trap 'rm -rf "$work"' EXIT
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR bookworm-backports main" \
		>"$work/sources.list"
	set -- -o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o Debug::NoLocking=1
	pins=
	for p in $PKGS; do
		pins="$pins $p=$VERSION"
	done
	# apt-get update exits 0 when some indexes failed; download is the test.
	apt-get -q "$@" update >"$work/apt.log" 2>&1
	# shellcheck disable=SC2086
	if ! (cd "$work/debs" && apt-get -q "$@" download $pins) >>"$work/apt.log" 2>&1; then
		echo "$prog: cannot fetch$pins from $MIRROR bookworm-backports:" >&2
		grep -E '^(E|W|Err):' "$work/apt.log" | tail -n 5 >&2
		return 2
	fi
	for deb in "$work"/debs/*.deb; do
		dpkg -x "$deb" "$work/root" || {
			echo "$prog: dpkg -x $deb failed" >&2
			return 1
		}
	done
	# Another run may have put it in place meanwhile: then its copy stays.
	mv -T "$work/root" "$dir" 2>/dev/null || [ -x "$qemu" ] || {
		echo "$prog: cannot move the unpacked packages to $dir" >&2
		return 1
	}
}

if [ ! -x "$qemu" ]; then
	fetch || exit $?
fi
if ! v=$(QEMU_MODULE_DIR=$moddir "$qemu" --version 2>&1); then
	echo "$prog: $qemu --version failed: $v" >&2
	exit 1
fi
case $v in
"QEMU emulator version 10.0.2 "*) ;;
*)
	echo "$prog: $qemu is not the pinned $VERSION: $(echo "$v" | head -n 1)" >&2
	exit 1
	;;
esac
# (-device help would load every module, some of which are in packages
# not fetched, and then QEMU falls back to the system's 7.2 modules.)
if ! QEMU_MODULE_DIR=$moddir "$qemu" -L "$datadir" -device igb,help 2>&1 | grep -q '^igb options:'; then
	echo "$prog: $qemu has no igb device" >&2
	exit 1
fi
echo "qemu $qemu"
echo "module-dir $moddir"
echo "data-dir $datadir"
