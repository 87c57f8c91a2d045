// SPDX-License-Identifier: GPL-2.0
/*
 * Intel PT: CPUID decoding, RTIT_CTL and ToPA computation, IP filter
 * parsing. Pure functions; see pt_calc.h.
 */
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/log2.h>
#include <linux/bits.h>
#include <asm/msr-index.h>
#include "pt_calc.h"

/* CPUID.(EAX=14H,ECX=0):EBX */
#define PT_EBX_CR3_FILTER	BIT(0)
#define PT_EBX_PSB_CYC		BIT(1)
#define PT_EBX_IP_FILTER	BIT(2)
#define PT_EBX_MTC		BIT(3)
#define PT_EBX_PTWRITE		BIT(4)
#define PT_EBX_PWR_EVT		BIT(5)
#define PT_EBX_EVENT_TRACE	BIT(7)
#define PT_EBX_TNT_DISABLE	BIT(8)
/* CPUID.(EAX=14H,ECX=0):ECX */
#define PT_ECX_TOPA		BIT(0)
#define PT_ECX_TOPA_MULTI	BIT(1)
#define PT_ECX_SINGLE_RANGE	BIT(2)
#define PT_ECX_TRANSPORT	BIT(3)
#define PT_ECX_LIP		BIT(31)

#define CPUID_EAX	0
#define CPUID_EBX	1
#define CPUID_ECX	2

/* IA32_RTIT_OUTPUT_MASK_PTRS (SDM 33.2.8.5) */
#define PT_MASK_LOWER		0x7fULL		/* bits 6:0, always 1 */
#define PT_MASK_INDEX_SHIFT	7		/* bits 31:7: ToPA entry index */
#define PT_MASK_INDEX_MASK	0x1ffffffULL
#define PT_MASK_OFFSET_SHIFT	32		/* bits 63:32: region offset */

/**
 * nsight_pt_caps_decode - what Intel PT can do, from CPUID values.
 * @r:      the raw register values
 * @c:      filled (zeroed first); valid also when PT cannot be used
 * @reason: set to why PT cannot be used, or NULL
 *
 * Returns 0 when the controller can use PT (@c->usable), -ENODEV when it
 * cannot: no PT, no leaf 14H, or no ToPA output.
 */
int nsight_pt_caps_decode(const struct nsight_pt_cpuid *r,
			  struct nsight_pt_caps *c, const char **reason)
{
	u32 ebx, ecx, s1_eax = 0, s1_ebx = 0;

	memset(c, 0, sizeof(*c));
	*reason = NULL;

	/* A zero numerator means "not enumerated" (SDM CPUID leaf 15H). */
	if (r->max_leaf >= 0x15 && r->leaf15[1]) {
		c->tsc_ratio_den = r->leaf15[0];
		c->tsc_ratio_num = r->leaf15[1];
		c->crystal_hz = r->leaf15[2];
	}
	if (r->max_leaf >= 0x16)
		c->nom_freq_mhz = r->leaf16_eax & 0xffff;

	if (r->max_leaf < 7 || !(r->leaf7_ebx & BIT(25))) {
		*reason = "the CPU has no Intel PT (CPUID.(EAX=07H,ECX=0):EBX[25] is 0)";
		return -ENODEV;
	}
	if (r->max_leaf < 0x14) {
		*reason = "CPUID leaf 14H (Intel PT) is not enumerated";
		return -ENODEV;
	}
	c->present = true;
	c->max_subleaf = r->leaf14[0][CPUID_EAX];
	ebx = r->leaf14[0][CPUID_EBX];
	ecx = r->leaf14[0][CPUID_ECX];
	c->cr3_filter = ebx & PT_EBX_CR3_FILTER;
	c->psb_cyc = ebx & PT_EBX_PSB_CYC;
	c->ip_filter = ebx & PT_EBX_IP_FILTER;
	c->mtc = ebx & PT_EBX_MTC;
	c->ptwrite = ebx & PT_EBX_PTWRITE;
	c->pwr_evt = ebx & PT_EBX_PWR_EVT;
	c->event_trace = ebx & PT_EBX_EVENT_TRACE;
	c->tnt_disable = ebx & PT_EBX_TNT_DISABLE;
	c->topa = ecx & PT_ECX_TOPA;
	c->topa_multi = c->topa && (ecx & PT_ECX_TOPA_MULTI);
	c->single_range = ecx & PT_ECX_SINGLE_RANGE;
	c->trace_transport = ecx & PT_ECX_TRANSPORT;
	c->lip = ecx & PT_ECX_LIP;

