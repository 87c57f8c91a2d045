// SPDX-License-Identifier: MIT
/*
 * Requests across threads on a synthetic two-stage server with known
 * answers (scen_twostage(), scenario.h): each request's phases to the
 * nanosecond, the response each one is joined with (the worker's send
 * between its resume and end marks, not one after the end), the tail's
 * first cause ("stress" on the worker's CPU) and its excess, the
 * malformed requests by kind, text and JSON.
 */
#include <json-c/json.h>

#include "base/sort.h"
#include "clirun.h"
#include "diagnose/requests.h"
#include "scenario.h"

static struct cli c;

static const char *const files[] = { "twostage", "empty", NULL };

#define N_REQ	100

static void save_twostage(void)
{
	struct scen sc;
	size_t i;

	scen_init(&sc, "twostage");
	scen_twostage(&sc, N_REQ);
	REQUIRE(scen_save(&sc, cli_file(&c, "twostage")) == 0);
	/* The same server without marks. */
	scen_init(&sc, "twostage");
	for (i = 0; i < 20; i++)
		scen_msg(&sc, SC_NORMAL);
	REQUIRE(scen_save(&sc, cli_file(&c, "empty")) == 0);
}

static const struct nsight_rq_tail_cause *cause(const struct nsight_requests *r,
						const struct nsight_rq_group *g,
						const char *name)
{
	size_t i;

	for (i = 0; i < g->n_tail; i++)
		if (!strcmp(r->causes[g->tail[i].cause], name))
			return &g->tail[i];
	return NULL;
}

static void test_build(void)
{
	struct nsight_analysis a;
	struct nsight_requests r;
	struct nsight_diag d = { 0 };
	const struct nsight_rq_group *g;
	size_t i, hogs = 0, late = 0;

	REQUIRE(synth_analyze_file(&a, cli_file(&c, "twostage")) == 0);
	REQUIRE(nsight_requests_build(&r, &a.cap, &a.lt, &a.chains, a.keys, 90000, &d) == 0);
	CHECK_U64(r.marks, 4 * N_REQ + 2 + 3 + 2 + 2);
	CHECK_U64(r.orphans, 1);
	CHECK_U64(r.bad_ops, 1);
	REQUIRE(r.n_groups == 1);
	g = &r.groups[0];
	CHECK_U64(g->pid, 100);
	CHECK(!strcmp(g->comm, "twostage"));
	CHECK_U64(g->count, N_REQ + 3);
	CHECK_U64(g->complete, N_REQ);
	CHECK_U64(g->by_state[NSIGHT_RQ_NO_END], 1);
	CHECK_U64(g->by_state[NSIGHT_RQ_BAD_ORDER], 1);
	CHECK_U64(g->by_state[NSIGHT_RQ_NO_MESSAGE], 1);
	CHECK_U64(g->receiver, 101);
	CHECK_U64(g->worker, 103);
	/* Each complete request's phases, to the nanosecond. */
	for (i = 0; i < r.n; i++) {
		const struct nsight_rq *q = &r.v[i];
		bool hog;

		if (q->state != NSIGHT_RQ_COMPLETE)
			continue;
		hog = q->id % 10 == 9;
		hogs += hog;
		CHECK_U64(q->hops, 1);
		CHECK_U64(q->phase_ns[NSIGHT_RQ_RECEIVE], 2700);
		CHECK_U64(q->phase_ns[NSIGHT_RQ_RECEIVER], 500);
		CHECK_U64(q->phase_ns[NSIGHT_RQ_QUEUED], hog ? SC_HOG_RUN + 100 : 200);
		CHECK_U64(q->phase_ns[NSIGHT_RQ_WORKER], (int64_t)sc_work_ns(q->id));
		CHECK_U64(q->total_ns, 2700 + 500 + q->phase_ns[NSIGHT_RQ_QUEUED] +
				       (int64_t)sc_work_ns(q->id));
		/* Its response: the worker's datagram before the end, if any. */
		if (sc_late(q->id)) {
			late++;
			CHECK_U64(q->resp, 0);
		} else {
			const struct nsight_msg *m;

			REQUIRE(q->resp > 0 && q->resp <= a.lt.n);
			m = &a.lt.msgs[q->resp - 1];
			CHECK_U64(m->dir, NSIGHT_MSG_TX);
			CHECK_U64(m->tid, 103);
			CHECK_U64(m->t[NSIGHT_TX_SEND].tsc, q->end - SC_ANSWER);
			CHECK_U64(m->reason, NSIGHT_MSG_COMPLETE);
			CHECK(q->resp != q->msg);
		}
	}
	CHECK_U64(hogs, N_REQ / 10);
	CHECK_U64(late, N_REQ / 10);
	CHECK_U64(g->with_response, N_REQ - late);
	CHECK_U64(g->phase_p50[NSIGHT_RQ_QUEUED], 200);
	/* The tail: the 10 slow ones and the slowest of the others. */
	CHECK_U64(g->tail_count, N_REQ / 10 + 1);
	REQUIRE(g->n_tail > 0);
	CHECK_STR_HAS(r.causes[g->tail[0].cause], "queued: worker preempted by task:stress");
	CHECK_U64(g->tail[0].excess_ns, (N_REQ / 10) * SC_HOG_RUN);
	CHECK(g->tail[0].share > 0.95);
	/* The worker's running time: beyond its median in the tail, by hand. */
	{
		int64_t w[N_REQ], med, excess = 0;
		const struct nsight_rq_tail_cause *wr = cause(&r, g, "worker: running");

		for (i = 0; i < N_REQ; i++)
			w[i] = (int64_t)sc_work_ns(i);
		nsight_sort_i64(w, N_REQ);
		med = w[(N_REQ + 1) / 2 - 1];
		for (i = 0; i < r.n; i++)
			if (r.v[i].state == NSIGHT_RQ_COMPLETE && r.v[i].total_ns >= g->tail_from &&
			    (int64_t)sc_work_ns(r.v[i].id) > med)
				excess += (int64_t)sc_work_ns(r.v[i].id) - med;
		REQUIRE(wr);
		CHECK_U64(wr->excess_ns, excess);
		CHECK(excess > 0);
	}
	/* The wake-up on an idle CPU: in the normal ones alone, no tail. */
	for (i = 0; i < r.n_causes; i++)
		if (!strcmp(r.causes[i], "queued: worker runnable, its CPU idle"))
			break;
	CHECK(i < r.n_causes);
	CHECK(!cause(&r, g, "queued: worker runnable, its CPU idle"));
	nsight_requests_fini(&r);
	nsight_analysis_fini(&a);
}

