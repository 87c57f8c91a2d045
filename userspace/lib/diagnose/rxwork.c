// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>

#include "format/flow.h"
#include "diagnose/rxwork.h"
#include "base/vec.h"

bool nsight_rxwork_key(const struct nsight_keys *k, uint32_t key)
{
	const char *name = nsight_key_name(k, key);

	switch (nsight_key_kind(k, key)) {
	case NSIGHT_KEY_SOFTIRQ:
		return !strcmp(name, "NET_RX");
	case NSIGHT_KEY_FUNC:
		/* "softirq:NET_RX > symbol": sampled inside receive work. */
		return !strncmp(name, "softirq:NET_RX > ", 17);
	default:
		return false;
	}
}

/* The first packet record at or after @tsc. */
static size_t pkt_lower(const struct nsight_capture *cap, uint64_t tsc)
{
	size_t lo = 0, hi = cap->n_pkts;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cap->pkts[mid].r.hdr.tsc < tsc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int count_window(struct nsight_rxwork *w, const struct nsight_capture *cap, uint32_t cpu,
			uint64_t from, uint64_t to)
{
	size_t i;

	for (i = pkt_lower(cap, from); i < cap->n_pkts && cap->pkts[i].r.hdr.tsc <= to; i++) {
		const struct nsight_rec_pkt *p = &cap->pkts[i].r;
		uint32_t *slot;
		bool added;

		if (p->hdr.cpu != cpu || p->stage != NSIGHT_PKT_RX_RECEIVE)
			continue;
		if (!nsight_u64map_put(&w->seen, i, 1, &added))
			return -NSIGHT_E_NOMEM;
		if (!added)
			continue;
		slot = nsight_u64map_put(&w->by_flow, nsight_flow_hash(&p->flow), (uint32_t)w->n, &added);
		if (!slot)
			return -NSIGHT_E_NOMEM;
		if (added) {
			if (NSIGHT_VEC_GROW(w->v, w->n, w->cap))
				return -NSIGHT_E_NOMEM;
			w->v[w->n++] = (struct nsight_rxwork_flow){ .flow = p->flow };
		}
		w->v[*slot].packets++;
		w->v[*slot].bytes += p->payload_len;
		w->packets++;
	}
	return 0;
}

static int cmp_flow(const void *a, const void *b)
{
	const struct nsight_rxwork_flow *x = a, *y = b;

	if (x->packets != y->packets)
		return x->packets > y->packets ? -1 : 1;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return memcmp(&x->flow, &y->flow, sizeof(x->flow));
}

/* Mark the flows some application receive read. */
static void mark_read(struct nsight_rxwork *w, const struct nsight_lifetimes *lt)
{
	size_t i;

	for (i = 0; i < lt->n; i++) {
		const struct nsight_msg *m = &lt->msgs[i];
		uint32_t *slot;

		if (m->dir != NSIGHT_MSG_RX || !m->t[NSIGHT_RX_A].valid)
			continue;
		slot = nsight_u64map_get(&w->by_flow, nsight_flow_hash(&m->flow));
		if (slot)
			w->v[*slot].read = true;
	}
}

int nsight_rxwork_of_cause(struct nsight_rxwork *w, const struct nsight_dx_group *g,
			   uint32_t cause, const struct nsight_lifetimes *lt,
			   const struct nsight_capture *cap, const struct nsight_keys *keys)
{
	size_t i, k;
	int err;

	memset(w, 0, sizeof(*w));
	nsight_u64map_init(&w->by_flow);
	nsight_u64map_init(&w->seen);
	for (i = 0; i < g->n_msgs; i++) {
		const struct nsight_dx_msg *dm = &g->msgs[i];
		const struct nsight_msg *m;
		bool role_done[NSIGHT_ROLES] = { false }, any = false;

		if (dm->msg >= lt->n)
			continue;
		m = &lt->msgs[dm->msg];
		for (k = 0; k < dm->n_anom; k++) {
			const struct nsight_dx_anomaly *a = &g->anoms[dm->anom + k];
			uint64_t from, to;
			uint32_t cpu;

			if (!a->reported || a->cause != cause || a->role >= NSIGHT_ROLES ||
			    role_done[a->role] || !nsight_rxwork_key(keys, a->key))
				continue;
			role_done[a->role] = true;
			if (!nsight_msg_window(m, a->role, &cpu, &from, &to))
				continue;
			any = true;
			err = count_window(w, cap, cpu, from, to);
			if (err)
				return err;
		}
		w->messages += any;
	}
	if (!w->n)
		return 0;
	mark_read(w, lt);
	qsort(w->v, w->n, sizeof(*w->v), cmp_flow);
	return 0;
}

void nsight_rxwork_fini(struct nsight_rxwork *w)
{
	free(w->v);
	nsight_u64map_fini(&w->by_flow);
	nsight_u64map_fini(&w->seen);
	memset(w, 0, sizeof(*w));
}
