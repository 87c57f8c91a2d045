// SPDX-License-Identifier: MIT
/*
 * TX lifetimes: each application send followed to the qdisc (TX_QUEUE),
 * the driver (TX_XMIT) and the completion (TX_TSTAMP).
 */
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "format/flow.h"
#include "lifetime/lifetime_int.h"

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

/*
 * A TCP segment queued to the device with bytes before the highest one its
 * flow queued so far: a retransmission (window probes and keepalives are
 * too, but they resend bytes no send still waits for).
 */
static int add_retrans(struct lt_build *b, struct nsight_u64map *high, uint32_t i)
{
	const struct nsight_rec_pkt *p = &b->cap->pkts[i].r;
	uint32_t end = p->seq + p->payload_len, *v;
	uint64_t key = nsight_flow_hash(&p->flow);
	bool added, resent;

	if (p->flow.protocol != IPPROTO_TCP || !p->payload_len)
		return 0;
	v = nsight_u64map_put(high, key, end, &added);
	if (!v)
		return -NSIGHT_E_NOMEM;
	if (added)
		return 0;
	resent = seq_before(p->seq, *v);
	if (seq_after(end, *v))
		*v = end;
	return resent ? nsight_chains_add(&b->txre, key, i) : 0;
}

static int build_tx_index(struct lt_build *b)
{
	const struct nsight_capture *cap = b->cap;
	size_t i, n = cap->n_sends ? cap->n_sends : 1;
	struct nsight_u64map high;	/* flow hash -> its highest queued byte + 1 */
	int err = 0;

	b->claimed = calloc(cap->n_pkts ? cap->n_pkts : 1, sizeof(*b->claimed));
	b->next_send = malloc(n * sizeof(*b->next_send));
	b->next_send_thread = malloc(n * sizeof(*b->next_send_thread));
	if (!b->claimed || !b->next_send || !b->next_send_thread ||
	    nsight_chains_init(&b->txq, cap->n_pkts) || nsight_chains_init(&b->txid, cap->n_pkts) ||
	    nsight_chains_init(&b->rxack, cap->n_pkts) || nsight_chains_init(&b->txre, cap->n_pkts))
		return nsight_lt_nomem(b);
	nsight_u64map_init(&high);
	for (i = 0; i < cap->n_pkts; i++) {
		const struct nsight_rec_pkt *p = &cap->pkts[i].r;

		if (p->stage == NSIGHT_PKT_TX_QUEUE) {
			err = nsight_chains_add(&b->txq, txq_key(p->flow.protocol, p->flow.sport,
								 p->flow.dport), (uint32_t)i);
			if (!err)
				err = add_retrans(b, &high, (uint32_t)i);
		} else if (p->stage == NSIGHT_PKT_TX_XMIT || p->stage == NSIGHT_PKT_TX_TSTAMP)
			err = nsight_chains_add(&b->txid, p->pkt_id, (uint32_t)i);
		else if (p->stage == NSIGHT_PKT_RX_RECEIVE && p->flow.protocol == IPPROTO_TCP)
			err = nsight_chains_add(&b->rxack, txq_key(p->flow.protocol, p->flow.dport,
								   p->flow.sport), (uint32_t)i);
		if (err) {
			nsight_u64map_fini(&high);
			return nsight_lt_nomem(b);
		}
	}
	nsight_u64map_fini(&high);
	b->txq_last = malloc((b->txq.n_groups ? b->txq.n_groups : 1) * sizeof(*b->txq_last));
	if (!b->txq_last)
		return nsight_lt_nomem(b);
	for (i = 0; i < b->txq.n_groups; i++)
		b->txq_last[i] = NONE;
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
	       (b->claimed[c->cursor[g]] || b->cap->pkts[c->cursor[g]].r.hdr.tsc < tsc)) {
		if (b->cap->pkts[c->cursor[g]].r.hdr.tsc < tsc)
			b->txq_last[g] = c->cursor[g];
		c->cursor[g] = c->next[c->cursor[g]];
	}
	return c->cursor[g];
}

/*
 * The peer's packet of @q's connection that the segment queued at @q (on
 * its CPU) followed: the last one received on that CPU
 * after @from and at most NSIGHT_ACK_RELEASE_NS before @q. NONE if none:
 * the sender queued the segment itself.
 */
#define NSIGHT_ACK_RELEASE_NS	1000000ULL

