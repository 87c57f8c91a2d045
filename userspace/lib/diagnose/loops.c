// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose/loops.h"
#include "base/satmath.h"
#include "base/u64map.h"
#include "base/vec.h"

/* One event or wait of a loop, sortable by loop and value. */
struct loop_val {
	uint32_t loop;
	uint64_t v;
};

struct finder {
	struct nsight_loops *l;
	struct nsight_u64map by_key;	/* (sock_id, kind) -> loop */
	struct loop_val *drops, *waits;
	size_t n_drops, cap_drops, n_waits, cap_waits;
};

static int cmp_val(const void *a, const void *b)
{
	const struct loop_val *x = a, *y = b;

	if (x->loop != y->loop)
		return x->loop < y->loop ? -1 : 1;
	return x->v < y->v ? -1 : x->v > y->v;
}

static int cmp_loop(const void *a, const void *b)
{
	const struct nsight_loop *x = a, *y = b;

	if (x->wait_total_ns != y->wait_total_ns)
		return x->wait_total_ns > y->wait_total_ns ? -1 : 1;
	if (x->events != y->events)
		return x->events > y->events ? -1 : 1;
	return x->first_tsc < y->first_tsc ? -1 : x->first_tsc > y->first_tsc;
}

/* The loop of (@sock_id, @kind), made when new; NULL if out of memory. */
static struct nsight_loop *loop_of(struct finder *f, uint64_t sock_id, uint8_t kind,
				   uint32_t *idx)
{
	struct nsight_loops *l = f->l;
	bool added;
	uint32_t *v = nsight_u64map_put(&f->by_key, sock_id * __NSIGHT_LOOP_KINDS + kind,
					(uint32_t)l->n, &added);

	if (!v)
		return NULL;
	if (added) {
		if (NSIGHT_VEC_GROW(l->v, l->n, l->cap))
			return NULL;
		l->v[l->n++] = (struct nsight_loop){ .kind = kind, .sock_id = sock_id,
						     .first_tsc = UINT64_MAX };
	}
	*idx = *v;
	return &l->v[*v];
}

static void count_event(struct nsight_loop *lp, uint64_t tsc)
{
	lp->events++;
	if (tsc < lp->first_tsc)
		lp->first_tsc = tsc;
	if (tsc > lp->last_tsc)
		lp->last_tsc = tsc;
}

static int push_val(struct loop_val **v, size_t *n, size_t *cap, uint32_t loop, uint64_t x)
{
	if (NSIGHT_VEC_GROW(*v, *n, *cap))
		return -1;
	(*v)[(*n)++] = (struct loop_val){ loop, x };
	return 0;
}

/* The sockets' drops: one loop per socket and resource. */
static int udp_drops(struct finder *f, const struct nsight_capture *cap)
{
	size_t i;

	for (i = 0; i < cap->n_sock_drops; i++) {
		const struct nsight_rec_sock_drop *r = &cap->sock_drops[i].r;
		uint8_t kind = r->rc == -ENOMEM ? NSIGHT_LOOP_UDP_RCVBUF : NSIGHT_LOOP_UDP_MEM;
		uint32_t idx;
		struct nsight_loop *lp = loop_of(f, r->sock_id, kind, &idx);

		if (!lp || push_val(&f->drops, &f->n_drops, &f->cap_drops, idx, r->hdr.tsc))
			return -1;
		lp->dir = NSIGHT_MSG_RX;
		lp->flow = r->flow;
		count_event(lp, r->hdr.tsc);
		if (r->rcvbuf > lp->limit_bytes)
			lp->limit_bytes = r->rcvbuf;
		if (r->rcvq_bytes > lp->used_max_bytes)
			lp->used_max_bytes = r->rcvq_bytes;
	}
	return 0;
}

/* Whether one of @n sorted drop TSCs lies in [@lo, @hi]. */
static bool drop_within(const struct loop_val *d, size_t n, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = n;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (d[mid].v < lo)
			a = mid + 1;
		else
			b = mid;
	}
	return a < n && d[a].v <= hi;
}

/*
 * A socket's RX messages that were in its queue when it dropped a
 * datagram; @first/@count: each loop's run in the sorted drops.
 */
