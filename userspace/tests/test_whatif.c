// SPDX-License-Identifier: MIT
/*
 * What-if predictions (--what-if) on synthetic captures with known
 * answers: removing the injected cause must predict the clean capture's
 * latencies exactly, scaling it half of it, queues behind it included;
 * specs, roles, functions,
 * lost records, the next bottleneck, text and JSON.
 */
#include <json-c/json.h>

#include "clirun.h"
#include "whatif_run.h"

static struct cli c;

/* Every complete RX message's prediction is @slow for the slow ones, 2700 for the others. */
static void check_preds(const struct run *r, size_t n, int64_t slow)
{
	size_t i, bad = 0;

	for (i = 0; i < n && i < r->a.lt.n; i++)
		bad += r->wi.pred[i] != (i % 8 == 7 ? slow : 2700);
	CHECK_U64(bad, 0);
	CHECK_U64(r->a.lt.n, n);
}

static void test_parse(void)
{
	struct nsight_wi_spec s;
	struct nsight_diag d = { 0 };
	char buf[320];

	CHECK(nsight_whatif_parse(&s, "remove:stress interference (A)", &d) == 0);
	CHECK(s.remove && s.role == NSIGHT_ROLE_A && !strcmp(s.category, "stress interference"));
	CHECK_STR_HAS(nsight_whatif_spec_format(&s, buf, sizeof(buf)), "remove stress interference (A)");
	CHECK(nsight_whatif_parse(&s, "scale: Page faults =0.25", &d) == 0);
	CHECK(!s.remove && s.role == -1 && s.factor == 0.25 && !strcmp(s.category, "Page faults"));
	CHECK(nsight_whatif_parse(&s, "scale:Receive processing (R)=2", &d) == 0);
	CHECK(s.role == NSIGHT_ROLE_R && s.factor == 2);
	CHECK(nsight_whatif_parse(&s, "drop:x", &d) == -NSIGHT_E_INVAL);
	CHECK_STR_HAS(d.msg, "expected remove:CAUSE or scale:CAUSE=FACTOR");
	CHECK(nsight_whatif_parse(&s, "scale:x", &d) == -NSIGHT_E_INVAL);
	CHECK(nsight_whatif_parse(&s, "scale:x=-1", &d) == -NSIGHT_E_INVAL);
	CHECK(nsight_whatif_parse(&s, "scale:x=0.5y", &d) == -NSIGHT_E_INVAL);
	CHECK(nsight_whatif_parse(&s, "scale:x=nan", &d) == -NSIGHT_E_INVAL);
	CHECK(nsight_whatif_parse(&s, "remove: (A)", &d) == -NSIGHT_E_INVAL);
	CHECK_STR_HAS(d.msg, "no cause");
}

/*
 * The hog: stress holds Y for 50 us from before h; the server runs at h +
 * 50000 for 1000 ns. Without it the core idles 1000 ns before the server
 * wakes, as in every other message: 51700 - 50000 + 1000 = 2700, the
 * clean latency. Half of it: 51700 - 25000 + 1000 = 27700.
 */
static void test_hog(void)
{
	struct scen sc;
	struct run r;
	const struct nsight_wi_group *g;

	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_HOG, 8, 7);
	REQUIRE(predict(&sc, "remove:stress interference (A)", &r) == 0);
	REQUIRE(r.wi.n == 1);
	g = &r.wi.groups[0];
	CHECK(r.wi.found);
	CHECK_U64(g->messages, 40);
	CHECK_U64(g->changed, 5);
	CHECK_U64(g->removed, 5 * 49000);
	CHECK_U64(g->now[1], 51700);
	CHECK_U64(g->pred[0], 2700);
	CHECK_U64(g->pred[1], 2700);
	CHECK_U64(g->pred[2], 2700);
	CHECK_U64(g->pred_max, 2700);
	CHECK(!g->has_next);
	check_preds(&r, 40, 2700);
	run_fini(&r, &sc);

	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_HOG, 8, 7);
	REQUIRE(predict(&sc, "scale:stress interference=0.5", &r) == 0);
	g = &r.wi.groups[0];
	check_preds(&r, 40, 27700);
	CHECK_U64(g->pred[1], 27700);
	/* Still the largest excess in the predicted tail: 25000 each. */
	CHECK(g->has_next && !strcmp(g->next, "stress interference (A)"));
	CHECK_U64(g->next_main, 5);
	CHECK_U64(g->next_total, 5 * 25000);
	run_fini(&r, &sc);

	/* The receive core never ran it: nothing changes. */
	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_HOG, 8, 7);
	REQUIRE(predict(&sc, "remove:stress interference (R)", &r) == 0);
	CHECK(!r.wi.found);
	CHECK_U64(r.wi.groups[0].changed, 0);
	check_preds(&r, 40, 51700);
	CHECK(r.wi.groups[0].has_next && !strcmp(r.wi.groups[0].next, "stress interference (A)"));
	run_fini(&r, &sc);
}

