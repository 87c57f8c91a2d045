/* SPDX-License-Identifier: MIT */
/*
 * Message profiles (nsight.rst "Diagnosis"): where a message's time went,
 * by context, on the cores that held it.
 *
 * An RX message owns the receive core X (role R) from n to h and the
 * application core Y (role A) from h to a; X is the hand-off's CPU, Y the
 * receive's (the same core gives two windows, R then A). With a hardware
 * NIC time, n is put on X's TSC scale by the gap between that time and the
 * packet record's. A TX message owns its send CPU (role A) from the send
 * to the xmit, or to the completion when there is one (what its latency
 * measures).
 *
 * A window is cut into pieces, each with the chain of contexts it ran in,
 * innermost first, as keys: the message's own application thread is "app",
 * or "hol" while that thread was processing other messages: from the
 * return of an earlier receive of another message (one that returned data,
 * the first whose processing reaches into the window) to the entry of the
 * receive call that returned this message. Idle and unknown time has no
 * parents: a softirq that ran while the CPU idled stands on its own.
 *
 * With the blocking chains (nsight_profiler_set_chains()), an RX message's
 * application window before the entry of that receive call is cut where
 * its thread slept until a task woke it: that time is "blocked:<comm of
 * the waker>" alone, whatever the core ran meanwhile (the thread could not
 * have run). Sleeps ended by an interrupt (timers, I/O) keep the core's
 * contexts.
 *
 * With a hardware NIC time, the stretch from it to the packet's first
 * record is the NIC's, whatever the receive core ran meanwhile ("NIC
 * delay", nsight.rst "Diagnosis"): nic:wire to IRQ up to the last hard
 * interrupt that began on the packet's CPU before that record, then nic:IRQ
 * to NAPI; with no interrupt there (busy polling, the irq source off),
 * nic:wire to NAPI.
 */
#ifndef NSIGHT_PROFILE_H
#define NSIGHT_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/capture.h"
#include "capture/threads.h"
#include "capture/keys.h"
#include "base/diag.h"
#include "lifetime/lifetime.h"
#include "capture/timeconv.h"
#include "capture/timeline.h"

enum nsight_role {
	NSIGHT_ROLE_R,		/* the receive core */
	NSIGHT_ROLE_A,		/* the application core */
	NSIGHT_ROLES
};

struct nsight_piece {
	uint64_t ticks;		/* TSC ticks */
	uint8_t role;
	uint8_t depth;		/* keys in the chain */
	bool lost;		/* records were lost here */
	bool blocked;		/* blocked: occ[0] is the wakeup's index */
	bool held;		/* a TCP send's bytes held (tcp:<why>), once
				 * per message
				 */
	uint32_t key[NSIGHT_TL_DEPTH];	/* innermost first, no key twice */
	uint32_t occ[NSIGHT_TL_DEPTH];	/* the occurrence of each */
};

/* Return non-zero to stop the walk with that value. */
typedef int (*nsight_piece_fn)(void *arg, const struct nsight_piece *pc);

struct nsight_hol_period {
	uint64_t from, to;
};

/* The message's thread asleep, woken by a task (its blocked:<comm> key). */
struct nsight_blk_period {
	uint64_t from, to;
	uint32_t key, wake;
};

/* The stretches of a received packet's time in the NIC (nic:<name>). */
enum nsight_nic_stretch {
	NSIGHT_NIC_WIRE_IRQ,	/* "wire to IRQ": stamp to the interrupt */
	NSIGHT_NIC_IRQ_NAPI,	/* "IRQ to NAPI": interrupt to the first record */
	NSIGHT_NIC_WIRE_NAPI,	/* "wire to NAPI": no interrupt seen */
	__NSIGHT_NIC_STRETCHES
};

