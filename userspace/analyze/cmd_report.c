// SPDX-License-Identifier: MIT
/*
 * nsight-analyze report: the report of one capture (what nsight-analyze
 * does without a command), as text, compact or full, or as JSON, from one
 * table of its sections; the HTML report and the Perfetto trace beside.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/stream.h"
#include "band_report.h"
#include "chains_report.h"
#include "requests_report.h"
#include "cli.h"
#include "critpath_report.h"
#include "dx_report.h"
#include "html_report.h"
#include "intervals_report.h"
#include "json_out.h"
#include "perfetto.h"
#include "print.h"
#include "report.h"
#include "whatif_report.h"

void cmd_report_usage(FILE *f)
{
	fputs("Usage: nsight-analyze [report] [OPTIONS] [FILE|-]\n"
	      "\n"
	      "Check a capture (FILE, or stdin; zstd or not), print its latency per\n"
	      "application and direction and why the tail was slow (a flight recorder's\n"
	      "capture in a file: each trigger's window, as 'window --triggers').\n"
	      "\n"
	      "  -j, --json              one JSON object instead of the text\n"
	      "  -v, --verbose           the full text (default: a summary in 100 columns)\n"
	      "  -m, --messages          also list every message\n"
	      "  -s, --strict            exit 1 if the check finds problems\n"
	      "      --html FILE         also write an HTML report with plots\n"
	      "      --perfetto FILE     also write a trace for ui.perfetto.dev\n"
	      "      --baseline FILE     compare with another capture, the reference from it\n"
	      "      --tail pN           messages at or above pN (default p90); pA-pB: a band\n"
	      "      --what-if SPEC      latencies predicted without a cause ('remove:CAUSE'),\n"
	      "                          repeated: causes removed one after another\n"
	      "      --intervals         the tail-ranked interval tables\n"
	      "      --range FROM:TO     only the messages that start in it (e.g. 30s:31s)\n"
	      "      --whole             a flight recorder's capture as one, not per trigger\n"
	      "  -h, --help              this help\n"
	      "The diagnosis: --slice pA-pB, --min-dev NS, --nested-threshold PCT,\n"
	      "--categories FILE; the text: --color WHEN, -c, --clock CLOCK; the time:\n"
	      "-p, --time-params PARAMS; --threads N; a capture too big for memory: --stream\n"
	      "WHEN, --memory SIZE, --window DURATION. See nsight-analyze(1).\n", f);
}

/* What the options add to the report; NULL when not asked for. */
struct extras {
	const struct nsight_intervals *iv;
	const struct nsight_whatif *wi;		/* n_wi steps */
	size_t n_wi;
	const struct nsight_analysis *b;	/* --baseline */
	/* A band: each capture's against the baseline's fastest 20%. */
	const struct nsight_dx *adx, *bdx;
};

/*
 * What a report is written from: the capture, its diagnosis, what the
 * options added, and the text's colours (none with --verbose).
 */
struct report {
	const struct nsight_analysis *a;
	const struct nsight_dx *dx;
	const struct extras *x;
	const char *name;
	const struct opts *o;
	const struct nsight_tty *t;
};

/*
 * A section of the report in its three forms: the full text (--verbose),
 * the compact text and the JSON members; NULL where a form has none of
 * it. A text returns 0 or -1 (out of memory); a JSON writer sets
 * *s->err when it fails.
 */
struct section {
	int (*text)(const struct report *r);
	int (*compact)(const struct report *r);
	void (*json)(struct nsight_jsink *s, const struct report *r);
};

static int summary_text(const struct report *r)
{
	nsight_summary_print_text(stdout, r->name, &r->a->sum);
	return 0;
}

/* The compact text's first lines: the capture, its time and latency at once. */
static int summary_compact(const struct report *r)
{
	nsight_tty_summary(stdout, r->name, r->a, r->o->clk, r->t);
	return 0;
}

static void summary_json(struct nsight_jsink *s, const struct report *r)
{
	nsight_jsink_put_members(s, nsight_summary_to_json(r->name, &r->a->sum));
}

/* A trace-cmd capture's origin (cli.h). */
static int origin_text(const struct report *r)
{
	(void)r;
	cli_origin_text(stdout);
	return 0;
}

static void origin_json(struct nsight_jsink *s, const struct report *r)
{
	struct json_object *o = cli_origin_json();

	(void)r;
	if (o)
		nsight_jsink_put(s, "source", o);
}

