// SPDX-License-Identifier: MIT
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose/capacity.h"
#include "base/diag.h"
#include "diagnose/diagnose.h"

/* At most this many cores take part: the application core and receive cores. */
#define MAX_CORES 16

/* A receive window [from, to) on a core. */
struct cwin {
	uint32_t cpu;
	uint64_t from, to;
};

/* One core's time in the span, in ticks: W and O, now and predicted. */
struct ccore {
	uint32_t cpu;
	uint8_t role;		/* its role: A for the application core */
	double w, o, w_pred, o_pred;
	bool lost;
};

struct cb {
	const struct nsight_timeline *tl;
	uint32_t *tids;
	size_t n_tids;
	struct cwin *win;
	size_t n_win;
	nsight_cap_keep_fn keep;
	void *arg;
	bool oom;
};

static int win_cmp(const void *x, const void *y)
{
	const struct cwin *a = x, *b = y;

	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	return a->from < b->from ? -1 : a->from > b->from;
}

static int u32_cmp(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * Whether context @ctx is the work of a receiving thread: one of its
 * tasks, or nested in one (its faults, sampled functions, and the
 * interrupts that ran on its time, its reply's softirq among them).
 */
static bool in_server(const struct cb *b, uint32_t ctx)
{
	const struct nsight_timeline *tl = b->tl;
	int depth;

	for (depth = 0; ctx != NSIGHT_TL_NONE && ctx < tl->n_ctx && depth < 4 * NSIGHT_TL_DEPTH;
	     depth++) {
		const struct nsight_ctx *x = &tl->ctx[ctx];

		if (nsight_ctx_is_gap(x->kind))
			return false;
		if (x->kind == NSIGHT_CTX_K_TASK)
			return bsearch(&x->tid, b->tids, b->n_tids, sizeof(*b->tids), u32_cmp);
		ctx = x->parent;
	}
	return false;
}

static double keep_of(struct cb *b, uint32_t key, uint8_t role)
{
	double k;

	if (!b->keep)
		return 1;
	k = b->keep(b->arg, key, role);
	if (k < 0) {
		b->oom = true;
		return 1;
	}
	return k;
}

/* Add @len ticks of key @key to W (@w) or O, now and predicted. */
static void account(struct cb *b, struct ccore *c, uint32_t key, uint8_t role, bool w,
		    uint64_t len)
{
	double k = keep_of(b, key, role);

	if (w) {
		c->w += (double)len;
		c->w_pred += (double)len * k;
	} else {
		c->o += (double)len;
		c->o_pred += (double)len * k;
	}
}

/* Walk core @c's timeline over [@lo, @hi); @app: the application core. */
static void walk_core(struct cb *b, struct ccore *c, bool app, uint64_t lo, uint64_t hi)
{
	const struct nsight_timeline *tl = b->tl;
	const struct nsight_tl_cpu *tc = &tl->cpus[c->cpu];
	size_t w = 0;
	ssize_t i;

	/* This core's receive windows, sorted and merged by the caller. */
	while (w < b->n_win && b->win[w].cpu < c->cpu)
		w++;
	i = nsight_tl_find(tl, c->cpu, lo);
	for (i = i < 0 ? 0 : i; (size_t)i < tc->n && tc->segs[i].start < hi; i++) {
		const struct nsight_seg *sg = &tc->segs[i];
		uint64_t s = sg->start > lo ? sg->start : lo;
		uint64_t e = nsight_tl_seg_end(tl, c->cpu, (size_t)i);
		uint8_t kind = tl->ctx[sg->ctx].kind;
		uint64_t in = 0;
		size_t j;

		if (e > hi)
			e = hi;
		if (e <= s)
			continue;
		if (kind == NSIGHT_CTX_K_LOST) {
			c->lost = true;
			continue;
		}
		if (nsight_ctx_is_gap(kind))
			continue;
		if (app && in_server(b, sg->ctx)) {
			account(b, c, sg->key, NSIGHT_ROLE_A, true, e - s);
			continue;
		}
		/* The part in receive windows is W (role R), the rest O. */
		while (w < b->n_win && b->win[w].cpu == c->cpu && b->win[w].to <= s)
			w++;
		for (j = w; j < b->n_win && b->win[j].cpu == c->cpu && b->win[j].from < e; j++) {
			uint64_t f = b->win[j].from > s ? b->win[j].from : s;
			uint64_t t = b->win[j].to < e ? b->win[j].to : e;

			if (t > f) {
				account(b, c, sg->key, NSIGHT_ROLE_R, true, t - f);
				in += t - f;
			}
		}
		account(b, c, sg->key, c->role, false, e - s - in);
	}
}

/* Core @c's capacity in messages per second from W, O (ticks), 0 when full. */
static double core_rate(double w, double o, double span, size_t n, uint64_t tsc_hz)
{
	double per_msg = w / (double)n / (double)tsc_hz;	/* s */

	if (o >= span || per_msg <= 0)
		return 0;
	return (1 - o / span) / per_msg;
}

/* One side from the cores (@pred: the predicted W and O). */
static void side(struct nsight_cap_side *sd, const struct ccore *cores, size_t n_cores,
		 double span, size_t n, uint64_t tsc_hz, bool pred)
{
	size_t i, best = SIZE_MAX, next = SIZE_MAX;
	double r[MAX_CORES];

	for (i = 0; i < n_cores; i++) {
		double w = pred ? cores[i].w_pred : cores[i].w, o = pred ? cores[i].o_pred : cores[i].o;

		r[i] = core_rate(w, o, span, n, tsc_hz);
		if (w <= 0)
			continue;	/* no work of the messages there */
		if (r[i] <= 0) {
			snprintf(sd->why, sizeof(sd->why),
				 "other work fills CPU %u (%s) over the messages' span", cores[i].cpu,
				 nsight_role_name(cores[i].role));
			return;
		}
		if (best == SIZE_MAX || r[i] < r[best]) {
			next = best;
			best = i;
		} else if (next == SIZE_MAX || r[i] < r[next]) {
			next = i;
		}
	}
	if (best == SIZE_MAX) {
		snprintf(sd->why, sizeof(sd->why), "the server's work was not seen on its core");
		return;
	}
	sd->rate = r[best];
	sd->cpu = cores[best].cpu;
	sd->role = cores[best].role;
	sd->per_msg = llround((pred ? cores[best].w_pred : cores[best].w) / (double)n * 1e9 /
			      (double)tsc_hz);
	sd->other = (pred ? cores[best].o_pred : cores[best].o) / span;
	if (next != SIZE_MAX) {
		sd->has_next = true;
		sd->next_cpu = cores[next].cpu;
		sd->next_role = cores[next].role;
		sd->next_rate = r[next];
		if (r[next] < r[best] * NSIGHT_CAP_NEAR) {
			snprintf(sd->why, sizeof(sd->why),
				 "CPU %u (%s) and CPU %u (%s) saturate within %.0f%% of each other: two bottlenecks",
				 sd->cpu, nsight_role_name(sd->role), sd->next_cpu,
				 nsight_role_name(sd->next_role), (NSIGHT_CAP_NEAR - 1) * 100);
			return;
		}
	}
	sd->ok = true;
}

static void both_why(struct nsight_capacity *out, const char *why)
{
	snprintf(out->now.why, sizeof(out->now.why), "%s", why);
	snprintf(out->pred.why, sizeof(out->pred.why), "%s", why);
}

int nsight_capacity_run(struct nsight_capacity *out, const struct nsight_timeline *tl,
			const struct nsight_lifetimes *lt, const size_t *idx, size_t n,
			uint64_t tsc_hz, nsight_cap_keep_fn keep, void *arg)
{
	struct cb b = { .tl = tl, .keep = keep, .arg = arg };
	struct ccore cores[MAX_CORES];
	size_t i, k, n_cores = 0;
	uint64_t lo = UINT64_MAX, hi = 0;
	uint32_t app = 0;
	char why[160];
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->messages = n;
	for (i = 0; i < n; i++) {
		const struct nsight_msg *m = &lt->msgs[idx[i]];

		if (m->t[NSIGHT_RX_A].tsc < lo)
			lo = m->t[NSIGHT_RX_A].tsc;
		if (m->t[NSIGHT_RX_A].tsc > hi)
			hi = m->t[NSIGHT_RX_A].tsc;
	}
	/* From the first return to the last: n - 1 whole cycles of the thread. */
	if (n >= 2 && hi > lo && tsc_hz)
		out->offered = (double)(n - 1) * (double)tsc_hz / (double)(hi - lo);
	if (n < NSIGHT_CAP_MIN_MSGS) {
		snprintf(why, sizeof(why), "too few messages (%zu, at least %d)", n,
			 NSIGHT_CAP_MIN_MSGS);
		both_why(out, why);
		return 0;
	}
	if (!tsc_hz || hi <= lo) {
		both_why(out, "the messages have no span");
		return 0;
	}
	app = lt->msgs[idx[0]].t[NSIGHT_RX_A].cpu;
	for (i = 1; i < n; i++) {
		if (lt->msgs[idx[i]].t[NSIGHT_RX_A].cpu != app) {
			snprintf(why, sizeof(why),
				 "the receives returned on more than one core (CPU %u, CPU %u): not one queue",
				 app, lt->msgs[idx[i]].t[NSIGHT_RX_A].cpu);
			both_why(out, why);
			return 0;
		}
	}
	b.tids = malloc(n * sizeof(*b.tids));
	b.win = malloc(n * sizeof(*b.win));
	if (!b.tids || !b.win) {
		err = -NSIGHT_E_NOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct nsight_msg *m = &lt->msgs[idx[i]];

		b.tids[i] = m->tid;
		b.win[i] = (struct cwin){ m->t[NSIGHT_RX_H].cpu, m->t[NSIGHT_RX_N].tsc,
					  m->t[NSIGHT_RX_H].tsc };
	}
	qsort(b.tids, n, sizeof(*b.tids), u32_cmp);
	for (i = 1, k = 1; i < n; i++)
		if (b.tids[i] != b.tids[k - 1])
			b.tids[k++] = b.tids[i];
	b.n_tids = k;
	/* The windows merged: a stretch two messages share counts once. */
	qsort(b.win, n, sizeof(*b.win), win_cmp);
	for (i = 1, k = 1; i < n; i++) {
		struct cwin *p = &b.win[k - 1];

		if (b.win[i].cpu == p->cpu && b.win[i].from <= p->to) {
			if (b.win[i].to > p->to)
				p->to = b.win[i].to;
		} else {
			b.win[k++] = b.win[i];
		}
	}
	b.n_win = k;
	/* The cores: the application core first, then each receive core. */
	cores[n_cores++] = (struct ccore){ .cpu = app, .role = NSIGHT_ROLE_A };
	for (i = 0; i < b.n_win; i++) {
		for (k = 0; k < n_cores && cores[k].cpu != b.win[i].cpu; k++)
			;
		if (k < n_cores)
			continue;
		if (n_cores == MAX_CORES) {
			both_why(out, "the messages were received on too many cores");
			goto out;
		}
		cores[n_cores++] = (struct ccore){ .cpu = b.win[i].cpu, .role = NSIGHT_ROLE_R };
	}
	for (k = 0; k < n_cores; k++) {
		if (cores[k].cpu >= tl->nr_cpus || !tl->cpus[cores[k].cpu].n) {
			snprintf(why, sizeof(why),
				 "CPU %u (%s) has no context records: its busy time is unknown",
				 cores[k].cpu, nsight_role_name(cores[k].role));
			both_why(out, why);
			goto out;
		}
		walk_core(&b, &cores[k], k == 0, lo, hi);
		if (b.oom) {
			err = -NSIGHT_E_NOMEM;
			goto out;
		}
		if (cores[k].lost) {
			snprintf(why, sizeof(why), "CPU %u (%s) lost records in the messages' span",
				 cores[k].cpu, nsight_role_name(cores[k].role));
			both_why(out, why);
			goto out;
		}
	}
	if (cores[0].w <= 0) {
		snprintf(why, sizeof(why), "the server never ran on CPU %u (A) in the span", app);
		both_why(out, why);
		goto out;
	}
	side(&out->now, cores, n_cores, (double)(hi - lo), n - 1, tsc_hz, false);
	side(&out->pred, cores, n_cores, (double)(hi - lo), n - 1, tsc_hz, true);
out:
	free(b.tids);
	free(b.win);
	return err;
}
