// SPDX-License-Identifier: MIT
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <string.h>
#include <json-c/json.h>

#include "chains_report.h"
#include "critpath_report.h"
#include "dx_report.h"
#include "format/flow.h"
#include "json_out.h"
#include "print.h"
#include "report.h"
#include "base/version.h"
#include "pipeline/window.h"
#include "pipeline/window_dx.h"
#include "progress.h"
#include "window_report.h"
#include "pipeline/window_total.h"

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

		if (w->by_trigger)
			jo_add_str(win, "by", "trigger", &err);
		else
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
	if (w->by_trigger)
		printf("%swindows:%s %" PRIu64 " saved by the flight recorder around messages slower than %s; "
		       "each has the messages that start in it\n",
		       nsight_tty_bold(&o->tty), nsight_tty_off(&o->tty), w->n_windows,
		       nsight_tty_duration((int64_t)w->trig[0].t.threshold_ns, b, sizeof(b)));
	else
		printf("%swindows:%s %" PRIu64 " of %s from the first record; each has the messages "
		       "that start in it, read with a margin of one window each side\n",
		       nsight_tty_bold(&o->tty),
		       nsight_tty_off(&o->tty), w->n_windows,
		       nsight_tty_duration((int64_t)o->width_ns, b, sizeof(b)));
	return NSIGHT_EXIT_OK;
}

/* The message that fired trigger @t, among @a's lifetimes; SIZE_MAX if none. */
static size_t trigger_msg(const struct nsight_analysis *a, const struct nsight_stream_trigger *t)
{
	uint64_t best_d = UINT64_MAX;
	size_t i, best = SIZE_MAX;

	for (i = 0; i < a->lt.n; i++) {
		const struct nsight_msg *m = &a->lt.msgs[i];
		uint64_t x, dd;

		if (m->dir != NSIGHT_MSG_RX || m->sock_id != t->sock_id || !m->t[NSIGHT_RX_A].valid)
			continue;
		x = m->t[NSIGHT_RX_A].tsc;
		dd = x > t->recv_tsc ? x - t->recv_tsc : t->recv_tsc - x;
		if (dd < best_d) {
			best_d = dd;
			best = i;
		}
	}
	return best;
}

/* The receiving socket: its flow, or "on ADDR:PORT" when unconnected. */
static const char *sock_format(const struct nsight_flow *f, char *buf, size_t len)
{
	char ep[80];

	if (nsight_flow_connected(f))
		return nsight_flow_format(f, buf, len);
	snprintf(buf, len, "on %s", nsight_endpoint_format(f->saddr, f->sport, ep, sizeof(ep)));
	return buf;
}

/* The trigger of window @k first: what fired it, then that message's causes. */
static void trigger_text(const struct nsight_windows *w, uint64_t k,
			 const struct nsight_analysis *a, const struct nsight_dx *dx,
			 const struct nsight_tty *t)
{
	const struct nsight_stream_trigger *tr = &w->trig[k].t;
	const struct nsight_dx_group *g;
	const struct nsight_dx_msg *m;
	char comm[17], flow[160], b1[32], b2[32];
	size_t mi = trigger_msg(a, tr);

	printf("  %strigger:%s %s[%" PRIu32 "/%" PRIu32 "] %s latency %s > %s, first receive record at +%.6f s on cpu %" PRIu32
	       ", received on cpu %" PRIu32,
	       nsight_tty_bold(t), nsight_tty_off(t), nsight_comm_format(tr->comm, comm, sizeof(comm)),
	       tr->pid, tr->tid, sock_format(&tr->flow, flow, sizeof(flow)),
	       nsight_tty_duration((int64_t)tr->latency_ns, b1, sizeof(b1)),
	       nsight_tty_duration((int64_t)tr->threshold_ns, b2, sizeof(b2)),
	       nsight_window_tsc_ns(w, tr->start_tsc) / 1e9, tr->rx_cpu, tr->app_cpu);
	if (tr->more)
		printf("; %" PRIu64 " more past the trigger in this window", (uint64_t)tr->more);
	putchar('\n');
	if (mi == SIZE_MAX) {
		printf("  its lifetime: not found among the window's messages\n");
		return;
	}
	if (a->lt.msgs[mi].reason == NSIGHT_MSG_COMPLETE)
		printf("  its lifetime: rx %" PRIu64 ", %s\n", a->lt.msgs[mi].id,
		       nsight_tty_duration(a->lt.msgs[mi].total_ns, b1, sizeof(b1)));
	else
		printf("  its lifetime: rx %" PRIu64 ", incomplete (%s)\n", a->lt.msgs[mi].id,
		       nsight_msg_reason_name(a->lt.msgs[mi].reason));
	if (nsight_dx_find_msg(dx, mi, &g, &m))
		nsight_dx_report_msg_tty(stdout, g, m, t);
	else
		printf("  its causes: not diagnosed (not in the tail, or records of it were lost)\n");
}

