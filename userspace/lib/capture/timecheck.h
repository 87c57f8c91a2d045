/* SPDX-License-Identifier: MIT */
/*
 * The time-reconciliation check (nsight.rst "Time"): a guest program read the
 * TSC (lfence; rdtsc) and then CLOCK_REALTIME, back to back, in a loop,
 * while the clock was being adjusted. Converting every TSC with the
 * capture's clock records must give a sequence
 *     conv(tsc_0) <= real_0 <= conv(tsc_1) <= real_1 <= ...
 * that never goes backwards; an inversion means some conversion used the
 * wrong parameters.
 */
#ifndef NSIGHT_TIMECHECK_H
#define NSIGHT_TIMECHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/diag.h"
#include "capture/timeconv.h"

/* One pair as the file holds it: 16 bytes, little-endian. */
struct nsight_tpair {
	uint64_t tsc;
	int64_t real_ns;
};

#define NSIGHT_TPAIR_SIZE	16
#define NSIGHT_TCHECK_EXAMPLES	5

struct nsight_tcheck_example {
	uint64_t pair;		/* index of the pair whose TSC was converted */
	bool after_real;	/* conv(tsc[pair]) > real[pair]; else
				 * real[prev] > conv(tsc[pair])
				 */
	uint64_t prev;		/* the earlier pair, when !after_real */
	uint64_t tsc;
	int64_t conv, real;	/* the two values out of order */
};

struct nsight_tcheck {
	uint64_t pairs;
	uint64_t conversions;		/* pairs checked */
	uint64_t inversions;
	uint64_t uncovered;		/* outside the clock records' coverage */
	uint64_t ambiguous;		/* read while the kernel published new
					 * parameters: either set was right
					 */
	uint64_t max_abs_err;		/* max |conv - real|, ns */
	size_t n_examples;
	struct nsight_tcheck_example ex[NSIGHT_TCHECK_EXAMPLES];
};

/*
 * Read a whole pairs file. A size that is not a multiple of 16 is an error
 * naming @name and the offset of the partial pair. *@pairs is malloc()ed
 * (NULL when empty). Returns 0 or a negative enum nsight_errcode.
 */
int nsight_tpairs_read(FILE *f, const char *name, struct nsight_tpair **pairs, size_t *n,
		       struct nsight_diag *d);

/* Decode @n pairs from @buf (16 bytes each). */
void nsight_tpairs_decode(const void *buf, size_t n, struct nsight_tpair *pairs);

/*
 * Check @n pairs against @tc (realtime). Pairs @tc does not cover are
 * counted, not checked. Needs timekeeper records (tc->n_tk > 0): returns
 * -NSIGHT_E_INVAL with a message otherwise.
 */
int nsight_tcheck_run(const struct nsight_timeconv *tc, const struct nsight_tpair *pairs,
		      size_t n, struct nsight_tcheck *res, struct nsight_diag *d);

#endif /* NSIGHT_TIMECHECK_H */
