// SPDX-License-Identifier: MIT
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/analysis.h"
#include "pipeline/analysis_thread.h"

int nsight_analysis_capture_record(struct nsight_analysis *a, const struct nsight_rec *rec,
				   struct nsight_diag *d)
{
	return nsight_capture_add(&a->cap, rec, d);
}

int nsight_analysis_context_record(struct nsight_analysis *a, const struct nsight_rec *rec,
				   struct nsight_diag *d)
{
	int err;

	if (!a->tl.b) {
		/* Lifetimes alone: the context records counted as the timeline counts them. */
		if (a->no_context && rec->hdr.cpu < a->cap.nr_cpus &&
		    nsight_timeline_is_context(rec->hdr.type))
			a->tl.n_records++;
		return 0;
	}
	err = nsight_timeline_add(&a->tl, rec, d);
	if (!err && rec->hdr.type == NSIGHT_REC_SAMPLE)
		err = nsight_samples_add(&a->samples, rec, d);
	if (!err)
		err = nsight_ptev_add_record(&a->ptev, rec, d);
	if (!err)
		err = nsight_threads_add(&a->chains, rec, d);
	return err;
}

int nsight_analysis_record(struct nsight_analysis *a, const struct nsight_rec *rec,
			   struct nsight_diag *d)
{
	int err = nsight_analysis_capture_record(a, rec, d);

	if (!err)
		err = nsight_analysis_context_record(a, rec, d);
	return err;
}

int nsight_analysis_chunk(struct nsight_analysis *a, const struct nsight_chunk *ch,
			  struct nsight_diag *d)
{
	if (ch->type == NSIGHT_CHUNK_KSYMS)
		return nsight_ksyms_load_chunk(&a->ksyms, ch->payload, ch->size, ch->offset, d);
	if (ch->type == NSIGHT_CHUNK_PT || ch->type == NSIGHT_CHUNK_KTEXT ||
	    ch->type == NSIGHT_CHUNK_UTEXT)
		return a->tl.b ? nsight_ptev_add_chunk(&a->ptev, ch, d) : 0;
	return nsight_capture_add_chunk(&a->cap, ch, d);
}

/*
 * The hooks' context: the analysis, the caller's progress (or NULL), and
 * the thread that takes the context side (or NULL: all here).
 */
struct read_ctx {
	struct nsight_analysis *a;
	const struct nsight_analysis_progress *p;
	struct nsight_ctxthr *thr;
};

static int on_record(void *ctx, const struct nsight_rec *rec, struct nsight_diag *d)
{
	const struct read_ctx *c = ctx;

	if (c->thr)
		return nsight_analysis_capture_record(c->a, rec, d);
	return nsight_analysis_record(c->a, rec, d);
}

static int on_chunk(void *ctx, const struct nsight_chunk *ch, struct nsight_diag *d)
{
	const struct read_ctx *c = ctx;

	if (c->thr && nsight_ctxthr_takes(ch->type))
		return nsight_ctxthr_put(c->thr, ch, d);
	return nsight_analysis_chunk(c->a, ch, d);
}

/*
 * Before each chunk of records: the records and bytes read so far, and the
 * chunk to the context thread.
 */
static int on_records(void *ctx, const struct nsight_chunk *ch, struct nsight_diag *d)
{
	const struct read_ctx *c = ctx;
	uint64_t n = 0;
	uint32_t i;

	if (c->p) {
		for (i = 0; i < c->a->sum.nr_cpus; i++)
			n += c->a->sum.cpus[i].records;
		c->p->update(c->p->arg, n, ch->offset);
	}
	return c->thr ? nsight_ctxthr_put(c->thr, ch, d) : 0;
}

static void progress_pass(const struct nsight_analysis_opts *o, const char *pass)
{
	if (o->progress)
		o->progress->pass(o->progress->arg, pass);
}

/* What every analysis has, whatever the stream: nsight_analysis_fini() works after it. */
static int prepare(struct nsight_analysis *a, const struct nsight_analysis_opts *o,
		   struct nsight_diag *d)
{
	memset(a, 0, sizeof(*a));
	nsight_ksyms_init(&a->ksyms);
	nsight_samples_init(&a->samples);
	nsight_threads_init(&a->chains);
	a->keys = o->keys ? o->keys : &a->own_keys;
	if (!o->keys && nsight_keys_init(&a->own_keys)) {
		nsight_keys_fini(&a->own_keys);
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	}
	return 0;
}

