// SPDX-License-Identifier: GPL-2.0
/*
 * Context records. sched_switch is not exported on Debian kernels, so it is
 * found by name (tracepoint.c).
 */
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include "ctx_hooks.h"
#include "tracepoint.h"
#include "buffer.h"
#include "compat.h"

static void nsight_sched_switch(void *data, bool preempt,
				struct task_struct *prev,
				struct task_struct *next,
				unsigned int prev_state)
{
	struct nsight_rec_sched_switch r;

	nsight_rec_init(&r.hdr, NSIGHT_REC_SCHED_SWITCH, sizeof(r));
	r.prev_tid = prev->pid;
	r.prev_pid = prev->tgid;
	r.next_tid = next->pid;
	r.next_pid = next->tgid;
	r.prev_prio = prev->prio;
	r.next_prio = next->prio;
	r.prev_state = prev_state;
	r.flags = preempt ? NSIGHT_SWITCH_PREEMPT : 0;
	/* As the sched_switch trace event does: comm may change under us. */
	memcpy(r.prev_comm, prev->comm, sizeof(r.prev_comm));
	memcpy(r.next_comm, next->comm, sizeof(r.next_comm));
	nsight_emit(&r.hdr);
}

enum { NSIGHT_TP_SCHED_SWITCH, NSIGHT_CTX_NR_TP };

static struct nsight_tp nsight_ctx_tps[NSIGHT_CTX_NR_TP] = {
	[NSIGHT_TP_SCHED_SWITCH] = {
		.name = "sched_switch",
		.probe = nsight_sched_switch,
	},
};

/* Source bit of each tracepoint above. */
static const u32 nsight_ctx_tp_source[NSIGHT_CTX_NR_TP] = {
	[NSIGHT_TP_SCHED_SWITCH] = NSIGHT_SRC_SCHED_SWITCH,
};

int nsight_ctx_init(void)
{
	return nsight_tp_lookup(nsight_ctx_tps, NSIGHT_CTX_NR_TP);
}

/* Attach the probes selected in @sources; all or nothing. */
int nsight_ctx_attach(u32 sources)
{
	unsigned int i;
	int ret;

	for (i = 0; i < NSIGHT_CTX_NR_TP; i++) {
		if (!(sources & BIT(nsight_ctx_tp_source[i])))
			continue;
		ret = nsight_tp_attach(&nsight_ctx_tps[i], 1);
		if (ret) {
			nsight_ctx_detach();
			return ret;
		}
	}
	return 0;
}

/* Detach all; the caller runs tracepoint_synchronize_unregister(). */
void nsight_ctx_detach(void)
{
	nsight_tp_detach(nsight_ctx_tps, NSIGHT_CTX_NR_TP);
}
