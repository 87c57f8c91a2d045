/* SPDX-License-Identifier: MIT */
/*
 * The critical path (critpath.h) in the reports, after the blocking
 * chains: per application and direction with tail messages (the
 * diagnosis's tail, >= p90 by default), each state's share of the tail's
 * latency and the tail messages it is the most critical state of, largest
 * share first, states with no time left out:
 *
 *   critical path: COMM[PID] rx, N tail messages: STATE P% (most critical
 *     in K, via KEY P%), STATE P% (K), ...
 *
 * where a wait (queue, blocked, runq) names the key the path ran through
 * for most of it ("via", critpath.h) and that key's share of the state.
 * --verbose adds each tail message's path ("  rx ID latency L ns: most
 * critical STATE; STATE NS ns [via KEY], ...").
 */
#ifndef NSIGHT_CRITPATH_REPORT_H
#define NSIGHT_CRITPATH_REPORT_H

#include <stdio.h>
#include <json-c/json.h>

#include "json_out.h"
#include "pipeline/analysis.h"
#include "diagnose/diagnose.h"
#include "terminal.h"

/* @t->width set: the compact form; 0: verbose. Returns 0, or -1 on failure. */
int nsight_critpath_report_text(FILE *f, const struct nsight_dx *dx,
				const struct nsight_analysis *a, const struct nsight_tty *t);

/*
 * Put "critical_path" to @s (nsight_critpath_report_json(): into @o).
 * Returns 0, or -1 on failure.
 */
int nsight_critpath_report_jsink(struct nsight_jsink *s, const struct nsight_dx *dx,
				 const struct nsight_analysis *a);
int nsight_critpath_report_json(struct json_object *o, const struct nsight_dx *dx,
				const struct nsight_analysis *a);

/*
 * The same from paths already built (@cgs, @dx->n of them: the capture's
 * or, with --whole-diagnosis, its windows'; critpath.h), named with @keys.
 */
int nsight_critpath_report_groups_text(FILE *f, const struct nsight_dx *dx,
				       const struct nsight_cp_group *cgs,
				       const struct nsight_keys *keys, const struct nsight_tty *t);
int nsight_critpath_report_groups_jsink(struct nsight_jsink *s, const struct nsight_dx *dx,
					const struct nsight_cp_group *cgs,
					const struct nsight_keys *keys);
int nsight_critpath_report_groups_json(struct json_object *o, const struct nsight_dx *dx,
				       const struct nsight_cp_group *cgs,
				       const struct nsight_keys *keys);

#endif /* NSIGHT_CRITPATH_REPORT_H */
