// SPDX-License-Identifier: GPL-2.0
/*
 * Function-entry hooks on ftrace (see fentry.h). Each hook has its own
 * ftrace_ops filtered to its one function, so ftrace calls it from a
 * trampoline of its own; ftrace adds the recursion check and keeps
 * preemption off around the callback. unregister_ftrace_function() returns
 * once no callback runs any more.
 */
#include <linux/ftrace.h>
#include <linux/string.h>
#include <linux/printk.h>
#include "fentry.h"

static int nsight_fentry_attach(struct nsight_fentry *fe)
{
	int ret;

	memset(&fe->ops, 0, sizeof(fe->ops));
	fe->ops.func = fe->func;
	ret = ftrace_set_filter(&fe->ops, (unsigned char *)fe->symbol,
				strlen(fe->symbol), 1);
	if (ret) {
		pr_err("cannot hook %s with ftrace: %d\n", fe->symbol, ret);
		return ret;
	}
	ret = register_ftrace_function(&fe->ops);
	if (ret) {
		pr_err("cannot attach to %s with ftrace: %d\n", fe->symbol,
		       ret);
		ftrace_free_filter(&fe->ops);
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
		ftrace_free_filter(&fe->ops);
		fe->attached = false;
	}
}
