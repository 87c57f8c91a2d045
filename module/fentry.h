/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Function-entry hooks on ftrace: an ftrace_ops whose filter is one
 * function. Reaching the callback costs about a quarter of a kprobe on the
 * same ftrace site (no pt_regs saved, no kprobe lookup); nsight uses them
 * where the kernel has no tracepoint.
 */
#ifndef _NSIGHT_FENTRY_H
#define _NSIGHT_FENTRY_H

#include <linux/ftrace.h>
#include "compat.h"

/**
 * struct nsight_fentry - a hook on a function's entry.
 * @symbol: the function
 * @func:   the callback; nsight_fentry_arg() reads the function's arguments
 * @source: enum nsight_source that selects it
 */
struct nsight_fentry {
	const char *symbol;
	ftrace_func_t func;
	u32 source;
	struct ftrace_ops ops;
	bool filtered;
	bool attached;
};

int nsight_fentries_attach(struct nsight_fentry *fes, unsigned int n,
			   u32 sources);
void nsight_fentries_detach(struct nsight_fentry *fes, unsigned int n);
void nsight_fentries_release(void);

#endif /* _NSIGHT_FENTRY_H */
