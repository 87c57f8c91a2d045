// SPDX-License-Identifier: MIT
/* GET_STATUS reply parsing on canned libnl messages, and extended acks. */
#include <errno.h>
#include <netlink/genl/genl.h>
#include <linux/netlink.h>

#include "ctl/nl.h"
#include "ctl/status.h"
#include "test.h"

struct canned {
	uint8_t cmd;
	uint32_t nr_cpus;
	const uint32_t *ids;
	size_t n_ids;
	int omit;		/* top-level attribute left out, 0 for none */
	int omit_cpu;		/* per-CPU attribute left out of every entry */
	bool short_tsc;		/* TSC_HZ as a u32 */
	bool long_enabled;	/* ENABLED as a u32 */
	bool extras;		/* unknown attributes a newer kernel might add */
};

static const uint32_t three_ids[] = { 2, 0, 1 };

static void canned_default(struct canned *c)
{
	memset(c, 0, sizeof(*c));
	c->cmd = NSIGHT_CMD_GET_STATUS;
	c->nr_cpus = 4;
	c->ids = three_ids;
	c->n_ids = 3;
}

#define PUT(type, call) do { if (c->omit != (type)) call; } while (0)
#define PUT_CPU(type, call) do { if (c->omit_cpu != (type)) call; } while (0)

static struct nl_msg *canned_msg(const struct canned *c)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct nlattr *cpus, *cpu;
	size_t i;

	if (!msg)
		return NULL;
	genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, 0x1c, 0, 0, c->cmd, NSIGHT_GENL_VERSION);
	if (c->long_enabled)
		nla_put_u32(msg, NSIGHT_A_ENABLED, 1);
	else
		PUT(NSIGHT_A_ENABLED, nla_put_u8(msg, NSIGHT_A_ENABLED, 1));
	PUT(NSIGHT_A_SOURCES, nla_put_u32(msg, NSIGHT_A_SOURCES, 5));
	PUT(NSIGHT_A_BUFFER_SIZE, nla_put_u32(msg, NSIGHT_A_BUFFER_SIZE, 4 << 20));
	PUT(NSIGHT_A_SUBBUF_SIZE, nla_put_u32(msg, NSIGHT_A_SUBBUF_SIZE, 256 << 10));
	PUT(NSIGHT_A_N_SUBBUFS, nla_put_u32(msg, NSIGHT_A_N_SUBBUFS, 16));
	if (c->short_tsc)
		nla_put_u32(msg, NSIGHT_A_TSC_HZ, 3000);
	else
		PUT(NSIGHT_A_TSC_HZ, nla_put_u64(msg, NSIGHT_A_TSC_HZ, 2999999000ULL));
	PUT(NSIGHT_A_NR_CPUS, nla_put_u32(msg, NSIGHT_A_NR_CPUS, c->nr_cpus));
	PUT(NSIGHT_A_HOOK_HITS, nla_put_u64(msg, NSIGHT_A_HOOK_HITS, 1000));
	PUT(NSIGHT_A_RECORDS_WRITTEN, nla_put_u64(msg, NSIGHT_A_RECORDS_WRITTEN, 990));
	PUT(NSIGHT_A_RECORDS_DROPPED, nla_put_u64(msg, NSIGHT_A_RECORDS_DROPPED, 10));
	if (c->extras) {
		nla_put_u32(msg, NSIGHT_A_PAD, 0);
		nla_put_u64(msg, 200, 42);
	}
	if (c->omit != NSIGHT_A_CPUS && !c->n_ids && !c->extras) {
		/* libnl's nla_nest_end() drops empty nests; the kernel's does not. */
		nla_put(msg, NSIGHT_A_CPUS, 0, NULL);
	} else if (c->omit != NSIGHT_A_CPUS) {
		cpus = nla_nest_start(msg, NSIGHT_A_CPUS);
		if (c->extras)
			nla_put_u32(msg, 77, 1);
		for (i = 0; i < c->n_ids; i++) {
			uint64_t base = (uint64_t)c->ids[i] * 100;

			cpu = nla_nest_start(msg, NSIGHT_A_CPU);
			PUT_CPU(NSIGHT_CPU_A_ID, nla_put_u32(msg, NSIGHT_CPU_A_ID, c->ids[i]));
			PUT_CPU(NSIGHT_CPU_A_ONLINE, nla_put_u8(msg, NSIGHT_CPU_A_ONLINE, c->ids[i] != 1));
			PUT_CPU(NSIGHT_CPU_A_HOOK_HITS, nla_put_u64(msg, NSIGHT_CPU_A_HOOK_HITS, base + 10));
			PUT_CPU(NSIGHT_CPU_A_RECORDS_WRITTEN, nla_put_u64(msg, NSIGHT_CPU_A_RECORDS_WRITTEN, base + 7));
			PUT_CPU(NSIGHT_CPU_A_RECORDS_DROPPED, nla_put_u64(msg, NSIGHT_CPU_A_RECORDS_DROPPED, 3));
			PUT_CPU(NSIGHT_CPU_A_BUFFER_USED, nla_put_u64(msg, NSIGHT_CPU_A_BUFFER_USED, base * 8));
			PUT_CPU(NSIGHT_CPU_A_SUBBUFS_PRODUCED, nla_put_u64(msg, NSIGHT_CPU_A_SUBBUFS_PRODUCED, 5));
			PUT_CPU(NSIGHT_CPU_A_SUBBUFS_CONSUMED, nla_put_u64(msg, NSIGHT_CPU_A_SUBBUFS_CONSUMED, 4));
			if (c->extras)
				nla_put_u64(msg, NSIGHT_CPU_A_MAX + 5, 1);
			nla_nest_end(msg, cpu);
		}
		nla_nest_end(msg, cpus);
	}
	return msg;
}

