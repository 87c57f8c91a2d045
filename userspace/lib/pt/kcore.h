/* SPDX-License-Identifier: MIT */
/*
 * Reading kernel memory from an ELF core file such as /proc/kcore: the
 * bytes at a kernel virtual address are found through the PT_LOAD program
 * headers (p_vaddr, p_offset, p_filesz), read with libelf.
 */
#ifndef NSIGHT_KCORE_H
#define NSIGHT_KCORE_H

#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"

struct nsight_kcore;

/*
 * Open the ELF core file @path (64-bit, with PT_LOAD segments). Returns 0
 * with *@kc set, or -NSIGHT_E_IO (cannot open or read; errno in the
 * message), -NSIGHT_E_FORMAT (not a 64-bit ELF file, no PT_LOAD),
 * -NSIGHT_E_NOMEM.
 */
int nsight_kcore_open(struct nsight_kcore **kc, const char *path, struct nsight_diag *d);

/*
 * Read @len bytes at virtual address @addr into @buf; the range may span
 * adjacent segments. Returns 0, or -NSIGHT_E_INVAL if a byte of it is in no
 * segment (the message names the first such address), -NSIGHT_E_TRUNCATED
 * if the file ends before a segment's bytes, -NSIGHT_E_IO.
 */
int nsight_kcore_read_at(struct nsight_kcore *kc, uint64_t addr, void *buf, size_t len,
			 struct nsight_diag *d);

/* Number of PT_LOAD segments; the vaddr range of the @i-th ([start, end)). */
size_t nsight_kcore_segments(const struct nsight_kcore *kc);
void nsight_kcore_segment(const struct nsight_kcore *kc, size_t i, uint64_t *start, uint64_t *end);

void nsight_kcore_close(struct nsight_kcore *kc);

/* Open, read, close: one range. */
int nsight_kcore_read(const char *path, uint64_t addr, void *buf, size_t len,
		      struct nsight_diag *d);

#endif /* NSIGHT_KCORE_H */
