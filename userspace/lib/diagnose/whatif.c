// SPDX-License-Identifier: MIT
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose/diagnose.h"
#include "base/vec.h"
#include "lifetime/latency.h"
#include "diagnose/whatif.h"

#define NONE UINT32_MAX

const uint32_t nsight_wi_pct[NSIGHT_WI_NPCT] = { 50000, 99000, 99900 };
const char *const nsight_wi_pct_name[NSIGHT_WI_NPCT] = { "p50", "p99", "p99.9" };

int nsight_whatif_parse(struct nsight_wi_spec *spec, const char *s, struct nsight_diag *d)
{
	const char *cause, *eq = NULL;
	size_t len;

	memset(spec, 0, sizeof(*spec));
	spec->role = -1;
	if (!strncmp(s, "remove:", 7)) {
		spec->remove = true;
		cause = s + 7;
		len = strlen(cause);
	} else if (!strncmp(s, "scale:", 6)) {
		char *end;

		cause = s + 6;
		eq = strrchr(cause, '=');
		if (!eq)
			return nsight_diag_set(d, NSIGHT_E_INVAL, "'%s': scale needs =FACTOR", s);
		spec->factor = strtod(eq + 1, &end);
		if (end == eq + 1 || *end || !isfinite(spec->factor) || spec->factor < 0 ||
		    spec->factor > 100)
			return nsight_diag_set(d, NSIGHT_E_INVAL, "'%s': bad factor (0 to 100)", s);
		len = (size_t)(eq - cause);
	} else {
		return nsight_diag_set(d, NSIGHT_E_INVAL,
				       "'%s': expected remove:CAUSE or scale:CAUSE=FACTOR", s);
	}
	while (len && cause[0] == ' ') {
		cause++;
		len--;
	}
	while (len && cause[len - 1] == ' ')
		len--;
	if (len >= 3 && (len == 3 || cause[len - 4] == ' ') && cause[len - 3] == '(' &&
	    cause[len - 1] == ')' && (cause[len - 2] == 'A' || cause[len - 2] == 'R')) {
		spec->role = cause[len - 2] == 'A' ? NSIGHT_ROLE_A : NSIGHT_ROLE_R;
		len -= 3;
		while (len && cause[len - 1] == ' ')
			len--;
	}
	if (!len)
		return nsight_diag_set(d, NSIGHT_E_INVAL, "'%s': no cause", s);
	if (len >= sizeof(spec->category))
		return nsight_diag_set(d, NSIGHT_E_INVAL, "'%s': cause too long", s);
	memcpy(spec->category, cause, len);
	spec->category[len] = '\0';
	return 0;
}

const char *nsight_whatif_spec_format(const struct nsight_wi_spec *spec, char *buf, size_t len)
{
	char role[8] = "";

	if (spec->role >= 0)
		snprintf(role, sizeof(role), " (%s)", nsight_role_name((uint8_t)spec->role));
	if (spec->remove)
		snprintf(buf, len, "remove %s%s", spec->category, role);
	else
		snprintf(buf, len, "scale %s%s by %g", spec->category, role, spec->factor);
	return buf;
}

struct went {
	uint32_t key;
	uint8_t role;
	int64_t excl;
};

struct wmsg {
	size_t idx;
	int64_t lat, pred;
	size_t ent, n_ent;
	int64_t refill[NSIGHT_ROLES];	/* per-message model's, ns */
	uint32_t tid;
	uint64_t a_tsc;
};

/* A piece of a message's windows, in time order, and its keep index (see struct wb). */
struct wpiece {
	uint64_t ticks;
	uint16_t kvi;
};

/* The distinct products of factors a key can keep: one per subset of the specs. */
#define NKV (1u << NSIGHT_WI_MAX_SPECS)
#define KVI_UNKNOWN 0
#define KVI_NONE 1	/* no cause's: keeps all of its time */

struct wgrp {
	struct wmsg *m;
	size_t n, cap;
};

