// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>

#include "diagnose/diagnose.h"
#include "base/satmath.h"
#include "base/sort.h"
#include "base/u64map.h"
#include "base/vec.h"
#include "lifetime/latency.h"

void nsight_dx_opts_default(struct nsight_dx_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->ref_lo = 0;
	o->ref_hi = 20000;
	o->tail = 90000;
	o->tail_hi = 100000;
	o->min_dev = 1000;
	o->nested = 80000;
}

const char *nsight_dx_reason_name(enum nsight_dx_reason r)
{
	static const char *const names[__NSIGHT_DX_REASONS] = {
		[NSIGHT_DX_UNEXPECTED]		= "unexpected",
		[NSIGHT_DX_IDLE]		= "idle",
		[NSIGHT_DX_NO_RECORDS]		= "no_records",
		[NSIGHT_DX_SLOWER]		= "slower",
		[NSIGHT_DX_MORE_FREQUENT]	= "more_frequent",
		[NSIGHT_DX_HOL]			= "hol",
		[NSIGHT_DX_INTERFERENCE]	= "interference",
		[NSIGHT_DX_BLOCKED]		= "blocked",
		[NSIGHT_DX_TCP_HELD]		= "tcp_held",
	};

	return (unsigned int)r < __NSIGHT_DX_REASONS ? names[r] : "?";
}

double nsight_dx_cause_share(const struct nsight_dx_group *g, const struct nsight_dx_cause *c)
{
	return g->tail_excess > 0 ? (double)c->total / (double)g->tail_excess : 0;
}

double nsight_dx_cause_main_share(const struct nsight_dx_group *g,
				  const struct nsight_dx_cause *c)
{
	return g->n_msgs ? (double)c->main / (double)g->n_msgs : 0;
}

const char *nsight_role_name(uint8_t role)
{
	return role == NSIGHT_ROLE_R ? "R" : "A";
}

double nsight_percentile_f(const double *sorted, size_t n, uint32_t per100k)
{
	unsigned __int128 r = ((unsigned __int128)per100k * n + 99999) / 100000;
	size_t rank = r < 1 ? 1 : r > n ? n : (size_t)r;

	return sorted[rank - 1];
}

/* Nearest integer, halves away from zero (no libm). */
static int64_t round_i64(double x)
{
	if (x >= (double)INT64_MAX)
		return INT64_MAX;
	if (x <= (double)INT64_MIN)
		return INT64_MIN;
	return (int64_t)(x + (x >= 0 ? 0.5 : -0.5));
}

static void group_free(struct nsight_dx_group *g)
{
	size_t i;

	for (i = 0; i < g->n_causes; i++)
		free(g->causes[i].category);
	free(g->causes);
	free(g->msgs);
	free(g->anoms);
	free(g->mcs);
}

void nsight_dx_fini(struct nsight_dx *dx)
{
	size_t i;

	for (i = 0; i < dx->n; i++)
		group_free(&dx->groups[i]);
	free(dx->groups);
	memset(dx, 0, sizeof(*dx));
}

/* ---------------------------------------------------------------------- */
/* Groups                                                                   */

struct sorter {
	const struct nsight_msg *msgs;
	bool by_pid;		/* baseline runs ignore the pid */
};

/* The group order: comm, then pid (unless the sorter ignores it), then direction. */
static int cmp_group(const struct sorter *s, const struct nsight_msg *x, const struct nsight_msg *y)
{
	int c = strncmp(x->comm, y->comm, sizeof(x->comm));

	if (c)
		return c;
	if (s->by_pid && x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->dir != y->dir)
		return x->dir < y->dir ? -1 : 1;
	return 0;
}

/* Groups by number, each given by one message of it. */
struct rep_sorter {
	const struct sorter *s;
	const size_t *reps;
};

static int cmp_rep(const void *a, const void *b, void *arg)
{
	const struct rep_sorter *r = arg;
	const struct nsight_msg *msgs = r->s->msgs;

	return cmp_group(r->s, &msgs[r->reps[*(const uint32_t *)a]],
			 &msgs[r->reps[*(const uint32_t *)b]]);
}

static uint64_t group_hash(const struct sorter *s, const struct nsight_msg *m)
{
	uint32_t pid = s->by_pid ? m->pid : 0;
	uint64_t h = nsight_fnv1a(NSIGHT_FNV_SEED, m->comm, strnlen(m->comm, sizeof(m->comm)));

	h = nsight_fnv1a(h, &pid, sizeof(pid));
	return nsight_fnv1a(h, &m->dir, sizeof(m->dir));
}

/*
 * The group of @msgs[i] among @reps[0..*n) (a message of each group seen),
 * added when new; UINT32_MAX without memory. By hash, checked against the
 * group's message (a collision falls back to a look at every group).
 */
static uint32_t group_of(const struct sorter *s, struct nsight_u64map *by_hash, size_t *reps,
			 size_t *n, size_t i)
{
	const struct nsight_msg *m = &s->msgs[i];
	uint32_t *slot;
	size_t g;
	bool added;

	slot = nsight_u64map_put(by_hash, group_hash(s, m), (uint32_t)*n, &added);
	if (!slot)
		return UINT32_MAX;
	if (!added && !cmp_group(s, &s->msgs[reps[*slot]], m))
		return *slot;
	if (!added) {
		for (g = 0; g < *n; g++)
			if (!cmp_group(s, &s->msgs[reps[g]], m))
				return (uint32_t)g;
	}
	reps[*n] = i;
	return (uint32_t)(*n)++;
}

/*
 * Complete messages of @lt sorted into runs of one group, by latency: the
 * groups ranked once, then a sort on plain keys (no string compared per
 * comparison).
 */
