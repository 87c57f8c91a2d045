/* SPDX-License-Identifier: MIT */
/*
 * Message lifetimes (nsight.rst "Message lifetimes"):
 *
 *   RX: NIC n -> hand-off h (CPU X -> CPU Y) -> application receive a
 *   TX: application send -> qdisc (TX_QUEUE) -> driver (TX_XMIT)
 *       -> TX completion (TX_TSTAMP, when there is one)
 *
 * rebuilt from a capture's packet, hand-off and application records:
 *
 * - A packet is its records at the RX stages with one pkt_id, from the first
 *   stage until a stage repeats or protocol input was seen (then the same id
 *   is the next packet: FIFO). n is its earliest record, or its hardware
 *   stamp when a PHC sample converts it. It belongs to the most specific
 *   socket it was addressed to (connected, then bound address, then
 *   wildcard); sockets are known from hand-off and app_recv records.
 * - UDP: a hand-off names the datagram made readable; the app_copy records
 *   of a thread since its last receive name the one a receive returned,
 *   and without them the oldest waiting one is taken (the queue is FIFO;
 *   such messages are marked "fifo"). A reader running on another CPU can
 *   take a datagram between its enqueue and the hand-off's record (the
 *   wake-up that follows it): when the copy names the first waiting
 *   datagram and its hand-off came after the receive returned, h is that
 *   return (the datagram was readable by then) and the message is marked
 *   "early_read".
 * - TCP: a receive returns [tcp_seq - ret, tcp_seq); n is the earliest
 *   packet holding its first byte, h the first hand-off whose rcv_nxt is
 *   past it; segments inside an aggregate (NSIGHT_PKT_F_GSO) are not
 *   counted as packets of their own.
 * - TX: a UDP send's datagram is the next unclaimed TX_QUEUE packet of its
 *   flow before the thread's next send on the socket, from the send's CPU
 *   if any; a TCP send covers [tcp_seq, tcp_seq + ret) (cut at the socket's
 *   next send), from the first queued packet holding its bytes to the xmit
 *   (and completion) of the one holding its last byte, or of the last copy
 *   of its bytes queued again (a retransmission). A TX_TSTAMP taken
 *   before the xmit record (a software stamp) is no completion.
 *
 * Nothing is invented: a message that lacks a stage, holds a record that
 * is out of TSC order, falls where one of its CPUs lost records, or cannot
 * be put on the clock is kept as incomplete with the reason, and is left
 * out of the latency figures. A datagram delivered to several sockets
 * (multicast) gets its packet in the first socket's message only.
 */
#ifndef NSIGHT_LIFETIME_H
#define NSIGHT_LIFETIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/nsight.h>

#include "capture/capture.h"
#include "base/diag.h"
#include "capture/timeconv.h"

enum nsight_msg_dir {
	NSIGHT_MSG_RX,
	NSIGHT_MSG_TX,
};

/* Why a message is incomplete; the first that applies is given. */
enum nsight_msg_reason {
	NSIGHT_MSG_COMPLETE,
	NSIGHT_MSG_DROPS,		/* a CPU of the message lost records in its window */
	NSIGHT_MSG_OUT_OF_ORDER,	/* one of its records is out of TSC order */
	NSIGHT_MSG_NO_NIC,		/* RX: no packet record */
	NSIGHT_MSG_NO_HANDOFF,		/* RX: no hand-off made it readable */
	NSIGHT_MSG_NO_APP_RECV,		/* RX: no application receive returned it */
	NSIGHT_MSG_NO_QUEUE,		/* TX: no packet entered the qdisc layer */
	NSIGHT_MSG_NO_XMIT,		/* TX: the driver never took it */
	NSIGHT_MSG_NO_CLOCK,		/* no clock records to time it with */
	__NSIGHT_MSG_REASONS
};

/* Stages: RX n, h, a; TX send, queue, xmit, done. */
enum {
	NSIGHT_RX_N,
	NSIGHT_RX_H,
	NSIGHT_RX_A,
	NSIGHT_TX_SEND = 0,
	NSIGHT_TX_QUEUE,
	NSIGHT_TX_XMIT,
	NSIGHT_TX_DONE,
	NSIGHT_MSG_STAGES = 4
};

