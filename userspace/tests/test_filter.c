// SPDX-License-Identifier: MIT
/*
 * Filter specs (lib/format/filter.c): parsing, formatting and errors; the
 * NSIGHT_A_FILTER nest (ctl/filter_nl.c); and GET_STATUS replies with and
 * without a filter.
 */
#include <errno.h>
#include <netlink/genl/genl.h>

#include "format/filter.h"
#include "ctl/filter_nl.h"
#include "ctl/status.h"
#include "test.h"

/* A fake if_nametoindex(): eth0 is 2, lo is 1, nothing else exists. */
static unsigned int fake_ifindex(const char *name)
{
	if (!strcmp(name, "lo"))
		return 1;
	if (!strcmp(name, "eth0"))
		return 2;
	return 0;
}

static int parse(const char *spec, struct nsight_filter *f, char *err, size_t len)
{
	err[0] = '\0';
	return nsight_filter_parse(spec, fake_ifindex, f, err, len);
}

static const char *fmt(const struct nsight_filter *f)
{
	static char buf[NSIGHT_FILTER_FMT_MAX];

	nsight_filter_format(f, buf, sizeof(buf));
	return buf;
}

/* Parse @spec, format it, expect @want, and parse that back to the same filter. */
static void roundtrip(const char *spec, const char *want)
{
	struct nsight_filter f, g;
	char err[256];

	if (parse(spec, &f, err, sizeof(err))) {
		KTAP_FAIL("'%s' does not parse: %s", spec, err);
		return;
	}
	if (strcmp(fmt(&f), want)) {
		KTAP_FAIL("'%s' formats as '%s', expected '%s'", spec, fmt(&f), want);
		return;
	}
	if (parse(want, &g, err, sizeof(err)) || !nsight_filter_equal(&f, &g))
		KTAP_FAIL("'%s' does not parse back to the same filter (%s)", want, err);
}

static void test_spec_roundtrips(void)
{
	roundtrip("none", "none");
	roundtrip("  none\n", "none");
	roundtrip("port=9000", "port=9000");
	roundtrip("port=9000,9001 addr=10.0.0.2", "port=9000,9001 addr=10.0.0.2");
	/* Kinds come out in a fixed order, values in the order given. */
	roundtrip("pid=42 ifindex=3 addr=fe80::1,10.0.0.1 port=443,80",
		  "port=443,80 addr=fe80::1,10.0.0.1 ifindex=3 pid=42");
	/* A kind given twice adds up. */
	roundtrip("port=1 port=2", "port=1,2");
	/* Blanks of every kind, as a sysfs write with a newline has. */
	roundtrip("\tport=1\n addr=::1  \n", "port=1 addr=::1");
	/* IPv6 written the long way is compressed; IPv4-mapped becomes IPv4. */
	roundtrip("addr=2001:0db8:0000:0000:0000:0000:0000:0001", "addr=2001:db8::1");
	roundtrip("addr=::ffff:192.168.1.1", "addr=192.168.1.1");
	/* Interface names become indexes. */
	roundtrip("ifindex=eth0,lo,7", "ifindex=2,1,7");
	roundtrip("port=65535,1 pid=4294967295", "port=65535,1 pid=4294967295");
	/* Repeats are kept, as the kernel keeps them. */
	roundtrip("port=80,80", "port=80,80");
	roundtrip("port=007", "port=7");
}

