/* SPDX-License-Identifier: MIT */
/*
 * Intel PT as function-level evidence (nsight.rst "Diagnosis"): the trace of
 * each CPU (NSIGHT_CHUNK_PT), the code it ran (NSIGHT_CHUNK_KTEXT) and the
 * decoder parameters (NSIGHT_REC_PT) of a capture, decoded only within the
 * windows message lifetimes cover, into stretches of time with the stack
 * of active functions, which go into the timelines like sampled stacks
 * (capture/samples.h) but with exact bounds.
 *
 * A stack starts above the innermost interrupt or far call (syscall) it
 * contains: what ran before belongs to the interrupted context, and holds
 * the frames of the address space (CR3) the CPU ran in only.
 */
#ifndef NSIGHT_PT_EVIDENCE_H
#define NSIGHT_PT_EVIDENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/nsight.h>

#include "base/diag.h"
#include "lifetime/lifetime.h"
#include "pt/pt_decode.h"
#include "format/records.h"
#include "capture/samples.h"
#include "capture/usyms.h"
#include "format/stream.h"
#include "capture/timeline.h"

struct nsight_ptev_cpu {
	uint8_t *trace;		/* the CPU's PT chunks, concatenated */
	size_t len, cap;
	bool have_cfg;		/* a NSIGHT_PT_START record was seen */
	struct nsight_pt_config cfg;
	uint32_t stop_flags;	/* NSIGHT_PT_* of its stop records */
};

struct nsight_ptev_text {
	uint64_t addr;
	uint8_t *bytes;
	size_t len;
	char name[48];
	uint32_t pid;		/* user code (UTEXT) of this process; 0: kernel */
};

struct nsight_ptev {
	uint32_t nr_cpus;
	struct nsight_ptev_cpu *cpus;
	struct nsight_ptev_text *text;
	size_t n_text, cap_text;
	/* What decoding found, over all CPUs. */
	uint64_t cpus_traced;	/* CPUs with trace bytes */
	uint64_t bytes, decoded_bytes, skipped_bytes, lost_bytes;
	uint64_t calls, errors, overflows, stretches;
	uint64_t wrapped;	/* CPUs whose output wrapped (oldest trace lost) */
	uint64_t switches;	/* address space switches (PIP packets) */
	/* Errors for code not in the capture (each loses the trace up to the
	 * next PSB), and those of them in user code (below the kernel half):
	 * user code is not decoded (only kernel code is in the capture). */
	uint64_t nomap, nomap_user;
	char first_nomap[96];	/* where the first was; "" if none */
	/* User code (NSIGHT_CHUNK_UTEXT) and the processes' CR3s
	 * (NSIGHT_REC_PT_CR3), their symbols in @usyms. */
	struct nsight_usyms usyms;
	uint64_t user_procs;	/* processes whose code was added */
	uint64_t user_bytes;	/* bytes of it */
	uint64_t user_no_cr3;	/* processes with code and no pt_cr3 record */
	uint64_t user_rejected;	/* mappings the image refused (overlaps) */
	char first_error[NSIGHT_PT_ERR_LEN + 32];
};

/* Returns 0 or -NSIGHT_E_NOMEM; nsight_ptev_fini() either way. */
int nsight_ptev_init(struct nsight_ptev *p, uint32_t nr_cpus, struct nsight_diag *d);
void nsight_ptev_fini(struct nsight_ptev *p);

/* Take a PT, KTEXT or UTEXT chunk (others are ignored). */
int nsight_ptev_add_chunk(struct nsight_ptev *p, const struct nsight_chunk *ch,
			  struct nsight_diag *d);

/*
 * Take a record (NSIGHT_REC_PT and NSIGHT_REC_PT_CR3; others are
 * ignored). Returns 0 or -NSIGHT_E_NOMEM.
 */
int nsight_ptev_add_record(struct nsight_ptev *p, const struct nsight_rec *rec,
			   struct nsight_diag *d);

/*
 * Decode each CPU's trace within the windows of the complete messages of
 * @lt on that CPU, and add the stretches, cut at the segments of @tl, to
 * @s. The user code of a process is added in the address spaces of its
 * CR3 (and, with PTI, of its user half, CR3 | 0x1000); a stretch of user
 * frames carries the process of its space, whose symbols (@usyms, sorted
 * here) name them. Decoding errors are counted, not returned. Returns 0,
 * -NSIGHT_E_NOMEM.
 */
int nsight_ptev_decode(struct nsight_ptev *p, const struct nsight_lifetimes *lt,
		       const struct nsight_timeline *tl, struct nsight_samples *s,
		       struct nsight_diag *d);

#endif /* NSIGHT_PT_EVIDENCE_H */
