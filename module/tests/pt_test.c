// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the pure part of the Intel PT controller (pt_calc.c): CPUID
 * decoding for CPUs with and without each capability, RTIT_CTL values and
 * their #GP rules, ToPA tables, write positions, readout order, IP filter
 * parsing.
 */
#include <kunit/test.h>
#include <linux/string.h>
#include <linux/sizes.h>
#include <asm/msr-index.h>
#include "../pt_calc.h"

/* ---------------------------------------------------------------------- */
/* CPUID variants                                                           */

#define LEAF7_PT	BIT(25)

enum pt_test_cpu {
	CPU_NO_PT,		/* leaf 7 EBX[25] clear */
	CPU_OLD,		/* max leaf 5: no leaf 7 at all */
	CPU_NO_LEAF14,		/* PT bit set, max leaf 0xd */
	CPU_NO_TOPA,		/* PT with single-range output only */
	CPU_BDW,		/* single-entry ToPA, no MTC/CYC/IP filter */
	CPU_SKL,		/* everything, 2 ranges, MTC, CYC, PSB */
	CPU_NO_MTC,		/* SKL without EBX[3] */
	CPU_NO_CYC,		/* SKL without EBX[1] */
	CPU_NO_IPF,		/* SKL without EBX[2] */
	CPU_SUBLEAF0,		/* SKL with max sub-leaf 0 */
	CPU_7RANGES,		/* sub-leaf 1 claims 7 ranges */
	CPU_NO_LEAF15,		/* leaf 15H EBX 0: ratio not enumerated */
	CPU_MAX14,		/* max leaf 14H: no 15H/16H */
	CPU_4RANGES,		/* 4 ranges, LIP, PTWRITE, PwrEvt */
	__CPU_COUNT
};

#define SKL_EBX		0x0f		/* CR3, PSB/CYC, IP filter, MTC */
#define SKL_ECX		0x80000007	/* ToPA, multi, single, LIP */
#define SKL_S1_EAX	0x02490002	/* MTC periods 0,3,6,9; 2 ranges */
#define SKL_S1_EBX	0x003f3fff	/* PSB 0-5, CYC 0-13 */

static const struct nsight_pt_cpuid pt_test_cpuid[__CPU_COUNT] = {
	[CPU_NO_PT] = { .max_leaf = 0x16, .leaf7_ebx = (u32)~LEAF7_PT,
			.leaf14 = { { 1, SKL_EBX, SKL_ECX } },
			.leaf15 = { 2, 200, 24000000 }, .leaf16_eax = 2400 },
	[CPU_OLD] = { .max_leaf = 5, .leaf7_ebx = LEAF7_PT,
		      .leaf14 = { { 1, SKL_EBX, SKL_ECX } } },
	[CPU_NO_LEAF14] = { .max_leaf = 0xd, .leaf7_ebx = LEAF7_PT,
			    .leaf14 = { { 1, SKL_EBX, SKL_ECX } } },
	[CPU_NO_TOPA] = { .max_leaf = 0x14, .leaf7_ebx = LEAF7_PT,
			  .leaf14 = { { 0, 0, 0x4 } } },
	[CPU_BDW] = { .max_leaf = 0x14, .leaf7_ebx = LEAF7_PT,
		      .leaf14 = { { 0, 0x1, 0x1 } } },
	[CPU_SKL] = { .max_leaf = 0x16, .leaf7_ebx = LEAF7_PT,
		      .leaf14 = { { 1, SKL_EBX, SKL_ECX },
				  { SKL_S1_EAX, SKL_S1_EBX } },
		      .leaf15 = { 2, 188, 0 }, .leaf16_eax = 0x834 },
	[CPU_NO_MTC] = { .max_leaf = 0x16, .leaf7_ebx = LEAF7_PT,
			 .leaf14 = { { 1, SKL_EBX & ~0x8, SKL_ECX },
				     { SKL_S1_EAX, SKL_S1_EBX } } },
	[CPU_NO_CYC] = { .max_leaf = 0x16, .leaf7_ebx = LEAF7_PT,
			 .leaf14 = { { 1, SKL_EBX & ~0x2, SKL_ECX },
				     { SKL_S1_EAX, SKL_S1_EBX } } },
	[CPU_NO_IPF] = { .max_leaf = 0x16, .leaf7_ebx = LEAF7_PT,
			 .leaf14 = { { 1, SKL_EBX & ~0x4, SKL_ECX },
				     { SKL_S1_EAX, SKL_S1_EBX } } },
	[CPU_SUBLEAF0] = { .max_leaf = 0x16, .leaf7_ebx = LEAF7_PT,
			   .leaf14 = { { 0, SKL_EBX, SKL_ECX },
				       { SKL_S1_EAX, SKL_S1_EBX } } },
	[CPU_7RANGES] = { .max_leaf = 0x16, .leaf7_ebx = LEAF7_PT,
			  .leaf14 = { { 1, SKL_EBX, SKL_ECX },
				      { 0x02490007, SKL_S1_EBX } } },
	[CPU_NO_LEAF15] = { .max_leaf = 0x16, .leaf7_ebx = LEAF7_PT,
			    .leaf14 = { { 1, SKL_EBX, SKL_ECX },
					{ SKL_S1_EAX, SKL_S1_EBX } },
			    .leaf15 = { 2, 0, 38400000 }, .leaf16_eax = 1800 },
	[CPU_MAX14] = { .max_leaf = 0x14, .leaf7_ebx = LEAF7_PT,
			.leaf14 = { { 1, SKL_EBX, SKL_ECX },
				    { SKL_S1_EAX, SKL_S1_EBX } },
			.leaf15 = { 2, 188, 24000000 }, .leaf16_eax = 2000 },
	[CPU_4RANGES] = { .max_leaf = 0x16, .leaf7_ebx = LEAF7_PT,
			  .leaf14 = { { 2, 0x1bf, 0x80000003 },
				      { 0x024a0004, SKL_S1_EBX } },
			  .leaf15 = { 2, 176, 38400000 },
			  .leaf16_eax = 0xffff0960 },
};

