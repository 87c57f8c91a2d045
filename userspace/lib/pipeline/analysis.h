/* SPDX-License-Identifier: MIT */
/*
 * One pass of nsight-analyze over a stream: the summary and its check, and
 * beside it the records the time conversion and the message lifetimes
 * need, then the lifetimes and their latency figures, and the per-CPU
 * context timelines the diagnosis profiles messages on.
 */
#ifndef NSIGHT_ANALYSIS_H
#define NSIGHT_ANALYSIS_H

#include <stdbool.h>
#include <stdio.h>

#include "capture/capture.h"
#include "capture/threads.h"
#include "diagnose/categories.h"
#include "capture/keys.h"
#include "base/diag.h"
#include "diagnose/critpath.h"
#include "diagnose/diagnose.h"
#include "lifetime/latency.h"
#include "capture/ksyms.h"
#include "lifetime/lifetime.h"
#include "pt/pt_evidence.h"
#include "capture/samples.h"
#include "pipeline/summary.h"
#include "capture/timeconv.h"
#include "capture/timeline.h"

/*
 * The read's progress, for a caller that shows it (nsight-analyze's
 * progress line): pass() as each pass begins, then update() with the
 * records and bytes read so far before each chunk of records.
 */
struct nsight_analysis_progress {
	void (*pass)(void *arg, const char *pass);
	void (*update)(void *arg, uint64_t records, uint64_t bytes);
	void *arg;
};

struct nsight_analysis_opts {
	enum nsight_tc_params params;	/* --time-params */
	bool lifetimes;			/* rebuild lifetimes and timelines
					 * (not for --time-check) */
	struct nsight_keys *keys;	/* a key table to share (with a
					 * baseline), NULL for its own */
	const struct nsight_analysis_progress *progress;	/* or NULL */
	bool own;			/* keep only the messages whose earliest
					 * record is in [own_lo, own_hi) */
	uint64_t own_lo, own_hi;
	bool range;			/* --range: keep only the messages whose
					 * earliest record is in [range_from_ns,
					 * range_to_ns) after the first record */
	uint64_t range_from_ns, range_to_ns;
	/*
	 * 2 or more: the context side (timelines, threads, samples, PT) read
	 * and finished on a second thread (analysis_thread.h); 0 or 1: all
	 * on the caller's. The result is the same.
	 */
	unsigned int threads;
	/*
	 * The lifetimes and their latency alone: no timelines, threads'
	 * states, samples or PT, their context records only counted
	 * (tl.n_records), as a streamed report's first pass needs.
	 */
	bool no_context;
};

struct nsight_analysis {
	struct nsight_summary sum;
	struct nsight_capture cap;
	struct nsight_timeconv tc;
	struct nsight_lifetimes lt;
	struct nsight_latency lat;
	struct nsight_keys own_keys;
	struct nsight_keys *keys;	/* own_keys or the shared one */
	struct nsight_timeline tl;
	struct nsight_threads chains;	/* threads' states, wakers (capture/threads.h) */
	struct nsight_ksyms ksyms;	/* the capture's kernel symbols */
	bool ksyms_shared;		/* ksyms is another's, sorted (window.h) */
	struct nsight_samples samples;	/* the sample source's stacks, and PT's */
	struct nsight_ptev ptev;	/* Intel PT trace, code and parameters */
	bool have_lifetimes;
	bool no_context;		/* opts' no_context: tl holds only n_records */
	bool have_range;		/* --range: messages and the Perfetto */
	uint64_t range_lo, range_hi;	/* trace kept to [lo, hi) (TSC) */
};

/*
 * Read the stream on @in and analyse it. Returns 0, or a negative enum
 * nsight_errcode with @d saying what and at which byte. @a needs
 * nsight_analysis_fini() either way.
 */
int nsight_analysis_run(struct nsight_analysis *a, FILE *in,
			const struct nsight_analysis_opts *o, struct nsight_diag *d);
void nsight_analysis_fini(struct nsight_analysis *a);

/*
 * nsight_analysis_run() in steps, for callers that choose the records
 * themselves (window.h): begin for a stream of @nr_cpus CPUs (then set
 * a->sum.hdr, which the last step reads), give it records (those of one
 * CPU in stream order) and chunks other than RECORDS and STATUS, and end
 * it with @tail_drops[cpu] (may be NULL), the records each CPU lost after
 * its last record given. Each returns 0 or a negative enum nsight_errcode;
 * nsight_analysis_fini() either way.
 */
int nsight_analysis_begin(struct nsight_analysis *a, uint32_t nr_cpus,
			  const struct nsight_analysis_opts *o, struct nsight_diag *d);
int nsight_analysis_record(struct nsight_analysis *a, const struct nsight_rec *rec,
			   struct nsight_diag *d);
/*
 * The two halves of nsight_analysis_record(): the records of the message
 * lifetimes (capture.h), and the context side (when begun with lifetimes:
 * timeline, threads, samples, PT records). Each half's state is its own.
 */
int nsight_analysis_capture_record(struct nsight_analysis *a, const struct nsight_rec *rec,
				   struct nsight_diag *d);
int nsight_analysis_context_record(struct nsight_analysis *a, const struct nsight_rec *rec,
				   struct nsight_diag *d);
int nsight_analysis_chunk(struct nsight_analysis *a, const struct nsight_chunk *ch,
			  struct nsight_diag *d);
int nsight_analysis_end(struct nsight_analysis *a, const uint64_t *tail_drops,
			const struct nsight_analysis_opts *o, struct nsight_diag *d);

/*
 * Diagnose the tail messages of @a (analysed with lifetimes), with the
 * reference from @baseline when not NULL (analysed with @a's key table).
 * Returns 0 or a negative enum nsight_errcode; nsight_dx_fini() either way.
 */
int nsight_analysis_diagnose(struct nsight_dx *dx, struct nsight_analysis *a,
			     struct nsight_analysis *baseline, const struct nsight_cats *cats,
			     const struct nsight_dx_opts *o, struct nsight_diag *d);

/*
 * The whole capture's diagnosis from its windows (diagnose.h, struct
 * nsight_dxs): window @a (analysed with lifetimes, with the key table all
 * windows share for @pass 2 and 3) counted (@pass 1), its reference
 * profiled (2) or its tail diagnosed (3), with the critical path of each
 * tail message kept in @paths when not NULL (pass 3). Returns 0 or a
 * negative enum nsight_errcode.
 */
int nsight_analysis_dxs_window(struct nsight_dxs *s, struct nsight_analysis *a, int pass,
			       const struct nsight_cats *cats, struct nsight_cp_windows *paths,
			       struct nsight_diag *d);

/*
 * @p (zeroed or not) for the messages of @a: its timelines and its
 * threads' blocked time. nsight_profiler_fini() it either way.
 */
int nsight_analysis_profiler(struct nsight_profiler *p, const struct nsight_analysis *a,
			     struct nsight_diag *d);

/* Give @p the blocked time of @a's threads (when @a has chains). */
int nsight_analysis_use_chains(struct nsight_profiler *p, const struct nsight_analysis *a,
			       struct nsight_diag *d);

#endif /* NSIGHT_ANALYSIS_H */