/* Causes of the next bottleneck while a group is counted. */
struct wcause {
	uint32_t cat;
	uint8_t role;
	int64_t ex;		/* in the message at hand */
	uint64_t main;
	int64_t total;
};

struct wb {
	struct nsight_whatif *wi;
	const struct nsight_lifetimes *lt;
	struct nsight_profiler *prof;
	const struct nsight_keys *keys;
	const struct nsight_cats *cats;
	struct wgrp *g;
	struct went *ents;
	size_t n_ents, cap_ents;
	uint32_t *cat_of;	/* key -> index in cat_names */
	char **cat_names;
	size_t n_cats, cap_cats;
	uint16_t *mask;		/* key: MASK_KNOWN, bit i: spec i's category */
	uint16_t *kvi;		/* [role * nkeys + key]: KVI_*, or 2 + i: keeps kv[i] */
	double kv[NKV];
	size_t n_kv;
	double *exp;		/* per group: [role * nkeys + key] */
	struct wcause *wc;
	size_t n_wc, cap_wc;
	struct wpiece *pc;	/* the walk of the message at hand */
	size_t n_pc, cap_pc;
	bool oom;
};

#define GROW NSIGHT_VEC_GROW

/* The category of @key as an index, NONE when out of memory. */
static uint32_t cat_of(struct wb *b, uint32_t key)
{
	char buf[512];
	size_t i;

	if (b->cat_of[key] != NONE)
		return b->cat_of[key];
	nsight_cats_name(b->cats, nsight_key_kind(b->keys, key), nsight_key_name(b->keys, key), buf,
			 sizeof(buf));
	for (i = 0; i < b->n_cats && strcmp(b->cat_names[i], buf); i++)
		;
	if (i == b->n_cats) {
		if (GROW(b->cat_names, b->n_cats, b->cap_cats))
			return NONE;
		b->cat_names[i] = strdup(buf);
		if (!b->cat_names[i])
			return NONE;
		b->n_cats++;
	}
	b->cat_of[key] = (uint32_t)i;
	return (uint32_t)i;
}

#define MASK_KNOWN 0x8000

/* The specs whose category @key (of any role) belongs to; -1 when out of memory. */
static int key_mask(struct wb *b, uint32_t key)
{
	const char *cat;
	uint16_t mask = MASK_KNOWN;
	uint32_t c;
	size_t i;

	if (b->mask[key])
		return b->mask[key] & ~MASK_KNOWN;
	c = cat_of(b, key);
	if (c == NONE)
		return -1;
	cat = b->cat_names[c];
	for (i = 0; i < b->wi->n_specs; i++) {
		const char *want = b->wi->specs[i].category;
		size_t l = strlen(want);

		if (!strcmp(cat, want) ||
		    (nsight_key_kind(b->keys, key) == NSIGHT_KEY_FUNC && !strncmp(cat, want, l) &&
		     cat[l] == ':' && cat[l + 1] == ' '))
			mask |= (uint16_t)(1u << i);
	}
	b->mask[key] = mask;
	return mask & ~MASK_KNOWN;
}

static double spec_factor(const struct nsight_wi_spec *sp)
{
	return sp->remove ? 0 : sp->factor;
}

/* Spec @i holds a key of mask @mask (key_mask()) in @role. */
static bool spec_holds(const struct nsight_whatif *wi, int mask, size_t i, uint8_t role)
{
	return (mask & (1 << i)) && (wi->specs[i].role < 0 || wi->specs[i].role == role);
}

/*
 * The keep index of @key in @role: KVI_NONE when no spec's cause holds it,
 * else 2 + the index in b->kv of the product of the factors of the specs
 * that do; -1 when out of memory.
 */
