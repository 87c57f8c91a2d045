/* SPDX-License-Identifier: GPL-2.0 */
/* Growable arrays: the one capacity-doubling helper the library uses. */
#ifndef NSIGHT_VEC_H
#define NSIGHT_VEC_H

#include <stddef.h>

/*
 * Makes room for @need elements of @size bytes in *@v, whose capacity is
 * *@cap elements, doubling it as needed. Returns 0, or -1 when the size
 * overflows or realloc fails (*@v and *@cap are then unchanged).
 */
int nsight_vec_reserve(void **v, size_t *cap, size_t need, size_t size);

/*
 * Gives back the room beyond @n elements (the doubling leaves up to half
 * of an array unused) once an array is complete. Keeps it when realloc
 * fails: nothing is lost but the memory.
 */
void nsight_vec_shrink(void **v, size_t *cap, size_t n, size_t size);

#define NSIGHT_VEC_SHRINK(v, n, cap) \
	nsight_vec_shrink((void **)&(v), &(cap), (n), sizeof(*(v)))

/* Room for one more element after the @n in @v, of capacity @cap. */
#define NSIGHT_VEC_GROW(v, n, cap) \
	((n) < (cap) ? 0 : nsight_vec_reserve((void **)&(v), &(cap), (n) + 1, sizeof(*(v))))

#endif