struct nsight_profiler {
	const struct nsight_timeline *tl;
	const struct nsight_threads *chains;	/* NULL: no blocked time */
	const struct nsight_capture *cap;
	const struct nsight_timeconv *tc;
	uint64_t tsc_hz;
	uint32_t *recv_idx;		/* cap->recvs by (tid, tsc) */
	/*
	 * The same order's keys side by side, which a lookup searches: a
	 * search through recv_idx into the receive records misses the cache
	 * at every step.
	 */
	struct nsight_recv_key {
		uint64_t tsc;
		uint32_t tid;
	} *recv_key;
	size_t n_recv;
	struct nsight_hol_period *hol;	/* of the message being walked */
	size_t n_hol, cap_hol;
	uint64_t entry;			/* of the receive call that returned it */
	struct nsight_blk_period *blk;	/* of the message being walked */
	size_t n_blk, cap_blk;
	uint64_t *stamp_blk;		/* per wakeup: the window it was counted in */
	uint32_t hold_key[__NSIGHT_HOLD_REASONS];	/* tcp:<why>, once made */
	uint32_t nic_key[__NSIGHT_NIC_STRETCHES];	/* nic:<stretch>, once made */
	/* nsight_profile_build()'s scratch. */
	uint32_t *slot[NSIGHT_ROLES];	/* key -> entry + 1 */
	size_t n_slot;
	uint64_t *stamp;		/* per context: the window it was counted in */
	uint64_t *stamp_hol;		/* the same for "hol": one stretch of the
					 * application thread can be app and hol */
	uint64_t walk;
};

struct nsight_prof_ent {
	uint32_t key;
	uint8_t role;
	int64_t excl;		/* ns it was the innermost context */
	int64_t incl;		/* ns with what nested in it */
	uint32_t count;		/* occurrences */
};

struct nsight_profile {
	struct nsight_prof_ent *v;
	size_t n, cap;
	bool lost;		/* a window touches lost records */
	int64_t window_ns[NSIGHT_ROLES];
};

/*
 * @tc converts hardware NIC times back to the TSC; @hdr_tsc_hz stands in
 * when the time conversion has no rate. Returns 0 or -NSIGHT_E_NOMEM;
 * nsight_profiler_fini() either way.
 */
/*
 * The window of @m's time of @role, as the walk takes it: the receive
 * core (the hand-off's CPU) from n to h, the application core from h to
 * a, the send CPU from the send to the driver or the completion (TX, any
 * role). n is its record's stamp. False when @m lacks those stages.
 */
bool nsight_msg_window(const struct nsight_msg *m, uint8_t role, uint32_t *cpu, uint64_t *from,
		       uint64_t *to);

int nsight_profiler_init(struct nsight_profiler *p, const struct nsight_timeline *tl,
			 const struct nsight_capture *cap, const struct nsight_timeconv *tc,
			 uint64_t hdr_tsc_hz, struct nsight_diag *d);
void nsight_profiler_fini(struct nsight_profiler *p);

/* Attribute blocked time with @c (finished). Returns 0 or -NSIGHT_E_NOMEM. */
int nsight_profiler_set_chains(struct nsight_profiler *p, const struct nsight_threads *c);

/*
 * Walk the windows of complete message @m, piece by piece in time order
 * (R before A). Returns 0, what @fn returned to stop it, or
 * -NSIGHT_E_NOMEM / -NSIGHT_E_INVAL (an incomplete message).
 */
int nsight_profile_walk(struct nsight_profiler *p, const struct nsight_msg *m,
			nsight_piece_fn fn, void *arg);

/*
 * Where the receive core's window of RX message @m begins: n on the TSC
 * scale (a hardware NIC time lies before its packet record); the walk
 * starts at it or at h, whichever is earlier.
 */
uint64_t nsight_profile_rx_start(const struct nsight_profiler *p, const struct nsight_msg *m);

/* The profile of complete message @m in @out (reset first). */
int nsight_profile_build(struct nsight_profiler *p, const struct nsight_msg *m,
			 struct nsight_profile *out, struct nsight_diag *d);
void nsight_profile_fini(struct nsight_profile *pr);

/* The entry of (@role, @key) in @pr, NULL if absent (linear). */
const struct nsight_prof_ent *nsight_profile_get(const struct nsight_profile *pr,
						 uint8_t role, uint32_t key);

int64_t nsight_profiler_ns(const struct nsight_profiler *p, uint64_t ticks);

#endif /* NSIGHT_PROFILE_H */
