// SPDX-License-Identifier: MIT
/*
 * The time-reconciliation check on a modelled kernel: timekeeper records
 * every 100000 TSC ticks, a frequency change (mult +2^14) at the 10th and a
 * forward clock step of one second at the 25th; a guest program that reads
 * the TSC and 30 ticks later CLOCK_REALTIME through the parameters in force.
 */
#include <json-c/json.h>

#include "clirun.h"
#include "synth.h"
#include "capture/timecheck.h"

#define N_TK		40
#define TK_T0		1000000ULL
#define TK_STEP		100000ULL
#define MULT0		(1U << 24)
#define MULT1		((1U << 24) + (1U << 14))
#define READ_LAG	30
#define PAIR_T0		900000ULL
#define PAIR_GAP	97
#define N_COVERED	((TK_T0 + (N_TK - 1) * TK_STEP + TK_STEP - PAIR_T0) / PAIR_GAP + 1)
#define N_LATE		50

static struct nsight_rec_timekeeper model[N_TK];

static void build_model(void)
{
	uint64_t x = 0;
	int64_t offs = SYN_OFFS;
	int k;

	for (k = 0; k < N_TK; k++) {
		struct nsight_rec_timekeeper *t = &model[k];
		uint64_t tsc = TK_T0 + k * TK_STEP;

		memset(t, 0, sizeof(*t));
		rec_hdr(t, NSIGHT_REC_TIMEKEEPER, sizeof(*t), k % 2, tsc);
		/* Continuous at the new cycle_last: accumulate with the old mult. */
		if (k)
			x += (tsc - 10 - model[k - 1].cycle_last) * model[k - 1].mult;
		t->cycle_last = tsc - 10;
		t->mask = UINT64_MAX;
		t->mult = k < 10 ? MULT0 : MULT1;
		t->shift = 24;
		t->xtime_nsec = x;
		t->base_mono = SYN_MONO0;
		if (k == 25) {
			offs += 1000000000LL;
			t->flags |= NSIGHT_TK_CLOCK_WAS_SET;
		}
		t->offs_real = offs;
		t->flags |= NSIGHT_TK_CS_TSC | NSIGHT_TK_CS_NOW;
		t->cs_now = tsc;
		t->tsc_cs = tsc;
		strcpy(t->clocksource, "tsc");
	}
}

/* CLOCK_REALTIME as the vDSO computes it at TSC @t (independent of timeconv). */
static int64_t model_real(uint64_t t)
{
	const struct nsight_rec_timekeeper *r = &model[0];
	int k;

	for (k = 0; k < N_TK; k++)
		if (model[k].hdr.tsc <= t)
			r = &model[k];
	return r->base_mono + r->offs_real +
	       (int64_t)(((unsigned __int128)(t - r->cycle_last) * r->mult + r->xtime_nsec) >> r->shift);
}

static size_t build_pairs(struct nsight_tpair *p)
{
	size_t n = 0, i;

	for (i = 0; i < N_COVERED; i++, n++) {
		p[n].tsc = PAIR_T0 + i * PAIR_GAP;
		p[n].real_ns = model_real(p[n].tsc + READ_LAG);
	}
	/* Two record intervals after the last record: uncovered. */
	for (i = 0; i < N_LATE; i++, n++) {
		p[n].tsc = TK_T0 + (N_TK + 1) * TK_STEP + i * PAIR_GAP;
		p[n].real_ns = model_real(p[n].tsc + READ_LAG);
	}
	return n;
}

static struct nsight_tpair pairs[N_COVERED + N_LATE];

