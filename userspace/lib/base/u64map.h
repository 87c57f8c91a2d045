/* SPDX-License-Identifier: MIT */
/*
 * A map from 64-bit keys to 32-bit values (open addressing, linear
 * probing), for the analyzer's joins on packet, socket and thread ids.
 * Any key is allowed, 0 and UINT64_MAX included.
 */
#ifndef NSIGHT_U64MAP_H
#define NSIGHT_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * FNV-1a over @len bytes at @p, continued from @h (NSIGHT_FNV_SEED to
 * start): a 64-bit key for a map from strings and small records.
 */
#define NSIGHT_FNV_SEED	0xcbf29ce484222325ULL

static inline uint64_t nsight_fnv1a(uint64_t h, const void *p, size_t len)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < len; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

struct nsight_u64map_slot {
	uint64_t key;
	uint32_t val;
	uint32_t used;
};

struct nsight_u64map {
	struct nsight_u64map_slot *slots;
	size_t cap;		/* a power of two, or 0 */
	size_t n;
};

void nsight_u64map_init(struct nsight_u64map *m);
void nsight_u64map_fini(struct nsight_u64map *m);

/* Pointer to the value of @key, NULL if absent. */
uint32_t *nsight_u64map_get(const struct nsight_u64map *m, uint64_t key);

/*
 * Insert @key with value @val unless present. Returns the value's slot (the
 * existing one when present; *@added tells which), NULL if out of memory.
 */
uint32_t *nsight_u64map_put(struct nsight_u64map *m, uint64_t key, uint32_t val, bool *added);

#endif /* NSIGHT_U64MAP_H */