static void test_spec_values(void)
{
	static const uint8_t v6[16] = { 0xfe, 0x80, [15] = 1 };
	static const uint8_t v4[4] = { 10, 0, 0, 2 };
	struct nsight_filter f;
	char err[256];

	REQUIRE(parse("port=9000,9001 addr=10.0.0.2,fe80::1 ifindex=eth0 pid=1", &f, err, sizeof(err)) == 0);
	CHECK_U64(f.n_ports, 2);
	CHECK_U64(f.ports[0], 9000);
	CHECK_U64(f.ports[1], 9001);
	REQUIRE(f.n_addrs == 2);
	CHECK_U64(f.addrs[0].len, 4);
	CHECK(!memcmp(f.addrs[0].bytes, v4, 4));
	CHECK_U64(f.addrs[1].len, 16);
	CHECK(!memcmp(f.addrs[1].bytes, v6, 16));
	CHECK_U64(f.n_ifindexes, 1);
	CHECK_U64(f.ifindexes[0], 2);
	CHECK_U64(f.n_pids, 1);
	CHECK_U64(f.pids[0], 1);
	CHECK(!nsight_filter_empty(&f));

	REQUIRE(parse("none", &f, err, sizeof(err)) == 0);
	CHECK(nsight_filter_empty(&f));
	CHECK(!strcmp(fmt(&f), "none"));

	/* Exactly NSIGHT_FILTER_MAX of each kind is fine. */
	REQUIRE(parse("port=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 "
		      "pid=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16", &f, err, sizeof(err)) == 0);
	CHECK_U64(f.n_ports, NSIGHT_FILTER_MAX);
	CHECK_U64(f.n_pids, NSIGHT_FILTER_MAX);
}

struct bad_spec {
	const char *spec;
	const char *msg;
};

static void test_spec_errors(void)
{
	static const struct bad_spec bad[] = {
		{ "", "empty filter (use 'none' to remove the filter)" },
		{ " \n ", "empty filter" },
		{ "none port=1", "'none' must be the whole filter" },
		{ "port=1 none", "'none' must be the whole filter" },
		{ "none none", "'none' must be the whole filter" },
		{ "port", "bad filter token 'port' (expected KIND=VALUE,... or none)" },
		{ "port=1 9000", "bad filter token '9000'" },
		{ "host=a.b", "unknown filter kind 'host' in 'host=a.b' (kinds: port, addr, ifindex, pid)" },
		{ "=1", "unknown filter kind '' in '=1'" },
		{ "Port=1", "unknown filter kind 'Port'" },
		{ "port=", "empty port value in 'port='" },
		{ "port=1,,2", "empty port value in 'port=1,,2'" },
		{ "port=1,", "empty port value" },
		{ "port=,1", "empty port value" },
		{ "port=0", "bad port '0' (1 to 65535)" },
		{ "port=65536", "bad port '65536' (1 to 65535)" },
		{ "port=-1", "bad port '-1'" },
		{ "port=+1", "bad port '+1'" },
		{ "port=http", "bad port 'http'" },
		{ "port=1 port=99999999999999999999", "bad port '99999999999999999999'" },
		{ "addr=10.0.0", "bad addr '10.0.0' (an IPv4 or IPv6 address)" },
		{ "addr=10.0.0.256", "bad addr '10.0.0.256'" },
		{ "addr=fe80::1%eth0", "bad addr 'fe80::1%eth0'" },
		{ "addr=[::1]", "bad addr '[::1]'" },
		{ "addr=example.com", "bad addr 'example.com'" },
		{ "ifindex=0", "bad ifindex '0' (1 to 4294967295, or an interface name)" },
		{ "ifindex=4294967296", "bad ifindex '4294967296'" },
		{ "ifindex=2x", "bad ifindex '2x'" },
		{ "ifindex=eth9", "bad ifindex 'eth9': no such interface" },
		{ "pid=0", "bad pid '0' (1 to 4294967295)" },
		{ "pid=1.5", "bad pid '1.5'" },
		{ "port=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17",
		  "too many port values at '17' (at most 16)" },
		{ "port=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 port=16",
		  "too many port values at '16' (at most 16)" },
		{ "addr=::1,::2,::3,::4,::5,::6,::7,::8,::9,::10,::11,::12,::13,::14,::15,::16,::17",
		  "too many addr values at '::17'" },
		{ "port=1 addr=1111:2222:3333:4444:5555:6666:7777:8888:9999:aaaa:bbbb:cccc:dddd:eeee",
		  "bad addr '1111:2222:3333:4444:5555:6666:7777:8888:9999:aaaa:bbbb:cccc:dddd:eeee' (too long)" },
	};
	struct nsight_filter f, before;
	char err[256];
	size_t i;

	REQUIRE(parse("port=5", &before, err, sizeof(err)) == 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		f = before;
		if (parse(bad[i].spec, &f, err, sizeof(err)) != -1) {
			KTAP_FAIL("'%s' parsed", bad[i].spec);
			continue;
		}
		if (!strstr(err, bad[i].msg))
			KTAP_FAIL("'%s': \"%s\" lacks \"%s\"", bad[i].spec, err, bad[i].msg);
		if (!nsight_filter_equal(&f, &before))
			KTAP_FAIL("'%s': the filter was changed on error", bad[i].spec);
	}

	/* Without a resolver, names are refused. */
	CHECK_U64(nsight_filter_parse("ifindex=eth0", NULL, &f, err, sizeof(err)), -1);
	CHECK_STR_HAS(err, "bad ifindex 'eth0' (a number from 1 to 4294967295)");
	CHECK_U64(nsight_filter_parse("ifindex=5", NULL, &f, err, sizeof(err)), 0);

	/* A tiny error buffer is fine. */
	CHECK_U64(nsight_filter_parse("bogus=1", NULL, &f, err, 5), -1);
	CHECK_U64(strlen(err), 4);
}

