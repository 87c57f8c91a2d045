-- SPDX-License-Identifier: GPL-2.0
-- nsight's fleet queries over the tables nsight-analyze --export writes
-- (nsight.rst "Fleet view"; nsight-analyze --export-schema creates them).
-- ClickHouse 18.16 and later. nsight-analyze fleet URL NAME runs the
-- query NAME of this file, built into it (userspace/lib/export/chfleet.c):
-- change it here. Placeholders, replaced before a query runs (the command
-- does it; by hand, sed):
--
--   {db}              the database
--   {from}, {to}      a time range, [from, to), unix seconds
--   {from2}, {to2}    a second range (compare)
--   {host}            a host, as a SQL string literal: 'web-1'
--
-- Every query counts only the rows of a finished export: one whose
-- captures row was written (the last step of an export), and of a capture
-- exported twice at once the lower export_id. The rows of an export that
-- failed half-way are never counted. GLOBAL: over Distributed tables the
-- list of finished exports is built once and sent to the shards.
--
-- Percentiles are nearest-rank, as nsight-analyze computes them: the
-- value at rank ceil(p * n), from the exact sorted values
-- (arraySort(groupArray)), so a host's figures are nsight-analyze's for
-- the same messages. For very large groups quantileTDigest(p)(total_ns)
-- is the approximate, bounded-memory alternative.

-- name: latency
-- p50, p90, p99 and p99.9 of the complete messages' latency (total_ns)
-- per host, application (comm) and direction in [from, to), slowest p99
-- first.
SELECT host, comm, dir, count, p50, p90, p99, `p99.9`, max
FROM
(
    SELECT host, comm, dir, count() AS count,
        arraySort(groupArray(assumeNotNull(total_ns))) AS v,
        v[greatest(1, intDiv(length(v) * 50000 + 99999, 100000))] AS p50,
        v[greatest(1, intDiv(length(v) * 90000 + 99999, 100000))] AS p90,
        v[greatest(1, intDiv(length(v) * 99000 + 99999, 100000))] AS p99,
        v[greatest(1, intDiv(length(v) * 99900 + 99999, 100000))] AS `p99.9`,
        v[length(v)] AS max
    FROM {db}.messages
    WHERE complete AND time >= toDateTime({from}) AND time < toDateTime({to})
        AND (capture_id, export_id) GLOBAL IN
            (SELECT capture_id, min(export_id) FROM {db}.captures GROUP BY capture_id)
    GROUP BY host, comm, dir
)
ORDER BY p99 DESC, host, comm, dir;

-- name: causes
-- The causes of the tail across hosts in [from, to), ranked by the
-- latency they explain (the sum of their deviations over the tail
-- messages), with the messages they are in and the hosts they are on.
SELECT category, role, sum(deviation_ns) AS explained_ns, count() AS messages,
    uniqExact(host) AS hosts, uniqExact(host, comm, dir) AS apps,
    round(avg(share), 3) AS mean_share
FROM {db}.causes
WHERE time >= toDateTime({from}) AND time < toDateTime({to})
    AND (capture_id, export_id) GLOBAL IN
        (SELECT capture_id, min(export_id) FROM {db}.captures GROUP BY capture_id)
GROUP BY category, role
ORDER BY explained_ns DESC, messages DESC, category, role;

-- name: top-causes
-- The cause that explains the most of each host's and application's
-- tail in [from, to) (nsight-analyze's first cause of the application).
SELECT host, comm, dir, category, role, sum(deviation_ns) AS explained_ns,
    count() AS messages
FROM {db}.causes
WHERE time >= toDateTime({from}) AND time < toDateTime({to})
    AND (capture_id, export_id) GLOBAL IN
        (SELECT capture_id, min(export_id) FROM {db}.captures GROUP BY capture_id)
GROUP BY host, comm, dir, category, role
ORDER BY host, comm, dir, explained_ns DESC, messages DESC, category, role
LIMIT 1 BY host, comm, dir;

-- name: slowest
-- The 20 slowest messages of host {host} in [from, to): their stages and
-- their causes (category, core role, ns of the deviation each explains).
SELECT time, comm, pid, dir, id, total_ns, n_h_ns, h_a_ns, app_ns, send_queue_ns,
    queue_xmit_ns, xmit_done_ns, cpu_from, cpu_to, deviation_ns, causes
FROM
(
    SELECT capture_id, dir, id, time, comm, pid, total_ns, n_h_ns, h_a_ns, app_ns,
        send_queue_ns, queue_xmit_ns, xmit_done_ns, cpu_from, cpu_to, deviation_ns
    FROM {db}.messages
    WHERE host = {host} AND complete
        AND time >= toDateTime({from}) AND time < toDateTime({to})
        AND (capture_id, export_id) GLOBAL IN
            (SELECT capture_id, min(export_id) FROM {db}.captures GROUP BY capture_id)
    ORDER BY total_ns DESC, capture_id, dir, id
    LIMIT 20
)
GLOBAL ANY LEFT JOIN
(
    SELECT capture_id, dir, id,
        arrayStringConcat(groupArray(concat(category, ' (', role, ') ',
            toString(deviation_ns))), ', ') AS causes
    FROM {db}.causes
    WHERE host = {host}
        AND time >= toDateTime({from}) AND time < toDateTime({to})
        AND (capture_id, export_id) GLOBAL IN
            (SELECT capture_id, min(export_id) FROM {db}.captures GROUP BY capture_id)
    GROUP BY capture_id, dir, id
) USING (capture_id, dir, id)
ORDER BY total_ns DESC, capture_id, dir, id;

-- name: compare
-- Two time ranges side by side per host, application and direction:
-- [from, to) as a, [from2, to2) as b: counts, p50, p99 and p99.9 of each.
SELECT host, comm, dir, count_a, count_b, p50_a, p50_b, p99_a, p99_b, `p99.9_a`, `p99.9_b`
FROM
(
    SELECT host, comm, dir,
        arraySort(groupArrayIf(v, r = 1)) AS a, arraySort(groupArrayIf(v, r = 2)) AS b,
        length(a) AS count_a, length(b) AS count_b,
        a[greatest(1, intDiv(length(a) * 50000 + 99999, 100000))] AS p50_a,
        b[greatest(1, intDiv(length(b) * 50000 + 99999, 100000))] AS p50_b,
        a[greatest(1, intDiv(length(a) * 99000 + 99999, 100000))] AS p99_a,
        b[greatest(1, intDiv(length(b) * 99000 + 99999, 100000))] AS p99_b,
        a[greatest(1, intDiv(length(a) * 99900 + 99999, 100000))] AS `p99.9_a`,
        b[greatest(1, intDiv(length(b) * 99900 + 99999, 100000))] AS `p99.9_b`
    FROM
    (
        SELECT host, comm, dir, assumeNotNull(total_ns) AS v,
            multiIf(time >= toDateTime({from}) AND time < toDateTime({to}), 1,
                    time >= toDateTime({from2}) AND time < toDateTime({to2}), 2, 0) AS r
        FROM {db}.messages
        WHERE complete AND r > 0
            AND (capture_id, export_id) GLOBAL IN
                (SELECT capture_id, min(export_id) FROM {db}.captures GROUP BY capture_id)
    )
    GROUP BY host, comm, dir
)
ORDER BY host, comm, dir;
