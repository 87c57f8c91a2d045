// SPDX-License-Identifier: GPL-2.0
/*
 * Context records: what every CPU runs, so that the time of a message can
 * be attributed to the tasks, interrupts, softirqs, page faults, work items
 * and idle periods that shared its cores. These tracepoints are not
 * exported on Debian kernels; they are found by name (tracepoint.c). Page
 * faults are timed with a kretprobe on handle_mm_fault(), which has no
 * tracepoint pair.
 */
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/interrupt.h>
#include <linux/workqueue.h>
#include <linux/netdevice.h>
#include <linux/mm.h>
#include <linux/kernel.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/threads.h>
#include <linux/build_bug.h>
#include "ctx_hooks.h"
#include "tracepoint.h"
#include "kprobe.h"
#include "fentry.h"
#include "buffer.h"
#include "names.h"
#include "profile.h"
#include "pt.h"
#include "compat.h"

/* The short switch and waking records pack tids in 22 bits. */
static_assert(BIT(NSIGHT_CREC_TID_BITS) >= PID_MAX_LIMIT);

static void nsight_sched_switch(void *data, bool preempt,
				struct task_struct *prev,
				struct task_struct *next,
				unsigned int prev_state)
{
	const struct task_struct *named;
	struct nsight_crec_switch *r;
	struct nsight_wr w;

	nsight_prof_enter(NSIGHT_HOOK_SCHED_SWITCH);
	/*
	 * The names once per CPU (names.h), the switch by tids: prev is
	 * named already unless it was running when the capture started.
	 */
	if (prev != __this_cpu_read(nsight_named_cur))
		nsight_name(prev);
	named = nsight_name(next) ? next : NULL;
	__this_cpu_write(nsight_named_cur, named);
	nsight_pt_switch(next);
	if (likely(prev->prio == NSIGHT_CREC_DEFAULT_PRIO &&
		   next->prio == NSIGHT_CREC_DEFAULT_PRIO &&
		   prev_state < BIT(NSIGHT_CREC_ARG_BITS))) {
		struct nsight_crec_switch_s *c;

		/* The short form; tids are below PID_MAX_LIMIT (2^22). */
		c = (void *)__nsight_creserve(&nsight_buf, &w, preempt ?
					      NSIGHT_CREC_SWITCH_S_PREEMPT :
					      NSIGHT_CREC_SWITCH_S, sizeof(*c));
		if (c) {
			c->w = NSIGHT_CREC_PACK(prev->pid, next->pid, prev_state);
			nsight_commit(&w);
		}
		nsight_prof_exit();
		return;
	}
	r = (void *)__nsight_creserve(&nsight_buf, &w, preempt ?
				      NSIGHT_CREC_SWITCH_PREEMPT :
				      NSIGHT_CREC_SWITCH, sizeof(*r));
	if (r) {
		r->prev_tid = prev->pid;
		r->next_tid = next->pid;
		r->prev_state = prev_state;
		r->prev_prio = prev->prio;
		r->next_prio = next->prio;
		nsight_commit(&w);
	}
	nsight_prof_exit();
}

/*
 * task_rename (exec, prctl, a write to comm), before @task's name becomes
 * @comm: its records name it again (names.h). No record of its own.
 */
static void nsight_task_rename(void *data, struct task_struct *task,
			       const char *comm)
{
	nsight_name_forget(task);
}

static void nsight_sched_waking(void *data, struct task_struct *p)
{
	struct nsight_crec_waking *r;
	struct nsight_wr w;

	nsight_prof_enter(NSIGHT_HOOK_SCHED_WAKING);
	nsight_name(p);
	if (likely(p->prio == NSIGHT_CREC_DEFAULT_PRIO &&
		   task_cpu(p) < BIT(NSIGHT_CREC_ARG_BITS))) {
		struct nsight_crec_waking_s *c;

		c = (void *)__nsight_creserve(&nsight_buf, &w,
					      NSIGHT_CREC_WAKING_S, sizeof(*c));
		if (c) {
			c->w = NSIGHT_CREC_PACK(p->pid,
						in_task() ? current->pid : 0,
						task_cpu(p));
			nsight_commit(&w);
		}
		nsight_prof_exit();
		return;
	}
	r = (void *)__nsight_creserve(&nsight_buf, &w, NSIGHT_CREC_WAKING, sizeof(*r));
	if (r) {
		r->tid = p->pid;
		r->waker_tid = in_task() ? current->pid : 0;
		r->prio = p->prio;
		r->target_cpu = task_cpu(p);
		r->pad = 0;
		nsight_commit(&w);
	}
	nsight_prof_exit();
}

