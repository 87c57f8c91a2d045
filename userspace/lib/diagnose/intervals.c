// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose/intervals.h"
#include "base/vec.h"
#include "lifetime/latency.h"

#define NONE UINT32_MAX

const uint32_t nsight_iv_pct[NSIGHT_IV_NPCT] = { 50000, 99000, 99990 };
const char *const nsight_iv_pct_name[NSIGHT_IV_NPCT] = { "p50", "p99", "p99.99" };

static const char *const kind_names[__NSIGHT_IV_KINDS] = {
	[NSIGHT_IV_IRQ] = "irq",
	[NSIGHT_IV_SOFTIRQ] = "softirq",
	[NSIGHT_IV_WORK] = "work",
	[NSIGHT_IV_FAULT] = "fault",
	[NSIGHT_IV_FUNC] = "func",
	[NSIGHT_IV_OFFCPU] = "offcpu",
	[NSIGHT_IV_SEGMENT] = "segment",
};

const char *nsight_iv_kind_name(enum nsight_iv_kind kind)
{
	return kind < __NSIGHT_IV_KINDS ? kind_names[kind] : "?";
}

/* The durations of one row while they are gathered. */
struct acc {
	uint8_t kind;
	char *name;
	int64_t *v;
	size_t n, cap;
};

/* Per timeline occurrence (indexed by its first stretch's context). */
struct occ {
	uint64_t ticks;
	uint64_t first, end;	/* first start, last end */
	uint32_t cpu;		/* of its last stretch */
	bool clip_start, clip_end;
};

/* A stretch of an application thread on a CPU. */
struct run {
	uint32_t tid;
	uint32_t occ;
};

struct ivb {
	const struct nsight_timeline *tl;
	uint64_t tsc_hz;
	struct acc *accs;
	size_t n_accs, cap_accs;
	uint32_t *acc_of_key;	/* key -> acc, NONE */
	struct occ *occ;	/* n_ctx */
	struct run *runs;
	size_t n_runs, cap_runs;
	uint64_t (*lost)[2];	/* lost_windows() */
	size_t n_lost, cap_lost;
	uint32_t *app_tids;	/* sorted, unique */
	size_t n_app;
	struct nsight_intervals *iv;
};

#define GROW NSIGHT_VEC_GROW

static int64_t ticks_ns(const struct ivb *b, uint64_t ticks)
{
	unsigned __int128 ns = (unsigned __int128)ticks * 1000000000U / b->tsc_hz;

	return ns > INT64_MAX ? INT64_MAX : (int64_t)ns;
}

/* The row of (@kind, @name), made if new; NONE when out of memory. */
static uint32_t acc_find(struct ivb *b, uint8_t kind, const char *name)
{
	struct acc *a;
	size_t i;

	for (i = b->n_accs; i-- > 0;)
		if (b->accs[i].kind == kind && !strcmp(b->accs[i].name, name))
			return (uint32_t)i;
	if (b->n_accs >= NONE - 1 || GROW(b->accs, b->n_accs, b->cap_accs))
		return NONE;
	a = &b->accs[b->n_accs];
	*a = (struct acc){ .kind = kind, .name = strdup(name) };
	if (!a->name)
		return NONE;
	return (uint32_t)b->n_accs++;
}

static int acc_push(struct ivb *b, uint32_t i, int64_t ns)
{
	struct acc *a = &b->accs[i];

	if (GROW(a->v, a->n, a->cap))
		return -1;
	a->v[a->n++] = ns;
	return 0;
}

static int tid_cmp(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, c = *(const uint32_t *)y;

	return a < c ? -1 : a > c;
}

static bool is_app_tid(const struct ivb *b, uint32_t tid)
{
	return b->n_app && bsearch(&tid, b->app_tids, b->n_app, sizeof(tid), tid_cmp);
}

/* The threads of complete messages. */
static int app_threads(struct ivb *b, const struct nsight_lifetimes *lt)
{
	size_t i, n = 0;

	b->app_tids = malloc((lt->n ? lt->n : 1) * sizeof(*b->app_tids));
	if (!b->app_tids)
		return -1;
	for (i = 0; i < lt->n; i++)
		if (lt->msgs[i].reason == NSIGHT_MSG_COMPLETE && lt->msgs[i].tid)
			b->app_tids[n++] = lt->msgs[i].tid;
	qsort(b->app_tids, n, sizeof(*b->app_tids), tid_cmp);
	for (i = 0; i < n; i++)
		if (!b->n_app || b->app_tids[b->n_app - 1] != b->app_tids[i])
			b->app_tids[b->n_app++] = b->app_tids[i];
	return 0;
}

