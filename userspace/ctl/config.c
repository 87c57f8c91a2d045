// SPDX-License-Identifier: MIT
/* nsightctl config: show the configuration or change it with SET_CONFIG. */
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdbool.h>
#include <string.h>
#include <netlink/attr.h>
#include <linux/nsight.h>

#include "cli.h"
#include "config.h"
#include "filter_nl.h"
#include "hwtstamp.h"
#include "nl.h"
#include "format/sources.h"
#include "status.h"

void cmd_config_usage(FILE *f)
{
	char all[128];

	nsight_sources_format(NSIGHT_SOURCES_ALL, all, sizeof(all));
	fprintf(f,
		"Usage: nsightctl config [--sources LIST] [--buffer-size BYTES] [--filter SPEC]\n"
		"                        [--sample-period TIME] [--hw-timestamps IFACES|off]\n"
		"\n"
		"Without options, show the configuration. With options, change it;\n"
		"this fails while a capture runs (--hw-timestamps alone does not).\n"
		"\n"
		"  -s, --sources LIST        comma-separated sources, or \"all\" or \"none\";\n"
		"                            sources: %s\n"
		"  -b, --buffer-size BYTES   relay buffer per CPU, with an optional K, M or G\n"
		"                            suffix (powers of 1024), %uK to %uM\n"
		"  -f, --filter SPEC         record only matching network events. SPEC is\n"
		"                            \"none\" (no filter) or blank-separated\n"
		"                            KIND=V1,V2,...; each KIND given must match one\n"
		"                            of its values. KIND is\n"
		"                              port     1 to 65535 (either end of the flow)\n"
		"                              addr     IPv4 or IPv6 address (either end)\n"
		"                              ifindex  interface index or name (packets)\n"
		"                              pid      process id (application events)\n"
		"                            with at most %d values each, e.g.\n"
		"                            --filter 'port=9000,9001 addr=10.0.0.2'\n"
		"  -p, --sample-period TIME  time between two stack samples of the sample\n"
		"                            source: a number with ns, us or ms (us\n"
		"                            without), %uus to %us\n"
		"  -H, --hw-timestamps IFACES  ask the drivers of these interfaces\n"
		"                            (comma-separated) for RX stamps of every packet\n"
		"                            and TX stamps, so that the analysis sees NIC\n"
		"                            delay; the previous setting comes back at\n"
		"                            'nsightctl stop', at the end of 'nsightctl\n"
		"                            record', or with --hw-timestamps off\n"
		"  -h, --help                show this help\n",
		all, NSIGHT_BUFFER_MIN >> 10, NSIGHT_BUFFER_MAX >> 20, NSIGHT_FILTER_MAX,
		NSIGHT_SAMPLE_PERIOD_MIN / 1000, NSIGHT_SAMPLE_PERIOD_MAX / 1000000000);
}

struct unit {
	const char *name;
	uint64_t mul;
};

/* Decimal digits then one of @units (the empty name: no unit). */
static int parse_with_unit(const char *s, const struct unit *units, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = s;
	size_t i;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	for (i = 0; i < n; i++) {
		if (strcmp(p, units[i].name))
			continue;
		if (v > UINT64_MAX / units[i].mul)
			return -1;
		*out = v * units[i].mul;
		return 0;
	}
	return -1;
}