struct pt_caps_case {
	const char *name;
	enum pt_test_cpu cpu;
	int ret;
	const char *reason;	/* a part of it */
	bool present, usable, topa, topa_multi, single, mtc, psb_cyc;
	bool ip_filter, lip, ptwrite;
	u8 ranges;
	u16 mtc_periods, cyc, psb;
	u32 den, num, crystal, nom;
};

static const struct pt_caps_case pt_caps_cases[] = {
	{ "no PT", CPU_NO_PT, -ENODEV, "EBX[25]",
	  .den = 2, .num = 200, .crystal = 24000000, .nom = 2400 },
	{ "no leaf 7", CPU_OLD, -ENODEV, "EBX[25]" },
	{ "no leaf 14H", CPU_NO_LEAF14, -ENODEV, "leaf 14H" },
	{ "PT without ToPA", CPU_NO_TOPA, -ENODEV, "ToPA",
	  .present = true, .single = true },
	{ "single-entry ToPA, nothing else", CPU_BDW, 0, NULL,
	  .present = true, .usable = true, .topa = true },
	{ "everything, 2 ranges", CPU_SKL, 0, NULL,
	  .present = true, .usable = true, .topa = true, .topa_multi = true,
	  .single = true, .mtc = true, .psb_cyc = true, .ip_filter = true,
	  .lip = true, .ranges = 2, .mtc_periods = 0x249, .cyc = 0x3fff,
	  .psb = 0x3f, .den = 2, .num = 188, .nom = 2100 },
	{ "no MTC", CPU_NO_MTC, 0, NULL,
	  .present = true, .usable = true, .topa = true, .topa_multi = true,
	  .single = true, .psb_cyc = true, .ip_filter = true, .lip = true,
	  .ranges = 2, .cyc = 0x3fff, .psb = 0x3f },
	{ "no CYC", CPU_NO_CYC, 0, NULL,
	  .present = true, .usable = true, .topa = true, .topa_multi = true,
	  .single = true, .mtc = true, .ip_filter = true, .lip = true,
	  .ranges = 2, .mtc_periods = 0x249 },
	{ "no IP filtering", CPU_NO_IPF, 0, NULL,
	  .present = true, .usable = true, .topa = true, .topa_multi = true,
	  .single = true, .mtc = true, .psb_cyc = true, .lip = true,
	  .mtc_periods = 0x249, .cyc = 0x3fff, .psb = 0x3f },
	{ "max sub-leaf 0", CPU_SUBLEAF0, 0, NULL,
	  .present = true, .usable = true, .topa = true, .topa_multi = true,
	  .single = true, .mtc = true, .psb_cyc = true, .ip_filter = true,
	  .lip = true },
	{ "7 ranges clamped to 4", CPU_7RANGES, 0, NULL,
	  .present = true, .usable = true, .topa = true, .topa_multi = true,
	  .single = true, .mtc = true, .psb_cyc = true, .ip_filter = true,
	  .lip = true, .ranges = 4, .mtc_periods = 0x249, .cyc = 0x3fff,
	  .psb = 0x3f },
	{ "leaf 15H not enumerated", CPU_NO_LEAF15, 0, NULL,
	  .present = true, .usable = true, .topa = true, .topa_multi = true,
	  .single = true, .mtc = true, .psb_cyc = true, .ip_filter = true,
	  .lip = true, .ranges = 2, .mtc_periods = 0x249, .cyc = 0x3fff,
	  .psb = 0x3f, .nom = 1800 },
	{ "max leaf 14H", CPU_MAX14, 0, NULL,
	  .present = true, .usable = true, .topa = true, .topa_multi = true,
	  .single = true, .mtc = true, .psb_cyc = true, .ip_filter = true,
	  .lip = true, .ranges = 2, .mtc_periods = 0x249, .cyc = 0x3fff,
	  .psb = 0x3f },
	{ "4 ranges, LIP, PTWRITE", CPU_4RANGES, 0, NULL,
	  .present = true, .usable = true, .topa = true, .topa_multi = true,
	  .mtc = true, .psb_cyc = true, .ip_filter = true, .lip = true,
	  .ptwrite = true, .ranges = 4, .mtc_periods = 0x24a, .cyc = 0x3fff,
	  .psb = 0x3f, .den = 2, .num = 176, .crystal = 38400000,
	  .nom = 0x960 },
};

static void pt_caps_desc(const struct pt_caps_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pt_caps, pt_caps_cases, pt_caps_desc);

