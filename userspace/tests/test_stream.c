// SPDX-License-Identifier: MIT
/* The dump stream writer and reader: round trips and every kind of damage. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "format/records.h"
#include "test.h"

#define HDR	sizeof(struct nsight_stream_hdr)
#define CHDR	sizeof(struct nsight_chunk_hdr)

static void patch32(void *buf, size_t off, uint32_t v)
{
	memcpy((char *)buf + off, &v, sizeof(v));
}

static void patch64(void *buf, size_t off, uint64_t v)
{
	memcpy((char *)buf + off, &v, sizeof(v));
}

/* After patching the chunk header at @off, make its header crc match again. */
static void reseal(void *buf, size_t off)
{
	struct nsight_chunk_hdr h;

	memcpy(&h, (char *)buf + off, sizeof(h));
	h.hdr_crc32 = nsight_chunk_hdr_crc(&h);
	memcpy((char *)buf + off, &h, sizeof(h));
}

static void std_header(struct nsight_stream_hdr *h, uint32_t nr_cpus)
{
	memset(h, 0, sizeof(*h));
	h->tsc_hz = 1000000000;
	h->nr_cpus = nr_cpus;
	h->sources = NSIGHT_SOURCES_ALL;
	h->dump_realtime_ns = 1700000000000000000ULL;
	strcpy(h->release, "6.12.0-test");
}

/* cpu0: SUBBUF + sched_switch (112 bytes), cpu1: SUBBUF + clock_sync (104). */
static size_t cpu_records(uint8_t *buf, uint32_t cpu)
{
	size_t pos = 0;

	/* The offsets in these tests are worked out from these two sizes. */
	_Static_assert(sizeof(struct nsight_rec_sched_switch) == 80, "layout");
	_Static_assert(sizeof(struct nsight_rec_clock_sync) == 72, "layout");
	put_subbuf(buf, &pos, cpu, 100 + cpu, 0, 0);
	if (cpu == 0)
		put_rec(buf, &pos, NSIGHT_REC_SCHED_SWITCH, sizeof(struct nsight_rec_sched_switch), 0, 200);
	else
		put_rec(buf, &pos, NSIGHT_REC_CLOCK_SYNC, sizeof(struct nsight_rec_clock_sync), 1, 300);
	return pos;
}

/*
 * The small valid stream the damage tests start from. Layout:
 *   0 header, 104 RECORDS cpu0 (112), 240 RECORDS cpu1 (104),
 *   368 unknown type 77 (5 + 3 padding), 400 STATUS (2 x 40), 504 END; 544 total.
 */
static void build_small(struct membuf *m)
{
	struct nsight_cpu_status st[2] = {
		{ .cpu = 0, .online = 1, .hook_hits = 1, .records_written = 1 },
		{ .cpu = 1, .online = 1, .hook_hits = 1, .records_written = 1 },
	};
	struct nsight_stream_writer w;
	struct nsight_stream_hdr h;
	uint8_t rec[256];
	size_t n;

	membuf_open(m, &w);
	std_header(&h, 2);
	nsight_stream_write_header(&w, &h);
	n = cpu_records(rec, 0);
	nsight_stream_write_records(&w, 0, rec, n);
	n = cpu_records(rec, 1);
	nsight_stream_write_records(&w, 1, rec, n);
	nsight_stream_write_chunk(&w, 77, NSIGHT_CHUNK_NO_CPU, "hello", 5);
	nsight_stream_write_status(&w, st, 2);
	nsight_stream_write_end(&w);
	membuf_close(m);
}

static void test_small_stream_layout(void)
{
	struct membuf m;
	char msg[512];
	size_t n;

	build_small(&m);
	CHECK_U64(m.len, 544);
	CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), &n), 0);
	CHECK_U64(n, 3);	/* two RECORDS and STATUS; type 77 skipped */
	free(m.data);
}

