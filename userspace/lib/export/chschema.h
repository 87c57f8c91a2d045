/* SPDX-License-Identifier: MIT */
/*
 * The fleet tables in ClickHouse (nsight.rst "Fleet view"): their columns,
 * the CREATE TABLE statements (MergeTree tables, and with a cluster a
 * Distributed table over each) and the column lists of their INSERTs.
 *
 *   captures  a row per capture exported, written last: what it holds
 *   messages  a row per message lifetime (the latency summary's)
 *   causes    a row per cause of a diagnosed tail message
 *
 * Columns are named as nsight-analyze --json names the same values. A
 * column with an expression is MATERIALIZED (computed by the server, not
 * inserted); none is: 18.16 cannot insert into a Distributed table over
 * a table that has one, so the times' seconds (DateTime) are written.
 */
#ifndef NSIGHT_CHSCHEMA_H
#define NSIGHT_CHSCHEMA_H

#include <stddef.h>
#include <stdio.h>

enum nsight_chtable {
	NSIGHT_CH_CAPTURES,
	NSIGHT_CH_MESSAGES,
	NSIGHT_CH_CAUSES,
	__NSIGHT_CH_TABLES
};

struct nsight_chcol {
	const char *name;
	const char *type;
	const char *materialized;	/* expression, or NULL: inserted */
};

struct nsight_chtable_def {
	const char *name;		/* "messages" */
	const struct nsight_chcol *cols;
	size_t n_cols;
	const char *partition;		/* PARTITION BY, or NULL */
	const char *order;		/* ORDER BY */
};

extern const struct nsight_chtable_def nsight_chtables[__NSIGHT_CH_TABLES];

/* The columns inserted (not materialized) of @t. */
size_t nsight_chschema_n_inserted(enum nsight_chtable t);
/* "(capture_id, export_id, ...)": the columns inserted of @t, in order. */
void nsight_chschema_columns(FILE *f, enum nsight_chtable t);

/*
 * The CREATE TABLE statements for database @db, each ended by ";\n":
 * without @cluster, the three tables as MergeTree; with it, each as a
 * MergeTree NAME_local and a Distributed NAME over @cluster's shards,
 * sharded by the capture (cityHash64(capture_id)).
 */
void nsight_chschema_print(FILE *f, const char *db, const char *cluster);

#endif /* NSIGHT_CHSCHEMA_H */
