// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoints by name. Debian kernels export few __tracepoint_* symbols, so
 * nsight walks the core kernel's tracepoints with for_each_kernel_tracepoint()
 * and attaches with tracepoint_probe_register(), as LTTng does.
 */
#include <linux/tracepoint.h>
#include <linux/string.h>
#include <linux/printk.h>
#include "tracepoint.h"

struct nsight_tp_table {
	struct nsight_tp *tps;
	unsigned int n;
};

static void nsight_tp_match(struct tracepoint *tp, void *priv)
{
	struct nsight_tp_table *t = priv;
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if (!t->tps[i].tp && !strcmp(tp->name, t->tps[i].name))
			t->tps[i].tp = tp;
}

/*
 * Resolve every entry of @tps; -ENOENT names the first one missing that is
 * not optional.
 */
int nsight_tp_lookup(struct nsight_tp *tps, unsigned int n)
{
	struct nsight_tp_table t = { .tps = tps, .n = n };
	unsigned int i;

	for_each_kernel_tracepoint(nsight_tp_match, &t);
	for (i = 0; i < n; i++) {
		if (!tps[i].tp && !tps[i].optional) {
			pr_err("tracepoint %s not found\n", tps[i].name);
			return -ENOENT;
		}
	}
	return 0;
}

/*
 * Attach every probe of @tps, or none: on failure the ones attached are
 * detached again (the caller synchronizes).
 */
int nsight_tp_attach(struct nsight_tp *tps, unsigned int n)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = tracepoint_probe_register(tps[i].tp, tps[i].probe, NULL);
		if (ret) {
			pr_err("cannot attach to tracepoint %s: %d\n",
			       tps[i].name, ret);
			nsight_tp_detach(tps, i);
			return ret;
		}
		tps[i].attached = true;
	}
	return 0;
}

/*
 * Detach the attached probes of the first @n entries. Probes may still be
 * running on other CPUs until tracepoint_synchronize_unregister().
 */
void nsight_tp_detach(struct nsight_tp *tps, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!tps[i].attached)
			continue;
		WARN_ON(tracepoint_probe_unregister(tps[i].tp, tps[i].probe,
						    NULL));
		tps[i].attached = false;
	}
}
