// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose/profile.h"
#include "base/satmath.h"
#include "base/sort.h"
#include "base/vec.h"

#define NONE	NSIGHT_TL_NONE

static const struct nsight_rec_app *recv_at(const struct nsight_profiler *p, size_t i)
{
	return &p->cap->recvs[p->recv_idx[i]].r;
}

/* The receives by (tid, TSC, position): recv_idx and recv_key. */
static int sort_recvs(struct nsight_profiler *p)
{
	struct nsight_sort_rec *v = malloc((p->n_recv ? p->n_recv : 1) * sizeof(*v));
	size_t i;

	if (!v)
		return -NSIGHT_E_NOMEM;
	for (i = 0; i < p->n_recv; i++) {
		const struct nsight_rec_app *r = &p->cap->recvs[i].r;

		v[i] = (struct nsight_sort_rec){ { r->tid, r->hdr.tsc, i }, i };
	}
	nsight_sort_recs(v, p->n_recv);
	for (i = 0; i < p->n_recv; i++) {
		p->recv_idx[i] = (uint32_t)v[i].val;
		p->recv_key[i] = (struct nsight_recv_key){ v[i].key[1], (uint32_t)v[i].key[0] };
	}
	free(v);
	return 0;
}

static bool any_tcp(const struct nsight_cap_app *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].r.flow.protocol == IPPROTO_TCP)
			return true;
	return false;
}

static bool any_hw(const struct nsight_capture *cap)
{
	size_t i;

	for (i = 0; i < cap->n_pkts; i++)
		if (cap->pkts[i].r.flags & NSIGHT_PKT_F_HWTSTAMP)
			return true;
	return false;
}

int nsight_profiler_init(struct nsight_profiler *p, const struct nsight_timeline *tl,
			 const struct nsight_capture *cap, const struct nsight_timeconv *tc,
			 uint64_t hdr_tsc_hz, struct nsight_diag *d)
{
	size_t i;
	bool tcp;
	int r;

	memset(p, 0, sizeof(*p));
	p->tl = tl;
	p->cap = cap;
	p->tc = tc;
	p->tsc_hz = tc->tsc_hz ? tc->tsc_hz : hdr_tsc_hz ? hdr_tsc_hz : 1000000000ULL;
	if (cap->n_recvs >= NONE)
		return nsight_diag_set(d, NSIGHT_E_INVAL, "too many receive records to profile");
	p->n_recv = cap->n_recvs;
	p->recv_idx = malloc((p->n_recv ? p->n_recv : 1) * sizeof(*p->recv_idx));
	p->recv_key = malloc((p->n_recv ? p->n_recv : 1) * sizeof(*p->recv_key));
	p->stamp = calloc(tl->n_ctx ? tl->n_ctx : 1, sizeof(*p->stamp));
	p->stamp_hol = calloc(tl->n_ctx ? tl->n_ctx : 1, sizeof(*p->stamp_hol));
	if (!p->recv_idx || !p->recv_key || !p->stamp || !p->stamp_hol)
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	/*
	 * The keys tcp:<why> exist before any profile is built (tables
	 * sized by the keys are made from then on), where TCP traffic does.
	 */
	for (i = 0; i < __NSIGHT_HOLD_REASONS; i++)
		p->hold_key[i] = NSIGHT_KEY_NONE;
	tcp = any_tcp(cap->sends, cap->n_sends) || any_tcp(cap->recvs, cap->n_recvs);
	for (r = NSIGHT_HOLD_NONE + 1; tcp && r < __NSIGHT_HOLD_REASONS; r++) {
		const char *name = nsight_tcp_hold_name(r);

		p->hold_key[r] = nsight_keys_intern(tl->keys, NSIGHT_KEY_TCP, name, strlen(name));
		if (p->hold_key[r] == NSIGHT_KEY_NONE)
			return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	}
	/* nic:<stretch>, where a packet carries a hardware stamp. */
	for (i = 0; i < __NSIGHT_NIC_STRETCHES; i++)
		p->nic_key[i] = NSIGHT_KEY_NONE;
	if (any_hw(cap)) {
		static const char *const names[__NSIGHT_NIC_STRETCHES] = {
			[NSIGHT_NIC_WIRE_IRQ] = "wire to IRQ",
			[NSIGHT_NIC_IRQ_NAPI] = "IRQ to NAPI",
			[NSIGHT_NIC_WIRE_NAPI] = "wire to NAPI",
		};

		for (i = 0; i < __NSIGHT_NIC_STRETCHES; i++) {
			p->nic_key[i] = nsight_keys_intern(tl->keys, NSIGHT_KEY_NIC, names[i],
							   strlen(names[i]));
			if (p->nic_key[i] == NSIGHT_KEY_NONE)
				return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
		}
	}
	if (sort_recvs(p))
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	return 0;
}

