// SPDX-License-Identifier: MIT
/*
 * RX lifetimes: packets grouped into instances (one packet's records at
 * its RX stages), sockets from hand-off and application records, and the
 * UDP and TCP messages built from them.
 */
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "format/flow.h"
#include "lifetime/lifetime_int.h"

#define NSEC_PER_SEC	1000000000LL
/*
 * A hardware NIC time is used when it is at most this much before the
 * first software record of the packet (and not after it).
 */
#define HW_MAX_LEAD_NS	NSEC_PER_SEC

/* An RX message of socket @s; its flow until a packet shows it: peer > local. */
static void msg_sock(struct nsight_msg *m, const struct lt_sock *s)
{
	m->sock_id = s->id;
	m->flow = s->flow;
	memcpy(m->flow.saddr, s->flow.daddr, 16);
	memcpy(m->flow.daddr, s->flow.saddr, 16);
	m->flow.sport = s->flow.dport;
	m->flow.dport = s->flow.sport;
}

/*
 * Hardware NIC time of instance @in, when a PHC sample of its interface
 * converts it: realtime = hw_tstamp + (sample's realtime - PHC time), then
 * monotonic through the offset in force at its record. The sample's offset
 * is interpolated between the readings nsightctl record takes every few
 * seconds (nsight_phc_offset_at()); a dump reads once, at its end, which
 * assumes the PHC kept its offset (phc2sys). A time after the packet's
 * first software record, or more than HW_MAX_LEAD_NS before it, is not used.
 */
static void nic_hw_time(struct lt_build *b, const struct lt_inst *in, struct nsight_msg_time *t)
{
	const struct nsight_capture *cap = b->cap;
	const struct nsight_rec_pkt *p;
	int64_t real_sw, mono_sw, offs, real, mono, lead, phc_offs;

	if (in->hw == NONE)
		return;
	p = &cap->pkts[in->hw].r;
	if (!nsight_phc_offset_at(cap->phc, cap->n_phc, p->ifindex, p->hw_tstamp, &phc_offs) ||
	    !nsight_tc_convert(b->tc, t->tsc, NSIGHT_CLOCK_REALTIME, &real_sw) ||
	    !nsight_tc_convert(b->tc, t->tsc, NSIGHT_CLOCK_MONOTONIC, &mono_sw) ||
	    __builtin_sub_overflow(real_sw, mono_sw, &offs) ||
	    __builtin_add_overflow(p->hw_tstamp, phc_offs, &real) ||
	    __builtin_sub_overflow(real, offs, &mono) ||
	    __builtin_sub_overflow(mono_sw, mono, &lead) || lead < 0 || lead > HW_MAX_LEAD_NS) {
		b->lt->hw_unused++;
		return;
	}
	t->hw = true;
	t->timed = true;
	t->real_ns = real;
	t->mono_ns = mono;
	b->lt->hw_used++;
}

/* Make instance @i the message's NIC stage and one of its packets. */
static void msg_nic(struct lt_build *b, struct nsight_msg *m, uint32_t i)
{
	struct lt_inst *in = &b->inst[i];
	const struct nsight_cap_pkt *p = &b->cap->pkts[in->first];

	in->linked = true;
	nsight_lt_stage(m, NSIGHT_RX_N, p->r.hdr.tsc, p->r.hdr.cpu, in->ooo);
	nsight_lt_touch(m, in->tsc_last, in->cpus[1], in->ooo);
	m->flow = p->r.flow;
	m->has_wire = p->r.flags & NSIGHT_PKT_F_WIRE_HASH;
	m->wire_hash = p->r.wire_hash;
	nic_hw_time(b, in, &m->t[NSIGHT_RX_N]);
}

