#!/bin/sh
# Build (or reuse) the nsight test kernel: linux-source-6.12 with the kernel
# patches of patches/ applied (in name order, patch -p1), KUnit and debug
# options. The result is cached outside the checkout, keyed by the source
# package version and a hash of the config fragment, the patches and this
# script's recipe number:
#
#   $NSIGHT_CACHE/kernel-<srcver>-<hash>/{bzImage,src/,obj/,release}
#
# Prints the cache directory on stdout when done. A missing or incomplete
# cache entry is rebuilt from scratch (about 6-10 minutes on 2 cores).
#
#   build-test-kernel.sh          build if needed, print the directory
#   build-test-kernel.sh --path   print the directory if it is complete,
#                                 else exit 1 (never builds)
set -eu

# Bump when the build steps below change in a way that changes the result.
RECIPE=2

here=$(cd "$(dirname "$0")" && pwd)
cache=${NSIGHT_CACHE:-/var/cache/nsight}
tarball=/usr/src/linux-source-6.12.tar.xz
frag=$here/test-kernel.config
patches=$(cd "$here/../../patches" && pwd)

[ -r "$tarball" ] || { [ "${1:-}" = --path ] && exit 1; echo "build-test-kernel: $tarball missing (apt-get install linux-source-6.12)" >&2; exit 1; }
srcver=$(dpkg-query -W -f '${Version}' linux-source-6.12)
key=$( (cat "$frag"; echo "recipe=$RECIPE"; cat "$patches"/*.patch) | sha256sum | cut -c1-12)
dir=$cache/kernel-$srcver-$key

if [ -f "$dir/done" ]; then
	echo "$dir"
	exit 0
fi
[ "${1:-}" != --path ] || exit 1

# Built in place (kbuild records absolute paths); "done" marks a complete entry.
rm -rf "$dir"
mkdir -p "$dir/obj"
echo "build-test-kernel: unpacking $tarball into $dir" >&2
tar -C "$dir" -xf "$tarball"
mv "$dir/linux-source-6.12" "$dir/src"

cd "$dir/src"
for p in "$patches"/*.patch; do
	[ -e "$p" ] || continue
	echo "build-test-kernel: applying ${p##*/}" >&2
	patch -p1 --forward --batch --quiet < "$p" >&2 ||
		{ echo "build-test-kernel: ${p##*/} does not apply" >&2; exit 1; }
done
KCONFIG_ALLCONFIG=$frag make -s O=../obj alldefconfig >&2
# Every line of the fragment must have survived Kconfig dependency checks,
# otherwise the kernel silently lacks something the tests rely on.
missing=0
grep '^CONFIG_' "$frag" | while IFS= read -r line; do
	sym=${line%%=*}
	val=${line#*=}
	if [ "$val" = n ]; then
		grep -q "^$sym=" ../obj/.config && { echo "build-test-kernel: $sym is set, wanted n" >&2; exit 1; }
	else
		grep -qx "$line" ../obj/.config || { echo "build-test-kernel: $line did not survive Kconfig" >&2; exit 1; }
	fi
done || missing=1
[ $missing -eq 0 ] || exit 1

echo "build-test-kernel: building (make -j$(nproc) bzImage modules)" >&2
start=$(date +%s)
make -s -j"$(nproc)" O=../obj bzImage modules >&2
make -s O=../obj modules_prepare >&2
cp ../obj/arch/x86/boot/bzImage "$dir/bzImage"
make -s O=../obj kernelrelease > "$dir/release"
echo "build-test-kernel: built in $(( $(date +%s) - start )) s" >&2
touch "$dir/done"
echo "$dir"
