// SPDX-License-Identifier: MIT
/* Two hosts' lifetimes joined into requests, on one clock, diagnosed. */
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "lifetime/latency.h"
#include "merge/merge.h"
#include "base/sort.h"
#include "base/vec.h"

#define NONE NSIGHT_REQ_NONE
/* By key: how far ahead a message is looked for among the other host's. */
#define LOOKAHEAD 64

/* A message in one of the four lists: keyed by the request's flow. */
struct ent {
	struct nsight_flow key;
	int64_t t;
	size_t msg;
};

static struct nsight_flow flow_key(const struct nsight_flow *f, bool reverse)
{
	struct nsight_flow k;

	memset(&k, 0, sizeof(k));
	memcpy(k.saddr, reverse ? f->daddr : f->saddr, 16);
	memcpy(k.daddr, reverse ? f->saddr : f->daddr, 16);
	k.sport = reverse ? f->dport : f->sport;
	k.dport = reverse ? f->sport : f->dport;
	k.family = f->family;
	k.protocol = f->protocol;
	return k;
}

static int ent_cmp(const void *pa, const void *pb)
{
	const struct ent *a = pa, *b = pb;
	int c = memcmp(&a->key, &b->key, sizeof(a->key));

	if (c)
		return c;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return a->msg < b->msg ? -1 : a->msg > b->msg;
}

static const struct nsight_msg_time *first_timed(const struct nsight_msg *m)
{
	unsigned int s;

	for (s = 0; s < nsight_msg_n_stages(m->dir); s++)
		if (m->t[s].valid && m->t[s].timed)
			return &m->t[s];
	return NULL;
}

/* The messages of direction @dir, keyed by the request's flow. */
static int collect(const struct nsight_lifetimes *lt, enum nsight_msg_dir dir, bool reverse,
		   struct ent **out, size_t *n)
{
	size_t i, cap = 0;

	*out = NULL;
	*n = 0;
	for (i = 0; i < lt->n; i++) {
		const struct nsight_msg *m = &lt->msgs[i];
		const struct nsight_msg_time *t;

		if (m->dir != dir || (m->protocol != IPPROTO_UDP && m->protocol != IPPROTO_TCP))
			continue;
		/* TX messages are ordered by their send, RX by their first stage. */
		t = dir == NSIGHT_MSG_TX ? &m->t[NSIGHT_TX_SEND] : first_timed(m);
		if (!t || !t->valid || !t->timed)
			continue;
		if (NSIGHT_VEC_GROW(*out, *n, cap))
			return -1;
		(*out)[*n].key = flow_key(&m->flow, reverse);
		(*out)[*n].t = t->real_ns;
		(*out)[*n].msg = i;
		(*n)++;
	}
	if (*n)
		qsort(*out, *n, sizeof(**out), ent_cmp);
	return 0;
}

/* A run of entries with one key. */
struct group {
	const struct ent *e;
	size_t n;
};

/* The group of @key in @l from *@pos on (lists sorted by key); *@pos moves. */
static struct group find_group(const struct ent *l, size_t n, size_t *pos,
			       const struct nsight_flow *key)
{
	struct group g = { NULL, 0 };

	while (*pos < n && memcmp(&l[*pos].key, key, sizeof(*key)) < 0)
		(*pos)++;
	g.e = l + *pos;
	while (*pos + g.n < n && !memcmp(&l[*pos + g.n].key, key, sizeof(*key)))
		g.n++;
	return g;
}

static bool timed(const struct nsight_msg *m, unsigned int s)
{
	return m->t[s].valid && m->t[s].timed;
}

static int64_t at(const struct nsight_msg *m, unsigned int s)
{
	return m->t[s].real_ns;
}

/* The NIC TX stage of a TX message: a hardware completion, else the xmit. */
static unsigned int nic_tx_stage(const struct nsight_msg *m)
{
	return timed(m, NSIGHT_TX_DONE) && m->t[NSIGHT_TX_DONE].hw ? NSIGHT_TX_DONE : NSIGHT_TX_XMIT;
}

struct build {
	struct nsight_merge *m;
	const struct nsight_lifetimes *a, *b;
	size_t *srm, *resp_s, *resp_c, *crm;	/* scratch, per group */
};

