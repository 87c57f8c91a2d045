#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The fleet view against real ClickHouse servers (Debian's clickhouse-server
# 18.16): two servers on loopback ports, each a shard of a cluster, the
# tables of nsight-analyze --export-schema --cluster on both (MergeTree
# NAME_local and a Distributed NAME). Synthetic captures of several
# scenarios (tests/gen_scenario.c), each as its own host, are exported
# (alternately through either server), then:
#   - a second export of each writes nothing, a third at once neither;
#   - both shards hold rows;
#   - Documentation/fleet.sql's latency query gives each host exactly the
#     count, p50, p90, p99, p99.9 and max nsight-analyze --json prints for
#     its capture; its causes queries give each cause's explained ns
#     (total_dev_ns) and the top cause; slowest gives the slowest message
#     with its first cause; compare splits the messages by time;
#   - with guests' captures (NSIGHT_FLEET_CAPTURES), one of them at least
#     has cause rows and its top cause is nsight-analyze --json's first;
#   - errors: a database that does not exist (HTTP status and the server's
#     message), no server, and an export that fails half-way (no causes
#     table): exit 1, and the fleet queries count none of its rows.
# Both servers are stopped at the end, also on failure or interruption.
# Prints KTAP.
#
#   scripts/check-fleet.sh [OUTDIR]     (default build/check/fleet; logs there)
#
# NSIGHT_FLEET_CAPTURES="NAME=FILE ...": real captures to export and check
# with the synthetic ones, each as host "host-NAME".
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
out=${1:-$top/build/check}/fleet
rm -rf "$out"
mkdir -p "$out"
n=0
failed=0

echo "KTAP version 1"
if [ ! -x /usr/sbin/clickhouse-server ] || ! command -v clickhouse-client >/dev/null || ! command -v jq >/dev/null ||
   ! command -v curl >/dev/null; then
	echo "ok 1 - fleet # SKIP needs clickhouse-server, clickhouse-client, jq and curl"
	echo "1..1"
	exit 0
fi
if ! make -s -C "$top/userspace" nsight-analyze check-tools >"$out/build.log" 2>&1; then
	echo "not ok 1 - userspace builds"
	sed 's/^/# /' "$out/build.log" | tail -n 30
	echo "1..1"
	exit 1
fi
ana=$top/userspace/nsight-analyze
gen=$top/userspace/build-asan/gen_scenario
. "$top/scripts/clickhouse.sh"
trap ch_stop EXIT
trap 'exit 1' INT TERM HUP

# fleet NAME [HOST]: Documentation/fleet.sql's query NAME on server 1, in
# database $db (fleet), over all time unless $from/$to, $from2/$to2 say.
fleet() {
	awk -v n="$1" '/^-- name: /{on = ($3 == n); next} on' "$top/Documentation/fleet.sql" |
		grep -v '^--' |
		sed -e "s/{db}/${db:-fleet}/g; s/{from}/${from:-0}/g; s/{to}/${to:-4000000000}/g" \
		    -e "s/{from2}/${from2:-0}/g; s/{to2}/${to2:-0}/g; s/{host}/'${2:-}'/g" |
		curl -sS --max-time 60 "http://127.0.0.1:$http1/" --data-binary @-
}

t0=$(date +%s)
up=0
ch_start "$(mktemp -d /tmp/nsight-fleet-XXXXXX)" "$out" && up=1
if [ $up = 1 ]; then
	ktap_result OK "two servers up ($(q "$http1" 'SELECT version()'), ports $http1 and $http2)"
else
	ktap_result FAIL "two servers up" "$(cat "$out"/server*.out "$ch_dir"/s*/error.log 2>/dev/null | tail -n 30)"
	echo "1..$n"
	exit 1
fi

schema_ok=1
for s in 1 2; do
	"$ana" --export-schema --cluster nsight_fleet clickhouse://127.0.0.1/fleet >"$out/schema.sql" &&
		clickhouse-client --port "$([ $s = 1 ] && echo "$tcp1" || echo "$tcp2")" --multiquery \
			<"$out/schema.sql" >>"$out/schema.log" 2>&1 || schema_ok=0
done
[ $schema_ok = 1 ] && ktap_result OK "--export-schema --cluster creates the tables on both shards" ||
	ktap_result FAIL "--export-schema --cluster creates the tables on both shards" "$(cat "$out/schema.log")"