void nsight_profiler_fini(struct nsight_profiler *p)
{
	int r;

	free(p->recv_idx);
	free(p->recv_key);
	free(p->hol);
	for (r = 0; r < NSIGHT_ROLES; r++)
		free(p->slot[r]);
	free(p->stamp);
	free(p->stamp_hol);
	free(p->blk);
	free(p->stamp_blk);
	memset(p, 0, sizeof(*p));
}

int nsight_profiler_set_chains(struct nsight_profiler *p, const struct nsight_threads *c)
{
	free(p->stamp_blk);
	p->chains = c;
	p->stamp_blk = calloc(c->n_wk ? c->n_wk : 1, sizeof(*p->stamp_blk));
	if (!p->stamp_blk) {
		p->chains = NULL;
		return -NSIGHT_E_NOMEM;
	}
	return 0;
}

int64_t nsight_profiler_ns(const struct nsight_profiler *p, uint64_t ticks)
{
	unsigned __int128 ns = (unsigned __int128)ticks * 1000000000U / p->tsc_hz;

	return ns > INT64_MAX ? INT64_MAX : (int64_t)ns;
}

static uint64_t ns_to_ticks(const struct nsight_profiler *p, uint64_t ns)
{
	return nsight_mul_div_u64(ns, p->tsc_hz, 1000000000U);
}

/* ---------------------------------------------------------------------- */
/* Head-of-line periods                                                     */