static int kvi_of(struct wb *b, uint32_t key, uint8_t role)
{
	uint16_t *slot = &b->kvi[(size_t)role * b->keys->n + key];
	double keep = 1;
	bool in = false;
	int mask;
	size_t i;

	if (*slot != KVI_UNKNOWN)
		return *slot;
	mask = key_mask(b, key);
	if (mask < 0)
		return -1;
	for (i = 0; i < b->wi->n_specs; i++) {
		if (spec_holds(b->wi, mask, i, role)) {
			keep *= spec_factor(&b->wi->specs[i]);
			in = true;
		}
	}
	if (!in) {
		*slot = KVI_NONE;
		return KVI_NONE;
	}
	for (i = 0; i < b->n_kv && b->kv[i] != keep; i++)
		;
	if (i == b->n_kv)
		b->kv[b->n_kv++] = keep;	/* at most one per subset of the specs */
	*slot = (uint16_t)(2 + i);
	return *slot;
}

/* What @e keeps of its time: 1 outside the causes. */
static double ent_keep(const struct wb *b, const struct went *e)
{
	uint16_t k = b->kvi[(size_t)e->role * b->keys->n + e->key];

	return k >= 2 ? b->kv[k - 2] : 1;
}

/* Whether @e's key belongs, in its role, to one of the causes (known from gather()). */
static bool ent_in_cause(const struct wb *b, const struct went *e)
{
	return b->kvi[(size_t)e->role * b->keys->n + e->key] >= 2;
}

/* Ticks by keep index, and what the causes take of them: sum (1 - keep) * ticks. */
struct wsum {
	uint64_t t[2 + NKV];
};

static void wsum_init(struct wsum *w, const struct wb *b)
{
	memset(w->t, 0, (2 + b->n_kv) * sizeof(w->t[0]));
}

static double wsum_removed(const struct wsum *w, const struct wb *b)
{
	double r = 0;
	size_t i;

	for (i = 0; i < b->n_kv; i++)
		r += (1 - b->kv[i]) * (double)w->t[2 + i];
	return r;
}

static int64_t value_in(const struct wb *b, const struct wmsg *m, uint8_t role, uint32_t key)
{
	size_t i;

	for (i = 0; i < m->n_ent; i++)
		if (b->ents[m->ent + i].key == key && b->ents[m->ent + i].role == role)
			return b->ents[m->ent + i].excl;
	return 0;
}

static int lat_cmp(const void *x, const void *y)
{
	const struct wmsg *a = x, *c = y;

	if (a->lat != c->lat)
		return a->lat < c->lat ? -1 : 1;
	return a->idx < c->idx ? -1 : a->idx > c->idx;
}

static int i64_cmp(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, c = *(const int64_t *)y;

	return a < c ? -1 : a > c;
}

/* The group of message @m, made if new; NULL when out of memory. */
static struct wgrp *group_of(struct wb *b, const struct nsight_msg *m, size_t *gi)
{
	struct nsight_whatif *wi = b->wi;
	size_t i;

	for (i = 0; i < wi->n; i++)
		if (wi->groups[i].pid == m->pid && wi->groups[i].dir == m->dir &&
		    !strncmp(wi->groups[i].comm, m->comm, sizeof(m->comm)))
			break;
	if (i == wi->n) {
		struct nsight_wi_group *ng = realloc(wi->groups, (wi->n + 1) * sizeof(*ng));
		struct wgrp *nb = realloc(b->g, (wi->n + 1) * sizeof(*nb));

		if (ng)
			wi->groups = ng;
		if (nb)
			b->g = nb;
		if (!ng || !nb)
			return NULL;
		memset(&ng[i], 0, sizeof(ng[i]));
		memcpy(ng[i].comm, m->comm, sizeof(ng[i].comm));
		ng[i].pid = m->pid;
		ng[i].dir = m->dir;
		b->g[i] = (struct wgrp){ 0 };
		wi->n++;
	}
	*gi = i;
	return &b->g[i];
}

