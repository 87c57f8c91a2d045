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
#include <linux/preempt.h>
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

/*
 * NSIGHT_FENTRY_CALLBACK(name) defines the ftrace callback name(), which
 * runs name_body() (the same arguments) with preemption off. ftrace calls
 * an ftrace_ops without FTRACE_OPS_FL_RECURSION straight from its
 * trampoline, preemptible where the traced function is (a process in
 * inet_sendmsg() under preempt=full), and a hook's per-CPU state (the
 * memos, the profile's frames) needs one CPU from its start to its end.
 * The flag would give that through ftrace_ops_assist_func() and an
 * indirect call, with a recursion check that a callback filtered to one
 * function it never calls does not need.
 */
#define NSIGHT_FENTRY_CALLBACK(name)					\
static void name(unsigned long ip, unsigned long parent_ip,		\
		 struct ftrace_ops *op, struct ftrace_regs *fregs)	\
{									\
	preempt_disable_notrace();					\
	name##_body(ip, parent_ip, op, fregs);				\
	preempt_enable_notrace();					\
}

int nsight_fentries_attach(struct nsight_fentry *fes, unsigned int n,
			   u32 sources);
void nsight_fentries_detach(struct nsight_fentry *fes, unsigned int n);
void nsight_fentries_release(void);

#endif /* _NSIGHT_FENTRY_H */
