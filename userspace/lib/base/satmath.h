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

/* @a * @b / @c (@c not 0) without overflow in between, clamped to UINT64_MAX. */
static inline uint64_t nsight_mul_div_u64(uint64_t a, uint64_t b, uint64_t c)
{
	unsigned __int128 v = (unsigned __int128)a * b / c;

	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

static inline int64_t nsight_sat_sub(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_sub_overflow(a, b, &r))
		return a > b ? INT64_MAX : INT64_MIN;
	return r;
}

#endif /* NSIGHT_SATMATH_H */
