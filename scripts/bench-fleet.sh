#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The fleet view's scale (make bench runs it; it also runs alone): two
# clickhouse-server 18.16 processes on loopback, each a shard of cluster
# nsight_fleet (scripts/clickhouse.sh), the tables of --export-schema
# --cluster on both, then
#   (a) the export rate from one host: nsight-analyze export of a synthetic
#       capture (gen_capture, FLEET_EXPORT_RECORDS records, default 10 M)
#       into the Distributed tables, timed against the analysis alone
#       (the report of the same capture): rows/s of the whole export and
#       of its sending part;
#   (b) the fleet queries over FLEET_MESSAGES messages (default 100 M) of
#       FLEET_HOSTS synthetic hosts (default 100), half of them on each
#       shard: the rows are made by the servers (INSERT ... SELECT ... FROM
#       numbers(N) on both shards at once), not through the exporter:
#       over a day, 4 applications per host and both directions,
#       lognormal latencies (median per application and host, sigma 0.6),
#       1 % of the messages in a tail 5 to 50 times slower, each with 1 to 3
#       causes from 8 categories; then every query of fleet.sql through
#       nsight-analyze fleet, over the whole day and over one hour: wall
#       time and the server's.
# Prints the figures and keeps them in OUTDIR/fleet.txt (default
# build/bench); the servers' data live in OUTDIR/fleet-ch while they run
# and are removed with them. FLEET_EXPORT_RECORDS=0 or FLEET_MESSAGES=0
# skips a part.
#
#   scripts/bench-fleet.sh [OUTDIR]
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/bench}
mkdir -p "$out"
records=${FLEET_EXPORT_RECORDS-10000000}
total=${FLEET_MESSAGES-100000000}
hosts=${FLEET_HOSTS:-100}
txt=$out/fleet.txt
: >"$txt"
say() { echo "$*" | tee -a "$txt"; }

if [ ! -x /usr/sbin/clickhouse-server ] || ! command -v clickhouse-client >/dev/null || ! command -v jq >/dev/null; then
	say "fleet: skipped (needs clickhouse-server, clickhouse-client and jq)"
	exit 0
fi
make -s -C "$top/userspace" nsight-analyze build/bench/gen_capture >"$out/fleet-build.log" 2>&1 ||
	{ tail -n 30 "$out/fleet-build.log" >&2; exit 1; }
ana=$top/userspace/nsight-analyze
. "$top/scripts/clickhouse.sh"
trap ch_stop EXIT
trap 'exit 1' INT TERM HUP
rm -rf "$out/fleet-ch"
mkdir -p "$out/fleet-ch"
ch_start "$out/fleet-ch" "$out" || { echo "fleet: the servers did not start" >&2; cat "$out"/server*.out >&2; exit 1; }
q_timeout=3600
for p in $tcp1 $tcp2; do
	"$ana" --export-schema --cluster nsight_fleet clickhouse://127.0.0.1/fleet |
		clickhouse-client --port "$p" --multiquery || exit 1
done
say "fleet: two clickhouse-server $(q "$http1" 'SELECT version()') shards on loopback, $(getconf _NPROCESSORS_ONLN) CPUs, $(awk '/MemTotal/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo) GB"

now() { date +%s.%N; }
# secs T0 T1: T1 - T0 with two decimals.
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# (a) The export rate from one host.
if [ "$records" -gt 0 ]; then
	cap=$out/bench-$records.nsight
	[ -s "$cap" ] || "$top/userspace/build/bench/gen_capture" "$records" "$cap" >/dev/null
	t0=$(now)
	"$ana" "$cap" >/dev/null 2>&1
	t1=$(now)
	"$ana" export "clickhouse://127.0.0.1:$http1/fleet" --host bench-export "$cap" >"$out/fleet-export.txt" 2>&1 ||
		{ cat "$out/fleet-export.txt" >&2; exit 1; }
	t2=$(now)
	msgs=$(sed -n 's/.*: \([0-9]*\) messages (.*/\1/p' "$out/fleet-export.txt")
	causes=$(sed -n 's/.*, \([0-9]*\) causes$/\1/p' "$out/fleet-export.txt")
	ana_s=$(secs "$t0" "$t1")
	exp_s=$(secs "$t1" "$t2")
	say "export: $(wc -c <"$cap" | awk '{ printf "%.0f", $1 / 1e6 }') MB capture of $records records, $msgs messages and $causes causes rows:"
	awk -v a="$ana_s" -v e="$exp_s" -v m="$msgs" -v c="$causes" 'BEGIN {
		printf "        the analysis alone (the report) %.2f s; nsight-analyze export %.2f s: %.0f rows/s overall,\n", a, e, (m + c) / e
		printf "        %.2f s more than the analysis: %.0f rows/s sent (hashing, rows, HTTP, both shards)\n", e - a, (m + c) / (e - a) }' |
		tee -a "$txt"
