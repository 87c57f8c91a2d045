/* SPDX-License-Identifier: MIT */
/*
 * Saturating int64 arithmetic: a corrupt or hostile capture can hold any
 * times, and sums or differences of them must clamp, not overflow (which
 * is undefined behaviour in C).
 */
#ifndef NSIGHT_SATMATH_H
#define NSIGHT_SATMATH_H

#include <stdint.h>

static inline int64_t nsight_sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static inline int64_t nsight_sat_sub(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_sub_overflow(a, b, &r))
		return a > b ? INT64_MAX : INT64_MIN;
	return r;
}

#endif /* NSIGHT_SATMATH_H */