static int build_instances(struct lt_build *b)
{
	const struct nsight_capture *cap = b->cap;
	size_t i;

	b->inst = calloc(cap->n_pkts ? cap->n_pkts : 1, sizeof(*b->inst));
	if (!b->inst || nsight_chains_init(&b->inst_by_id, cap->n_pkts))
		return nsight_lt_nomem(b);
	for (i = 0; i < cap->n_pkts; i++) {
		const struct nsight_cap_pkt *p = &cap->pkts[i];
		struct lt_inst *in;
		uint32_t g, t;
		uint8_t bit;

		if (!is_rx_stage(p->r.stage))
			continue;
		bit = (uint8_t)(1U << p->r.stage);
		g = nsight_chains_group(&b->inst_by_id, p->r.pkt_id);
		t = g == NONE ? NONE : b->inst_by_id.tail[g];
		/*
		 * A stage seen again, or anything after protocol input, is
		 * the next packet with the same id (clones and retransmits
		 * share ids; the socket queues are FIFO).
		 */
		if (t != NONE && !(b->inst[t].stages & bit) &&
		    !(b->inst[t].stages & (1U << NSIGHT_PKT_RX_RECEIVE))) {
			in = &b->inst[t];
		} else {
			t = (uint32_t)b->n_inst++;
			in = &b->inst[t];
			in->first = (uint32_t)i;
			in->hw = NONE;
			in->sock = NONE;
			in->cpus[0] = p->r.hdr.cpu;
			if (nsight_chains_add(&b->inst_by_id, p->r.pkt_id, t))
				return nsight_lt_nomem(b);
		}
		in->stages |= bit;
		in->ooo |= p->m.ooo;
		in->tsc_last = p->r.hdr.tsc;
		in->cpus[1] = p->r.hdr.cpu;
		if (p->r.payload_len > in->len)
			in->len = p->r.payload_len;
		if (in->hw == NONE && (p->r.flags & NSIGHT_PKT_F_HWTSTAMP))
			in->hw = (uint32_t)i;
		in->gso |= !!(p->r.flags & NSIGHT_PKT_F_GSO);
		in->receive |= p->r.stage == NSIGHT_PKT_RX_RECEIVE;
	}
	return 0;
}

static struct lt_sock *get_sock(struct lt_build *b, uint64_t id)
{
	bool added;
	uint32_t *v = nsight_u64map_put(&b->sock_by_id, id, (uint32_t)b->n_socks, &added);
	struct lt_sock *s;

	if (!v)
		return NULL;
	if (!added)
		return &b->socks[*v];
	if (b->n_socks == b->cap_socks) {
		size_t cap = b->cap_socks ? b->cap_socks * 2 : 16;

		s = realloc(b->socks, cap * sizeof(*s));
		if (!s)
			return NULL;
		b->socks = s;
		b->cap_socks = cap;
	}
	s = &b->socks[b->n_socks++];
	memset(s, 0, sizeof(*s));
	s->id = id;
	s->next_port = NONE;
	return s;
}

static void sock_set_flow(struct lt_sock *s, const struct nsight_flow *f)
{
	/* A later record may know more: connected, or bound to an address. */
	if (!s->have_flow || (!nsight_flow_connected(&s->flow) && nsight_flow_connected(f)) ||
	    (nsight_addr_unspecified(s->flow.saddr) && !nsight_addr_unspecified(f->saddr)))
		s->flow = *f;
	s->have_flow = true;
}

/* Widen @s's span of records to @tsc. */
static void sock_seen(struct lt_sock *s, uint64_t tsc)
{
	if (!s->tsc_hi || tsc < s->tsc_lo)
		s->tsc_lo = tsc;
	if (tsc > s->tsc_hi)
		s->tsc_hi = tsc;
}

static uint64_t port_key(uint8_t proto, uint16_t port)
{
	return (uint64_t)proto << 16 | port;
}