kinds="hog idleirq kworker mixed chunked lock clean"
# Captures of guests too, NAME=FILE each (check.sh passes the two-host
# test's): exported and checked like the synthetic ones.
for c in ${NSIGHT_FLEET_CAPTURES:-}; do
	kinds="$kinds ${c%%=*}"
done
# capture NAME FILE: the capture of NAME into FILE.
capture() {
	for c in ${NSIGHT_FLEET_CAPTURES:-}; do
		[ "${c%%=*}" = "$1" ] && { cp "${c#*=}" "$2"; return; }
	done
	"$gen" "$1" "$2"
}
nk=$(echo $kinds | wc -w)
i=0
export_ok=1
for k in $kinds; do
	capture "$k" "$out/$k.nsight" || export_ok=0
	i=$((i + 1))
	port=$([ $((i % 2)) = 1 ] && echo "$http1" || echo "$http2")
	"$ana" --export "clickhouse://127.0.0.1:$port/fleet" --host "host-$k" --batch 50 \
		"$out/$k.nsight" >>"$out/export.log" 2>&1 || export_ok=0
	"$ana" --json "$out/$k.nsight" >"$out/$k.json" 2>>"$out/export.log" || export_ok=0
done
[ $export_ok = 1 ] && ktap_result OK "$nk captures exported, through either server" ||
	ktap_result FAIL "$nk captures exported, through either server" "$(cat "$out/export.log")"

before=$(q "$http1" "SELECT count() FROM fleet.messages")
again_ok=1
for k in $kinds; do
	"$ana" --export "clickhouse://127.0.0.1:$http2/fleet" --host "host-$k" "$out/$k.nsight" \
		>"$out/again.out" 2>&1 || again_ok=0
	grep -q 'already in' "$out/again.out" || again_ok=0
done
after=$(q "$http1" "SELECT count() FROM fleet.messages")
[ $again_ok = 1 ] && [ "$before" = "$after" ] && ktap_result OK "a re-run writes nothing ($after messages)" ||
	ktap_result FAIL "a re-run writes nothing" "# $before rows before, $after after; $(cat "$out/again.out")"

n1=$(q "$http1" "SELECT count() FROM fleet.messages_local")
n2=$(q "$http2" "SELECT count() FROM fleet.messages_local")
[ "$n1" -gt 0 ] && [ "$n2" -gt 0 ] && ktap_result OK "both shards hold messages ($n1 and $n2)" ||
	ktap_result FAIL "both shards hold messages ($n1 and $n2)"

# per_host TSV: each host's host, comm, dir, count, p50, p90, p99, p99.9,
# max in TSV (the latency query's columns) against nsight-analyze --json
# of its capture; lat_ok 1 if they are the same, else lat_diag says how not.
per_host() {
	lat_ok=1
	lat_diag=
	for k in $kinds; do
		jq -r --arg h "host-$k" '.latency.groups[] | select(.count > 0) |
			[$h, .comm, .dir, .count, .p50, .p90, .p99, ."p99.9", .max] | @tsv' "$out/$k.json" |
			sort >"$out/want.tsv"
		awk -F '\t' -v h="host-$k" '$1 == h' "$1" | sort >"$out/got.tsv"
		if [ ! -s "$out/want.tsv" ] || ! cmp -s "$out/want.tsv" "$out/got.tsv"; then
			lat_ok=0
			lat_diag="$lat_diag$(diff "$out/want.tsv" "$out/got.tsv")
"
		fi
	done
}

# The latency per host against nsight-analyze --json.
fleet latency >"$out/latency.tsv"
per_host "$out/latency.tsv"
[ $lat_ok = 1 ] && ktap_result OK "latency: count, p50, p90, p99, p99.9, max per host as --json's" ||
	ktap_result FAIL "latency: count, p50, p90, p99, p99.9, max per host as --json's" "$lat_diag"

# Every cause's explained ns, and the top one per host and application.
q "$http1" "SELECT host, comm, dir, category, role, sum(deviation_ns) FROM fleet.causes
	WHERE (capture_id, export_id) GLOBAL IN (SELECT capture_id, min(export_id) FROM fleet.captures GROUP BY capture_id)
	GROUP BY host, comm, dir, category, role" | sort >"$out/explained.tsv"