static void test_roundtrip(void)
{
	struct nsight_stream_reader r;
	struct nsight_chunk c;
	struct nsight_cpu_status st;
	struct membuf m;
	uint8_t rec[256];
	FILE *f;

	build_small(&m);
	f = mem_reader(m.data, m.len);
	REQUIRE(f);
	REQUIRE(nsight_stream_reader_init(&r, f) == 0);
	CHECK(!memcmp(r.hdr.magic, NSIGHT_STREAM_MAGIC, 8));
	CHECK_U64(r.hdr.version, NSIGHT_STREAM_VERSION);
	CHECK_U64(r.hdr.hdr_size, HDR);
	CHECK_U64(r.hdr.tsc_hz, 1000000000);
	CHECK_U64(r.hdr.nr_cpus, 2);
	CHECK_U64(r.hdr.sources, NSIGHT_SOURCES_ALL);
	CHECK_U64(r.hdr.dump_realtime_ns, 1700000000000000000ULL);
	CHECK(!strcmp(r.hdr.release, "6.12.0-test"));

	REQUIRE(nsight_stream_read_chunk(&r, &c) == 1);
	CHECK_U64(c.type, NSIGHT_CHUNK_RECORDS);
	CHECK_U64(c.cpu, 0);
	CHECK_U64(c.size, 112);
	CHECK_U64(c.offset, 104);
	CHECK_U64(c.payload_offset, 128);
	CHECK(!memcmp(c.payload, rec, cpu_records(rec, 0)));

	REQUIRE(nsight_stream_read_chunk(&r, &c) == 1);
	CHECK_U64(c.cpu, 1);
	CHECK_U64(c.size, 104);
	CHECK(!memcmp(c.payload, rec, cpu_records(rec, 1)));

	REQUIRE(nsight_stream_read_chunk(&r, &c) == 1);
	CHECK_U64(c.type, NSIGHT_CHUNK_STATUS);
	CHECK_U64(c.offset, 400);
	CHECK_U64(c.size, 2 * sizeof(st));
	memcpy(&st, (const char *)c.payload + sizeof(st), sizeof(st));
	CHECK_U64(st.cpu, 1);
	CHECK_U64(st.records_written, 1);

	CHECK_U64(nsight_stream_read_chunk(&r, &c), 0);
	CHECK(r.ended);
	CHECK_U64(r.chunks, 4);
	CHECK_U64(r.skipped_chunks, 1);
	CHECK_U64(r.record_bytes, 216);
	CHECK_U64(r.offset, 544);
	/* Reading past the end keeps returning 0. */
	CHECK_U64(nsight_stream_read_chunk(&r, &c), 0);
	nsight_stream_reader_fini(&r);
	fclose(f);
	free(m.data);
}

static void test_writer_fd(void)
{
	struct nsight_stream_writer w;
	struct nsight_stream_hdr h;
	uint8_t rec[256], back[1024];
	size_t n = cpu_records(rec, 0);
	char msg[512];
	ssize_t len;
	FILE *f = tmpfile();

	REQUIRE(f);
	nsight_stream_writer_init_fd(&w, fileno(f));
	std_header(&h, 1);
	CHECK_U64(nsight_stream_write_header(&w, &h), 0);
	CHECK_U64(nsight_stream_write_records(&w, 0, rec, n), 0);
	CHECK_U64(nsight_stream_write_end(&w), 0);
	CHECK_U64(w.offset, HDR + CHDR + n + CHDR + sizeof(struct nsight_stream_end));
	CHECK_U64(w.chunks, 1);
	CHECK_U64(w.record_bytes, n);
	len = pread(fileno(f), back, sizeof(back), 0);
	CHECK_U64(len, w.offset);
	CHECK_U64(read_all(back, (size_t)len, msg, sizeof(msg), NULL), 0);
	fclose(f);
}

static void test_writer_errors(void)
{
	struct nsight_stream_writer w;
	struct nsight_stream_hdr h;
	FILE *f = fopen("/dev/full", "w");
	int fd;

	std_header(&h, 1);
	REQUIRE(f);
	nsight_stream_writer_init_file(&w, f);
	nsight_stream_write_header(&w, &h);
	/* Buffered: the failure shows at the latest when END flushes. */
	CHECK_U64(nsight_stream_write_end(&w), -NSIGHT_E_IO);
	CHECK_STR_HAS(w.diag.msg, "write failed at byte");
	fclose(f);

	fd = open("/dev/full", O_WRONLY);
	REQUIRE(fd >= 0);
	nsight_stream_writer_init_fd(&w, fd);
	CHECK_U64(nsight_stream_write_header(&w, &h), -NSIGHT_E_IO);
	CHECK_STR_HAS(w.diag.msg, "write failed at byte 0");
	close(fd);
}