static void test_format_sizes(void)
{
	struct nsight_filter f;
	char buf[NSIGHT_FILTER_FMT_MAX], small[12];
	size_t i;
	int n;

	/* The longest filter there is fits NSIGHT_FILTER_FMT_MAX. */
	memset(&f, 0, sizeof(f));
	for (i = 0; i < NSIGHT_FILTER_MAX; i++) {
		uint8_t a[16];

		memset(a, 0xff, sizeof(a));
		a[0] = (uint8_t)i;	/* not IPv4-mapped: full IPv6 length */
		nsight_filter_add(&f, NSIGHT_FILTER_A_PORT, 65535, NULL, 0);
		nsight_filter_add(&f, NSIGHT_FILTER_A_ADDR, 0, a, 16);
		nsight_filter_add(&f, NSIGHT_FILTER_A_IFINDEX, UINT32_MAX, NULL, 0);
		nsight_filter_add(&f, NSIGHT_FILTER_A_PID, UINT32_MAX, NULL, 0);
	}
	CHECK_U64(nsight_filter_add(&f, NSIGHT_FILTER_A_PID, 1, NULL, 0), -1);
	CHECK_U64(nsight_filter_add(&f, 99, 1, NULL, 0), -1);
	n = nsight_filter_format(&f, buf, sizeof(buf));
	CHECK(n > 0 && (size_t)n < sizeof(buf));
	CHECK_U64(strlen(buf), n);

	/* Cut short like snprintf: the full length is returned, the text ends in a NUL. */
	memset(small, 'x', sizeof(small));
	CHECK_U64(nsight_filter_format(&f, small, sizeof(small)), n);
	CHECK(!strcmp(small, "port=65535,"));
	CHECK_U64(nsight_filter_format(&f, NULL, 0), n);
}

static void test_addr_strings(void)
{
	struct nsight_filter_addr a = { .len = 16 };
	char s[NSIGHT_FILTER_ADDR_STRLEN];

	a.bytes[10] = a.bytes[11] = 0xff;
	a.bytes[12] = 127;
	a.bytes[15] = 1;
	CHECK(!strcmp(nsight_filter_addr_str(&a, s, sizeof(s)), "127.0.0.1"));
	a.bytes[10] = 0;
	CHECK(!strcmp(nsight_filter_addr_str(&a, s, sizeof(s)), "::ff:7f00:1"));
	a.len = 7;
	CHECK(!strcmp(nsight_filter_addr_str(&a, s, sizeof(s)), "?"));
	CHECK(!strcmp(nsight_filter_kind_name(NSIGHT_FILTER_A_IFINDEX), "ifindex"));
	CHECK(nsight_filter_kind_name(NSIGHT_FILTER_A_UNSPEC) == NULL);
	CHECK(nsight_filter_kind_name(NSIGHT_FILTER_A_MAX + 1) == NULL);
}

/* ---------------------------------------------------------------------- */
/* The nest                                                                 */

