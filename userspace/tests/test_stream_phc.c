// SPDX-License-Identifier: MIT
/* The PHC chunk of the dump stream: writing, reading, damage and accessors. */
#include "test.h"

#define HDR	sizeof(struct nsight_stream_hdr)
#define CHDR	sizeof(struct nsight_chunk_hdr)
#define PS	sizeof(struct nsight_phc_sample)

_Static_assert(sizeof(struct nsight_phc_sample) == 56, "the offsets below assume 56-byte samples");

static void std_header(struct nsight_stream_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->tsc_hz = 1000000000;
	h->nr_cpus = 2;
	h->dump_realtime_ns = 1700000000000000000ULL;
	strcpy(h->release, "6.12.0-test");
}

static void make_samples(struct nsight_phc_sample *s, size_t n)
{
	size_t i;

	memset(s, 0, n * sizeof(*s));
	for (i = 0; i < n; i++) {
		s[i].phc_index = (uint32_t)(i / 2);
		s[i].ifindex = (uint32_t)(i / 2 + 2);
		snprintf(s[i].ifname, sizeof(s[i].ifname), "eth%zu", i / 2);
		s[i].sys_before_ns = 1700000000000000000LL + (int64_t)i * 1000;
		s[i].phc_ns = 37000000000LL + (int64_t)i * 1000;
		s[i].sys_after_ns = s[i].sys_before_ns + 100 + (int64_t)i;
		s[i].method = NSIGHT_PHC_EXTENDED;
	}
}

/*
 * Header (104), PHC chunk of @n samples at 104 (payload at 128), STATUS of
 * one CPU, END.
 */
static void build(struct membuf *m, const struct nsight_phc_sample *s, size_t n)
{
	struct nsight_cpu_status st = { .cpu = 0, .online = 1 };
	struct nsight_stream_writer w;
	struct nsight_stream_hdr h;

	membuf_open(m, &w);
	std_header(&h);
	nsight_stream_write_header(&w, &h);
	nsight_stream_write_phc(&w, s, n);
	nsight_stream_write_status(&w, &st, 1);
	nsight_stream_write_end(&w);
	membuf_close(m);
}

static void test_phc_roundtrip(void)
{
	struct nsight_phc_sample s[5], got;
	struct nsight_stream_reader r;
	struct nsight_chunk c;
	struct membuf m;
	size_t i;
	FILE *f;

	make_samples(s, 5);
	s[4].method = NSIGHT_PHC_PRECISE;
	s[4].sys_after_ns = s[4].sys_before_ns;
	build(&m, s, 5);
	CHECK_U64(m.len, HDR + CHDR + 5 * PS + CHDR + 40 + CHDR + 16);

	f = mem_reader(m.data, m.len);
	REQUIRE(f);
	REQUIRE(nsight_stream_reader_init(&r, f) == 0);
	REQUIRE(nsight_stream_read_chunk(&r, &c) == 1);
	CHECK_U64(c.type, NSIGHT_CHUNK_PHC);
	CHECK_U64(c.cpu, NSIGHT_CHUNK_NO_CPU);
	CHECK_U64(c.offset, HDR);
	CHECK_U64(c.size, 5 * PS);
	REQUIRE(nsight_phc_chunk_count(&c) == 5);
	for (i = 0; i < 5; i++) {
		nsight_phc_chunk_get(&c, i, &got);
		if (memcmp(&got, &s[i], sizeof(got)))
			KTAP_FAIL("sample %zu differs", i);
	}
	nsight_phc_chunk_get(&c, 3, &got);
	CHECK(!strcmp(got.ifname, "eth1"));
	CHECK_U64(got.ifindex, 3);
	CHECK_U64(got.phc_index, 1);

	REQUIRE(nsight_stream_read_chunk(&r, &c) == 1);
	CHECK_U64(c.type, NSIGHT_CHUNK_STATUS);
	CHECK_U64(nsight_phc_chunk_count(&c), 0);	/* not a PHC chunk */
	CHECK_U64(nsight_stream_read_chunk(&r, &c), 0);
	CHECK_U64(r.chunks, 2);
	CHECK_U64(r.skipped_chunks, 0);
	CHECK_U64(r.record_bytes, 0);
	nsight_stream_reader_fini(&r);
	fclose(f);
	free(m.data);
}

