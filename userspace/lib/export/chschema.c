// SPDX-License-Identifier: MIT
/* The fleet tables' columns and CREATE TABLE statements (chschema.h). */
#include "export/chschema.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* A capture: the host, its kernel and CPUs, its span, records and losses, what was written. */
static const struct nsight_chcol captures[] = {
	{ "capture_id", "String", NULL },	/* SHA-256 of the capture's bytes, hex, 32 digits */
	{ "export_id", "UInt64", NULL },	/* this export (random) */
	{ "host", "String", NULL },
	{ "file", "String", NULL },		/* the capture's name as given */
	{ "exported_ns", "Int64", NULL },	/* realtime of the export */
	{ "exported", "DateTime", NULL },	/* its second */
	{ "kernel", "String", NULL },
	{ "cpus", "UInt32", NULL },
	{ "tsc_hz", "UInt64", NULL },
	{ "first_ns", "Int64", NULL },		/* realtime of the first record (0: no clock) */
	{ "span_ns", "Int64", NULL },
	{ "records", "UInt64", NULL },
	{ "dropped", "UInt64", NULL },
	{ "dropped_per_cpu", "Array(UInt64)", NULL },
	{ "problems", "UInt64", NULL },		/* the check's */
	{ "messages", "UInt64", NULL },		/* rows written to messages */
	{ "complete", "UInt64", NULL },
	{ "causes", "UInt64", NULL },		/* rows written to causes */
	{ "tail_pct", "Float64", NULL },	/* the diagnosis' tail */
	{ "nsight_version", "String", NULL },
	{ "stream_version", "UInt32", NULL },
};

/* A message lifetime (--json "messages", "segments_ns" as NAME_ns columns). */
static const struct nsight_chcol messages[] = {
	{ "capture_id", "String", NULL },
	{ "export_id", "UInt64", NULL },
	{ "host", "String", NULL },
	{ "comm", "String", NULL },
	{ "pid", "UInt32", NULL },
	{ "tid", "UInt32", NULL },
	{ "dir", "String", NULL },		/* rx, tx */
	{ "protocol", "String", NULL },
	{ "src", "String", NULL },
	{ "dst", "String", NULL },
	{ "sock_id", "UInt64", NULL },
	{ "id", "UInt64", NULL },		/* per direction in the capture */
	{ "start_ns", "Int64", NULL },		/* realtime of its first stage (0: untimed) */
	{ "time", "DateTime", NULL },		/* its second (partitions, ranges) */
	{ "complete", "UInt8", NULL },
	{ "reason", "String", NULL },		/* "complete" or why not */
	{ "n_h_ns", "Nullable(Int64)", NULL },	/* rx: NIC -> hand-off */
	{ "h_a_ns", "Nullable(Int64)", NULL },	/* rx: hand-off -> application */
	{ "app_ns", "Nullable(Int64)", NULL },	/* rx: application -> its request's end mark */
	{ "send_queue_ns", "Nullable(Int64)", NULL },	/* tx: send -> qdisc */
	{ "queue_xmit_ns", "Nullable(Int64)", NULL },	/* tx: qdisc -> driver */
	{ "xmit_done_ns", "Nullable(Int64)", NULL },	/* tx: driver -> completion */
	{ "total_ns", "Nullable(Int64)", NULL },	/* complete: the latency */
	{ "cpu_from", "Nullable(UInt32)", NULL },	/* rx: hand-off's, tx: send's */
	{ "cpu_to", "Nullable(UInt32)", NULL },		/* rx: application's, tx: driver's */
	{ "packets", "UInt32", NULL },
	{ "bytes", "UInt64", NULL },
	{ "fifo", "UInt8", NULL },
	{ "early_read", "UInt8", NULL },
	{ "tcp_hold", "String", NULL },		/* "" for none */
	{ "tcp_hold_ns", "UInt64", NULL },
	{ "tail", "UInt8", NULL },		/* diagnosed: in its application's tail */
	{ "deviation_ns", "Nullable(Int64)", NULL },	/* tail: latency - reference median */
	{ "coverage", "Nullable(Float64)", NULL },	/* tail: explained / deviation */
};

