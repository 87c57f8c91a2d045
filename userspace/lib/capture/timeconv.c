// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>

#include "capture/timeconv.h"
#include "base/satmath.h"

#define NSEC_PER_SEC	1000000000ULL

static int64_t sat_from_mag(unsigned __int128 mag, bool neg)
{
	if (neg)
		return mag > (unsigned __int128)INT64_MAX + 1 ? INT64_MIN :
		       (int64_t)(0 - (uint64_t)mag);
	return mag > INT64_MAX ? INT64_MAX : (int64_t)mag;
}

/* (t - t0) * num / den, signed, saturated; den is not 0. */
static int64_t scale(uint64_t t, uint64_t t0, uint64_t num, uint64_t den)
{
	bool neg = t < t0;
	uint64_t m = neg ? t0 - t : t - t0;

	return sat_from_mag((unsigned __int128)m * num / den, neg);
}

int64_t nsight_tk_cycles_to_clock(const struct nsight_rec_timekeeper *tk, uint64_t cycles,
				  enum nsight_clockid clk)
{
	uint64_t delta = (cycles - tk->cycle_last) & tk->mask;
	int64_t ns, mono;

	if (tk->shift > 63) {
		ns = 0;
	} else if (delta & ~(tk->mask >> 1)) {
		/* Before cycle_last: floor((xtime_nsec - back * mult) >> shift). */
		uint64_t back = (tk->cycle_last - cycles) & tk->mask;
		unsigned __int128 sub = (unsigned __int128)back * tk->mult;
		unsigned __int128 x = tk->xtime_nsec;

		if (sub <= x) {
			ns = sat_from_mag((x - sub) >> tk->shift, false);
		} else {
			unsigned __int128 one = (unsigned __int128)1 << tk->shift;

			ns = sat_from_mag((sub - x + one - 1) >> tk->shift, true);
		}
	} else {
		uint64_t v = nsight_cycles_to_ns(cycles, tk->cycle_last, tk->mask,
						 tk->mult, tk->shift, tk->xtime_nsec);

		ns = v > INT64_MAX ? INT64_MAX : (int64_t)v;
	}
	mono = nsight_sat_add(tk->base_mono, ns);
	return clk == NSIGHT_CLOCK_REALTIME ? nsight_sat_add(mono, tk->offs_real) : mono;
}

/*
 * When a record's parameters take over: the TSC its notifier read first
 * (tsc_cs), or the record's stamp when that is missing.
 */
uint64_t nsight_tk_from(const struct nsight_rec_timekeeper *tk)
{
	return tk->tsc_cs ? tk->tsc_cs : tk->hdr.tsc;
}

static int cmp_tk(const void *a, const void *b)
{
	const struct nsight_rec_timekeeper *x = a, *y = b;

	if (nsight_tk_from(x) != nsight_tk_from(y))
		return nsight_tk_from(x) < nsight_tk_from(y) ? -1 : 1;
	if (x->hdr.cpu != y->hdr.cpu)
		return x->hdr.cpu < y->hdr.cpu ? -1 : 1;
	if (x->cycle_last != y->cycle_last)
		return x->cycle_last < y->cycle_last ? -1 : 1;
	return 0;
}