static size_t *sorted_complete(const struct nsight_lifetimes *lt, bool by_pid, size_t *n)
{
	struct sorter s = { lt->msgs, by_pid };
	size_t *idx = malloc((lt->n ? lt->n : 1) * sizeof(*idx)), i, n_reps = 0;
	size_t *reps = malloc((lt->n ? lt->n : 1) * sizeof(*reps));
	uint32_t *rank = malloc((lt->n ? lt->n : 1) * sizeof(*rank));
	struct nsight_sort_rec *k = malloc((lt->n ? lt->n : 1) * sizeof(*k));
	struct nsight_u64map by_hash;
	bool ok = idx && reps && rank && k;

	nsight_u64map_init(&by_hash);
	*n = 0;
	for (i = 0; ok && i < lt->n; i++) {
		const struct nsight_msg *m = &lt->msgs[i];
		uint32_t g;

		if (m->reason != NSIGHT_MSG_COMPLETE)
			continue;
		g = group_of(&s, &by_hash, reps, &n_reps, i);
		ok = g != UINT32_MAX;
		/* By group, latency (its sign bit flipped) and id: a total order. */
		k[(*n)++] = (struct nsight_sort_rec){
			{ g, (uint64_t)m->total_ns ^ (1ULL << 63), m->id }, i };
	}
	if (ok) {
		/* The groups in order: rank[g] is group g's place. */
		struct rep_sorter rs = { &s, reps };
		uint32_t *order = malloc((n_reps ? n_reps : 1) * sizeof(*order));

		ok = order;
		for (i = 0; ok && i < n_reps; i++)
			order[i] = (uint32_t)i;
		if (ok)
			nsight_sort_r(order, n_reps, sizeof(*order), cmp_rep, &rs);
		for (i = 0; ok && i < n_reps; i++)
			rank[order[i]] = (uint32_t)i;
		free(order);
	}
	if (ok) {
		for (i = 0; i < *n; i++)
			k[i].key[0] = rank[k[i].key[0]];
		nsight_sort_recs(k, *n);
		for (i = 0; i < *n; i++)
			idx[i] = (size_t)k[i].val;
	}
	nsight_u64map_fini(&by_hash);
	free(reps);
	free(rank);
	free(k);
	if (!ok) {
		free(idx);
		return NULL;
	}
	return idx;
}

static bool same_group(const struct nsight_msg *x, const struct nsight_msg *y, bool by_pid)
{
	return !strncmp(x->comm, y->comm, sizeof(x->comm)) && x->dir == y->dir &&
	       (!by_pid || x->pid == y->pid);
}

/* The slice [*lo, *hi) of @n messages by rank; at least NSIGHT_DX_MIN_REF. */
static void slice(const struct nsight_dx_opts *o, size_t n, size_t *lo, size_t *hi)
{
	unsigned __int128 l = (unsigned __int128)o->ref_lo * n / 100000;
	unsigned __int128 h = ((unsigned __int128)o->ref_hi * n + 99999) / 100000;

	*lo = (size_t)(l < n ? l : n);
	*hi = (size_t)(h < n ? h : n);
	if (*hi - *lo < NSIGHT_DX_MIN_REF) {
		*hi = *lo + NSIGHT_DX_MIN_REF < n ? *lo + NSIGHT_DX_MIN_REF : n;
		if (*hi - *lo < NSIGHT_DX_MIN_REF)
			*lo = *hi > NSIGHT_DX_MIN_REF ? *hi - NSIGHT_DX_MIN_REF : 0;
	}
}

/* ---------------------------------------------------------------------- */
/* Reference statistics                                                     */

struct ref_stat {
	uint64_t sum;		/* ns */
	uint64_t present;
	uint64_t count;
};

struct nsight_dx_ref {
	struct nsight_u64map map;	/* role << 32 | key -> stat */
	struct ref_stat *v;
	size_t n, cap;
	size_t n_msgs;
};

static uint64_t rk(uint8_t role, uint32_t key)
{
	return (uint64_t)role << 32 | key;
}

static int ref_add(struct nsight_dx_ref *r, const struct nsight_profile *pr)
{
	size_t i;

	for (i = 0; i < pr->n; i++) {
		const struct nsight_prof_ent *e = &pr->v[i];
		uint32_t *slot;
		bool added;

		slot = nsight_u64map_put(&r->map, rk(e->role, e->key), (uint32_t)r->n, &added);
		if (!slot)
			return -1;
		if (added) {
			if (r->n == r->cap) {
				size_t cap = r->cap ? r->cap * 2 : 64;
				struct ref_stat *v = realloc(r->v, cap * sizeof(*v));

				if (!v)
					return -1;
				r->v = v;
				r->cap = cap;
			}
			r->v[r->n++] = (struct ref_stat){ 0 };
		}
		r->v[*slot].sum += (uint64_t)(e->incl > 0 ? e->incl : 0);
		r->v[*slot].present++;
		r->v[*slot].count += e->count;
	}
	r->n_msgs++;
	return 0;
}

static const struct ref_stat *ref_get(const struct nsight_dx_ref *r, uint8_t role, uint32_t key)
{
	uint32_t *slot = nsight_u64map_get(&r->map, rk(role, key));

	return slot ? &r->v[*slot] : NULL;
}

static void ref_fini(struct nsight_dx_ref *r)
{
	nsight_u64map_fini(&r->map);
	free(r->v);
	memset(r, 0, sizeof(*r));
}

/* ---------------------------------------------------------------------- */
/* One tail message                                                         */

struct nsight_dx_run_state {
	struct nsight_dx *dx;
	const struct nsight_dx_input *in;
	const struct nsight_keys *keys;
	const struct nsight_cats *cats;
	const bool *app_task;		/* per key: a task of an application */
	struct nsight_profile pr;
	struct nsight_dx_ref ref;
	const struct nsight_dx_ref *use_ref;	/* the reference tail_msg() compares with */
	/* The nesting pass. */
	struct nsight_u64map anom_of;	/* role << 32 | key -> anomaly (in the group) */
	size_t anom_base;
	struct nsight_u64map pair_of;	/* parent << 32 | child -> pair */
	struct pair {
		uint32_t parent, child;	/* anomaly offsets from anom_base */
		uint64_t ticks;
	} *pairs;
	size_t n_pairs, cap_pairs;
	/*
	 * Each key's category, matched once: a rule file's patterns are
	 * tried in turn with fnmatch(), for every anomaly of every message.
	 */
	struct nsight_u64map cat_of;	/* key -> index in cat_names */
	char **cat_names;
	size_t n_cat_names, cap_cat_names;
	struct nsight_diag *d;
};

static int nomem(struct nsight_dx_run_state *r)
{
	return nsight_diag_set(r->d, NSIGHT_E_NOMEM, "out of memory");
}

static int push_anom(struct nsight_dx_group *g, const struct nsight_dx_anomaly *a)
{
	if (g->n_anoms == g->cap_anoms) {
		size_t cap = g->cap_anoms ? g->cap_anoms * 2 : 64;
		struct nsight_dx_anomaly *v = realloc(g->anoms, cap * sizeof(*v));

		if (!v)
			return -1;
		g->anoms = v;
		g->cap_anoms = cap;
	}
	g->anoms[g->n_anoms++] = *a;
	return 0;
}