static void test_report(void)
{
	struct json_object *j = NULL, *p, *x;
	struct cli_result res;

	cli_run(&c, &res, NULL, (const char *[]){ "--verbose", cli_file(&c, "twostage"), NULL });
	CHECK_U64(res.status, 0);
	CHECK_STR_HAS(res.out, "requests: twostage[100]: 103 marked, 100 complete (incomplete: 1 no-end, 1 bad-order, 1 no-message)\n");
	CHECK_STR_HAS(res.out, "  begun most by tid 101, ended most by tid 103; 90 complete with their response\n");
	CHECK_STR_HAS(res.out, "  phases p50/p99: receive 2700 ns/2700 ns, receiving thread 500 ns/500 ns, queued 200 ns/40200 ns");
	CHECK_STR_HAS(res.out, "     99%  queued: worker preempted by task:stress  (36454 ns per tail request)\n");
	CHECK_STR_HAS(res.out, "requests: 1 marks with no begin before them, 1 with an unknown op\n");
	cli_result_free(&res);

	cli_run(&c, &res, NULL, (const char *[]){ "--json", cli_file(&c, "twostage"), NULL });
	CHECK_U64(res.status, 0);
	if (res.out)
		j = json_tokener_parse(res.out);
	REQUIRE(j);
	REQUIRE(json_object_object_get_ex(j, "requests", &p));
	CHECK(json_object_object_get_ex(p, "orphans", &x) && json_object_get_int64(x) == 1);
	REQUIRE(json_object_object_get_ex(p, "processes", &p));
	p = json_object_array_get_idx(p, 0);
	REQUIRE(p);
	CHECK(json_object_object_get_ex(p, "complete", &x) && json_object_get_int64(x) == N_REQ);
	CHECK(json_object_object_get_ex(p, "with_response", &x) &&
	      json_object_get_int64(x) == N_REQ - N_REQ / 10);
	REQUIRE(json_object_object_get_ex(p, "tail_causes", &x));
	x = json_object_array_get_idx(x, 0);
	REQUIRE(x);
	CHECK(json_object_object_get_ex(x, "excess_ns", &p) &&
	      json_object_get_int64(p) == (N_REQ / 10) * SC_HOG_RUN);
	json_object_put(j);
	cli_result_free(&res);

	/* No marks: no section in either form. */
	cli_run(&c, &res, NULL, (const char *[]){ "--verbose", cli_file(&c, "empty"), NULL });
	CHECK_U64(res.status, 0);
	CHECK(res.out && !strstr(res.out, "requests:"));
	cli_result_free(&res);
	cli_run(&c, &res, NULL, (const char *[]){ "--json", cli_file(&c, "empty"), NULL });
	CHECK(res.out && !strstr(res.out, "\"requests\""));
	cli_result_free(&res);
}

static void test_setup(void)
{
	REQUIRE(cli_init(&c) == 0);
	save_twostage();
}

static void test_cleanup(void)
{
	CHECK(cli_fini(&c, files) == 0);
}

KTAP_MAIN(KTAP_TEST(test_setup), KTAP_TEST(test_build), KTAP_TEST(test_report),
	  KTAP_TEST(test_cleanup))