/* Cut the small stream at every length: always a truncation error naming the cut. */
static void test_truncation_every_offset(void)
{
	struct membuf m;
	char msg[512], want[64];
	size_t cut, bad = 0;

	build_small(&m);
	for (cut = 0; cut < m.len; cut++) {
		int ret = read_all(m.data, cut, msg, sizeof(msg), NULL);

		snprintf(want, sizeof(want), "truncated at byte %zu:", cut);
		if (ret != -NSIGHT_E_TRUNCATED || !strstr(msg, want)) {
			if (bad++ < 5)
				KTAP_FAIL("cut at %zu: ret %d, \"%s\"", cut, ret, msg);
		}
	}
	CHECK_U64(bad, 0);
	/* Spot checks of the wording. */
	read_all(m.data, 104 + 7, msg, sizeof(msg), NULL);
	CHECK_STR_HAS(msg, "truncated at byte 111: chunk header needs 24 bytes, 7 available");
	read_all(m.data, 104 + 24 + 50, msg, sizeof(msg), NULL);
	CHECK_STR_HAS(msg, "truncated at byte 178: RECORDS chunk at byte 104 needs 112 payload bytes, 50 available");
	read_all(m.data, 240, msg, sizeof(msg), NULL);
	CHECK_STR_HAS(msg, "truncated at byte 240: stream ends without an END chunk");
	read_all(m.data, 50, msg, sizeof(msg), NULL);
	CHECK_STR_HAS(msg, "truncated at byte 50: stream header needs 104 bytes, 50 available");
	free(m.data);
}

static void test_bitflip_payload(void)
{
	struct membuf m;
	char msg[512];
	size_t byte, bad = 0;
	int bit;

	build_small(&m);
	/* Every bit of the first RECORDS payload, and of the STATUS payload. */
	for (byte = 128; byte < 504; byte++) {
		if ((byte >= 240 && byte < 264) || (byte >= 368 && byte < 424))
			continue;	/* chunk headers, unknown chunk, STATUS header */
		for (bit = 0; bit < 8; bit++) {
			int ret;

			m.data[byte] ^= (char)(1 << bit);
			ret = read_all(m.data, m.len, msg, sizeof(msg), NULL);
			m.data[byte] ^= (char)(1 << bit);
			if (ret != -NSIGHT_E_CRC && bad++ < 5)
				KTAP_FAIL("flip at %zu bit %d: ret %d \"%s\"", byte, bit, ret, msg);
		}
	}
	CHECK_U64(bad, 0);
	m.data[130] ^= 1;
	read_all(m.data, m.len, msg, sizeof(msg), NULL);
	CHECK_STR_HAS(msg, "RECORDS chunk at byte 104: crc32 of the 112-byte payload");
	free(m.data);
}

static void test_bad_magic(void)
{
	struct membuf m;
	char msg[512];

	build_small(&m);
	m.data[0] = 'X';
	CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), -NSIGHT_E_FORMAT);
	CHECK_STR_HAS(msg, "bad magic at byte 0");
	free(m.data);
}

static void test_bad_version(void)
{
	struct membuf m;
	char msg[512];

	build_small(&m);
	patch32(m.data, 8, 2);
	CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), -NSIGHT_E_FORMAT);
	CHECK_STR_HAS(msg, "unsupported stream version 2 at byte 8");
	free(m.data);
}

static void test_bad_hdr_size(void)
{
	static const uint32_t sizes[] = { 0, 96, 100, 108, 4104, 0xffffffff };
	struct membuf m;
	char msg[512];
	size_t i;

	build_small(&m);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		patch32(m.data, 12, sizes[i]);
		CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), -NSIGHT_E_FORMAT);
		CHECK_STR_HAS(msg, "bad header size");
		CHECK_STR_HAS(msg, "at byte 12");
	}
	free(m.data);
}