static void pt_test_caps_decode(struct kunit *test)
{
	const struct pt_caps_case *e = test->param_value;
	struct nsight_pt_caps c;
	const char *reason = "unset";

	KUNIT_EXPECT_EQ(test, nsight_pt_caps_decode(&pt_test_cpuid[e->cpu], &c,
						    &reason), e->ret);
	if (e->reason) {
		KUNIT_ASSERT_NOT_NULL(test, reason);
		KUNIT_EXPECT_NOT_NULL(test, strstr(reason, e->reason));
	} else {
		KUNIT_EXPECT_NULL(test, reason);
	}
	KUNIT_EXPECT_EQ(test, c.present, e->present);
	KUNIT_EXPECT_EQ(test, c.usable, e->usable);
	KUNIT_EXPECT_EQ(test, c.topa, e->topa);
	KUNIT_EXPECT_EQ(test, c.topa_multi, e->topa_multi);
	KUNIT_EXPECT_EQ(test, c.single_range, e->single);
	KUNIT_EXPECT_EQ(test, c.mtc, e->mtc);
	KUNIT_EXPECT_EQ(test, c.psb_cyc, e->psb_cyc);
	KUNIT_EXPECT_EQ(test, c.ip_filter, e->ip_filter);
	KUNIT_EXPECT_EQ(test, c.lip, e->lip);
	KUNIT_EXPECT_EQ(test, c.ptwrite, e->ptwrite);
	KUNIT_EXPECT_EQ(test, c.num_addr_ranges, e->ranges);
	KUNIT_EXPECT_EQ(test, c.mtc_periods, e->mtc_periods);
	KUNIT_EXPECT_EQ(test, c.cyc_thresholds, e->cyc);
	KUNIT_EXPECT_EQ(test, c.psb_periods, e->psb);
	KUNIT_EXPECT_EQ(test, c.tsc_ratio_den, e->den);
	KUNIT_EXPECT_EQ(test, c.tsc_ratio_num, e->num);
	KUNIT_EXPECT_EQ(test, c.crystal_hz, e->crystal);
	KUNIT_EXPECT_EQ(test, c.nom_freq_mhz, e->nom);
}

static void pt_test_caps_format(struct kunit *test)
{
	struct nsight_pt_caps c;
	const char *reason;
	char buf[512];
	int len;

	KUNIT_ASSERT_EQ(test, nsight_pt_caps_decode(&pt_test_cpuid[CPU_SKL], &c,
						    &reason), 0);
	len = nsight_pt_caps_format(&c, buf, sizeof(buf));
	KUNIT_EXPECT_EQ(test, len, (int)strlen(buf));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "topa: yes\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "ip_filter_ranges: 2\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "mtc_periods: 0x249\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "tsc_ratio: 188/2\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "ptwrite: no\n"));
	/* Truncation never overruns. */
	len = nsight_pt_caps_format(&c, buf, 16);
	KUNIT_EXPECT_LT(test, len, 16);
	KUNIT_EXPECT_EQ(test, strlen(buf), (size_t)len);
}

/* ---------------------------------------------------------------------- */
/* RTIT_CTL                                                                 */

#define BASE_CTL	(RTIT_CTL_TOPA | RTIT_CTL_OS | RTIT_CTL_USR | \
			 RTIT_CTL_TSC_EN | RTIT_CTL_BRANCH_EN)

struct pt_ctl_case {
	const char *name;
	enum pt_test_cpu cpu;
	struct nsight_pt_config cfg;
	int ret;
	u64 ctl;
};

#define CFG(...) { .branch = true, .tsc = true, .kernel = true, \
		    .user = true, .topa = true, __VA_ARGS__ }
#define RANGES(n) .filter = { .nr = (n), .range = { \
	{ 0xffffffff81000000ULL, 0xffffffff81ffffffULL }, \
	{ 0x400000, 0x4fffff }, { 0x1000, 0x1fff }, { 0x2000, 0x2000 } } }