static void test_phc_empty_chunk(void)
{
	struct membuf m;
	char msg[512];
	size_t n;

	build(&m, NULL, 0);
	CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), &n), 0);
	CHECK_U64(n, 2);
	free(m.data);
}

static void test_phc_bad_size(void)
{
	struct nsight_phc_sample s[2];
	struct nsight_stream_writer w;
	struct nsight_stream_hdr h;
	struct membuf m;
	char msg[512];

	make_samples(s, 2);
	membuf_open(&m, &w);
	std_header(&h);
	nsight_stream_write_header(&w, &h);
	nsight_stream_write_chunk(&w, NSIGHT_CHUNK_PHC, NSIGHT_CHUNK_NO_CPU, s, PS + 8);
	nsight_stream_write_end(&w);
	membuf_close(&m);
	CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), -NSIGHT_E_CHUNK);
	CHECK_STR_HAS(msg, "PHC chunk at byte 104: size 64 is not a multiple of 56");
	free(m.data);
}

static void test_phc_bad_cpu(void)
{
	struct nsight_phc_sample s[1];
	struct nsight_stream_writer w;
	struct nsight_stream_hdr h;
	struct membuf m;
	char msg[512];

	make_samples(s, 1);
	membuf_open(&m, &w);
	std_header(&h);
	nsight_stream_write_header(&w, &h);
	nsight_stream_write_chunk(&w, NSIGHT_CHUNK_PHC, 0, s, PS);
	nsight_stream_write_end(&w);
	membuf_close(&m);
	CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), -NSIGHT_E_CHUNK);
	CHECK_STR_HAS(msg, "PHC chunk at byte 104: cpu field is 0, expected 0xffffffff");
	free(m.data);
}

static void test_phc_ifname_unterminated(void)
{
	struct nsight_phc_sample s[3];
	struct membuf m;
	char msg[512];

	make_samples(s, 3);
	memset(s[1].ifname, 'x', sizeof(s[1].ifname));
	build(&m, s, 3);
	CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), -NSIGHT_E_CHUNK);
	/* payload at 128, sample 1 at 184, its ifname 8 bytes in */
	CHECK_STR_HAS(msg, "PHC chunk at byte 104: sample 1: ifname at byte 192 is not NUL-terminated");
	free(m.data);

	/* Fifteen characters and a NUL is the longest valid name. */
	make_samples(s, 3);
	memset(s[2].ifname, 'y', sizeof(s[2].ifname) - 1);
	build(&m, s, 3);
	CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), 0);
	free(m.data);
}

static void test_phc_damage(void)
{
	struct nsight_phc_sample s[2];
	struct membuf m;
	char msg[512], want[64];
	size_t cut, byte, bad = 0;

	make_samples(s, 2);
	build(&m, s, 2);
	/* Any flipped payload bit: a crc error, before any content check. */
	for (byte = HDR + CHDR; byte < HDR + CHDR + 2 * PS; byte++) {
		int ret;

		m.data[byte] ^= 0x40;
		ret = read_all(m.data, m.len, msg, sizeof(msg), NULL);
		m.data[byte] ^= 0x40;
		if (ret != -NSIGHT_E_CRC && bad++ < 5)
			KTAP_FAIL("flip at %zu: ret %d \"%s\"", byte, ret, msg);
	}
	CHECK_U64(bad, 0);
	/* Cut anywhere: truncation naming the cut. */
	for (cut = 0; cut < m.len; cut++) {
		int ret = read_all(m.data, cut, msg, sizeof(msg), NULL);

		snprintf(want, sizeof(want), "truncated at byte %zu:", cut);
		if ((ret != -NSIGHT_E_TRUNCATED || !strstr(msg, want)) && bad++ < 5)
			KTAP_FAIL("cut at %zu: ret %d \"%s\"", cut, ret, msg);
	}
	CHECK_U64(bad, 0);
	read_all(m.data, HDR + CHDR + 60, msg, sizeof(msg), NULL);
	CHECK_STR_HAS(msg, "PHC chunk at byte 104 needs 112 payload bytes, 60 available");
	free(m.data);
}

