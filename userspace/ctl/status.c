// SPDX-License-Identifier: MIT
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/genl/genl.h>
#include <linux/nsight.h>

#include "cli.h"
#include "filter_nl.h"
#include "hwtstamp.h"
#include "format/sources.h"
#include "status.h"
#include "format/stream.h"

#define FIXED(t, len) { .type = (t), .minlen = (len), .maxlen = (len) }

static struct nla_policy status_policy[NSIGHT_A_MAX + 1] = {
	[NSIGHT_A_ENABLED]		= FIXED(NLA_U8, sizeof(uint8_t)),
	[NSIGHT_A_SOURCES]		= FIXED(NLA_U32, sizeof(uint32_t)),
	[NSIGHT_A_BUFFER_SIZE]		= FIXED(NLA_U32, sizeof(uint32_t)),
	[NSIGHT_A_SUBBUF_SIZE]		= FIXED(NLA_U32, sizeof(uint32_t)),
	[NSIGHT_A_N_SUBBUFS]		= FIXED(NLA_U32, sizeof(uint32_t)),
	[NSIGHT_A_TSC_HZ]		= FIXED(NLA_U64, sizeof(uint64_t)),
	[NSIGHT_A_NR_CPUS]		= FIXED(NLA_U32, sizeof(uint32_t)),
	[NSIGHT_A_HOOK_HITS]		= FIXED(NLA_U64, sizeof(uint64_t)),
	[NSIGHT_A_RECORDS_WRITTEN]	= FIXED(NLA_U64, sizeof(uint64_t)),
	[NSIGHT_A_RECORDS_DROPPED]	= FIXED(NLA_U64, sizeof(uint64_t)),
	[NSIGHT_A_CPUS]			= { .type = NLA_NESTED },
	[NSIGHT_A_FILTER]		= { .type = NLA_NESTED },
	[NSIGHT_A_PROBES_MISSED]	= FIXED(NLA_U64, sizeof(uint64_t)),
	[NSIGHT_A_SAMPLE_PERIOD]	= FIXED(NLA_U32, sizeof(uint32_t)),
	[NSIGHT_A_PT_STATE]		= FIXED(NLA_U32, sizeof(uint32_t)),
};

static struct nla_policy cpu_policy[NSIGHT_CPU_A_MAX + 1] = {
	[NSIGHT_CPU_A_ID]		 = FIXED(NLA_U32, sizeof(uint32_t)),
	[NSIGHT_CPU_A_ONLINE]		 = FIXED(NLA_U8, sizeof(uint8_t)),
	[NSIGHT_CPU_A_HOOK_HITS]	 = FIXED(NLA_U64, sizeof(uint64_t)),
	[NSIGHT_CPU_A_RECORDS_WRITTEN]	 = FIXED(NLA_U64, sizeof(uint64_t)),
	[NSIGHT_CPU_A_RECORDS_DROPPED]	 = FIXED(NLA_U64, sizeof(uint64_t)),
	[NSIGHT_CPU_A_BUFFER_USED]	 = FIXED(NLA_U64, sizeof(uint64_t)),
	[NSIGHT_CPU_A_SUBBUFS_PRODUCED] = FIXED(NLA_U64, sizeof(uint64_t)),
	[NSIGHT_CPU_A_SUBBUFS_CONSUMED] = FIXED(NLA_U64, sizeof(uint64_t)),
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

const char *nsight_pt_state_name(uint32_t state)
{
	static const char *const names[] = NSIGHT_PT_STATE_NAMES;

	return state < ARRAY_SIZE(names) ? names[state] : "unknown";
}

struct attr_name {
	int type;
	const char *name;
};

static const struct attr_name status_mandatory[] = {
	{ NSIGHT_A_ENABLED, "ENABLED" },
	{ NSIGHT_A_SOURCES, "SOURCES" },
	{ NSIGHT_A_BUFFER_SIZE, "BUFFER_SIZE" },
	{ NSIGHT_A_SUBBUF_SIZE, "SUBBUF_SIZE" },
	{ NSIGHT_A_N_SUBBUFS, "N_SUBBUFS" },
	{ NSIGHT_A_TSC_HZ, "TSC_HZ" },
	{ NSIGHT_A_NR_CPUS, "NR_CPUS" },
	{ NSIGHT_A_HOOK_HITS, "HOOK_HITS" },
	{ NSIGHT_A_RECORDS_WRITTEN, "RECORDS_WRITTEN" },
	{ NSIGHT_A_RECORDS_DROPPED, "RECORDS_DROPPED" },
	{ NSIGHT_A_CPUS, "CPUS" },
};

static const struct attr_name cpu_mandatory[] = {
	{ NSIGHT_CPU_A_ID, "ID" },
	{ NSIGHT_CPU_A_ONLINE, "ONLINE" },
	{ NSIGHT_CPU_A_HOOK_HITS, "HOOK_HITS" },
	{ NSIGHT_CPU_A_RECORDS_WRITTEN, "RECORDS_WRITTEN" },
	{ NSIGHT_CPU_A_RECORDS_DROPPED, "RECORDS_DROPPED" },
	{ NSIGHT_CPU_A_BUFFER_USED, "BUFFER_USED" },
	{ NSIGHT_CPU_A_SUBBUFS_PRODUCED, "SUBBUFS_PRODUCED" },
	{ NSIGHT_CPU_A_SUBBUFS_CONSUMED, "SUBBUFS_CONSUMED" },
};


static int check_mandatory(struct nlattr **tb, const struct attr_name *names, size_t n,
			   const char *where, struct nsight_diag *d)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!tb[names[i].type])
			return nsight_diag_set(d, EINVAL, "GET_STATUS reply: %s lacks attribute %s",
					       where, names[i].name);
	return 0;
}

