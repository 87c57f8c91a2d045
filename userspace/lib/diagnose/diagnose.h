/* SPDX-License-Identifier: MIT */
/*
 * The diagnosis (nsight.rst "Diagnosis"): why the tail messages of each
 * application (comm + pid) and direction were slow.
 *
 * Names: "dx" (this file: struct nsight_dx, nsight_dx_*) is the diagnosis;
 * "diag" (base/diag.h: struct nsight_diag) is an error and its message, as
 * everywhere in the library.
 *
 * Reference: a slice of the group's complete messages by latency, by
 * default the fastest 20% (at least NSIGHT_DX_MIN_REF when there are that
 * many), or the same slice of another capture's messages of the same comm
 * and direction (a baseline). From the reference profiles, per (role, key):
 * expected time (mean over the reference, absent counting as 0), presence
 * (the fraction of reference messages having it) and expected count.
 *
 * Tail: the messages at or above a percentile of latency (p90), or a band
 * of them, from one percentile to another (p20-p30: at or above the p20
 * latency and at or below the p30 one; --tail in nsight.rst). A tail
 * message's deviation is its latency minus the reference's median. Each key
 * of its profile whose time exceeds the expected time by at least the
 * granularity (min_dev) is an anomaly, of one of four phases:
 *   1  an unexpected context: present in fewer than half the reference;
 *   2  a gap: idle time (named by the activity before it) or time no
 *      record covers;
 *   3  an expected context that took longer, or occurred more often;
 *   4  overlap with other messages: head-of-line blocking (hol), or the
 *      time of another application's thread (one that has messages), or
 *      the thread blocked until another task woke it (blocked:<comm>), or
 *      a TCP send's bytes held in the send queue (tcp:<why>).
 *
 * Attribution (the 80% rule): an anomaly's nested anomalies are the nearest
 * anomalous contexts inside it. They explain the share of their own
 * deviations spent inside it; when that reaches the nested threshold
 * (80%) of its deviation, it is not reported, else it is reported with what
 * they leave unexplained (if that is still at least min_dev). A message
 * explains at most its deviation: where the reported deviations add up to
 * more (time a competitor took from the message's expected idle counts as
 * the competitor's but the idle it replaced is no anomaly), each is scaled
 * down by the same factor. Coverage of a message: the reported deviations'
 * sum over its deviation, at most 100%.
 *
 * Reported anomalies are named by category (categories.h) and core role;
 * a message's anomalies of one category and role make one cause. Causes
 * are ranked by the excess latency they explain in the tail (the sum of
 * their deviations), then by the messages they are the largest in.
 */
#ifndef NSIGHT_DIAGNOSE_H
#define NSIGHT_DIAGNOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diagnose/categories.h"
#include "capture/keys.h"
#include "base/diag.h"
#include "lifetime/lifetime.h"
#include "diagnose/profile.h"

#define NSIGHT_DX_MIN_REF	5
#define NSIGHT_DX_SLOWEST	5

struct nsight_dx_opts {
	uint32_t ref_lo, ref_hi;	/* reference slice by rank, per 100000 */
	bool slice;			/* the slice was chosen (--slice) */
	uint32_t tail;			/* tail from this percentile, per 100000 */
	uint32_t tail_hi;		/* to this one (100000: the slowest) */
	int64_t min_dev;		/* ns */
	uint32_t nested;		/* nested threshold, per 100000 */
	const char *baseline;		/* name of the baseline capture, or NULL */
};

/* The defaults: fastest 20%, tail p90 (to the slowest), 1000 ns, 80%. */
void nsight_dx_opts_default(struct nsight_dx_opts *o);

enum nsight_dx_reason {
	NSIGHT_DX_UNEXPECTED,		/* phase 1 */
	NSIGHT_DX_IDLE,			/* phase 2 */
	NSIGHT_DX_NO_RECORDS,		/* phase 2 */
	NSIGHT_DX_SLOWER,		/* phase 3 */
	NSIGHT_DX_MORE_FREQUENT,	/* phase 3 */
	NSIGHT_DX_HOL,			/* phase 4 */
	NSIGHT_DX_INTERFERENCE,		/* phase 4 */
	NSIGHT_DX_BLOCKED,		/* phase 4: the thread waited for a task */
	NSIGHT_DX_TCP_HELD,		/* phase 4: the bytes waited in the TCP
					 * send queue (Nagle, windows, an ACK)
					 */
	__NSIGHT_DX_REASONS
};

