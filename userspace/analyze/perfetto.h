/* SPDX-License-Identifier: MIT */
/*
 * nsight-analyze --perfetto: the capture as Chrome trace-event JSON, which
 * Perfetto UI and chrome://tracing open: a track per CPU with its nested
 * contexts and functions, an async track per message with its lifetime
 * segments, and flow arrows for the hand-offs from the receive core to
 * the application core.
 */
#ifndef NSIGHT_PERFETTO_H
#define NSIGHT_PERFETTO_H

#include <stdio.h>

#include "pipeline/analysis.h"
#include "diagnose/diagnose.h"

/*
 * Write the trace of @a (diagnosed into @dx, for naming the slow
 * messages' causes) to @f. Returns 0, or -1 when out of memory or writing
 * failed (@d says what).
 */
int nsight_perfetto_write(FILE *f, const struct nsight_analysis *a, const struct nsight_dx *dx,
			  struct nsight_diag *d);

#endif /* NSIGHT_PERFETTO_H */
