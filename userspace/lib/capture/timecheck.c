// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/timecheck.h"

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

void nsight_tpairs_decode(const void *buf, size_t n, struct nsight_tpair *pairs)
{
	const uint8_t *p = buf;
	size_t i;

	for (i = 0; i < n; i++, p += NSIGHT_TPAIR_SIZE) {
		pairs[i].tsc = get_le64(p);
		pairs[i].real_ns = (int64_t)get_le64(p + 8);
	}
}

int nsight_tpairs_read(FILE *f, const char *name, struct nsight_tpair **pairs, size_t *n,
		       struct nsight_diag *d)
{
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, got;

	*pairs = NULL;
	*n = 0;
	do {
		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 1 << 16;
			uint8_t *p = ncap > cap ? realloc(buf, ncap) : NULL;

			if (!p) {
				free(buf);
				return nsight_diag_set(d, NSIGHT_E_NOMEM, "%s: out of memory", name);
			}
			buf = p;
			cap = ncap;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got);
	if (ferror(f)) {
		free(buf);
		return nsight_diag_set(d, NSIGHT_E_IO, "%s: read error at byte %zu: %s", name, len,
				       strerror(errno));
	}
	if (len % NSIGHT_TPAIR_SIZE) {
		free(buf);
		return nsight_diag_set(d, NSIGHT_E_TRUNCATED,
				       "%s: the last %zu bytes at byte %zu are not a whole pair (%d bytes: u64 tsc, s64 realtime ns)",
				       name, len % NSIGHT_TPAIR_SIZE, len - len % NSIGHT_TPAIR_SIZE,
				       NSIGHT_TPAIR_SIZE);
	}
	if (len) {
		*pairs = malloc(len / NSIGHT_TPAIR_SIZE * sizeof(**pairs));
		if (!*pairs) {
			free(buf);
			return nsight_diag_set(d, NSIGHT_E_NOMEM, "%s: out of memory", name);
		}
		nsight_tpairs_decode(buf, len / NSIGHT_TPAIR_SIZE, *pairs);
	}
	*n = len / NSIGHT_TPAIR_SIZE;
	free(buf);
	return 0;
}

static void example(struct nsight_tcheck *res, const struct nsight_tcheck_example *ex)
{
	if (res->n_examples < NSIGHT_TCHECK_EXAMPLES)
		res->ex[res->n_examples++] = *ex;
}

/*
 * Was the clock read of a pair (between its TSC @from and the next pair's
 * TSC @to) taken while the kernel published new parameters to the vDSO, in
 * [tsc_update, tsc_cs] of a record? Then clock_gettime() may have used the
 * old or the new ones, and no conversion can tell which. The records are
 * sorted by tsc_cs and their windows are short and disjoint (one update at
 * a time, under the timekeeper lock).
 */
static bool ambiguous(const struct nsight_timeconv *tc, uint64_t from, uint64_t to)
{
	size_t lo = 0, hi = tc->n_tk;

	/* The first record whose window ends at or after @from. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (nsight_tk_from(&tc->tk[mid]) < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < tc->n_tk; lo++) {
		const struct nsight_rec_timekeeper *t = &tc->tk[lo];

		if (!t->tsc_update || t->tsc_update > t->tsc_cs)
			continue;
		return t->tsc_update <= to;
	}
	return false;
}

int nsight_tcheck_run(const struct nsight_timeconv *tc, const struct nsight_tpair *pairs,
		      size_t n, struct nsight_tcheck *res, struct nsight_diag *d)
{
	bool have_prev = false, prev_ambiguous = false;
	int64_t prev_real = 0;
	uint64_t prev = 0;
	size_t i;

	memset(res, 0, sizeof(*res));
	if (!tc->n_tk)
		return nsight_diag_set(d, NSIGHT_E_INVAL,
				       "the capture has no timekeeper records, so there are no conversion parameters to check%s",
				       tc->n_cs ? " (clock_sync alone gives an approximate conversion)" : "");
	res->pairs = n;
	for (i = 0; i < n; i++) {
		const struct nsight_tpair *p = &pairs[i];
		__int128 diff;
		int64_t conv;
		bool amb;

		if (!nsight_tc_covers(tc, p->tsc) ||
		    !nsight_tc_convert(tc, p->tsc, NSIGHT_CLOCK_REALTIME, &conv)) {
			res->uncovered++;
			continue;
		}
		res->conversions++;
		amb = ambiguous(tc, p->tsc, i + 1 < n ? pairs[i + 1].tsc : UINT64_MAX);
		res->ambiguous += amb;
		diff = (__int128)conv - p->real_ns;
		if (diff < 0)
			diff = -diff;
		if (diff > (__int128)res->max_abs_err)
			res->max_abs_err = diff > UINT64_MAX ? UINT64_MAX : (uint64_t)diff;

		/* real[prev] <= conv(tsc[i]) <= real[i], unless a read is ambiguous */
		if (have_prev && !prev_ambiguous && prev_real > conv) {
			res->inversions++;
			example(res, &(struct nsight_tcheck_example){
				.pair = i, .prev = prev, .tsc = p->tsc,
				.conv = conv, .real = prev_real });
		}
		if (!amb && conv > p->real_ns) {
			res->inversions++;
			example(res, &(struct nsight_tcheck_example){
				.pair = i, .after_real = true, .tsc = p->tsc,
				.conv = conv, .real = p->real_ns });
		}
		have_prev = true;
		prev_ambiguous = amb;
		prev_real = p->real_ns;
		prev = i;
	}
	return 0;
}
