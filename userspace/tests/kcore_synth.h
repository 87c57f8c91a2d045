/* SPDX-License-Identifier: MIT */
/*
 * ELF core files for tests, written with raw Elf64 structs: kernel text at
 * TEXT in two adjacent segments and a third segment at DMAP, each byte
 * pattern(its address).
 */
#ifndef NSIGHT_TEST_KCORE_SYNTH_H
#define NSIGHT_TEST_KCORE_SYNTH_H

#include <elf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TEXT	0xffffffff81000000ULL	/* two adjacent segments from here */
#define TEXT1	0x1000			/* bytes of the first */
#define TEXT2	0x800			/* bytes of the second */
#define DMAP	0xffff888000000000ULL	/* a third, apart */
#define DMAP_LEN 0x100

/* The byte the core holds at @addr. */
static inline uint8_t pattern(uint64_t addr)
{
	return (uint8_t)(addr * 7 + (addr >> 8) * 13);
}

struct core {
	char path[64];
};

static inline bool put_seg(FILE *f, uint64_t vaddr, uint64_t off, uint64_t len, uint64_t file_len)
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
static inline bool write_core(struct core *c, size_t file_len, bool class64)
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

#endif /* NSIGHT_TEST_KCORE_SYNTH_H */
