// SPDX-License-Identifier: MIT
/* What nsight-analyze's commands share: the options, the input, the output files. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "base/size.h"
#include "base/zstdio.h"
#include "diagnose/categories_builtin.h"
#include "export/chexport.h"
#include "format/stream.h"
#include "cli.h"
#include "print.h"

/* Long options without a short one. */
enum {
	OPT_SLICE = 256,
	OPT_BASELINE,
	OPT_TAIL,
	OPT_MIN_DEV,
	OPT_NESTED,
	OPT_CATEGORIES,
	OPT_HTML,
	OPT_PERFETTO,
	OPT_COLOR,
	OPT_INTERVALS,
	OPT_WHATIF,
	OPT_MERGE,
	OPT_SYNCED,
	OPT_WINDOW,
	OPT_RANGE,
	OPT_TRIGGERS,
	OPT_WHOLE,
	OPT_WHOLE_DX,
	OPT_STREAM,
	OPT_MEMORY,
	OPT_THREADS,
	OPT_EXPORT,
	OPT_EXPORT_SCHEMA,
	OPT_CLUSTER,
	OPT_HOST,
	OPT_BATCH,
	OPT_TIMEOUT,
	OPT_FLEET,
	OPT_FROM,
	OPT_TO,
	OPT_FROM2,
	OPT_TO2,
};

/* Every option of every command; a command takes those of its list (main.c). */
static const struct option lopts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "strict", no_argument, NULL, 's' },
	{ "messages", no_argument, NULL, 'm' },
	{ "clock", required_argument, NULL, 'c' },
	{ "time-check", required_argument, NULL, 't' },
	{ "time-params", required_argument, NULL, 'p' },
	{ "slice", required_argument, NULL, OPT_SLICE },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "tail", required_argument, NULL, OPT_TAIL },
	{ "min-dev", required_argument, NULL, OPT_MIN_DEV },
	{ "nested-threshold", required_argument, NULL, OPT_NESTED },
	{ "categories", required_argument, NULL, OPT_CATEGORIES },
	{ "html", required_argument, NULL, OPT_HTML },
	{ "verbose", no_argument, NULL, 'v' },
	{ "color", required_argument, NULL, OPT_COLOR },
	{ "perfetto", required_argument, NULL, OPT_PERFETTO },
	{ "intervals", no_argument, NULL, OPT_INTERVALS },
	{ "what-if", required_argument, NULL, OPT_WHATIF },
	{ "merge", no_argument, NULL, OPT_MERGE },
	{ "synced", required_argument, NULL, OPT_SYNCED },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "range", required_argument, NULL, OPT_RANGE },
	{ "triggers", no_argument, NULL, OPT_TRIGGERS },
	{ "whole", no_argument, NULL, OPT_WHOLE },
	{ "whole-diagnosis", no_argument, NULL, OPT_WHOLE_DX },
	{ "stream", required_argument, NULL, OPT_STREAM },
	{ "memory", required_argument, NULL, OPT_MEMORY },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "export", required_argument, NULL, OPT_EXPORT },
	{ "export-schema", no_argument, NULL, OPT_EXPORT_SCHEMA },
	{ "cluster", required_argument, NULL, OPT_CLUSTER },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "fleet", required_argument, NULL, OPT_FLEET },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "from2", required_argument, NULL, OPT_FROM2 },
	{ "to2", required_argument, NULL, OPT_TO2 },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

void cli_opts_init(struct opts *o, const struct cli_cmd *cmd)
{
	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	o->clk = NSIGHT_CLOCK_REALTIME;
	o->params = NSIGHT_TC_IN_FORCE;
	o->synced_ns = -1;
	o->tty.width = NSIGHT_TTY_WIDTH;
	o->progress = nsight_progress_tty();
	nsight_dx_opts_default(&o->dx);
	/* The analysis has two sides to run at once (analysis_thread.h). */
	o->threads = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
	o->batch = NSIGHT_CHEXPORT_BATCH;
	o->timeout_s = NSIGHT_CHEXPORT_TIMEOUT;
}

