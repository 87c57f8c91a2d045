// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the whole of nsight-analyze on one stream. The
 * analysis (nsight_analysis_run: summary, time conversion, lifetimes,
 * latency, timelines, samples, Intel PT evidence), the diagnosis with the
 * built-in categories, and the reports it prints or writes (text, terminal
 * summary, JSON, Perfetto trace, HTML), to /dev/null.
 *
 * The input is a stream as nsightctl dump writes it (see fuzz_common.h for
 * the framing repair). Bits 24-31 of the stream header's sources field,
 * which no source uses, choose options, so that they are fuzzed too:
 *   24 --time-params first      28 --baseline: the capture itself
 *   25 --slice p20-p40          29 --clock monotonic, --messages
 *   26 --tail p50 --min-dev 0   30 --html
 *   27 --nested-threshold 0     31 --json (else the text and the summary)
 */
#include <json-c/json.h>

#include "pipeline/analysis.h"
#include "analyze/chains_report.h"
#include "analyze/critpath_report.h"
#include "analyze/dx_report.h"
#include "fuzz_common.h"
#include "analyze/html_report.h"
#include "analyze/perfetto.h"
#include "analyze/print.h"
#include "analyze/report.h"
#include "analyze/terminal.h"

#define OPT(bit)	(1U << (bit))

static struct nsight_cats cats;

FUZZ_INITIALIZE_CATS(cats)

static void reports(const struct nsight_analysis *a, const struct nsight_dx *dx,
		    const struct nsight_analysis *b, uint32_t opt)
{
	enum nsight_clockid clk = opt & OPT(29) ? NSIGHT_CLOCK_MONOTONIC : NSIGHT_CLOCK_REALTIME;
	struct nsight_tty tty = { .color = true, .width = NSIGHT_TTY_WIDTH };
	struct nsight_diag d = { 0 };
	FILE *f = fuzz_null();

	if (opt & OPT(31)) {
		struct json_object *j = nsight_summary_to_json("fuzz", &a->sum);

		if (j && !nsight_report_add_json(j, a, clk, opt & OPT(29)) &&
		    !nsight_dx_report_json(j, dx, a) && !nsight_chains_report_json(j, dx, a) &&
		    !nsight_critpath_report_json(j, dx, a))
			fputs(json_object_to_json_string(j), f);
		json_object_put(j);
	} else {
		nsight_summary_print_text(f, "fuzz", &a->sum);
		nsight_report_time_text(f, a, clk);
		nsight_report_phc_text(f, a);
		nsight_report_latency_text(f, a);
		if (opt & OPT(29))
			nsight_report_messages_text(f, a, clk);
		nsight_dx_report_text(f, dx, a);
		nsight_chains_report_text(f, dx, a, &(struct nsight_tty){ 0 });
		nsight_critpath_report_text(f, dx, a, &(struct nsight_tty){ 0 });
		nsight_tty_summary(f, "fuzz", a, clk, &tty);
		nsight_dx_report_tty(f, dx, a, &tty);
		nsight_chains_report_text(f, dx, a, &tty);
		nsight_critpath_report_text(f, dx, a, &tty);
	}
	nsight_perfetto_write(f, a, dx, &d);
	if (opt & OPT(30))
		nsight_html_report(f, "fuzz", a, dx, b, &d);
}

static void one(const uint8_t *data, size_t size)
{
	struct nsight_analysis_opts ao = { .lifetimes = true };
	uint32_t opt = fuzz_options_of(data, size);
	struct nsight_analysis a, b;
	struct nsight_diag d = { 0 };
	struct nsight_dx_opts o;
	struct nsight_dx dx;
	bool have_b = false;
	FILE *f;
	int err;

	f = fuzz_file(data, size);
	if (!f)
		return;
	if (opt & OPT(24))
		ao.params = NSIGHT_TC_FIRST;
	nsight_dx_opts_default(&o);
	if (opt & OPT(25)) {
		o.slice = true;
		o.ref_lo = 20000;
		o.ref_hi = 40000;
	}
	if (opt & OPT(26)) {
		o.tail = 50000;
		o.tail_hi = opt & OPT(25) ? 75000 : 100000;	/* a band */
		o.min_dev = 0;
	}
	if (opt & OPT(27))
		o.nested = 0;
	memset(&dx, 0, sizeof(dx));
	err = nsight_analysis_run(&a, f, &ao, &d);
	fclose(f);
	if (!err && (opt & OPT(28))) {
		struct nsight_analysis_opts bo = ao;

		bo.keys = a.keys;
		f = fuzz_file(data, size);
		if (!f)
			abort();
		have_b = true;
		o.baseline = "fuzz";
		err = nsight_analysis_run(&b, f, &bo, &d);
		fclose(f);
	}
	if (!err)
		err = nsight_analysis_diagnose(&dx, &a, have_b ? &b : NULL, &cats, &o, &d);
	if (!err)
		reports(&a, &dx, have_b ? &b : NULL, opt);
	nsight_dx_fini(&dx);
	if (have_b)
		nsight_analysis_fini(&b);	/* before a: it uses a's keys */
	nsight_analysis_fini(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_run_stream(data, size, one);
}
