/* SPDX-License-Identifier: MIT */
/*
 * User code of a capture's processes for Intel PT: which CR3 each process
 * ran with (NSIGHT_REC_PT_CR3 records) and the function symbols of its
 * executable mappings (NSIGHT_CHUNK_UTEXT chunks, format/utext.h), so that
 * a user address of process P is named "symbol [file]", like a module's
 * kernel function ("symbol [module]").
 *
 * A process's CR3 is the one of its latest pt_cr3 record (after an exec
 * it has new page tables, and the code in the capture is what it ran
 * last). A symbol covers its size, or up to the next symbol (at most to
 * the end of its mapping) when the file does not give one.
 */
#ifndef NSIGHT_USYMS_H
#define NSIGHT_USYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/u64map.h"
#include "format/records.h"
#include "format/utext.h"

/* Addresses below are user code (x86-64: the kernel's have bit 63 set). */
#define NSIGHT_USER_END		(1ULL << 63)

struct nsight_uproc {
	uint32_t pid;
	bool have_cr3;		/* a pt_cr3 record named it */
	uint32_t cr3_flags;	/* NSIGHT_PT_CR3_* of that record */
	uint64_t cr3;		/* of its latest pt_cr3 record */
	uint64_t cr3_tsc;	/* that record's TSC */
	uint64_t records;	/* its pt_cr3 records */
};

struct nsight_usym_ent {
	uint64_t addr, end;	/* [addr, end); end 0 until sorted: no size */
	uint64_t map_end;	/* the end of its mapping */
	uint32_t pid;
	uint32_t name;		/* "symbol [file]" in strs */
};

struct nsight_usyms {
	struct nsight_uproc *procs;
	size_t n_procs, cap_procs;
	struct nsight_u64map by_pid;	/* pid -> index in procs */
	struct nsight_usym_ent *v;	/* by pid, then address, once sorted */
	size_t n, cap;
	char *strs;
	size_t strs_len, strs_cap;
	uint64_t mappings;	/* UTEXT chunks taken */
	bool sorted;
};

void nsight_usyms_init(struct nsight_usyms *us);
void nsight_usyms_fini(struct nsight_usyms *us);

/* Take a record (NSIGHT_REC_PT_CR3; others are ignored). 0 or -NSIGHT_E_NOMEM. */
int nsight_usyms_add_record(struct nsight_usyms *us, const struct nsight_rec *rec,
			    struct nsight_diag *d);

/* Take the symbols of a checked UTEXT chunk. 0 or -NSIGHT_E_NOMEM. */
int nsight_usyms_add(struct nsight_usyms *us, const struct nsight_utext *u,
		     struct nsight_diag *d);

/* Sort after the last nsight_usyms_add(); before nsight_usyms_find(). */
void nsight_usyms_sort(struct nsight_usyms *us);

/* The process @pid, NULL if no record or chunk named it. */
const struct nsight_uproc *nsight_usyms_proc(const struct nsight_usyms *us, uint32_t pid);

/* "symbol [file]" covering @addr in process @pid, or NULL. */
const char *nsight_usyms_find(const struct nsight_usyms *us, uint32_t pid, uint64_t addr);

#endif /* NSIGHT_USYMS_H */