int cli_usage_error(const struct opts *o, const char *fmt, ...)
{
	const char *cmd = o->cmd->name;
	va_list ap;

	fprintf(stderr, "nsight-analyze%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'nsight-analyze%s%s --help'.\n", cmd ? " " : "", cmd ? cmd : "");
	return NSIGHT_EXIT_USAGE;
}

int cli_nomem(void)
{
	fprintf(stderr, "nsight-analyze: out of memory\n");
	return NSIGHT_EXIT_FAIL;
}

int cli_finish_stdout(int ret)
{
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "nsight-analyze: writing to stdout failed: %s\n", strerror(errno));
		ret = NSIGHT_EXIT_FAIL;
	}
	return ret;
}

/*
 * A percentage "pN", "N" or "N%" with up to 3 decimals, 0..100, in
 * parts per 100000; @end gets the first byte after it. Returns 0 or -1.
 */
static int parse_pct(const char *s, bool p_prefix_ok, uint32_t *per100k, const char **end)
{
	uint64_t whole = 0, frac = 0;
	unsigned int digits = 0, fd = 0;

	if (p_prefix_ok && *s == 'p')
		s++;
	for (; *s >= '0' && *s <= '9' && digits < 4; s++, digits++)
		whole = whole * 10 + (uint64_t)(*s - '0');
	if (!digits)
		return -1;
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, fd++) {
			if (fd >= 3)
				return -1;
			frac = frac * 10 + (uint64_t)(*s - '0');
		}
		if (!fd)
			return -1;
	}
	while (fd++ < 3)
		frac *= 10;
	if (whole * 1000 + frac > 100000)
		return -1;
	*per100k = (uint32_t)(whole * 1000 + frac);
	*end = s;
	return 0;
}

/* "N" with a unit (ns, us, ms, s) into ns; 0 or -1 (no unit, overflow). */
static int parse_duration(const char *s, uint64_t *ns)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	};
	unsigned long long v;
	char *end;
	size_t i;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit))
			return __builtin_mul_overflow(v, units[i].ns, ns) ? -1 : 0;
	return -1;
}

static int parse_slice(const char *arg, struct nsight_dx_opts *dx)
{
	const char *p;

	if (parse_pct(arg, true, &dx->ref_lo, &p) || *p != '-' ||
	    parse_pct(p + 1, true, &dx->ref_hi, &p) || *p || dx->ref_lo >= dx->ref_hi)
		return -1;
	dx->slice = true;
	return 0;
}

/* --range FROM:TO, two durations after the capture's first record. */
static int parse_range(const char *arg, struct opts *o)
{
	const char *colon = strchr(arg, ':');
	char from[64];

	if (!colon || (size_t)(colon - arg) >= sizeof(from))
		return -1;
	memcpy(from, arg, (size_t)(colon - arg));
	from[colon - arg] = '\0';
	if (parse_duration(from, &o->range_from_ns) || parse_duration(colon + 1, &o->range_to_ns) ||
	    o->range_from_ns >= o->range_to_ns)
		return -1;
	o->range = true;
	return 0;
}

/* --tail pN (to the slowest) or pA-pB (a band, A < B). */
static int parse_tail(const char *arg, struct nsight_dx_opts *dx)
{
	const char *p;

	if (parse_pct(arg, true, &dx->tail, &p))
		return -1;
	dx->tail_hi = 100000;
	if (*p == '-' && (parse_pct(p + 1, true, &dx->tail_hi, &p) || dx->tail >= dx->tail_hi))
		return -1;
	return *p ? -1 : 0;
}