	if (c->max_subleaf >= 1) {
		s1_eax = r->leaf14[1][CPUID_EAX];
		s1_ebx = r->leaf14[1][CPUID_EBX];
	}
	/* Sub-leaf 1 fields are meaningful only with their EBX feature. */
	if (c->ip_filter)
		c->num_addr_ranges = min_t(u32, s1_eax & 0x7,
					   NSIGHT_PT_MAX_RANGES);
	if (c->mtc)
		c->mtc_periods = s1_eax >> 16;
	if (c->psb_cyc) {
		c->cyc_thresholds = s1_ebx & 0xffff;
		c->psb_periods = s1_ebx >> 16;
	}

	if (!c->topa) {
		*reason = "no ToPA output (CPUID.(EAX=14H,ECX=0):ECX[0] is 0)";
		return -ENODEV;
	}
	c->usable = true;
	return 0;
}

static const char *nsight_yes(bool b)
{
	return b ? "yes" : "no";
}

/* The capabilities as "name: value" lines; returns the length. */
int nsight_pt_caps_format(const struct nsight_pt_caps *c, char *buf,
			  size_t size)
{
	return scnprintf(buf, size,
			 "topa: %s\n"
			 "topa_multiple_entries: %s\n"
			 "single_range_output: %s\n"
			 "ip_filter_ranges: %u\n"
			 "mtc: %s\n"
			 "mtc_periods: 0x%x\n"
			 "psb_cyc: %s\n"
			 "cyc_thresholds: 0x%x\n"
			 "psb_periods: 0x%x\n"
			 "cr3_filter: %s\n"
			 "ptwrite: %s\n"
			 "power_event_trace: %s\n"
			 "event_trace: %s\n"
			 "tnt_disable: %s\n"
			 "lip: %s\n"
			 "tsc_ratio: %u/%u\n"
			 "crystal_hz: %u\n"
			 "nominal_mhz: %u\n",
			 nsight_yes(c->topa), nsight_yes(c->topa_multi),
			 nsight_yes(c->single_range), c->num_addr_ranges,
			 nsight_yes(c->mtc), c->mtc_periods,
			 nsight_yes(c->psb_cyc), c->cyc_thresholds,
			 c->psb_periods, nsight_yes(c->cr3_filter),
			 nsight_yes(c->ptwrite), nsight_yes(c->pwr_evt),
			 nsight_yes(c->event_trace), nsight_yes(c->tnt_disable),
			 nsight_yes(c->lip), c->tsc_ratio_num, c->tsc_ratio_den,
			 c->crystal_hz, c->nom_freq_mhz);
}

/**
 * nsight_pt_ctl_compute - the IA32_RTIT_CTL value for @cfg on a CPU @caps.
 * @ctl: the value, without TraceEn (set it to start tracing)
 *
 * Every field is checked against the SDM's #GP conditions (33.2.8.2), so
 * the value can be written as is:
 *   -ENODEV      no usable PT
 *   -EINVAL      neither kernel nor user, a field value wider than its
 *                field (MTCFreq, CycThresh, PSBFreq are 4 bits), an empty
 *                IP range (start > end)
 *   -EOPNOTSUPP  a feature the CPU lacks: ToPA or single-range output,
 *                BranchEn clear without CPUID.(14H,0):EBX[3], MTC without
 *                EBX[3] or a MTCFreq not in the MTC period bitmap, CYC or a
 *                non-zero CycThresh/PSBFreq without EBX[1] or not in their
 *                bitmaps
 *   -E2BIG       more IP filter ranges than the CPU has
 */
