/* SPDX-License-Identifier: MIT */
/*
 * Resource loops (nsight.rst "Queue view"): a finite resource between a
 * producer and a consumer that was full, so that the producer's path looped
 * back to wait for the consumer (or lost data to it) and messages waited on
 * each other rather than on any slow operation of their own.
 *
 * - A UDP socket's receive buffer (sock_drop records, -ENOMEM): datagrams
 *   were dropped; the messages that were in the queue when one was
 *   dropped (handed off before it, received after it) waited behind the
 *   full queue.
 * - UDP's memory limit (sock_drop, -ENOBUFS): the same, for all sockets.
 * - A TCP sender's send buffer (TX messages held "sndbuf"): sends waited
 *   for the peer's ACKs to free it.
 * - The peer's TCP receive window (TX messages held "rwnd"): sends waited
 *   for the peer's reader to make room.
 * - A device's transmit queue: packets that waited NSIGHT_LOOP_QDISC_NS or
 *   more between net_dev_queue and net_dev_start_xmit (a full TX ring
 *   stopped the queue, or the qdisc shapes or holds a backlog).
 */
#ifndef NSIGHT_LOOPS_H
#define NSIGHT_LOOPS_H

#include <stddef.h>
#include <stdint.h>

#include "capture/capture.h"
#include "base/diag.h"
#include "lifetime/lifetime.h"

enum nsight_loop_kind {
	NSIGHT_LOOP_UDP_RCVBUF,
	NSIGHT_LOOP_UDP_MEM,
	NSIGHT_LOOP_TCP_SNDBUF,
	NSIGHT_LOOP_TCP_RWND,
	NSIGHT_LOOP_TX_QUEUE,
	__NSIGHT_LOOP_KINDS
};

/* A packet this long between the qdisc and the driver waited for the device. */
#define NSIGHT_LOOP_QDISC_NS	1000000ULL

struct nsight_loop {
	uint8_t kind;			/* enum nsight_loop_kind */
	uint8_t dir;			/* enum nsight_msg_dir of its messages */
	uint64_t sock_id;		/* 0 for a device's */
	uint32_t ifindex;		/* TX_QUEUE: the device */
	struct nsight_flow flow;	/* UDP: the socket's; TCP: sender > peer */
	char comm[16];			/* its application, "" if unknown */
	uint32_t pid;
	uint64_t events;		/* datagrams dropped, sends held, packets
					 * that waited (TX_QUEUE)
					 */
	uint64_t first_tsc, last_tsc;	/* of those events */
	uint32_t limit_bytes;		/* UDP: the receive buffer's size */
	uint32_t used_max_bytes;	/* UDP: the most in use at a drop */
	uint64_t messages;		/* complete messages that waited in it */
	uint64_t wait_total_ns, wait_median_ns, wait_max_ns;	/* theirs; TX_QUEUE:
								 * the packets'
								 */
};

struct nsight_loops {
	struct nsight_loop *v;		/* most waiting first, then most events */
	size_t n, cap;
};

/*
 * Find the loops of @cap with its lifetimes @lt (@tick_hz: the TSC's rate,
 * for the packets' waits). Returns 0 or
 * -NSIGHT_E_NOMEM; nsight_loops_fini() either way.
 */
int nsight_loops_find(struct nsight_loops *l, const struct nsight_capture *cap,
		      const struct nsight_lifetimes *lt, uint64_t tick_hz, struct nsight_diag *d);
void nsight_loops_fini(struct nsight_loops *l);

/* "udp_rcvbuf", "udp_mem", "tcp_sndbuf", "tcp_rwnd", "tx_queue". */
const char *nsight_loop_kind_name(enum nsight_loop_kind k);
/* "UDP receive buffer full", ... */
const char *nsight_loop_resource(enum nsight_loop_kind k);
/* What a user would try, one sentence. */
const char *nsight_loop_advice(enum nsight_loop_kind k);

#endif /* NSIGHT_LOOPS_H */