/* --range in the text: what the report covers. */
static int range_text(const struct report *r)
{
	const struct nsight_analysis *a = r->a;

	if (!a->have_range)
		return 0;
	printf("range: %.6f s to %.6f s after the first record (TSC %" PRIu64 "..%" PRIu64
	       "): the messages whose first record lies in it\n", (double)r->o->range_from_ns / 1e9,
	       (double)r->o->range_to_ns / 1e9, a->range_lo, a->range_hi);
	return 0;
}

static void range_json(struct nsight_jsink *s, const struct report *r)
{
	struct json_object *j;
	int err = 0;

	if (!r->a->have_range)
		return;
	j = json_object_new_object();
	jo_add_u64(j, "from_ns", r->o->range_from_ns, &err);
	jo_add_u64(j, "to_ns", r->o->range_to_ns, &err);
	jo_add_u64(j, "tsc_from", r->a->range_lo, &err);
	jo_add_u64(j, "tsc_to", r->a->range_hi, &err);
	if (err) {
		json_object_put(j);
		j = NULL;
	}
	nsight_jsink_put(s, "range", j);
}

static int time_text(const struct report *r)
{
	nsight_report_time_text(stdout, r->a, r->o->clk);
	return 0;
}

static void time_json(struct nsight_jsink *s, const struct report *r)
{
	nsight_report_time_json(s, r->a, r->o->clk);
}

static int latency_text(const struct report *r)
{
	nsight_report_latency_text(stdout, r->a);
	return 0;
}

static void latency_json(struct nsight_jsink *s, const struct report *r)
{
	nsight_report_latency_json(s, r->a);
}

/* --baseline: the two captures' latency side by side, in ns or readable units. */
static int baseline_table(const struct report *r, bool ns)
{
	if (r->x->b && nsight_tty_baseline_table(stdout, r->a, r->x->b, r->o->dx.baseline, ns)) {
		cli_nomem();
		return -1;
	}
	return 0;
}

static int baseline_text(const struct report *r)
{
	return baseline_table(r, true);
}

static int baseline_compact(const struct report *r)
{
	return baseline_table(r, false);
}

static int messages_text(const struct report *r)
{
	if (r->o->messages)
		nsight_report_messages_text(stdout, r->a, r->o->clk);
	return 0;
}

static void messages_json(struct nsight_jsink *s, const struct report *r)
{
	if (r->o->messages)
		nsight_report_messages_json(s, r->a, r->o->clk);
}

static int dx_text(const struct report *r)
{
	nsight_dx_report_text(stdout, r->dx, r->a);
	return 0;
}

static int dx_compact(const struct report *r)
{
	nsight_dx_report_tty(stdout, r->dx, r->a, r->t);
	return 0;
}

/* A section's builder adds to @t (0 when it did): its members go to @s. */
static void put_section(struct nsight_jsink *s, struct json_object *t, int built)
{
	if (built)
		*s->err = -1;
	nsight_jsink_put_members(s, t);
}

static void dx_json(struct nsight_jsink *s, const struct report *r)
{
	struct json_object *t = json_object_new_object();

	put_section(s, t, !t || nsight_dx_report_json(t, r->dx, r->a));
}

/*
 * A band and a baseline, after our diagnosis: both bands side by side
 * (band_report.h); --verbose adds the baseline's band's own diagnosis.
 */
static int band_text(const struct report *r)
{
	if (!r->x->bdx)
		return 0;
	if (nsight_band_report_text(stdout, r->x->adx, r->x->bdx, r->o->dx.baseline, r->t)) {
		cli_nomem();
		return -1;
	}
	return 0;
}

static int band_verbose(const struct report *r)
{
	if (!r->x->bdx || band_text(r))
		return r->x->bdx ? -1 : 0;
	printf("baseline %s, the same band against its own fastest 20%%:\n", r->o->dx.baseline);
	nsight_dx_report_tty(stdout, r->x->bdx, r->x->b, r->t);
	return 0;
}

