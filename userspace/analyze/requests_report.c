// SPDX-License-Identifier: MIT
#include <inttypes.h>

#include "diagnose/requests.h"
#include "json_out.h"
#include "print.h"
#include "requests_report.h"

/* Tail causes printed in the text (all in JSON). */
#define TOP_CAUSES 8

static int build(struct nsight_requests *r, const struct nsight_analysis *a, uint32_t tail)
{
	struct nsight_diag d = { 0 };

	return nsight_requests_build(r, &a->cap, &a->lt, &a->chains, a->keys, tail, &d);
}

static void incomplete_text(FILE *f, const struct nsight_rq_group *g)
{
	const char *sep = " (incomplete:";
	int s;

	for (s = 1; s < __NSIGHT_RQ_STATES; s++)
		if (g->by_state[s]) {
			fprintf(f, "%s %" PRIu64 " %s", sep, g->by_state[s],
				nsight_rq_state_name((enum nsight_rq_state)s));
			sep = ",";
		}
	if (*sep == ',')
		fputc(')', f);
}

static void group_text(FILE *f, const struct nsight_requests *r, const struct nsight_rq_group *g,
		       const struct nsight_tty *t)
{
	char c[17], b[4][32];
	size_t i;
	int p;

	fprintf(f, "requests: %s[%" PRIu32 "]: %" PRIu64 " marked, %" PRIu64 " complete",
		nsight_printable(c, g->comm, sizeof(c), false), g->pid, g->count, g->complete);
	incomplete_text(f, g);
	fprintf(f, "\n  begun most by tid %" PRIu32 ", ended most by tid %" PRIu32
		"; %" PRIu64 " complete with their response\n",
		g->receiver, g->worker, g->with_response);
	if (!g->complete)
		return;
	fprintf(f, "  latency, NIC to end: p50 %s, p90 %s, p99 %s, max %s\n",
		nsight_tty_dur(t, g->p50, b[0], sizeof(b[0])), nsight_tty_dur(t, g->p90, b[1], sizeof(b[1])),
		nsight_tty_dur(t, g->p99, b[2], sizeof(b[2])), nsight_tty_dur(t, g->max, b[3], sizeof(b[3])));
	fputs("  phases p50/p99:", f);
	for (p = 0; p < __NSIGHT_RQ_PHASES; p++)
		fprintf(f, "%s %s %s/%s", p ? "," : "", nsight_rq_phase_name((enum nsight_rq_phase)p),
			nsight_tty_dur(t, g->phase_p50[p], b[0], sizeof(b[0])),
			nsight_tty_dur(t, g->phase_p99[p], b[1], sizeof(b[1])));
	fputc('\n', f);
	if (!g->tail_count) {
		fprintf(f, "  tail: too few complete requests to explain one\n");
		return;
	}
	fprintf(f, "  tail (>= %s, %" PRIu64 " requests), time beyond each cause's median:\n",
		nsight_tty_dur(t, g->tail_from, b[0], sizeof(b[0])), g->tail_count);
	if (!g->n_tail)
		fprintf(f, "    no cause took longer than its median\n");
	for (i = 0; i < g->n_tail && i < TOP_CAUSES; i++)
		fprintf(f, "    %3.0f%%  %s  (%s per tail request)\n", 100.0 * g->tail[i].share,
			r->causes[g->tail[i].cause],
			nsight_tty_dur(t, g->tail[i].excess_ns / (int64_t)g->tail_count, b[0], sizeof(b[0])));
	if (g->n_tail > TOP_CAUSES)
		fprintf(f, "    %zu more (--json)\n", g->n_tail - TOP_CAUSES);
}

int nsight_requests_report_text(FILE *f, const struct nsight_analysis *a, uint32_t tail,
				const struct nsight_tty *t)
{
	struct nsight_requests r;
	size_t i;

	if (!a->cap.n_requests)
		return 0;
	if (build(&r, a, tail))
		return -1;
	for (i = 0; i < r.n_groups; i++)
		group_text(f, &r, &r.groups[i], t);
	if (r.orphans || r.bad_ops)
		fprintf(f, "requests: %" PRIu64 " marks with no begin before them, %" PRIu64
			" with an unknown op\n", r.orphans, r.bad_ops);
	nsight_requests_fini(&r);
	return 0;
}

