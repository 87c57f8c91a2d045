// SPDX-License-Identifier: MIT
/* nsightctl config: source lists and byte sizes. */
#include "ctl/config.h"
#include "format/sources.h"
#include "test.h"

#define SS (1U << NSIGHT_SRC_SCHED_SWITCH)
#define HO (1U << NSIGHT_SRC_HANDOFF)
#define CL (1U << NSIGHT_SRC_CLOCK)

static int parse(const char *list, uint32_t *mask, char *err, size_t len)
{
	*mask = 0xdeadbeef;
	err[0] = '\0';
	return nsight_sources_parse(list, mask, err, len);
}

static void test_sources_all_none(void)
{
	uint32_t m;
	char err[256];

	CHECK_U64(parse("all", &m, err, sizeof(err)), 0);
	CHECK_U64(m, NSIGHT_SOURCES_ALL);
	CHECK_U64(m & (SS | HO | CL), SS | HO | CL);
	CHECK_U64(parse("none", &m, err, sizeof(err)), 0);
	CHECK_U64(m, 0);
	CHECK_U64(parse(" all ", &m, err, sizeof(err)), 0);
	CHECK_U64(m, NSIGHT_SOURCES_ALL);
}

static void test_sources_lists(void)
{
	uint32_t m;
	char err[256];

	CHECK_U64(parse("handoff,clock", &m, err, sizeof(err)), 0);
	CHECK_U64(m, HO | CL);
	CHECK_U64(parse("sched_switch", &m, err, sizeof(err)), 0);
	CHECK_U64(m, SS);
	CHECK_U64(parse("clock, sched_switch ,handoff", &m, err, sizeof(err)), 0);
	CHECK_U64(m, SS | HO | CL);
	CHECK_U64(parse("clock,clock", &m, err, sizeof(err)), 0);
	CHECK_U64(m, CL);
}

/* "sched_switch,handoff,..." from NSIGHT_SOURCE_NAMES itself. */
static const char *all_names(void)
{
	static char buf[256];
	size_t i, pos = 0;

	for (i = 0; i < __NSIGHT_SRC_COUNT; i++)
		pos += (size_t)snprintf(buf + pos, sizeof(buf) - pos, "%s%s",
					i ? "," : "", nsight_source_names[i]);
	return buf;
}

