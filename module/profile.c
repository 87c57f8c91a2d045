// SPDX-License-Identifier: GPL-2.0
/*
 * Hook profile (see profile.h). Per CPU and hook: handler calls, records
 * written and dropped, bytes written, and TSC cycles inside the handler.
 * A handler that an interrupt's hook interrupts is charged its own cycles
 * only: each exit adds its whole duration to the enclosing handler's
 * "nested" count, which that handler subtracts at its own exit.
 *
 * The bookkeeping between the two TSC reads of an empty enter/exit pair is
 * measured when a profiled capture starts (the minimum of a few pairs) and
 * shown as "overhead"; the per-call figures in <debugfs>/nsight/hook_profile
 * have it subtracted. The cost of reaching the handler (the tracepoint
 * call, the kprobe's ftrace trampoline, a kretprobe's return trampoline)
 * is outside the handler and not in this table: make bench measures it per
 * mechanism (selftests/modules/nsight_wpbench.c, "dispatch").
 *
 * Enabled with /sys/kernel/nsight/profile while no capture runs; reset when
 * a capture starts.
 */
#include <linux/percpu.h>
#include <linux/irqflags.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/cpumask.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include "profile.h"
#include "compat.h"

DEFINE_STATIC_KEY_FALSE(nsight_prof_key);

struct nsight_prof_hook {
	u64 calls;
	u64 records;
	u64 dropped;
	u64 bytes;
	u64 cycles;
};

/* What a running handler's enter keeps for its exit. */
struct nsight_prof_frame {
	u64 start;
	u64 nested;
	u8 prev;
};

/*
 * Handlers nest as contexts do (task, softirq, hardirq, NMI); one nested
 * deeper than this is counted, and its cycles go to the one it interrupts.
 */
#define NSIGHT_PROF_DEPTH	8

struct nsight_prof_cpu {
	u8 cur;			/* the hook running, NSIGHT_HOOK_OTHER if none */
	u8 depth;		/* handlers running */
	u64 nested;		/* cycles of hooks nested in the current one */
	struct nsight_prof_frame stack[NSIGHT_PROF_DEPTH];
	struct nsight_prof_hook hook[__NSIGHT_HOOK_COUNT];
};

struct nsight_hook_desc {
	const char *name;
	const char *mechanism;
	const char *source;
};