/* First position in recv_idx of (@tid, TSC >= @tsc). */
static size_t recv_lower(const struct nsight_profiler *p, uint32_t tid, uint64_t tsc)
{
	size_t lo = 0, hi = p->n_recv;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct nsight_recv_key *r = &p->recv_key[mid];

		if (r->tid < tid || (r->tid == tid && r->tsc < tsc))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int hol_push(struct nsight_profiler *p, uint64_t from, uint64_t to)
{
	if (p->n_hol == p->cap_hol) {
		size_t cap = p->cap_hol ? p->cap_hol * 2 : 16;
		struct nsight_hol_period *v = realloc(p->hol, cap * sizeof(*v));

		if (!v)
			return -1;
		p->hol = v;
		p->cap_hol = cap;
	}
	p->hol[p->n_hol++] = (struct nsight_hol_period){ from, to };
	return 0;
}

/*
 * When, within [@lo, @a), the thread of @m was busy with other messages:
 * from the return of its earliest receive of another message (one that
 * returned data) whose processing was still going on at @lo, to the entry
 * of the receive call that returned @m. Receives of other messages in
 * between are part of it: they are that other work too.
 */
static int hol_periods(struct nsight_profiler *p, const struct nsight_msg *m, uint64_t lo)
{
	const struct nsight_msg_time *a = &m->t[NSIGHT_RX_A];
	size_t k = recv_lower(p, m->tid, a->tsc), j, first;
	uint64_t from = UINT64_MAX, to;

	p->n_hol = 0;
	p->entry = a->tsc;
	for (; k < p->n_recv; k++) {
		const struct nsight_rec_app *r = recv_at(p, k);

		if (r->tid != m->tid || r->hdr.tsc != a->tsc)
			return 0;	/* not found: no periods */
		if (r->hdr.cpu == a->cpu)
			break;
	}
	if (k == p->n_recv)
		return 0;
	p->entry = recv_at(p, k)->start_tsc;
	first = recv_lower(p, m->tid, 0);
	/* Back while the next receive was entered inside the window. */
	for (j = k; j > first; j--) {
		const struct nsight_rec_app *r = recv_at(p, j - 1);

		if (recv_at(p, j)->start_tsc <= lo)
			break;
		if (r->ret > 0)
			from = r->hdr.tsc;
	}
	if (from == UINT64_MAX)
		return 0;
	from = from > lo ? from : lo;
	to = recv_at(p, k)->start_tsc;
	to = to < a->tsc ? to : a->tsc;
	if (from < to && hol_push(p, from, to))
		return -1;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* The walk                                                                 */

struct walk {
	struct nsight_profiler *p;
	uint32_t tid;
	uint8_t role;
	nsight_piece_fn fn;
	void *arg;
};

static int gap_piece(struct walk *w, uint64_t ticks, bool lost)
{
	struct nsight_piece pc = {
		.ticks = ticks, .role = w->role, .depth = 1, .lost = lost,
		.key = { NSIGHT_KEY_ID_UNKNOWN },
		.occ = { lost ? NSIGHT_CTX_LOST : NSIGHT_CTX_UNKNOWN },
	};

	return ticks ? w->fn(w->arg, &pc) : 0;
}

/* One segment's stretch [@s, @e): its chain, cut where head-of-line periods begin or end. */
static int seg_piece(struct walk *w, const struct nsight_seg *seg, uint64_t s, uint64_t e)
{
	const struct nsight_timeline *tl = w->p->tl;
	const struct nsight_ctx *x = &tl->ctx[seg->ctx];
	struct nsight_piece pc = { .role = w->role };
	int app = -1, ret;
	uint32_t c;
	size_t h;

	if (seg->ctx == NSIGHT_CTX_LOST)
		return gap_piece(w, e - s, true);
	pc.key[0] = seg->key;
	pc.occ[0] = x->occ;
	pc.depth = 1;
	if (!nsight_ctx_is_gap(x->kind)) {
		pc.depth = 0;
		for (c = seg->ctx; c != NONE && pc.depth < NSIGHT_TL_DEPTH; c = tl->ctx[c].parent) {
			const struct nsight_ctx *y = &tl->ctx[c];
			uint32_t key = y->key;
			uint8_t i;

			if (nsight_ctx_is_gap(y->kind))
				break;
			if (y->kind == NSIGHT_CTX_K_TASK && y->tid == w->tid) {
				key = NSIGHT_KEY_ID_APP;
				app = pc.depth;
			}
			/* A function of the message's own thread, under "app". */
			if (y->kind == NSIGHT_CTX_K_FUNC && y->tid == w->tid &&
			    tl->keys->v[key].app != NSIGHT_KEY_NONE)
				key = tl->keys->v[key].app;
			for (i = 0; i < pc.depth && pc.key[i] != key; i++)
				;
			if (i < pc.depth) {
				if (app == pc.depth)
					app = i;
				continue;
			}
			pc.key[pc.depth] = key;
			pc.occ[pc.depth++] = y->occ;
		}
	}
	if (app < 0 || !w->p->n_hol) {
		pc.ticks = e - s;
		return pc.ticks ? w->fn(w->arg, &pc) : 0;
	}

	/* The periods are few and ordered: find the first ending after s. */
	for (h = 0; h < w->p->n_hol && w->p->hol[h].to <= s; h++)
		;
	while (s < e) {
		const struct nsight_hol_period *hp = h < w->p->n_hol ? &w->p->hol[h] : NULL;
		uint64_t end = e;

		if (hp && hp->from <= s) {
			pc.key[app] = NSIGHT_KEY_ID_HOL;
			end = hp->to < e ? hp->to : e;
			h++;
		} else {
			pc.key[app] = NSIGHT_KEY_ID_APP;
			if (hp && hp->from < e)
				end = hp->from;
		}
		pc.ticks = end - s;
		ret = w->fn(w->arg, &pc);
		if (ret)
			return ret;
		s = end;
	}
	return 0;
}

static int walk_window(struct walk *w, uint32_t cpu, uint64_t s, uint64_t e)
{
	const struct nsight_timeline *tl = w->p->tl;
	const struct nsight_tl_cpu *c;
	ssize_t i;
	int ret;

	if (s >= e)
		return 0;
	if (cpu >= tl->nr_cpus || !tl->cpus[cpu].any || !tl->cpus[cpu].n)
		return gap_piece(w, e - s, false);
	c = &tl->cpus[cpu];
	if (s < c->segs[0].start) {
		uint64_t to = e < c->segs[0].start ? e : c->segs[0].start;

		ret = gap_piece(w, to - s, false);
		if (ret)
			return ret;
		s = to;
	}
	i = nsight_tl_find(tl, cpu, s);
	for (; i >= 0 && (size_t)i < c->n && s < e && s < c->last; i++) {
		uint64_t end = nsight_tl_seg_end(tl, cpu, (size_t)i);

		if (end > e)
			end = e;
		if (end <= s)
			continue;
		ret = seg_piece(w, &c->segs[i], s, end);
		if (ret)
			return ret;
		s = end;
	}
	return s < e ? gap_piece(w, e - s, c->lost_after) : 0;
}

/* ---------------------------------------------------------------------- */
/* Blocked time                                                             */

static int on_blk_span(void *arg, const struct nsight_thr_span *sp)
{
	struct nsight_profiler *p = arg;
	const struct nsight_thr_wake *w;

	if (sp->state != NSIGHT_THR_BLOCKED || sp->wake == NSIGHT_CHAIN_NONE)
		return 0;
	w = &p->chains->wk[sp->wake];
	if (!w->waker_tid || w->key == NSIGHT_KEY_NONE)
		return 0;
	if (NSIGHT_VEC_GROW(p->blk, p->n_blk, p->cap_blk))
		return -NSIGHT_E_NOMEM;
	p->blk[p->n_blk++] = (struct nsight_blk_period){ sp->from, sp->to, w->key, sp->wake };
	return 0;
}

/* Where @m's thread slept within [@s, @e) until a task woke it. */
static int blocked_periods(struct nsight_profiler *p, const struct nsight_msg *m, uint64_t s,
			   uint64_t e)
{
	p->n_blk = 0;
	if (!p->chains || s >= e)
		return 0;
	return nsight_threads_spans(p->chains, m->tid, s, e, on_blk_span, p);
}

/* The application window: blocked periods alone, the core's contexts elsewhere. */
static int walk_app_window(struct walk *w, uint32_t cpu, uint64_t s, uint64_t e)
{
	struct nsight_profiler *p = w->p;
	size_t i;
	int ret;

	for (i = 0; i < p->n_blk && s < e; i++) {
		const struct nsight_blk_period *b = &p->blk[i];
		struct nsight_piece pc = {
			.role = w->role, .depth = 1, .blocked = true,
			.key = { b->key }, .occ = { b->wake },
		};
		uint64_t to = b->to < e ? b->to : e;

		if (b->from > s) {
			ret = walk_window(w, cpu, s, b->from < e ? b->from : e);
			if (ret)
				return ret;
			s = b->from;
		}
		if (to <= s)
			continue;
		pc.ticks = to - s;
		ret = w->fn(w->arg, &pc);
		if (ret)
			return ret;
		s = to;
	}
	return walk_window(w, cpu, s, e);
}

static int nic_piece(struct walk *w, uint32_t key, uint64_t ticks)
{
	struct nsight_piece pc = { .ticks = ticks, .role = w->role, .depth = 1, .key = { key } };

	return ticks ? w->fn(w->arg, &pc) : 0;
}

/*
 * [@s, @e) of a packet in the NIC, @e its first record on @cpu: cut at the
 * start of the last hard interrupt that began on @cpu in it.
 */
static int walk_nic(struct walk *w, uint32_t cpu, uint64_t s, uint64_t e)
{
	const struct nsight_timeline *tl = w->p->tl;
	const uint32_t *k = w->p->nic_key;
	uint64_t irq = 0;
	uint32_t prev = NONE;
	ssize_t i;
	int ret;

	if (cpu < tl->nr_cpus && tl->cpus[cpu].n) {
		const struct nsight_tl_cpu *c = &tl->cpus[cpu];

		i = nsight_tl_find(tl, cpu, s);
		for (i = i < 0 ? 0 : i; (size_t)i < c->n && c->segs[i].start < e; i++) {
			uint32_t x = c->segs[i].ctx;

			if (x < tl->n_ctx && tl->ctx[x].kind == NSIGHT_CTX_K_IRQ && x != prev &&
			    nsight_tl_seg_end(tl, cpu, (size_t)i) > s)
				irq = c->segs[i].start > s ? c->segs[i].start : s;
			prev = x;
		}
	}
	if (!irq)
		return nic_piece(w, k[NSIGHT_NIC_WIRE_NAPI], e - s);
	ret = nic_piece(w, k[NSIGHT_NIC_WIRE_IRQ], irq - s);
	return ret ? ret : nic_piece(w, k[NSIGHT_NIC_IRQ_NAPI], e - irq);
}

/*
 * The window [@start, @end) on @cpu. TCP bytes that waited in it (in the
 * send queue, or on receive for a hole before them) make that wait one
 * piece, tcp:<why>, whatever the CPU did meanwhile; the rest is the core's
 * contexts.
 */
static int walk_msg_window(struct walk *w, const struct nsight_msg *m, uint32_t cpu, uint64_t start,
		     uint64_t end)
{
	struct nsight_piece pc = {
		.ticks = m->hold_to - m->hold_from, .role = w->role, .depth = 1, .held = true,
	};
	int ret;

	if (!m->hold || m->hold >= __NSIGHT_HOLD_REASONS ||
	    w->p->hold_key[m->hold] == NSIGHT_KEY_NONE || m->hold_from < start ||
	    m->hold_to <= m->hold_from || m->hold_to > end)
		return walk_window(w, cpu, start, end);
	pc.key[0] = w->p->hold_key[m->hold];
	ret = walk_window(w, cpu, start, m->hold_from);
	if (!ret)
		ret = w->fn(w->arg, &pc);
	return ret ? ret : walk_window(w, cpu, m->hold_to, end);
}

bool nsight_msg_window(const struct nsight_msg *m, uint8_t role, uint32_t *cpu, uint64_t *from,
		       uint64_t *to)
{
	const struct nsight_msg_time *s, *e;

	if (m->dir == NSIGHT_MSG_TX) {
		s = &m->t[NSIGHT_TX_SEND];
		e = m->t[NSIGHT_TX_DONE].valid ? &m->t[NSIGHT_TX_DONE] : &m->t[NSIGHT_TX_XMIT];
		*cpu = s->cpu;
	} else if (role == NSIGHT_ROLE_R) {
		s = &m->t[NSIGHT_RX_N];
		e = &m->t[NSIGHT_RX_H];
		*cpu = e->cpu;
	} else {
		s = &m->t[NSIGHT_RX_H];
		e = &m->t[NSIGHT_RX_A];
		*cpu = e->cpu;
	}
	if (!s->valid || !e->valid || e->tsc < s->tsc)
		return false;
	*from = s->tsc;
	*to = e->tsc;
	return true;
}

uint64_t nsight_profile_rx_start(const struct nsight_profiler *p, const struct nsight_msg *m)
{
	const struct nsight_msg_time *n = &m->t[NSIGHT_RX_N];
	int64_t rec_mono;
	uint64_t back;

	if (!n->hw || !n->timed ||
	    nsight_tc_convert(p->tc, n->tsc, NSIGHT_CLOCK_MONOTONIC, &rec_mono) == NSIGHT_TC_UNAVAILABLE ||
	    rec_mono <= n->mono_ns)
		return n->tsc;
	back = ns_to_ticks(p, (uint64_t)rec_mono - (uint64_t)n->mono_ns);
	return back < n->tsc ? n->tsc - back : 0;
}

int nsight_profile_walk(struct nsight_profiler *p, const struct nsight_msg *m,
			nsight_piece_fn fn, void *arg)
{
	struct walk w = { .p = p, .tid = m->tid, .fn = fn, .arg = arg };
	int ret;

	if (m->reason != NSIGHT_MSG_COMPLETE)
		return -NSIGHT_E_INVAL;
	p->n_hol = 0;
	if (m->dir == NSIGHT_MSG_RX) {
		const struct nsight_msg_time *h = &m->t[NSIGHT_RX_H], *a = &m->t[NSIGHT_RX_A];
		const struct nsight_msg_time *sw = &m->t[NSIGHT_RX_N];
		uint64_t n = nsight_profile_rx_start(p, m);

		if (n > h->tsc)
			n = h->tsc;
		if (hol_periods(p, m, n) ||
		    blocked_periods(p, m, h->tsc, p->entry < a->tsc ? p->entry : a->tsc))
			return -NSIGHT_E_NOMEM;
		/*
		 * The role is the core's: when the receive processing ran on
		 * the application core itself (RPS, or the sender there), its
		 * window is application-core time too.
		 */
		w.role = h->cpu == a->cpu ? NSIGHT_ROLE_A : NSIGHT_ROLE_R;
		/* A hardware NIC time: the packet's time in the NIC first. */
		if (n < sw->tsc && sw->tsc <= h->tsc && p->nic_key[0] != NSIGHT_KEY_NONE) {
			ret = walk_nic(&w, sw->cpu, n, sw->tsc);
			if (ret)
				return ret;
			n = sw->tsc;
		}
		ret = walk_msg_window(&w, m, h->cpu, n, h->tsc);
		if (ret)
			return ret;
		w.role = NSIGHT_ROLE_A;
		return walk_app_window(&w, a->cpu, h->tsc, a->tsc);
	} else {
		const struct nsight_msg_time *s = &m->t[NSIGHT_TX_SEND];
		const struct nsight_msg_time *e = m->t[NSIGHT_TX_DONE].valid ?
						  &m->t[NSIGHT_TX_DONE] : &m->t[NSIGHT_TX_XMIT];

		w.role = NSIGHT_ROLE_A;
		return walk_msg_window(&w, m, s->cpu, s->tsc, e->tsc);
	}
}

/* ---------------------------------------------------------------------- */
/* Profiles                                                                 */

struct build {
	struct nsight_profiler *p;
	struct nsight_profile *out;
	uint64_t win[NSIGHT_ROLES];
};

static int slots_fit(struct nsight_profiler *p)
{
	size_t n = p->tl->keys->n, r;

	if (n <= p->n_slot)
		return 0;
	for (r = 0; r < NSIGHT_ROLES; r++) {
		uint32_t *s = realloc(p->slot[r], n * sizeof(*s));

		if (!s)
			return -1;
		memset(s + p->n_slot, 0, (n - p->n_slot) * sizeof(*s));
		p->slot[r] = s;
	}
	p->n_slot = n;
	return 0;
}

static struct nsight_prof_ent *entry(struct build *b, uint8_t role, uint32_t key)
{
	struct nsight_profile *o = b->out;
	uint32_t *slot;

	if (key >= b->p->n_slot)
		return NULL;
	slot = &b->p->slot[role][key];
	if (*slot)
		return &o->v[*slot - 1];
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 16;
		struct nsight_prof_ent *v = realloc(o->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		o->v = v;
		o->cap = cap;
	}
	o->v[o->n] = (struct nsight_prof_ent){ .key = key, .role = role };
	*slot = (uint32_t)++o->n;
	return &o->v[o->n - 1];
}

static int on_piece(void *arg, const struct nsight_piece *pc)
{
	struct build *b = arg;
	uint64_t stamp = b->p->walk + pc->role, *st;
	uint8_t i;

	b->win[pc->role] += pc->ticks;
	if (pc->lost)
		b->out->lost = true;
	for (i = 0; i < pc->depth; i++) {
		struct nsight_prof_ent *e = entry(b, pc->role, pc->key[i]);

		if (!e)
			return -NSIGHT_E_NOMEM;
		/* Ticks until the end; ns once the walk is over. */
		if (!i)
			e->excl = nsight_sat_add(e->excl, (int64_t)pc->ticks);
		e->incl = nsight_sat_add(e->incl, (int64_t)pc->ticks);
		if (pc->held) {
			e->count++;
			continue;
		}
		st = pc->blocked ? &b->p->stamp_blk[pc->occ[i]] :
		     pc->key[i] == NSIGHT_KEY_ID_HOL ? &b->p->stamp_hol[pc->occ[i]] :
						       &b->p->stamp[pc->occ[i]];
		if (*st != stamp) {
			*st = stamp;
			e->count++;
		}
	}
	return 0;
}

int nsight_profile_build(struct nsight_profiler *p, const struct nsight_msg *m,
			 struct nsight_profile *out, struct nsight_diag *d)
{
	struct build b = { .p = p, .out = out };
	size_t i;
	int ret, r;

	out->n = 0;
	out->lost = false;
	if (slots_fit(p))
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	p->walk += NSIGHT_ROLES;
	ret = nsight_profile_walk(p, m, on_piece, &b);
	for (i = 0; i < out->n; i++) {
		struct nsight_prof_ent *e = &out->v[i];

		p->slot[e->role][e->key] = 0;
		e->excl = nsight_profiler_ns(p, (uint64_t)e->excl);
		e->incl = nsight_profiler_ns(p, (uint64_t)e->incl);
	}
	for (r = 0; r < NSIGHT_ROLES; r++)
		out->window_ns[r] = nsight_profiler_ns(p, b.win[r]);
	if (ret == -NSIGHT_E_NOMEM)
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	if (ret)
		return nsight_diag_set(d, NSIGHT_E_INVAL, "message %" PRIu64 " is incomplete", m->id);
	return 0;
}

void nsight_profile_fini(struct nsight_profile *pr)
{
	free(pr->v);
	memset(pr, 0, sizeof(*pr));
}

const struct nsight_prof_ent *nsight_profile_get(const struct nsight_profile *pr,
						 uint8_t role, uint32_t key)
{
	size_t i;

	for (i = 0; i < pr->n; i++)
		if (pr->v[i].role == role && pr->v[i].key == key)
			return &pr->v[i];
	return NULL;
}
