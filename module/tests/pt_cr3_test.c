// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the pt_cr3 records of the Intel PT controller (pt.c), which no
 * guest can make (QEMU's TCG has no PT): what nsight_pt_cr3_write() puts
 * into a CPU's buffer, and when a context switch (__nsight_pt_switch())
 * writes one: never while the static key is off, not for a kernel thread
 * nor for another thread of the process last recorded, again for an mm
 * reused by another process, and again after a dropped record. On a
 * channel of the test's own, with fake tasks and address spaces, and one
 * record checked against the CR3 register itself.
 */
#include <kunit/test.h>
#include <linux/jump_label.h>
#include <linux/kthread.h>
#include <linux/mm_types.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <asm/cpufeature.h>
#include <asm/io.h>
#include <asm/processor.h>
#include "../pt.h"
#include "test_buffer.h"

/* A task of process @tgid with address space @mm (NULL: a kernel thread). */
static struct task_struct *pt_cr3_task(struct kunit *test, pid_t tid,
				       pid_t tgid, struct mm_struct *mm)
{
	struct task_struct *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->pid = tid;
	t->tgid = tgid;
	t->mm = mm;
	return t;
}

/* An address space whose PGD is a page of its own. */
static struct mm_struct *pt_cr3_mm(struct kunit *test)
{
	struct mm_struct *mm = kunit_kzalloc(test, sizeof(*mm), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, mm);
	/* kmalloc() aligns a power-of-two size to itself: a page. */
	mm->pgd = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mm->pgd);
	KUNIT_ASSERT_EQ(test, offset_in_page(mm->pgd), 0);
	return mm;
}

/* What the test wrote on its CPU, and where its next record is. */
struct pt_cr3_run {
	struct kunit *test;
	struct nsight_buffer *b;
	unsigned int cpu;
	size_t subbuf;		/* the sub-buffer of the next record */
	size_t off;		/* its offset in it */
	u64 written, dropped;
};

static void pt_cr3_memo_clear(void)
{
	__this_cpu_write(nsight_pt_cr3_memo.mm, NULL);
	__this_cpu_write(nsight_pt_cr3_memo.tgid, 0);
}

/*
 * A channel, and the test on this CPU until pt_cr3_run_end() with the
 * CPU's memo empty, as when a trace starts there. The first record
 * follows the first sub-buffer's header.
 */
static void pt_cr3_run_init(struct pt_cr3_run *run, struct kunit *test)
{
	run->test = test;
	run->b = nsight_test_open(test);
	migrate_disable();
	run->cpu = smp_processor_id();
	run->subbuf = 0;
	run->off = sizeof(struct nsight_crec_subbuf);
	run->written = 0;
	run->dropped = 0;
	pt_cr3_memo_clear();
}

/* The memo empty again (no capture runs during the tests). */
static void pt_cr3_run_end(struct pt_cr3_run *run)
{
	pt_cr3_memo_clear();
	migrate_enable();
}

/* The counters of the run's CPU are @written and @dropped. */
static void pt_cr3_expect_counts(struct pt_cr3_run *run, u64 written,
				 u64 dropped)
{
	struct nsight_cpu_snapshot s;

	nsight_buffer_snapshot(run->b, run->cpu, &s);
	KUNIT_EXPECT_EQ(run->test, s.written, written);
	KUNIT_EXPECT_EQ(run->test, s.dropped, dropped);
	run->written = s.written;
	run->dropped = s.dropped;
}

/* The memo of this CPU names @mm of process @tgid. */
static void pt_cr3_expect_memo(struct kunit *test,
			       const struct mm_struct *mm, pid_t tgid)
{
	const struct mm_struct *memo_mm = __this_cpu_read(nsight_pt_cr3_memo.mm);
	pid_t memo_tgid = __this_cpu_read(nsight_pt_cr3_memo.tgid);

	KUNIT_EXPECT_PTR_EQ(test, memo_mm, mm);
	KUNIT_EXPECT_EQ(test, memo_tgid, tgid);
}

/*
 * The next record is @t's pt_cr3 record with CR3 @cr3, in compact form:
 * one header word, then the struct's fields after its header.
 */
