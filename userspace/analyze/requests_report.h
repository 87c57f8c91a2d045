/* SPDX-License-Identifier: MIT */
/*
 * Requests across threads in the reports (diagnose/requests.h), after the
 * locks, when the capture holds request marks:
 *
 *   requests: COMM[PID]: N marked, C complete (incomplete: R n, ...)
 *     received by tid T, answered by tid W; H hand-offs; C with their response
 *     latency, NIC to end: p50 D, p90 D, p99 D, max D
 *     phases p50/p99: receive D/D, receiving thread D/D, queued D/D, worker D/D
 *     tail (>= D, N requests), time beyond the median:
 *       S%  CAUSE  (D per tail request)
 */
#ifndef NSIGHT_REQUESTS_REPORT_H
#define NSIGHT_REQUESTS_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>

#include "pipeline/analysis.h"
#include "terminal.h"

/* @tail: the tail percentile per 100000. Returns 0, or -1 when out of memory. */
int nsight_requests_report_text(FILE *f, const struct nsight_analysis *a, uint32_t tail,
				const struct nsight_tty *t);
/* "requests" into @o, only when the capture has request marks. */
int nsight_requests_report_json(struct json_object *o, const struct nsight_analysis *a,
				uint32_t tail);

#endif /* NSIGHT_REQUESTS_REPORT_H */
