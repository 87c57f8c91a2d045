// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/keys.h"

static const char *const kind_names[__NSIGHT_KEY_KINDS] = {
	[NSIGHT_KEY_UNKNOWN]	= "unknown",
	[NSIGHT_KEY_APP]	= "app",
	[NSIGHT_KEY_HOL]	= "hol",
	[NSIGHT_KEY_TASK]	= "task",
	[NSIGHT_KEY_IRQ]	= "irq",
	[NSIGHT_KEY_SOFTIRQ]	= "softirq",
	[NSIGHT_KEY_FAULT]	= "fault",
	[NSIGHT_KEY_WORK]	= "work",
	[NSIGHT_KEY_IDLE]	= "idle",
	[NSIGHT_KEY_FUNC]	= "func",
	[NSIGHT_KEY_BLOCKED]	= "blocked",
	[NSIGHT_KEY_TCP]	= "tcp",
	[NSIGHT_KEY_NIC]	= "nic",
};

const char *nsight_key_kind_name(enum nsight_key_kind kind)
{
	return (unsigned int)kind < __NSIGHT_KEY_KINDS ? kind_names[kind] : "?";
}

int nsight_key_kind_parse(const char *s)
{
	int i;

	for (i = 0; i < __NSIGHT_KEY_KINDS; i++)
		if (!strcmp(s, kind_names[i]))
			return i;
	return -1;
}

const char *nsight_softirq_name(uint32_t vec, char *buf, size_t len)
{
	static const char *const names[] = {
		"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
		"SCHED", "HRTIMER", "RCU",
	};

	if (vec < sizeof(names) / sizeof(names[0]))
		return names[vec];
	snprintf(buf, len, "vec%u", vec);
	return buf;
}

/* FNV-1a over the kind and the name. */
static uint64_t key_hash(enum nsight_key_kind kind, const char *name, size_t len)
{
	return nsight_fnv1a(NSIGHT_FNV_SEED ^ (uint64_t)kind, name, len);
}

static size_t name_len(const char *name, size_t len)
{
	size_t n = name ? strnlen(name, len) : 0;

	return n > NSIGHT_KEY_NAME_MAX ? NSIGHT_KEY_NAME_MAX : n;
}

static uint32_t lookup(const struct nsight_keys *k, enum nsight_key_kind kind, const char *name,
		       size_t n, uint64_t h)
{
	uint32_t *first = nsight_u64map_get(&k->by_hash, h);
	uint32_t id;

	for (id = first ? *first : NSIGHT_KEY_NONE; id != NSIGHT_KEY_NONE; id = k->v[id].next)
		if (k->v[id].kind == kind && strlen(k->v[id].name) == n &&
		    !memcmp(k->v[id].name, name, n))
			return id;
	return NSIGHT_KEY_NONE;
}

uint32_t nsight_keys_intern(struct nsight_keys *k, enum nsight_key_kind kind,
			    const char *name, size_t len)
{
	size_t n = name_len(name, len);
	uint64_t h = key_hash(kind, name, n);
	uint32_t id = lookup(k, kind, name, n, h), *slot;
	struct nsight_key *key;
	bool added;

	if (id != NSIGHT_KEY_NONE)
		return id;
	if (k->n >= NSIGHT_KEY_NONE - 1)
		return NSIGHT_KEY_NONE;
	if (k->n == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 64;
		struct nsight_key *v = realloc(k->v, cap * sizeof(*v));

		if (!v)
			return NSIGHT_KEY_NONE;
		k->v = v;
		k->cap = cap;
	}
	key = &k->v[k->n];
	key->name = malloc(n + 1);
	if (!key->name)
		return NSIGHT_KEY_NONE;
	if (n)
		memcpy(key->name, name, n);
	key->name[n] = '\0';
	key->kind = (uint8_t)kind;
	key->idle = NSIGHT_KEY_NONE;
	key->app = NSIGHT_KEY_NONE;
	slot = nsight_u64map_put(&k->by_hash, h, (uint32_t)k->n, &added);
	if (!slot) {
		free(key->name);
		return NSIGHT_KEY_NONE;
	}
	/* New keys go first in their hash chain. */
	key->next = added ? NSIGHT_KEY_NONE : *slot;
	*slot = (uint32_t)k->n;
	return (uint32_t)k->n++;
}