/* "band_comparison", and "baseline_diagnosis": the baseline's band, with its file. */
static void band_json(struct nsight_jsink *s, const struct report *r)
{
	struct json_object *b, *t;
	int err = 0;

	if (!r->x->bdx)
		return;
	t = json_object_new_object();
	put_section(s, t, !t || nsight_band_report_json(t, r->x->adx, r->x->bdx, r->o->dx.baseline));
	b = json_object_new_object();
	if (!b || nsight_dx_report_json(b, r->x->bdx, r->x->b))
		err = -1;
	jo_add_str(b, "file", r->o->dx.baseline, &err);
	if (err) {
		json_object_put(b);
		b = NULL;
	}
	nsight_jsink_put(s, "baseline_diagnosis", b);
}

static int chains_text(const struct report *r)
{
	return nsight_chains_report_text(stdout, r->dx, r->a, r->t) ? -1 : 0;
}

static void chains_json(struct nsight_jsink *s, const struct report *r)
{
	nsight_chains_report_jsink(s, r->dx, r->a);
}

static int locks_text(const struct report *r)
{
	return nsight_locks_report_text(stdout, r->a, r->t) ? -1 : 0;
}

static void locks_json(struct nsight_jsink *s, const struct report *r)
{
	struct json_object *t = json_object_new_object();

	put_section(s, t, !t || nsight_locks_report_json(t, r->a));
}

static int requests_text(const struct report *r)
{
	return nsight_requests_report_text(stdout, r->a, r->o->dx.tail, r->t) ? -1 : 0;
}

static void requests_json(struct nsight_jsink *s, const struct report *r)
{
	struct json_object *t = json_object_new_object();

	put_section(s, t, !t || nsight_requests_report_json(t, r->a, r->o->dx.tail));
}

static int critpath_text(const struct report *r)
{
	return nsight_critpath_report_text(stdout, r->dx, r->a, r->t) ? -1 : 0;
}

static void critpath_json(struct nsight_jsink *s, const struct report *r)
{
	nsight_critpath_report_jsink(s, r->dx, r->a);
}

static int intervals_text(const struct report *r)
{
	if (r->x->iv)
		nsight_intervals_report_tty(stdout, r->x->iv, r->t);
	return 0;
}

static void intervals_json(struct nsight_jsink *s, const struct report *r)
{
	struct json_object *t;

	if (!r->x->iv)
		return;
	t = json_object_new_object();
	put_section(s, t, !t || nsight_intervals_report_json(t, r->x->iv));
}

static int whatif_text(const struct report *r)
{
	if (r->x->wi)
		nsight_whatif_report_tty(stdout, r->x->wi, r->x->n_wi, r->o->dx.min_dev, r->t);
	return 0;
}

static void whatif_json(struct nsight_jsink *s, const struct report *r)
{
	struct json_object *t;

	if (!r->x->wi)
		return;
	t = json_object_new_object();
	put_section(s, t, !t || nsight_whatif_report_json(t, r->x->wi, r->x->n_wi, r->o->dx.min_dev));
}

/* The report, in this order in each form. */
static const struct section sections[] = {
	/* full text        compact text       JSON */
	{ origin_text,      origin_text,       origin_json },	/* a trace-cmd capture */
	{ summary_text,     summary_compact,   summary_json },	/* stream, span, records, check */
	{ range_text,       range_text,        range_json },	/* --range */
	{ time_text,        NULL,              time_json },	/* time:, loss: (compact: in the summary) */
	{ latency_text,     NULL,              latency_json },	/* latency: (compact: in the summary) */
	{ baseline_text,    baseline_compact,  NULL },		/* --baseline's table */
	{ messages_text,    messages_text,     messages_json },	/* --messages */
	{ dx_text,          dx_compact,        dx_json },	/* the diagnosis */
	{ band_verbose,     band_text,         band_json },	/* --tail pA-pB --baseline */
	{ chains_text,      chains_text,       chains_json },
	{ locks_text,       locks_text,        locks_json },
	{ requests_text,    requests_text,     requests_json },	/* request marks */
	{ critpath_text,    critpath_text,     critpath_json },
	{ intervals_text,   intervals_text,    intervals_json },	/* --intervals */
	{ whatif_text,      whatif_text,       whatif_json },	/* --what-if */
};

#define N_SECTIONS (sizeof(sections) / sizeof(sections[0]))

/*
 * --json, written as it is built (json_out.h): the same bytes as the
 * whole tree printed at once, without holding the per-message sections.
 * A failure leaves the object unfinished on stdout (not valid JSON).
 */
