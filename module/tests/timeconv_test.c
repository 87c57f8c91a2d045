// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: nsight_cycles_to_ns() from the uapi header, the conversion every
 * timekeeper record is read with. It must equal the kernel's own arithmetic
 * ((delta * mult + xtime_nsec) >> shift in 128 bits) for masked wrap-around,
 * every shift, and deltas whose product overflows 64 bits.
 */
#include <kunit/test.h>
#include <linux/math64.h>
#include <linux/nsight.h>

struct nsight_tc_case {
	const char *name;
	u64 c, cycle_last, mask;
	u32 mult, shift;
	u64 xtime_nsec;
	u64 want;
};

static const struct nsight_tc_case nsight_tc_cases[] = {
	{ "zero delta", 1000, 1000, U64_MAX, 4194304, 22, 0, 0 },
	{ "xtime only", 1000, 1000, U64_MAX, 4194304, 22, 5ULL << 22, 5 },
	{ "1 GHz, shift 22", 2000, 1000, U64_MAX, 4194304, 22, 0, 1000 },
	{ "rounds down", 3, 0, U64_MAX, 3, 1, 0, 4 },
	{ "xtime carries into the result", 1, 0, U64_MAX, 1, 1, 1, 1 },
	{ "shift 0", 10, 0, U64_MAX, 7, 0, 5, 75 },
	{ "32-bit counter wraps", 0x10, 0xfffffff0, 0xffffffff, 1 << 20, 20,
	  0, 0x20 },
	{ "cycle_last ahead, full mask", 0, 1, U64_MAX, 1, 0, 0, U64_MAX },
	/* 2^40 cycles * 2^31 overflows 64 bits; >> 31 gives 2^40 back. */
	{ "product beyond 64 bits", 1ULL << 40, 0, U64_MAX, 1U << 31, 31, 0,
	  1ULL << 40 },
	{ "shift 32", 5ULL << 32, 0, U64_MAX, 3, 32, 0, 15 },
	{ "shift 63", U64_MAX, 0, U64_MAX, U32_MAX, 63,
	  0, 0x1fffffffdULL },
	{ "huge xtime_nsec carry", 1, 0, U64_MAX, 1, 1, U64_MAX,
	  0x8000000000000000ULL },
};

static void nsight_tc_desc(const struct nsight_tc_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(nsight_tc, nsight_tc_cases, nsight_tc_desc);

static void nsight_test_cycles_to_ns(struct kunit *test)
{
	const struct nsight_tc_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, nsight_cycles_to_ns(c->c, c->cycle_last, c->mask,
						  c->mult, c->shift,
						  c->xtime_nsec), c->want);
}

/* Against the kernel's 128-bit helper over a sweep of deltas and shifts. */
static void nsight_test_cycles_sweep(struct kunit *test)
{
	u64 delta = 1;
	u32 shift;

	for (shift = 0; shift < 64; shift += 7) {
		for (delta = 1; delta; delta <<= 5) {
			u32 mult = 0x9e3779b9;
			u64 want = mul_u64_u32_shr(delta, mult, shift);

			KUNIT_EXPECT_EQ(test,
					nsight_cycles_to_ns(delta + 17, 17,
							    U64_MAX, mult,
							    shift, 0),
					want);
		}
	}
}

static struct kunit_case nsight_timeconv_cases[] = {
	KUNIT_CASE_PARAM(nsight_test_cycles_to_ns, nsight_tc_gen_params),
	KUNIT_CASE(nsight_test_cycles_sweep),
	{}
};

static struct kunit_suite nsight_timeconv_suite = {
	.name = "nsight_timeconv",
	.test_cases = nsight_timeconv_cases,
};

kunit_test_suite(nsight_timeconv_suite);