static void classify(const struct nsight_dx_run_state *r, struct nsight_dx_anomaly *a)
{
	enum nsight_key_kind kind = nsight_key_kind(r->keys, a->key);

	switch (kind) {
	case NSIGHT_KEY_IDLE:
		a->phase = 2;
		a->reason = NSIGHT_DX_IDLE;
		return;
	case NSIGHT_KEY_UNKNOWN:
		a->phase = 2;
		a->reason = NSIGHT_DX_NO_RECORDS;
		return;
	case NSIGHT_KEY_HOL:
		a->phase = 4;
		a->reason = NSIGHT_DX_HOL;
		return;
	case NSIGHT_KEY_BLOCKED:
		a->phase = 4;
		a->reason = NSIGHT_DX_BLOCKED;
		return;
	case NSIGHT_KEY_TCP:
		a->phase = 4;
		a->reason = NSIGHT_DX_TCP_HELD;
		return;
	default:
		break;
	}
	if (kind == NSIGHT_KEY_TASK && a->key < r->keys->n && r->app_task[a->key]) {
		a->phase = 4;
		a->reason = NSIGHT_DX_INTERFERENCE;
	} else if (a->presence < 0.5) {
		a->phase = 1;
		a->reason = NSIGHT_DX_UNEXPECTED;
	} else {
		a->phase = 3;
		a->reason = a->count > a->expected_count + 0.5 ? NSIGHT_DX_MORE_FREQUENT
							       : NSIGHT_DX_SLOWER;
	}
}

/* The nesting pass: for each piece, nearest anomalous ancestor of each anomaly. */
static int on_nest(void *arg, const struct nsight_piece *pc)
{
	struct nsight_dx_run_state *r = arg;
	uint32_t chain[NSIGHT_TL_DEPTH];
	size_t n = 0, i;

	for (i = 0; i < pc->depth; i++) {
		uint32_t *a = nsight_u64map_get(&r->anom_of, rk(pc->role, pc->key[i]));

		if (a)
			chain[n++] = *a;
	}
	for (i = 0; i + 1 < n; i++) {
		uint64_t pk = (uint64_t)chain[i + 1] << 32 | chain[i];
		uint32_t *slot;
		bool added;

		slot = nsight_u64map_put(&r->pair_of, pk, (uint32_t)r->n_pairs, &added);
		if (!slot)
			return -NSIGHT_E_NOMEM;
		if (added) {
			if (r->n_pairs == r->cap_pairs) {
				size_t cap = r->cap_pairs ? r->cap_pairs * 2 : 16;
				struct pair *v = realloc(r->pairs, cap * sizeof(*v));

				if (!v)
					return -NSIGHT_E_NOMEM;
				r->pairs = v;
				r->cap_pairs = cap;
			}
			r->pairs[r->n_pairs++] = (struct pair){ chain[i + 1], chain[i], 0 };
		}
		r->pairs[*slot].ticks += pc->ticks;
	}
	return 0;
}

static int add_mcause(struct nsight_dx_group *g, uint32_t cause, int64_t dev)
{
	if (g->n_mcs == g->cap_mcs) {
		size_t cap = g->cap_mcs ? g->cap_mcs * 2 : 64;
		struct nsight_dx_mcause *v = realloc(g->mcs, cap * sizeof(*v));

		if (!v)
			return -1;
		g->mcs = v;
		g->cap_mcs = cap;
	}
	g->mcs[g->n_mcs++] = (struct nsight_dx_mcause){ cause, dev };
	return 0;
}

/* The group's cause (@category, @role), made if new; NONE when out of memory. */
/* @key's category (see struct nsight_dx_run_state), or NULL without memory. */
static const char *category_of(struct nsight_dx_run_state *r, uint32_t key)
{
	uint32_t *slot = nsight_u64map_get(&r->cat_of, key);
	char cat[256], *copy;
	bool added;

	if (slot)
		return r->cat_names[*slot];
	nsight_cats_name(r->cats, nsight_key_kind(r->keys, key), nsight_key_name(r->keys, key),
			 cat, sizeof(cat));
	if (NSIGHT_VEC_GROW(r->cat_names, r->n_cat_names, r->cap_cat_names))
		return NULL;
	copy = strdup(cat);
	if (!copy)
		return NULL;
	if (!nsight_u64map_put(&r->cat_of, key, (uint32_t)r->n_cat_names, &added)) {
		free(copy);
		return NULL;
	}
	r->cat_names[r->n_cat_names++] = copy;
	return copy;
}

static uint32_t cause_of(struct nsight_dx_group *g, const char *category, uint8_t role)
{
	size_t i;

	for (i = 0; i < g->n_causes; i++)
		if (g->causes[i].role == role && !strcmp(g->causes[i].category, category))
			return (uint32_t)i;
	if (g->n_causes == g->cap_causes) {
		size_t cap = g->cap_causes ? g->cap_causes * 2 : 16;
		struct nsight_dx_cause *v = realloc(g->causes, cap * sizeof(*v));

		if (!v)
			return UINT32_MAX;
		g->causes = v;
		g->cap_causes = cap;
	}
	g->causes[g->n_causes] = (struct nsight_dx_cause){ .category = strdup(category), .role = role };
	if (!g->causes[g->n_causes].category)
		return UINT32_MAX;
	return (uint32_t)g->n_causes++;
}

/*
 * A message explains at most its deviation. The keys whose time grew are
 * anomalies and those whose time shrank are not (the idle time a
 * competitor took, the app time of a message cut short), so the reported
 * deviations of @n anomalies, @sum in all, can pass the message's
 * @deviation: scale each down by the same factor, so that coverage is at
 * most 100% and no cause is credited with latency the message did not
 * have. A message no slower than the reference's median has no causes.
 */
static void cap_to_deviation(struct nsight_dx_anomaly *a, size_t n, int64_t sum,
			     int64_t deviation)
{
	uint64_t dev = deviation > 0 ? (uint64_t)deviation : 0;
	size_t i;

	if (sum <= 0 || (uint64_t)sum <= dev)
		return;
	for (i = 0; i < n; i++) {
		if (!a[i].reported)
			continue;
		/* Rounded down: the scaled parts never add up past @dev. */
		a[i].reported_dev = (int64_t)nsight_mul_div_u64((uint64_t)a[i].reported_dev, dev,
								(uint64_t)sum);
		a[i].capped = true;
		if (!a[i].reported_dev)
			a[i].reported = false;
	}
}

static int attribute(struct nsight_dx_run_state *r, struct nsight_dx_group *g,
		     struct nsight_dx_msg *dm, const struct nsight_msg *m)
{
	const struct nsight_dx_opts *o = &r->dx->opts;
	size_t n = dm->n_anom, i, j;
	int64_t sum = 0;
	int ret;

	if (n > 1) {
		nsight_u64map_fini(&r->anom_of);
		nsight_u64map_fini(&r->pair_of);
		r->n_pairs = 0;
		for (i = 0; i < n; i++) {
			const struct nsight_dx_anomaly *a = &g->anoms[dm->anom + i];
			bool added;

			if (!nsight_u64map_put(&r->anom_of, rk(a->role, a->key), (uint32_t)i, &added))
				return nomem(r);
		}
		ret = nsight_profile_walk(r->in->prof, m, on_nest, r);
		if (ret)
			return ret == -NSIGHT_E_NOMEM ? nomem(r) :
			       nsight_diag_set(r->d, NSIGHT_E_INVAL, "message changed");
		/* A child explains the share of its deviation spent in the parent. */
		for (j = 0; j < r->n_pairs; j++) {
			const struct pair *p = &r->pairs[j];
			struct nsight_dx_anomaly *pa = &g->anoms[dm->anom + p->parent];
			const struct nsight_dx_anomaly *ca = &g->anoms[dm->anom + p->child];
			int64_t inside = nsight_profiler_ns(r->in->prof, p->ticks);
			double share = ca->value > 0 ? (double)inside / (double)ca->value : 0;

			if (share > 1)
				share = 1;
			pa->explained += round_i64((double)ca->dev * share);
		}
	}

