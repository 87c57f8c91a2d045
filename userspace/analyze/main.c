// SPDX-License-Identifier: MIT
/* nsight-analyze: validate and summarise an nsight dump stream. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "print.h"
#include "report.h"
#include "stream.h"
#include "summary.h"
#include "timecheck.h"
#include "version.h"

struct opts {
	bool json, strict, messages;
	enum nsight_clockid clk;
	enum nsight_tc_params params;
	const char *pairs;		/* --time-check */
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: nsight-analyze [--json] [--strict] [--messages] [--clock CLOCK]\n"
		"                      [--time-params PARAMS] [FILE|-]\n"
		"       nsight-analyze --time-check PAIRS [--time-params PARAMS] [--strict]\n"
		"                      [--json] [FILE|-]\n"
		"\n"
		"Read a stream written by 'nsightctl dump' (stdin by default), validate\n"
		"it and print a summary: span, record and drop counts per CPU and per\n"
		"type, and a check of the records against the kernel's counters. Then:\n"
		"\n"
		"time:     how TSC stamps become clock times: exactly, with the kernel's\n"
		"          timekeeper parameters in force at each instant; approximately,\n"
		"          from the clock_sync record alone; or not at all.\n"
		"latency:  message lifetimes (RX: NIC n -> hand-off h -> application\n"
		"          receive a; TX: send -> qdisc -> driver xmit -> completion)\n"
		"          per application (comm, pid) and direction: count, p50, p90,\n"
		"          p99, p99.9 and max of the total latency in ns (RX n -> a, TX\n"
		"          send -> xmit, or -> completion when there is one). Percentiles\n"
		"          are nearest-rank: the value at rank ceil(p/100 * count) of the\n"
		"          sorted latencies. Incomplete messages (a stage missing, records\n"
		"          lost on one of their CPUs, a record out of TSC order, no clock)\n"
		"          are counted by reason and left out of the figures.\n"
		"\n"
		"  -j, --json            print one JSON object\n"
		"  -s, --strict          exit 1 if the check finds problems (with\n"
		"                        --time-check: if there is any inversion)\n"
		"  -m, --messages        list every message: 'messages:' then one line\n"
		"                        each, complete ones by direction and id (RX in\n"
		"                        NIC order, TX in send order), then the incomplete\n"
		"                        ones with their reason; with --json, a \"messages\"\n"
		"                        array in the same order\n"
		"  -c, --clock CLOCK     realtime (default) or monotonic: the clock of\n"
		"                        printed absolute times (durations are monotonic)\n"
		"  -t, --time-check PAIRS\n"
		"                        check the time conversion against PAIRS, a file\n"
		"                        of little-endian {u64 tsc; s64 realtime_ns} pairs\n"
		"                        read back to back (rdtsc, then clock_gettime):\n"
		"                        conv(tsc0) <= real0 <= conv(tsc1) <= ... must hold.\n"
		"                        Prints only the 'time-check:' line and up to 5\n"
		"                        inversions; pairs more than one record interval\n"
		"                        (the median spacing of the timekeeper records)\n"
		"                        before the first or after the last record are\n"
		"                        counted as 'uncovered' and not checked\n"
		"  -p, --time-params PARAMS\n"
		"                        in-force (default) or first: convert every TSC\n"
		"                        with the first timekeeper record only (validation:\n"
		"                        shows what a single set of parameters gets wrong)\n"
		"  -h, --help            show this help\n"
		"  -V, --version         show the version\n"
		"\n"
		"Exit status: 0 ok, 1 error (including a corrupt or truncated stream),\n"
		"2 usage error.\n");
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "nsight-analyze: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'nsight-analyze --help'.\n");
	return NSIGHT_EXIT_USAGE;
}

static int put_json(struct json_object *o)
{
	if (!o) {
		fprintf(stderr, "nsight-analyze: out of memory\n");
		return NSIGHT_EXIT_FAIL;
	}
	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
					     JSON_C_TO_STRING_NOSLASHESCAPE), stdout);
	fputc('\n', stdout);
	json_object_put(o);
	return NSIGHT_EXIT_OK;
}

static int print_report(const struct nsight_analysis *a, const char *name, const struct opts *o)
{
	int ret = NSIGHT_EXIT_OK;

	if (o->json) {
		struct json_object *j = nsight_summary_to_json(name, &a->sum);

		if (j && nsight_report_add_json(j, a, o->clk, o->messages)) {
			json_object_put(j);
			j = NULL;
		}
		ret = put_json(j);
	} else {
		nsight_summary_print_text(stdout, name, &a->sum);
		nsight_report_time_text(stdout, a, o->clk);
		nsight_report_latency_text(stdout, a);
		if (o->messages)
			nsight_report_messages_text(stdout, a, o->clk);
	}
	if (o->strict && a->sum.n_problems)
		ret = NSIGHT_EXIT_FAIL;
	return ret;
}

