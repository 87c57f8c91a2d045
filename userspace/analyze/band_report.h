/* SPDX-License-Identifier: MIT */
/*
 * A band of the latency curve (--tail pA-pB) in this capture and in a
 * --baseline capture side by side: each band against one reference, the
 * baseline's fastest 20%, so both captures' figures mean the same thing.
 *
 * Text, per application and direction of this capture:
 *
 *   band p20-p30 of both captures, each against the fastest 20% of baseline FILE:
 *     server[100] rx         capture      msgs      from        to    excess
 *                            this           40    51.7us    51.7us    1.96ms
 *                            baseline        8    2.79us    2.88us     180ns
 *     cause                                     this    excess  baseline    excess
 *     stress interference (A)                   100%    1.96ms         -         -
 *
 * The causes are the union of both bands' (this capture's order first,
 * then the baseline's own), each with its share of the band's excess and
 * its excess in each capture, "-" where that band has no such cause.
 * With --verbose the durations are in ns.
 */
#ifndef NSIGHT_BAND_REPORT_H
#define NSIGHT_BAND_REPORT_H

#include <stdio.h>
#include <json-c/json.h>

#include "diagnose/diagnose.h"
#include "terminal.h"

/*
 * @dx: this capture's band against the baseline's reference; @bdx: the
 * baseline's band against the same reference, from the baseline @bname.
 * Returns 0, or -1 when out of memory.
 */
int nsight_band_report_text(FILE *f, const struct nsight_dx *dx, const struct nsight_dx *bdx,
			    const char *bname, const struct nsight_tty *t);

/* Add "band_comparison" to @o. Returns 0, or -1 when out of memory. */
int nsight_band_report_json(struct json_object *o, const struct nsight_dx *dx,
			    const struct nsight_dx *bdx, const char *bname);

#endif /* NSIGHT_BAND_REPORT_H */
