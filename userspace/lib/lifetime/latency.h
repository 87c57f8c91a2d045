/* SPDX-License-Identifier: MIT */
/*
 * Latency figures of message lifetimes per application (comm + pid) and
 * direction: count, p50, p90, p99, p99.9 and max of the total latency of
 * the complete messages (RX n -> a, TX send -> xmit, or -> completion when
 * there is one), and the incomplete ones by reason.
 *
 * Percentiles are nearest-rank (base/percentile.h): always one of the
 * values, never an interpolation.
 */
#ifndef NSIGHT_LATENCY_H
#define NSIGHT_LATENCY_H

#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/percentile.h"
#include "lifetime/lifetime.h"

/* The percentiles reported, in parts per 100000. */
#define NSIGHT_LAT_NPCT 4
extern const uint32_t nsight_lat_pct[NSIGHT_LAT_NPCT];	/* 50%, 90%, 99%, 99.9% */
extern const char *const nsight_lat_pct_name[NSIGHT_LAT_NPCT];	/* "p50", ..., "p99.9" */

struct nsight_lat_group {
	char comm[16];
	uint32_t pid;
	uint8_t dir;			/* enum nsight_msg_dir */
	uint64_t count;			/* complete messages */
	int64_t pct[NSIGHT_LAT_NPCT];	/* ns; valid when count > 0 */
	int64_t max;
	uint64_t incomplete;
	uint64_t by_reason[__NSIGHT_MSG_REASONS];
};

struct nsight_latency {
	struct nsight_lat_group *groups;	/* by comm, pid, direction */
	size_t n;
};

/* Returns 0 or -NSIGHT_E_NOMEM; nsight_latency_fini() either way. */
int nsight_latency_build(struct nsight_latency *l, const struct nsight_lifetimes *lt,
			 struct nsight_diag *d);
void nsight_latency_fini(struct nsight_latency *l);

/*
 * The total latencies of @lt's complete messages of @comm (16 bytes) and
 * direction @dir, and of process @pid unless it is NULL, ascending, in a
 * malloc'ed array of *@n; NULL if out of memory.
 */
int64_t *nsight_latency_values(const struct nsight_lifetimes *lt, const char *comm,
			       const uint32_t *pid, uint8_t dir, size_t *n);

#endif /* NSIGHT_LATENCY_H */
