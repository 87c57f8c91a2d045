// SPDX-License-Identifier: MIT
/* tscguard: records whose TSC is far out of their chunk's order. */
#include "records.h"
#include "tscguard.h"
#include "test.h"

#define HZ	1000000000ULL
#define SS	sizeof(struct nsight_rec_sched_switch)

/* A chunk of a SUBBUF and sched_switch records at @tsc[0..n-1]; which are bad. */
static size_t scan(const uint64_t *tsc, size_t n, bool *bad)
{
	static uint8_t buf[4096];
	struct nsight_diag d = { 0 };
	struct nsight_tscguard g;
	size_t pos = 0, i, n_bad;

	put_subbuf(buf, &pos, 0, tsc[0], 0, 0);
	for (i = 1; i < n; i++)
		put_rec(buf, &pos, NSIGHT_REC_SCHED_SWITCH, SS, 0, tsc[i]);
	nsight_tscguard_init(&g, HZ);
	if (nsight_tscguard_scan(&g, buf, pos, 0, &d)) {
		nsight_tscguard_fini(&g);
		return SIZE_MAX;
	}
	for (i = 0; i < n; i++)
		bad[i] = nsight_tscguard_bad(&g, i);
	n_bad = g.n_bad;
	nsight_tscguard_fini(&g);
	return n_bad;
}

/* In order, small steps back, long gaps: none is corrupt. */
static void test_plausible(void)
{
	const uint64_t tsc[] = { 1000, 2000, 1990, 3000, 3000 + 50 * HZ, 3001 + 50 * HZ,
				 2900 + 50 * HZ, 4000 + 50 * HZ };
	bool bad[8];

	CHECK_U64(scan(tsc, 8, bad), 0);
}

static void test_far_later(void)
{
	const uint64_t tsc[] = { 1000, 2000, UINT64_MAX - 5, 3000, 4000, 5000 };
	bool bad[6];

	CHECK_U64(scan(tsc, 6, bad), 1);
	CHECK(bad[2]);
}

static void test_far_earlier(void)
{
	const uint64_t tsc[] = { 10 * HZ, 10 * HZ + 1, 10 * HZ + 2, 3, 10 * HZ + 4, 10 * HZ + 5 };
	bool bad[6];

	CHECK_U64(scan(tsc, 6, bad), 1);
	CHECK(bad[3]);
}

/* Two corrupt records side by side, as high. */
static void test_two_adjacent(void)
{
	const uint64_t tsc[] = { 1000, 2000, 1ULL << 62, (1ULL << 62) + 7, 3000, 4000, 5000 };
	bool bad[7];

	CHECK_U64(scan(tsc, 7, bad), 2);
	CHECK(bad[2] && bad[3]);
}

/* The last record of a chunk: beyond a day from all before it. */
static void test_edges(void)
{
	const uint64_t late[] = { 1000, 2000, 3000, 1ULL << 60 };
	const uint64_t gap[] = { 1000, 2000, 3000, 3000 + 3600 * HZ };
	const uint64_t early[] = { 0, 100000 * HZ, 100000 * HZ + 1, 100000 * HZ + 2 };
	const uint64_t two[] = { 1000, 1ULL << 60 };
	bool bad[4];

	CHECK_U64(scan(late, 4, bad), 1);
	CHECK(bad[3]);
	CHECK_U64(scan(gap, 4, bad), 0);
	CHECK_U64(scan(early, 4, bad), 1);
	CHECK(bad[0]);
	/* Which of two is wrong cannot be told. */
	CHECK_U64(scan(two, 2, bad), 0);
}

KTAP_MAIN(
	KTAP_TEST(test_plausible),
	KTAP_TEST(test_far_later),
	KTAP_TEST(test_far_earlier),
	KTAP_TEST(test_two_adjacent),
	KTAP_TEST(test_edges),
)