static void pt_cr3_expect_record(struct pt_cr3_run *run,
				 const struct task_struct *t, u64 cr3)
{
	struct rchan_buf *rb = *per_cpu_ptr(run->b->chan->buf, run->cpu);
	u64 *h = (void *)nsight_test_subbuf(rb, run->b->subbuf_size,
					    run->subbuf) + run->off;
	const struct nsight_rec_pt_cr3 *r = (void *)h - 8;
	u32 pti = boot_cpu_has(X86_FEATURE_PTI) ? NSIGHT_PT_CR3_PTI : 0;
	struct kunit *test = run->test;

	KUNIT_ASSERT_LE(test, run->off + sizeof(*r) - 8, run->b->subbuf_size);
	KUNIT_EXPECT_EQ(test, NSIGHT_CREC_TYPE(*h), NSIGHT_REC_PT_CR3);
	KUNIT_EXPECT_EQ(test, NSIGHT_CREC_SIZE(*h), sizeof(*r) - 8);
	KUNIT_EXPECT_NE(test, NSIGHT_CREC_TSC(*h), 0);
	KUNIT_EXPECT_EQ(test, r->cr3, cr3);
	KUNIT_EXPECT_EQ(test, r->tid, t->pid);
	KUNIT_EXPECT_EQ(test, r->pid, t->tgid);
	KUNIT_EXPECT_EQ(test, r->flags, pti);
	KUNIT_EXPECT_EQ(test, r->pad, 0);
	run->off += NSIGHT_CREC_SIZE(*h);
}

/* sched_switch's call, interrupts off as there. */
static void pt_cr3_switch(struct pt_cr3_run *run, const struct task_struct *t)
{
	unsigned long flags;

	local_irq_save(flags);
	__nsight_pt_switch(run->b, t);
	local_irq_restore(flags);
}

/* A switch to @t wrote its record (@cr3), or (@cr3 0) nothing. */
static void pt_cr3_switch_expect(struct pt_cr3_run *run,
				 const struct task_struct *t, u64 cr3)
{
	pt_cr3_switch(run, t);
	pt_cr3_expect_counts(run, run->written + !!cr3, run->dropped);
	if (cr3)
		pt_cr3_expect_record(run, t, cr3);
}

static void pt_cr3_key_off(void *unused)
{
	static_branch_disable(&nsight_pt_cr3_on);
}

/*
 * Turn the static key on for the test (off again when it ends, whatever
 * happens), with this CPU's memo empty as at the start of a trace. A
 * capture tracing with PT would own the key: the test is skipped then.
 */
static void pt_cr3_key_on(struct kunit *test)
{
	if (static_key_enabled(&nsight_pt_cr3_on))
		kunit_skip(test, "a capture is tracing with PT");
	static_branch_enable(&nsight_pt_cr3_on);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pt_cr3_key_off,
							NULL), 0);
}

/* The record of a task with an mm; none for a kernel thread. */
static void pt_cr3_test_write(struct kunit *test)
{
	struct mm_struct *mm = pt_cr3_mm(test);
	struct task_struct *t = pt_cr3_task(test, 4243, 4242, mm);
	struct task_struct *k = pt_cr3_task(test, 77, 77, NULL);
	struct pt_cr3_run run;
	unsigned long flags;

	pt_cr3_run_init(&run, test);
	local_irq_save(flags);
	nsight_pt_cr3_write(run.b, k);
	local_irq_restore(flags);
	pt_cr3_expect_counts(&run, 0, 0);
	pt_cr3_expect_memo(test, NULL, 0);

	local_irq_save(flags);
	nsight_pt_cr3_write(run.b, t);
	local_irq_restore(flags);
	pt_cr3_expect_counts(&run, 1, 0);
	/* The PGD's physical address, no PCID bits. */
	pt_cr3_expect_record(&run, t, virt_to_phys(mm->pgd));
	KUNIT_EXPECT_EQ(test, virt_to_phys(mm->pgd) & ~PAGE_MASK, 0);
	pt_cr3_expect_memo(test, mm, 4242);
	pt_cr3_run_end(&run);
}

static void pt_cr3_mmput(void *mm)
{
	mmput(mm);
}

/*
 * The test's own thread on an address space of its own (kthread_use_mm()
 * loads it as a switch to a process does): its record names the CR3 the
 * CPU holds then (the kernel half with PTI), without the PCID bits.
 */
static void pt_cr3_test_live_cr3(struct kunit *test)
{
	struct mm_struct *mm = mm_alloc();
	struct pt_cr3_run run;
	unsigned long flags, cr3;

	KUNIT_ASSERT_NOT_NULL(test, mm);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pt_cr3_mmput, mm),
			0);
	pt_cr3_run_init(&run, test);
	kthread_use_mm(mm);
	local_irq_save(flags);
	cr3 = native_read_cr3_pa();
	nsight_pt_cr3_write(run.b, current);
	local_irq_restore(flags);
	kthread_unuse_mm(mm);
	pt_cr3_expect_counts(&run, 1, 0);
	pt_cr3_expect_record(&run, current, cr3);
	KUNIT_EXPECT_EQ(test, cr3, virt_to_phys(mm->pgd));
	pt_cr3_expect_memo(test, mm, current->tgid);
	pt_cr3_run_end(&run);
}