/* Option @c (getopt_long's return) into @o: CLI_GO or the exit status. */
static int parse_one(struct opts *o, int c)
{
	const char *end;

	switch (c) {
	case 'j':
		o->json = true;
		break;
	case 's':
		o->strict = true;
		break;
	case 'm':
		o->messages = true;
		break;
	case 'c':
		if (!strcmp(optarg, "realtime"))
			o->clk = NSIGHT_CLOCK_REALTIME;
		else if (!strcmp(optarg, "monotonic"))
			o->clk = NSIGHT_CLOCK_MONOTONIC;
		else
			return cli_usage_error(o, "bad clock '%s' (realtime or monotonic)", optarg);
		break;
	case 't':
		o->pairs = optarg;
		break;
	case 'p':
		if (!strcmp(optarg, "in-force"))
			o->params = NSIGHT_TC_IN_FORCE;
		else if (!strcmp(optarg, "first"))
			o->params = NSIGHT_TC_FIRST;
		else
			return cli_usage_error(o, "bad time params '%s' (in-force or first)", optarg);
		break;
	case OPT_SLICE:
		if (parse_slice(optarg, &o->dx))
			return cli_usage_error(o, "bad slice '%s' (pA-pB, 0 <= A < B <= 100, e.g. p20-p30)",
					   optarg);
		o->diag_opts = true;
		break;
	case OPT_BASELINE:
		o->dx.baseline = optarg;
		o->diag_opts = true;
		break;
	case OPT_TAIL:
		if (parse_tail(optarg, &o->dx))
			return cli_usage_error(o, "bad tail '%s' (pN or a band pA-pB, 0 <= A < B <= 100, e.g. p99 or p20-p30)",
					   optarg);
		o->diag_opts = true;
		break;
	case OPT_MIN_DEV: {
		char *e;
		long long v;

		errno = 0;
		v = strtoll(optarg, &e, 10);
		if (errno || e == optarg || *e || v < 0)
			return cli_usage_error(o, "bad --min-dev '%s' (ns, 0 or more)", optarg);
		o->dx.min_dev = v;
		o->diag_opts = true;
		break;
	}
	case OPT_NESTED:
		if (parse_pct(optarg, false, &o->dx.nested, &end) || (*end && strcmp(end, "%")))
			return cli_usage_error(o, "bad --nested-threshold '%s' (a percentage, 0 to 100)",
					   optarg);
		o->diag_opts = true;
		break;
	case OPT_CATEGORIES:
		o->categories = optarg;
		o->diag_opts = true;
		break;
	case OPT_HTML:
		o->html = optarg;
		break;
	case 'v':
		o->verbose = true;
		break;
	case OPT_COLOR:
		if (!strcmp(optarg, "always"))
			o->tty.color = true;
		else if (!strcmp(optarg, "never"))
			o->tty.color = false;
		else if (!strcmp(optarg, "auto"))
			o->tty.color = nsight_tty_auto_color();
		else
			return cli_usage_error(o, "bad --color '%s' (auto, always or never)", optarg);
		o->color_set = true;
		break;
	case OPT_PERFETTO:
		o->perfetto = optarg;
		break;
	case OPT_INTERVALS:
		o->intervals = true;
		break;
	case OPT_WHATIF: {
		struct nsight_diag d = { 0 };

		if (o->n_whatif == NSIGHT_WI_MAX_SPECS)
			return cli_usage_error(o, "%s", "more than 8 --what-if (they stack, in order)");
		if (nsight_whatif_parse(&o->whatif[o->n_whatif], optarg, &d))
			return cli_usage_error(o, "bad --what-if %s", d.msg);
		o->n_whatif++;
		break;
	}
	case OPT_MERGE:
		o->merge = true;
		break;
	case OPT_SYNCED: {
		char *e;

		errno = 0;
		o->synced_ns = strtoll(optarg, &e, 10);
		if (errno || e == optarg || *e || o->synced_ns < 0)
			return cli_usage_error(o, "bad --synced '%s' (ns, 0 or more)", optarg);
		break;
	}
	case OPT_WINDOW:
		if (parse_duration(optarg, &o->window_ns) || !o->window_ns)
			return cli_usage_error(o, "bad --window '%s' (a duration with a unit: ns, us, ms or s, e.g. 100ms)",
					   optarg);
		break;
	case OPT_RANGE:
		if (parse_range(optarg, o))
			return cli_usage_error(o, "bad --range '%s' (FROM:TO after the first record, durations with a unit, FROM < TO, e.g. 30s:31s)",
					   optarg);
		break;
	case OPT_TRIGGERS:
		o->triggers = true;
		break;
	case OPT_WHOLE:
		o->whole = true;
		break;
	case OPT_WHOLE_DX:
		o->whole_dx = true;
		break;
	case OPT_STREAM:
		o->stream_set = true;
		if (!strcmp(optarg, "auto"))
			o->stream = CLI_STREAM_AUTO;
		else if (!strcmp(optarg, "never"))
			o->stream = CLI_STREAM_NEVER;
		else if (!strcmp(optarg, "always"))
			o->stream = CLI_STREAM_ALWAYS;
		else
			return cli_usage_error(o, "bad --stream '%s' (auto, always or never)", optarg);
		break;
	case OPT_MEMORY:
		if (nsight_parse_size(optarg, &o->memory) || !o->memory)
			return cli_usage_error(o, "bad --memory '%s' (bytes, or with K, M or G, e.g. 4G)",
					       optarg);
		break;
	case OPT_THREADS: {
		char *e;
		unsigned long v;

		errno = 0;
		v = strtoul(optarg, &e, 10);
		if (errno || e == optarg || *e || !v || v > 1024 || optarg[0] == '-')
			return cli_usage_error(o, "bad --threads '%s' (1 to 1024)", optarg);
		o->threads = (unsigned int)v;
		break;
	}
	case OPT_EXPORT:
		o->export_url = optarg;
		break;
	case OPT_EXPORT_SCHEMA:
		o->export_schema = true;
		break;
	case OPT_CLUSTER:
		o->cluster = optarg;
		o->export_opts = true;
		break;
	case OPT_HOST:
		if (!optarg[0])
			return cli_usage_error(o, "%s", "--host needs a name");
		o->host = optarg;
		o->export_opts = true;
		break;
	case OPT_BATCH:
	case OPT_TIMEOUT: {
		char *e;
		unsigned long v;

		errno = 0;
		v = strtoul(optarg, &e, 10);
		if (errno || e == optarg || *e || !v || optarg[0] == '-' ||
		    v > (c == OPT_BATCH ? 100000000UL : 86400UL))
			return cli_usage_error(o, c == OPT_BATCH ? "bad --batch '%s' (rows, 1 to 100000000)" :
					   "bad --timeout '%s' (seconds, 1 to 86400)", optarg);
		o->export_opts = true;
		if (c == OPT_BATCH) {
			o->batch = v;
		} else {
			o->timeout_s = (long)v;
			o->timeout_set = true;
		}
		break;
	}
	case OPT_FLEET:
		o->fleet_url = optarg;
		break;
	case OPT_FROM:
	case OPT_TO:
	case OPT_FROM2:
	case OPT_TO2:
		/* Read by fleet, against one "now". */
		*(c == OPT_FROM ? &o->from : c == OPT_TO ? &o->to : c == OPT_FROM2 ? &o->from2 : &o->to2) =
			optarg;
		o->fleet_opts = true;
		break;
	case 'h':
		o->cmd->usage(stdout);
		return NSIGHT_EXIT_OK;
	case 'V':
		printf("nsight-analyze %s (stream format %d)\n", NSIGHT_TOOLS_VERSION,
		       NSIGHT_STREAM_VERSION);
		return NSIGHT_EXIT_OK;
	}
	return CLI_GO;
}

