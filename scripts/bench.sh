#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench: the overhead benchmark (selftests/nsight/30-diag-bench.sh at
# full length) in one Debian 6.12 guest under -icount shift=2,sleep=off,
# where guest time follows executed instructions (4 ns each), so the
# figures repeat whatever the host's load. Prints the latency table (ratios
# to no tracing, like Table 2 of the paper), the per-record cost of the
# whole hook path (recloop) and of the write path alone (nsight_wpbench),
# bytes per message and the drain limit, the per-hook cost profile
# (31-diag-cost.sh) and recording without loss at rising request rates
# (32-diag-record.sh), and keeps them in build/bench/overhead.txt; the
# guest's KTAP and serial log go beside it. make check runs the same tests
# short.
#
# Environment: BENCH_N (requests per cell at the low rate, default 1000;
# the high rate sends 5x as many), BENCH_LOW / BENCH_HIGH (requests/s,
# default 200 / 2000), BENCH_LOOPS (recloop iterations, default 20000),
# BENCH_REPS (runs of the whole table, default 3; each cell is the median),
# BENCH_MARKS (write-path marks per record size, default 100000),
# BENCH_SIZES (record sizes, default 32,64,128,256), BENCH_RATES (paced
# rates of the drain limit, records/s, rising, default
# 100000,200000,300000,400000,500000,600000,700000,800000), BENCH_DRAIN_MS (guest
# milliseconds per rate, default 1000), REC_RATES (request rates that
# nsightctl record follows, default 1000,2000,5000), REC_SECS
# (seconds per rate, default 60).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
out=$top/build/bench
mkdir -p "$out"

kdir=$(kdir_of deb612)
[ -n "$kdir" ] || { echo "bench: no Debian 6.12 headers (run make deps)" >&2; exit 1; }
kver=$(basename "$(dirname "$kdir")")
make -s -C "$top/userspace" >"$out/build.log" 2>&1 &&
	make -s -C "$top/selftests" >>"$out/build.log" 2>&1 &&
	"$top/scripts/build-modules.sh" "deb612=$kdir" >"$out/modules.list" 2>>"$out/build.log" ||
	{ tail -n 30 "$out/build.log" >&2; exit 1; }
read -r _ ko testko <"$out/modules.list"
# bpftrace (scripts/deps.sh --bench) and its LLVM: about 200 MB more in
# the initramfs, hence the guest's 2 GiB.
bpf=
[ -x /usr/bin/bpftrace ] && bpf="--bin /usr/bin/bpftrace"
# shellcheck disable=SC2086
guest_initramfs "$out/guest.cpio.gz" "$kver" "$ko" "$testko" $bpf 2>>"$out/build.log"
echo "bench: booting Debian $kver under -icount shift=2,sleep=off (guest log in $out/)"
rc=0
"$top/selftests/harness/run-guest.sh" --kernel "/boot/vmlinuz-$kver" \
	--initrd "$out/guest.cpio.gz" --log "$out/guest.serial.log" \
	--tests "${BENCH_TESTS:-30-diag-bench 31-diag-cost 32-diag-record}" --timeout 6000 --test-timeout 4500 --icount --mem 2048 \
	--append "tsc=reliable nsight_bench_n=${BENCH_N:-1000} nsight_bench_low=${BENCH_LOW:-200}" \
	--append "nsight_bench_high=${BENCH_HIGH:-2000} nsight_bench_loops=${BENCH_LOOPS:-20000} nsight_bench_reps=${BENCH_REPS:-3}" \
	--append "nsight_bench_marks=${BENCH_MARKS:-100000} nsight_bench_sizes=${BENCH_SIZES:-32,64,128,256}" \
	--append "nsight_bench_rates=${BENCH_RATES:-100000,200000,300000,400000,500000,600000,700000,800000} nsight_bench_drain_ms=${BENCH_DRAIN_MS:-1000}" \
	--append "nsight_cost_n=${COST_N:-2000} nsight_cost_rate=${COST_RATE:-1000} nsight_cost_calls=${COST_CALLS:-102400}" \
	--append "nsight_rec_rates=${REC_RATES:-1000,2000,5000} nsight_rec_secs=${REC_SECS:-60}" \
	>"$out/guest.ktap" 2>"$out/guest.err" || rc=1
sed -n 's/^ *# T //p' "$out/guest.ktap" >"$out/overhead.txt"
cat "$out/overhead.txt"
if [ $rc -ne 0 ] || [ ! -s "$out/overhead.txt" ]; then
	echo "bench: the guest run failed:" >&2
	grep -E '^ *not ok' "$out/guest.ktap" >&2 || true
	cat "$out/guest.err" >&2
	exit 1
fi
