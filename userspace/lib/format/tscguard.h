/* SPDX-License-Identifier: MIT */
/*
 * Records whose TSC cannot be right: one far out of the order of its CPU's
 * neighbours in the same RECORDS chunk (a corrupt stamp). A CPU's records
 * come in TSC order but for small steps back (a stamp taken before the
 * record was reserved), so a record more than a second (of TSC ticks)
 * later than most of the records that follow it, or earlier than most of
 * those before it, is corrupt; so is the first or last record of a chunk
 * more than a day from the records on its one side. Left in, one such
 * stamp makes the capture's span absurd and every later record of its CPU
 * "out of order". Decided per chunk, from the chunk alone, so that a
 * chunk read again (window.h) gets the same answer.
 */
#ifndef NSIGHT_TSCGUARD_H
#define NSIGHT_TSCGUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "format/records.h"

/* Neighbours looked at on each side of a record. */
#define NSIGHT_TSCGUARD_NEAR	3

struct nsight_tscguard {
	uint64_t tol;		/* ticks out of order that a record may be */
	uint64_t edge_tol;	/* ticks a chunk's first or last record may be from its side */
	uint64_t *tsc;		/* the chunk's records' TSCs */
	bool *bad;		/* which of them are corrupt */
	size_t n, cap;
	size_t n_bad;		/* in the chunk scanned last */
};

/*
 * For stamps counting at @tsc_hz (0: unknown, taken as 1 GHz). Holds no
 * memory until the first scan; nsight_tscguard_fini() either way.
 */
void nsight_tscguard_init(struct nsight_tscguard *g, uint64_t tsc_hz);
void nsight_tscguard_fini(struct nsight_tscguard *g);

/*
 * Look at the records a walker @w just set up on a chunk (RECORDS or
 * CRECORDS; @w is not advanced) will yield: afterwards
 * nsight_tscguard_bad(g, i) tells whether its i-th record (from 0) is
 * corrupt. The scan reads only the headers' size and TSC and stops where
 * the framing fails (a compact record that does not decode); a record the
 * caller's own walk refuses ends that walk with an error, so what follows
 * it never counts. Returns 0 or -NSIGHT_E_NOMEM.
 */
int nsight_tscguard_scan(struct nsight_tscguard *g, const struct nsight_rec_walker *w,
			 struct nsight_diag *d);

static inline bool nsight_tscguard_bad(const struct nsight_tscguard *g, size_t i)
{
	return g->n_bad && i < g->n && g->bad[i];
}

/*
 * A chunk's records with the guard's verdicts, for the walks that read
 * them (the stream's summary, --window, the context thread): the scan,
 * then each record and whether it is corrupt, counted in one place.
 */
struct nsight_tscguard_walk {
	struct nsight_rec_walker w;
	const struct nsight_tscguard *g;
	size_t i;
};

/* Scan the records @w (just set up on a chunk) yields with @g, and start walking them. */
int nsight_tscguard_walk_init(struct nsight_tscguard_walk *gw, struct nsight_tscguard *g,
			      const struct nsight_rec_walker *w, struct nsight_diag *d);

/* nsight_rec_walker_next(), and in *@bad whether the record is corrupt. */
static inline int nsight_tscguard_walk_next(struct nsight_tscguard_walk *gw, struct nsight_rec *rec,
					    bool *bad, struct nsight_diag *d)
{
	int ret = nsight_rec_walker_next(&gw->w, rec, d);

	if (ret > 0)
		*bad = nsight_tscguard_bad(gw->g, gw->i++);
	return ret;
}

/* The next record that is not corrupt (the walker's return). */
static inline int nsight_tscguard_walk_good(struct nsight_tscguard_walk *gw, struct nsight_rec *rec,
					    struct nsight_diag *d)
{
	bool bad;
	int ret;

	while ((ret = nsight_tscguard_walk_next(gw, rec, &bad, d)) > 0 && bad)
		;
	return ret;
}

#endif /* NSIGHT_TSCGUARD_H */
