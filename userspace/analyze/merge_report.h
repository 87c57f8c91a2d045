/* SPDX-License-Identifier: MIT */
/*
 * nsight-analyze --merge CLIENT SERVER: two hosts' captures joined into
 * requests (merge/merge.h), the clock estimate, the per-layer breakdown and
 * which host and layer the tail's deviation came from.
 */
#ifndef NSIGHT_MERGE_REPORT_H
#define NSIGHT_MERGE_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>

#include "pipeline/analysis.h"
#include "merge/merge.h"

struct nsight_merge_report_opts {
	enum nsight_tc_params params;	/* --time-params */
	uint32_t tail;			/* --tail, per 100000 */
	bool json;
	bool verbose;			/* every tail request */
	bool synced;			/* --synced NS: the clocks are synchronised */
	int64_t synced_ns;
};

/* Read, merge and report; returns an exit code (NSIGHT_EXIT_*). */
int nsight_merge_main(const char *client, const char *server,
		      const struct nsight_merge_report_opts *o);

void nsight_merge_report_text(FILE *f, const char *client, const char *server,
			      const struct nsight_merge *m, bool verbose);
/* NULL when json-c fails. */
struct json_object *nsight_merge_report_json(const char *client, const char *server,
					     const struct nsight_merge *m);

#endif /* NSIGHT_MERGE_REPORT_H */