static const struct pt_ctl_case pt_ctl_cases[] = {
	{ "default", CPU_SKL, CFG(), 0, BASE_CTL },
	{ "default, single-entry ToPA", CPU_BDW, CFG(), 0, BASE_CTL },
	{ "kernel only", CPU_SKL, CFG(.user = false), 0,
	  BASE_CTL & ~RTIT_CTL_USR },
	{ "user only", CPU_SKL, CFG(.kernel = false), 0,
	  BASE_CTL & ~RTIT_CTL_OS },
	{ "neither kernel nor user", CPU_SKL,
	  CFG(.kernel = false, .user = false), -EINVAL },
	{ "no TSC", CPU_SKL, CFG(.tsc = false), 0, BASE_CTL & ~RTIT_CTL_TSC_EN },
	{ "DisRETC", CPU_SKL, CFG(.dis_retc = true), 0,
	  BASE_CTL | RTIT_CTL_DISRETC },
	{ "no PT", CPU_NO_PT, CFG(), -ENODEV },
	{ "ToPA without ToPA", CPU_NO_TOPA, CFG(), -EOPNOTSUPP },
	{ "single-range output", CPU_NO_TOPA, CFG(.topa = false), 0,
	  BASE_CTL & ~RTIT_CTL_TOPA },
	{ "single-range without it", CPU_BDW, CFG(.topa = false), -EOPNOTSUPP },
	{ "MTC period 3", CPU_SKL, CFG(.mtc = true, .mtc_freq = 3), 0,
	  BASE_CTL | RTIT_CTL_MTC_EN | (3ULL << RTIT_CTL_MTC_RANGE_OFFSET) },
	{ "MTC period 0", CPU_SKL, CFG(.mtc = true, .mtc_freq = 0), 0,
	  BASE_CTL | RTIT_CTL_MTC_EN },
	{ "MTC period 9", CPU_SKL, CFG(.mtc = true, .mtc_freq = 9), 0,
	  BASE_CTL | RTIT_CTL_MTC_EN | (9ULL << RTIT_CTL_MTC_RANGE_OFFSET) },
	{ "MTC period not in bitmap", CPU_SKL,
	  CFG(.mtc = true, .mtc_freq = 1), -EOPNOTSUPP },
	{ "MTC period too wide", CPU_SKL, CFG(.mtc = true, .mtc_freq = 16),
	  -EINVAL },
	{ "MTC without MTC", CPU_NO_MTC, CFG(.mtc = true, .mtc_freq = 3),
	  -EOPNOTSUPP },
	{ "MTC on single-entry CPU", CPU_BDW, CFG(.mtc = true, .mtc_freq = 0),
	  -EOPNOTSUPP },
	{ "CYC threshold 0", CPU_SKL, CFG(.cyc = true), 0,
	  BASE_CTL | RTIT_CTL_CYCLEACC },
	{ "CYC threshold 5", CPU_SKL, CFG(.cyc = true, .cyc_thresh = 5), 0,
	  BASE_CTL | RTIT_CTL_CYCLEACC |
	  (5ULL << RTIT_CTL_CYC_THRESH_OFFSET) },
	{ "CYC threshold not in bitmap", CPU_SKL,
	  CFG(.cyc = true, .cyc_thresh = 14), -EOPNOTSUPP },
	{ "CYC without CYC", CPU_NO_CYC, CFG(.cyc = true), -EOPNOTSUPP },
	{ "PSB frequency 2", CPU_SKL, CFG(.psb_freq = 2), 0,
	  BASE_CTL | (2ULL << RTIT_CTL_PSB_FREQ_OFFSET) },
	{ "PSB frequency not in bitmap", CPU_SKL, CFG(.psb_freq = 6),
	  -EOPNOTSUPP },
	{ "PSB frequency without it", CPU_NO_CYC, CFG(.psb_freq = 1),
	  -EOPNOTSUPP },
	{ "PSB frequency too wide", CPU_SKL, CFG(.psb_freq = 16), -EINVAL },
	{ "no branches with MTC", CPU_SKL, CFG(.branch = false), 0,
	  BASE_CTL & ~RTIT_CTL_BRANCH_EN },
	{ "no branches without MTC", CPU_NO_MTC, CFG(.branch = false),
	  -EOPNOTSUPP },
	{ "1 range", CPU_SKL, CFG(RANGES(1)), 0,
	  BASE_CTL | (1ULL << RTIT_CTL_ADDR0_OFFSET) },
	{ "2 ranges", CPU_SKL, CFG(RANGES(2)), 0,
	  BASE_CTL | (1ULL << RTIT_CTL_ADDR0_OFFSET) |
	  (1ULL << RTIT_CTL_ADDR1_OFFSET) },
	{ "3 ranges on 2", CPU_SKL, CFG(RANGES(3)), -E2BIG },
	{ "1 range without IP filtering", CPU_NO_IPF, CFG(RANGES(1)), -E2BIG },
	{ "1 range on single-entry CPU", CPU_BDW, CFG(RANGES(1)), -E2BIG },
	{ "4 ranges on 4", CPU_4RANGES, CFG(RANGES(4)), 0,
	  BASE_CTL | (1ULL << RTIT_CTL_ADDR0_OFFSET) |
	  (1ULL << RTIT_CTL_ADDR1_OFFSET) | (1ULL << RTIT_CTL_ADDR2_OFFSET) |
	  (1ULL << RTIT_CTL_ADDR3_OFFSET) },
	{ "5 ranges", CPU_4RANGES, CFG(.filter = { .nr = 5 }), -E2BIG },
	{ "empty range", CPU_SKL,
	  CFG(.filter = { .nr = 1, .range = { { 0x2000, 0x1fff } } }),
	  -EINVAL },
	{ "everything", CPU_4RANGES,
	  CFG(.mtc = true, .mtc_freq = 6, .cyc = true, .cyc_thresh = 1,
	      .psb_freq = 5, .dis_retc = true, RANGES(2)), 0,
	  BASE_CTL | RTIT_CTL_DISRETC | RTIT_CTL_MTC_EN |
	  (6ULL << RTIT_CTL_MTC_RANGE_OFFSET) | RTIT_CTL_CYCLEACC |
	  (1ULL << RTIT_CTL_CYC_THRESH_OFFSET) |
	  (5ULL << RTIT_CTL_PSB_FREQ_OFFSET) |
	  (1ULL << RTIT_CTL_ADDR0_OFFSET) | (1ULL << RTIT_CTL_ADDR1_OFFSET) },
};

static void pt_ctl_desc(const struct pt_ctl_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pt_ctl, pt_ctl_cases, pt_ctl_desc);

