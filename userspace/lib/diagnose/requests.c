// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/percentile.h"
#include "base/sort.h"
#include "base/vec.h"
#include "diagnose/requests.h"

/* Fewer complete requests than this in a process: no tail is explained. */
#define NSIGHT_RQ_MIN_TAIL	10

static const char *const state_names[__NSIGHT_RQ_STATES] = {
	[NSIGHT_RQ_COMPLETE] = "complete",
	[NSIGHT_RQ_NO_END] = "no-end",
	[NSIGHT_RQ_BAD_ORDER] = "bad-order",
	[NSIGHT_RQ_NO_MESSAGE] = "no-message",
	[NSIGHT_RQ_MSG_INCOMPLETE] = "message-incomplete",
	[NSIGHT_RQ_DROPS] = "drops",
};

static const char *const phase_names[__NSIGHT_RQ_PHASES] = {
	[NSIGHT_RQ_RECEIVE] = "receive",
	[NSIGHT_RQ_RECEIVER] = "receiving thread",
	[NSIGHT_RQ_QUEUED] = "queued",
	[NSIGHT_RQ_WORKER] = "worker",
};

const char *nsight_rq_state_name(enum nsight_rq_state s)
{
	return s < __NSIGHT_RQ_STATES ? state_names[s] : "?";
}

const char *nsight_rq_phase_name(enum nsight_rq_phase p)
{
	return p < __NSIGHT_RQ_PHASES ? phase_names[p] : "?";
}

void nsight_requests_fini(struct nsight_requests *r)
{
	size_t i;

	for (i = 0; i < r->n_causes; i++)
		free(r->causes[i]);
	for (i = 0; i < r->n_groups; i++)
		free(r->groups[i].tail);
	free(r->causes);
	free(r->groups);
	free(r->rc);
	free(r->rc_first);
	free(r->v);
	memset(r, 0, sizeof(*r));
}

/* What the build works with. */
struct build {
	struct nsight_requests *r;
	const struct nsight_capture *cap;
	const struct nsight_lifetimes *lt;
	const struct nsight_threads *c;
	const struct nsight_keys *keys;
	const struct nsight_cap_request *m;	/* marks, sorted by (pid, id, TSC) */
	size_t *first, *n_marks;		/* per request: its marks */
	struct nsight_chain ch;
};

static int nomem(struct nsight_diag *d)
{
	return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
}

static int cmp_mark(const void *a, const void *b)
{
	const struct nsight_rec_request *x = &((const struct nsight_cap_request *)a)->r;
	const struct nsight_rec_request *y = &((const struct nsight_cap_request *)b)->r;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->hdr.tsc != y->hdr.tsc)
		return x->hdr.tsc < y->hdr.tsc ? -1 : 1;
	return 0;
}

/* Close request @q (its marks [@first, @first + @n)) into @b->r. */
static int push_req(struct build *b, const struct nsight_rq *q, size_t first, size_t n)
{
	struct nsight_requests *r = b->r;
	size_t cap = r->cap;

	if (NSIGHT_VEC_GROW(r->v, r->n, r->cap))
		return -1;
	if (cap != r->cap) {
		size_t *f = realloc(b->first, r->cap * sizeof(*f));
		size_t *k;

		if (!f)
			return -1;
		b->first = f;
		k = realloc(b->n_marks, r->cap * sizeof(*k));
		if (!k)
			return -1;
		b->n_marks = k;
	}
	b->first[r->n] = first;
	b->n_marks[r->n] = n;
	r->v[r->n++] = *q;
	return 0;
}