struct nsight_dx_anomaly {
	uint32_t key;
	uint8_t role;		/* enum nsight_role */
	uint8_t phase;		/* 1 .. 4 */
	uint8_t reason;		/* enum nsight_dx_reason */
	bool reported;		/* else explained by nested anomalies */
	int64_t value;		/* ns in the message */
	int64_t expected;	/* ns, mean over the reference */
	int64_t dev;		/* value - expected */
	int64_t explained;	/* by nested anomalies */
	int64_t reported_dev;	/* dev - explained, when reported; scaled
				 * down when capped
				 */
	bool capped;		/* the message's anomalies added up to more
				 * than its deviation and were scaled to it
				 */
	uint32_t count;
	double expected_count, presence;
	uint32_t cause;		/* the group's cause, when reported */
};

/* A message's deviation of one cause. */
struct nsight_dx_mcause {
	uint32_t cause;
	int64_t dev;
};

struct nsight_dx_msg {
	size_t msg;		/* index in the lifetimes */
	uint64_t id;
	int64_t latency, deviation;
	bool has_coverage;	/* deviation > 0 */
	double coverage;	/* explained / deviation, 0 to 1 */
	int64_t explained;
	size_t anom, n_anom;	/* into the group's anomalies */
	size_t mc, n_mc;	/* into the group's mcauses, largest first */
	uint32_t cpu[NSIGHT_ROLES];	/* the core of each role's window; UINT32_MAX: none */
};

struct nsight_dx_cause {
	char *category;
	uint8_t role;
	uint64_t main;		/* tail messages where it adds the most */
	uint64_t messages;	/* tail messages it has a reported anomaly in */
	int64_t median, max;	/* of its deviation in those, ns */
	int64_t total;		/* the sum of its deviations: what it explains */
};

struct nsight_dx_group {
	char comm[16];
	uint32_t pid;
	uint8_t dir;
	size_t complete;
	/* The reference. */
	bool no_baseline;	/* --baseline has no messages of this comm */
	size_t ref_candidates;	/* messages in the slice */
	size_t n_ref;		/* of them profiled (no lost records) */
	int64_t ref_median, ref_min, ref_max;
	/* The tail. */
	size_t tail_candidates;
	int64_t tail_threshold;
	int64_t tail_threshold_hi;	/* a band's top latency; 0 without a band */
	uint64_t skipped_incomplete;	/* the group's incomplete: drops */
	uint64_t skipped_ref, skipped_tail;	/* complete, a window lost records */

	struct nsight_dx_cause *causes;	/* sorted: total, main, messages, median */
	size_t n_causes, cap_causes;
	struct nsight_dx_msg *msgs;	/* the profiled tail, slowest first */
	size_t n_msgs;
	struct nsight_dx_anomaly *anoms;
	size_t n_anoms, cap_anoms;
	struct nsight_dx_mcause *mcs;
	size_t n_mcs, cap_mcs;
	size_t n_cov;			/* messages with a coverage */
	int64_t tail_excess;		/* their deviations' sum, ns */
	double cov_p10, cov_p50, cov_p90;
};

struct nsight_dx {
	struct nsight_dx_opts opts;
	bool no_context;		/* no context records in the capture */
	struct nsight_dx_group *groups;	/* by comm, pid, direction */
	size_t n;
};

/* A capture as the diagnosis sees it. */
struct nsight_dx_input {
	const struct nsight_lifetimes *lt;
	struct nsight_profiler *prof;
	uint64_t context_records;	/* the timeline's */
};

/*
 * Diagnose @in, with the reference from @baseline when not NULL. @keys is
 * the table both captures' timelines use. Returns 0, or -NSIGHT_E_NOMEM;
 * nsight_dx_fini() either way.
 */
int nsight_dx_run(struct nsight_dx *dx, const struct nsight_dx_input *in,
		  const struct nsight_dx_input *baseline, const struct nsight_keys *keys,
		  const struct nsight_cats *cats, const struct nsight_dx_opts *o,
		  struct nsight_diag *d);
void nsight_dx_fini(struct nsight_dx *dx);

