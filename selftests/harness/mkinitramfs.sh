#!/bin/sh
# Build the initramfs for nsight guest tests (see run-guest.sh, guest-init.sh).
#
# usage: mkinitramfs.sh --out FILE.cpio.gz --kver VERSION [--kmods "veth ..."]
#            [--modules-dir DIR] [--file SRC:DEST]... [--bin PATH[:DEST]]...
#            [--tests DIR]
#
#   --kver VERSION    uname -r of the guest kernel (modules go to /lib/modules/VERSION)
#   --kmods "A B"     kernel modules to include with their dependencies; a module
#                     that is built in or absent is skipped with a note on stderr
#   --modules-dir DIR module tree to take them from (default /lib/modules/VERSION)
#   --file SRC:DEST   copy a file or directory to DEST in the guest
#                     (e.g. module/nsight.ko:/lib/nsight/nsight.ko)
#   --bin PATH[:DEST] copy a program plus the libraries ldd lists; DEST defaults
#                     to PATH if that is in a system bin directory (/sbin/tc),
#                     else /usr/bin/<name>; busybox applets of that name go
#   --tests DIR       copied to /tests; the harness's lib.sh goes to /lib/nsight/lib.sh
#
# The guest has a merged /usr (bin, sbin, lib, lib64 are symlinks into usr/),
# like the host, so library paths from ldd work unchanged. The archive is
# reproducible: sorted, owner 0:0, mtimes from SOURCE_DATE_EPOCH (default 0).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
prog=mkinitramfs

die() { echo "$prog: $*" >&2; exit 1; }
note() { echo "$prog: $*" >&2; }
usage() {
	echo "usage: $prog --out FILE.cpio.gz --kver VERSION [--kmods \"veth ...\"] [--modules-dir DIR]" >&2
	echo "           [--file SRC:DEST]... [--bin PATH[:DEST]]... [--tests DIR]" >&2
	exit 2
}

out= kver= kmods= moddir= tests=
files= bins=
nl='
'
while [ $# -gt 0 ]; do
	case $1 in
	--out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
	--kver) [ $# -ge 2 ] || usage; kver=$2; shift 2 ;;
	--kmods) [ $# -ge 2 ] || usage; kmods="$kmods $2"; shift 2 ;;
	--modules-dir) [ $# -ge 2 ] || usage; moddir=$2; shift 2 ;;
	--file) [ $# -ge 2 ] || usage; files="$files$2$nl"; shift 2 ;;
	--bin) [ $# -ge 2 ] || usage; bins="$bins$2$nl"; shift 2 ;;
	--tests) [ $# -ge 2 ] || usage; tests=$2; shift 2 ;;
	-h|--help) usage ;;
	*) echo "$prog: unknown argument: $1" >&2; usage ;;
	esac
done
[ -n "$out" ] && [ -n "$kver" ] || usage
[ -z "$tests" ] || [ -d "$tests" ] || die "--tests $tests: not a directory"

busybox=/bin/busybox
[ -x "$busybox" ] && "$busybox" --list-full >/dev/null 2>&1 || die "$busybox missing (apt-get install busybox-static)"
# The Debian busybox package (dynamic) also installs /bin/busybox; we need the static one.
ldd "$busybox" >/dev/null 2>&1 && die "$busybox is dynamically linked (apt-get install busybox-static)"
for t in kmod ldd cpio gzip depmod modprobe; do
	command -v $t >/dev/null 2>&1 || die "$t not found"
done
ipbin=$(command -v ip 2>/dev/null || true)
[ -n "$ipbin" ] && ! "$ipbin" -V 2>&1 | grep -qi busybox || die "iproute2's ip not found"

