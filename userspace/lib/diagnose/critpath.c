// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>

#include "diagnose/critpath.h"
#include "base/satmath.h"
#include "base/vec.h"

static const char *const state_names[NSIGHT_CP_STATES] = {
	[NSIGHT_CP_NIC] = "nic",	[NSIGHT_CP_SOFTIRQ] = "softirq",
	[NSIGHT_CP_QUEUE] = "queue",	[NSIGHT_CP_BLOCKED] = "blocked",
	[NSIGHT_CP_RUNQ] = "runq",	[NSIGHT_CP_INTR] = "intr",
	[NSIGHT_CP_APP] = "app",
	[NSIGHT_CP_SEND] = "send",	[NSIGHT_CP_QDISC] = "qdisc",
	[NSIGHT_CP_XMIT] = "xmit",
};

const char *nsight_cp_state_name(unsigned int s)
{
	return s < NSIGHT_CP_STATES ? state_names[s] : "?";
}

bool nsight_cp_state_in(uint8_t dir, unsigned int s)
{
	return dir == NSIGHT_MSG_RX ? s <= NSIGHT_CP_APP : s >= NSIGHT_CP_SEND && s < NSIGHT_CP_STATES;
}

/* Add @ns to (@s, @key) in @v. */
static int via_add(struct nsight_cp_vias *v, uint8_t s, uint32_t key, int64_t ns)
{
	size_t i;

	for (i = 0; i < v->n && (v->v[i].state != s || v->v[i].key != key); i++)
		;
	if (i == v->n) {
		if (NSIGHT_VEC_GROW(v->v, v->n, v->cap))
			return -NSIGHT_E_NOMEM;
		v->v[v->n++] = (struct nsight_cp_via){ s, key, 0 };
	}
	v->v[i].ns = nsight_sat_add(v->v[i].ns, ns);
	return 0;
}

const struct nsight_cp_via *nsight_cp_via_top(const struct nsight_cp_vias *v, unsigned int s)
{
	const struct nsight_cp_via *top = NULL;
	size_t i;

	for (i = 0; i < v->n; i++)
		if (v->v[i].state == s && v->v[i].ns > 0 && (!top || v->v[i].ns > top->ns))
			top = &v->v[i];
	return top;
}

struct span {
	uint64_t from, to;
};

struct cp_walk {
	struct nsight_profiler *p;
	const struct nsight_keys *keys;
	uint64_t ticks[NSIGHT_CP_STATES];
	uint32_t key;			/* of the piece being taken */
	struct nsight_cp_vias via;	/* ns: ticks while walking */
	bool nomem;
	uint64_t r_left;		/* ticks of the receive core's window to come */
	uint64_t t;			/* application window: where the piece begins */
	bool rx_started;		/* an irq or softirq ran in the receive window */
	struct span *run;		/* the thread's runnable spans in [h, a) */
	size_t n_run, cap_run;
};

static void take(struct cp_walk *w, uint8_t s, uint64_t ticks);

static int on_span(void *arg, const struct nsight_thr_span *sp)
{
	struct cp_walk *w = arg;

	if (sp->state != NSIGHT_THR_RUNNABLE)
		return 0;
	if (NSIGHT_VEC_GROW(w->run, w->n_run, w->cap_run))
		return -NSIGHT_E_NOMEM;
	w->run[w->n_run++] = (struct span){ sp->from, sp->to };
	return 0;
}

static bool chain_has(const struct nsight_piece *pc, uint32_t id)
{
	uint8_t i;

	for (i = 0; i < pc->depth && i < NSIGHT_TL_DEPTH; i++)
		if (pc->key[i] == id)
			return true;
	return false;
}

/* Whether an irq or softirq is in the chain, inside the thread's "app" if it is there. */
static bool chain_rx(const struct cp_walk *w, const struct nsight_piece *pc)
{
	uint8_t i;

	for (i = 0; i < pc->depth && i < NSIGHT_TL_DEPTH && pc->key[i] != NSIGHT_KEY_ID_APP; i++) {
		enum nsight_key_kind k = nsight_key_kind(w->keys, pc->key[i]);

		if (k == NSIGHT_KEY_IRQ || k == NSIGHT_KEY_SOFTIRQ)
			return true;
	}
	return false;
}

