// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "base/sort.h"
#include "base/vec.h"

/* Append @el (of @size bytes) to the vector at *@base. */
static int vec_push(void **base, size_t *n, size_t *cap, size_t size, const void *el,
		    struct nsight_diag *d)
{
	if (*n == *cap && nsight_vec_reserve(base, cap, *n + 1, size))
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	memcpy((char *)*base + *n * size, el, size);
	(*n)++;
	return 0;
}

#define PUSH(cap, name, el, d) \
	vec_push((void **)&(cap)->name, &(cap)->n_##name, &(cap)->cap_##name, \
		 sizeof(*(cap)->name), (el), (d))

int nsight_capture_init(struct nsight_capture *cap, uint32_t nr_cpus, struct nsight_diag *d)
{
	memset(cap, 0, sizeof(*cap));
	cap->nr_cpus = nr_cpus;
	cap->cpus = calloc(nr_cpus ? nr_cpus : 1, sizeof(*cap->cpus));
	if (!cap->cpus)
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	return 0;
}

void nsight_capture_fini(struct nsight_capture *cap)
{
	free(cap->pkts);
	free(cap->handoffs);
	free(cap->copies);
	free(cap->sock_drops);
	free(cap->recvs);
	free(cap->sends);
	free(cap->requests);
	free(cap->starts);
	free(cap->tks);
	free(cap->syncs);
	free(cap->phc);
	free(cap->drops);
	free(cap->cpus);
	memset(cap, 0, sizeof(*cap));
}

/* A pkt_stage record, as the pkt record it stands for. */
static int add_pkt_stage(struct nsight_capture *cap, struct nsight_cap_cpu *c,
			 const struct nsight_rec *rec, struct nsight_cap_meta m,
			 struct nsight_diag *d)
{
	const uint8_t keep = NSIGHT_PKT_F_HWTSTAMP | NSIGHT_PKT_F_WIRE_HASH;
	struct nsight_rec_pkt_stage st;
	struct nsight_cap_pkt p = { .m = m };
	size_t slot;

	memcpy(&st, rec->data, sizeof(st));
	slot = c->pkt_slot[st.pkt_id % NSIGHT_CAP_PKT_SLOTS];
	if (!slot || cap->pkts[slot - 1].r.pkt_id != st.pkt_id) {
		cap->stages_unresolved++;
		return 0;
	}
	p.r = cap->pkts[slot - 1].r;
	p.r.hdr.tsc = rec->hdr.tsc;
	p.r.stage = st.stage;
	p.r.ifindex = st.ifindex;
	p.r.queue = st.queue;
	p.r.gso_segs = st.gso_segs;
	p.r.rc = 0;
	p.r.flags = (uint8_t)((p.r.flags & keep) | (st.flags & ~keep));
	return PUSH(cap, pkts, &p, d);
}

int nsight_capture_add(struct nsight_capture *cap, const struct nsight_rec *rec,
		       struct nsight_diag *d)
{
	struct nsight_cap_meta m = { .offset = rec->offset };
	struct nsight_cap_cpu *c;
	uint64_t tsc = rec->hdr.tsc;

	if (rec->hdr.cpu >= cap->nr_cpus)
		return nsight_diag_set(d, NSIGHT_E_RECORD,
				       "record at byte %" PRIu64 ": cpu %" PRIu32 " is not below the stream's %" PRIu32 " cpus",
				       rec->offset, rec->hdr.cpu, cap->nr_cpus);
	c = &cap->cpus[rec->hdr.cpu];
	if (c->any && tsc < c->max_tsc) {
		m.ooo = true;
		c->ooo++;
		cap->ooo++;
	}

	if (rec->hdr.type == NSIGHT_REC_SUBBUF) {
		struct nsight_rec_subbuf sb;

		memcpy(&sb, rec->data, sizeof(sb));
		if (sb.dropped) {
			struct nsight_drop_window w = {
				.cpu = rec->hdr.cpu,
				.from = c->any ? c->max_tsc : 0,
				.to = tsc,
				.dropped = sb.dropped,
			};
			int err = PUSH(cap, drops, &w, d);

			if (err)
				return err;
		}
	}
	if (!c->any || tsc > c->max_tsc)
		c->max_tsc = tsc;
	c->any = true;

