/* SPDX-License-Identifier: MIT */
/*
 * Internals of the lifetime rebuild shared by lifetime.c (messages,
 * timing, order), lifetime_rx.c (packets, sockets, RX) and lifetime_tx.c.
 */
#ifndef NSIGHT_LIFETIME_INT_H
#define NSIGHT_LIFETIME_INT_H

#include "base/joinidx.h"
#include "lifetime/lifetime.h"
#include "base/u64map.h"

#define NONE		NSIGHT_IDX_NONE

/* TCP sequence arithmetic (mod 2^32). */
static inline bool seq_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

static inline bool seq_after(uint32_t a, uint32_t b)
{
	return seq_before(b, a);
}

/* Whether [s1, s1 + l1) and [s2, s2 + l2) share a byte. */
static inline bool seq_overlap(uint32_t s1, uint32_t l1, uint32_t s2, uint32_t l2)
{
	return l1 && l2 && seq_before(s1, s2 + l2) && seq_before(s2, s1 + l1);
}

static inline bool seq_contains(uint32_t s, uint32_t l, uint32_t x)
{
	return l && !seq_before(x, s) && seq_before(x, s + l);
}

static inline bool is_rx_stage(uint8_t stage)
{
	return stage == NSIGHT_PKT_RX_NETIF_RX || stage == NSIGHT_PKT_RX_GRO ||
	       stage == NSIGHT_PKT_RX_RECEIVE;
}

/* One packet's way through the RX stages (its records with one pkt_id). */
struct lt_inst {
	uint32_t first;		/* pkt index of the earliest record */
	uint32_t hw;		/* pkt index of a record with a hw stamp */
	uint64_t tsc_last;
	uint32_t len;		/* largest payload_len (an aggregate's) */
	uint8_t stages;		/* 1 << enum nsight_pkt_stage */
	bool ooo;
	bool gso;		/* an aggregate (NSIGHT_PKT_F_GSO) */
	bool receive;		/* reached protocol input */
	bool linked;		/* belongs to a message */
	uint32_t sock;		/* the socket it was addressed to */
	uint32_t cpus[2];	/* first record's and last record's */
};

struct lt_sock {
	uint64_t id;
	struct nsight_flow flow;	/* from hand-off / app_recv records */
	bool have_flow;
	char comm[16];
	uint32_t pid, tid;
	bool have_app;
	uint32_t next_port;		/* chain of sockets on one local port */
	uint64_t tsc_lo, tsc_hi;	/* its hand-off and receive records */
	struct nsight_idx_vec ho, rv, insts;
};

struct lt_build {
	const struct nsight_capture *cap;
	const struct nsight_timeconv *tc;
	struct nsight_lifetimes *lt;
	struct nsight_diag *d;

	struct lt_inst *inst;
	size_t n_inst;
	struct nsight_chains inst_by_id;	/* pkt_id -> instances */

	struct lt_sock *socks;
	size_t n_socks, cap_socks;
	struct nsight_u64map sock_by_id;
	struct nsight_u64map port_head;	/* (protocol, port) -> first socket */

	uint32_t *recv_copy;		/* per recv: its first app_copy, NONE */
	uint32_t *next_send;		/* per send: the socket's next send, NONE */
	uint32_t *next_send_thread;	/* ... the next by the same thread */
	bool *claimed;			/* per pkt: used by a UDP send */
	struct nsight_chains txq;	/* (proto, sport, dport) -> TX_QUEUE pkts */
	uint32_t *txq_last;		/* per txq group: the last one before the send */
	struct nsight_chains rxack;	/* the same key, of the reverse direction:
					 * the peer's packets (its ACKs)
					 */
	struct nsight_chains txid;	/* pkt_id -> TX_XMIT / TX_TSTAMP pkts */
	struct nsight_chains txre;	/* flow hash -> TCP TX_QUEUE pkts that
					 * carry bytes queued before (resent)
					 */
};

int nsight_lt_nomem(struct lt_build *b);

/* TSC ticks and ns at the capture's rate (1 GHz when none is known). */
uint64_t nsight_lt_ticks_ns(const struct lt_build *b, uint64_t ticks);
uint64_t nsight_lt_ns_ticks(const struct lt_build *b, uint64_t ns);

/* A new message (zeroed but for @dir and @proto) at *@idx; NULL if out of memory. */
struct nsight_msg *nsight_lt_new_msg(struct lt_build *b, uint8_t dir, uint8_t proto,
				     uint32_t *idx);
/* Count a record of the message: its window, CPU and order. */
void nsight_lt_touch(struct nsight_msg *m, uint64_t tsc, uint32_t cpu, bool ooo);
/* Set @stage from a record (and count it). */
void nsight_lt_stage(struct nsight_msg *m, unsigned int stage, uint64_t tsc, uint32_t cpu,
		     bool ooo);
/* @m's bytes waited from @from to @to (TSC) for @why (enum nsight_tcp_hold). */
void nsight_lt_hold(struct lt_build *b, struct nsight_msg *m, uint8_t why, uint64_t from,
		    uint64_t to);
/* Application and socket of an app_recv / app_send. */
void nsight_lt_app(struct nsight_msg *m, const struct nsight_rec_app *a);

/* Packet instances, sockets, app_copy per receive; then the RX messages. */
int nsight_lt_rx_index(struct lt_build *b);
int nsight_lt_rx(struct lt_build *b);
/* The TX messages. */
int nsight_lt_tx(struct lt_build *b);

#endif /* NSIGHT_LIFETIME_INT_H */
