/* SPDX-License-Identifier: MIT */
/*
 * The queue view (nsight.rst "Queue view"): per socket, how many messages
 * were waiting in its receive queue ahead of each message.
 *
 * Two measures per RX message: the depth ahead of it at its hand-off,
 * counted from the lifetimes (complete messages of the same socket handed
 * off before it and received after its hand-off), and the kernel's own
 * queue at that hand-off record (skbs and bytes: sk_receive_queue and
 * sk_rmem_alloc, this message included).
 *
 * A finite resource that loops back: a UDP socket whose datagrams were
 * seen on the way in but never made readable (no hand-off) lost them
 * before its queue: a full receive buffer, a socket filter or a bad
 * checksum. The sock_drop records (the kernel's udp_fail_queue_rcv_skb)
 * say how many the full buffer took; loops.h names the loop.
 */
#ifndef NSIGHT_QUEUEVIEW_H
#define NSIGHT_QUEUEVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/capture.h"
#include "base/diag.h"
#include "lifetime/lifetime.h"

#define NSIGHT_QV_NONE	UINT32_MAX

struct nsight_qv_msg {
	uint32_t ahead;		/* complete messages ahead at h, or NSIGHT_QV_NONE */
	uint32_t kq_len;	/* the hand-off record's queue, NSIGHT_QV_NONE */
	uint32_t kq_bytes;	/* when it was not found */
};

struct nsight_qv_sock {
	uint64_t sock_id;
	struct nsight_flow flow;	/* of a message: peer -> local */
	uint8_t protocol;
	char comm[16];
	uint32_t pid;
	size_t messages;		/* complete RX messages */
	uint32_t ahead_p50, ahead_p99, ahead_max;
	size_t handoffs;		/* hand-off records of the socket */
	uint32_t kq_len_p99, kq_len_max, kq_bytes_p99, kq_bytes_max;
	uint64_t not_queued;		/* UDP: datagrams never made readable */
	uint64_t rcvbuf_drops;		/* UDP: sock_drop records, receive buffer full */
};

struct nsight_queueview {
	struct nsight_qv_msg *msg;	/* per message of the lifetimes */
	size_t n_msg;
	struct nsight_qv_sock *socks;	/* by sock_id */
	size_t n_socks;
};

/* Returns 0 or -NSIGHT_E_NOMEM; nsight_queueview_fini() either way. */
int nsight_queueview_build(struct nsight_queueview *qv, const struct nsight_lifetimes *lt,
			   const struct nsight_capture *cap, struct nsight_diag *d);
void nsight_queueview_fini(struct nsight_queueview *qv);

/* The socket entry of @sock_id, or NULL. */
const struct nsight_qv_sock *nsight_queueview_sock(const struct nsight_queueview *qv,
						   uint64_t sock_id);

#endif /* NSIGHT_QUEUEVIEW_H */