/* How one flow's messages are found on the other host. */
enum cross_by {
	BY_SEQ,		/* TCP: the sequence number of the first byte */
	BY_WIRE,	/* UDP: the packets' wire hash, where both modules give it */
	BY_ORDER,	/* UDP from older modules: the k-th is the k-th */
};

/* Whether every message of @g carries a wire hash. */
static bool wire_keyed(const struct nsight_lifetimes *lt, struct group g)
{
	size_t i;

	for (i = 0; i < g.n; i++)
		if (!lt->msgs[g.e[i].msg].has_wire)
			return false;
	return true;
}

static enum cross_by cross_by(bool tcp, const struct nsight_lifetimes *la, struct group from,
			      const struct nsight_lifetimes *lb, struct group to)
{
	if (tcp)
		return BY_SEQ;
	return wire_keyed(la, from) && wire_keyed(lb, to) ? BY_WIRE : BY_ORDER;
}

static bool same_msg(enum cross_by by, const struct nsight_msg *x, const struct nsight_msg *y)
{
	return by == BY_SEQ ? x->seq == y->seq : x->wire_hash == y->wire_hash;
}

/*
 * The same messages on the other host: out[i] is the index in @to of @from's
 * i-th, by sequence number or wire hash (in order, skipping what one host
 * alone saw, within LOOKAHEAD) or by order.
 */
static void cross(const struct nsight_lifetimes *la, struct group from,
		  const struct nsight_lifetimes *lb, struct group to, enum cross_by by, size_t *out)
{
	size_t i, j, q;

	for (i = 0, j = 0; i < from.n; i++) {
		out[i] = NONE;
		if (by == BY_ORDER) {
			if (i < to.n)
				out[i] = i;
			continue;
		}
		for (q = j; q < to.n && q < j + LOOKAHEAD; q++)
			if (same_msg(by, &lb->msgs[to.e[q].msg], &la->msgs[from.e[i].msg])) {
				out[i] = q;
				j = q + 1;
				break;
			}
	}
}

/* Join one flow's client sends @ct with B's arrivals and both responses. */
static int join_group(struct build *bu, const struct ent *k, struct group ct, struct group sr,
		      struct group st, struct group cr)
{
	struct nsight_merge *m = bu->m;
	const struct nsight_lifetimes *a = bu->a, *b = bu->b;
	bool tcp = k->key.protocol == IPPROTO_TCP;
	enum cross_by req_by = cross_by(tcp, a, ct, b, sr), resp_by = cross_by(tcp, b, st, a, cr);
	size_t i, j, q;

	/* Across hosts: request i arrives as B's srm[i], response j as A's crm[j]. */
	cross(a, ct, b, sr, req_by, bu->srm);
	cross(b, st, a, cr, resp_by, bu->crm);
	/* On B: each response answers the oldest request received before it. */
	for (i = 0; i < sr.n; i++)
		bu->resp_s[i] = NONE;
	for (j = 0, q = 0; j < st.n; j++) {
		while (q < sr.n && !timed(&b->msgs[sr.e[q].msg], NSIGHT_RX_A))
			q++;
		if (q < sr.n && at(&b->msgs[sr.e[q].msg], NSIGHT_RX_A) <= st.e[j].t)
			bu->resp_s[q++] = j;
	}
	/* On A (UDP's check): the oldest unanswered request sent before it. */
	for (i = 0; i < ct.n; i++)
		bu->resp_c[i] = NONE;
	for (j = 0, q = 0; j < cr.n; j++)
		if (q < ct.n && ct.e[q].t <= cr.e[j].t)
			bu->resp_c[q++] = j;