static int json_report(const struct report *r)
{
	struct nsight_jstream js;
	int err = 0;
	struct nsight_jsink s = { NULL, &js, &err };

	nsight_js_init(&js, stdout);
	nsight_js_open(&js, NULL, false);
	for (size_t i = 0; i < N_SECTIONS && !err; i++)
		if (sections[i].json)
			sections[i].json(&s, r);
	if (err || js.err)
		return cli_nomem();
	nsight_js_close(&js);
	fputc('\n', stdout);
	return NSIGHT_EXIT_OK;
}

static int print_report(const struct nsight_analysis *a, const struct nsight_dx *dx,
			const struct extras *x, const char *name, const struct opts *o)
{
	struct report r = { a, dx, x, name, o, o->verbose ? &(struct nsight_tty){ 0 } : &o->tty };
	int ret = NSIGHT_EXIT_OK;

	if (o->json) {
		ret = json_report(&r);
	} else {
		for (size_t i = 0; i < N_SECTIONS; i++) {
			int (*text)(const struct report *) = o->verbose ? sections[i].text :
									 sections[i].compact;

			if (text && text(&r))
				ret = NSIGHT_EXIT_FAIL;
		}
	}
	if (o->strict && a->sum.n_problems)
		ret = NSIGHT_EXIT_FAIL;
	return ret;
}

/* The baseline capture, with the key table of the capture diagnosed. */
static int analyze_baseline(struct nsight_analysis *b, struct nsight_keys *keys, const struct opts *o)
{
	struct nsight_analysis_opts ao = { .params = o->params, .lifetimes = true, .keys = keys,
					   .threads = o->threads };
	struct nsight_progress pg;
	FILE *in;
	int ret;

	memset(b, 0, sizeof(*b));
	if (cli_open_input(o->dx.baseline, &in))
		return NSIGHT_EXIT_FAIL;
	ret = cli_read_capture(b, in, o->dx.baseline, &ao, &pg, o);
	if (in != stdin)
		fclose(in);
	return ret;
}

/* --html or --perfetto: write @what to @o. */
static int write_file(struct out_file *o, const char *what, const char *name,
		      const struct nsight_analysis *a, const struct nsight_dx *dx,
		      const struct nsight_analysis *b)
{
	bool html = !strcmp(what, "HTML report");
	struct nsight_diag d = { 0 };
	FILE *f = o->f;
	struct stat st;
	int err = 0;

	o->f = NULL;
	/* A regular file that was there: what it held goes now (not a device, a pipe). */
	if (!o->created && !fstat(fileno(f), &st) && S_ISREG(st.st_mode) && ftruncate(fileno(f), 0))
		err = nsight_diag_set(&d, NSIGHT_E_IO, "emptying it failed: %s", strerror(errno));
	if (!err)
		err = html ? nsight_html_report(f, name, a, dx, b, &d) :
			     nsight_perfetto_write(f, a, dx, &d);
	if (fclose(f) && !err)
		err = nsight_diag_set(&d, NSIGHT_E_IO, "closing it failed: %s", strerror(errno));
	if (err) {
		fprintf(stderr, "nsight-analyze: %s %s: %s\n", what, o->path, d.msg);
		return NSIGHT_EXIT_FAIL;
	}
	return NSIGHT_EXIT_OK;
}

/* --what-if: predict @a's latencies at each step, step i under the first i + 1 specs. */
static int what_if(struct nsight_whatif *wi, struct nsight_analysis *a,
		   const struct nsight_cats *cats, const char *name, const struct opts *o)
{
	struct nsight_diag d = { 0 };
	struct nsight_profiler prof;
	size_t i;
	int err;

	err = nsight_profiler_init(&prof, &a->tl, &a->cap, &a->tc, a->sum.hdr.tsc_hz, &d);
	if (!err)
		err = nsight_analysis_use_chains(&prof, a, &d);
	for (i = 0; !err && i < o->n_whatif; i++)
		err = nsight_whatif_run(&wi[i], o->whatif, i + 1, &a->lt, &prof, a->keys, cats,
					o->dx.min_dev, &d);
	nsight_profiler_fini(&prof);
	if (err)
		fprintf(stderr, "nsight-analyze: %s: what-if: %s\n", name, d.msg);
	return err ? NSIGHT_EXIT_FAIL : NSIGHT_EXIT_OK;
}