/* Whether the command takes option @c: its long name is in the command's list. */
static bool takes(const struct opts *o, int c, const char **name)
{
	const struct option *l;
	const char *const *n;

	for (l = lopts; l->name && l->val != c; l++)
		;
	*name = l->name;
	if (!o->cmd->options)
		return true;
	for (n = o->cmd->options; *n; n++)
		if (!strcmp(*n, l->name))
			return true;
	return false;
}

int cli_parse(struct opts *o, int argc, char **argv)
{
	const char *name;
	int c, ret;

	optind = 0;	/* a full reset: argv may be the command's */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jsmvc:t:p:hV", lopts, NULL)) != -1) {
		if (c == ':')
			return cli_usage_error(o, "option '%s' needs an argument", argv[optind - 1]);
		if (c == '?')
			return cli_usage_error(o, "bad option '%s'", argv[optind - 1]);
		if (!takes(o, c, &name))
			return cli_usage_error(o, "%s does not take --%s", o->cmd->name, name);
		ret = parse_one(o, c);
		if (ret != CLI_GO)
			return ret;
	}
	return CLI_GO;
}

bool cli_stdin_is_terminal(const char *name)
{
	if (strcmp(name, "-") || !isatty(STDIN_FILENO))
		return false;
	fprintf(stderr, "nsight-analyze: reading a capture from stdin, which is a terminal; "
		"pipe 'nsightctl dump' into it or name a file (see --help)\n");
	return true;
}

