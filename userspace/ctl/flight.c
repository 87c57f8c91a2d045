// SPDX-License-Identifier: MIT
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "dump.h"
#include "flight.h"
#include "format/records.h"
#include "base/satmath.h"
#include "base/vec.h"

/*
 * The trigger's joins are direct-mapped tables: a packet id is a keyed
 * hash, so its low bits index well, and an entry pushed out by a newer
 * one only costs a trigger on a message older than the table's reach
 * (START_SLOTS packets back, some seconds at the rates a guest sustains).
 */
#define START_SLOTS	(1U << 17)
#define PENDING_SLOTS	(1U << 14)
#define TID_SLOTS	(1U << 12)
#define TK_RING		1024	/* timekeeper records: 4 s at HZ=250 when every tick writes one, 100 s at one per 100 ms */

struct nsight_flight_start {
	uint64_t pkt_id, tsc;
	uint32_t cpu, used;
};

struct nsight_flight_pending {
	uint64_t pkt_id;
	uint32_t cpu, used;
	struct nsight_rec_app r;
};

struct nsight_flight_tid {
	uint32_t tid, used;
	uint64_t pkt_id;	/* the first packet copied since its last receive; 0: none */
};

static int nomem(struct nsight_diag *d)
{
	return nsight_diag_set(d, ENOMEM, "out of memory");
}

int nsight_trigger_parse(const char *expr, uint64_t *threshold_ns, struct nsight_diag *d)
{
	static const char key[] = "latency>";

	if (strncmp(expr, key, sizeof(key) - 1) ||
	    nsight_parse_duration(expr + sizeof(key) - 1, threshold_ns) || !*threshold_ns)
		return nsight_diag_set(d, EINVAL,
				       "bad trigger '%s': expected latency>DURATION with a unit ns, us or ms (e.g. latency>500us)",
				       expr);
	return 0;
}

static uint64_t ns_to_ticks(const struct nsight_flight *f, uint64_t ns)
{
	return nsight_mul_div_u64(ns, f->tsc_hz, 1000000000ULL);
}

static uint64_t ticks_to_ns(const struct nsight_flight *f, uint64_t ticks)
{
	return nsight_mul_div_u64(ticks, 1000000000ULL, f->tsc_hz);
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return UINT64_MAX - a < b ? UINT64_MAX : a + b;
}

int nsight_flight_init(struct nsight_flight *f, const struct nsight_flight_opts *o,
		       uint32_t nr_cpus, uint64_t tsc_hz, struct nsight_stream_writer *w,
		       struct nsight_diag *d)
{
	memset(f, 0, sizeof(*f));
	if (!tsc_hz)
		return nsight_diag_set(d, EINVAL, "the module gives no TSC frequency: no latency to trigger on");
	f->o = *o;
	if (!f->o.hold_max)
		f->o.hold_max = NSIGHT_FLIGHT_HOLD_MAX;
	f->w = w;
	f->nr_cpus = nr_cpus;
	f->tsc_hz = tsc_hz;
	f->threshold = ns_to_ticks(f, o->threshold_ns);
	f->before = ns_to_ticks(f, o->before_ns);
	f->after = ns_to_ticks(f, o->after_ns);
	/*
	 * How long a sub-buffer is held: a trigger reaches back --before
	 * ahead of a message's start, which is its latency ahead of its
	 * receive; the CPUs' buffers also reach the reader up to a
	 * sub-buffer apart. Slower messages get a window cut at the front.
	 */
	f->keep = sat_add(sat_add(f->before, ns_to_ticks(f, 1000000000ULL)),
			  sat_add(f->threshold, f->threshold));
	f->cpus = calloc(nr_cpus ? nr_cpus : 1, sizeof(*f->cpus));
	f->starts = calloc(START_SLOTS, sizeof(*f->starts));
	f->pending = calloc(PENDING_SLOTS, sizeof(*f->pending));
	f->tids = calloc(TID_SLOTS, sizeof(*f->tids));
	f->tk = calloc(TK_RING, sizeof(*f->tk));
	if (!f->cpus || !f->starts || !f->pending || !f->tids || !f->tk) {
		nsight_flight_fini(f);
		return nomem(d);
	}
	for (uint32_t i = 0; i < nr_cpus; i++)
		nsight_cdec_init(&f->cpus[i].dec);
	return 0;
}

static void sub_free(struct nsight_flight_sub *s)
{
	free(s->data);
	memset(s, 0, sizeof(*s));
}

