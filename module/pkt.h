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
			   struct nsight_pkt_info *pi);
int nsight_pkt_parse_again(const struct sk_buff *skb, int nh_off,
			   struct nsight_pkt_info *pi, bool *recorded);
void nsight_pkt_recorded(const struct sk_buff *skb, int nh_off);
void nsight_pkt_forget(void);
void nsight_sock_flow(const struct sock *sk, struct nsight_flow *f);
u64 nsight_sock_id(struct sock *sk);

#endif /* _NSIGHT_PKT_H */
