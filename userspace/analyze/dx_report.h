/* SPDX-License-Identifier: MIT */
/*
 * Text and JSON of the diagnosis ("diagnosis:" lines, "diagnosis" object),
 * printed after the other sections.
 *
 * Text, per application and direction with complete messages:
 *
 *   diagnosis: COMM[PID] DIR: reference N messages (fastest 20%, median M ns), tail T messages >= p90 (X ns)
 *     cause                                 share  excess_ns messages  main  median_dev_ns  max_dev_ns
 *     CATEGORY (A|R)                          90%    3333333       27    20         123456      456789
 *       receive work behind it: ...        (receive processing: its traffic)
 *     coverage: median 92%, p10 71%, p90 100%
 *     skipped: ...                       (only when messages were skipped)
 *     slowest:
 *       DIR ID latency L ns, deviation D ns, coverage C%: CATEGORY (A) +DEV, ...
 *
 * The first cause row follows the column header directly.
 */
#ifndef NSIGHT_DX_REPORT_H
#define NSIGHT_DX_REPORT_H

#include <stdio.h>
#include <json-c/json.h>

#include "pipeline/analysis.h"
#include "diagnose/diagnose.h"
#include "terminal.h"

/* @a (may be NULL) adds the line on the function-level evidence. */
void nsight_dx_report_text(FILE *f, const struct nsight_dx *dx, const struct nsight_analysis *a);
/* The same, with the first cause of each group in bold when @t->color and
 * the slowest messages' causes cut at @t->width columns. */
void nsight_dx_report_tty(FILE *f, const struct nsight_dx *dx, const struct nsight_analysis *a,
			  const struct nsight_tty *t);
/*
 * @dx from windows (--whole-diagnosis, report --stream): the same without
 * what needs the analysis; @no_fn_evidence: the capture has no sample or
 * PT records, and its evidence line says so as the analysis's would.
 */
void nsight_dx_report_groups_tty(FILE *f, const struct nsight_dx *dx,
				 const struct nsight_keys *keys, bool no_fn_evidence,
				 const struct nsight_tty *t);

/* Add "diagnosis" to @o. Returns 0, or -1 when out of memory. */
int nsight_dx_report_json(struct json_object *o, const struct nsight_dx *dx,
			  const struct nsight_analysis *a);

/*
 * Add "diagnosis" with the options and the groups alone (no evidence,
 * loops, next steps nor receive work: they need the analysis), anomalies'
 * keys named from @keys: the whole capture's diagnosis from its windows.
 */
int nsight_dx_report_groups_json(struct json_object *o, const struct nsight_dx *dx,
				 const struct nsight_keys *keys);

/* The diagnosed tail message at lifetime index @msg, if it is one. */
bool nsight_dx_find_msg(const struct nsight_dx *dx, size_t msg, const struct nsight_dx_group **g,
			const struct nsight_dx_msg **m);
/* "  its causes: X +1.2 ms, ..." for @m of group @g, one line. */
void nsight_dx_report_msg_tty(FILE *f, const struct nsight_dx_group *g,
			      const struct nsight_dx_msg *m, const struct nsight_tty *t);
/* @m as in the diagnosis' "slowest" list; NULL when out of memory. */
struct json_object *nsight_dx_report_msg_json(const struct nsight_dx_group *g,
					      const struct nsight_dx_msg *m,
					      const struct nsight_analysis *a);

/* "comm", "pid" and "direction" of group @g in @o. */
void nsight_dx_group_json_who(struct json_object *o, const struct nsight_dx_group *g, int *err);

/* Key @key as text made printable (names come from the traced system). */
const char *nsight_key_printable(const struct nsight_keys *k, uint32_t key, char *buf, size_t len);

/* A comm (16 bytes, maybe not NUL-terminated) made printable; "?" if empty. */
const char *nsight_comm_format(const char comm[16], char *buf, size_t len);
/* "CATEGORY (ROLE)", as the reports name a cause. */
void nsight_dx_cause_name(const struct nsight_dx_cause *c, char *buf, size_t len);

/* "20", "99.9": a per-100000 value as a percentage. */
const char *nsight_pct_format(uint32_t per100k, char *buf, size_t len);

#endif /* NSIGHT_DX_REPORT_H */
