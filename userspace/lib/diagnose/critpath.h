/* SPDX-License-Identifier: MIT */
/*
 * Critical path of a message over its states (nsight.rst "Critical path").
 *
 * The paper builds a dependence graph of state machines that interact
 * through queues; an edge of a state where a machine waits (for an item,
 * for a resource) weighs zero, so the longest path follows the edge to
 * the machine it waited on, and the "most critical state" is the one the
 * path spends the largest fraction of its time in.
 *
 * Here a message is one chain of states from n to a (RX) or from the send
 * to the xmit or completion (TX); every instant of it lies in exactly one
 * state, named by the machine the path runs through at that instant:
 *
 *   RX, receive core's window [n, h] (n as the profile takes it: a hardware
 *   NIC time lies before the packet record):
 *     nic      until the first piece running in an irq or softirq context
 *              (the NIC, DMA and the interrupt's delivery)
 *     softirq  from there to the hand-off h: receive processing
 *   RX, application core's window [h, a]:
 *     queue    the message sits in the socket queue: the thread ran other
 *              messages' work ("hol"), or was off its CPU and not runnable
 *              before it entered the receive call that returned the
 *              message; the path is in that other work
 *     blocked  the thread slept until another task woke it (profile.h's
 *              "blocked:<comm>"): the message waits on that task, so the
 *              path is in the waker's work
 *     runq     wake-up and run-queue delay: the thread was runnable but not
 *              running (sched_waking/sched_switch: what ran instead is on
 *              the path), or off its CPU after entering the receive call
 *              (asleep in it, not yet woken); without scheduler records
 *              all off-CPU time after that entry counts here
 *     intr     the thread on its CPU but an irq or softirq nested in it ran
 *              there: the thread waits, the path is in the interrupt
 *     app      the thread ran (the receive call included, and its faults)
 *   TX, from the lifetime's stages:
 *     send     send -> qdisc (the protocol stack)
 *     qdisc    qdisc -> driver xmit (waiting in the queueing discipline)
 *     xmit     driver xmit -> completion, when there is one
 *
 * The waits (queue, blocked, runq, intr, qdisc) are the zero-weight edges
 * of the message's own machine; each ends when what it waits on is done,
 * so the edge the path takes instead is exactly as long, and the path's
 * length is the message's latency. A state's time is the path's time in
 * it; the most critical state is the one with the most time (ties: the
 * earlier state in the order above, the enum's). What the path ran
 * through is kept per state by the innermost context key of the core at
 * the time, a sampled function's context for the function ("via"): for
 * runq what ran instead, for blocked the waker's "blocked:<comm>", for
 * queue "hol" or what ran while the thread was away, for intr the
 * interrupt; RX only.
 */
#ifndef NSIGHT_CRITPATH_H
#define NSIGHT_CRITPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/threads.h"
#include "diagnose/diagnose.h"
#include "lifetime/lifetime.h"
#include "diagnose/profile.h"

enum nsight_cp_state {
	NSIGHT_CP_NIC,
	NSIGHT_CP_SOFTIRQ,
	NSIGHT_CP_QUEUE,
	NSIGHT_CP_BLOCKED,
	NSIGHT_CP_RUNQ,
	NSIGHT_CP_INTR,
	NSIGHT_CP_APP,
	NSIGHT_CP_SEND,
	NSIGHT_CP_QDISC,
	NSIGHT_CP_XMIT,
	NSIGHT_CP_STATES
};

/* Time of a state through one context key. */
struct nsight_cp_via {
	uint8_t state;
	uint32_t key;
	int64_t ns;
};

struct nsight_cp_vias {
	struct nsight_cp_via *v;
	size_t n, cap;
};

struct nsight_cp_msg {
	uint8_t dir;
	int64_t ns[NSIGHT_CP_STATES];
	int64_t total;			/* the path's length: the states' sum */
	uint8_t most;			/* the most critical state */
	struct nsight_cp_vias via;	/* by state, then first seen */
};

/* A direction's tail: the states' time and the messages they top. */
struct nsight_cp_tail {
	uint8_t dir;
	size_t n;
	int64_t total;
	int64_t ns[NSIGHT_CP_STATES];
	uint64_t most[NSIGHT_CP_STATES];
	struct nsight_cp_vias via;	/* the messages' summed */
};

/*
 * The critical path of complete message @m, with the thread states of @c
 * (NULL or unfinished: none). Returns 0, -NSIGHT_E_NOMEM or -NSIGHT_E_INVAL
 * (an incomplete message); nsight_cp_msg_fini() either way.
 */
int nsight_cp_message(struct nsight_cp_msg *out, struct nsight_profiler *p,
		      const struct nsight_threads *c, const struct nsight_keys *keys,
		      const struct nsight_msg *m);

void nsight_cp_msg_fini(struct nsight_cp_msg *m);

/* Add @m to @t (zeroed first). Returns 0 or -NSIGHT_E_NOMEM; nsight_cp_tail_fini(). */
int nsight_cp_tail_add(struct nsight_cp_tail *t, const struct nsight_cp_msg *m);
void nsight_cp_tail_fini(struct nsight_cp_tail *t);

/* A diagnosis group's tail: each message's path, in the group's order, and their sum. */
struct nsight_cp_group {
	struct nsight_cp_tail tail;
	struct nsight_cp_msg *msgs;
	size_t n;
};

/*
 * The paths of @g's tail messages (messages of @lt), with the thread
 * states of @c. Returns 0 or a negative NSIGHT_E_ code;
 * nsight_cp_group_fini() either way.
 */
int nsight_cp_group_build(struct nsight_cp_group *cg, struct nsight_profiler *p,
			  const struct nsight_threads *c, const struct nsight_keys *keys,
			  const struct nsight_dx_group *g, const struct nsight_lifetimes *lt);
void nsight_cp_group_fini(struct nsight_cp_group *cg);
/* @n groups of @cgs, and the array. */
void nsight_cp_groups_free(struct nsight_cp_group *cgs, size_t n);

/*
 * The whole capture's tail paths from its windows (--whole-diagnosis):
 * each tail message's path is taken in the window that diagnosed it
 * (nsight_cp_windows_add(), by the diagnosis group's index and the
 * message's whole-capture id), and nsight_cp_windows_finish() lays them
 * out in the order of the finished diagnosis's tail and sums them in that
 * order, as nsight_cp_group_build() does for the capture analysed whole.
 */
struct nsight_cp_windows {
	struct nsight_cp_wgroup *groups;
	size_t n;
};

void nsight_cp_windows_fini(struct nsight_cp_windows *w);
/* Keep @m (moved: @m is left empty) for message @id of group @group. 0 or -NSIGHT_E_NOMEM. */
int nsight_cp_windows_add(struct nsight_cp_windows *w, size_t group, uint64_t id,
			  struct nsight_cp_msg *m);
/*
 * @dx's groups' paths into *@out (@dx->n of them; nsight_cp_groups_free());
 * @w is emptied. Returns 0, -NSIGHT_E_NOMEM, or -NSIGHT_E_INVAL when a
 * tail message has no path.
 */
int nsight_cp_windows_finish(struct nsight_cp_windows *w, const struct nsight_dx *dx,
			     struct nsight_cp_group **out);

/* The key with the most of state @s's time in @v, NULL if none. */
const struct nsight_cp_via *nsight_cp_via_top(const struct nsight_cp_vias *v, unsigned int s);

/* Whether @s is a state of direction @dir. */
bool nsight_cp_state_in(uint8_t dir, unsigned int s);
const char *nsight_cp_state_name(unsigned int s);

#endif /* NSIGHT_CRITPATH_H */
