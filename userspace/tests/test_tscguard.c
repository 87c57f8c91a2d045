// SPDX-License-Identifier: MIT
/* tscguard: records whose TSC is far out of their chunk's order. */
#include "format/records.h"
#include "format/tscguard.h"
#include "test.h"

#define HZ	1000000000ULL
/* Mark records: one compact record each (a switch would add thread records). */
#define MK	sizeof(struct nsight_rec_mark)

/* Which of the records @w yields are bad (SIZE_MAX: out of memory). */
static size_t scan_walker(const struct nsight_rec_walker *w, size_t n, bool *bad)
{
	struct nsight_diag d = { 0 };
	struct nsight_tscguard g;
	size_t i, n_bad;

	nsight_tscguard_init(&g, HZ);
	if (nsight_tscguard_scan(&g, w, &d)) {
		nsight_tscguard_fini(&g);
		return SIZE_MAX;
	}
	for (i = 0; i < n; i++)
		bad[i] = nsight_tscguard_bad(&g, i);
	n_bad = g.n_bad;
	nsight_tscguard_fini(&g);
	return n_bad;
}

/* Whether compact records @c decode to the TSCs @tsc. */
static bool same_tscs(const uint8_t *c, size_t len, const uint64_t *tsc, size_t n)
{
	struct nsight_diag d = { 0 };
	struct nsight_rec_walker w;
	struct nsight_cdec dec;
	struct nsight_rec rec;
	bool same = true;
	size_t i = 0;

	nsight_cdec_init(&dec);
	nsight_rec_walker_init_compact(&w, c, len, 0, 0, &dec);
	while (nsight_rec_walker_next(&w, &rec, &d) > 0)
		same &= i < n && rec.hdr.tsc == tsc[i++];
	return same && i == n;
}

/*
 * A chunk of a SUBBUF and mark records at @tsc[0..n-1]; which are
 * bad. The same chunk in compact form gives the same answer when its
 * stamps (the low 48 bits) give the same TSCs.
 */
static size_t scan(const uint64_t *tsc, size_t n, bool *bad)
{
	static uint8_t buf[4096];
	struct nsight_rec_walker w;
	struct nsight_cdec dec;
	bool cbad[64];
	uint8_t *c;
	size_t pos = 0, i, n_bad, clen;

	put_subbuf(buf, &pos, 0, tsc[0], 0, 0);
	for (i = 1; i < n; i++)
		put_rec(buf, &pos, NSIGHT_REC_MARK, MK, 0, tsc[i]);
	nsight_rec_walker_init(&w, buf, pos, 0, 0);
	n_bad = scan_walker(&w, n, bad);

	if (n > 64 || nsight_crecords_encode(buf, pos, &c, &clen)) {
		CHECK(0);
		return SIZE_MAX;
	}
	nsight_cdec_init(&dec);
	nsight_rec_walker_init_compact(&w, c, clen, 0, 0, &dec);
	/* Where the compact stamps give the same TSCs, the same answer. */
	if (same_tscs(c, clen, tsc, n)) {
		CHECK_U64(scan_walker(&w, n, cbad), n_bad);
		for (i = 0; i < n; i++)
			CHECK_U64(cbad[i], bad[i]);
	}
	free(c);
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

/*
 * In TSC order, with a jump of more than a day after each of the first two
 * records: the first is at the chunk's edge, and once it is found corrupt
 * so is the second (all before it are corrupt). Also one step back of a
 * second past the highest stamp so far: the rule on neighbours applies.
 */
#define DAY	(86400 * HZ)
static void test_edge_after_edge(void)
{
	const uint64_t tsc[] = { 1, DAY + 3, 2 * DAY + 6, 2 * DAY + 7, 2 * DAY + 8, 2 * DAY + 9 };
	const uint64_t back[] = { 1000, 2000, 3 * HZ, 3000, 4000, 5000, 6000 };
	bool bad[7];

	CHECK_U64(scan(tsc, 6, bad), 2);
	CHECK(bad[0] && bad[1] && !bad[2] && !bad[5]);
	CHECK_U64(scan(back, 7, bad), 1);
	CHECK(bad[2]);
}

/*
 * Compact: a stamp whose 48 bits are wrong is isolated, and the records
 * after it come out right (each is read against the one before it).
 */
static void test_compact_stamp(void)
{
	const uint64_t tsc[] = { 5 * HZ, 5 * HZ + 10, 5 * HZ + 20, 5 * HZ + 30, 5 * HZ + 40,
				 5 * HZ + 50 };
	uint64_t buf[64], h;
	struct nsight_rec_walker w;
	struct nsight_diag d = { 0 };
	struct nsight_cdec dec;
	struct nsight_rec rec;
	bool bad[6];
	uint8_t *c;
	size_t pos = 0, i, clen, at;

	put_subbuf((uint8_t *)buf, &pos, 0, tsc[0], 0, 0);
	for (i = 1; i < 6; i++)
		put_rec((uint8_t *)buf, &pos, NSIGHT_REC_MARK, MK, 0, tsc[i]);
	REQUIRE(nsight_crecords_encode(buf, pos, &c, &clen) == 0);
	/* The third record's stamp, 2^40 ticks (18 minutes) off. */
	for (at = 0, i = 0; at < clen; at += NSIGHT_CREC_SIZE(h)) {
		memcpy(&h, c + at, sizeof(h));
		if (i++ != 2)
			continue;
		h ^= 1ULL << (16 + 40);
		memcpy(c + at, &h, sizeof(h));
	}
	nsight_cdec_init(&dec);
	nsight_rec_walker_init_compact(&w, c, clen, 0, 0, &dec);
	CHECK_U64(scan_walker(&w, 6, bad), 1);
	CHECK(bad[2]);
	for (i = 0; nsight_rec_walker_next(&w, &rec, &d) > 0; i++)
		if (i != 2)
			CHECK_U64(rec.hdr.tsc, tsc[i]);
	CHECK_U64(i, 6);
	free(c);
}

KTAP_MAIN(
	KTAP_TEST(test_plausible),
	KTAP_TEST(test_far_later),
	KTAP_TEST(test_far_earlier),
	KTAP_TEST(test_two_adjacent),
	KTAP_TEST(test_edges),
	KTAP_TEST(test_edge_after_edge),
	KTAP_TEST(test_compact_stamp),
)