static void test_phc_names(void)
{
	CHECK(!strcmp(nsight_chunk_type_name(NSIGHT_CHUNK_PHC), "PHC"));
	CHECK(!strcmp(nsight_phc_method_name(NSIGHT_PHC_PRECISE), "precise"));
	CHECK(!strcmp(nsight_phc_method_name(NSIGHT_PHC_EXTENDED), "extended"));
	CHECK(nsight_phc_method_name(0) == NULL);
	CHECK(nsight_phc_method_name(3) == NULL);
}

static void test_phc_offset(void)
{
	struct nsight_phc_sample s = {
		.sys_before_ns = 1000, .phc_ns = 500, .sys_after_ns = 1101,
	};

	CHECK_U64(nsight_phc_window_ns(&s), 101);
	CHECK_U64(nsight_phc_offset_ns(&s), 550);	/* 1050 - 500 */
	s.sys_after_ns = s.sys_before_ns;
	CHECK_U64(nsight_phc_window_ns(&s), 0);
	CHECK_U64(nsight_phc_offset_ns(&s), 500);
	/* PHC ahead of the system clock: a negative offset. */
	s.phc_ns = 4000;
	CHECK(nsight_phc_offset_ns(&s) == -3000);
	/* Near the end of the range, no overflow in the midpoint. */
	s.sys_before_ns = INT64_MAX - 100;
	s.sys_after_ns = INT64_MAX;
	s.phc_ns = INT64_MAX - 1000;
	CHECK(nsight_phc_offset_ns(&s) == 950);
}

static void test_phc_best(void)
{
	struct nsight_phc_sample s[6];

	memset(s, 0, sizeof(s));
	s[0].ifindex = 2;
	s[0].sys_after_ns = 100;
	s[1].ifindex = 2;
	s[1].sys_after_ns = 40;
	s[2].ifindex = 3;
	s[2].sys_after_ns = 1;
	s[3].ifindex = 2;
	s[3].sys_after_ns = 40;		/* as narrow as s[1]: the first wins */
	s[4].ifindex = 2;
	s[4].sys_before_ns = 50;	/* runs backwards: ignored */
	s[4].sys_after_ns = 10;
	s[5].ifindex = 4;
	s[5].sys_before_ns = 9;
	s[5].sys_after_ns = 8;
	CHECK(nsight_phc_best(s, 6, 2) == 1);
	CHECK(nsight_phc_best(s, 6, 3) == 2);
	CHECK(nsight_phc_best(s, 6, 4) == -1);
	CHECK(nsight_phc_best(s, 6, 9) == -1);
	CHECK(nsight_phc_best(s, 0, 2) == -1);
}

/* A sample of ifindex 2 read at PHC time @phc with offset @off, window @w. */
static struct nsight_phc_sample at(int64_t phc, int64_t off, int64_t w)
{
	return (struct nsight_phc_sample){ .ifindex = 2, .phc_ns = phc,
					   .sys_before_ns = phc + off - w / 2,
					   .sys_after_ns = phc + off - w / 2 + w };
}

