/* SPDX-License-Identifier: MIT */
/*
 * nsight-analyze --html: one self-contained HTML file (inline SVG, no
 * network fetches) with the plots of nsight.rst "Reports": the balloon
 * plot, the cause box plot, per-message timelines of the slowest messages,
 * the idle-cause box plot of one message, the queuing breakdown, the
 * core-context summary and the latency CDF (with a baseline, both).
 */
#ifndef NSIGHT_HTML_REPORT_H
#define NSIGHT_HTML_REPORT_H

#include <stdio.h>

#include "pipeline/analysis.h"
#include "diagnose/diagnose.h"

/*
 * Write the report of @a (diagnosed into @dx; @b, the --baseline
 * capture, or NULL) to @f; @name is the capture's name for the title.
 * Returns 0, or -1 when out of memory or writing failed (@d says what).
 */
int nsight_html_report(FILE *f, const char *name, const struct nsight_analysis *a,
		       const struct nsight_dx *dx, const struct nsight_analysis *b,
		       struct nsight_diag *d);

#endif /* NSIGHT_HTML_REPORT_H */
