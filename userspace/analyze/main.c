// SPDX-License-Identifier: MIT
/* nsight-analyze: validate, summarise and diagnose an nsight dump stream. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipeline/analysis.h"
#include "diagnose/categories_builtin.h"
#include "chains_report.h"
#include "critpath_report.h"
#include "dx_report.h"
#include "html_report.h"
#include "intervals_report.h"
#include "json_out.h"
#include "merge_report.h"
#include "whatif_report.h"
#include "window_report.h"
#include "perfetto.h"
#include "print.h"
#include "progress.h"
#include "report.h"
#include "format/stream.h"
#include "pipeline/summary.h"
#include "capture/timecheck.h"
#include "base/version.h"
#include "base/zstdio.h"

struct opts {
	bool json, strict, messages, verbose;
	struct nsight_tty tty;		/* the compact text's colour */
	enum nsight_clockid clk;
	enum nsight_tc_params params;
	const char *pairs;		/* --time-check */
	struct nsight_dx_opts dx;	/* the diagnosis */
	const char *categories;		/* --categories */
	const char *html;		/* --html FILE */
	const char *perfetto;		/* --perfetto FILE */
	struct out_file *html_out, *perfetto_out;	/* opened before the analysis */
	bool diag_opts;			/* any diagnosis option given */
	bool intervals;			/* --intervals */
	struct nsight_wi_spec whatif[NSIGHT_WI_MAX_SPECS];	/* --what-if, in order */
	size_t n_whatif;
	bool merge;			/* --merge CLIENT SERVER */
	long long synced_ns;		/* --synced NS, -1 if not given */
	uint64_t window_ns;		/* --window, 0 if not given */
	bool range;			/* --range FROM:TO */
	uint64_t range_from_ns, range_to_ns;
	bool triggers;			/* --triggers */
	bool whole;			/* --whole */
	unsigned int threads;		/* --threads, or 2 with two CPUs online */
	FILE *progress;			/* stderr if a terminal, else NULL */
};

/*
 * A file a report goes to, opened before the analysis so that a path that
 * cannot be written fails at once, and emptied only when the report is
 * written: a run that fails leaves a file that was there as it was, and
 * removes one it created.
 */
struct out_file {
	const char *path;
	FILE *f;
	bool created;
};

/* What the options add to the report; NULL when not asked for. */
struct extras {
	const struct nsight_intervals *iv;
	const struct nsight_whatif *wi;		/* n_wi steps */
	size_t n_wi;
	const struct nsight_analysis *b;	/* --baseline */
	const struct nsight_dx *bdx;		/* a band: the baseline's own */
};

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
	OPT_THREADS,
};

/* One screen; the rest is in nsight-analyze(1). */
static void usage(FILE *f)
{
	fputs("Usage: nsight-analyze [OPTIONS] [FILE|-]\n"
	      "       nsight-analyze --window DURATION|--triggers [OPTIONS] [FILE|-]\n"
	      "       nsight-analyze --time-check PAIRS [--strict] [--json] [FILE|-]\n"
	      "       nsight-analyze --merge [--json] [--tail pN] [--synced NS] CLIENT SERVER\n"
	      "\n"
	      "Check a capture of 'nsightctl dump' or 'record' (FILE, or stdin; zstd or not),\n"
	      "print its latency per application and direction and why the tail was slow.\n"
	      "\n"
	      "  -j, --json              one JSON object instead of the text\n"
	      "  -v, --verbose           the full text (default: a summary in 100 columns)\n"
	      "  -m, --messages          also list every message\n"
	      "  -s, --strict            exit 1 if the check finds problems\n"
	      "      --html FILE         also write an HTML report with plots\n"
	      "      --perfetto FILE     also write a trace for ui.perfetto.dev\n"
	      "      --baseline FILE     compare with another capture, the reference from it\n"
	      "      --tail pN           messages at or above pN (default p90); pA-pB: a band\n"
	      "      --window DURATION   a line per window DURATION wide (e.g. 100ms)\n"
	      "      --what-if SPEC      latencies predicted without a cause ('remove:CAUSE'),\n"
	      "                          repeated: causes removed one after another\n"
	      "  -h, --help              this help (-V, --version: the version)\n"
	      "\n"
	      "More options (--intervals, --slice, --min-dev, --categories, --clock, --color,\n"
	      "--whole, ...), what the report means and examples: see nsight-analyze(1).\n"
	      "Exit status: 0 ok, 1 error (or problems with --strict), 2 usage error.\n", f);
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "nsight-analyze: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'nsight-analyze --help'.\n");
	return NSIGHT_EXIT_USAGE;
}

