/* SPDX-License-Identifier: MIT */
/*
 * Blocking chains (nsight.rst "Blocking chains"): where a thread was at
 * every instant (on a CPU, runnable, blocked), who woke it, and what that
 * waker did meanwhile, from the sched_switch and sched_waking records.
 *
 * A thread's stretches on CPUs come from sched_switch: switched in at
 * one record, out at another. How it left says what follows: preempted
 * (or switched out in TASK_RUNNING) it stays runnable until its next
 * stretch; otherwise it sleeps until its wakeup, the last sched_waking
 * record for it before its next stretch, and is runnable from there.
 * The waking record carries the waker's thread (0 when an interrupt or
 * a softirq woke it) and is written on the waker's CPU. What the capture
 * does not show (before a thread's first switch, after its last one,
 * around lost records) is unknown, never guessed.
 *
 * A chain (struct nsight_chain) explains a thread's time in a window:
 * its contexts while on a CPU (from the timeline), what ran on its CPU
 * instead while it was runnable, and for each wait that a task ended,
 * that task (the one that released the lock, futex or pipe it waited on)
 * with the same explanation of its own time during the wait, recursively
 * to a small depth. Nodes of one waker under one parent are merged.
 *
 * With the futex source, a wakeup names the lock when the records allow:
 * the futex word the woken thread entered futex_wait() on in its last
 * stretch before the wakeup (futex_wait), and the one the waker entered
 * futex_wake() on in its stretch that woke it, on that CPU (futex_wake).
 * Per lock (process and futex word), nsight_threads_locks() gives the
 * sleeps on it a wakeup ended, their durations from futex_wait() to the
 * wakeup, the thread that woke its waiters most (its holder), and how
 * long a woken waiter held the lock: from its return to its next futex
 * record on the word, when that is a futex_wake() (a release that woke
 * nobody is not seen).
 *
 * The diagnosis uses the blocked time of a message's thread (profile.h):
 * a wait ended by a task, in the message's application window before the
 * receive call that returned it, is time "blocked by" that task.
 */
#ifndef NSIGHT_THREADS_H
#define NSIGHT_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/nsight.h>

#include "capture/capture.h"
#include "capture/keys.h"
#include "base/diag.h"
#include "format/records.h"
#include "capture/timeline.h"

#define NSIGHT_CHAIN_DEPTH	3	/* wakers followed from a message's thread */
#define NSIGHT_CHAIN_NONE	UINT32_MAX

/* How a stretch on a CPU ended. */
enum nsight_thr_out {
	NSIGHT_THR_OUT_SLEEP,		/* switched out blocked */
	NSIGHT_THR_OUT_PREEMPT,		/* switched out runnable */
	NSIGHT_THR_OUT_UNKNOWN,		/* the capture ended, or records were lost */
};

struct nsight_thr_stretch {
	uint64_t from, to;		/* TSC */
	uint64_t max_to;		/* the latest to of its thread's stretches
					 * up to this one (for the search) */
	uint32_t tid, pid, cpu;
	uint8_t out;			/* enum nsight_thr_out */
	bool from_known;		/* switched in within the capture */
	char comm[16];
};

struct nsight_thr_wake {
	uint64_t tsc;
	uint32_t tid;			/* woken */
	uint32_t waker_tid;		/* 0: an interrupt or softirq */
	uint32_t cpu;			/* the waker's CPU */
	uint32_t key;			/* "blocked:<waker comm>", or NSIGHT_KEY_NONE */
	uint64_t futex_wait;		/* the futex word the woken thread slept on, 0 */
	uint64_t wait_from;		/* ... the TSC of its futex_wait() */
	uint32_t wait_pid;		/* ... its process */
	uint64_t futex_wake;		/* the word the waker released to wake it, 0 */
};

/* A sleep on a lock that a wakeup ended (nsight_threads_lock_sleeps()). */
struct nsight_thr_sleep {
	uint32_t pid, waker;		/* the sleeper's process; the waker (0: an interrupt) */
	uint64_t uaddr;			/* the futex word */
	uint64_t from, to;		/* its futex_wait(), the wakeup (TSC) */
	size_t wake;			/* the wakeup (index in the wakes) */
};

/* A futex record as read. */
struct nsight_thr_futex {
	uint64_t tsc, uaddr;
	uint32_t tid, pid, cpu;
	uint8_t op;			/* enum nsight_futex_op */
};

/* A lock (futex word of a process) threads slept on, from the wakeups. */
struct nsight_lock {
	uint32_t pid;
	uint64_t uaddr;
	uint64_t waits;			/* sleeps on it a wakeup ended */
	uint64_t total, p50, p99, max;	/* ticks from futex_wait() to the wakeup */
	uint32_t holder_tid;		/* the thread that woke its waiters most */
	uint64_t holder_wakes;		/* ... that many times */
	uint64_t holder_released;	/* ... of them inside futex_wake() on this word */
	char holder_comm[16], comm[16];	/* the holder's, a waiter's */
	uint64_t holds;			/* woken waiters seen releasing it (futex_wake) */
	uint64_t hold_p50, hold_p99, hold_max;	/* ticks from return to futex_wake() */
};

/* The thread's states, in order. */
enum nsight_thr_state {
	NSIGHT_THR_ON,
	NSIGHT_THR_RUNNABLE,
	NSIGHT_THR_BLOCKED,
	NSIGHT_THR_UNKNOWN,
};

