/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Request marks from applications: the /dev/nsight misc device.
 */
#ifndef _NSIGHT_REQUEST_H
#define _NSIGHT_REQUEST_H

#include <linux/types.h>

int nsight_request_init(void);
void nsight_request_exit(void);

/*
 * Let NSIGHT_IOC_REQUEST write (a capture with the "request" source runs)
 * or not. Closing takes effect for every writer after the next
 * synchronize_rcu().
 */
void nsight_request_allow(bool on);

#endif /* _NSIGHT_REQUEST_H */