static void test_in_force_vs_first(void)
{
	struct nsight_timeconv tc;
	struct nsight_tcheck r;
	size_t n;

	build_model();
	n = build_pairs(pairs);
	REQUIRE(nsight_tc_init(&tc, model, N_TK, NULL, 0, SYN_HZ, NSIGHT_TC_IN_FORCE, NULL) == 0);
	REQUIRE(nsight_tcheck_run(&tc, pairs, n, &r, NULL) == 0);
	CHECK_U64(r.pairs, n);
	CHECK_U64(r.conversions, N_COVERED);
	CHECK_U64(r.uncovered, N_LATE);
	CHECK_U64(r.inversions, 0);
	CHECK_U64(r.n_examples, 0);
	/* 30 ticks of read lag, but one pair straddles the step. */
	CHECK(r.max_abs_err >= READ_LAG && r.max_abs_err <= 1000000000ULL + 100);
	nsight_tc_fini(&tc);

	REQUIRE(nsight_tc_init(&tc, model, N_TK, NULL, 0, SYN_HZ, NSIGHT_TC_FIRST, NULL) == 0);
	REQUIRE(nsight_tcheck_run(&tc, pairs, n, &r, NULL) == 0);
	CHECK_U64(r.conversions, N_COVERED);
	CHECK(r.inversions > 1000);
	CHECK_U64(r.n_examples, NSIGHT_TCHECK_EXAMPLES);
	/* The first inversion comes from the frequency change, before the step. */
	CHECK(r.ex[0].tsc > TK_T0 + 10 * TK_STEP && r.ex[0].tsc < TK_T0 + 25 * TK_STEP);
	CHECK(!r.ex[0].after_real);
	CHECK(r.ex[0].real > r.ex[0].conv);
	CHECK(r.max_abs_err > 1000000000ULL);
	nsight_tc_fini(&tc);
}

/* A step alone (no frequency change) breaks a single-parameter conversion too. */
/* The model with its frequency change taken out: only the clock step. */
static void build_step_model(void)
{
	int k;

	build_model();
	for (k = 10; k < N_TK; k++)
		model[k].mult = MULT0;
	for (k = 1; k < N_TK; k++)
		model[k].xtime_nsec = (model[k].cycle_last - model[0].cycle_last) * MULT0;
}

static void test_step_only(void)
{
	struct nsight_timeconv tc;
	struct nsight_tcheck r;
	size_t n;

	build_step_model();
	n = build_pairs(pairs);
	REQUIRE(nsight_tc_init(&tc, model, N_TK, NULL, 0, SYN_HZ, NSIGHT_TC_IN_FORCE, NULL) == 0);
	REQUIRE(nsight_tcheck_run(&tc, pairs, n, &r, NULL) == 0);
	CHECK_U64(r.inversions, 0);
	nsight_tc_fini(&tc);
	REQUIRE(nsight_tc_init(&tc, model, N_TK, NULL, 0, SYN_HZ, NSIGHT_TC_FIRST, NULL) == 0);
	REQUIRE(nsight_tcheck_run(&tc, pairs, n, &r, NULL) == 0);
	/* Every pair after the step: real jumps a second past the next conversion. */
	CHECK(r.inversions > 0);
	CHECK(r.ex[0].tsc >= TK_T0 + 25 * TK_STEP && r.ex[0].tsc < TK_T0 + 25 * TK_STEP + 200);
	nsight_tc_fini(&tc);
}

/*
 * The vDSO switched to the stepped parameters before the notifier read its
 * TSC (tsc_cs): readings in between used the new time while the record is
 * not in force yet. Without tsc_update they are inversions; with the window
 * [tsc_update, tsc_cs] they are ambiguous, not errors.
 */
static void test_vdso_window(void)
{
	const uint64_t lag = 3000;	/* notifier after the vDSO update */
	struct nsight_timeconv tc;
	struct nsight_tcheck r;
	size_t n;

	build_step_model();
	n = build_pairs(pairs);	/* the vDSO switches at hdr.tsc */
	model[25].tsc_cs = model[25].hdr.tsc + lag;

	REQUIRE(nsight_tc_init(&tc, model, N_TK, NULL, 0, SYN_HZ, NSIGHT_TC_IN_FORCE, NULL) == 0);
	REQUIRE(nsight_tcheck_run(&tc, pairs, n, &r, NULL) == 0);
	CHECK(r.inversions > 0);
	CHECK_U64(r.ambiguous, 0);
	nsight_tc_fini(&tc);

	model[25].tsc_update = model[25].hdr.tsc - 5;
	REQUIRE(nsight_tc_init(&tc, model, N_TK, NULL, 0, SYN_HZ, NSIGHT_TC_IN_FORCE, NULL) == 0);
	REQUIRE(nsight_tcheck_run(&tc, pairs, n, &r, NULL) == 0);
	CHECK_U64(r.inversions, 0);
	/* About lag / PAIR_GAP readings fell in the window. */
	CHECK(r.ambiguous >= lag / PAIR_GAP && r.ambiguous <= lag / PAIR_GAP + 2);
	nsight_tc_fini(&tc);
}

