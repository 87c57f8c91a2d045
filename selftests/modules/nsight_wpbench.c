// SPDX-License-Identifier: GPL-2.0
/*
 * nsight_wpbench: a microbenchmark of nsight's record write path. It calls
 * nsight_mark() (nsight_mark.h; that is nsight_emit() and
 * nsight_buffer_write(), the path every hook's record takes) in a loop on
 * one CPU and times it.
 *
 * Writing "COUNT [RATE]" to <debugfs>/nsight_wpbench/run writes COUNT
 * mark records of size bytes from a kernel thread bound to CPU cpu, flat
 * out (RATE 0 or absent) or paced at RATE records/s, and returns when they
 * are written. The loop runs in batches of batch records with preemption
 * off (interrupts stay on but for each record's own reservation and copy),
 * the thread may reschedule and executes a PAUSE (cpu_relax()) between
 * batches, and paced runs sleep when ahead. Reading
 * <debugfs>/nsight_wpbench/result gives the last run:
 *
 *   cpu C size S rate R count N written W dropped D refused F ns T
 *   cycles Y elapsed_ns E batch B batches K batch_ns_med M batch_ns_min I
 *   batch_cycles_med MC batch_cycles_min IC
 *
 * written, dropped and refused count nsight_mark()'s results (0, -ENOSPC,
 * -ENODEV: no capture ran); ns and cycles (TSC) add up the batches only;
 * elapsed_ns is the whole run, sleeps included. A flat-out run also times
 * its first K full batches of B records one by one: their median and
 * minimum (ns, TSC cycles) are the cost of B records with little or no
 * disturbance by interrupts and, in an emulator, by the other virtual
 * CPUs; 0 when there is none.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/delay.h>
#include <linux/timekeeping.h>
#include <linux/timex.h>
#include <linux/math64.h>
#include <linux/cpumask.h>
#include <linux/uaccess.h>
#include <linux/sort.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/nsight.h>
#include "nsight_mark.h"

static unsigned int cpu;
module_param(cpu, uint, 0644);
MODULE_PARM_DESC(cpu, "CPU the records are written on");
static unsigned int size = 64;
module_param(size, uint, 0644);
MODULE_PARM_DESC(size, "bytes per record, a multiple of 8 from 32 to 288");
static unsigned int batch = 256;
module_param(batch, uint, 0644);
MODULE_PARM_DESC(batch, "records per batch (preemption off), 1 to 4096");

#define WPB_MAX_COUNT	100000000ULL
#define WPB_MAX_SECS	60
#define WPB_MAX_BATCHES	65536

/* What a run did; the result file prints it. */
struct wpb_result {
	unsigned int cpu;
	unsigned int size;
	unsigned int batch;
	unsigned int batches;	/* full batches timed one by one */
	u64 rate;
	u64 count;
	u64 written;
	u64 dropped;
	u64 refused;
	u64 ns;
	u64 cycles;
	u64 elapsed_ns;
	u64 batch_ns_med;
	u64 batch_ns_min;
	u64 batch_cycles_med;
	u64 batch_cycles_min;
};

struct wpb_run {
	struct wpb_result res;
	unsigned int len;	/* mark data bytes */
	u64 *batch_ns;		/* each full batch's time and cycles, */
	u64 *batch_cycles;	/* in flat-out runs (up to WPB_MAX_BATCHES) */
	struct completion done;
};

static DEFINE_MUTEX(wpb_lock);	/* one run at a time; guards wpb_last */
static struct wpb_result wpb_last;
static bool wpb_have_result;
static u8 wpb_payload[NSIGHT_MARK_MAX_DATA];
static struct dentry *wpb_dir;

static void wpb_batch(struct wpb_run *r, u64 first, u64 n)
{
	struct wpb_result *res = &r->res;
	u64 t0, t1, c0, c1, i;
	int ret;

	preempt_disable();
	t0 = ktime_get_ns();
	c0 = get_cycles();
	for (i = 0; i < n; i++) {
		ret = nsight_mark(first + i, wpb_payload, r->len);
		if (!ret)
			res->written++;
		else if (ret == -ENOSPC)
			res->dropped++;
		else
			res->refused++;
	}
	c1 = get_cycles();
	t1 = ktime_get_ns();
	preempt_enable();
	res->ns += t1 - t0;
	res->cycles += c1 - c0;
	if (r->batch_ns && n == res->batch && res->batches < WPB_MAX_BATCHES) {
		r->batch_ns[res->batches] = t1 - t0;
		r->batch_cycles[res->batches++] = c1 - c0;
	}
}

static int wpb_thread(void *arg)
{
	struct wpb_run *r = arg;
	struct wpb_result *res = &r->res;
	u64 start = ktime_get_ns(), done = 0;

	while (done < res->count) {
		u64 n = min_t(u64, res->batch, res->count - done);

		if (res->rate) {
			u64 due = mul_u64_u64_div_u64(res->rate,
						      ktime_get_ns() - start,
						      NSEC_PER_SEC);

			if (due <= done) {
				usleep_range(50, 100);
				continue;
			}
			n = min(n, due - done);
		}
		wpb_batch(r, done, n);
		done += n;
		cond_resched();
		/*
		 * PAUSE, as spinning kernel code does: single-threaded TCG
		 * then lets the other vCPUs run instead of giving this one
		 * its whole time slice.
		 */
		cpu_relax();
	}
	res->elapsed_ns = ktime_get_ns() - start;
	kthread_complete_and_exit(&r->done, 0);
}