struct nsight_msg_time {
	bool valid;		/* the stage was found */
	bool timed;		/* real_ns and mono_ns are set */
	bool hw;		/* from the NIC's hardware timestamp (PHC) */
	uint32_t cpu;
	uint64_t tsc;		/* of the record (for hw: still its record's) */
	int64_t real_ns;
	int64_t mono_ns;
};

/*
 * Why a TCP message's bytes waited in the send queue: the segment carrying
 * them (the first, or the one with the last byte: the rest of a write) was
 * queued to the device only when an ACK of the peer came (on the CPU that
 * received it, after the send began or the first segment was queued), or
 * the send buffer was full when the send began. The sender's state at the send (struct
 * nsight_tcp_send_state) names the limit, in this order of precedence.
 * Or they were sent and then sent again: a retransmission, which ends the
 * message (its xmit is the last copy's) when it waited longer than any
 * hold before the first copy.
 * On receive: the message's first byte arrived, but a segment before it
 * came later (it filled a hole: the bytes could not be read until then).
 */
enum nsight_tcp_hold {
	NSIGHT_HOLD_NONE,
	NSIGHT_HOLD_SNDBUF,		/* the send buffer was full */
	NSIGHT_HOLD_RWND,		/* the bytes were past the peer's window */
	NSIGHT_HOLD_CWND,		/* the congestion window was full */
	NSIGHT_HOLD_CORK,		/* TCP_CORK */
	NSIGHT_HOLD_NAGLE,		/* less than an MSS with data in flight */
	NSIGHT_HOLD_NAGLE_DELACK,	/* the same, and the ACK came at least
					 * NSIGHT_DELACK_NS after the round trip:
					 * the peer delayed it
					 */
	NSIGHT_HOLD_ACK,		/* until an ACK; no state says why */
	/*
	 * TX TCP: the bytes were queued again later (a retransmission); the
	 * wait is from their first queueing to the last one.
	 */
	NSIGHT_HOLD_RETRANS_FAST,	/* after a packet of the peer (duplicate
					 * ACKs, SACK): fast retransmit
					 */
	NSIGHT_HOLD_RETRANS_TIMEOUT,	/* by a timer: the retransmission
					 * timeout or a tail loss probe
					 */
	/* RX TCP: the bytes arrived, but an earlier segment had not. */
	NSIGHT_HOLD_OOO,		/* it came soon after (fast retransmit,
					 * reordering)
					 */
	NSIGHT_HOLD_OOO_RTO,		/* it came NSIGHT_RTO_NS or more later:
					 * a retransmission timeout
					 */
	__NSIGHT_HOLD_REASONS
};

/* An ACK this much later than the round trip was a delayed one (Linux: 40 ms). */
#define NSIGHT_DELACK_NS	20000000ULL
/* A missing segment this late came by a retransmission timeout (Linux: 200 ms at least). */
#define NSIGHT_RTO_NS		150000000ULL

/* "sndbuf", "rwnd", ... ("" for none). */
const char *nsight_tcp_hold_name(enum nsight_tcp_hold h);

