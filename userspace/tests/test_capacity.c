// SPDX-License-Identifier: MIT
/*
 * Capacity predictions (capacity.h, through --what-if) on synthetic
 * captures (scenario.h) whose cores' work is known: the server works
 * 4100 ns a message on CPU 1 (switched in 1000 ns before its receive
 * returns, 3100 ns after it), the receive windows [n, h] on CPU 0 are 700
 * ns of softirq, and CPU 0's irq and the softirq's rest take 1600 ns more
 * a message. Messages arrive every 200 us; the span from the first return
 * to the last holds 39 cycles of 40 messages.
 */
#include <json-c/json.h>
#include <math.h>

#include "clirun.h"
#include "whatif_run.h"

static struct cli c;

/* The server's RX group's capacity; NULL (and a failed check) if there is none. */
static const struct nsight_capacity *cap_of(const struct run *r)
{
	size_t i;

	for (i = 0; i < r->wi.n; i++)
		if (r->wi.groups[i].dir == NSIGHT_MSG_RX && r->wi.groups[i].has_cap)
			return &r->wi.groups[i].cap;
	CHECK(!"an rx group with a capacity");
	return NULL;
}

/* @got within a millionth of @want. */
#define CHECK_RATE(got, want) do {						\
	double g_ = (got), w_ = (want);						\
	if (!(fabs(g_ - w_) <= w_ * 1e-6)) {					\
		printf("# %s:%d: %s = %.3f, expected %.3f\n", __FILE__, __LINE__, #got, \
		       g_, w_);							\
		CHECK(0);							\
	}									\
} while (0)

/* 4100 ns a message on CPU 1, nothing else there: 1 / 4100 ns; CPU 0 next. */
static void test_clean(void)
{
	const struct nsight_capacity *cp;
	struct scen sc;
	struct run r;

	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_NORMAL, 0, 0);
	REQUIRE(predict(&sc, "remove:stress interference (A)", &r) == 0);
	cp = cap_of(&r);
	if (cp) {
		CHECK_U64(cp->messages, 40);
		CHECK_RATE(cp->offered, 39 / (39 * 200000e-9));
		CHECK(cp->now.ok && cp->pred.ok);
		CHECK_RATE(cp->now.rate, 1 / 4100e-9);
		CHECK_RATE(cp->pred.rate, 1 / 4100e-9);
		CHECK_U64(cp->now.cpu, SC_Y);
		CHECK_U64(cp->now.role, NSIGHT_ROLE_A);
		CHECK_U64(cp->now.per_msg, 4100);
		CHECK(cp->now.other == 0);
		/* CPU 0: 700 ns a message, 1600 of every 200000 ns taken by the rest. */
		CHECK(cp->now.has_next && cp->now.next_cpu == SC_X &&
		      cp->now.next_role == NSIGHT_ROLE_R);
		CHECK_RATE(cp->now.next_rate, (1 - 1600 / 200000.0) / 700e-9);
	}
	run_fini(&r, &sc);
}

/*
 * The hog: stress holds CPU 1 for 53 us in every 8th message (5 of 40),
 * over a span of 39 * 200 us + the last one's 49 us longer latency. Now:
 * what is left of the core over 4100 ns; without it, the clean capacity.
 */
static void test_hog(void)
{
	const struct nsight_capacity *cp;
	double span = 39 * 200000.0 + 49000;
	struct scen sc;
	struct run r;

	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_HOG, 8, 7);
	REQUIRE(predict(&sc, "remove:stress interference (A)", &r) == 0);
	cp = cap_of(&r);
	if (cp) {
		CHECK(cp->now.ok && cp->pred.ok);
		CHECK_RATE(cp->now.rate, (1 - 5 * 53000 / span) / 4100e-9);
		CHECK_RATE(cp->now.other, 5 * 53000 / span);
		CHECK_RATE(cp->pred.rate, 1 / 4100e-9);
		CHECK(cp->pred.other == 0);
		CHECK_U64(cp->pred.per_msg, 4100);
	}
	run_fini(&r, &sc);

	/* Half of it: half of the share. */
	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_HOG, 8, 7);
	REQUIRE(predict(&sc, "scale:stress interference=0.5", &r) == 0);
	cp = cap_of(&r);
	if (cp)
		CHECK_RATE(cp->pred.rate, (1 - 2.5 * 53000 / span) / 4100e-9);
	run_fini(&r, &sc);

	/* Not the receive core's: nothing changes. */
	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_HOG, 8, 7);
	REQUIRE(predict(&sc, "remove:stress interference (R)", &r) == 0);
	cp = cap_of(&r);
	if (cp)
		CHECK_RATE(cp->pred.rate, cp->now.rate);
	run_fini(&r, &sc);
}