static struct json_object *trigger_json(const struct nsight_windows *w, uint64_t k,
					const struct nsight_analysis *a, const struct nsight_dx *dx,
					int *err)
{
	const struct nsight_stream_trigger *tr = &w->trig[k].t;
	struct json_object *j = json_object_new_object();
	const struct nsight_dx_group *g;
	const struct nsight_dx_msg *m;
	char comm[17], flow[160];
	size_t mi = trigger_msg(a, tr);

	jo_add_u64(j, "seq", tr->seq, err);
	jo_add_str(j, "comm", nsight_comm_format(tr->comm, comm, sizeof(comm)), err);
	jo_add_u64(j, "pid", tr->pid, err);
	jo_add_u64(j, "tid", tr->tid, err);
	jo_add_str(j, "socket", sock_format(&tr->flow, flow, sizeof(flow)), err);
	jo_add_u64(j, "latency_ns", tr->latency_ns, err);
	jo_add_u64(j, "threshold_ns", tr->threshold_ns, err);
	jo_add_u64(j, "start_ns", nsight_window_tsc_ns(w, tr->start_tsc), err);
	jo_add_u64(j, "recv_ns", nsight_window_tsc_ns(w, tr->recv_tsc), err);
	jo_add_u64(j, "rx_cpu", tr->rx_cpu, err);
	jo_add_u64(j, "app_cpu", tr->app_cpu, err);
	jo_add_u64(j, "more", tr->more, err);
	if (mi == SIZE_MAX)
		jo_add_null(j, "message", err);
	else
		jo_add_u64(j, "message", a->lt.msgs[mi].id, err);
	if (mi != SIZE_MAX && nsight_dx_find_msg(dx, mi, &g, &m))
		jo_add(j, "diagnosis", nsight_dx_report_msg_json(g, m, a), err);
	else
		jo_add_null(j, "diagnosis", err);
	return j;
}

/*
 * A time window in one line: its span and records, its messages with the
 * p50, p99 and max of all complete ones, and the cause that explains the
 * most of the tail's deviation (of any application and direction).
 */