static void nsight_irq_record(int irq, const struct irqaction *action,
			      u32 flags, enum nsight_hook hook)
{
	struct nsight_rec_irq *r;
	struct nsight_wr w;

	nsight_prof_enter(hook);
	r = nsight_reserve(&w, NSIGHT_REC_IRQ, sizeof(*r));
	if (r) {
		r->irq = irq;
		r->flags = flags;
		memset(r->name, 0, sizeof(r->name));
		if ((flags & NSIGHT_CTX_ENTRY) && action && action->name)
			strscpy(r->name, action->name, sizeof(r->name));
		nsight_commit(&w);
	}
	nsight_prof_exit();
}

static void nsight_irq_entry(void *data, int irq, struct irqaction *action)
{
	nsight_irq_record(irq, action, NSIGHT_CTX_ENTRY,
			  NSIGHT_HOOK_IRQ_ENTRY);
}

static void nsight_irq_exit(void *data, int irq, struct irqaction *action,
			    int ret)
{
	nsight_irq_record(irq, action,
			  ret == IRQ_HANDLED ? NSIGHT_IRQ_HANDLED : 0,
			  NSIGHT_HOOK_IRQ_EXIT);
}

static void nsight_softirq_record(unsigned int vec, u32 flags,
				  enum nsight_hook hook)
{
	struct nsight_rec_softirq *r;
	struct nsight_wr w;

	nsight_prof_enter(hook);
	if (likely(vec < NSIGHT_CREC_SMALL_ARGS)) {
		/* The header word alone: the type holds entry or exit and vec. */
		if (__nsight_creserve(&nsight_buf, &w, vec +
				      (flags ? NSIGHT_CREC_SOFTIRQ_ENTRY :
				       NSIGHT_CREC_SOFTIRQ_EXIT), 8))
			nsight_commit(&w);
		goto out;
	}
	r = nsight_reserve(&w, NSIGHT_REC_SOFTIRQ, sizeof(*r));
	if (r) {
		r->vec = vec;
		r->flags = flags;
		nsight_commit(&w);
	}
out:
	nsight_prof_exit();
}

static void nsight_softirq_entry(void *data, unsigned int vec)
{
	nsight_softirq_record(vec, NSIGHT_CTX_ENTRY, NSIGHT_HOOK_SOFTIRQ_ENTRY);
}

static void nsight_softirq_exit(void *data, unsigned int vec)
{
	nsight_softirq_record(vec, 0, NSIGHT_HOOK_SOFTIRQ_EXIT);
}

/* cpu_idle: a state, or PWR_EVENT_EXIT (all ones) when leaving idle. */
static void nsight_cpu_idle(void *data, unsigned int state,
			    unsigned int cpu)
{
	struct nsight_rec_idle *r;
	struct nsight_wr w;

	nsight_prof_enter(NSIGHT_HOOK_CPU_IDLE);
	if (likely(state == (unsigned int)-1 ||
		   state < NSIGHT_CREC_SMALL_ARGS)) {
		/* The header word alone: the type holds the state. */
		if (__nsight_creserve(&nsight_buf, &w,
				      state == (unsigned int)-1 ?
				      NSIGHT_CREC_IDLE_EXIT :
				      NSIGHT_CREC_IDLE_ENTRY + state, 8))
			nsight_commit(&w);
		goto out;
	}
	r = nsight_reserve(&w, NSIGHT_REC_IDLE, sizeof(*r));
	if (r) {
		r->state = state;
		r->flags = NSIGHT_CTX_ENTRY;
		nsight_commit(&w);
	}
out:
	nsight_prof_exit();
}

/*
 * The work function's symbol, as "%ps" prints it: a kallsyms lookup costs
 * thousands of instructions, and the same few functions come back again
 * and again, so each CPU keeps the last ones it named. Used only with
 * interrupts off (inside a reservation), so never reentered.
 */
