// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: source list parsing and formatting, timekeeper record encoding.
 */
#include <kunit/test.h>
#include <linux/timekeeper_internal.h>
#include <linux/clocksource.h>
#include <net/ipv6.h>
#include "../control.h"
#include "../clock.h"
#include "../buffer.h"
#include "../filter.h"

struct nsight_sources_case {
	const char *in;
	int ret;
	u32 mask;
};

#define SRC(x) BIT(NSIGHT_SRC_##x)

static const struct nsight_sources_case nsight_sources_cases[] = {
	{ "all", 0, NSIGHT_SOURCES_ALL },
	{ "all\n", 0, NSIGHT_SOURCES_ALL },
	{ "none", 0, 0 },
	{ "handoff", 0, SRC(HANDOFF) },
	{ "handoff,clock", 0, SRC(HANDOFF) | SRC(CLOCK) },
	{ "sched_switch handoff\n", 0, SRC(SCHED_SWITCH) | SRC(HANDOFF) },
	{ "clock,,sched_switch", 0, SRC(CLOCK) | SRC(SCHED_SWITCH) },
	{ "none,clock", 0, SRC(CLOCK) },
	{ "", -EINVAL, 0 },
	{ "\n", -EINVAL, 0 },
	{ ",", -EINVAL, 0 },
	{ "bogus", -EINVAL, 0 },
	{ "handoffx", -EINVAL, 0 },
	{ "handof", -EINVAL, 0 },
	{ "all,bogus", -EINVAL, 0 },
	{ "1", -EINVAL, 0 },
};

static void nsight_sources_desc(const struct nsight_sources_case *c,
				char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%s\"", c->in);
	strreplace(desc, '\n', ' ');
}

KUNIT_ARRAY_PARAM(nsight_sources, nsight_sources_cases, nsight_sources_desc);

static void nsight_test_sources_parse(struct kunit *test)
{
	const struct nsight_sources_case *c = test->param_value;
	u32 mask = 0xdeadbeef;

	KUNIT_EXPECT_EQ(test, nsight_sources_parse(c->in, &mask), c->ret);
	if (!c->ret)
		KUNIT_EXPECT_EQ(test, mask, c->mask);
	else
		KUNIT_EXPECT_EQ(test, mask, 0xdeadbeef);
}

static void nsight_test_sources_format(struct kunit *test)
{
	char buf[160];
	u32 mask;

	nsight_sources_format(0, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "none");
	nsight_sources_format(NSIGHT_SOURCES_ALL, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf,
			   "sched_switch,handoff,clock,net_rx,net_tx,app,sched_waking,irq,softirq,idle,fault,workqueue,napi,sample,pt,futex,request");
	nsight_sources_format(SRC(CLOCK) | SRC(SCHED_SWITCH), buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "sched_switch,clock");
	/* What is shown can be written back. */
	KUNIT_EXPECT_EQ(test, nsight_sources_parse(buf, &mask), 0);
	KUNIT_EXPECT_EQ(test, mask, SRC(CLOCK) | SRC(SCHED_SWITCH));
	/* Truncation never overruns. */
	KUNIT_EXPECT_LT(test, nsight_sources_format(NSIGHT_SOURCES_ALL, buf, 8),
			8);
	KUNIT_EXPECT_EQ(test, strlen(buf), 7);
	nsight_sources_format(SRC(NET_RX) | SRC(APP), buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "net_rx,app");
}

struct nsight_filter_case {
	const char *in;
	int ret;
	const char *out;	/* formatted back, when ret == 0 */
};