static int window_line(const struct nsight_windows *w, uint64_t k, uint64_t records,
		       const struct nsight_analysis *a, const struct nsight_dx *dx,
		       const struct nsight_tty *t)
{
	const struct nsight_dx_cause *top = NULL;
	char b[3][32], cause[300];
	uint64_t start, end;
	int64_t spread[3];
	size_t i, j;

	nsight_window_bounds_ns(w, k, &start, &end);
	if (nsight_wtotal_spread(&a->lt, spread) == SIZE_MAX) {
		fprintf(stderr, "nsight-analyze: out of memory\n");
		return NSIGHT_EXIT_FAIL;
	}
	printf("%swindow %" PRIu64 ":%s +%.6f s to +%.6f s, %" PRIu64 " records, %zu messages, %" PRIu64
	       " complete", nsight_tty_bold(t), k, nsight_tty_off(t), start / 1e9, end / 1e9, records,
	       a->lt.n, a->lt.n_complete);
	if (a->lt.n_complete)
		printf(": p50 %s p99 %s max %s", nsight_tty_duration(spread[0], b[0], sizeof(b[0])),
		       nsight_tty_duration(spread[1], b[1], sizeof(b[1])),
		       nsight_tty_duration(spread[2], b[2], sizeof(b[2])));
	for (i = 0; i < dx->n; i++)
		for (j = 0; j < dx->groups[i].n_causes; j++)
			if (!top || dx->groups[i].causes[j].total > top->total)
				top = &dx->groups[i].causes[j];
	if (top && top->total > 0) {
		nsight_dx_cause_name(top, cause, sizeof(cause));
		printf("; top cause %s, %s over %" PRIu64 " tail messages", cause,
		       nsight_tty_duration(top->total, b[0], sizeof(b[0])), top->messages);
	}
	putchar('\n');
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
		if (w->by_trigger)
			jo_add(win, "trigger", trigger_json(w, k, a, dx, &err), &err);
		jo_add(j, "window", win, &err);
		if (err || nsight_report_add_json(j, a, o->clk, o->messages) ||
		    nsight_dx_report_json(j, dx, a) || nsight_chains_report_json(j, dx, a) ||
		    nsight_critpath_report_json(j, dx, a)) {
			json_object_put(j);
			j = NULL;
		}
		return put_line(j);
	}
	/* Time windows in a line each, unless --verbose. */
	if (!w->by_trigger && !o->verbose) {
		ret = window_line(w, k, records, a, dx, t);
		if (o->messages)
			nsight_report_messages_text(stdout, a, o->clk);
		return ret;
	}
	printf("\n%swindow %" PRIu64 ":%s +%.6f s to +%.6f s, %" PRIu64 " records\n",
	       nsight_tty_bold(t), k, nsight_tty_off(t), start / 1e9, end / 1e9, records);
	if (w->by_trigger)
		trigger_text(w, k, a, dx, t);
	if (o->verbose)
		nsight_report_latency_text(stdout, a);
	else
		nsight_tty_latency(stdout, a, t);
	if (o->messages)
		nsight_report_messages_text(stdout, a, o->clk);
	if (o->verbose)
		nsight_dx_report_text(stdout, dx, a);
	else
		nsight_dx_report_tty(stdout, dx, a, t);
	if (nsight_chains_report_text(stdout, dx, a, t) ||
	    nsight_critpath_report_text(stdout, dx, a, t))
		ret = NSIGHT_EXIT_FAIL;
	return ret;
}

/* The next window: analysed, diagnosed and printed if it has records. */
static int one_window(struct nsight_windows *w, const char *name,
		      const struct nsight_window_report_opts *o, struct nsight_wtotal *total,
		      struct nsight_dxs *dxs)
{
	/* Streamed, the first pass needs the lifetimes alone. */
	struct nsight_analysis_opts ao = { .params = o->params, .lifetimes = true,
					   .no_context = o->report, .threads = o->threads };
	struct nsight_diag d = { 0 };
	struct nsight_analysis a;
	struct nsight_dx dx;
	uint64_t k = w->next, records;
	int ret = NSIGHT_EXIT_FAIL;

	memset(&dx, 0, sizeof(dx));
	/* Streamed, a window is only a part of the whole capture's passes. */
	if (nsight_window_analyze(w, &a, &ao, &records, &d) ||
	    (records && !o->report && nsight_analysis_diagnose(&dx, &a, NULL, o->cats, o->dx, &d)) ||
	    (!w->by_trigger && nsight_wtotal_add(total, &a.lt, &d)) ||
	    (dxs && nsight_analysis_dxs_window(dxs, &a, 1, o->cats, NULL, &d)))
		fprintf(stderr, "nsight-analyze: %s: window %" PRIu64 ": %s\n", name, k, d.msg);
	else
		ret = records && !o->report ? print_window(w, k, records, &a, &dx, o) : NSIGHT_EXIT_OK;
	nsight_dx_fini(&dx);
	nsight_analysis_fini(&a);
	return ret;
}

/* --whole-diagnosis: its two later passes (window_dx.h), with a progress line. */
static int whole_dx(struct nsight_windows *w, const char *name,
		    const struct nsight_window_report_opts *o, struct nsight_dxs *s,
		    struct nsight_keys *keys, struct nsight_dx *dx, struct nsight_cp_group **paths)
{
	struct nsight_analysis_opts ao = { .params = o->params, .lifetimes = true,
					   .threads = o->threads };
	struct nsight_diag d = { 0 };
	struct nsight_progress pr;
	int err;

