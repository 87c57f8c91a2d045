// SPDX-License-Identifier: GPL-2.0
/*
 * Intel PT controller: per-CPU ToPA buffers, RTIT MSR programming, CPU
 * hotplug and the debugfs readout. See pt.h for the behaviour and
 * pt_calc.c for the values written (checked against the Intel SDM Vol. 3C
 * chapter 33, the kernel's arch/x86/events/intel/pt.c and simple-pt).
 *
 * MSR access happens only on the CPU concerned, with interrupts off (IPI
 * via on_each_cpu(), or the CPU's own hotplug thread with interrupts
 * disabled around it), and only with the *_safe accessors: a #GP (a value
 * this CPU refuses, VMX operation) is reported, not fatal.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/cpufeature.h>
#include <asm/io.h>
#include <asm/msr.h>
#include <asm/processor.h>
#include "pt.h"
#include "pt_calc.h"
#include "buffer.h"

/*
 * Largest output region: order 10 (4 MiB), which every kernel allows.
 * MAX_ORDER was exclusive up to 6.3 and inclusive from 6.4 (one order
 * less there); 6.8 renamed it MAX_PAGE_ORDER.
 */
#ifdef MAX_PAGE_ORDER
#define NSIGHT_PT_MAX_ORDER	min_t(int, 10, MAX_PAGE_ORDER)
#else
#define NSIGHT_PT_MAX_ORDER	min_t(int, 10, MAX_ORDER - 1)
#endif

/* One page of ToPA table: the regions and the END entry. */
#define NSIGHT_PT_TABLE_ENTRIES	(PAGE_SIZE / sizeof(u64))
#define NSIGHT_PT_MAX_REGIONS	(NSIGHT_PT_TABLE_ENTRIES - 1)

/* The MTC period asked for: 2^3 crystal ticks, as perf's default. */
#define NSIGHT_PT_MTC_FREQ	3

/*
 * struct nsight_pt_cpu - one CPU's PT buffer and the state of its trace.
 * Buffer fields change only in process context with the CPU not tracing;
 * @active, @ctl, @status, @mask_ptrs, @err, @bad_msr, @lost are written on
 * the CPU itself with interrupts off.
 */
struct nsight_pt_cpu {
	struct page *table_page;	/* the ToPA table, NULL: no buffer */
	u64 *table;
	struct page **pages;		/* the regions' pages, @nr of them */
	struct nsight_pt_region *regions;
	unsigned int nr;
	u64 want;			/* the buffer size asked for */
	u64 size;			/* bytes of all regions */
	u64 dirty;			/* bytes from 0 that may be non-zero */
	bool active;			/* TraceEn set by us */
	bool stop_pending;		/* stopped, STOP record not written */
	bool lost;			/* the trace cannot be trusted */
	u64 ctl;			/* RTIT_CTL as programmed */
	/* The MSRs as found at start, put back at stop (see nsight_pt_put) */
	u64 saved_ctl;
	u64 saved_base;
	u64 saved_mask;
	u64 saved_addr[NSIGHT_PT_MAX_RANGES][2];
	unsigned int saved_ranges;
	u64 status;			/* RTIT_STATUS at stop */
	u64 mask_ptrs;			/* RTIT_OUTPUT_MASK_PTRS at stop */
	int err;
	u32 bad_msr;
	u64 pos;			/* write position after the stop */
	bool wrapped;
	u32 flags;			/* NSIGHT_PT_* of the STOP record */
};

static DEFINE_PER_CPU(struct nsight_pt_cpu, nsight_pt_pcpu);

static DEFINE_MUTEX(nsight_pt_lock);
static struct nsight_pt_caps nsight_pt_caps;
static enum nsight_pt_state nsight_pt_state = NSIGHT_PT_ABSENT;
static char nsight_pt_why[128];		/* why absent, busy or failed */
static struct nsight_pt_filter nsight_pt_filter;
static struct dentry *nsight_pt_dir;
static int nsight_pt_hp_state;		/* dynamic cpuhp state, 0: none */
/*
 * From nsight_pt_start() to nsight_pt_stop(), whether PT traces or not:
 * the filter cannot change then. Under nsight_pt_lock.
 */
static bool nsight_pt_capturing;
/*
 * PT traces. Written with nsight_pt_lock and the CPU hotplug lock held,
 * so the hotplug callbacks (which run with the hotplug lock held for
 * writing) see it stable.
 */
static bool nsight_pt_tracing;
/* What the CPUs are programmed with while tracing. */
static u64 nsight_pt_run_ctl;
static struct nsight_pt_filter nsight_pt_run_filter;
static u32 nsight_pt_run_size;

