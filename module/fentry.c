// SPDX-License-Identifier: GPL-2.0
/*
 * Function-entry hooks on ftrace (see fentry.h). Each hook has its own
 * ftrace_ops filtered to its one function, so ftrace calls it from a
 * trampoline of its own, directly (no FTRACE_OPS_FL_RECURSION: the
 * callbacks turn preemption off themselves, NSIGHT_FENTRY_CALLBACK()).
 * unregister_ftrace_function() returns once no callback runs any more.
 */
#include <linux/ftrace.h>
#include <linux/string.h>
#include <linux/printk.h>
#include <linux/errno.h>
#include "fentry.h"

/*
 * Hooks whose filter is set. Setting a filter by name walks every function
 * ftrace knows, which costs more than the rest of a start under a debug
 * kernel: it is done once, at the first attach, and kept until the module
 * goes (nsight_fentries_release()). Attach and detach run under the
 * control lock.
 */
#define NSIGHT_FENTRY_MAX	16

static struct nsight_fentry *nsight_fentry_filtered[NSIGHT_FENTRY_MAX];
static unsigned int nsight_fentry_n;

static int nsight_fentry_filter(struct nsight_fentry *fe)
{
	int ret;

	if (fe->filtered)
		return 0;
	if (nsight_fentry_n == NSIGHT_FENTRY_MAX)
		return -ENOSPC;
	memset(&fe->ops, 0, sizeof(fe->ops));
	fe->ops.func = fe->func;
	ret = ftrace_set_filter(&fe->ops, (unsigned char *)fe->symbol,
				strlen(fe->symbol), 1);
	if (ret) {
		pr_err("cannot hook %s with ftrace: %d\n", fe->symbol, ret);
		ftrace_free_filter(&fe->ops);
		return ret;
	}
	fe->filtered = true;
	nsight_fentry_filtered[nsight_fentry_n++] = fe;
	return 0;
}

static int nsight_fentry_attach(struct nsight_fentry *fe)
{
	int ret;

	ret = nsight_fentry_filter(fe);
	if (ret)
		return ret;
	ret = register_ftrace_function(&fe->ops);
	if (ret) {
		pr_err("cannot attach to %s with ftrace: %d\n", fe->symbol,
		       ret);
		return ret;
	}
	fe->attached = true;
	return 0;
}

/* Attach the hooks selected in @sources; all or none. */
int nsight_fentries_attach(struct nsight_fentry *fes, unsigned int n,
			   u32 sources)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		if (!(sources & BIT(fes[i].source)))
			continue;
		ret = nsight_fentry_attach(&fes[i]);
		if (ret) {
			nsight_fentries_detach(fes, i);
			return ret;
		}
	}
	return 0;
}

/* Detach the first @n; no callback runs any more when this returns. */
void nsight_fentries_detach(struct nsight_fentry *fes, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct nsight_fentry *fe = &fes[i];

		if (!fe->attached)
			continue;
		WARN_ON(unregister_ftrace_function(&fe->ops));
		fe->attached = false;
	}
}

/* Free every filter set (module exit: no hook is attached any more). */
void nsight_fentries_release(void)
{
	while (nsight_fentry_n) {
		struct nsight_fentry *fe = nsight_fentry_filtered[--nsight_fentry_n];

		ftrace_free_filter(&fe->ops);
		fe->filtered = false;
	}
}
