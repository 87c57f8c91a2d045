// SPDX-License-Identifier: GPL-2.0
/*
 * Mark records from other kernel modules (nsight_mark.h).
 *
 * A mark may only touch the buffer while a capture runs. nsight_mark_allow()
 * opens the gate once the buffers are reset at start; at stop it closes it
 * before the probes are synchronized with synchronize_rcu() (inside
 * tracepoint_synchronize_unregister()), which also waits for every mark
 * that saw the gate open: each one runs inside rcu_read_lock().
 */
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/errno.h>
#include "buffer.h"
#include "profile.h"
#include "nsight_mark.h"
#include "mark.h"

static bool nsight_mark_open;

void nsight_mark_allow(bool on)
{
	WRITE_ONCE(nsight_mark_open, on);
}

int nsight_mark(u64 id, const void *data, u32 len)
{
	u64 buf[(sizeof(struct nsight_rec_mark) + NSIGHT_MARK_MAX_DATA) /
		sizeof(u64)];
	struct nsight_rec_mark *r = (struct nsight_rec_mark *)buf;
	int ret = 0;

	if (len > NSIGHT_MARK_MAX_DATA)
		return -EINVAL;
	nsight_rec_init(&r->hdr, NSIGHT_REC_MARK,
			sizeof(*r) + ALIGN(len, NSIGHT_REC_ALIGN));
	r->id = id;
	r->len = len;
	r->pad = 0;
	if (len) {
		memcpy(r->data, data, len);
		/* The padding to 8 bytes, so no stack contents leak. */
		memset(r->data + len, 0, ALIGN(len, NSIGHT_REC_ALIGN) - len);
	}

	rcu_read_lock();
	if (!READ_ONCE(nsight_mark_open)) {
		ret = -ENODEV;
	} else {
		/* The profile needs one CPU from enter to exit. */
		preempt_disable();
		nsight_prof_enter(NSIGHT_HOOK_MARK);
		if (!nsight_emit(&r->hdr))
			ret = -ENOSPC;
		nsight_prof_exit();
		preempt_enable();
	}
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(nsight_mark);
