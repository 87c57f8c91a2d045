/* SPDX-License-Identifier: MIT */
/*
 * User code chunks (NSIGHT_CHUNK_UTEXT, uapi nsight.h): one executable
 * mapping of a process, its bytes and its function symbols. The payload
 * is built here (nsightctl) and checked and read here (nsight-analyze),
 * so both sides agree on its layout.
 */
#ifndef NSIGHT_UTEXT_H
#define NSIGHT_UTEXT_H

#include <stddef.h>
#include <stdint.h>
#include <linux/nsight.h>

#include "base/diag.h"
#include "format/stream.h"

/* A checked UTEXT payload; the pointers are into it. */
struct nsight_utext {
	struct nsight_utext_hdr hdr;	/* the fields this reader knows */
	const uint8_t *code;		/* hdr.code_len bytes */
	const uint8_t *syms;		/* hdr.n_syms struct nsight_usym, unaligned */
	const char *strs;		/* hdr.strs_len bytes */
};

/*
 * Check the UTEXT chunk @ch and point @u into its payload: hdr_size at
 * least this version's and a multiple of 8, the sizes adding up to the
 * chunk's exactly, @path NUL-terminated, every symbol's name inside the
 * names and NUL-terminated. Returns 0 or -NSIGHT_E_CHUNK with a message
 * naming the chunk's byte offset in the stream.
 */
int nsight_utext_parse(const struct nsight_chunk *ch, struct nsight_utext *u,
		       struct nsight_diag *d);

/* Symbol @i (below u->hdr.n_syms) of @u, and its name. */
void nsight_utext_sym(const struct nsight_utext *u, uint32_t i, struct nsight_usym *s);
static inline const char *nsight_utext_sym_name(const struct nsight_utext *u,
						const struct nsight_usym *s)
{
	return u->strs + s->name;
}

/*
 * The payload of a UTEXT chunk: @h (its hdr_size, n_syms and strs_len are
 * set here; code_len is @code_len), @code, @n_syms symbols @syms, @strs_len
 * bytes of names @strs. Returns a malloc()ed buffer of *@size bytes, NULL
 * when out of memory.
 */
void *nsight_utext_build(const struct nsight_utext_hdr *h, const void *code, uint64_t code_len,
			 const struct nsight_usym *syms, uint32_t n_syms, const char *strs,
			 uint32_t strs_len, size_t *size);

#endif /* NSIGHT_UTEXT_H */