/* [@s, @e), the thread off its CPU and not runnable: by the receive call's entry. */
static void not_runnable(struct cp_walk *w, uint64_t s, uint64_t e)
{
	uint64_t entry = w->p->entry, q = entry <= s ? s : entry < e ? entry : e;

	take(w, NSIGHT_CP_QUEUE, q - s);
	take(w, NSIGHT_CP_RUNQ, e - q);
}

/* [@s, @e) with the thread off its CPU. */
static void off_cpu(struct cp_walk *w, uint64_t s, uint64_t e)
{
	size_t i;

	for (i = 0; i < w->n_run && s < e; i++) {
		const struct span *r = &w->run[i];
		uint64_t to = r->to < e ? r->to : e;

		if (r->to <= s)
			continue;
		if (r->from >= e)
			break;
		if (r->from > s) {
			not_runnable(w, s, r->from);
			s = r->from;
		}
		take(w, NSIGHT_CP_RUNQ, to - s);
		s = to;
	}
	if (s < e)
		not_runnable(w, s, e);
}

static void take(struct cp_walk *w, uint8_t s, uint64_t ticks)
{
	if (!ticks)
		return;
	w->ticks[s] += ticks;
	if (via_add(&w->via, s, w->key, ticks > INT64_MAX ? INT64_MAX : (int64_t)ticks))
		w->nomem = true;
}

static int on_piece(void *arg, const struct nsight_piece *pc)
{
	struct cp_walk *w = arg;
	uint8_t i;

	/* The innermost context; a sampled function stands for the one it ran in. */
	for (i = 0; i + 1 < pc->depth && i + 1 < NSIGHT_TL_DEPTH &&
		    nsight_key_kind(w->keys, pc->key[i]) == NSIGHT_KEY_FUNC; i++)
		;
	w->key = pc->depth ? pc->key[i] : NSIGHT_KEY_ID_UNKNOWN;

	if (w->r_left) {
		/* The receive window: pieces never straddle its end. */
		if (!w->rx_started && chain_rx(w, pc))
			w->rx_started = true;
		take(w, w->rx_started ? NSIGHT_CP_SOFTIRQ : NSIGHT_CP_NIC, pc->ticks);
		w->r_left -= pc->ticks < w->r_left ? pc->ticks : w->r_left;
		return 0;
	}
	if (pc->blocked)
		take(w, NSIGHT_CP_BLOCKED, pc->ticks);
	else if (chain_has(pc, NSIGHT_KEY_ID_HOL))
		take(w, NSIGHT_CP_QUEUE, pc->ticks);
	else if (chain_has(pc, NSIGHT_KEY_ID_APP))
		take(w, chain_rx(w, pc) ? NSIGHT_CP_INTR : NSIGHT_CP_APP, pc->ticks);
	else
		off_cpu(w, w->t, w->t + pc->ticks);
	w->t += pc->ticks;
	return 0;
}

static void most_of(struct nsight_cp_msg *out)
{
	unsigned int s;

	out->total = 0;
	out->most = out->dir == NSIGHT_MSG_RX ? NSIGHT_CP_NIC : NSIGHT_CP_SEND;
	for (s = 0; s < NSIGHT_CP_STATES; s++) {
		if (!nsight_cp_state_in(out->dir, s))
			continue;
		out->total = nsight_sat_add(out->total, out->ns[s]);
		if (out->ns[s] > out->ns[out->most])
			out->most = (uint8_t)s;
	}
}