struct nsight_thr_span {
	uint64_t from, to;
	uint8_t state;			/* enum nsight_thr_state */
	uint32_t cpu;			/* ON: its CPU; RUNNABLE: where it ran next
					 * (UINT32_MAX if unknown) */
	uint32_t wake;			/* BLOCKED: the wakeup ending it (index in
					 * the wakes), NSIGHT_CHAIN_NONE if none */
};

struct nsight_threads {
	struct nsight_rec_sched_switch *sw;	/* as read */
	size_t n_sw, cap_sw;
	struct nsight_thr_stretch *st;		/* by tid, then from */
	size_t n_st, cap_st;
	struct nsight_thr_wake *wk;		/* by tid, then TSC */
	size_t n_wk, cap_wk;
	struct nsight_thr_futex *fx;		/* by tid, then TSC */
	size_t n_fx, cap_fx;
	const struct nsight_timeline *tl;
	uint64_t tsc_hz;
	bool finished;
};

void nsight_threads_init(struct nsight_threads *c);
void nsight_threads_fini(struct nsight_threads *c);

/* Take a record (any type); a CPU's records in stream order. */
int nsight_threads_add(struct nsight_threads *c, const struct nsight_rec *rec, struct nsight_diag *d);

/*
 * Build the stretches, after @tl and @cap are finished; makes the keys
 * "blocked:<comm>" of every task that woke another in @keys.
 */
int nsight_threads_finish(struct nsight_threads *c, const struct nsight_timeline *tl,
			 const struct nsight_capture *cap, struct nsight_keys *keys,
			 uint64_t tsc_hz, struct nsight_diag *d);

/*
 * Call @fn for each state of thread @tid within [@s, @e), cut to it, in
 * time order. Returns 0 or what @fn returned to stop.
 */
typedef int (*nsight_thr_span_fn)(void *arg, const struct nsight_thr_span *sp);
int nsight_threads_spans(const struct nsight_threads *c, uint32_t tid, uint64_t s, uint64_t e,
			nsight_thr_span_fn fn, void *arg);

/*
 * The locks threads slept on, by total wait, longest first, into *@out
 * (malloc'd, *@n of them; NULL and 0 without futex records). Returns 0 or
 * -NSIGHT_E_NOMEM.
 */
int nsight_threads_locks(const struct nsight_threads *c, struct nsight_lock **out, size_t *n,
			 struct nsight_diag *d);

/*
 * The sleeps on locks that wakeups ended, by process, futex word, waker,
 * then time, into *@out (malloc'd, *@n of them; NULL and 0 if none).
 * Returns 0 or -1 (no memory).
 */
int nsight_threads_lock_sleeps(const struct nsight_threads *c, struct nsight_thr_sleep **out,
			       size_t *n);

/* Thread @tid's name and process at @tsc (its nearest stretch); false if never seen. */
bool nsight_threads_who(const struct nsight_threads *c, uint32_t tid, uint64_t tsc, char comm[16],
		       uint32_t *pid);

/* One context's time in a chain node. */
struct nsight_chain_act {
	uint32_t key;
	uint64_t ticks;
};

/* @ticks more of @key in *@v (*@n of them, room for *@cap). Returns 0 or -1 (no memory). */
int nsight_chain_act_add(struct nsight_chain_act **v, size_t *n, size_t *cap, uint32_t key,
			 uint64_t ticks);

struct nsight_chain_node {
	uint32_t tid, pid;
	char comm[16];
	uint32_t parent;		/* NSIGHT_CHAIN_NONE for the root */
	uint8_t depth;
	uint32_t wakes;			/* non-root: the parent's waits it ended */
	uint32_t wake_cpu;		/* ... on this CPU (the last one) */
	uint32_t futex_wakes;		/* ... of them from inside futex_wake() on
					 * the futex word the parent slept on */
	uint64_t futex;			/* ... that word (the last one), or 0 */
	uint64_t waited;		/* non-root: ticks of the parent's waits it
					 * ended, within the window */
	uint64_t on, runnable, blocked, unknown;	/* ticks of this thread */
	uint64_t blocked_irq;		/* of blocked: ended by an interrupt, or
					 * with no wakeup seen */
	struct nsight_chain_act *act;	/* on a CPU: its contexts */
	size_t n_act, cap_act;
	struct nsight_chain_act *inst;	/* runnable: what ran on its CPU instead */
	size_t n_inst, cap_inst;
};

struct nsight_chain {
	struct nsight_chain_node *v;	/* [0] the root, parents before children */
	size_t n, cap;
};

/*
 * The chain of thread @tid over [@s, @e), following wakers @depth deep
 * (NSIGHT_CHAIN_DEPTH). @ch is reset first. Returns 0 or -NSIGHT_E_NOMEM.
 */
int nsight_chain_build(struct nsight_chain *ch, const struct nsight_threads *c, uint32_t tid,
		       uint64_t s, uint64_t e, unsigned int depth);
void nsight_chain_fini(struct nsight_chain *ch);

/* Acts sorted by time, largest first (for printing). */
void nsight_chain_sort(struct nsight_chain *ch);

int64_t nsight_threads_ns(const struct nsight_threads *c, uint64_t ticks);

#endif /* NSIGHT_THREADS_H */
