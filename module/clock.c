// SPDX-License-Identifier: GPL-2.0
/*
 * Clock records.
 *
 * The pvclock_gtod notifier runs on every timekeeper update (and once at
 * registration) with the timekeeper lock held, so each record holds the
 * parameters in force from that instant: the analyzer converts TSC stamps
 * with the right mult/shift/base at every point instead of one linear fit.
 * A clock_sync record at capture start pairs the TSC with a system-time
 * snapshot and gives the TSC frequency.
 */
#include <linux/timekeeper_internal.h>
#include <linux/timekeeping.h>
#include <linux/clocksource.h>
#include <linux/notifier.h>
#include <linux/pvclock_gtod.h>
#include <linux/preempt.h>
#include <linux/string.h>
#include <linux/percpu.h>
#include "clock.h"
#include "fentry.h"
#include "profile.h"
#include "buffer.h"
#include "compat.h"

/*
 * When the kernel began publishing new parameters to the vDSO, on the CPU
 * doing the update (under the timekeeper lock, so one update at a time):
 * between then and the notifier, readers may see either old or new ones.
 */
static DEFINE_PER_CPU(u64, nsight_tk_update_tsc);

static __always_inline void
nsight_vsyscall_body(unsigned long ip, unsigned long parent_ip,
		     struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	nsight_prof_enter(NSIGHT_HOOK_VSYSCALL);
	this_cpu_write(nsight_tk_update_tsc, nsight_clock());
	nsight_prof_exit();
}

NSIGHT_FENTRY_CALLBACK(nsight_vsyscall)

static struct nsight_fentry nsight_clock_fentries[] = {
	{ .symbol = "update_vsyscall", .func = nsight_vsyscall,
	  .source = NSIGHT_SRC_CLOCK },
};

void nsight_timekeeper_fill(struct nsight_rec_timekeeper *r,
			    const struct timekeeper *tk, bool was_set)
{
	const struct clocksource *cs = tk->tkr_mono.clock;

	r->cycle_last = tk->tkr_mono.cycle_last;
	r->mask = tk->tkr_mono.mask;
	r->xtime_nsec = tk->tkr_mono.xtime_nsec;
	r->base_mono = ktime_to_ns(tk->tkr_mono.base);
	r->offs_real = ktime_to_ns(tk->offs_real);
	r->offs_boot = ktime_to_ns(tk->offs_boot);
	r->offs_tai = ktime_to_ns(tk->offs_tai);
	r->raw_cycle_last = tk->tkr_raw.cycle_last;
	r->raw_xtime_nsec = tk->tkr_raw.xtime_nsec;
	r->base_raw = ktime_to_ns(tk->tkr_raw.base);
	r->xtime_sec = tk->xtime_sec;
	r->mult = tk->tkr_mono.mult;
	r->shift = tk->tkr_mono.shift;
	r->raw_mult = tk->tkr_raw.mult;
	r->raw_shift = tk->tkr_raw.shift;
	r->clock_was_set_seq = tk->clock_was_set_seq;
	r->flags = was_set ? NSIGHT_TK_CLOCK_WAS_SET : 0;
	memset(r->clocksource, 0, sizeof(r->clocksource));
	r->cs_now = 0;
	if (cs) {
		strscpy(r->clocksource, cs->name, sizeof(r->clocksource));
		/* "tsc-early" (before calibration) counts TSC cycles too. */
		if (IS_ENABLED(CONFIG_X86) && !strncmp(cs->name, "tsc", 3) &&
		    (!cs->name[3] || cs->name[3] == '-'))
			r->flags |= NSIGHT_TK_CS_TSC;
	}
}

/*
 * What the last timekeeper record said (notifier calls are serialized by
 * the timekeeper lock). An update that changes none of it moves the
 * parameters by exactly what extrapolating the last record gives (the
 * tick adds cycles * mult to xtime_nsec and moves whole seconds into the
 * base, so base + (xtime_nsec + delta * mult) >> shift is the same from
 * either record): it is written only every NSIGHT_TK_EVERY_DIV-th of a
 * second, for the (TSC, clocksource) pairs a capture fits its clock with.
 */
#define NSIGHT_TK_EVERY_DIV	10

static struct {
	bool valid;
	u64 tsc;
	const struct clocksource *cs;
	u32 mult, shift, raw_mult, raw_shift, clock_was_set_seq;
	ktime_t offs_real, offs_boot, offs_tai;
} nsight_tk_last;

static bool nsight_tk_unchanged(const struct timekeeper *tk, u64 tsc,
				bool was_set)
{
	u64 every = nsight_clock_hz() / NSIGHT_TK_EVERY_DIV;

	return nsight_tk_last.valid && !was_set && every &&
	       tsc - nsight_tk_last.tsc < every &&
	       nsight_tk_last.cs == tk->tkr_mono.clock &&
	       nsight_tk_last.mult == tk->tkr_mono.mult &&
	       nsight_tk_last.shift == tk->tkr_mono.shift &&
	       nsight_tk_last.raw_mult == tk->tkr_raw.mult &&
	       nsight_tk_last.raw_shift == tk->tkr_raw.shift &&
	       nsight_tk_last.clock_was_set_seq == tk->clock_was_set_seq &&
	       nsight_tk_last.offs_real == tk->offs_real &&
	       nsight_tk_last.offs_boot == tk->offs_boot &&
	       nsight_tk_last.offs_tai == tk->offs_tai;
}