static int wpb_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The median and the minimum of the timed batches. */
static void wpb_summarize(struct wpb_run *r)
{
	struct wpb_result *res = &r->res;
	unsigned int n = res->batches;

	if (!n)
		return;
	sort(r->batch_ns, n, sizeof(u64), wpb_cmp_u64, NULL);
	sort(r->batch_cycles, n, sizeof(u64), wpb_cmp_u64, NULL);
	res->batch_ns_med = r->batch_ns[n / 2];
	res->batch_ns_min = r->batch_ns[0];
	res->batch_cycles_med = r->batch_cycles[n / 2];
	res->batch_cycles_min = r->batch_cycles[0];
}

static ssize_t wpb_run_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	struct wpb_run r = {
		.res = {
			.cpu = READ_ONCE(cpu),
			.size = READ_ONCE(size),
			.batch = READ_ONCE(batch),
		},
	};
	struct wpb_result *res = &r.res;
	struct task_struct *t;
	char buf[64];
	u64 nb;
	int ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	ret = sscanf(buf, "%llu %llu", &res->count, &res->rate);
	if (ret < 1 || !res->count || res->count > WPB_MAX_COUNT)
		return -EINVAL;
	/* A paced run lasts at most WPB_MAX_SECS. */
	if (res->rate && div64_u64(res->count, res->rate) >= WPB_MAX_SECS)
		return -EINVAL;
	if (res->size % 8 || res->size < sizeof(struct nsight_rec_mark) ||
	    res->size > sizeof(struct nsight_rec_mark) + NSIGHT_MARK_MAX_DATA)
		return -EINVAL;
	if (!res->batch || res->batch > 4096)
		return -EINVAL;
	if (res->cpu >= nr_cpu_ids || !cpu_online(res->cpu))
		return -ENODEV;
	r.len = res->size - sizeof(struct nsight_rec_mark);
	init_completion(&r.done);

	nb = min_t(u64, div_u64(res->count, res->batch), WPB_MAX_BATCHES);
	if (!res->rate && nb) {
		r.batch_ns = kvmalloc_array(nb, sizeof(u64), GFP_KERNEL);
		r.batch_cycles = kvmalloc_array(nb, sizeof(u64), GFP_KERNEL);
		if (!r.batch_ns || !r.batch_cycles) {
			ret = -ENOMEM;
			goto out;
		}
	}

	mutex_lock(&wpb_lock);
	t = kthread_create_on_cpu(wpb_thread, &r, res->cpu,
				  "nsight_wpbench/%u");
	if (IS_ERR(t)) {
		mutex_unlock(&wpb_lock);
		ret = PTR_ERR(t);
		goto out;
	}
	wake_up_process(t);
	/* The thread uses r, on this stack, until it completes. */
	wait_for_completion(&r.done);
	wpb_summarize(&r);
	wpb_last = *res;
	wpb_have_result = true;
	mutex_unlock(&wpb_lock);
	ret = len;
out:
	kvfree(r.batch_ns);
	kvfree(r.batch_cycles);
	return ret;
}

static ssize_t wpb_result_read(struct file *file, char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	struct wpb_result *res = &wpb_last;
	char buf[512];
	int n;

	mutex_lock(&wpb_lock);
	if (!wpb_have_result) {
		mutex_unlock(&wpb_lock);
		return -ENODATA;
	}
	n = scnprintf(buf, sizeof(buf),
		      "cpu %u size %u rate %llu count %llu written %llu dropped %llu refused %llu ns %llu cycles %llu elapsed_ns %llu batch %u batches %u batch_ns_med %llu batch_ns_min %llu batch_cycles_med %llu batch_cycles_min %llu\n",
		      res->cpu, res->size, res->rate, res->count, res->written,
		      res->dropped, res->refused, res->ns, res->cycles,
		      res->elapsed_ns, res->batch, res->batches,
		      res->batch_ns_med, res->batch_ns_min,
		      res->batch_cycles_med, res->batch_cycles_min);
	mutex_unlock(&wpb_lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations wpb_run_fops = {
	.owner = THIS_MODULE,
	.write = wpb_run_write,
	.llseek = noop_llseek,
};

static const struct file_operations wpb_result_fops = {
	.owner = THIS_MODULE,
	.read = wpb_result_read,
	.llseek = default_llseek,
};

static int __init nsight_wpbench_init(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(wpb_payload); i++)
		wpb_payload[i] = i;
	wpb_dir = debugfs_create_dir("nsight_wpbench", NULL);
	if (IS_ERR(wpb_dir))
		return PTR_ERR(wpb_dir);
	debugfs_create_file("run", 0200, wpb_dir, NULL, &wpb_run_fops);
	debugfs_create_file("result", 0400, wpb_dir, NULL, &wpb_result_fops);
	return 0;
}

static void __exit nsight_wpbench_exit(void)
{
	debugfs_remove(wpb_dir);
}

module_init(nsight_wpbench_init);
module_exit(nsight_wpbench_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("nsight test module: write-path microbenchmark");
