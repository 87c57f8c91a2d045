/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Packet parsing and identity.
 */
#ifndef _NSIGHT_PKT_H
#define _NSIGHT_PKT_H

#include <linux/types.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <linux/if_ether.h>
#include <linux/string.h>
#include <linux/atomic.h>
#include <linux/in.h>
#include <net/sock.h>
#include <net/inet_sock.h>
#include <linux/nsight.h>

/**
 * struct nsight_pkt_info - what nsight reads from a TCP/UDP packet.
 * @flow:        addresses, ports, family, protocol (s = sender)
 * @seq:         TCP sequence number of the first payload byte
 * @payload_len: transport payload bytes
 * @id:          packet identity, see nsight_pkt_id()
 * @wire_hash:   the same identity unkeyed (jhash, seed 0): equal on both
 *               hosts a packet travels between
 */
struct nsight_pkt_info {
	struct nsight_flow flow;
	u32 seq;
	u32 payload_len;
	u64 id;
	u32 wire_hash;
};

/* Whether @skb carries IPv4 or IPv6, all that nsight parses. */
static __always_inline bool nsight_skb_ip(const struct sk_buff *skb)
{
	return skb->protocol == htons(ETH_P_IP) ||
	       skb->protocol == htons(ETH_P_IPV6);
}

/* 8 bytes at @p, wherever they are aligned (one load on x86). */
static __always_inline u64 nsight_load64(const u8 *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * The per-CPU memo of the packet parsed last (pkt.c), looked at inline by
 * the hooks' fast path. A parsed packet, and what tells it is still the
 * same one:
 */
struct nsight_pkt_seen {
	const struct sk_buff *skb;
	const u8 *nh;
	const u8 *th;
	u64 nh_word;
	u64 th_words[2];
	struct nsight_pkt_info pi;
};

struct nsight_pkt_memo {
	struct nsight_pkt_seen p;
	bool recorded;		/* its pkt record was written, with... */
	ktime_t tstamp;		/* ...this skb->tstamp */
};

DECLARE_PER_CPU(struct nsight_pkt_memo, nsight_pkt_memo);

/* Bytes read from the headers when the memo is checked. */
#define NSIGHT_MEMO_TH	16

static __always_inline bool nsight_memo_span(const struct sk_buff *skb,
					     const u8 *nh, const u8 *th)
{
	return nh >= skb->head && th > nh &&
	       th + NSIGHT_MEMO_TH <= skb_tail_pointer(skb);
}

/*
 * Whether @p is @skb with its IP header at @nh, its header words unchanged
 * (read from @skb's own buffer, within its bounds).
 */
static __always_inline bool nsight_seen_is(const struct nsight_pkt_seen *p,
					   const struct sk_buff *skb,
					   const u8 *nh)
{
	return p->skb == skb && p->nh == nh && nsight_memo_span(skb, nh, p->th) &&
	       nsight_load64(nh) == p->nh_word &&
	       nsight_load64(p->th) == p->th_words[0] &&
	       nsight_load64(p->th + 8) == p->th_words[1];
}

/*
 * Whether @m is @skb with its IP header at @nh, unchanged since: then
 * *@recorded tells whether its pkt record was written with the same
 * skb->tstamp. Interrupts off.
 */
static __always_inline bool nsight_memo_hit(const struct nsight_pkt_memo *m,
					    const struct sk_buff *skb,
					    const u8 *nh, bool *recorded)
{
	if (!nsight_seen_is(&m->p, skb, nh))
		return false;
	if (recorded)
		*recorded = m->recorded && m->tstamp == skb->tstamp;
	return true;
}

void nsight_pkt_init_key(void);
int nsight_pkt_parse(const struct sk_buff *skb, int nh_off,
		     struct nsight_pkt_info *pi);
int nsight_pkt_parse_first(const struct sk_buff *skb, int nh_off,
			   struct nsight_pkt_info *pi, bool *recorded, bool ref);
int nsight_pkt_parse_again(const struct sk_buff *skb, int nh_off,
			   struct nsight_pkt_info *pi, bool *recorded, bool ref);
void nsight_pkt_recorded(const struct sk_buff *skb, int nh_off);
u64 nsight_pkt_skb_id(const struct sk_buff *skb, int nh_off, bool hand);
int nsight_pkt_parse_handed(const struct sk_buff *skb, int nh_off,
			    struct nsight_pkt_info *pi, bool brief);
void nsight_pkt_forget(void);
void nsight_sock_flow(const struct sock *sk, struct nsight_flow *f);

/* Whether both addresses of @f are IPv4-mapped: it has a compact form. */
static __always_inline bool nsight_flow_v4(const struct nsight_flow *f)
{
	const __be32 *s = (const __be32 *)f->saddr, *d = (const __be32 *)f->daddr;

	return ((s[0] | s[1] | d[0] | d[1]) == 0) &
	       (s[2] == htonl(0xffff)) & (d[2] == htonl(0xffff));
}

/* The compact form of a flow nsight_flow_v4() accepts. */
static __always_inline void nsight_cflow4_fill(struct nsight_cflow4 *c,
					       const struct nsight_flow *f)
{
	c->saddr = ((const __be32 *)f->saddr)[3];
	c->daddr = ((const __be32 *)f->daddr)[3];
	c->sport = f->sport;
	c->dport = f->dport;
	c->family = f->family;
	c->protocol = f->protocol;
	c->pad = 0;
}

u64 nsight_sock_id_make(struct sock *sk);

/*
 * A socket's id, its cookie (nsight_sock_id_make()): once the kernel has
 * made it, it never changes, and it is read in place without a call.
 */
static __always_inline u64 nsight_sock_id(const struct sock *sk)
{
	u64 id = atomic64_read(&sk->sk_cookie);

	return likely(id) ? id : nsight_sock_id_make((struct sock *)sk);
}

/*
 * nsight_cflow4_fill() of nsight_sock_flow() for an AF_INET socket, read
 * in place: s is the local end, d the peer.
 */
static __always_inline void nsight_sock_cflow4(const struct sock *sk,
					       struct nsight_cflow4 *c)
{
	c->saddr = sk->sk_rcv_saddr;
	c->daddr = sk->sk_daddr;
	c->sport = ntohs(inet_sk(sk)->inet_sport);
	c->dport = ntohs(sk->sk_dport);
	c->family = AF_INET;
	c->protocol = sk->sk_protocol;
	c->pad = 0;
}

#endif /* _NSIGHT_PKT_H */
