/* SPDX-License-Identifier: MIT */
/*
 * The analysis of a capture one time window at a time (--window), in
 * memory bounded by the busiest window rather than the capture.
 *
 * A first pass reads the whole stream once: its summary and check (as
 * without windows), and an index of where each RECORDS chunk is and which
 * TSCs it holds. Each window [lo, hi) is then analysed as a capture that
 * ran only from lo to hi would be: its records, read back from the chunks
 * that hold any (a stream on stdin is first copied to a temporary file),
 * with what such a capture would also have had:
 *
 * - the timekeeper and clock_sync records in force at lo (the last ones
 *   before it), so that its stamps convert to clock time;
 * - every chunk that is not RECORDS or STATUS (kernel symbols, PHC
 *   samples, PT trace and code), and each CPU's PT start and stop
 *   records, which describe those chunks;
 * - the records each CPU lost right after its last record in the window
 *   (the drops of the sub-buffer headers up to its next record, or the
 *   kernel's count after its last one), so that a message at the window's
 *   end is not taken as complete when records of it may be lost.
 *
 * Messages that cross a window's edge lack a stage in it and are counted
 * as incomplete, as at the edges of a capture.
 */
#ifndef NSIGHT_WINDOW_H
#define NSIGHT_WINDOW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pipeline/analysis.h"
#include "capture/ksyms.h"
#include "pipeline/summary.h"

/* At most this many windows: a narrower --window is refused. */
#define NSIGHT_WINDOWS_MAX	100000

/* Where a chunk is in the stream; TSCs only for RECORDS. */
struct nsight_win_chunk {
	uint32_t type, cpu;
	uint64_t offset, payload_offset, size;
	uint64_t tsc_min, tsc_max;	/* of its records, SUBBUF included */
	uint64_t dec_tsc;		/* CRECORDS: its CPU's TSC before it */
	bool dec_have;
	uint64_t bad_before;		/* its CPU's corrupt TSCs before it */
	bool clean;			/* the first pass found no corrupt TSC in it */
};

/* A record kept aside by the first pass (timekeeper, clock_sync, PT). */
struct nsight_win_rec {
	bool have;
	uint64_t tsc;
	uint64_t offset;		/* in the stream */
	uint8_t *data;			/* the whole record (hdr.size bytes) */
	size_t cap;
};

/* Per CPU, while a window is read: what it lost after its last record there. */
struct nsight_win_cpu {
	bool seen;			/* a record in the window */
	bool closed;			/* a later record ended the count */
	size_t last;			/* the last chunk read (index into recs) */
	uint64_t pending;		/* drops since the last record in the window */
};

/* A flight recorder's window (a TRIGGER chunk) and the clock records it carries. */
struct nsight_win_trigger {
	struct nsight_stream_trigger t;
	struct nsight_win_rec sync, tk;
};

struct nsight_windows {
	FILE *file;			/* the input or its temporary copy */
	bool spooled;			/* file is a temporary copy (closed at fini) */
	struct nsight_summary sum;	/* of the whole capture, with its check */

	struct nsight_win_chunk *recs;	/* RECORDS chunks with records, stream order */
	size_t n_recs, cap_recs;
	struct nsight_win_chunk *other;	/* PHC, PT, KTEXT chunks */
	size_t n_other, cap_other;
	struct nsight_win_rec *pt;	/* per CPU: [2 * cpu] start, [2 * cpu + 1] stop */
	size_t n_pt;
	struct nsight_win_rec *cr3;	/* per process, its latest pt_cr3 record */
	size_t n_cr3, cap_cr3;
	struct nsight_u64map cr3_by_pid;	/* pid -> index in cr3 */

	struct nsight_win_trigger *trig;	/* TRIGGER chunks, stream order */
	size_t n_trig, cap_trig;
	bool by_trigger;		/* the windows are the triggers' */

	uint64_t first;			/* TSC where window 0 starts */
	uint64_t width;			/* in TSC ticks */
	uint64_t n_windows;
	uint64_t next;			/* the window nsight_window_analyze() takes next */
	struct nsight_win_rec tk, sync;	/* the last ones before the next window */

	struct nsight_ksyms ksyms;	/* of the KSYMS chunks, lent to each window */

	struct nsight_tscguard guard;	/* the records of buf left out, as the first pass */
	uint8_t *buf;			/* one chunk's payload */
	size_t buf_cap;
	uint64_t *tail;			/* per CPU, for the window being read */
	struct nsight_win_cpu *cpus;	/* nr_cpus entries */
};

/*
 * Read the stream on @in once: summary, check, index and kernel symbols.
 * A stream that cannot be seeked (a pipe) is copied to a temporary file
 * in $TMPDIR (or /tmp) first. Returns 0 or a negative enum
 * nsight_errcode with @d filled; nsight_windows_fini() either way.
 */
int nsight_windows_open(struct nsight_windows *w, FILE *in, struct nsight_diag *d);
void nsight_windows_fini(struct nsight_windows *w);

/*
 * Cut the capture's span into windows @width_ns wide from its first
 * record. Fails (-NSIGHT_E_INVAL) when the stream has no TSC frequency,
 * the width is under one TSC tick, or it makes more than
 * NSIGHT_WINDOWS_MAX windows.
 */
int nsight_windows_set_width(struct nsight_windows *w, uint64_t width_ns, struct nsight_diag *d);

/*
 * Cut the capture into windows of about @per_window records each (the
 * capture's records over its span), at least 1 ms wide and in whole
 * milliseconds, at most NSIGHT_WINDOWS_MAX of them; the width in
 * *@width_ns. Fails as nsight_windows_set_width().
 */
int nsight_windows_set_records(struct nsight_windows *w, uint64_t per_window, uint64_t *width_ns,
			       struct nsight_diag *d);

/*
 * Make the windows those a flight recorder saved, one per TRIGGER chunk,
 * each read from its start to its end (no margin: --before and --after
 * are the margins). Fails (-NSIGHT_E_INVAL) when the stream has none or
 * no TSC frequency.
 */
int nsight_windows_use_triggers(struct nsight_windows *w, struct nsight_diag *d);

/* Take the windows again from the first (another pass over them). */
void nsight_windows_rewind(struct nsight_windows *w);

/* TSC @tsc in ns from the capture's first record (0 before it). */
uint64_t nsight_window_tsc_ns(const struct nsight_windows *w, uint64_t tsc);

/* Window @k's bounds in ns from the first record: [*start_ns, *end_ns). */
void nsight_window_bounds_ns(const struct nsight_windows *w, uint64_t k, uint64_t *start_ns,
			     uint64_t *end_ns);

/*
 * Analyse the next window (windows are taken in order, 0 first) into @a,
 * which needs nsight_analysis_fini() either way. *@records gets the number
 * of its records (SUBBUF headers not counted); with none, @a holds an
 * empty analysis. Returns 0 or a negative enum nsight_errcode.
 */
int nsight_window_analyze(struct nsight_windows *w, struct nsight_analysis *a,
			  const struct nsight_analysis_opts *o, uint64_t *records,
			  struct nsight_diag *d);

#endif /* NSIGHT_WINDOW_H */
