// SPDX-License-Identifier: MIT
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/satmath.h"
#include "base/vec.h"
#include "pipeline/window.h"

#define NS_PER_SEC	1000000000ULL
#define SPOOL_BLOCK	(1U << 20)

static int nomem(struct nsight_diag *d)
{
	return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
}

/* Copy @rec into @k. */
static int keep(struct nsight_win_rec *k, const struct nsight_rec *rec, struct nsight_diag *d)
{
	if (rec->hdr.size > k->cap) {
		uint8_t *p = realloc(k->data, rec->hdr.size);

		if (!p)
			return nomem(d);
		k->data = p;
		k->cap = rec->hdr.size;
	}
	memcpy(k->data, rec->data, rec->hdr.size);
	k->tsc = rec->hdr.tsc;
	k->offset = rec->offset;
	k->have = true;
	return 0;
}

/* Keep @rec in @k unless @k holds a later one. */
static int keep_later(struct nsight_win_rec *k, const struct nsight_rec *rec,
		      struct nsight_diag *d)
{
	return k->have && rec->hdr.tsc < k->tsc ? 0 : keep(k, rec, d);
}

/* The record kept in @k, for the analysis. */
static struct nsight_rec kept(const struct nsight_win_rec *k)
{
	struct nsight_rec rec = { .data = k->data, .offset = k->offset };

	memcpy(&rec.hdr, k->data, sizeof(rec.hdr));
	return rec;
}

/* ---------------------------------------------------------------------- */
/* The first pass                                                           */

/* Forget the last RECORDS chunk indexed if it had no records. */
static void drop_empty(struct nsight_windows *w)
{
	if (w->n_recs && w->recs[w->n_recs - 1].tsc_min > w->recs[w->n_recs - 1].tsc_max)
		w->n_recs--;
}

/*
 * The chunk indexed last has had all its records: clean when its CPU's
 * count of corrupt TSCs did not grow while the first pass read it.
 */
static void close_last(struct nsight_windows *w)
{
	struct nsight_win_chunk *c = w->n_recs ? &w->recs[w->n_recs - 1] : NULL;

	if (c)
		c->clean = c->cpu < w->sum.nr_cpus &&
			   w->sum.cpus[c->cpu].bad_tsc == c->bad_before;
}

static int idx_records(void *ctx, const struct nsight_chunk *ch, struct nsight_diag *d)
{
	struct nsight_windows *w = ctx;
	struct nsight_win_chunk *c;

	close_last(w);
	drop_empty(w);
	nsight_tscguard_init(&w->guard, w->sum.hdr.tsc_hz);
	if (NSIGHT_VEC_GROW(w->recs, w->n_recs, w->cap_recs))
		return nomem(d);
	c = &w->recs[w->n_recs++];
	*c = (struct nsight_win_chunk){ .type = ch->type, .cpu = ch->cpu, .offset = ch->offset,
					.payload_offset = ch->payload_offset, .size = ch->size,
					.tsc_min = UINT64_MAX, .tsc_max = 0 };
	if (ch->cpu < w->sum.nr_cpus) {
		c->dec_tsc = w->sum.cpus[ch->cpu].dec.tsc;
		c->dec_have = w->sum.cpus[ch->cpu].dec.have_tsc;
		c->bad_before = w->sum.cpus[ch->cpu].bad_tsc;
	}
	return 0;
}

/* Keep the latest pt_cr3 record of each process: every window needs them. */
static int keep_cr3(struct nsight_windows *w, const struct nsight_rec *rec, struct nsight_diag *d)
{
	struct nsight_rec_pt_cr3 r;
	uint32_t *i;
	bool added;

	memcpy(&r, rec->data, sizeof(r));
	i = nsight_u64map_put(&w->cr3_by_pid, r.pid, (uint32_t)w->n_cr3, &added);
	if (!i)
		return nomem(d);
	if (added) {
		if (NSIGHT_VEC_GROW(w->cr3, w->n_cr3, w->cap_cr3)) {
			*i = UINT32_MAX;
			return nomem(d);
		}
		memset(&w->cr3[w->n_cr3++], 0, sizeof(*w->cr3));
	}
	return *i < w->n_cr3 ? keep_later(&w->cr3[*i], rec, d) : nomem(d);
}