static struct json_object *group_json(const struct nsight_requests *r,
				      const struct nsight_rq_group *g, int *err)
{
	struct json_object *o = json_object_new_object(), *st = json_object_new_object();
	struct json_object *ph = json_object_new_object(), *tl = json_object_new_array();
	char c[17];
	size_t i;
	int s;

	if (!o || !st || !ph || !tl) {
		*err = -1;
		json_object_put(o);
		json_object_put(st);
		json_object_put(ph);
		json_object_put(tl);
		return NULL;
	}
	jo_add_str(o, "comm", nsight_printable(c, g->comm, sizeof(c), false), err);
	jo_add_u64(o, "pid", g->pid, err);
	jo_add_u64(o, "count", g->count, err);
	jo_add_u64(o, "complete", g->complete, err);
	for (s = 1; s < __NSIGHT_RQ_STATES; s++)
		jo_add_u64(st, nsight_rq_state_name((enum nsight_rq_state)s), g->by_state[s], err);
	jo_add(o, "incomplete", st, err);
	jo_add_u64(o, "receiver_tid", g->receiver, err);
	jo_add_u64(o, "worker_tid", g->worker, err);
	jo_add_u64(o, "with_response", g->with_response, err);
	if (g->complete) {
		struct json_object *l = json_object_new_object();

		if (!l)
			*err = -1;
		jo_add_i64(l, "p50_ns", g->p50, err);
		jo_add_i64(l, "p90_ns", g->p90, err);
		jo_add_i64(l, "p99_ns", g->p99, err);
		jo_add_i64(l, "max_ns", g->max, err);
		jo_add(o, "latency", l, err);
	} else {
		jo_add_null(o, "latency", err);
	}
	for (s = 0; g->complete && s < __NSIGHT_RQ_PHASES; s++) {
		struct json_object *p = json_object_new_object();

		if (!p)
			*err = -1;
		jo_add_i64(p, "p50_ns", g->phase_p50[s], err);
		jo_add_i64(p, "p99_ns", g->phase_p99[s], err);
		jo_add(ph, nsight_rq_phase_name((enum nsight_rq_phase)s), p, err);
	}
	jo_add(o, "phases", ph, err);
	jo_add_i64(o, "tail_from_ns", g->tail_count ? g->tail_from : 0, err);
	jo_add_u64(o, "tail_count", g->tail_count, err);
	for (i = 0; i < g->n_tail; i++) {
		struct json_object *x = json_object_new_object();

		if (!x)
			*err = -1;
		jo_add_str(x, "cause", r->causes[g->tail[i].cause], err);
		jo_add_f(x, "share", g->tail[i].share, err);
		jo_add_i64(x, "excess_ns", g->tail[i].excess_ns, err);
		jo_push(tl, x, err);
	}
	jo_add(o, "tail_causes", tl, err);
	return o;
}

int nsight_requests_report_json(struct json_object *o, const struct nsight_analysis *a,
				uint32_t tail)
{
	struct nsight_requests r;
	struct json_object *top, *arr;
	size_t i;
	int err = 0;

	if (!a->cap.n_requests)
		return 0;
	if (build(&r, a, tail))
		return -1;
	top = json_object_new_object();
	arr = json_object_new_array();
	if (!top || !arr)
		err = -1;
	jo_add_u64(top, "marks", r.marks, &err);
	jo_add_u64(top, "orphans", r.orphans, &err);
	jo_add_u64(top, "bad_ops", r.bad_ops, &err);
	for (i = 0; i < r.n_groups; i++)
		jo_push(arr, group_json(&r, &r.groups[i], &err), &err);
	jo_add(top, "processes", arr, &err);
	jo_add(o, "requests", top, &err);
	nsight_requests_fini(&r);
	return err;
}
