/* SPDX-License-Identifier: MIT */
/*
 * Nearest-rank percentiles: the p-th percentile of n sorted values is the
 * value at 1-based rank ceil(p / 100 * n). It is always one of the
 * values, never an interpolation.
 */
#ifndef NSIGHT_PERCENTILE_H
#define NSIGHT_PERCENTILE_H

#include <stddef.h>
#include <stdint.h>

/* Nearest-rank percentile of @n ascending values (@n > 0), @per100k of 100000. */
static inline int64_t nsight_percentile(const int64_t *sorted, size_t n, uint32_t per100k)
{
	/* rank = ceil(per100k * n / 100000), at least 1; no overflow below 2^47 values. */
	unsigned __int128 r = ((unsigned __int128)per100k * n + 99999) / 100000;
	size_t rank = r < 1 ? 1 : r > n ? n : (size_t)r;

	return sorted[rank - 1];
}

#endif /* NSIGHT_PERCENTILE_H */
