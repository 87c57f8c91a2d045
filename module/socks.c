// SPDX-License-Identifier: GPL-2.0
/* Socket flows once per CPU (socks.h). */
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/percpu.h>
#include "socks.h"
#include "buffer.h"

struct nsight_socks __percpu *nsight_socks;

int nsight_socks_init(void)
{
	nsight_socks = alloc_percpu(struct nsight_socks);
	return nsight_socks ? 0 : -ENOMEM;
}

/* At unload, every probe detached and synchronized. */
void nsight_socks_exit(void)
{
	free_percpu(nsight_socks);
	nsight_socks = NULL;
}

/* Forget what every CPU gave: a capture starts. No hook may run. */
void nsight_socks_reset(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(nsight_socks, cpu), 0, sizeof(struct nsight_socks));
}

/*
 * The sock record of @sock_id, then the older way of @set remembers it; a
 * dropped record leaves the memo as it was.
 */
noinline bool nsight_sock_write(u64 sock_id, u32 set, const u64 flow[2])
{
	struct nsight_socks *n = this_cpu_ptr(nsight_socks);
	struct nsight_crec_sock4 *r;
	struct nsight_sock_slot *s;
	struct nsight_wr w;

	r = (void *)__nsight_creserve(&nsight_buf, &w, NSIGHT_CREC_SOCK4,
				      sizeof(*r));
	if (!r)
		return false;
	r->sock_id = sock_id;
	memcpy(&r->flow, flow, sizeof(r->flow));
	nsight_commit(&w);
	s = &n->slot[set][n->older[set]];
	n->older[set] ^= 1;
	s->sock_id = sock_id;
	s->flow[0] = flow[0];
	s->flow[1] = flow[1];
	return true;
}
