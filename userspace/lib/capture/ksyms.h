/* SPDX-License-Identifier: MIT */
/*
 * Kernel text symbols, from a snapshot of /proc/kallsyms (the stream's
 * NSIGHT_CHUNK_KSYMS): address -> "name" or "name [module]".
 *
 * A symbol covers the addresses from its own up to the next symbol's;
 * the last one of the kernel image or of a module covers nothing beyond
 * NSIGHT_KSYM_MAX_SIZE bytes, so that a stray address is not blamed on it.
 */
#ifndef NSIGHT_KSYMS_H
#define NSIGHT_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"

#define NSIGHT_KSYM_MAX_SIZE	(1U << 20)

struct nsight_ksym {
	uint64_t addr;
	uint32_t name;		/* offset of "name" or "name [module]" in strs */
	uint32_t mod;		/* offset of the module name in strs, or 0 ("") */
};

struct nsight_ksyms {
	struct nsight_ksym *v;	/* sorted by address */
	size_t n, cap;
	char *strs;
	size_t strs_len, strs_cap;
	bool no_addrs;		/* the snapshot had its addresses hidden */
	uint32_t last_mod;	/* the module name added last */
};

void nsight_ksyms_init(struct nsight_ksyms *ks);
void nsight_ksyms_fini(struct nsight_ksyms *ks);

/*
 * Add the symbols of @len bytes of /proc/kallsyms text (lines
 * "ADDR TYPE NAME[\t[MODULE]]"; types other than t and T are skipped).
 * Errors: -NSIGHT_E_FORMAT with "@fname:LINE: what", -NSIGHT_E_NOMEM.
 * Call nsight_ksyms_sort() after the last.
 */
int nsight_ksyms_parse(struct nsight_ksyms *ks, const char *text, size_t len, const char *fname,
		       struct nsight_diag *d);

/* Uncompress and parse a NSIGHT_CHUNK_KSYMS payload; @off names its byte. */
int nsight_ksyms_load_chunk(struct nsight_ksyms *ks, const void *payload, size_t size,
			    uint64_t off, struct nsight_diag *d);

void nsight_ksyms_sort(struct nsight_ksyms *ks);

/* The symbol covering @addr, or NULL; @offset (may be NULL) gets addr - start. */
const struct nsight_ksym *nsight_ksyms_find(const struct nsight_ksyms *ks, uint64_t addr,
					    uint64_t *offset);

/* "name" or "name [module]". */
static inline const char *nsight_ksym_name(const struct nsight_ksyms *ks,
					   const struct nsight_ksym *s)
{
	return ks->strs + s->name;
}

#endif /* NSIGHT_KSYMS_H */
