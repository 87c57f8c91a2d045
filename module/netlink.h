/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The "nsight" generic netlink family.
 */
#ifndef _NSIGHT_NETLINK_H
#define _NSIGHT_NETLINK_H

int nsight_netlink_init(void);
void nsight_netlink_exit(void);
void nsight_nl_notify_full(unsigned int cpu);

#endif /* _NSIGHT_NETLINK_H */