/*
 * NET_RX runs 40 us inside the server on Y (latency 42700): removing
 * "Receive processing (A)" gives 2700; with sampled stacks the function
 * nsight_slow_rcv ("Receive processing: nsight_slow_rcv [nsight_slowpath]",
 * 35 us of it) goes with its category, or alone: 7700.
 */
static void test_receive_and_functions(void)
{
	struct scen sc;
	struct run r;

	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_NETRX, 8, 7);
	REQUIRE(predict(&sc, "remove:Receive processing (A)", &r) == 0);
	check_preds(&r, 40, 2700);
	run_fini(&r, &sc);

	scen_init(&sc, "server");
	sc.s.ksyms = SC_KSYMS;
	scen_run(&sc, 40, SC_NETRX_FN, 8, 7);
	REQUIRE(predict(&sc, "remove:Receive processing (A)", &r) == 0);
	check_preds(&r, 40, 2700);
	run_fini(&r, &sc);

	scen_init(&sc, "server");
	sc.s.ksyms = SC_KSYMS;
	scen_run(&sc, 40, SC_NETRX_FN, 8, 7);
	REQUIRE(predict(&sc, "remove:Receive processing: nsight_slow_rcv [nsight_slowpath] (A)", &r) == 0);
	check_preds(&r, 40, 7700);
	/* What is left of the softirq is next. */
	CHECK(r.wi.groups[0].has_next && !strcmp(r.wi.groups[0].next, "Receive processing (A)"));
	run_fini(&r, &sc);
}

/*
 * A queue behind the hog, re-run in order: @k datagrams @spacing ns apart
 * wait while stress holds Y for 50 us, then the server takes them one
 * after the other (@work ns each). Removing stress must predict every
 * latency of the same workload without it (scen_queue(..., false)),
 * exactly: the queueing the hog made goes, the queueing the work makes
 * stays.
 */
static void check_queue(size_t k, uint64_t spacing, uint64_t work, const int64_t *want)
{
	struct scen sc, sc_clean;
	struct run r, clean;
	size_t i, bad = 0, changed = 0;

	scen_init(&sc, "server");
	scen_run(&sc, 16, SC_NORMAL, 0, 0);
	scen_queue(&sc, k, spacing, work, true);
	scen_run(&sc, 4, SC_NORMAL, 0, 0);
	REQUIRE(predict(&sc, "remove:stress interference (A)", &r) == 0);
	scen_init(&sc_clean, "server");
	scen_run(&sc_clean, 16, SC_NORMAL, 0, 0);
	scen_queue(&sc_clean, k, spacing, work, false);
	scen_run(&sc_clean, 4, SC_NORMAL, 0, 0);
	REQUIRE(predict(&sc_clean, "remove:stress interference (A)", &clean) == 0);
	CHECK_U64(r.a.lt.n, 20 + k);
	CHECK_U64(clean.a.lt.n, r.a.lt.n);
	for (i = 0; i < r.a.lt.n && i < clean.a.lt.n; i++) {
		bad += r.wi.pred[i] != clean.a.lt.msgs[i].total_ns;
		changed += r.wi.pred[i] != r.a.lt.msgs[i].total_ns;
	}
	CHECK_U64(bad, 0);
	CHECK_U64(changed, k);
	for (i = 0; i < k && 16 + i < r.a.lt.n; i++) {
		CHECK_U64(clean.a.lt.msgs[16 + i].total_ns, want[i]);
		CHECK_U64(r.wi.pred[16 + i], want[i]);
	}
	run_fini(&r, &sc);
	run_fini(&clean, &sc_clean);
}

static void test_queue(void)
{
	/*
	 * Arrivals slower than the work: behind the hog, 51700 - 6000 i
	 * (51700, 45700, 39700, 33700); without it none waits: 2700 each.
	 * Predicting each on its own gave 2700, 6700, 10700, 14700: the
	 * later ones kept the work on those before them.
	 */
	check_queue(4, 10000, 3000, (const int64_t[]){ 2700, 2700, 2700, 2700 });
	/*
	 * Arrivals faster than the work (5 us apart, 20 us each): without
	 * the hog the i-th still waits for the i before it, 2700 + 16000 i.
	 */
	check_queue(4, 5000, 20000, (const int64_t[]){ 2700, 18700, 34700, 50700 });
}

