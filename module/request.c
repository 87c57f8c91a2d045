// SPDX-License-Identifier: GPL-2.0
/*
 * Request marks from applications (uapi nsight.h "Request marks"): an
 * ioctl on /dev/nsight writes an NSIGHT_REC_REQUEST record for the calling
 * thread. The gate works as the in-kernel marks' does (mark.c): opened once
 * the buffers are reset at start, closed at stop before the
 * synchronize_rcu() that waits for every writer which saw it open. The
 * gate is the capturing field of the one page the device maps read-only
 * (struct nsight_request_state), so that an application reads the same
 * word and spends a load, not a system call, on each mark while no capture
 * runs.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include "buffer.h"
#include "profile.h"
#include "request.h"

/* The page applications map: the gate, read before a mark. */
static struct nsight_request_state *nsight_request_state;

void nsight_request_allow(bool on)
{
	/* Not yet there when a failed init shuts the control down. */
	if (nsight_request_state)
		WRITE_ONCE(nsight_request_state->capturing, on);
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
	if (!READ_ONCE(nsight_request_state->capturing)) {
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

/*
 * The state page, whole and at offset 0, shared and never writable: a
 * mapping that is or could become writable (a descriptor open for
 * writing, a private copy) is refused.
 */
static int nsight_request_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (vma->vm_pgoff || vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	if (vma->vm_flags & (VM_WRITE | VM_MAYWRITE))
		return -EPERM;
	return remap_pfn_range(vma, vma->vm_start,
			       virt_to_phys(nsight_request_state) >> PAGE_SHIFT,
			       PAGE_SIZE, vma->vm_page_prot);
}

static const struct file_operations nsight_request_fops = {
	.owner = THIS_MODULE,
	.mmap = nsight_request_mmap,
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
	int ret;

	nsight_request_state = (void *)get_zeroed_page(GFP_KERNEL);
	if (!nsight_request_state)
		return -ENOMEM;
	ret = misc_register(&nsight_request_dev);
	if (ret)
		free_page((unsigned long)nsight_request_state);
	return ret;
}

/* No file is open (each holds the module), so nothing maps the page. */
void nsight_request_exit(void)
{
	misc_deregister(&nsight_request_dev);
	free_page((unsigned long)nsight_request_state);
}
