// SPDX-License-Identifier: GPL-2.0
/*
 * nsight_busywork: a test module for nsight's diagnosis scenarios. It keeps
 * a work item on one CPU that spins for spin_us every period_us, so that a
 * kernel worker competes with the application running there.
 */
#include <linux/module.h>
#include <linux/workqueue.h>
#include <linux/ktime.h>
#include <linux/cpumask.h>

static unsigned int cpu = 1;
module_param(cpu, uint, 0444);
MODULE_PARM_DESC(cpu, "CPU the work runs on");
static unsigned int period_us = 5000;
module_param(period_us, uint, 0444);
MODULE_PARM_DESC(period_us, "time between two runs of the work");
static unsigned int spin_us = 1000;
module_param(spin_us, uint, 0444);
MODULE_PARM_DESC(spin_us, "how long each run spins");

static struct delayed_work nsight_busywork;
static bool nsight_busywork_stopping;

static void nsight_busywork_fn(struct work_struct *work)
{
	u64 end = ktime_get_ns() + (u64)spin_us * NSEC_PER_USEC;

	while (ktime_get_ns() < end)
		cpu_relax();
	if (!READ_ONCE(nsight_busywork_stopping))
		queue_delayed_work_on(cpu, system_wq, &nsight_busywork,
				      usecs_to_jiffies(period_us));
}

static int __init nsight_busywork_init(void)
{
	if (cpu >= nr_cpu_ids || !cpu_online(cpu) || spin_us > 10000)
		return -EINVAL;
	INIT_DELAYED_WORK(&nsight_busywork, nsight_busywork_fn);
	queue_delayed_work_on(cpu, system_wq, &nsight_busywork, 0);
	return 0;
}

static void __exit nsight_busywork_exit(void)
{
	WRITE_ONCE(nsight_busywork_stopping, true);
	cancel_delayed_work_sync(&nsight_busywork);
}

module_init(nsight_busywork_init);
module_exit(nsight_busywork_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("nsight test: a busy kernel worker on one CPU");