static const char *const nsight_pt_state_names[] = NSIGHT_PT_STATE_NAMES;

DEFINE_STATIC_KEY_FALSE(nsight_pt_cr3_on);
DEFINE_PER_CPU(struct nsight_pt_cr3_memo, nsight_pt_cr3_memo);

static void nsight_pt_set_state(enum nsight_pt_state state)
{
	WRITE_ONCE(nsight_pt_state, state);
}

enum nsight_pt_state nsight_pt_get_state(void)
{
	return READ_ONCE(nsight_pt_state);
}

const char *nsight_pt_state_name(enum nsight_pt_state state)
{
	if ((unsigned int)state >= ARRAY_SIZE(nsight_pt_state_names))
		return "unknown";
	return nsight_pt_state_names[state];
}

/* ---------------------------------------------------------------------- */
/* Buffers (process context)                                                */

static void nsight_pt_free_cpu(struct nsight_pt_cpu *pc)
{
	unsigned int i;

	for (i = 0; i < pc->nr; i++)
		__free_pages(pc->pages[i],
			     ilog2(pc->regions[i].size) - PAGE_SHIFT);
	kfree(pc->pages);
	kfree(pc->regions);
	if (pc->table_page)
		__free_page(pc->table_page);
	memset(pc, 0, sizeof(*pc));
}

static void nsight_pt_free_all(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		nsight_pt_free_cpu(per_cpu_ptr(&nsight_pt_pcpu, cpu));
}

/*
 * Allocate @want bytes (rounded up to pages) of output regions on @cpu's
 * node, as few as possible: order NSIGHT_PT_MAX_ORDER first, smaller ones
 * when that fails, and build the circular ToPA table over them. With
 * single-entry ToPA, one region only.
 */
static int nsight_pt_alloc_cpu(unsigned int cpu, struct nsight_pt_cpu *pc,
			       u64 want)
{
	unsigned int max_nr = nsight_pt_caps.topa_multi ?
			      NSIGHT_PT_MAX_REGIONS : 1;
	int node = cpu_to_node(cpu);
	int order = NSIGHT_PT_MAX_ORDER;
	u64 left = round_up(want, PAGE_SIZE);
	int ret;

	pc->pages = kcalloc_node(max_nr, sizeof(*pc->pages), GFP_KERNEL, node);
	pc->regions = kcalloc_node(max_nr, sizeof(*pc->regions), GFP_KERNEL,
				   node);
	pc->table_page = alloc_pages_node(node, GFP_KERNEL | __GFP_ZERO, 0);
	if (!pc->pages || !pc->regions || !pc->table_page)
		goto nomem;
	pc->table = page_address(pc->table_page);

	while (left && pc->nr < max_nr) {
		int o = min_t(int, order, ilog2(left >> PAGE_SHIFT));
		gfp_t gfp = GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN;
		struct page *p;

		if (o)
			gfp |= __GFP_NORETRY;
		p = alloc_pages_node(node, gfp, o);
		if (!p) {
			if (!o)
				goto nomem;
			order = o - 1;
			continue;
		}
		pc->pages[pc->nr] = p;
		pc->regions[pc->nr].phys = page_to_phys(p);
		pc->regions[pc->nr].size = PAGE_SIZE << o;
		pc->nr++;
		pc->size += PAGE_SIZE << o;
		left -= PAGE_SIZE << o;
		cond_resched();
	}
	if (left && nsight_pt_caps.topa_multi)
		pr_info("cpu %u: PT buffer of %llu bytes, not %llu: memory is fragmented\n",
			cpu, pc->size, want);
	pc->want = want;

	ret = nsight_pt_topa_build(&nsight_pt_caps, pc->regions, pc->nr,
				   page_to_phys(pc->table_page),
				   boot_cpu_data.x86_phys_bits,
				   NSIGHT_PT_TOPA_CIRCULAR, pc->table,
				   NSIGHT_PT_TABLE_ENTRIES);
	if (ret < 0) {
		pr_warn("cpu %u: cannot build the ToPA table: %d\n", cpu, ret);
		nsight_pt_free_cpu(pc);
		return ret;
	}
	return 0;

nomem:
	nsight_pt_free_cpu(pc);
	return -ENOMEM;
}

/* Zero bytes [0, @len) of the buffer. */
static void nsight_pt_zero(struct nsight_pt_cpu *pc, u64 len)
{
	unsigned int i;

	for (i = 0; i < pc->nr && len; i++) {
		u64 n = min(len, pc->regions[i].size);

		memset(page_address(pc->pages[i]), 0, n);
		len -= n;
		cond_resched();
	}
}