	for (i = 0; i < n; i++) {
		struct nsight_dx_anomaly *a = &g->anoms[dm->anom + i];

		/* Nothing nested explains it: reported whatever the threshold. */
		a->reported = a->explained <= 0 ||
			      (unsigned __int128)a->explained * 100000 <
			      (unsigned __int128)a->dev * o->nested;
		a->reported_dev = a->dev - (a->explained > 0 ? a->explained : 0);
		if (a->reported_dev <= 0 || a->reported_dev < o->min_dev)
			a->reported = false;
		if (!a->reported)
			a->reported_dev = 0;
		sum = nsight_sat_add(sum, a->reported_dev);
	}
	if (n)
		cap_to_deviation(&g->anoms[dm->anom], n, sum, dm->deviation);

	for (i = 0; i < n; i++) {
		struct nsight_dx_anomaly *a = &g->anoms[dm->anom + i];
		const char *cat;
		uint32_t c;

		if (!a->reported)
			continue;
		cat = category_of(r, a->key);
		if (!cat)
			return nomem(r);
		c = cause_of(g, cat, a->role);
		if (c == UINT32_MAX)
			return nomem(r);
		a->cause = c;
		dm->explained = nsight_sat_add(dm->explained, a->reported_dev);
		/* Merge with the message's cause of the same category and role. */
		for (j = dm->mc; j < g->n_mcs && g->mcs[j].cause != c; j++)
			;
		if (j < g->n_mcs) {
			g->mcs[j].dev += a->reported_dev;
		} else {
			if (add_mcause(g, c, a->reported_dev))
				return nomem(r);
			dm->n_mc++;
		}
	}
	dm->has_coverage = dm->deviation > 0;
	if (dm->has_coverage)
		dm->coverage = (double)dm->explained / (double)dm->deviation;
	return 0;
}

static int cmp_mcause(const void *a, const void *b)
{
	const struct nsight_dx_mcause *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev > y->dev ? -1 : 1;
	return x->cause < y->cause ? -1 : x->cause > y->cause;
}