/*
 * The whole capture's diagnosis from its windows (pipeline/window.h; the
 * "whole capture:" diagnosis of --window), in three passes over them,
 * every window analysed with one key table (nsight_analysis_opts.keys):
 *
 * 1. nsight_dxs_count() with each window's messages: each group's complete
 *    messages as (latency, id) pairs, its incomplete ones lost to drops,
 *    the names of every application; then nsight_dxs_plan(): each group's
 *    reference slice and tail, chosen as nsight_dx_run() chooses them;
 * 2. nsight_dxs_reference() with each window: the profiles of the
 *    reference, summed per group; then nsight_dxs_reference_done();
 * 3. nsight_dxs_tail() with each window: each tail message's anomalies and
 *    causes against its group's whole reference; then nsight_dxs_finish()
 *    puts the groups, messages and causes in nsight_dx_run()'s order.
 *
 * Call nsight_dxs_pass() before each pass: ids are the whole capture's
 * (a window's ids, 1.. per direction, after those of the windows before
 * it). Memory: 16 bytes per complete message, the reference's sums per
 * context, and the tail's anomalies (what nsight_dx_run() keeps too), not
 * the records. The result is nsight_dx_run()'s on the whole capture when
 * each message and the records its profile reads lie in its window's
 * margins, but for ties broken by the order keys were met in. A tail
 * message's .msg is its index in the window it was diagnosed in, gone
 * after it: reports of the messages themselves need the windows.
 */
struct nsight_dx_ref;

struct nsight_dxs_key {
	int64_t latency;
	uint64_t id;
};

struct nsight_dxs_group {
	struct nsight_dx_group g;	/* the result, being built */
	struct nsight_dxs_key *keys;	/* pass 1: complete messages; sorted by plan */
	size_t n_keys, cap_keys;
	struct nsight_dxs_key ref_lo, ref_hi;	/* the reference slice, both included */
	bool have_ref;			/* the slice is not empty */
	struct nsight_dx_ref *ref;	/* pass 2's sums */
	int64_t *ref_lat;		/* the profiled reference's latencies */
	size_t cap_ref_lat;
	bool tail_ready;		/* the reference was profiled */
};

struct nsight_dxs {
	struct nsight_dx_opts opts;
	struct nsight_dxs_group *groups;	/* by comm, pid, direction after plan */
	size_t n, cap, last;
	char (*apps)[16];		/* every message's comm, once */
	size_t n_apps, cap_apps;
	uint64_t context_records;
	uint64_t base[2];		/* messages per direction in earlier windows */
	struct nsight_dx_run_state *run;	/* the passes' scratch */
};

int nsight_dxs_init(struct nsight_dxs *s, const struct nsight_dx_opts *o, struct nsight_diag *d);
void nsight_dxs_fini(struct nsight_dxs *s);
/* Start a pass: the next window is the first. */
void nsight_dxs_pass(struct nsight_dxs *s);
int nsight_dxs_count(struct nsight_dxs *s, const struct nsight_dx_input *in,
		     struct nsight_diag *d);
int nsight_dxs_plan(struct nsight_dxs *s, struct nsight_diag *d);
int nsight_dxs_reference(struct nsight_dxs *s, const struct nsight_dx_input *in,
			 const struct nsight_keys *keys, const struct nsight_cats *cats,
			 struct nsight_diag *d);
int nsight_dxs_reference_done(struct nsight_dxs *s, struct nsight_diag *d);
int nsight_dxs_tail(struct nsight_dxs *s, const struct nsight_dx_input *in,
		    const struct nsight_keys *keys, const struct nsight_cats *cats,
		    struct nsight_diag *d);
/* Move the result into @dx (nsight_dx_fini() it); @s keeps nothing of it. */
int nsight_dxs_finish(struct nsight_dxs *s, struct nsight_dx *dx, struct nsight_diag *d);

/* @c's share of @g's tail excess latency (0 to 1; 0 without a tail excess). */
double nsight_dx_cause_share(const struct nsight_dx_group *g, const struct nsight_dx_cause *c);

/* The share of @g's profiled tail messages @c is the largest cause in. */
double nsight_dx_cause_main_share(const struct nsight_dx_group *g,
				  const struct nsight_dx_cause *c);

const char *nsight_dx_reason_name(enum nsight_dx_reason r);
/* "A" or "R". */
const char *nsight_role_name(uint8_t role);

/* Nearest-rank percentile of @n ascending doubles (@n > 0). */
double nsight_percentile_f(const double *sorted, size_t n, uint32_t per100k);

#endif /* NSIGHT_DIAGNOSE_H */
