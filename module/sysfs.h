/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /sys/kernel/nsight/
 */
#ifndef _NSIGHT_SYSFS_H
#define _NSIGHT_SYSFS_H

int nsight_sysfs_init(void);
void nsight_sysfs_exit(void);

#endif /* _NSIGHT_SYSFS_H */
