/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Mark records: the gate the capture control opens and closes.
 */
#ifndef _NSIGHT_MARK_INT_H
#define _NSIGHT_MARK_INT_H

#include <linux/types.h>

/*
 * Let nsight_mark() write (a capture runs) or not. Closing takes effect
 * for every writer after the next synchronize_rcu().
 */
void nsight_mark_allow(bool on);

#endif /* _NSIGHT_MARK_INT_H */
