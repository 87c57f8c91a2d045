/* SPDX-License-Identifier: MIT */
/*
 * --window's whole-capture latency: each window's messages (those that
 * start in it, so each message once) added up per application and
 * direction, with the same nearest-rank percentiles as without windows.
 * Holds every complete message's latency (8 bytes each).
 */
#ifndef NSIGHT_WINDOW_TOTAL_H
#define NSIGHT_WINDOW_TOTAL_H

#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "lifetime/latency.h"
#include "lifetime/lifetime.h"

struct nsight_wtotal_group {
	struct nsight_lat_group g;	/* count, incomplete, by_reason as added */
	int64_t *v;			/* the complete messages' latencies */
	size_t cap;
};

struct nsight_wtotal {
	struct nsight_wtotal_group *groups;
	size_t n, cap;
	uint64_t messages, complete;
	struct nsight_latency lat;	/* after nsight_wtotal_finish(): groups[i].g */
};

/* Add @lt's messages. Returns 0 or -NSIGHT_E_NOMEM. */
int nsight_wtotal_add(struct nsight_wtotal *t, const struct nsight_lifetimes *lt,
		      struct nsight_diag *d);
/* Sort: groups by comm, pid and direction, latencies ascending; the percentiles in lat. */
int nsight_wtotal_finish(struct nsight_wtotal *t, struct nsight_diag *d);
void nsight_wtotal_fini(struct nsight_wtotal *t);

/*
 * The p50, p99 and max of @lt's complete messages, all applications
 * together, in @out[0..2]; 0 if none. Returns how many there are, or
 * SIZE_MAX when out of memory.
 */
size_t nsight_wtotal_spread(const struct nsight_lifetimes *lt, int64_t out[3]);

#endif /* NSIGHT_WINDOW_TOTAL_H */
