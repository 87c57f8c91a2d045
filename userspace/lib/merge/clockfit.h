/* SPDX-License-Identifier: MIT */
/*
 * The clock of one host against another's, from request/response pairs
 * (NTP-style): a request leaves host A at t1 (A's clock) and reaches host B
 * at t2 (B's clock); B's response leaves at t3 and reaches A at t4. With
 * theta(x) = B's clock - A's clock at A's time x, and no wire time below
 * zero:
 *
 *   theta(t1) <= t2 - t1        (upper bound, from the request)
 *   theta(t4) >= t3 - t4        (lower bound, from the response)
 *
 * theta is modelled as a line over the capture, theta(x) = offset +
 * drift * (x - x0), with x0 the middle of the pairs' time span. Every line
 * that satisfies all bounds is feasible; for a given drift the feasible
 * offsets are [lo(drift), hi(drift)], lo the maximum of the lower bounds and
 * hi the minimum of the upper ones moved along the line, so hi - lo is
 * concave in the drift. The estimate is the drift with the widest band and
 * the offset in its middle: the line farthest from both envelopes, decided
 * by the tightest pairs. The reported bound on the offset at x0 is the
 * whole feasible range over every feasible drift, which holds the true
 * offset whenever the stamps are right (taken before the packet leaves and
 * after it arrives) and the clocks' difference is linear; on the drift
 * likewise. When no line satisfies all bounds (a clock was stepped, or
 * pairs were matched wrongly) the widest-band line is still given and the
 * fit is marked inconsistent, with how far the bounds cross.
 */
#ifndef NSIGHT_CLOCKFIT_H
#define NSIGHT_CLOCKFIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One request/response pair, all ns; t1, t4 on A's clock, t2, t3 on B's. */
struct nsight_clock_pair {
	int64_t t1, t2, t3, t4;
};

struct nsight_clockfit {
	size_t n;		/* pairs used */
	int64_t x0;		/* A's time the offset is given at */
	double offset;		/* estimate at x0, ns (B - A) */
	double drift;		/* estimate, ns per ns (1e-6 = 1 ppm) */
	double offset_lo, offset_hi;	/* feasible range of the offset at x0 */
	double drift_lo, drift_hi;	/* feasible range of the drift */
	bool consistent;	/* some line satisfies every bound */
	double violation;	/* inconsistent: ns by which the bounds cross */
};

/* The widest drift the search considers, either way (1000 ppm). */
#define NSIGHT_CLOCKFIT_MAX_DRIFT	1e-3

/*
 * Fit @n pairs (n >= 1; a single pair fixes no drift, which is then 0 with
 * an empty range). Returns 0, or -1 if @n is 0.
 */
int nsight_clockfit(struct nsight_clockfit *f, const struct nsight_clock_pair *p, size_t n);

/*
 * The clocks are given as synchronised (PTP) to within @bound_ns: offset 0,
 * drift 0, bound [-bound_ns, bound_ns] at the pairs' middle x0. Consistent
 * when some offset in that range satisfies every pair (a constant offset;
 * @violation says by how far none does).
 */
int nsight_clockfit_given(struct nsight_clockfit *f, const struct nsight_clock_pair *p, size_t n,
			  int64_t bound_ns);

/* theta at A's time @x under the estimate. */
static inline double nsight_clockfit_theta(const struct nsight_clockfit *f, int64_t x)
{
	return f->offset + f->drift * (double)(x - f->x0);
}

/* A's time of B's time @y under the estimate. */
int64_t nsight_clockfit_to_a(const struct nsight_clockfit *f, int64_t y);

#endif /* NSIGHT_CLOCKFIT_H */
