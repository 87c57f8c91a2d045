// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>

#include "format/records.h"
#include "format/tscguard.h"
#include "base/vec.h"

#define DEFAULT_HZ	1000000000ULL
#define EDGE_SECONDS	86400ULL

void nsight_tscguard_init(struct nsight_tscguard *g, uint64_t tsc_hz)
{
	uint64_t hz = tsc_hz ? tsc_hz : DEFAULT_HZ;

	memset(g, 0, sizeof(*g));
	g->tol = hz;
	g->edge_tol = hz > UINT64_MAX / EDGE_SECONDS ? UINT64_MAX : hz * EDGE_SECONDS;
}

void nsight_tscguard_fini(struct nsight_tscguard *g)
{
	free(g->tsc);
	free(g->bad);
	memset(g, 0, sizeof(*g));
}

/* @a is later than @b by more than @tol. */
static bool later(uint64_t a, uint64_t b, uint64_t tol)
{
	return a > b && a - b > tol;
}

/*
 * Record @i against up to NSIGHT_TSCGUARD_NEAR records on one side (@after:
 * those after it; else those before it not found corrupt): how many there
 * are (*@seen), and of them how many it is later than by more than @tol
 * (@late) or earlier than by more than @tol (!@late).
 */
static unsigned int compare(const struct nsight_tscguard *g, size_t i, bool after, bool late,
			    uint64_t tol, unsigned int *seen)
{
	unsigned int wrong = 0;
	size_t j = i;

	*seen = 0;
	while (*seen < NSIGHT_TSCGUARD_NEAR && (after ? j + 1 < g->n : j > 0)) {
		j = after ? j + 1 : j - 1;
		if (!after && g->bad[j])
			continue;
		(*seen)++;
		wrong += late ? later(g->tsc[i], g->tsc[j], tol) : later(g->tsc[j], g->tsc[i], tol);
	}
	return wrong;
}

/*
 * Later than most of the records after it, or earlier than most of those
 * before it. At a chunk's edge, with records on one side only (two at
 * least, to tell which is wrong), a gap may be real: only one beyond
 * edge_tol from all of them is corrupt.
 */
static bool corrupt(const struct nsight_tscguard *g, size_t i)
{
	unsigned int after, before;
	unsigned int late = compare(g, i, true, true, g->tol, &after);
	unsigned int early = compare(g, i, false, false, g->tol, &before);

	if ((after && 2 * late > after) || (before && 2 * early > before))
		return true;
	if (!after && before >= 2)
		return compare(g, i, false, true, g->edge_tol, &before) == before;
	if (!before && after >= 2)
		return compare(g, i, true, false, g->edge_tol, &after) == after;
	return false;
}

/* The TSCs of the records @w yields, in g->tsc; false when out of memory. */
static bool collect(struct nsight_tscguard *g, const struct nsight_rec_walker *w)
{
	struct nsight_rec_walker k = *w;
	size_t cap = g->cap;
	uint64_t prev = 0;
	bool have = false;

	if (w->dec) {
		prev = w->dec->tsc;
		have = w->dec->have_tsc;
	}
	for (;;) {
		uint64_t tsc;

		if (!w->dec) {
			/*
			 * The headers' framing alone: a record the walker
			 * refuses for its cpu or type fails the caller's walk
			 * at that record, so the records after it never count.
			 */
			size_t left = k.len - k.pos;
			struct nsight_rec_hdr h;

			if (left < sizeof(h))
				break;
			memcpy(&h, k.buf + k.pos, sizeof(h));
			if (!nsight_rec_size_valid(h.size) || h.size > left)
				break;
			k.pos += h.size;
			tsc = h.tsc;
		} else {
			/* Compact: the TSCs alone, the decoder's state untouched. */
			size_t left = k.len - k.pos, size;
			uint64_t h;

			if (left < sizeof(h))
				break;
			memcpy(&h, k.buf + k.pos, sizeof(h));
			size = NSIGHT_CREC_SIZE(h);
			if (!size || size > left || !nsight_crec_tsc(&prev, &have, k.buf + k.pos, size, &tsc))
				break;
			k.pos += size;
		}
		if (g->n == g->cap) {
			if (nsight_vec_reserve((void **)&g->tsc, &cap, g->n + 1, sizeof(*g->tsc)) ||
			    nsight_vec_reserve((void **)&g->bad, &g->cap, g->n + 1, sizeof(*g->bad)))
				return false;
		}
		g->tsc[g->n++] = tsc;
	}
	return true;
}

/*
 * No record of the chunk steps back by more than tol from the highest TSC
 * before it. Then no record is later than any record after it, or earlier
 * than any record before it, by more than tol: only the two edge rules can
 * find one corrupt. Almost every chunk is so.
 */
static bool ordered(const struct nsight_tscguard *g)
{
	uint64_t max = 0;

	for (size_t i = 0; i < g->n; i++) {
		if (g->tsc[i] > max)
			max = g->tsc[i];
		else if (max - g->tsc[i] > g->tol)
			return false;
	}
	return true;
}

static void judge(struct nsight_tscguard *g, size_t i)
{
	g->bad[i] = corrupt(g, i);
	g->n_bad += g->bad[i];
}

int nsight_tscguard_scan(struct nsight_tscguard *g, const struct nsight_rec_walker *w,
			 struct nsight_diag *d)
{
	size_t i;

	g->n = g->n_bad = 0;
	if (!collect(g, w))
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	if (!ordered(g)) {
		for (i = 0; i < g->n; i++)
			judge(g, i);
		return 0;
	}
	/*
	 * The same answer as the loop above, from the edges alone: the first
	 * record, each next one while all before it are corrupt (it is then at
	 * the edge), and the last.
	 */
	if (!g->n)
		return 0;
	memset(g->bad, 0, g->n * sizeof(*g->bad));
	i = 0;
	judge(g, 0);
	while (g->bad[i] && i + 1 < g->n)
		judge(g, ++i);
	if (i + 1 < g->n)
		judge(g, g->n - 1);
	return 0;
}

int nsight_tscguard_walk_init(struct nsight_tscguard_walk *gw, struct nsight_tscguard *g,
			      const struct nsight_rec_walker *w, struct nsight_diag *d)
{
	gw->w = *w;
	gw->g = g;
	gw->i = 0;
	return nsight_tscguard_scan(g, w, d);
}
