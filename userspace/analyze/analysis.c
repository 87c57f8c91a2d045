// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

static int on_record(void *ctx, const struct nsight_rec *rec, struct nsight_diag *d)
{
	return nsight_capture_add(ctx, rec, d);
}

static int on_chunk(void *ctx, const struct nsight_chunk *ch, struct nsight_diag *d)
{
	return nsight_capture_add_chunk(ctx, ch, d);
}

int nsight_analysis_run(struct nsight_analysis *a, FILE *in,
			const struct nsight_analysis_opts *o, struct nsight_diag *d)
{
	struct nsight_summary_hook hook = { on_record, on_chunk, &a->cap };
	struct nsight_stream_reader r;
	uint64_t *tail = NULL;
	uint32_t i;
	int err;

	memset(a, 0, sizeof(*a));
	err = nsight_stream_reader_init(&r, in);
	if (err) {
		*d = r.diag;
		goto out;
	}
	err = nsight_capture_init(&a->cap, r.hdr.nr_cpus, d);
	if (!err)
		err = nsight_summarize_hooked(&r, &a->sum, &hook, d);
	if (err)
		goto out;

	/* Drops the kernel counted after each CPU's last sub-buffer header. */
	tail = calloc(a->sum.nr_cpus ? a->sum.nr_cpus : 1, sizeof(*tail));
	if (!tail) {
		err = nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < a->sum.nr_cpus; i++)
		tail[i] = a->sum.cpus[i].dropped_after;
	err = nsight_capture_finish(&a->cap, tail, d);
	if (!err)
		err = nsight_tc_init(&a->tc, a->cap.tks, a->cap.n_tks, a->cap.syncs, a->cap.n_syncs,
				     a->sum.hdr.tsc_hz, o->params, d);
	if (!err && o->lifetimes) {
		err = nsight_lifetimes_build(&a->lt, &a->cap, &a->tc, d);
		if (!err)
			err = nsight_latency_build(&a->lat, &a->lt, d);
		a->have_lifetimes = !err;
	}
out:
	free(tail);
	nsight_stream_reader_fini(&r);
	return err;
}

void nsight_analysis_fini(struct nsight_analysis *a)
{
	nsight_latency_fini(&a->lat);
	nsight_lifetimes_fini(&a->lt);
	nsight_tc_fini(&a->tc);
	nsight_capture_fini(&a->cap);
	nsight_summary_fini(&a->sum);
}
