// SPDX-License-Identifier: MIT
/* The record walker, the whole-record prefix and the type table. */
#include "format/records.h"
#include "test.h"

#define HO	sizeof(struct nsight_rec_handoff)
#define TK	sizeof(struct nsight_rec_timekeeper)
#define CS	sizeof(struct nsight_rec_clock_sync)

/* Walk @len bytes of @buf on @cpu; returns the walker's final result. */
static int walk(const uint8_t *buf, size_t len, uint32_t cpu, unsigned int *types,
		size_t max, size_t *n, char *msg, size_t msglen)
{
	struct nsight_rec_walker w;
	struct nsight_diag d = { 0 };
	struct nsight_rec rec;
	int ret;

	*n = 0;
	nsight_rec_walker_init(&w, buf, len, cpu, 1000);
	while ((ret = nsight_rec_walker_next(&w, &rec, &d)) > 0) {
		if (*n < max)
			types[*n] = rec.hdr.type;
		(*n)++;
	}
	snprintf(msg, msglen, "%s", d.msg);
	return ret;
}

static void test_type_table(void)
{
	unsigned int t;

	CHECK(!strcmp(nsight_rec_type_name(NSIGHT_REC_SUBBUF), "subbuf"));
	CHECK(!strcmp(nsight_rec_type_name(NSIGHT_REC_SCHED_SWITCH), "sched_switch"));
	CHECK(!strcmp(nsight_rec_type_name(NSIGHT_REC_HANDOFF), "handoff"));
	CHECK(!strcmp(nsight_rec_type_name(NSIGHT_REC_TIMEKEEPER), "timekeeper"));
	CHECK(!strcmp(nsight_rec_type_name(NSIGHT_REC_CLOCK_SYNC), "clock_sync"));
	CHECK(!strcmp(nsight_rec_type_name(NSIGHT_REC_PKT), "pkt"));
	CHECK(!strcmp(nsight_rec_type_name(NSIGHT_REC_APP_COPY), "app_copy"));
	CHECK(!strcmp(nsight_rec_type_name(NSIGHT_REC_APP_RECV), "app_recv"));
	CHECK(!strcmp(nsight_rec_type_name(NSIGHT_REC_APP_SEND), "app_send"));
	CHECK(!strcmp(nsight_rec_type_name(NSIGHT_REC_MARK), "mark"));
	CHECK(!strcmp(nsight_rec_type_name(NSIGHT_REC_NAPI_POLL), "napi_poll"));
	CHECK(nsight_rec_type_name(NSIGHT_REC_INVALID) == NULL);
	CHECK(nsight_rec_type_name(__NSIGHT_REC_MAX) == NULL);
	CHECK_U64(nsight_rec_min_size(NSIGHT_REC_SUBBUF), 32);
	CHECK_U64(nsight_rec_min_size(NSIGHT_REC_SCHED_SWITCH), 80);
	CHECK_U64(nsight_rec_min_size(NSIGHT_REC_HANDOFF), 88);
	CHECK_U64(nsight_rec_min_size(NSIGHT_REC_TIMEKEEPER), 168);
	CHECK_U64(nsight_rec_min_size(NSIGHT_REC_CLOCK_SYNC), 72);
	CHECK_U64(nsight_rec_min_size(NSIGHT_REC_PKT), 104);
	CHECK_U64(nsight_rec_min_size(NSIGHT_REC_APP_COPY), 40);
	CHECK_U64(nsight_rec_min_size(NSIGHT_REC_APP_RECV), 112);
	CHECK_U64(nsight_rec_min_size(NSIGHT_REC_APP_SEND), 112);
	CHECK_U64(nsight_rec_min_size(NSIGHT_REC_MARK), 32);
	CHECK_U64(nsight_rec_min_size(NSIGHT_REC_NAPI_POLL), 24);
	/* Every known type has a name and a size. */
	for (t = NSIGHT_REC_SUBBUF; t < __NSIGHT_REC_MAX; t++)
		CHECK(nsight_rec_type_name(t) && nsight_rec_min_size(t) >= sizeof(struct nsight_rec_hdr));
	CHECK_U64(nsight_rec_min_size(999), 0);
	CHECK_U64(NSIGHT_REC_MAX_SIZE, 65528);
}

static void test_walk_valid(void)
{
	uint8_t buf[1024];
	unsigned int types[8];
	size_t pos = 0, n;
	char msg[512];

	put_subbuf(buf, &pos, 3, 10, 0, 0);
	put_rec(buf, &pos, NSIGHT_REC_SCHED_SWITCH, 80, 3, 11);
	put_rec(buf, &pos, NSIGHT_REC_HANDOFF, HO + 8, 3, 12);	/* larger than its struct: fine */
	put_rec(buf, &pos, NSIGHT_REC_TIMEKEEPER, TK, 3, 13);
	put_rec(buf, &pos, NSIGHT_REC_CLOCK_SYNC, CS, 3, 14);
	CHECK_U64(walk(buf, pos, 3, types, 8, &n, msg, sizeof(msg)), 0);
	CHECK_U64(n, 5);
	CHECK_U64(types[0], NSIGHT_REC_SUBBUF);
	CHECK_U64(types[4], NSIGHT_REC_CLOCK_SYNC);
	/* Empty buffer. */
	CHECK_U64(walk(buf, 0, 3, types, 8, &n, msg, sizeof(msg)), 0);
	CHECK_U64(n, 0);
}