/* A newer writer's longer header: the extra bytes are skipped. */
static void test_hdr_size_extra_skipped(void)
{
	struct membuf m;
	char *big, msg[512];
	size_t n;

	build_small(&m);
	big = calloc(1, m.len + 16);
	REQUIRE(big);
	memcpy(big, m.data, HDR);
	memset(big + HDR, 0xab, 16);
	memcpy(big + HDR + 16, m.data + HDR, m.len - HDR);
	patch32(big, 12, HDR + 16);
	CHECK_U64(read_all(big, m.len + 16, msg, sizeof(msg), &n), 0);
	CHECK_U64(n, 3);
	/* Truncated inside the extra bytes. */
	CHECK_U64(read_all(big, HDR + 5, msg, sizeof(msg), NULL), -NSIGHT_E_TRUNCATED);
	CHECK_STR_HAS(msg, "truncated at byte 109: stream header needs 16 bytes, 5 available");
	free(big);
	free(m.data);
}

static void test_bad_nr_cpus_and_release(void)
{
	struct membuf m;
	char msg[512];

	build_small(&m);
	patch32(m.data, 24, 0);
	CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), -NSIGHT_E_FORMAT);
	CHECK_STR_HAS(msg, "bad cpu count 0 at byte 24");
	patch32(m.data, 24, NSIGHT_STREAM_MAX_CPUS + 1);
	CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), -NSIGHT_E_FORMAT);
	patch32(m.data, 24, 2);
	memset(m.data + 40, 'a', 64);
	CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), -NSIGHT_E_FORMAT);
	CHECK_STR_HAS(msg, "release at byte 40 is not NUL-terminated");
	free(m.data);
}

static void test_oversized_chunk(void)
{
	struct membuf m;
	char msg[512];

	build_small(&m);
	patch64(m.data, 104 + 8, (1ULL << 30) + 8);
	reseal(m.data, 104);
	CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), -NSIGHT_E_CHUNK);
	CHECK_STR_HAS(msg, "RECORDS chunk at byte 104: size 1073741832 exceeds the limit");
	patch64(m.data, 104 + 8, UINT64_MAX - 7);
	reseal(m.data, 104);
	CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), -NSIGHT_E_CHUNK);
	/* Within the limit but the data is not there: truncation, no huge allocation. */
	patch64(m.data, 104 + 8, 1ULL << 30);
	reseal(m.data, 104);
	CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), -NSIGHT_E_TRUNCATED);
	CHECK_STR_HAS(msg, "truncated at byte 544: RECORDS chunk at byte 104 needs 1073741824 payload bytes, 416 available");
	free(m.data);
}

static void test_unknown_chunk_skipped(void)
{
	struct nsight_stream_reader r;
	struct nsight_chunk c;
	struct membuf m;
	FILE *f;
	int types[4] = { 0 }, n = 0, ret;

	build_small(&m);
	f = mem_reader(m.data, m.len);
	REQUIRE(f);
	REQUIRE(nsight_stream_reader_init(&r, f) == 0);
	while ((ret = nsight_stream_read_chunk(&r, &c)) > 0 && n < 4)
		types[n++] = (int)c.type;
	CHECK_U64(ret, 0);
	CHECK_U64(n, 3);
	CHECK_U64(types[0], NSIGHT_CHUNK_RECORDS);
	CHECK_U64(types[1], NSIGHT_CHUNK_RECORDS);
	CHECK_U64(types[2], NSIGHT_CHUNK_STATUS);
	CHECK_U64(r.skipped_chunks, 1);
	nsight_stream_reader_fini(&r);
	fclose(f);

	/* Its crc is still checked. */
	m.data[368 + 24] ^= 0x20;
	CHECK_U64(read_all(m.data, m.len, NULL, 0, NULL), -NSIGHT_E_CRC);
	free(m.data);
}

static void test_padding_nonzero(void)
{
	struct membuf m;
	char msg[512];

	build_small(&m);
	m.data[368 + 24 + 6] = 1;	/* second padding byte of the 5-byte chunk */
	CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), -NSIGHT_E_CHUNK);
	CHECK_STR_HAS(msg, "padding byte at byte 398 is 0x01");
	free(m.data);
}

static void test_end_missing(void)
{
	struct membuf m;
	char msg[512];

	build_small(&m);
	CHECK_U64(read_all(m.data, 504, msg, sizeof(msg), NULL), -NSIGHT_E_TRUNCATED);
	CHECK_STR_HAS(msg, "truncated at byte 504: stream ends without an END chunk");
	free(m.data);
}