	/* Nothing reaches stdout meanwhile: a progress line on a terminal. */
	nsight_progress_init(&pr, nsight_progress_tty(), name);
	ao.progress = &pr.hooks;
	err = nsight_windows_whole_dx(w, s, &ao, keys, o->cats, dx, paths, &d);
	nsight_progress_end(&pr);
	if (err)
		fprintf(stderr, "nsight-analyze: %s: the whole capture's diagnosis: %s\n", name, d.msg);
	return err ? NSIGHT_EXIT_FAIL : NSIGHT_EXIT_OK;
}

/*
 * The whole capture's latency in JSON: {"unit", "percentiles", "messages",
 * "complete", "incomplete", "groups"}; NULL when out of memory.
 */
static struct json_object *total_latency_json(const struct nsight_wtotal *t)
{
	struct json_object *l = json_object_new_object(), *groups = json_object_new_array();
	int err = !l || !groups;
	size_t i;

	jo_add_str(l, "unit", "ns", &err);
	jo_add_str(l, "percentiles", "nearest-rank", &err);
	jo_add_u64(l, "messages", t->messages, &err);
	jo_add_u64(l, "complete", t->complete, &err);
	jo_add_u64(l, "incomplete", t->messages - t->complete, &err);
	for (i = 0; i < t->lat.n; i++)
		jo_push(groups, nsight_report_lat_group_json(&t->lat.groups[i], &err), &err);
	jo_add(l, "groups", groups, &err);
	if (err) {
		json_object_put(l);
		return NULL;
	}
	return l;
}

/* Its compact text: the table and each group's histogram. */
static void total_latency_tty(const struct nsight_wtotal *t, const struct nsight_tty *tty)
{
	size_t i;

	nsight_tty_latency_table(stdout, &t->lat);
	for (i = 0; i < t->n; i++)
		nsight_tty_latency_histogram(stdout, &t->groups[i].g, t->groups[i].v,
					     t->groups[i].g.count, tty);
}

/*
 * After time windows: the latency of the whole capture, each message in
 * the window it starts in, and with --whole-diagnosis (@dx not NULL, its
 * anomalies' keys in @keys) its diagnosis and its tail's critical path
 * (@paths). Text: the table and histograms, the diagnosis's groups, the
 * critical path; JSON: a last line, {"capture": {"latency": ...,
 * "diagnosis": ..., "critical_path": ...}}.
 */
static int print_total(const struct nsight_wtotal *t, const struct nsight_dx *dx,
		       const struct nsight_cp_group *paths, const struct nsight_keys *keys,
		       const struct nsight_window_report_opts *o)
{
	static const struct nsight_tty plain;
	const struct nsight_tty *tty = o->verbose ? &plain : &o->tty;

	if (o->json) {
		struct json_object *j = json_object_new_object(), *c = json_object_new_object();
		int err = !j || !c;

		jo_add(c, "latency", total_latency_json(t), &err);
		if (!err && dx && (nsight_dx_report_groups_json(c, dx, keys) ||
				   nsight_critpath_report_groups_json(c, dx, paths, keys)))
			err = 1;
		jo_add(j, "capture", c, &err);
		if (err) {
			json_object_put(j);
			j = NULL;
		}
		return put_line(j);
	}
	printf("\n%swhole capture:%s %" PRIu64 " messages, %" PRIu64 " complete, %" PRIu64
	       " incomplete, each in the window it starts in; rx n->a, tx send->xmit or ->done\n",
	       nsight_tty_bold(tty), nsight_tty_off(tty), t->messages, t->complete,
	       t->messages - t->complete);
	total_latency_tty(t, tty);
	if (dx) {
		nsight_dx_report_groups_tty(stdout, dx, keys, false, tty);
		if (nsight_critpath_report_groups_text(stdout, dx, paths, keys, tty))
			return NSIGHT_EXIT_FAIL;
	}
	return NSIGHT_EXIT_OK;
}

/* Whether @w's capture has sample or PT records, which the evidence line needs the analysis for. */
static bool fn_evidence(const struct nsight_windows *w)
{
	size_t i;

	if (w->sum.type_counts && (w->sum.type_counts[NSIGHT_REC_SAMPLE] ||
				   w->sum.type_counts[NSIGHT_REC_PT]))
		return true;
	for (i = 0; i < w->n_other; i++)
		if (w->other[i].type == NSIGHT_CHUNK_PT)
			return true;
	return false;
}

