// SPDX-License-Identifier: GPL-2.0
/*
 * nsight_hookbench: what it costs to reach a probe handler, per kind of
 * hook, with nothing else in the handler. A noinline target function that
 * fires a tracepoint of this module is called in a loop on one CPU, with
 * one of these attached to it:
 *
 *   none        nothing (the baseline: the call and the tracepoint's
 *               disabled static branch)
 *   tracepoint  an empty probe on the tracepoint
 *   ftrace      an ftrace_ops on the function's entry, no register save
 *               (what nsight's entry hooks use)
 *   kprobe      a kprobe on the function's entry (on ftrace: the function
 *               has an fentry call)
 *   kretprobe   a kretprobe, empty entry and return handlers
 *   fprobe      an fprobe with entry and exit handlers (kernels with
 *               CONFIG_FPROBE only)
 *
 * Writing "MECHANISM COUNT" to <debugfs>/nsight_hookbench/run calls the
 * target COUNT times on the CPU given by the cpu parameter, in batches of
 * 256 calls with interrupts off (so that none is counted), and reading
 * <debugfs>/nsight_hookbench/result gives the last run:
 *
 *   mech M count N handled H batches K batch_cycles_med C batch_cycles_min I
 *
 * handled is how many times the handler ran (it must be N, or 2N for the
 * entry-and-return kinds); the cycles are TSC cycles per batch. Under
 * QEMU with -icount the TSC follows executed instructions, so the
 * difference to "none" per call is the instructions the mechanism adds.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/kprobes.h>
#include <linux/ftrace.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/sort.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/timex.h>
#include <linux/atomic.h>
#ifdef CONFIG_FPROBE
#include <linux/fprobe.h>
#endif

#define CREATE_TRACE_POINTS
#include "nsight_hookbench_trace.h"

static unsigned int cpu;
module_param(cpu, uint, 0644);
MODULE_PARM_DESC(cpu, "CPU the calls run on");

#define HB_BATCH	256
#define HB_MAX_COUNT	BIT(24)

enum hb_mech { HB_NONE, HB_TRACEPOINT, HB_FTRACE, HB_KPROBE, HB_KRETPROBE,
	       HB_FPROBE, HB_NR_MECH };

static const char *const hb_names[HB_NR_MECH] = {
	"none", "tracepoint", "ftrace", "kprobe", "kretprobe", "fprobe",
};

struct hb_result {
	enum hb_mech mech;
	u32 count;
	u64 handled;
	u32 batches;
	u64 med, min;
};

struct hb_run {
	struct hb_result res;
	u64 *cycles;
	struct completion done;
};

static DEFINE_MUTEX(hb_lock);
static struct hb_result hb_last;
static bool hb_have_result;
static struct dentry *hb_dir;
static atomic64_t hb_handled;

static noinline unsigned long nsight_hookbench_target(unsigned long arg)
{
	trace_nsight_hookbench_call(arg);
	/* Keep the call from being optimized into nothing. */
	barrier();
	return arg + 1;
}

static void hb_tp_probe(void *data, unsigned long arg)
{
	atomic64_inc(&hb_handled);
}

static void hb_ftrace_cb(unsigned long ip, unsigned long parent_ip,
			 struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	atomic64_inc(&hb_handled);
}

static struct ftrace_ops hb_ftrace_ops = {
	.func = hb_ftrace_cb,
};

static int hb_kprobe_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic64_inc(&hb_handled);
	return 0;
}

static struct kprobe hb_kprobe;

static int hb_kret_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic64_inc(&hb_handled);
	return 0;
}

static int hb_kret_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic64_inc(&hb_handled);
	return 0;
}

static struct kretprobe hb_kretprobe;

#ifdef CONFIG_FPROBE
static int hb_fprobe_entry(struct fprobe *fp, unsigned long entry_ip,
			   unsigned long ret_ip, struct pt_regs *regs,
			   void *entry_data)
{
	atomic64_inc(&hb_handled);
	return 0;
}

static void hb_fprobe_exit(struct fprobe *fp, unsigned long entry_ip,
			   unsigned long ret_ip, struct pt_regs *regs,
			   void *entry_data)
{
	atomic64_inc(&hb_handled);
}

static struct fprobe hb_fprobe;
#endif

static int hb_attach(enum hb_mech m)
{
	unsigned long ip = (unsigned long)nsight_hookbench_target;
	int ret;

	switch (m) {
	case HB_NONE:
		return 0;
	case HB_TRACEPOINT:
		return register_trace_nsight_hookbench_call(hb_tp_probe, NULL);
	case HB_FTRACE:
		ret = ftrace_set_filter_ip(&hb_ftrace_ops, ip, 0, 1);
		if (ret)
			return ret;
		ret = register_ftrace_function(&hb_ftrace_ops);
		if (ret)
			ftrace_free_filter(&hb_ftrace_ops);
		return ret;
	case HB_KPROBE:
		memset(&hb_kprobe, 0, sizeof(hb_kprobe));
		hb_kprobe.addr = (kprobe_opcode_t *)ip;
		hb_kprobe.pre_handler = hb_kprobe_pre;
		return register_kprobe(&hb_kprobe);
	case HB_KRETPROBE:
		memset(&hb_kretprobe, 0, sizeof(hb_kretprobe));
		hb_kretprobe.kp.addr = (kprobe_opcode_t *)ip;
		hb_kretprobe.entry_handler = hb_kret_entry;
		hb_kretprobe.handler = hb_kret_ret;
		hb_kretprobe.data_size = 16;
		hb_kretprobe.maxactive = 16;
		return register_kretprobe(&hb_kretprobe);
	case HB_FPROBE:
#ifdef CONFIG_FPROBE
		memset(&hb_fprobe, 0, sizeof(hb_fprobe));
		hb_fprobe.entry_handler = hb_fprobe_entry;
		hb_fprobe.exit_handler = hb_fprobe_exit;
		hb_fprobe.entry_data_size = 16;
		hb_fprobe.nr_maxactive = 16;
		return register_fprobe_ips(&hb_fprobe, &ip, 1);
#else
		return -EOPNOTSUPP;
#endif
	default:
		return -EINVAL;
	}
}