void nsight_flight_fini(struct nsight_flight *f)
{
	uint32_t i;
	size_t j;

	for (i = 0; f->cpus && i < f->nr_cpus; i++) {
		for (j = 0; j < f->cpus[i].n_held; j++)
			sub_free(&f->cpus[i].held[j]);
		free(f->cpus[i].held);
		sub_free(&f->cpus[i].cur);
		nsight_cdec_fini(&f->cpus[i].dec);
	}
	free(f->cpus);
	free(f->starts);
	free(f->pending);
	free(f->tids);
	free(f->tk);
	free(f->wins);
	f->cpus = NULL;
	f->starts = NULL;
	f->pending = NULL;
	f->tids = NULL;
	f->tk = NULL;
	f->wins = NULL;
}

/* ---------------------------------------------------------------------- */
/* Writing                                                                  */

static int write_err(struct nsight_flight *f, struct nsight_diag *d)
{
	return nsight_diag_set(d, EIO, "%s", f->w->diag.msg);
}

static int flush_skip(struct nsight_flight *f, uint32_t cpu, struct nsight_diag *d)
{
	struct nsight_flight_cpu *c = &f->cpus[cpu];

	if (!c->skipping)
		return 0;
	if (nsight_stream_write_chunk(f->w, NSIGHT_CHUNK_SKIP, cpu, &c->skip, sizeof(c->skip)))
		return write_err(f, d);
	c->skipping = false;
	return 0;
}

/* A sub-buffer's records as RECORDS chunks, cut at record boundaries. */
static int write_sub(struct nsight_flight *f, uint32_t cpu, const struct nsight_flight_sub *s,
		     struct nsight_diag *d)
{
	size_t at = 0;
	int err = flush_skip(f, cpu, d);

	while (!err && at < s->len) {
		size_t left = s->len - at;
		size_t n = nsight_records_whole_prefix(s->data + at,
						       left < NSIGHT_DUMP_CHUNK_MAX ? left : NSIGHT_DUMP_CHUNK_MAX);

		if (n == 0)
			n = left;	/* one record above the chunk size: whole */
		if (nsight_stream_write_records(f->w, cpu, s->data + at, n))
			return write_err(f, d);
		at += n;
	}
	if (!err)
		f->saved_bytes += s->len;
	return err;
}

static void skip_sub(struct nsight_flight *f, uint32_t cpu, const struct nsight_flight_sub *s)
{
	struct nsight_stream_skip *k = &f->cpus[cpu].skip;

	if (!f->cpus[cpu].skipping) {
		memset(k, 0, sizeof(*k));
		k->seq_first = s->seq;
		k->tsc_first = s->tsc_first;
		f->cpus[cpu].skipping = true;
	}
	k->seq_last = s->seq;
	k->records += s->records;
	k->bytes += s->len;
	k->dropped += s->dropped;
	k->tsc_last = s->tsc_last;
	f->skipped_records += s->records;
	f->skipped_bytes += s->len;
}

static bool in_a_window(const struct nsight_flight *f, uint64_t lo, uint64_t hi)
{
	size_t i;

	for (i = f->n_wins; i-- > 0;)
		if (f->wins[i].t.window_lo_tsc <= hi && f->wins[i].t.window_hi_tsc >= lo)
			return true;
	return false;
}

/* The oldest held sub-buffer of @cpu leaves memory: written or skipped. */
static int release_oldest(struct nsight_flight *f, uint32_t cpu, struct nsight_diag *d)
{
	struct nsight_flight_cpu *c = &f->cpus[cpu];
	struct nsight_flight_sub s = c->held[0];
	int err = 0;

	if (in_a_window(f, s.tsc_first, s.tsc_last)) {
		err = write_sub(f, cpu, &s, d);
	} else {
		/* A gap in the kernel's sequence stays visible. */
		if (c->skipping && s.seq != c->skip.seq_last + 1)
			err = flush_skip(f, cpu, d);
		if (!err)
			skip_sub(f, cpu, &s);
	}
	c->held_bytes -= s.len;
	sub_free(&s);
	memmove(c->held, c->held + 1, (c->n_held - 1) * sizeof(*c->held));
	c->n_held--;
	return err;
}

