/* SPDX-License-Identifier: MIT */
/*
 * What-if predictions (nsight.rst "What-if predictions", "logical
 * zeroing"): what the
 * latencies would be with a cause's time removed or scaled.
 *
 * A spec is "remove:<cause>" or "scale:<cause>=<factor>" (remove is
 * scale 0; the factor is 0 to 100). The cause is a category as the
 * diagnosis names it, with its role, "stress interference (A)", or a
 * category alone, for both roles. A context key belongs to the cause when
 * its category (categories.h) is the cause's, or, for a kernel function,
 * begins with the cause's and ": " (the functions of "Receive processing"
 * are "Receive processing: ip_rcv", ...).
 *
 * Per application (comm, pid) and direction, every complete message is
 * profiled (profile.h) and its exclusive time per (role, key) taken; the
 * reference is the fastest 20% (at least NSIGHT_DX_MIN_REF), as in the
 * diagnosis, and gives each (role, key) its expected (mean) time. For a
 * message and role:
 *
 *   removed  = (1 - factor) * the cause's time there
 *   refill   = min(removed, sum over the other keys of that role of
 *              max(0, expected - time in the message))
 *
 * The refill gives the removed time back to the contexts it displaced, up
 * to what the reference spends in them: a message that waited 50 us for
 * a CPU hog did not also wait for its core to leave idle, and without the
 * hog it would. A message without the cause keeps its latency. A TX
 * message is predicted on its own: latency - sum(removed) + sum(refill).
 *
 * RX messages are re-run through their thread's queue (FIFO, in the order
 * the thread returned them). Message i, h its
 * hand-off, a its return, E the entry of its receive call, P the return
 * of the thread's previous profiled message, primes predicted (the
 * first has no P: P' + U is h'):
 *
 *   c  = P clamped to [h, a]: in [h, c) it waited for the previous return
 *   H  = [c, max(c, E)), the thread's work on earlier messages, less the
 *        cause's time in it
 *   V  = [max(c, E), a), its receive (and wake-up), less the cause's
 *   U  = [P, min(h, E)) when P < h: earlier work no window holds, less
 *        the cause's time on the core's timeline (not the thread's own)
 *   h' = h - the cause's time before h + refill(R)
 *   a' = max(h' + refill(A), P' + U + H) + V
 *   predicted latency = latency + a' - a
 *
 * so the queueing a cause made goes with it and queueing that remains
 * stays; a message that finds its thread idle gets its own prediction.
 *
 * The next bottleneck: over the predicted tail (predicted latency >= its
 * p90), each message's excess per cause (the sum over the cause's keys of
 * max(0, predicted time - expected), the cause's own keys scaled) is
 * counted when at least min_dev; the cause with the most messages where
 * it is the largest ("main"), then the largest total, is named.
 *
 * Messages whose windows lost records are left out and counted.
 *
 * Several specs apply together, in the order given (successive
 * predictions: remove cause 1, then 2, ...): a key that belongs to more than
 * one cause keeps the product of their factors; "the cause's time" above is
 * then, per key, its time times (1 - that product). Running the first 1, 2,
 * ... of a list gives the prediction, and the next bottleneck, at each step.
 *
 * Throughput: for each RX group, its capacity (capacity.h), the highest
 * request rate its cores could sustain, now and with the causes' time
 * removed from the cores' timelines (the same factors, per key and role),
 * over the group's profiled messages; or why the model gives none.
 */
#ifndef NSIGHT_WHATIF_H
#define NSIGHT_WHATIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diagnose/capacity.h"
#include "diagnose/categories.h"
#include "capture/keys.h"
#include "base/diag.h"
#include "lifetime/lifetime.h"
#include "diagnose/profile.h"

#define NSIGHT_WI_NPCT 3
extern const uint32_t nsight_wi_pct[NSIGHT_WI_NPCT];	/* 50%, 99%, 99.9% */
extern const char *const nsight_wi_pct_name[NSIGHT_WI_NPCT];

struct nsight_wi_spec {
	char category[256];
	int role;		/* enum nsight_role, or -1: both */
	double factor;		/* 0 removes */
	bool remove;
};

struct nsight_wi_group {
	char comm[16];
	uint32_t pid;
	uint8_t dir;
	size_t messages;		/* profiled */
	size_t changed;			/* whose latency the change moves */
	uint64_t skipped_lost;		/* complete, but a window lost records */
	int64_t now[NSIGHT_WI_NPCT], now_max;		/* ns */
	int64_t pred[NSIGHT_WI_NPCT], pred_max;		/* ns */
	int64_t removed;		/* ns over all messages, less the refill */
	bool has_next;
	char next[272];			/* "Category (A)" */
	uint64_t next_main;		/* predicted tail messages it is largest in */
	int64_t next_total;		/* ns */
	size_t tail;			/* predicted tail messages */
	bool has_cap;			/* RX: the capacity (capacity.h) */
	struct nsight_capacity cap;
};

/* At most this many specs apply together. */
#define NSIGHT_WI_MAX_SPECS 8

struct nsight_whatif {
	struct nsight_wi_spec specs[NSIGHT_WI_MAX_SPECS];	/* in the order applied */
	size_t n_specs;
	bool found_spec[NSIGHT_WI_MAX_SPECS];	/* some message has time in spec i */
	struct nsight_wi_group *groups;	/* by comm, pid, direction */
	size_t n;
	bool found;			/* some message has time in one of the causes */
	/* Per message (index in the lifetimes), INT64_MIN when not predicted. */
	int64_t *pred;
	size_t n_pred;
};

/* Parse @s; -NSIGHT_E_INVAL with what is wrong in @d. */
int nsight_whatif_parse(struct nsight_wi_spec *spec, const char *s, struct nsight_diag *d);

/* "remove stress interference (A)", "scale Page faults to 0.5". */
const char *nsight_whatif_spec_format(const struct nsight_wi_spec *spec, char *buf, size_t len);

/*
 * Predict @lt (profiled by @prof) under the @n_specs specs at @specs
 * (1 to NSIGHT_WI_MAX_SPECS), applied together; @min_dev (ns) is the
 * granularity of the next bottleneck. Returns 0, -NSIGHT_E_INVAL for a
 * count out of range or -NSIGHT_E_NOMEM; nsight_whatif_fini() either way.
 */
int nsight_whatif_run(struct nsight_whatif *wi, const struct nsight_wi_spec *specs, size_t n_specs,
		      const struct nsight_lifetimes *lt, struct nsight_profiler *prof,
		      const struct nsight_keys *keys, const struct nsight_cats *cats,
		      int64_t min_dev, struct nsight_diag *d);
void nsight_whatif_fini(struct nsight_whatif *wi);

#endif /* NSIGHT_WHATIF_H */
