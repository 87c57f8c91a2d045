/* SPDX-License-Identifier: MIT */
/*
 * Text and JSON of the interval tables (--intervals, intervals.h), printed
 * after the diagnosis.
 *
 * Text:
 *
 *   intervals: N of K kinds, ranked by p99.99; C left out (cut by ...)
 *     kind     name                         count       p50       p99    p99.99       max
 *     offcpu   server[100] tid 101             40    2.70us    52.7us    52.7us    52.7us
 *
 * Compact (a width is set): the first NSIGHT_IV_TTY_ROWS rows, names cut
 * to fit the width ("..." at the end), then "+N more"; otherwise every row
 * in full and durations in ns.
 */
#ifndef NSIGHT_INTERVALS_REPORT_H
#define NSIGHT_INTERVALS_REPORT_H

#include <stdio.h>
#include <json-c/json.h>

#include "diagnose/intervals.h"
#include "terminal.h"

#define NSIGHT_IV_TTY_ROWS	25

void nsight_intervals_report_tty(FILE *f, const struct nsight_intervals *iv,
				 const struct nsight_tty *t);

/* Add "intervals" (an array of rows) and "intervals_clipped" to @o; 0 or -1 (no memory). */
int nsight_intervals_report_json(struct json_object *o, const struct nsight_intervals *iv);

#endif /* NSIGHT_INTERVALS_REPORT_H */
