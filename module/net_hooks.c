// SPDX-License-Identifier: GPL-2.0
/*
 * Network message records.
 *
 * The hand-off: sock_def_readable() runs when data became readable on a
 * socket and wakes its waiters; on the receive path this is where a message
 * crosses from the core that processed the packet to the application. It is
 * static in net/core/sock.c (reached through sk->sk_data_ready), so nsight
 * puts a kprobe on its entry.
 */
#include <linux/kprobes.h>
#include <linux/siphash.h>
#include <linux/random.h>
#include <linux/string.h>
#include <net/sock.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include "net_hooks.h"
#include "buffer.h"
#include "compat.h"

/* Identities in records are keyed hashes, never kernel pointers. */
static siphash_key_t nsight_id_key;

u64 nsight_sock_id(const struct sock *sk)
{
	return siphash_1u64((u64)(unsigned long)sk, &nsight_id_key);
}

static void nsight_addr_v4mapped(u8 *dst, __be32 addr)
{
	struct in6_addr a;

	ipv6_addr_set_v4mapped(addr, &a);
	memcpy(dst, &a, sizeof(a));
}

static void nsight_handoff_fill(struct nsight_rec_handoff *r,
				const struct sock *sk)
{
	r->sock_id = nsight_sock_id(sk);
	r->family = sk->sk_family;
	r->protocol = sk->sk_protocol;
	r->pad0 = 0;
	r->local_port = ntohs(inet_sk(sk)->inet_sport);
	r->remote_port = ntohs(sk->sk_dport);
	r->rcvq_bytes = sk_rmem_alloc_get(sk);
	r->rcvq_len = skb_queue_len_lockless(&sk->sk_receive_queue);
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6) {
		memcpy(r->local_addr, &sk->sk_v6_rcv_saddr, 16);
		memcpy(r->remote_addr, &sk->sk_v6_daddr, 16);
		return;
	}
#endif
	nsight_addr_v4mapped(r->local_addr, sk->sk_rcv_saddr);
	nsight_addr_v4mapped(r->remote_addr, sk->sk_daddr);
}

static int nsight_handoff_pre(struct kprobe *p, struct pt_regs *regs)
{
	const struct sock *sk = (const struct sock *)nsight_kprobe_arg0(regs);
	struct nsight_rec_handoff r;
	u64 now = nsight_clock();

	/* Unix and netlink sockets use sock_def_readable() too. */
	if (sk->sk_family != AF_INET && sk->sk_family != AF_INET6)
		return 0;

	nsight_rec_init(&r.hdr, NSIGHT_REC_HANDOFF, sizeof(r), now);
	nsight_handoff_fill(&r, sk);
	nsight_emit(&r.hdr);
	return 0;
}

static struct kprobe nsight_handoff_kp;

void nsight_net_init(void)
{
	get_random_bytes(&nsight_id_key, sizeof(nsight_id_key));
}

int nsight_net_attach(u32 sources)
{
	int ret;

	if (!(sources & BIT(NSIGHT_SRC_HANDOFF)))
		return 0;
	/* A kprobe cannot be registered twice without being cleared. */
	memset(&nsight_handoff_kp, 0, sizeof(nsight_handoff_kp));
	nsight_handoff_kp.symbol_name = "sock_def_readable";
	nsight_handoff_kp.pre_handler = nsight_handoff_pre;
	ret = register_kprobe(&nsight_handoff_kp);
	if (ret) {
		pr_err("cannot probe sock_def_readable: %d\n", ret);
		nsight_handoff_kp.symbol_name = NULL;
		return ret;
	}
	return 0;
}

/* Detach; returns after every running handler has finished. */
void nsight_net_detach(void)
{
	if (!nsight_handoff_kp.symbol_name)
		return;
	unregister_kprobe(&nsight_handoff_kp);
	nsight_handoff_kp.symbol_name = NULL;
}
