/* SPDX-License-Identifier: MIT */
/*
 * Sorts for the analysis' arrays, cheaper than qsort() on what it sorts:
 * records gathered chunk by chunk are runs already in order (a CPU's
 * records), merged here in log2(runs) passes instead of log2(n); plain
 * 64-bit values (latencies, depths) are sorted by radix. Both give what
 * glibc's qsort() gives (its merge sort is stable, and so is this one),
 * so a result does not change with the sort.
 */
#ifndef NSIGHT_SORT_H
#define NSIGHT_SORT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Stable sort of @n elements of @size bytes at @base by @cmp (with @arg).
 * Runs already in order are found in one look and merged; an array in
 * order costs n - 1 comparisons. Elements over 32 bytes are merged through
 * pointers and stay where they are until the end, as with glibc's
 * qsort_r(), so a comparator may order equal ones by their address
 * (threads.c's switches do). Without memory for the merge, or with more
 * runs than an eighth of @n, it is qsort_r().
 */
void nsight_sort_r(void *base, size_t n, size_t size,
		   int (*cmp)(const void *, const void *, void *), void *arg);
void nsight_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* @v[0..n) in ascending order (radix; qsort() without memory for it). */
void nsight_sort_i64(int64_t *v, size_t n);

/*
 * An element sorted by key[0], then key[1], then key[2] (unsigned; flip
 * the sign bit of a signed value), carrying @val.
 */
struct nsight_sort_rec {
	uint64_t key[3];
	uint64_t val;
};

/* @v[0..n) by their keys, stably (radix; a merge without memory for it). */
void nsight_sort_recs(struct nsight_sort_rec *v, size_t n);

#endif /* NSIGHT_SORT_H */
