/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Clock records: what converts record timestamps into system time.
 */
#ifndef _NSIGHT_CLOCK_H
#define _NSIGHT_CLOCK_H

#include <linux/types.h>

struct timekeeper;
struct nsight_rec_timekeeper;

int nsight_clock_attach(u32 sources);
void nsight_clock_detach(void);
void nsight_clock_sync_record(void);
void nsight_timekeeper_fill(struct nsight_rec_timekeeper *r,
			    const struct timekeeper *tk, bool was_set);

#endif /* _NSIGHT_CLOCK_H */
