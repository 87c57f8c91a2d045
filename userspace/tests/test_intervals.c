// SPDX-License-Identifier: MIT
/*
 * Interval tables (--intervals): occurrences summed over their stretches,
 * nesting, clipping at the edges and at lost records, off-CPU waits of
 * application threads, lifetime segments, the ranking, text and JSON.
 */
#include <json-c/json.h>

#include "clirun.h"
#include "diagnose/intervals.h"
#include "scenario.h"

static const struct syn_task bash = { 900, 900, "bash" };
static const struct syn_task server = { 101, 100, "server" };
static const struct syn_task kworker = { 40, 40, "kworker/0:1" };
static const struct syn_task swapper = { 0, 0, "swapper/0" };

static struct cli c;

static void napi(struct synth *s, uint32_t cpu, uint64_t tsc)
{
	struct nsight_rec_napi r;

	rec_hdr(&r, NSIGHT_REC_NAPI, sizeof(r), cpu, tsc);
	synth_put(s, cpu, &r, sizeof(r));
}

static const struct nsight_iv_row *row(const struct nsight_intervals *iv, enum nsight_iv_kind kind,
				       const char *name)
{
	size_t i;

	for (i = 0; i < iv->n; i++)
		if (iv->rows[i].kind == kind && !strcmp(iv->rows[i].name, name))
			return &iv->rows[i];
	return NULL;
}

/* Row (@kind, @name) has @count intervals, p50, p99, p99.99 and max as given. */
static void check_row(const struct nsight_intervals *iv, enum nsight_iv_kind kind, const char *name,
		      uint64_t count, int64_t p50, int64_t p99, int64_t p9999, int64_t max)
{
	const struct nsight_iv_row *r = row(iv, kind, name);

	if (!r) {
		KTAP_FAIL("no row %s %s", nsight_iv_kind_name(kind), name);
		return;
	}
	if (r->count != count || r->pct[0] != p50 || r->pct[1] != p99 || r->pct[2] != p9999 ||
	    r->max != max)
		KTAP_FAIL("%s %s: %" PRIu64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
			  ", expected %" PRIu64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64,
			  nsight_iv_kind_name(kind), name, r->count, r->pct[0], r->pct[1], r->pct[2],
			  r->max, count, p50, p99, p9999, max);
}

static int build(const struct synth *s, struct nsight_analysis *a, struct nsight_intervals *iv)
{
	struct nsight_diag d = { 0 };

	if (synth_analyze(s, a))
		return -1;
	if (nsight_intervals_build(iv, &a->tl, &a->lt, SYN_HZ, &d)) {
		printf("# %s\n", d.msg);
		return -1;
	}
	return 0;
}

