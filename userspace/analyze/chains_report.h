/* SPDX-License-Identifier: MIT */
/*
 * Blocking chains and the queue view in the reports (capture/threads.h,
 * diagnose/queueview.h), printed after the diagnosis.
 *
 * Per application and direction whose tail messages' threads waited for
 * other tasks, the tasks that held them up (the wakers of their waits in
 * the application window), each with the tail messages and time it held
 * up and what it did meanwhile:
 *
 *   chains: COMM[PID] rx: waits of the tail's threads ended by other tasks
 *     held up by WCOMM[WPID] tid T: N tail messages, D; meanwhile on a CPU
 *       P% (KEY P%, ...), runnable P%, blocked P%
 *
 * --verbose adds every tail message's chain, and per socket the queue
 * view ("queue:" lines); a warning about datagrams lost before a socket's
 * queue is printed in every format.
 */
#ifndef NSIGHT_CHAINS_REPORT_H
#define NSIGHT_CHAINS_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>

#include "json_out.h"
#include "pipeline/analysis.h"
#include "diagnose/diagnose.h"
#include "terminal.h"

/* @t->width set: the compact form (durations in units); 0: verbose, in ns. */
int nsight_chains_report_text(FILE *f, const struct nsight_dx *dx, const struct nsight_analysis *a,
			      const struct nsight_tty *t);

/*
 * Put "chains" and "queues" to @s (nsight_chains_report_json(): into @o).
 * Returns 0, or -1 when out of memory.
 */
int nsight_chains_report_jsink(struct nsight_jsink *s, const struct nsight_dx *dx,
			       const struct nsight_analysis *a);
int nsight_chains_report_json(struct json_object *o, const struct nsight_dx *dx,
			      const struct nsight_analysis *a);

/*
 * The locks threads slept on (futex source; capture/threads.h): text
 *
 *   locks: futexes threads slept on, by total wait
 *     futex 0x55d0c2a4e040 of msgload[321]: 250 sleeps, 180ms in all, p50 700us,
 *       p99 1.10ms, max 1.20ms; woken most by lockholder[321] tid 322 (240 times,
 *       240 in futex_wake on it)
 *       holder lockholder tid 322: in user code 98%, clear_page_erms 2% (of 170ms
 *         sampled or traced, of 178ms on a CPU while its waiters waited)
 *
 * (nothing without futex records; the holder's line only with function
 * evidence, capture/lockfn.h), and "locks" in JSON, the holder's with
 * "functions", "evidence_ns", "on_cpu_ns", "waited_ns" and "no_functions".
 * Return 0 or -1 (no memory).
 */
int nsight_locks_report_text(FILE *f, const struct nsight_analysis *a, const struct nsight_tty *t);
int nsight_locks_report_json(struct json_object *o, const struct nsight_analysis *a);

#endif /* NSIGHT_CHAINS_REPORT_H */