/* Whether any byte in [@from, @to) of the buffer is non-zero. */
static bool nsight_pt_nonzero(struct nsight_pt_cpu *pc, u64 from, u64 to)
{
	u64 base = 0;
	unsigned int i;

	for (i = 0; i < pc->nr && base < to; i++) {
		u64 s = pc->regions[i].size;

		if (from < base + s) {
			u64 a = max(from, base) - base;
			u64 b = min(to, base + s) - base;

			if (memchr_inv(page_address(pc->pages[i]) + a, 0, b - a))
				return true;
			cond_resched();
		}
		base += s;
	}
	return false;
}

/*
 * Get @cpu's buffer ready for a capture of @size bytes per CPU: allocate
 * it (or reallocate it for another size) or clear what the last capture
 * wrote. Sleeps.
 */
static int nsight_pt_prepare_cpu(unsigned int cpu, u32 size)
{
	struct nsight_pt_cpu *pc = per_cpu_ptr(&nsight_pt_pcpu, cpu);
	int ret;

	if (pc->table_page && pc->want != size)
		nsight_pt_free_cpu(pc);
	if (!pc->table_page) {
		ret = nsight_pt_alloc_cpu(cpu, pc, size);
		if (ret)
			return ret;
	} else {
		nsight_pt_zero(pc, pc->dirty);
	}
	pc->dirty = 0;
	pc->pos = 0;
	pc->wrapped = false;
	pc->lost = false;
	pc->flags = 0;
	pc->status = 0;
	pc->mask_ptrs = 0;
	pc->stop_pending = false;
	pc->err = 0;
	return 0;
}

/*
 * After a stop: where the output ended and whether it went round. The
 * buffer is zeroed before every capture, so it wrapped when anything
 * after the write position is non-zero (PT writes no zero runs that long
 * in practice; if it did, only the oldest bytes would be missed).
 */
static void nsight_pt_finish_cpu(struct nsight_pt_cpu *pc)
{
	u64 pos;

	if (!pc->lost &&
	    nsight_pt_topa_position(pc->regions, pc->nr, pc->mask_ptrs, &pos)) {
		pc->flags |= NSIGHT_PT_ERROR;
		pc->lost = true;
	}
	if (pc->lost) {
		pc->pos = 0;
		pc->wrapped = false;
		pc->dirty = pc->size;
		return;
	}
	pc->pos = pos;
	pc->wrapped = pos < pc->size && nsight_pt_nonzero(pc, pos, pc->size);
	if (pc->wrapped)
		pc->flags |= NSIGHT_PT_WRAPPED;
	pc->dirty = pc->wrapped ? pc->size : pos;
}

/* ---------------------------------------------------------------------- */
/* On the CPU, interrupts off                                               */

static void nsight_pt_emit(struct nsight_pt_cpu *pc, u32 flags)
{
	struct nsight_rec_pt r;

	memset(&r, 0, sizeof(r));
	nsight_rec_init(&r.hdr, NSIGHT_REC_PT, sizeof(r));
	r.rtit_ctl = pc->ctl;
	r.rtit_status = pc->status;
	if (flags & NSIGHT_PT_STOP)
		r.bytes = pc->wrapped ? pc->size : pc->pos;
	r.tsc_ratio_den = nsight_pt_caps.tsc_ratio_den;
	r.tsc_ratio_num = nsight_pt_caps.tsc_ratio_num;
	r.crystal_hz = nsight_pt_caps.crystal_hz;
	r.flags = flags;
	r.mtc_freq = nsight_pt_ctl_mtc_freq(pc->ctl);
	r.cyc_thresh = nsight_pt_ctl_cyc_thresh(pc->ctl);
	r.psb_freq = nsight_pt_ctl_psb_freq(pc->ctl);
	r.nom_freq = nsight_pt_caps.nom_freq_mhz;
	nsight_emit(&r.hdr);
}

/*
 * The pt_cr3 record of @t: its PGD's physical address is the CR3 the
 * kernel loads for it (build_cr3(): __sme_pa(pgd) | PCID; there is no
 * memory encryption bit with Intel PT), and with PTI user code runs on
 * the PGD's user half, a page above. Interrupts off. A dropped record
 * leaves the memo as it was: the next switch to @t tries again.
 */