/* Parse the canned reply; returns the parser's result, message in @d. */
static int parse(const struct canned *c, struct nsight_status *st, struct nsight_diag *d)
{
	struct nl_msg *msg = canned_msg(c);
	int ret;

	if (!msg)
		return -ENOMEM;
	ret = nsight_status_parse(msg, st, d);
	nlmsg_free(msg);
	return ret;
}

static void test_valid_reply(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_status st;
	struct canned c;

	canned_default(&c);
	c.extras = true;
	REQUIRE(parse(&c, &st, &d) == 0);
	CHECK(st.enabled);
	CHECK_U64(st.sources, 5);
	CHECK_U64(st.buffer_size, 4 << 20);
	CHECK_U64(st.subbuf_size, 256 << 10);
	CHECK_U64(st.n_subbufs, 16);
	CHECK_U64(st.tsc_hz, 2999999000ULL);
	CHECK_U64(st.nr_cpus, 4);
	CHECK_U64(st.hook_hits, 1000);
	CHECK_U64(st.records_written, 990);
	CHECK_U64(st.records_dropped, 10);
	REQUIRE(st.n_cpus == 3);
	CHECK_U64(st.cpus[0].id, 0);	/* sorted */
	CHECK_U64(st.cpus[1].id, 1);
	CHECK_U64(st.cpus[2].id, 2);
	CHECK(st.cpus[0].online);
	CHECK(!st.cpus[1].online);
	CHECK_U64(st.cpus[2].hook_hits, 210);
	CHECK_U64(st.cpus[2].records_written, 207);
	CHECK_U64(st.cpus[2].records_dropped, 3);
	CHECK_U64(st.cpus[2].buffer_used, 1600);
	CHECK_U64(st.cpus[2].subbufs_produced, 5);
	CHECK_U64(st.cpus[2].subbufs_consumed, 4);
	nsight_status_free(&st);
}

static void test_missing_top_level(void)
{
	static const struct { int type; const char *name; } attrs[] = {
		{ NSIGHT_A_ENABLED, "ENABLED" }, { NSIGHT_A_SOURCES, "SOURCES" },
		{ NSIGHT_A_BUFFER_SIZE, "BUFFER_SIZE" }, { NSIGHT_A_SUBBUF_SIZE, "SUBBUF_SIZE" },
		{ NSIGHT_A_N_SUBBUFS, "N_SUBBUFS" }, { NSIGHT_A_TSC_HZ, "TSC_HZ" },
		{ NSIGHT_A_NR_CPUS, "NR_CPUS" }, { NSIGHT_A_HOOK_HITS, "HOOK_HITS" },
		{ NSIGHT_A_RECORDS_WRITTEN, "RECORDS_WRITTEN" },
		{ NSIGHT_A_RECORDS_DROPPED, "RECORDS_DROPPED" }, { NSIGHT_A_CPUS, "CPUS" },
	};
	struct nsight_diag d = { 0 };
	struct nsight_status st;
	struct canned c;
	size_t i;
	char want[64];

	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		canned_default(&c);
		c.omit = attrs[i].type;
		CHECK_U64(parse(&c, &st, &d), -EINVAL);
		snprintf(want, sizeof(want), "the reply lacks attribute %s", attrs[i].name);
		CHECK_STR_HAS(d.msg, want);
		nsight_status_free(&st);
	}
}

static void test_missing_cpu_attr(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_status st;
	struct canned c;

	canned_default(&c);
	c.omit_cpu = NSIGHT_CPU_A_ID;
	CHECK_U64(parse(&c, &st, &d), -EINVAL);
	CHECK_STR_HAS(d.msg, "a CPU entry lacks attribute ID");
	nsight_status_free(&st);

	canned_default(&c);
	c.omit_cpu = NSIGHT_CPU_A_BUFFER_USED;
	CHECK_U64(parse(&c, &st, &d), -EINVAL);
	CHECK_STR_HAS(d.msg, "a CPU entry lacks attribute BUFFER_USED");
	nsight_status_free(&st);
}