/* The timekeeper record in force at @tsc (the latest before it), or NULL. */
static const struct nsight_rec_timekeeper *tk_at(const struct nsight_flight *f, uint64_t tsc)
{
	const struct nsight_rec_timekeeper *best = NULL;
	size_t i;

	for (i = 0; i < f->n_tk; i++) {
		const struct nsight_rec_timekeeper *t = &f->tk[i];

		if (t->hdr.tsc < tsc && (!best || t->hdr.tsc > best->hdr.tsc))
			best = t;
	}
	return best;
}

static int write_trigger(struct nsight_flight *f, struct nsight_flight_win *win,
			 struct nsight_diag *d)
{
	uint8_t buf[sizeof(struct nsight_stream_trigger) + sizeof(struct nsight_rec_clock_sync) +
		    sizeof(struct nsight_rec_timekeeper)];
	const struct nsight_rec_timekeeper *tk = tk_at(f, win->t.window_lo_tsc);
	size_t len = sizeof(win->t);

	/* The one noted when the window opened, if the ring has moved past it. */
	if (win->have_tk && win->t.window_lo_tsc > win->tk.hdr.tsc &&
	    (!tk || tk->hdr.tsc < win->tk.hdr.tsc))
		tk = &win->tk;

	memcpy(buf, &win->t, sizeof(win->t));
	if (f->have_sync) {
		memcpy(buf + len, f->sync, sizeof(f->sync));
		len += sizeof(f->sync);
	}
	if (tk) {
		memcpy(buf + len, tk, sizeof(*tk));
		len += sizeof(*tk);
	}
	if (nsight_stream_write_chunk(f->w, NSIGHT_CHUNK_TRIGGER, NSIGHT_CHUNK_NO_CPU, buf, len))
		return write_err(f, d);
	win->written = true;
	return 0;
}

/*
 * Let go of what is old enough (everything with @all): windows that no
 * later message can extend get their TRIGGER chunk, sub-buffers that no
 * new window can reach are written or skipped.
 */
static int release(struct nsight_flight *f, bool all, struct nsight_diag *d)
{
	uint64_t horizon = f->newest > f->keep ? f->newest - f->keep : 0;
	uint32_t i;
	size_t k;
	int err = 0;

	for (k = 0; k < f->n_wins && !err; k++)
		if (!f->wins[k].written && (all || f->wins[k].t.window_hi_tsc < horizon))
			err = write_trigger(f, &f->wins[k], d);
	for (i = 0; i < f->nr_cpus && !err; i++) {
		struct nsight_flight_cpu *c = &f->cpus[i];

		while (!err && c->n_held &&
		       (all || c->held[0].tsc_last < horizon || c->held_bytes > f->o.hold_max))
			err = release_oldest(f, i, d);
		if (!err && all)
			err = flush_skip(f, i, d);
	}
	return err;
}

/* ---------------------------------------------------------------------- */
/* The trigger                                                              */

static int fire(struct nsight_flight *f, uint64_t pkt_id, uint64_t start_tsc, uint32_t rx_cpu,
		const struct nsight_rec_app *r, uint32_t app_cpu, struct nsight_diag *d)
{
	uint64_t recv = r->hdr.tsc, lat, lo, hi;
	struct nsight_flight_win *last = f->n_wins ? &f->wins[f->n_wins - 1] : NULL;
	const struct nsight_rec_timekeeper *tk;
	struct nsight_stream_trigger *t;

	if (recv <= start_tsc)
		return 0;
	lat = ticks_to_ns(f, recv - start_tsc);
	if (lat <= f->o.threshold_ns)
		return 0;
	f->triggers++;
	lo = start_tsc > f->before ? start_tsc - f->before : 0;
	hi = sat_add(recv, f->after);
	if (last && !last->written && start_tsc <= last->t.window_hi_tsc) {
		last->t.more++;
		if (hi > last->t.window_hi_tsc)
			last->t.window_hi_tsc = hi;
		if (lo < last->t.window_lo_tsc)
			last->t.window_lo_tsc = lo;
		return 0;
	}
	if (NSIGHT_VEC_GROW(f->wins, f->n_wins, f->cap_wins))
		return nomem(d);
	t = &f->wins[f->n_wins].t;
	memset(&f->wins[f->n_wins], 0, sizeof(f->wins[0]));
	t->seq = f->n_wins++;
	t->pkt_id = pkt_id;
	t->start_tsc = start_tsc;
	t->recv_tsc = recv;
	t->latency_ns = lat;
	t->threshold_ns = f->o.threshold_ns;
	t->window_lo_tsc = lo;
	t->window_hi_tsc = hi;
	t->flow = r->flow;
	t->sock_id = r->sock_id;
	t->tid = r->tid;
	t->pid = r->pid;
	t->rx_cpu = rx_cpu;
	t->app_cpu = app_cpu;
	memcpy(t->comm, r->comm, sizeof(t->comm));
	/* The timekeeper record in force at its start: the ring may roll on before it is written. */
	tk = tk_at(f, lo);
	if (tk) {
		f->wins[f->n_wins - 1].tk = *tk;
		f->wins[f->n_wins - 1].have_tk = true;
	}
	return 0;
}

