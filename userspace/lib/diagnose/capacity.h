/* SPDX-License-Identifier: MIT */
/*
 * Capacity of a server: the highest request rate it could sustain, now and
 * with what-if causes removed (nsight.rst "What-if predictions": the
 * throughput of the system with a bottleneck removed). The utilization law
 * per core, the resources a received message needs:
 *
 *   the application core (where its receive returned): the work of the
 *     server's receiving threads there, and what nested in them (the
 *     reply's transmit and its softirq);
 *   the receive core (where its hand-off ran): the busy time in the
 *     messages' receive windows [n, h] (their union: packets of one NAPI
 *     poll are counted once).
 *
 * Over the span from the group's first receive return to its last, T
 * long, which holds N = messages - 1 whole cycles of the server (a
 * message's work after its return, then the next one's receive), a
 * core's time splits into idle, W (the work of the messages, above) and O
 * (everything else: other tasks, interrupts, kworkers). Each message
 * needs W / N of the core, and the others' work
 * is taken to keep its share O / T when the load rises (true of work of
 * higher priority or fixed rate, as a batch job or a tick; work that the
 * scheduler would share with the server, or that grows with the load,
 * as the client's on its own core, is not modelled), so the core
 * saturates at
 *
 *   C = (1 - O / T) / (W / N)   messages per second
 *
 * and the server's capacity is the smallest C of its cores: the
 * bottleneck. With what-if causes, each piece of W and O keeps its time
 * times the cause's factor (whatif.h), W in the role of the window it is
 * in (A or R), O in the core's role.
 *
 * No prediction, with the reason, when: fewer than NSIGHT_CAP_MIN_MSGS
 * messages; the receives returned on more than one core (threads on
 * several cores are not one queue); a core lost records in the span or
 * has no context records (its busy time is unknown); the server never
 * ran there (no W); the others' work fills the core; or the two slowest
 * cores saturate within NSIGHT_CAP_NEAR of each other (two bottlenecks:
 * they queue on each other, the law's bound is not reached).
 */
#ifndef NSIGHT_CAPACITY_H
#define NSIGHT_CAPACITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lifetime/lifetime.h"
#include "capture/timeline.h"

#define NSIGHT_CAP_MIN_MSGS	20
/* Runner-up core within this factor of the bottleneck: two bottlenecks. */
#define NSIGHT_CAP_NEAR		1.1

/* One side (now or predicted) of a capacity. */
struct nsight_cap_side {
	bool ok;		/* else why says why not */
	char why[160];
	double rate;		/* messages per second */
	uint32_t cpu;		/* the bottleneck */
	uint8_t role;		/* enum nsight_role: its role */
	int64_t per_msg;	/* ns of its work a message (W / N) */
	double other;		/* O / T */
	bool has_next;		/* a second core: the next bottleneck */
	uint32_t next_cpu;
	uint8_t next_role;
	double next_rate;
};

struct nsight_capacity {
	size_t messages;	/* the group's, N + 1 */
	double offered;		/* N / T: the rate the capture ran at */
	struct nsight_cap_side now, pred;
};

/*
 * What a piece of @role keeps of its time under the causes (1: none of
 * theirs); @key is the segment's; negative when out of memory.
 */
typedef double (*nsight_cap_keep_fn)(void *arg, uint32_t key, uint8_t role);

/*
 * The capacity of the server whose complete RX messages are @lt->msgs at
 * the @n indexes @idx, over timeline @tl (TSC at @tsc_hz); @keep NULL
 * predicts no change. Returns 0, or -NSIGHT_E_NOMEM.
 */
int nsight_capacity_run(struct nsight_capacity *out, const struct nsight_timeline *tl,
			const struct nsight_lifetimes *lt, const size_t *idx, size_t n,
			uint64_t tsc_hz, nsight_cap_keep_fn keep, void *arg);

#endif /* NSIGHT_CAPACITY_H */
