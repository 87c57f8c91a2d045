#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench's instructions per hook: boots the Debian 6.12 guest under
# -icount with QEMU's insn-count plugin (selftests/harness/insn-count.c),
# runs selftests/nsight/hook-insns.sh there (recloop with the message
# sources, the UDP echo and memcached with the default sources) and folds
# the counts of every kernel instruction executed into nsight.ko's
# functions: calls (executions of the function's first instruction),
# instructions, instructions per call. Under -icount a hook's cost is its
# instructions (4 ns each), so this is where the time of each one goes,
# exactly. Prints "T " lines like the other benchmarks.
#
# Usage: hook-insns.sh OUT-DIR INITRAMFS NSIGHT.KO
# Environment: INSNS_LOOPS (recloop round trips, default 10000), INSNS_N
# (requests of each workload, default 1000).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
[ $# -eq 3 ] || { echo "usage: hook-insns.sh OUT-DIR INITRAMFS NSIGHT.KO" >&2; exit 2; }
out=$1 initrd=$2 ko=$3
kdir=$(kdir_of deb612)
[ -n "$kdir" ] || { echo "hook-insns: no Debian 6.12 headers (run make deps)" >&2; exit 1; }
kver=$(basename "$(dirname "$kdir")")

cc -O2 -shared -fPIC -Wall -Wextra -Werror -o "$out/insn-count.so" \
	"$top/selftests/harness/insn-count.c"
rm -f "$out/insns.counts"
# nokaslr: the counts are by address, the module's is printed.
rc=0
"$top/selftests/harness/run-guest.sh" --kernel "/boot/vmlinuz-$kver" --initrd "$initrd" \
	--log "$out/insns.serial.log" --tests hook-insns --timeout 3000 --test-timeout 2400 \
	--icount --mem 2048 --qemu-args "-plugin $out/insn-count.so,arg=out=$out/insns.counts" \
	--append "tsc=reliable nokaslr nsight_insns_loops=${INSNS_LOOPS:-10000} nsight_insns_n=${INSNS_N:-1000}" \
	>"$out/insns.ktap" 2>"$out/insns.err" || rc=1
base=$(tr -d '\r' <"$out/insns.serial.log" | sed -n 's/^NSIGHT-TEXT 0x\([0-9a-f]*\)$/\1/p' | tail -n 1)
if [ $rc -ne 0 ] || [ -z "$base" ] || [ ! -s "$out/insns.counts" ]; then
	echo "hook-insns: the guest run failed (log: $out/insns.serial.log):" >&2
	grep -E '^ *not ok' "$out/insns.ktap" >&2 || true
	cat "$out/insns.err" >&2
	exit 1
fi
records=$(awk '$2 == "records:" { n += $4 } END { print n + 0 }' "$out/insns.ktap")
text=$(size -A "$ko" | awk '$1 == ".text" { print $2 }')
nm -n --defined-only "$ko" | awk '$2 ~ /^[tT]$/ { print $1, $3 }' >"$out/insns.syms"

# Addresses are 64-bit hexadecimal, beyond awk's exact integers: the
# module's text is within 4 GiB of its base, so the low 32 bits' difference
# is the offset.
awk -v base="$base" -v text="$text" -v records="$records" '
	function hex(s,    i, n) {
		n = 0
		s = tolower(s)
		for (i = 1; i <= length(s); i++)
			n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return n
	}
	function low32(s) { return hex(substr(s, length(s) - 7)) }
	FILENAME == ARGV[1] { at[++nsym] = hex($1); name[nsym] = $2; next }
	/^#/ { print "hook-insns: " $0 > "/dev/stderr"; next }
	{
		off = low32($1) - low32(base)
		if (off < 0)
			off += 4294967296
		if (off >= text)
			next
		lo = 1; hi = nsym
		while (lo < hi) {
			mid = int((lo + hi + 1) / 2)
			if (at[mid] <= off) lo = mid; else hi = mid - 1
		}
		n[lo] += $2
		total += $2
		if (at[lo] == off)
			calls[lo] += $2
	}
	END {
		printf "T instructions per hook (insn-count QEMU plugin, -icount; recloop, the UDP echo and memcached in one boot): %d instructions of nsight.ko for %d records, %.0f per record\n", total, records, records ? total / records : 0
		printf "T   %-32s %10s %12s %9s\n", "function", "calls", "instructions", "per call"
		fflush()
		for (i = 1; i <= nsym; i++)
			if (n[i] && calls[i])
				printf "T   %-32s %10d %12d %9.1f\n", name[i], calls[i], n[i], n[i] / calls[i] | "sort -k4,4nr"
		close("sort -k4,4nr")
	}' "$out/insns.syms" "$out/insns.counts"