/* Every segment's time to every occurrence on its chain of contexts. */
static void sum_occurrences(struct ivb *b)
{
	const struct nsight_timeline *tl = b->tl;
	uint32_t cpu;
	size_t i;

	for (i = 0; i < tl->n_ctx; i++)
		b->occ[i] = (struct occ){ .first = UINT64_MAX };
	for (cpu = 0; cpu < tl->nr_cpus; cpu++) {
		const struct nsight_tl_cpu *c = &tl->cpus[cpu];

		for (i = 0; i < c->n; i++) {
			uint64_t start = c->segs[i].start, end = nsight_tl_seg_end(tl, cpu, i);
			bool cs = !i || c->segs[i - 1].ctx == NSIGHT_CTX_LOST;
			bool ce = i + 1 == c->n || c->segs[i + 1].ctx == NSIGHT_CTX_LOST ||
				  (i + 1 == c->n && c->lost_after);
			uint32_t x, depth = 0;

			for (x = c->segs[i].ctx; x != NONE && x < tl->n_ctx && depth < 2 * NSIGHT_TL_DEPTH;
			     x = tl->ctx[x].parent, depth++) {
				uint32_t o = tl->ctx[x].occ;
				struct occ *oc;

				if (o >= tl->n_ctx)
					continue;
				oc = &b->occ[o];
				oc->ticks += end > start ? end - start : 0;
				if (start < oc->first) {
					oc->first = start;
					oc->clip_start = cs;
				}
				if (end >= oc->end) {
					oc->end = end;
					oc->clip_end = ce;
					oc->cpu = cpu;
				}
			}
		}
	}
}

static int iv_kind_of(uint8_t ctx_kind)
{
	switch (ctx_kind) {
	case NSIGHT_CTX_K_IRQ:
		return NSIGHT_IV_IRQ;
	case NSIGHT_CTX_K_SOFTIRQ:
		return NSIGHT_IV_SOFTIRQ;
	case NSIGHT_CTX_K_WORK:
		return NSIGHT_IV_WORK;
	case NSIGHT_CTX_K_FAULT:
		return NSIGHT_IV_FAULT;
	case NSIGHT_CTX_K_FUNC:
		return NSIGHT_IV_FUNC;
	}
	return -1;
}

/* The intervals of irqs, softirqs, work, faults and functions; app threads' stretches. */
static int occurrences(struct ivb *b)
{
	const struct nsight_timeline *tl = b->tl;
	size_t i;

	for (i = 0; i < tl->n_ctx; i++) {
		const struct nsight_ctx *x = &tl->ctx[i];
		const struct occ *oc = &b->occ[i];
		int kind;

		if (x->occ != i || oc->first == UINT64_MAX)
			continue;	/* a later stretch, or no time */
		if (x->kind == NSIGHT_CTX_K_TASK && is_app_tid(b, x->tid)) {
			if (GROW(b->runs, b->n_runs, b->cap_runs))
				return -1;
			b->runs[b->n_runs++] = (struct run){ x->tid, (uint32_t)i };
			continue;
		}
		kind = iv_kind_of(x->kind);
		if (kind < 0)
			continue;
		if (oc->clip_start || oc->clip_end) {
			b->iv->clipped++;
			continue;
		}
		if (x->key >= b->tl->keys->n)
			continue;
		if (b->acc_of_key[x->key] == NONE) {
			b->acc_of_key[x->key] = acc_find(b, (uint8_t)kind,
							 nsight_key_name(b->tl->keys, x->key));
			if (b->acc_of_key[x->key] == NONE)
				return -1;
		}
		if (acc_push(b, b->acc_of_key[x->key], ticks_ns(b, oc->ticks)))
			return -1;
	}
	return 0;
}

