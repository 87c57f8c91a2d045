/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Application records: receives and sends on IPv4/IPv6 sockets.
 */
#ifndef _NSIGHT_APP_HOOKS_H
#define _NSIGHT_APP_HOOKS_H

#include <linux/types.h>

int nsight_app_init(void);
int nsight_app_attach(u32 sources);
void nsight_app_detach(void);
u64 nsight_app_missed(void);

#endif /* _NSIGHT_APP_HOOKS_H */