/* Time of @key in @role is in the causes: mark the specs it is in as found. */
static void mark_found(struct wb *b, uint32_t key, uint8_t role)
{
	struct nsight_whatif *wi = b->wi;
	int mask = b->mask[key] & ~MASK_KNOWN;
	size_t i;

	for (i = 0; i < wi->n_specs; i++)
		if (spec_holds(wi, mask, i, role))
			wi->found_spec[i] = wi->found = true;
}

/* Profile every complete message into its group. */
static int gather(struct wb *b, const struct nsight_lifetimes *lt, struct nsight_profiler *prof,
		  struct nsight_diag *d)
{
	struct nsight_profile pr = { 0 };
	int err = 0;
	size_t i, k, gi;

	for (i = 0; i < lt->n && !err; i++) {
		const struct nsight_msg *m = &lt->msgs[i];
		struct wgrp *g;
		struct wmsg *wm;

		if (m->reason != NSIGHT_MSG_COMPLETE)
			continue;
		err = nsight_profile_build(prof, m, &pr, d);
		if (err)
			break;
		g = group_of(b, m, &gi);
		if (!g || GROW(g->m, g->n, g->cap)) {
			err = -NSIGHT_E_NOMEM;
			break;
		}
		if (pr.lost) {
			b->wi->groups[gi].skipped_lost++;
			continue;
		}
		wm = &g->m[g->n++];
		*wm = (struct wmsg){ .idx = i, .lat = m->total_ns, .ent = b->n_ents, .tid = m->tid,
				     .a_tsc = m->t[NSIGHT_RX_A].tsc };
		for (k = 0; k < pr.n; k++) {
			const struct nsight_prof_ent *e = &pr.v[k];
			int mt;

			if (e->key >= b->keys->n || !e->excl)
				continue;
			mt = kvi_of(b, e->key, e->role);
			if (mt < 0 || GROW(b->ents, b->n_ents, b->cap_ents)) {
				err = -NSIGHT_E_NOMEM;
				break;
			}
			b->ents[b->n_ents++] = (struct went){ e->key, e->role, e->excl };
			if (mt >= 2)
				mark_found(b, e->key, e->role);
			wm->n_ent++;
		}
	}
	nsight_profile_fini(&pr);
	if (err == -NSIGHT_E_NOMEM)
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	return err;
}

/*
 * The predicted latency of @m on its own (no queue); its expected times are
 * in b->exp. Sets m->refill.
 */
static int64_t predict(struct wb *b, struct wmsg *m, size_t nkeys, const uint32_t *exp_keys,
		       size_t n_exp)
{
	int64_t removed[NSIGHT_ROLES] = { 0 }, deficit[NSIGHT_ROLES] = { 0 }, pred = m->lat;
	size_t i;
	int r;

	for (i = 0; i < m->n_ent; i++) {
		const struct went *e = &b->ents[m->ent + i];

		if (ent_in_cause(b, e))
			removed[e->role] += e->excl - llround((double)e->excl * ent_keep(b, e));
	}
	for (i = 0; i < n_exp; i++) {
		uint8_t role = (uint8_t)(exp_keys[i] / nkeys);
		uint32_t key = (uint32_t)(exp_keys[i] % nkeys);
		struct went e = { key, role, 0 };
		int64_t want = llround(b->exp[exp_keys[i]]), have;

		if (ent_in_cause(b, &e) || !removed[role])
			continue;
		have = value_in(b, m, role, key);
		if (want > have)
			deficit[role] += want - have;
	}
	for (r = 0; r < NSIGHT_ROLES; r++) {
		m->refill[r] = deficit[r] < removed[r] ? deficit[r] : removed[r];
		if (m->refill[r] < 0)
			m->refill[r] = 0;
		pred -= removed[r] - m->refill[r];
	}
	return pred;
}

static int on_piece(void *arg, const struct nsight_piece *pc)
{
	struct wb *b = arg;
	int k = pc->key[0] < b->keys->n ? kvi_of(b, pc->key[0], pc->role) : KVI_NONE;

	if (k < 0 || GROW(b->pc, b->n_pc, b->cap_pc)) {
		b->oom = true;
		return -NSIGHT_E_NOMEM;
	}
	b->pc[b->n_pc++] = (struct wpiece){ pc->ticks, (uint16_t)k };
	return 0;
}

