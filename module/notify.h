/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "Buffer full" notifications, deferred out of probe context.
 */
#ifndef _NSIGHT_NOTIFY_H
#define _NSIGHT_NOTIFY_H

void nsight_notify_full(unsigned int cpu);
void nsight_notify_sync(void);

#endif /* _NSIGHT_NOTIFY_H */