static int idx_record(void *ctx, const struct nsight_rec *rec, struct nsight_diag *d)
{
	struct nsight_windows *w = ctx;
	struct nsight_win_chunk *c = &w->recs[w->n_recs - 1];
	struct nsight_rec_pt pt;
	int err = 0;

	if (rec->hdr.tsc < c->tsc_min)
		c->tsc_min = rec->hdr.tsc;
	if (rec->hdr.tsc > c->tsc_max)
		c->tsc_max = rec->hdr.tsc;
	if (rec->hdr.type == NSIGHT_REC_PT_CR3)
		return keep_cr3(w, rec, d);
	if (rec->hdr.type != NSIGHT_REC_PT)
		return 0;
	/* The walker checked the size and that hdr.cpu is the chunk's. */
	memcpy(&pt, rec->data, sizeof(pt));
	if (pt.flags & NSIGHT_PT_START)
		err = keep(&w->pt[2 * (size_t)rec->hdr.cpu], rec, d);
	if (!err && (pt.flags & NSIGHT_PT_STOP))
		err = keep(&w->pt[2 * (size_t)rec->hdr.cpu + 1], rec, d);
	return err;
}

/* A TRIGGER chunk: its window, and the clock records after it. */
static int idx_trigger(struct nsight_windows *w, const struct nsight_chunk *ch,
		       struct nsight_diag *d)
{
	const uint8_t *p = ch->payload;
	size_t at = sizeof(struct nsight_stream_trigger);
	struct nsight_win_trigger *t;

	if (NSIGHT_VEC_GROW(w->trig, w->n_trig, w->cap_trig))
		return nomem(d);
	t = &w->trig[w->n_trig++];
	memset(t, 0, sizeof(*t));
	memcpy(&t->t, p, sizeof(t->t));
	if (t->t.window_hi_tsc < t->t.window_lo_tsc)
		return nsight_diag_set(d, NSIGHT_E_CHUNK,
				       "TRIGGER chunk at byte %" PRIu64 ": its window ends before it starts",
				       ch->offset);
	while (at < ch->size) {
		struct nsight_rec rec = { .data = p + at, .offset = ch->payload_offset + at };
		size_t need = 0;
		int err = 0;

		memcpy(&rec.hdr, p + at, ch->size - at < sizeof(rec.hdr) ? 0 : sizeof(rec.hdr));
		if (rec.hdr.type == NSIGHT_REC_CLOCK_SYNC)
			need = sizeof(struct nsight_rec_clock_sync);
		else if (rec.hdr.type == NSIGHT_REC_TIMEKEEPER)
			need = sizeof(struct nsight_rec_timekeeper);
		if (ch->size - at < sizeof(rec.hdr) || !need || rec.hdr.size < need ||
		    rec.hdr.size % NSIGHT_REC_ALIGN || rec.hdr.size > ch->size - at ||
		    rec.hdr.cpu >= w->sum.nr_cpus)
			return nsight_diag_set(d, NSIGHT_E_CHUNK,
					       "TRIGGER chunk at byte %" PRIu64 ": bad clock record at byte %" PRIu64,
					       ch->offset, rec.offset);
		err = keep(rec.hdr.type == NSIGHT_REC_CLOCK_SYNC ? &t->sync : &t->tk, &rec, d);
		if (err)
			return err;
		at += rec.hdr.size;
	}
	return 0;
}

