// SPDX-License-Identifier: GPL-2.0
/* Thread names once per CPU (names.h). */
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/percpu.h>
#include "names.h"
#include "buffer.h"

struct nsight_names __percpu *nsight_names;
DEFINE_PER_CPU(const struct task_struct *, nsight_named_cur);

int nsight_names_init(void)
{
	nsight_names = alloc_percpu(struct nsight_names);
	return nsight_names ? 0 : -ENOMEM;
}

/* At unload, every probe detached and synchronized. */
void nsight_names_exit(void)
{
	free_percpu(nsight_names);
	nsight_names = NULL;
}

/* Forget what every CPU named: a capture starts. No hook may run. */
void nsight_names_reset(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		memset(per_cpu_ptr(nsight_names, cpu), 0, sizeof(struct nsight_names));
		per_cpu(nsight_named_cur, cpu) = NULL;
	}
}

/*
 * @t is about to be renamed: if its CPU's last switch named it, that CPU
 * looks it up again. From another CPU this races only with that CPU's
 * next switch, which replaces the memo anyway.
 */
void nsight_name_forget(const struct task_struct *t)
{
	unsigned int cpu = task_cpu(t);

	if (READ_ONCE(per_cpu(nsight_named_cur, cpu)) == t)
		WRITE_ONCE(per_cpu(nsight_named_cur, cpu), NULL);
}

/*
 * The thread record of @t, then the older way of @set remembers it; a
 * dropped record leaves the memo as it was, so the next record of @t tries
 * again.
 */
noinline bool nsight_name_write(const struct task_struct *t, u32 set,
				const u64 comm[2])
{
	struct nsight_names *n = this_cpu_ptr(nsight_names);
	struct nsight_name_slot *s;
	struct nsight_rec_thread *r;
	struct nsight_wr w;

	r = nsight_reserve(&w, NSIGHT_REC_THREAD, sizeof(*r));
	if (!r)
		return false;
	r->tid = t->pid;
	r->pid = t->tgid;
	memcpy(r->comm, comm, sizeof(r->comm));
	nsight_commit(&w);
	s = &n->slot[set][n->older[set]];
	n->older[set] ^= 1;
	s->comm[0] = comm[0];
	s->comm[1] = comm[1];
	s->tid = t->pid;
	s->tgid = t->tgid;
	return true;
}
