// SPDX-License-Identifier: MIT
#include <stdlib.h>

#include "base/u64map.h"

void nsight_u64map_init(struct nsight_u64map *m)
{
	m->slots = NULL;
	m->cap = 0;
	m->n = 0;
}

void nsight_u64map_fini(struct nsight_u64map *m)
{
	free(m->slots);
	nsight_u64map_init(m);
}

/* splitmix64's finalizer: ids may be hashes already, counters are not. */
static size_t hash(uint64_t k)
{
	k ^= k >> 30;
	k *= 0xbf58476d1ce4e5b9ULL;
	k ^= k >> 27;
	k *= 0x94d049bb133111ebULL;
	k ^= k >> 31;
	return (size_t)k;
}

static struct nsight_u64map_slot *find(struct nsight_u64map_slot *slots, size_t cap,
				       uint64_t key)
{
	size_t i = hash(key) & (cap - 1);

	while (slots[i].used && slots[i].key != key)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

uint32_t *nsight_u64map_get(const struct nsight_u64map *m, uint64_t key)
{
	struct nsight_u64map_slot *s;

	if (!m->cap)
		return NULL;
	s = find(m->slots, m->cap, key);
	return s->used ? &s->val : NULL;
}

static int grow(struct nsight_u64map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64, i;
	struct nsight_u64map_slot *slots;

	if (cap > SIZE_MAX / sizeof(*slots))
		return -1;
	slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -1;
	for (i = 0; i < m->cap; i++)
		if (m->slots[i].used)
			*find(slots, cap, m->slots[i].key) = m->slots[i];
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

uint32_t *nsight_u64map_put(struct nsight_u64map *m, uint64_t key, uint32_t val, bool *added)
{
	struct nsight_u64map_slot *s;

	/* Keep the load under 1/2 so probes stay short. */
	if ((m->n + 1) * 2 > m->cap && grow(m))
		return NULL;
	s = find(m->slots, m->cap, key);
	*added = !s->used;
	if (!s->used) {
		s->used = 1;
		s->key = key;
		s->val = val;
		m->n++;
	}
	return &s->val;
}