static int run_cmp(const void *x, const void *y, void *arg)
{
	const struct run *a = x, *c = y;
	const struct occ *occ = arg;

	if (a->tid != c->tid)
		return a->tid < c->tid ? -1 : 1;
	if (occ[a->occ].first != occ[c->occ].first)
		return occ[a->occ].first < occ[c->occ].first ? -1 : 1;
	return a->occ < c->occ ? -1 : a->occ > c->occ;
}

/* The windows where a CPU lost records: [from, to]. */
static int lost_windows(struct ivb *b)
{
	const struct nsight_timeline *tl = b->tl;
	uint32_t cpu;
	size_t i;

	for (cpu = 0; cpu < tl->nr_cpus; cpu++) {
		const struct nsight_tl_cpu *c = &tl->cpus[cpu];

		for (i = 0; i < c->n; i++) {
			if (c->segs[i].ctx != NSIGHT_CTX_LOST)
				continue;
			if (GROW(b->lost, b->n_lost, b->cap_lost))
				return -1;
			b->lost[b->n_lost][0] = c->segs[i].start;
			b->lost[b->n_lost++][1] = nsight_tl_seg_end(tl, cpu, i);
		}
		if (c->any && c->lost_after) {
			if (GROW(b->lost, b->n_lost, b->cap_lost))
				return -1;
			b->lost[b->n_lost][0] = c->last;
			b->lost[b->n_lost++][1] = UINT64_MAX;
		}
	}
	return 0;
}

/* Whether any CPU lost records within [@from, @to]. */
static bool lost_within(const struct ivb *b, uint64_t from, uint64_t to)
{
	size_t i;

	for (i = 0; i < b->n_lost; i++)
		if (b->lost[i][0] <= to && b->lost[i][1] >= from)
			return true;
	return false;
}

/* The name of a thread's off-CPU row: "server[100] tid 101". */
static const char *thread_name(const struct nsight_lifetimes *lt, uint32_t tid, char *buf,
			       size_t len)
{
	size_t i;

	for (i = 0; i < lt->n; i++) {
		const struct nsight_msg *m = &lt->msgs[i];

		if (m->reason == NSIGHT_MSG_COMPLETE && m->tid == tid) {
			snprintf(buf, len, "%.16s[%" PRIu32 "] tid %" PRIu32,
				 m->comm[0] ? m->comm : "?", m->pid, tid);
			return buf;
		}
	}
	snprintf(buf, len, "? tid %" PRIu32, tid);
	return buf;
}

/* The gaps between consecutive stretches of each application thread. */
static int offcpu(struct ivb *b, const struct nsight_lifetimes *lt)
{
	uint32_t row = NONE, row_tid = NONE;
	char name[64];
	size_t i;

	if (b->n_runs)
		qsort_r(b->runs, b->n_runs, sizeof(*b->runs), run_cmp, b->occ);
	for (i = 1; i < b->n_runs; i++) {
		const struct occ *p = &b->occ[b->runs[i - 1].occ], *q = &b->occ[b->runs[i].occ];
		uint32_t tid = b->runs[i].tid;

		if (b->runs[i - 1].tid != tid || q->first < p->end)
			continue;
		if (p->clip_end || q->clip_start || lost_within(b, p->end, q->first)) {
			b->iv->clipped++;
			continue;
		}
		if (tid != row_tid) {
			row = acc_find(b, NSIGHT_IV_OFFCPU, thread_name(lt, tid, name, sizeof(name)));
			if (row == NONE)
				return -1;
			row_tid = tid;
		}
		if (acc_push(b, row, ticks_ns(b, q->first - p->end)))
			return -1;
	}
	return 0;
}

/* Each stage of the complete messages, per application and direction. */
static int segments(struct ivb *b, const struct nsight_lifetimes *lt)
{
	char name[96], last[96] = "";
	uint32_t row = NONE;
	size_t i;
	unsigned int s;

	for (i = 0; i < lt->n; i++) {
		const struct nsight_msg *m = &lt->msgs[i];

		if (m->reason != NSIGHT_MSG_COMPLETE)
			continue;
		for (s = 0; s + 1 < nsight_msg_n_stages(m->dir); s++) {
			if (!m->t[s].valid || !m->t[s].timed || !m->t[s + 1].valid ||
			    !m->t[s + 1].timed)
				continue;
			snprintf(name, sizeof(name), "%.16s[%" PRIu32 "] %s %s->%s",
				 m->comm[0] ? m->comm : "?", m->pid,
				 nsight_msg_dir_name(m->dir), nsight_msg_stage_name(m->dir, s),
				 nsight_msg_stage_name(m->dir, s + 1));
			if (row == NONE || strcmp(name, last)) {
				row = acc_find(b, NSIGHT_IV_SEGMENT, name);
				if (row == NONE)
					return -1;
				snprintf(last, sizeof(last), "%s", name);
			}
			if (acc_push(b, row, m->seg_ns[s]))
				return -1;
		}
	}
	return 0;
}

