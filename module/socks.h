/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Socket flows once per CPU: before a record that gives a socket by its id
 * alone, its CPU's buffer holds a sock record with the socket's flow (uapi
 * "Socket flows"). A per-CPU memo says which flow this CPU's buffer gave
 * each socket last: NSIGHT_SOCK_SLOTS entries in sets of two ways, a set
 * per hash of the socket's id. A hit costs a multiply and three compares;
 * a socket not in the memo gets a 32-byte sock record over the way written
 * longer ago. The memo is allocated at load, as the names' (names.h).
 */
#ifndef _NSIGHT_SOCKS_H
#define _NSIGHT_SOCKS_H

#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/nsight.h>

struct nsight_sock_slot {
	u64 sock_id;
	u64 flow[2];		/* struct nsight_cflow4 */
};

#define NSIGHT_SOCK_SLOTS	256
#define NSIGHT_SOCK_SET_BITS	(ilog2(NSIGHT_SOCK_SLOTS) - 1)

struct nsight_socks {
	struct nsight_sock_slot slot[NSIGHT_SOCK_SLOTS / 2][2];
	u8 older[NSIGHT_SOCK_SLOTS / 2];	/* the way to write next */
};

extern struct nsight_socks __percpu *nsight_socks;

int nsight_socks_init(void);
void nsight_socks_exit(void);
void nsight_socks_reset(void);
bool nsight_sock_write(u64 sock_id, u32 set, const u64 flow[2]);

/*
 * nsight_sock_named - whether the record the caller reserves next may give
 * socket @sock_id without its flow @f: the last sock record of the socket
 * in this CPU's buffer has @f. A socket the memo lacks gets its sock
 * record now (false if it was dropped); one the memo has with another flow
 * (a datagram socket sending to another peer) keeps its flow in the record
 * and the memo as it was. Preemption off, as for nsight_name().
 */
static __always_inline bool nsight_sock_named(u64 sock_id,
					      const struct nsight_cflow4 *f)
{
	u32 set = hash_64(sock_id, NSIGHT_SOCK_SET_BITS);
	struct nsight_sock_slot *s;
	u64 flow[2];

	BUILD_BUG_ON(sizeof(*f) != sizeof(flow));
	memcpy(flow, f, sizeof(flow));
	s = this_cpu_ptr(nsight_socks)->slot[set];
	if (s[0].sock_id == sock_id)
		return s[0].flow[0] == flow[0] && s[0].flow[1] == flow[1];
	if (s[1].sock_id == sock_id)
		return s[1].flow[0] == flow[0] && s[1].flow[1] == flow[1];
	return nsight_sock_write(sock_id, set, flow);
}

#endif /* _NSIGHT_SOCKS_H */
