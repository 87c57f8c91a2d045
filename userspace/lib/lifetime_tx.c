// SPDX-License-Identifier: MIT
/*
 * TX lifetimes: each application send followed to the qdisc (TX_QUEUE),
 * the driver (TX_XMIT) and the completion (TX_TSTAMP).
 */
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "flow.h"
#include "lifetime_int.h"

static uint64_t txq_key(uint8_t proto, uint16_t sport, uint16_t dport)
{
	return (uint64_t)proto << 32 | (uint64_t)sport << 16 | dport;
}

/* Per send, the next send with the same key (NONE for the last). */
static int link_sends(struct lt_build *b, uint32_t *next, bool per_thread)
{
	const struct nsight_capture *cap = b->cap;
	struct nsight_u64map last;	/* key -> its latest send so far */
	size_t i;

	nsight_u64map_init(&last);
	for (i = 0; i < cap->n_sends; i++) {
		const struct nsight_rec_app *a = &cap->sends[i].r;
		/* A (socket, thread) key; a collision only shortens a bound. */
		uint64_t key = per_thread ? a->sock_id * 0x9e3779b97f4a7c15ULL + a->tid :
					    a->sock_id;
		bool added;
		uint32_t *v = nsight_u64map_put(&last, key, (uint32_t)i, &added);

		if (!v) {
			nsight_u64map_fini(&last);
			return nsight_lt_nomem(b);
		}
		next[i] = NONE;
		if (!added) {
			next[*v] = (uint32_t)i;
			*v = (uint32_t)i;
		}
	}
	nsight_u64map_fini(&last);
	return 0;
}

static int build_tx_index(struct lt_build *b)
{
	const struct nsight_capture *cap = b->cap;
	size_t i, n = cap->n_sends ? cap->n_sends : 1;
	int err = 0;

	b->claimed = calloc(cap->n_pkts ? cap->n_pkts : 1, sizeof(*b->claimed));
	b->next_send = malloc(n * sizeof(*b->next_send));
	b->next_send_thread = malloc(n * sizeof(*b->next_send_thread));
	if (!b->claimed || !b->next_send || !b->next_send_thread ||
	    nsight_chains_init(&b->txq, cap->n_pkts) || nsight_chains_init(&b->txid, cap->n_pkts))
		return nsight_lt_nomem(b);
	for (i = 0; i < cap->n_pkts; i++) {
		const struct nsight_rec_pkt *p = &cap->pkts[i].r;

		if (p->stage == NSIGHT_PKT_TX_QUEUE)
			err = nsight_chains_add(&b->txq, txq_key(p->flow.protocol, p->flow.sport,
								 p->flow.dport), (uint32_t)i);
		else if (p->stage == NSIGHT_PKT_TX_XMIT || p->stage == NSIGHT_PKT_TX_TSTAMP)
			err = nsight_chains_add(&b->txid, p->pkt_id, (uint32_t)i);
		if (err)
			return nsight_lt_nomem(b);
	}
	err = link_sends(b, b->next_send, false);
	if (!err)
		err = link_sends(b, b->next_send_thread, true);
	return err;
}

/* Set @stage from packet record @i. */
static void stage_pkt(struct lt_build *b, struct nsight_msg *m, unsigned int stage, uint32_t i)
{
	const struct nsight_cap_pkt *p = &b->cap->pkts[i];

	nsight_lt_stage(m, stage, p->r.hdr.tsc, p->r.hdr.cpu, p->m.ooo);
	if (stage == NSIGHT_TX_QUEUE) {
		m->flow = p->r.flow;	/* the socket's may lack an address */
		m->has_wire = p->r.flags & NSIGHT_PKT_F_WIRE_HASH;
		m->wire_hash = p->r.wire_hash;
	}
}

/* The first unclaimed @stage record of @pkt_id at or after @from on @ifindex. */
static uint32_t tx_follow(struct lt_build *b, uint64_t pkt_id, uint8_t stage, uint64_t from,
			  uint32_t ifindex, bool claim)
{
	struct nsight_chains *c = &b->txid;
	uint32_t g = nsight_chains_group(c, pkt_id), j;

	if (g == NONE)
		return NONE;
	while (c->cursor[g] != NONE && b->claimed[c->cursor[g]])
		c->cursor[g] = c->next[c->cursor[g]];
	for (j = c->cursor[g]; j != NONE; j = c->next[j]) {
		const struct nsight_rec_pkt *p = &b->cap->pkts[j].r;

		if (b->claimed[j] || p->stage != stage || p->hdr.tsc < from)
			continue;
		if (stage == NSIGHT_PKT_TX_XMIT && (p->ifindex != ifindex || p->rc))
			continue;
		if (claim)
			b->claimed[j] = true;
		return j;
	}
	return NONE;
}

/*
 * The queued packet's way on: the driver, then the completion. A TX_TSTAMP
 * before the driver returned (a software stamp, taken inside
 * ndo_start_xmit) is not a completion.
 */
static void tx_rest(struct lt_build *b, struct nsight_msg *m, uint32_t q, bool claim)
{
	const struct nsight_rec_pkt *p = &b->cap->pkts[q].r;
	uint32_t x, t;

	x = tx_follow(b, p->pkt_id, NSIGHT_PKT_TX_XMIT, p->hdr.tsc, p->ifindex, claim);
	if (x == NONE)
		return;
	stage_pkt(b, m, NSIGHT_TX_XMIT, x);
	t = tx_follow(b, p->pkt_id, NSIGHT_PKT_TX_TSTAMP, b->cap->pkts[x].r.hdr.tsc, 0, claim);
	if (t != NONE)
		stage_pkt(b, m, NSIGHT_TX_DONE, t);
}

