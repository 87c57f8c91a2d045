// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>

#include "capture/threads.h"
#include "base/percentile.h"
#include "base/sort.h"
#include "base/vec.h"

void nsight_threads_init(struct nsight_threads *c)
{
	memset(c, 0, sizeof(*c));
}

void nsight_threads_fini(struct nsight_threads *c)
{
	free(c->sw);
	free(c->st);
	free(c->wk);
	free(c->fx);
	memset(c, 0, sizeof(*c));
}

int64_t nsight_threads_ns(const struct nsight_threads *c, uint64_t ticks)
{
	unsigned __int128 ns = (unsigned __int128)ticks * 1000000000U /
			       (c->tsc_hz ? c->tsc_hz : 1000000000U);

	return ns > INT64_MAX ? INT64_MAX : (int64_t)ns;
}

static int nomem(struct nsight_diag *d)
{
	return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
}

int nsight_threads_add(struct nsight_threads *c, const struct nsight_rec *rec, struct nsight_diag *d)
{
	if (rec->hdr.type == NSIGHT_REC_SCHED_SWITCH) {
		if (NSIGHT_VEC_GROW(c->sw, c->n_sw, c->cap_sw))
			return nomem(d);
		memcpy(&c->sw[c->n_sw++], rec->data, sizeof(*c->sw));
	} else if (rec->hdr.type == NSIGHT_REC_WAKING) {
		struct nsight_rec_waking w;

		memcpy(&w, rec->data, sizeof(w));
		if (NSIGHT_VEC_GROW(c->wk, c->n_wk, c->cap_wk))
			return nomem(d);
		c->wk[c->n_wk++] = (struct nsight_thr_wake){
			.tsc = w.hdr.tsc, .tid = w.tid, .waker_tid = w.waker_tid,
			.cpu = w.hdr.cpu, .key = NSIGHT_KEY_NONE,
		};
	} else if (rec->hdr.type == NSIGHT_REC_FUTEX) {
		struct nsight_rec_futex f;

		memcpy(&f, rec->data, sizeof(f));
		if (f.op != NSIGHT_FUTEX_WAIT && f.op != NSIGHT_FUTEX_WAKE)
			return 0;
		if (NSIGHT_VEC_GROW(c->fx, c->n_fx, c->cap_fx))
			return nomem(d);
		c->fx[c->n_fx++] = (struct nsight_thr_futex){
			.tsc = f.hdr.tsc, .uaddr = f.uaddr, .tid = f.tid, .pid = f.pid,
			.cpu = f.hdr.cpu, .op = (uint8_t)f.op,
		};
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Building                                                                 */

static int cmp_sw(const void *a, const void *b, void *arg)
{
	const struct nsight_rec_sched_switch *base = arg;
	const struct nsight_rec_sched_switch *x = a, *y = b;

	if (x->hdr.cpu != y->hdr.cpu)
		return x->hdr.cpu < y->hdr.cpu ? -1 : 1;
	/* Stream order within a CPU. */
	return (x - base) < (y - base) ? -1 : (x - base) > (y - base);
}

static int cmp_st(const void *a, const void *b)
{
	const struct nsight_thr_stretch *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

static int cmp_wk(const void *a, const void *b)
{
	const struct nsight_thr_wake *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

static int push_st(struct nsight_threads *c, const struct nsight_thr_stretch *s)
{
	/* The swapper (pid 0) is each CPU's idle, not a thread. */
	if (!s->tid || s->to < s->from)
		return 0;
	if (NSIGHT_VEC_GROW(c->st, c->n_st, c->cap_st))
		return -1;
	c->st[c->n_st++] = *s;
	return 0;
}

/* The stretches of one CPU's switches @sw[0..n). */
static int cpu_stretches(struct nsight_threads *c, const struct nsight_rec_sched_switch *sw, size_t n,
			 const struct nsight_timeline *tl, const struct nsight_capture *cap)
{
	uint32_t cpu = sw[0].hdr.cpu;
	uint64_t first = cpu < tl->nr_cpus && tl->cpus[cpu].any ? tl->cpus[cpu].first : sw[0].hdr.tsc;
	uint64_t last = cpu < tl->nr_cpus && tl->cpus[cpu].any ? tl->cpus[cpu].last : sw[n - 1].hdr.tsc;
	struct nsight_thr_stretch cur = { 0 };
	bool have = false;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct nsight_rec_sched_switch *s = &sw[i];
		struct nsight_thr_stretch st = {
			.from = first, .to = s->hdr.tsc, .tid = s->prev_tid, .pid = s->prev_pid,
			.cpu = cpu,
			.out = (s->flags & NSIGHT_SWITCH_PREEMPT) || !s->prev_state ?
			       NSIGHT_THR_OUT_PREEMPT : NSIGHT_THR_OUT_SLEEP,
		};

		memcpy(st.comm, s->prev_comm, sizeof(st.comm));
		if (have && nsight_capture_dropped_within(cap, cpu, cur.from, s->hdr.tsc)) {
			/* Lost records: where the current one stopped is unknown. */
			cur.out = NSIGHT_THR_OUT_UNKNOWN;
			cur.to = cur.from;
			if (push_st(c, &cur))
				return -1;
			have = false;
		}
		if (have && cur.tid == s->prev_tid) {
			st.from = cur.from;
			st.from_known = true;
		} else if (have) {
			/* The records disagree: what ran before is unknown. */
			cur.out = NSIGHT_THR_OUT_UNKNOWN;
			if (push_st(c, &cur))
				return -1;
			st.from = s->hdr.tsc;
		}
		if (push_st(c, &st))
			return -1;
		cur = (struct nsight_thr_stretch){
			.from = s->hdr.tsc, .to = last, .tid = s->next_tid, .pid = s->next_pid,
			.cpu = cpu, .out = NSIGHT_THR_OUT_UNKNOWN, .from_known = true,
		};
		memcpy(cur.comm, s->next_comm, sizeof(cur.comm));
		have = true;
	}
	if (have && nsight_capture_dropped_within(cap, cpu, cur.from, last))
		cur.to = cur.from;
	return have ? push_st(c, &cur) : 0;
}

/*
 * The first index in [@from, @n) of @arr whose element e_ fails @cond,
 * where @cond holds for a prefix of that range and fails after it.
 */
#define FIRST_NOT(arr, from, n, cond, out)					\
	do {									\
		size_t lo_ = (from), hi_ = (n);					\
		while (lo_ < hi_) {						\
			size_t mid_ = lo_ + (hi_ - lo_) / 2;			\
			const __typeof__((arr)[0]) *e_ = &(arr)[mid_];		\
			if (cond)						\
				lo_ = mid_ + 1;					\
			else							\
				hi_ = mid_;					\
		}								\
		(out) = lo_;							\
	} while (0)

/* First index of @tid's entries in a sorted array (by tid first). */
#define LOWER_TID(arr, n, tid_, out)	FIRST_NOT(arr, 0, n, e_->tid < (tid_), out)

/* The index of the first stretch after those of @tid starting at or before @tsc. */
static size_t stretch_after(const struct nsight_threads *c, uint32_t tid, uint64_t tsc)
{
	size_t lo;

	FIRST_NOT(c->st, 0, c->n_st, e_->tid < tid || (e_->tid == tid && e_->from <= tsc), lo);
	return lo;
}

/* The last stretch of @tid starting at or before @tsc, or NULL. */
static const struct nsight_thr_stretch *stretch_at(const struct nsight_threads *c, uint32_t tid,
						   uint64_t tsc)
{
	size_t lo = stretch_after(c, tid, tsc);

	return lo && c->st[lo - 1].tid == tid ? &c->st[lo - 1] : NULL;
}

bool nsight_threads_who(const struct nsight_threads *c, uint32_t tid, uint64_t tsc, char comm[16],
		       uint32_t *pid)
{
	const struct nsight_thr_stretch *best = NULL;
	size_t lo = stretch_after(c, tid, tsc);

	/* The last stretch of @tid starting at or before @tsc, else its first. */
	if (lo && c->st[lo - 1].tid == tid)
		best = &c->st[lo - 1];
	else if (lo < c->n_st && c->st[lo].tid == tid)
		best = &c->st[lo];
	if (!best)
		return false;
	memcpy(comm, best->comm, 16);
	*pid = best->pid;
	return true;
}

static int cmp_fx(const void *a, const void *b)
{
	const struct nsight_thr_futex *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->tsc < y->tsc ? -1 : x->tsc > y->tsc;
}

/* @tid's last futex record of @op at or before @tsc, in [@from, ...), or NULL. */
static const struct nsight_thr_futex *futex_before(const struct nsight_threads *c, uint32_t tid,
						   uint8_t op, uint64_t from, uint64_t tsc)
{
	size_t lo, hi;

	LOWER_TID(c->fx, c->n_fx, tid, lo);
	FIRST_NOT(c->fx, lo, c->n_fx, e_->tid == tid && e_->tsc <= tsc, hi);
	for (; hi > lo && c->fx[hi - 1].tsc >= from; hi--)
		if (c->fx[hi - 1].op == op)
			return &c->fx[hi - 1];
	return NULL;
}

/*
 * The futex words of wakeup @w: the woken thread's futex_wait() in its
 * last stretch before the wakeup, the waker's futex_wake() in its stretch
 * that woke it, on the waker's CPU.
 */
static void wake_futexes(const struct nsight_threads *c, struct nsight_thr_wake *w)
{
	const struct nsight_thr_stretch *st = stretch_at(c, w->tid, w->tsc);
	const struct nsight_thr_futex *f;

	if (st && (f = futex_before(c, w->tid, NSIGHT_FUTEX_WAIT, st->from, w->tsc)) &&
	    f->tsc <= st->to) {
		w->futex_wait = f->uaddr;
		w->wait_from = f->tsc;
		w->wait_pid = f->pid;
	}
	st = w->waker_tid ? stretch_at(c, w->waker_tid, w->tsc) : NULL;
	if (st && (f = futex_before(c, w->waker_tid, NSIGHT_FUTEX_WAKE, st->from, w->tsc)) &&
	    f->cpu == w->cpu)
		w->futex_wake = f->uaddr;
}

int nsight_threads_finish(struct nsight_threads *c, const struct nsight_timeline *tl,
			 const struct nsight_capture *cap, struct nsight_keys *keys,
			 uint64_t tsc_hz, struct nsight_diag *d)
{
	size_t i, s;

	c->tl = tl;
	c->tsc_hz = tsc_hz;
	if (c->n_sw > 1)
		nsight_sort_r(c->sw, c->n_sw, sizeof(*c->sw), cmp_sw, c->sw);
	for (s = 0; s < c->n_sw; ) {
		size_t e = s + 1;

		while (e < c->n_sw && c->sw[e].hdr.cpu == c->sw[s].hdr.cpu)
			e++;
		if (cpu_stretches(c, c->sw + s, e - s, tl, cap))
			return nomem(d);
		s = e;
	}
	/* The raw switches are not needed any more. */
	free(c->sw);
	c->sw = NULL;
	c->n_sw = c->cap_sw = 0;
	if (c->n_st > 1)
		nsight_sort(c->st, c->n_st, sizeof(*c->st), cmp_st);
	for (i = 0; i < c->n_st; i++) {
		struct nsight_thr_stretch *st = &c->st[i];
		bool same = i && st[-1].tid == st->tid;

		st->max_to = same && st[-1].max_to > st->to ? st[-1].max_to : st->to;
	}
	if (c->n_wk > 1)
		nsight_sort(c->wk, c->n_wk, sizeof(*c->wk), cmp_wk);
	for (i = 0; i < c->n_wk; i++) {
		struct nsight_thr_wake *w = &c->wk[i];
		char comm[17] = { 0 };
		uint32_t pid;

		if (!w->waker_tid || !nsight_threads_who(c, w->waker_tid, w->tsc, comm, &pid))
			continue;
		w->key = nsight_keys_intern(keys, NSIGHT_KEY_BLOCKED, comm, 16);
		if (w->key == NSIGHT_KEY_NONE)
			return nomem(d);
	}
	if (c->n_fx) {
		if (c->n_fx > 1)
			nsight_sort(c->fx, c->n_fx, sizeof(*c->fx), cmp_fx);
		for (i = 0; i < c->n_wk; i++)
			wake_futexes(c, &c->wk[i]);
	}
	c->finished = true;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Locks                                                                    */

/*
 * How long the thread woken by @w held the lock it slept on: it took it
 * on its return from futex_wait(), at the start of its first stretch
 * after the wakeup, and released it at its next futex record on the word
 * if that is a futex_wake(); 0 when not seen.
 */
static uint64_t hold_of(const struct nsight_threads *c, const struct nsight_thr_wake *w)
{
	size_t s = stretch_after(c, w->tid, w->tsc), lo, i;
	uint64_t from;

	if (s >= c->n_st || c->st[s].tid != w->tid)
		return 0;
	from = c->st[s].from;
	LOWER_TID(c->fx, c->n_fx, w->tid, lo);
	FIRST_NOT(c->fx, lo, c->n_fx, e_->tid == w->tid && e_->tsc < from, i);
	for (; i < c->n_fx && c->fx[i].tid == w->tid; i++)
		if (c->fx[i].uaddr == w->futex_wait)
			return c->fx[i].op == NSIGHT_FUTEX_WAKE ? c->fx[i].tsc - from : 0;
	return 0;
}

static int cmp_sleep(const void *a, const void *b)
{
	const struct nsight_thr_sleep *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->uaddr != y->uaddr)
		return x->uaddr < y->uaddr ? -1 : 1;
	if (x->waker != y->waker)
		return x->waker < y->waker ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

int nsight_threads_lock_sleeps(const struct nsight_threads *c, struct nsight_thr_sleep **out,
			       size_t *n)
{
	size_t i;

	*out = NULL;
	*n = 0;
	for (i = 0; i < c->n_wk; i++) {
		const struct nsight_thr_wake *w = &c->wk[i];

		if (!w->futex_wait || w->tsc < w->wait_from)
			continue;
		if (!*out && !(*out = malloc((c->n_wk - i) * sizeof(**out))))
			return -1;
		(*out)[(*n)++] = (struct nsight_thr_sleep){ .pid = w->wait_pid,
							    .waker = w->waker_tid,
							    .uaddr = w->futex_wait,
							    .from = w->wait_from, .to = w->tsc,
							    .wake = i };
	}
	if (*n > 1)
		qsort(*out, *n, sizeof(**out), cmp_sleep);
	return 0;
}

static int cmp_lock(const void *a, const void *b)
{
	const struct nsight_lock *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->uaddr < y->uaddr ? -1 : x->uaddr > y->uaddr;
}

/* One lock from its sleeps [@s, @e) (sorted by waker). */
static void lock_of(const struct nsight_threads *c, const struct nsight_thr_sleep *v, size_t s,
		    size_t e, int64_t *ticks, struct nsight_lock *l)
{
	size_t i, run = 0, best = 0;
	uint32_t pid;

	memset(l, 0, sizeof(*l));
	l->pid = v[s].pid;
	l->uaddr = v[s].uaddr;
	l->waits = e - s;
	for (i = s; i < e; i++) {
		ticks[i - s] = (int64_t)(v[i].to - v[i].from);
		l->total += v[i].to - v[i].from;
		run = i > s && v[i].waker == v[i - 1].waker ? run + 1 : 1;
		if (run > best && v[i].waker) {
			best = run;
			l->holder_tid = v[i].waker;
		}
	}
	nsight_sort_i64(ticks, e - s);
	l->p50 = (uint64_t)nsight_percentile(ticks, e - s, 50000);
	l->p99 = (uint64_t)nsight_percentile(ticks, e - s, 99000);
	l->max = (uint64_t)ticks[e - s - 1];
	for (i = s; i < e; i++) {
		uint64_t hold = hold_of(c, &c->wk[v[i].wake]);

		if (hold)
			ticks[l->holds++] = (int64_t)hold;
	}
	if (l->holds) {
		nsight_sort_i64(ticks, l->holds);
		l->hold_p50 = (uint64_t)nsight_percentile(ticks, l->holds, 50000);
		l->hold_p99 = (uint64_t)nsight_percentile(ticks, l->holds, 99000);
		l->hold_max = (uint64_t)ticks[l->holds - 1];
	}
	for (i = s; i < e; i++) {
		const struct nsight_thr_wake *w = &c->wk[v[i].wake];

		if (l->holder_tid && v[i].waker == l->holder_tid) {
			l->holder_wakes++;
			l->holder_released += w->futex_wake == w->futex_wait;
		}
	}
	if (l->holder_tid)
		nsight_threads_who(c, l->holder_tid, c->wk[v[s].wake].tsc, l->holder_comm, &pid);
	nsight_threads_who(c, c->wk[v[s].wake].tid, c->wk[v[s].wake].tsc, l->comm, &pid);
}

int nsight_threads_locks(const struct nsight_threads *c, struct nsight_lock **out, size_t *n,
			 struct nsight_diag *d)
{
	struct nsight_thr_sleep *v = NULL;
	int64_t *ticks = NULL;
	size_t nv = 0, s, cap = 0;
	int err = 0;

	*out = NULL;
	*n = 0;
	if (!c->n_fx)
		return 0;
	if (nsight_threads_lock_sleeps(c, &v, &nv) ||
	    !(ticks = malloc((nv ? nv : 1) * sizeof(*ticks)))) {
		err = nomem(d);
		goto out;
	}
	for (s = 0; s < nv; ) {
		size_t e = s + 1;

		while (e < nv && v[e].pid == v[s].pid && v[e].uaddr == v[s].uaddr)
			e++;
		if (NSIGHT_VEC_GROW(*out, *n, cap)) {
			err = nomem(d);
			goto out;
		}
		lock_of(c, v, s, e, ticks, &(*out)[(*n)++]);
		s = e;
	}
	if (*n > 1)
		qsort(*out, *n, sizeof(**out), cmp_lock);
out:
	if (err) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	free(v);
	free(ticks);
	return err;
}

/* ---------------------------------------------------------------------- */
/* A thread's states                                                        */

/* A wakeup up to 1/200000 s (5 us) before the switch out can be its own. */
#define WAKE_SLACK_DIV	200000

/* The wakeup of @tid ending a sleep, in [@from, @until]. */
static uint32_t wake_of(const struct nsight_threads *c, uint32_t tid, uint64_t from, uint64_t until)
{
	size_t lo, hi;

	LOWER_TID(c->wk, c->n_wk, tid, lo);
	/* The last one at or before @until (sorted by tid, then tsc)... */
	FIRST_NOT(c->wk, lo, c->n_wk, e_->tid == tid && e_->tsc <= until, hi);
	/* ...that came after the stretch before the sleep began. */
	if (hi > lo && c->wk[hi - 1].tsc >= from)
		return (uint32_t)(hi - 1);
	return NSIGHT_CHAIN_NONE;
}

struct span_ctx {
	uint64_t s, e;
	nsight_thr_span_fn fn;
	void *arg;
};

static int emit(struct span_ctx *x, struct nsight_thr_span sp)
{
	if (sp.from < x->s)
		sp.from = x->s;
	if (sp.to > x->e)
		sp.to = x->e;
	return sp.from < sp.to ? x->fn(x->arg, &sp) : 0;
}

/* The time after stretch @p until @next_from (UINT64_MAX: the end). */
static int gap(const struct nsight_threads *c, struct span_ctx *x, const struct nsight_thr_stretch *p,
	       uint64_t next_from, uint32_t next_cpu)
{
	struct nsight_thr_span sp = { .from = p->to, .to = next_from, .cpu = next_cpu,
				      .wake = NSIGHT_CHAIN_NONE };
	uint64_t slack;
	uint32_t w;
	int ret;

	if (p->out == NSIGHT_THR_OUT_UNKNOWN) {
		sp.state = NSIGHT_THR_UNKNOWN;
		return emit(x, sp);
	}
	if (p->out == NSIGHT_THR_OUT_PREEMPT) {
		sp.state = next_from == UINT64_MAX ? NSIGHT_THR_UNKNOWN : NSIGHT_THR_RUNNABLE;
		return emit(x, sp);
	}
	/*
	 * A wakeup while it still ran belongs to an earlier wait (one that
	 * ended before it slept), unless it raced with the switch itself.
	 */
	slack = c->tsc_hz ? c->tsc_hz / WAKE_SLACK_DIV : 5000;
	w = wake_of(c, p->tid, p->to - (p->to - p->from < slack ? p->to - p->from : slack),
		    next_from);
	sp.state = NSIGHT_THR_BLOCKED;
	sp.wake = w;
	if (w == NSIGHT_CHAIN_NONE)
		return emit(x, sp);
	sp.to = c->wk[w].tsc > p->to ? c->wk[w].tsc : p->to;
	ret = emit(x, sp);
	if (ret)
		return ret;
	sp = (struct nsight_thr_span){ .from = sp.to, .to = next_from, .cpu = next_cpu,
				       .wake = NSIGHT_CHAIN_NONE,
				       .state = next_from == UINT64_MAX ? NSIGHT_THR_UNKNOWN :
									NSIGHT_THR_RUNNABLE };
	return emit(x, sp);
}

int nsight_threads_spans(const struct nsight_threads *c, uint32_t tid, uint64_t s, uint64_t e,
			nsight_thr_span_fn fn, void *arg)
{
	struct span_ctx x = { s, e, fn, arg };
	const struct nsight_thr_stretch *prev = NULL;
	size_t i, first;
	int ret;

	if (s >= e)
		return 0;
	LOWER_TID(c->st, c->n_st, tid, first);
	/*
	 * Skip the stretches that end before @s, keeping the last as prev:
	 * those up to the first whose max_to passes @s (max_to grows along a
	 * thread, so a binary search finds it).
	 */
	FIRST_NOT(c->st, first, c->n_st, e_->tid == tid && e_->max_to <= s, i);
	if (i > first)
		prev = &c->st[i - 1];
	if (!prev && (i >= c->n_st || c->st[i].tid != tid))
		return emit(&x, (struct nsight_thr_span){ s, e, NSIGHT_THR_UNKNOWN, UINT32_MAX,
							  NSIGHT_CHAIN_NONE });
	for (; i < c->n_st && c->st[i].tid == tid && c->st[i].from < e; i++) {
		const struct nsight_thr_stretch *st = &c->st[i];

		if (prev)
			ret = gap(c, &x, prev, st->from, st->cpu);
		else
			ret = emit(&x, (struct nsight_thr_span){ s, st->from, NSIGHT_THR_UNKNOWN,
								 UINT32_MAX, NSIGHT_CHAIN_NONE });
		if (!ret)
			ret = emit(&x, (struct nsight_thr_span){ st->from, st->to, NSIGHT_THR_ON,
								 st->cpu, NSIGHT_CHAIN_NONE });
		if (ret)
			return ret;
		prev = st;
	}
	if (prev && prev->to < e) {
		uint64_t next = i < c->n_st && c->st[i].tid == tid ? c->st[i].from : UINT64_MAX;
		uint32_t ncpu = next != UINT64_MAX ? c->st[i].cpu : UINT32_MAX;

		return gap(c, &x, prev, next, ncpu);
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Chains                                                                   */

struct builder {
	struct nsight_chain *ch;
	const struct nsight_threads *c;
	uint32_t node;
	unsigned int max_depth;
};

int nsight_chain_act_add(struct nsight_chain_act **v, size_t *n, size_t *cap, uint32_t key,
			 uint64_t ticks)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*v)[i].key == key) {
			(*v)[i].ticks += ticks;
			return 0;
		}
	if (NSIGHT_VEC_GROW(*v, *n, *cap))
		return -1;
	(*v)[(*n)++] = (struct nsight_chain_act){ key, ticks };
	return 0;
}

/* The innermost contexts of @cpu over [@s, @e) into act (@inst false) or inst. */
static int cpu_keys(struct builder *b, uint32_t cpu, uint64_t s, uint64_t e, bool inst)
{
	const struct nsight_timeline *tl = b->c->tl;
	struct nsight_chain_node *nd = &b->ch->v[b->node];
	struct nsight_chain_act **v = inst ? &nd->inst : &nd->act;
	size_t *n = inst ? &nd->n_inst : &nd->n_act, *cap = inst ? &nd->cap_inst : &nd->cap_act;
	const struct nsight_tl_cpu *tc;
	ssize_t i;

	if (!tl || cpu >= tl->nr_cpus || !tl->cpus[cpu].n)
		return nsight_chain_act_add(v, n, cap, NSIGHT_KEY_ID_UNKNOWN, e - s);
	tc = &tl->cpus[cpu];
	if (s < tc->segs[0].start) {
		uint64_t to = e < tc->segs[0].start ? e : tc->segs[0].start;

		if (nsight_chain_act_add(v, n, cap, NSIGHT_KEY_ID_UNKNOWN, to - s))
			return -1;
		s = to;
	}
	for (i = nsight_tl_find(tl, cpu, s); i >= 0 && (size_t)i < tc->n && s < e; i++) {
		uint64_t end = nsight_tl_seg_end(tl, cpu, (size_t)i);
		const struct nsight_seg *sg = &tc->segs[i];

		if (end > e)
			end = e;
		if (end <= s)
			continue;
		if (nsight_chain_act_add(v, n, cap, sg->ctx == NSIGHT_CTX_LOST ? NSIGHT_KEY_ID_UNKNOWN : sg->key,
			    end - s))
			return -1;
		s = end;
	}
	return s < e ? nsight_chain_act_add(v, n, cap, NSIGHT_KEY_ID_UNKNOWN, e - s) : 0;
}

static int node_walk(struct builder *b, uint32_t tid, uint64_t s, uint64_t e);

/* The child of the current node for waker @tid, made if new. */
static uint32_t child(struct builder *b, uint32_t tid, uint64_t tsc)
{
	struct nsight_chain *ch = b->ch;
	const struct nsight_chain_node *p = &ch->v[b->node];
	struct nsight_chain_node nd = { .tid = tid, .parent = b->node, .depth = p->depth + 1 };
	size_t i;

	for (i = b->node + 1; i < ch->n; i++)
		if (ch->v[i].parent == b->node && ch->v[i].tid == tid)
			return (uint32_t)i;
	if (NSIGHT_VEC_GROW(ch->v, ch->n, ch->cap))
		return NSIGHT_CHAIN_NONE;
	nsight_threads_who(b->c, tid, tsc, nd.comm, &nd.pid);
	ch->v[ch->n] = nd;
	return (uint32_t)ch->n++;
}

static int on_span(void *arg, const struct nsight_thr_span *sp)
{
	struct builder *b = arg;
	struct nsight_chain_node *nd = &b->ch->v[b->node];
	uint64_t t = sp->to - sp->from;
	const struct nsight_thr_wake *w;
	uint32_t saved, k;

	switch (sp->state) {
	case NSIGHT_THR_ON:
		nd->on += t;
		return cpu_keys(b, sp->cpu, sp->from, sp->to, false) ? -NSIGHT_E_NOMEM : 0;
	case NSIGHT_THR_RUNNABLE:
		nd->runnable += t;
		if (sp->cpu == UINT32_MAX)
			return 0;
		return cpu_keys(b, sp->cpu, sp->from, sp->to, true) ? -NSIGHT_E_NOMEM : 0;
	case NSIGHT_THR_UNKNOWN:
		nd->unknown += t;
		return 0;
	default:
		break;
	}
	nd->blocked += t;
	w = sp->wake != NSIGHT_CHAIN_NONE ? &b->c->wk[sp->wake] : NULL;
	if (!w || !w->waker_tid) {
		nd->blocked_irq += t;
		return 0;
	}
	if (nd->depth >= b->max_depth)
		return 0;
	k = child(b, w->waker_tid, w->tsc);
	if (k == NSIGHT_CHAIN_NONE)
		return -NSIGHT_E_NOMEM;
	b->ch->v[k].wakes++;
	b->ch->v[k].wake_cpu = w->cpu;
	if (w->futex_wake && w->futex_wake == w->futex_wait) {
		b->ch->v[k].futex_wakes++;
		b->ch->v[k].futex = w->futex_wake;
	}
	b->ch->v[k].waited += t;
	saved = b->node;
	b->node = k;
	/* The waker's own time while this thread waited for it. */
	k = (uint32_t)node_walk(b, w->waker_tid, sp->from, sp->to);
	b->node = saved;
	return (int)k;
}

static int node_walk(struct builder *b, uint32_t tid, uint64_t s, uint64_t e)
{
	return nsight_threads_spans(b->c, tid, s, e, on_span, b);
}

void nsight_chain_fini(struct nsight_chain *ch)
{
	size_t i;

	for (i = 0; i < ch->n; i++) {
		free(ch->v[i].act);
		free(ch->v[i].inst);
	}
	free(ch->v);
	memset(ch, 0, sizeof(*ch));
}

int nsight_chain_build(struct nsight_chain *ch, const struct nsight_threads *c, uint32_t tid,
		       uint64_t s, uint64_t e, unsigned int depth)
{
	struct builder b = { .ch = ch, .c = c, .node = 0, .max_depth = depth };
	struct nsight_chain_node root = { .tid = tid, .parent = NSIGHT_CHAIN_NONE };

	nsight_chain_fini(ch);
	if (NSIGHT_VEC_GROW(ch->v, ch->n, ch->cap))
		return -NSIGHT_E_NOMEM;
	nsight_threads_who(c, tid, s, root.comm, &root.pid);
	ch->v[ch->n++] = root;
	return node_walk(&b, tid, s, e);
}

static int cmp_act(const void *a, const void *b)
{
	const struct nsight_chain_act *x = a, *y = b;

	if (x->ticks != y->ticks)
		return x->ticks > y->ticks ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

void nsight_chain_sort(struct nsight_chain *ch)
{
	size_t i;

	for (i = 0; i < ch->n; i++) {
		if (ch->v[i].n_act > 1)
			qsort(ch->v[i].act, ch->v[i].n_act, sizeof(*ch->v[i].act), cmp_act);
		if (ch->v[i].n_inst > 1)
			qsort(ch->v[i].inst, ch->v[i].n_inst, sizeof(*ch->v[i].inst), cmp_act);
	}
}