static int time_check(const struct nsight_analysis *a, const char *name, const struct opts *o)
{
	struct nsight_diag d = { 0 };
	struct nsight_tpair *pairs = NULL;
	struct nsight_tcheck res;
	size_t n = 0;
	FILE *f;
	int ret;

	f = fopen(o->pairs, "rb");
	if (!f) {
		fprintf(stderr, "nsight-analyze: %s: %s\n", o->pairs, strerror(errno));
		return NSIGHT_EXIT_FAIL;
	}
	ret = nsight_tpairs_read(f, o->pairs, &pairs, &n, &d);
	fclose(f);
	if (!ret)
		ret = nsight_tcheck_run(&a->tc, pairs, n, &res, &d);
	free(pairs);
	if (ret) {
		/* Messages about the pairs file name it already. */
		if (ret == -NSIGHT_E_INVAL)
			fprintf(stderr, "nsight-analyze: %s: %s\n", name, d.msg);
		else
			fprintf(stderr, "nsight-analyze: %s\n", d.msg);
		return NSIGHT_EXIT_FAIL;
	}
	if (o->json)
		ret = put_json(nsight_report_tcheck_json(o->pairs, name, &a->tc, &res));
	else
		nsight_report_tcheck_text(stdout, &a->tc, &res);
	if (o->strict && res.inversions)
		ret = NSIGHT_EXIT_FAIL;
	return ret;
}

static int analyze(FILE *in, const char *name, const struct opts *o)
{
	struct nsight_analysis_opts ao = { .params = o->params, .lifetimes = !o->pairs };
	struct nsight_analysis a;
	struct nsight_diag d = { 0 };
	int ret;

	if (nsight_analysis_run(&a, in, &ao, &d)) {
		fprintf(stderr, "nsight-analyze: %s: %s\n", name, d.msg);
		nsight_analysis_fini(&a);
		return NSIGHT_EXIT_FAIL;
	}
	ret = o->pairs ? time_check(&a, name, o) : print_report(&a, name, o);
	nsight_analysis_fini(&a);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "nsight-analyze: writing to stdout failed: %s\n", strerror(errno));
		ret = NSIGHT_EXIT_FAIL;
	}
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "strict", no_argument, NULL, 's' },
		{ "messages", no_argument, NULL, 'm' },
		{ "clock", required_argument, NULL, 'c' },
		{ "time-check", required_argument, NULL, 't' },
		{ "time-params", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .clk = NSIGHT_CLOCK_REALTIME, .params = NSIGHT_TC_IN_FORCE };
	const char *name = "-";
	FILE *in = stdin;
	int c, ret;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jsmc:t:p:hV", lopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			o.json = true;
			break;
		case 's':
			o.strict = true;
			break;
		case 'm':
			o.messages = true;
			break;
		case 'c':
			if (!strcmp(optarg, "realtime"))
				o.clk = NSIGHT_CLOCK_REALTIME;
			else if (!strcmp(optarg, "monotonic"))
				o.clk = NSIGHT_CLOCK_MONOTONIC;
			else
				return usage_error("bad clock '%s' (realtime or monotonic)", optarg);
			break;
		case 't':
			o.pairs = optarg;
			break;
		case 'p':
			if (!strcmp(optarg, "in-force"))
				o.params = NSIGHT_TC_IN_FORCE;
			else if (!strcmp(optarg, "first"))
				o.params = NSIGHT_TC_FIRST;
			else
				return usage_error("bad time params '%s' (in-force or first)", optarg);
			break;
		case 'h':
			usage(stdout);
			return NSIGHT_EXIT_OK;
		case 'V':
			printf("nsight-analyze %s (stream format %d)\n", NSIGHT_TOOLS_VERSION,
			       NSIGHT_STREAM_VERSION);
			return NSIGHT_EXIT_OK;
		case ':':
			return usage_error("option '%s' needs an argument", argv[optind - 1]);
		default:
			return usage_error("bad option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind > 1)
		return usage_error("more than one input ('%s')", argv[optind + 1]);
	if (o.pairs && o.messages)
		return usage_error("%s", "--messages does not go with --time-check");
	if (optind < argc)
		name = argv[optind];

	if (strcmp(name, "-")) {
		in = fopen(name, "rb");
		if (!in) {
			fprintf(stderr, "nsight-analyze: %s: %s\n", name, strerror(errno));
			return NSIGHT_EXIT_FAIL;
		}
	}
	ret = analyze(in, name, &o);
	if (in != stdin)
		fclose(in);
	return ret;
}