int nsight_analysis_begin(struct nsight_analysis *a, uint32_t nr_cpus,
			  const struct nsight_analysis_opts *o, struct nsight_diag *d)
{
	int err = prepare(a, o, d);

	if (!err)
		err = nsight_capture_init(&a->cap, nr_cpus, d);
	a->no_context = o->lifetimes && o->no_context;
	if (!err && o->lifetimes && !o->no_context)
		err = nsight_timeline_init(&a->tl, nr_cpus, a->keys, d);
	if (!err && o->lifetimes && !o->no_context)
		err = nsight_ptev_init(&a->ptev, nr_cpus, d);
	return err;
}

/* ns after the first record -> TSC, saturating. */
static uint64_t range_tsc(const struct nsight_analysis *a, uint64_t ns)
{
	uint64_t hz = a->tc.tsc_hz ? a->tc.tsc_hz : a->sum.hdr.tsc_hz;
	uint64_t first = a->sum.have_tsc ? a->sum.tsc_first : 0;
	long double t = (long double)ns * (long double)hz / 1e9L + (long double)first;

	return t >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)t;
}

static void set_range(struct nsight_analysis *a, const struct nsight_analysis_opts *o)
{
	a->have_range = true;
	a->range_lo = range_tsc(a, o->range_from_ns);
	a->range_hi = range_tsc(a, o->range_to_ns);
}

/* The context side's end: timelines, then the threads' states on them. */
struct context_end {
	struct nsight_analysis *a;
	const uint64_t *tail_drops;
	struct nsight_diag d;
};

static int context_end(void *arg)
{
	struct context_end *ce = arg;
	struct nsight_analysis *a = ce->a;
	int err = nsight_timeline_finish(&a->tl, ce->tail_drops, &ce->d);

	if (!err)
		err = nsight_threads_finish(&a->chains, &a->tl, &a->cap, a->keys, a->sum.hdr.tsc_hz,
					    &ce->d);
	return err;
}

/*
 * With the capture's records in order: the time conversion, and the
 * lifetimes with their latency (nothing of the context side).
 */
static int lifetimes_end(struct nsight_analysis *a, const struct nsight_analysis_opts *o,
			 struct nsight_diag *d)
{
	int err = nsight_tc_init(&a->tc, a->cap.tks, a->cap.n_tks, a->cap.syncs, a->cap.n_syncs,
				 a->sum.hdr.tsc_hz, o->params, d);

	/* 0 is "unknown" (not x86): the timekeeper records must make up for it. */
	if (!err && !a->tc.tsc_hz && !a->cap.n_tks)
		err = nsight_diag_set(d, NSIGHT_E_FORMAT,
				      "the TSC frequency in the stream header (byte %zu) is 0 and no timekeeper or clock_sync record gives the TSC's rate: its stamps mean nothing",
				      offsetof(struct nsight_stream_hdr, tsc_hz));
	if (err || !o->lifetimes)
		return err;
	err = nsight_lifetimes_build(&a->lt, &a->cap, &a->tc, d);
	if (!err && o->own)
		nsight_lifetimes_keep(&a->lt, o->own_lo, o->own_hi);
	if (!err && o->range) {
		set_range(a, o);
		nsight_lifetimes_keep(&a->lt, a->range_lo, a->range_hi);
	}
	if (!err)
		err = nsight_latency_build(&a->lat, &a->lt, d);
	a->have_lifetimes = !err;
	return err;
}

/* Function-level evidence, where the messages are: both sides' results. */
static int evidence_end(struct nsight_analysis *a, struct nsight_diag *d)
{
	int err = nsight_ptev_decode(&a->ptev, &a->lt, &a->tl, &a->samples, d);

	if (!err) {
		if (!a->ksyms_shared)
			nsight_ksyms_sort(&a->ksyms);
		err = nsight_samples_apply(&a->samples, &a->ksyms, &a->ptev.usyms,
					   a->sum.hdr.tsc_hz, &a->tl, d);
	}
	return err;
}