void nsight_pt_cr3_write(struct nsight_buffer *b, const struct task_struct *t)
{
	const struct mm_struct *mm = READ_ONCE(t->mm);
	struct nsight_rec_pt_cr3 *r;
	struct nsight_wr w;

	if (!mm)
		return;
	r = __nsight_reserve(b, &w, NSIGHT_REC_PT_CR3, sizeof(*r));
	if (!r)
		return;
	r->cr3 = __pa(mm->pgd);
	r->tid = t->pid;
	r->pid = t->tgid;
	r->flags = boot_cpu_has(X86_FEATURE_PTI) ? NSIGHT_PT_CR3_PTI : 0;
	r->pad = 0;
	nsight_commit(&w);
	__this_cpu_write(nsight_pt_cr3_memo.mm, mm);
	__this_cpu_write(nsight_pt_cr3_memo.tgid, t->tgid);
}

/* Forget what this CPU recorded, and record the task it runs (if any). */
static void nsight_pt_cr3_restart(void)
{
	__this_cpu_write(nsight_pt_cr3_memo.mm, NULL);
	__this_cpu_write(nsight_pt_cr3_memo.tgid, 0);
	nsight_pt_cr3_write(&nsight_buf, current);
}

static int nsight_pt_wrmsr(struct nsight_pt_cpu *pc, u32 msr, u64 val)
{
	if (wrmsrl_safe(msr, val)) {
		pc->bad_msr = msr;
		return -EIO;
	}
	return 0;
}

/* Whether another user has PT on this CPU: -EBUSY, -EIO or 0 in pc->err. */
static void nsight_pt_probe_ipi(void *unused)
{
	struct nsight_pt_cpu *pc = this_cpu_ptr(&nsight_pt_pcpu);
	u64 ctl;

	pc->err = 0;
	if (rdmsrl_safe(MSR_IA32_RTIT_CTL, &ctl)) {
		pc->bad_msr = MSR_IA32_RTIT_CTL;
		pc->err = -EIO;
	} else if (ctl & RTIT_CTL_TRACEEN) {
		pc->err = -EBUSY;
	}
}

/*
 * Put back the MSRs nsight_pt_cpu_start() wrote, as they were before
 * (TraceEn is clear). perf's intel_pt caches what it last wrote to
 * OUTPUT_BASE, OUTPUT_MASK_PTRS and ADDRn_A/B and skips writing the same
 * value again; had we left ours in place, its next session could trace
 * into our (later freed) buffer.
 */
static void nsight_pt_put(struct nsight_pt_cpu *pc)
{
	unsigned int i;

	wrmsrl_safe(MSR_IA32_RTIT_CTL, pc->saved_ctl);
	wrmsrl_safe(MSR_IA32_RTIT_OUTPUT_BASE, pc->saved_base);
	wrmsrl_safe(MSR_IA32_RTIT_OUTPUT_MASK, pc->saved_mask);
	for (i = 0; i < pc->saved_ranges; i++) {
		wrmsrl_safe(MSR_IA32_RTIT_ADDR0_A + 2 * i, pc->saved_addr[i][0]);
		wrmsrl_safe(MSR_IA32_RTIT_ADDR0_B + 2 * i, pc->saved_addr[i][1]);
	}
}

/*
 * Program this CPU and set TraceEn (SDM 33.2.8: the output and filter
 * MSRs may only be written while TraceEn is 0). Nothing is written when
 * TraceEn is already set. Result in pc->err.
 */