static int nomem(void)
{
	fprintf(stderr, "nsight-analyze: out of memory\n");
	return NSIGHT_EXIT_FAIL;
}

static int put_json(struct json_object *o)
{
	if (!o)
		return nomem();
	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
					     JSON_C_TO_STRING_NOSLASHESCAPE), stdout);
	fputc('\n', stdout);
	json_object_put(o);
	return NSIGHT_EXIT_OK;
}

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
		nomem();
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

/* A band and a baseline: the baseline's band against its own reference, after ours. */
static int band_text(const struct report *r)
{
	if (!r->x->bdx)
		return 0;
	printf("baseline %s, the same band against its own fastest 20%%:\n", r->o->dx.baseline);
	nsight_dx_report_tty(stdout, r->x->bdx, r->x->b, r->t);
	return 0;
}

/* "baseline_diagnosis": the same, with the baseline's file. */
static void band_json(struct nsight_jsink *s, const struct report *r)
{
	struct json_object *b;
	int err = 0;

	if (!r->x->bdx)
		return;
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
	{ summary_text,     summary_compact,   summary_json },	/* stream, span, records, check */
	{ range_text,       range_text,        range_json },	/* --range */
	{ time_text,        NULL,              time_json },	/* time:, loss: (compact: in the summary) */
	{ latency_text,     NULL,              latency_json },	/* latency: (compact: in the summary) */
	{ baseline_text,    baseline_compact,  NULL },		/* --baseline's table */
	{ messages_text,    messages_text,     messages_json },	/* --messages */
	{ dx_text,          dx_compact,        dx_json },	/* the diagnosis */
	{ band_text,        band_text,         band_json },	/* --tail pA-pB --baseline */
	{ chains_text,      chains_text,       chains_json },
	{ locks_text,       locks_text,        locks_json },
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
		return nomem();
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

/* The user's rules first, then the built-in ones. */
static int load_categories(struct nsight_cats *cats, const struct opts *o)
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

/* A stream from a file or stdin ("-"), read decompressed if it is zstd. */
static int open_input(const char *name, FILE **in)
{
	FILE *f = stdin;

	if (strcmp(name, "-")) {
		f = fopen(name, "rb");
		if (!f) {
			fprintf(stderr, "nsight-analyze: %s: %s\n", name, strerror(errno));
			return NSIGHT_EXIT_FAIL;
		}
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

/* The baseline capture, with the key table of the capture diagnosed. */
static int analyze_baseline(struct nsight_analysis *b, struct nsight_keys *keys, const struct opts *o)
{
	struct nsight_analysis_opts ao = { .params = o->params, .lifetimes = true, .keys = keys,
					   .threads = o->threads };
	struct nsight_progress pg;
	struct nsight_diag d = { 0 };
	FILE *in;
	int err;

	memset(b, 0, sizeof(*b));
	if (open_input(o->dx.baseline, &in))
		return NSIGHT_EXIT_FAIL;
	nsight_progress_init(&pg, o->progress, o->dx.baseline);
	ao.progress = &pg.hooks;
	err = nsight_analysis_run(b, in, &ao, &d);
	nsight_progress_end(&pg);
	if (in != stdin)
		fclose(in);
	if (err) {
		fprintf(stderr, "nsight-analyze: %s: %s\n", o->dx.baseline, d.msg);
		return NSIGHT_EXIT_FAIL;
	}
	nsight_summary_warn_cut(&b->sum, o->dx.baseline);
	return NSIGHT_EXIT_OK;
}

static int out_open(struct out_file *o, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);

	o->path = path;
	o->created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = open(path, O_WRONLY | O_CLOEXEC);
	o->f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!o->f) {
		fprintf(stderr, "nsight-analyze: cannot create %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		if (o->created)
			unlink(path);
		o->created = false;
		return NSIGHT_EXIT_FAIL;
	}
	return NSIGHT_EXIT_OK;
}

/* Without its report: closed, and removed if this run created it. */
static void out_abandon(struct out_file *o)
{
	if (!o->f)
		return;
	fclose(o->f);
	o->f = NULL;
	if (o->created)
		unlink(o->path);
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

static int analyze(FILE *in, const char *name, const struct opts *o)
{
	struct nsight_analysis_opts ao = { .params = o->params, .lifetimes = !o->pairs,
					   .range = o->range, .range_from_ns = o->range_from_ns,
					   .range_to_ns = o->range_to_ns, .threads = o->threads };
	struct nsight_progress pg;
	struct nsight_analysis a, b;
	struct nsight_diag d = { 0 };
	struct nsight_intervals iv = { 0 };
	struct nsight_whatif wi[NSIGHT_WI_MAX_SPECS] = { 0 };
	struct nsight_cats cats;
	struct nsight_dx dx, bdx;
	bool have_b = false, have_bdx = false;
	int ret;

	memset(&dx, 0, sizeof(dx));
	memset(&bdx, 0, sizeof(bdx));
	if (!o->pairs && load_categories(&cats, o)) {
		nsight_cats_fini(&cats);
		return NSIGHT_EXIT_FAIL;
	}
	nsight_progress_init(&pg, o->progress, name);
	ao.progress = &pg.hooks;
	ret = nsight_analysis_run(&a, in, &ao, &d);
	nsight_progress_end(&pg);
	if (ret) {
		fprintf(stderr, "nsight-analyze: %s: %s\n", name, d.msg);
		ret = NSIGHT_EXIT_FAIL;
		goto out;
	}
	nsight_summary_warn_cut(&a.sum, name);
	if (o->pairs) {
		ret = time_check(&a, name, o);
		goto out;
	}
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
	/* A band and a baseline: the baseline's band against its own fastest 20% too. */
	if (have_b && o->dx.tail_hi < 100000) {
		struct nsight_dx_opts bo = o->dx;

		bo.baseline = NULL;
		bo.slice = false;
		bo.ref_lo = 0;
		bo.ref_hi = 20000;
		ret = nsight_analysis_diagnose(&bdx, &b, NULL, &cats, &bo, &d);
		if (ret) {
			fprintf(stderr, "nsight-analyze: %s: %s\n", o->dx.baseline, d.msg);
			ret = NSIGHT_EXIT_FAIL;
			goto out;
		}
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
	nsight_dx_fini(&bdx);
	if (have_b)
		nsight_analysis_fini(&b);	/* before a: it uses a's keys */
	nsight_analysis_fini(&a);
	if (!o->pairs)
		nsight_cats_fini(&cats);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "nsight-analyze: writing to stdout failed: %s\n", strerror(errno));
		ret = NSIGHT_EXIT_FAIL;
	}
	return ret;
}

/* --window: the capture one time window at a time. */
static int windows(FILE *in, const char *name, const struct opts *o)
{
	struct nsight_window_report_opts wo = {
		.width_ns = o->window_ns, .json = o->json, .verbose = o->verbose,
		.strict = o->strict, .messages = o->messages, .tty = o->tty, .clk = o->clk,
		.params = o->params,
		.dx = &o->dx,
	};
	struct nsight_cats cats;
	int ret = load_categories(&cats, o);

	wo.cats = &cats;
	if (!ret)
		ret = nsight_window_report(in, name, &wo);
	nsight_cats_fini(&cats);
	return ret;
}

/*
 * A capture named "-" while stdin is a terminal: nobody piped one in, and
 * reading would wait for keys. Says what to do; true then (a usage error).
 */
static bool stdin_is_terminal(const char *name)
{
	if (strcmp(name, "-") || !isatty(STDIN_FILENO))
		return false;
	fprintf(stderr, "nsight-analyze: reading a capture from stdin, which is a terminal; "
		"pipe 'nsightctl dump' into it or name a file (see --help)\n");
	return true;
}

/* --merge CLIENT SERVER: only --json, --verbose, --tail and --time-params go with it. */
static int merge(int n, char **files, const struct opts *o)
{
	struct nsight_merge_report_opts mo = { .params = o->params, .tail = o->dx.tail,
					       .json = o->json, .verbose = o->verbose,
					       .synced = o->synced_ns >= 0, .synced_ns = o->synced_ns };

	if (n != 2)
		return usage_error("%s", "--merge takes two captures: CLIENT SERVER");
	if (o->pairs || o->html || o->perfetto || o->intervals || o->n_whatif || o->messages ||
	    o->strict || o->dx.baseline || o->categories || o->window_ns)
		return usage_error("%s", "--merge goes only with --json, --verbose, --tail, --synced and --time-params");
	if (!strcmp(files[0], "-") && !strcmp(files[1], "-"))
		return usage_error("%s", "the two captures cannot both be stdin");
	if (stdin_is_terminal(files[0]) || stdin_is_terminal(files[1]))
		return NSIGHT_EXIT_USAGE;
	return nsight_merge_main(files[0], files[1], &mo);
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

int main(int argc, char **argv)
{
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
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .clk = NSIGHT_CLOCK_REALTIME, .params = NSIGHT_TC_IN_FORCE, .synced_ns = -1,
			  .tty = { .width = NSIGHT_TTY_WIDTH } };
	struct out_file html_out = { 0 }, perfetto_out = { 0 };
	bool color_set = false, whole_only;

	o.progress = nsight_progress_tty();
	const char *name = "-", *end;
	FILE *in = stdin;
	int c, ret;

	nsight_dx_opts_default(&o.dx);
	/* The analysis has two sides to run at once (analysis_thread.h). */
	o.threads = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jsmvc:t:p:hV", lopts, NULL)) != -1) {
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
		case OPT_SLICE:
			if (parse_slice(optarg, &o.dx))
				return usage_error("bad slice '%s' (pA-pB, 0 <= A < B <= 100, e.g. p20-p30)",
						   optarg);
			o.diag_opts = true;
			break;
		case OPT_BASELINE:
			o.dx.baseline = optarg;
			o.diag_opts = true;
			break;
		case OPT_TAIL:
			if (parse_tail(optarg, &o.dx))
				return usage_error("bad tail '%s' (pN or a band pA-pB, 0 <= A < B <= 100, e.g. p99 or p20-p30)",
						   optarg);
			o.diag_opts = true;
			break;
		case OPT_MIN_DEV: {
			char *e;
			long long v;

			errno = 0;
			v = strtoll(optarg, &e, 10);
			if (errno || e == optarg || *e || v < 0)
				return usage_error("bad --min-dev '%s' (ns, 0 or more)", optarg);
			o.dx.min_dev = v;
			o.diag_opts = true;
			break;
		}
		case OPT_NESTED:
			if (parse_pct(optarg, false, &o.dx.nested, &end) || (*end && strcmp(end, "%")))
				return usage_error("bad --nested-threshold '%s' (a percentage, 0 to 100)",
						   optarg);
			o.diag_opts = true;
			break;
		case OPT_CATEGORIES:
			o.categories = optarg;
			o.diag_opts = true;
			break;
		case OPT_HTML:
			o.html = optarg;
			break;
		case 'v':
			o.verbose = true;
			break;
		case OPT_COLOR:
			if (!strcmp(optarg, "always"))
				o.tty.color = true;
			else if (!strcmp(optarg, "never"))
				o.tty.color = false;
			else if (!strcmp(optarg, "auto"))
				o.tty.color = nsight_tty_auto_color();
			else
				return usage_error("bad --color '%s' (auto, always or never)", optarg);
			color_set = true;
			break;
		case OPT_PERFETTO:
			o.perfetto = optarg;
			break;
		case OPT_INTERVALS:
			o.intervals = true;
			break;
		case OPT_WHATIF: {
			struct nsight_diag d = { 0 };

			if (o.n_whatif == NSIGHT_WI_MAX_SPECS)
				return usage_error("%s", "more than 8 --what-if (they stack, in order)");
			if (nsight_whatif_parse(&o.whatif[o.n_whatif], optarg, &d))
				return usage_error("bad --what-if %s", d.msg);
			o.n_whatif++;
			break;
		}
		case OPT_MERGE:
			o.merge = true;
			break;
		case OPT_SYNCED: {
			char *e;

			errno = 0;
			o.synced_ns = strtoll(optarg, &e, 10);
			if (errno || e == optarg || *e || o.synced_ns < 0)
				return usage_error("bad --synced '%s' (ns, 0 or more)", optarg);
			break;
		}
		case OPT_WINDOW:
			if (parse_duration(optarg, &o.window_ns) || !o.window_ns)
				return usage_error("bad --window '%s' (a duration with a unit: ns, us, ms or s, e.g. 100ms)",
						   optarg);
			break;
		case OPT_RANGE:
			if (parse_range(optarg, &o))
				return usage_error("bad --range '%s' (FROM:TO after the first record, durations with a unit, FROM < TO, e.g. 30s:31s)",
						   optarg);
			break;
		case OPT_TRIGGERS:
			o.triggers = true;
			break;
		case OPT_WHOLE:
			o.whole = true;
			break;
		case OPT_THREADS: {
			char *e;
			unsigned long v;

			errno = 0;
			v = strtoul(optarg, &e, 10);
			if (errno || e == optarg || *e || !v || v > 1024 || optarg[0] == '-')
				return usage_error("bad --threads '%s' (1 to 1024)", optarg);
			o.threads = (unsigned int)v;
			break;
		}
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
	if (o.merge && o.range)
		return usage_error("%s", "--range does not go with --merge");
	if (o.range && (o.window_ns || o.triggers || o.pairs))
		return usage_error("%s", "--range does not go with --window, --triggers or --time-check");
	if (o.merge && o.dx.tail_hi < 100000)
		return usage_error("%s", "--merge takes a tail pN, not a band");
	if (o.merge)
		return merge(argc - optind, argv + optind, &o);
	/*
	 * A band against a baseline (--tail in nsight.rst): the reference is the
	 * same band of the baseline unless --slice says otherwise.
	 */
	if (o.dx.tail_hi < 100000 && o.dx.baseline && !o.dx.slice) {
		o.dx.ref_lo = o.dx.tail;
		o.dx.ref_hi = o.dx.tail_hi;
		o.dx.slice = true;
	}
	if (o.synced_ns >= 0)
		return usage_error("%s", "--synced goes with --merge");
	if (argc - optind > 1)
		return usage_error("more than one input ('%s')", argv[optind + 1]);
	if (!color_set)
		o.tty.color = nsight_tty_auto_color();
	if (o.pairs && o.messages)
		return usage_error("%s", "--messages does not go with --time-check");
	if (o.pairs && (o.html || o.perfetto))
		return usage_error("%s", "--html and --perfetto do not go with --time-check");
	if ((o.html && !strcmp(o.html, "-")) || (o.perfetto && !strcmp(o.perfetto, "-")))
		return usage_error("%s", "--html and --perfetto write to a file, not to stdout");
	if (o.pairs && (o.intervals || o.n_whatif))
		return usage_error("%s", "--intervals and --what-if do not go with --time-check");
	if (o.pairs && o.diag_opts)
		return usage_error("%s", "diagnosis options do not go with --time-check");
	if (optind < argc)
		name = argv[optind];
	if (o.dx.baseline && !strcmp(o.dx.baseline, "-") && !strcmp(name, "-"))
		return usage_error("%s", "the capture and the baseline cannot both be stdin");
	/* What needs the whole capture at once, which windows cannot give. */
	whole_only = o.dx.baseline || o.html || o.perfetto || o.intervals || o.n_whatif || o.pairs;
	if (o.window_ns && whole_only)
		return usage_error("%s", "--window does not go with --baseline, --html, --perfetto, --intervals, --what-if or --time-check");
	if (o.triggers && (o.window_ns || o.whole || whole_only))
		return usage_error("%s", "--triggers does not go with --window, --whole, --baseline, --html, --perfetto, --intervals, --what-if or --time-check");

	if (stdin_is_terminal(name) || (o.dx.baseline && stdin_is_terminal(o.dx.baseline)))
		return NSIGHT_EXIT_USAGE;

	if (o.html && o.perfetto && !strcmp(o.html, o.perfetto))
		return usage_error("--html and --perfetto name the same file '%s'", o.html);
	if ((o.html && !strcmp(o.html, name)) || (o.perfetto && !strcmp(o.perfetto, name)))
		return usage_error("a report would overwrite the capture '%s'", name);

	/* The reports' files first: a path that cannot be written fails now, not after the analysis. */
	if ((o.html && out_open(o.html_out = &html_out, o.html)) ||
	    (o.perfetto && out_open(o.perfetto_out = &perfetto_out, o.perfetto))) {
		out_abandon(&html_out);
		return NSIGHT_EXIT_FAIL;
	}
	if (open_input(name, &in)) {
		out_abandon(&html_out);
		out_abandon(&perfetto_out);
		return NSIGHT_EXIT_FAIL;
	}
	/* A flight recorder's capture in a file: its windows, unless told otherwise. */
	if (!o.triggers && !o.whole && !o.window_ns && !whole_only && in != stdin &&
	    nsight_stream_has_chunk(in, NSIGHT_CHUNK_TRIGGER) == 1)
		o.triggers = true;
	ret = o.window_ns || o.triggers ? windows(in, name, &o) : analyze(in, name, &o);
	if (in != stdin)
		fclose(in);
	/* Files whose report was not written (the run failed first). */
	out_abandon(&html_out);
	out_abandon(&perfetto_out);
	return ret;
}