/* The first attribute after the genl header of @msg. */
static struct nlattr *first_attr(struct nl_msg *msg)
{
	return genlmsg_attrdata(genlmsg_hdr(nlmsg_hdr(msg)), 0);
}

static struct nl_msg *new_msg(void)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg)
		genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, 0x1c, 0, 0, NSIGHT_CMD_SET_CONFIG,
			    NSIGHT_GENL_VERSION);
	return msg;
}

static void test_nest_roundtrip(void)
{
	static const char *const specs[] = {
		"port=9000,9001 addr=10.0.0.2,fe80::1 ifindex=2,1 pid=42",
		"addr=::1",
		"pid=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16",
	};
	struct nsight_diag d = { 0 };
	struct nsight_filter f, g;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct nl_msg *msg = new_msg();
		struct nlattr *nest;

		REQUIRE(msg);
		REQUIRE(parse(specs[i], &f, err, sizeof(err)) == 0);
		CHECK_U64(nsight_filter_put(msg, &f), 0);
		nest = first_attr(msg);
		CHECK_U64(nla_type(nest), NSIGHT_A_FILTER);
		CHECK(nest->nla_type & NLA_F_NESTED);
		CHECK_U64(nsight_filter_parse_nest(nest, &g, "test", &d), 0);
		if (!nsight_filter_equal(&f, &g))
			KTAP_FAIL("'%s' came back as '%s'", specs[i], fmt(&g));
		nlmsg_free(msg);
	}
}

static void test_nest_layout(void)
{
	struct nsight_filter f;
	struct nlattr *nest, *pos;
	struct nl_msg *msg;
	char err[256];
	int rem, n = 0;
	int types[8];
	int lens[8];

	/* Entries in kind order: ports, addresses, ifindexes, pids. */
	REQUIRE(parse("pid=7 ifindex=3 addr=10.1.2.3,::2 port=80", &f, err, sizeof(err)) == 0);
	msg = new_msg();
	REQUIRE(msg);
	REQUIRE(nsight_filter_put(msg, &f) == 0);
	nest = first_attr(msg);
	nla_for_each_nested(pos, nest, rem) {
		if (n < 8) {
			types[n] = nla_type(pos);
			lens[n] = nla_len(pos);
		}
		n++;
	}
	REQUIRE(n == 5);
	CHECK_U64(types[0], NSIGHT_FILTER_A_PORT);
	CHECK_U64(lens[0], 2);
	CHECK_U64(types[1], NSIGHT_FILTER_A_ADDR);
	CHECK_U64(lens[1], 4);
	CHECK_U64(types[2], NSIGHT_FILTER_A_ADDR);
	CHECK_U64(lens[2], 16);
	CHECK_U64(types[3], NSIGHT_FILTER_A_IFINDEX);
	CHECK_U64(lens[3], 4);
	CHECK_U64(types[4], NSIGHT_FILTER_A_PID);
	CHECK_U64(lens[4], 4);
	nlmsg_free(msg);
}

/* "none" is an empty nest, not a missing one: the kernel clears the filter. */
static void test_nest_empty(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_filter f, g;
	struct nlattr *nest;
	struct nl_msg *msg;
	char err[256];

	REQUIRE(parse("none", &f, err, sizeof(err)) == 0);
	msg = new_msg();
	REQUIRE(msg);
	REQUIRE(nsight_filter_put(msg, &f) == 0);
	CHECK_U64(genlmsg_attrlen(genlmsg_hdr(nlmsg_hdr(msg)), 0), NLA_HDRLEN);
	nest = first_attr(msg);
	CHECK_U64(nla_type(nest), NSIGHT_A_FILTER);
	CHECK(nest->nla_type & NLA_F_NESTED);
	CHECK_U64(nla_len(nest), 0);
	memset(&g, 0xaa, sizeof(g));
	CHECK_U64(nsight_filter_parse_nest(nest, &g, "test", &d), 0);
	CHECK(nsight_filter_empty(&g));
	nlmsg_free(msg);
}

