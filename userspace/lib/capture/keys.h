/* SPDX-License-Identifier: MIT */
/*
 * Context keys: the names the diagnosis attributes time to, interned into
 * small integer ids so that profiles and reference statistics index arrays
 * instead of comparing strings. A key is a kind and a name:
 *
 *   task:<comm>      a task (not the message's own application thread)
 *   app, hol         the message's application thread receiving it, or
 *                    processing other messages first (head-of-line)
 *   irq:<name>       a hard interrupt handler
 *   softirq:<VEC>    a softirq vector (NET_RX, TIMER, ...)
 *   fault:user|kernel  a page fault
 *   work:<func>      a workqueue function
 *   idle:<key>       the CPU idle, after the activity <key> ran last
 *   func:<key> > <symbol>  a kernel function running in the context <key>
 *                    (from samples)
 *   unknown          no records cover the time
 *   blocked:<comm>   the message's thread asleep until task <comm> woke it
 *                    (capture/threads.h)
 *
 * One table can serve several captures (a baseline and the capture
 * diagnosed) so that their ids agree.
 */
#ifndef NSIGHT_KEYS_H
#define NSIGHT_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/u64map.h"

enum nsight_key_kind {
	NSIGHT_KEY_UNKNOWN,
	NSIGHT_KEY_APP,
	NSIGHT_KEY_HOL,
	NSIGHT_KEY_TASK,
	NSIGHT_KEY_IRQ,
	NSIGHT_KEY_SOFTIRQ,
	NSIGHT_KEY_FAULT,
	NSIGHT_KEY_WORK,
	NSIGHT_KEY_IDLE,
	NSIGHT_KEY_FUNC,
	NSIGHT_KEY_BLOCKED,
	NSIGHT_KEY_TCP,		/* a TCP send's bytes held in the send queue,
				 * named by enum nsight_tcp_hold
				 */
	NSIGHT_KEY_NIC,		/* a received packet in the NIC: from its
				 * hardware stamp to its first record
				 * (enum nsight_nic_stretch)
				 */
	__NSIGHT_KEY_KINDS
};

/* Ids every table starts with. */
#define NSIGHT_KEY_ID_UNKNOWN	0U
#define NSIGHT_KEY_ID_APP	1U
#define NSIGHT_KEY_ID_HOL	2U
#define NSIGHT_KEY_NONE		UINT32_MAX

/* Longest name kept (a work function symbol is 40 bytes; idle names nest). */
#define NSIGHT_KEY_NAME_MAX	160

struct nsight_key {
	char *name;		/* NUL-terminated, "" for app, hol, unknown */
	uint8_t kind;		/* enum nsight_key_kind */
	uint32_t next;		/* next key with the same hash, NSIGHT_KEY_NONE */
	uint32_t idle;		/* the key "idle:<this key>", once made */
	uint32_t app;		/* a function in a task: the key "func:app > <symbol>"
				 * it is in that task's own messages, once made */
};

struct nsight_keys {
	struct nsight_key *v;
	size_t n, cap;
	struct nsight_u64map by_hash;	/* hash -> first key */
};

/* Returns 0 or -1 (out of memory); nsight_keys_fini() either way. */
int nsight_keys_init(struct nsight_keys *k);
void nsight_keys_fini(struct nsight_keys *k);

/*
 * The id of (@kind, @name), made if new. @name is @len bytes at most, cut
 * at a NUL; bytes beyond NSIGHT_KEY_NAME_MAX are dropped. Returns
 * NSIGHT_KEY_NONE when out of memory.
 */
uint32_t nsight_keys_intern(struct nsight_keys *k, enum nsight_key_kind kind,
			    const char *name, size_t len);

/* The key "idle:<full name of @key>", NSIGHT_KEY_NONE when out of memory. */
uint32_t nsight_keys_idle_after(struct nsight_keys *k, uint32_t key);

/*
 * For a function key "task:<comm> > <symbol>", make and remember the key
 * "app > <symbol>" it becomes in the messages of that very thread (see
 * nsight_key.app). Returns it, or NSIGHT_KEY_NONE (not such a key, or out
 * of memory).
 */
uint32_t nsight_keys_func_in_app(struct nsight_keys *k, uint32_t key);

/* The id of (@kind, @name) if it exists, else NSIGHT_KEY_NONE. */
uint32_t nsight_keys_find(const struct nsight_keys *k, enum nsight_key_kind kind,
			  const char *name);

static inline enum nsight_key_kind nsight_key_kind(const struct nsight_keys *k, uint32_t id)
{
	return id < k->n ? (enum nsight_key_kind)k->v[id].kind : NSIGHT_KEY_UNKNOWN;
}

static inline const char *nsight_key_name(const struct nsight_keys *k, uint32_t id)
{
	return id < k->n ? k->v[id].name : "";
}

/* "task:stress", "app", "idle:irq:eth0" into @buf. */
const char *nsight_key_format(const struct nsight_keys *k, uint32_t id, char *buf, size_t len);

/* "task", "irq", ...; and back (-1 if none). */
const char *nsight_key_kind_name(enum nsight_key_kind kind);
int nsight_key_kind_parse(const char *s);

/* Softirq vector names as the kernel's softirq_to_name; "vec<N>" beyond. */
const char *nsight_softirq_name(uint32_t vec, char *buf, size_t len);

#endif /* NSIGHT_KEYS_H */