static int build_sockets(struct lt_build *b)
{
	const struct nsight_capture *cap = b->cap;
	size_t i;

	for (i = 0; i < cap->n_handoffs; i++) {
		const struct nsight_rec_handoff *h = &cap->handoffs[i].r;
		struct lt_sock *s = get_sock(b, h->sock_id);

		if (!s || nsight_idx_push(&s->ho, (uint32_t)i))
			return nsight_lt_nomem(b);
		sock_set_flow(s, &h->flow);
		sock_seen(s, h->hdr.tsc);
	}
	for (i = 0; i < cap->n_recvs; i++) {
		const struct nsight_rec_app *a = &cap->recvs[i].r;
		struct lt_sock *s = get_sock(b, a->sock_id);

		if (!s || nsight_idx_push(&s->rv, (uint32_t)i))
			return nsight_lt_nomem(b);
		sock_set_flow(s, &a->flow);
		sock_seen(s, a->hdr.tsc);
		memcpy(s->comm, a->comm, sizeof(s->comm));
		s->pid = a->pid;
		s->tid = a->tid;
		s->have_app = true;
	}
	/* Sends name the application of sockets that only send here. */
	for (i = 0; i < cap->n_sends; i++) {
		const struct nsight_rec_app *a = &cap->sends[i].r;
		struct lt_sock *s = get_sock(b, a->sock_id);

		if (!s)
			return nsight_lt_nomem(b);
		if (!s->have_app) {
			memcpy(s->comm, a->comm, sizeof(s->comm));
			s->pid = a->pid;
			s->tid = a->tid;
			s->have_app = true;
		}
	}
	for (i = 0; i < b->n_socks; i++) {
		struct lt_sock *s = &b->socks[i];
		bool added;
		uint32_t *head;

		if (!s->have_flow)
			continue;
		head = nsight_u64map_put(&b->port_head, port_key(s->flow.protocol, s->flow.sport),
					 (uint32_t)i, &added);
		if (!head)
			return nsight_lt_nomem(b);
		if (!added) {
			s->next_port = *head;
			*head = (uint32_t)i;
		}
	}
	return 0;
}

/* How far @tsc lies outside @s's span of records (0 inside). */
static uint64_t sock_distance(const struct lt_sock *s, uint64_t tsc)
{
	if (tsc < s->tsc_lo)
		return s->tsc_lo - tsc;
	return tsc > s->tsc_hi ? tsc - s->tsc_hi : 0;
}

/*
 * The socket a packet at @tsc was addressed to: the most specific match;
 * among equally specific ones (a port reused by a later connection, say)
 * the one whose records are nearest in time.
 */
static uint32_t find_sock(struct lt_build *b, const struct nsight_flow *f, uint64_t tsc)
{
	uint32_t *head = nsight_u64map_get(&b->port_head, port_key(f->protocol, f->dport));
	uint32_t i, best = NONE;
	uint64_t best_dist = 0;
	int best_score = 0;

	for (i = head ? *head : NONE; i != NONE; i = b->socks[i].next_port) {
		int score = nsight_flow_to_socket(f, &b->socks[i].flow);
		uint64_t dist = sock_distance(&b->socks[i], tsc);

		if (!score || score < best_score)
			continue;
		if (score > best_score || dist < best_dist || (dist == best_dist && i < best)) {
			best = i;
			best_score = score;
			best_dist = dist;
		}
	}
	return best;
}

static int attribute_instances(struct lt_build *b)
{
	size_t i;

	for (i = 0; i < b->n_inst; i++) {
		struct lt_inst *in = &b->inst[i];
		const struct nsight_rec_pkt *p = &b->cap->pkts[in->first].r;

		if (p->flow.protocol != IPPROTO_UDP && p->flow.protocol != IPPROTO_TCP)
			continue;
		/* TCP segments without payload (ACKs, SYNs) carry no message. */
		if (p->flow.protocol == IPPROTO_TCP && !in->len)
			continue;
		in->sock = find_sock(b, &p->flow, p->hdr.tsc);
		if (in->sock == NONE) {
			b->lt->unattributed_pkts++;
			continue;
		}
		if (nsight_idx_push(&b->socks[in->sock].insts, (uint32_t)i))
			return nsight_lt_nomem(b);
	}
	return 0;
}