static void test_needs_timekeeper(void)
{
	struct nsight_rec_clock_sync cs = { .tsc_hz = SYN_HZ };
	struct nsight_timeconv tc;
	struct nsight_tcheck r;
	struct nsight_diag d = { 0 };

	REQUIRE(nsight_tc_init(&tc, NULL, 0, &cs, 1, SYN_HZ, NSIGHT_TC_IN_FORCE, NULL) == 0);
	CHECK_U64(nsight_tcheck_run(&tc, pairs, 1, &r, &d), -NSIGHT_E_INVAL);
	CHECK_STR_HAS(d.msg, "no timekeeper records");
	CHECK_STR_HAS(d.msg, "clock_sync alone gives an approximate conversion");
	nsight_tc_fini(&tc);
}

static void test_read_pairs(void)
{
	uint8_t raw[40];
	struct nsight_tpair *p = NULL;
	struct nsight_diag d = { 0 };
	size_t n = 99, i;
	FILE *f;

	for (i = 0; i < sizeof(raw); i++)
		raw[i] = (uint8_t)i;
	f = mem_reader(raw, 32);
	REQUIRE(f);
	REQUIRE(nsight_tpairs_read(f, "p.bin", &p, &n, &d) == 0);
	fclose(f);
	CHECK_U64(n, 2);
	REQUIRE(p);
	CHECK_U64(p[0].tsc, 0x0706050403020100ULL);
	CHECK_U64(p[1].real_ns, 0x1f1e1d1c1b1a1918ULL);
	free(p);

	f = mem_reader(raw, 40);
	REQUIRE(f);
	CHECK_U64(nsight_tpairs_read(f, "p.bin", &p, &n, &d), -NSIGHT_E_TRUNCATED);
	fclose(f);
	CHECK_STR_HAS(d.msg, "p.bin: the last 8 bytes at byte 32 are not a whole pair");
	CHECK(!p);

	f = mem_reader(raw, 0);
	REQUIRE(f);
	REQUIRE(nsight_tpairs_read(f, "p.bin", &p, &n, &d) == 0);
	fclose(f);
	CHECK_U64(n, 0);
	CHECK(!p);
}

static int write_pairs(const char *path, const struct nsight_tpair *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	size_t i;
	int ok = f != NULL;

	for (i = 0; ok && i < n; i++) {
		uint8_t b[16];
		int j;

		for (j = 0; j < 8; j++) {
			b[j] = (uint8_t)(p[i].tsc >> (8 * j));
			b[8 + j] = (uint8_t)((uint64_t)p[i].real_ns >> (8 * j));
		}
		ok = fwrite(b, 1, sizeof(b), f) == sizeof(b);
	}
	if (f && fclose(f))
		ok = 0;
	return ok ? 0 : -1;
}

