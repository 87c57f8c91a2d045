/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kprobes and kretprobes of nsight, attached per capture.
 */
#ifndef _NSIGHT_KPROBE_H
#define _NSIGHT_KPROBE_H

#include <linux/kprobes.h>

/**
 * struct nsight_kprobe - a kprobe on a function's entry.
 * @symbol: the function
 * @pre:    the handler
 * @source: enum nsight_source that selects it
 * @missed: hits kprobes skipped in the last capture (recursion)
 */
struct nsight_kprobe {
	const char *symbol;
	kprobe_pre_handler_t pre;
	u32 source;
	struct kprobe kp;
	bool attached;
	unsigned long missed;
};

/**
 * struct nsight_kretprobe - a probe on a function's entry and return.
 * @entry:     entry handler; returning non-zero skips the return handler
 * @ret:       return handler
 * @data_size: per-call data passed from @entry to @ret
 * @maxactive: calls that can be in flight at once
 * @missed:    calls not probed in the last capture (all @maxactive in use)
 */
struct nsight_kretprobe {
	const char *symbol;
	kretprobe_handler_t entry;
	kretprobe_handler_t ret;
	size_t data_size;
	int maxactive;
	u32 source;
	struct kretprobe rp;
	bool attached;
	unsigned long missed;
};

int nsight_kprobes_attach(struct nsight_kprobe *kps, unsigned int n,
			  u32 sources);
void nsight_kprobes_detach(struct nsight_kprobe *kps, unsigned int n);
unsigned long nsight_kprobes_missed(const struct nsight_kprobe *kps,
				    unsigned int n);
int nsight_kretprobes_attach(struct nsight_kretprobe *rps, unsigned int n,
			     u32 sources);
void nsight_kretprobes_detach(struct nsight_kretprobe *rps, unsigned int n);
unsigned long nsight_kretprobes_missed(const struct nsight_kretprobe *rps,
				       unsigned int n);

#endif /* _NSIGHT_KPROBE_H */