/* Per receive, the first app_copy of its thread since the thread's previous receive. */
static int match_copies(struct lt_build *b)
{
	const struct nsight_capture *cap = b->cap;
	struct nsight_u64map pending;	/* tid -> first copy since its last receive */
	size_t c = 0, r;
	int err = 0;

	b->recv_copy = malloc((cap->n_recvs ? cap->n_recvs : 1) * sizeof(*b->recv_copy));
	if (!b->recv_copy)
		return nsight_lt_nomem(b);
	nsight_u64map_init(&pending);
	for (r = 0; r < cap->n_recvs && !err; r++) {
		const struct nsight_rec_app *a = &cap->recvs[r].r;
		uint32_t *v;
		bool added;

		/* A copy at the same TSC as the return still precedes it. */
		for (; c < cap->n_copies && cap->copies[c].r.hdr.tsc <= a->hdr.tsc; c++) {
			v = nsight_u64map_put(&pending, cap->copies[c].r.tid, (uint32_t)c, &added);
			if (!v) {
				err = nsight_lt_nomem(b);
				break;
			}
			if (!added && *v == NONE)
				*v = (uint32_t)c;
		}
		v = nsight_u64map_get(&pending, a->tid);
		b->recv_copy[r] = v ? *v : NONE;
		if (v)
			*v = NONE;
	}
	nsight_u64map_fini(&pending);
	return err;
}

/* ---------------------------------------------------------------------- */
/* Messages                                                                 */

/*
 * The oldest unlinked instance of @pkt_id that reached the NIC by @by and
 * was addressed to socket @sock.
 */
static uint32_t take_instance(struct lt_build *b, uint64_t pkt_id, uint64_t by, uint32_t sock)
{
	struct nsight_chains *c = &b->inst_by_id;
	uint32_t g = nsight_chains_group(c, pkt_id), i;

	if (g == NONE)
		return NONE;
	while (c->cursor[g] != NONE && b->inst[c->cursor[g]].linked)
		c->cursor[g] = c->next[c->cursor[g]];
	for (i = c->cursor[g]; i != NONE; i = c->next[i]) {
		const struct lt_inst *in = &b->inst[i];
		const struct nsight_rec_pkt *p = &b->cap->pkts[in->first].r;

		if (p->hdr.tsc > by)
			break;
		/* The kernel's choice of socket (the hand-off's) beats ours. */
		if (!in->linked && (in->sock == sock ||
				    nsight_flow_to_socket(&p->flow, &b->socks[sock].flow)))
			return i;
	}
	return NONE;
}

/*
 * The first waiting datagram at or after @j in @next (next[x] == x: x still
 * waits, or x is the end), shortening the path for later calls.
 */
static size_t next_waiting(size_t *next, size_t j)
{
	size_t r = j, t;

	while (next[r] != r)
		r = next[r];
	while (next[j] != r) {
		t = next[j];
		next[j] = r;
		j = t;
	}
	return r;
}