/* The ticks the causes take in [@from, @to) of the walk (ticks from its start). */
static int64_t cause_in(const struct wb *b, uint64_t from, uint64_t to)
{
	struct wsum w;
	uint64_t pos = 0;
	size_t i;

	wsum_init(&w, b);
	for (i = 0; i < b->n_pc && pos < to; pos += b->pc[i++].ticks) {
		uint64_t s = pos > from ? pos : from, e = pos + b->pc[i].ticks;

		if (e > to)
			e = to;
		if (b->pc[i].kvi >= 2 && e > s)
			w.t[b->pc[i].kvi] += e - s;
	}
	return llround(wsum_removed(&w, b));
}

/*
 * The ticks the causes take on application core @cpu within [@s, @e), by
 * the timeline's innermost contexts, thread @tid's own not counted (a
 * message's walk calls them "app"): time no message's window holds.
 */
static int64_t cause_on_cpu(struct wb *b, uint32_t cpu, uint32_t tid, uint64_t s, uint64_t e)
{
	const struct nsight_timeline *tl = b->prof->tl;
	const struct nsight_tl_cpu *c;
	struct wsum w;
	ssize_t i;

	if (s >= e || cpu >= tl->nr_cpus || !tl->cpus[cpu].n)
		return 0;
	wsum_init(&w, b);
	c = &tl->cpus[cpu];
	i = nsight_tl_find(tl, cpu, s);
	for (i = i < 0 ? 0 : i; (size_t)i < c->n && c->segs[i].start < e; i++) {
		uint64_t from = c->segs[i].start > s ? c->segs[i].start : s;
		uint64_t to = nsight_tl_seg_end(tl, cpu, (size_t)i);
		const struct nsight_ctx *x = &tl->ctx[c->segs[i].ctx];
		uint32_t key = c->segs[i].key;
		int k;

		if (to > e)
			to = e;
		if (to <= from || key >= b->keys->n ||
		    (!nsight_ctx_is_gap(x->kind) && x->tid == tid &&
		     (x->kind == NSIGHT_CTX_K_TASK || x->kind == NSIGHT_CTX_K_FUNC)))
			continue;
		k = kvi_of(b, key, NSIGHT_ROLE_A);
		if (k < 0) {
			b->oom = true;
			return 0;
		}
		if (k >= 2)
			w.t[k] += to - from;
	}
	return llround(wsum_removed(&w, b));
}

static int64_t ticks_of(const struct nsight_profiler *p, int64_t ns)
{
	return llround((double)ns * (double)p->tsc_hz / 1e9);
}

static int tid_a_cmp(const void *x, const void *y)
{
	const struct wmsg *a = x, *c = y;

	if (a->tid != c->tid)
		return a->tid < c->tid ? -1 : 1;
	if (a->a_tsc != c->a_tsc)
		return a->a_tsc < c->a_tsc ? -1 : 1;
	return a->idx < c->idx ? -1 : a->idx > c->idx;
}

/*
 * Re-run each receiving thread's queue in order (the model in whatif.h):
 * walks every message of RX group @g again, to place the cause's time
 * before h, in H and in V. A message whose walk fails keeps its own
 * prediction and starts the queue anew.
 */
