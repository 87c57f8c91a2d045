/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Network message records: the kernel-to-application hand-off.
 */
#ifndef _NSIGHT_NET_HOOKS_H
#define _NSIGHT_NET_HOOKS_H

#include <linux/types.h>

struct sock;

void nsight_net_init(void);
int nsight_net_attach(u32 sources);
void nsight_net_detach(void);
u64 nsight_sock_id(const struct sock *sk);

#endif /* _NSIGHT_NET_HOOKS_H */