umask 022
stage=$(mktemp -d "${TMPDIR:-/tmp}/nsight-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
trap 'exit 130' INT TERM HUP

mkdir -p "$stage/usr/bin" "$stage/usr/sbin" "$stage/usr/lib" "$stage/usr/lib64"
for d in bin sbin lib lib64; do ln -s "usr/$d" "$stage/$d"; done
mkdir -p "$stage/dev" "$stage/proc" "$stage/sys" "$stage/tmp" "$stage/run" "$stage/root" \
	"$stage/etc" "$stage/var/tmp" "$stage/mnt" "$stage/tests" "$stage/lib/nsight"
chmod 1777 "$stage/tmp" "$stage/var/tmp"
chmod 700 "$stage/root"
ln -s ../run "$stage/var/run"
# The kernel opens /dev/console for /init before devtmpfs is mounted.
mknod -m 600 "$stage/dev/console" c 5 1 2>/dev/null || note "cannot mknod /dev/console (not root?); relying on the kernel's built-in one"

# copy SRC DEST: DEST is a path inside the guest; replaces whatever is there
# (never write through an applet symlink: that would overwrite busybox).
copy() {
	mkdir -p "$stage$(dirname "$2")"
	rm -f "$stage$2"
	cp -L "$1" "$stage$2" || die "cannot copy $1"
}

# copy_libs BINARY: the libraries and loader ldd lists, at the same paths.
copy_libs() {
	# ldd fails on static binaries ("not a dynamic executable"): nothing to copy.
	libs=$(ldd "$1" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }') || return 0
	for lib in $libs; do
		[ -e "$stage$lib" ] || copy "$lib" "$lib"
	done
	ldd "$1" 2>/dev/null | grep -q 'not found' && die "$1: ldd reports missing libraries"
	return 0
}

# busybox and its applets, except the names real tools provide below.
copy "$busybox" /usr/bin/busybox
"$busybox" --list-full | LC_ALL=C sort | while IFS= read -r app; do
	name=${app##*/}
	case $name in
	busybox|linuxrc|init|ip|insmod|rmmod|modprobe|lsmod|depmod|modinfo) continue ;;
	esac
	[ -e "$stage/$app" ] || [ -L "$stage/$app" ] || ln -s /usr/bin/busybox "$stage/$app"
done

# iproute2 (busybox's ip has no netns support); the busybox shell runs its own
# applets first, so guest scripts must call /sbin/ip (lib.sh wraps this).
copy "$ipbin" /usr/sbin/ip
copy_libs "$ipbin"

# kmod handles .ko.xz/.ko.zst; busybox's modutils may not.
kmodbin=$(command -v kmod)
copy "$kmodbin" /usr/bin/kmod
copy_libs "$kmodbin"
for t in insmod rmmod modprobe lsmod depmod modinfo; do
	ln -s ../bin/kmod "$stage/usr/sbin/$t"
done

printf 'root:x:0:0:root:/root:/bin/sh\n' >"$stage/etc/passwd"
printf 'root:x:0:\n' >"$stage/etc/group"
printf '127.0.0.1\tlocalhost\n::1\tlocalhost\n' >"$stage/etc/hosts"
printf 'nsight-guest\n' >"$stage/etc/hostname"

# --bin programs
printf '%s' "$bins" | while IFS= read -r spec; do
	[ -n "$spec" ] || continue
	case $spec in
	*:*) src=${spec%%:*} dest=${spec#*:} ;;
	*)
		src=$spec
		case ${src%/*} in
		/bin|/sbin|/usr/bin|/usr/sbin|/usr/local/bin|/usr/local/sbin) dest=$src ;;
		*) dest=/usr/bin/${src##*/} ;;
		esac ;;
	esac
	[ -f "$src" ] || die "--bin $src: no such file"
	case $dest in /*) ;; *) die "--bin $spec: destination must be absolute" ;; esac
	# A busybox applet of the same name elsewhere in PATH would shadow it.
	for d in /usr/bin /usr/sbin; do
		if [ "$(readlink "$stage$d/${dest##*/}")" = /usr/bin/busybox ]; then
			rm -f "$stage$d/${dest##*/}"
		fi
	done
	copy "$src" "$dest"
	chmod 755 "$stage$dest"
	copy_libs "$src"
done

# --file copies (files or whole directories)
printf '%s' "$files" | while IFS= read -r spec; do
	[ -n "$spec" ] || continue
	case $spec in *:/*) ;; *) die "--file $spec: expected SRC:/absolute/dest" ;; esac
	src=${spec%:/*} dest=/${spec##*:/}
	case $dest in */) dest=$dest${src##*/} ;; esac
	if [ -d "$src" ]; then
		mkdir -p "$stage$dest"
		cp -RL "$src/." "$stage$dest/" || die "cannot copy $src"
	elif [ -e "$src" ]; then
		copy "$src" "$dest"
	else
		die "--file $src: no such file"
	fi
done

# Kernel modules with their dependencies (and softdeps), resolved by modprobe
# against a root whose lib/modules/<kver> is the chosen module tree.
gmod=/lib/modules/$kver
mkdir -p "$stage$gmod"
[ -n "$moddir" ] || moddir=/lib/modules/$kver
if [ -d "$moddir" ]; then
	moddir=$(cd "$moddir" && pwd -P)
	for f in modules.builtin modules.builtin.modinfo modules.order; do
		if [ -f "$moddir/$f" ]; then cp "$moddir/$f" "$stage$gmod/$f"; fi
	done
fi
if [ -n "$(echo $kmods)" ]; then
	if [ ! -f "$moddir/modules.dep" ]; then
		note "no module tree for $kver at $moddir; skipping --kmods ($(echo $kmods)), assuming they are built in"
	else
		mroot=$stage.modroot
		mkdir -p "$mroot/lib/modules"
		ln -s "$moddir" "$mroot/lib/modules/$kver"
		trap 'rm -rf "$stage" "$mroot"' EXIT
		for m in $kmods; do
			if ! deps=$(modprobe -d "$mroot" -S "$kver" --show-depends "$m" 2>/dev/null); then
				note "module $m not found for $kver; skipped"
				continue
			fi
			echo "$deps" | while read -r kind path _; do
				case $kind in
				builtin) note "module $path is built into $kver; skipped" ;;
				insmod)
					rel=${path#"$mroot/lib/modules/$kver/"}
					[ -e "$stage$gmod/$rel" ] || copy "$path" "$gmod/$rel" ;;
				esac
			done
		done
	fi
fi
# Warnings about missing modules.order/modules.builtin (a tree with no
# modules, e.g. the self-built test kernel) are harmless: filter them.
msg=$(depmod -b "$stage" "$kver" 2>&1) || die "depmod failed: $msg"
printf '%s\n' "$msg" | grep -v -e '^$' -e 'modules\.order' -e 'modules\.builtin' >&2 || true

# Tests and the harness.
if [ -n "$tests" ]; then
	cp -RL "$tests/." "$stage/tests/" || die "cannot copy $tests"
fi
cp "$here/lib.sh" "$stage/lib/nsight/lib.sh"
cp "$here/guest-init.sh" "$stage/init"
chmod 755 "$stage/init"

# Reproducible archive.
epoch=${SOURCE_DATE_EPOCH:-0}
find "$stage" -exec touch -h -d "@$epoch" {} +
tmpout=$out.tmp.$$
(cd "$stage" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
	cpio --null --create --format=newc --reproducible --owner=0:0 --quiet) |
	gzip -n -9 >"$tmpout" || { rm -f "$tmpout"; die "cpio/gzip failed"; }
mv -f "$tmpout" "$out"
