// SPDX-License-Identifier: GPL-2.0
/*
 * The sampling source: a cpu-clock perf event on every online CPU whose
 * overflow handler records the interrupted kernel stack (or the user IP)
 * as a NSIGHT_REC_SAMPLE record. It is where function-level evidence comes
 * from when the CPU has no Intel PT; its resolution is the period.
 *
 * The handler runs in the hrtimer interrupt. stack_trace_save() walks from
 * there through the interrupt frame into the interrupted code; the frames
 * up to the interrupted IP are the interrupt's own and are dropped. A CPU
 * that comes online during a capture is not sampled (the other sources
 * follow it; the analysis sees no samples there).
 */
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/stacktrace.h>
#include <linux/sched.h>
#include <linux/cpu.h>
#include <linux/slab.h>
#include <linux/err.h>
#include "sample.h"
#include "buffer.h"
#include "profile.h"

/*
 * Frames walked: the interrupt's own (about a dozen) and the interrupted
 * code's. Each costs an ORC lookup in the timer interrupt, so the walk
 * stops after 24 of the latter: the analysis uses the innermost ten of a
 * context anyway.
 */
#define NSIGHT_SAMPLE_SCAN	40

struct nsight_sample_scratch {
	unsigned long entries[NSIGHT_SAMPLE_SCAN];
	/* A struct nsight_rec_sample with room for the deepest stack. */
	u64 rec[sizeof(struct nsight_rec_sample) / sizeof(u64) +
		NSIGHT_SAMPLE_MAX_DEPTH];
};

/*
 * Used only by the handler, in hard interrupt context with interrupts off
 * on its CPU; cpu-clock events never fire as NMIs, so it is not reentered.
 */
static DEFINE_PER_CPU(struct nsight_sample_scratch, nsight_sample_scratch);
static struct perf_event **nsight_sample_events;
static u32 nsight_sample_period;

/* Copy the frames from the interrupted IP on; returns how many. */
static unsigned int nsight_sample_stack(struct nsight_sample_scratch *s,
					struct nsight_rec_sample *r,
					unsigned long ip, u16 *flags)
{
	unsigned int n, i, k;

	n = stack_trace_save(s->entries, ARRAY_SIZE(s->entries), 0);
	for (i = 0; i < n && s->entries[i] != ip; i++)
		;
	if (i == n) {
		r->ips[0] = ip;
		*flags |= NSIGHT_SAMPLE_NO_STACK;
		return 1;
	}
	for (k = 0; i < n && k < NSIGHT_SAMPLE_MAX_DEPTH; i++, k++)
		r->ips[k] = s->entries[i];
	if (i < n || n == ARRAY_SIZE(s->entries))
		*flags |= NSIGHT_SAMPLE_TRUNCATED;
	return k;
}

static void nsight_sample_overflow(struct perf_event *event,
				   struct perf_sample_data *data,
				   struct pt_regs *regs)
{
	struct nsight_sample_scratch *s = this_cpu_ptr(&nsight_sample_scratch);
	struct nsight_rec_sample *r = (struct nsight_rec_sample *)s->rec;
	unsigned int nr = 0;
	u16 flags = 0;

	nsight_prof_enter(NSIGHT_HOOK_SAMPLE);
	if (user_mode(regs)) {
		flags |= NSIGHT_SAMPLE_USER;
		r->user_ip = instruction_pointer(regs);
	} else {
		r->user_ip = 0;
		nr = nsight_sample_stack(s, r, instruction_pointer(regs),
					 &flags);
	}
	nsight_rec_init(&r->hdr, NSIGHT_REC_SAMPLE,
			sizeof(*r) + nr * sizeof(r->ips[0]));
	r->tid = current->pid;
	r->pid = current->tgid;
	r->period_ns = nsight_sample_period;
	r->nr = nr;
	r->flags = flags;
	nsight_emit(&r->hdr);
	nsight_prof_exit();
}

void nsight_sample_detach(void)
{
	unsigned int cpu;

	if (!nsight_sample_events)
		return;
	/* Releasing cancels the event's hrtimer and waits for its handler. */
	for_each_possible_cpu(cpu)
		if (nsight_sample_events[cpu])
			perf_event_release_kernel(nsight_sample_events[cpu]);
	kfree(nsight_sample_events);
	nsight_sample_events = NULL;
}

int nsight_sample_attach(u32 sources, u32 period_ns)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.sample_period = period_ns,
		.pinned = 1,
		/* Idle time is known from cpu_idle; no samples there. */
		.exclude_idle = 1,
	};
	struct perf_event *ev;
	unsigned int cpu;
	int ret = 0;

	if (!(sources & BIT(NSIGHT_SRC_SAMPLE)))
		return 0;
	nsight_sample_events = kcalloc(nr_cpu_ids, sizeof(*nsight_sample_events),
				       GFP_KERNEL);
	if (!nsight_sample_events)
		return -ENOMEM;
	nsight_sample_period = period_ns;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		ev = perf_event_create_kernel_counter(&attr, cpu, NULL,
						      nsight_sample_overflow,
						      NULL);
		if (IS_ERR(ev)) {
			ret = PTR_ERR(ev);
			pr_err("cannot create the sampling event on CPU %u: %d\n",
			       cpu, ret);
			break;
		}
		nsight_sample_events[cpu] = ev;
	}
	cpus_read_unlock();
	if (ret)
		nsight_sample_detach();
	return ret;
}