int nsight_cp_message(struct nsight_cp_msg *out, struct nsight_profiler *p,
		      const struct nsight_threads *c, const struct nsight_keys *keys,
		      const struct nsight_msg *m)
{
	struct cp_walk w = { .p = p, .keys = keys };
	unsigned int s;
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	out->dir = m->dir;
	if (m->reason != NSIGHT_MSG_COMPLETE)
		return -NSIGHT_E_INVAL;
	if (m->dir == NSIGHT_MSG_TX) {
		out->ns[NSIGHT_CP_SEND] = m->seg_ns[0];
		out->ns[NSIGHT_CP_QDISC] = m->seg_ns[1];
		out->ns[NSIGHT_CP_XMIT] = m->t[NSIGHT_TX_DONE].valid ? m->seg_ns[2] : 0;
		most_of(out);
		return 0;
	}
	{
		uint64_t n = nsight_profile_rx_start(p, m), h = m->t[NSIGHT_RX_H].tsc;

		w.r_left = n < h ? h - n : 0;
		w.t = h;
	}
	if (c && c->finished) {
		ret = nsight_threads_spans(c, m->tid, m->t[NSIGHT_RX_H].tsc, m->t[NSIGHT_RX_A].tsc,
					   on_span, &w);
		if (ret) {
			free(w.run);
			return ret;
		}
	}
	ret = nsight_profile_walk(p, m, on_piece, &w);
	free(w.run);
	out->via = w.via;
	if (!ret && w.nomem)
		ret = -NSIGHT_E_NOMEM;
	if (ret)
		return ret;
	for (s = 0; s < NSIGHT_CP_STATES; s++)
		out->ns[s] = nsight_profiler_ns(p, w.ticks[s]);
	for (i = 0; i < out->via.n; i++)
		out->via.v[i].ns = nsight_profiler_ns(p, (uint64_t)out->via.v[i].ns);
	most_of(out);
	return 0;
}

void nsight_cp_msg_fini(struct nsight_cp_msg *m)
{
	free(m->via.v);
	memset(&m->via, 0, sizeof(m->via));
}

int nsight_cp_tail_add(struct nsight_cp_tail *t, const struct nsight_cp_msg *m)
{
	unsigned int s;
	size_t i;

	t->dir = m->dir;
	t->n++;
	t->total = nsight_sat_add(t->total, m->total);
	for (s = 0; s < NSIGHT_CP_STATES; s++)
		t->ns[s] = nsight_sat_add(t->ns[s], m->ns[s]);
	t->most[m->most]++;
	for (i = 0; i < m->via.n; i++)
		if (via_add(&t->via, m->via.v[i].state, m->via.v[i].key, m->via.v[i].ns))
			return -NSIGHT_E_NOMEM;
	return 0;
}

void nsight_cp_tail_fini(struct nsight_cp_tail *t)
{
	free(t->via.v);
	memset(&t->via, 0, sizeof(t->via));
}

void nsight_cp_group_fini(struct nsight_cp_group *cg)
{
	size_t i;

	for (i = 0; i < cg->n; i++)
		nsight_cp_msg_fini(&cg->msgs[i]);
	free(cg->msgs);
	nsight_cp_tail_fini(&cg->tail);
	memset(cg, 0, sizeof(*cg));
}

void nsight_cp_groups_free(struct nsight_cp_group *cgs, size_t n)
{
	size_t i;

	for (i = 0; cgs && i < n; i++)
		nsight_cp_group_fini(&cgs[i]);
	free(cgs);
}

int nsight_cp_group_build(struct nsight_cp_group *cg, struct nsight_profiler *p,
			  const struct nsight_threads *c, const struct nsight_keys *keys,
			  const struct nsight_dx_group *g, const struct nsight_lifetimes *lt)
{
	size_t i;

	memset(cg, 0, sizeof(*cg));
	cg->tail.dir = g->dir;
	if (!g->n_msgs)
		return 0;
	cg->msgs = calloc(g->n_msgs, sizeof(*cg->msgs));
	if (!cg->msgs)
		return -NSIGHT_E_NOMEM;
	for (i = 0; i < g->n_msgs; i++) {
		int err = nsight_cp_message(&cg->msgs[i], p, c, keys, &lt->msgs[g->msgs[i].msg]);

		cg->n++;
		if (!err)
			err = nsight_cp_tail_add(&cg->tail, &cg->msgs[i]);
		if (err)
			return err;
	}
	return 0;
}