	/* The walker has checked each known type's size. */
	switch (rec->hdr.type) {
	case NSIGHT_REC_PKT: {
		struct nsight_cap_pkt p = { .m = m };
		int err;

		memcpy(&p.r, rec->data, sizeof(p.r));
		err = PUSH(cap, pkts, &p, d);
		if (!err)
			c->pkt_slot[p.r.pkt_id % NSIGHT_CAP_PKT_SLOTS] = cap->n_pkts;
		return err;
	}
	case NSIGHT_REC_PKT_STAGE:
		return add_pkt_stage(cap, c, rec, m, d);
	case NSIGHT_REC_HANDOFF: {
		struct nsight_cap_handoff h = { .m = m };

		memcpy(&h.r, rec->data, sizeof(h.r));
		return PUSH(cap, handoffs, &h, d);
	}
	case NSIGHT_REC_SOCK_DROP: {
		struct nsight_cap_sock_drop sd = { .m = m };

		memcpy(&sd.r, rec->data, sizeof(sd.r));
		return PUSH(cap, sock_drops, &sd, d);
	}
	case NSIGHT_REC_APP_COPY: {
		struct nsight_cap_copy cp = { .m = m };

		memcpy(&cp.r, rec->data, sizeof(cp.r));
		return PUSH(cap, copies, &cp, d);
	}
	case NSIGHT_REC_APP_RECV:
	case NSIGHT_REC_APP_SEND: {
		struct nsight_cap_app a = { .m = m };

		memcpy(&a.r, rec->data, sizeof(a.r));
		a.r.comm[sizeof(a.r.comm) - 1] = '\0';
		if (rec->hdr.type == NSIGHT_REC_APP_RECV)
			return PUSH(cap, recvs, &a, d);
		/* A TCP send's state, where the module wrote it. */
		if (rec->hdr.size >= sizeof(a.r) + sizeof(a.tcp)) {
			memcpy(&a.tcp, rec->data + sizeof(a.r), sizeof(a.tcp));
			a.has_tcp = true;
		}
		return PUSH(cap, sends, &a, d);
	}
	case NSIGHT_REC_APP_RECV_START: {
		struct nsight_rec_app_start st;
		struct nsight_cap_recv_start s;

		memcpy(&st, rec->data, sizeof(st));
		s.tsc = tsc;
		s.tid = st.tid;
		return PUSH(cap, starts, &s, d);
	}
	case NSIGHT_REC_REQUEST: {
		struct nsight_cap_request rq = { .m = m };

		memcpy(&rq.r, rec->data, sizeof(rq.r));
		return PUSH(cap, requests, &rq, d);
	}
	case NSIGHT_REC_TIMEKEEPER: {
		struct nsight_rec_timekeeper tk;

		memcpy(&tk, rec->data, sizeof(tk));
		return PUSH(cap, tks, &tk, d);
	}
	case NSIGHT_REC_CLOCK_SYNC: {
		struct nsight_rec_clock_sync cs;

		memcpy(&cs, rec->data, sizeof(cs));
		return PUSH(cap, syncs, &cs, d);
	}
	}
	return 0;
}

int nsight_capture_add_chunk(struct nsight_capture *cap, const struct nsight_chunk *ch,
			     struct nsight_diag *d)
{
	size_t n, i;

	if (ch->type != NSIGHT_CHUNK_PHC)
		return 0;
	/* The reader checked the size and the ifnames. */
	n = nsight_phc_chunk_count(ch);
	for (i = 0; i < n; i++) {
		struct nsight_phc_sample s;
		int err;

		nsight_phc_chunk_get(ch, i, &s);
		err = PUSH(cap, phc, &s, d);
		if (err)
			return err;
	}
	return 0;
}

/* Sort keys shared by the record arrays. */
static int cmp_key(uint64_t ta, uint32_t ca, uint64_t oa, uint64_t tb, uint32_t cb, uint64_t ob)
{
	if (ta != tb)
		return ta < tb ? -1 : 1;
	if (ca != cb)
		return ca < cb ? -1 : 1;
	return oa < ob ? -1 : oa > ob;
}

#define DEFINE_CMP(name, type)							\
static int name(const void *a, const void *b)					\
{										\
	const type *x = a, *y = b;						\
										\
	return cmp_key(x->r.hdr.tsc, x->r.hdr.cpu, x->m.offset,			\
		       y->r.hdr.tsc, y->r.hdr.cpu, y->m.offset);		\
}

DEFINE_CMP(cmp_pkt, struct nsight_cap_pkt)
DEFINE_CMP(cmp_handoff, struct nsight_cap_handoff)
DEFINE_CMP(cmp_copy, struct nsight_cap_copy)
DEFINE_CMP(cmp_sock_drop, struct nsight_cap_sock_drop)
DEFINE_CMP(cmp_app, struct nsight_cap_app)

static int cmp_drop(const void *a, const void *b)
{
	const struct nsight_drop_window *x = a, *y = b;

	return cmp_key(x->cpu, 0, x->from, y->cpu, 0, y->from);
}

static int cmp_start(const void *a, const void *b)
{
	const struct nsight_cap_recv_start *x = a, *y = b;

	return cmp_key(x->tid, 0, x->tsc, y->tid, 0, y->tsc);
}

