// SPDX-License-Identifier: MIT
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/joinidx.h"

int nsight_idx_push(struct nsight_idx_vec *x, uint32_t i)
{
	if (x->n == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 8;
		uint32_t *p = realloc(x->v, cap * sizeof(*p));

		if (!p)
			return -1;
		x->v = p;
		x->cap = cap;
	}
	x->v[x->n++] = i;
	return 0;
}

int nsight_chains_init(struct nsight_chains *c, size_t n_elements)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	nsight_u64map_init(&c->map);
	c->next = malloc((n_elements ? n_elements : 1) * sizeof(*c->next));
	if (!c->next)
		return -1;
	for (i = 0; i < n_elements; i++)
		c->next[i] = NSIGHT_IDX_NONE;
	return 0;
}

void nsight_chains_fini(struct nsight_chains *c)
{
	nsight_u64map_fini(&c->map);
	free(c->head);
	free(c->tail);
	free(c->cursor);
	free(c->next);
	memset(c, 0, sizeof(*c));
}

static int grow(uint32_t **p, size_t cap)
{
	uint32_t *n = realloc(*p, cap * sizeof(*n));

	if (!n)
		return -1;
	*p = n;
	return 0;
}

int nsight_chains_add(struct nsight_chains *c, uint64_t key, uint32_t e)
{
	bool added;
	uint32_t *g = nsight_u64map_put(&c->map, key, (uint32_t)c->n_groups, &added);

	if (!g)
		return -1;
	if (!added) {
		c->next[c->tail[*g]] = e;
		c->tail[*g] = e;
		return 0;
	}
	if (c->n_groups == c->cap_groups) {
		size_t cap = c->cap_groups ? c->cap_groups * 2 : 64;

		if (grow(&c->head, cap) || grow(&c->tail, cap) || grow(&c->cursor, cap))
			return -1;
		c->cap_groups = cap;
	}
	c->head[*g] = c->tail[*g] = c->cursor[*g] = e;
	c->n_groups++;
	return 0;
}

uint32_t nsight_chains_group(const struct nsight_chains *c, uint64_t key)
{
	uint32_t *g = nsight_u64map_get(&c->map, key);

	return g ? *g : NSIGHT_IDX_NONE;
}