static int idx_chunk(void *ctx, const struct nsight_chunk *ch, struct nsight_diag *d)
{
	struct nsight_windows *w = ctx;

	if (ch->type == NSIGHT_CHUNK_TRIGGER)
		return idx_trigger(w, ch, d);

	/* The kernel symbols are parsed once, here, for all the windows. */
	if (ch->type == NSIGHT_CHUNK_KSYMS)
		return nsight_ksyms_load_chunk(&w->ksyms, ch->payload, ch->size, ch->offset, d);
	if (NSIGHT_VEC_GROW(w->other, w->n_other, w->cap_other))
		return nomem(d);
	w->other[w->n_other++] = (struct nsight_win_chunk){
		.type = ch->type, .cpu = ch->cpu, .offset = ch->offset,
		.payload_offset = ch->payload_offset, .size = ch->size };
	return 0;
}

/* Copy @in to an unlinked temporary file, so that chunks can be read again. */
static int spool(struct nsight_windows *w, FILE *in, struct nsight_diag *d)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	uint8_t *blk;
	size_t n;
	int fd, err = 0;

	if (!dir || !*dir)
		dir = "/tmp";
	if (snprintf(path, sizeof(path), "%s/nsight-analyze.XXXXXX", dir) >= (int)sizeof(path))
		return nsight_diag_set(d, NSIGHT_E_IO, "TMPDIR is too long");
	fd = mkstemp(path);
	if (fd < 0)
		return nsight_diag_set(d, NSIGHT_E_IO, "cannot create a temporary file in %s: %s",
				       dir, strerror(errno));
	unlink(path);
	w->file = fdopen(fd, "w+b");
	if (!w->file) {
		close(fd);
		return nsight_diag_set(d, NSIGHT_E_IO, "cannot open a temporary file: %s",
				       strerror(errno));
	}
	w->spooled = true;
	blk = malloc(SPOOL_BLOCK);
	if (!blk)
		return nomem(d);
	while ((n = fread(blk, 1, SPOOL_BLOCK, in)) > 0) {
		if (fwrite(blk, 1, n, w->file) != n) {
			err = nsight_diag_set(d, NSIGHT_E_IO,
					      "cannot copy the stream to a temporary file in %s: %s",
					      dir, strerror(errno));
			break;
		}
	}
	if (!err && ferror(in))
		err = nsight_diag_set(d, NSIGHT_E_IO, "reading failed: %s", strerror(errno));
	if (!err && (fflush(w->file) || fseeko(w->file, 0, SEEK_SET)))
		err = nsight_diag_set(d, NSIGHT_E_IO,
				      "cannot copy the stream to a temporary file in %s: %s", dir,
				      strerror(errno));
	free(blk);
	return err;
}

int nsight_windows_open(struct nsight_windows *w, FILE *in, struct nsight_diag *d)
{
	struct nsight_summary_hook hook = { .record = idx_record, .chunk = idx_chunk, .ctx = w,
					    .records = idx_records, .cut_ok = true };
	struct nsight_stream_reader r;
	uint32_t n;
	int err;

	memset(w, 0, sizeof(*w));
	nsight_ksyms_init(&w->ksyms);
	/* Seekable (a file; not a pipe or a terminal) and at its start. */
	if (ftello(in) == 0 && !fseeko(in, 0, SEEK_SET))
		w->file = in;
	else if ((err = spool(w, in, d)))
		return err;

	err = nsight_stream_reader_init(&r, w->file);
	if (err) {
		*d = r.diag;
		goto out;
	}
	n = r.hdr.nr_cpus ? r.hdr.nr_cpus : 1;
	w->pt = calloc(2 * (size_t)n, sizeof(*w->pt));
	w->n_pt = w->pt ? 2 * (size_t)n : 0;
	w->tail = calloc(n, sizeof(*w->tail));
	w->cpus = calloc(n, sizeof(*w->cpus));
	if (!w->pt || !w->tail || !w->cpus) {
		err = nomem(d);
		goto out;
	}
	err = nsight_summarize_hooked(&r, &w->sum, &hook, d);
	close_last(w);
	drop_empty(w);
	nsight_tscguard_init(&w->guard, w->sum.hdr.tsc_hz);
	/* Sorted once here; each window borrows them. */
	nsight_ksyms_sort(&w->ksyms);
out:
	nsight_stream_reader_fini(&r);
	return err;
}