/* A message whose window lost records is left out and counted. */
static void test_drops(void)
{
	struct scen sc;
	struct run r;

	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_HOG, 8, 7);
	scen_msg(&sc, SC_DROP);
	REQUIRE(predict(&sc, "remove:stress interference (A)", &r) == 0);
	CHECK_U64(r.wi.groups[0].messages, 40);
	CHECK_U64(r.wi.groups[0].skipped_lost + r.a.lt.n - r.a.lt.n_complete, 1);
	CHECK_U64(r.wi.groups[0].pred_max, 2700);
	run_fini(&r, &sc);
}

/*
 * Two causes in one capture: the hog in the first 40 messages, NET_RX
 * inside the server in the next 40 (every 8th message slow in each).
 * Removing the hog predicts its messages clean and names the receive
 * processing next; removing both predicts every message clean. The
 * factors of two specs on one cause multiply.
 */
static void test_stacked(void)
{
	static const char *const both[] = { "remove:stress interference (A)",
					    "remove:Receive processing (A)" };
	static const char *const halves[] = { "scale:stress interference=0.5",
					      "scale:stress interference (A)=0.5" };
	static const char *const nine[NSIGHT_WI_MAX_SPECS + 1] = {
		"remove:a", "remove:b", "remove:c", "remove:d", "remove:e", "remove:f",
		"remove:g", "remove:h", "remove:i" };
	const struct nsight_wi_group *g;
	struct scen sc;
	struct run r;
	size_t i, bad;

	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_HOG, 8, 7);
	scen_run(&sc, 40, SC_NETRX, 8, 7);
	REQUIRE(predict_n(&sc, both, 1, &r) == 0);
	REQUIRE(r.wi.n == 1 && r.a.lt.n == 80);
	g = &r.wi.groups[0];
	for (i = 0, bad = 0; i < r.a.lt.n; i++)
		bad += r.wi.pred[i] != (i >= 40 && i % 8 == 7 ? 42700 : 2700);
	CHECK_U64(bad, 0);
	CHECK_U64(g->changed, 5);
	CHECK(g->has_next && !strcmp(g->next, "Receive processing (A)"));
	CHECK_U64(g->next_main, 5);
	run_fini(&r, &sc);

	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_HOG, 8, 7);
	scen_run(&sc, 40, SC_NETRX, 8, 7);
	REQUIRE(predict_n(&sc, both, 2, &r) == 0);
	g = &r.wi.groups[0];
	for (i = 0, bad = 0; i < r.a.lt.n; i++)
		bad += r.wi.pred[i] != 2700;
	CHECK_U64(bad, 0);
	CHECK_U64(g->changed, 10);
	CHECK(r.wi.found_spec[0] && r.wi.found_spec[1] && !g->has_next);
	CHECK_U64(g->pred_max, 2700);
	run_fini(&r, &sc);

	/* A quarter of the hog's 50 us: 51700 - 37500 + the idle's 1000. */
	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_HOG, 8, 7);
	REQUIRE(predict_n(&sc, halves, 2, &r) == 0);
	check_preds(&r, 40, 15200);
	run_fini(&r, &sc);

	/* A second cause no message has: found, but not in the last spec. */
	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_HOG, 8, 7);
	REQUIRE(predict_n(&sc, (const char *const[]){ both[0], "remove:nothing like it" }, 2,
			  &r) == 0);
	CHECK(r.wi.found && r.wi.found_spec[0] && !r.wi.found_spec[1]);
	check_preds(&r, 40, 2700);
	run_fini(&r, &sc);

	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_HOG, 8, 7);
	CHECK(predict_n(&sc, nine, NSIGHT_WI_MAX_SPECS + 1, &r) == -NSIGHT_E_INVAL);
	run_fini(&r, &sc);
}