/* First element of group @g worth looking at for a send at @tsc. */
static uint32_t txq_start(struct lt_build *b, uint32_t g, uint64_t tsc)
{
	struct nsight_chains *c = &b->txq;

	/* Sends come in time order: nothing before this one is of use later. */
	while (c->cursor[g] != NONE &&
	       (b->claimed[c->cursor[g]] || b->cap->pkts[c->cursor[g]].r.hdr.tsc < tsc))
		c->cursor[g] = c->next[c->cursor[g]];
	return c->cursor[g];
}

/*
 * The send's datagram: the next unclaimed one of its flow queued before the
 * thread's next send on the socket (@bound), from the send's CPU if there
 * is one, else from any CPU.
 */
static void tx_udp(struct lt_build *b, struct nsight_msg *m, const struct nsight_cap_app *snd,
		   uint32_t g, uint64_t bound)
{
	const struct nsight_capture *cap = b->cap;
	uint32_t j, q = NONE, any = NONE;

	for (j = txq_start(b, g, snd->r.hdr.tsc); j != NONE; j = b->txq.next[j]) {
		const struct nsight_rec_pkt *p = &cap->pkts[j].r;

		if (p->hdr.tsc >= bound)
			break;
		if (b->claimed[j] || !nsight_flow_from_socket(&p->flow, &snd->r.flow))
			continue;
		if (any == NONE)
			any = j;
		if (p->hdr.cpu == snd->r.hdr.cpu) {
			q = j;
			break;
		}
	}
	if (q == NONE)
		q = any;
	if (q == NONE)
		return;
	b->claimed[q] = true;
	stage_pkt(b, m, NSIGHT_TX_QUEUE, q);
	m->packets = 1;
	tx_rest(b, m, q, true);
}

static void tx_tcp(struct lt_build *b, struct nsight_msg *m, const struct nsight_cap_app *snd,
		   uint32_t g, uint32_t start, uint32_t len)
{
	const struct nsight_capture *cap = b->cap;
	uint32_t j, end = start + len, last = NONE;

	/*
	 * New data goes out in sequence order, so the scan ends at the
	 * packet with the last byte or at the first one beyond it.
	 */
	for (j = txq_start(b, g, snd->r.hdr.tsc); j != NONE; j = b->txq.next[j]) {
		const struct nsight_cap_pkt *p = &cap->pkts[j];

		if (!p->r.payload_len || !nsight_flow_from_socket(&p->r.flow, &snd->r.flow))
			continue;
		if (!seq_before(p->r.seq, end))
			break;
		if (!seq_overlap(p->r.seq, p->r.payload_len, start, len))
			continue;
		if (!m->t[NSIGHT_TX_QUEUE].valid)
			stage_pkt(b, m, NSIGHT_TX_QUEUE, j);
		else
			nsight_lt_touch(m, p->r.hdr.tsc, p->r.hdr.cpu, p->m.ooo);
		m->packets++;
		if (seq_contains(p->r.seq, p->r.payload_len, end - 1)) {
			last = j;
			break;
		}
	}
	/* Segments of one skb serve several sends: nothing is claimed. */
	if (last != NONE)
		tx_rest(b, m, last, false);
}

int nsight_lt_tx(struct lt_build *b)
{
	const struct nsight_capture *cap = b->cap;
	int err = build_tx_index(b);
	size_t i;

	if (err)
		return err;
	for (i = 0; i < cap->n_sends; i++) {
		const struct nsight_cap_app *snd = &cap->sends[i];
		uint8_t proto = snd->r.flow.protocol;
		uint32_t nx = b->next_send[i], nt = b->next_send_thread[i], len = 0, g, mi;
		struct nsight_msg *m;

		if (snd->r.ret < 0 || (proto != IPPROTO_UDP && proto != IPPROTO_TCP))
			continue;
		if (proto == IPPROTO_TCP) {
			if (snd->r.ret > INT32_MAX)
				continue;
			len = (uint32_t)snd->r.ret;
			/* Sent less than asked: the socket's next send starts earlier. */
			if (nx != NONE && seq_after(cap->sends[nx].r.tcp_seq, snd->r.tcp_seq) &&
			    seq_before(cap->sends[nx].r.tcp_seq, snd->r.tcp_seq + len))
				len = cap->sends[nx].r.tcp_seq - snd->r.tcp_seq;
			if (!len)
				continue;
		}
		m = nsight_lt_new_msg(b, NSIGHT_MSG_TX, proto, &mi);
		if (!m)
			return nsight_lt_nomem(b);
		nsight_lt_app(m, &snd->r);
		m->flow = snd->r.flow;
		m->bytes = proto == IPPROTO_TCP ? len : (uint64_t)snd->r.ret;
		m->seq = proto == IPPROTO_TCP ? snd->r.tcp_seq : 0;
		nsight_lt_stage(m, NSIGHT_TX_SEND, snd->r.hdr.tsc, snd->r.hdr.cpu, snd->m.ooo);
		g = nsight_chains_group(&b->txq,
					txq_key(proto, snd->r.flow.sport, snd->r.flow.dport));
		if (g == NONE)
			continue;
		if (proto == IPPROTO_UDP)
			tx_udp(b, m, snd, g, nt == NONE ? UINT64_MAX : cap->sends[nt].r.hdr.tsc);
		else
			tx_tcp(b, m, snd, g, snd->r.tcp_seq, len);
	}
	return 0;
}

