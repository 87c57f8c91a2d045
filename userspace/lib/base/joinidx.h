/* SPDX-License-Identifier: MIT */
/*
 * Indexes for the analyzer's joins: growable vectors of 32-bit positions,
 * and chains that link, per 64-bit key (a packet id, a flow, a thread),
 * the positions of the elements with that key in the order they were
 * added, with a cursor per key for consumers that take them FIFO.
 */
#ifndef NSIGHT_JOINIDX_H
#define NSIGHT_JOINIDX_H

#include <stddef.h>
#include <stdint.h>

#include "base/u64map.h"

#define NSIGHT_IDX_NONE	UINT32_MAX

struct nsight_idx_vec {
	uint32_t *v;
	size_t n, cap;
};

/* Returns 0 or -1 when out of memory. */
int nsight_idx_push(struct nsight_idx_vec *x, uint32_t i);

struct nsight_chains {
	struct nsight_u64map map;	/* key -> group */
	uint32_t *head, *tail, *cursor;	/* per group */
	size_t n_groups, cap_groups;
	uint32_t *next;			/* per element, NSIGHT_IDX_NONE at the end */
};

/* For elements 0 .. @n_elements - 1. Returns 0 or -1 (out of memory). */
int nsight_chains_init(struct nsight_chains *c, size_t n_elements);
void nsight_chains_fini(struct nsight_chains *c);

/* Append element @e to the chain of @key; the cursor of a new chain is @e. */
int nsight_chains_add(struct nsight_chains *c, uint64_t key, uint32_t e);

/* The group of @key, NSIGHT_IDX_NONE if it has none. */
uint32_t nsight_chains_group(const struct nsight_chains *c, uint64_t key);

#endif /* NSIGHT_JOINIDX_H */