static void pt_test_ctl(struct kunit *test)
{
	const struct pt_ctl_case *e = test->param_value;
	struct nsight_pt_caps c;
	const char *reason;
	u64 ctl = 0x5a5a;

	nsight_pt_caps_decode(&pt_test_cpuid[e->cpu], &c, &reason);
	KUNIT_EXPECT_EQ(test, nsight_pt_ctl_compute(&c, &e->cfg, &ctl), e->ret);
	if (e->ret) {
		KUNIT_EXPECT_EQ(test, ctl, 0x5a5a);
		return;
	}
	KUNIT_EXPECT_EQ(test, ctl, e->ctl);
	/* Never TraceEn, never a reserved bit. */
	KUNIT_EXPECT_EQ(test, ctl & RTIT_CTL_TRACEEN, 0);
	KUNIT_EXPECT_EQ(test, ctl & (BIT_ULL(18) | BIT_ULL(23) |
				     GENMASK_ULL(30, 28) |
				     GENMASK_ULL(63, 48)), 0);
	KUNIT_EXPECT_EQ(test, nsight_pt_ctl_mtc_freq(ctl),
			e->cfg.mtc ? e->cfg.mtc_freq : 0);
	KUNIT_EXPECT_EQ(test, nsight_pt_ctl_cyc_thresh(ctl),
			e->cfg.cyc ? e->cfg.cyc_thresh : 0);
	KUNIT_EXPECT_EQ(test, nsight_pt_ctl_psb_freq(ctl), e->cfg.psb_freq);
}

static void pt_test_pick_period(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, nsight_pt_pick_period(0x249, 3), 3);
	KUNIT_EXPECT_EQ(test, nsight_pt_pick_period(0x249, 4), 6);
	KUNIT_EXPECT_EQ(test, nsight_pt_pick_period(0x249, 10), 9);
	KUNIT_EXPECT_EQ(test, nsight_pt_pick_period(0x249, 0), 0);
	KUNIT_EXPECT_EQ(test, nsight_pt_pick_period(0x1, 3), 0);
	KUNIT_EXPECT_EQ(test, nsight_pt_pick_period(0x8000, 0), 15);
	KUNIT_EXPECT_EQ(test, nsight_pt_pick_period(0, 3), -ENOENT);
}

/* ---------------------------------------------------------------------- */
/* ToPA                                                                     */

#define TBL	0x12345000ULL	/* the table's physical address */
#define SZ(x)	((u64)(x) << NSIGHT_PT_TOPA_SIZE_SHIFT)
#define END	NSIGHT_PT_TOPA_END
#define STOP	NSIGHT_PT_TOPA_STOP
#define MB	SZ_1M

struct pt_topa_case {
	const char *name;
	enum pt_test_cpu cpu;
	unsigned int nr;
	struct nsight_pt_region r[4];
	enum nsight_pt_topa_mode mode;
	u64 table_phys;
	unsigned int phys_bits;
	unsigned int max;
	int ret;
	u64 t[5];
};

static const struct pt_topa_case pt_topa_cases[] = {
	{ "one 4K region", CPU_SKL, 1, { { 0x1000, 0x1000 } },
	  NSIGHT_PT_TOPA_CIRCULAR, TBL, 46, 512, 2,
	  { 0x1000 | SZ(0), TBL | END } },
	{ "mixed sizes", CPU_SKL, 3,
	  { { 0x40000000, 4 * MB }, { 0x200000, 2 * MB }, { 0x7000, 0x1000 } },
	  NSIGHT_PT_TOPA_CIRCULAR, TBL, 46, 512, 4,
	  { 0x40000000 | SZ(10), 0x200000 | SZ(9), 0x7000 | SZ(0), TBL | END } },
	{ "one-shot", CPU_SKL, 2,
	  { { 0x400000, 4 * MB }, { 0x800000, 4 * MB } },
	  NSIGHT_PT_TOPA_ONESHOT, TBL, 46, 512, 3,
	  { 0x400000 | SZ(10), 0x800000 | SZ(10) | STOP, TBL | END } },
	{ "128M region", CPU_SKL, 1, { { 0x8000000, 128 * MB } },
	  NSIGHT_PT_TOPA_CIRCULAR, TBL, 46, 512, 2,
	  { 0x8000000 | SZ(15), TBL | END } },
	{ "high address", CPU_SKL, 1, { { 0x3fffffe00000ULL, 2 * MB } },
	  NSIGHT_PT_TOPA_CIRCULAR, 0x3ffffffff000ULL, 46, 512, 2,
	  { 0x3fffffe00000ULL | SZ(9), 0x3ffffffff000ULL | END } },
	{ "single-entry ToPA, one region", CPU_BDW, 1, { { 0x10000, 0x10000 } },
	  NSIGHT_PT_TOPA_ONESHOT, TBL, 39, 512, 2,
	  { 0x10000 | SZ(4) | STOP, TBL | END } },
	{ "single-entry ToPA, two regions", CPU_BDW, 2,
	  { { 0x1000, 0x1000 }, { 0x2000, 0x1000 } },
	  NSIGHT_PT_TOPA_CIRCULAR, TBL, 39, 512, -EOPNOTSUPP },
	{ "no ToPA", CPU_NO_TOPA, 1, { { 0x1000, 0x1000 } },
	  NSIGHT_PT_TOPA_CIRCULAR, TBL, 46, 512, -EOPNOTSUPP },
	{ "no regions", CPU_SKL, 0, { },
	  NSIGHT_PT_TOPA_CIRCULAR, TBL, 46, 512, -EINVAL },
	{ "256M region", CPU_SKL, 1, { { 0x10000000, 256 * MB } },
	  NSIGHT_PT_TOPA_CIRCULAR, TBL, 46, 512, -EINVAL },
	{ "2K region", CPU_SKL, 1, { { 0x1000, 0x800 } },
	  NSIGHT_PT_TOPA_CIRCULAR, TBL, 46, 512, -EINVAL },
	{ "12K region", CPU_SKL, 1, { { 0x4000, 0x3000 } },
	  NSIGHT_PT_TOPA_CIRCULAR, TBL, 46, 512, -EINVAL },
	{ "8K region at 4K", CPU_SKL, 1, { { 0x1000, 0x2000 } },
	  NSIGHT_PT_TOPA_CIRCULAR, TBL, 46, 512, -EINVAL },
	{ "2M region misaligned", CPU_SKL, 2,
	  { { 0x1000, 0x1000 }, { 0x201000, 2 * MB } },
	  NSIGHT_PT_TOPA_CIRCULAR, TBL, 46, 512, -EINVAL },
	{ "region past MAXPHYADDR", CPU_SKL, 1, { { 1ULL << 36, 0x1000 } },
	  NSIGHT_PT_TOPA_CIRCULAR, TBL, 36, 512, -EINVAL },
	{ "table past MAXPHYADDR", CPU_SKL, 1, { { 0x1000, 0x1000 } },
	  NSIGHT_PT_TOPA_CIRCULAR, 1ULL << 36, 36, 512, -EINVAL },
	{ "table misaligned", CPU_SKL, 1, { { 0x1000, 0x1000 } },
	  NSIGHT_PT_TOPA_CIRCULAR, TBL + 8, 46, 512, -EINVAL },
	{ "table full", CPU_SKL, 3,
	  { { 0x1000, 0x1000 }, { 0x2000, 0x1000 }, { 0x3000, 0x1000 } },
	  NSIGHT_PT_TOPA_CIRCULAR, TBL, 46, 3, -E2BIG },
	{ "table just big enough", CPU_SKL, 2,
	  { { 0x1000, 0x1000 }, { 0x2000, 0x1000 } },
	  NSIGHT_PT_TOPA_CIRCULAR, TBL, 46, 3, 3,
	  { 0x1000 | SZ(0), 0x2000 | SZ(0), TBL | END } },
};

