/* SPDX-License-Identifier: MIT */
/*
 * A tiny KTAP test helper: a test is a void function; CHECK*() record a
 * failure and go on, REQUIRE() returns from the test. ktap_main() runs a
 * table of tests and prints "ok N - name" / "not ok N - name".
 *
 * Also helpers to build a dump stream in memory and read it back.
 */
#ifndef NSIGHT_TEST_H
#define NSIGHT_TEST_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/stream.h"

struct ktap_test {
	const char *name;
	void (*fn)(void);
};

static bool ktap_failed_now;

#define KTAP_FAIL(...) do {						\
	ktap_failed_now = true;						\
	printf("# %s:%d: ", __FILE__, __LINE__);			\
	printf(__VA_ARGS__);						\
	printf("\n");							\
} while (0)

#define CHECK(cond) do {						\
	if (!(cond))							\
		KTAP_FAIL("CHECK(%s) failed", #cond);			\
} while (0)

#define REQUIRE(cond) do {						\
	if (!(cond)) {							\
		KTAP_FAIL("REQUIRE(%s) failed", #cond);			\
		return;							\
	}								\
} while (0)

#define CHECK_U64(actual, expected) do {				\
	uint64_t _a = (uint64_t)(actual), _e = (uint64_t)(expected);	\
	if (_a != _e)							\
		KTAP_FAIL("%s is %" PRIu64 ", expected %" PRIu64,	\
			  #actual, _a, _e);				\
} while (0)

#define CHECK_STR_HAS(str, needle) do {					\
	const char *_s = (str), *_n = (needle);				\
	if (!_s || !strstr(_s, _n))					\
		KTAP_FAIL("%s is \"%s\", lacks \"%s\"", #str,		\
			  _s ? _s : "(null)", _n);			\
} while (0)

#define KTAP_TEST(fn) { #fn, fn }

static inline int ktap_main(const struct ktap_test *tests, size_t n)
{
	size_t i, failed = 0;

	printf("KTAP version 1\n1..%zu\n", n);
	fflush(stdout);
	for (i = 0; i < n; i++) {
		ktap_failed_now = false;
		tests[i].fn();
		failed += ktap_failed_now;
		printf("%sok %zu - %s\n", ktap_failed_now ? "not " : "", i + 1, tests[i].name);
		fflush(stdout);
	}
	printf("# %zu passed, %zu failed\n", n - failed, failed);
	return failed ? 1 : 0;
}

#define KTAP_MAIN(...)							\
int main(void)								\
{									\
	static const struct ktap_test tests[] = { __VA_ARGS__ };	\
	return ktap_main(tests, sizeof(tests) / sizeof(tests[0]));	\
}

/* ---------------------------------------------------------------------- */
/* In-memory streams                                                        */

/* A growing byte buffer a stream writer writes into (open_memstream). */
struct membuf {
	char *data;
	size_t len;
	FILE *f;
};

static inline void membuf_open(struct membuf *m, struct nsight_stream_writer *w)
{
	m->data = NULL;
	m->len = 0;
	m->f = open_memstream(&m->data, &m->len);
	nsight_stream_writer_init_file(w, m->f);
}

/* Finish writing; m->data/m->len hold the bytes, free(m->data) later. */
static inline void membuf_close(struct membuf *m)
{
	fclose(m->f);
	m->f = NULL;
}

/* A FILE reading @len bytes of @data; works for @len 0 too. */
static inline FILE *mem_reader(const void *data, size_t len)
{
	FILE *f = tmpfile();

	if (!f)
		return NULL;
	if (len && fwrite(data, 1, len, f) != len) {
		fclose(f);
		return NULL;
	}
	rewind(f);
	return f;
}

/*
 * Read a whole stream from memory: returns the first negative result of the
 * reader (with its message copied to @msg), or 0 when END was reached.
 * @n_chunks counts the chunks returned.
 */
static inline int read_all(const void *data, size_t len, char *msg, size_t msglen,
			   size_t *n_chunks)
{
	struct nsight_stream_reader r;
	struct nsight_chunk c;
	FILE *f = mem_reader(data, len);
	size_t n = 0;
	int ret;

	if (!f)
		return -NSIGHT_E_IO;
	ret = nsight_stream_reader_init(&r, f);
	while (!ret && (ret = nsight_stream_read_chunk(&r, &c)) > 0) {
		n++;
		ret = 0;
	}
	if (msg)
		snprintf(msg, msglen, "%s", r.diag.msg);
	if (n_chunks)
		*n_chunks = n;
	nsight_stream_reader_fini(&r);
	fclose(f);
	return ret;
}

/* Fill a record header. */
static inline void rec_hdr(void *rec, uint16_t type, uint16_t size, uint32_t cpu, uint64_t tsc)
{
	struct nsight_rec_hdr h = { .type = type, .size = size, .cpu = cpu, .tsc = tsc };

	memset(rec, 0, size);
	memcpy(rec, &h, sizeof(h));
}

/* Append a record of @size bytes to @buf at *@pos. */
static inline void put_rec(uint8_t *buf, size_t *pos, uint16_t type, uint16_t size,
			   uint32_t cpu, uint64_t tsc)
{
	rec_hdr(buf + *pos, type, size, cpu, tsc);
	*pos += size;
}

/* Append a SUBBUF record. */
static inline void put_subbuf(uint8_t *buf, size_t *pos, uint32_t cpu, uint64_t tsc,
			      uint64_t seq, uint64_t dropped)
{
	struct nsight_rec_subbuf sb;

	rec_hdr(&sb, NSIGHT_REC_SUBBUF, sizeof(sb), cpu, tsc);
	sb.seq = seq;
	sb.dropped = dropped;
	memcpy(buf + *pos, &sb, sizeof(sb));
	*pos += sizeof(sb);
}

#endif /* NSIGHT_TEST_H */