static void test_walk_offsets(void)
{
	struct nsight_rec_walker w;
	struct nsight_rec rec;
	uint8_t buf[256];
	size_t pos = 0;

	put_subbuf(buf, &pos, 0, 5, 7, 2);
	put_rec(buf, &pos, NSIGHT_REC_SCHED_SWITCH, 80, 0, 6);
	nsight_rec_walker_init(&w, buf, pos, 0, 5000);
	REQUIRE(nsight_rec_walker_next(&w, &rec, NULL) == 1);
	CHECK_U64(rec.offset, 5000);
	CHECK_U64(rec.hdr.tsc, 5);
	CHECK(rec.data == buf);
	REQUIRE(nsight_rec_walker_next(&w, &rec, NULL) == 1);
	CHECK_U64(rec.offset, 5032);
	CHECK_U64(rec.hdr.size, 80);
	CHECK_U64(nsight_rec_walker_next(&w, &rec, NULL), 0);
}

static void test_walk_size_zero(void)
{
	uint8_t buf[128];
	unsigned int types[4];
	size_t pos = 0, n;
	char msg[512];

	put_subbuf(buf, &pos, 0, 1, 0, 0);
	rec_hdr(buf + pos, NSIGHT_REC_HANDOFF, 0, 0, 2);
	memset(buf + pos + 16, 0, 16);
	pos += 32;
	CHECK_U64(walk(buf, pos, 0, types, 4, &n, msg, sizeof(msg)), -NSIGHT_E_RECORD);
	CHECK_U64(n, 1);
	CHECK_STR_HAS(msg, "record at byte 1032 (cpu 0): size 0 is smaller than the 16-byte header");
}

static void test_walk_size_unaligned(void)
{
	uint8_t buf[128] = { 0 };
	unsigned int types[4];
	size_t n;
	char msg[512];

	rec_hdr(buf, NSIGHT_REC_SUBBUF, 36, 0, 1);
	CHECK_U64(walk(buf, 40, 0, types, 4, &n, msg, sizeof(msg)), -NSIGHT_E_RECORD);
	CHECK_STR_HAS(msg, "size 36 is not a multiple of 8");
}

static void test_walk_size_past_end(void)
{
	uint8_t buf[256] = { 0 };
	unsigned int types[4];
	size_t pos = 0, n;
	char msg[512];

	put_subbuf(buf, &pos, 0, 1, 0, 0);
	put_rec(buf, &pos, NSIGHT_REC_SCHED_SWITCH, 80, 0, 2);
	CHECK_U64(walk(buf, pos - 8, 0, types, 4, &n, msg, sizeof(msg)), -NSIGHT_E_RECORD);
	CHECK_U64(n, 1);
	CHECK_STR_HAS(msg, "record at byte 1032 (cpu 0): size 80 runs past the end of its chunk (72 bytes left)");
	/* Fewer than 16 bytes left. */
	CHECK_U64(walk(buf, 40, 0, types, 4, &n, msg, sizeof(msg)), -NSIGHT_E_RECORD);
	CHECK_STR_HAS(msg, "header needs 16 bytes, 8 left");
}

static void test_walk_cpu_mismatch(void)
{
	uint8_t buf[256];
	unsigned int types[4];
	size_t pos = 0, n;
	char msg[512];

	put_subbuf(buf, &pos, 2, 1, 0, 0);
	put_rec(buf, &pos, NSIGHT_REC_SCHED_SWITCH, 80, 5, 2);
	CHECK_U64(walk(buf, pos, 2, types, 4, &n, msg, sizeof(msg)), -NSIGHT_E_RECORD);
	CHECK_STR_HAS(msg, "record at byte 1032: written on cpu 5 but found in the buffer of cpu 2");
}

static void test_walk_known_type_too_small(void)
{
	uint8_t buf[256];
	unsigned int types[4];
	size_t pos = 0, n;
	char msg[512];

	put_rec(buf, &pos, NSIGHT_REC_TIMEKEEPER, TK - 8, 0, 2);
	CHECK_U64(walk(buf, pos, 0, types, 4, &n, msg, sizeof(msg)), -NSIGHT_E_RECORD);
	CHECK_STR_HAS(msg, "timekeeper record of 160 bytes, needs at least 168");
	pos = 0;
	put_rec(buf, &pos, NSIGHT_REC_HANDOFF, 72, 0, 2);	/* the first version's size */
	CHECK_U64(walk(buf, pos, 0, types, 4, &n, msg, sizeof(msg)), -NSIGHT_E_RECORD);
	CHECK_STR_HAS(msg, "handoff record of 72 bytes, needs at least 88");
	pos = 0;
	put_rec(buf, &pos, NSIGHT_REC_SUBBUF, 16, 0, 2);
	CHECK_U64(walk(buf, pos, 0, types, 4, &n, msg, sizeof(msg)), -NSIGHT_E_RECORD);
	CHECK_STR_HAS(msg, "subbuf record of 16 bytes, needs at least 32");
}