/*
 * The band of @x (@name) against the fastest 20% of @base, or of @x's own
 * when @base is NULL (the baseline).
 */
static int band_diagnose(struct nsight_dx *dx, struct nsight_analysis *x,
			 struct nsight_analysis *base, const struct nsight_cats *cats,
			 const char *name, const struct opts *o)
{
	struct nsight_dx_opts bo = o->dx;
	struct nsight_diag d = { 0 };

	if (!base)
		bo.baseline = NULL;
	bo.slice = false;
	bo.ref_lo = 0;
	bo.ref_hi = 20000;
	if (nsight_analysis_diagnose(dx, x, base, cats, &bo, &d)) {
		fprintf(stderr, "nsight-analyze: %s: %s\n", name, d.msg);
		return NSIGHT_EXIT_FAIL;
	}
	return NSIGHT_EXIT_OK;
}

static int report(FILE *in, const char *name, const struct opts *o)
{
	struct nsight_analysis_opts ao = { .params = o->params, .lifetimes = true,
					   .range = o->range, .range_from_ns = o->range_from_ns,
					   .range_to_ns = o->range_to_ns, .threads = o->threads };
	struct nsight_progress pg;
	struct nsight_analysis a, b;
	struct nsight_diag d = { 0 };
	struct nsight_intervals iv = { 0 };
	struct nsight_whatif wi[NSIGHT_WI_MAX_SPECS] = { 0 };
	struct nsight_cats cats;
	struct nsight_dx dx, adx, bdx;
	bool have_b = false, have_bdx = false;
	int ret;

	memset(&dx, 0, sizeof(dx));
	memset(&adx, 0, sizeof(adx));
	memset(&bdx, 0, sizeof(bdx));
	if (cli_load_categories(&cats, o)) {
		nsight_cats_fini(&cats);
		return NSIGHT_EXIT_FAIL;
	}
	ret = cli_read_capture(&a, in, name, &ao, &pg, o);
	if (ret)
		goto out;
	if (o->dx.baseline) {
		have_b = true;
		ret = analyze_baseline(&b, a.keys, o);
		if (ret)
			goto out;
	}
	nsight_progress_pass(&pg, "diagnosis");
	ret = nsight_analysis_diagnose(&dx, &a, have_b ? &b : NULL, &cats, &o->dx, &d);
	nsight_progress_end(&pg);
	if (ret) {
		fprintf(stderr, "nsight-analyze: %s: %s\n", name, d.msg);
		ret = NSIGHT_EXIT_FAIL;
		goto out;
	}
	/* A band and a baseline: each capture's band against the baseline's fastest 20% too. */
	if (have_b && o->dx.tail_hi < 100000) {
		ret = band_diagnose(&adx, &a, &b, &cats, name, o);
		if (!ret)
			ret = band_diagnose(&bdx, &b, NULL, &cats, o->dx.baseline, o);
		if (ret)
			goto out;
		have_bdx = true;
	}
	if (o->intervals &&
	    nsight_intervals_build(&iv, &a.tl, &a.lt, a.tc.tsc_hz ? a.tc.tsc_hz : a.sum.hdr.tsc_hz,
				   &d)) {
		fprintf(stderr, "nsight-analyze: %s: intervals: %s\n", name, d.msg);
		ret = NSIGHT_EXIT_FAIL;
		goto out;
	}
	if (o->n_whatif && what_if(wi, &a, &cats, name, o)) {
		ret = NSIGHT_EXIT_FAIL;
		goto out;
	}
	ret = print_report(&a, &dx, &(struct extras){ o->intervals ? &iv : NULL,
						     o->n_whatif ? wi : NULL, o->n_whatif,
						     have_b ? &b : NULL,
						     have_bdx ? &adx : NULL,
						     have_bdx ? &bdx : NULL }, name, o);
	if (a.sum.triggers && !o->whole)
		fprintf(stderr, "nsight-analyze: %s: a flight recorder's capture with %" PRIu64
			" trigger windows, analysed as one; --triggers analyses each\n", name,
			a.sum.triggers);
	if (!ret && o->html)
		ret = write_file(o->html_out, "HTML report", name, &a, &dx, have_b ? &b : NULL);
	if (!ret && o->perfetto)
		ret = write_file(o->perfetto_out, "Perfetto trace", name, &a, &dx, NULL);
out:
	for (size_t i = 0; i < NSIGHT_WI_MAX_SPECS; i++)
		nsight_whatif_fini(&wi[i]);
	nsight_intervals_fini(&iv);
	nsight_dx_fini(&dx);
	nsight_dx_fini(&adx);
	nsight_dx_fini(&bdx);
	if (have_b)
		nsight_analysis_fini(&b);	/* before a: it uses a's keys */
	nsight_analysis_fini(&a);
	nsight_cats_fini(&cats);
	return cli_finish_stdout(ret);
}