static void nsight_pt_cpu_start(struct nsight_pt_cpu *pc)
{
	u64 ctl = nsight_pt_run_ctl | RTIT_CTL_TRACEEN;
	unsigned int i, nr = nsight_pt_run_filter.nr;

	nsight_pt_probe_ipi(NULL);
	if (pc->err)
		return;
	if (!pc->table_page) {
		pc->err = -ENOMEM;
		return;
	}
	pc->saved_ranges = 0;
	if (rdmsrl_safe(MSR_IA32_RTIT_CTL, &pc->saved_ctl) ||
	    rdmsrl_safe(MSR_IA32_RTIT_OUTPUT_BASE, &pc->saved_base) ||
	    rdmsrl_safe(MSR_IA32_RTIT_OUTPUT_MASK, &pc->saved_mask)) {
		pc->bad_msr = MSR_IA32_RTIT_OUTPUT_BASE;
		pc->err = -EIO;
		return;
	}
	for (i = 0; i < nr; i++)
		if (rdmsrl_safe(MSR_IA32_RTIT_ADDR0_A + 2 * i,
				&pc->saved_addr[i][0]) ||
		    rdmsrl_safe(MSR_IA32_RTIT_ADDR0_B + 2 * i,
				&pc->saved_addr[i][1])) {
			pc->bad_msr = MSR_IA32_RTIT_ADDR0_A + 2 * i;
			pc->err = -EIO;
			return;
		}
	pc->saved_ranges = nr;

	if (nsight_pt_wrmsr(pc, MSR_IA32_RTIT_OUTPUT_BASE,
			    page_to_phys(pc->table_page)) ||
	    nsight_pt_wrmsr(pc, MSR_IA32_RTIT_OUTPUT_MASK,
			    nsight_pt_mask_ptrs_initial()) ||
	    nsight_pt_wrmsr(pc, MSR_IA32_RTIT_STATUS, 0))
		goto fail;
	for (i = 0; i < nr; i++)
		if (nsight_pt_wrmsr(pc, MSR_IA32_RTIT_ADDR0_A + 2 * i,
				    nsight_pt_run_filter.range[i].start) ||
		    nsight_pt_wrmsr(pc, MSR_IA32_RTIT_ADDR0_B + 2 * i,
				    nsight_pt_run_filter.range[i].end))
			goto fail;
	if (nsight_pt_wrmsr(pc, MSR_IA32_RTIT_CTL, ctl))
		goto fail;
	pc->ctl = ctl;
	pc->active = true;
	nsight_pt_emit(pc, NSIGHT_PT_START);
	nsight_pt_cr3_restart();
	return;

fail:
	/* TraceEn was never set: nothing traces. */
	nsight_pt_put(pc);
	pc->err = -EIO;
}

static void nsight_pt_start_ipi(void *unused)
{
	nsight_pt_cpu_start(this_cpu_ptr(&nsight_pt_pcpu));
}

/*
 * Clear TraceEn, which flushes the trace to memory (SDM 33.2.8.2), and
 * read where it ended. If RTIT_CTL or OUTPUT_BASE are no longer ours,
 * someone else reprogrammed PT: leave it alone, the trace is lost.
 */
static void nsight_pt_cpu_stop(struct nsight_pt_cpu *pc)
{
	u64 ctl, base;

	if (!pc->active)
		return;
	pc->active = false;
	pc->stop_pending = true;
	pc->flags = NSIGHT_PT_STOP;
	if (rdmsrl_safe(MSR_IA32_RTIT_CTL, &ctl) ||
	    rdmsrl_safe(MSR_IA32_RTIT_OUTPUT_BASE, &base) ||
	    (ctl & ~RTIT_CTL_TRACEEN) != (pc->ctl & ~RTIT_CTL_TRACEEN) ||
	    base != page_to_phys(pc->table_page))
		goto lost;
	/* Only TraceEn changes: the other bits may not change with it set. */
	if ((ctl & RTIT_CTL_TRACEEN) &&
	    wrmsrl_safe(MSR_IA32_RTIT_CTL, ctl & ~RTIT_CTL_TRACEEN))
		goto lost;
	/* The trace is in memory; make it visible before anyone reads it. */
	wmb();
	if (rdmsrl_safe(MSR_IA32_RTIT_STATUS, &pc->status) ||
	    rdmsrl_safe(MSR_IA32_RTIT_OUTPUT_MASK, &pc->mask_ptrs))
		goto lost;
	if (pc->status & RTIT_STATUS_ERROR)
		pc->flags |= NSIGHT_PT_ERROR;
	if (pc->status & RTIT_STATUS_STOPPED)
		pc->flags |= NSIGHT_PT_STOPPED;
	nsight_pt_put(pc);
	return;

lost:
	pc->flags |= NSIGHT_PT_ERROR;
	pc->lost = true;
}

static void nsight_pt_stop_ipi(void *unused)
{
	nsight_pt_cpu_stop(this_cpu_ptr(&nsight_pt_pcpu));
}

static void nsight_pt_emit_stop(struct nsight_pt_cpu *pc)
{
	if (!pc->stop_pending)
		return;
	pc->stop_pending = false;
	nsight_pt_emit(pc, pc->flags);
}

static void nsight_pt_emit_stop_ipi(void *unused)
{
	nsight_pt_emit_stop(this_cpu_ptr(&nsight_pt_pcpu));
}

/* ---------------------------------------------------------------------- */
/* Start and stop                                                           */

/* Stop every online CPU. nsight_pt_lock and the hotplug lock held. */
static void nsight_pt_stop_cpus(void)
{
	unsigned int cpu;

	on_each_cpu(nsight_pt_stop_ipi, NULL, 1);
	for_each_online_cpu(cpu) {
		struct nsight_pt_cpu *pc = per_cpu_ptr(&nsight_pt_pcpu, cpu);

		if (pc->stop_pending)
			nsight_pt_finish_cpu(pc);
	}
	on_each_cpu(nsight_pt_emit_stop_ipi, NULL, 1);
}