static void test_end_not_last(void)
{
	struct membuf m;
	char *more, msg[512];

	build_small(&m);
	more = malloc(m.len + 8);
	REQUIRE(more);
	memcpy(more, m.data, m.len);
	memset(more + m.len, 0, 8);
	CHECK_U64(read_all(more, m.len + 1, msg, sizeof(msg), NULL), -NSIGHT_E_END);
	CHECK_STR_HAS(msg, "data at byte 544 after the END chunk");
	free(more);

	/* END in the middle, chunks after it. */

	{
		struct nsight_stream_writer w;
		struct nsight_stream_hdr h;
		struct membuf m2;
		uint8_t rec[256];
		size_t n = cpu_records(rec, 0);

		membuf_open(&m2, &w);
		std_header(&h, 1);
		nsight_stream_write_header(&w, &h);
		nsight_stream_write_end(&w);
		nsight_stream_write_records(&w, 0, rec, n);
		nsight_stream_write_end(&w);
		membuf_close(&m2);
		CHECK_U64(read_all(m2.data, m2.len, msg, sizeof(msg), NULL), -NSIGHT_E_END);
		CHECK_STR_HAS(msg, "after the END chunk");
		free(m2.data);
	}
	free(m.data);
}

static void write_bad_end(struct membuf *m, uint64_t chunks, uint64_t record_bytes, uint64_t size)
{
	struct nsight_stream_end end[2] = { { .chunks = chunks, .record_bytes = record_bytes } };
	struct nsight_stream_writer w;
	struct nsight_stream_hdr h;
	uint8_t rec[256];
	size_t n = cpu_records(rec, 0);

	membuf_open(m, &w);
	std_header(&h, 1);
	nsight_stream_write_header(&w, &h);
	nsight_stream_write_records(&w, 0, rec, n);
	nsight_stream_write_chunk(&w, NSIGHT_CHUNK_END, NSIGHT_CHUNK_NO_CPU, end, size);
	membuf_close(m);
}

static void test_end_totals_wrong(void)
{
	struct membuf m;
	char msg[512];

	write_bad_end(&m, 1, 112, 16);
	CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), 0);
	free(m.data);

	write_bad_end(&m, 2, 112, 16);
	CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), -NSIGHT_E_END);
	CHECK_STR_HAS(msg, "END chunk at byte 240: says 2 chunks precede it, the stream has 1");
	free(m.data);

	write_bad_end(&m, 1, 104, 16);
	CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), -NSIGHT_E_END);
	CHECK_STR_HAS(msg, "says 104 record bytes, the stream has 112");
	free(m.data);

	write_bad_end(&m, 1, 112, 8);
	CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), -NSIGHT_E_END);
	CHECK_STR_HAS(msg, "END chunk at byte 240: size 8 is below 16");
	free(m.data);

	/* A longer END (a newer writer's) is fine. */
	write_bad_end(&m, 1, 112, 32);
	CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), 0);
	free(m.data);
}

/* Chunk header fields a writer could get wrong. */
static void test_bad_chunk_headers(void)
{
	struct membuf m;
	char msg[512];

	build_small(&m);
	patch32(m.data, 104, 0);
	reseal(m.data, 104);
	CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), -NSIGHT_E_CHUNK);
	CHECK_STR_HAS(msg, "chunk at byte 104: invalid chunk type 0");
	free(m.data);

	build_small(&m);
	patch32(m.data, 240 + 4, 2);
	reseal(m.data, 240);
	CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), -NSIGHT_E_CHUNK);
	CHECK_STR_HAS(msg, "RECORDS chunk at byte 240: cpu 2 is not below the stream's 2 cpus");
	free(m.data);

	build_small(&m);
	patch32(m.data, 400 + 4, 0);
	reseal(m.data, 400);
	CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), -NSIGHT_E_CHUNK);
	CHECK_STR_HAS(msg, "STATUS chunk at byte 400: cpu field is 0");
	free(m.data);

	build_small(&m);
	patch32(m.data, 504 + 4, 1);
	reseal(m.data, 504);
	CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), -NSIGHT_E_CHUNK);
	CHECK_STR_HAS(msg, "END chunk at byte 504: cpu field is 1");
	free(m.data);

	{
		struct nsight_stream_writer w;
		struct nsight_stream_hdr h;
		uint8_t junk[44] = { 0 };

		membuf_open(&m, &w);
		std_header(&h, 1);
		nsight_stream_write_header(&w, &h);
		nsight_stream_write_records(&w, 0, junk, 44);
		nsight_stream_write_end(&w);
		membuf_close(&m);
		CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), -NSIGHT_E_CHUNK);
		CHECK_STR_HAS(msg, "RECORDS chunk at byte 104: size 44 is not a multiple of 8");
		free(m.data);

		membuf_open(&m, &w);
		nsight_stream_write_header(&w, &h);
		nsight_stream_write_chunk(&w, NSIGHT_CHUNK_STATUS, NSIGHT_CHUNK_NO_CPU, junk, 44);
		nsight_stream_write_end(&w);
		membuf_close(&m);
		CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), -NSIGHT_E_CHUNK);
		CHECK_STR_HAS(msg, "STATUS chunk at byte 104: size 44 is not a multiple of 40");
		free(m.data);
	}

	/* Any damage to a header is caught by its crc, before it is believed. */
	build_small(&m);
	m.data[240 + 21] ^= 0x10;
	CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), -NSIGHT_E_CRC);
	CHECK_STR_HAS(msg, "chunk header at byte 240: crc32 is 0x");
	free(m.data);
}