/*
 * Work of the server's own: a 30 us page fault in every 8th message (the
 * last one's included) is its work (W), and removing page faults takes it
 * out of the time a message needs.
 */
static void test_own_work(void)
{
	const struct nsight_capacity *cp;
	struct scen sc;
	struct run r;

	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_FAULT, 8, 7);
	REQUIRE(predict(&sc, "remove:Page faults (A)", &r) == 0);
	cp = cap_of(&r);
	if (cp) {
		CHECK_U64(cp->now.per_msg, llround((39 * 4100 + 5 * 30000) / 39.0));
		CHECK(cp->now.other == 0);
		CHECK_U64(cp->pred.per_msg, 4100);
		CHECK_RATE(cp->pred.rate, 1 / 4100e-9);
	}
	run_fini(&r, &sc);
}

/*
 * CPU 0 busy with a task ("bash") @busy ns before each message's irq: the
 * receive core's capacity falls to (1 - busy / 200000) / 700 ns.
 */
static void busy_rx(struct scen *sc, size_t n, uint64_t busy)
{
	static const struct syn_task bash = { 900, 900, "bash" };
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t irq = sc->t - 1500;

		synth_idle(&sc->s, SC_X, irq - busy - 100, false);
		synth_switch(&sc->s, SC_X, irq - busy, sc_swapper0, bash);
		synth_switch(&sc->s, SC_X, irq - 50, bash, sc_swapper0);
		synth_idle(&sc->s, SC_X, irq - 20, true);
		scen_msg(sc, SC_NORMAL);
	}
}

static void test_receive_core(void)
{
	const struct nsight_capacity *cp;
	struct scen sc;
	struct run r;

	/*
	 * bash runs 166000 - 50 ns, with the 1600 of interrupts: CPU 0 at
	 * (1 - 167550 / 200000) / 700 ns = 232k, under CPU 1's 244k: the
	 * bottleneck, CPU 1 next but within 10%.
	 */
	scen_init(&sc, "server");
	busy_rx(&sc, 40, 166000);
	REQUIRE(predict(&sc, "remove:stress interference (A)", &r) == 0);
	cp = cap_of(&r);
	if (cp) {
		CHECK(!cp->now.ok && !cp->pred.ok);
		CHECK_U64(cp->now.cpu, SC_X);
		CHECK_U64(cp->now.role, NSIGHT_ROLE_R);
		CHECK(cp->now.has_next && cp->now.next_cpu == SC_Y);
		CHECK_STR_HAS(cp->now.why, "CPU 0 (R) and CPU 1 (A) saturate within 10% of each other: two bottlenecks");
	}
	run_fini(&r, &sc);

	/* 180000 ns: CPU 0 alone, at (1 - 181550 / 200000) / 700 ns. */
	scen_init(&sc, "server");
	busy_rx(&sc, 40, 180000);
	REQUIRE(predict(&sc, "remove:stress interference (A)", &r) == 0);
	cp = cap_of(&r);
	if (cp) {
		CHECK(cp->now.ok);
		CHECK_U64(cp->now.cpu, SC_X);
		CHECK_U64(cp->now.per_msg, 700);
		CHECK_RATE(cp->now.rate, (1 - 181550 / 200000.0) / 700e-9);
	}
	run_fini(&r, &sc);
}

/* No prediction: too few messages, lost records. */
static void test_refused(void)
{
	const struct nsight_capacity *cp;
	struct scen sc;
	struct run r;

	scen_init(&sc, "server");
	scen_run(&sc, 19, SC_NORMAL, 0, 0);
	REQUIRE(predict(&sc, "remove:stress interference (A)", &r) == 0);
	cp = cap_of(&r);
	if (cp) {
		CHECK(!cp->now.ok && !cp->pred.ok);
		CHECK_STR_HAS(cp->now.why, "too few messages (19, at least 20)");
	}
	run_fini(&r, &sc);

	/* A message whose window lost records is left out; the core's loss stays in the span. */
	scen_init(&sc, "server");
	scen_run(&sc, 20, SC_NORMAL, 0, 0);
	scen_msg(&sc, SC_DROP);
	scen_run(&sc, 20, SC_NORMAL, 0, 0);
	REQUIRE(predict(&sc, "remove:stress interference (A)", &r) == 0);
	cp = cap_of(&r);
	if (cp) {
		CHECK(!cp->now.ok && !cp->pred.ok);
		CHECK_STR_HAS(cp->now.why, "CPU 1 (A) lost records in the messages' span");
	}
	run_fini(&r, &sc);
}