/*
 * What a streamed report leaves out, in @buf: the sections that need the
 * whole capture at once, of those @w's capture can have (the evidence
 * with samples or PT, locks with futex records, requests with request
 * marks).
 */
static const char *left_out(const struct nsight_windows *w, char *buf, size_t len)
{
	const uint64_t *tc = w->sum.type_counts;
	const char *part[8];
	size_t n = 0, i, at = 0;

	/* The time conversion and the loss are each window's, not the capture's. */
	part[n++] = "the time and loss lines";
	if (fn_evidence(w))
		part[n++] = "the evidence";
	part[n++] = "receive work";
	part[n++] = "chains";
	part[n++] = "queues";
	part[n++] = "loops";
	if (tc && tc[NSIGHT_REC_FUTEX])
		part[n++] = "locks";
	if (tc && tc[NSIGHT_REC_REQUEST])
		part[n++] = "requests";
	buf[0] = 0;
	for (i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? (i + 1 < n ? ", " : " and ") : "",
				       part[i]);
	return buf;
}

/* The streamed report's heading: the summary, then how it was streamed. */
static void streamed_head(const struct nsight_windows *w, const char *name,
			  const struct nsight_window_report_opts *o, uint64_t width_ns,
			  const struct nsight_tty *t)
{
	char b[32], lo[128];

	if (o->verbose)
		nsight_summary_print_text(stdout, name, &w->sum);
	else
		nsight_tty_header(stdout, name, &w->sum, &o->tty);
	printf("%sstreamed:%s %" PRIu64 " window%s of %s, three passes, in memory that follows "
	       "the busiest window\n", nsight_tty_bold(t), nsight_tty_off(t), w->n_windows,
	       w->n_windows == 1 ? "" : "s", nsight_tty_duration((int64_t)width_ns, b, sizeof(b)));
	printf("  why: %s\n  left out: %s (--stream never)\n", o->why ? o->why : "--stream always",
	       left_out(w, lo, sizeof(lo)));
}

/*
 * The streamed report's body, after the passes: the whole capture's
 * latency, diagnosis and critical path as the report without streaming
 * prints them; with --json the whole report in one object, the summary's
 * members first.
 */
static int streamed_body(const struct nsight_windows *w, const char *name,
			 const struct nsight_wtotal *t, const struct nsight_dx *dx,
			 const struct nsight_cp_group *paths, const struct nsight_keys *keys,
			 const struct nsight_window_report_opts *o, uint64_t width_ns)
{
	static const struct nsight_tty plain;
	const struct nsight_tty *tty = o->verbose ? &plain : &o->tty;
	char lo[128];

	if (o->json) {
		struct json_object *j = json_object_new_object();
		struct json_object *sum = nsight_summary_to_json(name, &w->sum);
		struct json_object *st = json_object_new_object();
		int err = !j || !sum || !st;

		/* The report's order: a trace-cmd capture's source, then the summary's members. */
		if (o->source)
			jo_add(j, "source", json_object_get(o->source), &err);
		if (sum) {
			json_object_object_foreach(sum, key, val)
				jo_add(j, key, json_object_get(val), &err);
			json_object_put(sum);
		}

		jo_add_u64(st, "windows", w->n_windows, &err);
		jo_add_u64(st, "width_ns", width_ns, &err);
		jo_add_str(st, "why", o->why ? o->why : "asked for", &err);
		jo_add_str(st, "left_out", left_out(w, lo, sizeof(lo)), &err);
		jo_add(j, "streamed", st, &err);
		jo_add(j, "latency", total_latency_json(t), &err);
		if (!err && (nsight_dx_report_groups_json(j, dx, keys) ||
			     nsight_critpath_report_groups_json(j, dx, paths, keys)))
			err = 1;
		if (err) {
			json_object_put(j);
			j = NULL;
		}
		return jo_put(j);
	}
	if (o->verbose) {
		/* The full text's: in ns, without the lifetimes' counts the windows do not sum. */
		printf("latency: %" PRIu64 " messages, %" PRIu64 " complete, %" PRIu64
		       " incomplete; total ns (rx n->a, tx send->xmit or ->done), nearest-rank "
		       "percentiles\n", t->messages, t->complete, t->messages - t->complete);
		nsight_report_latency_table(stdout, &t->lat);
	} else {
		nsight_tty_latency_head(stdout, t->messages, t->complete, tty);
		total_latency_tty(t, tty);
	}
	nsight_dx_report_groups_tty(stdout, dx, keys, !fn_evidence(w), tty);
	if (nsight_critpath_report_groups_text(stdout, dx, paths, keys, tty))
		return NSIGHT_EXIT_FAIL;
	return NSIGHT_EXIT_OK;
}