int nsight_pt_ctl_compute(const struct nsight_pt_caps *caps,
			  const struct nsight_pt_config *cfg, u64 *ctl)
{
	u64 v = 0;
	unsigned int i;

	if (!caps->present)
		return -ENODEV;
	if (!cfg->kernel && !cfg->user)
		return -EINVAL;
	if (cfg->mtc_freq > 15 || cfg->cyc_thresh > 15 || cfg->psb_freq > 15)
		return -EINVAL;
	if (cfg->filter.nr > NSIGHT_PT_MAX_RANGES ||
	    cfg->filter.nr > caps->num_addr_ranges)
		return -E2BIG;

	if (cfg->topa) {
		if (!caps->topa)
			return -EOPNOTSUPP;
		v |= RTIT_CTL_TOPA;
	} else if (!caps->single_range) {
		return -EOPNOTSUPP;
	}
	if (cfg->kernel)
		v |= RTIT_CTL_OS;
	if (cfg->user)
		v |= RTIT_CTL_USR;
	if (cfg->tsc)
		v |= RTIT_CTL_TSC_EN;
	if (cfg->dis_retc)
		v |= RTIT_CTL_DISRETC;
	/* BranchEn may be 0 only where COFI packets can be suppressed. */
	if (cfg->branch)
		v |= RTIT_CTL_BRANCH_EN;
	else if (!caps->mtc)
		return -EOPNOTSUPP;

	if (cfg->mtc) {
		if (!caps->mtc || !(caps->mtc_periods & BIT(cfg->mtc_freq)))
			return -EOPNOTSUPP;
		v |= RTIT_CTL_MTC_EN |
		     ((u64)cfg->mtc_freq << RTIT_CTL_MTC_RANGE_OFFSET);
	}
	if (cfg->cyc) {
		if (!caps->psb_cyc)
			return -EOPNOTSUPP;
		if (cfg->cyc_thresh &&
		    !(caps->cyc_thresholds & BIT(cfg->cyc_thresh)))
			return -EOPNOTSUPP;
		v |= RTIT_CTL_CYCLEACC |
		     ((u64)cfg->cyc_thresh << RTIT_CTL_CYC_THRESH_OFFSET);
	}
	if (cfg->psb_freq) {
		if (!caps->psb_cyc || !(caps->psb_periods & BIT(cfg->psb_freq)))
			return -EOPNOTSUPP;
		v |= (u64)cfg->psb_freq << RTIT_CTL_PSB_FREQ_OFFSET;
	}

	for (i = 0; i < cfg->filter.nr; i++) {
		if (cfg->filter.range[i].start > cfg->filter.range[i].end)
			return -EINVAL;
		v |= (u64)NSIGHT_PT_ADDR_CFG_FILTER <<
		     (RTIT_CTL_ADDR0_OFFSET + 4 * i);
	}
	*ctl = v;
	return 0;
}

/**
 * nsight_pt_pick_period - a valid encoding near @want from a CPUID bitmap.
 * @bitmap: bit n set: encoding n is valid (MTC periods, CYC thresholds,
 *          PSB periods)
 *
 * Returns the smallest valid encoding >= @want, else the largest one below
 * it, or -ENOENT when none is valid.
 */
int nsight_pt_pick_period(u16 bitmap, unsigned int want)
{
	unsigned int i;

	if (!bitmap)
		return -ENOENT;
	for (i = want; i < 16; i++)
		if (bitmap & BIT(i))
			return i;
	return fls(bitmap) - 1;
}

u8 nsight_pt_ctl_mtc_freq(u64 ctl)
{
	return (ctl & RTIT_CTL_MTC_RANGE) >> RTIT_CTL_MTC_RANGE_OFFSET;
}

u8 nsight_pt_ctl_cyc_thresh(u64 ctl)
{
	return (ctl & RTIT_CTL_CYC_THRESH) >> RTIT_CTL_CYC_THRESH_OFFSET;
}

u8 nsight_pt_ctl_psb_freq(u64 ctl)
{
	return (ctl & RTIT_CTL_PSB_FREQ) >> RTIT_CTL_PSB_FREQ_OFFSET;
}