	for (i = 0; i < ct.n; i++) {
		struct nsight_request *r;
		size_t s_tx, c_rx;

		if (NSIGHT_VEC_GROW(m->reqs, m->n, m->cap))
			return -1;
		r = &m->reqs[m->n++];
		memset(r, 0, sizeof(*r));
		r->flow = k->key;
		r->protocol = k->key.protocol;
		r->c_tx = ct.e[i].msg;
		r->s_rx = r->s_tx = r->c_rx = NONE;
		if ((req_by == BY_ORDER && ct.n != sr.n) ||
		    (resp_by == BY_ORDER && st.n != cr.n)) {
			r->state = NSIGHT_REQ_AMBIGUOUS;
			continue;
		}
		if (bu->srm[i] == NONE) {
			r->state = NSIGHT_REQ_NO_SERVER_RX;
			continue;
		}
		r->s_rx = sr.e[bu->srm[i]].msg;
		s_tx = bu->resp_s[bu->srm[i]];
		if (s_tx == NONE) {
			r->state = NSIGHT_REQ_NO_RESPONSE;
			continue;
		}
		r->s_tx = st.e[s_tx].msg;
		c_rx = bu->crm[s_tx];
		if (c_rx == NONE) {
			r->state = NSIGHT_REQ_NO_CLIENT_RX;
			continue;
		}
		r->c_rx = cr.e[c_rx].msg;
		/* The response must come after the request on A's own clock. */
		if (cr.e[c_rx].t < ct.e[i].t ||
		    (resp_by == BY_ORDER && bu->resp_c[i] != c_rx)) {
			r->state = NSIGHT_REQ_MISMATCH;
			continue;
		}
		r->state = NSIGHT_REQ_COMPLETE;
	}
	return 0;
}

/* The NIC stamps of a joined request; false if one is missing. */
static bool stamps(struct nsight_merge *m, const struct nsight_lifetimes *a,
		   const struct nsight_lifetimes *b, struct nsight_request *r)
{
	const struct nsight_msg *ct = &a->msgs[r->c_tx], *sr = &b->msgs[r->s_rx];
	const struct nsight_msg *st = &b->msgs[r->s_tx], *cr = &a->msgs[r->c_rx];
	static const unsigned int rx[] = { NSIGHT_RX_N, NSIGHT_RX_H, NSIGHT_RX_A };
	size_t i;

	(void)m;
	for (i = 0; i < 3; i++)
		if (!timed(sr, rx[i]) || !timed(cr, rx[i]))
			return false;
	if (!timed(ct, NSIGHT_TX_SEND) || !timed(ct, nic_tx_stage(ct)) ||
	    !timed(st, NSIGHT_TX_SEND) || !timed(st, nic_tx_stage(st)))
		return false;
	r->t1 = at(ct, nic_tx_stage(ct));
	r->t2 = at(sr, NSIGHT_RX_N);
	r->t3 = at(st, nic_tx_stage(st));
	r->t4 = at(cr, NSIGHT_RX_N);
	return true;
}

/* Put a complete request on A's clock and split it into layers. */
static void layers(struct nsight_merge *m, const struct nsight_lifetimes *a,
		   const struct nsight_lifetimes *b, struct nsight_request *r)
{
	const struct nsight_msg *ct = &a->msgs[r->c_tx], *sr = &b->msgs[r->s_rx];
	const struct nsight_msg *st = &b->msgs[r->s_tx], *cr = &a->msgs[r->c_rx];
	const struct nsight_clockfit *f = &m->fit;
	int64_t t[__NSIGHT_L_COUNT + 1];
	size_t l;

	t[0] = at(ct, NSIGHT_TX_SEND);
	t[1] = r->t1;
	t[2] = nsight_clockfit_to_a(f, r->t2);
	t[3] = nsight_clockfit_to_a(f, at(sr, NSIGHT_RX_H));
	t[4] = nsight_clockfit_to_a(f, at(sr, NSIGHT_RX_A));
	t[5] = nsight_clockfit_to_a(f, at(st, NSIGHT_TX_SEND));
	t[6] = nsight_clockfit_to_a(f, r->t3);
	t[7] = r->t4;
	t[8] = at(cr, NSIGHT_RX_H);
	t[9] = at(cr, NSIGHT_RX_A);
	/* The wire cannot take less than nothing: clamp, and say so. */
	if (t[2] < t[1] || t[7] < t[6])
		r->clamped = true;
	if (t[2] < t[1])
		t[2] = t[1];
	if (t[7] < t[6])
		t[6] = t[7];
	for (l = 0; l < __NSIGHT_L_COUNT; l++)
		r->layer_ns[l] = t[l + 1] - t[l];
	r->start_ns = t[0];
	r->total_ns = t[9] - t[0];
}


enum nsight_layer nsight_request_main_layer(const struct nsight_merge *m,
					    const struct nsight_request *r)
{
	enum nsight_layer best = NSIGHT_L_CLIENT_TX;
	int64_t dev = INT64_MIN;
	int l;

	for (l = 0; l < __NSIGHT_L_COUNT; l++) {
		int64_t v = r->layer_ns[l] - m->layers[l].median_ns;

		if (v > dev) {
			dev = v;
			best = (enum nsight_layer)l;
		}
	}
	return best;
}

