// SPDX-License-Identifier: MIT
/* Offset and drift between two hosts' clocks from request/response pairs. */
#include <math.h>
#include <string.h>

#include "merge/clockfit.h"

#define SEARCH_STEPS 200

struct bounds {
	const struct nsight_clock_pair *p;
	size_t n;
	int64_t x0;
};

/* lo(b): the highest lower bound at x0 under drift @b. */
static double lo_at(const struct bounds *s, double b)
{
	double lo = -INFINITY;
	size_t i;

	for (i = 0; i < s->n; i++) {
		const struct nsight_clock_pair *p = &s->p[i];
		double v = (double)(p->t3 - p->t4) - b * (double)(p->t4 - s->x0);

		if (v > lo)
			lo = v;
	}
	return lo;
}

/* hi(b): the lowest upper bound at x0 under drift @b. */
static double hi_at(const struct bounds *s, double b)
{
	double hi = INFINITY;
	size_t i;

	for (i = 0; i < s->n; i++) {
		const struct nsight_clock_pair *p = &s->p[i];
		double v = (double)(p->t2 - p->t1) - b * (double)(p->t1 - s->x0);

		if (v < hi)
			hi = v;
	}
	return hi;
}

enum goal { WIDTH_MAX, HI_MAX, LO_MIN };

static double objective(const struct bounds *s, enum goal g, double b)
{
	switch (g) {
	case WIDTH_MAX:
		return hi_at(s, b) - lo_at(s, b);
	case HI_MAX:
		return hi_at(s, b);
	default:
		return -lo_at(s, b);
	}
}

/* Ternary search for the maximum of a concave objective on [a, c]. */
static double argmax(const struct bounds *s, enum goal g, double a, double c)
{
	int k;

	for (k = 0; k < SEARCH_STEPS && c - a > 1e-15; k++) {
		double m1 = a + (c - a) / 3, m2 = c - (c - a) / 3;

		if (objective(s, g, m1) < objective(s, g, m2))
			a = m1;
		else
			c = m2;
	}
	return (a + c) / 2;
}

/* Where the width crosses 0 between @in (>= 0) and @out (< 0). */
static double edge(const struct bounds *s, double in, double out)
{
	int k;

	for (k = 0; k < SEARCH_STEPS && fabs(out - in) > 1e-15; k++) {
		double m = (in + out) / 2;

		if (hi_at(s, m) - lo_at(s, m) >= 0)
			in = m;
		else
			out = m;
	}
	return in;
}

/* x0: the middle of the pairs' span. */
static int64_t middle(const struct nsight_clock_pair *p, size_t n)
{
	int64_t xmin = p[0].t1, xmax = p[0].t4;
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i].t1 < xmin)
			xmin = p[i].t1;
		if (p[i].t4 > xmax)
			xmax = p[i].t4;
	}
	return xmin + (xmax - xmin) / 2;
}

/* Clear @f and set it up for @n pairs; -1 if there are none. */
static int begin(struct nsight_clockfit *f, struct bounds *s)
{
	memset(f, 0, sizeof(*f));
	if (!s->n)
		return -1;
	s->x0 = middle(s->p, s->n);
	f->n = s->n;
	f->x0 = s->x0;
	return 0;
}

int nsight_clockfit_given(struct nsight_clockfit *f, const struct nsight_clock_pair *p, size_t n,
			  int64_t bound_ns)
{
	struct bounds s = { p, n, 0 };
	double lo, hi;

	if (begin(f, &s))
		return -1;
	f->offset_lo = -(double)bound_ns;
	f->offset_hi = (double)bound_ns;
	lo = lo_at(&s, 0);
	hi = hi_at(&s, 0);
	/* [lo, hi] and [-bound, bound] must meet. */
	f->violation = lo > f->offset_hi ? lo - f->offset_hi :
		       hi < f->offset_lo ? f->offset_lo - hi : 0;
	if (hi < lo && f->violation < lo - hi)
		f->violation = lo - hi;
	f->consistent = f->violation == 0;
	return 0;
}

int nsight_clockfit(struct nsight_clockfit *f, const struct nsight_clock_pair *p, size_t n)
{
	const double M = NSIGHT_CLOCKFIT_MAX_DRIFT;
	struct bounds s = { p, n, 0 };
	double b, w;

	if (begin(f, &s))
		return -1;

	/* One pair (or pairs at one instant) fix no drift: take 0. */
	b = n < 2 ? 0 : argmax(&s, WIDTH_MAX, -M, M);
	w = hi_at(&s, b) - lo_at(&s, b);
	f->drift = b;
	f->offset = (hi_at(&s, b) + lo_at(&s, b)) / 2;
	if (w < 0) {
		f->consistent = false;
		f->violation = -w;
		f->drift_lo = f->drift_hi = b;
		f->offset_lo = hi_at(&s, b);
		f->offset_hi = lo_at(&s, b);
		return 0;
	}
	f->consistent = true;
	if (n < 2) {
		f->offset_lo = lo_at(&s, 0);
		f->offset_hi = hi_at(&s, 0);
		return 0;
	}
	f->drift_lo = hi_at(&s, -M) - lo_at(&s, -M) >= 0 ? -M : edge(&s, b, -M);
	f->drift_hi = hi_at(&s, M) - lo_at(&s, M) >= 0 ? M : edge(&s, b, M);
	f->offset_hi = hi_at(&s, argmax(&s, HI_MAX, f->drift_lo, f->drift_hi));
	f->offset_lo = lo_at(&s, argmax(&s, LO_MIN, f->drift_lo, f->drift_hi));
	/* The searches stop within rounding of the extremes. */
	if (f->offset_hi < f->offset)
		f->offset_hi = f->offset;
	if (f->offset_lo > f->offset)
		f->offset_lo = f->offset;
	return 0;
}

int64_t nsight_clockfit_to_a(const struct nsight_clockfit *f, int64_t y)
{
	double rel = ((double)(y - f->x0) - f->offset) / (1 + f->drift);

	return f->x0 + (int64_t)llround(rel);
}