static const char nsight_pt_busy_fmt[] =
	"IA32_RTIT_CTL.TraceEn is set on cpu %u: another user (perf's intel_pt) has Intel PT";

static __printf(1, 2) void nsight_pt_why_set(const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vscnprintf(nsight_pt_why, sizeof(nsight_pt_why), fmt, args);
	va_end(args);
}

/* What nsight traces: see pt.h. */
static void nsight_pt_default_config(struct nsight_pt_config *cfg)
{
	int mtc;

	memset(cfg, 0, sizeof(*cfg));
	cfg->branch = true;
	cfg->tsc = true;
	cfg->kernel = true;
	cfg->user = true;
	cfg->topa = true;
	mtc = nsight_pt_pick_period(nsight_pt_caps.mtc_periods,
				    NSIGHT_PT_MTC_FREQ);
	if (nsight_pt_caps.mtc && mtc >= 0) {
		cfg->mtc = true;
		cfg->mtc_freq = mtc;
	}
	cfg->filter = nsight_pt_filter;
}

int nsight_pt_start(u32 buffer_size)
{
	struct nsight_pt_config cfg;
	unsigned int cpu;
	bool busy = false, failed = false;
	int ret = 0;
	u64 ctl;

	mutex_lock(&nsight_pt_lock);
	nsight_pt_capturing = true;
	if (!nsight_pt_caps.usable || nsight_pt_tracing)
		goto out;

	nsight_pt_default_config(&cfg);
	ret = nsight_pt_ctl_compute(&nsight_pt_caps, &cfg, &ctl);
	if (ret) {
		nsight_pt_why_set("this CPU cannot trace with the configuration asked for (%d)",
				  ret);
		pr_warn("PT: %s\n", nsight_pt_why);
		nsight_pt_set_state(NSIGHT_PT_FAILED);
		goto out;
	}

	cpus_read_lock();
	/* Touch nothing where someone else owns PT. */
	on_each_cpu(nsight_pt_probe_ipi, NULL, 1);
	for_each_online_cpu(cpu) {
		struct nsight_pt_cpu *pc = per_cpu_ptr(&nsight_pt_pcpu, cpu);

		if (pc->err == -EBUSY) {
			nsight_pt_why_set(nsight_pt_busy_fmt, cpu);
			pr_info("PT: %s\n", nsight_pt_why);
			nsight_pt_set_state(NSIGHT_PT_BUSY);
			goto out_unlock;
		}
	}

	for_each_online_cpu(cpu) {
		ret = nsight_pt_prepare_cpu(cpu, buffer_size);
		if (ret) {
			nsight_pt_why_set("cannot allocate the PT buffer of cpu %u (%d)",
					  cpu, ret);
			pr_warn("PT: %s\n", nsight_pt_why);
			nsight_pt_free_all();
			nsight_pt_set_state(NSIGHT_PT_FAILED);
			goto out_unlock;
		}
	}

	nsight_pt_run_ctl = ctl;
	nsight_pt_run_filter = cfg.filter;
	nsight_pt_run_size = buffer_size;
	/* pt_cr3 from sched_switch before the trace starts: none is missed. */
	static_branch_enable_cpuslocked(&nsight_pt_cr3_on);
	on_each_cpu(nsight_pt_start_ipi, NULL, 1);
	for_each_online_cpu(cpu) {
		struct nsight_pt_cpu *pc = per_cpu_ptr(&nsight_pt_pcpu, cpu);

		if (pc->err == -EBUSY) {
			busy = true;
			nsight_pt_why_set(nsight_pt_busy_fmt, cpu);
		} else if (pc->err) {
			failed = true;
			nsight_pt_why_set("cpu %u: MSR 0x%x refused the value (%d)",
					  cpu, pc->bad_msr, pc->err);
		}
	}
	if (busy || failed) {
		/* Undo: the CPUs that started write a START and a STOP. */
		nsight_pt_stop_cpus();
		static_branch_disable_cpuslocked(&nsight_pt_cr3_on);
		pr_warn("PT: %s\n", nsight_pt_why);
		nsight_pt_set_state(failed ? NSIGHT_PT_FAILED : NSIGHT_PT_BUSY);
		ret = failed ? -EIO : 0;
		goto out_unlock;
	}
	nsight_pt_tracing = true;
	nsight_pt_why[0] = '\0';
	nsight_pt_set_state(NSIGHT_PT_TRACING);

out_unlock:
	cpus_read_unlock();
out:
	mutex_unlock(&nsight_pt_lock);
	return ret;
}

