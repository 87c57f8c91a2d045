/* SPDX-License-Identifier: MIT */
/*
 * Two hosts' message lifetimes joined into requests (nsight.rst "Two
 * hosts"): a client
 * capture A and a server capture B. A request is a message A sends
 * (client TX), the same message arriving on B (server RX), B's response
 * (server TX) and the response arriving on A (client RX).
 *
 * Joining across hosts, by flow (addresses, ports, protocol, as the
 * packets carry them) and then:
 * - TCP: by the sequence number of the message's first byte, which is the
 *   same on both hosts;
 * - UDP: by the packets' wire hash (uapi nsight.h: an unkeyed hash of
 *   addresses, ports, IP id, length and the first payload bytes, the same
 *   on both hosts; pkt_id is keyed per host), in order within the flow,
 *   skipping datagrams one host alone saw. Captures from modules without
 *   wire hashes join by order (the k-th datagram A sent is the k-th B
 *   received): then both must cover the same datagrams of a flow, and when
 *   the hosts saw different numbers of a flow's requests or responses (a
 *   capture started later, a datagram was lost) the flow's requests are
 *   all "ambiguous", never joined by a guess.
 * Pairing a request with its response, on one host (one clock): B's
 * responses in send order go to its oldest unanswered request received
 * before them, A's received responses to its oldest unanswered request
 * sent before them (request/response in order, one response each). The
 * response B sent is joined to A's arrival of it like a request (sequence
 * number, wire hash or order); joined by order it must also be the one
 * A's own pairing gives.
 *
 * The clocks: B's times are put on A's clock with the line nsight_clockfit()
 * estimates (or, when the clocks are given as synchronised, offset 0, checked
 * against the pairs with nsight_clockfit_given()) from the requests' NIC stamps (client NIC TX t1, server NIC RX
 * t2, server NIC TX t3, client NIC RX t4). NIC TX is the TX completion
 * when it has a hardware stamp, else the driver hand-over (TX_XMIT); NIC
 * RX is the message's n. A wire time that comes out below zero (the
 * estimate lies outside a pair's own bounds, only possible when the fit
 * is inconsistent) is shown as 0 and the request flagged "clamped".
 */
#ifndef NSIGHT_MERGE_H
#define NSIGHT_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "merge/clockfit.h"
#include "base/diag.h"
#include "lifetime/lifetime.h"

/* The layers of a request, in time order; each on one host or the wire. */
enum nsight_layer {
	NSIGHT_L_CLIENT_TX,	/* client send -> client NIC TX */
	NSIGHT_L_WIRE_OUT,	/* client NIC TX -> server NIC RX */
	NSIGHT_L_SERVER_RX,	/* server NIC RX -> hand-off (n -> h) */
	NSIGHT_L_SERVER_WAKE,	/* hand-off -> server app receive (h -> a) */
	NSIGHT_L_SERVER_APP,	/* server receive -> its response send */
	NSIGHT_L_SERVER_TX,	/* server send -> server NIC TX */
	NSIGHT_L_WIRE_BACK,	/* server NIC TX -> client NIC RX */
	NSIGHT_L_CLIENT_RX,	/* client NIC RX -> hand-off */
	NSIGHT_L_CLIENT_WAKE,	/* hand-off -> client app receive */
	__NSIGHT_L_COUNT
};

enum nsight_layer_host {
	NSIGHT_HOST_CLIENT,
	NSIGHT_HOST_WIRE,
	NSIGHT_HOST_SERVER,
	__NSIGHT_HOST_COUNT
};

/* What kept a client send from being a whole request. */
enum nsight_req_state {
	NSIGHT_REQ_COMPLETE,
	NSIGHT_REQ_NO_SERVER_RX,	/* B has no arrival of it */
	NSIGHT_REQ_NO_RESPONSE,		/* B sent no response to it */
	NSIGHT_REQ_NO_CLIENT_RX,	/* A received no response to it */
	NSIGHT_REQ_MISMATCH,		/* the response came before the request, or
					 * (UDP by order) A's own pairing disagrees */
	NSIGHT_REQ_AMBIGUOUS,		/* UDP by order: the hosts saw different
					 * numbers of the flow's datagrams */
	NSIGHT_REQ_UNTIMED,		/* a stage it needs is missing or untimed */
	__NSIGHT_REQ_STATES
};

#define NSIGHT_REQ_NONE SIZE_MAX

struct nsight_request {
	uint8_t state;			/* enum nsight_req_state */
	bool clamped;			/* a wire time came out < 0, shown as 0 */
	uint8_t protocol;
	struct nsight_flow flow;	/* of the request, client -> server */
	/* Indexes into the lifetimes' msgs, NSIGHT_REQ_NONE if none. */
	size_t c_tx, s_rx, s_tx, c_rx;
	/* Complete requests: times on the client's clock, ns. */
	int64_t start_ns;		/* client send */
	int64_t total_ns;		/* client send -> client app receive */
	int64_t layer_ns[__NSIGHT_L_COUNT];
	int64_t t1, t2, t3, t4;		/* the NIC stamps, t2/t3 on B's clock */
};

struct nsight_merge_opts {
	uint32_t tail;			/* tail from this percentile, per 100000 */
	bool synced;			/* the clocks are synchronised (PTP) within
					 * synced_ns: used instead of the estimate */
	int64_t synced_ns;
};

/* A layer across the tail. */
struct nsight_layer_share {
	int64_t median_ns;		/* over all complete requests */
	int64_t dev_ns;			/* summed positive deviation over the tail */
	uint64_t main;			/* tail requests where it deviates the most */
};

struct nsight_merge {
	struct nsight_request *reqs;	/* client sends in time order */
	size_t n, cap;
	uint64_t by_state[__NSIGHT_REQ_STATES];
	uint64_t clamped;
	uint64_t server_rx_unmatched;	/* B's arrivals no client send matched */
	struct nsight_clockfit fit;	/* the line used */
	bool have_fit;
	bool given;			/* fit is the synchronised clocks (synced_ns) */
	struct nsight_clockfit estimate; /* given: what the pairs alone estimate */

	/* Diagnosis over the complete requests. */
	int64_t median_total_ns;
	int64_t tail_threshold_ns;
	size_t *tail;			/* indexes of tail requests, slowest first */
	size_t n_tail;
	struct nsight_layer_share layers[__NSIGHT_L_COUNT];
	int64_t tail_dev_ns;		/* sum of layers' dev_ns */
};

/*
 * Join client lifetimes @a and server lifetimes @b. Returns 0 or
 * -NSIGHT_E_NOMEM; nsight_merge_fini() either way.
 */
int nsight_merge_build(struct nsight_merge *m, const struct nsight_lifetimes *a,
		       const struct nsight_lifetimes *b, const struct nsight_merge_opts *o,
		       struct nsight_diag *d);
void nsight_merge_fini(struct nsight_merge *m);

const char *nsight_layer_name(enum nsight_layer l);
enum nsight_layer_host nsight_layer_host(enum nsight_layer l);
const char *nsight_layer_host_name(enum nsight_layer_host h);
const char *nsight_req_state_name(enum nsight_req_state s);

/* The layer a tail request deviates most in (from the median). */
enum nsight_layer nsight_request_main_layer(const struct nsight_merge *m,
					    const struct nsight_request *r);

#endif /* NSIGHT_MERGE_H */