static void test_kinds(void)
{
	struct nsight_intervals iv;
	struct nsight_analysis a;
	struct synth s;
	size_t i;

	synth_init(&s, 1);
	synth_queue(&s);
	synth_tk(&s, 0, SYN_TK_TSC);
	/* A TIMER softirq running since before the first record: clipped. */
	synth_softirq(&s, 0, 50, SYN_TIMER, false);
	synth_switch(&s, 0, 100, bash, server);
	/* NET_RX 400 ns with eth0 (100 ns) inside it. */
	synth_softirq(&s, 0, 1100, SYN_NET_RX, true);
	synth_irq(&s, 0, 1200, 30, "eth0", true);
	synth_irq(&s, 0, 1300, 30, NULL, false);
	synth_softirq(&s, 0, 1500, SYN_NET_RX, false);
	/* A work item preempted by bash: 400 + 300 ns; bash faults 200 ns meanwhile. */
	synth_switch(&s, 0, 2000, server, kworker);
	synth_work(&s, 0, 2100, "vmstat_update", true);
	synth_switch(&s, 0, 2500, kworker, bash);
	synth_fault(&s, 0, 2600, 2800, bash.tid, bash.pid, true);
	synth_switch(&s, 0, 3000, bash, kworker);
	synth_work(&s, 0, 3300, NULL, false);
	synth_switch(&s, 0, 3500, kworker, swapper);
	synth_idle(&s, 0, 3600, true);
	synth_irq(&s, 0, 4000, 31, "timer", true);
	synth_irq(&s, 0, 4050, 31, NULL, false);
	napi(&s, 0, 4500);
	/* Records lost; the CPU starts afresh. */
	synth_subbuf(&s, 0, 5000, 2);
	synth_switch(&s, 0, 5100, swapper, server);
	synth_irq(&s, 0, 5300, 30, "eth0", true);
	synth_irq(&s, 0, 5400, 30, NULL, false);
	/* Still open at the last record: clipped. */
	synth_softirq(&s, 0, 5500, SYN_NET_RX, true);
	napi(&s, 0, 6000);
	synth_flush(&s);
	REQUIRE(build(&s, &a, &iv) == 0);

	check_row(&iv, NSIGHT_IV_SOFTIRQ, "NET_RX", 1, 400, 400, 400, 400);
	check_row(&iv, NSIGHT_IV_IRQ, "eth0", 2, 100, 100, 100, 100);
	check_row(&iv, NSIGHT_IV_IRQ, "timer", 1, 50, 50, 50, 50);
	check_row(&iv, NSIGHT_IV_WORK, "vmstat_update", 1, 700, 700, 700, 700);
	check_row(&iv, NSIGHT_IV_FAULT, "user", 1, 200, 200, 200, 200);
	CHECK(!row(&iv, NSIGHT_IV_SOFTIRQ, "TIMER"));
	CHECK_U64(iv.n, 5);
	CHECK_U64(iv.intervals, 6);
	CHECK_U64(iv.clipped, 2);
	/* Ranked by p99.99. */
	for (i = 0; i + 1 < iv.n; i++)
		CHECK(iv.rows[i].pct[2] >= iv.rows[i + 1].pct[2]);
	CHECK(!strcmp(iv.rows[0].name, "vmstat_update"));
	CHECK(!strcmp(iv.rows[4].name, "timer"));
	nsight_intervals_fini(&iv);
	nsight_analysis_fini(&a);
	synth_free(&s);
}

/*
 * The hog scenario: 40 requests 200 us apart, every 8th waiting 50 us for
 * "stress". The server is off the CPU from 3100 ns after a (it sleeps in
 * its next recv) to 1000 ns after the next h: 195900 ns, 244900 after a
 * hog; the first wait, from its switch at 100 to the first wake-up at
 * 101700, is 101600.
 */
static void test_offcpu_and_segments(void)
{
	struct nsight_intervals iv;
	struct nsight_analysis a;
	struct scen sc;

	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_HOG, 8, 7);
	synth_flush(&sc.s);
	REQUIRE(build(&sc.s, &a, &iv) == 0);
	/* 35 of 195900, 4 of 244900 (a hog after every 8th), the first. */
	check_row(&iv, NSIGHT_IV_OFFCPU, "server[100] tid 101", 40, 195900, 244900, 244900, 244900);
	check_row(&iv, NSIGHT_IV_SEGMENT, "server[100] rx n->h", 40, 700, 700, 700, 700);
	check_row(&iv, NSIGHT_IV_SEGMENT, "server[100] rx h->a", 40, 2000, 51000, 51000, 51000);
	check_row(&iv, NSIGHT_IV_SOFTIRQ, "NET_RX", 40, 2000, 2000, 2000, 2000);
	check_row(&iv, NSIGHT_IV_IRQ, "eth0", 40, 300, 300, 300, 300);
	CHECK_U64(iv.clipped, 0);
	CHECK(iv.n == 5 && iv.rows[0].kind == NSIGHT_IV_OFFCPU);
	nsight_intervals_fini(&iv);
	nsight_analysis_fini(&a);
	synth_free(&sc.s);

	/* Records lost on Y in a 41st message: the waits next to it are unknown. */
	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_HOG, 8, 7);
	scen_msg(&sc, SC_DROP);
	synth_flush(&sc.s);
	REQUIRE(build(&sc.s, &a, &iv) == 0);
	check_row(&iv, NSIGHT_IV_OFFCPU, "server[100] tid 101", 40, 195900, 244900, 244900, 244900);
	CHECK_U64(iv.clipped, 1);
	nsight_intervals_fini(&iv);
	nsight_analysis_fini(&a);
	synth_free(&sc.s);
}