static int rx_udp(struct lt_build *b, uint32_t si)
{
	const struct nsight_capture *cap = b->cap;
	const struct lt_sock *s = &b->socks[si];
	/* Datagrams made readable, in hand-off order: message and hand-off. */
	struct nsight_idx_vec pend = { 0 }, pend_ho = { 0 };
	size_t k;
	struct nsight_msg *m;
	uint32_t mi, i;
	size_t *next = NULL;

	for (k = 0; k < s->ho.n; k++) {
		const struct nsight_cap_handoff *h = &cap->handoffs[s->ho.v[k]];

		if (!h->r.pkt_id)
			continue;
		m = nsight_lt_new_msg(b, NSIGHT_MSG_RX, IPPROTO_UDP, &mi);
		if (!m || nsight_idx_push(&pend, mi) || nsight_idx_push(&pend_ho, s->ho.v[k]))
			goto oom;
		msg_sock(m, s);
		nsight_lt_stage(m, NSIGHT_RX_H, h->r.hdr.tsc, h->r.hdr.cpu, h->m.ooo);
		i = take_instance(b, h->r.pkt_id, h->r.hdr.tsc, si);
		if (i != NONE) {
			msg_nic(b, m, i);
			m->packets = 1;
			m->bytes = b->inst[i].len;
		}
	}

	/*
	 * Each scan steps over the datagrams already taken: one whose receive
	 * was never seen (it began before the capture) would otherwise make
	 * every later scan walk all taken since, quadratic in the capture.
	 */
	next = malloc((pend.n + 1) * sizeof(*next));
	if (!next)
		goto oom;
	for (k = 0; k <= pend.n; k++)
		next[k] = k;
	for (k = 0; k < s->rv.n; k++) {
		uint32_t r = s->rv.v[k], c = b->recv_copy[r];
		const struct nsight_cap_app *a = &cap->recvs[r];
		size_t j, found = SIZE_MAX;
		bool early = false;

		if (a->r.ret < 0 || (a->r.flags & MSG_PEEK))
			continue;
		/*
		 * The waiting datagram the copy names, else the oldest waiting
		 * one: the receive queue is FIFO.
		 */
		for (j = next_waiting(next, 0); j < pend.n; j = next_waiting(next, j + 1)) {
			const struct nsight_msg *p = &b->lt->msgs[pend.v[j]];
			bool named = c != NONE &&
				     cap->handoffs[pend_ho.v[j]].r.pkt_id == cap->copies[c].r.pkt_id;

			if (p->t[NSIGHT_RX_H].tsc > a->r.hdr.tsc) {
				/*
				 * Read between its enqueue and its hand-off
				 * record, on another CPU: the copy names it.
				 */
				if (named) {
					found = j;
					early = true;
				}
				break;
			}
			if (c == NONE || named) {
				found = j;
				break;
			}
		}
		if (found != SIZE_MAX) {
			m = &b->lt->msgs[pend.v[found]];
			m->fifo = c == NONE;
			b->lt->fifo += m->fifo;
			next[found] = found + 1;	/* taken */
			if (early) {
				m->early_read = true;
				b->lt->early_reads++;
				m->t[NSIGHT_RX_H].tsc = a->r.hdr.tsc;
			}
		} else {
			/* No hand-off: the copy may still name the packet. */
			m = nsight_lt_new_msg(b, NSIGHT_MSG_RX, IPPROTO_UDP, &mi);
			if (!m)
				goto oom;
			msg_sock(m, s);
			i = c == NONE ? NONE :
			    take_instance(b, cap->copies[c].r.pkt_id, a->r.hdr.tsc, si);
			if (i != NONE) {
				msg_nic(b, m, i);
				m->packets = 1;
			}
		}
		nsight_lt_stage(m, NSIGHT_RX_A, a->r.hdr.tsc, a->r.hdr.cpu, a->m.ooo);
		nsight_lt_app(m, &a->r);
		m->bytes = (uint64_t)a->r.ret;
		if (c != NONE)
			nsight_lt_touch(m, cap->copies[c].r.hdr.tsc, cap->copies[c].r.hdr.cpu,
					cap->copies[c].m.ooo);
	}

	/* Datagrams for this socket that no hand-off or receive accounts for. */
	for (k = 0; k < s->insts.n; k++) {
		i = s->insts.v[k];
		if (b->inst[i].linked)
			continue;
		m = nsight_lt_new_msg(b, NSIGHT_MSG_RX, IPPROTO_UDP, &mi);
		if (!m)
			goto oom;
		msg_sock(m, s);
		msg_nic(b, m, i);
		m->packets = 1;
		m->bytes = b->inst[i].len;
	}
	free(next);
	free(pend.v);
	free(pend_ho.v);
	return 0;
oom:
	free(next);
	free(pend.v);
	free(pend_ho.v);
	return nsight_lt_nomem(b);
}

/* Instance @x lies inside another aggregate instance in @parts. */
static bool inside_aggregate(const struct lt_build *b, const struct nsight_idx_vec *parts,
			     uint32_t x)
{
	const struct lt_inst *in = &b->inst[x];
	uint32_t xs = b->cap->pkts[in->first].r.seq;
	size_t k;

	for (k = 0; k < parts->n; k++) {
		const struct lt_inst *ag = &b->inst[parts->v[k]];
		uint32_t as = b->cap->pkts[ag->first].r.seq;

		if (parts->v[k] == x || !ag->gso)
			continue;
		if (!seq_before(xs, as) && !seq_after(xs + in->len, as + ag->len))
			return true;
	}
	return false;
}

