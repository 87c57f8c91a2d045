// SPDX-License-Identifier: MIT
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/lockfn.h"
#include "base/sort.h"

struct walk {
	const struct nsight_threads *c;
	const struct nsight_samples *s;	/* sorted by CPU and TSC, or NULL */
	uint32_t holder;
	struct nsight_lockfns *out;
	struct nsight_chain_act *fn;	/* every function seen, for this lock */
	size_t n_fn, cap_fn;
};

static int add_fn(struct walk *w, uint32_t key, uint64_t ticks)
{
	w->out->evidence += ticks;
	return nsight_chain_act_add(&w->fn, &w->n_fn, &w->cap_fn, key, ticks);
}

/*
 * The holder's user-code samples over [@lo, @hi) on @cpu, inside the
 * segment [@ss, @se) of its task it ran in (@last: the CPU's last segment,
 * which ends at the CPU's last record, and a sample may be that record).
 */
static int user_code(struct walk *w, uint32_t cpu, uint64_t lo, uint64_t hi, uint64_t ss,
		     uint64_t se, bool last)
{
	const struct nsight_sample *v = w->s->v;
	size_t i, a = 0, b = w->s->n;
	uint64_t prev = ss;

	/* The first sample of @cpu at or after the segment's start. */
	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (v[m].cpu < cpu || (v[m].cpu == cpu && v[m].tsc < ss))
			a = m + 1;
		else
			b = m;
	}
	for (i = a; i < w->s->n && v[i].cpu == cpu && prev < hi; i++) {
		uint64_t t = v[i].tsc, p, from;

		if (t > se || (t == se && !last))
			break;
		/* A sample stands for the period before it, back to the one before. */
		p = (uint64_t)((unsigned __int128)v[i].period_ns *
			       (w->c->tsc_hz ? w->c->tsc_hz : 1000000000U) / 1000000000U);
		from = t - prev > p ? t - p : prev;
		prev = t;
		if (!(v[i].flags & NSIGHT_SAMPLE_USER) || (v[i].flags & NSIGHT_SAMPLE_EXACT) ||
		    v[i].tid != w->holder)
			continue;
		if (from < lo)
			from = lo;
		if (t > hi)
			t = hi;
		if (t > from && add_fn(w, NSIGHT_LOCKFN_USER, t - from))
			return -1;
	}
	return 0;
}

/* The evidence on @cpu over [@s, @e), while the holder ran there. */
static int cpu_evidence(struct walk *w, uint32_t cpu, uint64_t s, uint64_t e)
{
	const struct nsight_timeline *tl = w->c->tl;
	const struct nsight_tl_cpu *tc;
	ssize_t i;

	if (!tl || cpu >= tl->nr_cpus || !tl->cpus[cpu].n)
		return 0;
	tc = &tl->cpus[cpu];
	for (i = nsight_tl_find(tl, cpu, s); i >= 0 && (size_t)i < tc->n && s < e; i++) {
		const struct nsight_seg *sg = &tc->segs[i];
		const struct nsight_ctx *cx = &tl->ctx[sg->ctx];
		uint64_t end = nsight_tl_seg_end(tl, cpu, (size_t)i);
		uint64_t hi = end < e ? end : e, lo = sg->start > s ? sg->start : s;

		if (hi <= lo)
			continue;
		if (cx->kind == NSIGHT_CTX_K_FUNC) {
			if (add_fn(w, sg->key, hi - lo))
				return -1;
		} else if (cx->kind == NSIGHT_CTX_K_TASK && cx->tid == w->holder && w->s) {
			if (user_code(w, cpu, lo, hi, sg->start, end, (size_t)i + 1 == tc->n))
				return -1;
		}
		s = hi;
	}
	return 0;
}

static int on_span(void *arg, const struct nsight_thr_span *sp)
{
	struct walk *w = arg;

	if (sp->state != NSIGHT_THR_ON)
		return 0;
	w->out->on += sp->to - sp->from;
	return cpu_evidence(w, sp->cpu, sp->from, sp->to) ? -NSIGHT_E_NOMEM : 0;
}

const char *nsight_lockfn_name(const struct nsight_keys *k, const struct nsight_chain_act *f,
			       char *buf, size_t len)
{
	const char *name, *sep, *p;

	if (f->key == NSIGHT_LOCKFN_USER)
		name = "user code";
	else if (nsight_key_kind(k, f->key) != NSIGHT_KEY_FUNC)
		return nsight_key_format(k, f->key, buf, len);
	else
		name = nsight_key_name(k, f->key);
	/* The holder's own functions ("task:<comm> > <symbol>"): the symbol. */
	if (!strncmp(name, "task:", 5)) {
		for (sep = NULL, p = strstr(name, " > "); p; p = strstr(p + 1, " > "))
			sep = p;
		if (sep)
			name = sep + 3;
	}
	snprintf(buf, len, "%s", name);
	return buf;
}