static void hb_detach(enum hb_mech m)
{
	switch (m) {
	case HB_TRACEPOINT:
		unregister_trace_nsight_hookbench_call(hb_tp_probe, NULL);
		tracepoint_synchronize_unregister();
		break;
	case HB_FTRACE:
		unregister_ftrace_function(&hb_ftrace_ops);
		/* The filter's hashes too (kmemleak finds them otherwise). */
		ftrace_free_filter(&hb_ftrace_ops);
		break;
	case HB_KPROBE:
		unregister_kprobe(&hb_kprobe);
		break;
	case HB_KRETPROBE:
		unregister_kretprobe(&hb_kretprobe);
		break;
	case HB_FPROBE:
#ifdef CONFIG_FPROBE
		unregister_fprobe(&hb_fprobe);
#endif
		break;
	default:
		break;
	}
}

static int hb_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static int hb_thread(void *arg)
{
	struct hb_run *r = arg;
	struct hb_result *res = &r->res;
	unsigned long v = 0;
	u32 done = 0;

	while (done < res->count) {
		unsigned long flags;
		u32 i, n = min_t(u32, HB_BATCH, res->count - done);
		u64 c0, c1;

		local_irq_save(flags);
		c0 = get_cycles();
		for (i = 0; i < n; i++)
			v = nsight_hookbench_target(v);
		c1 = get_cycles();
		local_irq_restore(flags);
		if (n == HB_BATCH)
			r->cycles[res->batches++] = c1 - c0;
		done += n;
		cond_resched();
	}
	kthread_complete_and_exit(&r->done, 0);
}

static ssize_t hb_run_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	struct hb_run r = {};
	struct hb_result *res = &r.res;
	struct task_struct *t;
	char buf[64], name[16];
	unsigned int c = READ_ONCE(cpu);
	int ret, m;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%15s %u", name, &res->count) != 2 ||
	    res->count < HB_BATCH || res->count > HB_MAX_COUNT)
		return -EINVAL;
	m = match_string(hb_names, HB_NR_MECH, name);
	if (m < 0)
		return -EINVAL;
	res->mech = m;
	if (c >= nr_cpu_ids || !cpu_online(c))
		return -ENODEV;
	r.cycles = kvmalloc_array(res->count / HB_BATCH, sizeof(u64),
				  GFP_KERNEL);
	if (!r.cycles)
		return -ENOMEM;
	init_completion(&r.done);

	mutex_lock(&hb_lock);
	ret = hb_attach(res->mech);
	if (ret)
		goto out_unlock;
	atomic64_set(&hb_handled, 0);
	t = kthread_create_on_cpu(hb_thread, &r, c, "nsight_hookbench/%u");
	if (IS_ERR(t)) {
		ret = PTR_ERR(t);
		hb_detach(res->mech);
		goto out_unlock;
	}
	wake_up_process(t);
	/* The thread uses r, on this stack, until it completes. */
	wait_for_completion(&r.done);
	hb_detach(res->mech);
	res->handled = atomic64_read(&hb_handled);
	sort(r.cycles, res->batches, sizeof(u64), hb_cmp_u64, NULL);
	res->med = r.cycles[res->batches / 2];
	res->min = r.cycles[0];
	hb_last = *res;
	hb_have_result = true;
	ret = len;
out_unlock:
	mutex_unlock(&hb_lock);
	kvfree(r.cycles);
	return ret;
}

static ssize_t hb_result_read(struct file *file, char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	char buf[256];
	int n;

	mutex_lock(&hb_lock);
	if (!hb_have_result) {
		mutex_unlock(&hb_lock);
		return -ENODATA;
	}
	n = scnprintf(buf, sizeof(buf),
		      "mech %s count %u handled %llu batches %u batch_cycles_med %llu batch_cycles_min %llu\n",
		      hb_names[hb_last.mech], hb_last.count, hb_last.handled,
		      hb_last.batches, hb_last.med, hb_last.min);
	mutex_unlock(&hb_lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations hb_run_fops = {
	.owner = THIS_MODULE,
	.write = hb_run_write,
	.llseek = noop_llseek,
};

static const struct file_operations hb_result_fops = {
	.owner = THIS_MODULE,
	.read = hb_result_read,
	.llseek = default_llseek,
};

static int __init nsight_hookbench_init(void)
{
	hb_dir = debugfs_create_dir("nsight_hookbench", NULL);
	if (IS_ERR(hb_dir))
		return PTR_ERR(hb_dir);
	debugfs_create_file("run", 0200, hb_dir, NULL, &hb_run_fops);
	debugfs_create_file("result", 0400, hb_dir, NULL, &hb_result_fops);
	return 0;
}

static void __exit nsight_hookbench_exit(void)
{
	debugfs_remove(hb_dir);
}

module_init(nsight_hookbench_init);
module_exit(nsight_hookbench_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("nsight test module: the cost of reaching a probe handler");
