/* SPDX-License-Identifier: MIT */
/*
 * Intel PT decoding: the function activations (call .. return, with TSC
 * times) of one CPU's trace, on top of libipt's block decoder.
 *
 * The code the trace refers to comes from a struct nsight_pt_image: sections
 * of (address, bytes), e.g. the NSIGHT_CHUNK_KTEXT chunks of a dump.
 *
 * Timing: times are libipt's (pt_blk_time): the TSC of the last timing
 * packet (TSC, refined by MTC/CYC when struct nsight_pt_config allows) before
 * the last branch or event packet (TNT, TIP, FUP, PSB...) the decoder has
 * consumed. So a return, an indirect or far call is stamped with the
 * timing packet before its own TNT bit or TIP, and a direct call, which has
 * no packet, with the time of the packet before it. The resolution is that
 * of the timing packets, the error at most the distance to the next
 * branch packet.
 *
 * Depth: nesting relative to where the trace (re)started, i.e. a PSB the
 * decoder synchronised on or a TIP.PGE: calls made at that level have depth
 * 0, calls they make depth 1, and frames entered before the trace started
 * (known only by their return) have negative depths.
 *
 * Interrupts (asynchronous branches) and far calls (syscall, int n) open a
 * frame like a call, closed by the next far return (iret, sysret).
 *
 * Address spaces: each PIP packet (a MOV CR3: a context switch, or with
 * page table isolation every kernel entry and exit) switches the decoder to
 * the call stack of that CR3 (its space, nsight_pt_space_key(): the CR3
 * without its PCID bits), so a return after a switch pops a frame of the
 * task switched to, never one of the task switched from. Kernel and user
 * halves of a PTI process are two spaces; as a syscall or an interrupt is
 * entered in the user half and left from it, their frames stay consistent.
 * A kernel thread has no CR3 of its own (it borrows the last one: lazy
 * TLB), so its frames share the stack of the task before it. Before the
 * first PIP after a synchronisation the space is unknown (key 0).
 * Depths are per space.
 */
#ifndef NSIGHT_PT_DECODE_H
#define NSIGHT_PT_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/nsight.h>

#include "base/diag.h"

/* ---------------------------------------------------------------------- */
/* Code image                                                               */

/*
 * The CR3 bits that do not name the address space: the PCID (bits 11:0),
 * which Linux assigns per CPU and changes as it likes.
 */
#define NSIGHT_PT_CR3_LOW	0xfffULL

/* Kernel addresses have bit 63 set; below is user code. */
#define NSIGHT_PT_KERNEL_HALF	(1ULL << 63)

/* The space of a CR3 (as PIP reports it): @cr3 without NSIGHT_PT_CR3_LOW. */
uint64_t nsight_pt_space_key(uint64_t cr3);

struct nsight_pt_image;

/* An empty image; NULL when out of memory. */
struct nsight_pt_image *nsight_pt_image_new(void);

/*
 * Add @len bytes of code loaded at @addr (@name, optional, for messages).
 * libipt gets a copy in a memfd (its block cache only works for file
 * sections, and makes decoding ~4x faster); the decoder still reads @bytes
 * itself, so the caller keeps them alive and unchanged until
 * nsight_pt_image_free(). Sections must not overlap (-NSIGHT_E_INVAL), nor
 * wrap around the address space. Returns 0 or -NSIGHT_E_*. An image must
 * not change while it is used by nsight_pt_decode().
 */
int nsight_pt_image_add(struct nsight_pt_image *img, uint64_t addr, const void *bytes,
			size_t len, const char *name, struct nsight_diag *d);

/*
 * The same for code mapped only in the address space of @cr3 (user code of
 * a process; keyed by nsight_pt_space_key(@cr3)). Sections of one space
 * must not overlap each other; the code of every space (the kernel, added
 * with nsight_pt_image_add()) is looked up first. This code is read through
 * libipt's read-memory callback, which is given the CR3, so it has no block
 * cache (slower than the shared code). -NSIGHT_E_INVAL for a CR3 of 0.
 */
int nsight_pt_image_add_space(struct nsight_pt_image *img, uint64_t cr3, uint64_t addr,
			      const void *bytes, size_t len, const char *name,
			      struct nsight_diag *d);

/* Number of sections and bytes in @img. */
size_t nsight_pt_image_sections(const struct nsight_pt_image *img);
uint64_t nsight_pt_image_bytes(const struct nsight_pt_image *img);

void nsight_pt_image_free(struct nsight_pt_image *img);

/* ---------------------------------------------------------------------- */
/* Decoder configuration                                                    */

/* What libipt needs to decode timing; all zero is a valid configuration
 * (TSC packets only: MTC and CYC are then ignored). */
struct nsight_pt_config {
	uint32_t family, model, stepping; /* CPUID.1; 0: unknown (no errata) */
	uint32_t tsc_ratio_num;		/* CPUID.15H EBX, 0 if unknown */
	uint32_t tsc_ratio_den;		/* CPUID.15H EAX, 0 if unknown */
	uint8_t mtc_freq;		/* RTIT_CTL.MTCFreq */
	uint32_t nom_freq;		/* CPUID.16H EAX, MHz; 0 if unknown */
};