void nsight_windows_fini(struct nsight_windows *w)
{
	size_t i;

	for (i = 0; i < w->n_pt; i++)
		free(w->pt[i].data);
	free(w->pt);
	for (i = 0; i < w->n_cr3; i++)
		free(w->cr3[i].data);
	free(w->cr3);
	nsight_u64map_fini(&w->cr3_by_pid);
	for (i = 0; i < w->n_trig; i++) {
		free(w->trig[i].sync.data);
		free(w->trig[i].tk.data);
	}
	free(w->trig);
	free(w->tk.data);
	free(w->sync.data);
	free(w->recs);
	free(w->other);
	free(w->buf);
	free(w->tail);
	free(w->cpus);
	nsight_ksyms_fini(&w->ksyms);
	nsight_tscguard_fini(&w->guard);
	nsight_summary_fini(&w->sum);
	if (w->spooled)
		fclose(w->file);
	memset(w, 0, sizeof(*w));
}

/* ---------------------------------------------------------------------- */
/* Windows                                                                  */

int nsight_windows_set_width(struct nsight_windows *w, uint64_t width_ns, struct nsight_diag *d)
{
	uint64_t hz = w->sum.hdr.tsc_hz;

	if (!hz)
		return nsight_diag_set(d, NSIGHT_E_INVAL,
				       "the stream gives no TSC frequency, so it cannot be cut into windows");
	w->width = nsight_mul_div_u64(width_ns, hz, NS_PER_SEC);
	if (!w->width)
		return nsight_diag_set(d, NSIGHT_E_INVAL,
				       "a window of %" PRIu64 " ns is under one TSC tick (%" PRIu64 " Hz)",
				       width_ns, hz);
	w->first = w->sum.tsc_first;
	w->n_windows = w->sum.have_tsc ? (w->sum.tsc_last - w->sum.tsc_first) / w->width + 1 : 0;
	if (w->n_windows > NSIGHT_WINDOWS_MAX)
		return nsight_diag_set(d, NSIGHT_E_INVAL,
				       "windows of %" PRIu64 " ns cut the capture's %.3f s into more than %d",
				       width_ns, nsight_summary_span_seconds(&w->sum), NSIGHT_WINDOWS_MAX);
	w->next = 0;
	return 0;
}

int nsight_windows_set_records(struct nsight_windows *w, uint64_t per_window, uint64_t *width_ns,
			       struct nsight_diag *d)
{
	const uint64_t ms = NS_PER_SEC / 1000;
	uint64_t hz = w->sum.hdr.tsc_hz, span_ns = 1, n, width;

	if (!hz)
		return nsight_diag_set(d, NSIGHT_E_INVAL,
				       "the stream gives no TSC frequency, so it cannot be cut into windows");
	if (w->sum.have_tsc)
		span_ns = nsight_mul_div_u64(w->sum.tsc_last - w->sum.tsc_first, NS_PER_SEC, hz) + 1;
	n = w->sum.records / (per_window ? per_window : 1) + 1;
	width = span_ns / n + 1;
	if (width < span_ns / (NSIGHT_WINDOWS_MAX - 1) + 1)
		width = span_ns / (NSIGHT_WINDOWS_MAX - 1) + 1;
	width = (width + ms - 1) / ms * ms;
	*width_ns = width;
	return nsight_windows_set_width(w, width, d);
}

