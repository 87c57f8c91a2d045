// SPDX-License-Identifier: MIT
/*
 * sort: the run-merging sort and the radix sort against a reference (a
 * stable order by key, then original position), on arrays in order, in
 * runs, reversed and random, of small and large elements.
 */
#include "base/sort.h"
#include "test.h"

/* A small element (direct merging) and a large one (through pointers). */
struct small {
	int64_t key;
	uint64_t pos;
};

struct large {
	int64_t key;
	uint64_t pos;
	char pad[40];
};

static int cmp_small(const void *a, const void *b)
{
	const struct small *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static int cmp_large(const void *a, const void *b, void *arg)
{
	const struct large *x = a, *y = b;

	(*(size_t *)arg)++;
	return x->key < y->key ? -1 : x->key > y->key;
}

static int cmp_ref(const void *a, const void *b)
{
	const struct small *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static uint64_t rng = 88172645463325252ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

enum shape { IN_ORDER, RUNS, REVERSED, RANDOM, FEW_KEYS };

static int64_t key_of(enum shape sh, size_t i, size_t n)
{
	switch (sh) {
	case IN_ORDER:	return (int64_t)i - (int64_t)n / 2;
	/* 7 interleaved runs in order, with ties across them. */
	case RUNS:	return (int64_t)((i % (n / 7 + 1)) * 3 + (i / (n / 7 + 1)) % 4);
	case REVERSED:	return (int64_t)(n - i);
	case RANDOM:	return (int64_t)next_rand();
	case FEW_KEYS:	return (int64_t)(next_rand() % 5) - 2;
	}
	return 0;
}

static void check_shape(enum shape sh, size_t n)
{
	struct small *s = calloc(n ? n : 1, sizeof(*s)), *ref = calloc(n ? n : 1, sizeof(*ref));
	struct large *l = calloc(n ? n : 1, sizeof(*l));
	int64_t *v = calloc(n ? n : 1, sizeof(*v));
	size_t i, calls = 0, bad_s = 0, bad_l = 0, bad_v = 0;

	REQUIRE(s && ref && l && v);
	for (i = 0; i < n; i++) {
		s[i] = (struct small){ key_of(sh, i, n), i };
		ref[i] = s[i];
		l[i] = (struct large){ .key = s[i].key, .pos = i };
		memset(l[i].pad, (int)(i & 0xff), sizeof(l[i].pad));
		v[i] = s[i].key;
	}
	if (n > 1)
		qsort(ref, n, sizeof(*ref), cmp_ref);
	nsight_sort(s, n, sizeof(*s), cmp_small);
	nsight_sort_r(l, n, sizeof(*l), cmp_large, &calls);
	nsight_sort_i64(v, n);
	for (i = 0; i < n; i++) {
		bad_s += s[i].key != ref[i].key || s[i].pos != ref[i].pos;
		bad_l += l[i].key != ref[i].key || l[i].pos != ref[i].pos ||
			 (unsigned char)l[i].pad[39] != (ref[i].pos & 0xff);
		bad_v += v[i] != ref[i].key;
	}
	CHECK_U64(bad_s, 0);
	CHECK_U64(bad_l, 0);
	CHECK_U64(bad_v, 0);
	/* In order: one look, n - 1 comparisons. */
	if (sh == IN_ORDER && n > 1)
		CHECK_U64(calls, n - 1);
	free(s);
	free(ref);
	free(l);
	free(v);
}

static void test_shapes(void)
{
	static const size_t sizes[] = { 0, 1, 2, 7, 255, 256, 1000, 100003 };
	enum shape sh;

	for (sh = IN_ORDER; sh <= FEW_KEYS; sh++)
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
			check_shape(sh, sizes[k]);
}

/* The radix sort over the whole range: both extremes, signs, equal bytes. */
static void test_i64_extremes(void)
{
	int64_t v[300];
	size_t i;
	bool ordered = true;

	for (i = 0; i < 300; i++)
		v[i] = (int64_t)(next_rand() >> (i % 64)) * (i % 2 ? -1 : 1);
	v[0] = INT64_MIN;
	v[1] = INT64_MAX;
	v[2] = 0;
	v[3] = -1;
	nsight_sort_i64(v, 300);
	for (i = 1; i < 300; i++)
		ordered &= v[i - 1] <= v[i];
	CHECK(ordered);
	CHECK(v[0] == INT64_MIN && v[299] == INT64_MAX);
}

static int cmp_rec_ref(const void *a, const void *b)
{
	const struct nsight_sort_rec *x = a, *y = b;

	for (int i = 0; i < 3; i++)
		if (x->key[i] != y->key[i])
			return x->key[i] < y->key[i] ? -1 : 1;
	return x->val < y->val ? -1 : x->val > y->val;
}

/* Three-word keys with ties in each word, stably: against a reference. */
static void test_recs(void)
{
	static const size_t sizes[] = { 0, 1, 100, 255, 256, 5000 };

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k], i, bad = 0;
		struct nsight_sort_rec *v = calloc(n ? n : 1, sizeof(*v));
		struct nsight_sort_rec *ref = calloc(n ? n : 1, sizeof(*ref));

		REQUIRE(v && ref);
		for (i = 0; i < n; i++) {
			v[i] = (struct nsight_sort_rec){
				{ next_rand() % 3, (next_rand() % 7) << (i % 2 ? 56 : 8), next_rand() % 4 },
				i };
			ref[i] = v[i];
		}
		if (n > 1)
			qsort(ref, n, sizeof(*ref), cmp_rec_ref);
		nsight_sort_recs(v, n);
		for (i = 0; i < n; i++)
			bad += memcmp(&v[i], &ref[i], sizeof(v[i])) != 0;
		CHECK_U64(bad, 0);
		free(v);
		free(ref);
	}
}

KTAP_MAIN(
	KTAP_TEST(test_shapes),
	KTAP_TEST(test_i64_extremes),
	KTAP_TEST(test_recs),
)