#define NSIGHT_WORK_NAMES	16

struct nsight_work_name {
	work_func_t fn;
	char name[NSIGHT_WORK_FUNC_LEN];
};

static DEFINE_PER_CPU(struct nsight_work_name [NSIGHT_WORK_NAMES],
		      nsight_work_names);

static void nsight_work_func_name(work_func_t fn, char *buf)
{
	struct nsight_work_name *e;

	e = this_cpu_ptr(&nsight_work_names[hash_ptr(fn,
						     ilog2(NSIGHT_WORK_NAMES))]);
	if (e->fn != fn) {
		memset(e->name, 0, sizeof(e->name));
		snprintf(e->name, sizeof(e->name), "%ps", fn);
		e->fn = fn;
	}
	memcpy(buf, e->name, sizeof(e->name));
}

static void nsight_work_record(work_func_t fn, u32 flags,
			       enum nsight_hook hook)
{
	struct nsight_rec_work *r;
	struct nsight_wr w;

	nsight_prof_enter(hook);
	r = nsight_reserve(&w, NSIGHT_REC_WORK, sizeof(*r));
	if (r) {
		r->flags = flags;
		r->pad = 0;
		/* The symbol, never the address. */
		if (flags & NSIGHT_CTX_ENTRY)
			nsight_work_func_name(fn, r->func);
		else
			memset(r->func, 0, sizeof(r->func));
		nsight_commit(&w);
	}
	nsight_prof_exit();
}

static void nsight_work_start(void *data, struct work_struct *work)
{
	nsight_work_record(work->func, NSIGHT_CTX_ENTRY,
			   NSIGHT_HOOK_WORK_START);
}

/* The work item may be freed by now: only @fn is used. */
static void nsight_work_end(void *data, struct work_struct *work,
			    work_func_t fn)
{
	nsight_work_record(fn, 0, NSIGHT_HOOK_WORK_END);
}

static void nsight_napi_poll(void *data, struct napi_struct *napi, int work,
			     int budget)
{
	struct nsight_rec_napi_poll *r;
	struct nsight_wr w;

	nsight_prof_enter(NSIGHT_HOOK_NAPI_POLL);
	r = nsight_reserve(&w, NSIGHT_REC_NAPI_POLL, sizeof(*r));
	if (r) {
		/* The device as packet records give it, not by name. */
		r->ifindex = napi->dev ? napi->dev->ifindex : 0;
		r->work = clamp(work, 0, U16_MAX);
		r->budget = clamp(budget, 0, U16_MAX);
		nsight_commit(&w);
	}
	nsight_prof_exit();
}

enum {
	NSIGHT_TP_SCHED_SWITCH,
	NSIGHT_TP_TASK_RENAME,
	NSIGHT_TP_SCHED_WAKING,
	NSIGHT_TP_IRQ_ENTRY,
	NSIGHT_TP_IRQ_EXIT,
	NSIGHT_TP_SOFTIRQ_ENTRY,
	NSIGHT_TP_SOFTIRQ_EXIT,
	NSIGHT_TP_CPU_IDLE,
	NSIGHT_TP_WORK_START,
	NSIGHT_TP_WORK_END,
	NSIGHT_TP_NAPI_POLL,
	NSIGHT_CTX_NR_TP
};

#define NSIGHT_CTX_TP(_id, _name, _probe) \
	[_id] = { .name = _name, .probe = _probe }

