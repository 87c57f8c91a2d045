/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Network records: packets at each stage, and the kernel-to-application
 * hand-off.
 */
#ifndef _NSIGHT_NET_HOOKS_H
#define _NSIGHT_NET_HOOKS_H

#include <linux/types.h>

struct sk_buff;
struct nsight_rec_pkt;

int nsight_net_init(void);
int nsight_net_attach(u32 sources);
void nsight_net_detach(void);
int nsight_pkt_record(struct nsight_rec_pkt *r, const struct sk_buff *skb,
		      int nh_off, u8 stage);

#endif /* _NSIGHT_NET_HOOKS_H */
