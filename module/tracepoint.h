/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel tracepoints found by name: most are not exported to modules.
 */
#ifndef _NSIGHT_TRACEPOINT_H
#define _NSIGHT_TRACEPOINT_H

#include <linux/types.h>

struct tracepoint;

/**
 * struct nsight_tp - a tracepoint probe of nsight.
 * @name:  tracepoint name, e.g. "sched_switch"
 * @probe: probe function with the tracepoint's prototype, plus void *data
 *	   as first argument
 * @optional: the kernel may not have it (@tp stays NULL; the caller
 *	   falls back to another hook)
 * @tp:    the tracepoint, found by nsight_tp_lookup()
 * @attached: the probe is registered
 */
struct nsight_tp {
	const char *name;
	void *probe;
	bool optional;
	struct tracepoint *tp;
	bool attached;
};

int nsight_tp_lookup(struct nsight_tp *tps, unsigned int n);
int nsight_tp_attach(struct nsight_tp *tps, unsigned int n);
void nsight_tp_detach(struct nsight_tp *tps, unsigned int n);

#endif /* _NSIGHT_TRACEPOINT_H */