static void test_cli(void)
{
	const char *hog = cli_file(&c, "hog");
	struct json_object *j = NULL, *w, *g, *v;
	struct cli_result r;
	struct scen sc;

	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_HOG, 8, 7);
	REQUIRE(scen_save(&sc, hog) == 0);

	cli_run(&c, &r, NULL, (const char *[]){ "--what-if", "remove:stress interference (A)", hog, NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out,
		"what-if: remove stress interference (A)\n"
		"  server[100] rx: 40 messages, 5 changed, 245us removed\n"
		"                     p50       p99     p99.9       max\n"
		"    now           2.70us    51.7us    51.7us    51.7us\n"
		"    predicted     2.70us    2.70us    2.70us    2.70us\n"
		"    next bottleneck: none of at least 1.00us in the 40 predicted tail messages (>= p90)\n");
	CHECK(r.out && strstr(r.out, "\ndiagnosis: ") < strstr(r.out, "\nwhat-if: "));
	cli_result_free(&r);

	cli_run(&c, &r, NULL, (const char *[]){ "--what-if", "remove:nothing like it", hog, NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "no message has time in this cause");
	cli_result_free(&r);

	cli_run(&c, &r, NULL, (const char *[]){ "--json", "--what-if", "scale:stress interference (A)=0.5", hog, NULL });
	CHECK_U64(r.status, 0);
	j = r.out ? json_tokener_parse(r.out) : NULL;
	REQUIRE(j);
	CHECK(json_object_object_get_ex(j, "what_if", &w));
	CHECK(json_object_object_get_ex(w, "groups", &g) && json_object_array_length(g) == 1);
	g = json_object_array_get_idx(g, 0);
	CHECK(g && json_object_object_get_ex(g, "predicted", &v) &&
	      json_object_object_get_ex(v, "p99", &v) && json_object_get_int64(v) == 27700);
	CHECK(g && json_object_object_get_ex(g, "next_bottleneck", &v) &&
	      json_object_object_get_ex(v, "cause", &v) &&
	      !strcmp(json_object_get_string(v), "stress interference (A)"));
	json_object_put(j);
	cli_result_free(&r);

	/* Stacked: two steps in the text and in "what_if_steps". */
	cli_run(&c, &r, NULL, (const char *[]){ "--what-if", "remove:stress interference (A)",
						"--what-if", "remove:nothing like it", hog, NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "what-if step 1: remove stress interference (A)\n"
			     "  server[100] rx: 40 messages, 5 changed, 245us removed\n");
	CHECK_STR_HAS(r.out, "what-if step 2: remove stress interference (A), then remove nothing like it\n"
			     "  no message has time in nothing like it: this step changes nothing\n");
	cli_result_free(&r);
	cli_run(&c, &r, NULL, (const char *[]){ "--json", "--what-if", "remove:stress interference (A)",
						"--what-if", "scale:Receive processing=0.5", hog, NULL });
	CHECK_U64(r.status, 0);
	j = r.out ? json_tokener_parse(r.out) : NULL;
	REQUIRE(j);
	CHECK(json_object_object_get_ex(j, "what_if_steps", &w) && json_object_array_length(w) == 2);
	CHECK(json_object_object_get_ex(j, "what_if", &w) &&
	      json_object_object_get_ex(w, "specs", &v) && json_object_array_length(v) == 2 &&
	      !strcmp(json_object_get_string(json_object_array_get_idx(v, 1)),
		      "scale Receive processing by 0.5"));
	CHECK(json_object_object_get_ex(w, "spec", &v) &&
	      !strcmp(json_object_get_string(v),
		      "remove stress interference (A), then scale Receive processing by 0.5"));
	json_object_put(j);
	cli_result_free(&r);
	{
		const char *argv[2 * NSIGHT_WI_MAX_SPECS + 4];
		size_t k, n = 0;

		for (k = 0; k <= NSIGHT_WI_MAX_SPECS; k++) {
			argv[n++] = "--what-if";
			argv[n++] = "remove:x";
		}
		argv[n++] = hog;
		argv[n] = NULL;
		cli_run(&c, &r, NULL, argv);
		CHECK_U64(r.status, 2);
		CHECK_STR_HAS(r.err, "more than 8 --what-if");
		cli_result_free(&r);
	}

	cli_run(&c, &r, NULL, (const char *[]){ "--what-if", "scale:x=y", hog, NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "bad --what-if 'scale:x=y': bad factor (0 to 100)");
	cli_result_free(&r);
}

static void setup(void)
{
	REQUIRE(cli_init(&c) == 0);
}

static void cleanup(void)
{
	static const char *const files[] = { "hog", NULL };

	CHECK(cli_fini(&c, files) == 0);
}

KTAP_MAIN(
	KTAP_TEST(setup),
	KTAP_TEST(test_parse),
	KTAP_TEST(test_hog),
	KTAP_TEST(test_receive_and_functions),
	KTAP_TEST(test_queue),
	KTAP_TEST(test_drops),
	KTAP_TEST(test_stacked),
	KTAP_TEST(test_cli),
	KTAP_TEST(cleanup),
)