static int requeue(struct wb *b, struct wgrp *g)
{
	struct nsight_profiler *p = b->prof;
	uint64_t prev_a = 0;
	int64_t prev_pa = 0;	/* predicted, on the TSC */
	bool have_prev = false;
	size_t i;

	qsort(g->m, g->n, sizeof(*g->m), tid_a_cmp);
	for (i = 0; i < g->n; i++) {
		struct wmsg *wm = &g->m[i];
		const struct nsight_msg *m = &b->lt->msgs[wm->idx];
		uint64_t h_tsc = m->t[NSIGHT_RX_H].tsc, a_tsc = m->t[NSIGHT_RX_A].tsc;
		uint64_t total = 0, a0, c_tsc, e_tsc, until;
		int64_t hp, ap, u = 0, hh, vv, busy, idle;	/* ticks */
		size_t k;
		int ret;

		if (i && wm->tid != g->m[i - 1].tid)
			have_prev = false;
		b->n_pc = 0;
		ret = nsight_profile_walk(p, m, on_piece, b);
		if (ret == -NSIGHT_E_NOMEM || b->oom)
			return -1;
		for (k = 0; k < b->n_pc; k++)
			total += b->pc[k].ticks;
		if (ret || a_tsc < h_tsc || total < a_tsc - h_tsc) {
			have_prev = false;	/* keeps its own prediction */
			continue;
		}
		a0 = total - (a_tsc - h_tsc);	/* the application window in the walk */
		c_tsc = have_prev && prev_a > h_tsc ? prev_a : h_tsc;
		if (c_tsc > a_tsc)
			c_tsc = a_tsc;
		e_tsc = p->entry < c_tsc ? c_tsc : p->entry > a_tsc ? a_tsc : p->entry;
		/* In ticks from h: a message without the cause comes out exact. */
		hp = ticks_of(p, wm->refill[NSIGHT_ROLE_R]) - cause_in(b, 0, a0);
		hh = (int64_t)(e_tsc - c_tsc) -
		     cause_in(b, a0 + (c_tsc - h_tsc), a0 + (e_tsc - h_tsc));
		vv = (int64_t)(a_tsc - e_tsc) - cause_in(b, a0 + (e_tsc - h_tsc), total);
		until = p->entry < h_tsc ? p->entry : h_tsc;
		if (have_prev && until > prev_a)
			u = (int64_t)(until - prev_a) -
			    cause_on_cpu(b, m->t[NSIGHT_RX_A].cpu, m->tid, prev_a, until);
		if (b->oom)
			return -1;
		busy = (have_prev ? prev_pa - (int64_t)h_tsc : hp) + u + hh;
		idle = hp + ticks_of(p, wm->refill[NSIGHT_ROLE_A]);
		ap = (idle > busy ? idle : busy) + vv - (int64_t)(a_tsc - h_tsc);
		wm->pred = wm->lat + (ap < 0 ? -nsight_profiler_ns(p, (uint64_t)-ap) :
					       nsight_profiler_ns(p, (uint64_t)ap));
		ap += (int64_t)a_tsc;
		prev_a = a_tsc;
		prev_pa = ap;
		have_prev = true;
	}
	return 0;
}

/* The next bottleneck over the predicted tail of group @gi. */
static int next_bottleneck(struct wb *b, size_t gi, int64_t thr, size_t nkeys, int64_t min_dev)
{
	struct nsight_wi_group *out = &b->wi->groups[gi];
	const struct wgrp *g = &b->g[gi];
	size_t i, k, best = SIZE_MAX;

	b->n_wc = 0;
	for (i = 0; i < g->n; i++) {
		const struct wmsg *m = &g->m[i];
		size_t top = SIZE_MAX;

		if (m->pred < thr)
			continue;
		out->tail++;
		for (k = 0; k < b->n_wc; k++)
			b->wc[k].ex = 0;
		for (k = 0; k < m->n_ent; k++) {
			const struct went *e = &b->ents[m->ent + k];
			double v = (double)e->excl * ent_keep(b, e);
			int64_t ex = llround(v - b->exp[(size_t)e->role * nkeys + e->key]);
			uint32_t c = b->cat_of[e->key];
			size_t j;

			if (ex <= 0 || c == NONE)
				continue;
			for (j = 0; j < b->n_wc && !(b->wc[j].cat == c && b->wc[j].role == e->role); j++)
				;
			if (j == b->n_wc) {
				if (GROW(b->wc, b->n_wc, b->cap_wc))
					return -1;
				b->wc[j] = (struct wcause){ .cat = c, .role = e->role };
				b->n_wc++;
			}
			b->wc[j].ex += ex;
		}
		for (k = 0; k < b->n_wc; k++) {
			if (b->wc[k].ex < min_dev || b->wc[k].ex <= 0)
				continue;
			b->wc[k].total += b->wc[k].ex;
			if (top == SIZE_MAX || b->wc[k].ex > b->wc[top].ex)
				top = k;
		}
		if (top != SIZE_MAX)
			b->wc[top].main++;
	}
	for (k = 0; k < b->n_wc; k++) {
		if (!b->wc[k].total)
			continue;
		/* Ranked as the diagnosis ranks causes: by excess, then main. */
		if (best == SIZE_MAX || b->wc[k].total > b->wc[best].total ||
		    (b->wc[k].total == b->wc[best].total && b->wc[k].main > b->wc[best].main))
			best = k;
	}
	if (best != SIZE_MAX) {
		out->has_next = true;
		snprintf(out->next, sizeof(out->next), "%.255s (%s)", b->cat_names[b->wc[best].cat],
			 nsight_role_name(b->wc[best].role));
		out->next_main = b->wc[best].main;
		out->next_total = b->wc[best].total;
	}
	return 0;
}