static void test_sources_errors(void)
{
	uint32_t m;
	char err[256], want[300];

	CHECK_U64(parse("handoff,bogus", &m, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "unknown source 'bogus' (known: %s, all, none)", all_names());
	CHECK_STR_HAS(err, want);
	CHECK_U64(m, 0xdeadbeef);	/* untouched on error */
	CHECK_U64(parse("", &m, err, sizeof(err)), -1);
	CHECK_STR_HAS(err, "empty source list");
	CHECK_U64(parse("  ", &m, err, sizeof(err)), -1);
	CHECK_U64(parse("handoff,,clock", &m, err, sizeof(err)), -1);
	CHECK_STR_HAS(err, "empty name");
	CHECK_U64(parse("handoff,", &m, err, sizeof(err)), -1);
	CHECK_U64(parse(",handoff", &m, err, sizeof(err)), -1);
	CHECK_U64(parse("all,handoff", &m, err, sizeof(err)), -1);
	CHECK_STR_HAS(err, "'all' must be the whole source list");
	CHECK_U64(parse("handoff,none", &m, err, sizeof(err)), -1);
	CHECK_U64(parse("Handoff", &m, err, sizeof(err)), -1);
	CHECK_U64(parse("handoffx", &m, err, sizeof(err)), -1);
	CHECK_U64(parse("hand", &m, err, sizeof(err)), -1);
	/* A tiny error buffer is fine. */
	CHECK_U64(nsight_sources_parse("bogus", &m, err, 4), -1);
	CHECK(strlen(err) == 3);
}

static void test_sources_format(void)
{
	char buf[128];

	CHECK(!strcmp(nsight_sources_format(0, buf, sizeof(buf)), "none"));
	CHECK(!strcmp(nsight_sources_format(HO | CL, buf, sizeof(buf)), "handoff,clock"));
	CHECK(!strcmp(nsight_sources_format(NSIGHT_SOURCES_ALL, buf, sizeof(buf)), all_names()));
	CHECK_STR_HAS(all_names(), "sched_switch,handoff,clock");
	CHECK(!strcmp(nsight_sources_format(SS | (1U << 20), buf, sizeof(buf)), "sched_switch,bit20"));
	/* Cut at a name boundary when the buffer is small. */
	CHECK(!strcmp(nsight_sources_format(NSIGHT_SOURCES_ALL, buf, 16), "sched_switch"));
}

static void test_sizes(void)
{
	uint64_t v;

	CHECK_U64(nsight_parse_size("65536", &v), 0);
	CHECK_U64(v, 65536);
	CHECK_U64(nsight_parse_size("64K", &v), 0);
	CHECK_U64(v, 65536);
	CHECK_U64(nsight_parse_size("4m", &v), 0);
	CHECK_U64(v, 4 << 20);
	CHECK_U64(nsight_parse_size("1G", &v), 0);
	CHECK_U64(v, 1ULL << 30);
	CHECK_U64(nsight_parse_size("0", &v), 0);
	CHECK_U64(v, 0);
	CHECK_U64(nsight_parse_size("18446744073709551615", &v), 0);
	CHECK_U64(v, UINT64_MAX);
}

static void test_size_errors(void)
{
	uint64_t v = 7;

	CHECK_U64(nsight_parse_size("", &v), -1);
	CHECK_U64(nsight_parse_size("K", &v), -1);
	CHECK_U64(nsight_parse_size("-1", &v), -1);
	CHECK_U64(nsight_parse_size(" 4M", &v), -1);
	CHECK_U64(nsight_parse_size("4M ", &v), -1);
	CHECK_U64(nsight_parse_size("4MB", &v), -1);
	CHECK_U64(nsight_parse_size("4T", &v), -1);
	CHECK_U64(nsight_parse_size("0x10", &v), -1);
	CHECK_U64(nsight_parse_size("1.5M", &v), -1);
	CHECK_U64(nsight_parse_size("18446744073709551616", &v), -1);
	CHECK_U64(nsight_parse_size("17179869184G", &v), -1);
	CHECK_U64(v, 7);
}

static void test_durations(void)
{
	uint64_t v = 7;

	CHECK_U64(nsight_parse_duration("50", &v), 0);
	CHECK_U64(v, 50000);
	CHECK_U64(nsight_parse_duration("50us", &v), 0);
	CHECK_U64(v, 50000);
	CHECK_U64(nsight_parse_duration("10000ns", &v), 0);
	CHECK_U64(v, 10000);
	CHECK_U64(nsight_parse_duration("2ms", &v), 0);
	CHECK_U64(v, 2000000);
	v = 7;
	CHECK_U64(nsight_parse_duration("", &v), -1);
	CHECK_U64(nsight_parse_duration("us", &v), -1);
	CHECK_U64(nsight_parse_duration("5 us", &v), -1);
	CHECK_U64(nsight_parse_duration("5s", &v), -1);
	CHECK_U64(nsight_parse_duration("-5", &v), -1);
	CHECK_U64(nsight_parse_duration("18446744073709551615ms", &v), -1);
	CHECK_U64(v, 7);
}

static void test_parse_seconds(void)
{
	uint64_t v = 0;

	CHECK_U64(nsight_parse_seconds("30", &v), 0);
	CHECK_U64(v, 30000000000ULL);
	CHECK_U64(nsight_parse_seconds("30s", &v), 0);
	CHECK_U64(v, 30000000000ULL);
	CHECK_U64(nsight_parse_seconds("500ms", &v), 0);
	CHECK_U64(v, 500000000ULL);
	CHECK_U64(nsight_parse_seconds("10m", &v), 0);
	CHECK_U64(v, 600000000000ULL);
	CHECK_U64(nsight_parse_seconds("2h", &v), 0);
	CHECK_U64(v, 7200000000000ULL);
	v = 7;
	CHECK_U64(nsight_parse_seconds("0", &v), -1);
	CHECK_U64(nsight_parse_seconds("", &v), -1);
	CHECK_U64(nsight_parse_seconds("s", &v), -1);
	CHECK_U64(nsight_parse_seconds("5us", &v), -1);
	CHECK_U64(nsight_parse_seconds("5 s", &v), -1);
	CHECK_U64(nsight_parse_seconds("-5", &v), -1);
	CHECK_U64(nsight_parse_seconds("18446744073709551615h", &v), -1);
	CHECK_U64(v, 7);
}

KTAP_MAIN(
	KTAP_TEST(test_durations),
	KTAP_TEST(test_parse_seconds),
	KTAP_TEST(test_sources_all_none),
	KTAP_TEST(test_sources_lists),
	KTAP_TEST(test_sources_errors),
	KTAP_TEST(test_sources_format),
	KTAP_TEST(test_sizes),
	KTAP_TEST(test_size_errors),
)