static void test_errors_are_sticky(void)
{
	struct nsight_stream_reader r;
	struct nsight_chunk c;
	struct membuf m;
	FILE *f;

	build_small(&m);
	m.data[130] ^= 1;
	f = mem_reader(m.data, m.len);
	REQUIRE(f);
	REQUIRE(nsight_stream_reader_init(&r, f) == 0);
	CHECK_U64(nsight_stream_read_chunk(&r, &c), -NSIGHT_E_CRC);
	CHECK_U64(nsight_stream_read_chunk(&r, &c), -NSIGHT_E_CRC);
	CHECK_U64(r.diag.code, NSIGHT_E_CRC);
	nsight_stream_reader_fini(&r);
	fclose(f);
	free(m.data);
}

static void test_empty_stream(void)
{
	struct nsight_stream_writer w;
	struct nsight_stream_hdr h;
	struct membuf m;
	size_t n;

	membuf_open(&m, &w);
	std_header(&h, 4);
	nsight_stream_write_header(&w, &h);
	nsight_stream_write_end(&w);
	membuf_close(&m);
	CHECK_U64(m.len, HDR + CHDR + 16);
	CHECK_U64(read_all(m.data, m.len, NULL, 0, &n), 0);
	CHECK_U64(n, 0);
	free(m.data);
}

static void test_errcode_strings(void)
{
	CHECK(!strcmp(nsight_errcode_str(-NSIGHT_E_TRUNCATED), "truncated stream"));
	CHECK(!strcmp(nsight_errcode_str(NSIGHT_E_CRC), "chunk checksum mismatch"));
	CHECK(!strcmp(nsight_errcode_str(9999), "unknown error"));
	CHECK(!strcmp(nsight_chunk_type_name(NSIGHT_CHUNK_END), "END"));
	CHECK(nsight_chunk_type_name(99) == NULL);
}

KTAP_MAIN(
	KTAP_TEST(test_small_stream_layout),
	KTAP_TEST(test_roundtrip),
	KTAP_TEST(test_writer_fd),
	KTAP_TEST(test_writer_errors),
	KTAP_TEST(test_truncation_every_offset),
	KTAP_TEST(test_bitflip_payload),
	KTAP_TEST(test_bad_magic),
	KTAP_TEST(test_bad_version),
	KTAP_TEST(test_bad_hdr_size),
	KTAP_TEST(test_hdr_size_extra_skipped),
	KTAP_TEST(test_bad_nr_cpus_and_release),
	KTAP_TEST(test_oversized_chunk),
	KTAP_TEST(test_unknown_chunk_skipped),
	KTAP_TEST(test_padding_nonzero),
	KTAP_TEST(test_end_missing),
	KTAP_TEST(test_end_not_last),
	KTAP_TEST(test_end_totals_wrong),
	KTAP_TEST(test_bad_chunk_headers),
	KTAP_TEST(test_errors_are_sticky),
	KTAP_TEST(test_empty_stream),
	KTAP_TEST(test_errcode_strings),
)