int nsight_analysis_end(struct nsight_analysis *a, const uint64_t *tail_drops,
			const struct nsight_analysis_opts *o, struct nsight_diag *d)
{
	struct context_end ce = { a, tail_drops, { 0 } };
	struct nsight_task task;
	int err = nsight_capture_finish(&a->cap, tail_drops, d), cerr;

	if (err)
		return err;
	if (!o->lifetimes || o->no_context)
		return lifetimes_end(a, o, d);
	if (o->threads < 2) {
		cerr = context_end(&ce);
		err = cerr ? cerr : lifetimes_end(a, o, d);
	} else {
		/* The two sides share nothing until the evidence. */
		nsight_task_start(&task, context_end, &ce);
		err = lifetimes_end(a, o, d);
		cerr = nsight_task_join(&task);
	}
	if (cerr) {
		/* The error one thread meets first. */
		*d = ce.d;
		return cerr;
	}
	return err ? err : evidence_end(a, d);
}

int nsight_analysis_run(struct nsight_analysis *a, FILE *in,
			const struct nsight_analysis_opts *o, struct nsight_diag *d)
{
	struct read_ctx rc = { a, o->progress, NULL };
	struct nsight_summary_hook hook = { .record = on_record, .chunk = on_chunk, .ctx = &rc,
					    .records = on_records, .cut_ok = true };
	struct nsight_diag td = { 0 };
	struct nsight_stream_reader r;
	uint64_t *tail = NULL;
	uint32_t i;
	int err, terr;

	err = nsight_stream_reader_init(&r, in);
	if (err) {
		*d = r.diag;
		prepare(a, o, &(struct nsight_diag){ 0 });
		goto out;
	}
	err = nsight_analysis_begin(a, r.hdr.nr_cpus, o, d);
	/* Without a second thread (memory, thread limits), one does it all. */
	if (!err && o->lifetimes && o->threads > 1)
		nsight_ctxthr_start(&rc.thr, a, r.hdr.nr_cpus, r.hdr.tsc_hz,
				    &(struct nsight_diag){ 0 });
	progress_pass(o, "reading");
	if (!err)
		err = nsight_summarize_hooked(&r, &a->sum, &hook, d);
	/* The reading side's error first: the other met it too, or later. */
	terr = rc.thr ? nsight_ctxthr_join(rc.thr, &td) : 0;
	if (terr && !err) {
		err = terr;
		*d = td;
	}
	if (err)
		goto out;
	if (o->lifetimes)
		progress_pass(o, "lifetimes and timelines");

	/* Drops the kernel counted after each CPU's last sub-buffer header. */
	tail = calloc(a->sum.nr_cpus ? a->sum.nr_cpus : 1, sizeof(*tail));
	if (!tail) {
		err = nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < a->sum.nr_cpus; i++)
		tail[i] = a->sum.cpus[i].dropped_after;
	err = nsight_analysis_end(a, tail, o, d);
out:
	free(tail);
	nsight_stream_reader_fini(&r);
	return err;
}

void nsight_analysis_fini(struct nsight_analysis *a)
{
	nsight_timeline_fini(&a->tl);
	nsight_threads_fini(&a->chains);
	nsight_samples_fini(&a->samples);
	nsight_ptev_fini(&a->ptev);
	if (!a->ksyms_shared)
		nsight_ksyms_fini(&a->ksyms);
	if (a->keys == &a->own_keys)
		nsight_keys_fini(&a->own_keys);
	nsight_latency_fini(&a->lat);
	nsight_lifetimes_fini(&a->lt);
	nsight_tc_fini(&a->tc);
	nsight_capture_fini(&a->cap);
	nsight_summary_fini(&a->sum);
}

int nsight_analysis_use_chains(struct nsight_profiler *p, const struct nsight_analysis *a,
			       struct nsight_diag *d)
{
	if (!a->chains.finished)
		return 0;
	if (nsight_profiler_set_chains(p, &a->chains))
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	return 0;
}