/**
 * nsight_pt_topa_build - fill a ToPA table for output @regions.
 * @caps:        ToPA capabilities
 * @regions:     @nr output regions, in output order
 * @table_phys:  physical address of @table (4 KiB aligned)
 * @phys_bits:   MAXPHYADDR: no address may reach 2^@phys_bits
 * @mode:        circular (the last entry is END back to @table_phys: the
 *               newest bytes overwrite the oldest) or one-shot (the last
 *               region has STOP: output stops when the buffer is full;
 *               END still follows, as the SDM wants a terminated table)
 * @table:       @max_entries entries; left untouched on error
 *
 * Each region must be a power of two from 4 KiB to 128 MiB, aligned to its
 * size (SDM 33.2.7.2: a misaligned region is an operational error when
 * the entry is reached). Without multiple-entry ToPA (CPUID.(14H,0):ECX[1])
 * a table holds exactly one region and the END entry pointing back to its
 * own base.
 *
 * Returns the number of entries written (@nr + 1), -EOPNOTSUPP without
 * ToPA or with more than one region on single-entry ToPA, -E2BIG when the
 * table is too small, -EINVAL for a bad size, alignment or address.
 */
int nsight_pt_topa_build(const struct nsight_pt_caps *caps,
			 const struct nsight_pt_region *regions,
			 unsigned int nr, u64 table_phys,
			 unsigned int phys_bits, enum nsight_pt_topa_mode mode,
			 u64 *table, unsigned int max_entries)
{
	u64 limit;
	unsigned int i;

	if (!caps->topa)
		return -EOPNOTSUPP;
	if (!nr)
		return -EINVAL;
	if (nr > 1 && !caps->topa_multi)
		return -EOPNOTSUPP;
	if (nr >= max_entries)
		return -E2BIG;
	if (phys_bits < 13 || phys_bits > 52)
		return -EINVAL;
	limit = 1ULL << phys_bits;
	if ((table_phys & ~NSIGHT_PT_TOPA_ADDR_MASK) || table_phys >= limit)
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		u64 p = regions[i].phys, s = regions[i].size;

		if (s < NSIGHT_PT_REGION_MIN || s > NSIGHT_PT_REGION_MAX ||
		    !is_power_of_2(s) || (p & (s - 1)) || p >= limit ||
		    s > limit - p)
			return -EINVAL;
	}

	for (i = 0; i < nr; i++) {
		u64 enc = ilog2(regions[i].size) - 12;

		table[i] = regions[i].phys | (enc << NSIGHT_PT_TOPA_SIZE_SHIFT);
	}
	if (mode == NSIGHT_PT_TOPA_ONESHOT)
		table[nr - 1] |= NSIGHT_PT_TOPA_STOP;
	table[nr] = table_phys | NSIGHT_PT_TOPA_END;
	return nr + 1;
}

/* IA32_RTIT_OUTPUT_MASK_PTRS at start: first entry, offset 0. */
u64 nsight_pt_mask_ptrs_initial(void)
{
	return PT_MASK_LOWER;
}

/**
 * nsight_pt_topa_position - the write position from OUTPUT_MASK_PTRS.
 * @regions:   the table's @nr regions (the table at OUTPUT_BASE)
 * @mask_ptrs: IA32_RTIT_OUTPUT_MASK_PTRS: bits 31:7 the current entry's
 *             index, bits 63:32 the offset in its region (SDM 33.2.8.5)
 * @pos:       bytes from the start of the first region
 *
 * A full region (offset == size, after a STOP) and the END entry at
 * offset 0 are valid. Returns 0 or -ERANGE for a position outside the
 * buffer.
 */
int nsight_pt_topa_position(const struct nsight_pt_region *regions,
			    unsigned int nr, u64 mask_ptrs, u64 *pos)
{
	u64 idx = (mask_ptrs >> PT_MASK_INDEX_SHIFT) & PT_MASK_INDEX_MASK;
	u64 off = mask_ptrs >> PT_MASK_OFFSET_SHIFT;
	u64 p = 0;
	unsigned int i;

	if (idx > nr || (idx == nr && off) ||
	    (idx < nr && off > regions[idx].size))
		return -ERANGE;
	for (i = 0; i < idx; i++)
		p += regions[i].size;
	*pos = p + off;
	return 0;
}