/* A group's paths from the windows, by whole-capture id. */
struct nsight_cp_wgroup {
	struct cp_wmsg {
		uint64_t id;
		struct nsight_cp_msg m;
	} *v;
	size_t n, cap;
};

void nsight_cp_windows_fini(struct nsight_cp_windows *w)
{
	size_t i, k;

	for (i = 0; i < w->n; i++) {
		for (k = 0; k < w->groups[i].n; k++)
			nsight_cp_msg_fini(&w->groups[i].v[k].m);
		free(w->groups[i].v);
	}
	free(w->groups);
	memset(w, 0, sizeof(*w));
}

int nsight_cp_windows_add(struct nsight_cp_windows *w, size_t group, uint64_t id,
			  struct nsight_cp_msg *m)
{
	struct nsight_cp_wgroup *g;

	if (group >= w->n) {
		size_t cap = w->n;

		if (nsight_vec_reserve((void **)&w->groups, &cap, group + 1, sizeof(*w->groups)))
			return -NSIGHT_E_NOMEM;
		memset(&w->groups[w->n], 0, (group + 1 - w->n) * sizeof(*w->groups));
		w->n = group + 1;
	}
	g = &w->groups[group];
	if (NSIGHT_VEC_GROW(g->v, g->n, g->cap))
		return -NSIGHT_E_NOMEM;
	/* Kept to the end of the passes: no room to grow. */
	if (m->via.n && m->via.n < m->via.cap) {
		struct nsight_cp_via *v = realloc(m->via.v, m->via.n * sizeof(*v));

		if (v) {
			m->via.v = v;
			m->via.cap = m->via.n;
		}
	}
	g->v[g->n].id = id;
	g->v[g->n++].m = *m;
	memset(m, 0, sizeof(*m));
	return 0;
}

static int cmp_wmsg(const void *a, const void *b)
{
	const struct cp_wmsg *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int nsight_cp_windows_finish(struct nsight_cp_windows *w, const struct nsight_dx *dx,
			     struct nsight_cp_group **out)
{
	struct nsight_cp_group *cgs = calloc(dx->n ? dx->n : 1, sizeof(*cgs));
	size_t gi, i;
	int err = 0;

	*out = NULL;
	if (!cgs)
		return -NSIGHT_E_NOMEM;
	for (gi = 0; gi < dx->n && !err; gi++) {
		const struct nsight_dx_group *g = &dx->groups[gi];
		struct nsight_cp_wgroup *wg = gi < w->n ? &w->groups[gi] : NULL;
		struct nsight_cp_group *cg = &cgs[gi];

		cg->tail.dir = g->dir;
		if (!g->n_msgs)
			continue;
		cg->msgs = calloc(g->n_msgs, sizeof(*cg->msgs));
		if (!cg->msgs) {
			err = -NSIGHT_E_NOMEM;
			break;
		}
		if (wg && wg->n > 1)
			qsort(wg->v, wg->n, sizeof(*wg->v), cmp_wmsg);
		for (i = 0; i < g->n_msgs && !err; i++) {
			struct cp_wmsg key = { .id = g->msgs[i].id }, *hit;

			hit = wg ? bsearch(&key, wg->v, wg->n, sizeof(*wg->v), cmp_wmsg) : NULL;
			if (!hit || hit->m.dir != g->dir) {
				err = -NSIGHT_E_INVAL;
				break;
			}
			cg->msgs[cg->n++] = hit->m;
			memset(&hit->m, 0, sizeof(hit->m));
			err = nsight_cp_tail_add(&cg->tail, &cg->msgs[i]);
		}
	}
	nsight_cp_windows_fini(w);
	if (err) {
		nsight_cp_groups_free(cgs, dx->n);
		return err;
	}
	*out = cgs;
	return 0;
}
