// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: nsight-analyze --window on one stream. The first pass
 * (summary and chunk index), then up to 64 windows, each read back from
 * the chunks, analysed, diagnosed and reported (JSON, or the text and the
 * terminal summary) to /dev/null; with time windows (and 64 at most), the
 * whole capture's diagnosis from them (--whole-diagnosis, window_dx.h),
 * reported too.
 *
 * The input is a stream as nsightctl dump writes it (see fuzz_common.h for
 * the framing repair). Bits 24-31 of the stream header's sources field,
 * which no source uses, choose the options: 24-28 the width, 1 us << N
 * (31: windows of about 1,000 records, as report --stream cuts them);
 * 29 --messages; 30 the flight recorder's windows (--triggers); 31 --json.
 * Time windows are then read again with the lifetimes alone, as a
 * streamed report's first pass reads them.
 */
#include <json-c/json.h>

#include "analyze/chains_report.h"
#include "analyze/critpath_report.h"
#include "analyze/dx_report.h"
#include "fuzz_common.h"
#include "analyze/print.h"
#include "analyze/report.h"
#include "analyze/terminal.h"
#include "pipeline/window.h"
#include "pipeline/window_dx.h"

#define OPT(bit)	(1U << (bit))
#define MAX_WINDOWS	64

static struct nsight_cats cats;

FUZZ_INITIALIZE_CATS(cats)

static void report(const struct nsight_analysis *a, const struct nsight_dx *dx, uint32_t opt)
{
	struct nsight_tty tty = { .color = true, .width = NSIGHT_TTY_WIDTH };
	FILE *f = fuzz_null();

	if (opt & OPT(31)) {
		struct json_object *j = json_object_new_object();

		if (j && !nsight_report_add_json(j, a, NSIGHT_CLOCK_REALTIME, opt & OPT(29)) &&
		    !nsight_dx_report_json(j, dx, a) && !nsight_chains_report_json(j, dx, a) &&
		    !nsight_critpath_report_json(j, dx, a))
			fputs(json_object_to_json_string(j), f);
		json_object_put(j);
	} else {
		nsight_tty_latency(f, a, &tty);
		if (opt & OPT(29))
			nsight_report_messages_text(f, a, NSIGHT_CLOCK_REALTIME);
		nsight_dx_report_tty(f, dx, a, &tty);
		nsight_chains_report_text(f, dx, a, &tty);
		nsight_critpath_report_text(f, dx, a, &tty);
	}
}

static void one(const uint8_t *data, size_t size)
{
	struct nsight_analysis_opts ao = { .lifetimes = true };
	uint32_t opt = fuzz_options_of(data, size);
	struct nsight_diag d = { 0 };
	struct nsight_windows w;
	struct nsight_dx_opts o;
	struct nsight_keys keys;
	struct nsight_dxs s;
	struct nsight_cp_group *paths = NULL;
	struct nsight_dx whole;
	FILE *f = fuzz_file(data, size);
	bool dxs;
	int err;

	if (!f)
		return;
	nsight_dx_opts_default(&o);
	memset(&whole, 0, sizeof(whole));
	dxs = !nsight_dxs_init(&s, &o, &d) && !nsight_keys_init(&keys);
	err = nsight_windows_open(&w, f, &d);
	if (!err && (opt & OPT(30)))
		err = nsight_windows_use_triggers(&w, &d);
	else if (!err && ((opt >> 24) & 31) == 31)
		err = nsight_windows_set_records(&w, 1000, &(uint64_t){ 0 }, &d);
	else if (!err)
		err = nsight_windows_set_width(&w, 1000ULL << ((opt >> 24) & 31), &d);
	if (!err)
		nsight_summary_print_text(fuzz_null(), "fuzz", &w.sum);
	while (!err && w.next < w.n_windows && w.next < MAX_WINDOWS) {
		struct nsight_analysis a;
		struct nsight_dx dx;
		uint64_t records;

		memset(&dx, 0, sizeof(dx));
		err = nsight_window_analyze(&w, &a, &ao, &records, &d);
		if (!err && records)
			err = nsight_analysis_diagnose(&dx, &a, NULL, &cats, &o, &d);
		if (!err && records)
			report(&a, &dx, opt);
		if (!err && dxs)
			err = nsight_analysis_dxs_window(&s, &a, 1, &cats, NULL, &d);
		nsight_dx_fini(&dx);
		nsight_analysis_fini(&a);
	}
	if (!err && !w.by_trigger) {
		struct nsight_analysis_opts lo = { .lifetimes = true, .no_context = true };

		nsight_windows_rewind(&w);
		while (!err && w.next < w.n_windows && w.next < MAX_WINDOWS) {
			struct nsight_analysis a;
			uint64_t records;

			err = nsight_window_analyze(&w, &a, &lo, &records, &d);
			if (!err)
				nsight_tty_latency(fuzz_null(), &a, &(struct nsight_tty){ 0 });
			nsight_analysis_fini(&a);
		}
		nsight_windows_rewind(&w);
	}
	if (!err && dxs && !w.by_trigger && w.n_windows <= MAX_WINDOWS &&
	    !nsight_windows_whole_dx(&w, &s, &ao, &keys, &cats, &whole, &paths, &d)) {
		struct nsight_tty tty = { .color = true, .width = NSIGHT_TTY_WIDTH };
		struct json_object *j = json_object_new_object();

		nsight_dx_report_groups_tty(fuzz_null(), &whole, &keys, opt & OPT(29), &tty);
		nsight_critpath_report_groups_text(fuzz_null(), &whole, paths, &keys, &tty);
		if (j && !nsight_dx_report_groups_json(j, &whole, &keys) &&
		    !nsight_critpath_report_groups_json(j, &whole, paths, &keys))
			fputs(json_object_to_json_string(j), fuzz_null());
		json_object_put(j);
	}
	nsight_cp_groups_free(paths, whole.n);
	nsight_dx_fini(&whole);
	if (dxs)
		nsight_keys_fini(&keys);
	nsight_dxs_fini(&s);
	nsight_windows_fini(&w);
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_run_stream(data, size, one);
}