/**
 * nsight_pt_read_span - where the @off-th oldest trace byte is.
 * @size:    bytes of the buffer
 * @pos:     write position (0..@size)
 * @wrapped: the output went round: the oldest byte is at @pos
 * @off:     logical offset, 0 is the oldest byte
 * @len:     set to the bytes from there on that are contiguous in the
 *           buffer (0 when @off is past the data)
 *
 * Returns the buffer offset of the byte.
 */
u64 nsight_pt_read_span(u64 size, u64 pos, bool wrapped, u64 off, u64 *len)
{
	u64 start, first;

	if (!wrapped) {
		*len = off < pos ? pos - off : 0;
		return off;
	}
	if (off >= size) {
		*len = 0;
		return 0;
	}
	start = pos < size ? pos : 0;
	first = size - start;
	if (off < first) {
		*len = first - off;
		return start + off;
	}
	*len = start - (off - first);
	return off - first;
}

/* @addr is canonical for @virt_bits-bit virtual addresses. */
bool nsight_pt_canonical(u64 addr, unsigned int virt_bits)
{
	unsigned int shift;

	if (virt_bits >= 64)
		return true;
	if (!virt_bits)
		return false;
	shift = 64 - virt_bits;
	return (u64)((s64)(addr << shift) >> shift) == addr;
}

/* One "START-END" token of @len bytes. */
static int nsight_pt_range_parse(const char *p, size_t len,
				 unsigned int virt_bits,
				 struct nsight_pt_range *r)
{
	char tok[48];
	char *dash;
	u64 a, b;

	if (len >= sizeof(tok))
		return -EINVAL;
	memcpy(tok, p, len);
	tok[len] = '\0';
	dash = strchr(tok, '-');
	if (!dash)
		return -EINVAL;
	*dash = '\0';
	if (kstrtou64(tok, 0, &a) || kstrtou64(dash + 1, 0, &b))
		return -EINVAL;
	if (a >= b || !nsight_pt_canonical(a, virt_bits) ||
	    !nsight_pt_canonical(b - 1, virt_bits))
		return -EINVAL;
	r->start = a;
	r->end = b - 1;
	return 0;
}

/**
 * nsight_pt_filter_parse - parse IP filter ranges.
 * @buf:       "none", or ranges START-END separated by commas or white
 *             space; START and END are numbers (0x for hex), END
 *             exclusive, e.g. "0xffffffff81000000-0xffffffff82000000"
 * @virt_bits: virtual address width: START and END - 1 must be canonical
 * @f:         the result, set only on success
 *
 * Returns 0, -EINVAL for bad syntax, an empty range, a non-canonical
 * address or an empty list, -E2BIG for more than NSIGHT_PT_MAX_RANGES
 * (well-formed) ranges.
 */
int nsight_pt_filter_parse(const char *buf, unsigned int virt_bits,
			   struct nsight_pt_filter *f)
{
	struct nsight_pt_filter nf = { 0 };
	struct nsight_pt_range r;
	unsigned int count = 0;
	bool none = false;
	const char *p = buf;
	int ret;

	while (*p) {
		size_t len = strcspn(p, ", \t\n");

		if (!len) {
			p++;
			continue;
		}
		if (len == 4 && !strncmp(p, "none", 4)) {
			none = true;
		} else {
			ret = nsight_pt_range_parse(p, len, virt_bits, &r);
			if (ret)
				return ret;
			if (count < NSIGHT_PT_MAX_RANGES)
				nf.range[count] = r;
			count++;
		}
		p += len;
	}
	if ((!none && !count) || (none && count))
		return -EINVAL;
	if (count > NSIGHT_PT_MAX_RANGES)
		return -E2BIG;
	nf.nr = count;
	*f = nf;
	return 0;
}

/* "none" or the ranges as parsed (END exclusive); returns the length. */
int nsight_pt_filter_format(const struct nsight_pt_filter *f, char *buf,
			    size_t size)
{
	unsigned int i;
	int len = 0;

	if (!size)
		return 0;
	buf[0] = '\0';
	if (!f->nr)
		return scnprintf(buf, size, "none");
	for (i = 0; i < f->nr && i < NSIGHT_PT_MAX_RANGES; i++)
		len += scnprintf(buf + len, size - len, "%s0x%llx-0x%llx",
				 i ? "," : "", f->range[i].start,
				 f->range[i].end + 1);
	return len;
}