static struct nsight_tp nsight_ctx_tps[NSIGHT_CTX_NR_TP] = {
	NSIGHT_CTX_TP(NSIGHT_TP_SCHED_SWITCH, "sched_switch",
		      nsight_sched_switch),
	NSIGHT_CTX_TP(NSIGHT_TP_TASK_RENAME, "task_rename", nsight_task_rename),
	NSIGHT_CTX_TP(NSIGHT_TP_SCHED_WAKING, "sched_waking",
		      nsight_sched_waking),
	NSIGHT_CTX_TP(NSIGHT_TP_IRQ_ENTRY, "irq_handler_entry",
		      nsight_irq_entry),
	NSIGHT_CTX_TP(NSIGHT_TP_IRQ_EXIT, "irq_handler_exit", nsight_irq_exit),
	NSIGHT_CTX_TP(NSIGHT_TP_SOFTIRQ_ENTRY, "softirq_entry",
		      nsight_softirq_entry),
	NSIGHT_CTX_TP(NSIGHT_TP_SOFTIRQ_EXIT, "softirq_exit",
		      nsight_softirq_exit),
	NSIGHT_CTX_TP(NSIGHT_TP_CPU_IDLE, "cpu_idle", nsight_cpu_idle),
	NSIGHT_CTX_TP(NSIGHT_TP_WORK_START, "workqueue_execute_start",
		      nsight_work_start),
	NSIGHT_CTX_TP(NSIGHT_TP_WORK_END, "workqueue_execute_end",
		      nsight_work_end),
	NSIGHT_CTX_TP(NSIGHT_TP_NAPI_POLL, "napi_poll", nsight_napi_poll),
};

/* Source bit of each tracepoint above. */
static const u32 nsight_ctx_tp_source[NSIGHT_CTX_NR_TP] = {
	[NSIGHT_TP_SCHED_SWITCH] = NSIGHT_SRC_SCHED_SWITCH,
	/* Only sched_switch's memo of the task it named may go stale. */
	[NSIGHT_TP_TASK_RENAME] = NSIGHT_SRC_SCHED_SWITCH,
	[NSIGHT_TP_SCHED_WAKING] = NSIGHT_SRC_SCHED_WAKING,
	[NSIGHT_TP_IRQ_ENTRY] = NSIGHT_SRC_IRQ,
	[NSIGHT_TP_IRQ_EXIT] = NSIGHT_SRC_IRQ,
	[NSIGHT_TP_SOFTIRQ_ENTRY] = NSIGHT_SRC_SOFTIRQ,
	[NSIGHT_TP_SOFTIRQ_EXIT] = NSIGHT_SRC_SOFTIRQ,
	[NSIGHT_TP_CPU_IDLE] = NSIGHT_SRC_IDLE,
	[NSIGHT_TP_WORK_START] = NSIGHT_SRC_WORKQUEUE,
	[NSIGHT_TP_WORK_END] = NSIGHT_SRC_WORKQUEUE,
	[NSIGHT_TP_NAPI_POLL] = NSIGHT_SRC_NAPI,
};

struct nsight_fault_call {
	u64 start;
	unsigned long address;
	unsigned int flags;
};

/*
 * handle_mm_fault(struct vm_area_struct *vma, unsigned long address,
 *		   unsigned int flags, struct pt_regs *regs)
 */
static int nsight_fault_entry(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	struct nsight_fault_call *c = (void *)ri->data;

	nsight_prof_enter(NSIGHT_HOOK_FAULT);
	c->start = nsight_clock();
	c->address = nsight_kprobe_arg(regs, 1);
	c->flags = nsight_kprobe_arg(regs, 2);
	nsight_prof_exit();
	return 0;
}

static int nsight_fault_ret(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	struct nsight_fault_call *c = (void *)ri->data;
	struct nsight_rec_fault *r;
	struct nsight_wr w;
	u32 flags = 0;

	nsight_prof_enter(NSIGHT_HOOK_FAULT_RET);
	if (c->flags & FAULT_FLAG_USER)
		flags |= NSIGHT_FAULT_USER;
	if (c->flags & FAULT_FLAG_WRITE)
		flags |= NSIGHT_FAULT_WRITE;
	/* Kernel addresses are not written out. */
	if (c->address >= TASK_SIZE)
		flags |= NSIGHT_FAULT_KERNEL_ADDR;
	r = nsight_reserve(&w, NSIGHT_REC_FAULT, sizeof(*r));
	if (r) {
		r->start_tsc = c->start;
		r->address = c->address < TASK_SIZE ? c->address : 0;
		r->flags = flags;
		r->ret = regs_return_value(regs);
		r->tid = current->pid;
		r->pid = current->tgid;
		nsight_commit(&w);
	}
	nsight_prof_exit();
	return 0;
}

/*
 * futex_wait(u32 __user *uaddr, unsigned int flags, u32 val, ...) and
 * futex_wake(u32 __user *uaddr, unsigned int flags, int nr_wake, ...):
 * the lock a thread is about to sleep on, the lock whose waiters a thread
 * wakes (a contended unlock). Process context.
 */