struct nsight_msg {
	uint64_t id;			/* 1.., per direction */
	uint8_t dir;			/* enum nsight_msg_dir */
	uint8_t protocol;		/* IPPROTO_UDP or IPPROTO_TCP */
	uint8_t reason;			/* enum nsight_msg_reason */
	bool fifo;			/* UDP receive matched by queue order:
					 * no app_copy named the datagram
					 */
	bool early_read;		/* UDP: read before its hand-off record */
	struct nsight_flow flow;	/* sender -> receiver of the data */
	uint64_t sock_id;
	char comm[16];			/* NUL-terminated; "" if unknown */
	uint32_t pid, tid;
	struct nsight_msg_time t[NSIGHT_MSG_STAGES];
	uint32_t packets;
	uint64_t bytes;
	uint32_t seq;			/* TCP: sequence number of its first byte */
	uint32_t wire_hash;		/* UDP: the packet's host-independent
					 * identity (uapi nsight.h), if has_wire */
	bool has_wire;
	uint8_t hold;			/* TX TCP: enum nsight_tcp_hold */
	uint64_t hold_from, hold_to;	/* TSC: the send, the segment's queueing;
					 * a retransmission: the first queueing,
					 * the last; RX: n, the hole's filling
					 */
	uint64_t hold_ns;		/* hold_to - hold_from in ns */
	int64_t seg_ns[NSIGHT_MSG_STAGES - 1];	/* stage i -> i + 1, when both timed */
	int64_t total_ns;		/* complete messages: n -> a, send -> xmit/done */

	/* For the checks: where the message's records lie. */
	uint64_t tsc_lo, tsc_hi;
	uint32_t cpus[8];
	uint8_t n_cpus;
	bool ooo;
};

struct nsight_lifetimes {
	struct nsight_msg *msgs;	/* RX by id, then TX by id */
	size_t n, cap;
	size_t n_rx, n_tx;
	uint64_t n_complete;
	uint64_t by_reason[__NSIGHT_MSG_REASONS];
	uint64_t ooo_records;		/* records out of TSC order, all CPUs */
	uint64_t stages_unresolved;	/* pkt_stage records without their pkt */
	uint64_t fifo;			/* UDP receives matched by socket order */
	uint64_t early_reads;		/* UDP datagrams read before their hand-off record */
	uint64_t hw_used;		/* NIC times from hardware timestamps */
	uint64_t hw_unused;		/* hw timestamps not convertible or implausible */
	uint64_t unattributed_pkts;	/* RX data packets of no socket seen */
	enum nsight_tc_quality quality;
};

/*
 * Rebuild the lifetimes of @cap (finished) timed with @tc. Returns 0 or
 * -NSIGHT_E_NOMEM; nsight_lifetimes_fini() either way.
 */
int nsight_lifetimes_build(struct nsight_lifetimes *lt, const struct nsight_capture *cap,
			   const struct nsight_timeconv *tc, struct nsight_diag *d);
void nsight_lifetimes_fini(struct nsight_lifetimes *lt);

/*
 * Keep only the messages whose earliest record lies in [@lo, @hi), in
 * their order, numbered 1.. per direction again, and count them again
 * (n_rx, n_tx, n_complete, by_reason, fifo, early_reads); the record counters
 * (ooo_records, stages_unresolved, hw_*, unattributed_pkts) stay.
 */
void nsight_lifetimes_keep(struct nsight_lifetimes *lt, uint64_t lo, uint64_t hi);

const char *nsight_msg_reason_name(enum nsight_msg_reason r);
const char *nsight_msg_dir_name(enum nsight_msg_dir dir);

/*
 * The order of the groups of the latency summary and the diagnosis: comm
 * (16 bytes, not always NUL-terminated), then pid, then direction.
 */
int nsight_msg_group_cmp(const char *comm_x, uint32_t pid_x, uint8_t dir_x, const char *comm_y,
			 uint32_t pid_y, uint8_t dir_y);
/* "udp", "tcp" or the number. */
const char *nsight_proto_name(uint8_t proto, char *buf, size_t len);
/* The stage names of a direction: "n", "h", "a" / "send", "queue", ... */
const char *nsight_msg_stage_name(enum nsight_msg_dir dir, unsigned int stage);

/* Absolute time of a stage in @clk. */
static inline int64_t nsight_msg_time_ns(const struct nsight_msg_time *t, enum nsight_clockid clk)
{
	return clk == NSIGHT_CLOCK_MONOTONIC ? t->mono_ns : t->real_ns;
}

/* 1 + the last stage a direction has. */
static inline unsigned int nsight_msg_n_stages(enum nsight_msg_dir dir)
{
	return dir == NSIGHT_MSG_RX ? 3 : 4;
}

#endif /* NSIGHT_LIFETIME_H */