static int i64_cmp(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, c = *(const int64_t *)y;

	return a < c ? -1 : a > c;
}

static int row_cmp(const void *x, const void *y)
{
	const struct nsight_iv_row *a = x, *c = y;
	int k;

	for (k = NSIGHT_IV_NPCT - 1; k >= 0; k--)
		if (a->pct[k] != c->pct[k])
			return a->pct[k] > c->pct[k] ? -1 : 1;
	if (a->max != c->max)
		return a->max > c->max ? -1 : 1;
	if (a->count != c->count)
		return a->count > c->count ? -1 : 1;
	if (a->kind != c->kind)
		return a->kind < c->kind ? -1 : 1;
	return strcmp(a->name, c->name);
}

/* The rows from the gathered durations; the names move to them. */
static int make_rows(struct ivb *b)
{
	struct nsight_intervals *iv = b->iv;
	size_t i;
	int k;

	iv->rows = calloc(b->n_accs ? b->n_accs : 1, sizeof(*iv->rows));
	if (!iv->rows)
		return -1;
	for (i = 0; i < b->n_accs; i++) {
		struct acc *a = &b->accs[i];
		struct nsight_iv_row *r;

		if (!a->n)
			continue;
		r = &iv->rows[iv->n++];
		qsort(a->v, a->n, sizeof(*a->v), i64_cmp);
		r->kind = a->kind;
		r->name = a->name;
		a->name = NULL;
		r->count = a->n;
		for (k = 0; k < NSIGHT_IV_NPCT; k++)
			r->pct[k] = nsight_percentile(a->v, a->n, nsight_iv_pct[k]);
		r->max = a->v[a->n - 1];
		iv->intervals += a->n;
	}
	qsort(iv->rows, iv->n, sizeof(*iv->rows), row_cmp);
	return 0;
}

int nsight_intervals_build(struct nsight_intervals *iv, const struct nsight_timeline *tl,
			   const struct nsight_lifetimes *lt, uint64_t tsc_hz,
			   struct nsight_diag *d)
{
	struct ivb b = { .tl = tl, .tsc_hz = tsc_hz, .iv = iv };
	int err = -1;
	size_t i;

	memset(iv, 0, sizeof(*iv));
	if (!tsc_hz || !tl->finished)
		return nsight_diag_set(d, NSIGHT_E_INVAL, "no TSC rate or no timeline for intervals");
	b.occ = malloc((tl->n_ctx ? tl->n_ctx : 1) * sizeof(*b.occ));
	b.acc_of_key = malloc((tl->keys->n ? tl->keys->n : 1) * sizeof(*b.acc_of_key));
	if (!b.occ || !b.acc_of_key || app_threads(&b, lt))
		goto out;
	for (i = 0; i < tl->keys->n; i++)
		b.acc_of_key[i] = NONE;
	sum_occurrences(&b);
	if (!lost_windows(&b) && !occurrences(&b) && !offcpu(&b, lt) && !segments(&b, lt))
		err = make_rows(&b);
out:
	for (i = 0; i < b.n_accs; i++) {
		free(b.accs[i].name);
		free(b.accs[i].v);
	}
	free(b.accs);
	free(b.acc_of_key);
	free(b.occ);
	free(b.runs);
	free(b.lost);
	free(b.app_tids);
	if (err)
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	return 0;
}

void nsight_intervals_fini(struct nsight_intervals *iv)
{
	size_t i;

	for (i = 0; i < iv->n; i++)
		free(iv->rows[i].name);
	free(iv->rows);
	memset(iv, 0, sizeof(*iv));
}