static int tail_msg(struct nsight_dx_run_state *r, struct nsight_dx_group *g, size_t mi,
		    int64_t ref_median)
{
	const struct nsight_dx_opts *o = &r->dx->opts;
	const struct nsight_msg *m = &r->in->lt->msgs[mi];
	struct nsight_dx_msg *dm = &g->msgs[g->n_msgs];
	size_t i;
	int ret;

	ret = nsight_profile_build(r->in->prof, m, &r->pr, r->d);
	if (ret)
		return ret;
	if (r->pr.lost) {
		g->skipped_tail++;
		return 0;
	}
	*dm = (struct nsight_dx_msg){
		.msg = mi, .id = m->id, .latency = m->total_ns,
		.deviation = nsight_sat_sub(m->total_ns, ref_median),
		.anom = g->n_anoms, .mc = g->n_mcs,
	};
	for (i = 0; i < NSIGHT_ROLES; i++) {
		uint64_t from, to;

		if (!nsight_msg_window(m, (uint8_t)i, &dm->cpu[i], &from, &to))
			dm->cpu[i] = UINT32_MAX;
	}
	for (i = 0; i < r->pr.n; i++) {
		const struct nsight_prof_ent *e = &r->pr.v[i];
		const struct ref_stat *s = ref_get(r->use_ref, e->role, e->key);
		double nr = (double)r->use_ref->n_msgs;
		struct nsight_dx_anomaly a = {
			.key = e->key, .role = e->role, .value = e->incl, .count = e->count,
		};

		if (s) {
			a.expected = round_i64((double)s->sum / nr);
			a.presence = (double)s->present / nr;
			a.expected_count = (double)s->count / nr;
		}
		a.dev = a.value - a.expected;
		if (a.dev <= 0 || a.dev < o->min_dev)
			continue;
		classify(r, &a);
		if (push_anom(g, &a))
			return nomem(r);
		dm->n_anom++;
	}
	ret = attribute(r, g, dm, m);
	if (ret)
		return ret;
	if (dm->n_mc > 1)
		qsort(&g->mcs[dm->mc], dm->n_mc, sizeof(*g->mcs), cmp_mcause);
	g->n_msgs++;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* A group                                                                  */

static int cmp_f(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmp_cause_idx(const void *a, const void *b, void *arg)
{
	const struct nsight_dx_group *g = arg;
	const struct nsight_dx_cause *x = &g->causes[*(const uint32_t *)a];
	const struct nsight_dx_cause *y = &g->causes[*(const uint32_t *)b];
	int c;

	/*
	 * First the causes that explain the most of the tail's excess
	 * latency: a cause adding 5 ms to 2% of the messages outranks one
	 * adding 5 us to 30%, however many messages each is the largest in.
	 */
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->main != y->main)
		return x->main > y->main ? -1 : 1;
	if (x->messages != y->messages)
		return x->messages > y->messages ? -1 : 1;
	if (x->median != y->median)
		return x->median > y->median ? -1 : 1;
	c = strcmp(x->category, y->category);
	if (c)
		return c;
	return x->role < y->role ? -1 : x->role > y->role;
}

static int cmp_mc_by_cause(const void *a, const void *b)
{
	const struct nsight_dx_mcause *x = a, *y = b;

	if (x->cause != y->cause)
		return x->cause < y->cause ? -1 : 1;
	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

/* Per cause: messages, median and max; then sort the causes. */
static int summarize(struct nsight_dx_group *g)
{
	size_t nc = g->n_causes, i, k;
	uint32_t *order = malloc((nc ? nc : 1) * sizeof(*order));
	uint32_t *rank = malloc((nc ? nc : 1) * sizeof(*rank));
	struct nsight_dx_mcause *by = malloc((g->n_mcs ? g->n_mcs : 1) * sizeof(*by));
	int64_t *devs = malloc((g->n_mcs ? g->n_mcs : 1) * sizeof(*devs));
	double *cov = malloc((g->n_msgs ? g->n_msgs : 1) * sizeof(*cov));
	struct nsight_dx_cause *sorted = malloc((nc ? nc : 1) * sizeof(*sorted));
	int err = -1;

	if (!order || !rank || !by || !devs || !cov || !sorted)
		goto out;
	/* A message has one mcause per cause: group them by cause. */
	if (g->n_mcs)
		memcpy(by, g->mcs, g->n_mcs * sizeof(*by));
	if (g->n_mcs > 1)
		qsort(by, g->n_mcs, sizeof(*by), cmp_mc_by_cause);
	for (k = 0; k < nc; k++) {
		g->causes[k].messages = 0;
		g->causes[k].main = 0;
		g->causes[k].total = 0;
		order[k] = (uint32_t)k;
	}
	/* Each message's causes are sorted by deviation: its first is its main. */
	for (i = 0; i < g->n_msgs; i++)
		if (g->msgs[i].n_mc)
			g->causes[g->mcs[g->msgs[i].mc].cause].main++;
	for (i = 0; i < g->n_mcs; ) {
		struct nsight_dx_cause *c = &g->causes[by[i].cause];
		size_t n = 0;

		for (k = i; k < g->n_mcs && by[k].cause == by[i].cause; k++) {
			devs[n++] = by[k].dev;
			c->total += by[k].dev;
		}
		c->messages = n;
		c->median = nsight_percentile(devs, n, 50000);
		c->max = devs[n - 1];
		i = k;
	}
	if (nc > 1)
		qsort_r(order, nc, sizeof(*order), cmp_cause_idx, g);
	for (k = 0; k < nc; k++) {
		rank[order[k]] = (uint32_t)k;
		sorted[k] = g->causes[order[k]];
	}
	if (nc)
		memcpy(g->causes, sorted, nc * sizeof(*sorted));
	for (i = 0; i < g->n_mcs; i++)
		g->mcs[i].cause = rank[g->mcs[i].cause];
	for (i = 0; i < g->n_anoms; i++)
		if (g->anoms[i].reported)
			g->anoms[i].cause = rank[g->anoms[i].cause];
	/* The ranks changed: order each message's causes again. */
	for (i = 0; i < g->n_msgs; i++)
		if (g->msgs[i].n_mc > 1)
			qsort(&g->mcs[g->msgs[i].mc], g->msgs[i].n_mc, sizeof(*g->mcs), cmp_mcause);

	for (i = 0; i < g->n_msgs; i++) {
		if (!g->msgs[i].has_coverage)
			continue;
		cov[g->n_cov++] = g->msgs[i].coverage;
		g->tail_excess = nsight_sat_add(g->tail_excess, g->msgs[i].deviation);
	}
	if (g->n_cov) {
		qsort(cov, g->n_cov, sizeof(*cov), cmp_f);
		g->cov_p10 = nsight_percentile_f(cov, g->n_cov, 10000);
		g->cov_p50 = nsight_percentile_f(cov, g->n_cov, 50000);
		g->cov_p90 = nsight_percentile_f(cov, g->n_cov, 90000);
	}
	err = 0;
out:
	free(order);
	free(rank);
	free(by);
	free(devs);
	free(cov);
	free(sorted);
	return err;
}

/*
 * The tail came by (latency, id) descending: equal latencies get lower ids
 * first (each run of one latency reversed; an insertion sort was quadratic
 * in the run), then the causes are summarized.
 */
static int finish_group(struct nsight_dx_group *g)
{
	size_t i;

	for (i = 0; i < g->n_msgs; ) {
		size_t e = i + 1, a, b;

		while (e < g->n_msgs && g->msgs[e].latency == g->msgs[i].latency)
			e++;
		for (a = i, b = e - 1; a < b; a++, b--) {
			struct nsight_dx_msg t = g->msgs[a];

			g->msgs[a] = g->msgs[b];
			g->msgs[b] = t;
		}
		i = e;
	}
	return summarize(g);
}

/*
 * The tail of @n latencies sorted ascending: [*first, *end), at or above
 * the tail percentile and, for a band, at or below its top; @g gets the
 * thresholds and the count.
 */
static void tail_bounds(const struct nsight_dx_opts *o, struct nsight_dx_group *g,
			const int64_t *lat, size_t n, size_t *first, size_t *end)
{
	g->tail_threshold = nsight_percentile(lat, n, o->tail);
	for (*first = n; *first > 0 && lat[*first - 1] >= g->tail_threshold; (*first)--)
		;
	*end = n;
	if (o->tail_hi < 100000) {
		g->tail_threshold_hi = nsight_percentile(lat, n, o->tail_hi);
		while (*end > *first && lat[*end - 1] > g->tail_threshold_hi)
			(*end)--;
	}
	g->tail_candidates = *end - *first;
}

/* The baseline run of @m's comm and direction, [*s, *e) in @bidx. */
static bool baseline_run(const struct nsight_dx_input *b, const size_t *bidx, size_t bn,
			 const struct nsight_msg *m, size_t *s, size_t *e)
{
	size_t lo = 0, hi = bn;

	/* Runs are ordered by comm, then direction. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct nsight_msg *x = &b->lt->msgs[bidx[mid]];
		int c = strncmp(x->comm, m->comm, sizeof(x->comm));

		if (c < 0 || (c == 0 && x->dir < m->dir))
			lo = mid + 1;
		else
			hi = mid;
	}
	*s = lo;
	for (*e = lo; *e < bn && same_group(&b->lt->msgs[bidx[*e]], m, false); (*e)++)
		;
	return *e > *s;
}

static int run_group(struct nsight_dx_run_state *r, struct nsight_dx_group *g, const size_t *idx,
		     size_t n, const size_t *bidx, size_t bn, const struct nsight_dx_input *base)
{
	const struct nsight_dx_opts *o = &r->dx->opts;
	const struct nsight_msg *msgs = r->in->lt->msgs;
	const struct nsight_dx_input *src = base ? base : r->in;
	const size_t *sidx = idx;
	size_t lo, hi, i, first_tail, end_tail;
	int64_t *lat = NULL, *ref_lat = NULL;
	size_t n_ref_lat = 0;
	int ret = 0;

	if (base) {
		size_t s, e;

		if (!baseline_run(base, bidx, bn, &msgs[idx[0]], &s, &e)) {
			g->no_baseline = true;
			return 0;
		}
		sidx = bidx + s;
		slice(o, e - s, &lo, &hi);
	} else {
		slice(o, n, &lo, &hi);
	}
	g->ref_candidates = hi - lo;

	lat = malloc(n * sizeof(*lat));
	ref_lat = malloc((hi - lo ? hi - lo : 1) * sizeof(*ref_lat));
	if (!lat || !ref_lat) {
		ret = nomem(r);
		goto out;
	}
	/* The reference, profiled in its own capture. */
	for (i = lo; i < hi; i++) {
		const struct nsight_msg *m = &src->lt->msgs[sidx[i]];

		ret = nsight_profile_build(src->prof, m, &r->pr, r->d);
		if (ret)
			goto out;
		if (r->pr.lost) {
			g->skipped_ref++;
			continue;
		}
		if (ref_add(&r->ref, &r->pr)) {
			ret = nomem(r);
			goto out;
		}
		ref_lat[n_ref_lat++] = m->total_ns;
	}
	g->n_ref = n_ref_lat;
	if (!n_ref_lat)
		goto out;
	g->ref_median = nsight_percentile(ref_lat, n_ref_lat, 50000);
	g->ref_min = ref_lat[0];
	g->ref_max = ref_lat[n_ref_lat - 1];

	/* The tail: at or above the percentile, slowest first. */
	for (i = 0; i < n; i++)
		lat[i] = msgs[idx[i]].total_ns;
	tail_bounds(o, g, lat, n, &first_tail, &end_tail);
	g->msgs = calloc(g->tail_candidates ? g->tail_candidates : 1, sizeof(*g->msgs));
	if (!g->msgs) {
		ret = nomem(r);
		goto out;
	}
	r->use_ref = &r->ref;
	for (i = end_tail; i > first_tail; i--) {
		ret = tail_msg(r, g, idx[i - 1], g->ref_median);
		if (ret)
			goto out;
	}
	if (finish_group(g))
		ret = nomem(r);
out:
	free(lat);
	free(ref_lat);
	ref_fini(&r->ref);
	return ret;
}

/* The task key of application @comm (a message's, 16 bytes) in @app_task. */
static void mark_app(const struct nsight_keys *keys, bool *app_task, const char *comm)
{
	char c[17];
	uint32_t k;

	memcpy(c, comm, 16);
	c[16] = '\0';
	k = nsight_keys_find(keys, NSIGHT_KEY_TASK, c);
	if (k != NSIGHT_KEY_NONE)
		app_task[k] = true;
}

static void run_state_fini(struct nsight_dx_run_state *r)
{
	size_t i;

	nsight_profile_fini(&r->pr);
	nsight_u64map_fini(&r->anom_of);
	nsight_u64map_fini(&r->pair_of);
	free(r->pairs);
	nsight_u64map_fini(&r->cat_of);
	for (i = 0; i < r->n_cat_names; i++)
		free(r->cat_names[i]);
	free(r->cat_names);
	memset(r, 0, sizeof(*r));
}

int nsight_dx_run(struct nsight_dx *dx, const struct nsight_dx_input *in,
		  const struct nsight_dx_input *baseline, const struct nsight_keys *keys,
		  const struct nsight_cats *cats, const struct nsight_dx_opts *o,
		  struct nsight_diag *d)
{
	struct nsight_dx_run_state r = { .dx = dx, .in = in, .keys = keys, .cats = cats, .d = d };
	size_t *idx = NULL, *bidx = NULL, n = 0, bn = 0, i, s;
	bool *app_task = NULL;
	int ret = 0;

	memset(dx, 0, sizeof(*dx));
	dx->opts = *o;
	dx->no_context = !in->context_records;
	if (dx->no_context)
		return 0;

	/* Tasks of applications: other messages' processing, phase 4. */
	app_task = calloc(keys->n ? keys->n : 1, sizeof(*app_task));
	idx = sorted_complete(in->lt, true, &n);
	if (baseline)
		bidx = sorted_complete(baseline->lt, false, &bn);
	dx->groups = calloc(n ? n : 1, sizeof(*dx->groups));
	if (!app_task || !idx || (baseline && !bidx) || !dx->groups) {
		ret = nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < in->lt->n; i++)
		mark_app(keys, app_task, in->lt->msgs[i].comm);
	r.app_task = app_task;
	nsight_u64map_init(&r.anom_of);
	nsight_u64map_init(&r.pair_of);

	for (s = 0; s < n && !ret; ) {
		const struct nsight_msg *m = &in->lt->msgs[idx[s]];
		struct nsight_dx_group *g = &dx->groups[dx->n++];
		size_t e = s + 1;

		while (e < n && same_group(&in->lt->msgs[idx[e]], m, true))
			e++;
		memcpy(g->comm, m->comm, sizeof(g->comm));
		g->pid = m->pid;
		g->dir = m->dir;
		g->complete = e - s;
		ret = run_group(&r, g, idx + s, e - s, bidx, bn, baseline);
		s = e;
	}
	/* Messages lost to drops, by group. */
	for (i = 0; i < in->lt->n && !ret; i++) {
		const struct nsight_msg *m = &in->lt->msgs[i];
		size_t k;

		if (m->reason != NSIGHT_MSG_DROPS)
			continue;
		for (k = 0; k < dx->n; k++)
			if (!nsight_msg_group_cmp(dx->groups[k].comm, dx->groups[k].pid,
						  dx->groups[k].dir, m->comm, m->pid, m->dir))
				break;
		if (k < dx->n)
			dx->groups[k].skipped_incomplete++;
	}
out:
	run_state_fini(&r);
	free(app_task);
	free(idx);
	free(bidx);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* The whole capture from its windows                                       */

int nsight_dxs_init(struct nsight_dxs *s, const struct nsight_dx_opts *o, struct nsight_diag *d)
{
	memset(s, 0, sizeof(*s));
	s->opts = *o;
	s->run = calloc(1, sizeof(*s->run));
	if (!s->run)
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	nsight_u64map_init(&s->run->anom_of);
	nsight_u64map_init(&s->run->pair_of);
	return 0;
}

void nsight_dxs_fini(struct nsight_dxs *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		struct nsight_dxs_group *sg = &s->groups[i];

		group_free(&sg->g);
		free(sg->keys);
		if (sg->ref) {
			ref_fini(sg->ref);
			free(sg->ref);
		}
		free(sg->ref_lat);
	}
	free(s->groups);
	free(s->apps);
	if (s->run) {
		run_state_fini(s->run);
		free(s->run);
	}
	memset(s, 0, sizeof(*s));
}

void nsight_dxs_pass(struct nsight_dxs *s)
{
	s->base[0] = s->base[1] = 0;
}

/* @m's group, or NULL (after the plan: only groups with complete messages). */
static struct nsight_dxs_group *dxs_group(struct nsight_dxs *s, const struct nsight_msg *m)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		/* Messages of one group often come together: the last one first. */
		size_t k = (s->last + i) % s->n;
		const struct nsight_dx_group *g = &s->groups[k].g;

		if (!nsight_msg_group_cmp(g->comm, g->pid, g->dir, m->comm, m->pid, m->dir)) {
			s->last = k;
			return &s->groups[k];
		}
	}
	return NULL;
}