static void test_wrong_lengths(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_status st;
	struct canned c;

	canned_default(&c);
	c.short_tsc = true;
	CHECK_U64(parse(&c, &st, &d), -EINVAL);
	CHECK_STR_HAS(d.msg, "malformed attributes");
	nsight_status_free(&st);

	canned_default(&c);
	c.long_enabled = true;
	CHECK_U64(parse(&c, &st, &d), -EINVAL);
	CHECK_STR_HAS(d.msg, "malformed attributes");
	nsight_status_free(&st);
}

static void test_bad_cpu_ids(void)
{
	static const uint32_t out_of_range[] = { 0, 4 };
	static const uint32_t twice[] = { 1, 3, 1 };
	struct nsight_diag d = { 0 };
	struct nsight_status st;
	struct canned c;

	canned_default(&c);
	c.ids = out_of_range;
	c.n_ids = 2;
	CHECK_U64(parse(&c, &st, &d), -EINVAL);
	CHECK_STR_HAS(d.msg, "cpu id 4 is not below nr_cpus 4");
	nsight_status_free(&st);

	canned_default(&c);
	c.ids = twice;
	c.n_ids = 3;
	CHECK_U64(parse(&c, &st, &d), -EINVAL);
	CHECK_STR_HAS(d.msg, "cpu 1 listed twice");
	nsight_status_free(&st);

	canned_default(&c);
	c.nr_cpus = 2;
	CHECK_U64(parse(&c, &st, &d), -EINVAL);
	CHECK_STR_HAS(d.msg, "3 CPU entries for nr_cpus 2");
	nsight_status_free(&st);

	canned_default(&c);
	c.nr_cpus = 0;
	c.n_ids = 0;
	CHECK_U64(parse(&c, &st, &d), -EINVAL);
	CHECK_STR_HAS(d.msg, "nr_cpus 0 out of range");
	nsight_status_free(&st);
}

static void test_odd_messages(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_status st;
	struct nl_msg *msg;
	struct canned c;

	/* No genl header at all. */
	msg = nlmsg_alloc();
	REQUIRE(msg);
	CHECK_U64(nsight_status_parse(msg, &st, &d), -EINVAL);
	CHECK_STR_HAS(d.msg, "too short for a genl header");
	nsight_status_free(&st);
	nlmsg_free(msg);

	/* Another command's reply. */
	canned_default(&c);
	c.cmd = NSIGHT_CMD_START;
	CHECK_U64(parse(&c, &st, &d), -EINVAL);
	CHECK_STR_HAS(d.msg, "unexpected command 1");
	nsight_status_free(&st);

	/* Cut short: the CPUS nest runs past the message and is not seen. */
	canned_default(&c);
	msg = canned_msg(&c);
	REQUIRE(msg);
	nlmsg_hdr(msg)->nlmsg_len -= 8;
	CHECK_U64(nsight_status_parse(msg, &st, &d), -EINVAL);
	nsight_status_free(&st);
	nlmsg_free(msg);

	/* A CPU list with no entries is valid (if odd). */
	canned_default(&c);
	c.n_ids = 0;
	CHECK_U64(parse(&c, &st, &d), 0);
	CHECK_U64(st.n_cpus, 0);
	nsight_status_free(&st);
}

static void test_print(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_status st;
	struct json_object *o, *v;
	struct canned c;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	canned_default(&c);
	REQUIRE(parse(&c, &st, &d) == 0);
	f = open_memstream(&out, &len);
	REQUIRE(f);
	nsight_status_print_text(f, &st);
	fclose(f);
	CHECK_STR_HAS(out, "enabled:      yes\n");
	CHECK_STR_HAS(out, "sources:      sched_switch,clock\n");
	CHECK_STR_HAS(out, "buffer size:  4194304 bytes per cpu\n");
	CHECK_STR_HAS(out, "sub-buffers:  16 x 262144 bytes\n");
	CHECK_STR_HAS(out, "tsc:          2999999000 Hz\n");
	CHECK_STR_HAS(out, "hook hits:    1000\n");
	CHECK_STR_HAS(out, "\ncpu  online          hits       written       dropped   buffer used\n");
	CHECK_STR_HAS(out, "\n  1      no           110           107             3           800\n");
	free(out);

	o = nsight_status_to_json(&st);
	REQUIRE(o);
	CHECK(json_object_object_get_ex(o, "cpus", &v) && json_object_array_length(v) == 3);
	CHECK(json_object_object_get_ex(o, "tsc_hz", &v) && json_object_get_uint64(v) == 2999999000ULL);
	CHECK_STR_HAS(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
		      "\"sources\":[\"sched_switch\",\"clock\"]");
	json_object_put(o);
	nsight_status_free(&st);
}