/* The marks of one (pid, id), [@s, @e), into requests. */
static int group_marks(struct build *b, size_t s, size_t e)
{
	struct nsight_rq q;
	bool open = false;
	uint32_t last = 0;
	size_t first = 0, i;

	for (i = s; i < e; i++) {
		const struct nsight_rec_request *k = &b->m[i].r;

		if (k->op == NSIGHT_REQ_BEGIN) {
			if (open) {
				q.state = NSIGHT_RQ_NO_END;
				if (push_req(b, &q, first, i - first))
					return -1;
			}
			memset(&q, 0, sizeof(q));
			q.id = k->id;
			q.pid = k->pid;
			q.rx_tid = k->tid;
			q.begin = k->hdr.tsc;
			q.state = NSIGHT_RQ_COMPLETE;
			open = true;
			first = i;
			last = NSIGHT_REQ_BEGIN;
			continue;
		}
		if (!open) {
			b->r->orphans++;
			continue;
		}
		if (k->op == NSIGHT_REQ_HANDOFF) {
			if (last == NSIGHT_REQ_HANDOFF)
				q.state = NSIGHT_RQ_BAD_ORDER;
			q.hops++;
		} else if (k->op == NSIGHT_REQ_RESUME) {
			if (last != NSIGHT_REQ_HANDOFF)
				q.state = NSIGHT_RQ_BAD_ORDER;
		} else {
			if (last == NSIGHT_REQ_HANDOFF)
				q.state = NSIGHT_RQ_BAD_ORDER;
			q.end = k->hdr.tsc;
			q.end_tid = k->tid;
			open = false;
			if (push_req(b, &q, first, i + 1 - first))
				return -1;
		}
		last = k->op;
	}
	if (open) {
		q.state = NSIGHT_RQ_NO_END;
		if (push_req(b, &q, first, e - first))
			return -1;
	}
	return 0;
}

/* Messages of one direction with a stage, by (tid, that stage's TSC). */
struct msg_key {
	uint32_t tid;
	uint64_t tsc;
	size_t msg;
};

static int cmp_msg_key(const void *a, const void *b)
{
	const struct msg_key *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	return x->msg < y->msg ? -1 : x->msg > y->msg;
}

static struct msg_key *msg_keys(const struct nsight_lifetimes *lt, uint8_t dir, int stage,
				size_t *n)
{
	struct msg_key *v = malloc((lt->n ? lt->n : 1) * sizeof(*v));
	size_t i;

	*n = 0;
	if (!v)
		return NULL;
	for (i = 0; i < lt->n; i++) {
		const struct nsight_msg *m = &lt->msgs[i];

		if (m->dir == dir && m->t[stage].valid)
			v[(*n)++] = (struct msg_key){ m->tid, m->t[stage].tsc, i };
	}
	nsight_sort(v, *n, sizeof(*v), cmp_msg_key);
	return v;
}

/* The last of @v with @tid and a TSC in [@lo, @hi]; SIZE_MAX if none. */
static size_t last_in(const struct msg_key *v, size_t n, uint32_t tid, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = n;

	/* The first key above (tid, hi). */
	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (v[mid].tid < tid || (v[mid].tid == tid && v[mid].tsc <= hi))
			a = mid + 1;
		else
			b = mid;
	}
	if (!a || v[a - 1].tid != tid || v[a - 1].tsc < lo)
		return SIZE_MAX;
	return a - 1;
}

/* Drop windows by start, with the latest end up to each: "lost in (lo, hi)?" */
struct drop_idx {
	uint64_t from, max_to;
};

static int cmp_drop(const void *a, const void *b)
{
	const struct drop_idx *x = a, *y = b;

	return x->from < y->from ? -1 : x->from > y->from;
}

static bool lost_in(const struct drop_idx *v, size_t n, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = n;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (v[mid].from < hi)
			a = mid + 1;
		else
			b = mid;
	}
	return a && v[a - 1].max_to > lo;
}

/* The index of cause @name, made if new; SIZE_MAX when out of memory. */
static size_t cause_of(struct nsight_requests *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->n_causes; i++)
		if (!strcmp(r->causes[i], name))
			return i;
	if (NSIGHT_VEC_GROW(r->causes, r->n_causes, r->cap_causes))
		return SIZE_MAX;
	r->causes[r->n_causes] = strdup(name);
	if (!r->causes[r->n_causes])
		return SIZE_MAX;
	return r->n_causes++;
}

static int add_cause(struct nsight_requests *r, const char *name, int64_t ns)
{
	size_t k;

	if (ns <= 0)
		return 0;
	k = cause_of(r, name);
	if (k == SIZE_MAX || NSIGHT_VEC_GROW(r->rc, r->n_rc, r->cap_rc))
		return -1;
	r->rc[r->n_rc++] = (struct nsight_rq_cause){ (uint32_t)k, (uint64_t)ns };
	return 0;
}

/*
 * The causes of thread @tid's time in [@s, @e), phase @ph: "worker:
 * running", "queued: worker preempted by task:stress", ...
 */
