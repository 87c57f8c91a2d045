// SPDX-License-Identifier: GPL-2.0
/*
 * "Buffer full" notifications.
 *
 * A probe that finds its CPU's buffer full cannot send a netlink message: it
 * may run in the scheduler or under the timekeeper lock. It sets the CPU's
 * bit and queues an irq_work (safe from any context), which queues a work
 * item, which multicasts one NSIGHT_CMD_BUFFER_FULL per flagged CPU.
 */
#include <linux/irq_work.h>
#include <linux/workqueue.h>
#include <linux/cpumask.h>
#include "notify.h"
#include "netlink.h"

static struct cpumask nsight_full_cpus;

static void nsight_full_workfn(struct work_struct *work)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		if (cpumask_test_and_clear_cpu(cpu, &nsight_full_cpus))
			nsight_nl_notify_full(cpu);
}

static DECLARE_WORK(nsight_full_work, nsight_full_workfn);

static void nsight_full_irq_workfn(struct irq_work *iw)
{
	schedule_work(&nsight_full_work);
}

static DEFINE_IRQ_WORK(nsight_full_irq_work, nsight_full_irq_workfn);

/* Any context. */
void nsight_notify_full(unsigned int cpu)
{
	cpumask_set_cpu(cpu, &nsight_full_cpus);
	irq_work_queue(&nsight_full_irq_work);
}

/*
 * Wait until no notification is pending or being sent. Called once no probe
 * can call nsight_notify_full() any more.
 */
void nsight_notify_sync(void)
{
	irq_work_sync(&nsight_full_irq_work);
	flush_work(&nsight_full_work);
}