/* Nests as a kernel might send them, good and bad. */
static void test_nest_parse_kernel(void)
{
	static const uint8_t mapped[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 };
	struct nsight_diag d = { 0 };
	struct nsight_filter g;
	struct nlattr *nest;
	struct nl_msg *msg;
	int i;

	/* Addresses always 16 bytes, unknown entry types in between. */
	msg = new_msg();
	REQUIRE(msg);
	nest = nla_nest_start(msg, NSIGHT_A_FILTER);
	nla_put_u16(msg, NSIGHT_FILTER_A_PORT, 9000);
	nla_put(msg, NSIGHT_FILTER_A_ADDR, 16, mapped);
	nla_put_u64(msg, 99, 1);
	nla_put_u32(msg, NSIGHT_FILTER_A_IFINDEX, 4);
	nla_put_u32(msg, NSIGHT_FILTER_A_PID, 1234);
	nla_nest_end(msg, nest);
	CHECK_U64(nsight_filter_parse_nest(first_attr(msg), &g, "test", &d), 0);
	CHECK(!strcmp(fmt(&g), "port=9000 addr=10.0.0.2 ifindex=4 pid=1234"));
	CHECK_U64(g.addrs[0].len, 4);
	nlmsg_free(msg);

	/* Wrong lengths. */
	msg = new_msg();
	REQUIRE(msg);
	nest = nla_nest_start(msg, NSIGHT_A_FILTER);
	nla_put_u32(msg, NSIGHT_FILTER_A_PORT, 9000);
	nla_nest_end(msg, nest);
	CHECK_U64(nsight_filter_parse_nest(first_attr(msg), &g, "GET_STATUS reply", &d), -EINVAL);
	CHECK_STR_HAS(d.msg, "GET_STATUS reply: filter port entry of 4 bytes");
	nlmsg_free(msg);

	msg = new_msg();
	REQUIRE(msg);
	nest = nla_nest_start(msg, NSIGHT_A_FILTER);
	nla_put(msg, NSIGHT_FILTER_A_ADDR, 6, "abcdef");
	nla_nest_end(msg, nest);
	CHECK_U64(nsight_filter_parse_nest(first_attr(msg), &g, "test", &d), -EINVAL);
	CHECK_STR_HAS(d.msg, "filter addr entry of 6 bytes");
	nlmsg_free(msg);

	msg = new_msg();
	REQUIRE(msg);
	nest = nla_nest_start(msg, NSIGHT_A_FILTER);
	nla_put_u16(msg, NSIGHT_FILTER_A_PID, 1);
	nla_nest_end(msg, nest);
	CHECK_U64(nsight_filter_parse_nest(first_attr(msg), &g, "test", &d), -EINVAL);
	CHECK_STR_HAS(d.msg, "filter pid entry of 2 bytes");
	nlmsg_free(msg);

	/* Too many of one kind. */
	msg = new_msg();
	REQUIRE(msg);
	nest = nla_nest_start(msg, NSIGHT_A_FILTER);
	for (i = 0; i <= NSIGHT_FILTER_MAX; i++)
		nla_put_u32(msg, NSIGHT_FILTER_A_IFINDEX, (uint32_t)i + 1);
	nla_nest_end(msg, nest);
	CHECK_U64(nsight_filter_parse_nest(first_attr(msg), &g, "test", &d), -EINVAL);
	CHECK_STR_HAS(d.msg, "test: more than 16 filter ifindex entries");
	nlmsg_free(msg);

	/* A truncated entry at the end of the nest. */
	msg = new_msg();
	REQUIRE(msg);
	nest = nla_nest_start(msg, NSIGHT_A_FILTER);
	nla_put_u32(msg, NSIGHT_FILTER_A_PID, 5);
	nla_put_u32(msg, NSIGHT_FILTER_A_PID, 6);
	nla_nest_end(msg, nest);
	nest = first_attr(msg);
	((struct nlattr *)nla_data(nest))[2].nla_len = 40;	/* second entry's header */
	CHECK_U64(nsight_filter_parse_nest(nest, &g, "test", &d), -EINVAL);
	CHECK_STR_HAS(d.msg, "test: malformed filter entry");
	nlmsg_free(msg);
}

