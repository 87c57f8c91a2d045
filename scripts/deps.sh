#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install every Debian package the build, the tests and the demo need.
#   scripts/deps.sh               apt-get update + install
#   scripts/deps.sh --if-missing  only when something is not installed yet
#   scripts/deps.sh --list        print the package list
# With NSIGHT_BENCH=1, also what make bench alone needs (bpftrace, for the
# eBPF column of the overhead table: it pulls in about 200 MB of LLVM).
set -eu

PKGS="
build-essential pkg-config
linux-image-6.12-amd64 linux-headers-6.12-amd64
linux-image-amd64 linux-headers-amd64
linux-source-6.12 flex bison bc libssl-dev libelf-dev xz-utils python3 rsync
libnl-3-dev libnl-genl-3-dev libjson-c-dev zlib1g-dev libzstd-dev libdeflate-dev
libtraceevent-dev libtracecmd-dev libtracefs-dev trace-cmd libipt-dev
qemu-system-x86 busybox-static kmod cpio gzip iproute2 memcached
sockperf redis-server nginx-light wrk stress-ng linuxptp
sparse perl
clang libclang-rt-14-dev valgrind time
chromium
dkms python3-docutils
clickhouse-server clickhouse-client libcurl4-openssl-dev jq curl
"
[ "${NSIGHT_BENCH:-0}" = 1 ] && PKGS="$PKGS bpftrace"

case ${1:-} in
--list)
	echo $PKGS
	exit 0
	;;
--if-missing)
	missing=
	for p in $PKGS; do
		s=$(dpkg-query -W -f '${db:Status-Status}' "$p" 2>/dev/null) || s=
		[ "$s" = installed ] || missing="$missing $p"
	done
	[ -n "$missing" ] || exit 0
	echo "deps: installing:$missing" >&2
	;;
"") ;;
*)
	echo "usage: scripts/deps.sh [--if-missing|--list]" >&2
	exit 2
	;;
esac

if [ "$(id -u)" != 0 ]; then
	echo "deps: must run as root (apt-get)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $PKGS