static int cmp_recv_by_thread(const void *a, const void *b, void *arg)
{
	const struct nsight_cap_app *recvs = arg;
	const struct nsight_rec_app *x = &recvs[*(const size_t *)a].r;
	const struct nsight_rec_app *y = &recvs[*(const size_t *)b].r;

	return cmp_key(x->tid, 0, x->hdr.tsc, y->tid, 0, y->hdr.tsc);
}

/* qsort() must not see a NULL base, even for no elements (nor this). */
static void sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		nsight_sort(base, n, size, cmp);
}

/*
 * Receives in thread order, starts in thread order: each receive with
 * start_tsc 0 takes the last start of its thread that came after the
 * thread's previous receive and not after it.
 */
static int pair_starts(struct nsight_capture *cap, struct nsight_diag *d)
{
	size_t *idx, i, k = 0;

	if (!cap->n_starts)
		return 0;
	idx = malloc((cap->n_recvs ? cap->n_recvs : 1) * sizeof(*idx));
	if (!idx)
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	for (i = 0; i < cap->n_recvs; i++)
		idx[i] = i;
	if (cap->n_recvs > 1)
		nsight_sort_r(idx, cap->n_recvs, sizeof(*idx), cmp_recv_by_thread, cap->recvs);
	sort(cap->starts, cap->n_starts, sizeof(*cap->starts), cmp_start);
	for (i = 0; i < cap->n_recvs; i++) {
		struct nsight_rec_app *r = &cap->recvs[idx[i]].r;
		uint64_t after = 0, start = 0;

		if (i && cap->recvs[idx[i - 1]].r.tid == r->tid)
			after = cap->recvs[idx[i - 1]].r.hdr.tsc;
		while (k < cap->n_starts && (cap->starts[k].tid < r->tid ||
		       (cap->starts[k].tid == r->tid && cap->starts[k].tsc <= r->hdr.tsc))) {
			if (cap->starts[k].tid == r->tid && cap->starts[k].tsc >= after)
				start = cap->starts[k].tsc;
			k++;
		}
		if (!r->start_tsc)
			r->start_tsc = start;
	}
	free(idx);
	free(cap->starts);
	cap->starts = NULL;
	cap->n_starts = cap->cap_starts = 0;
	return 0;
}

int nsight_capture_finish(struct nsight_capture *cap, const uint64_t *tail_drops,
			  struct nsight_diag *d)
{
	uint32_t i;

	for (i = 0; tail_drops && i < cap->nr_cpus; i++) {
		struct nsight_drop_window w = {
			.cpu = i,
			.from = cap->cpus[i].any ? cap->cpus[i].max_tsc : 0,
			.to = UINT64_MAX,
			.dropped = tail_drops[i],
		};
		int err;

		if (!tail_drops[i])
			continue;
		err = PUSH(cap, drops, &w, d);
		if (err)
			return err;
	}
	if (pair_starts(cap, d))
		return -NSIGHT_E_NOMEM;
	NSIGHT_VEC_SHRINK(cap->pkts, cap->n_pkts, cap->cap_pkts);
	NSIGHT_VEC_SHRINK(cap->handoffs, cap->n_handoffs, cap->cap_handoffs);
	NSIGHT_VEC_SHRINK(cap->copies, cap->n_copies, cap->cap_copies);
	NSIGHT_VEC_SHRINK(cap->recvs, cap->n_recvs, cap->cap_recvs);
	NSIGHT_VEC_SHRINK(cap->sends, cap->n_sends, cap->cap_sends);
	sort(cap->pkts, cap->n_pkts, sizeof(*cap->pkts), cmp_pkt);
	sort(cap->handoffs, cap->n_handoffs, sizeof(*cap->handoffs), cmp_handoff);
	sort(cap->copies, cap->n_copies, sizeof(*cap->copies), cmp_copy);
	sort(cap->sock_drops, cap->n_sock_drops, sizeof(*cap->sock_drops), cmp_sock_drop);
	sort(cap->recvs, cap->n_recvs, sizeof(*cap->recvs), cmp_app);
	sort(cap->sends, cap->n_sends, sizeof(*cap->sends), cmp_app);
	sort(cap->drops, cap->n_drops, sizeof(*cap->drops), cmp_drop);
	cap->finished = true;
	return 0;
}

bool nsight_capture_dropped_within(const struct nsight_capture *cap, uint32_t cpu,
				   uint64_t from, uint64_t to)
{
	size_t lo = 0, hi = cap->n_drops;
	const struct nsight_drop_window *w;

	/*
	 * A CPU's windows are disjoint and in order, so the last one that
	 * starts before @to reaches furthest: find it, see if it passes @from.
	 */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		w = &cap->drops[mid];
		if (w->cpu < cpu || (w->cpu == cpu && w->from < to))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	w = &cap->drops[lo - 1];
	return w->cpu == cpu && w->to > from;
}