/*
 * The memory the analysis may take before the report streams (--stream
 * auto): --memory, or half of what /proc/meminfo says is available; 0 if
 * unknown.
 */
static uint64_t memory_budget(const struct opts *o)
{
	unsigned long long kb = 0;
	char line[128];
	FILE *f;

	if (o->memory)
		return o->memory;
	f = fopen("/proc/meminfo", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb * 1024 / 2;
}

/*
 * Whether the report of @in streams, and why in @why: always with
 * --stream always; with auto (the default) when @in is a file whose
 * analysis in memory, about twice its size (nsight.rst, Benchmarks,
 * Analyzer), would pass the budget, and nothing asked needs the whole
 * capture at once.
 */
static bool stream_it(FILE *in, const struct opts *o, bool whole_only, char *why, size_t len)
{
	uint64_t budget, need;
	struct stat st;
	char b1[32], b2[32], b3[32];
	int fd = fileno(in);

	why[0] = 0;
	if (o->stream != CLI_STREAM_AUTO)
		return o->stream == CLI_STREAM_ALWAYS;
	if (whole_only || o->range || o->messages || o->whole || in == stdin || fd < 0 ||
	    fstat(fd, &st) || !S_ISREG(st.st_mode))
		return false;
	budget = memory_budget(o);
	need = (uint64_t)st.st_size * 2;
	if (!budget || need <= budget)
		return false;
	snprintf(why, len, "the capture is %s, about %s at once, over the budget of %s (--memory)",
		 nsight_tty_bytes((uint64_t)st.st_size, b1, sizeof(b1)),
		 nsight_tty_bytes(need, b2, sizeof(b2)), nsight_tty_bytes(budget, b3, sizeof(b3)));
	return true;
}

int cmd_report(struct opts *o, int argc, char **argv)
{
	char why[200];
	struct out_file html_out = { 0 }, perfetto_out = { 0 };
	const char *name;
	bool whole_only;
	FILE *in;
	int ret = cli_check_capture(o, argc, argv, &name);

	if (ret != CLI_GO)
		return ret;
	if (o->html && o->perfetto && !strcmp(o->html, o->perfetto))
		return cli_usage_error(o, "--html and --perfetto name the same file '%s'", o->html);
	if ((o->html && !strcmp(o->html, name)) || (o->perfetto && !strcmp(o->perfetto, name)))
		return cli_usage_error(o, "a report would overwrite the capture '%s'", name);

	/* The reports' files first: a path that cannot be written fails now, not after the analysis. */
	if ((o->html && cli_out_open(o->html_out = &html_out, o->html)) ||
	    (o->perfetto && cli_out_open(o->perfetto_out = &perfetto_out, o->perfetto))) {
		cli_out_abandon(&html_out);
		return NSIGHT_EXIT_FAIL;
	}
	if (cli_open_input(name, &in)) {
		cli_out_abandon(&html_out);
		cli_out_abandon(&perfetto_out);
		return NSIGHT_EXIT_FAIL;
	}
	/* A flight recorder's capture in a file: its windows, unless told otherwise. */
	whole_only = o->dx.baseline || o->html || o->perfetto || o->intervals || o->n_whatif;
	if (!o->whole && !whole_only && in != stdin &&
	    nsight_stream_has_chunk(in, NSIGHT_CHUNK_TRIGGER) == 1) {
		o->triggers = true;
		ret = cmd_window_run(in, name, o, false, NULL);
	} else if (stream_it(in, o, whole_only, why, sizeof(why))) {
		ret = cmd_window_run(in, name, o, true, why[0] ? why : NULL);
	} else {
		ret = report(in, name, o);
	}
	if (in != stdin)
		fclose(in);
	/* Files whose report was not written (the run failed first). */
	cli_out_abandon(&html_out);
	cli_out_abandon(&perfetto_out);
	return ret;
}
