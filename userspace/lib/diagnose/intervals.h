/* SPDX-License-Identifier: MIT */
/*
 * Tail-ranked interval tables (nsight.rst "Interval tables"; LDB's
 * "functions ranked by tail latency"): every kind of interval a capture
 * holds, with the count, p50, p99, p99.99 and max of its durations, ranked
 * by p99.99.
 *
 * Kinds and what one interval is:
 *
 *   irq       an occurrence of a hard interrupt handler, by handler name
 *   softirq   an occurrence of a softirq vector (NET_RX, TIMER, ...)
 *   work      an execution of a workqueue function
 *   fault     a page fault, "user" or "kernel"
 *   func      an occurrence of a kernel function from samples or PT,
 *             named "<context key> > <symbol>" (samples.h)
 *   offcpu    a wait of an application thread (one that sent or received
 *             a complete message): from the end of one of its stretches on
 *             a CPU to the start of its next one, on any CPU
 *   segment   a stage of complete message lifetimes, per application and
 *             direction: "server[100] rx n->h", "... tx send->queue", ...
 *
 * A timeline occurrence's duration is the sum of its stretches: the time
 * it was on its CPU's stack of contexts, what nested in it included (a
 * fault or work item resumed after a switch is one occurrence; an irq
 * inside a softirq counts in the softirq's time). An occurrence that runs
 * into a CPU's first or last record or into lost records has no known
 * length: it is left out and counted ("clipped"), and so is an off-CPU
 * wait next to such a stretch or overlapping lost records on any CPU.
 *
 * Percentiles are nearest-rank (latency.h): p99.99 is the maximum below
 * 10000 intervals.
 */
#ifndef NSIGHT_INTERVALS_H
#define NSIGHT_INTERVALS_H

#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "lifetime/lifetime.h"
#include "capture/timeline.h"

enum nsight_iv_kind {
	NSIGHT_IV_IRQ,
	NSIGHT_IV_SOFTIRQ,
	NSIGHT_IV_WORK,
	NSIGHT_IV_FAULT,
	NSIGHT_IV_FUNC,
	NSIGHT_IV_OFFCPU,
	NSIGHT_IV_SEGMENT,
	__NSIGHT_IV_KINDS
};

/* The percentiles of a row, in parts per 100000: 50%, 99%, 99.99%. */
#define NSIGHT_IV_NPCT 3
extern const uint32_t nsight_iv_pct[NSIGHT_IV_NPCT];
extern const char *const nsight_iv_pct_name[NSIGHT_IV_NPCT];	/* "p50", "p99", "p99.99" */

struct nsight_iv_row {
	uint8_t kind;			/* enum nsight_iv_kind */
	char *name;			/* see above; as the capture spelled it */
	uint64_t count;
	int64_t pct[NSIGHT_IV_NPCT];	/* ns */
	int64_t max;			/* ns */
};

struct nsight_intervals {
	struct nsight_iv_row *rows;	/* by p99.99, max, count (all descending),
					 * then kind and name */
	size_t n;
	uint64_t intervals;		/* in the rows */
	uint64_t clipped;		/* left out: length unknown */
};

/*
 * The tables of finished timeline @tl and lifetimes @lt; @tsc_hz converts
 * ticks. Returns 0, -NSIGHT_E_NOMEM or -NSIGHT_E_INVAL (no rate);
 * nsight_intervals_fini() either way.
 */
int nsight_intervals_build(struct nsight_intervals *iv, const struct nsight_timeline *tl,
			   const struct nsight_lifetimes *lt, uint64_t tsc_hz,
			   struct nsight_diag *d);
void nsight_intervals_fini(struct nsight_intervals *iv);

/* "irq", "softirq", "work", "fault", "func", "offcpu", "segment". */
const char *nsight_iv_kind_name(enum nsight_iv_kind kind);

#endif /* NSIGHT_INTERVALS_H */