fleet top-causes >"$out/top.tsv"
fleet causes >"$out/causes.tsv"
cause_ok=1 top_ok=1
cause_diag= top_diag=
: >"$out/want-all.tsv"
for k in $kinds; do
	jq -r --arg h "host-$k" '.diagnosis.groups[] | . as $g | .causes[] |
		[$h, $g.comm, $g.dir, .category, .role, .total_dev_ns] | @tsv' "$out/$k.json" |
		sort >"$out/want.tsv"
	cat "$out/want.tsv" >>"$out/want-all.tsv"
	awk -F '\t' -v h="host-$k" '$1 == h' "$out/explained.tsv" | sort >"$out/got.tsv"
	if ! cmp -s "$out/want.tsv" "$out/got.tsv"; then
		cause_ok=0
		cause_diag="$cause_diag$(diff "$out/want.tsv" "$out/got.tsv")
"
	fi
	# The top: the same category and role, or one explaining as much (a tie).
	jq -r --arg h "host-$k" '.diagnosis.groups[] | select(.causes | length > 0) |
		[$h, .comm, .dir, .causes[0].category, .causes[0].role, .causes[0].total_dev_ns] | @tsv' \
		"$out/$k.json" | sort >"$out/want-top.tsv"
	awk -F '\t' -v h="host-$k" '$1 == h {print $1 "\t" $2 "\t" $3 "\t" $4 "\t" $5 "\t" $6}' \
		"$out/top.tsv" | sort >"$out/got-top.tsv"
	if ! cmp -s "$out/want-top.tsv" "$out/got-top.tsv"; then
		# A tie: the same explained ns.
		if [ "$(cut -f1-3,6 "$out/want-top.tsv")" != "$(cut -f1-3,6 "$out/got-top.tsv")" ]; then
			top_ok=0
			top_diag="$top_diag$(diff "$out/want-top.tsv" "$out/got-top.tsv")
"
		fi
	fi
	# rank 1 in causes is the --json's first cause.
	r1=$(q "$http1" "SELECT DISTINCT comm, dir, category, role FROM fleet.causes WHERE host = 'host-$k' AND rank = 1 ORDER BY comm, dir")
	w1=$(jq -r '.diagnosis.groups[] | select(.causes | length > 0) | [.comm, .dir, .causes[0].category, .causes[0].role] | @tsv' "$out/$k.json" | sort)
	if [ "$r1" != "$w1" ]; then
		top_ok=0
		top_diag="$top_diag# host-$k rank 1: $r1, --json: $w1
"
	fi
done
[ $cause_ok = 1 ] && [ -s "$out/want-all.tsv" ] &&
	ktap_result OK "causes: each cause's explained ns per host as --json's total_dev_ns ($(wc -l <"$out/want-all.tsv") causes)" ||
	ktap_result FAIL "causes: each cause's explained ns per host as --json's total_dev_ns" "$cause_diag"
[ $top_ok = 1 ] && ktap_result OK "top-causes and rank 1: --json's first cause per host and application" ||
	ktap_result FAIL "top-causes and rank 1: --json's first cause per host and application" "$top_diag"
