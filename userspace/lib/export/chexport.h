/* SPDX-License-Identifier: MIT */
/*
 * A capture's message lifetimes and diagnosis as rows of the fleet tables
 * (chschema.h), and their export to a ClickHouse server (nsight.rst
 * "Fleet view"):
 *
 * 1. The capture id is the SHA-256 of the capture's bytes (32 hex digits).
 *    If the server's captures table has it, the capture is there already
 *    and nothing is written: a re-run adds no rows.
 * 2. The messages rows, then the causes rows, in INSERTs of at most
 *    @batch rows (insert_distributed_sync=1: into a Distributed table, an
 *    INSERT returns when the shards have its rows).
 * 3. The captures row last, saying how many rows of each were written.
 *
 * Every row carries the export's id (random). An export that fails
 * leaves no captures row: its rows are left out by the fleet queries,
 * which count only the rows of an export that has one (the lowest
 * export_id of a capture, should two runs have raced past step 1).
 */
#ifndef NSIGHT_CHEXPORT_H
#define NSIGHT_CHEXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/diag.h"
#include "diagnose/diagnose.h"
#include "export/chhttp.h"
#include "export/chschema.h"
#include "pipeline/analysis.h"

/* The defaults: rows per INSERT, seconds per request. */
#define NSIGHT_CHEXPORT_BATCH 100000
#define NSIGHT_CHEXPORT_TIMEOUT 30

struct nsight_chexport_opts {
	const char *host;		/* the captured host's name */
	const char *file;		/* the capture's name */
	char capture_id[33];		/* nsight_chexport_hash() */
	uint64_t export_id;
	int64_t exported_ns;		/* realtime of the export */
	double tail_pct;		/* the diagnosis' tail */
	size_t batch;			/* rows per INSERT */
};

/* Where rows go: @rows rows of @t as TabSeparated text (@len bytes). */
struct nsight_chexport_sink {
	int (*batch)(void *arg, enum nsight_chtable t, const char *body, size_t len, size_t rows,
		     struct nsight_diag *d);
	void *arg;
};

struct nsight_chexport_counts {
	uint64_t messages, complete, causes;
	uint64_t batches;		/* sent to the sink, the failed one too */
	bool failed;			/* a batch failed: the last one sent, of table failed_table */
	enum nsight_chtable failed_table;
};

/*
 * The rows of @a (analysed with lifetimes) and @dx (its diagnosis):
 * messages, causes, then the captures row, each table's in batches of at
 * most o->batch rows to @s. Stops at the first error of @s. Returns 0 or
 * a negative enum nsight_errcode.
 */
int nsight_chexport_rows(const struct nsight_analysis *a, const struct nsight_dx *dx,
			 const struct nsight_chexport_opts *o, const struct nsight_chexport_sink *s,
			 struct nsight_chexport_counts *c, struct nsight_diag *d);

/* The capture id of the bytes of @f (read to its end) into @id. 0 or -NSIGHT_E_IO. */
int nsight_chexport_hash(FILE *f, char id[33], struct nsight_diag *d);

/* A random export id (never 0). */
uint64_t nsight_chexport_new_id(void);

/*
 * Whether the server's captures table has @capture_id (from export
 * @export_id; 0: any export): *@when its export's realtime ns.
 */
int nsight_chexport_exists(struct nsight_chhttp *h, const char *capture_id, uint64_t export_id,
			   bool *exists, int64_t *when, struct nsight_diag *d);

/* nsight_chexport_rows() to the server of @h (steps 2 and 3 above). */
int nsight_chexport_send(struct nsight_chhttp *h, const struct nsight_analysis *a,
			 const struct nsight_dx *dx, const struct nsight_chexport_opts *o,
			 struct nsight_chexport_counts *c, struct nsight_diag *d);

#endif /* NSIGHT_CHEXPORT_H */
