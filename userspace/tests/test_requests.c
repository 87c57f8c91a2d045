// SPDX-License-Identifier: MIT
/*
 * Requests across threads on a synthetic two-stage server with known
 * answers: "twostage" (tid 101) receives each request on CPU 1 (a
 * message 2.7 us from the NIC), marks it begun 100 ns later and hands it
 * off 500 ns after its receive; the worker "ts-work" (tid 103) on CPU 0,
 * woken 100 ns before the hand-off, takes it up and answers it. Every
 * 10th request "stress" holds CPU 0 from before the hand-off for 40.1 us
 * of the worker's time after the hand-off. A few malformed requests follow.
 */
#include <json-c/json.h>

#include "clirun.h"
#include "diagnose/requests.h"
#include "scenario.h"

static struct cli c;

static const char *const files[] = { "twostage", "empty", NULL };

static const struct syn_task recvr = { 101, 100, "twostage" };
static const struct syn_task worker = { 103, 100, "ts-work" };

#define N_REQ	100
#define HOG_RUN	40100	/* ns the worker is runnable behind stress */

static uint64_t work_ns(size_t i)
{
	return 5000 + (i * 7919) % 2000;
}

/* A message to the receiver; its receive returns at the result. */
static uint64_t message(struct scen *sc)
{
	uint64_t n = sc->t;

	scen_msg(sc, SC_NORMAL);
	return n + 2700;
}

/* Request @i: begun, handed off, taken up by the worker and ended. */
static void request(struct scen *sc, size_t i, bool hog)
{
	uint64_t a = message(sc), r, e;

	synth_request(&sc->s, SC_Y, a + 100, recvr, NSIGHT_REQ_BEGIN, i);
	synth_waking(&sc->s, SC_Y, a + 400, worker, SC_X, recvr.tid);
	synth_request(&sc->s, SC_Y, a + 500, recvr, NSIGHT_REQ_HANDOFF, i);
	if (hog) {
		synth_idle(&sc->s, SC_X, a + 150, false);
		synth_switch(&sc->s, SC_X, a + 200, sc_swapper0, sc_stress);
		synth_switch(&sc->s, SC_X, a + 500 + HOG_RUN, sc_stress, worker);
		r = a + 500 + HOG_RUN + 100;
	} else {
		synth_idle(&sc->s, SC_X, a + 500, false);
		synth_switch(&sc->s, SC_X, a + 600, sc_swapper0, worker);
		r = a + 700;
	}
	synth_request(&sc->s, SC_X, r, worker, NSIGHT_REQ_RESUME, i);
	e = r + work_ns(i);
	synth_request(&sc->s, SC_X, e, worker, NSIGHT_REQ_END, i);
	synth_switch_st(&sc->s, SC_X, e + 100, worker, sc_swapper0, 1, 0);
	synth_idle(&sc->s, SC_X, e + 200, true);
}

static void save_twostage(void)
{
	const struct syn_task stranger = { 104, 100, "ts-other" };
	struct scen sc;
	uint64_t a;
	size_t i;

	scen_init(&sc, "twostage");
	for (i = 0; i < N_REQ; i++)
		request(&sc, i, i % 10 == 9);
	/* Handed off, never taken up. */
	a = message(&sc);
	synth_request(&sc.s, SC_Y, a + 100, recvr, NSIGHT_REQ_BEGIN, 1000);
	synth_request(&sc.s, SC_Y, a + 500, recvr, NSIGHT_REQ_HANDOFF, 1000);
	/* Taken up without a hand-off. */
	a = message(&sc);
	synth_request(&sc.s, SC_Y, a + 100, recvr, NSIGHT_REQ_BEGIN, 4000);
	synth_request(&sc.s, SC_Y, a + 200, recvr, NSIGHT_REQ_RESUME, 4000);
	synth_request(&sc.s, SC_Y, a + 300, recvr, NSIGHT_REQ_END, 4000);
	/* Begun by a thread that received nothing; an end alone; a bad op. */
	a = sc.t;
	synth_request(&sc.s, SC_X, a, stranger, NSIGHT_REQ_BEGIN, 3000);
	synth_request(&sc.s, SC_X, a + 100, stranger, NSIGHT_REQ_END, 3000);
	synth_request(&sc.s, SC_X, a + 200, stranger, NSIGHT_REQ_END, 2000);
	synth_request(&sc.s, SC_X, a + 300, stranger, 9, 5000);
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
	size_t i, hogs = 0;

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
		CHECK_U64(q->phase_ns[NSIGHT_RQ_QUEUED], hog ? HOG_RUN + 100 : 200);
		CHECK_U64(q->phase_ns[NSIGHT_RQ_WORKER], (int64_t)work_ns(q->id));
		CHECK_U64(q->total_ns, 2700 + 500 + q->phase_ns[NSIGHT_RQ_QUEUED] +
				       (int64_t)work_ns(q->id));
	}
	CHECK_U64(hogs, N_REQ / 10);
	CHECK_U64(g->phase_p50[NSIGHT_RQ_QUEUED], 200);
	/* The tail: the 10 slow ones and the slowest of the others. */
	CHECK_U64(g->tail_count, N_REQ / 10 + 1);
	REQUIRE(g->n_tail > 0);
	CHECK_STR_HAS(r.causes[g->tail[0].cause], "queued: worker preempted by task:stress");
	CHECK_U64(g->tail[0].excess_ns, (N_REQ / 10) * HOG_RUN);
	CHECK(g->tail[0].share > 0.95);
	CHECK(cause(&r, g, "worker: running"));
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
	CHECK_STR_HAS(res.out, "  begun most by tid 101, ended most by tid 103; 0 complete with their response\n");
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
	REQUIRE(json_object_object_get_ex(p, "tail_causes", &x));
	x = json_object_array_get_idx(x, 0);
	REQUIRE(x);
	CHECK(json_object_object_get_ex(x, "excess_ns", &p) &&
	      json_object_get_int64(p) == (N_REQ / 10) * HOG_RUN);
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