static const struct nsight_filter_case nsight_filter_cases[] = {
	{ "none", 0, "none" },
	{ " none\n", 0, "none" },
	{ "", 0, "none" },
	{ "port=9000", 0, "port=9000" },
	{ "port=9000,9001 addr=10.0.0.2\n", 0, "port=9000,9001 addr=10.0.0.2" },
	{ "addr=fd00::1 pid=12 ifindex=3", 0, "addr=fd00::1 ifindex=3 pid=12" },
	{ "port=1 port=2", 0, "port=1,2" },
	{ "port=0", -EINVAL, NULL },
	{ "port=65536", -EINVAL, NULL },
	{ "port=", -EINVAL, NULL },
	{ "=1", -EINVAL, NULL },
	{ "port", -EINVAL, NULL },
	{ "bogus=1", -EINVAL, NULL },
	{ "port=1,,2", -EINVAL, NULL },
	{ "port=1,", -EINVAL, NULL },
	{ "addr=1.2.3", -EINVAL, NULL },
	{ "addr=zz", -EINVAL, NULL },
	{ "pid=-1", -EINVAL, NULL },
	{ "none port=1", -EINVAL, NULL },
	{ "port=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", -E2BIG, NULL },
};

static void nsight_filter_desc(const struct nsight_filter_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%s\"", c->in);
	strreplace(desc, '\n', ' ');
}

KUNIT_ARRAY_PARAM(nsight_filter, nsight_filter_cases, nsight_filter_desc);

static void nsight_test_filter_parse(struct kunit *test)
{
	const struct nsight_filter_case *c = test->param_value;
	struct nsight_filter f = { .nports = 1, .ports = { 7 } };
	char buf[256];

	KUNIT_EXPECT_EQ(test, nsight_filter_parse(c->in, &f), c->ret);
	if (c->ret) {
		/* Untouched on error. */
		KUNIT_EXPECT_EQ(test, f.nports, 1);
		KUNIT_EXPECT_EQ(test, f.ports[0], 7);
		return;
	}
	nsight_filter_format(&f, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, c->out);
}

static void nsight_test_filter_match(struct kunit *test)
{
	struct nsight_flow flow = { .sport = 40000, .dport = 9000 };
	struct nsight_filter f;

	ipv6_addr_set_v4mapped(htonl(0x0a000001), (struct in6_addr *)flow.saddr);
	ipv6_addr_set_v4mapped(htonl(0x0a000002), (struct in6_addr *)flow.daddr);

	KUNIT_ASSERT_EQ(test, nsight_filter_parse("none", &f), 0);
	KUNIT_EXPECT_TRUE(test, nsight_filter_flow(&f, &flow));
	KUNIT_EXPECT_TRUE(test, nsight_filter_pid(&f, 1));
	KUNIT_EXPECT_TRUE(test, nsight_filter_ifindex(&f, 1));
	/* Either end matches. */
	KUNIT_ASSERT_EQ(test, nsight_filter_parse("port=40000", &f), 0);
	KUNIT_EXPECT_TRUE(test, nsight_filter_flow(&f, &flow));
	KUNIT_ASSERT_EQ(test, nsight_filter_parse("port=9000 addr=10.0.0.1", &f), 0);
	KUNIT_EXPECT_TRUE(test, nsight_filter_flow(&f, &flow));
	/* Every kind given must match. */
	KUNIT_ASSERT_EQ(test, nsight_filter_parse("port=9000 addr=10.0.0.3", &f), 0);
	KUNIT_EXPECT_FALSE(test, nsight_filter_flow(&f, &flow));
	KUNIT_ASSERT_EQ(test, nsight_filter_parse("port=1,9000", &f), 0);
	KUNIT_EXPECT_TRUE(test, nsight_filter_flow(&f, &flow));
	/* Kinds that do not apply to a record are not checked against it. */
	KUNIT_ASSERT_EQ(test, nsight_filter_parse("pid=5 ifindex=2", &f), 0);
	KUNIT_EXPECT_TRUE(test, nsight_filter_flow(&f, &flow));
	KUNIT_EXPECT_TRUE(test, nsight_filter_pid(&f, 5));
	KUNIT_EXPECT_FALSE(test, nsight_filter_pid(&f, 6));
	KUNIT_EXPECT_FALSE(test, nsight_filter_ifindex(&f, 1));
}