static void test_walk_type_zero(void)
{
	uint8_t buf[64];
	unsigned int types[4];
	size_t pos = 0, n;
	char msg[512];

	put_rec(buf, &pos, NSIGHT_REC_INVALID, 16, 0, 2);
	CHECK_U64(walk(buf, pos, 0, types, 4, &n, msg, sizeof(msg)), -NSIGHT_E_RECORD);
	CHECK_STR_HAS(msg, "invalid record type 0");
}

static void test_walk_unknown_type_skipped(void)
{
	uint8_t buf[512];
	unsigned int types[8];
	size_t pos = 0, n;
	char msg[512];

	put_subbuf(buf, &pos, 1, 1, 0, 0);
	put_rec(buf, &pos, 42, 16, 1, 2);	/* unknown types may be just a header */
	put_rec(buf, &pos, 4242, 200, 1, 3);
	put_rec(buf, &pos, NSIGHT_REC_HANDOFF, HO, 1, 4);
	CHECK_U64(walk(buf, pos, 1, types, 8, &n, msg, sizeof(msg)), 0);
	CHECK_U64(n, 4);
	CHECK_U64(types[1], 42);
	CHECK_U64(types[2], 4242);
	CHECK_U64(types[3], NSIGHT_REC_HANDOFF);
}

/* Unaligned buffers are fine: headers are copied, never dereferenced. */
static void test_walk_unaligned_buffer(void)
{
	uint8_t raw[300];
	unsigned int types[4];
	size_t pos = 0, n;
	char msg[512];

	put_subbuf(raw + 1, &pos, 0, 1, 0, 0);
	put_rec(raw + 1, &pos, NSIGHT_REC_CLOCK_SYNC, CS, 0, 2);
	CHECK_U64(walk(raw + 1, pos, 0, types, 4, &n, msg, sizeof(msg)), 0);
	CHECK_U64(n, 2);
	CHECK_U64(nsight_records_whole_prefix(raw + 1, pos), pos);
}

static void test_whole_prefix(void)
{
	uint8_t buf[512] = { 0 };
	size_t pos = 0, cut;

	put_subbuf(buf, &pos, 0, 1, 0, 0);				/* 0..32 */
	put_rec(buf, &pos, NSIGHT_REC_SCHED_SWITCH, 80, 0, 2);		/* 32..112 */
	put_rec(buf, &pos, NSIGHT_REC_HANDOFF, HO, 0, 3);		/* 112..200 */

	CHECK_U64(nsight_records_whole_prefix(buf, 0), 0);
	CHECK_U64(nsight_records_whole_prefix(buf, 15), 0);
	CHECK_U64(nsight_records_whole_prefix(buf, 31), 0);
	CHECK_U64(nsight_records_whole_prefix(buf, 32), 32);
	CHECK_U64(nsight_records_whole_prefix(buf, 33), 32);
	CHECK_U64(nsight_records_whole_prefix(buf, 111), 32);
	CHECK_U64(nsight_records_whole_prefix(buf, 112), 112);
	CHECK_U64(nsight_records_whole_prefix(buf, 112 + HO - 1), 112);
	CHECK_U64(nsight_records_whole_prefix(buf, 112 + HO), 112 + HO);
	/* The prefix never exceeds the input and always ends on a boundary. */
	for (cut = 0; cut <= pos; cut++) {
		size_t p = nsight_records_whole_prefix(buf, cut);

		CHECK(p <= cut);
		CHECK(p == 0 || p == 32 || p == 112 || p == 112 + HO);
	}
	/* Stops at an impossible size instead of looping or overrunning. */
	rec_hdr(buf + 32, NSIGHT_REC_SCHED_SWITCH, 0, 0, 0);
	CHECK_U64(nsight_records_whole_prefix(buf, 112 + HO), 32);
	rec_hdr(buf + 32, NSIGHT_REC_SCHED_SWITCH, 20, 0, 0);
	CHECK_U64(nsight_records_whole_prefix(buf, 112 + HO), 32);
	CHECK(!nsight_rec_size_valid(8));
	CHECK(!nsight_rec_size_valid(20));
	CHECK(nsight_rec_size_valid(16));
	CHECK(nsight_rec_size_valid(65528));
}

KTAP_MAIN(
	KTAP_TEST(test_type_table),
	KTAP_TEST(test_walk_valid),
	KTAP_TEST(test_walk_offsets),
	KTAP_TEST(test_walk_size_zero),
	KTAP_TEST(test_walk_size_unaligned),
	KTAP_TEST(test_walk_size_past_end),
	KTAP_TEST(test_walk_cpu_mismatch),
	KTAP_TEST(test_walk_known_type_too_small),
	KTAP_TEST(test_walk_type_zero),
	KTAP_TEST(test_walk_unknown_type_skipped),
	KTAP_TEST(test_walk_unaligned_buffer),
	KTAP_TEST(test_whole_prefix),
)