int nsight_windows_use_triggers(struct nsight_windows *w, struct nsight_diag *d)
{
	if (!w->sum.hdr.tsc_hz)
		return nsight_diag_set(d, NSIGHT_E_INVAL,
				       "the stream gives no TSC frequency, so its windows cannot be placed");
	if (!w->n_trig)
		return nsight_diag_set(d, NSIGHT_E_INVAL,
				       "the stream has no trigger windows (it was not recorded with nsightctl record --flight-recorder, or nothing passed the trigger); windows of a fixed width: --window DURATION");
	w->by_trigger = true;
	w->first = w->sum.tsc_first;
	w->n_windows = w->n_trig;
	w->next = 0;
	return 0;
}

void nsight_windows_rewind(struct nsight_windows *w)
{
	/* The clock records in force are those before the next window. */
	w->tk.have = false;
	w->sync.have = false;
	w->next = 0;
}

uint64_t nsight_window_tsc_ns(const struct nsight_windows *w, uint64_t tsc)
{
	return nsight_mul_div_u64(tsc > w->first ? tsc - w->first : 0, NS_PER_SEC,
				  w->sum.hdr.tsc_hz ? w->sum.hdr.tsc_hz : 1);
}

void nsight_window_bounds_ns(const struct nsight_windows *w, uint64_t k, uint64_t *start_ns,
			     uint64_t *end_ns)
{
	uint64_t hz = w->sum.hdr.tsc_hz ? w->sum.hdr.tsc_hz : 1;

	if (w->by_trigger) {
		*start_ns = nsight_window_tsc_ns(w, w->trig[k].t.window_lo_tsc);
		*end_ns = nsight_window_tsc_ns(w, w->trig[k].t.window_hi_tsc);
		return;
	}
	*start_ns = nsight_mul_div_u64(k * w->width, NS_PER_SEC, hz);
	*end_ns = nsight_mul_div_u64((k + 1) * w->width, NS_PER_SEC, hz);
}

/* Read chunk @c's payload into w->buf. */
static int load(struct nsight_windows *w, const struct nsight_win_chunk *c, struct nsight_diag *d)
{
	if (c->size > w->buf_cap) {
		uint8_t *p = realloc(w->buf, c->size);

		if (!p)
			return nomem(d);
		w->buf = p;
		w->buf_cap = c->size;
	}
	if (fseeko(w->file, (off_t)c->payload_offset, SEEK_SET) ||
	    fread(w->buf, 1, c->size, w->file) != c->size)
		return nsight_diag_set(d, NSIGHT_E_IO,
				       "chunk at byte %" PRIu64 ": reading it again failed%s%s",
				       c->offset, ferror(w->file) ? ": " : " (the file shrank)",
				       ferror(w->file) ? strerror(errno) : "");
	return 0;
}

/*
 * A walker of chunk @c read again: compact records go on from the TSC
 * their CPU had before the chunk.
 */
static void walk_again(struct nsight_windows *w, struct nsight_rec_walker *wk,
		       const struct nsight_win_chunk *c)
{
	struct nsight_cdec *dec = NULL;

	if (c->cpu < w->sum.nr_cpus) {
		dec = &w->sum.cpus[c->cpu].dec;
		dec->tsc = c->dec_tsc;
		dec->have_tsc = c->dec_have;
	}
	nsight_rec_walker_init_chunk(wk, c->type, w->buf, c->size, c->cpu, c->payload_offset, dec);
}

static uint64_t subbuf_dropped(const struct nsight_rec *rec)
{
	struct nsight_rec_subbuf sb;

	memcpy(&sb, rec->data, sizeof(sb));
	return sb.dropped;
}

/*
 * Give @a the records of chunk @i within the range read, r->llo to r->lhi;
 * count those of the window itself; note what follows them on their CPU.
 */
struct range {
	uint64_t lo, hi;	/* the window */
	uint64_t llo, lhi;	/* with the margins */
};

static int read_chunk(struct nsight_windows *w, size_t i, const struct range *r,
		      struct nsight_analysis *a, uint64_t *records, struct nsight_diag *d)
{
	const struct nsight_win_chunk *c = &w->recs[i];
	struct nsight_win_cpu *cs = &w->cpus[c->cpu];
	struct nsight_tscguard_walk gw;
	struct nsight_rec_walker wk;
	struct nsight_rec rec;
	int ret = load(w, c, d);