static const struct nsight_hook_desc nsight_hooks[__NSIGHT_HOOK_COUNT] = {
	[NSIGHT_HOOK_OTHER] = { "other", "call", "-" },
	[NSIGHT_HOOK_SCHED_SWITCH] = { "sched_switch", "tracepoint",
				       "sched_switch" },
	[NSIGHT_HOOK_SCHED_WAKING] = { "sched_waking", "tracepoint",
				       "sched_waking" },
	[NSIGHT_HOOK_IRQ_ENTRY] = { "irq_handler_entry", "tracepoint", "irq" },
	[NSIGHT_HOOK_IRQ_EXIT] = { "irq_handler_exit", "tracepoint", "irq" },
	[NSIGHT_HOOK_SOFTIRQ_ENTRY] = { "softirq_entry", "tracepoint",
					"softirq" },
	[NSIGHT_HOOK_SOFTIRQ_EXIT] = { "softirq_exit", "tracepoint",
				       "softirq" },
	[NSIGHT_HOOK_CPU_IDLE] = { "cpu_idle", "tracepoint", "idle" },
	[NSIGHT_HOOK_WORK_START] = { "workqueue_execute_start", "tracepoint",
				     "workqueue" },
	[NSIGHT_HOOK_WORK_END] = { "workqueue_execute_end", "tracepoint",
				   "workqueue" },
	[NSIGHT_HOOK_NAPI_POLL] = { "napi_poll", "tracepoint", "napi" },
	[NSIGHT_HOOK_FAULT] = { "handle_mm_fault", "kretprobe-entry",
				"fault" },
	[NSIGHT_HOOK_FAULT_RET] = { "handle_mm_fault-ret", "kretprobe-ret",
				    "fault" },
	[NSIGHT_HOOK_NETIF_RX] = { "netif_rx", "tracepoint", "net_rx" },
	[NSIGHT_HOOK_GRO_RECEIVE] = { "napi_gro_receive_entry", "tracepoint",
				      "net_rx" },
	[NSIGHT_HOOK_NETIF_RECEIVE_SKB] = { "netif_receive_skb", "tracepoint",
					    "net_rx" },
	[NSIGHT_HOOK_DEV_QUEUE] = { "net_dev_queue", "tracepoint", "net_tx" },
	[NSIGHT_HOOK_DEV_START_XMIT] = { "net_dev_start_xmit", "tracepoint",
					 "net_tx" },
	[NSIGHT_HOOK_TSTAMP_TX] = { "skb_tstamp_tx", "ftrace", "net_tx" },
	[NSIGHT_HOOK_SK_DATA_READY] = { "sk_data_ready", "tracepoint",
					"handoff" },
	[NSIGHT_HOOK_HANDOFF] = { "sock_def_readable", "ftrace", "handoff" },
	[NSIGHT_HOOK_UDP_ENQUEUE] = { "__udp_enqueue_schedule_skb", "ftrace",
				      "handoff" },
	[NSIGHT_HOOK_UDP_FAIL] = { "udp_fail_queue_rcv_skb", "tracepoint",
				   "handoff" },
	[NSIGHT_HOOK_SKB_COPY] = { "skb_copy_datagram_iovec", "tracepoint",
				   "app" },
	[NSIGHT_HOOK_UDP_CONSUME] = { "skb_consume_udp", "ftrace", "app" },
	[NSIGHT_HOOK_RECVMSG] = { "inet_recvmsg", "ftrace", "app" },
	[NSIGHT_HOOK_RECV_LENGTH] = { "sock_recv_length", "tracepoint", "app" },
	[NSIGHT_HOOK_RECVMSG_KRET] = { "inet_recvmsg", "kretprobe-entry",
				       "app" },
	[NSIGHT_HOOK_RECVMSG_RET] = { "inet_recvmsg-ret", "kretprobe-ret",
				      "app" },
	[NSIGHT_HOOK_SENDMSG] = { "inet_sendmsg", "ftrace", "app" },
	[NSIGHT_HOOK_TIMEKEEPER] = { "pvclock_gtod", "notifier", "clock" },
	[NSIGHT_HOOK_VSYSCALL] = { "update_vsyscall", "ftrace", "clock" },
	[NSIGHT_HOOK_SAMPLE] = { "cpu-clock", "perf", "sample" },
	[NSIGHT_HOOK_MARK] = { "nsight_mark", "call", "-" },
	[NSIGHT_HOOK_FUTEX_WAIT] = { "futex_wait", "ftrace", "futex" },
	[NSIGHT_HOOK_FUTEX_WAKE] = { "futex_wake", "ftrace", "futex" },
	[NSIGHT_HOOK_REQUEST] = { "NSIGHT_IOC_REQUEST", "ioctl", "request" },
};

static struct nsight_prof_cpu __percpu *nsight_prof;
static bool nsight_prof_on;
static u64 nsight_prof_overhead;	/* cycles of an empty enter/exit */
static struct dentry *nsight_prof_file;

void __nsight_prof_enter(enum nsight_hook h)
{
	struct nsight_prof_frame *f;
	struct nsight_prof_cpu *pc;
	unsigned long flags;

	local_irq_save(flags);
	pc = this_cpu_ptr(nsight_prof);
	pc->hook[h].calls++;
	if (pc->depth++ < NSIGHT_PROF_DEPTH) {
		f = &pc->stack[pc->depth - 1];
		f->prev = pc->cur;
		f->nested = pc->nested;
		pc->cur = h;
		pc->nested = 0;
		f->start = nsight_clock();
	}
	local_irq_restore(flags);
}

void __nsight_prof_exit(void)
{
	u64 now = nsight_clock(), d;
	struct nsight_prof_frame *f;
	struct nsight_prof_cpu *pc;
	unsigned long flags;

	local_irq_save(flags);
	pc = this_cpu_ptr(nsight_prof);
	if (WARN_ON_ONCE(!pc->depth))
		goto out;
	if (--pc->depth < NSIGHT_PROF_DEPTH) {
		f = &pc->stack[pc->depth];
		d = now - f->start;
		pc->hook[pc->cur].cycles += d - min(pc->nested, d);
		pc->cur = f->prev;
		pc->nested = f->nested + d;
	}
out:
	local_irq_restore(flags);
}

void __nsight_prof_record(u32 size, bool written)
{
	struct nsight_prof_cpu *pc = this_cpu_ptr(nsight_prof);
	struct nsight_prof_hook *ph = &pc->hook[pc->cur];

	if (written) {
		ph->records++;
		ph->bytes += size;
	} else {
		ph->dropped++;
	}
}