void nsight_pt_stop(void)
{
	mutex_lock(&nsight_pt_lock);
	nsight_pt_capturing = false;
	if (nsight_pt_tracing) {
		cpus_read_lock();
		nsight_pt_stop_cpus();
		static_branch_disable_cpuslocked(&nsight_pt_cr3_on);
		nsight_pt_tracing = false;
		cpus_read_unlock();
		nsight_pt_set_state(NSIGHT_PT_AVAILABLE);
	}
	mutex_unlock(&nsight_pt_lock);
}

/* ---------------------------------------------------------------------- */
/* CPU hotplug: on the CPU, in its hotplug thread (may sleep)               */

static int nsight_pt_cpu_online(unsigned int cpu)
{
	struct nsight_pt_cpu *pc = per_cpu_ptr(&nsight_pt_pcpu, cpu);
	int ret;

	if (!nsight_pt_tracing)
		return 0;
	ret = nsight_pt_prepare_cpu(cpu, nsight_pt_run_size);
	if (ret) {
		pr_warn("PT: cpu %u came online, no buffer for it (%d)\n",
			cpu, ret);
		return 0;
	}
	local_irq_disable();
	nsight_pt_cpu_start(pc);
	local_irq_enable();
	if (pc->err)
		pr_warn("PT: cpu %u came online, cannot trace on it (%d, MSR 0x%x)\n",
			cpu, pc->err, pc->bad_msr);
	return 0;
}

static int nsight_pt_cpu_offline(unsigned int cpu)
{
	struct nsight_pt_cpu *pc = per_cpu_ptr(&nsight_pt_pcpu, cpu);

	if (!nsight_pt_tracing)
		return 0;
	local_irq_disable();
	nsight_pt_cpu_stop(pc);
	local_irq_enable();
	if (!pc->stop_pending)
		return 0;
	nsight_pt_finish_cpu(pc);
	local_irq_disable();
	nsight_pt_emit_stop(pc);
	local_irq_enable();
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Readout: <debugfs>/nsight/pt/cpuN                                        */

static ssize_t nsight_pt_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	unsigned int cpu = (unsigned long)file->private_data;
	struct nsight_pt_cpu *pc = per_cpu_ptr(&nsight_pt_pcpu, cpu);
	ssize_t done = 0;

	if (*ppos < 0)
		return -EINVAL;
	mutex_lock(&nsight_pt_lock);
	if (nsight_pt_tracing) {
		done = -EBUSY;
		goto out;
	}
	while (count) {
		u64 len, lin, base = 0, n;
		unsigned int i;

		lin = nsight_pt_read_span(pc->size, pc->pos, pc->wrapped,
					  *ppos, &len);
		if (!len)
			break;
		for (i = 0; i < pc->nr; i++) {
			if (lin < base + pc->regions[i].size)
				break;
			base += pc->regions[i].size;
		}
		if (WARN_ON_ONCE(i == pc->nr))
			break;
		n = min3(len, base + pc->regions[i].size - lin, (u64)count);
		if (copy_to_user(ubuf + done,
				 page_address(pc->pages[i]) + (lin - base), n)) {
			if (!done)
				done = -EFAULT;
			break;
		}
		done += n;
		count -= n;
		*ppos += n;
	}
out:
	mutex_unlock(&nsight_pt_lock);
	return done;
}

static const struct file_operations nsight_pt_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = nsight_pt_read,
	.llseek = default_llseek,
};

/* ---------------------------------------------------------------------- */
/* sysfs helpers                                                            */

int nsight_pt_show(char *buf, size_t size)
{
	enum nsight_pt_state state;
	int len;

	mutex_lock(&nsight_pt_lock);
	state = nsight_pt_get_state();
	len = scnprintf(buf, size, "state: %s\n", nsight_pt_state_name(state));
	if (state != NSIGHT_PT_AVAILABLE && state != NSIGHT_PT_TRACING &&
	    nsight_pt_why[0])
		len += scnprintf(buf + len, size - len, "reason: %s\n",
				 nsight_pt_why);
	if (state == NSIGHT_PT_TRACING)
		len += scnprintf(buf + len, size - len,
				 "buffer_size: %u\nrtit_ctl: 0x%llx\n",
				 nsight_pt_run_size,
				 nsight_pt_run_ctl | RTIT_CTL_TRACEEN);
	if (nsight_pt_caps.present)
		len += nsight_pt_caps_format(&nsight_pt_caps, buf + len,
					     size - len);
	mutex_unlock(&nsight_pt_lock);
	return len;
}