static bool wanted(const struct nsight_flight *f, const struct nsight_rec_app *r)
{
	if (f->o.app && strncmp(r->comm, f->o.app, sizeof(r->comm)))
		return false;
	return !f->o.port || r->flow.sport == f->o.port;
}

static int on_pkt(struct nsight_flight *f, const struct nsight_rec *rec, struct nsight_diag *d)
{
	struct nsight_flight_start *s;
	struct nsight_flight_pending *p;
	struct nsight_rec_pkt pk;

	/*
	 * A later stage refers to the packet's record on its CPU; a veth or
	 * loopback packet's receive may be one, after its send's record.
	 */
	if (rec->hdr.type == NSIGHT_REC_PKT_STAGE) {
		struct nsight_rec_pkt_stage st;

		memcpy(&st, rec->data, sizeof(st));
		pk.pkt_id = st.pkt_id;
		pk.stage = st.stage;
	} else {
		memcpy(&pk, rec->data, sizeof(pk));
	}
	if (pk.stage != NSIGHT_PKT_RX_NETIF_RX && pk.stage != NSIGHT_PKT_RX_GRO &&
	    pk.stage != NSIGHT_PKT_RX_RECEIVE)
		return 0;
	s = &f->starts[pk.pkt_id & (START_SLOTS - 1)];
	if (s->used && s->pkt_id == pk.pkt_id) {
		if (rec->hdr.tsc < s->tsc) {
			s->tsc = rec->hdr.tsc;
			s->cpu = rec->hdr.cpu;
		}
	} else {
		*s = (struct nsight_flight_start){ .pkt_id = pk.pkt_id, .tsc = rec->hdr.tsc,
						   .cpu = rec->hdr.cpu, .used = 1 };
	}
	/* Its receive was read first (another CPU's buffer came sooner). */
	p = &f->pending[pk.pkt_id & (PENDING_SLOTS - 1)];
	if (!p->used || p->pkt_id != pk.pkt_id)
		return 0;
	p->used = 0;
	return fire(f, pk.pkt_id, s->tsc, s->cpu, &p->r, p->cpu, d);
}

static void on_copy(struct nsight_flight *f, const struct nsight_rec *rec)
{
	struct nsight_flight_tid *t;
	struct nsight_rec_app_copy c;

	memcpy(&c, rec->data, sizeof(c));
	t = &f->tids[c.tid & (TID_SLOTS - 1)];
	if (!t->used || t->tid != c.tid)
		*t = (struct nsight_flight_tid){ .tid = c.tid, .used = 1 };
	if (!t->pkt_id)
		t->pkt_id = c.pkt_id;	/* the oldest data of this receive */
}

static int on_recv(struct nsight_flight *f, const struct nsight_rec *rec, struct nsight_diag *d)
{
	const struct nsight_flight_start *s;
	struct nsight_flight_pending *p;
	struct nsight_flight_tid *t;
	struct nsight_rec_app r;
	uint64_t pkt;

	memcpy(&r, rec->data, sizeof(r));
	t = &f->tids[r.tid & (TID_SLOTS - 1)];
	if (!t->used || t->tid != r.tid || !t->pkt_id)
		return 0;
	pkt = t->pkt_id;
	t->pkt_id = 0;
	if (r.ret <= 0 || !wanted(f, &r))
		return 0;
	s = &f->starts[pkt & (START_SLOTS - 1)];
	if (s->used && s->pkt_id == pkt)
		return fire(f, pkt, s->tsc, s->cpu, &r, rec->hdr.cpu, d);
	p = &f->pending[pkt & (PENDING_SLOTS - 1)];
	*p = (struct nsight_flight_pending){ .pkt_id = pkt, .cpu = rec->hdr.cpu, .used = 1, .r = r };
	return 0;
}

