/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Intel PT controller: programs the IA32_RTIT_* MSRs of every CPU with a
 * ToPA output buffer while a capture that selects the "pt" source runs.
 *
 * Per CPU, one ToPA table (one page) and output regions of up to 4 MiB
 * (order-10 pages; smaller orders when memory is fragmented) adding up to
 * the capture's buffer_size (the same size as the relay buffer of each
 * CPU), at most 511 regions; a CPU without multiple-entry ToPA gets one
 * region, the largest power of two <= buffer_size, at most 4 MiB. The
 * table is circular: when a CPU's buffer is full the newest bytes
 * overwrite the oldest, so a capture keeps the last buffer_size bytes of
 * trace of each CPU. Tracing: branches (BranchEn), TSC packets, MTC at
 * the lowest period the CPU offers from 2^3 crystal ticks up (when it has
 * MTC), kernel and user, within the IP filter ranges (pt_filter) if any.
 *
 * While tracing, pt_cr3 records (struct nsight_rec_pt_cr3) name the
 * process of each CR3 the trace switches to: one per CPU for the task
 * running when tracing starts there, then one from sched_switch (with the
 * "sched_switch" source) whenever a CPU switches to a task of another
 * process than the last one it recorded (nsight_pt_switch()).
 *
 * Every capture writes a struct nsight_rec_pt with NSIGHT_PT_START into
 * each CPU's record buffer when tracing starts there, and one with
 * NSIGHT_PT_STOP (plus WRAPPED, ERROR, STOPPED as they apply) when it
 * stops. After the capture, <debugfs>/nsight/pt/cpuN gives the CPU's
 * trace bytes, oldest first; it is -EBUSY while tracing and empty when the
 * CPU has none. The buffers stay until the next capture with PT or
 * until the module unloads.
 *
 * Ownership: PT is taken only on CPUs where IA32_RTIT_CTL.TraceEn is clear
 * (state "busy" otherwise, and no MSR is written), and at stop every RTIT
 * MSR nsight wrote gets back the value it had (perf's intel_pt caches what
 * it last wrote and would otherwise trace into nsight's buffers). perf's
 * intel_pt PMU cannot be locked out from a module: a perf PT session
 * started during a capture takes the MSRs over; nsight then notices at
 * stop (OUTPUT_BASE or RTIT_CTL no longer ours), leaves the MSRs alone and
 * reports the CPU's trace as lost (NSIGHT_PT_ERROR, no bytes). The same
 * goes for a suspend/resume during a capture (the MSRs are lost).
 *
 * CPU hotplug: a CPU that comes online during a capture gets its buffer
 * (allocated in its hotplug thread, which may sleep) and starts tracing; a
 * CPU that goes offline stops tracing (STOP record) and keeps its trace
 * for readout, unless it comes back online in the same capture: its
 * buffer then starts over.
 *
 * The STOP record's @bytes are the trace bytes in the buffer: the bytes
 * written since start, or the buffer size with NSIGHT_PT_WRAPPED (no PMI is
 * taken, so how many more were written is not known). Wrapping is seen
 * from the buffer itself: it is zeroed before every capture.
 *
 * Locking: one mutex serializes start, stop, readout and the filter; start
 * and stop also hold the CPU hotplug lock, which serializes them with the
 * hotplug callbacks (which cannot take the mutex).
 */
#ifndef _NSIGHT_PT_H
#define _NSIGHT_PT_H

#include <linux/jump_label.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/nsight.h>
#include "buffer.h"

struct dentry;
struct mm_struct;

/*
 * Which process a CR3 value of the trace loads (uapi struct
 * nsight_rec_pt_cr3): on while PT traces (from before the CPUs start to
 * after they stop), a static key so that sched_switch pays a NOP for it
 * otherwise. Per CPU, the mm and process of the last pt_cr3 record
 * written (none at start): a switch to a task of the same process, or to
 * a kernel thread (no mm: it keeps the CR3 it found), writes nothing.
 */
struct nsight_pt_cr3_memo {
	const struct mm_struct *mm;
	pid_t tgid;		/* an mm freed and reused by another process */
};

DECLARE_STATIC_KEY_FALSE(nsight_pt_cr3_on);
DECLARE_PER_CPU(struct nsight_pt_cr3_memo, nsight_pt_cr3_memo);

/*
 * Write the pt_cr3 record of @t into @b on this CPU (none if @t has no
 * mm), interrupts off; the memo names it once written.
 */
void nsight_pt_cr3_write(struct nsight_buffer *b, const struct task_struct *t);

/*
 * __nsight_pt_switch - this CPU is switching to @next (interrupts off):
 * its pt_cr3 record into @b if one is due. PT off: a NOP. On: loads of
 * next->mm, next->tgid and the per-CPU memo, and two compares, unless a
 * record is due. The capture's is nsight_pt_switch(); KUnit passes a
 * buffer of its own.
 */
static __always_inline void __nsight_pt_switch(struct nsight_buffer *b,
					       const struct task_struct *next)
{
	if (static_branch_unlikely(&nsight_pt_cr3_on)) {
		const struct mm_struct *mm = READ_ONCE(next->mm);

		if (mm && (mm != __this_cpu_read(nsight_pt_cr3_memo.mm) ||
			   next->tgid != __this_cpu_read(nsight_pt_cr3_memo.tgid)))
			nsight_pt_cr3_write(b, next);
	}
}

/* sched_switch is switching to @next (interrupts off). */
static __always_inline void nsight_pt_switch(const struct task_struct *next)
{
	__nsight_pt_switch(&nsight_buf, next);
}

/*
 * Detect PT (CPUID) and create <@debugfs_dir>/pt/cpuN. An absent PT is
 * not an error. Returns 0 or -ENOMEM.
 */
int nsight_pt_init(struct dentry *debugfs_dir);
/* Stop tracing if needed, remove the files, free every buffer. */
void nsight_pt_exit(void);

/*
 * Start tracing on every online CPU with @buffer_size bytes per CPU.
 * Returns 0 when tracing, or when PT is absent or busy (the state says
 * which); a negative errno when the start failed (state "failed", the
 * reason in the kernel log; nothing is left programmed or allocated
 * beyond the previous capture's buffers). In both cases the capture can
 * run on without PT. Process context; call with no CPU hotplug lock held.
 */
int nsight_pt_start(u32 buffer_size);
/* Stop tracing on every CPU, synchronously; a no-op when not tracing. */
void nsight_pt_stop(void);

enum nsight_pt_state nsight_pt_get_state(void);
const char *nsight_pt_state_name(enum nsight_pt_state state);
/*
 * The sysfs "pt" file: "state: <name>", then "reason: ..." when PT cannot
 * be used (absent, busy, failed), then the capabilities when there is PT,
 * one "name: value" per line. Returns the length.
 */
int nsight_pt_show(char *buf, size_t size);

/*
 * The sysfs "pt_filter" file. Store: "none" or ranges START-END (END
 * exclusive) separated by commas; -EINVAL for bad syntax, -E2BIG for more
 * ranges than the CPU has (4 when there is no PT to ask), -EBUSY while PT
 * traces. Show: the same syntax. Both return a length or a negative errno.
 */
int nsight_pt_filter_store(const char *buf);
int nsight_pt_filter_show(char *buf, size_t size);

#endif /* _NSIGHT_PT_H */