static const struct nsight_merge *sort_ctx;

static int tail_cmp(const void *pa, const void *pb)
{
	const struct nsight_request *a = &sort_ctx->reqs[*(const size_t *)pa];
	const struct nsight_request *b = &sort_ctx->reqs[*(const size_t *)pb];

	if (a->total_ns != b->total_ns)
		return a->total_ns > b->total_ns ? -1 : 1;
	return a->start_ns < b->start_ns ? -1 : a->start_ns > b->start_ns;
}

/* Medians, the tail, and each layer's part in the tail's deviation. */
static int diagnose(struct nsight_merge *m, const struct nsight_merge_opts *o)
{
	size_t n = m->by_state[NSIGHT_REQ_COMPLETE], i, k;
	int64_t *v = malloc((n ? n : 1) * sizeof(*v));
	int l;

	m->tail = malloc((n ? n : 1) * sizeof(*m->tail));
	if (!v || !m->tail) {
		free(v);
		return -1;
	}
	if (!n) {
		free(v);
		return 0;
	}
	for (l = 0; l < __NSIGHT_L_COUNT; l++) {
		for (i = 0, k = 0; i < m->n; i++)
			if (m->reqs[i].state == NSIGHT_REQ_COMPLETE)
				v[k++] = m->reqs[i].layer_ns[l];
		nsight_sort_i64(v, n);
		m->layers[l].median_ns = nsight_percentile(v, n, 50000);
	}
	for (i = 0, k = 0; i < m->n; i++)
		if (m->reqs[i].state == NSIGHT_REQ_COMPLETE)
			v[k++] = m->reqs[i].total_ns;
	nsight_sort_i64(v, n);
	m->median_total_ns = nsight_percentile(v, n, 50000);
	m->tail_threshold_ns = nsight_percentile(v, n, o->tail);
	free(v);

	for (i = 0; i < m->n; i++) {
		const struct nsight_request *r = &m->reqs[i];

		if (r->state != NSIGHT_REQ_COMPLETE || r->total_ns < m->tail_threshold_ns)
			continue;
		m->tail[m->n_tail++] = i;
		m->layers[nsight_request_main_layer(m, r)].main++;
		for (l = 0; l < __NSIGHT_L_COUNT; l++) {
			int64_t dev = r->layer_ns[l] - m->layers[l].median_ns;

			if (dev > 0) {
				m->layers[l].dev_ns += dev;
				m->tail_dev_ns += dev;
			}
		}
	}
	sort_ctx = m;
	qsort(m->tail, m->n_tail, sizeof(*m->tail), tail_cmp);
	sort_ctx = NULL;
	return 0;
}

static int join(struct build *bu)
{
	struct ent *l[4] = { NULL };
	size_t n[4], pos[3] = { 0 }, i, most;
	int err = -1;

	/* Client sends, B's arrivals, B's responses, A's arrivals of them. */
	if (collect(bu->a, NSIGHT_MSG_TX, false, &l[0], &n[0]) ||
	    collect(bu->b, NSIGHT_MSG_RX, false, &l[1], &n[1]) ||
	    collect(bu->b, NSIGHT_MSG_TX, true, &l[2], &n[2]) ||
	    collect(bu->a, NSIGHT_MSG_RX, true, &l[3], &n[3]))
		goto out;
	for (i = 0, most = 1; i < 4; i++)
		most = n[i] > most ? n[i] : most;
	bu->srm = malloc(most * sizeof(size_t));
	bu->resp_s = malloc(most * sizeof(size_t));
	bu->resp_c = malloc(most * sizeof(size_t));
	bu->crm = malloc(most * sizeof(size_t));
	if (!bu->srm || !bu->resp_s || !bu->resp_c || !bu->crm)
		goto out;
	for (i = 0; i < n[0];) {
		size_t p0 = i;
		struct group ct = find_group(l[0], n[0], &p0, &l[0][i].key);
		struct group g[3];
		int k;

		for (k = 0; k < 3; k++)
			g[k] = find_group(l[k + 1], n[k + 1], &pos[k], &l[0][i].key);
		if (join_group(bu, &l[0][i], ct, g[0], g[1], g[2]))
			goto out;
		i += ct.n;
	}
	err = 0;
out:
	for (i = 0; i < 4; i++)
		free(l[i]);
	return err;
}

