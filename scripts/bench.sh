#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench: the overhead benchmark (selftests/nsight/30-diag-bench.sh at
# full length) in one Debian 6.12 guest under -icount shift=2,sleep=off,
# where guest time follows executed instructions (4 ns each), so the
# figures repeat whatever the host's load. Prints the latency table (ratios
# to no tracing, like Table 2 of the paper), the per-record cost of the
# whole hook path (recloop) and of the write path alone (nsight_wpbench),
# bytes per message and the drain limit, the per-hook cost profile
# (31-diag-cost.sh), the instructions of each of the module's functions
# per call (scripts/hook-insns.sh) and recording without loss at rising
# request rates (32-diag-record.sh), and keeps them in build/bench/overhead.txt; the
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
# (seconds per rate, default 60), LONG_RATE / LONG_SECS (the long
# recording of 34-diag-long.sh, default 1000 requests/s for 600 s; its
# stream goes to a raw virtio disk and is analysed here, whole and in 1 s
# windows, for the time and peak memory of the analysis), BENCH_INSNS (0:
# skip the instructions per hook, a second boot under QEMU's insn-count
# plugin, scripts/hook-insns.sh), ANALYZE_SIZES (records of the synthetic
# captures nsight-analyze is timed on, on the host, default "10000000
# 100000000"; empty: skip), BENCH_CG_RECORDS (records of its callgrind
# run, default 300000), FLEET_BENCH (0: skip the fleet view's part,
# scripts/bench-fleet.sh, with its FLEET_EXPORT_RECORDS, FLEET_MESSAGES
# and FLEET_HOSTS).
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
guest_initramfs "$out/guest.cpio.gz" "$kver" "$ko" "$testko" $bpf --kmods virtio_blk \
	2>>"$out/build.log"
# 34-diag-long writes its stream to this raw disk (sparse; 1.3 GB used
# for 10 minutes at 1,000 requests/s), read back and analysed here.
rm -f "$out/long.img" "$out/long.nsight"
truncate -s 4G "$out/long.img"
# The per-test limit is guest time, which -icount sleep=off runs ahead of
# the wall clock whenever the guest idles: 30-diag-bench's seven
# configurations, trace-cmd's and function_graph's among them, took more
# than 4,500 guest seconds in 1,600 wall seconds.
echo "bench: booting Debian $kver under -icount shift=2,sleep=off (guest log in $out/)"
rc=0
"$top/selftests/harness/run-guest.sh" --kernel "/boot/vmlinuz-$kver" \
	--initrd "$out/guest.cpio.gz" --log "$out/guest.serial.log" \
	--tests "${BENCH_TESTS:-30-diag-bench 31-diag-cost 32-diag-record 34-diag-long}" --timeout 12000 --test-timeout 20000 --icount --mem 2048 \
	--qemu-args "-drive file=$out/long.img,format=raw,if=virtio" \
	--append "tsc=reliable nsight_bench_n=${BENCH_N:-1000} nsight_bench_low=${BENCH_LOW:-200}" \
	--append "nsight_bench_high=${BENCH_HIGH:-2000} nsight_bench_loops=${BENCH_LOOPS:-20000} nsight_bench_reps=${BENCH_REPS:-3}" \
	--append "nsight_bench_marks=${BENCH_MARKS:-100000} nsight_bench_sizes=${BENCH_SIZES:-32,64,128,256}" \
	--append "nsight_bench_rates=${BENCH_RATES:-100000,200000,300000,400000,500000,600000,700000,800000} nsight_bench_drain_ms=${BENCH_DRAIN_MS:-1000}" \
	--append "nsight_cost_n=${COST_N:-2000} nsight_cost_rate=${COST_RATE:-1000} nsight_cost_calls=${COST_CALLS:-102400}" \
	--append "nsight_rec_rates=${REC_RATES:-1000,2000,5000} nsight_rec_secs=${REC_SECS:-60}" \
	--append "nsight_long_rate=${LONG_RATE:-1000} nsight_long_secs=${LONG_SECS:-600}" \
	>"$out/guest.ktap" 2>"$out/guest.err" || rc=1