static void nsight_tk_remember(const struct timekeeper *tk, u64 tsc)
{
	nsight_tk_last.valid = true;
	nsight_tk_last.tsc = tsc;
	nsight_tk_last.cs = tk->tkr_mono.clock;
	nsight_tk_last.mult = tk->tkr_mono.mult;
	nsight_tk_last.shift = tk->tkr_mono.shift;
	nsight_tk_last.raw_mult = tk->tkr_raw.mult;
	nsight_tk_last.raw_shift = tk->tkr_raw.shift;
	nsight_tk_last.clock_was_set_seq = tk->clock_was_set_seq;
	nsight_tk_last.offs_real = tk->offs_real;
	nsight_tk_last.offs_boot = tk->offs_boot;
	nsight_tk_last.offs_tai = tk->offs_tai;
}

/*
 * Timekeeper lock held, interrupts off: copy fields and read the
 * clocksource directly, never through the timekeeping accessors.
 */
static int nsight_tk_notify(struct notifier_block *nb, unsigned long was_set,
			    void *priv)
{
	const struct timekeeper *tk = priv;
	struct clocksource *cs = tk->tkr_mono.clock;
	struct nsight_rec_timekeeper *r;
	struct nsight_wr w;
	u64 tsc, cycles;

	nsight_prof_enter(NSIGHT_HOOK_TIMEKEEPER);
	/*
	 * The clocksource read right after the TSC makes every record an
	 * exact (TSC, cycles) pair; the read function needs no lock.
	 */
	tsc = nsight_clock();
	if (nsight_tk_unchanged(tk, tsc, was_set))
		goto out;
	cycles = cs->read(cs);
	r = nsight_reserve(&w, NSIGHT_REC_TIMEKEEPER, sizeof(*r));
	if (r) {
		nsight_tk_remember(tk, tsc);
		nsight_timekeeper_fill(r, tk, was_set);
		r->tsc_cs = tsc;
		r->tsc_update = this_cpu_read(nsight_tk_update_tsc);
		r->cs_now = cycles;
		r->flags |= NSIGHT_TK_CS_NOW;
		nsight_commit(&w);
	}
out:
	this_cpu_write(nsight_tk_update_tsc, 0);
	nsight_prof_exit();
	return NOTIFY_OK;
}

static struct notifier_block nsight_tk_nb = {
	.notifier_call = nsight_tk_notify,
};

static bool nsight_tk_attached;

/* Registering logs the current parameters at once (on this CPU). */
int nsight_clock_attach(u32 sources)
{
	int ret;

	if (!(sources & BIT(NSIGHT_SRC_CLOCK)))
		return 0;
	/* Without it (no generic vDSO) records just lack tsc_update. */
	if (nsight_fentries_attach(nsight_clock_fentries,
				   ARRAY_SIZE(nsight_clock_fentries), sources))
		pr_warn("update_vsyscall cannot be hooked: no vDSO update times\n");
	/* No notifier runs: the first call writes a record. */
	nsight_tk_last.valid = false;
	ret = pvclock_gtod_register_notifier(&nsight_tk_nb);
	if (ret) {
		nsight_fentries_detach(nsight_clock_fentries,
				       ARRAY_SIZE(nsight_clock_fentries));
		return ret;
	}
	nsight_tk_attached = true;
	return 0;
}

/*
 * Unregistering takes the timekeeper lock the notifier runs under, so no
 * notifier call is in flight when this returns.
 */
void nsight_clock_detach(void)
{
	if (!nsight_tk_attached)
		return;
	pvclock_gtod_unregister_notifier(&nsight_tk_nb);
	nsight_fentries_detach(nsight_clock_fentries,
			       ARRAY_SIZE(nsight_clock_fentries));
	nsight_tk_attached = false;
}

/* Process context: pair the TSC with a system-time snapshot. */
void nsight_clock_sync_record(void)
{
	struct nsight_rec_clock_sync r;
	struct system_time_snapshot snap;

	preempt_disable();
	nsight_rec_init(&r.hdr, NSIGHT_REC_CLOCK_SYNC, sizeof(r));
	r.tsc_before = nsight_clock();
	ktime_get_snapshot(&snap);
	r.mono_ns = ktime_get_ns();
	r.tsc_after = nsight_clock();
	r.cs_cycles = snap.cycles;
	r.real_ns = ktime_to_ns(snap.real);
	r.raw_ns = ktime_to_ns(snap.raw);
	r.tsc_hz = nsight_clock_hz();
	nsight_emit(&r.hdr);
	preempt_enable();
}