static void pt_topa_desc(const struct pt_topa_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pt_topa, pt_topa_cases, pt_topa_desc);

static void pt_test_topa(struct kunit *test)
{
	const struct pt_topa_case *e = test->param_value;
	struct nsight_pt_caps c;
	const char *reason;
	u64 t[8];
	int i, ret;

	nsight_pt_caps_decode(&pt_test_cpuid[e->cpu], &c, &reason);
	memset(t, 0xa5, sizeof(t));
	ret = nsight_pt_topa_build(&c, e->r, e->nr, e->table_phys,
				   e->phys_bits, e->mode, t, e->max);
	KUNIT_ASSERT_EQ(test, ret, e->ret);
	if (ret < 0) {
		/* Untouched on error. */
		for (i = 0; i < ARRAY_SIZE(t); i++)
			KUNIT_EXPECT_EQ(test, t[i], 0xa5a5a5a5a5a5a5a5ULL);
		return;
	}
	for (i = 0; i < ret; i++)
		KUNIT_EXPECT_EQ_MSG(test, t[i], e->t[i], "entry %d", i);
	KUNIT_EXPECT_EQ(test, t[ret], 0xa5a5a5a5a5a5a5a5ULL);
	/* Reserved bits 1, 3, 5, 11:10 and above MAXPHYADDR stay clear. */
	for (i = 0; i < ret; i++)
		KUNIT_EXPECT_EQ(test, t[i] & (0xc2aULL |
					      ~((1ULL << e->phys_bits) - 1)),
				0);
}

static const struct nsight_pt_region pt_pos_regions[] = {
	{ 0x10000, 0x2000 }, { 0x20000, 0x1000 }, { 0x40000, 0x4000 },
};

static u64 pt_mask(u64 idx, u64 off)
{
	return 0x7f | (idx << 7) | (off << 32);
}

static void pt_test_position(struct kunit *test)
{
	const struct nsight_pt_region *r = pt_pos_regions;
	u64 pos = 0xdead;
	u64 init = nsight_pt_mask_ptrs_initial();

	KUNIT_EXPECT_EQ(test, nsight_pt_topa_position(r, 3, init, &pos), 0);
	KUNIT_EXPECT_EQ(test, pos, 0);
	KUNIT_EXPECT_EQ(test, nsight_pt_topa_position(r, 3, pt_mask(0, 100),
						      &pos), 0);
	KUNIT_EXPECT_EQ(test, pos, 100);
	KUNIT_EXPECT_EQ(test, nsight_pt_topa_position(r, 3, pt_mask(1, 100),
						      &pos), 0);
	KUNIT_EXPECT_EQ(test, pos, 0x2000 + 100);
	KUNIT_EXPECT_EQ(test, nsight_pt_topa_position(r, 3, pt_mask(2, 0x123),
						      &pos), 0);
	KUNIT_EXPECT_EQ(test, pos, 0x3000 + 0x123);
	/* A full last region (after STOP) and the END entry: the end. */
	KUNIT_EXPECT_EQ(test, nsight_pt_topa_position(r, 3, pt_mask(2, 0x4000),
						      &pos), 0);
	KUNIT_EXPECT_EQ(test, pos, 0x7000);
	KUNIT_EXPECT_EQ(test, nsight_pt_topa_position(r, 3, pt_mask(3, 0),
						      &pos), 0);
	KUNIT_EXPECT_EQ(test, pos, 0x7000);
	/* Outside: left alone. */
	pos = 0xdead;
	KUNIT_EXPECT_EQ(test, nsight_pt_topa_position(r, 3, pt_mask(3, 1),
						      &pos), -ERANGE);
	KUNIT_EXPECT_EQ(test, nsight_pt_topa_position(r, 3, pt_mask(4, 0),
						      &pos), -ERANGE);
	KUNIT_EXPECT_EQ(test, nsight_pt_topa_position(r, 3, pt_mask(1, 0x1001),
						      &pos), -ERANGE);
	KUNIT_EXPECT_EQ(test, nsight_pt_topa_position(r, 3, pt_mask(~0U, 0),
						      &pos), -ERANGE);
	KUNIT_EXPECT_EQ(test, pos, 0xdead);
}