int cli_check_capture(struct opts *o, int n, char **args, const char **name)
{
	bool whole_only;

	if (o->range && (o->window_ns || o->triggers || o->pairs))
		return cli_usage_error(o, "%s", "--range does not go with --window, --triggers or --time-check");
	/*
	 * A band against a baseline (--tail in nsight.rst): the reference is the
	 * same band of the baseline unless --slice says otherwise.
	 */
	if (o->dx.tail_hi < 100000 && o->dx.baseline && !o->dx.slice) {
		o->dx.ref_lo = o->dx.tail;
		o->dx.ref_hi = o->dx.tail_hi;
		o->dx.slice = true;
	}
	if (o->synced_ns >= 0)
		return cli_usage_error(o, "%s", "--synced goes with --merge");
	if (o->export_opts)
		return cli_usage_error(o, "%s", "--cluster, --host, --batch and --timeout go with --export, --export-schema or --fleet");
	if (o->fleet_opts)
		return cli_usage_error(o, "%s", "--from, --to, --from2 and --to2 go with --fleet");
	if (n > 1)
		return cli_usage_error(o, "more than one input ('%s')", args[1]);
	if (!o->color_set)
		o->tty.color = nsight_tty_auto_color();
	if (o->pairs && o->messages)
		return cli_usage_error(o, "%s", "--messages does not go with --time-check");
	if (o->pairs && (o->html || o->perfetto))
		return cli_usage_error(o, "%s", "--html and --perfetto do not go with --time-check");
	if ((o->html && !strcmp(o->html, "-")) || (o->perfetto && !strcmp(o->perfetto, "-")))
		return cli_usage_error(o, "%s", "--html and --perfetto write to a file, not to stdout");
	if (o->pairs && (o->intervals || o->n_whatif))
		return cli_usage_error(o, "%s", "--intervals and --what-if do not go with --time-check");
	if (o->pairs && o->diag_opts)
		return cli_usage_error(o, "%s", "diagnosis options do not go with --time-check");
	*name = n ? args[0] : "-";
	if (o->dx.baseline && !strcmp(o->dx.baseline, "-") && !strcmp(*name, "-"))
		return cli_usage_error(o, "%s", "the capture and the baseline cannot both be stdin");
	/* What needs the whole capture at once, which windows cannot give. */
	whole_only = o->dx.baseline || o->html || o->perfetto || o->intervals || o->n_whatif || o->pairs;
	if (o->window_ns && whole_only)
		return cli_usage_error(o, "%s", "--window does not go with --baseline, --html, --perfetto, --intervals, --what-if or --time-check");
	if (o->whole_dx && !o->window_ns)
		return cli_usage_error(o, "%s", "--whole-diagnosis needs --window DURATION");
	if (o->stream == CLI_STREAM_ALWAYS &&
	    (whole_only || o->range || o->messages || o->triggers || o->whole || o->whole_dx))
		return cli_usage_error(o, "%s", "--stream always does not go with --baseline, --html, --perfetto, --intervals, --what-if, --range, --messages, --triggers, --whole or --whole-diagnosis");
	if (o->window_ns && o->cmd->name && !strcmp(o->cmd->name, "report") &&
	    o->stream != CLI_STREAM_ALWAYS)
		return cli_usage_error(o, "%s", "report --window DURATION sets the windows of --stream always");
	if ((o->stream_set || o->memory) &&
	    (o->pairs || o->merge || o->export_url || o->export_schema || o->fleet_url ||
	     (o->window_ns && o->stream != CLI_STREAM_ALWAYS)))
		return cli_usage_error(o, "%s", "--stream and --memory go with the report");
	if (o->memory && o->stream != CLI_STREAM_AUTO)
		return cli_usage_error(o, "%s", "--memory is the budget of --stream auto");
	if (o->triggers && (o->window_ns || o->whole || whole_only))
		return cli_usage_error(o, "%s", "--triggers does not go with --window, --whole, --baseline, --html, --perfetto, --intervals, --what-if or --time-check");
	if (cli_stdin_is_terminal(*name) || (o->dx.baseline && cli_stdin_is_terminal(o->dx.baseline)))
		return NSIGHT_EXIT_USAGE;
	return CLI_GO;
}

