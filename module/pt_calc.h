/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Intel PT: the pure part of the controller. Nothing here touches an MSR,
 * CPUID or memory other than its arguments, so all of it is KUnit-tested
 * with made-up CPUID values (module/tests/pt_test.c).
 *
 * References: Intel SDM Vol. 3C, chapter 33 "Intel Processor Trace":
 * 33.3.1 (CPUID leaf 14H), 33.2.7.2 (ToPA), 33.2.8 (the RTIT MSRs and
 * their #GP conditions); CPUID leaves 15H and 16H (Vol. 2A, CPUID).
 */
#ifndef _NSIGHT_PT_CALC_H
#define _NSIGHT_PT_CALC_H

#include <linux/types.h>
#include <linux/nsight.h>

/* RTIT_CTL has four ADDRn_CFG fields, so no CPU has more ranges. */
#define NSIGHT_PT_MAX_RANGES	4

/* ADDRn_CFG encodings (SDM 33.2.8.2): 0 unused, 1 FilterEn, 2 TraceStop. */
#define NSIGHT_PT_ADDR_CFG_FILTER	1

/* ToPA table entry (SDM 33.2.7.2, Table 33-3). */
#define NSIGHT_PT_TOPA_END	BIT_ULL(0)	/* link to the next table */
#define NSIGHT_PT_TOPA_INT	BIT_ULL(2)	/* PMI when the region fills */
#define NSIGHT_PT_TOPA_STOP	BIT_ULL(4)	/* stop when the region fills */
#define NSIGHT_PT_TOPA_SIZE_SHIFT 6		/* bits 9:6: 4 KiB << size */
#define NSIGHT_PT_TOPA_SIZE_MASK (0xfULL << NSIGHT_PT_TOPA_SIZE_SHIFT)
#define NSIGHT_PT_TOPA_ADDR_MASK (~0xfffULL)	/* bits MAXPHYADDR-1:12 */
#define NSIGHT_PT_REGION_MIN	4096ULL		/* size encoding 0 */
#define NSIGHT_PT_REGION_MAX	(128ULL << 20)	/* size encoding 15 */

/*
 * Raw CPUID register values, as read on the CPU (or made up by a test).
 * @max_leaf:   CPUID.0:EAX
 * @leaf7_ebx:  CPUID.(EAX=07H,ECX=0):EBX; bit 25 is Intel PT
 * @leaf14:     CPUID.(EAX=14H,ECX=0) and (ECX=1): EAX, EBX, ECX, EDX
 * @leaf15:     CPUID.15H: EAX, EBX, ECX
 * @leaf16_eax: CPUID.16H:EAX
 * Leaves above @max_leaf and sub-leaves above leaf14[0][0] are ignored,
 * whatever they hold.
 */
struct nsight_pt_cpuid {
	u32 max_leaf;
	u32 leaf7_ebx;
	u32 leaf14[2][4];
	u32 leaf15[3];
	u32 leaf16_eax;
};

/*
 * struct nsight_pt_caps - what the CPU's Intel PT can do.
 * @present:      CPUID says there is Intel PT with leaf 14H
 * @usable:       present and ToPA output: what this controller needs
 * @max_subleaf:  CPUID.(14H,0):EAX
 * @cr3_filter ... @tnt_disable: CPUID.(14H,0):EBX bits 0-5, 7, 8
 * @psb_cyc:      configurable PSB frequency and cycle-accurate mode (CYC)
 * @ip_filter:    IP filtering and TraceStop (EBX bit 2)
 * @mtc:          MTC packets, and BranchEn may be cleared (EBX bit 3)
 * @topa ... @lip: CPUID.(14H,0):ECX bits 0-3 and 31
 * @topa_multi:   a ToPA table may hold more than one output region
 * @num_addr_ranges: IP filter ranges, 0 without @ip_filter, at most 4
 * @mtc_periods:  bitmap of the valid RTIT_CTL.MTCFreq values (0 w/o @mtc)
 * @cyc_thresholds, @psb_periods: bitmaps of the valid CycThresh and
 *                PSBFreq values (0 without @psb_cyc)
 * @tsc_ratio_den, @tsc_ratio_num, @crystal_hz: CPUID.15H EAX, EBX, ECX
 *                (all 0 when EBX is 0: not enumerated)
 * @nom_freq_mhz: CPUID.16H:EAX[15:0], 0 if not enumerated
 */
struct nsight_pt_caps {
	bool present;
	bool usable;
	u32 max_subleaf;
	bool cr3_filter;
	bool psb_cyc;
	bool ip_filter;
	bool mtc;
	bool ptwrite;
	bool pwr_evt;
	bool event_trace;
	bool tnt_disable;
	bool topa;
	bool topa_multi;
	bool single_range;
	bool trace_transport;
	bool lip;
	u8 num_addr_ranges;
	u16 mtc_periods;
	u16 cyc_thresholds;
	u16 psb_periods;
	u32 tsc_ratio_den;
	u32 tsc_ratio_num;
	u32 crystal_hz;
	u32 nom_freq_mhz;
};

/* An IP filter range: trace only where start <= IP <= end (inclusive). */
struct nsight_pt_range {
	u64 start;
	u64 end;
};

struct nsight_pt_filter {
	unsigned int nr;
	struct nsight_pt_range range[NSIGHT_PT_MAX_RANGES];
};

/*
 * struct nsight_pt_config - what to trace.
 * @branch:     BranchEn: COFI packets (calls, returns, branches)
 * @tsc:        TSCEn: TSC packets
 * @kernel, @user: OS and User: trace at CPL 0 and/or CPL > 0
 * @topa:       ToPA output (else single-range output)
 * @mtc:        MTCEn, with @mtc_freq: MTC every 2^@mtc_freq crystal ticks
 * @cyc:        CYCEn, with @cyc_thresh: CYC after 2^(@cyc_thresh - 1)
 *              cycles (0: at every opportunity)
 * @psb_freq:   PSBFreq: PSB every 2^(@psb_freq + 11) bytes (0 is 2 KiB and
 *              always valid)
 * @dis_retc:   DisRETC: no return compression
 * @filter:     FilterEn ranges, ADDR0.. in order
 */
struct nsight_pt_config {
	bool branch;
	bool tsc;
	bool kernel;
	bool user;
	bool topa;
	bool mtc;
	u8 mtc_freq;
	bool cyc;
	u8 cyc_thresh;
	u8 psb_freq;
	bool dis_retc;
	struct nsight_pt_filter filter;
};

/* One output region of a ToPA table: physical address and bytes. */
struct nsight_pt_region {
	u64 phys;
	u64 size;
};

enum nsight_pt_topa_mode {
	NSIGHT_PT_TOPA_CIRCULAR,	/* END links back: the newest bytes stay */
	NSIGHT_PT_TOPA_ONESHOT,		/* STOP on the last region: the oldest */
};

int nsight_pt_caps_decode(const struct nsight_pt_cpuid *r,
			  struct nsight_pt_caps *c, const char **reason);
int nsight_pt_caps_format(const struct nsight_pt_caps *c, char *buf,
			  size_t size);

int nsight_pt_ctl_compute(const struct nsight_pt_caps *caps,
			  const struct nsight_pt_config *cfg, u64 *ctl);
int nsight_pt_pick_period(u16 bitmap, unsigned int want);
u8 nsight_pt_ctl_mtc_freq(u64 ctl);
u8 nsight_pt_ctl_cyc_thresh(u64 ctl);
u8 nsight_pt_ctl_psb_freq(u64 ctl);

int nsight_pt_topa_build(const struct nsight_pt_caps *caps,
			 const struct nsight_pt_region *regions,
			 unsigned int nr, u64 table_phys,
			 unsigned int phys_bits, enum nsight_pt_topa_mode mode,
			 u64 *table, unsigned int max_entries);
int nsight_pt_topa_position(const struct nsight_pt_region *regions,
			    unsigned int nr, u64 mask_ptrs, u64 *pos);
u64 nsight_pt_mask_ptrs_initial(void);
u64 nsight_pt_read_span(u64 size, u64 pos, bool wrapped, u64 off, u64 *len);

bool nsight_pt_canonical(u64 addr, unsigned int virt_bits);
int nsight_pt_filter_parse(const char *buf, unsigned int virt_bits,
			   struct nsight_pt_filter *f);
int nsight_pt_filter_format(const struct nsight_pt_filter *f, char *buf,
			    size_t size);

#endif /* _NSIGHT_PT_CALC_H */