fi

[ "$total" -gt 0 ] || exit 0

# (b) FLEET_MESSAGES synthetic messages of FLEET_HOSTS hosts, half on each shard.
half=$((total / 2))
hh=$((hosts / 2))
day0=1714521600		# 2024-05-01T00:00:00Z
step=$((86400000000000 / half))
# synth SHARD FIRST_HOST INDEX: the messages, then the causes of their tail, on one shard.
synth() {
	clickhouse-client --port "$1" --max_memory_usage 0 --multiquery <<EOS
INSERT INTO fleet.messages_local (capture_id, export_id, host, comm, pid, tid, dir, protocol, src, dst,
    sock_id, id, start_ns, time, complete, reason, n_h_ns, h_a_ns, send_queue_ns, queue_xmit_ns,
    xmit_done_ns, total_ns, cpu_from, cpu_to, packets, bytes, fifo, early_read, tcp_hold, tcp_hold_ns,
    tail, deviation_ns, coverage)
SELECT concat('bench-', toString(h)) AS capture_id, toUInt64(1) AS export_id,
    concat('host-', toString(h)) AS host, ['nginx', 'redis', 'postgres', 'memcached'][a + 1] AS comm,
    toUInt32(1000 + a) AS pid, pid AS tid, if(rx, 'rx', 'tx') AS dir, if(a = 1, 'tcp', 'udp') AS protocol,
    '10.0.0.1:4000' AS src, '10.0.0.2:5000' AS dst, toUInt64(a) AS sock_id, g AS id,
    toInt64($day0) * 1000000000 + toInt64(number) * $step AS start_ns,
    toDateTime(intDiv(start_ns, 1000000000)) AS time,
    toUInt8(cityHash64(g, 7) % 50 != 0) AS complete, if(complete, 'complete', 'no hand-off') AS reason,
    if(rx, intDiv(lat * 3, 10), NULL) AS n_h_ns, if(rx, lat - intDiv(lat * 3, 10), NULL) AS h_a_ns,
    if(rx, NULL, intDiv(lat, 5)) AS send_queue_ns, if(rx, NULL, intDiv(lat * 3, 10)) AS queue_xmit_ns,
    if(rx, NULL, lat - intDiv(lat, 5) - intDiv(lat * 3, 10)) AS xmit_done_ns,
    if(complete, lat, NULL) AS total_ns,
    toUInt32(g % 8) AS cpu_from, toUInt32((g + 1) % 8) AS cpu_to,
    toUInt32(1) AS packets, toUInt64(100 + g % 1400) AS bytes, toUInt8(1) AS fifo, toUInt8(0) AS early_read,
    '' AS tcp_hold, toUInt64(0) AS tcp_hold_ns, toUInt8(slow AND complete) AS tail,
    if(tail, toInt64(lat - median), NULL) AS deviation_ns, if(tail, 0.9, NULL) AS coverage
FROM
(
    -- lognormal: median 20 us x (1 + a) x 3 on every tenth host, sigma 0.6; 1 % 5 to 50 x slower
    SELECT number, g, h, a, rx, 20000 * (1 + a) * if(h % 10 = 0, 3, 1) AS median,
        cityHash64(g, 3) % 100 = 0 AS slow,
        toInt64(median * exp(0.6 * sqrt(-2 * log((cityHash64(g, 1) % 1000000 + 1) / 1000001)) *
                             cos(2 * pi() * (cityHash64(g, 2) % 1000000) / 1000000)) *
                if(slow, 5 + cityHash64(g, 4) % 46, 1)) AS lat
    FROM
    (
        -- g: the message's index over both shards, what the hashes draw from
        SELECT number, $3 * $half + number AS g, $2 + number % $hh AS h, intDiv(number, $hh) % 4 AS a,
            intDiv(number, $((hh * 4))) % 2 = 0 AS rx
        FROM numbers($half)
    )
);
INSERT INTO fleet.causes_local (capture_id, export_id, host, comm, pid, dir, id, start_ns, time, latency_ns,
    message_deviation_ns, coverage, category, role, cpu, deviation_ns, share, rank, total_dev_ns, cause_share)
SELECT capture_id, export_id, host, comm, pid, dir, id, start_ns, time, assumeNotNull(total_ns) AS latency_ns,
    assumeNotNull(mdev) AS message_deviation_ns, mcov AS coverage,
    ['stress interference', 'Receive processing', 'Idle after irq:mlx5_comp0', 'OS threads: vmstat_update',
     'Blocked by lockholder', 'Page faults', 'Head-of-line blocking', 'Softirq on the application core'][c + 1] AS category,
    if(c % 3 = 1, 'R', 'A') AS role, cpu_to AS cpu,
    toInt64(message_deviation_ns * share) AS deviation_ns, if(n = 1, 1., if(k = 0, 0.6, 0.4 / (n - 1))) AS share,
    toUInt32(c + 1) AS rank, toInt64(0) AS total_dev_ns, 0. AS cause_share
FROM
(
    SELECT capture_id, export_id, host, comm, pid, dir, id, start_ns, time, total_ns, cpu_to,
        deviation_ns AS mdev, coverage AS mcov, 1 + cityHash64(id, 5) % 3 AS n
    FROM fleet.messages_local
    WHERE tail
)
ARRAY JOIN range(n) AS k, arrayMap(i -> toUInt64((cityHash64(id, 6 + i) % 8 + i) % 8), range(n)) AS c;
INSERT INTO fleet.captures_local (capture_id, export_id, host, file, exported_ns, exported, kernel, cpus, tsc_hz,
    first_ns, span_ns, records, dropped, dropped_per_cpu, problems, messages, complete, causes, tail_pct,
    nsight_version, stream_version)
SELECT concat('bench-', toString(h)), 1, concat('host-', toString(h)), 'synthetic', toInt64($day0 + 86400) * 1000000000,
    toDateTime($day0 + 86400), '6.12.0', 8, 1000000000, toInt64($day0) * 1000000000, toInt64(86400) * 1000000000,
    0, 0, [0, 0, 0, 0, 0, 0, 0, 0], 0, intDiv($half, $hh), 0, 0, 99, 'bench', 1
FROM (SELECT $2 + number AS h FROM numbers($hh));
EOS
}

