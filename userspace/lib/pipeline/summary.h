/* SPDX-License-Identifier: MIT */
/*
 * The numbers nsight-analyze reports about a dump stream, and the check of
 * the stream against the kernel's counters in its STATUS chunk. Computed by
 * nsight_summarize() from a reader; printed by analyze/print.h.
 */
#ifndef NSIGHT_SUMMARY_H
#define NSIGHT_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/nsight.h>

#include "base/diag.h"
#include "format/records.h"
#include "format/stream.h"
#include "format/tscguard.h"

struct nsight_summary_cpu {
	uint32_t cpu;
	bool seen;			/* a RECORDS chunk was present */
	uint64_t records;		/* event records (not SUBBUF) */
	uint64_t record_bytes;
	uint64_t subbufs;
	uint64_t subbuf_dropped;	/* sum of the SUBBUF dropped fields */
	uint64_t seq_first;		/* valid when subbufs > 0 */
	uint64_t seq_last;
	uint32_t first_type;		/* of the first record, when seen */
	bool have_status;		/* an entry in the STATUS chunk */
	struct nsight_cpu_status status;
	uint64_t dropped_after;		/* kernel drops no SUBBUF reported yet */
	uint64_t dropped;		/* subbuf_dropped + dropped_after */
	uint64_t skipped;		/* records a flight recorder left out (SKIP) */
	uint64_t skipped_subbufs;
	uint64_t skipped_bytes;
	uint64_t bad_tsc;		/* records with a corrupt TSC (tscguard.h) */
	uint64_t bad_tsc_at;		/* the first one's byte offset */
	struct nsight_cdec dec;		/* for its CRECORDS chunks */
};

enum nsight_problem_kind {
	NSIGHT_PROB_RECORDS,	/* a: records in stream and skipped, b: kernel's records_written */
	NSIGHT_PROB_HITS,	/* a: hook_hits, b: written, c: dropped */
	NSIGHT_PROB_DROPS,	/* a: drops in SUBBUF records, b: kernel's records_dropped */
	NSIGHT_PROB_NO_STATUS,	/* records of a CPU the STATUS chunk does not list */
	NSIGHT_PROB_SEQ_START,	/* a: the first sub-buffer's seq (not 0) */
	NSIGHT_PROB_SEQ_GAP,	/* a: previous seq, b: this seq */
	NSIGHT_PROB_FIRST_REC,	/* a: type of a CPU's first record (not SUBBUF) */
	NSIGHT_PROB_CUT,	/* a: byte where the stream ends early (cut_ok) */
	NSIGHT_PROB_BAD_TSC,	/* a: records with a corrupt TSC, b: the first one's byte */
	NSIGHT_PROB_NAMELESS,	/* a: tids given with no thread record before, b: the first's byte */
	NSIGHT_PROB_FLOWLESS,	/* a: socket records with no sock record before, b: the first's byte */
};

struct nsight_problem {
	enum nsight_problem_kind kind;
	uint32_t cpu;
	uint64_t a, b, c;
};

/* Problems kept for printing; more are only counted. */
#define NSIGHT_SUMMARY_MAX_PROBLEMS 1000

struct nsight_summary {
	struct nsight_stream_hdr hdr;	/* release NUL-terminated by the reader */
	uint64_t stream_bytes;
	uint64_t chunks;		/* END excluded */
	uint64_t skipped_chunks;	/* of unknown types */

	bool have_tsc;			/* any record at all */
	uint64_t tsc_first, tsc_last;	/* lowest and highest hdr.tsc */
	/*
	 * Records with a corrupt TSC: counted (records, types, the check's
	 * bad_tsc problem) but in nothing else: not in the span, not given
	 * to the hook.
	 */
	uint64_t bad_tsc;
	struct nsight_tscguard guard;

	uint64_t records;		/* every record but SUBBUF */
	uint64_t record_bytes;
	uint64_t subbufs;
	uint64_t skipped;		/* records a flight recorder left out */
	uint64_t skipped_subbufs;
	uint64_t triggers;		/* TRIGGER chunks */
	uint64_t dropped;		/* dropped_subbuf + dropped_after */
	uint64_t dropped_subbuf;
	uint64_t dropped_after;		/* valid when have_status */
	bool have_status;		/* the stream has a STATUS chunk */

	uint32_t nr_cpus;
	struct nsight_summary_cpu *cpus;	/* nr_cpus entries */
	uint64_t *type_counts;		/* 65536 entries, indexed by hdr.type */

	bool cut;			/* ended early; analysed up to @cut_at */
	uint64_t cut_at;
	char cut_msg[NSIGHT_DIAG_LEN];	/* the reader's message */

	uint64_t n_problems;		/* all found */
	size_t n_kept;			/* in @problems */
	struct nsight_problem *problems;
};

/*
 * Read the rest of the stream from @r (initialized, header read), walking
 * and validating every record, and fill @s. A framing or record error, or
 * an invalid STATUS chunk (a second one, a CPU out of range or listed
 * twice), returns a negative enum nsight_errcode with @d naming the byte
 * offset. Mismatches with the kernel's counters are not errors: they end up
 * in s->problems. @s needs nsight_summary_fini() either way.
 */
int nsight_summarize(struct nsight_stream_reader *r, struct nsight_summary *s,
		     struct nsight_diag *d);

/*
 * Callers that want the records too (the lifetime analysis): @record sees
 * every record the walker yields, after it is counted; @chunk every chunk
 * that is neither RECORDS, STATUS nor SKIP; @records (may be NULL) each RECORDS
 * chunk before its records. A negative return stops the read with that
 * error (and @d filled).
 */
struct nsight_summary_hook {
	int (*record)(void *ctx, const struct nsight_rec *rec, struct nsight_diag *d);
	int (*chunk)(void *ctx, const struct nsight_chunk *ch, struct nsight_diag *d);
	void *ctx;
	int (*records)(void *ctx, const struct nsight_chunk *ch, struct nsight_diag *d);
	/*
	 * A stream cut short (Ctrl-C during a dump, a full disk) ends the
	 * read at the last whole chunk instead of failing: s->cut, and a
	 * NSIGHT_PROB_CUT problem.
	 */
	bool cut_ok;
};

int nsight_summarize_hooked(struct nsight_stream_reader *r, struct nsight_summary *s,
			    const struct nsight_summary_hook *hook, struct nsight_diag *d);
void nsight_summary_fini(struct nsight_summary *s);

/* "  cpu 1: stream holds 10 records, kernel wrote 12" without the indent. */
void nsight_problem_format(const struct nsight_problem *p, char *buf, size_t len);
/* Short name of a problem kind for JSON ("records", "seq_gap", ...). */
const char *nsight_problem_kind_name(enum nsight_problem_kind kind);

/* Span in seconds, or a negative number when tsc_hz is 0 or no records. */
double nsight_summary_span_seconds(const struct nsight_summary *s);

#endif /* NSIGHT_SUMMARY_H */
