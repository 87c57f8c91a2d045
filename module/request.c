// SPDX-License-Identifier: GPL-2.0
/*
 * Request marks from applications (uapi nsight.h "Request marks"): an
 * ioctl on /dev/nsight writes an NSIGHT_REC_REQUEST record for the calling
 * thread. The gate works as the in-kernel marks' does (mark.c): opened once
 * the buffers are reset at start, closed at stop before the
 * synchronize_rcu() that waits for every writer which saw it open.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include "buffer.h"
#include "profile.h"
#include "request.h"

static bool nsight_request_open;

void nsight_request_allow(bool on)
{
	WRITE_ONCE(nsight_request_open, on);
}

static long nsight_request_ioctl(struct file *file, unsigned int cmd,
				 unsigned long arg)
{
	struct nsight_request_arg a;
	struct nsight_rec_request *r;
	struct nsight_wr w;
	long ret = 0;

	if (cmd != NSIGHT_IOC_REQUEST)
		return -ENOTTY;
	if (copy_from_user(&a, (void __user *)arg, sizeof(a)))
		return -EFAULT;
	if (!a.op || a.op >= __NSIGHT_REQ_MAX || a.flags)
		return -EINVAL;

	rcu_read_lock();
	if (!READ_ONCE(nsight_request_open)) {
		ret = -ENODATA;
		goto out;
	}
	/* The profile and the reservation need one CPU throughout. */
	preempt_disable();
	nsight_prof_enter(NSIGHT_HOOK_REQUEST);
	r = nsight_reserve(&w, NSIGHT_REC_REQUEST, sizeof(*r));
	if (r) {
		r->id = a.id;
		r->tid = current->pid;
		r->pid = current->tgid;
		r->op = a.op;
		r->pad = 0;
		nsight_commit(&w);
	} else {
		ret = -ENOSPC;
	}
	nsight_prof_exit();
	preempt_enable();
out:
	rcu_read_unlock();
	return ret;
}

static const struct file_operations nsight_request_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = nsight_request_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice nsight_request_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "nsight",
	.fops = &nsight_request_fops,
	.mode = 0666,
};

int nsight_request_init(void)
{
	return misc_register(&nsight_request_dev);
}

void nsight_request_exit(void)
{
	misc_deregister(&nsight_request_dev);
}