static int cmp_cpu(const void *a, const void *b)
{
	const struct nsight_status_cpu *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static int parse_cpu(struct nlattr *nest, struct nsight_status_cpu *c, uint32_t nr_cpus,
		     struct nsight_diag *d)
{
	struct nlattr *tb[NSIGHT_CPU_A_MAX + 1];
	int err;

	err = nla_parse_nested(tb, NSIGHT_CPU_A_MAX, nest, cpu_policy);
	if (err < 0)
		return nsight_diag_set(d, EINVAL, "GET_STATUS reply: malformed per-CPU attributes: %s",
				       nl_geterror(err));
	err = check_mandatory(tb, cpu_mandatory, ARRAY_SIZE(cpu_mandatory), "a CPU entry", d);
	if (err)
		return err;
	c->id = nla_get_u32(tb[NSIGHT_CPU_A_ID]);
	if (c->id >= nr_cpus)
		return nsight_diag_set(d, EINVAL, "GET_STATUS reply: cpu id %" PRIu32 " is not below nr_cpus %" PRIu32,
				       c->id, nr_cpus);
	c->online = nla_get_u8(tb[NSIGHT_CPU_A_ONLINE]) != 0;
	c->hook_hits = nla_get_u64(tb[NSIGHT_CPU_A_HOOK_HITS]);
	c->records_written = nla_get_u64(tb[NSIGHT_CPU_A_RECORDS_WRITTEN]);
	c->records_dropped = nla_get_u64(tb[NSIGHT_CPU_A_RECORDS_DROPPED]);
	c->buffer_used = nla_get_u64(tb[NSIGHT_CPU_A_BUFFER_USED]);
	c->subbufs_produced = nla_get_u64(tb[NSIGHT_CPU_A_SUBBUFS_PRODUCED]);
	c->subbufs_consumed = nla_get_u64(tb[NSIGHT_CPU_A_SUBBUFS_CONSUMED]);
	return 0;
}

int nsight_status_parse(struct nl_msg *msg, struct nsight_status *st, struct nsight_diag *d)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[NSIGHT_A_MAX + 1];
	struct nlattr *pos;
	size_t n = 0, i;
	int rem, err;

	memset(st, 0, sizeof(*st));
	if (!genlmsg_valid_hdr(nlh, 0))
		return nsight_diag_set(d, EINVAL, "GET_STATUS reply: message too short for a genl header");
	if (genlmsg_hdr(nlh)->cmd != NSIGHT_CMD_GET_STATUS)
		return nsight_diag_set(d, EINVAL, "GET_STATUS reply: unexpected command %u",
				       genlmsg_hdr(nlh)->cmd);
	err = genlmsg_parse(nlh, 0, tb, NSIGHT_A_MAX, status_policy);
	if (err < 0)
		return nsight_diag_set(d, EINVAL, "GET_STATUS reply: malformed attributes: %s",
				       nl_geterror(err));
	err = check_mandatory(tb, status_mandatory, ARRAY_SIZE(status_mandatory), "the reply", d);
	if (err)
		return err;

	st->enabled = nla_get_u8(tb[NSIGHT_A_ENABLED]) != 0;
	st->sources = nla_get_u32(tb[NSIGHT_A_SOURCES]);
	st->buffer_size = nla_get_u32(tb[NSIGHT_A_BUFFER_SIZE]);
	st->subbuf_size = nla_get_u32(tb[NSIGHT_A_SUBBUF_SIZE]);
	st->n_subbufs = nla_get_u32(tb[NSIGHT_A_N_SUBBUFS]);
	st->tsc_hz = nla_get_u64(tb[NSIGHT_A_TSC_HZ]);
	st->nr_cpus = nla_get_u32(tb[NSIGHT_A_NR_CPUS]);
	st->hook_hits = nla_get_u64(tb[NSIGHT_A_HOOK_HITS]);
	st->records_written = nla_get_u64(tb[NSIGHT_A_RECORDS_WRITTEN]);
	st->records_dropped = nla_get_u64(tb[NSIGHT_A_RECORDS_DROPPED]);
	if (tb[NSIGHT_A_PROBES_MISSED]) {
		st->have_probes_missed = true;
		st->probes_missed = nla_get_u64(tb[NSIGHT_A_PROBES_MISSED]);
	}
	if (tb[NSIGHT_A_SAMPLE_PERIOD])
		st->sample_period = nla_get_u32(tb[NSIGHT_A_SAMPLE_PERIOD]);
	if (tb[NSIGHT_A_PT_STATE]) {
		st->have_pt_state = true;
		st->pt_state = nla_get_u32(tb[NSIGHT_A_PT_STATE]);
	}
	if (st->nr_cpus == 0 || st->nr_cpus > NSIGHT_STREAM_MAX_CPUS)
		return nsight_diag_set(d, EINVAL, "GET_STATUS reply: nr_cpus %" PRIu32 " out of range 1..%d",
				       st->nr_cpus, NSIGHT_STREAM_MAX_CPUS);
	if (tb[NSIGHT_A_FILTER]) {
		err = nsight_filter_parse_nest(tb[NSIGHT_A_FILTER], &st->filter,
					       "GET_STATUS reply", d);
		if (err)
			return err;
	}

	nla_for_each_nested(pos, tb[NSIGHT_A_CPUS], rem)
		if (nla_type(pos) == NSIGHT_A_CPU)
			n++;
	if (n > st->nr_cpus)
		return nsight_diag_set(d, EINVAL, "GET_STATUS reply: %zu CPU entries for nr_cpus %" PRIu32,
				       n, st->nr_cpus);
	if (n) {
		st->cpus = calloc(n, sizeof(*st->cpus));
		if (!st->cpus)
			return nsight_diag_set(d, ENOMEM, "out of memory");
	}
	i = 0;
	nla_for_each_nested(pos, tb[NSIGHT_A_CPUS], rem) {
		if (nla_type(pos) != NSIGHT_A_CPU)
			continue;	/* a newer kernel's extra attribute */
		err = parse_cpu(pos, &st->cpus[i], st->nr_cpus, d);
		if (err)
			return err;
		i++;
	}
	st->n_cpus = n;
	if (n)
		qsort(st->cpus, n, sizeof(*st->cpus), cmp_cpu);
	for (i = 1; i < n; i++)
		if (st->cpus[i].id == st->cpus[i - 1].id)
			return nsight_diag_set(d, EINVAL, "GET_STATUS reply: cpu %" PRIu32 " listed twice",
					       st->cpus[i].id);
	return 0;
}