int nsight_pt_filter_store(const char *buf)
{
	struct nsight_pt_filter f;
	int ret;

	ret = nsight_pt_filter_parse(buf, boot_cpu_data.x86_virt_bits, &f);
	if (ret)
		return ret;
	if (nsight_pt_caps.present && f.nr > nsight_pt_caps.num_addr_ranges)
		return -E2BIG;
	mutex_lock(&nsight_pt_lock);
	if (nsight_pt_capturing)
		ret = -EBUSY;
	else
		nsight_pt_filter = f;
	mutex_unlock(&nsight_pt_lock);
	return ret;
}

int nsight_pt_filter_show(char *buf, size_t size)
{
	int len;

	mutex_lock(&nsight_pt_lock);
	len = nsight_pt_filter_format(&nsight_pt_filter, buf, size);
	mutex_unlock(&nsight_pt_lock);
	return len;
}

/* ---------------------------------------------------------------------- */
/* Init and exit                                                            */

static void nsight_pt_detect(void)
{
	struct nsight_pt_cpuid r = { 0 };
	const char *reason;
	u32 unused;

	r.max_leaf = cpuid_eax(0);
	if (r.max_leaf >= 7)
		cpuid_count(7, 0, &unused, &r.leaf7_ebx, &unused, &unused);
	if (r.max_leaf >= 0x14) {
		cpuid_count(0x14, 0, &r.leaf14[0][0], &r.leaf14[0][1],
			    &r.leaf14[0][2], &r.leaf14[0][3]);
		if (r.leaf14[0][0] >= 1)
			cpuid_count(0x14, 1, &r.leaf14[1][0], &r.leaf14[1][1],
				    &r.leaf14[1][2], &r.leaf14[1][3]);
	}
	if (r.max_leaf >= 0x15)
		cpuid(0x15, &r.leaf15[0], &r.leaf15[1], &r.leaf15[2], &unused);
	if (r.max_leaf >= 0x16)
		r.leaf16_eax = cpuid_eax(0x16);

	if (nsight_pt_caps_decode(&r, &nsight_pt_caps, &reason)) {
		nsight_pt_why_set("%s", reason);
	} else if (!boot_cpu_has(X86_FEATURE_INTEL_PT)) {
		/* CPUID has it, but the kernel turned it off. */
		nsight_pt_caps.usable = false;
		nsight_pt_why_set("the kernel disabled Intel PT (no intel_pt in /proc/cpuinfo)");
	}
	if (!nsight_pt_caps.usable) {
		nsight_pt_set_state(NSIGHT_PT_ABSENT);
		pr_info("PT: absent: %s\n", nsight_pt_why);
		return;
	}
	nsight_pt_set_state(NSIGHT_PT_AVAILABLE);
	pr_info("PT: available (%u filter ranges, %s ToPA)\n",
		nsight_pt_caps.num_addr_ranges,
		nsight_pt_caps.topa_multi ? "multiple-entry" : "single-entry");
}

int nsight_pt_init(struct dentry *debugfs_dir)
{
	unsigned int cpu;
	char name[16];
	int ret;

	nsight_pt_detect();
	nsight_pt_dir = debugfs_create_dir("pt", debugfs_dir);
	if (IS_ERR(nsight_pt_dir)) {
		ret = PTR_ERR(nsight_pt_dir);
		nsight_pt_dir = NULL;
		return ret;
	}
	for_each_possible_cpu(cpu) {
		snprintf(name, sizeof(name), "cpu%u", cpu);
		debugfs_create_file(name, 0400, nsight_pt_dir,
				    (void *)(unsigned long)cpu, &nsight_pt_fops);
	}
	if (nsight_pt_caps.usable) {
		ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN,
						"nsight/pt:online",
						nsight_pt_cpu_online,
						nsight_pt_cpu_offline);
		if (ret < 0) {
			debugfs_remove_recursive(nsight_pt_dir);
			nsight_pt_dir = NULL;
			return ret;
		}
		nsight_pt_hp_state = ret;
	}
	return 0;
}

void nsight_pt_exit(void)
{
	nsight_pt_stop();
	if (nsight_pt_hp_state > 0)
		cpuhp_remove_state_nocalls(nsight_pt_hp_state);
	nsight_pt_hp_state = 0;
	/* Waits for readers still in nsight_pt_read(). */
	debugfs_remove_recursive(nsight_pt_dir);
	nsight_pt_dir = NULL;
	nsight_pt_free_all();
}