/* Sampled functions are intervals too. */
static void test_functions(void)
{
	struct nsight_intervals iv;
	struct nsight_analysis a;
	struct scen sc;
	size_t i, funcs = 0;

	scen_init(&sc, "server");
	sc.s.ksyms = SC_KSYMS;
	scen_run(&sc, 20, SC_NETRX_FN, 4, 3);
	synth_flush(&sc.s);
	REQUIRE(build(&sc.s, &a, &iv) == 0);
	for (i = 0; i < iv.n; i++)
		funcs += iv.rows[i].kind == NSIGHT_IV_FUNC;
	CHECK(funcs > 0);
	/* Seven samples 5 us apart: 35 us, in each of the 5 slow messages. */
	check_row(&iv, NSIGHT_IV_FUNC, "softirq:NET_RX > nsight_slow_rcv [nsight_slowpath]", 5,
		  35000, 35000, 35000, 35000);
	nsight_intervals_fini(&iv);
	nsight_analysis_fini(&a);
	synth_free(&sc.s);
}

static void test_cli(void)
{
	const char *hog = cli_file(&c, "hog");
	struct json_object *j = NULL, *arr, *r0, *v;
	struct cli_result r;
	struct scen sc;

	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_HOG, 8, 7);
	REQUIRE(scen_save(&sc, hog) == 0);

	cli_run(&c, &r, NULL, (const char *[]){ "--intervals", hog, NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out,
		"intervals: 200 of 4 kinds, ranked by p99.99; 0 left out (cut by capture edges or lost records)\n"
		"  kind     name                  count       p50       p99    p99.99       max\n"
		"  offcpu   server[100] tid 101      40     196us     245us     245us     245us\n"
		"  segment  server[100] rx h->a      40    2.00us    51.0us    51.0us    51.0us\n"
		"  softirq  NET_RX                   40    2.00us    2.00us    2.00us    2.00us\n"
		"  segment  server[100] rx n->h      40     700ns     700ns     700ns     700ns\n"
		"  irq      eth0                     40     300ns     300ns     300ns     300ns\n");
	/* After the diagnosis. */
	CHECK(r.out && strstr(r.out, "\ndiagnosis: ") < strstr(r.out, "\nintervals: "));
	cli_result_free(&r);

	cli_run_verbose(&c, &r, NULL, (const char *[]){ "--intervals", hog, NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "ranked by p99.99 (ns)");
	CHECK_STR_HAS(r.out, "  offcpu   server[100] tid 101      40    195900    244900    244900    244900\n");
	cli_result_free(&r);

	/* Not asked for: not there. */
	cli_run(&c, &r, NULL, (const char *[]){ hog, NULL });
	CHECK(r.out && !strstr(r.out, "intervals:"));
	cli_result_free(&r);

	cli_run(&c, &r, NULL, (const char *[]){ "--json", "--intervals", hog, NULL });
	CHECK_U64(r.status, 0);
	j = r.out ? json_tokener_parse(r.out) : NULL;
	REQUIRE(j);
	CHECK(json_object_object_get_ex(j, "intervals", &arr) && json_object_array_length(arr) == 5);
	r0 = json_object_array_get_idx(arr, 0);
	CHECK(r0 && json_object_object_get_ex(r0, "kind", &v) &&
	      !strcmp(json_object_get_string(v), "offcpu"));
	CHECK(r0 && json_object_object_get_ex(r0, "p99.99", &v) && json_object_get_int64(v) == 244900);
	CHECK(r0 && json_object_object_get_ex(r0, "count", &v) && json_object_get_int64(v) == 40);
	CHECK(json_object_object_get_ex(j, "intervals_clipped", &v) && json_object_get_int64(v) == 0);
	json_object_put(j);
	cli_result_free(&r);

	cli_run(&c, &r, NULL, (const char *[]){ "--json", hog, NULL });
	j = r.out ? json_tokener_parse(r.out) : NULL;
	CHECK(j && !json_object_object_get_ex(j, "intervals", NULL));
	json_object_put(j);
	cli_result_free(&r);

	cli_run(&c, &r, NULL, (const char *[]){ "--intervals", "--time-check", hog, hog, NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "--intervals and --what-if do not go with --time-check");
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
	KTAP_TEST(test_kinds),
	KTAP_TEST(test_offcpu_and_segments),
	KTAP_TEST(test_functions),
	KTAP_TEST(test_cli),
	KTAP_TEST(cleanup),
)
