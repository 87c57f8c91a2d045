// SPDX-License-Identifier: MIT
/*
 * zstd streams as FILEs: what is written compressed reads back the same;
 * a plain stream reads through unchanged (a seekable file as itself, a
 * pipe through a FILE that gives back the bytes looked at); a cut or
 * corrupt compressed stream is a read error.
 */
#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "base/zstdio.h"

#define LEN	(3U << 20)

static uint8_t *pattern(void)
{
	uint8_t *p = malloc(LEN);
	uint32_t x = 1;
	size_t i;

	if (!p)
		return NULL;
	/* Compressible but not trivially: records-like repetition and noise. */
	for (i = 0; i < LEN; i++) {
		x = x * 1103515245 + 12345;
		p[i] = (uint8_t)(i % 64 < 40 ? i % 7 : x >> 24);
	}
	return p;
}

/* Write @len bytes of @p through a compressing FILE to a temporary file. */
static FILE *compressed(const uint8_t *p, size_t len)
{
	FILE *f = tmpfile(), *z;
	size_t off;

	if (!f)
		return NULL;
	z = nsight_zstd_open_write(f, false, NSIGHT_ZSTD_LEVEL);
	if (!z)
		return NULL;
	/* In uneven pieces, as the stream writer writes. */
	for (off = 0; off < len;) {
		size_t n = len - off < 777 + off % 5000 ? len - off : 777 + off % 5000;

		if (fwrite(p + off, 1, n, z) != n)
			return NULL;
		off += n;
	}
	if (fclose(z))
		return NULL;
	rewind(f);
	return f;
}

/* Read all of @f into @buf (at most @cap); returns bytes, -1 on error. */
static long slurp(FILE *f, uint8_t *buf, size_t cap)
{
	size_t n = fread(buf, 1, cap, f);

	return ferror(f) ? -1 : (long)n;
}

static void test_round_trip(void)
{
	uint8_t *p = pattern(), *back = malloc(LEN + 1);
	FILE *f, *r;
	long size;

	REQUIRE(p && back);
	f = compressed(p, LEN);
	REQUIRE(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	printf("# %u bytes compressed to %ld\n", LEN, size);
	CHECK(size > 0 && size < (long)LEN / 2);
	r = nsight_zstd_open_read(f);
	REQUIRE(r && r != f);
	CHECK_U64(slurp(r, back, LEN + 1), LEN);
	CHECK(!memcmp(back, p, LEN));
	CHECK_U64(fclose(r), 0);
	free(p);
	free(back);
}

static void test_plain_file_is_itself(void)
{
	FILE *f = tmpfile(), *r;
	uint8_t buf[16];

	REQUIRE(f);
	fputs("NSIGHT\r\nplain", f);
	rewind(f);
	r = nsight_zstd_open_read(f);
	CHECK(r == f);
	CHECK_U64(ftello(f), 0);
	CHECK_U64(slurp(r, buf, sizeof(buf)), 13);
	CHECK(!memcmp(buf, "NSIGHT\r\nplain", 13));
	fclose(f);
}

/* A pipe fed by a child: not seekable, read through a FILE. */
static FILE *piped(const uint8_t *p, size_t len)
{
	int fds[2];
	pid_t pid;

	if (pipe(fds))
		return NULL;
	pid = fork();
	if (pid < 0)
		return NULL;
	if (pid == 0) {
		close(fds[0]);
		_exit(write(fds[1], p, len) == (ssize_t)len ? 0 : 1);
	}
	close(fds[1]);
	return fdopen(fds[0], "rb");
}

static void test_plain_pipe(void)
{
	static const uint8_t text[] = "NSIGHT\r\n a plain stream on a pipe";
	uint8_t buf[64];
	FILE *f = piped(text, sizeof(text)), *r;
	int status;

	REQUIRE(f);
	r = nsight_zstd_open_read(f);
	REQUIRE(r && r != f);
	CHECK_U64(slurp(r, buf, sizeof(buf)), sizeof(text));
	CHECK(!memcmp(buf, text, sizeof(text)));
	CHECK_U64(fclose(r), 0);
	wait(&status);
}

static void test_short_pipe(void)
{
	uint8_t buf[8];
	FILE *f = piped((const uint8_t *)"NS", 2), *r;
	int status;

	REQUIRE(f);
	r = nsight_zstd_open_read(f);
	REQUIRE(r);
	CHECK_U64(slurp(r, buf, sizeof(buf)), 2);
	fclose(r);
	wait(&status);
}

/* Reading @len bytes of @z decompressed fails with EBADMSG. */
static void expect_bad_message(const uint8_t *z, size_t len, uint8_t *back)
{
	FILE *f = tmpfile(), *r;

	REQUIRE(f && fwrite(z, 1, len, f) == len);
	rewind(f);
	r = nsight_zstd_open_read(f);
	REQUIRE(r);
	errno = 0;
	CHECK(slurp(r, back, LEN) == -1);
	CHECK_U64(errno, EBADMSG);
	fclose(r);
}

static void test_cut_and_corrupt(void)
{
	uint8_t *p = pattern(), *z = malloc(LEN), *back = malloc(LEN);
	FILE *f;
	size_t size;

	REQUIRE(p && z && back);
	f = compressed(p, LEN);
	REQUIRE(f);
	size = fread(z, 1, LEN, f);
	fclose(f);
	REQUIRE(size > 100);
	/* Cut in the middle: an error, never a quiet short stream. */
	expect_bad_message(z, size / 2, back);
	/* A flipped byte: the frame's checksum or structure catches it. */
	z[size / 2] ^= 0x55;
	expect_bad_message(z, size, back);
	free(p);
	free(z);
	free(back);
}

KTAP_MAIN(
	KTAP_TEST(test_round_trip),
	KTAP_TEST(test_plain_file_is_itself),
	KTAP_TEST(test_plain_pipe),
	KTAP_TEST(test_short_pipe),
	KTAP_TEST(test_cut_and_corrupt),
)