int nsight_analysis_profiler(struct nsight_profiler *p, const struct nsight_analysis *a,
			     struct nsight_diag *d)
{
	int err = nsight_profiler_init(p, &a->tl, &a->cap, &a->tc, a->sum.hdr.tsc_hz, d);

	return err ? err : nsight_analysis_use_chains(p, a, d);
}

/* The paths of the tail messages @s's groups took from window @a since @before. */
static int dxs_paths(const struct nsight_dxs *s, const size_t *before,
		     struct nsight_profiler *prof, const struct nsight_analysis *a,
		     struct nsight_cp_windows *paths, struct nsight_diag *d)
{
	size_t k, j;

	for (k = 0; k < s->n; k++) {
		const struct nsight_dx_group *g = &s->groups[k].g;

		for (j = before[k]; j < g->n_msgs; j++) {
			struct nsight_cp_msg m;
			int err = nsight_cp_message(&m, prof, &a->chains, a->keys,
						    &a->lt.msgs[g->msgs[j].msg]);

			if (!err)
				err = nsight_cp_windows_add(paths, k, g->msgs[j].id, &m);
			nsight_cp_msg_fini(&m);
			if (err)
				return nsight_diag_set(d, -err, err == -NSIGHT_E_NOMEM ? "out of memory" :
						       "a tail message without its critical path");
		}
	}
	return 0;
}

int nsight_analysis_dxs_window(struct nsight_dxs *s, struct nsight_analysis *a, int pass,
			       const struct nsight_cats *cats, struct nsight_cp_windows *paths,
			       struct nsight_diag *d)
{
	struct nsight_profiler prof;
	struct nsight_dx_input in = { &a->lt, &prof, a->tl.n_records };
	size_t *before = NULL, k;
	int err;

	if (!a->have_lifetimes)
		return nsight_diag_set(d, NSIGHT_E_INVAL, "no lifetimes to diagnose");
	if (pass == 1)
		return nsight_dxs_count(s, &in, d);
	memset(&prof, 0, sizeof(prof));
	if (!a->tl.finished)
		return nsight_diag_set(d, NSIGHT_E_INVAL, "no lifetimes to diagnose");
	err = nsight_analysis_profiler(&prof, a, d);
	if (!err && pass == 3 && paths) {
		before = malloc((s->n ? s->n : 1) * sizeof(*before));
		if (!before)
			err = nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
		for (k = 0; !err && k < s->n; k++)
			before[k] = s->groups[k].g.n_msgs;
	}
	if (!err)
		err = pass == 2 ? nsight_dxs_reference(s, &in, a->keys, cats, d) :
				  nsight_dxs_tail(s, &in, a->keys, cats, d);
	if (!err && before)
		err = dxs_paths(s, before, &prof, a, paths, d);
	free(before);
	nsight_profiler_fini(&prof);
	return err;
}

int nsight_analysis_diagnose(struct nsight_dx *dx, struct nsight_analysis *a,
			     struct nsight_analysis *baseline, const struct nsight_cats *cats,
			     const struct nsight_dx_opts *o, struct nsight_diag *d)
{
	struct nsight_profiler prof, bprof;
	struct nsight_dx_input in = { &a->lt, &prof, a->tl.n_records };
	struct nsight_dx_input bin = { NULL, &bprof, 0 };
	int err;

	memset(dx, 0, sizeof(*dx));
	memset(&bprof, 0, sizeof(bprof));
	if (!a->have_lifetimes || !a->tl.finished ||
	    (baseline && (!baseline->have_lifetimes || !baseline->tl.finished ||
			  baseline->keys != a->keys)))
		return nsight_diag_set(d, NSIGHT_E_INVAL, "no lifetimes to diagnose");
	err = nsight_analysis_profiler(&prof, a, d);
	if (!err && baseline) {
		bin.lt = &baseline->lt;
		bin.context_records = baseline->tl.n_records;
		err = nsight_analysis_profiler(&bprof, baseline, d);
	}
	if (!err)
		err = nsight_dx_run(dx, &in, baseline ? &bin : NULL, a->keys, cats, o, d);
	nsight_profiler_fini(&prof);
	nsight_profiler_fini(&bprof);
	return err;
}
