// SPDX-License-Identifier: MIT
/*
 * The compact terminal summary, against golden files: nsight-analyze's
 * default text for fixed synthetic captures must equal
 * tests/golden/<name>.txt byte for byte. After an intended change of the
 * output, regenerate them with NSIGHT_UPDATE_GOLDEN=1 and review the diff.
 */
#include "clirun.h"
#include "scenario.h"
#include "analyze/terminal.h"
#include "analyze/dx_report.h"

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

/* Where @word ends on the line of @text that starts with @line, -1 if not there. */
static long word_end(const char *text, const char *line, const char *word)
{
	const char *l = text ? strstr(text, line) : NULL, *w, *nl;

	if (!l)
		return -1;
	nl = strchr(l, '\n');
	w = strstr(l, word);
	if (!w || (nl && w > nl))
		return -1;
	return (long)(w - l) + (long)strlen(word);
}

/* Counts of 100,000 and more keep the cause tables' columns apart and aligned. */
static void test_wide_counts(void)
{
	struct nsight_dx_cause c = { .category = (char *)"x", .role = 0, .main = 100001,
				     .messages = 123456, .median = 5000, .max = 9000,
				     .total = 77000 };
	struct nsight_dx_group g = { .comm = "srv", .pid = 1, .n_ref = 5,
				     .causes = &c, .n_causes = 1, .tail_excess = 77000 };
	struct nsight_dx dx = { .groups = &g, .n = 1 };
	const struct nsight_tty tty = { .width = NSIGHT_TTY_WIDTH };
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	nsight_dx_opts_default(&dx.opts);
	f = open_memstream(&out, &len);
	REQUIRE(f);
	nsight_dx_report_tty(f, &dx, NULL, &tty);
	fputs("--\n", f);
	nsight_dx_report_text(f, &dx, NULL);
	fclose(f);
	/* The compact table, then the plain one. */
	CHECK(word_end(out, "  cause ", "msgs") > 0);
	CHECK_U64(word_end(out, "  cause ", "msgs"), word_end(out, "  x (", "123456"));
	CHECK_U64(word_end(out, "  cause ", "main"), word_end(out, "  x (", "100001"));
	CHECK_STR_HAS(out, " 123456 100001 ");
	CHECK_STR_HAS(strstr(out ? out : "", "--\n"), " 123456 100001 ");
	CHECK_U64(word_end(strstr(out ? out : "", "--\n"), "  cause ", "messages"),
		  word_end(strstr(out ? out : "", "--\n"), "  x (", "123456"));
	free(out);
}

KTAP_MAIN(
	KTAP_TEST(setup),
	KTAP_TEST(test_durations),
	KTAP_TEST(test_wide_counts),
	KTAP_TEST(test_hog),
	KTAP_TEST(test_sampled),
	KTAP_TEST(test_options),
	KTAP_TEST(teardown),
)