static void nsight_futex_record(u32 op, u64 uaddr, u32 arg, enum nsight_hook hook)
{
	struct nsight_rec_futex *r;
	struct nsight_wr w;

	nsight_prof_enter(hook);
	r = nsight_reserve(&w, NSIGHT_REC_FUTEX, sizeof(*r));
	if (r) {
		r->uaddr = uaddr;
		r->tid = current->pid;
		r->pid = current->tgid;
		r->op = op;
		r->arg = arg;
		nsight_commit(&w);
	}
	nsight_prof_exit();
}

static __always_inline void
nsight_futex_wait_body(unsigned long ip, unsigned long parent_ip,
		       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	nsight_futex_record(NSIGHT_FUTEX_WAIT, nsight_fentry_arg(fregs, 0),
			    nsight_fentry_arg(fregs, 2), NSIGHT_HOOK_FUTEX_WAIT);
}

NSIGHT_FENTRY_CALLBACK(nsight_futex_wait)

static __always_inline void
nsight_futex_wake_body(unsigned long ip, unsigned long parent_ip,
		       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	nsight_futex_record(NSIGHT_FUTEX_WAKE, nsight_fentry_arg(fregs, 0),
			    nsight_fentry_arg(fregs, 2), NSIGHT_HOOK_FUTEX_WAKE);
}

NSIGHT_FENTRY_CALLBACK(nsight_futex_wake)

static struct nsight_fentry nsight_ctx_fentries[] = {
	{ .symbol = "futex_wait", .func = nsight_futex_wait,
	  .source = NSIGHT_SRC_FUTEX },
	{ .symbol = "futex_wake", .func = nsight_futex_wake,
	  .source = NSIGHT_SRC_FUTEX },
};

/* A task sleeping in a fault (I/O) holds an instance until it returns. */
static struct nsight_kretprobe nsight_ctx_kretprobes[] = {
	{ .symbol = "handle_mm_fault", .entry = nsight_fault_entry,
	  .ret = nsight_fault_ret,
	  .data_size = sizeof(struct nsight_fault_call), .maxactive = 256,
	  .source = NSIGHT_SRC_FAULT },
};

int nsight_ctx_init(void)
{
	return nsight_tp_lookup(nsight_ctx_tps, NSIGHT_CTX_NR_TP);
}

/* Attach the probes selected in @sources; all or nothing. */
int nsight_ctx_attach(u32 sources)
{
	unsigned int i, cpu;
	int ret;

	/* No hook runs: forget the names (a module may have gone since). */
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&nsight_work_names, cpu), 0,
		       sizeof(nsight_work_names));

	for (i = 0; i < NSIGHT_CTX_NR_TP; i++) {
		if (!(sources & BIT(nsight_ctx_tp_source[i])))
			continue;
		ret = nsight_tp_attach(&nsight_ctx_tps[i], 1);
		if (ret)
			goto err;
	}
	ret = nsight_kretprobes_attach(nsight_ctx_kretprobes,
				       ARRAY_SIZE(nsight_ctx_kretprobes),
				       sources);
	if (ret)
		goto err;
	ret = nsight_fentries_attach(nsight_ctx_fentries,
				     ARRAY_SIZE(nsight_ctx_fentries), sources);
	if (ret)
		goto err;
	return 0;
err:
	nsight_ctx_detach();
	return ret;
}

/*
 * Detach all; kretprobes are synchronized on return, tracepoint probes after
 * the caller's tracepoint_synchronize_unregister().
 */
void nsight_ctx_detach(void)
{
	nsight_fentries_detach(nsight_ctx_fentries,
			       ARRAY_SIZE(nsight_ctx_fentries));
	nsight_kretprobes_detach(nsight_ctx_kretprobes,
				 ARRAY_SIZE(nsight_ctx_kretprobes));
	nsight_tp_detach(nsight_ctx_tps, NSIGHT_CTX_NR_TP);
}

u64 nsight_ctx_missed(void)
{
	return nsight_kretprobes_missed(nsight_ctx_kretprobes,
					ARRAY_SIZE(nsight_ctx_kretprobes));
}