int nsight_window_report(FILE *in, const char *name, const struct nsight_window_report_opts *o)
{
	struct nsight_wtotal total = { 0 };
	struct nsight_diag d = { 0 };
	struct nsight_windows w;
	struct nsight_dxs dxs;
	struct nsight_keys keys;
	struct nsight_cp_group *paths = NULL;
	static const struct nsight_tty plain;
	uint64_t width_ns = o->width_ns;
	struct nsight_dx dx;
	bool want_dx;
	int ret = NSIGHT_EXIT_OK;

	/*
	 * Each window allocates and frees arrays of about the sizes of the
	 * last: keep what it frees in the heap for the next. glibc would give
	 * the large ones back to the kernel, and each window fault them in
	 * again (3.0 against 0.9 s of system time for --stream on 10 M
	 * records, nsight.rst, Benchmarks, Analyzer; the same peak).
	 */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	memset(&dxs, 0, sizeof(dxs));
	memset(&keys, 0, sizeof(keys));
	memset(&dx, 0, sizeof(dx));
	want_dx = (o->whole_dx && o->width_ns) || o->report;
	if (want_dx && (nsight_dxs_init(&dxs, o->dx, &d) || nsight_keys_init(&keys))) {
		fprintf(stderr, "nsight-analyze: out of memory\n");
		json_object_put(o->source);
		nsight_dxs_fini(&dxs);
		nsight_keys_fini(&keys);
		return NSIGHT_EXIT_FAIL;
	}

	if (nsight_windows_open(&w, in, &d) ||
	    (o->report && !o->width_ns ?
	     nsight_windows_set_records(&w, NSIGHT_STREAM_RECORDS, &width_ns, &d) :
	     o->width_ns ? nsight_windows_set_width(&w, o->width_ns, &d) :
			   nsight_windows_use_triggers(&w, &d))) {
		fprintf(stderr, "nsight-analyze: %s: %s\n", name, d.msg);
		ret = NSIGHT_EXIT_FAIL;
		goto out;
	}
	nsight_summary_warn_cut(&w.sum, name);
	if (!o->report)
		ret = print_summary(&w, name, o);
	else if (!o->json)
		streamed_head(&w, name, o, width_ns, o->verbose ? &plain : &o->tty);
	while (!ret && w.next < w.n_windows) {
		ret = one_window(&w, name, o, &total, want_dx ? &dxs : NULL);
		/* Each window reaches the reader as soon as it is done. */
		if (fflush(stdout))
			break;
	}
	if (!ret && want_dx && !w.by_trigger)
		ret = whole_dx(&w, name, o, &dxs, &keys, &dx, &paths);
	if (!ret && !w.by_trigger && nsight_wtotal_finish(&total, &d)) {
		fprintf(stderr, "nsight-analyze: %s\n", d.msg);
		ret = NSIGHT_EXIT_FAIL;
	}
	if (!ret && o->report)
		ret = streamed_body(&w, name, &total, &dx, paths, &keys, o, width_ns);
	else if (!ret && !w.by_trigger)
		ret = print_total(&total, want_dx ? &dx : NULL, paths, &keys, o);
	if (!ret && o->strict && w.sum.n_problems)
		ret = NSIGHT_EXIT_FAIL;
out:
	json_object_put(o->source);
	nsight_cp_groups_free(paths, dx.n);
	nsight_dx_fini(&dx);
	nsight_dxs_fini(&dxs);
	nsight_keys_fini(&keys);
	nsight_wtotal_fini(&total);
	nsight_windows_fini(&w);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "nsight-analyze: writing to stdout failed: %s\n", strerror(errno));
		ret = NSIGHT_EXIT_FAIL;
	}
	return ret;
}