static void test_cli(void)
{
	static const char *const files[] = { "cap.nsight", "pairs.bin", "bad.bin", "nock.nsight", NULL };
	char cap[192], pf[192], bad[192], nock[192], want[512];
	struct cli_result r;
	struct synth s;
	struct cli c;
	size_t n;
	int k;

	REQUIRE(cli_init(&c) == 0);
	build_model();
	n = build_pairs(pairs);
	synth_init(&s, 2);
	for (k = 0; k < N_TK; k++)
		synth_put(&s, model[k].hdr.cpu, &model[k], sizeof(model[k]));
	REQUIRE(synth_save(&s, cli_path(&c, "cap.nsight", cap, sizeof(cap))) == 0);
	synth_free(&s);
	REQUIRE(write_pairs(cli_path(&c, "pairs.bin", pf, sizeof(pf)), pairs, n) == 0);

	cli_run(&c, &r, NULL, (const char *[]){ "--time-check", pf, "--strict", cap, NULL });
	CHECK_U64(r.status, 0);
	snprintf(want, sizeof(want), "time-check: %llu conversions, 0 inversions, 40 timekeeper records (1 clock-was-set), max |conv - real| ",
		 (unsigned long long)N_COVERED);
	CHECK(r.out && !strncmp(r.out, want, strlen(want)));
	snprintf(want, sizeof(want), " ns, params in-force, %d uncovered, 0 ambiguous\n", N_LATE);
	CHECK_STR_HAS(r.out, want);
	CHECK(r.out && !strstr(r.out, "stream:"));
	/* The command: the same. */
	{
		struct cli_result t;

		cli_run(&c, &t, NULL, (const char *[]){ "time-check", pf, "--strict", cap, NULL });
		CHECK_U64(t.status, 0);
		CHECK(r.out && t.out && !strcmp(r.out, t.out));
		cli_result_free(&t);
		cli_run(&c, &t, NULL, (const char *[]){ "time-check", "--messages", pf, cap, NULL });
		CHECK_U64(t.status, 2);
		CHECK_STR_HAS(t.err, "time-check does not take --messages");
		cli_result_free(&t);
	}
	cli_result_free(&r);

	/* The same through stdin, first params: inversions, listed. */
	cli_run(&c, &r, cap, (const char *[]){ "-t", pf, "--time-params", "first", NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, " inversions, 40 timekeeper records (1 clock-was-set)");
	CHECK_STR_HAS(r.out, "params first");
	CHECK_STR_HAS(r.out, "\n  pair ");
	CHECK_STR_HAS(r.out, " more\n");
	cli_result_free(&r);
	cli_run(&c, &r, cap, (const char *[]){ "-t", pf, "-p", "first", "--strict", "-", NULL });
	CHECK_U64(r.status, 1);
	cli_result_free(&r);

	cli_run(&c, &r, NULL, (const char *[]){ "--json", "--time-check", pf, cap, NULL });
	CHECK_U64(r.status, 0);
	{
		struct json_object *o = r.out ? json_tokener_parse(r.out) : NULL, *v;

		CHECK(o && json_object_object_get_ex(o, "time_check", &v));
		if (o && json_object_object_get_ex(o, "time_check", &v)) {
			struct json_object *x;

			CHECK(json_object_object_get_ex(v, "inversions", &x) && json_object_get_uint64(x) == 0);
			CHECK(json_object_object_get_ex(v, "uncovered", &x) && json_object_get_uint64(x) == N_LATE);
			CHECK(json_object_object_get_ex(v, "params", &x) &&
			      !strcmp(json_object_get_string(x), "in-force"));
		}
		json_object_put(o);
	}
	cli_result_free(&r);

	/* A pairs file that is not whole pairs. */
	REQUIRE(write_pairs(cli_path(&c, "bad.bin", bad, sizeof(bad)), pairs, 2) == 0);
	REQUIRE(truncate(bad, 31) == 0);
	cli_run(&c, &r, NULL, (const char *[]){ "--time-check", bad, cap, NULL });
	CHECK_U64(r.status, 1);
	snprintf(want, sizeof(want), "nsight-analyze: %s: the last 15 bytes at byte 16 are not a whole pair", bad);
	CHECK_STR_HAS(r.err, want);
	cli_result_free(&r);

	/* No such pairs file; a capture without clock records. */
	cli_run(&c, &r, NULL, (const char *[]){ "--time-check", "/nonexistent/p", cap, NULL });
	CHECK_U64(r.status, 1);
	CHECK_STR_HAS(r.err, "nsight-analyze: /nonexistent/p: No such file or directory");
	cli_result_free(&r);
	synth_init(&s, 1);
	REQUIRE(synth_save(&s, cli_path(&c, "nock.nsight", nock, sizeof(nock))) == 0);
	synth_free(&s);
	cli_run(&c, &r, NULL, (const char *[]){ "--time-check", pf, nock, NULL });
	CHECK_U64(r.status, 1);
	snprintf(want, sizeof(want), "nsight-analyze: %s: the capture has no timekeeper records", nock);
	CHECK_STR_HAS(r.err, want);
	cli_result_free(&r);

	/* Usage errors. */
	cli_run(&c, &r, NULL, (const char *[]){ "--time-params", "last", cap, NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "bad time params 'last' (in-force or first)");
	cli_result_free(&r);
	cli_run(&c, &r, NULL, (const char *[]){ cap, "--time-check", NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "option '--time-check' needs an argument");
	cli_result_free(&r);
	cli_run(&c, &r, NULL, (const char *[]){ "--time-check", pf, "--messages", cap, NULL });
	CHECK_U64(r.status, 2);
	cli_result_free(&r);

	CHECK(cli_fini(&c, files) == 0);
}

KTAP_MAIN(
	KTAP_TEST(test_in_force_vs_first),
	KTAP_TEST(test_step_only),
	KTAP_TEST(test_vdso_window),
	KTAP_TEST(test_needs_timekeeper),
	KTAP_TEST(test_read_pairs),
	KTAP_TEST(test_cli),
)
