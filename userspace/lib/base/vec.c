// SPDX-License-Identifier: GPL-2.0
#include "base/vec.h"

#include <stdint.h>
#include <stdlib.h>

int nsight_vec_reserve(void **v, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -1;
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / size)
		return -1;
	p = realloc(*v, ncap * size);
	if (!p)
		return -1;
	*v = p;
	*cap = ncap;
	return 0;
}

void nsight_vec_shrink(void **v, size_t *cap, size_t n, size_t size)
{
	void *p;

	if (!*v || n >= *cap || !n)
		return;
	p = realloc(*v, n * size);
	if (p) {
		*v = p;
		*cap = n;
	}
}