	if (ret)
		return ret;
	walk_again(w, &wk, c);
	/* A chunk the first pass found clean is not checked again. */
	if (!c->clean) {
		ret = nsight_tscguard_walk_init(&gw, &w->guard, &wk, d);
		if (ret)
			return ret;
	}
	cs->last = i;
	while ((ret = c->clean ? nsight_rec_walker_next(&wk, &rec, d) :
				 nsight_tscguard_walk_good(&gw, &rec, d)) > 0) {
		uint64_t tsc = rec.hdr.tsc;

		if (tsc >= r->llo && tsc < r->lhi) {
			int err = 0;

			*records += tsc >= r->lo && tsc < r->hi && rec.hdr.type != NSIGHT_REC_SUBBUF;
			cs->seen = true;
			cs->closed = false;
			cs->pending = 0;
			/*
			 * The next window reads from this one's start on: keep
			 * the clock records in force there.
			 */
			if (tsc < r->lo && rec.hdr.type == NSIGHT_REC_TIMEKEEPER)
				err = keep_later(&w->tk, &rec, d);
			else if (tsc < r->lo && rec.hdr.type == NSIGHT_REC_CLOCK_SYNC)
				err = keep_later(&w->sync, &rec, d);
			if (!err)
				err = nsight_analysis_record(a, &rec, d);
			if (err)
				return err;
		} else if (tsc >= r->lhi && cs->seen && !cs->closed) {
			if (rec.hdr.type == NSIGHT_REC_SUBBUF)
				cs->pending += subbuf_dropped(&rec);
			else
				cs->closed = true;
		}
	}
	return ret;
}

/*
 * What @cpu lost after its last record in the window: the drops counted
 * up to its next record, in the chunks after the last one read if need be,
 * or, when there is no next record, the kernel's count after the last.
 */
static int tail_drops(struct nsight_windows *w, uint32_t cpu, struct nsight_diag *d)
{
	struct nsight_win_cpu *cs = &w->cpus[cpu];
	size_t i;
	int ret;

	for (i = cs->last + 1; !cs->closed && i < w->n_recs; i++) {
		struct nsight_rec_walker wk;
		struct nsight_rec rec;

		if (w->recs[i].cpu != cpu)
			continue;
		ret = load(w, &w->recs[i], d);
		if (ret)
			return ret;
		walk_again(w, &wk, &w->recs[i]);
		while (!cs->closed && (ret = nsight_rec_walker_next(&wk, &rec, d)) > 0) {
			if (rec.hdr.type == NSIGHT_REC_SUBBUF)
				cs->pending += subbuf_dropped(&rec);
			else
				cs->closed = true;
		}
		if (ret < 0)
			return ret;
	}
	if (!cs->closed && cpu < w->sum.nr_cpus)
		cs->pending += w->sum.cpus[cpu].dropped_after;
	w->tail[cpu] = cs->pending;
	return 0;
}

/* The chunks other than RECORDS, as the first pass saw them. */
static int replay_chunks(struct nsight_windows *w, struct nsight_analysis *a, struct nsight_diag *d)
{
	size_t i;
	int ret;

	/* Lent: nsight_analysis_fini() leaves it alone. */
	nsight_ksyms_fini(&a->ksyms);
	a->ksyms = w->ksyms;
	a->ksyms_shared = true;
	for (i = 0; i < w->n_other; i++) {
		const struct nsight_win_chunk *c = &w->other[i];
		struct nsight_chunk ch;

		ret = load(w, c, d);
		if (ret)
			return ret;
		ch = (struct nsight_chunk){ .type = c->type, .cpu = c->cpu, .size = c->size,
					    .offset = c->offset, .payload_offset = c->payload_offset,
					    .payload = w->buf };
		ret = nsight_analysis_chunk(a, &ch, d);
		if (ret)
			return ret;
	}
	return 0;
}