struct pt_span {
	u64 off, lin, len;
};

static void pt_check_spans(struct kunit *test, u64 size, u64 pos,
			   bool wrapped, const struct pt_span *s, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		u64 len = 0xdead;
		u64 lin = nsight_pt_read_span(size, pos, wrapped, s[i].off,
					      &len);

		KUNIT_EXPECT_EQ_MSG(test, len, s[i].len, "off %llu", s[i].off);
		if (s[i].len)
			KUNIT_EXPECT_EQ_MSG(test, lin, s[i].lin, "off %llu",
					    s[i].off);
	}
}

static void pt_test_read_span(struct kunit *test)
{
	static const struct pt_span flat[] = {
		{ 0, 0, 40 }, { 39, 39, 1 }, { 40, 0, 0 }, { 1000, 0, 0 },
	};
	static const struct pt_span wrap[] = {
		{ 0, 40, 60 }, { 59, 99, 1 }, { 60, 0, 40 }, { 99, 39, 1 },
		{ 100, 0, 0 },
	};
	static const struct pt_span wrap_end[] = {
		{ 0, 0, 100 }, { 99, 99, 1 }, { 100, 0, 0 },
	};
	static const struct pt_span empty[] = { { 0, 0, 0 } };
	u64 size, pos, off, len, lin;
	u8 seen[64];

	pt_check_spans(test, 100, 40, false, flat, ARRAY_SIZE(flat));
	pt_check_spans(test, 100, 40, true, wrap, ARRAY_SIZE(wrap));
	pt_check_spans(test, 100, 100, true, wrap_end, ARRAY_SIZE(wrap_end));
	pt_check_spans(test, 100, 0, true, wrap_end, ARRAY_SIZE(wrap_end));
	pt_check_spans(test, 100, 0, false, empty, ARRAY_SIZE(empty));
	pt_check_spans(test, 0, 0, false, empty, ARRAY_SIZE(empty));

	/* Wrapped: every byte once, oldest (at pos) first. */
	size = sizeof(seen);
	for (pos = 0; pos <= size; pos++) {
		memset(seen, 0, sizeof(seen));
		for (off = 0; off < size; off += len) {
			lin = nsight_pt_read_span(size, pos, true, off, &len);
			KUNIT_ASSERT_GT(test, len, 0);
			KUNIT_ASSERT_LE(test, lin + len, size);
			KUNIT_EXPECT_EQ(test, lin, (pos + off) % size);
			memset(seen + lin, seen[lin] + 1, len);
		}
		KUNIT_EXPECT_EQ(test, off, size);
		KUNIT_EXPECT_NULL(test, memchr_inv(seen, 1, size));
	}
}

/* ---------------------------------------------------------------------- */
/* IP filter                                                                */

struct pt_filter_case {
	const char *in;
	unsigned int virt_bits;
	int ret;
	unsigned int nr;
	struct nsight_pt_range r[2];
};

#define K0	0xffffffff81000000ULL
#define K1	0xffffffff82000000ULL

static const struct pt_filter_case pt_filter_cases[] = {
	{ "none", 48, 0, 0 },
	{ "none\n", 48, 0, 0 },
	{ "0xffffffff81000000-0xffffffff82000000", 48, 0, 1,
	  { { K0, K1 - 1 } } },
	{ "0xffffffff81000000-0xffffffff82000000\n", 48, 0, 1,
	  { { K0, K1 - 1 } } },
	{ "0xffffffff81000000-0xffffffff82000000,0x400000-0x500000", 48, 0, 2,
	  { { K0, K1 - 1 }, { 0x400000, 0x4fffff } } },
	{ "0x1000-0x2000, 4096-8193\n", 48, 0, 2,
	  { { 0x1000, 0x1fff }, { 4096, 8192 } } },
	{ "0x1000-0x2000,,0x3000-0x3001", 48, 0, 2,
	  { { 0x1000, 0x1fff }, { 0x3000, 0x3000 } } },
	{ "0x1-0x2,0x3-0x4,0x5-0x6,0x7-0x8", 48, 0, 4,
	  { { 1, 1 }, { 3, 3 } } },
	{ "0x1-0x2,0x3-0x4,0x5-0x6,0x7-0x8,0x9-0xa", 48, -E2BIG },
	{ "0x1-0x2,0x3-0x4,0x5-0x6,0x7-0x8,junk", 48, -EINVAL },
	{ "0x00007ffffffff000-0x0000800000000000", 48, 0, 1,
	  { { 0x00007ffffffff000ULL, 0x00007fffffffffffULL } } },
	{ "0x0000800000000000-0x0000800000001000", 48, -EINVAL },
	{ "0xff00000000000000-0xff00000000001000", 57, 0, 1,
	  { { 0xff00000000000000ULL, 0xff00000000000fffULL } } },
	{ "0xff00000000000000-0xff00000000001000", 48, -EINVAL },
	{ "0xfffffffffffff000-0xffffffffffffffff", 48, 0, 1,
	  { { 0xfffffffffffff000ULL, 0xfffffffffffffffeULL } } },
	{ "", 48, -EINVAL },
	{ "\n", 48, -EINVAL },
	{ ",", 48, -EINVAL },
	{ "garbage", 48, -EINVAL },
	{ "0x10", 48, -EINVAL },
	{ "0x20-0x10", 48, -EINVAL },
	{ "0x10-0x10", 48, -EINVAL },
	{ "-0x10", 48, -EINVAL },
	{ "0x10-", 48, -EINVAL },
	{ "0x10-0x20-0x30", 48, -EINVAL },
	{ "0xg0-0x100", 48, -EINVAL },
	{ "0x10-0x10000000000000000", 48, -EINVAL },
	{ "none,0x10-0x20", 48, -EINVAL },
	{ "0x10-0x20 none", 48, -EINVAL },
	{ "nonex", 48, -EINVAL },
	{ "0x0000000000000000000000000000000000000000000010-0x20", 48,
	  -EINVAL },
};