sed -n 's/^ *# T //p' "$out/guest.ktap" >"$out/overhead.txt"
# The long recording's stream, from the disk: nsight-analyze's time and
# peak memory, whole and in 1 s windows (natively, on this host).
long=$(sed -n 's/^ *NSIGHT-LONG-BYTES \([0-9]*\)$/\1/p' "$out/guest.ktap" | tail -n 1)
if [ -n "$long" ] && [ "$long" -gt 0 ]; then
	head -c "$long" "$out/long.img" >"$out/long.nsight"
	for mode in whole window; do
		set -- "$out/long.nsight"
		[ $mode = window ] && set -- --window 1s "$out/long.nsight"
		t0=$(date +%s.%N)
		if [ -x /usr/bin/time ]; then
			/usr/bin/time -f '%M' -o "$out/long.$mode.rss" "$top/userspace/nsight-analyze" --strict "$@" \
				>"$out/long.$mode.txt" 2>&1 || echo "bench: nsight-analyze $mode failed" >&2
		else
			"$top/userspace/nsight-analyze" --strict "$@" >"$out/long.$mode.txt" 2>&1 ||
				echo "bench: nsight-analyze $mode failed" >&2
		fi
		t1=$(date +%s.%N)
		awk -v b="$long" -v m=$mode -v t0="$t0" -v t1="$t1" -v rss="$(cat "$out/long.$mode.rss" 2>/dev/null)" 'BEGIN {
			printf "long recording: nsight-analyze --strict%s of its %d bytes on the host: %.1f s wall, peak %s MB\n",
				m == "window" ? " --window 1s" : "", b, t1 - t0, rss ? sprintf("%.0f", rss / 1024) : "?" }' \
			>>"$out/overhead.txt"
	done
	rm -f "$out/long.nsight"
fi
rm -f "$out/long.img"
# Instructions per hook, exactly: a second boot under QEMU's insn-count
# plugin (scripts/hook-insns.sh); BENCH_INSNS=0 skips it.
if [ "${BENCH_INSNS:-1}" != 0 ]; then
	"$top/scripts/hook-insns.sh" "$out" "$out/guest.cpio.gz" "$ko" >"$out/insns.txt" || rc=1
	sed 's/^T //' "$out/insns.txt" >>"$out/overhead.txt"
fi
# nsight-analyze on the host, on synthetic captures of 10 M and 100 M
# records (userspace/bench/analyze_bench.sh; callgrind on the first only):
# ANALYZE_SIZES="" skips it.
cg=${BENCH_CG_RECORDS:-300000}
for n in ${ANALYZE_SIZES-10000000 100000000}; do
	echo "analyzer, $n records:" >>"$out/overhead.txt"
	make -s -C "$top/userspace" bench-analyze BENCH_RECORDS="$n" BENCH_CG_RECORDS="$cg" \
		>>"$out/overhead.txt" 2>&1 || rc=1
	cg=0
done
# The fleet view's scale (scripts/bench-fleet.sh, two ClickHouse shards on
# this host): the export rate and the fleet queries over 100 M synthetic
# messages of 100 hosts; kept in build/bench/fleet.txt too.
if [ "${FLEET_BENCH:-1}" != 0 ]; then
	"$top/scripts/bench-fleet.sh" "$out" >>"$out/overhead.txt" 2>&1 || rc=1
fi
cat "$out/overhead.txt"
if [ $rc -ne 0 ] || [ ! -s "$out/overhead.txt" ]; then
	echo "bench: the guest run failed:" >&2
	grep -E '^ *not ok' "$out/guest.ktap" >&2 || true
	cat "$out/guest.err" >&2
	exit 1
fi