/* ---------------------------------------------------------------------- */
/* GET_STATUS with a filter                                                 */

enum filter_variant {
	NO_FILTER,		/* the attribute left out (an older module) */
	EMPTY_FILTER,		/* an empty nest */
	SOME_FILTER,		/* port=9000,9001 addr=10.0.0.2 */
	BAD_FILTER,		/* a 3-byte port */
	FLAT_FILTER,		/* FILTER as a u32, not a nest */
};

static struct nl_msg *status_msg(enum filter_variant v, bool missed)
{
	static const uint8_t mapped[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 };
	struct nl_msg *msg = nlmsg_alloc();
	struct nlattr *nest;

	if (!msg)
		return NULL;
	genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, 0x1c, 0, 0, NSIGHT_CMD_GET_STATUS,
		    NSIGHT_GENL_VERSION);
	nla_put_u8(msg, NSIGHT_A_ENABLED, 0);
	nla_put_u32(msg, NSIGHT_A_SOURCES, NSIGHT_SOURCES_ALL);
	nla_put_u32(msg, NSIGHT_A_BUFFER_SIZE, 4 << 20);
	nla_put_u32(msg, NSIGHT_A_SUBBUF_SIZE, 256 << 10);
	nla_put_u32(msg, NSIGHT_A_N_SUBBUFS, 16);
	nla_put_u64(msg, NSIGHT_A_TSC_HZ, 3000000000ULL);
	nla_put_u32(msg, NSIGHT_A_NR_CPUS, 1);
	nla_put_u64(msg, NSIGHT_A_HOOK_HITS, 10);
	nla_put_u64(msg, NSIGHT_A_RECORDS_WRITTEN, 10);
	nla_put_u64(msg, NSIGHT_A_RECORDS_DROPPED, 0);
	if (missed)
		nla_put_u64(msg, NSIGHT_A_PROBES_MISSED, 17);
	switch (v) {
	case NO_FILTER:
		break;
	case EMPTY_FILTER:
		nla_put(msg, NSIGHT_A_FILTER | NLA_F_NESTED, 0, NULL);
		break;
	case SOME_FILTER:
		nest = nla_nest_start(msg, NSIGHT_A_FILTER);
		nla_put_u16(msg, NSIGHT_FILTER_A_PORT, 9000);
		nla_put_u16(msg, NSIGHT_FILTER_A_PORT, 9001);
		nla_put(msg, NSIGHT_FILTER_A_ADDR, 16, mapped);
		nla_nest_end(msg, nest);
		break;
	case BAD_FILTER:
		nest = nla_nest_start(msg, NSIGHT_A_FILTER);
		nla_put(msg, NSIGHT_FILTER_A_PORT, 3, "abc");
		nla_nest_end(msg, nest);
		break;
	case FLAT_FILTER:
		nla_put_u32(msg, NSIGHT_A_FILTER, 1);
		break;
	}
	nest = nla_nest_start(msg, NSIGHT_A_CPUS);
	{
		struct nlattr *cpu = nla_nest_start(msg, NSIGHT_A_CPU);

		nla_put_u32(msg, NSIGHT_CPU_A_ID, 0);
		nla_put_u8(msg, NSIGHT_CPU_A_ONLINE, 1);
		nla_put_u64(msg, NSIGHT_CPU_A_HOOK_HITS, 10);
		nla_put_u64(msg, NSIGHT_CPU_A_RECORDS_WRITTEN, 10);
		nla_put_u64(msg, NSIGHT_CPU_A_RECORDS_DROPPED, 0);
		nla_put_u64(msg, NSIGHT_CPU_A_BUFFER_USED, 0);
		nla_put_u64(msg, NSIGHT_CPU_A_SUBBUFS_PRODUCED, 1);
		nla_put_u64(msg, NSIGHT_CPU_A_SUBBUFS_CONSUMED, 0);
		nla_nest_end(msg, cpu);
	}
	nla_nest_end(msg, nest);
	return msg;
}

