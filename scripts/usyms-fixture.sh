#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Regenerate userspace/tests/data/usyms-deb12.txt.gz, the real user-space
# symbol table test_categories checks the built-in user-space function
# rules (those naming a file, "\[libc.so*\]") against: the function
# symbols of common server libraries and programs of Debian 12 named as
# nsight names them ("symbol [file]", ctl/pt_user.c read_syms): .symtab,
# else .dynsym; STT_FUNC and STT_GNU_IFUNC, defined, at a non-zero address;
# of aliases, the first in the table; the file is the base name of the
# real path, as /proc/PID/maps gives it. Run it on Debian 12 with the
# packages below installed (apt-get install libevent-2.1-7 libjemalloc2
# redis-server nginx) after adding a rule that
# names functions the file lacks. Needs binutils (readelf) and gzip.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/userspace/tests/data/usyms-deb12.txt.gz
lib=/usr/lib/x86_64-linux-gnu
# memcached (1.6.18) is left out: stripped, it exports no function (its time
# is named through libevent's and libc's).
files="$lib/libc.so.6 $lib/libssl.so.3 $lib/libcrypto.so.3 $lib/libevent-2.1.so.7
$lib/libjemalloc.so.2 $lib/libz.so.1 $lib/libpcre2-8.so.0 /usr/bin/redis-server /usr/sbin/nginx"
pkgs="libc6 libssl3 libevent-2.1-7 libjemalloc2 zlib1g libpcre2-8-0 redis-server nginx"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

for f in $files; do
	real=$(readlink -f "$f")
	[ -f "$real" ] || { echo "$f: missing (install: $pkgs)" >&2; exit 1; }
	table=--dyn-syms
	readelf -SW "$real" | grep -q ' \.symtab ' && table=--syms
	# Num: Value Size Type Bind Vis Ndx Name: the first name of each address.
	readelf -W "$table" "$real" |
		awk -v file="${real##*/}" '
			($4 == "FUNC" || $4 == "IFUNC") && $7 != "UND" && $2 !~ /^0+$/ && NF >= 8 {
				name = $8; sub(/@.*/, "", name)
				if (name != "" && !($2 in seen)) { seen[$2] = 1; print name " [" file "]" }
			}'
done | LC_ALL=C sort -u >"$tmp/syms"
{
	printf '# Debian 12: function symbols of %s as nsight names them;\n' "$pkgs"
	# shellcheck disable=SC2086 # one argument per package
	printf '# %s. scripts/usyms-fixture.sh\n' \
		"$(dpkg-query -W -f '${Package} ${Version}, ' $pkgs | sed 's/, $//')"
	cat "$tmp/syms"
} | gzip -9n >"$out"
echo "$out: $(wc -l <"$tmp/syms") symbols"