static void pt_filter_desc(const struct pt_filter_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%s\"/%u", c->in, c->virt_bits);
	strreplace(desc, '\n', ' ');
}

KUNIT_ARRAY_PARAM(pt_filter, pt_filter_cases, pt_filter_desc);

static void pt_test_filter_parse(struct kunit *test)
{
	const struct pt_filter_case *e = test->param_value;
	struct nsight_pt_filter f = { .nr = 77 };
	unsigned int i;

	KUNIT_ASSERT_EQ(test, nsight_pt_filter_parse(e->in, e->virt_bits, &f),
			e->ret);
	if (e->ret) {
		KUNIT_EXPECT_EQ(test, f.nr, 77);
		return;
	}
	KUNIT_EXPECT_EQ(test, f.nr, e->nr);
	for (i = 0; i < e->nr && i < ARRAY_SIZE(e->r); i++) {
		KUNIT_EXPECT_EQ(test, f.range[i].start, e->r[i].start);
		KUNIT_EXPECT_EQ(test, f.range[i].end, e->r[i].end);
	}
}

static void pt_test_filter_format(struct kunit *test)
{
	static const char *const canon[] = {
		"none",
		"0xffffffff81000000-0xffffffff82000000",
		"0x1000-0x2000,0x400000-0x500000,0x1-0x2,0x3-0x4",
	};
	struct nsight_pt_filter f;
	char buf[200];
	int i, len;

	for (i = 0; i < ARRAY_SIZE(canon); i++) {
		KUNIT_ASSERT_EQ(test, nsight_pt_filter_parse(canon[i], 48, &f),
				0);
		len = nsight_pt_filter_format(&f, buf, sizeof(buf));
		KUNIT_EXPECT_STREQ(test, buf, canon[i]);
		KUNIT_EXPECT_EQ(test, len, (int)strlen(canon[i]));
	}
	/* Truncation never overruns. */
	len = nsight_pt_filter_format(&f, buf, 10);
	KUNIT_EXPECT_LT(test, len, 10);
	KUNIT_EXPECT_EQ(test, strlen(buf), (size_t)len);
	KUNIT_EXPECT_EQ(test, nsight_pt_filter_format(&f, buf, 0), 0);
}

static void pt_test_canonical(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, nsight_pt_canonical(0, 48));
	KUNIT_EXPECT_TRUE(test, nsight_pt_canonical(0x00007fffffffffffULL, 48));
	KUNIT_EXPECT_FALSE(test, nsight_pt_canonical(0x0000800000000000ULL, 48));
	KUNIT_EXPECT_TRUE(test, nsight_pt_canonical(0xffff800000000000ULL, 48));
	KUNIT_EXPECT_FALSE(test, nsight_pt_canonical(0xff00000000000000ULL, 48));
	KUNIT_EXPECT_TRUE(test, nsight_pt_canonical(0xff00000000000000ULL, 57));
	KUNIT_EXPECT_TRUE(test, nsight_pt_canonical(0x0000800000000000ULL, 57));
	KUNIT_EXPECT_TRUE(test, nsight_pt_canonical(~0ULL, 64));
	KUNIT_EXPECT_FALSE(test, nsight_pt_canonical(0, 0));
}

static struct kunit_case nsight_pt_cases[] = {
	KUNIT_CASE_PARAM(pt_test_caps_decode, pt_caps_gen_params),
	KUNIT_CASE(pt_test_caps_format),
	KUNIT_CASE_PARAM(pt_test_ctl, pt_ctl_gen_params),
	KUNIT_CASE(pt_test_pick_period),
	KUNIT_CASE_PARAM(pt_test_topa, pt_topa_gen_params),
	KUNIT_CASE(pt_test_position),
	KUNIT_CASE(pt_test_read_span),
	KUNIT_CASE_PARAM(pt_test_filter_parse, pt_filter_gen_params),
	KUNIT_CASE(pt_test_filter_format),
	KUNIT_CASE(pt_test_canonical),
	{}
};

static struct kunit_suite nsight_pt_suite = {
	.name = "nsight_pt",
	.test_cases = nsight_pt_cases,
};

kunit_test_suite(nsight_pt_suite);
