/* SPDX-License-Identifier: MIT */
/*
 * Requests across threads (nsight.rst "Requests across threads"): an
 * application marks what its threads do with a request (nsight_request.h:
 * begin, hand-off, resume, end; uapi nsight.h NSIGHT_REC_REQUEST), and a
 * request is followed from the message that brought it to the thread that
 * answered it:
 *
 *   n -> a                  the received message (its lifetime: NIC to the
 *                           receive that returned it)
 *   a -> first hand-off     the receiving thread ("receiving thread")
 *   hand-off -> resume      waiting for a thread to take it up ("queued")
 *   resume -> hand-off/end  the thread that took it up ("worker")
 *
 * The marks of one (process, id), in TSC order, make requests: a begin
 * starts one (a begin while one is open leaves that one without an end),
 * the other marks join the open one, an end closes it. Its message is the
 * last RX message whose receive returned on the beginning thread at or
 * before the begin, unless an earlier request took it; its response, the
 * last TX message the ending thread began sending between the latest
 * resume (or the begin) and the end. A request is complete when it has a
 * begin and an end, its marks are in order (hand-off, resume alternate),
 * its message is complete and no CPU lost records between the message's
 * first record and the end; its latency is from the message's n to the
 * end.
 *
 * What held a request up: each phase's time on its thread (from the
 * threads' states, capture/threads.h) is split into causes: running,
 * in an interrupt, softirq or fault on its own CPU, preempted by what ran
 * on its CPU instead, waiting for a task that woke it, asleep until an
 * interrupt or timer, unknown; the receive phase is one cause (the
 * message's own diagnosis explains it). Over the complete requests of a
 * process, each cause's median time is its reference; the tail (the
 * requests at or above the tail percentile) is explained by each cause's
 * time beyond its median, summed over the tail and ranked.
 */
#ifndef NSIGHT_REQUESTS_H
#define NSIGHT_REQUESTS_H

#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "capture/capture.h"
#include "capture/keys.h"
#include "capture/threads.h"
#include "lifetime/lifetime.h"

enum nsight_rq_state {
	NSIGHT_RQ_COMPLETE,
	NSIGHT_RQ_NO_END,		/* no end mark (or a begin came first) */
	NSIGHT_RQ_BAD_ORDER,		/* resume without a hand-off, or the reverse */
	NSIGHT_RQ_NO_MESSAGE,		/* no received message of its own before the begin */
	NSIGHT_RQ_MSG_INCOMPLETE,	/* its message is incomplete */
	NSIGHT_RQ_DROPS,		/* a CPU lost records during it */
	__NSIGHT_RQ_STATES
};

enum nsight_rq_phase {
	NSIGHT_RQ_RECEIVE,		/* n -> a: the message */
	NSIGHT_RQ_RECEIVER,		/* a -> first hand-off (or end) */
	NSIGHT_RQ_QUEUED,		/* hand-off -> resume, summed */
	NSIGHT_RQ_WORKER,		/* resume -> hand-off or end, summed */
	__NSIGHT_RQ_PHASES
};

struct nsight_rq {
	uint64_t id;
	uint32_t pid;
	uint32_t rx_tid, end_tid;	/* who began it, who ended it (0: none) */
	uint8_t state;			/* enum nsight_rq_state */
	uint32_t hops;			/* hand-offs */
	size_t msg;			/* index + 1 of its message in the lifetimes, 0 none */
	size_t resp;			/* the same of its response, 0 none */
	uint64_t begin, end;		/* TSC of its begin and end marks */
	int64_t total_ns;		/* complete: n -> end */
	int64_t phase_ns[__NSIGHT_RQ_PHASES];
};

/* One cause of a request's time (see above), "queued: worker preempted by task:x". */
struct nsight_rq_cause {
	uint32_t cause;			/* index in nsight_requests.causes */
	uint64_t ns;
};

/* What held up the slow requests of one process. */
struct nsight_rq_tail_cause {
	uint32_t cause;
	int64_t excess_ns;		/* summed over the tail: time beyond the cause's median */
	double share;			/* of all causes' excess */
};

struct nsight_rq_group {
	uint32_t pid;
	char comm[16];			/* the beginning thread's process name */
	uint32_t receiver, worker;	/* the tid that began, and ended, most of them */
	uint64_t count, complete;
	uint64_t by_state[__NSIGHT_RQ_STATES];
	uint64_t with_response;		/* complete ones whose response was found */
	int64_t p50, p90, p99, max;	/* latency of the complete ones, ns */
	int64_t phase_p50[__NSIGHT_RQ_PHASES], phase_p99[__NSIGHT_RQ_PHASES];
	int64_t tail_from;		/* ns: the tail is the requests at or above */
	uint64_t tail_count;
	struct nsight_rq_tail_cause *tail;	/* largest excess first */
	size_t n_tail;
};

struct nsight_requests {
	struct nsight_rq *v;		/* by process, then begin */
	size_t n, cap;
	struct nsight_rq_cause *rc;	/* per request, [rc_first[i], rc_first[i + 1]) */
	size_t n_rc, cap_rc;
	size_t *rc_first;		/* n + 1 entries */
	char **causes;			/* names of the causes */
	size_t n_causes, cap_causes;
	struct nsight_rq_group *groups;	/* by pid */
	size_t n_groups;
	uint64_t marks;			/* request records read */
	uint64_t orphans;		/* hand-off, resume or end with no begin */
	uint64_t bad_ops;		/* records with an unknown op */
};

/*
 * Build the requests of @cap's request marks and explain the tail of each
 * process's (at or above @tail per 100000) with @c (finished) and @keys.
 * Nothing (n == 0) without request records. Returns 0 or
 * -NSIGHT_E_NOMEM; nsight_requests_fini() either way.
 */
int nsight_requests_build(struct nsight_requests *r, const struct nsight_capture *cap,
			  const struct nsight_lifetimes *lt, const struct nsight_threads *c,
			  const struct nsight_keys *keys, uint32_t tail, struct nsight_diag *d);
void nsight_requests_fini(struct nsight_requests *r);

/* "complete", "no-end", ...; "receive", "receiving thread", "queued", "worker". */
const char *nsight_rq_state_name(enum nsight_rq_state s);
const char *nsight_rq_phase_name(enum nsight_rq_phase p);

#endif /* NSIGHT_REQUESTS_H */