int nsight_window_analyze(struct nsight_windows *w, struct nsight_analysis *a,
			  const struct nsight_analysis_opts *o, uint64_t *records,
			  struct nsight_diag *d)
{
	struct nsight_analysis_opts wo = *o;
	uint32_t nr_cpus = w->sum.nr_cpus, c;
	uint64_t k = w->next;
	struct nsight_win_rec carry[2];
	struct range r;
	size_t i;
	int err;

	*records = 0;
	err = nsight_analysis_begin(a, nr_cpus, o, d);
	if (err)
		return err;
	a->sum.hdr = w->sum.hdr;
	if (k >= w->n_windows)
		return nsight_diag_set(d, NSIGHT_E_INVAL, "no window %" PRIu64, k);
	w->next++;
	if (w->by_trigger) {
		/* The saved window itself: --before and --after are its margins. */
		r.lo = r.llo = w->trig[k].t.window_lo_tsc;
		r.hi = r.lhi = w->trig[k].t.window_hi_tsc < UINT64_MAX ?
			       w->trig[k].t.window_hi_tsc + 1 : UINT64_MAX;
		carry[0] = w->trig[k].sync;
		carry[1] = w->trig[k].tk;
	} else {
		/* A margin of one window on each side; the last window is open. */
		r.lo = w->first + k * w->width;
		r.hi = k + 1 == w->n_windows || UINT64_MAX - r.lo < w->width ? UINT64_MAX :
		       r.lo + w->width;
		r.llo = r.lo - w->first >= w->width ? r.lo - w->width : w->first;
		r.lhi = UINT64_MAX - r.hi < w->width ? UINT64_MAX : r.hi + w->width;
		carry[0] = w->sync;
		carry[1] = w->tk;
	}
	wo.own = true;
	wo.own_lo = r.lo;
	wo.own_hi = r.hi;

	/* The clock records in force where the reading starts, the earlier one first. */
	if (carry[0].have && carry[1].have && carry[0].tsc > carry[1].tsc) {
		struct nsight_win_rec x = carry[0];

		carry[0] = carry[1];
		carry[1] = x;
	}
	for (i = 0; i < 2 && !err; i++) {
		struct nsight_rec rec;

		/* One read in the window comes in its place. */
		if (!carry[i].have || carry[i].tsc >= r.llo)
			continue;
		rec = kept(&carry[i]);
		err = nsight_analysis_record(a, &rec, d);
	}

	memset(w->cpus, 0, nr_cpus * sizeof(*w->cpus));
	memset(w->tail, 0, nr_cpus * sizeof(*w->tail));
	for (i = 0; i < w->n_recs && !err; i++)
		if (w->recs[i].tsc_min < r.lhi && w->recs[i].tsc_max >= r.llo)
			err = read_chunk(w, i, &r, a, records, d);
	for (c = 0; c < nr_cpus && !err; c++)
		if (w->cpus[c].seen)
			err = tail_drops(w, c, d);
	if (!err)
		err = replay_chunks(w, a, d);
	/* The PT records that describe the trace chunks, wherever they are. */
	for (i = 0; i < w->n_pt && !err; i++) {
		struct nsight_rec rec;

		if (!w->pt[i].have || (w->pt[i].tsc >= r.llo && w->pt[i].tsc < r.lhi))
			continue;
		rec = kept(&w->pt[i]);
		err = nsight_ptev_add_record(&a->ptev, &rec, d);
	}
	/* Which process each CR3 is, wherever its record is (later ones win). */
	for (i = 0; i < w->n_cr3 && !err; i++) {
		struct nsight_rec rec = kept(&w->cr3[i]);

		err = nsight_ptev_add_record(&a->ptev, &rec, d);
	}
	if (!err)
		err = nsight_analysis_end(a, w->tail, &wo, d);
	return err;
}
