// SPDX-License-Identifier: MIT
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/sort.h"

/* Elements larger than this are sorted through pointers, then moved once. */
#define DIRECT_MAX	32
/* More runs than n / RUNS_DIV: not worth finding them, qsort_r() it is. */
#define RUNS_DIV	8
/* Fewer values than this: qsort() (the radix's counting costs more). */
#define RADIX_MIN	256

struct sorter {
	int (*cmp)(const void *, const void *, void *);
	void *arg;
	bool indirect;		/* elements are pointers to the real ones */
};

static int cmp_at(const struct sorter *s, const char *a, const char *b)
{
	if (s->indirect)
		return s->cmp(*(const char *const *)a, *(const char *const *)b, s->arg);
	return s->cmp(a, b, s->arg);
}

/* Where each run in order starts; bounds[nruns] = n. NULL: too many. */
static size_t *find_runs(const struct sorter *s, const char *base, size_t n, size_t size,
			 size_t *nruns)
{
	size_t i, k = 1, *b = malloc((n / RUNS_DIV + 2) * sizeof(*b));

	if (!b)
		return NULL;
	b[0] = 0;
	for (i = 1; i < n; i++) {
		if (cmp_at(s, base + (i - 1) * size, base + i * size) <= 0)
			continue;
		if (k > n / RUNS_DIV) {
			free(b);
			return NULL;
		}
		b[k++] = i;
	}
	b[k] = n;
	*nruns = k;
	return b;
}

/* Merge src[lo, mid) and src[mid, hi) into dst[lo, hi), the left first on ties. */
static void merge(const struct sorter *s, const char *src, char *dst, size_t size,
		  size_t lo, size_t mid, size_t hi)
{
	size_t i = lo, j = mid, o = lo;

	if (mid < hi && mid > lo && cmp_at(s, src + (mid - 1) * size, src + mid * size) <= 0) {
		memcpy(dst + lo * size, src + lo * size, (hi - lo) * size);
		return;
	}
	while (i < mid && j < hi) {
		if (cmp_at(s, src + i * size, src + j * size) <= 0)
			memcpy(dst + o++ * size, src + i++ * size, size);
		else
			memcpy(dst + o++ * size, src + j++ * size, size);
	}
	memcpy(dst + o * size, src + i * size, (mid - i) * size);
	o += mid - i;
	memcpy(dst + o * size, src + j * size, (hi - j) * size);
}

/* Merge the runs pairwise until one is left; the result in @base. */
static void merge_runs(const struct sorter *s, char *base, char *tmp, size_t size,
		       size_t *b, size_t nruns)
{
	char *src = base, *dst = tmp, *t;

	while (nruns > 1) {
		size_t r, k = 0;

		for (r = 0; r + 1 < nruns; r += 2) {
			merge(s, src, dst, size, b[r], b[r + 1], b[r + 2]);
			b[k++] = b[r];
		}
		if (r < nruns) {
			memcpy(dst + b[r] * size, src + b[r] * size, (b[r + 1] - b[r]) * size);
			b[k++] = b[r];
		}
		b[k] = b[nruns];
		nruns = k;
		t = src;
		src = dst;
		dst = t;
	}
	if (src != base)
		memcpy(base, src, b[1] * size);
}

/* Move the elements of @base to the order @ptr gives, cycle by cycle. */
static bool permute(char *base, size_t n, size_t size, char **ptr)
{
	char *hold = malloc(size);
	size_t i;

	if (!hold)
		return false;
	for (i = 0; i < n; i++) {
		size_t j = i;

		if (ptr[i] == base + i * size)
			continue;
		memcpy(hold, base + i * size, size);
		for (;;) {
			size_t k = (size_t)(ptr[j] - base) / size;

			ptr[j] = base + j * size;
			if (k == i) {
				memcpy(base + j * size, hold, size);
				break;
			}
			memcpy(base + j * size, base + k * size, size);
			j = k;
		}
	}
	free(hold);
	return true;
}

static bool sort_runs(char *base, size_t n, size_t size,
		      int (*cmp)(const void *, const void *, void *), void *arg)
{
	struct sorter s = { cmp, arg, false };
	char **ptr = NULL, *tmp;
	size_t nruns, *b, i;
	bool ok = false;

	b = find_runs(&s, base, n, size, &nruns);
	if (!b)
		return false;
	if (nruns == 1) {
		free(b);
		return true;
	}
	if (size > DIRECT_MAX) {
		ptr = malloc(n * sizeof(*ptr));
		if (!ptr)
			goto out;
		for (i = 0; i < n; i++)
			ptr[i] = base + i * size;
		s.indirect = true;
	}
	tmp = malloc(n * (ptr ? sizeof(*ptr) : size));
	if (!tmp)
		goto out;
	if (ptr) {
		merge_runs(&s, (char *)ptr, tmp, sizeof(*ptr), b, nruns);
		free(tmp);
		/* Without memory to move them, the pointers are thrown away. */
		ok = permute(base, n, size, ptr);
	} else {
		merge_runs(&s, base, tmp, size, b, nruns);
		free(tmp);
		ok = true;
	}
out:
	free(ptr);
	free(b);
	return ok;
}