static uint32_t releasing_ack(struct lt_build *b, uint64_t from, const struct nsight_rec_pkt *q,
			      bool advance)
{
	const struct nsight_capture *cap = b->cap;
	struct nsight_chains *c = &b->rxack;
	uint64_t key = txq_key(q->flow.protocol, q->flow.sport, q->flow.dport);
	uint64_t window = nsight_lt_ns_ticks(b, NSIGHT_ACK_RELEASE_NS);
	uint32_t a = nsight_chains_group(c, key), j, found = NONE;

	if (a == NONE)
		return NONE;
	/* Sends come in time order: for @from a send's, the cursor only moves on. */
	while (advance && c->cursor[a] != NONE && cap->pkts[c->cursor[a]].r.hdr.tsc <= from)
		c->cursor[a] = c->next[c->cursor[a]];
	for (j = c->cursor[a]; j != NONE; j = c->next[j]) {
		const struct nsight_rec_pkt *p = &cap->pkts[j].r;

		if (p->hdr.tsc <= from)
			continue;
		if (p->hdr.tsc > q->hdr.tsc)
			break;
		if (p->hdr.cpu == q->hdr.cpu && q->hdr.tsc - p->hdr.tsc <= window)
			found = j;
	}
	return found;
}

/*
 * Nagle held the bytes: for the peer's delayed ACK when the ACK @ack came
 * 20 ms or more after a round trip from the segment in flight, queued at
 * @inflight (NONE: not known).
 */
static uint8_t nagle_hold(struct lt_build *b, const struct nsight_tcp_send_state *ts,
			  uint32_t inflight, uint32_t ack)
{
	uint64_t wait = 0;

	if (inflight != NONE && ack != NONE)
		wait = nsight_lt_ticks_ns(b, b->cap->pkts[ack].r.hdr.tsc -
					     b->cap->pkts[inflight].r.hdr.tsc);
	return wait >= (uint64_t)ts->srtt_us * 1000 + NSIGHT_DELACK_NS ? NSIGHT_HOLD_NAGLE_DELACK :
									  NSIGHT_HOLD_NAGLE;
}

/* Why the TCP send @snd of @len bytes waited (the first segment queued at @q). */
static void tx_tcp_hold(struct lt_build *b, struct nsight_msg *m, const struct nsight_cap_app *snd,
			uint32_t g, uint32_t len, uint32_t q)
{
	const struct nsight_capture *cap = b->cap;
	const struct nsight_tcp_send_state *ts = &snd->tcp;
	const struct nsight_rec_pkt *qp = &cap->pkts[q].r;
	uint32_t ack = releasing_ack(b, snd->r.hdr.tsc, qp, true), end = snd->r.tcp_seq + len;
	/* No room at all: the send sleeps before its first byte is queued. */
	bool sndbuf = snd->has_tcp && ts->sndbuf && ts->wmem_queued >= ts->sndbuf;
	uint8_t why;

	if (ack == NONE && !sndbuf)
		return;
	if (!snd->has_tcp)
		why = NSIGHT_HOLD_ACK;
	else if (sndbuf)
		why = NSIGHT_HOLD_SNDBUF;
	else if (seq_after(end, ts->snd_una + ts->snd_wnd))
		why = NSIGHT_HOLD_RWND;
	else if (ts->snd_cwnd && ts->packets_out >= ts->snd_cwnd)
		why = NSIGHT_HOLD_CWND;
	else if (ts->nonagle & NSIGHT_TCP_NAGLE_CORK)
		why = NSIGHT_HOLD_CORK;
	else if (!(ts->nonagle & NSIGHT_TCP_NAGLE_OFF) && ts->packets_out && len < ts->mss)
		/* In flight: the last segment before the send. */
		why = nagle_hold(b, ts, b->txq_last[g], ack);
	else
		why = NSIGHT_HOLD_ACK;
	nsight_lt_hold(b, m, why, snd->r.hdr.tsc, qp->hdr.tsc);
}

/*
 * The bytes after the first segment: when the one with the last byte (@l)
 * was queued on the CPU that had just received a packet of the peer (after
 * the first, @f, was queued), they waited for it: the peer's window, the
 * congestion window, or Nagle holding the small rest of a write (with the
 * peer's delayed ACK when the ACK came 20 ms or more after a round trip).
 */
