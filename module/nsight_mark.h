/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nsight's in-kernel interface: other modules write NSIGHT_REC_MARK
 * records into the running capture. Build against nsight's Module.symvers
 * (KBUILD_EXTRA_SYMBOLS) to link to it.
 */
#ifndef _NSIGHT_MARK_H
#define _NSIGHT_MARK_H

#include <linux/types.h>

/**
 * nsight_mark - write a mark record into this CPU's capture buffer.
 * @id:   the caller's identifier, stored in the record
 * @data: @len bytes copied into the record (may be NULL if @len is 0)
 * @len:  at most NSIGHT_MARK_MAX_DATA
 *
 * Callable from any context but NMI, with or without preemption; the
 * record is reserved, stamped and copied with interrupts off.
 *
 * Returns 0 if the record was written, -ENOSPC if the buffer was full (the
 * record is counted as dropped, like every hook's), -ENODEV if no capture
 * runs (nothing is counted) and -EINVAL if @len is too large.
 */
int nsight_mark(u64 id, const void *data, u32 len);

#endif /* _NSIGHT_MARK_H */
