// SPDX-License-Identifier: MIT
/* TSC -> clock conversion: the kernel's arithmetic and the choice of parameters. */
#include "synth.h"
#include "capture/timeconv.h"

/* The conversion done the slow, obvious way. */
static uint64_t ref_cycles_to_ns(uint64_t c, uint64_t last, uint64_t mask, uint32_t mult,
				 uint32_t shift, uint64_t xtime)
{
	unsigned __int128 v = (unsigned __int128)((c - last) & mask) * mult + xtime;

	if (shift > 63)
		return 0;
	return (uint64_t)(v >> shift);
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void test_cycles_to_ns_edges(void)
{
	/* A 32-bit counter that wrapped: 0xfffffff0 -> 0x10 is 0x20 cycles. */
	CHECK_U64(nsight_cycles_to_ns(0x10, 0xfffffff0, 0xffffffff, 3, 1, 0), 48);
	/* c below cycle_last with a 64-bit mask: a huge delta, as the formula says. */
	CHECK_U64(nsight_cycles_to_ns(5, 10, UINT64_MAX, 1, 0, 0), UINT64_MAX - 4);
	CHECK_U64(nsight_cycles_to_ns(5, 10, UINT64_MAX, 1 << 24, 24, 0), UINT64_MAX - 4);
	/* Shifts. */
	CHECK_U64(nsight_cycles_to_ns(1000, 0, UINT64_MAX, 7, 0, 5), 7005);
	CHECK_U64(nsight_cycles_to_ns(1000, 0, UINT64_MAX, 7, 1, 5), 3502);
	CHECK_U64(nsight_cycles_to_ns(1ULL << 40, 0, UINT64_MAX, 1U << 31, 31, 0), 1ULL << 40);
	CHECK_U64(nsight_cycles_to_ns(1ULL << 40, 0, UINT64_MAX, 0xffffffff, 32, 0),
		  ref_cycles_to_ns(1ULL << 40, 0, UINT64_MAX, 0xffffffff, 32, 0));
	CHECK_U64(nsight_cycles_to_ns(UINT64_MAX, 0, UINT64_MAX, 0xffffffff, 63, UINT64_MAX),
		  ref_cycles_to_ns(UINT64_MAX, 0, UINT64_MAX, 0xffffffff, 63, UINT64_MAX));
	CHECK_U64(nsight_cycles_to_ns(12345, 0, UINT64_MAX, 99, 64, 0), 0);
	/* 2^40 cycles * 2^30: 2^70 overflows a 64-bit multiply. */
	CHECK_U64(nsight_cycles_to_ns(1ULL << 40, 0, UINT64_MAX, 1U << 30, 24, 0), 1ULL << 46);
	/* xtime_nsec carries into the high half. */
	CHECK_U64(nsight_cycles_to_ns(1, 0, UINT64_MAX, 0xffffffff, 32, UINT64_MAX),
		  ((0xffffffffULL + UINT64_MAX) >> 32) | (1ULL << 32));
	CHECK_U64(nsight_cycles_to_ns(1, 0, UINT64_MAX, 0xffffffff, 32, UINT64_MAX),
		  ref_cycles_to_ns(1, 0, UINT64_MAX, 0xffffffff, 32, UINT64_MAX));
}

static void test_cycles_to_ns_random(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL, bad = 0;
	int i;

	for (i = 0; i < 200000; i++) {
		uint64_t c, last, mask, xtime;
		uint32_t mult, shift;

		c = rnd(&x);
		last = rnd(&x);
		mask = i % 3 ? UINT64_MAX : (1ULL << (rnd(&x) % 64)) - 1;
		mult = (uint32_t)rnd(&x);
		shift = (uint32_t)(rnd(&x) % 66);
		xtime = i % 2 ? rnd(&x) : rnd(&x) >> (rnd(&x) % 64);
		if (nsight_cycles_to_ns(c, last, mask, mult, shift, xtime) !=
		    ref_cycles_to_ns(c, last, mask, mult, shift, xtime))
			bad++;
	}
	CHECK_U64(bad, 0);
}

static struct nsight_rec_timekeeper tk_at(uint64_t tsc, uint64_t cycle_last, uint32_t mult,
					  uint32_t shift, uint64_t xtime, int64_t base,
					  int64_t offs, uint32_t flags)
{
	struct nsight_rec_timekeeper tk;

	memset(&tk, 0, sizeof(tk));
	tk.hdr.type = NSIGHT_REC_TIMEKEEPER;
	tk.hdr.size = sizeof(tk);
	tk.hdr.tsc = tsc;
	tk.cycle_last = cycle_last;
	tk.mask = UINT64_MAX;
	tk.mult = mult;
	tk.shift = shift;
	tk.xtime_nsec = xtime;
	tk.base_mono = base;
	tk.offs_real = offs;
	tk.flags = flags;
	tk.cs_now = tsc;
	tk.tsc_cs = tsc;
	strcpy(tk.clocksource, "tsc");
	return tk;
}

static void test_before_cycle_last(void)
{
	struct nsight_rec_timekeeper tk = tk_at(1000, 1000, 1U << 24, 24, 3ULL << 23, 5000, 100,
						NSIGHT_TK_CS_TSC);

	/* 1.5 ns of xtime_nsec; 10 cycles back is -8.5, floored to -9. */
	CHECK_U64(nsight_tk_cycles_to_clock(&tk, 1000, NSIGHT_CLOCK_MONOTONIC), 5001);
	CHECK_U64(nsight_tk_cycles_to_clock(&tk, 990, NSIGHT_CLOCK_MONOTONIC), 5000 - 9);
	CHECK_U64(nsight_tk_cycles_to_clock(&tk, 990, NSIGHT_CLOCK_REALTIME), 5100 - 9);
	CHECK_U64(nsight_tk_cycles_to_clock(&tk, 1010, NSIGHT_CLOCK_REALTIME), 5100 + 11);
	/* A 32-bit clocksource: 0x10 after 0xfffffff0 is forward, the reverse backward. */
	tk.mask = 0xffffffff;
	tk.cycle_last = 0xfffffff0;
	tk.xtime_nsec = 0;
	CHECK_U64(nsight_tk_cycles_to_clock(&tk, 0x10, NSIGHT_CLOCK_MONOTONIC), 5000 + 0x20);
	tk.cycle_last = 0x10;
	CHECK_U64(nsight_tk_cycles_to_clock(&tk, 0xfffffff0, NSIGHT_CLOCK_MONOTONIC), 5000 - 0x20);
}

/*
 * Three records: the second changes mult, the third steps CLOCK_REALTIME
 * forward by a second. Each keeps time continuous at its cycle_last.
 */
static void three_records(struct nsight_rec_timekeeper *tk)
{
	const uint32_t m0 = 1U << 24, m1 = (1U << 24) + (1U << 14);	/* +~1000 ppm */

	tk[0] = tk_at(1000, 900, m0, 24, 0, 1000000, 500, NSIGHT_TK_CS_TSC);
	tk[1] = tk_at(2000, 1990, m1, 24, (uint64_t)(1990 - 900) * m0, 1000000, 500, NSIGHT_TK_CS_TSC);
	tk[2] = tk_at(3000, 2990, m1, 24, (uint64_t)(1990 - 900) * m0 + (uint64_t)(2990 - 1990) * m1,
		      1000000, 500 + 1000000000LL, NSIGHT_TK_CS_TSC | NSIGHT_TK_CLOCK_WAS_SET);
}

static int64_t conv(const struct nsight_timeconv *tc, uint64_t tsc, enum nsight_clockid clk)
{
	int64_t ns = INT64_MIN;

	CHECK(nsight_tc_convert(tc, tsc, clk, &ns) == NSIGHT_TC_EXACT);
	return ns;
}

static void test_piecewise(void)
{
	struct nsight_rec_timekeeper tk[3], shuffled[3];
	struct nsight_timeconv tc;
	const uint64_t x1 = (uint64_t)(1990 - 900) << 24;
	const uint32_t m1 = (1U << 24) + (1U << 14);

	three_records(tk);
	shuffled[0] = tk[2];
	shuffled[1] = tk[0];
	shuffled[2] = tk[1];
	REQUIRE(nsight_tc_init(&tc, shuffled, 3, NULL, 0, 1000000000, NSIGHT_TC_IN_FORCE, NULL) == 0);
	CHECK_U64(tc.quality, NSIGHT_TC_EXACT);
	CHECK_U64(tc.n_tk, 3);
	CHECK_U64(tc.n_clock_was_set, 1);
	CHECK_U64(tc.interval, 1000);

	CHECK_U64(nsight_tc_find(&tc, 0), 0);
	CHECK_U64(nsight_tc_find(&tc, 1999), 0);
	CHECK_U64(nsight_tc_find(&tc, 2000), 1);
	CHECK_U64(nsight_tc_find(&tc, 2999), 1);
	CHECK_U64(nsight_tc_find(&tc, 3000), 2);
	CHECK_U64(nsight_tc_find(&tc, UINT64_MAX), 2);

	/* Before the first record and in its range: the first record. */
	CHECK_U64(conv(&tc, 500, NSIGHT_CLOCK_MONOTONIC), 1000000 - 400);
	CHECK_U64(conv(&tc, 1999, NSIGHT_CLOCK_MONOTONIC), 1000000 + 1099);
	/* From 2000 the new mult: 1990 -> 1090 exactly, then faster. */
	CHECK_U64(conv(&tc, 2000, NSIGHT_CLOCK_MONOTONIC),
		  1000000 + ((x1 + 10ULL * m1) >> 24));
	CHECK_U64(conv(&tc, 2999, NSIGHT_CLOCK_REALTIME),
		  1000000 + 500 + ((x1 + 1009ULL * m1) >> 24));
	/* The step moves realtime, not monotonic. */
	CHECK_U64(conv(&tc, 3000, NSIGHT_CLOCK_MONOTONIC) - conv(&tc, 2999, NSIGHT_CLOCK_MONOTONIC), 1);
	CHECK(conv(&tc, 3000, NSIGHT_CLOCK_REALTIME) - conv(&tc, 2999, NSIGHT_CLOCK_REALTIME) >= 1000000000);
	/* After the last record: still the last. */
	CHECK_U64(conv(&tc, 1000000, NSIGHT_CLOCK_MONOTONIC),
		  1000000 + ((x1 + 1000ULL * m1 + (1000000ULL - 2990) * m1) >> 24));
	/* Coverage: one record interval either side. */
	CHECK(nsight_tc_covers(&tc, 0));
	CHECK(nsight_tc_covers(&tc, 4000));
	CHECK(!nsight_tc_covers(&tc, 4001));
	nsight_tc_fini(&tc);

	/* --time-params first: the first record for everything. */
	REQUIRE(nsight_tc_init(&tc, tk, 3, NULL, 0, 1000000000, NSIGHT_TC_FIRST, NULL) == 0);
	CHECK_U64(conv(&tc, 2999, NSIGHT_CLOCK_MONOTONIC), 1000000 + 2099);
	CHECK_U64(conv(&tc, 3000, NSIGHT_CLOCK_REALTIME), 1000000 + 500 + 2100);
	nsight_tc_fini(&tc);
}

/*
 * A clocksource that is not the TSC: it counts 2 cycles per TSC tick plus
 * 7, at 0.5 ns a cycle (mult 2^23, shift 24). Records carry (tsc, cs_now).
 */
static struct nsight_rec_timekeeper cs_rec(uint64_t tsc, uint64_t mask)
{
	struct nsight_rec_timekeeper tk;
	uint64_t cs = (2 * tsc + 7) & mask;

	/* cycle_last 4 cycles back; mono(c) = ((c - cycle_last) + 2 * tsc - 4) / 2 */
	tk = tk_at(tsc, (cs - 4) & mask, 1U << 23, 24, (2 * tsc - 4) << 23, 0, 1000, NSIGHT_TK_CS_NOW);
	tk.mask = mask;
	tk.cs_now = cs;
	strcpy(tk.clocksource, "kvm-clock");
	return tk;
}

static void test_non_tsc_interpolation(void)
{
	struct nsight_rec_timekeeper tk[3] = { cs_rec(1000, UINT64_MAX), cs_rec(3000, UINT64_MAX),
					       cs_rec(7000, UINT64_MAX) };
	struct nsight_rec_clock_sync cs;
	struct nsight_timeconv tc;
	uint64_t t;

	/* With these numbers mono at TSC t is exactly t, through every record. */
	REQUIRE(nsight_tc_init(&tc, tk, 3, NULL, 0, 1000000000, NSIGHT_TC_IN_FORCE, NULL) == 0);
	CHECK_U64(tc.quality, NSIGHT_TC_EXACT);
	for (t = 0; t < 10000; t += 250)
		CHECK_U64(conv(&tc, t, NSIGHT_CLOCK_MONOTONIC), t);
	CHECK_U64(conv(&tc, 4321, NSIGHT_CLOCK_REALTIME), 4321 + 1000);
	nsight_tc_fini(&tc);

	/*
	 * The clocksource's rate against the TSC changes: 2 cycles a tick
	 * from 1000 to 3000, then 3. Each TSC maps through its own segment
	 * (the last one past the end, the first before the start) and
	 * converts with the record in force.
	 */
	tk[0] = cs_rec(1000, UINT64_MAX);
	tk[1] = cs_rec(3000, UINT64_MAX);
	tk[2] = cs_rec(7000, UINT64_MAX);
	tk[2].cs_now = tk[1].cs_now + 4000 * 3;
	REQUIRE(nsight_tc_init(&tc, tk, 3, NULL, 0, 1000000000, NSIGHT_TC_IN_FORCE, NULL) == 0);
	CHECK_U64(conv(&tc, 0, NSIGHT_CLOCK_MONOTONIC),
		  nsight_tk_cycles_to_clock(&tk[0], 2007 - 2000, NSIGHT_CLOCK_MONOTONIC));
	CHECK_U64(conv(&tc, 2000, NSIGHT_CLOCK_MONOTONIC),
		  nsight_tk_cycles_to_clock(&tk[0], 2007 + 2000, NSIGHT_CLOCK_MONOTONIC));
	CHECK_U64(conv(&tc, 5000, NSIGHT_CLOCK_MONOTONIC),
		  nsight_tk_cycles_to_clock(&tk[1], 6007 + 6000, NSIGHT_CLOCK_MONOTONIC));
	CHECK_U64(conv(&tc, 8000, NSIGHT_CLOCK_REALTIME),
		  nsight_tk_cycles_to_clock(&tk[2], 18007 + 3000, NSIGHT_CLOCK_REALTIME));
	nsight_tc_fini(&tc);
	/* With the first record only, its pair and the TSC rate. */
	REQUIRE(nsight_tc_init(&tc, tk, 3, NULL, 0, 1000000000, NSIGHT_TC_FIRST, NULL) == 0);
	CHECK_U64(conv(&tc, 5000, NSIGHT_CLOCK_MONOTONIC),
		  nsight_tk_cycles_to_clock(&tk[0], 2007, NSIGHT_CLOCK_MONOTONIC) + 4000);
	nsight_tc_fini(&tc);

	/* A 32-bit clocksource that wraps between two records. */
	tk[0] = cs_rec(0x7ffffff0ULL, 0xffffffff);
	tk[1] = cs_rec(0x80000100ULL, 0xffffffff);
	REQUIRE(nsight_tc_init(&tc, tk, 2, NULL, 0, 1000000000, NSIGHT_TC_IN_FORCE, NULL) == 0);
	CHECK(tk[1].cs_now < tk[0].cs_now);
	CHECK_U64(conv(&tc, 0x80000000ULL, NSIGHT_CLOCK_MONOTONIC) - conv(&tc, 0x7ffffff0ULL, NSIGHT_CLOCK_MONOTONIC), 16);
	nsight_tc_fini(&tc);

	/* One record: the TSC rate from clock_sync steps from its pair. */
	tk[0] = cs_rec(1000, UINT64_MAX);
	memset(&cs, 0, sizeof(cs));
	cs.tsc_hz = 1000000000;
	REQUIRE(nsight_tc_init(&tc, tk, 1, &cs, 1, 0, NSIGHT_TC_IN_FORCE, NULL) == 0);
	CHECK_U64(conv(&tc, 1500, NSIGHT_CLOCK_MONOTONIC), 1500);
	CHECK_U64(conv(&tc, 500, NSIGHT_CLOCK_MONOTONIC), 500);
	nsight_tc_fini(&tc);

	/* ... and with no rate at all there is no conversion. */
	REQUIRE(nsight_tc_init(&tc, tk, 1, NULL, 0, 0, NSIGHT_TC_IN_FORCE, NULL) == 0);
	{
		int64_t ns = 42;

		CHECK_U64(nsight_tc_convert(&tc, 1500, NSIGHT_CLOCK_MONOTONIC, &ns), NSIGHT_TC_UNAVAILABLE);
		CHECK_U64(ns, 42);
	}
	nsight_tc_fini(&tc);
}

static void test_fallbacks(void)
{
	struct nsight_rec_clock_sync cs;
	struct nsight_rec_timekeeper tk;
	struct nsight_timeconv tc;
	int64_t ns = 0;

	memset(&cs, 0, sizeof(cs));
	cs.hdr.tsc = 1100;
	cs.tsc_before = 1000;
	cs.tsc_after = 1100;		/* the snapshot is taken mid-bracket: 1050 */
	cs.mono_ns = 7000;
	cs.real_ns = 9000;
	cs.tsc_hz = 2000000000;		/* 2 ticks a nanosecond */

	REQUIRE(nsight_tc_init(&tc, NULL, 0, &cs, 1, 0, NSIGHT_TC_IN_FORCE, NULL) == 0);
	CHECK_U64(tc.quality, NSIGHT_TC_APPROXIMATE);
	CHECK_U64(nsight_tc_convert(&tc, 1050, NSIGHT_CLOCK_REALTIME, &ns), NSIGHT_TC_APPROXIMATE);
	CHECK_U64(ns, 9000);
	CHECK_U64(nsight_tc_convert(&tc, 3050, NSIGHT_CLOCK_MONOTONIC, &ns), NSIGHT_TC_APPROXIMATE);
	CHECK_U64(ns, 8000);
	CHECK_U64(nsight_tc_convert(&tc, 50, NSIGHT_CLOCK_MONOTONIC, &ns), NSIGHT_TC_APPROXIMATE);
	CHECK_U64(ns, 6500);
	CHECK(!nsight_tc_covers(&tc, 1050));
	nsight_tc_fini(&tc);

	/* Without clock_sync, the stream header's rate. */
	cs.tsc_hz = 0;
	REQUIRE(nsight_tc_init(&tc, NULL, 0, &cs, 1, 1000000000, NSIGHT_TC_IN_FORCE, NULL) == 0);
	CHECK_U64(nsight_tc_convert(&tc, 2050, NSIGHT_CLOCK_MONOTONIC, &ns), NSIGHT_TC_APPROXIMATE);
	CHECK_U64(ns, 8000);
	nsight_tc_fini(&tc);

	/* Nothing at all. */
	REQUIRE(nsight_tc_init(&tc, NULL, 0, NULL, 0, 1000000000, NSIGHT_TC_IN_FORCE, NULL) == 0);
	CHECK_U64(tc.quality, NSIGHT_TC_UNAVAILABLE);
	CHECK_U64(nsight_tc_convert(&tc, 2050, NSIGHT_CLOCK_MONOTONIC, &ns), NSIGHT_TC_UNAVAILABLE);
	nsight_tc_fini(&tc);

	/* A record that converts nothing (neither flag), and invalid ones. */
	tk = tk_at(1000, 1000, 1U << 24, 24, 0, 0, 0, 0);
	cs.tsc_hz = 2000000000;
	REQUIRE(nsight_tc_init(&tc, &tk, 1, &cs, 1, 0, NSIGHT_TC_IN_FORCE, NULL) == 0);
	CHECK_U64(tc.quality, NSIGHT_TC_APPROXIMATE);
	CHECK_U64(nsight_tc_convert(&tc, 1050, NSIGHT_CLOCK_REALTIME, &ns), NSIGHT_TC_APPROXIMATE);
	CHECK_U64(ns, 9000);
	nsight_tc_fini(&tc);
	tk = tk_at(1000, 1000, 0, 24, 0, 0, 0, NSIGHT_TK_CS_TSC);
	REQUIRE(nsight_tc_init(&tc, &tk, 1, NULL, 0, 0, NSIGHT_TC_IN_FORCE, NULL) == 0);
	CHECK_U64(tc.n_invalid, 1);
	CHECK_U64(tc.n_tk, 0);
	CHECK_U64(tc.quality, NSIGHT_TC_UNAVAILABLE);
	nsight_tc_fini(&tc);
}

/* Garbage parameters give some number, never undefined behaviour. */
static void test_extreme_values(void)
{
	struct nsight_rec_timekeeper tk[2];
	struct nsight_timeconv tc;
	uint64_t x = 88172645463325252ULL;
	int i, j;

	for (i = 0; i < 2000; i++) {
		for (j = 0; j < 2; j++) {
			tk[j] = tk_at(rnd(&x) >> (rnd(&x) % 64), rnd(&x), (uint32_t)rnd(&x), (uint32_t)(rnd(&x) % 64),
				      rnd(&x), (int64_t)rnd(&x), (int64_t)rnd(&x),
				      (uint32_t)(rnd(&x) % 8));
			tk[j].mask = rnd(&x) >> (rnd(&x) % 64);
			tk[j].cs_now = rnd(&x);
			tk[j].tsc_cs = rnd(&x) >> (rnd(&x) % 64);
		}
		REQUIRE(nsight_tc_init(&tc, tk, 2, NULL, 0, rnd(&x) % 3 ? rnd(&x) : 0,
				       i % 2 ? NSIGHT_TC_FIRST : NSIGHT_TC_IN_FORCE, NULL) == 0);
		for (j = 0; j < 8; j++) {
			int64_t ns;

			nsight_tc_convert(&tc, rnd(&x), j % 2 ? NSIGHT_CLOCK_REALTIME : NSIGHT_CLOCK_MONOTONIC, &ns);
			nsight_tc_covers(&tc, rnd(&x));
		}
		nsight_tc_fini(&tc);
	}
}

/* The timekeeper record written by the synthetic captures. */
static void test_synth_clock(void)
{
	struct nsight_analysis a;
	struct synth s;

	synth_init(&s, 1);
	synth_tk(&s, 0, 123456);
	REQUIRE(synth_analyze(&s, &a) == 0);
	CHECK_U64(a.tc.n_tk, 1);
	CHECK_U64(conv(&a.tc, 777, NSIGHT_CLOCK_MONOTONIC), syn_mono(777));
	CHECK_U64(conv(&a.tc, 999999, NSIGHT_CLOCK_REALTIME), syn_mono(999999) + SYN_OFFS);
	nsight_analysis_fini(&a);
	synth_free(&s);
}

KTAP_MAIN(
	KTAP_TEST(test_cycles_to_ns_edges),
	KTAP_TEST(test_cycles_to_ns_random),
	KTAP_TEST(test_before_cycle_last),
	KTAP_TEST(test_piecewise),
	KTAP_TEST(test_non_tsc_interpolation),
	KTAP_TEST(test_fallbacks),
	KTAP_TEST(test_extreme_values),
	KTAP_TEST(test_synth_clock),
)