/* Readings every 10 s: offsets interpolated between them, nearest outside. */
static void test_phc_offset_at(void)
{
	const int64_t S = 1000000000LL;
	struct nsight_phc_sample s[7];
	int64_t off = 0, drift = 0, span = 0;

	/* A reading of two samples at 10 s (the narrower one counts), ... */
	s[0] = at(10 * S, 1000, 400);
	s[1] = at(10 * S + 2000, 1100, 100);
	/* ... one at 20 s, one at 30 s; another interface; one running backwards. */
	s[2] = at(20 * S, 2100, 100);
	s[3] = at(30 * S, 600, 100);
	s[4] = at(25 * S, 99999, 10);
	s[4].ifindex = 3;
	s[5] = at(15 * S, 77777, 10);
	s[5].sys_after_ns = s[5].sys_before_ns - 1;
	s[6] = at(30 * S + 500, 650, 300);

	CHECK(nsight_phc_offset_at(s, 7, 2, 5 * S, &off));
	CHECK(off == 1100);			/* before the first reading: it */
	CHECK(nsight_phc_offset_at(s, 7, 2, 15 * S + 1000, &off));
	CHECK(off == 1600);			/* halfway from 1100 to 2100 */
	CHECK(nsight_phc_offset_at(s, 7, 2, 25 * S, &off));
	CHECK(off == 1350);			/* halfway from 2100 to 600 */
	CHECK(nsight_phc_offset_at(s, 7, 2, 40 * S, &off));
	CHECK(off == 600);			/* after the last: it */
	CHECK(nsight_phc_offset_at(s, 7, 2, 20 * S, &off));
	CHECK(off == 2100);
	CHECK(nsight_phc_offset_at(s, 7, 3, 0, &off));
	CHECK(off == 99999);
	CHECK(!nsight_phc_offset_at(s, 7, 4, 0, &off));
	CHECK(!nsight_phc_offset_at(s, 0, 2, 0, &off));

	/* One reading (a dump): nsight_phc_best()'s sample wherever the time. */
	CHECK(nsight_phc_offset_at(s, 2, 2, 0, &off));
	CHECK(off == nsight_phc_offset_ns(&s[nsight_phc_best(s, 2, 2)]));
	CHECK(nsight_phc_offset_at(s, 2, 2, 10 * S + 1000, &off));
	CHECK(off == 1100);

	CHECK(nsight_phc_drift(s, 7, 2, &drift, &span));
	/* s[1] to s[3], in system time */
	CHECK(drift == -500 && span == s[3].sys_before_ns - s[1].sys_before_ns);
	CHECK(!nsight_phc_drift(s, 2, 2, &drift, &span));	/* one reading */

	/* Extreme values from a damaged stream: no overflow, no answer. */
	s[0] = at(INT64_MIN / 2, INT64_MAX / 2, 0);
	s[1] = at(INT64_MAX / 2, -(INT64_MAX / 2), 0);
	CHECK(!nsight_phc_offset_at(s, 2, 2, 0, &off));
	s[0].sys_before_ns = INT64_MIN;
	s[1].sys_before_ns = INT64_MAX - 10;
	s[1].sys_after_ns = INT64_MAX;
	CHECK(!nsight_phc_drift(s, 2, 2, &drift, &span));

	/* A PHC that does not run (QEMU's e1000e): a second a second. */
	s[0] = at(7 * S, 100, 10);
	s[1] = at(7 * S, 100 + 13 * S, 10);
	CHECK(nsight_phc_drift(s, 2, 2, &drift, &span));
	CHECK(drift == 13 * S && span == 13 * S);
}

KTAP_MAIN(
	KTAP_TEST(test_phc_roundtrip),
	KTAP_TEST(test_phc_empty_chunk),
	KTAP_TEST(test_phc_bad_size),
	KTAP_TEST(test_phc_bad_cpu),
	KTAP_TEST(test_phc_ifname_unterminated),
	KTAP_TEST(test_phc_damage),
	KTAP_TEST(test_phc_names),
	KTAP_TEST(test_phc_offset),
	KTAP_TEST(test_phc_best),
	KTAP_TEST(test_phc_offset_at),
)