t0=$(now)
synth "$tcp1" 0 0 >"$out/fleet-synth1.log" 2>&1 &
p1=$!
synth "$tcp2" "$hh" 1 >"$out/fleet-synth2.log" 2>&1 &
p2=$!
ok=1
wait $p1 || ok=0
wait $p2 || ok=0
t1=$(now)
[ $ok = 1 ] || { echo "fleet: the synthetic rows failed:" >&2; cat "$out"/fleet-synth*.log >&2; exit 1; }
nm=$(q "$http1" "SELECT count() FROM fleet.messages")
nc=$(q "$http1" "SELECT count() FROM fleet.causes")
say "synthetic: $nm messages of $hosts hosts ($half on each shard) and $nc causes rows, made in $(secs "$t0" "$t1") s"
# The background merges settle before the queries are timed (at most 10 minutes).
i=0
while [ "$(q "$http1" "SELECT count() FROM system.merges")$(q "$http2" "SELECT count() FROM system.merges")" != 00 ] &&
      [ $i -lt 600 ]; do
	sleep 1
	i=$((i + 1))
done
for p in $http1 $http2; do
	q "$p" "SELECT table, sum(rows), sum(bytes_on_disk), sum(data_uncompressed_bytes), count() FROM system.parts
		WHERE active AND database = 'fleet' GROUP BY table ORDER BY table"
done | awk -F '\t' '{ r[$1] += $2; b[$1] += $3; u[$1] += $4; p[$1] += $5; tb += $3 }
	END { for (t in r) printf "  %-15s %11d rows, %8.1f MB on disk (%.1f bytes a row; %.0f MB uncompressed), %d parts\n",
		t, r[t], b[t] / 1e6, b[t] / (r[t] ? r[t] : 1), u[t] / 1e6, p[t]
		printf "  on disk, both shards: %.2f GB\n", tb / 1e9 }' | sort | tee -a "$txt"
say "  data directories: $(du -sh "$out/fleet-ch" | cut -f1)"

# Each query over the day, and over one hour of it.
url=clickhouse://127.0.0.1:$http1/fleet
for range in "day $day0 $((day0 + 86400))" "hour $((day0 + 43200)) $((day0 + 46800))"; do
	# shellcheck disable=SC2086
	set -- $range
	label=$1 rf=$2 rt=$3 mid=$(( ($2 + $3) / 2 ))
	for qn in latency causes top-causes slowest compare; do
		case $qn in
		slowest) args="--from $rf --to $rt --host host-7" ;;
		compare) args="--from $mid --to $rt --from2 $rf --to2 $mid" ;;
		*) args="--from $rf --to $rt" ;;
		esac
		t0=$(now)
		# shellcheck disable=SC2086
		"$ana" fleet "$url" $qn $args --json >"$out/fleet-$label-$qn.json" 2>"$out/fleet-q.err" ||
			{ echo "fleet: $qn failed: $(cat "$out/fleet-q.err")" >&2; exit 1; }
		t1=$(now)
		jq -r --arg q "$qn" --arg l "$label" --arg w "$(secs "$t0" "$t1")" '
			"  \($l) \($q): \($w) s wall, \(.statistics.elapsed * 100 | round / 100) s in the server, \(.rows | length) rows, \(.statistics.rows_read) rows read"' \
			"$out/fleet-$label-$qn.json" | tee -a "$txt"
		# shellcheck disable=SC2086
		"$ana" fleet "$url" $qn $args >"$out/fleet-$label-$qn.txt" 2>&1
	done
done
