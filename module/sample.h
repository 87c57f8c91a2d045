/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sampling source: function-level evidence where Intel PT is absent.
 */
#ifndef _NSIGHT_SAMPLE_H
#define _NSIGHT_SAMPLE_H

#include <linux/types.h>

int nsight_sample_attach(u32 sources, u32 period_ns);
void nsight_sample_detach(void);

#endif /* _NSIGHT_SAMPLE_H */
