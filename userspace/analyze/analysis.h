/* SPDX-License-Identifier: MIT */
/*
 * One pass of nsight-analyze over a stream: the summary and its check, and
 * beside it the records the time conversion and the message lifetimes
 * need, then the lifetimes and their latency figures.
 */
#ifndef NSIGHT_ANALYSIS_H
#define NSIGHT_ANALYSIS_H

#include <stdbool.h>
#include <stdio.h>

#include "capture.h"
#include "diag.h"
#include "latency.h"
#include "lifetime.h"
#include "summary.h"
#include "timeconv.h"

struct nsight_analysis_opts {
	enum nsight_tc_params params;	/* --time-params */
	bool lifetimes;			/* rebuild lifetimes (not for --time-check) */
};

struct nsight_analysis {
	struct nsight_summary sum;
	struct nsight_capture cap;
	struct nsight_timeconv tc;
	struct nsight_lifetimes lt;
	struct nsight_latency lat;
	bool have_lifetimes;
};

/*
 * Read the stream on @in and analyse it. Returns 0, or a negative enum
 * nsight_errcode with @d saying what and at which byte. @a needs
 * nsight_analysis_fini() either way.
 */
int nsight_analysis_run(struct nsight_analysis *a, FILE *in,
			const struct nsight_analysis_opts *o, struct nsight_diag *d);
void nsight_analysis_fini(struct nsight_analysis *a);

#endif /* NSIGHT_ANALYSIS_H */