const char *nsight_lockfn_why(uint8_t none)
{
	switch (none) {
	case NSIGHT_LOCKFN_NAMED:
		return NULL;
	case NSIGHT_LOCKFN_NO_HOLDER:
		return "no task woke its waiters";
	case NSIGHT_LOCKFN_NO_EVIDENCE:
		return "no function evidence in the capture (sources sample and pt)";
	case NSIGHT_LOCKFN_NOT_ON_CPU:
		return "the holder did not run while its waiters waited";
	default:
		return "no sample or PT stretch fell in the holder's time on a CPU while its waiters waited";
	}
}

/*
 * Most time first, then by name, then by key name: whatever order the
 * keys were made in (@arg: the keys).
 */
static int cmp_fn(const void *a, const void *b, void *arg)
{
	const struct nsight_chain_act *x = a, *y = b;
	char bx[NSIGHT_KEY_NAME_MAX + 32], by[sizeof(bx)];
	int r;

	if (x->ticks != y->ticks)
		return x->ticks > y->ticks ? -1 : 1;
	r = strcmp(nsight_lockfn_name(arg, x, bx, sizeof(bx)),
		   nsight_lockfn_name(arg, y, by, sizeof(by)));
	/* "" for user code, as for no key. */
	return r ? r : strcmp(nsight_key_name(arg, x->key), nsight_key_name(arg, y->key));
}

/* Lock @l's holder over its sleeps @v[0..n) on it (sorted by start). */
static int one_lock(struct walk *w, const struct nsight_samples *s, const struct nsight_lock *l,
		    const struct nsight_thr_sleep *v, size_t n)
{
	struct nsight_lockfns *o = w->out;
	size_t i = 0;
	int err;

	w->holder = l->holder_tid;
	w->n_fn = 0;
	while (i < n) {
		uint64_t from = v[i].from, to = v[i].to;

		/* Sleeps that overlap, as one. */
		for (i++; i < n && v[i].from <= to; i++)
			if (v[i].to > to)
				to = v[i].to;
		o->waited += to - from;
		err = nsight_threads_spans(w->c, w->holder, from, to, on_span, w);
		if (err)
			return err;
	}
	/* Functions come from the timeline only: with more than one, it is there. */
	if (w->n_fn > 1)
		nsight_sort_r(w->fn, w->n_fn, sizeof(*w->fn), cmp_fn, w->c->tl->keys);
	o->n_funcs = w->n_fn;
	o->n_top = w->n_fn < NSIGHT_LOCKFN_TOP ? w->n_fn : NSIGHT_LOCKFN_TOP;
	if (o->n_top)	/* w->fn is NULL before the first function */
		memcpy(o->top, w->fn, o->n_top * sizeof(*o->top));
	if (!s || !s->n)
		o->none = NSIGHT_LOCKFN_NO_EVIDENCE;
	else if (!o->on)
		o->none = NSIGHT_LOCKFN_NOT_ON_CPU;
	else if (!o->evidence)
		o->none = NSIGHT_LOCKFN_NOT_COVERED;
	return 0;
}

int nsight_lockfn_build(const struct nsight_threads *c, const struct nsight_samples *s,
			const struct nsight_lock *locks, size_t n, struct nsight_lockfns *out,
			struct nsight_diag *d)
{
	struct walk w = { .c = c, .s = s && s->sorted ? s : NULL };
	struct nsight_thr_sleep *v;
	size_t i, nv;
	int err = 0;

	memset(out, 0, n * sizeof(*out));
	if (!n)
		return 0;
	if (nsight_threads_lock_sleeps(c, &v, &nv))
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	for (i = 0; i < n && !err; i++) {
		const struct nsight_lock *l = &locks[i];
		size_t a = 0, b = nv, e;

		w.out = &out[i];
		if (!l->holder_tid) {
			out[i].none = NSIGHT_LOCKFN_NO_HOLDER;
			continue;
		}
		/* The holder's sleeps on the lock (sorted by process, word, waker). */
		while (a < b) {
			size_t m = a + (b - a) / 2;

			if (v[m].pid < l->pid || (v[m].pid == l->pid && v[m].uaddr < l->uaddr) ||
			    (v[m].pid == l->pid && v[m].uaddr == l->uaddr &&
			     v[m].waker < l->holder_tid))
				a = m + 1;
			else
				b = m;
		}
		for (e = a; e < nv && v[e].pid == l->pid && v[e].uaddr == l->uaddr &&
			    v[e].waker == l->holder_tid; e++)
			;
		err = one_lock(&w, s, l, v + a, e - a);
	}
	free(v);
	free(w.fn);
	return err ? nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory") : 0;
}