void nsight_status_free(struct nsight_status *st)
{
	free(st->cpus);
	st->cpus = NULL;
	st->n_cpus = 0;
}

static int status_reply(struct nl_msg *msg, void *arg, struct nsight_diag *d)
{
	struct nsight_status *st = arg;

	nsight_status_free(st);
	return nsight_status_parse(msg, st, d);
}

int nsight_status_get(struct nsight_nl *nl, struct nsight_status *st, struct nsight_diag *d)
{
	struct nl_msg *msg;
	bool got = false;
	int err;

	memset(st, 0, sizeof(*st));
	msg = nsight_nl_msg(nl, NSIGHT_CMD_GET_STATUS);
	if (!msg)
		return nsight_diag_set(d, ENOMEM, "out of memory");
	/* A reply always sets nr_cpus >= 1; use it to notice a missing one. */
	err = nsight_nl_request(nl, msg, status_reply, st, d);
	got = st->nr_cpus != 0;
	if (!err && !got)
		err = nsight_diag_set(d, EPROTO, "GET_STATUS: the kernel sent no reply");
	return err;
}

/* ---------------------------------------------------------------------- */
/* Output                                                                   */

void nsight_status_print_text(FILE *f, const struct nsight_status *st)
{
	char src[128], filter[NSIGHT_FILTER_FMT_MAX];
	size_t i;

	nsight_sources_format(st->sources, src, sizeof(src));
	nsight_filter_format(&st->filter, filter, sizeof(filter));
	fprintf(f, "enabled:      %s\n", st->enabled ? "yes" : "no");
	fprintf(f, "sources:      %s\n", src);
	fprintf(f, "filter:       %s\n", filter);
	fprintf(f, "buffer size:  %" PRIu32 " bytes per cpu\n", st->buffer_size);
	if (st->sample_period)
		fprintf(f, "sampling:     every %" PRIu32 " ns (source sample)\n", st->sample_period);
	if (st->have_pt_state)
		fprintf(f, "intel pt:     %s\n", nsight_pt_state_name(st->pt_state));
	fprintf(f, "sub-buffers:  %" PRIu32 " x %" PRIu32 " bytes\n", st->n_subbufs, st->subbuf_size);
	fprintf(f, "tsc:          %" PRIu64 " Hz\n", st->tsc_hz);
	fprintf(f, "hook hits:    %" PRIu64 "\n", st->hook_hits);
	fprintf(f, "written:      %" PRIu64 "\n", st->records_written);
	fprintf(f, "dropped:      %" PRIu64 "\n", st->records_dropped);
	if (st->have_probes_missed)
		fprintf(f, "missed:       %" PRIu64 " probe hits skipped by the kprobe layer\n",
			st->probes_missed);
	fprintf(f, "%3s  %6s  %12s  %12s  %12s  %12s\n",
		"cpu", "online", "hits", "written", "dropped", "buffer used");
	for (i = 0; i < st->n_cpus; i++) {
		const struct nsight_status_cpu *c = &st->cpus[i];

		fprintf(f, "%3" PRIu32 "  %6s  %12" PRIu64 "  %12" PRIu64 "  %12" PRIu64 "  %12" PRIu64 "\n",
			c->id, c->online ? "yes" : "no", c->hook_hits, c->records_written,
			c->records_dropped, c->buffer_used);
	}
}

