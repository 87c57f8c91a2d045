// SPDX-License-Identifier: MIT
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <json-c/json.h>

#include "chains_report.h"
#include "critpath_report.h"
#include "diag_report.h"
#include "json_out.h"
#include "print.h"
#include "report.h"
#include "version.h"
#include "window.h"
#include "window_report.h"

/* One JSON object on one line. */
static int put_line(struct json_object *j)
{
	if (!j) {
		fprintf(stderr, "nsight-analyze: out of memory\n");
		return NSIGHT_EXIT_FAIL;
	}
	fputs(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN |
					     JSON_C_TO_STRING_NOSLASHESCAPE), stdout);
	fputc('\n', stdout);
	json_object_put(j);
	return NSIGHT_EXIT_OK;
}

static int print_summary(const struct nsight_windows *w, const char *name,
			 const struct nsight_window_report_opts *o)
{
	char b[32];

	if (o->json) {
		struct json_object *j = nsight_summary_to_json(name, &w->sum);
		struct json_object *win = json_object_new_object();
		int err = !j || !win;

		jo_add_u64(win, "width_ns", o->width_ns, &err);
		jo_add_u64(win, "count", w->n_windows, &err);
		jo_add(j, "windows", win, &err);
		if (err) {
			json_object_put(j);
			j = NULL;
		}
		return put_line(j);
	}
	if (o->verbose)
		nsight_summary_print_text(stdout, name, &w->sum);
	else
		nsight_tty_header(stdout, name, &w->sum, &o->tty);
	printf("%swindows:%s %" PRIu64 " of %s from the first record; each has the messages "
	       "that start in it, read with a margin of one window each side\n",
	       nsight_tty_bold(&o->tty),
	       nsight_tty_off(&o->tty), w->n_windows,
	       nsight_tty_duration((int64_t)o->width_ns, b, sizeof(b)));
	return NSIGHT_EXIT_OK;
}

static int print_window(const struct nsight_windows *w, uint64_t k, uint64_t records,
			const struct nsight_analysis *a, const struct nsight_dx *dx,
			const struct nsight_window_report_opts *o)
{
	static const struct nsight_tty plain;
	const struct nsight_tty *t = o->verbose ? &plain : &o->tty;
	uint64_t start, end;
	int ret = NSIGHT_EXIT_OK;

	nsight_window_bounds_ns(w, k, &start, &end);
	if (o->json) {
		struct json_object *j = json_object_new_object();
		struct json_object *win = json_object_new_object();
		int err = !j || !win;

		jo_add_u64(win, "index", k, &err);
		jo_add_u64(win, "start_ns", start, &err);
		jo_add_u64(win, "end_ns", end, &err);
		jo_add_u64(win, "records", records, &err);
		jo_add(j, "window", win, &err);
		if (err || nsight_report_add_json(j, a, o->clk, o->messages) ||
		    nsight_diag_report_json(j, dx, a) || nsight_chains_report_json(j, dx, a) ||
		    nsight_critpath_report_json(j, dx, a)) {
			json_object_put(j);
			j = NULL;
		}
		return put_line(j);
	}
	printf("\n%swindow %" PRIu64 ":%s +%.6f s to +%.6f s, %" PRIu64 " records\n",
	       nsight_tty_bold(t), k, nsight_tty_off(t), start / 1e9, end / 1e9, records);
	if (o->verbose)
		nsight_report_latency_text(stdout, a);
	else
		nsight_tty_latency(stdout, a, t);
	if (o->messages)
		nsight_report_messages_text(stdout, a, o->clk);
	if (o->verbose)
		nsight_diag_report_text(stdout, dx, a);
	else
		nsight_diag_report_tty(stdout, dx, a, t);
	if (nsight_chains_report_text(stdout, dx, a, t) ||
	    nsight_critpath_report_text(stdout, dx, a, t))
		ret = NSIGHT_EXIT_FAIL;
	return ret;
}

/* The next window: analysed, diagnosed and printed if it has records. */
static int one_window(struct nsight_windows *w, const char *name,
		      const struct nsight_window_report_opts *o)
{
	struct nsight_analysis_opts ao = { .params = o->params, .lifetimes = true };
	struct nsight_diag d = { 0 };
	struct nsight_analysis a;
	struct nsight_dx dx;
	uint64_t k = w->next, records;
	int ret = NSIGHT_EXIT_FAIL;

	memset(&dx, 0, sizeof(dx));
	if (nsight_window_analyze(w, &a, &ao, &records, &d) ||
	    (records && nsight_analysis_diagnose(&dx, &a, NULL, o->cats, o->dx, &d)))
		fprintf(stderr, "nsight-analyze: %s: window %" PRIu64 ": %s\n", name, k, d.msg);
	else
		ret = records ? print_window(w, k, records, &a, &dx, o) : NSIGHT_EXIT_OK;
	nsight_dx_fini(&dx);
	nsight_analysis_fini(&a);
	return ret;
}

int nsight_window_report(FILE *in, const char *name, const struct nsight_window_report_opts *o)
{
	struct nsight_diag d = { 0 };
	struct nsight_windows w;
	int ret;

	if (nsight_windows_open(&w, in, &d) ||
	    nsight_windows_set_width(&w, o->width_ns, &d)) {
		fprintf(stderr, "nsight-analyze: %s: %s\n", name, d.msg);
		ret = NSIGHT_EXIT_FAIL;
		goto out;
	}
	ret = print_summary(&w, name, o);
	while (!ret && w.next < w.n_windows) {
		ret = one_window(&w, name, o);
		/* Each window reaches the reader as soon as it is done. */
		if (fflush(stdout))
			break;
	}
	if (!ret && o->strict && w.sum.n_problems)
		ret = NSIGHT_EXIT_FAIL;
out:
	nsight_windows_fini(&w);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "nsight-analyze: writing to stdout failed: %s\n", strerror(errno));
		ret = NSIGHT_EXIT_FAIL;
	}
	return ret;
}