static void test_cli(void)
{
	const char *hog = cli_file(&c, "hog"), *few = cli_file(&c, "few");
	struct json_object *j = NULL, *w, *g, *cap, *v;
	struct cli_result r;
	struct scen sc;

	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_HOG, 8, 7);
	REQUIRE(scen_save(&sc, hog) == 0);
	scen_init(&sc, "server");
	scen_run(&sc, 10, SC_NORMAL, 0, 0);
	REQUIRE(scen_save(&sc, few) == 0);

	cli_run(&c, &r, NULL, (const char *[]){ "--what-if", "remove:stress interference (A)", hog, NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out,
		"    next bottleneck: none of at least 1.00us in the 40 predicted tail messages (>= p90)\n"
		"    capacity (messages/s; the capture ran at 4.97k):\n"
		"      now             236k  CPU 1 (A): 4.10us a message, other work 3.4% of it; next CPU 0 (R) at 1.42M\n"
		"      predicted       244k  CPU 1 (A): 4.10us a message, other work 0.0% of it; next CPU 0 (R) at 1.42M\n");
	cli_result_free(&r);

	cli_run(&c, &r, NULL, (const char *[]){ "--verbose", "--what-if", "remove:stress interference (A)", hog, NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "      now           235668  CPU 1 (A): 4100 a message, other work 3.4% of it; next CPU 0 (R) at 1417214\n"
			     "      predicted     243902  CPU 1 (A): 4100 a message, other work 0.0% of it; next CPU 0 (R) at 1417214\n");
	cli_result_free(&r);

	cli_run(&c, &r, NULL, (const char *[]){ "--what-if", "remove:stress interference (A)", few, NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "    capacity: no prediction, too few messages (10, at least 20)\n");
	cli_result_free(&r);

	cli_run(&c, &r, NULL, (const char *[]){ "--json", "--what-if", "remove:stress interference (A)",
						"--what-if", "remove:nothing like it", hog, NULL });
	CHECK_U64(r.status, 0);
	j = r.out ? json_tokener_parse(r.out) : NULL;
	REQUIRE(j);
	CHECK(json_object_object_get_ex(j, "what_if_steps", &w) && json_object_array_length(w) == 2);
	w = json_object_array_get_idx(w, 0);
	CHECK(w && json_object_object_get_ex(w, "groups", &g) && json_object_array_length(g) >= 1);
	g = json_object_array_get_idx(g, 0);
	CHECK(g && json_object_object_get_ex(g, "capacity", &cap) && cap);
	CHECK(json_object_object_get_ex(cap, "unit", &v) &&
	      !strcmp(json_object_get_string(v), "messages/s"));
	CHECK(json_object_object_get_ex(cap, "messages", &v) && json_object_get_int64(v) == 40);
	CHECK(json_object_object_get_ex(cap, "predicted", &v) &&
	      json_object_object_get_ex(v, "rate", &v) &&
	      fabs(json_object_get_double(v) - 1 / 4100e-9) < 1);
	CHECK(json_object_object_get_ex(cap, "now", &v) &&
	      json_object_object_get_ex(v, "cpu", &v) && json_object_get_int64(v) == 1);
	CHECK(json_object_object_get_ex(cap, "now", &v) &&
	      json_object_object_get_ex(v, "why", &v) && !v);
	json_object_put(j);
	cli_result_free(&r);

	cli_run(&c, &r, NULL, (const char *[]){ "--json", "--what-if", "remove:x", few, NULL });
	CHECK_U64(r.status, 0);
	j = r.out ? json_tokener_parse(r.out) : NULL;
	REQUIRE(j);
	CHECK(json_object_object_get_ex(j, "what_if", &w) &&
	      json_object_object_get_ex(w, "groups", &g));
	g = json_object_array_get_idx(g, 0);
	CHECK(g && json_object_object_get_ex(g, "capacity", &cap) &&
	      json_object_object_get_ex(cap, "predicted", &v));
	CHECK(json_object_object_get_ex(v, "rate", &w) && !w);
	CHECK(json_object_object_get_ex(v, "why", &w) &&
	      !strcmp(json_object_get_string(w), "too few messages (10, at least 20)"));
	json_object_put(j);
	cli_result_free(&r);
}

static void setup(void)
{
	REQUIRE(cli_init(&c) == 0);
}

static void cleanup(void)
{
	static const char *const files[] = { "hog", "few", NULL };

	CHECK(cli_fini(&c, files) == 0);
}

KTAP_MAIN(
	KTAP_TEST(setup),
	KTAP_TEST(test_clean),
	KTAP_TEST(test_hog),
	KTAP_TEST(test_own_work),
	KTAP_TEST(test_receive_core),
	KTAP_TEST(test_refused),
	KTAP_TEST(test_cli),
	KTAP_TEST(cleanup),
)