int nsight_merge_build(struct nsight_merge *m, const struct nsight_lifetimes *a,
		       const struct nsight_lifetimes *b, const struct nsight_merge_opts *o,
		       struct nsight_diag *d)
{
	struct build bu = { m, a, b, NULL, NULL, NULL, NULL };
	struct nsight_clock_pair *pairs = NULL;
	size_t i, np = 0;
	bool *used;
	int err;

	memset(m, 0, sizeof(*m));
	err = join(&bu);
	free(bu.srm);
	free(bu.resp_s);
	free(bu.resp_c);
	free(bu.crm);
	if (err)
		goto nomem;
	/* B's arrivals (messages with a NIC stage) that no client send joined. */
	used = calloc(b->n ? b->n : 1, sizeof(*used));
	if (!used)
		goto nomem;
	for (i = 0; i < m->n; i++)
		if (m->reqs[i].s_rx != NONE)
			used[m->reqs[i].s_rx] = true;
	for (i = 0; i < b->n; i++)
		if (b->msgs[i].dir == NSIGHT_MSG_RX && b->msgs[i].t[NSIGHT_RX_N].valid && !used[i])
			m->server_rx_unmatched++;
	free(used);

	pairs = malloc((m->n ? m->n : 1) * sizeof(*pairs));
	if (!pairs)
		goto nomem;
	for (i = 0; i < m->n; i++) {
		struct nsight_request *r = &m->reqs[i];

		if (r->state != NSIGHT_REQ_COMPLETE)
			continue;
		if (!stamps(m, a, b, r)) {
			r->state = NSIGHT_REQ_UNTIMED;
			continue;
		}
		pairs[np++] = (struct nsight_clock_pair){ r->t1, r->t2, r->t3, r->t4 };
	}
	if (o->synced) {
		m->given = true;
		m->have_fit = np && !nsight_clockfit_given(&m->fit, pairs, np, o->synced_ns) &&
			      !nsight_clockfit(&m->estimate, pairs, np);
	} else {
		m->have_fit = np && !nsight_clockfit(&m->fit, pairs, np);
	}
	free(pairs);
	for (i = 0; i < m->n; i++) {
		struct nsight_request *r = &m->reqs[i];

		if (r->state == NSIGHT_REQ_COMPLETE) {
			layers(m, a, b, r);
			m->clamped += r->clamped;
		}
		m->by_state[r->state]++;
	}
	if (diagnose(m, o))
		goto nomem;
	return 0;
nomem:
	return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory merging the captures");
}

void nsight_merge_fini(struct nsight_merge *m)
{
	free(m->reqs);
	free(m->tail);
	memset(m, 0, sizeof(*m));
}

const char *nsight_layer_name(enum nsight_layer l)
{
	static const char *const names[__NSIGHT_L_COUNT] = {
		"client send", "wire out", "server rx", "server wakeup", "server app",
		"server send", "wire back", "client rx", "client wakeup",
	};

	return (unsigned int)l < __NSIGHT_L_COUNT ? names[l] : "?";
}

enum nsight_layer_host nsight_layer_host(enum nsight_layer l)
{
	if (l == NSIGHT_L_WIRE_OUT || l == NSIGHT_L_WIRE_BACK)
		return NSIGHT_HOST_WIRE;
	if (l >= NSIGHT_L_SERVER_RX && l <= NSIGHT_L_SERVER_TX)
		return NSIGHT_HOST_SERVER;
	return NSIGHT_HOST_CLIENT;
}

const char *nsight_layer_host_name(enum nsight_layer_host h)
{
	static const char *const names[__NSIGHT_HOST_COUNT] = { "client", "wire", "server" };

	return (unsigned int)h < __NSIGHT_HOST_COUNT ? names[h] : "?";
}

const char *nsight_req_state_name(enum nsight_req_state s)
{
	static const char *const names[__NSIGHT_REQ_STATES] = {
		"complete", "no-server-rx", "no-response", "no-client-rx", "mismatch", "ambiguous",
		"untimed",
	};

	return (unsigned int)s < __NSIGHT_REQ_STATES ? names[s] : "?";
}