struct cli_origin cli_origin;

void cli_origin_text(FILE *f)
{
	const struct nsight_tracedat_info *i = &cli_origin.info;
	char missing[1024];

	if (!cli_origin.tracedat)
		return;
	nsight_tracedat_missing(i, missing, sizeof(missing));
	fprintf(f, "source: trace-cmd trace.dat%s%s%s: %" PRIu64 " events, %" PRIu64
		" mapped to records, %" PRIu64 " with no nsight record, %" PRIu64 " lost\n",
		i->buffer[0] ? " (buffer " : "", i->buffer, i->buffer[0] ? ")" : "",
		i->events, i->mapped, i->unmapped, i->missed);
	fprintf(f, "not in this capture: %s\n", missing);
}

struct json_object *cli_origin_json(void)
{
	const struct nsight_tracedat_info *i = &cli_origin.info;
	struct json_object *o, *k;
	char missing[1024];
	unsigned int n;

	if (!cli_origin.tracedat)
		return NULL;
	nsight_tracedat_missing(i, missing, sizeof(missing));
	o = json_object_new_object();
	k = json_object_new_object();
	if (!o || !k) {
		json_object_put(o);
		json_object_put(k);
		return NULL;
	}
	json_object_object_add(o, "format", json_object_new_string("trace.dat"));
	json_object_object_add(o, "buffer", json_object_new_string(i->buffer));
	json_object_object_add(o, "events", json_object_new_int64((int64_t)i->events));
	json_object_object_add(o, "mapped", json_object_new_int64((int64_t)i->mapped));
	json_object_object_add(o, "unmapped", json_object_new_int64((int64_t)i->unmapped));
	json_object_object_add(o, "lost", json_object_new_int64((int64_t)i->missed));
	for (n = 0; n < __NSIGHT_TD_KINDS; n++)
		json_object_object_add(k, nsight_td_kind_name(n),
				       json_object_new_int64((int64_t)i->kinds[n]));
	json_object_object_add(o, "kinds", k);
	json_object_object_add(o, "missing", json_object_new_string(missing));
	return o;
}

/*
 * A trace-cmd capture (trace.dat, a file: libtracecmd seeks in it) as the
 * stream it stands for, in a temporary file: *@in. Returns NSIGHT_EXIT_OK
 * with *@in, or with *@in NULL when @f is not a trace.dat (@f untouched),
 * or NSIGHT_EXIT_FAIL.
 */
