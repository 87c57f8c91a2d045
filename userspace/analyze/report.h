/* SPDX-License-Identifier: MIT */
/*
 * Text and JSON of what nsight-analyze adds after the stream summary: the
 * time conversion ("time:"), the latency figures ("latency:"), the
 * message lifetimes ("messages:", with --messages) and the time check
 * ("time-check:", with --time-check).
 */
#ifndef NSIGHT_REPORT_H
#define NSIGHT_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>

#include "json_out.h"
#include "pipeline/analysis.h"
#include "capture/timecheck.h"

void nsight_report_phc_text(FILE *f, const struct nsight_analysis *a);
/*
 * Where records were lost, per CPU: "loss: N records lost ..." and a line
 * per span (between two records of the CPU, or after its last); nothing
 * when no record was lost.
 */
void nsight_report_loss_text(FILE *f, const struct nsight_analysis *a);
void nsight_report_time_text(FILE *f, const struct nsight_analysis *a, enum nsight_clockid clk);
/* The full text's latency table of @l (ns, nearest rank), a row per group. */
void nsight_report_latency_table(FILE *f, const struct nsight_latency *l);
void nsight_report_latency_text(FILE *f, const struct nsight_analysis *a);
/* Complete messages by direction and id, then the incomplete ones. */
void nsight_report_messages_text(FILE *f, const struct nsight_analysis *a, enum nsight_clockid clk);

/*
 * Put "time", "loss", "latency" and, with @messages, "messages" to @s
 * (nsight_report_add_json(): into @o). Returns 0, or -1 when out of
 * memory.
 */
int nsight_report_json(struct nsight_jsink *s, const struct nsight_analysis *a,
		       enum nsight_clockid clk, bool messages);
/* Each of them alone: "time" and "loss"; "latency"; "messages". */
void nsight_report_time_json(struct nsight_jsink *s, const struct nsight_analysis *a,
			     enum nsight_clockid clk);
void nsight_report_latency_json(struct nsight_jsink *s, const struct nsight_analysis *a);
void nsight_report_messages_json(struct nsight_jsink *s, const struct nsight_analysis *a,
				 enum nsight_clockid clk);
int nsight_report_add_json(struct json_object *o, const struct nsight_analysis *a,
			   enum nsight_clockid clk, bool messages);

/* One application and direction of "latency" in JSON: comm, pid, dir, count, percentiles. */
struct json_object *nsight_report_lat_group_json(const struct nsight_lat_group *g, int *err);
void nsight_report_tcheck_text(FILE *f, const struct nsight_timeconv *tc,
			       const struct nsight_tcheck *r);
/* A new object (the caller puts it), NULL if out of memory. */
struct json_object *nsight_report_tcheck_json(const char *pairs_name, const char *name,
					      const struct nsight_timeconv *tc,
					      const struct nsight_tcheck *r);

#endif /* NSIGHT_REPORT_H */