static void tx_tcp_tail_hold(struct lt_build *b, struct nsight_msg *m,
			     const struct nsight_cap_app *snd, uint32_t len, uint32_t f, uint32_t l)
{
	const struct nsight_capture *cap = b->cap;
	const struct nsight_tcp_send_state *ts = &snd->tcp;
	const struct nsight_rec_pkt *fp = &cap->pkts[f].r, *lp = &cap->pkts[l].r;
	uint32_t ack, end = snd->r.tcp_seq + len;
	uint8_t why;

	if (m->hold || f == l)
		return;
	ack = releasing_ack(b, fp->hdr.tsc, lp, false);
	if (ack == NONE)
		return;
	if (!snd->has_tcp)
		why = NSIGHT_HOLD_ACK;
	else if (seq_after(end, ts->snd_una + ts->snd_wnd))
		why = NSIGHT_HOLD_RWND;
	else if (ts->snd_cwnd && ts->mss &&
		 ts->packets_out + (len + ts->mss - 1) / ts->mss > ts->snd_cwnd)
		why = NSIGHT_HOLD_CWND;
	else if (!(ts->nonagle & NSIGHT_TCP_NAGLE_OFF) && lp->payload_len < ts->mss)
		/* In flight: the first segment. */
		why = nagle_hold(b, ts, f, ack);
	else
		why = NSIGHT_HOLD_ACK;
	nsight_lt_hold(b, m, why, fp->hdr.tsc, lp->hdr.tsc);
}

/*
 * The last time bytes of [@start, @start + @len), first queued at @q, were
 * queued again, NONE if they were not. Retransmissions resend the lowest
 * bytes missing first, so one of later bytes ends the search: a second
 * round for the same bytes after it is not seen.
 */
static uint32_t tx_retrans(struct lt_build *b, const struct nsight_cap_app *snd,
			   const struct nsight_rec_pkt *q, uint32_t start, uint32_t len)
{
	const struct nsight_capture *cap = b->cap;
	struct nsight_chains *c = &b->txre;
	uint32_t g = nsight_chains_group(c, nsight_flow_hash(&q->flow)), j, found = NONE;

	if (g == NONE)
		return NONE;
	/* Sends come in time order: nothing resent before this one is its. */
	while (c->cursor[g] != NONE && cap->pkts[c->cursor[g]].r.hdr.tsc < snd->r.hdr.tsc)
		c->cursor[g] = c->next[c->cursor[g]];
	for (j = c->cursor[g]; j != NONE; j = c->next[j]) {
		const struct nsight_rec_pkt *p = &cap->pkts[j].r;

		if (p->hdr.tsc <= q->hdr.tsc)
			continue;
		if (!seq_before(p->seq, start + len))
			break;
		if (seq_overlap(p->seq, p->payload_len, start, len))
			found = j;
	}
	return found;
}

/*
 * The bytes first queued at @q were queued again at @re: the message ends
 * with that copy when the wait for it is longer than any hold before the
 * first (returns whether it does). A packet of the peer received on @re's
 * CPU just before says duplicate ACKs or SACKs prompted it, none a timer.
 */
static bool tx_resent(struct lt_build *b, struct nsight_msg *m, uint32_t q, uint32_t re)
{
	const struct nsight_rec_pkt *qp = &b->cap->pkts[q].r, *rp = &b->cap->pkts[re].r;

	if (m->hold && m->hold_to - m->hold_from >= rp->hdr.tsc - qp->hdr.tsc)
		return false;
	nsight_lt_hold(b, m, releasing_ack(b, qp->hdr.tsc, rp, false) != NONE ?
			     NSIGHT_HOLD_RETRANS_FAST : NSIGHT_HOLD_RETRANS_TIMEOUT,
		       qp->hdr.tsc, rp->hdr.tsc);
	return true;
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
	uint32_t j, end = start + len, last = NONE, first = NONE, re;

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
		if (!m->t[NSIGHT_TX_QUEUE].valid) {
			stage_pkt(b, m, NSIGHT_TX_QUEUE, j);
			first = j;
		} else {
			nsight_lt_touch(m, p->r.hdr.tsc, p->r.hdr.cpu, p->m.ooo);
		}
		m->packets++;
		if (seq_contains(p->r.seq, p->r.payload_len, end - 1)) {
			last = j;
			break;
		}
	}
	if (first != NONE)
		tx_tcp_hold(b, m, snd, g, len, first);
	if (last == NONE)
		return;
	tx_tcp_tail_hold(b, m, snd, len, first, last);
	/* Segments of one skb serve several sends: nothing is claimed. */
	re = tx_retrans(b, snd, &cap->pkts[first].r, start, len);
	if (re != NONE && tx_resent(b, m, first, re))
		last = re;
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

