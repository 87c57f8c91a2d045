/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hook profile: for each hook, how often its handler ran, the records and
 * bytes it wrote or dropped, and the TSC cycles the handler itself took
 * (hooks nested in it, e.g. an interrupt's, excluded). It is what the cost
 * table of make bench is built from. Off unless asked for: then each hook
 * costs two static-key NOPs.
 */
#ifndef _NSIGHT_PROFILE_H
#define _NSIGHT_PROFILE_H

#include <linux/types.h>
#include <linux/jump_label.h>

/* Every place that writes records. Names and mechanisms: profile.c. */
enum nsight_hook {
	NSIGHT_HOOK_OTHER,		/* outside any hook (control, PT) */
	NSIGHT_HOOK_SCHED_SWITCH,
	NSIGHT_HOOK_SCHED_WAKING,
	NSIGHT_HOOK_IRQ_ENTRY,
	NSIGHT_HOOK_IRQ_EXIT,
	NSIGHT_HOOK_SOFTIRQ_ENTRY,
	NSIGHT_HOOK_SOFTIRQ_EXIT,
	NSIGHT_HOOK_CPU_IDLE,
	NSIGHT_HOOK_WORK_START,
	NSIGHT_HOOK_WORK_END,
	NSIGHT_HOOK_NAPI_POLL,
	NSIGHT_HOOK_FAULT,
	NSIGHT_HOOK_FAULT_RET,
	NSIGHT_HOOK_NETIF_RX,
	NSIGHT_HOOK_GRO_RECEIVE,
	NSIGHT_HOOK_NETIF_RECEIVE_SKB,
	NSIGHT_HOOK_DEV_QUEUE,
	NSIGHT_HOOK_DEV_START_XMIT,
	NSIGHT_HOOK_TSTAMP_TX,
	NSIGHT_HOOK_SK_DATA_READY,
	NSIGHT_HOOK_HANDOFF,
	NSIGHT_HOOK_UDP_ENQUEUE,
	NSIGHT_HOOK_UDP_FAIL,
	NSIGHT_HOOK_SKB_COPY,
	NSIGHT_HOOK_UDP_CONSUME,
	NSIGHT_HOOK_RECVMSG,
	NSIGHT_HOOK_RECV_LENGTH,
	NSIGHT_HOOK_RECVMSG_KRET,
	NSIGHT_HOOK_RECVMSG_RET,
	NSIGHT_HOOK_SENDMSG,
	NSIGHT_HOOK_TIMEKEEPER,
	NSIGHT_HOOK_VSYSCALL,
	NSIGHT_HOOK_SAMPLE,
	NSIGHT_HOOK_MARK,
	NSIGHT_HOOK_FUTEX_WAIT,
	NSIGHT_HOOK_FUTEX_WAKE,
	NSIGHT_HOOK_REQUEST,
	__NSIGHT_HOOK_COUNT
};

DECLARE_STATIC_KEY_FALSE(nsight_prof_key);

void __nsight_prof_enter(enum nsight_hook h);
void __nsight_prof_exit(void);
void __nsight_prof_record(u32 size, bool written);

/*
 * Bracket a handler's body. Both run on one CPU with preemption off, as
 * every probe handler does. What a handler keeps between them is on a
 * per-CPU stack, not on its own: a local whose address is taken would give
 * every hook a stack frame and a stack-protector check, profile or not.
 */
static __always_inline void nsight_prof_enter(enum nsight_hook h)
{
	if (static_branch_unlikely(&nsight_prof_key))
		__nsight_prof_enter(h);
}

static __always_inline void nsight_prof_exit(void)
{
	if (static_branch_unlikely(&nsight_prof_key))
		__nsight_prof_exit();
}

/* From the write path, interrupts off: a record written or dropped. */
static __always_inline void nsight_prof_record(u32 size, bool written)
{
	if (static_branch_unlikely(&nsight_prof_key))
		__nsight_prof_record(size, written);
}

int nsight_prof_init(struct dentry *dir);
void nsight_prof_exit_module(void);
int nsight_prof_set(bool on);
bool nsight_prof_enabled(void);
void nsight_prof_reset(void);

#endif /* _NSIGHT_PROFILE_H */