static int udp_waits(struct finder *f, const struct nsight_msg *m, const size_t *first,
		     const size_t *count)
{
	static const uint8_t kinds[] = { NSIGHT_LOOP_UDP_RCVBUF, NSIGHT_LOOP_UDP_MEM };
	size_t k;

	for (k = 0; k < sizeof(kinds); k++) {
		uint32_t *v = nsight_u64map_get(&f->by_key,
						m->sock_id * __NSIGHT_LOOP_KINDS + kinds[k]);
		struct nsight_loop *lp;

		if (!v)
			continue;
		lp = &f->l->v[*v];
		if (!lp->comm[0]) {
			memcpy(lp->comm, m->comm, sizeof(lp->comm));
			lp->pid = m->pid;
		}
		if (m->reason != NSIGHT_MSG_COMPLETE ||
		    !drop_within(f->drops + first[*v], count[*v], m->t[NSIGHT_RX_H].tsc,
				 m->t[NSIGHT_RX_A].tsc))
			continue;
		lp->messages++;
		if (push_val(&f->waits, &f->n_waits, &f->cap_waits, *v,
			     m->seg_ns[NSIGHT_RX_H] > 0 ? (uint64_t)m->seg_ns[NSIGHT_RX_H] : 0))
			return -1;
	}
	return 0;
}

/* A TCP send held by its send buffer or the peer's window. */
static int tcp_hold(struct finder *f, const struct nsight_msg *m)
{
	uint8_t kind;
	uint32_t idx;
	struct nsight_loop *lp;

	if (m->hold == NSIGHT_HOLD_SNDBUF)
		kind = NSIGHT_LOOP_TCP_SNDBUF;
	else if (m->hold == NSIGHT_HOLD_RWND)
		kind = NSIGHT_LOOP_TCP_RWND;
	else
		return 0;
	lp = loop_of(f, m->sock_id, kind, &idx);
	if (!lp)
		return -1;
	lp->dir = NSIGHT_MSG_TX;
	lp->flow = m->flow;
	memcpy(lp->comm, m->comm, sizeof(lp->comm));
	lp->pid = m->pid;
	count_event(lp, m->hold_from);
	if (m->reason != NSIGHT_MSG_COMPLETE)
		return 0;
	lp->messages++;
	return push_val(&f->waits, &f->n_waits, &f->cap_waits, idx, m->hold_ns);
}

/* A device's loop is keyed apart from the sockets' cookies. */
#define DEV_KEY(ifindex)	(1ULL << 62 | (ifindex))

/*
 * Each device's packets from the qdisc (TX_QUEUE) to the driver (the next
 * TX_XMIT of the same id on the device that the driver took): those that
 * waited NSIGHT_LOOP_QDISC_NS or more. Packets the qdisc dropped have no
 * driver record and are not counted.
 */
static int tx_queue(struct finder *f, const struct nsight_capture *cap, uint64_t hz)
{
	struct nsight_u64map queued;	/* (pkt_id, ifindex) -> its TX_QUEUE */
	uint64_t min = nsight_mul_div_u64(NSIGHT_LOOP_QDISC_NS, hz, 1000000000ULL);
	size_t i;
	int err = 0;

	nsight_u64map_init(&queued);
	for (i = 0; i < cap->n_pkts && !err; i++) {
		const struct nsight_rec_pkt *p = &cap->pkts[i].r;
		uint64_t key = p->pkt_id * 0x9e3779b97f4a7c15ULL + p->ifindex;
		const struct nsight_rec_pkt *q;
		struct nsight_loop *lp;
		uint32_t *v, idx;
		bool added;

		if (p->stage == NSIGHT_PKT_TX_QUEUE) {
			v = nsight_u64map_put(&queued, key, (uint32_t)i, &added);
			if (!v)
				err = -1;
			else
				*v = (uint32_t)i;
			continue;
		}
		if (p->stage != NSIGHT_PKT_TX_XMIT || p->rc)
			continue;
		v = nsight_u64map_get(&queued, key);
		if (!v || *v == UINT32_MAX)
			continue;
		q = &cap->pkts[*v].r;
		*v = UINT32_MAX;
		if (p->hdr.tsc < q->hdr.tsc || p->hdr.tsc - q->hdr.tsc < min)
			continue;
		lp = loop_of(f, DEV_KEY(p->ifindex), NSIGHT_LOOP_TX_QUEUE, &idx);
		if (!lp || push_val(&f->waits, &f->n_waits, &f->cap_waits, idx,
				    nsight_mul_div_u64(p->hdr.tsc - q->hdr.tsc, 1000000000ULL, hz))) {
			err = -1;
			break;
		}
		lp->dir = NSIGHT_MSG_TX;
		lp->ifindex = p->ifindex;
		lp->sock_id = 0;
		count_event(lp, q->hdr.tsc);
	}
	nsight_u64map_fini(&queued);
	return err;
}