static int status_parse(enum filter_variant v, bool missed, struct nsight_status *st,
			struct nsight_diag *d)
{
	struct nl_msg *msg = status_msg(v, missed);
	int ret;

	if (!msg)
		return -ENOMEM;
	ret = nsight_status_parse(msg, st, d);
	nlmsg_free(msg);
	return ret;
}

static char *status_text(const struct nsight_status *st)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	nsight_status_print_text(f, st);
	fclose(f);
	return out;
}

static const char *json_str(const struct nsight_status *st, char *buf, size_t len)
{
	struct json_object *o = nsight_status_to_json(st);

	buf[0] = '\0';
	if (o)
		snprintf(buf, len, "%s", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return buf;
}

static void test_status_without_filter(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_status st;
	char *text, json[4096];

	REQUIRE(status_parse(NO_FILTER, false, &st, &d) == 0);
	CHECK(nsight_filter_empty(&st.filter));
	CHECK(!st.have_probes_missed);
	text = status_text(&st);
	CHECK_STR_HAS(text, "\nfilter:       none\n");
	CHECK(text && !strstr(text, "missed:"));
	free(text);
	json_str(&st, json, sizeof(json));
	CHECK_STR_HAS(json, "\"filter\":\"none\"");
	CHECK_STR_HAS(json, "\"filter_entries\":{\"port\":[],\"addr\":[],\"ifindex\":[],\"pid\":[]}");
	CHECK(!strstr(json, "probes_missed"));
	nsight_status_free(&st);

	REQUIRE(status_parse(EMPTY_FILTER, false, &st, &d) == 0);
	CHECK(nsight_filter_empty(&st.filter));
	text = status_text(&st);
	CHECK_STR_HAS(text, "\nfilter:       none\n");
	free(text);
	nsight_status_free(&st);
}

static void test_status_with_filter(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_status st;
	char *text, json[4096];

	REQUIRE(status_parse(SOME_FILTER, true, &st, &d) == 0);
	CHECK_U64(st.filter.n_ports, 2);
	CHECK_U64(st.filter.n_addrs, 1);
	CHECK(st.have_probes_missed);
	CHECK_U64(st.probes_missed, 17);
	text = status_text(&st);
	CHECK_STR_HAS(text, "sources:      ");
	CHECK_STR_HAS(text, "\nfilter:       port=9000,9001 addr=10.0.0.2\n");
	CHECK_STR_HAS(text, "\nmissed:       17 probe hits skipped by the kprobe layer\n");
	free(text);
	json_str(&st, json, sizeof(json));
	CHECK_STR_HAS(json, "\"filter\":\"port=9000,9001 addr=10.0.0.2\"");
	CHECK_STR_HAS(json, "\"filter_entries\":{\"port\":[9000,9001],\"addr\":[\"10.0.0.2\"],\"ifindex\":[],\"pid\":[]}");
	CHECK_STR_HAS(json, "\"probes_missed\":17");
	nsight_status_free(&st);
}

static void test_status_bad_filter(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_status st;

	CHECK_U64(status_parse(BAD_FILTER, false, &st, &d), -EINVAL);
	CHECK_STR_HAS(d.msg, "GET_STATUS reply: filter port entry of 3 bytes");
	nsight_status_free(&st);

	/* FILTER as a u32: its 4 bytes are no valid entry. */
	CHECK_U64(status_parse(FLAT_FILTER, false, &st, &d), -EINVAL);
	CHECK_STR_HAS(d.msg, "malformed filter entry");
	nsight_status_free(&st);
}

KTAP_MAIN(
	KTAP_TEST(test_spec_roundtrips),
	KTAP_TEST(test_spec_values),
	KTAP_TEST(test_spec_errors),
	KTAP_TEST(test_format_sizes),
	KTAP_TEST(test_addr_strings),
	KTAP_TEST(test_nest_roundtrip),
	KTAP_TEST(test_nest_layout),
	KTAP_TEST(test_nest_empty),
	KTAP_TEST(test_nest_parse_kernel),
	KTAP_TEST(test_status_without_filter),
	KTAP_TEST(test_status_with_filter),
	KTAP_TEST(test_status_bad_filter),
)
