/* SPDX-License-Identifier: MIT */
/*
 * TSC -> CLOCK_REALTIME / CLOCK_MONOTONIC with the kernel's own conversion
 * parameters in force at each instant (the timekeeper records), never one
 * linear fit over the capture (nsight.rst "Time").
 *
 * A timekeeper record applies from its hdr.tsc to the next record's hdr.tsc;
 * before the first record the first one applies. With NSIGHT_TK_CS_TSC the
 * clocksource counts TSC cycles and a TSC converts exactly as the kernel and
 * the vDSO convert it. Otherwise, with NSIGHT_TK_CS_NOW, each record is a
 * (hdr.tsc, cs_now) pair and a TSC is first mapped to clocksource cycles by
 * interpolating between the pairs around it. With no timekeeper records the
 * clock_sync record gives an approximate conversion (one point and the TSC
 * rate); with neither, there is none.
 */
#ifndef NSIGHT_TIMECONV_H
#define NSIGHT_TIMECONV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/nsight.h>

#include "base/diag.h"

enum nsight_clockid {
	NSIGHT_CLOCK_REALTIME,
	NSIGHT_CLOCK_MONOTONIC,
};

/* Which timekeeper record converts a TSC. */
enum nsight_tc_params {
	NSIGHT_TC_IN_FORCE,	/* the one in force at that TSC */
	NSIGHT_TC_FIRST,	/* always the first: a validation mode that
				 * shows what one set of parameters gets wrong
				 */
};

enum nsight_tc_quality {
	NSIGHT_TC_UNAVAILABLE,	/* neither timekeeper nor clock_sync records */
	NSIGHT_TC_APPROXIMATE,	/* clock_sync (or tsc_hz) extrapolation */
	NSIGHT_TC_EXACT,	/* the kernel's parameters */
};

struct nsight_timeconv {
	struct nsight_rec_timekeeper *tk;	/* usable records, by hdr.tsc */
	size_t n_tk;
	struct nsight_rec_clock_sync *cs;	/* by hdr.tsc */
	size_t n_cs;
	uint64_t tsc_hz;		/* clock_sync's, else the stream header's */
	enum nsight_tc_params params;
	enum nsight_tc_quality quality;	/* the best any TSC gets */
	uint64_t n_clock_was_set;	/* records with NSIGHT_TK_CLOCK_WAS_SET */
	uint64_t n_invalid;		/* ignored: mult 0, shift > 63, mask 0 */
	uint64_t interval;		/* median hdr.tsc spacing, 0 with < 2 */
};

/*
 * Set up @tc from the capture's records (any order; they are copied and
 * sorted). @hdr_tsc_hz is the stream header's rate, used when no clock_sync
 * gives one. Returns 0 or -NSIGHT_E_NOMEM; call nsight_tc_fini() either way.
 */
int nsight_tc_init(struct nsight_timeconv *tc,
		   const struct nsight_rec_timekeeper *tk, size_t n_tk,
		   const struct nsight_rec_clock_sync *cs, size_t n_cs,
		   uint64_t hdr_tsc_hz, enum nsight_tc_params params,
		   struct nsight_diag *d);
void nsight_tc_fini(struct nsight_timeconv *tc);

/*
 * Convert @tsc into @clk nanoseconds in *@ns. Returns the quality of this
 * conversion (NSIGHT_TC_UNAVAILABLE leaves *@ns alone): exact when a usable
 * timekeeper record is in force, approximate when clock_sync had to stand in.
 */
enum nsight_tc_quality nsight_tc_convert(const struct nsight_timeconv *tc, uint64_t tsc,
					 enum nsight_clockid clk, int64_t *ns);

/*
 * Whether @tsc lies within the timekeeper records' coverage: from one
 * record interval before the first record to one after the last.
 */
bool nsight_tc_covers(const struct nsight_timeconv *tc, uint64_t tsc);

/* Index in tc->tk of the record in force at @tsc (0 before the first). */
uint64_t nsight_tk_from(const struct nsight_rec_timekeeper *tk);
size_t nsight_tc_find(const struct nsight_timeconv *tc, uint64_t tsc);

/*
 * Nanoseconds of @clk at clocksource count @cycles by the parameters of one
 * record. A delta with the mask's top bit set is a count before cycle_last
 * (the kernel's own test for negative motion) and gives time before the
 * record's base instead of a huge one.
 */
int64_t nsight_tk_cycles_to_clock(const struct nsight_rec_timekeeper *tk, uint64_t cycles,
				  enum nsight_clockid clk);

const char *nsight_clock_name(enum nsight_clockid clk);
const char *nsight_tc_quality_name(enum nsight_tc_quality q);
const char *nsight_tc_params_name(enum nsight_tc_params p);

#endif /* NSIGHT_TIMECONV_H */
