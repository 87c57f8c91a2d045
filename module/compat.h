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

#endif /* _NSIGHT_COMPAT_H */
