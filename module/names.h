/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thread names once per CPU: before a record that gives a task by tid
 * alone, its CPU's buffer holds a thread record naming it (uapi "Thread
 * names"). A per-CPU memo says which tasks this CPU's buffer has named:
 * NSIGHT_NAME_SLOTS entries in sets of two ways, a set per hash of the tid,
 * each entry the tid, thread-group id and command name last written there.
 * Two ways, because tids collide in structured ways a direct-mapped memo
 * would thrash on (the idle task is tid 0; a tid 256 apart from it shared
 * its slot and named itself at each switch: 4,804 thread records in 9,176
 * switches of a memcached run). A hit costs a multiply, two 8-byte loads
 * of the name and four compares (eight in the second way); a miss
 * (another task in the set, or this one renamed) writes a 32-byte thread
 * record over the way written longer ago.
 */
#ifndef _NSIGHT_NAMES_H
#define _NSIGHT_NAMES_H

#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/nsight.h>

struct nsight_name_slot {
	u64 comm[2];
	u32 tid;
	u32 tgid;
};

#define NSIGHT_NAME_SLOTS	256
#define NSIGHT_NAME_SET_BITS	(ilog2(NSIGHT_NAME_SLOTS) - 1)

struct nsight_names {
	struct nsight_name_slot slot[NSIGHT_NAME_SLOTS / 2][2];
	u8 older[NSIGHT_NAME_SLOTS / 2];	/* the way to write next */
};

/*
 * Allocated at load: static per-CPU data of all modules shares a few KiB,
 * too little for 6 KiB per module on a host with many modules loaded.
 */
extern struct nsight_names __percpu *nsight_names;
/*
 * The task the last sched_switch of this CPU named as it switched in (or
 * that a record of the running task named since), or NULL: while it runs,
 * records about it need no memo lookup. A rename (task_rename: exec,
 * prctl) clears it on the task's CPU first.
 */
DECLARE_PER_CPU(const struct task_struct *, nsight_named_cur);

int nsight_names_init(void);
void nsight_names_exit(void);
void nsight_names_reset(void);
void nsight_name_forget(const struct task_struct *t);
bool nsight_name_write(const struct task_struct *t, u32 set, const u64 comm[2]);

static __always_inline bool nsight_name_is(const struct nsight_name_slot *s,
					   const struct task_struct *t,
					   const u64 comm[2])
{
	return s->tid == t->pid && s->tgid == t->tgid &&
	       s->comm[0] == comm[0] && s->comm[1] == comm[1];
}

/*
 * nsight_name - make sure this CPU's buffer names @t before the record
 * the caller reserves next; false if the thread record was dropped.
 * Preemption off (every hook runs so); an interrupt in between may evict
 * the entry, which costs only a repeated thread record later: the one
 * written stays in the buffer.
 */
static __always_inline bool nsight_name(const struct task_struct *t)
{
	u32 set = hash_32(t->pid, NSIGHT_NAME_SET_BITS);
	struct nsight_name_slot *s;
	u64 comm[2];

	s = this_cpu_ptr(nsight_names)->slot[set];
	/* As the sched_switch trace event does: comm may change under us. */
	memcpy(comm, t->comm, sizeof(comm));
	if (likely(nsight_name_is(&s[0], t, comm) || nsight_name_is(&s[1], t, comm)))
		return true;
	return nsight_name_write(t, set, comm);
}

/*
 * nsight_name() of the task running on this CPU, which then stands as
 * named until the next switch (without sched_switch records, a task's
 * every record would look it up).
 */
static __always_inline void nsight_name_current(void)
{
	if (current != __this_cpu_read(nsight_named_cur) &&
	    nsight_name(current))
		__this_cpu_write(nsight_named_cur, current);
}

#endif /* _NSIGHT_NAMES_H */