/* The configuration a struct nsight_rec_pt describes (the CPU model is not
 * in the record: family/model/stepping stay 0). */
void nsight_pt_config_from_rec(struct nsight_pt_config *cfg, const struct nsight_rec_pt *rec);

/* ---------------------------------------------------------------------- */
/* Decoding                                                                 */

/* The activation started before the trace (or its resynchronisation or
 * re-enabling): start is when the trace started and func is the address of
 * the return instruction that ended it (the entry is unknown; symbolise
 * with the symbol containing the address). */
#define NSIGHT_PT_CALL_START_UNKNOWN	0x1
/* Still open when the trace ended, was disabled, overflowed or hit an
 * error: end is the last time known. */
#define NSIGHT_PT_CALL_END_UNKNOWN	0x2
/* Entered by an asynchronous branch (an interrupt or exception), not by
 * a call instruction; ended by a far return (iret). */
#define NSIGHT_PT_CALL_ASYNC		0x4
/* Entered by a far call (syscall, sysenter, call far, int n). */
#define NSIGHT_PT_CALL_FAR		0x8
/* A time is relative to the synchronisation point, not a TSC: the trace
 * had no TSC packet yet. */
#define NSIGHT_PT_CALL_NO_TSC		0x10
/* Not an activation: the CPU ran in address space @space from start to
 * end (func and depth 0). Reported when the CPU leaves a known space (a
 * PIP, the trace's end or a resynchronisation), in time order. */
#define NSIGHT_PT_CALL_SPACE		0x20

/* One function activation on the CPU, reported when it ends. */
struct nsight_pt_call {
	uint64_t start;		/* TSC of the call */
	uint64_t end;		/* TSC of the return */
	uint64_t func;		/* the call's target (function entry); 0 if
				 * unknown (trace stopped right after the call) */
	int32_t depth;		/* see the top of this file */
	uint32_t flags;		/* NSIGHT_PT_CALL_* */
	uint64_t space;		/* its address space (nsight_pt_space_key()),
				 * 0 if not known */
};

/* A TSC interval [start, end]; arrays of them are sorted and disjoint. */
struct nsight_pt_window {
	uint64_t start, end;
};

#define NSIGHT_PT_ERR_LEN	128

struct nsight_pt_stats {
	uint64_t bytes;		/* trace bytes given */
	uint64_t decoded_bytes;	/* bytes of the PSB segments decoded */
	uint64_t skipped_bytes;	/* bytes of segments outside the windows */
	uint64_t lost_bytes;	/* decoded bytes lost to errors: from an error
				 * to the next PSB, and before the first PSB */
	uint64_t runs;		/* runs of adjacent PSB segments decoded */
	uint64_t blocks;	/* libipt blocks */
	uint64_t insns;		/* instructions in them */
	uint64_t calls;		/* activations reported */
	uint64_t errors;	/* decode errors (each followed by a resync) */
	uint64_t resyncs;	/* resynchronisations after an error */
	uint64_t overflows;	/* OVF packets: the hardware lost trace */
	uint64_t switches;	/* address space switches (PIP packets) */
	uint64_t nomap;		/* errors for code not in the image */
	uint64_t nomap_user;	/* those of them at a user address */
	uint64_t nomap_ip;	/* where the first of them stopped decoding */
	uint64_t nomap_space;	/* and in which space (0: not known) */
	uint64_t first_error_offset; /* of the first error in the buffer */
	char first_error[NSIGHT_PT_ERR_LEN]; /* "" if none */
};

/* Called for each activation, in the order they end; nonzero stops. */
typedef int (*nsight_pt_call_fn)(void *arg, const struct nsight_pt_call *c);

/*
 * Decode @len bytes of one CPU's trace (the concatenated NSIGHT_CHUNK_PT
 * payloads) following the code in @img, with the timing parameters @cfg
 * (NULL: all zero).
 *
 * With @n_win > 0 only the PSB segments (a PSB up to the next) whose TSC
 * range may overlap one of the windows are decoded, so a long capture is
 * not decoded whole; a segment whose PSB+ has no TSC is decoded. Adjacent
 * selected segments are decoded as one, so calls spanning a PSB keep their
 * frames. Activations of a decoded segment are all reported, also those
 * outside the windows.
 *
 * Errors inside the stream (bad packets, code missing from @img, trace
 * inconsistent with the code) are counted in @st and decoding resumes at
 * the next PSB; the buffer is never read out of bounds.
 *
 * Returns 0; -NSIGHT_E_INVAL for bad arguments, -NSIGHT_E_NOMEM (both with
 * @d filled); or the callback's nonzero value when it stopped decoding.
 * @st (optional) is filled in all cases. The same @img may be used by
 * several threads decoding at once.
 */
int nsight_pt_decode(const uint8_t *buf, size_t len, const struct nsight_pt_config *cfg,
		     const struct nsight_pt_image *img, const struct nsight_pt_window *win,
		     size_t n_win, nsight_pt_call_fn fn, void *arg, struct nsight_pt_stats *st,
		     struct nsight_diag *d);

#endif /* NSIGHT_PT_DECODE_H */
