/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU timelines of program contexts, rebuilt from the context records
 * (sched_switch, irq, softirq, idle, fault, workqueue): for any instant on
 * a CPU, the innermost context and, through parent links, the contexts it
 * is nested in.
 *
 * Nesting, outermost first: the task running (sched_switch; the swapper,
 * pid 0, is idle), then what belongs to that task and follows it across
 * switches (a workqueue function of a kworker, page faults: a fault record
 * is the interval [start_tsc, hdr.tsc] of its thread, cut to the times
 * that thread ran), then the CPU's own: idle (cpu_idle), softirqs and hard
 * interrupts in the order they nested.
 *
 * Each CPU's time is cut into segments, each with its innermost context;
 * a segment lasts until the next one starts, the last one until the CPU's
 * last record. Edges: the task running before a CPU's first sched_switch
 * is that switch's prev; an exit with no entry before the first switch
 * means the context was already running (it starts at the CPU's first
 * record); whatever is still open at the end stops at the last record.
 * Where a CPU lost records (a sub-buffer header counts drops) its state is
 * unknown: the time from its previous record to that header is a "lost"
 * segment, and the CPU starts afresh after it, just as at the start.
 *
 * Idle segments carry the key "idle:<key of the last non-idle activity on
 * that CPU>", so an idle gap after a softirq and one after a task differ.
 */
#ifndef NSIGHT_TIMELINE_H
#define NSIGHT_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/nsight.h>

#include "capture/keys.h"
#include "base/diag.h"
#include "format/records.h"

#define NSIGHT_TL_NONE		UINT32_MAX
/* Contexts every timeline has: lost records, and nothing known. */
#define NSIGHT_CTX_LOST		0U
#define NSIGHT_CTX_UNKNOWN	1U
/* Deepest nesting kept per CPU; deeper entries are counted and ignored. */
#define NSIGHT_TL_DEPTH		16

enum nsight_ctx_kind {
	NSIGHT_CTX_K_LOST,
	NSIGHT_CTX_K_UNKNOWN,	/* no record says what ran */
	NSIGHT_CTX_K_TASK,
	NSIGHT_CTX_K_SWAPPER,	/* the idle task (pid 0) */
	NSIGHT_CTX_K_IDLE,	/* cpu_idle */
	NSIGHT_CTX_K_IRQ,
	NSIGHT_CTX_K_SOFTIRQ,
	NSIGHT_CTX_K_FAULT,
	NSIGHT_CTX_K_WORK,
	NSIGHT_CTX_K_FUNC,	/* a kernel function (samples.h) */
};

/* One stretch of a context on one CPU. */
struct nsight_ctx {
	uint32_t key;		/* absolute key: task:<comm>, irq:<name>, ... */
	uint32_t parent;	/* enclosing context, NSIGHT_TL_NONE at the top */
	uint32_t occ;		/* the first stretch of the same interval (a
				 * fault or work resumed after a switch) */
	uint32_t tid;		/* tasks, faults, works: the thread */
	uint8_t kind;		/* enum nsight_ctx_kind */
};

struct nsight_seg {
	uint64_t start;		/* TSC */
	uint32_t ctx;		/* innermost context */
	uint32_t key;		/* its key; for idle, idle:<last activity> */
};

struct nsight_tl_cpu {
	struct nsight_seg *segs;
	size_t n, cap;
	/*
	 * The start of every NSIGHT_TL_IDX_STEP-th segment, once finished: a
	 * search (nsight_tl_find()) goes through this small array, which
	 * stays in the cache, before a few lines of segs. NULL: none made.
	 */
	uint64_t *idx;
	size_t n_idx;
	bool any;		/* the CPU has records: [first, last] */
	bool lost_after;	/* records were lost after the last one */
	uint64_t first, last;
};

#define NSIGHT_TL_IDX_STEP	32

struct nsight_tl_build;

struct nsight_timeline {
	struct nsight_keys *keys;	/* not owned */
	uint32_t nr_cpus;
	struct nsight_tl_cpu *cpus;
	struct nsight_ctx *ctx;
	size_t n_ctx, cap_ctx;

	uint64_t n_records;	/* context records taken */
	uint64_t unmatched;	/* exits with no entry, entries closed early */
	uint64_t too_deep;	/* entries beyond NSIGHT_TL_DEPTH */
	bool finished;
	struct nsight_tl_build *b;	/* while building */
};

/* Returns 0 or -NSIGHT_E_NOMEM; nsight_timeline_fini() either way. */
int nsight_timeline_init(struct nsight_timeline *tl, uint32_t nr_cpus, struct nsight_keys *keys,
			 struct nsight_diag *d);
void nsight_timeline_fini(struct nsight_timeline *tl);

/* Whether a record of @type is one the timeline takes (and counts in n_records). */
bool nsight_timeline_is_context(uint32_t type);

/*
 * Take one record (any type) as the walker yields it; a CPU's records must
 * come in stream order. Returns 0 or a negative enum nsight_errcode.
 */
int nsight_timeline_add(struct nsight_timeline *tl, const struct nsight_rec *rec,
			struct nsight_diag *d);

/*
 * Build the segments. @tail_drops[cpu] (may be NULL): records the kernel
 * dropped after the CPU's last sub-buffer header.
 */
int nsight_timeline_finish(struct nsight_timeline *tl, const uint64_t *tail_drops,
			   struct nsight_diag *d);

/*
 * A new context, after nsight_timeline_finish(), for evidence that nests
 * in the finished segments (functions from samples). @occ NSIGHT_TL_NONE
 * makes it its own occurrence. Returns its id, or NSIGHT_TL_NONE when out
 * of memory.
 */
uint32_t nsight_timeline_add_ctx(struct nsight_timeline *tl, uint32_t key, uint32_t parent,
				 uint32_t occ, uint32_t tid, uint8_t kind);

/* Index of the last segment of @cpu starting at or before @tsc, or -1. */
ssize_t nsight_tl_find(const struct nsight_timeline *tl, uint32_t cpu, uint64_t tsc);

/* End of segment @i of @cpu. */
static inline uint64_t nsight_tl_seg_end(const struct nsight_timeline *tl, uint32_t cpu, size_t i)
{
	const struct nsight_tl_cpu *c = &tl->cpus[cpu];

	return i + 1 < c->n ? c->segs[i + 1].start : c->last;
}

/* Whether a context of @kind ends the chain of parents the diagnosis uses. */
static inline bool nsight_ctx_is_gap(uint8_t kind)
{
	return kind == NSIGHT_CTX_K_LOST || kind == NSIGHT_CTX_K_UNKNOWN ||
	       kind == NSIGHT_CTX_K_SWAPPER || kind == NSIGHT_CTX_K_IDLE;
}

#endif /* NSIGHT_TIMELINE_H */