static int phase_causes(struct build *b, enum nsight_rq_phase ph, uint32_t tid, uint64_t s,
			uint64_t e)
{
	const struct nsight_chain_node *root;
	char name[NSIGHT_KEY_NAME_MAX + 64], key[NSIGHT_KEY_NAME_MAX + 16], pre[32];
	uint64_t inst = 0, waited = 0;
	size_t i;

	if (e <= s)
		return 0;
	if (nsight_chain_build(&b->ch, b->c, tid, s, e, 1))
		return -1;
	snprintf(pre, sizeof(pre), "%s: %s", phase_names[ph], ph == NSIGHT_RQ_QUEUED ? "worker " : "");
	root = &b->ch.v[0];
	for (i = 0; i < root->n_act; i++) {
		const struct nsight_chain_act *a = &root->act[i];
		enum nsight_key_kind k = nsight_key_kind(b->keys, a->key);

		if (k == NSIGHT_KEY_TASK || k == NSIGHT_KEY_FUNC || k == NSIGHT_KEY_APP ||
		    k == NSIGHT_KEY_HOL)
			snprintf(name, sizeof(name), "%srunning", pre);
		else if (k == NSIGHT_KEY_UNKNOWN)
			snprintf(name, sizeof(name), "%son a CPU, contexts unknown", pre);
		else
			snprintf(name, sizeof(name), "%sin %s", pre,
				 nsight_key_format(b->keys, a->key, key, sizeof(key)));
		if (add_cause(b->r, name, nsight_threads_ns(b->c, a->ticks)))
			return -1;
	}
	for (i = 0; i < root->n_inst; i++) {
		const struct nsight_chain_act *a = &root->inst[i];

		inst += a->ticks;
		if (nsight_key_kind(b->keys, a->key) == NSIGHT_KEY_IDLE)
			snprintf(name, sizeof(name), "%srunnable, its CPU idle", pre);
		else
			snprintf(name, sizeof(name), "%spreempted by %s", pre,
				 nsight_key_format(b->keys, a->key, key, sizeof(key)));
		if (add_cause(b->r, name, nsight_threads_ns(b->c, a->ticks)))
			return -1;
	}
	if (root->runnable > inst) {
		snprintf(name, sizeof(name), "%srunnable", pre);
		if (add_cause(b->r, name, nsight_threads_ns(b->c, root->runnable - inst)))
			return -1;
	}
	for (i = 1; i < b->ch.n; i++) {
		const struct nsight_chain_node *w = &b->ch.v[i];

		if (w->parent)
			continue;
		waited += w->waited;
		snprintf(name, sizeof(name), "%swaiting for %.16s (it woke it)", pre,
			 w->comm[0] ? w->comm : "?");
		if (add_cause(b->r, name, nsight_threads_ns(b->c, w->waited)))
			return -1;
	}
	if (root->blocked > waited) {
		snprintf(name, sizeof(name), "%sasleep (woken by an interrupt or timer)", pre);
		if (add_cause(b->r, name, nsight_threads_ns(b->c, root->blocked - waited)))
			return -1;
	}
	if (root->unknown) {
		snprintf(name, sizeof(name), "%sstate unknown (no records)", pre);
		if (add_cause(b->r, name, nsight_threads_ns(b->c, root->unknown)))
			return -1;
	}
	return 0;
}

/* Phases and causes of complete request @i. */
static int explain(struct build *b, size_t i)
{
	struct nsight_rq *q = &b->r->v[i];
	const struct nsight_msg *m = &b->lt->msgs[q->msg - 1];
	const struct nsight_cap_request *k = &b->m[b->first[i]];
	size_t n = b->n_marks[i], j;
	uint64_t at = m->t[NSIGHT_RX_A].tsc;
	uint32_t tid = q->rx_tid;
	enum nsight_rq_phase ph = NSIGHT_RQ_RECEIVER;

	q->phase_ns[NSIGHT_RQ_RECEIVE] = m->total_ns;
	if (add_cause(b->r, "receive: the message's receive path (its own diagnosis)", m->total_ns))
		return -1;
	for (j = 1; j < n; j++) {
		const struct nsight_rec_request *r = &k[j].r;
		uint64_t to = r->hdr.tsc > at ? r->hdr.tsc : at;
		/* The queue's wait is the resuming thread's to explain. */
		uint32_t who = ph == NSIGHT_RQ_QUEUED ? r->tid : tid;

		if (r->op == NSIGHT_REQ_RESUME && ph != NSIGHT_RQ_QUEUED)
			continue;
		q->phase_ns[ph] += nsight_threads_ns(b->c, to - at);
		if (phase_causes(b, ph, who, at, to))
			return -1;
		at = to;
		tid = r->tid;
		ph = r->op == NSIGHT_REQ_HANDOFF ? NSIGHT_RQ_QUEUED : NSIGHT_RQ_WORKER;
	}
	q->total_ns = m->total_ns + nsight_threads_ns(b->c, q->end - m->t[NSIGHT_RX_A].tsc);
	return 0;
}

