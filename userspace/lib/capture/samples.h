/* SPDX-License-Identifier: MIT */
/*
 * Function-level evidence from the "sample" source (nsight.rst "Diagnosis",
 * where Intel PT is absent): each NSIGHT_REC_SAMPLE holds the kernel stack
 * a CPU was running when its sampling timer fired.
 *
 * A sample at TSC t stands for the period before it, [t - period, t], cut
 * to the timeline segment it fell in (and to the previous sample on that
 * CPU). Its frames, symbolised with the capture's kernel symbols, become
 * nested function contexts in that stretch: outermost first, under the
 * context the timeline had there (a softirq, a task, ...), with keys
 * "func:<that context's key> > <symbol>". The stack is cut at the
 * function that entered the context (handle_softirqs, do_syscall_64,
 * process_one_work, ...) and to NSIGHT_FUNC_DEPTH frames; frames in nsight
 * itself and those they called are one, NSIGHT_FUNC_TRACING. Consecutive
 * samples of one stretch share the contexts of the frames they have in
 * common from the outermost in, so a function seen in three samples in a
 * row is one occurrence of three periods.
 *
 * Resolution: a function is seen to the period; one shorter than a period
 * may be missed or be given a whole one.
 */
#ifndef NSIGHT_SAMPLES_H
#define NSIGHT_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "capture/ksyms.h"
#include "capture/usyms.h"
#include "format/records.h"
#include "capture/timeline.h"

#define NSIGHT_FUNC_DEPTH	10
/*
 * What a sample in nsight's own code (the module "nsight") is named, with
 * whatever that code called: the cost of tracing.
 */
#define NSIGHT_FUNC_TRACING	"nsight_tracing"


/*
 * Flag of a stack that is not a sample but an exact stretch [lo, tsc] of
 * function activations (from Intel PT): its addresses are function entries,
 * looked up as they are.
 */
#define NSIGHT_SAMPLE_EXACT	0x8000

struct nsight_sample {
	uint64_t tsc;
	uint64_t lo;		/* NSIGHT_SAMPLE_EXACT: where the stretch starts */
	uint32_t cpu;
	uint32_t period_ns;
	uint32_t tid;
	uint32_t ips;		/* first of its frames in the ips pool */
	uint16_t nr;
	uint16_t flags;		/* NSIGHT_SAMPLE_* */
	uint32_t pid;		/* NSIGHT_SAMPLE_EXACT: the process of its
				 * user frames (0: none or not known) */
};

struct nsight_samples {
	struct nsight_sample *v;
	size_t n, cap;
	uint64_t *ips;
	size_t n_ips, cap_ips;
	/* What nsight_samples_apply() made of them. */
	uint64_t applied;	/* samples put into the timeline */
	uint64_t applied_exact;	/* exact stretches put into it */
	uint64_t user;		/* the CPU ran user code */
	uint64_t outside;	/* idle, lost or unknown time, or no segment */
	uint64_t no_stack;	/* only the interrupted IP was known */
	uint64_t unsymbolized;	/* frames no symbol covers */
	uint64_t user_named;	/* exact stretches with a user symbol */
	uint64_t exact;		/* NSIGHT_SAMPLE_EXACT stretches among them */
	bool sorted;		/* v by CPU, then TSC (nsight_samples_apply()) */
	uint32_t period_min, period_max;	/* ns */
};

void nsight_samples_init(struct nsight_samples *s);
void nsight_samples_fini(struct nsight_samples *s);

/*
 * Take a record as the walker yields it; other types are ignored. A
 * sample whose size does not hold its frames is -NSIGHT_E_RECORD.
 */
int nsight_samples_add(struct nsight_samples *s, const struct nsight_rec *rec,
		       struct nsight_diag *d);

/*
 * Add an exact stretch [@lo, @hi] of @cpu during which the functions @ips
 * (entry addresses, innermost first) were active; user addresses among
 * them are of process @pid (0: not known). Stretches of a CPU must not
 * overlap. Returns 0 or -NSIGHT_E_NOMEM.
 */
int nsight_samples_add_exact(struct nsight_samples *s, uint32_t cpu, uint64_t lo, uint64_t hi,
			     const uint64_t *ips, uint16_t nr, uint32_t pid,
			     struct nsight_diag *d);

/*
 * Nest the samples' functions into @tl (finished) using the kernel symbols
 * @ks and, for the user addresses of exact stretches, the user symbols @us
 * (sorted; NULL: none): "symbol [file]". @tsc_hz converts the period to
 * TSC ticks. Returns 0, -NSIGHT_E_NOMEM.
 */
int nsight_samples_apply(struct nsight_samples *s, const struct nsight_ksyms *ks,
			 const struct nsight_usyms *us, uint64_t tsc_hz,
			 struct nsight_timeline *tl, struct nsight_diag *d);

#endif /* NSIGHT_SAMPLES_H */