/* A wait of @from to @to ticks for a missing segment: ooo or ooo_rto. */
static void rx_tcp_hold(struct lt_build *b, struct nsight_msg *m, uint64_t from, uint64_t to)
{
	nsight_lt_hold(b, m, nsight_lt_ticks_ns(b, to - from) >= NSIGHT_RTO_NS ?
			     NSIGHT_HOLD_OOO_RTO : NSIGHT_HOLD_OOO, from, to);
}

/*
 * Where a TCP message starts, and whether its bytes waited for a missing
 * segment: when a later part of it (@parts, in time order) arrived before
 * the segment with its first byte @f (instance @n, the @nj-th of socket
 * @s), it starts there and waited until @n came; when @n came first but a
 * segment before @f came after it, by @by (the hand-off), it waited for
 * that one. Returns the instance the message starts at.
 */
static uint32_t rx_tcp_start(struct lt_build *b, const struct lt_sock *s, struct nsight_msg *m,
			     const struct nsight_idx_vec *parts, uint32_t n, size_t nj, uint32_t f,
			     uint64_t by)
{
	const struct nsight_capture *cap = b->cap;
	uint64_t nt = cap->pkts[b->inst[n].first].r.hdr.tsc, fill = 0;
	size_t k;

	if (parts->n && parts->v[0] != n) {
		uint64_t t0 = cap->pkts[b->inst[parts->v[0]].first].r.hdr.tsc;

		if (t0 < nt) {
			rx_tcp_hold(b, m, t0, nt);
			return parts->v[0];
		}
	}
	for (k = nj + 1; k < s->insts.n; k++) {
		const struct nsight_rec_pkt *p = &cap->pkts[b->inst[s->insts.v[k]].first].r;

		if (p->hdr.tsc > by)
			break;
		if (p->hdr.tsc > nt && seq_before(p->seq, f))
			fill = p->hdr.tsc;
	}
	if (fill)
		rx_tcp_hold(b, m, nt, fill);
	return n;
}