/* A cause of a tail message ("slowest"[].causes), with its rank in the capture ("causes"). */
static const struct nsight_chcol causes[] = {
	{ "capture_id", "String", NULL },
	{ "export_id", "UInt64", NULL },
	{ "host", "String", NULL },
	{ "comm", "String", NULL },
	{ "pid", "UInt32", NULL },
	{ "dir", "String", NULL },
	{ "id", "UInt64", NULL },		/* the message's, as in messages */
	{ "start_ns", "Int64", NULL },
	{ "time", "DateTime", NULL },		/* its second (partitions, ranges) */
	{ "latency_ns", "Int64", NULL },	/* the message's */
	{ "message_deviation_ns", "Int64", NULL },
	{ "coverage", "Nullable(Float64)", NULL },
	{ "category", "String", NULL },
	{ "role", "String", NULL },		/* A (application core), R (receive core) */
	{ "cpu", "Nullable(UInt32)", NULL },	/* the core of the role */
	{ "deviation_ns", "Int64", NULL },	/* what it explains of the message */
	{ "share", "Float64", NULL },		/* of the message's deviation */
	{ "rank", "UInt32", NULL },		/* 1..: among its application's causes */
	{ "total_dev_ns", "Int64", NULL },	/* over the application's tail */
	{ "cause_share", "Float64", NULL },	/* of the tail's excess latency */
};

const struct nsight_chtable_def nsight_chtables[__NSIGHT_CH_TABLES] = {
	[NSIGHT_CH_CAPTURES] = { "captures", captures, N(captures), NULL, "(host, capture_id)" },
	[NSIGHT_CH_MESSAGES] = { "messages", messages, N(messages), "toYYYYMMDD(time)",
				 "(host, comm, dir, time, capture_id, id)" },
	[NSIGHT_CH_CAUSES] = { "causes", causes, N(causes), "toYYYYMMDD(time)",
			       "(host, comm, dir, time, capture_id, id)" },
};

size_t nsight_chschema_n_inserted(enum nsight_chtable t)
{
	const struct nsight_chtable_def *d = &nsight_chtables[t];
	size_t i, n = 0;

	for (i = 0; i < d->n_cols; i++)
		n += !d->cols[i].materialized;
	return n;
}

void nsight_chschema_columns(FILE *f, enum nsight_chtable t)
{
	const struct nsight_chtable_def *d = &nsight_chtables[t];
	const char *sep = "(";
	size_t i;

	for (i = 0; i < d->n_cols; i++) {
		if (d->cols[i].materialized)
			continue;
		fprintf(f, "%s%s", sep, d->cols[i].name);
		sep = ", ";
	}
	fputc(')', f);
}

static void create(FILE *f, const char *db, const struct nsight_chtable_def *d, const char *suffix)
{
	size_t i;

	fprintf(f, "CREATE TABLE IF NOT EXISTS %s.%s%s\n(\n", db, d->name, suffix);
	for (i = 0; i < d->n_cols; i++) {
		fprintf(f, "    %s %s", d->cols[i].name, d->cols[i].type);
		if (d->cols[i].materialized)
			fprintf(f, " MATERIALIZED %s", d->cols[i].materialized);
		fputs(i + 1 < d->n_cols ? ",\n" : "\n", f);
	}
	fputs(")\nENGINE = MergeTree()\n", f);
	if (d->partition)
		fprintf(f, "PARTITION BY %s\n", d->partition);
	fprintf(f, "ORDER BY %s;\n\n", d->order);
}

void nsight_chschema_print(FILE *f, const char *db, const char *cluster)
{
	size_t t;

	fprintf(f, "CREATE DATABASE IF NOT EXISTS %s;\n\n", db);
	for (t = 0; t < __NSIGHT_CH_TABLES; t++) {
		const struct nsight_chtable_def *d = &nsight_chtables[t];

		create(f, db, d, cluster ? "_local" : "");
		if (cluster)
			fprintf(f, "CREATE TABLE IF NOT EXISTS %s.%s AS %s.%s_local\n"
				"ENGINE = Distributed(%s, %s, %s_local, cityHash64(capture_id));\n\n",
				db, d->name, db, d->name, cluster, db, d->name);
	}
}