/* Total, median and max of each loop's waits (sorted by loop, then value). */
static void wait_figures(struct finder *f)
{
	size_t i = 0;

	while (i < f->n_waits) {
		struct nsight_loop *lp = &f->l->v[f->waits[i].loop];
		size_t j = i;

		while (j < f->n_waits && f->waits[j].loop == f->waits[i].loop) {
			lp->wait_total_ns += f->waits[j].v;
			j++;
		}
		lp->wait_median_ns = f->waits[i + (j - i - 1) / 2].v;
		lp->wait_max_ns = f->waits[j - 1].v;
		i = j;
	}
}

static int find(struct finder *f, const struct nsight_capture *cap,
		const struct nsight_lifetimes *lt, uint64_t hz)
{
	size_t *first = NULL, *count = NULL, i;
	int err = -1;

	if (udp_drops(f, cap))
		return -1;
	if (f->n_drops > 1)
		qsort(f->drops, f->n_drops, sizeof(*f->drops), cmp_val);
	first = calloc(f->l->n ? f->l->n : 1, sizeof(*first));
	count = calloc(f->l->n ? f->l->n : 1, sizeof(*count));
	if (!first || !count)
		goto out;
	for (i = 0; i < f->n_drops; i++) {
		if (!count[f->drops[i].loop])
			first[f->drops[i].loop] = i;
		count[f->drops[i].loop]++;
	}
	for (i = 0; i < lt->n; i++) {
		const struct nsight_msg *m = &lt->msgs[i];

		if (m->dir == NSIGHT_MSG_RX ? f->n_drops && udp_waits(f, m, first, count) :
					      tcp_hold(f, m))
			goto out;
	}
	if (tx_queue(f, cap, hz))
		goto out;
	if (f->n_waits > 1)
		qsort(f->waits, f->n_waits, sizeof(*f->waits), cmp_val);
	wait_figures(f);
	if (f->l->n > 1)
		qsort(f->l->v, f->l->n, sizeof(*f->l->v), cmp_loop);
	err = 0;
out:
	free(first);
	free(count);
	return err;
}

int nsight_loops_find(struct nsight_loops *l, const struct nsight_capture *cap,
		      const struct nsight_lifetimes *lt, uint64_t tick_hz, struct nsight_diag *d)
{
	struct finder f = { .l = l };
	int err;

	memset(l, 0, sizeof(*l));
	nsight_u64map_init(&f.by_key);
	err = find(&f, cap, lt, tick_hz ? tick_hz : 1000000000ULL);
	nsight_u64map_fini(&f.by_key);
	free(f.drops);
	free(f.waits);
	return err ? nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory") : 0;
}

void nsight_loops_fini(struct nsight_loops *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static const struct {
	const char *name, *resource, *advice;
} kinds[__NSIGHT_LOOP_KINDS] = {
	[NSIGHT_LOOP_UDP_RCVBUF] = {
		"udp_rcvbuf", "UDP receive buffer full",
		"the reader falls behind its arrivals: read faster or with more threads "
		"(SO_REUSEPORT, recvmmsg); a larger SO_RCVBUF turns drops into longer waits",
	},
	[NSIGHT_LOOP_UDP_MEM] = {
		"udp_mem", "UDP memory limit reached",
		"all UDP sockets together hold net.ipv4.udp_mem: drain the sockets that hold "
		"it or raise the limit",
	},
	[NSIGHT_LOOP_TCP_SNDBUF] = {
		"tcp_sndbuf", "TCP send buffer full",
		"the sender writes faster than the peer acknowledges: raise SO_SNDBUF "
		"(tcp_wmem) or send less at once",
	},
	[NSIGHT_LOOP_TCP_RWND] = {
		"tcp_rwnd", "peer's TCP receive window full",
		"the peer reads too slowly or its receive buffer is small (SO_RCVBUF, "
		"tcp_rmem on the peer)",
	},
	[NSIGHT_LOOP_TX_QUEUE] = {
		"tx_queue", "transmit queue held packets",
		"packets waited for the device: look at the qdisc (tc -s qdisc: a shaper, "
		"its backlog) and at the TX ring (ethtool -g, -S)",
	},
};

const char *nsight_loop_kind_name(enum nsight_loop_kind k)
{
	return (unsigned int)k < __NSIGHT_LOOP_KINDS ? kinds[k].name : "";
}

const char *nsight_loop_resource(enum nsight_loop_kind k)
{
	return (unsigned int)k < __NSIGHT_LOOP_KINDS ? kinds[k].resource : "";
}

const char *nsight_loop_advice(enum nsight_loop_kind k)
{
	return (unsigned int)k < __NSIGHT_LOOP_KINDS ? kinds[k].advice : "";
}
