/* SPDX-License-Identifier: MIT */
/*
 * Text and JSON of a what-if prediction (--what-if, whatif.h), printed
 * after the diagnosis:
 *
 *   what-if: remove stress interference (A)
 *     server[100] rx: 40 messages, 5 changed, 245us removed
 *                      p50       p99     p99.9       max
 *       now         2.70us    51.7us    51.7us    51.7us
 *       predicted   2.70us    2.70us    2.70us    2.70us
 *       next bottleneck: none of at least 1.00us in the 40 predicted tail messages (>= p90)
 *       capacity (messages/s; the capture ran at 4.97k):
 *         now             236k  CPU 1 (A): 4.10us a message, other work 3.4% of it; next CPU 0 (R) at 1.42M
 *         predicted       244k  CPU 1 (A): 4.10us a message, other work 0.0% of it; next CPU 0 (R) at 1.42M
 *
 * With several specs, a block per step headed "what-if step N: remove A,
 * then remove B".
 */
#ifndef NSIGHT_WHATIF_REPORT_H
#define NSIGHT_WHATIF_REPORT_H

#include <stdio.h>
#include <json-c/json.h>

#include "terminal.h"
#include "diagnose/whatif.h"

/*
 * The @n_steps predictions at @steps, step i applying the first i + 1
 * specs ("what-if step 2: remove A, then remove B" when there are
 * several); @min_dev: the granularity the next bottleneck was found with.
 */
void nsight_whatif_report_tty(FILE *f, const struct nsight_whatif *steps, size_t n_steps,
			      int64_t min_dev, const struct nsight_tty *t);

/*
 * Add "what_if" (the last step: every spec applied) and "what_if_steps"
 * (every step, in order) to @o; 0 or -1 (no memory).
 */
int nsight_whatif_report_json(struct json_object *o, const struct nsight_whatif *steps,
			      size_t n_steps, int64_t min_dev);

#endif /* NSIGHT_WHATIF_REPORT_H */
