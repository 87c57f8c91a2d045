/* SPDX-License-Identifier: MIT */
/*
 * The context side of an analysis on a thread of its own: while the
 * reading thread checks the stream and gathers the records of the message
 * lifetimes (capture.h), this one walks the same chunks again and builds
 * the CPU timelines, the threads' states, the samples and the PT evidence
 * (nsight_analysis_context_record()). Each side keeps its own state and
 * sees every record in stream order, so the result is the one a single
 * thread gives (the tests compare them).
 *
 * The chunks go over a bounded queue (copies of their payloads), so a
 * slower side holds the other back instead of growing memory.
 */
#ifndef NSIGHT_ANALYSIS_THREAD_H
#define NSIGHT_ANALYSIS_THREAD_H

#include <pthread.h>
#include <stdbool.h>

#include "pipeline/analysis.h"

struct nsight_ctxthr;

/*
 * Start the thread for @a (begun with lifetimes, @nr_cpus CPUs, stamps at
 * @tsc_hz). Returns 0 or a negative enum nsight_errcode (*@t NULL: the
 * caller does the context side itself).
 */
int nsight_ctxthr_start(struct nsight_ctxthr **t, struct nsight_analysis *a, uint32_t nr_cpus,
			uint64_t tsc_hz, struct nsight_diag *d);

/*
 * Give it a chunk: RECORDS and CRECORDS (their records), PT and KTEXT
 * (PT evidence); others are not its. Waits while the queue is full.
 * Returns 0 or -NSIGHT_E_NOMEM.
 */
int nsight_ctxthr_put(struct nsight_ctxthr *t, const struct nsight_chunk *ch,
		      struct nsight_diag *d);

/* Whether @type is a chunk the thread takes. */
bool nsight_ctxthr_takes(uint32_t type);

/*
 * No more chunks: wait for the thread and free it. Returns its first
 * error (with @d) or 0.
 */
int nsight_ctxthr_join(struct nsight_ctxthr *t, struct nsight_diag *d);

/*
 * Run @fn(@arg) on a thread of its own while the caller goes on;
 * nsight_task_join() waits for it and returns what it returned. Without a
 * thread (pthread_create() failed) @fn runs in nsight_task_join().
 */
struct nsight_task {
	int (*fn)(void *arg);
	void *arg;
	int ret;
	bool started;
	pthread_t thread;
};

void nsight_task_start(struct nsight_task *task, int (*fn)(void *arg), void *arg);
int nsight_task_join(struct nsight_task *task);

#endif /* NSIGHT_ANALYSIS_THREAD_H */