uint32_t nsight_keys_find(const struct nsight_keys *k, enum nsight_key_kind kind,
			  const char *name)
{
	size_t n = name_len(name, NSIGHT_KEY_NAME_MAX + 1);

	return lookup(k, kind, name, n, key_hash(kind, name, n));
}

const char *nsight_key_format(const struct nsight_keys *k, uint32_t id, char *buf, size_t len)
{
	enum nsight_key_kind kind = nsight_key_kind(k, id);

	if (kind == NSIGHT_KEY_UNKNOWN || kind == NSIGHT_KEY_APP || kind == NSIGHT_KEY_HOL)
		snprintf(buf, len, "%s", kind_names[kind]);
	else
		snprintf(buf, len, "%s:%s", kind_names[kind], nsight_key_name(k, id));
	return buf;
}

uint32_t nsight_keys_idle_after(struct nsight_keys *k, uint32_t key)
{
	char name[NSIGHT_KEY_NAME_MAX + 16];
	uint32_t id;

	if (key >= k->n)
		key = NSIGHT_KEY_ID_UNKNOWN;
	if (k->v[key].idle != NSIGHT_KEY_NONE)
		return k->v[key].idle;
	nsight_key_format(k, key, name, sizeof(name));
	id = nsight_keys_intern(k, NSIGHT_KEY_IDLE, name, sizeof(name));
	if (id != NSIGHT_KEY_NONE)
		k->v[key].idle = id;	/* after intern: it may move k->v */
	return id;
}

uint32_t nsight_keys_func_in_app(struct nsight_keys *k, uint32_t key)
{
	char name[NSIGHT_KEY_NAME_MAX + 1];
	const char *sep, *p;
	uint32_t id;
	int n;

	if (key >= k->n || k->v[key].kind != NSIGHT_KEY_FUNC)
		return NSIGHT_KEY_NONE;
	if (k->v[key].app != NSIGHT_KEY_NONE)
		return k->v[key].app;
	if (strncmp(k->v[key].name, "task:", 5))
		return NSIGHT_KEY_NONE;
	/* The last separator, as categories.c splits. */
	for (sep = NULL, p = strstr(k->v[key].name, " > "); p; p = strstr(p + 1, " > "))
		sep = p;
	if (!sep)
		return NSIGHT_KEY_NONE;
	n = snprintf(name, sizeof(name), "app%s", sep);
	id = nsight_keys_intern(k, NSIGHT_KEY_FUNC, name, n > 0 ? (size_t)n : 0);
	if (id != NSIGHT_KEY_NONE)
		k->v[key].app = id;	/* after intern: it may move k->v */
	return id;
}

int nsight_keys_init(struct nsight_keys *k)
{
	memset(k, 0, sizeof(*k));
	nsight_u64map_init(&k->by_hash);
	if (nsight_keys_intern(k, NSIGHT_KEY_UNKNOWN, "", 0) != NSIGHT_KEY_ID_UNKNOWN ||
	    nsight_keys_intern(k, NSIGHT_KEY_APP, "", 0) != NSIGHT_KEY_ID_APP ||
	    nsight_keys_intern(k, NSIGHT_KEY_HOL, "", 0) != NSIGHT_KEY_ID_HOL)
		return -1;
	return 0;
}

void nsight_keys_fini(struct nsight_keys *k)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		free(k->v[i].name);
	free(k->v);
	nsight_u64map_fini(&k->by_hash);
	memset(k, 0, sizeof(*k));
}