/* capacity.h's keep: what the causes leave of @key's time in @role. */
static double cap_keep(void *arg, uint32_t key, uint8_t role)
{
	struct wb *b = arg;
	int k;

	if (key >= b->keys->n)
		return 1;
	k = kvi_of(b, key, role);
	if (k < 0)
		return -1;
	return k >= 2 ? b->kv[k - 2] : 1;
}

/* The capacity of RX group @gi over its profiled messages. */
static int group_capacity(struct wb *b, size_t gi)
{
	struct nsight_wi_group *out = &b->wi->groups[gi];
	const struct wgrp *g = &b->g[gi];
	size_t *idx = malloc((g->n ? g->n : 1) * sizeof(*idx)), i;
	int err;

	if (!idx)
		return -1;
	for (i = 0; i < g->n; i++)
		idx[i] = g->m[i].idx;
	err = nsight_capacity_run(&out->cap, b->prof->tl, b->lt, idx, g->n, b->prof->tsc_hz,
				  cap_keep, b);
	free(idx);
	out->has_cap = !err;
	return err ? -1 : 0;
}

static int run_group(struct wb *b, size_t gi, int64_t min_dev)
{
	struct nsight_wi_group *out = &b->wi->groups[gi];
	struct wgrp *g = &b->g[gi];
	size_t nkeys = b->keys->n, n_ref, i, k, n_exp = 0;
	uint32_t *exp_keys = NULL;
	int64_t *v = NULL;
	int err = -1;

	out->messages = g->n;
	if (out->dir == NSIGHT_MSG_RX && group_capacity(b, gi))
		return -1;
	if (!g->n)
		return 0;
	qsort(g->m, g->n, sizeof(*g->m), lat_cmp);
	n_ref = (g->n * 20 + 99) / 100;
	if (n_ref < NSIGHT_DX_MIN_REF)
		n_ref = g->n < NSIGHT_DX_MIN_REF ? g->n : NSIGHT_DX_MIN_REF;
	memset(b->exp, 0, NSIGHT_ROLES * nkeys * sizeof(*b->exp));
	for (i = 0; i < n_ref; i++)
		for (k = 0; k < g->m[i].n_ent; k++) {
			const struct went *e = &b->ents[g->m[i].ent + k];

			b->exp[(size_t)e->role * nkeys + e->key] += (double)e->excl / (double)n_ref;
		}
	exp_keys = malloc(NSIGHT_ROLES * nkeys * sizeof(*exp_keys) + 1);
	v = malloc(g->n * sizeof(*v));
	if (!exp_keys || !v)
		goto out;
	for (i = 0; i < NSIGHT_ROLES * nkeys; i++)
		if (b->exp[i] > 0)
			exp_keys[n_exp++] = (uint32_t)i;
	for (i = 0; i < g->n; i++)
		g->m[i].pred = predict(b, &g->m[i], nkeys, exp_keys, n_exp);
	if (out->dir == NSIGHT_MSG_RX && requeue(b, g))
		goto out;
	for (i = 0; i < g->n; i++) {
		out->changed += g->m[i].pred != g->m[i].lat;
		out->removed += g->m[i].lat - g->m[i].pred;
		b->wi->pred[g->m[i].idx] = g->m[i].pred;
		v[i] = g->m[i].lat;
	}
	qsort(v, g->n, sizeof(*v), i64_cmp);
	for (k = 0; k < NSIGHT_WI_NPCT; k++)
		out->now[k] = nsight_percentile(v, g->n, nsight_wi_pct[k]);
	out->now_max = v[g->n - 1];
	for (i = 0; i < g->n; i++)
		v[i] = g->m[i].pred;
	qsort(v, g->n, sizeof(*v), i64_cmp);
	for (k = 0; k < NSIGHT_WI_NPCT; k++)
		out->pred[k] = nsight_percentile(v, g->n, nsight_wi_pct[k]);
	out->pred_max = v[g->n - 1];
	err = next_bottleneck(b, gi, nsight_percentile(v, g->n, 90000), nkeys, min_dev);
out:
	free(exp_keys);
	free(v);
	return err;
}