/* The whole capture's id of window message @m. */
static uint64_t dxs_id(const struct nsight_dxs *s, const struct nsight_msg *m)
{
	return s->base[m->dir == NSIGHT_MSG_TX] + m->id;
}

static void dxs_next_window(struct nsight_dxs *s, const struct nsight_lifetimes *lt)
{
	s->base[0] += lt->n_rx;
	s->base[1] += lt->n_tx;
}

static int dxs_add_app(struct nsight_dxs *s, const char *comm)
{
	size_t i;

	for (i = 0; i < s->n_apps; i++)
		if (!strncmp(s->apps[i], comm, 16))
			return 0;
	if (NSIGHT_VEC_GROW(s->apps, s->n_apps, s->cap_apps))
		return -1;
	memcpy(s->apps[s->n_apps++], comm, 16);
	return 0;
}

int nsight_dxs_count(struct nsight_dxs *s, const struct nsight_dx_input *in, struct nsight_diag *d)
{
	const struct nsight_lifetimes *lt = in->lt;
	size_t i;

	s->context_records += in->context_records;
	for (i = 0; i < lt->n; i++) {
		const struct nsight_msg *m = &lt->msgs[i];
		struct nsight_dxs_group *sg;

		if (dxs_add_app(s, m->comm))
			goto nomem;
		if (m->reason != NSIGHT_MSG_COMPLETE && m->reason != NSIGHT_MSG_DROPS)
			continue;
		/* A group of messages lost to drops alone goes at the plan. */
		sg = dxs_group(s, m);
		if (!sg) {
			if (NSIGHT_VEC_GROW(s->groups, s->n, s->cap))
				goto nomem;
			sg = &s->groups[s->n];
			memset(sg, 0, sizeof(*sg));
			memcpy(sg->g.comm, m->comm, sizeof(sg->g.comm));
			sg->g.pid = m->pid;
			sg->g.dir = m->dir;
			s->last = s->n++;
		}
		if (m->reason == NSIGHT_MSG_DROPS) {
			sg->g.skipped_incomplete++;
			continue;
		}
		if (NSIGHT_VEC_GROW(sg->keys, sg->n_keys, sg->cap_keys))
			goto nomem;
		sg->keys[sg->n_keys++] = (struct nsight_dxs_key){ m->total_ns, dxs_id(s, m) };
	}
	dxs_next_window(s, lt);
	return 0;
nomem:
	return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
}

