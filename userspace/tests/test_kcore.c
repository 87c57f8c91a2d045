// SPDX-License-Identifier: MIT
/* The ELF core reader, on core files written here with raw Elf64 structs. */
#include "pt/kcore.h"
#include "kcore_synth.h"
#include "test.h"

static bool matches(const uint8_t *buf, uint64_t addr, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (buf[i] != pattern(addr + i))
			return false;
	}
	return true;
}

static void test_read(void)
{
	struct nsight_kcore *kc;
	struct nsight_diag d = { 0 };
	struct core c;
	uint8_t buf[TEXT1 + TEXT2];
	uint64_t s, e;

	REQUIRE(write_core(&c, 0, true));
	REQUIRE(nsight_kcore_open(&kc, c.path, &d) == 0);
	CHECK_U64(nsight_kcore_segments(kc), 3);
	nsight_kcore_segment(kc, 0, &s, &e);
	CHECK_U64(s, TEXT);
	CHECK_U64(e, TEXT + TEXT1);

	/* Inside one segment. */
	CHECK_U64(nsight_kcore_read_at(kc, TEXT + 0x10, buf, 64, &d), 0);
	CHECK(matches(buf, TEXT + 0x10, 64));
	CHECK_U64(nsight_kcore_read_at(kc, DMAP, buf, DMAP_LEN, &d), 0);
	CHECK(matches(buf, DMAP, DMAP_LEN));
	/* Spanning the two adjacent ones (stored in the other order). */
	CHECK_U64(nsight_kcore_read_at(kc, TEXT + TEXT1 - 5, buf, 10, &d), 0);
	CHECK(matches(buf, TEXT + TEXT1 - 5, 10));
	CHECK_U64(nsight_kcore_read_at(kc, TEXT, buf, sizeof(buf), &d), 0);
	CHECK(matches(buf, TEXT, sizeof(buf)));
	/* Nothing to read. */
	CHECK_U64(nsight_kcore_read_at(kc, 0, buf, 0, &d), 0);

	/* Outside any segment, or running off the end of one. */
	CHECK_U64(nsight_kcore_read_at(kc, 0x1000, buf, 4, &d), -NSIGHT_E_INVAL);
	CHECK_STR_HAS(d.msg, "address 0x1000 is in no segment");
	CHECK_U64(nsight_kcore_read_at(kc, TEXT + TEXT1 + TEXT2 - 2, buf, 4, &d),
		  -NSIGHT_E_INVAL);
	CHECK_STR_HAS(d.msg, "address 0xffffffff81001800 is in no segment");
	CHECK_U64(nsight_kcore_read_at(kc, TEXT - 1, buf, 4, &d), -NSIGHT_E_INVAL);
	CHECK_STR_HAS(d.msg, "0xffffffff80ffffff");
	CHECK_U64(nsight_kcore_read_at(kc, UINT64_MAX - 1, buf, 4, &d), -NSIGHT_E_INVAL);
	nsight_kcore_close(kc);

	/* The one-shot form. */
	CHECK_U64(nsight_kcore_read(c.path, DMAP + 8, buf, 16, &d), 0);
	CHECK(matches(buf, DMAP + 8, 16));
	CHECK_U64(nsight_kcore_read(c.path, DMAP + DMAP_LEN, buf, 1, &d), -NSIGHT_E_INVAL);
	unlink(c.path);
}

static void test_bad_files(void)
{
	struct nsight_kcore *kc = NULL;
	struct nsight_diag d = { 0 };
	struct core c;
	uint8_t buf[64];
	FILE *f;

	CHECK_U64(nsight_kcore_open(&kc, "/nonexistent/kcore", &d), -NSIGHT_E_IO);
	CHECK_STR_HAS(d.msg, "No such file");
	CHECK(kc == NULL);

	/* Not ELF. */
	snprintf(c.path, sizeof(c.path), "/tmp/nsight-kcore-test-XXXXXX");
	{
		int fd = mkstemp(c.path);

		REQUIRE(fd >= 0);
		f = fdopen(fd, "w");
		REQUIRE(f);
		fputs("this is not an ELF file, not at all\n", f);
		fclose(f);
	}
	CHECK_U64(nsight_kcore_open(&kc, c.path, &d), -NSIGHT_E_FORMAT);
	CHECK_STR_HAS(d.msg, "not a 64-bit ELF");
	unlink(c.path);

	/* 32-bit. */
	REQUIRE(write_core(&c, 0, false));
	CHECK(nsight_kcore_open(&kc, c.path, &d) < 0);
	unlink(c.path);

	/* Cut in the middle of the first segment's data. */
	REQUIRE(write_core(&c, sizeof(Elf64_Ehdr) + 4 * sizeof(Elf64_Phdr) + TEXT2 + 0x100, true));
	REQUIRE(nsight_kcore_open(&kc, c.path, &d) == 0);
	CHECK_U64(nsight_kcore_read_at(kc, TEXT, buf, 16, &d), 0);
	CHECK(matches(buf, TEXT, 16));
	CHECK_U64(nsight_kcore_read_at(kc, TEXT + 0xf8, buf, 16, &d), -NSIGHT_E_TRUNCATED);
	CHECK_STR_HAS(d.msg, "0xffffffff81000100");
	nsight_kcore_close(kc);
	unlink(c.path);

	/* Only the headers: the phdrs are there but no data. */
	REQUIRE(write_core(&c, sizeof(Elf64_Ehdr) + 4 * sizeof(Elf64_Phdr), true));
	REQUIRE(nsight_kcore_open(&kc, c.path, &d) == 0);
	CHECK_U64(nsight_kcore_read_at(kc, DMAP, buf, 1, &d), -NSIGHT_E_TRUNCATED);
	nsight_kcore_close(kc);
	unlink(c.path);

	/* Cut inside the program headers. */
	REQUIRE(write_core(&c, sizeof(Elf64_Ehdr) + 10, true));
	CHECK(nsight_kcore_open(&kc, c.path, &d) < 0);
	CHECK(kc == NULL);
	unlink(c.path);
	nsight_kcore_close(NULL);
}

KTAP_MAIN(
	KTAP_TEST(test_read),
	KTAP_TEST(test_bad_files),
)