int nsight_whatif_run(struct nsight_whatif *wi, const struct nsight_wi_spec *specs, size_t n_specs,
		      const struct nsight_lifetimes *lt, struct nsight_profiler *prof,
		      const struct nsight_keys *keys, const struct nsight_cats *cats,
		      int64_t min_dev, struct nsight_diag *d)
{
	struct wb b = { .wi = wi, .lt = lt, .prof = prof, .keys = keys, .cats = cats };
	size_t i, nkeys = keys->n ? keys->n : 1;
	int err;

	memset(wi, 0, sizeof(*wi));
	if (!n_specs || n_specs > NSIGHT_WI_MAX_SPECS)
		return nsight_diag_set(d, NSIGHT_E_INVAL, "%zu what-if specs (1 to %d)", n_specs,
				       NSIGHT_WI_MAX_SPECS);
	memcpy(wi->specs, specs, n_specs * sizeof(*specs));
	wi->n_specs = n_specs;
	wi->n_pred = lt->n;
	wi->pred = malloc((lt->n ? lt->n : 1) * sizeof(*wi->pred));
	b.cat_of = malloc(nkeys * sizeof(*b.cat_of));
	b.mask = calloc(nkeys, sizeof(*b.mask));
	b.kvi = calloc(NSIGHT_ROLES * nkeys, sizeof(*b.kvi));
	b.exp = malloc(NSIGHT_ROLES * nkeys * sizeof(*b.exp));
	if (!wi->pred || !b.cat_of || !b.mask || !b.kvi || !b.exp) {
		err = nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < lt->n; i++)
		wi->pred[i] = INT64_MIN;
	for (i = 0; i < nkeys; i++)
		b.cat_of[i] = NONE;
	err = gather(&b, lt, prof, d);
	for (i = 0; !err && i < wi->n; i++)
		if (run_group(&b, i, min_dev))
			err = nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
out:
	for (i = 0; i < wi->n && b.g; i++)
		free(b.g[i].m);
	free(b.g);
	for (i = 0; i < b.n_cats; i++)
		free(b.cat_names[i]);
	free(b.cat_names);
	free(b.cat_of);
	free(b.mask);
	free(b.kvi);
	free(b.exp);
	free(b.ents);
	free(b.wc);
	free(b.pc);
	return err;
}

void nsight_whatif_fini(struct nsight_whatif *wi)
{
	free(wi->groups);
	free(wi->pred);
	memset(wi, 0, sizeof(*wi));
}