static void nsight_test_timekeeper_fill(struct kunit *test)
{
	struct clocksource cs = { .name = "tsc" };
	struct nsight_rec_timekeeper r;
	struct timekeeper tk = {};

	tk.tkr_mono.clock = &cs;
	tk.tkr_mono.mask = U64_MAX;
	tk.tkr_mono.cycle_last = 123456789;
	tk.tkr_mono.mult = 5592405;
	tk.tkr_mono.shift = 24;
	tk.tkr_mono.xtime_nsec = 777ULL << 24;
	tk.tkr_mono.base = ns_to_ktime(1000000000);
	tk.tkr_raw.cycle_last = 123456000;
	tk.tkr_raw.mult = 5592400;
	tk.tkr_raw.shift = 24;
	tk.tkr_raw.base = ns_to_ktime(999);
	tk.offs_real = ns_to_ktime(1700000000000000000LL);
	tk.offs_boot = ns_to_ktime(5);
	tk.offs_tai = ns_to_ktime(1700000037000000000LL);
	tk.xtime_sec = 1700000001;
	tk.clock_was_set_seq = 9;

	memset(&r, 0xa5, sizeof(r));
	nsight_timekeeper_fill(&r, &tk, true);
	KUNIT_EXPECT_EQ(test, r.cycle_last, 123456789);
	KUNIT_EXPECT_EQ(test, r.mask, U64_MAX);
	KUNIT_EXPECT_EQ(test, r.mult, 5592405);
	KUNIT_EXPECT_EQ(test, r.shift, 24);
	KUNIT_EXPECT_EQ(test, r.xtime_nsec, 777ULL << 24);
	KUNIT_EXPECT_EQ(test, r.base_mono, 1000000000);
	KUNIT_EXPECT_EQ(test, r.offs_real, 1700000000000000000LL);
	KUNIT_EXPECT_EQ(test, r.offs_boot, 5);
	KUNIT_EXPECT_EQ(test, r.offs_tai, 1700000037000000000LL);
	KUNIT_EXPECT_EQ(test, r.raw_cycle_last, 123456000);
	KUNIT_EXPECT_EQ(test, r.raw_mult, 5592400);
	KUNIT_EXPECT_EQ(test, r.base_raw, 999);
	KUNIT_EXPECT_EQ(test, r.xtime_sec, 1700000001);
	KUNIT_EXPECT_EQ(test, r.clock_was_set_seq, 9);
	KUNIT_EXPECT_STREQ(test, r.clocksource, "tsc");
	KUNIT_EXPECT_EQ(test, r.flags & NSIGHT_TK_CLOCK_WAS_SET,
			NSIGHT_TK_CLOCK_WAS_SET);
	KUNIT_EXPECT_EQ(test, !!(r.flags & NSIGHT_TK_CS_TSC),
			IS_ENABLED(CONFIG_X86));

	cs.name = "hpet";
	nsight_timekeeper_fill(&r, &tk, false);
	KUNIT_EXPECT_EQ(test, r.flags, 0);
	KUNIT_EXPECT_STREQ(test, r.clocksource, "hpet");
}

static struct kunit_case nsight_control_cases[] = {
	KUNIT_CASE_PARAM(nsight_test_sources_parse, nsight_sources_gen_params),
	KUNIT_CASE(nsight_test_sources_format),
	KUNIT_CASE(nsight_test_timekeeper_fill),
	KUNIT_CASE_PARAM(nsight_test_filter_parse, nsight_filter_gen_params),
	KUNIT_CASE(nsight_test_filter_match),
	{}
};

static struct kunit_suite nsight_control_suite = {
	.name = "nsight_control",
	.test_cases = nsight_control_cases,
};

kunit_test_suite(nsight_control_suite);