int nsight_parse_duration(const char *s, uint64_t *ns)
{
	static const struct unit units[] = {
		{ "", 1000 }, { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
	};

	return parse_with_unit(s, units, sizeof(units) / sizeof(units[0]), ns);
}

int nsight_parse_window(const char *s, uint64_t *ns)
{
	static const struct unit units[] = {
		{ "", 1000000ULL }, { "us", 1000ULL }, { "ms", 1000000ULL }, { "s", 1000000000ULL },
	};

	return parse_with_unit(s, units, sizeof(units) / sizeof(units[0]), ns);
}

int nsight_parse_seconds(const char *s, uint64_t *ns)
{
	static const struct unit units[] = {
		{ "", 1000000000ULL }, { "s", 1000000000ULL }, { "ms", 1000000ULL },
		{ "m", 60000000000ULL }, { "h", 3600000000000ULL },
	};
	uint64_t v;

	if (parse_with_unit(s, units, sizeof(units) / sizeof(units[0]), &v) || !v)
		return -1;
	*ns = v;
	return 0;
}

static int show(struct nsight_diag *d)
{
	struct nsight_status st;
	char src[128], filter[NSIGHT_FILTER_FMT_MAX];
	struct nsight_nl nl;
	int err;

	if (nsight_nl_open(&nl, d))
		return cli_fail(d);
	err = nsight_status_get(&nl, &st, d);
	nsight_nl_close(&nl);
	if (err) {
		nsight_status_free(&st);
		return cli_fail(d);
	}
	nsight_filter_format(&st.filter, filter, sizeof(filter));
	printf("sources:      %s\n", nsight_sources_format(st.sources, src, sizeof(src)));
	printf("filter:       %s\n", filter);
	printf("buffer size:  %" PRIu32 " bytes per cpu\n", st.buffer_size);
	if (st.sample_period)
		printf("sampling:     every %" PRIu32 " ns\n", st.sample_period);
	printf("sub-buffers:  %" PRIu32 " x %" PRIu32 " bytes\n", st.n_subbufs, st.subbuf_size);
	nsight_status_free(&st);
	nsight_hwts_print(stdout, "hw stamps:    ");
	return cli_finish_stdout();
}

/* What to change; the set_* flags say which fields are given. */
struct config_change {
	bool set_sources, set_size, set_filter, set_period;
	uint32_t sources;
	uint32_t size;
	uint32_t period;
	struct nsight_filter filter;
};

static int set(const struct config_change *ch, struct nsight_diag *d)
{
	struct nsight_nl nl;
	struct nl_msg *msg;
	int err;

	if (nsight_nl_open(&nl, d))
		return cli_fail(d);
	msg = nsight_nl_msg(&nl, NSIGHT_CMD_SET_CONFIG);
	if (!msg ||
	    (ch->set_sources && nla_put_u32(msg, NSIGHT_A_SOURCES, ch->sources) < 0) ||
	    (ch->set_size && nla_put_u32(msg, NSIGHT_A_BUFFER_SIZE, ch->size) < 0) ||
	    (ch->set_period && nla_put_u32(msg, NSIGHT_A_SAMPLE_PERIOD, ch->period) < 0) ||
	    (ch->set_filter && nsight_filter_put(msg, &ch->filter) < 0)) {
		nlmsg_free(msg);
		nsight_nl_close(&nl);
		nsight_diag_set(d, ENOMEM, "out of memory");
		return cli_fail(d);
	}
	err = nsight_nl_request(&nl, msg, NULL, NULL, d);
	nsight_nl_close(&nl);
	if (err == -EBUSY) {
		fprintf(stderr, "nsightctl: cannot change the configuration while a capture is running; run 'nsightctl stop' first\n");
		return NSIGHT_EXIT_FAIL;
	}
	return err ? cli_fail(d) : NSIGHT_EXIT_OK;
}

/*
 * --hw-timestamps: only with the module loaded (the capture whose stop
 * restores them is its).
 */
static int hwtstamps(const char *list, struct nsight_diag *d)
{
	struct nsight_nl nl;

	if (!strcmp(list, "off"))
		return nsight_hwts_restore("--hw-timestamps off", stdout, d) ? cli_fail(d) :
		       cli_finish_stdout();
	if (nsight_nl_open(&nl, d))
		return cli_fail(d);
	nsight_nl_close(&nl);
	if (nsight_hwts_enable(list, 0, stdout, d))
		return cli_fail(d);
	return cli_finish_stdout();
}

int cmd_config(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sources", required_argument, NULL, 's' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "filter", required_argument, NULL, 'f' },
		{ "sample-period", required_argument, NULL, 'p' },
		{ "hw-timestamps", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct nsight_diag d = { 0 };
	struct config_change ch = { 0 };
	uint64_t size = 0, period = 0;
	const char *hwts = NULL;
	char err[256];
	int c, ret;

	while ((c = cli_getopt(argc, argv, "s:b:f:p:H:h", opts)) != -1) {
		switch (c) {
		case 's':
			if (nsight_sources_parse(optarg, &ch.sources, err, sizeof(err)))
				return cli_usage_error(argv[0], "%s", err);
			ch.set_sources = true;
			break;
		case 'b':
			if (nsight_parse_size(optarg, &size))
				return cli_usage_error(argv[0], "bad buffer size '%s' (bytes, with an optional K, M or G suffix)",
						       optarg);
			if (size < NSIGHT_BUFFER_MIN || size > NSIGHT_BUFFER_MAX)
				return cli_usage_error(argv[0], "buffer size %" PRIu64 " out of range %u..%u",
						       size, NSIGHT_BUFFER_MIN, NSIGHT_BUFFER_MAX);
			ch.size = (uint32_t)size;
			ch.set_size = true;
			break;
		case 'p':
			if (nsight_parse_duration(optarg, &period))
				return cli_usage_error(argv[0], "bad sample period '%s' (a number with ns, us or ms)",
						       optarg);
			if (period < NSIGHT_SAMPLE_PERIOD_MIN || period > NSIGHT_SAMPLE_PERIOD_MAX)
				return cli_usage_error(argv[0], "sample period %" PRIu64 " ns out of range %u..%u",
						       period, NSIGHT_SAMPLE_PERIOD_MIN,
						       NSIGHT_SAMPLE_PERIOD_MAX);
			ch.period = (uint32_t)period;
			ch.set_period = true;
			break;
		case 'f':
			if (nsight_filter_parse(optarg, if_nametoindex, &ch.filter, err, sizeof(err)))
				return cli_usage_error(argv[0], "bad filter: %s", err);
			ch.set_filter = true;
			break;
		case 'H': {
			char names[NSIGHT_HWTS_MAX][IF_NAMESIZE];
			size_t n;

			if (strcmp(optarg, "off") &&
			    nsight_hwts_parse_list(optarg, names, &n, &d))
				return cli_usage_error(argv[0], "%s", d.msg);
			hwts = optarg;
			break;
		}
		case 'h':
			cmd_config_usage(stdout);
			return NSIGHT_EXIT_OK;
		default:
			return NSIGHT_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind]);

	if (!ch.set_sources && !ch.set_size && !ch.set_filter && !ch.set_period && !hwts)
		return show(&d);
	if (ch.set_sources || ch.set_size || ch.set_filter || ch.set_period) {
		ret = set(&ch, &d);
		if (ret || !hwts)
			return ret;
	}
	return hwtstamps(hwts, &d);
}