void nsight_sort_r(void *base, size_t n, size_t size,
		   int (*cmp)(const void *, const void *, void *), void *arg)
{
	if (n < 2)
		return;
	if (!sort_runs(base, n, size, cmp, arg))
		qsort_r(base, n, size, cmp, arg);
}

static int call_plain(const void *a, const void *b, void *arg)
{
	int (*const *cmp)(const void *, const void *) = arg;

	return (*cmp)(a, b);
}

void nsight_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	nsight_sort_r(base, n, size, call_plain, &cmp);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The 64-bit word at @off of element @i of @size bytes. */
static inline uint64_t key_at(const char *base, size_t size, size_t off, size_t i)
{
	uint64_t k;

	memcpy(&k, base + i * size + off, sizeof(k));
	return k;
}

/*
 * One radix sort of @n elements of @size bytes by the 64-bit word at
 * @off, least significant byte first; bytes all elements share are
 * skipped. Each pass moves the elements from *@src to *@dst and swaps
 * them: the sorted ones end in *@src. Stable. Always inlined: @size and
 * @off are constants at each call, so the loads and copies are of fixed
 * size (called, it cost 6% of the analysis' instructions, inlined 2%).
 */
static inline __attribute__((always_inline)) void
radix_word(char **src, char **dst, size_t n, size_t size, size_t off)
{
	uint64_t same = ~0ULL, first = key_at(*src, size, off, 0);
	size_t count[256], i;
	unsigned int shift;
	char *t;

	for (i = 1; i < n; i++)
		same &= ~(key_at(*src, size, off, i) ^ first);
	for (shift = 0; shift < 64; shift += 8) {
		size_t sum = 0;

		if (((same >> shift) & 0xff) == 0xff)
			continue;
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(key_at(*src, size, off, i) >> shift) & 0xff]++;
		for (i = 0; i < 256; i++) {
			size_t c = count[i];

			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			memcpy(*dst + count[(key_at(*src, size, off, i) >> shift) & 0xff]++ * size,
			       *src + i * size, size);
		t = *src;
		*src = *dst;
		*dst = t;
	}
}

void nsight_sort_i64(int64_t *v, size_t n)
{
	uint64_t *u = (uint64_t *)v;
	char *src = (char *)v, *dst;
	size_t i;

	if (n < RADIX_MIN) {
		if (n > 1)
			qsort(v, n, sizeof(*v), cmp_i64);
		return;
	}
	dst = malloc(n * sizeof(*v));
	if (!dst) {
		qsort(v, n, sizeof(*v), cmp_i64);
		return;
	}
	/* The sign bit flipped: unsigned order is then signed order. */
	for (i = 0; i < n; i++)
		u[i] ^= 1ULL << 63;
	radix_word(&src, &dst, n, sizeof(*v), 0);
	if (src != (char *)v)
		memcpy(v, src, n * sizeof(*v));
	for (i = 0; i < n; i++)
		u[i] ^= 1ULL << 63;
	free(src == (char *)v ? dst : src);
}

static int cmp_rec(const void *a, const void *b)
{
	const struct nsight_sort_rec *x = a, *y = b;

	for (int i = 0; i < 3; i++)
		if (x->key[i] != y->key[i])
			return x->key[i] < y->key[i] ? -1 : 1;
	return 0;
}

/* The least significant key first: radix_word() is stable. */
void nsight_sort_recs(struct nsight_sort_rec *v, size_t n)
{
	char *src = (char *)v, *dst;
	int w;

	if (n < RADIX_MIN) {
		nsight_sort(v, n, sizeof(*v), cmp_rec);
		return;
	}
	dst = malloc(n * sizeof(*v));
	if (!dst) {
		nsight_sort(v, n, sizeof(*v), cmp_rec);
		return;
	}
	for (w = 2; w >= 0; w--)
		radix_word(&src, &dst, n, sizeof(*v),
			   offsetof(struct nsight_sort_rec, key) + (size_t)w * sizeof(v->key[0]));
	if (src != (char *)v)
		memcpy(v, src, n * sizeof(*v));
	free(src == (char *)v ? dst : src);
}