static int observe(struct nsight_flight *f, const struct nsight_rec *rec, struct nsight_diag *d)
{
	switch (rec->hdr.type) {
	case NSIGHT_REC_PKT:
	case NSIGHT_REC_PKT_STAGE:
		return on_pkt(f, rec, d);
	case NSIGHT_REC_APP_COPY:
		on_copy(f, rec);
		break;
	case NSIGHT_REC_APP_RECV:
		return on_recv(f, rec, d);
	case NSIGHT_REC_CLOCK_SYNC:
		memcpy(f->sync, rec->data, sizeof(f->sync));
		((struct nsight_rec_hdr *)(void *)f->sync)->size = sizeof(f->sync);
		f->have_sync = true;
		break;
	case NSIGHT_REC_TIMEKEEPER:
		memcpy(&f->tk[f->tk_head], rec->data, sizeof(f->tk[0]));
		f->tk[f->tk_head].hdr.size = sizeof(f->tk[0]);
		f->tk_head = (f->tk_head + 1) % TK_RING;
		if (f->n_tk < TK_RING)
			f->n_tk++;
		break;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Sub-buffers                                                              */

static int sub_append(struct nsight_flight_sub *s, const struct nsight_rec *rec,
		      struct nsight_diag *d)
{
	if (nsight_vec_reserve((void **)&s->data, &s->cap, s->len + rec->hdr.size, 1))
		return nomem(d);
	memcpy(s->data + s->len, rec->data, rec->hdr.size);
	if (!s->len || rec->hdr.tsc < s->tsc_first)
		s->tsc_first = rec->hdr.tsc;
	if (rec->hdr.tsc > s->tsc_last)
		s->tsc_last = rec->hdr.tsc;
	s->len += rec->hdr.size;
	return 0;
}

/* The sub-buffer being filled is complete: the first is written, others held. */
static int close_cur(struct nsight_flight *f, uint32_t cpu, struct nsight_diag *d)
{
	struct nsight_flight_cpu *c = &f->cpus[cpu];
	int err;

	if (!c->cur.len)
		return 0;
	if (!c->prologue_done) {
		c->prologue_done = true;
		err = write_sub(f, cpu, &c->cur, d);
		sub_free(&c->cur);
		return err;
	}
	if (NSIGHT_VEC_GROW(c->held, c->n_held, c->cap_held))
		return nomem(d);
	c->held[c->n_held++] = c->cur;
	c->held_bytes += c->cur.len;
	memset(&c->cur, 0, sizeof(c->cur));
	return 0;
}

int nsight_flight_records(void *ctx, uint32_t cpu, const void *buf, size_t len,
			  struct nsight_diag *d)
{
	struct nsight_flight *f = ctx;
	struct nsight_flight_cpu *c;
	struct nsight_rec_walker wk;
	struct nsight_rec rec;
	struct nsight_diag wd = { 0 };
	int ret, err;

	if (cpu >= f->nr_cpus)
		return nsight_diag_set(d, EIO, "records of cpu %" PRIu32 ", not below %" PRIu32,
				       cpu, f->nr_cpus);
	c = &f->cpus[cpu];
	/* Offsets go on across calls: names apply from their record on. */
	nsight_rec_walker_init_compact(&wk, buf, len, cpu, c->fed, &c->dec);
	c->fed += len;
	while ((ret = nsight_rec_walker_next(&wk, &rec, &wd)) > 0) {
		if (rec.hdr.type == NSIGHT_REC_SUBBUF) {
			struct nsight_rec_subbuf sb;

			err = close_cur(f, cpu, d);
			if (err)
				return err;
			memcpy(&sb, rec.data, sizeof(sb));
			c->cur.seq = sb.seq;
			c->cur.dropped = sb.dropped;
		} else {
			c->cur.records++;
			err = observe(f, &rec, d);
			if (err)
				return err;
		}
		c->any = true;
		err = sub_append(&c->cur, &rec, d);
		if (err)
			return err;
		if (rec.hdr.tsc > f->newest)
			f->newest = rec.hdr.tsc;
	}
	if (ret < 0)
		return nsight_diag_set(d, EIO, "cpu %" PRIu32 ": %s", cpu, wd.msg);
	return release(f, false, d);
}

int nsight_flight_finish(struct nsight_flight *f, struct nsight_diag *d)
{
	uint32_t i;
	int err = 0;

	for (i = 0; i < f->nr_cpus && !err; i++)
		err = close_cur(f, i, d);
	return err ? err : release(f, true, d);
}