# The guests' captures: the comparisons above pass on no causes against
# none, so at least one guest capture must have cause rows, and its
# top-causes row (and rank 1) be --json's first cause, category and role.
if [ -n "${NSIGHT_FLEET_CAPTURES:-}" ]; then
	guest_ok=0
	guest_diag=
	for c in $NSIGHT_FLEET_CAPTURES; do
		k=${c%%=*}
		want=$(jq -r '.diagnosis.groups[] | select(.causes | length > 0) |
			[.comm, .dir, .causes[0].category, .causes[0].role] | @tsv' "$out/$k.json" | sort)
		rows=$(q "$http1" "SELECT count() FROM fleet.causes WHERE host = 'host-$k'")
		got=$(awk -F '\t' -v h="host-$k" '$1 == h {print $2 "\t" $3 "\t" $4 "\t" $5}' "$out/top.tsv" | sort)
		r1=$(q "$http1" "SELECT DISTINCT comm, dir, category, role FROM fleet.causes WHERE host = 'host-$k' AND rank = 1 ORDER BY comm, dir")
		guest_diag="$guest_diag
host-$k: ${rows:-?} cause rows; top-causes: $(echo "${got:-none}" | tr '\t' ' ' | paste -sd '|' -); --json's first: $(echo "${want:-none}" | tr '\t' ' ' | paste -sd '|' -)"
		[ "${rows:-0}" -gt 0 ] && [ -n "$want" ] && [ "$got" = "$want" ] && [ "$r1" = "$want" ] &&
			guest_ok=1
	done
	[ $guest_ok = 1 ] &&
		ktap_result OK "guest captures: one at least has causes, its top cause --json's first" "${guest_diag#?}" ||
		ktap_result FAIL "guest captures: one at least has causes, its top cause --json's first" "${guest_diag#?}"
fi
# Across hosts: the causes query's sums are the per-host sums added up.
sum_want=$(awk -F '\t' '{s[$4 "\t" $5] += $6} END {for (k in s) print k "\t" s[k]}' "$out/want-all.tsv" | sort)
sum_got=$(cut -f1-3 "$out/causes.tsv" | sort)
[ "$sum_want" = "$sum_got" ] && ktap_result OK "causes across hosts: the per-host sums added up" ||
	ktap_result FAIL "causes across hosts: the per-host sums added up" "$(printf '%s\n--\n%s' "$sum_want" "$sum_got")"

# The slowest message of one host and its first cause.
fleet slowest host-mixed >"$out/slowest.tsv"
want=$(jq -r '.diagnosis.groups[0].slowest[0] | [.latency_ns, .causes[0].category] | @tsv' "$out/mixed.json")
got=$(head -n 1 "$out/slowest.tsv" | awk -F '\t' '{split($16, c, " \\("); print $6 "\t" c[1]}')
[ -n "$want" ] && [ "$want" = "$got" ] && [ "$(wc -l <"$out/slowest.tsv")" = 20 ] &&
	ktap_result OK "slowest: 20 messages of host-mixed, the first $want" ||
	ktap_result FAIL "slowest: 20 messages of host-mixed" "# --json: $want, query: $got"

# compare: host-mixed's second (a synthetic capture spans 40 ms) against the next.
first=$(q "$http1" "SELECT min(start_ns) FROM fleet.messages WHERE host = 'host-mixed'")
sec=$((first / 1000000000))
total=$(jq '.latency.groups[0].count' "$out/mixed.json")
p99=$(jq '.latency.groups[0].p99' "$out/mixed.json")
got=$(from=$sec to=$((sec + 1)) from2=$((sec + 1)) to2=$((sec + 2)) fleet compare |
	awk -F '\t' '$1 == "host-mixed" {print $4, $5, $8}')
[ "$got" = "$total 0 $p99" ] && ktap_result OK "compare: host-mixed's $total messages in the first range, p99 $p99" ||
	ktap_result FAIL "compare: host-mixed's messages in the first range" "# $got, expected $total 0 $p99"

# nsight-analyze fleet: the rows of each query as the SQL's above.
url=clickhouse://127.0.0.1:$http1/fleet
# The rows of fleet --json as TabSeparated (NULL as \N).
rows_tsv() {
	jq -r '.rows[] | [.[] | if . == null then "\\N" else tostring end] | join("\t")' "$1"
}
cmd_ok=1
cmd_diag=
for c in "latency latency" "causes causes" "top-causes top" "slowest slowest --host host-mixed" \
	"compare compare2 --from $sec --to $((sec + 1)) --from2 $((sec + 1)) --to2 $((sec + 2))"; do
	set -- $c
	qn=$1 file=$2
	shift 2
	[ "$qn" = compare ] && from=$sec to=$((sec + 1)) from2=$((sec + 1)) to2=$((sec + 2)) fleet compare >"$out/compare2.tsv"
	case $qn in latency | causes | top-causes | slowest) set -- --from 0 --to 4000000000 "$@" ;; esac
	"$ana" fleet "$url" "$qn" --json "$@" >"$out/cmd-$qn.json" 2>"$out/cmd-$qn.err"
	rc=$?
	rows_tsv "$out/cmd-$qn.json" >"$out/cmd-$qn.tsv" 2>>"$out/cmd-$qn.err"
	if [ $rc != 0 ] || [ ! -s "$out/$file.tsv" ] || ! cmp -s "$out/$file.tsv" "$out/cmd-$qn.tsv"; then
		cmd_ok=0
		cmd_diag="$cmd_diag# $qn: rc $rc $(cat "$out/cmd-$qn.err")
$(diff "$out/$file.tsv" "$out/cmd-$qn.tsv" | head -n 10)
"
	fi
done
[ $cmd_ok = 1 ] && ktap_result OK "nsight-analyze fleet: latency, causes, top-causes, slowest, compare give the SQL's rows" ||
	ktap_result FAIL "nsight-analyze fleet: the SQL's rows" "$cmd_diag"