/* Which switches write a record, in a capture's order of events. */
static void pt_cr3_test_switch(struct kunit *test)
{
	struct mm_struct *mm_a = pt_cr3_mm(test), *mm_b = pt_cr3_mm(test);
	struct task_struct *a1 = pt_cr3_task(test, 1001, 1000, mm_a);
	struct task_struct *a2 = pt_cr3_task(test, 1002, 1000, mm_a);
	struct task_struct *b1 = pt_cr3_task(test, 2001, 2000, mm_b);
	/* @mm_a freed and reused by another process. */
	struct task_struct *c1 = pt_cr3_task(test, 3001, 3000, mm_a);
	struct task_struct *k = pt_cr3_task(test, 77, 77, NULL);
	u64 cr3_a = virt_to_phys(mm_a->pgd), cr3_b = virt_to_phys(mm_b->pgd);
	struct pt_cr3_run run;

	KUNIT_ASSERT_NE(test, cr3_a, cr3_b);
	pt_cr3_key_on(test);
	pt_cr3_run_init(&run, test);
	pt_cr3_switch_expect(&run, k, 0);
	pt_cr3_expect_memo(test, NULL, 0);
	pt_cr3_switch_expect(&run, a1, cr3_a);
	pt_cr3_expect_memo(test, mm_a, 1000);
	/* Another thread of the process, a kernel thread, back to it. */
	pt_cr3_switch_expect(&run, a2, 0);
	pt_cr3_switch_expect(&run, k, 0);
	pt_cr3_expect_memo(test, mm_a, 1000);
	pt_cr3_switch_expect(&run, a1, 0);
	pt_cr3_switch_expect(&run, b1, cr3_b);
	pt_cr3_expect_memo(test, mm_b, 2000);
	pt_cr3_switch_expect(&run, a2, cr3_a);
	pt_cr3_switch_expect(&run, c1, cr3_a);
	pt_cr3_expect_memo(test, mm_a, 3000);
	pt_cr3_switch_expect(&run, c1, 0);
	pt_cr3_expect_counts(&run, 4, 0);

	/* Key off: nothing, the memo untouched. */
	pt_cr3_key_off(NULL);
	pt_cr3_switch_expect(&run, b1, 0);
	pt_cr3_expect_memo(test, mm_a, 3000);
	pt_cr3_run_end(&run);
}

/*
 * A record dropped (the CPU's buffer full) leaves the memo as it was: the
 * next switch to the task, once there is room, writes it.
 */
static void pt_cr3_test_dropped(struct kunit *test)
{
	struct mm_struct *mm = pt_cr3_mm(test);
	struct task_struct *t = pt_cr3_task(test, 4243, 4242, mm);
	struct nsight_rec_sched_switch fill;
	struct pt_cr3_run run;
	u64 n = 0;

	pt_cr3_key_on(test);
	pt_cr3_run_init(&run, test);
	do {
		memset(&fill, 0, sizeof(fill));
		nsight_rec_init(&fill.hdr, NSIGHT_REC_SCHED_SWITCH,
				sizeof(fill));
		KUNIT_ASSERT_LT(test, n++, run.b->subbuf_size * run.b->n_subbufs);
	} while (nsight_buffer_write(run.b, &fill.hdr));
	pt_cr3_expect_counts(&run, n - 1, 1);

	pt_cr3_switch(&run, t);
	pt_cr3_expect_counts(&run, n - 1, 2);
	pt_cr3_expect_memo(test, NULL, 0);

	/* A reader takes the first sub-buffer: the record starts the next. */
	relay_subbufs_consumed(run.b->chan, run.cpu, 1);
	run.subbuf = run.b->n_subbufs;
	run.off = sizeof(struct nsight_crec_subbuf);
	pt_cr3_switch_expect(&run, t, virt_to_phys(mm->pgd));
	pt_cr3_expect_memo(test, mm, 4242);
	pt_cr3_run_end(&run);
}

static struct kunit_case nsight_pt_cr3_cases[] = {
	KUNIT_CASE(pt_cr3_test_write),
	KUNIT_CASE(pt_cr3_test_live_cr3),
	KUNIT_CASE(pt_cr3_test_switch),
	KUNIT_CASE(pt_cr3_test_dropped),
	{}
};

static struct kunit_suite nsight_pt_cr3_suite = {
	.name = "nsight_pt_cr3",
	.test_cases = nsight_pt_cr3_cases,
};

kunit_test_suite(nsight_pt_cr3_suite);
/* mm_alloc() is exported to KUnit suites only. */
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