static int add(struct json_object *o, const char *key, struct json_object *v)
{
	if (!v)
		return -1;
	if (json_object_object_add(o, key, v)) {
		json_object_put(v);
		return -1;
	}
	return 0;
}

static int add_u64(struct json_object *o, const char *key, uint64_t v)
{
	return add(o, key, json_object_new_uint64(v));
}

static struct json_object *sources_json(uint32_t mask)
{
	struct json_object *a = json_object_new_array();
	unsigned int i;

	if (!a)
		return NULL;
	for (i = 0; i < __NSIGHT_SRC_COUNT; i++) {
		struct json_object *s;

		if (!(mask & (1U << i)))
			continue;
		s = json_object_new_string(nsight_source_names[i]);
		if (!s || json_object_array_add(a, s)) {
			json_object_put(s);
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

static int array_add(struct json_object *a, struct json_object *v)
{
	if (!v)
		return -1;
	if (json_object_array_add(a, v)) {
		json_object_put(v);
		return -1;
	}
	return 0;
}

/* {"port": [9000], "addr": ["10.0.0.2"], "ifindex": [], "pid": []} */
static struct json_object *filter_entries_json(const struct nsight_filter *f)
{
	struct json_object *o = json_object_new_object();
	struct json_object *port, *addr, *ifindex, *pid;
	int err = 0;
	size_t i;

	if (!o)
		return NULL;
	err |= add(o, "port", port = json_object_new_array());
	err |= add(o, "addr", addr = json_object_new_array());
	err |= add(o, "ifindex", ifindex = json_object_new_array());
	err |= add(o, "pid", pid = json_object_new_array());
	for (i = 0; !err && i < f->n_ports; i++)
		err |= array_add(port, json_object_new_uint64(f->ports[i]));
	for (i = 0; !err && i < f->n_addrs; i++) {
		char s[NSIGHT_FILTER_ADDR_STRLEN];

		err |= array_add(addr, json_object_new_string(
					nsight_filter_addr_str(&f->addrs[i], s, sizeof(s))));
	}
	for (i = 0; !err && i < f->n_ifindexes; i++)
		err |= array_add(ifindex, json_object_new_uint64(f->ifindexes[i]));
	for (i = 0; !err && i < f->n_pids; i++)
		err |= array_add(pid, json_object_new_uint64(f->pids[i]));
	if (err) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

struct json_object *nsight_status_to_json(const struct nsight_status *st)
{
	char filter[NSIGHT_FILTER_FMT_MAX];
	struct json_object *o = json_object_new_object(), *cpus;
	int err = 0;
	size_t i;

	if (!o)
		return NULL;
	err |= add(o, "enabled", json_object_new_boolean(st->enabled));
	err |= add(o, "sources", sources_json(st->sources));
	err |= add_u64(o, "sources_mask", st->sources);
	nsight_filter_format(&st->filter, filter, sizeof(filter));
	err |= add(o, "filter", json_object_new_string(filter));
	err |= add(o, "filter_entries", filter_entries_json(&st->filter));
	err |= add_u64(o, "buffer_size", st->buffer_size);
	if (st->sample_period)
		err |= add_u64(o, "sample_period_ns", st->sample_period);
	if (st->have_pt_state)
		err |= add(o, "pt_state", json_object_new_string(nsight_pt_state_name(st->pt_state)));
	err |= add_u64(o, "subbuf_size", st->subbuf_size);
	err |= add_u64(o, "n_subbufs", st->n_subbufs);
	err |= add_u64(o, "tsc_hz", st->tsc_hz);
	err |= add_u64(o, "nr_cpus", st->nr_cpus);
	err |= add_u64(o, "hook_hits", st->hook_hits);
	err |= add_u64(o, "records_written", st->records_written);
	err |= add_u64(o, "records_dropped", st->records_dropped);
	if (st->have_probes_missed)
		err |= add_u64(o, "probes_missed", st->probes_missed);
	cpus = json_object_new_array();
	err |= add(o, "cpus", cpus);
	for (i = 0; !err && i < st->n_cpus; i++) {
		const struct nsight_status_cpu *c = &st->cpus[i];
		struct json_object *co = json_object_new_object();

		if (!co || json_object_array_add(cpus, co)) {
			json_object_put(co);
			err = -1;
			break;
		}
		err |= add_u64(co, "cpu", c->id);
		err |= add(co, "online", json_object_new_boolean(c->online));
		err |= add_u64(co, "hook_hits", c->hook_hits);
		err |= add_u64(co, "records_written", c->records_written);
		err |= add_u64(co, "records_dropped", c->records_dropped);
		err |= add_u64(co, "buffer_used", c->buffer_used);
		err |= add_u64(co, "subbufs_produced", c->subbufs_produced);
		err |= add_u64(co, "subbufs_consumed", c->subbufs_consumed);
	}
	if (err) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* ---------------------------------------------------------------------- */
/* nsightctl status                                                         */

void cmd_status_usage(FILE *f)
{
	fprintf(f,
		"Usage: nsightctl status [--json]\n"
		"\n"
		"Show whether a capture runs, the configuration (sources, buffer size,\n"
		"filter), the kernel's counters and a per-CPU table of hook hits,\n"
		"written and dropped records and the unread bytes of each buffer.\n"
		"\n"
		"  -j, --json   print one JSON object\n"
		"  -h, --help   show this help\n");
}

int cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct nsight_diag d = { 0 };
	struct nsight_status st;
	struct nsight_nl nl;
	bool json = false;
	int c, err;

	while ((c = cli_getopt(argc, argv, "jh", opts)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			cmd_status_usage(stdout);
			return NSIGHT_EXIT_OK;
		default:
			return NSIGHT_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind]);

	if (nsight_nl_open(&nl, &d))
		return cli_fail(&d);
	err = nsight_status_get(&nl, &st, &d);
	nsight_nl_close(&nl);
	if (err) {
		nsight_status_free(&st);
		return cli_fail(&d);
	}
	if (json) {
		struct json_object *o = nsight_status_to_json(&st);

		struct json_object *hw = o ? nsight_hwts_json() : NULL;

		if (!o || !hw || json_object_object_add(o, "hw_timestamps", hw)) {
			json_object_put(hw);
			json_object_put(o);
			nsight_status_free(&st);
			nsight_diag_set(&d, ENOMEM, "out of memory, or %s unreadable", nsight_hwts_path());
			return cli_fail(&d);
		}
		cli_print_json(o);
		json_object_put(o);
	} else {
		nsight_status_print_text(stdout, &st);
		nsight_hwts_print(stdout, "hw stamps:    ");
	}
	nsight_status_free(&st);
	return cli_finish_stdout();
}
