/* SPDX-License-Identifier: MIT */
/*
 * What a lock's holder ran while its waiters waited (nsight.rst, the
 * ``futex`` source): for a lock of nsight_threads_locks(), the sleeps on
 * it that its holder's wakeups ended, each from futex_wait() to the
 * wakeup, joined into one set of times (sleeps that overlap count once);
 * the holder's time on a CPU within them (its stretches from
 * sched_switch); and the functions the evidence shows there, instant by
 * instant:
 *
 *   - where the timeline has a function context (kernel stacks of the
 *     "sample" source, Intel PT stretches: capture/samples.h), its
 *     innermost function;
 *   - where it has the holder's own task context with no function in it,
 *     the holder's samples in user code: one at t stands for
 *     [t - period, t], cut to that segment and to the CPU's previous
 *     sample. User code is not symbolised (a capture holds kernel symbols
 *     only): it is one function, "user code".
 *
 * Interrupts and softirqs that ran while the holder was on its CPU are
 * in its time on a CPU (as in the chains); their functions are named with
 * their context ("softirq:NET_RX > net_rx_action"), the holder's own
 * with the symbol alone. The rest of its time on a CPU has no evidence:
 * counted (on - evidence), never named. Functions are ranked by time,
 * then by name, so the result does not depend on the order keys were
 * made in.
 *
 * Cost: nothing per record. Per call, one pass over the wakeups (the
 * sleeps on locks, sorted), then per lock the holder's sleeps, its
 * stretches within them, the timeline segments there and, in its task's
 * segments, the CPU's samples (a search each).
 */
#ifndef NSIGHT_LOCKFN_H
#define NSIGHT_LOCKFN_H

#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "capture/keys.h"
#include "capture/samples.h"
#include "capture/threads.h"

/* Functions kept per lock, the most time first. */
#define NSIGHT_LOCKFN_TOP	5
/* The key of "user code" among a holder's functions. */
#define NSIGHT_LOCKFN_USER	NSIGHT_KEY_NONE

/* Why a lock's holder has no function named. */
enum nsight_lockfn_none {
	NSIGHT_LOCKFN_NAMED,		/* it has */
	NSIGHT_LOCKFN_NO_HOLDER,	/* no task woke its waiters */
	NSIGHT_LOCKFN_NO_EVIDENCE,	/* the capture has no samples or PT stretches */
	NSIGHT_LOCKFN_NOT_ON_CPU,	/* the holder never ran while they waited */
	NSIGHT_LOCKFN_NOT_COVERED,	/* no evidence fell in its time on a CPU then */
};

struct nsight_lockfns {
	uint64_t waited;		/* ticks: the holder's sleeps joined */
	uint64_t on;			/* ... of them, the holder on a CPU */
	uint64_t evidence;		/* ... of those, with function evidence */
	/* Functions (keys, or NSIGHT_LOCKFN_USER), the most time first. */
	struct nsight_chain_act top[NSIGHT_LOCKFN_TOP];
	size_t n_top;
	size_t n_funcs;			/* functions in all */
	uint8_t none;			/* enum nsight_lockfn_none */
};

/*
 * The holders' functions of @locks[0..@n) (from nsight_threads_locks() on
 * @c) into @out[0..@n). @s: the capture's samples (NULL: none); their
 * user code counts once nsight_samples_apply() sorted them. Returns 0 or
 * -NSIGHT_E_NOMEM.
 */
int nsight_lockfn_build(const struct nsight_threads *c, const struct nsight_samples *s,
			const struct nsight_lock *locks, size_t n, struct nsight_lockfns *out,
			struct nsight_diag *d);

/* @f's name: "slow_fn", "softirq:NET_RX > net_rx_action", "user code". */
const char *nsight_lockfn_name(const struct nsight_keys *k, const struct nsight_chain_act *f,
			       char *buf, size_t len);

/* Why no function is named (NULL for NSIGHT_LOCKFN_NAMED). */
const char *nsight_lockfn_why(uint8_t none);

#endif /* NSIGHT_LOCKFN_H */