static int cmp_dxs_group(const void *a, const void *b)
{
	const struct nsight_dx_group *x = &((const struct nsight_dxs_group *)a)->g;
	const struct nsight_dx_group *y = &((const struct nsight_dxs_group *)b)->g;

	return nsight_msg_group_cmp(x->comm, x->pid, x->dir, y->comm, y->pid, y->dir);
}

static int cmp_dxs_key(const void *a, const void *b)
{
	const struct nsight_dxs_key *x = a, *y = b;

	if (x->latency != y->latency)
		return x->latency < y->latency ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

int nsight_dxs_plan(struct nsight_dxs *s, struct nsight_diag *d)
{
	const struct nsight_dx_opts *o = &s->opts;
	int64_t *lat = NULL;
	size_t i, k, max = 0;

	/* As nsight_dx_run(): a group for each application with complete messages. */
	for (i = k = 0; i < s->n; i++) {
		if (s->groups[i].n_keys)
			s->groups[k++] = s->groups[i];
		else
			free(s->groups[i].keys);
	}
	s->n = k;
	if (s->n > 1)
		qsort(s->groups, s->n, sizeof(*s->groups), cmp_dxs_group);
	for (i = 0; i < s->n; i++)
		if (s->groups[i].n_keys > max)
			max = s->groups[i].n_keys;
	lat = malloc((max ? max : 1) * sizeof(*lat));
	if (!lat)
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	for (i = 0; i < s->n; i++) {
		struct nsight_dxs_group *sg = &s->groups[i];
		struct nsight_dx_group *g = &sg->g;
		size_t n = sg->n_keys, lo, hi, first_tail, end_tail;

		nsight_sort(sg->keys, n, sizeof(*sg->keys), cmp_dxs_key);
		g->complete = n;
		slice(o, n, &lo, &hi);
		g->ref_candidates = hi - lo;
		sg->have_ref = hi > lo;
		if (sg->have_ref) {
			sg->ref_lo = sg->keys[lo];
			sg->ref_hi = sg->keys[hi - 1];
		}
		for (k = 0; k < n; k++)
			lat[k] = sg->keys[k].latency;
		tail_bounds(o, g, lat, n, &first_tail, &end_tail);
		/* The keys have served: the passes compare with the bounds. */
		free(sg->keys);
		sg->keys = NULL;
		sg->n_keys = sg->cap_keys = 0;
		sg->ref = calloc(1, sizeof(*sg->ref));
		g->msgs = calloc(g->tail_candidates ? g->tail_candidates : 1, sizeof(*g->msgs));
		if (!sg->ref || !g->msgs) {
			free(lat);
			return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
		}
		nsight_u64map_init(&sg->ref->map);
	}
	free(lat);
	s->last = 0;
	return 0;
}

/* Point the run state at window @in, its keys and applications. */
static int dxs_window(struct nsight_dxs *s, const struct nsight_dx_input *in,
		      const struct nsight_keys *keys, const struct nsight_cats *cats, bool **app_task,
		      struct nsight_diag *d)
{
	size_t i;

	*app_task = calloc(keys->n ? keys->n : 1, sizeof(**app_task));
	if (!*app_task)
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	for (i = 0; i < s->n_apps; i++)
		mark_app(keys, *app_task, s->apps[i]);
	s->run->dx = NULL;
	s->run->in = in;
	s->run->keys = keys;
	s->run->cats = cats;
	s->run->app_task = *app_task;
	s->run->d = d;
	return 0;
}

static bool in_ref(const struct nsight_dxs_group *sg, const struct nsight_dxs_key *k)
{
	return sg->have_ref && cmp_dxs_key(k, &sg->ref_lo) >= 0 && cmp_dxs_key(k, &sg->ref_hi) <= 0;
}

int nsight_dxs_reference(struct nsight_dxs *s, const struct nsight_dx_input *in,
			 const struct nsight_keys *keys, const struct nsight_cats *cats,
			 struct nsight_diag *d)
{
	struct nsight_dx_run_state *r = s->run;
	bool *app_task;
	size_t i;
	int ret = dxs_window(s, in, keys, cats, &app_task, d);

	for (i = 0; !ret && s->context_records && i < in->lt->n; i++) {
		const struct nsight_msg *m = &in->lt->msgs[i];
		struct nsight_dxs_key k = { m->total_ns, dxs_id(s, m) };
		struct nsight_dxs_group *sg;

		if (m->reason != NSIGHT_MSG_COMPLETE)
			continue;
		sg = dxs_group(s, m);
		if (!sg || !in_ref(sg, &k))
			continue;
		ret = nsight_profile_build(in->prof, m, &r->pr, d);
		if (ret)
			break;
		if (r->pr.lost) {
			sg->g.skipped_ref++;
			continue;
		}
		if (ref_add(sg->ref, &r->pr) ||
		    NSIGHT_VEC_GROW(sg->ref_lat, sg->g.n_ref, sg->cap_ref_lat))
			ret = nomem(r);
		else
			sg->ref_lat[sg->g.n_ref++] = m->total_ns;
	}
	dxs_next_window(s, in->lt);
	free(app_task);
	return ret;
}

int nsight_dxs_reference_done(struct nsight_dxs *s, struct nsight_diag *d)
{
	size_t i;

	(void)d;
	for (i = 0; i < s->n; i++) {
		struct nsight_dxs_group *sg = &s->groups[i];
		struct nsight_dx_group *g = &sg->g;

		if (!g->n_ref)
			continue;
		nsight_sort_i64(sg->ref_lat, g->n_ref);
		g->ref_median = nsight_percentile(sg->ref_lat, g->n_ref, 50000);
		g->ref_min = sg->ref_lat[0];
		g->ref_max = sg->ref_lat[g->n_ref - 1];
		sg->tail_ready = true;
	}
	return 0;
}

int nsight_dxs_tail(struct nsight_dxs *s, const struct nsight_dx_input *in,
		    const struct nsight_keys *keys, const struct nsight_cats *cats,
		    struct nsight_diag *d)
{
	struct nsight_dx dx = { .opts = s->opts };
	struct nsight_dx_run_state *r = s->run;
	bool *app_task;
	size_t i;
	int ret = dxs_window(s, in, keys, cats, &app_task, d);

	r->dx = &dx;
	for (i = 0; !ret && s->context_records && i < in->lt->n; i++) {
		const struct nsight_msg *m = &in->lt->msgs[i];
		struct nsight_dxs_group *sg;
		struct nsight_dx_group *g;
		size_t before;

		if (m->reason != NSIGHT_MSG_COMPLETE)
			continue;
		sg = dxs_group(s, m);
		if (!sg || !sg->tail_ready)
			continue;
		g = &sg->g;
		if (m->total_ns < g->tail_threshold ||
		    (s->opts.tail_hi < 100000 && m->total_ns > g->tail_threshold_hi))
			continue;
		if (g->n_msgs >= g->tail_candidates) {
			ret = nsight_diag_set(d, NSIGHT_E_INVAL,
					      "window diagnosis: more tail messages than counted");
			break;
		}
		before = g->n_msgs;
		r->use_ref = sg->ref;
		ret = tail_msg(r, g, i, g->ref_median);
		if (!ret && g->n_msgs > before)
			g->msgs[before].id = dxs_id(s, m);
	}
	dxs_next_window(s, in->lt);
	r->dx = NULL;
	free(app_task);
	return ret;
}

/* Processing order: (latency, id) descending, as nsight_dx_run() takes the tail. */
static int cmp_tail_desc(const void *a, const void *b)
{
	const struct nsight_dx_msg *x = a, *y = b;

	if (x->latency != y->latency)
		return x->latency > y->latency ? -1 : 1;
	return x->id > y->id ? -1 : x->id < y->id;
}

/*
 * Put @g's tail, gathered window by window, as nsight_dx_run() builds it:
 * messages in processing order, their anomalies and causes laid out in
 * that order, each cause numbered where it first appears.
 */
static int dxs_reorder(struct nsight_dx_group *g)
{
	struct nsight_dx_anomaly *anoms = malloc((g->n_anoms ? g->n_anoms : 1) * sizeof(*anoms));
	struct nsight_dx_mcause *mcs = malloc((g->n_mcs ? g->n_mcs : 1) * sizeof(*mcs));
	struct nsight_dx_cause *causes = malloc((g->n_causes ? g->n_causes : 1) * sizeof(*causes));
	uint32_t *num = malloc((g->n_causes ? g->n_causes : 1) * sizeof(*num));
	size_t i, j, na = 0, nm = 0, nc = 0;

	if (!anoms || !mcs || !causes || !num) {
		free(anoms);
		free(mcs);
		free(causes);
		free(num);
		return -1;
	}
	for (i = 0; i < g->n_causes; i++)
		num[i] = UINT32_MAX;
	if (g->n_msgs > 1)
		qsort(g->msgs, g->n_msgs, sizeof(*g->msgs), cmp_tail_desc);
	for (i = 0; i < g->n_msgs; i++) {
		struct nsight_dx_msg *dm = &g->msgs[i];

		for (j = 0; j < dm->n_anom; j++) {
			struct nsight_dx_anomaly a = g->anoms[dm->anom + j];

			if (a.reported) {
				if (num[a.cause] == UINT32_MAX) {
					causes[nc] = g->causes[a.cause];
					num[a.cause] = (uint32_t)nc++;
				}
				a.cause = num[a.cause];
			}
			anoms[na + j] = a;
		}
		for (j = 0; j < dm->n_mc; j++) {
			mcs[nm + j] = g->mcs[dm->mc + j];
			mcs[nm + j].cause = num[mcs[nm + j].cause];
		}
		dm->anom = na;
		dm->mc = nm;
		na += dm->n_anom;
		nm += dm->n_mc;
		if (dm->n_mc > 1)
			qsort(&mcs[dm->mc], dm->n_mc, sizeof(*mcs), cmp_mcause);
	}
	/* Every cause is some kept message's; one that is not would go. */
	for (i = 0; i < g->n_causes; i++)
		if (num[i] == UINT32_MAX)
			free(g->causes[i].category);
	free(g->anoms);
	free(g->mcs);
	free(g->causes);
	free(num);
	g->anoms = anoms;
	g->n_anoms = g->cap_anoms = na;
	g->mcs = mcs;
	g->n_mcs = g->cap_mcs = nm;
	g->causes = causes;
	g->cap_causes = g->n_causes;
	g->n_causes = nc;
	return 0;
}

int nsight_dxs_finish(struct nsight_dxs *s, struct nsight_dx *dx, struct nsight_diag *d)
{
	size_t i;

	memset(dx, 0, sizeof(*dx));
	dx->opts = s->opts;
	dx->no_context = !s->context_records;
	if (dx->no_context)
		return 0;
	dx->groups = calloc(s->n ? s->n : 1, sizeof(*dx->groups));
	if (!dx->groups)
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	for (i = 0; i < s->n; i++) {
		struct nsight_dx_group *g = &s->groups[i].g;

		/* As nsight_dx_run(): no profiled reference, no tail. */
		if (!g->n_ref) {
			g->tail_threshold = g->tail_threshold_hi = 0;
			g->tail_candidates = 0;
		}
		if (dxs_reorder(g) || finish_group(g))
			return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
		dx->groups[dx->n++] = *g;
		memset(g, 0, sizeof(*g));
	}
	return 0;
}