static int cmp_req(const void *a, const void *b)
{
	const struct nsight_rq *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/* Requests, with their marks, sorted by (pid, begin): a permutation of both. */
static int sort_reqs(struct build *b)
{
	struct nsight_requests *r = b->r;
	struct { struct nsight_rq q; size_t first, n; } *t = malloc((r->n ? r->n : 1) * sizeof(*t));
	size_t i;

	if (!t)
		return -1;
	for (i = 0; i < r->n; i++) {
		t[i].q = r->v[i];
		t[i].first = b->first[i];
		t[i].n = b->n_marks[i];
	}
	/* The request comes first in each element: cmp_req reads it. */
	nsight_sort(t, r->n, sizeof(*t), cmp_req);
	for (i = 0; i < r->n; i++) {
		r->v[i] = t[i].q;
		b->first[i] = t[i].first;
		b->n_marks[i] = t[i].n;
	}
	free(t);
	return 0;
}

/* Join messages and responses, check drops; explain the complete ones. */
static int join(struct build *b)
{
	struct nsight_requests *r = b->r;
	const struct nsight_capture *cap = b->cap;
	size_t n_rx, n_tx, i;
	struct msg_key *rx = msg_keys(b->lt, NSIGHT_MSG_RX, NSIGHT_RX_A, &n_rx);
	struct msg_key *tx = msg_keys(b->lt, NSIGHT_MSG_TX, NSIGHT_TX_SEND, &n_tx);
	bool *taken = calloc(b->lt->n ? b->lt->n : 1, sizeof(*taken));
	struct drop_idx *dr = malloc((cap->n_drops ? cap->n_drops : 1) * sizeof(*dr));
	int err = -1;

	r->rc_first = malloc((r->n + 1) * sizeof(*r->rc_first));
	if (!rx || !tx || !taken || !dr || !r->rc_first)
		goto out;
	for (i = 0; i < cap->n_drops; i++)
		dr[i] = (struct drop_idx){ cap->drops[i].from, cap->drops[i].to };
	nsight_sort(dr, cap->n_drops, sizeof(*dr), cmp_drop);
	for (i = 1; i < cap->n_drops; i++)
		if (dr[i].max_to < dr[i - 1].max_to)
			dr[i].max_to = dr[i - 1].max_to;

	for (i = 0; i < r->n; i++) {
		struct nsight_rq *q = &r->v[i];
		const struct nsight_cap_request *k = &b->m[b->first[i]];
		size_t j = last_in(rx, n_rx, q->rx_tid, 0, q->begin), last_resume = q->begin;
		const struct nsight_msg *m;

		r->rc_first[i] = r->n_rc;
		if (j != SIZE_MAX && !taken[rx[j].msg]) {
			taken[rx[j].msg] = true;
			q->msg = rx[j].msg + 1;
		}
		if (q->state != NSIGHT_RQ_COMPLETE)
			continue;
		for (j = 0; j < b->n_marks[i]; j++)
			if (k[j].r.op == NSIGHT_REQ_RESUME)
				last_resume = k[j].r.hdr.tsc;
		j = last_in(tx, n_tx, q->end_tid, last_resume, q->end);
		if (j != SIZE_MAX)
			q->resp = tx[j].msg + 1;
		if (!q->msg) {
			q->state = NSIGHT_RQ_NO_MESSAGE;
			continue;
		}
		m = &b->lt->msgs[q->msg - 1];
		if (m->reason != NSIGHT_MSG_COMPLETE) {
			q->state = NSIGHT_RQ_MSG_INCOMPLETE;
			continue;
		}
		if (lost_in(dr, cap->n_drops, m->tsc_lo, q->end)) {
			q->state = NSIGHT_RQ_DROPS;
			continue;
		}
		if (explain(b, i))
			goto out;
	}
	r->rc_first[r->n] = r->n_rc;
	err = 0;
out:
	free(rx);
	free(tx);
	free(taken);
	free(dr);
	return err;
}

/* The rx_tid (or end_tid) most of @v's [@s, @e) have (the lowest of a tie). */
static uint32_t most_common_tid(const struct nsight_rq *v, size_t s, size_t e, bool end_tid)
{
	int64_t *t = malloc((e - s) * sizeof(*t)), best;
	size_t i, run = 0, best_run = 0;

	if (!t)
		return end_tid ? v[s].end_tid : v[s].rx_tid;
	for (i = s; i < e; i++)
		t[i - s] = end_tid ? v[i].end_tid : v[i].rx_tid;
	nsight_sort_i64(t, e - s);
	best = t[0];
	for (i = 0; i < e - s; i++) {
		run = i && t[i] == t[i - 1] ? run + 1 : 1;
		if (run > best_run) {
			best_run = run;
			best = t[i];
		}
	}
	free(t);
	return (uint32_t)best;
}

static int cmp_tail(const void *a, const void *b)
{
	const struct nsight_rq_tail_cause *x = a, *y = b;

	if (x->excess_ns != y->excess_ns)
		return x->excess_ns > y->excess_ns ? -1 : 1;
	return x->cause < y->cause ? -1 : x->cause > y->cause;
}

/* The tail of group @g, whose complete requests are @idx[0..@n). */
/* One cause's time in one complete request of a group (by position). */
struct cause_val {
	uint32_t cause;
	uint32_t pos;
	int64_t ns;
};

static int cmp_cause_val(const void *a, const void *b)
{
	const struct cause_val *x = a, *y = b;

	if (x->cause != y->cause)
		return x->cause < y->cause ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/*
 * The tail of group @g, whose complete requests are @idx[0..@n): per
 * cause, its median over the @n requests (0 where a request has none of
 * it) and the time beyond it summed over the tail. One sort of the
 * group's cause entries; each cause then costs what it holds, not @n.
 */
static int tail_of(struct nsight_requests *r, struct nsight_rq_group *g, const size_t *idx,
		   size_t n)
{
	size_t m = 0, j, e, s, k;
	struct cause_val *cv;
	int64_t *v = NULL, total = 0;
	int err = -1;

	for (j = 0; j < n; j++)
		m += r->rc_first[idx[j] + 1] - r->rc_first[idx[j]];
	cv = malloc((m ? m : 1) * sizeof(*cv));
	v = malloc((m ? 2 * m : 1) * sizeof(*v));	/* values, then their sorted copy */
	g->tail = calloc(r->n_causes ? r->n_causes : 1, sizeof(*g->tail));
	if (!cv || !v || !g->tail)
		goto out;
	m = 0;
	for (j = 0; j < n; j++)
		for (e = r->rc_first[idx[j]]; e < r->rc_first[idx[j] + 1]; e++)
			cv[m++] = (struct cause_val){ r->rc[e].cause, (uint32_t)j,
						      (int64_t)r->rc[e].ns };
	nsight_sort(cv, m, sizeof(*cv), cmp_cause_val);
	for (s = 0; s < m; s = e) {
		uint32_t c = cv[s].cause;
		size_t rank = ((size_t)n + 1) / 2;	/* nearest rank of p50 */
		int64_t med = 0, excess = 0;

		/* The cause's values, one per request that has it. */
		for (e = s, k = 0; e < m && cv[e].cause == c; e++) {
			if (k && cv[e].pos == cv[e - 1].pos)
				v[k - 1] += cv[e].ns;
			else
				v[k++] = cv[e].ns;
		}
		/* n - k zeros come first in order: the median is one of them or of v. */
		if (rank > n - k) {
			int64_t *sorted = v + k;	/* k <= m: room for k more */

			memcpy(sorted, v, k * sizeof(*v));
			nsight_sort_i64(sorted, k);
			med = sorted[rank - (n - k) - 1];
		}
		for (j = s, k = 0; j < e; j++) {
			int64_t x;

			if (j > s && cv[j].pos == cv[j - 1].pos)
				continue;
			x = v[k++];
			if (r->v[idx[cv[j].pos]].total_ns >= g->tail_from && x > med)
				excess += x - med;
		}
		if (excess > 0) {
			g->tail[g->n_tail++] = (struct nsight_rq_tail_cause){ c, excess, 0 };
			total += excess;
		}
	}
	for (j = 0; j < g->n_tail; j++)
		g->tail[j].share = (double)g->tail[j].excess_ns / (double)total;
	nsight_sort(g->tail, g->n_tail, sizeof(*g->tail), cmp_tail);
	err = 0;
out:
	free(cv);
	free(v);
	return err;
}

/* Group [@s, @e) of the requests (one pid). */
static int group_of(struct build *b, struct nsight_rq_group *g, size_t s, size_t e, uint32_t tail)
{
	struct nsight_requests *r = b->r;
	size_t *idx = malloc((e - s) * sizeof(*idx)), n = 0, i, p;
	int64_t *v = malloc((e - s) * sizeof(*v));
	int err = -1;

	memset(g, 0, sizeof(*g));
	if (!idx || !v)
		goto out;
	g->pid = r->v[s].pid;
	g->count = e - s;
	for (i = s; i < e; i++) {
		g->by_state[r->v[i].state]++;
		if (r->v[i].state == NSIGHT_RQ_COMPLETE) {
			idx[n++] = i;
			g->with_response += r->v[i].resp != 0;
		}
	}
	g->complete = n;
	g->receiver = most_common_tid(r->v, s, e, false);
	g->worker = most_common_tid(r->v, s, e, true);
	{
		uint32_t pid;

		if (!nsight_threads_who(b->c, g->receiver, r->v[s].begin, g->comm, &pid))
			g->comm[0] = '\0';
	}
	if (!n) {
		err = 0;
		goto out;
	}
	for (i = 0; i < n; i++)
		v[i] = r->v[idx[i]].total_ns;
	nsight_sort_i64(v, n);
	g->p50 = nsight_percentile(v, n, 50000);
	g->p90 = nsight_percentile(v, n, 90000);
	g->p99 = nsight_percentile(v, n, 99000);
	g->max = v[n - 1];
	g->tail_from = nsight_percentile(v, n, tail);
	for (i = 0; i < n; i++)
		g->tail_count += r->v[idx[i]].total_ns >= g->tail_from;
	for (p = 0; p < __NSIGHT_RQ_PHASES; p++) {
		for (i = 0; i < n; i++)
			v[i] = r->v[idx[i]].phase_ns[p];
		nsight_sort_i64(v, n);
		g->phase_p50[p] = nsight_percentile(v, n, 50000);
		g->phase_p99[p] = nsight_percentile(v, n, 99000);
	}
	if (n < NSIGHT_RQ_MIN_TAIL) {
		g->tail_count = 0;
		err = 0;
		goto out;
	}
	err = tail_of(r, g, idx, n);
out:
	free(idx);
	free(v);
	return err;
}

int nsight_requests_build(struct nsight_requests *r, const struct nsight_capture *cap,
			  const struct nsight_lifetimes *lt, const struct nsight_threads *c,
			  const struct nsight_keys *keys, uint32_t tail, struct nsight_diag *d)
{
	struct build b = { .r = r, .cap = cap, .lt = lt, .c = c, .keys = keys };
	struct nsight_cap_request *m = NULL;
	size_t n = 0, i, s;
	int err = -1;

	memset(r, 0, sizeof(*r));
	if (!cap->n_requests)
		return 0;
	m = malloc(cap->n_requests * sizeof(*m));
	if (!m)
		goto out;
	r->marks = cap->n_requests;
	for (i = 0; i < cap->n_requests; i++) {
		uint32_t op = cap->requests[i].r.op;

		if (op >= NSIGHT_REQ_BEGIN && op < __NSIGHT_REQ_MAX)
			m[n++] = cap->requests[i];
		else
			r->bad_ops++;
	}
	nsight_sort(m, n, sizeof(*m), cmp_mark);
	b.m = m;
	for (s = 0; s < n; s = i) {
		for (i = s + 1; i < n && m[i].r.pid == m[s].r.pid && m[i].r.id == m[s].r.id; i++)
			;
		if (group_marks(&b, s, i))
			goto out;
	}
	if (sort_reqs(&b) || join(&b))
		goto out;
	for (s = 0; s < r->n; s = i) {
		for (i = s + 1; i < r->n && r->v[i].pid == r->v[s].pid; i++)
			;
		struct nsight_rq_group *g = realloc(r->groups, (r->n_groups + 1) * sizeof(*g));

		if (!g)
			goto out;
		r->groups = g;
		/* Counted first: what it holds is freed with the rest. */
		if (group_of(&b, &r->groups[r->n_groups++], s, i, tail))
			goto out;
	}
	err = 0;
out:
	nsight_chain_fini(&b.ch);
	free(b.first);
	free(b.n_marks);
	free(m);
	if (err) {
		nsight_requests_fini(r);
		return nomem(d);
	}
	return 0;
}
