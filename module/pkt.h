/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Packet parsing and identity.
 */
#ifndef _NSIGHT_PKT_H
#define _NSIGHT_PKT_H

#include <linux/types.h>
#include <linux/nsight.h>

struct sk_buff;
struct sock;

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

void nsight_pkt_init_key(void);
int nsight_pkt_parse(const struct sk_buff *skb, int nh_off,
		     struct nsight_pkt_info *pi);
int nsight_pkt_parse_first(const struct sk_buff *skb, int nh_off,
			   struct nsight_pkt_info *pi, bool *recorded);
int nsight_pkt_parse_again(const struct sk_buff *skb, int nh_off,
			   struct nsight_pkt_info *pi, bool *recorded);
void nsight_pkt_recorded(const struct sk_buff *skb, int nh_off);
void nsight_pkt_hand_over(const struct sk_buff *skb, int nh_off);
int nsight_pkt_parse_handed(const struct sk_buff *skb, int nh_off,
			    struct nsight_pkt_info *pi);
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

u64 nsight_sock_id(struct sock *sk);

#endif /* _NSIGHT_PKT_H */