static int cmp_cs(const void *a, const void *b)
{
	const struct nsight_rec_clock_sync *x = a, *y = b;

	if (x->hdr.tsc != y->hdr.tsc)
		return x->hdr.tsc < y->hdr.tsc ? -1 : 1;
	return x->hdr.cpu < y->hdr.cpu ? -1 : x->hdr.cpu > y->hdr.cpu;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool tk_usable(const struct nsight_rec_timekeeper *tk)
{
	return tk->mult && tk->shift <= 63 && tk->mask;
}

int nsight_tc_init(struct nsight_timeconv *tc,
		   const struct nsight_rec_timekeeper *tk, size_t n_tk,
		   const struct nsight_rec_clock_sync *cs, size_t n_cs,
		   uint64_t hdr_tsc_hz, enum nsight_tc_params params,
		   struct nsight_diag *d)
{
	size_t i;

	memset(tc, 0, sizeof(*tc));
	tc->params = params;
	if (n_tk) {
		tc->tk = calloc(n_tk, sizeof(*tc->tk));
		if (!tc->tk)
			return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	}
	for (i = 0; i < n_tk; i++) {
		if (!tk_usable(&tk[i])) {
			tc->n_invalid++;
			continue;
		}
		tc->tk[tc->n_tk++] = tk[i];
		if (tk[i].flags & NSIGHT_TK_CLOCK_WAS_SET)
			tc->n_clock_was_set++;
	}
	if (n_cs) {
		tc->cs = calloc(n_cs, sizeof(*tc->cs));
		if (!tc->cs)
			return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
		memcpy(tc->cs, cs, n_cs * sizeof(*cs));
		tc->n_cs = n_cs;
	}
	/* qsort() must not see a NULL base, even for no elements. */
	if (tc->n_tk > 1)
		qsort(tc->tk, tc->n_tk, sizeof(*tc->tk), cmp_tk);
	if (tc->n_cs > 1)
		qsort(tc->cs, tc->n_cs, sizeof(*tc->cs), cmp_cs);

	tc->tsc_hz = hdr_tsc_hz;
	for (i = 0; i < tc->n_cs; i++)
		if (tc->cs[i].tsc_hz) {
			tc->tsc_hz = tc->cs[i].tsc_hz;
			break;
		}

	if (tc->n_tk >= 2) {
		uint64_t *gaps = calloc(tc->n_tk - 1, sizeof(*gaps));
		size_t n = 0;

		if (!gaps)
			return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
		for (i = 1; i < tc->n_tk; i++)
			if (nsight_tk_from(&tc->tk[i]) > nsight_tk_from(&tc->tk[i - 1]))
				gaps[n++] = nsight_tk_from(&tc->tk[i]) -
					    nsight_tk_from(&tc->tk[i - 1]);
		if (n > 1)
			qsort(gaps, n, sizeof(*gaps), cmp_u64);
		tc->interval = n ? gaps[n / 2] : 0;
		free(gaps);
	}

	for (i = 0; i < tc->n_tk; i++)
		if (tc->tk[i].flags & (NSIGHT_TK_CS_TSC | NSIGHT_TK_CS_NOW))
			break;
	if (i < tc->n_tk)
		tc->quality = NSIGHT_TC_EXACT;
	else if (tc->n_cs && tc->tsc_hz)
		tc->quality = NSIGHT_TC_APPROXIMATE;
	else
		tc->quality = NSIGHT_TC_UNAVAILABLE;
	return 0;
}

void nsight_tc_fini(struct nsight_timeconv *tc)
{
	free(tc->tk);
	free(tc->cs);
	tc->tk = NULL;
	tc->cs = NULL;
	tc->n_tk = tc->n_cs = 0;
}

size_t nsight_tc_find(const struct nsight_timeconv *tc, uint64_t tsc)
{
	size_t lo = 0, hi = tc->n_tk;

	/* The last record in force at tsc: lo ends as their count. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (nsight_tk_from(&tc->tk[mid]) <= tsc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : 0;
}

bool nsight_tc_covers(const struct nsight_timeconv *tc, uint64_t tsc)
{
	uint64_t first, last;

	if (!tc->n_tk)
		return false;
	first = nsight_tk_from(&tc->tk[0]);
	last = nsight_tk_from(&tc->tk[tc->n_tk - 1]);
	first = first > tc->interval ? first - tc->interval : 0;
	last = last > UINT64_MAX - tc->interval ? UINT64_MAX : last + tc->interval;
	return tsc >= first && tsc <= last;
}

/* The clock_sync fallback: one point mid-bracket and the TSC rate. */
static enum nsight_tc_quality convert_sync(const struct nsight_timeconv *tc, uint64_t tsc,
					   enum nsight_clockid clk, int64_t *ns)
{
	const struct nsight_rec_clock_sync *cs;
	size_t i;
	uint64_t mid;

	if (!tc->n_cs || !tc->tsc_hz)
		return NSIGHT_TC_UNAVAILABLE;
	for (i = tc->n_cs - 1; i > 0 && tc->cs[i].hdr.tsc > tsc; i--)
		;
	cs = &tc->cs[i];
	mid = cs->tsc_before;
	if (cs->tsc_after > mid)
		mid += (cs->tsc_after - mid) / 2;
	*ns = nsight_sat_add(clk == NSIGHT_CLOCK_REALTIME ? cs->real_ns : cs->mono_ns,
		      scale(tsc, mid, NSEC_PER_SEC, tc->tsc_hz));
	return NSIGHT_TC_APPROXIMATE;
}

/* Two records whose (tsc_cs, cs_now) pairs span a usable segment. */
static bool pair_ok(const struct nsight_rec_timekeeper *a, const struct nsight_rec_timekeeper *b)
{
	return (a->flags & NSIGHT_TK_CS_NOW) && (b->flags & NSIGHT_TK_CS_NOW) &&
	       !(a->flags & NSIGHT_TK_CS_TSC) && !(b->flags & NSIGHT_TK_CS_TSC) &&
	       a->mask == b->mask && b->tsc_cs > a->tsc_cs &&
	       !memcmp(a->clocksource, b->clocksource, sizeof(a->clocksource));
}

/* Clocksource cycles at @tsc on the line through the pairs of @a and @b. */
static uint64_t interpolate(const struct nsight_rec_timekeeper *a,
			    const struct nsight_rec_timekeeper *b, uint64_t tsc)
{
	uint64_t dc = (b->cs_now - a->cs_now) & a->mask;
	uint64_t dt = b->tsc_cs - a->tsc_cs;
	bool neg = tsc < a->tsc_cs;
	uint64_t m = neg ? a->tsc_cs - tsc : tsc - a->tsc_cs;
	uint64_t q = (uint64_t)((unsigned __int128)m * dc / dt);

	return neg ? a->cs_now - q : a->cs_now + q;
}

/* A non-TSC clocksource: map @tsc to its cycles, convert with record @i. */
static enum nsight_tc_quality convert_cs_now(const struct nsight_timeconv *tc, size_t i,
					     uint64_t tsc, enum nsight_clockid clk, int64_t *ns)
{
	const struct nsight_rec_timekeeper *r = &tc->tk[i];
	size_t j;

	if (tc->params == NSIGHT_TC_IN_FORCE) {
		/* The segment after the record, else the one before it. */
		for (j = i + 1; j < tc->n_tk && nsight_tk_from(&tc->tk[j]) == nsight_tk_from(r); j++)
			;
		if (j < tc->n_tk && pair_ok(r, &tc->tk[j])) {
			*ns = nsight_tk_cycles_to_clock(r, interpolate(r, &tc->tk[j], tsc), clk);
			return NSIGHT_TC_EXACT;
		}
		for (j = i; j > 0 && nsight_tk_from(&tc->tk[j - 1]) == nsight_tk_from(r); j--)
			;
		if (j > 0 && pair_ok(&tc->tk[j - 1], r)) {
			*ns = nsight_tk_cycles_to_clock(r, interpolate(&tc->tk[j - 1], r, tsc),
							clk);
			return NSIGHT_TC_EXACT;
		}
	}
	/* One pair only: step from it at the TSC rate. */
	if (!tc->tsc_hz)
		return NSIGHT_TC_UNAVAILABLE;
	*ns = nsight_sat_add(nsight_tk_cycles_to_clock(r, r->cs_now, clk),
		      scale(tsc, r->tsc_cs, NSEC_PER_SEC, tc->tsc_hz));
	return NSIGHT_TC_EXACT;
}

enum nsight_tc_quality nsight_tc_convert(const struct nsight_timeconv *tc, uint64_t tsc,
					 enum nsight_clockid clk, int64_t *ns)
{
	const struct nsight_rec_timekeeper *r;
	size_t i;

	if (!tc->n_tk)
		return convert_sync(tc, tsc, clk, ns);
	i = tc->params == NSIGHT_TC_FIRST ? 0 : nsight_tc_find(tc, tsc);
	r = &tc->tk[i];
	if (r->flags & NSIGHT_TK_CS_TSC) {
		*ns = nsight_tk_cycles_to_clock(r, tsc, clk);
		return NSIGHT_TC_EXACT;
	}
	if (r->flags & NSIGHT_TK_CS_NOW)
		return convert_cs_now(tc, i, tsc, clk, ns);
	/* A record that cannot convert a TSC: the approximation stands in. */
	return convert_sync(tc, tsc, clk, ns);
}

const char *nsight_clock_name(enum nsight_clockid clk)
{
	return clk == NSIGHT_CLOCK_MONOTONIC ? "monotonic" : "realtime";
}

const char *nsight_tc_quality_name(enum nsight_tc_quality q)
{
	switch (q) {
	case NSIGHT_TC_EXACT:		return "exact";
	case NSIGHT_TC_APPROXIMATE:	return "approximate";
	default:			return "unavailable";
	}
}

const char *nsight_tc_params_name(enum nsight_tc_params p)
{
	return p == NSIGHT_TC_FIRST ? "first" : "in-force";
}