/* An NLMSG_ERROR as the kernel builds it, with or without the echoed request. */
static size_t build_error(uint32_t *buf, bool capped, const char *text, bool tlvs)
{
	uint8_t *p = (uint8_t *)buf;
	struct nlmsghdr *nlh = (struct nlmsghdr *)p;
	struct nlmsgerr *e = (struct nlmsgerr *)(p + NLMSG_HDRLEN);
	size_t off = NLMSG_HDRLEN + sizeof(*e);
	struct nlattr *a;

	memset(buf, 0, 512);
	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = (capped ? NLM_F_CAPPED : 0) | (tlvs ? NLM_F_ACK_TLVS : 0);
	e->error = -EINVAL;
	e->msg.nlmsg_len = NLMSG_HDRLEN + 4 + 12;	/* genl header + one u64 attr */
	if (!capped)
		off += 16;				/* the echoed payload */
	a = (struct nlattr *)(p + off);
	a->nla_type = NLMSGERR_ATTR_MSG;
	a->nla_len = (uint16_t)(NLA_HDRLEN + strlen(text) + 1);
	memcpy(p + off + NLA_HDRLEN, text, strlen(text) + 1);
	off += NLA_ALIGN(a->nla_len);
	nlh->nlmsg_len = (uint32_t)off;
	return off;
}

static void test_ext_ack(void)
{
	uint32_t buf[128];
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct nlmsgerr *e = (struct nlmsgerr *)((uint8_t *)buf + NLMSG_HDRLEN);
	char msg[64];

	build_error(buf, true, "buffer size out of range", true);
	CHECK_U64(nsight_nl_ext_ack_msg(nlh, msg, sizeof(msg)), 24);
	CHECK(!strcmp(msg, "buffer size out of range"));

	build_error(buf, false, "unknown attribute", true);
	CHECK_U64(nsight_nl_ext_ack_msg(nlh, msg, sizeof(msg)), 17);
	CHECK(!strcmp(msg, "unknown attribute"));

	/* Cut to fit the caller's buffer. */
	build_error(buf, true, "buffer size out of range", true);
	CHECK_U64(nsight_nl_ext_ack_msg(nlh, msg, 7), 6);
	CHECK(!strcmp(msg, "buffer"));

	/* No TLVs flag: nothing, even if bytes follow. */
	build_error(buf, true, "ignored", false);
	CHECK_U64(nsight_nl_ext_ack_msg(nlh, msg, sizeof(msg)), 0);
	CHECK(!strcmp(msg, ""));

	/* Nonsense echoed length or message length: no read past nlmsg_len. */
	build_error(buf, false, "x", true);
	e->msg.nlmsg_len = 0xffffffff;
	CHECK_U64(nsight_nl_ext_ack_msg(nlh, msg, sizeof(msg)), 0);
	e->msg.nlmsg_len = 3;
	CHECK_U64(nsight_nl_ext_ack_msg(nlh, msg, sizeof(msg)), 0);
	build_error(buf, true, "x", true);
	nlh->nlmsg_len = NLMSG_HDRLEN + 2;
	CHECK_U64(nsight_nl_ext_ack_msg(nlh, msg, sizeof(msg)), 0);
	/* A message attribute without its NUL. */
	build_error(buf, true, "abcdef", true);
	((struct nlattr *)((uint8_t *)buf + NLMSG_HDRLEN + sizeof(*e)))->nla_len = NLA_HDRLEN + 3;
	CHECK_U64(nsight_nl_ext_ack_msg(nlh, msg, sizeof(msg)), 3);
	CHECK(!strcmp(msg, "abc"));
}

static void test_cmd_names(void)
{
	CHECK(!strcmp(nsight_nl_cmd_name(NSIGHT_CMD_GET_STATUS), "GET_STATUS"));
	CHECK(!strcmp(nsight_nl_cmd_name(NSIGHT_CMD_SET_CONFIG), "SET_CONFIG"));
	CHECK(!strcmp(nsight_nl_cmd_name(200), "unknown command"));
}

KTAP_MAIN(
	KTAP_TEST(test_valid_reply),
	KTAP_TEST(test_missing_top_level),
	KTAP_TEST(test_missing_cpu_attr),
	KTAP_TEST(test_wrong_lengths),
	KTAP_TEST(test_bad_cpu_ids),
	KTAP_TEST(test_odd_messages),
	KTAP_TEST(test_print),
	KTAP_TEST(test_ext_ack),
	KTAP_TEST(test_cmd_names),
)
