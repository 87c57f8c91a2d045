/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Version and architecture shims, all in one place. nsight builds against
 * Debian's 6.1 and 6.12 kernels.
 */
#ifndef _NSIGHT_COMPAT_H
#define _NSIGHT_COMPAT_H

#include <linux/version.h>
#include <linux/timex.h>
#include <linux/ptrace.h>
#include <linux/ftrace.h>

#ifdef CONFIG_X86
#include <asm/tsc.h>

/* The profiling clock: the TSC, as Intel PT timestamps use it. */
static __always_inline u64 nsight_clock(void)
{
	return rdtsc();
}

static inline u64 nsight_clock_hz(void)
{
	return (u64)tsc_khz * 1000;
}
#else
static __always_inline u64 nsight_clock(void)
{
	return get_cycles();
}

/* Unknown: the analyzer derives the rate from the timekeeper records. */
static inline u64 nsight_clock_hz(void)
{
	return 0;
}
#endif

/* Argument @n of a probed function, at its entry. */
static inline unsigned long nsight_kprobe_arg(struct pt_regs *regs,
					      unsigned int n)
{
	return regs_get_kernel_argument(regs, n);
}

/*
 * Argument @n of a function hooked with ftrace (fentry.h), at its entry:
 * 6.12 has an accessor, 6.1's ftrace_regs holds the registers as pt_regs.
 */
#ifdef ftrace_regs_get_argument
#define nsight_fentry_arg(fregs, n) ftrace_regs_get_argument(fregs, n)
#else
#define nsight_fentry_arg(fregs, n) \
	regs_get_kernel_argument(&(fregs)->regs, n)
#endif

/*
 * udp:udp_fail_queue_rcv_skb passes the dropped datagram from 6.10 on
 * (NSIGHT_UDP_FAIL_SKB, from the kernel's header: Kbuild); before, it has
 * freed it and passes the error and the socket only.
 */
#ifdef NSIGHT_UDP_FAIL_SKB
#define NSIGHT_UDP_FAIL_ARGS	int rc, struct sock *sk, struct sk_buff *skb
#define NSIGHT_UDP_FAIL_DROPPED	skb
#else
#define NSIGHT_UDP_FAIL_ARGS	int rc, struct sock *sk
#define NSIGHT_UDP_FAIL_DROPPED	NULL
#endif

#endif /* _NSIGHT_COMPAT_H */