static int rx_tcp(struct lt_build *b, uint32_t si)
{
	const struct nsight_capture *cap = b->cap;
	const struct lt_sock *s = &b->socks[si];
	struct nsight_idx_vec parts = { 0 };
	size_t hc = 0, lo = 0, k, j;
	bool have_end = false, any_receive = false;
	uint32_t last_end = 0, mi;
	struct nsight_msg *m;

	for (k = 0; k < s->insts.n; k++)
		any_receive |= b->inst[s->insts.v[k]].receive;

	for (k = 0; k < s->rv.n; k++) {
		const struct nsight_cap_app *a = &cap->recvs[s->rv.v[k]];
		const struct nsight_cap_handoff *h = NULL;
		uint32_t f, len, n = NONE;
		size_t nj = 0;
		uint64_t by;

		/* More than 2^31 bytes at once would defeat sequence arithmetic. */
		if (a->r.ret <= 0 || a->r.ret > INT32_MAX || (a->r.flags & MSG_PEEK))
			continue;
		len = (uint32_t)a->r.ret;
		f = a->r.tcp_seq - len;

		/* The first hand-off (in time) that made byte f readable. */
		for (; hc < s->ho.n; hc++) {
			h = &cap->handoffs[s->ho.v[hc]];
			if (h->r.hdr.tsc > a->r.hdr.tsc || seq_after(h->r.tcp_rcv_nxt, f))
				break;
		}
		if (hc == s->ho.n || h->r.hdr.tsc > a->r.hdr.tsc)
			h = NULL;
		by = h ? h->r.hdr.tsc : a->r.hdr.tsc;

		/* Its packets; n is the earliest that holds byte f. */
		while (lo < s->insts.n) {
			const struct lt_inst *in = &b->inst[s->insts.v[lo]];

			if (seq_after(cap->pkts[in->first].r.seq + in->len, f))
				break;
			lo++;
		}
		parts.n = 0;
		for (j = lo; j < s->insts.n; j++) {
			uint32_t x = s->insts.v[j];
			const struct lt_inst *in = &b->inst[x];
			const struct nsight_rec_pkt *p = &cap->pkts[in->first].r;

			if (p->hdr.tsc > a->r.hdr.tsc)
				break;
			if (!seq_overlap(p->seq, in->len, f, len))
				continue;
			if (nsight_idx_push(&parts, x))
				goto oom;
			if (n == NONE && p->hdr.tsc <= by && seq_contains(p->seq, in->len, f)) {
				n = x;
				nj = j;
			}
		}

		m = nsight_lt_new_msg(b, NSIGHT_MSG_RX, IPPROTO_TCP, &mi);
		if (!m)
			goto oom;
		msg_sock(m, s);
		for (j = 0; j < parts.n; j++) {
			struct lt_inst *in = &b->inst[parts.v[j]];

			if (!inside_aggregate(b, &parts, parts.v[j]))
				m->packets++;
			nsight_lt_touch(m, cap->pkts[in->first].r.hdr.tsc, in->cpus[0], in->ooo);
			nsight_lt_touch(m, in->tsc_last, in->cpus[1], in->ooo);
			in->linked = true;
		}
		if (n != NONE)
			msg_nic(b, m, h ? rx_tcp_start(b, s, m, &parts, n, nj, f, h->r.hdr.tsc) : n);
		if (h)
			nsight_lt_stage(m, NSIGHT_RX_H, h->r.hdr.tsc, h->r.hdr.cpu, h->m.ooo);
		nsight_lt_stage(m, NSIGHT_RX_A, a->r.hdr.tsc, a->r.hdr.cpu, a->m.ooo);
		nsight_lt_app(m, &a->r);
		m->bytes = len;
		m->seq = f;
		last_end = a->r.tcp_seq;
		have_end = true;
	}

	/*
	 * Data that arrived but that no receive returned by the end of the
	 * capture; segments inside an aggregate are its, not messages.
	 */
	hc = 0;
	for (k = 0; k < s->insts.n; k++) {
		uint32_t x = s->insts.v[k];
		const struct lt_inst *in = &b->inst[x];
		const struct nsight_cap_pkt *p = &cap->pkts[in->first];
		const struct nsight_cap_handoff *h = NULL;

		if (in->linked || (have_end && seq_before(p->r.seq, last_end)) ||
		    (any_receive && !in->receive))
			continue;
		m = nsight_lt_new_msg(b, NSIGHT_MSG_RX, IPPROTO_TCP, &mi);
		if (!m)
			goto oom;
		msg_sock(m, s);
		msg_nic(b, m, x);
		for (; hc < s->ho.n; hc++) {
			h = &cap->handoffs[s->ho.v[hc]];
			if (h->r.hdr.tsc >= p->r.hdr.tsc && seq_after(h->r.tcp_rcv_nxt, p->r.seq))
				break;
		}
		if (hc < s->ho.n)
			nsight_lt_stage(m, NSIGHT_RX_H, h->r.hdr.tsc, h->r.hdr.cpu, h->m.ooo);
		m->packets = 1;
		m->bytes = in->len;
	}
	free(parts.v);
	return 0;
oom:
	free(parts.v);
	return nsight_lt_nomem(b);
}

int nsight_lt_rx_index(struct lt_build *b)
{
	int err = build_instances(b);

	if (!err)
		err = build_sockets(b);
	if (!err)
		err = attribute_instances(b);
	if (!err)
		err = match_copies(b);
	return err;
}

int nsight_lt_rx(struct lt_build *b)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < b->n_socks; i++) {
		if (!b->socks[i].have_flow)
			continue;
		if (b->socks[i].flow.protocol == IPPROTO_UDP)
			err = rx_udp(b, (uint32_t)i);
		else if (b->socks[i].flow.protocol == IPPROTO_TCP)
			err = rx_tcp(b, (uint32_t)i);
	}
	return err;
}
