// SPDX-License-Identifier: MIT
/* The ELF core reader, on core files written here with raw Elf64 structs. */
#include <elf.h>
#include <unistd.h>

#include "kcore.h"
#include "test.h"

#define TEXT	0xffffffff81000000ULL	/* two adjacent segments from here */
#define TEXT1	0x1000			/* bytes of the first */
#define TEXT2	0x800			/* bytes of the second */
#define DMAP	0xffff888000000000ULL	/* a third, apart */
#define DMAP_LEN 0x100

/* The byte the core holds at @addr. */
static uint8_t pattern(uint64_t addr)
{
	return (uint8_t)(addr * 7 + (addr >> 8) * 13);
}

struct core {
	char path[64];
};

static bool put_seg(FILE *f, uint64_t vaddr, uint64_t off, uint64_t len, uint64_t file_len)
{
	uint64_t i;

	if (fseek(f, (long)off, SEEK_SET))
		return false;
	for (i = 0; i < len && off + i < file_len; i++)
		fputc(pattern(vaddr + i), f);
	return true;
}

/*
 * Write a core: a PT_NOTE, PT_LOADs for TEXT (in two segments, stored out
 * of address order) and DMAP. The file is cut to @file_len bytes if
 * nonzero. @class64 false writes an ELFCLASS32 identification.
 */
static bool write_core(struct core *c, size_t file_len, bool class64)
{
	Elf64_Ehdr eh = { 0 };
	Elf64_Phdr ph[4] = { 0 };
	uint64_t data = sizeof(eh) + sizeof(ph);
	uint64_t full = data + TEXT2 + TEXT1 + DMAP_LEN;
	FILE *f;
	int fd;

	snprintf(c->path, sizeof(c->path), "/tmp/nsight-kcore-test-XXXXXX");
	fd = mkstemp(c->path);
	if (fd < 0)
		return false;
	f = fdopen(fd, "w+");
	if (!f) {
		close(fd);
		return false;
	}
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = class64 ? ELFCLASS64 : ELFCLASS32;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_CORE;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(eh);
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(ph[0]);
	eh.e_phnum = 4;

	ph[0] = (Elf64_Phdr){ .p_type = PT_NOTE, .p_offset = data, .p_filesz = 0 };
	ph[1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X,
			      .p_offset = data + TEXT2, .p_vaddr = TEXT,
			      .p_filesz = TEXT1, .p_memsz = TEXT1, .p_align = 4096 };
	ph[2] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X,
			      .p_offset = data, .p_vaddr = TEXT + TEXT1,
			      .p_filesz = TEXT2, .p_memsz = TEXT2, .p_align = 4096 };
	ph[3] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_W,
			      .p_offset = data + TEXT2 + TEXT1, .p_vaddr = DMAP,
			      .p_filesz = DMAP_LEN, .p_memsz = DMAP_LEN, .p_align = 4096 };
	if (!file_len)
		file_len = full;
	if (fwrite(&eh, sizeof(eh), 1, f) != 1 || fwrite(ph, sizeof(ph), 1, f) != 1 ||
	    !put_seg(f, TEXT + TEXT1, data, TEXT2, file_len) ||
	    !put_seg(f, TEXT, data + TEXT2, TEXT1, file_len) ||
	    !put_seg(f, DMAP, data + TEXT2 + TEXT1, DMAP_LEN, file_len) ||
	    fflush(f) || ftruncate(fileno(f), (off_t)file_len)) {
		fclose(f);
		unlink(c->path);
		return false;
	}
	fclose(f);
	return true;
}

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