# Its per-host percentiles against nsight-analyze --json of each capture, through --fleet.
"$ana" --fleet "$url" latency --from 1970-01-01T00:00:00Z --to 2096-10-02T07:06:40Z --json \
	>"$out/cmd-alias.json" 2>&1
jq -r '.rows[] | [.host, .comm, .dir, .count, .p50, .p90, .p99, ."p99.9", .max] | @tsv' \
	"$out/cmd-alias.json" >"$out/cmd-alias.tsv"
per_host "$out/cmd-alias.tsv"
[ $lat_ok = 1 ] && ktap_result OK "--fleet URL latency: each host's percentiles as nsight-analyze --json of its capture" ||
	ktap_result FAIL "--fleet URL latency: each host's percentiles as nsight-analyze --json of its capture" "$lat_diag"

# Its errors: a database that does not exist (exit 1, URL, status), a bad time (exit 2).
"$ana" fleet "clickhouse://127.0.0.1:$http1/nope" causes >"$out/cmd-err.out" 2>&1
rc=$?
"$ana" fleet "$url" causes --from yesterday >>"$out/cmd-err.out" 2>&1
rc2=$?
[ $rc = 1 ] && [ $rc2 = 2 ] &&
	grep -q "fleet query causes: clickhouse://127.0.0.1:$http1/nope: SELECT .*HTTP 404: .*Database nope doesn.t exist" "$out/cmd-err.out" &&
	ktap_result OK "fleet errors: no such database (exit 1, URL, HTTP 404), a bad --from (exit 2)" ||
	ktap_result FAIL "fleet errors: no such database, a bad --from" "# rc $rc, $rc2: $(cat "$out/cmd-err.out")"

# A fleet report, as a terminal shows it: the captures' seconds.
range=$(q "$http1" "SELECT min(time), max(time) + 1 FROM fleet.messages WHERE time > 0 FORMAT CSV" | tr -d '"' |
	awk -F, '{gsub(" ", "T", $1); gsub(" ", "T", $2); print "--from " $1 "Z --to " $2 "Z"}')
for qn in latency causes top-causes "slowest --host host-mixed"; do
	# shellcheck disable=SC2086
	"$ana" fleet "$url" $qn $range 2>&1 | sed 's/^/# /'
	echo "#"
done

# Errors: no such database (the server's status and message), no server.
"$ana" --export "clickhouse://127.0.0.1:$http1/nope" --host h "$out/hog.nsight" >"$out/err.out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "clickhouse://127.0.0.1:$http1/nope: SELECT count().*: HTTP 404: .*Database nope doesn.t exist" "$out/err.out" &&
	ktap_result OK "a database that does not exist: exit 1, URL, status and message" ||
	ktap_result FAIL "a database that does not exist: exit 1, URL, status and message" "# rc $rc: $(cat "$out/err.out")"
"$ana" --export "clickhouse://127.0.0.1:1/fleet" --host h "$out/hog.nsight" >"$out/err.out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "clickhouse://127.0.0.1:1/fleet: .*: .*onnect" "$out/err.out" &&
	ktap_result OK "no server: exit 1, URL and libcurl's reason" ||
	ktap_result FAIL "no server: exit 1, URL and libcurl's reason" "# rc $rc: $(cat "$out/err.out")"

# Half-way: a database without the causes table; messages are written, then the export fails.
for s in "$tcp1" "$tcp2"; do
	"$ana" --export-schema --cluster nsight_fleet clickhouse://127.0.0.1/half |
		clickhouse-client --port "$s" --multiquery >>"$out/schema.log" 2>&1
	clickhouse-client --port "$s" -q "DROP TABLE half.causes" >>"$out/schema.log" 2>&1
done
"$ana" --export "clickhouse://127.0.0.1:$http1/half" --host host-half --batch 50 "$out/mixed.nsight" \
	>"$out/half.out" 2>&1
rc=$?
rows=$(q "$http1" "SELECT count() FROM half.messages")
db=half fleet latency >"$out/half.tsv"
[ $rc = 1 ] && [ "$rows" -gt 0 ] && [ ! -s "$out/half.tsv" ] &&
	grep -q "capture's row was not written" "$out/half.out" &&
	ktap_result OK "half-way failure: exit 1, $rows message rows written and counted by no query" ||
	ktap_result FAIL "half-way failure: exit 1, rows written and counted by no query" "# rc $rc, $rows rows, $(cat "$out/half.out" "$out/half.tsv")"

echo "# fleet: $(( $(date +%s) - t0 )) s"
echo "1..$n"
exit $failed
