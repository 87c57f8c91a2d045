// SPDX-License-Identifier: MIT
/*
 * The compact terminal summary, against golden files: nsight-analyze's
 * default text for fixed synthetic captures must equal
 * tests/golden/<name>.txt byte for byte. After an intended change of the
 * output, regenerate them with NSIGHT_UPDATE_GOLDEN=1 and review the diff.
 */
#include "clirun.h"
#include "scenario.h"
#include "terminal.h"

static struct cli c;

static const char *path(const char *name)
{
	return cli_file(&c, name);
}

/* Compare @out with tests/golden/@name.txt (or write it). */
static void golden(const char *name, const char *out)
{
	char gpath[128], *want;
	FILE *f;

	snprintf(gpath, sizeof(gpath), "tests/golden/%s.txt", name);
	if (getenv("NSIGHT_UPDATE_GOLDEN")) {
		f = fopen(gpath, "w");
		REQUIRE(f && fputs(out, f) >= 0 && !fclose(f));
		printf("# wrote %s\n", gpath);
		return;
	}
	want = cli_slurp(gpath);
	REQUIRE(want);
	if (strcmp(out, want)) {
		const char *a = out, *b = want;
		int line = 1;

		for (; *a && *a == *b; a++, b++)
			line += *a == '\n';
		KTAP_FAIL("%s differs from the output at line %d", gpath, line);
	}
	free(want);
}

/* Every line within @width columns (escape sequences not counted). */
static void check_width(const char *out, unsigned int width)
{
	unsigned int col = 0, line = 1;
	const char *p;

	for (p = out; *p; p++) {
		if (*p == '\n') {
			col = 0;
			line++;
		} else if (*p == '\033') {
			while (*p && *p != 'm')
				p++;
		} else if (++col > width) {
			KTAP_FAIL("line %u is wider than %u columns", line, width);
			return;
		}
	}
}

static void test_hog(void)
{
	struct cli_result r;
	struct scen sc;

	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_HOG, 8, 7);
	REQUIRE(scen_save(&sc, path("hog")) == 0);
	cli_run(&c, &r, path("hog"), (const char *[]){ "-", NULL });
	CHECK_U64(r.status, 0);
	REQUIRE(r.out);
	golden("summary-hog", r.out);
	check_width(r.out, NSIGHT_TTY_WIDTH);
	/* Not a terminal: no colour. */
	CHECK(!strchr(r.out, '\033'));
	CHECK_STR_HAS(r.out, "\n  stress interference (A)");
	cli_result_free(&r);

	cli_run(&c, &r, path("hog"), (const char *[]){ "--color", "always", "-", NULL });
	CHECK_U64(r.status, 0);
	REQUIRE(r.out);
	golden("summary-hog-color", r.out);
	CHECK_STR_HAS(r.out, "\033[1mcapture:\033[0m");
	CHECK_STR_HAS(r.out, "\033[36m#");
	cli_result_free(&r);
}

/* Sampled stacks: the evidence line and a function named as the cause. */
static void test_sampled(void)
{
	struct cli_result r;
	struct scen sc;

	scen_init(&sc, "server");
	sc.s.ksyms = SC_KSYMS;
	scen_run(&sc, 40, SC_NETRX_FN, 8, 7);
	REQUIRE(scen_save(&sc, path("sampled")) == 0);
	cli_run(&c, &r, path("sampled"), (const char *[]){ "--color", "never", "-", NULL });
	CHECK_U64(r.status, 0);
	REQUIRE(r.out);
	golden("summary-sampled", r.out);
	check_width(r.out, NSIGHT_TTY_WIDTH);
	cli_result_free(&r);
}

/* --verbose is the full text; a bad --color is a usage error. */
static void test_options(void)
{
	struct cli_result r;

	cli_run(&c, &r, path("hog"), (const char *[]){ "--verbose", "-", NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "stream: -  format 1");
	CHECK_STR_HAS(r.out, "\ntype                  count\n");
	cli_result_free(&r);
	cli_run(&c, &r, path("hog"), (const char *[]){ "--color", "sometimes", "-", NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "bad --color 'sometimes'");
	cli_result_free(&r);
}

static void test_durations(void)
{
	static const struct {
		int64_t ns;
		const char *want;
	} cases[] = {
		{ 0, "0ns" }, { 999, "999ns" }, { 1000, "1.00us" }, { 83544, "83.5us" },
		{ 104960, "105us" }, { 1437504, "1.44ms" }, { 12378844, "12.4ms" },
		{ 3210000000LL, "3.21s" }, { -2500, "-2.50us" },
	};
	char buf[32];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (strcmp(nsight_tty_duration(cases[i].ns, buf, sizeof(buf)), cases[i].want))
			KTAP_FAIL("%lld ns is \"%s\", expected \"%s\"", (long long)cases[i].ns, buf,
				  cases[i].want);
}

static void setup(void)
{
	REQUIRE(cli_init(&c) == 0);
}

static void teardown(void)
{
	CHECK(cli_fini(&c, (const char *[]){ "hog", "sampled", NULL }) == 0);
}

KTAP_MAIN(
	KTAP_TEST(setup),
	KTAP_TEST(test_durations),
	KTAP_TEST(test_hog),
	KTAP_TEST(test_sampled),
	KTAP_TEST(test_options),
	KTAP_TEST(teardown),
)