/*
 * The cycles an empty enter/exit pair adds to its hook: the fewest of a
 * few tries, interrupts off so that none lands in between.
 */
static u64 nsight_prof_calibrate(void)
{
	struct nsight_prof_hook *ph;
	unsigned long flags;
	u64 best = U64_MAX, before;
	int i;

	for (i = 0; i < 32; i++) {
		local_irq_save(flags);
		ph = this_cpu_ptr(&nsight_prof->hook[NSIGHT_HOOK_OTHER]);
		before = ph->cycles;
		__nsight_prof_enter(NSIGHT_HOOK_OTHER);
		__nsight_prof_exit();
		best = min(best, ph->cycles - before);
		ph->calls--;
		ph->cycles = before;
		local_irq_restore(flags);
	}
	return best;
}

/* Zero every CPU's counters; no capture runs. */
void nsight_prof_reset(void)
{
	unsigned int cpu;

	if (!nsight_prof)
		return;
	for_each_possible_cpu(cpu) {
		struct nsight_prof_cpu *pc = per_cpu_ptr(nsight_prof, cpu);

		memset(pc, 0, sizeof(*pc));
		pc->cur = NSIGHT_HOOK_OTHER;
	}
	if (nsight_prof_on)
		nsight_prof_overhead = nsight_prof_calibrate();
}

/* Switch profiling on or off while no capture runs (control lock held). */
int nsight_prof_set(bool on)
{
	if (on == nsight_prof_on)
		return 0;
	nsight_prof_on = on;
	if (on)
		static_branch_enable(&nsight_prof_key);
	else
		static_branch_disable(&nsight_prof_key);
	return 0;
}

bool nsight_prof_enabled(void)
{
	return nsight_prof_on;
}

static int nsight_prof_show(struct seq_file *m, void *unused)
{
	unsigned int cpu, h;

	seq_printf(m, "# profile %s; overhead %llu cycles per call, subtracted from cycles/call\n",
		   nsight_prof_on ? "on" : "off", nsight_prof_overhead);
	seq_printf(m, "%-24s %-16s %-13s %10s %10s %8s %11s %13s %12s %10s\n",
		   "hook", "mechanism", "source", "calls", "records",
		   "dropped", "bytes", "cycles", "cycles/call", "bytes/call");
	for (h = 0; h < __NSIGHT_HOOK_COUNT; h++) {
		struct nsight_prof_hook sum = {};
		u64 self = 0, per_call = 0, bytes_per_call = 0;

		for_each_possible_cpu(cpu) {
			const struct nsight_prof_hook *ph =
				per_cpu_ptr(&nsight_prof->hook[h], cpu);

			sum.calls += READ_ONCE(ph->calls);
			sum.records += READ_ONCE(ph->records);
			sum.dropped += READ_ONCE(ph->dropped);
			sum.bytes += READ_ONCE(ph->bytes);
			sum.cycles += READ_ONCE(ph->cycles);
		}
		if (!sum.calls && !sum.records && !sum.dropped)
			continue;
		if (sum.calls) {
			u64 ovh = sum.calls * nsight_prof_overhead;

			self = sum.cycles > ovh ? sum.cycles - ovh : 0;
			per_call = div64_u64(self, sum.calls);
			bytes_per_call = div64_u64(sum.bytes, sum.calls);
		}
		seq_printf(m, "%-24s %-16s %-13s %10llu %10llu %8llu %11llu %13llu %12llu %10llu\n",
			   nsight_hooks[h].name, nsight_hooks[h].mechanism,
			   nsight_hooks[h].source, sum.calls, sum.records,
			   sum.dropped, sum.bytes, sum.cycles, per_call,
			   bytes_per_call);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nsight_prof);

int nsight_prof_init(struct dentry *dir)
{
	nsight_prof = alloc_percpu(struct nsight_prof_cpu);
	if (!nsight_prof)
		return -ENOMEM;
	nsight_prof_reset();
	nsight_prof_file = debugfs_create_file("hook_profile", 0400, dir, NULL,
					       &nsight_prof_fops);
	return 0;
}

/* No hook runs any more. */
void nsight_prof_exit_module(void)
{
	debugfs_remove(nsight_prof_file);
	nsight_prof_file = NULL;
	if (nsight_prof_on)
		static_branch_disable(&nsight_prof_key);
	nsight_prof_on = false;
	free_percpu(nsight_prof);
	nsight_prof = NULL;
}
