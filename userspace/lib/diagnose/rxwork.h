/* SPDX-License-Identifier: MIT */
/*
 * The traffic behind receive work. When receive processing (the NET_RX
 * softirq, or a function sampled in it) is a cause of a tail message's
 * delay, the packets that core received while it held the message up
 * are the work that delayed it: per flow, how many, how many bytes, and
 * whether any application receive read that flow in the capture (a flow
 * nobody reads is traffic the host only pays for).
 *
 * The window of a message is where its anomaly lies: the receive core
 * from n to h (role R), the application core from h to a (role A), the
 * send CPU from the send to the driver (TX). Packets are counted at their
 * netif_receive_skb record on that CPU within the window; a packet is
 * counted once however many tail messages' windows hold it.
 */
#ifndef NSIGHT_RXWORK_H
#define NSIGHT_RXWORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/capture.h"
#include "capture/keys.h"
#include "diagnose/diagnose.h"
#include "lifetime/lifetime.h"
#include "base/u64map.h"

struct nsight_rxwork_flow {
	struct nsight_flow flow;	/* sender -> receiver */
	uint64_t packets, bytes;
	bool read;			/* an application receive read it */
};

struct nsight_rxwork {
	struct nsight_rxwork_flow *v;	/* most packets first */
	size_t n, cap;
	uint64_t packets;		/* in all flows */
	uint64_t messages;		/* tail messages whose windows were looked at */
	struct nsight_u64map by_flow;	/* flow hash -> index in v */
	struct nsight_u64map seen;	/* packet record index -> counted */
};

/* Whether @key is receive work: softirq:NET_RX, or a function sampled in it. */
bool nsight_rxwork_key(const struct nsight_keys *k, uint32_t key);

/*
 * The receive work behind cause @cause of group @g (diagnosed from @lt and
 * @cap with @keys) into @w (zeroed by this call). Nothing when the cause
 * has no receive-work anomaly. Returns 0 or -NSIGHT_E_NOMEM;
 * nsight_rxwork_fini() either way.
 */
int nsight_rxwork_of_cause(struct nsight_rxwork *w, const struct nsight_dx_group *g,
			   uint32_t cause, const struct nsight_lifetimes *lt,
			   const struct nsight_capture *cap, const struct nsight_keys *keys);
void nsight_rxwork_fini(struct nsight_rxwork *w);

#endif /* NSIGHT_RXWORK_H */