static int open_tracedat(const char *name, FILE *f, FILE **in)
{
	char magic[NSIGHT_TRACEDAT_MAGIC_LEN];
	struct nsight_diag d = { 0 };
	struct stat st;
	FILE *out;

	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode) ||
	    pread(fileno(f), magic, sizeof(magic), 0) != (ssize_t)sizeof(magic) ||
	    !nsight_tracedat_magic(magic, sizeof(magic))) {
		*in = NULL;
		return NSIGHT_EXIT_OK;
	}
	out = tmpfile();
	if (!out) {
		fprintf(stderr, "nsight-analyze: %s: a temporary file: %s\n", name, strerror(errno));
		return NSIGHT_EXIT_FAIL;
	}
	if (nsight_tracedat_convert(name, fileno(f), out, &cli_origin.info, &d)) {
		fprintf(stderr, "nsight-analyze: %s\n", d.msg);
		fclose(out);
		return NSIGHT_EXIT_FAIL;
	}
	if (fflush(out) || fseek(out, 0, SEEK_SET)) {
		fprintf(stderr, "nsight-analyze: %s: a temporary file: %s\n", name, strerror(errno));
		fclose(out);
		return NSIGHT_EXIT_FAIL;
	}
	cli_origin.tracedat = true;
	*in = out;
	return NSIGHT_EXIT_OK;
}

int cli_open_input(const char *name, FILE **in)
{
	FILE *f = stdin;
	int ret;

	if (strcmp(name, "-")) {
		f = fopen(name, "rb");
		if (!f) {
			fprintf(stderr, "nsight-analyze: %s: %s\n", name, strerror(errno));
			return NSIGHT_EXIT_FAIL;
		}
	}
	ret = open_tracedat(name, f, in);
	if (ret || *in) {
		if (f != stdin)
			fclose(f);
		return ret;
	}
	*in = nsight_zstd_open_read(f);
	if (!*in) {
		fprintf(stderr, "nsight-analyze: %s: out of memory\n", name);
		if (f != stdin)
			fclose(f);
		return NSIGHT_EXIT_FAIL;
	}
	return NSIGHT_EXIT_OK;
}

int cli_load_categories(struct nsight_cats *cats, const struct opts *o)
{
	struct nsight_diag d = { 0 };

	nsight_cats_init(cats);
	if ((o->categories && nsight_cats_load(cats, o->categories, &d)) ||
	    nsight_cats_parse(cats, nsight_categories_builtin, strlen(nsight_categories_builtin),
			      nsight_categories_builtin_name, &d)) {
		fprintf(stderr, "nsight-analyze: %s\n", d.msg);
		return NSIGHT_EXIT_FAIL;
	}
	return NSIGHT_EXIT_OK;
}

int cli_read_capture(struct nsight_analysis *a, FILE *in, const char *name,
		     struct nsight_analysis_opts *ao, struct nsight_progress *pg,
		     const struct opts *o)
{
	struct nsight_diag d = { 0 };
	int err;

	nsight_progress_init(pg, o->progress, name);
	ao->progress = &pg->hooks;
	err = nsight_analysis_run(a, in, ao, &d);
	nsight_progress_end(pg);
	if (err) {
		fprintf(stderr, "nsight-analyze: %s: %s\n", name, d.msg);
		return NSIGHT_EXIT_FAIL;
	}
	nsight_summary_warn_cut(&a->sum, name);
	return NSIGHT_EXIT_OK;
}

int cli_out_open(struct out_file *f, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);

	f->path = path;
	f->created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = open(path, O_WRONLY | O_CLOEXEC);
	f->f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f->f) {
		fprintf(stderr, "nsight-analyze: cannot create %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		if (f->created)
			unlink(path);
		f->created = false;
		return NSIGHT_EXIT_FAIL;
	}
	return NSIGHT_EXIT_OK;
}

void cli_out_abandon(struct out_file *f)
{
	if (!f->f)
		return;
	fclose(f->f);
	f->f = NULL;
	if (f->created)
		unlink(f->path);
}
