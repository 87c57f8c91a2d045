// SPDX-License-Identifier: MIT
/*
 * nsight-analyze's documentation against its code: --help fits a screen
 * and points at the man page, and every long option of analyze/main.c's
 * table is in Documentation/nsight-analyze.1. Run from userspace/.
 */
#include "clirun.h"

#define MAN_PAGE "../Documentation/nsight-analyze.1"
#define MAIN_C   "analyze/main.c"

static struct cli c;

/* The long options of main.c's table, "json\0strict\0...\0\0"; NULL if unreadable. */
static char *long_options(size_t *n)
{
	char *src = cli_slurp(MAIN_C), *out, *p, *q;
	size_t len = 0;

	*n = 0;
	if (!src)
		return NULL;
	out = calloc(1, strlen(src) + 2);
	for (p = src; out && (p = strstr(p, "{ \"")); p = q) {
		p += 3;
		q = strchr(p, '"');
		if (!q)
			break;
		/* Only the rows of the option table. */
		if (strncmp(q, "\", no_argument", 14) && strncmp(q, "\", required_argument", 20))
			continue;
		memcpy(out + len, p, (size_t)(q - p));
		len += (size_t)(q - p) + 1;
		(*n)++;
	}
	free(src);
	return out;
}

/* "--what-if" as groff writes it: "\-\-what\-if". */
static void man_name(const char *opt, char *buf, size_t len)
{
	size_t k = 0;

	buf[k++] = '\\', buf[k++] = '-', buf[k++] = '\\', buf[k++] = '-';
	for (; *opt && k + 3 < len; opt++) {
		if (*opt == '-')
			buf[k++] = '\\';
		buf[k++] = *opt;
	}
	buf[k] = '\0';
}

static void test_help_fits_a_screen(void)
{
	struct cli_result r;
	const char *p, *nl;
	size_t lines = 0;

	REQUIRE(cli_init(&c) == 0);
	cli_run(&c, &r, NULL, (const char *[]){ "--help", NULL });
	CHECK_U64(r.status, 0);
	REQUIRE(r.out);
	for (p = r.out; *p; p = nl + 1, lines++) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		if (nl - p > 80)
			KTAP_FAIL("help line %zu is %zu columns: %.*s", lines + 1, (size_t)(nl - p),
				  (int)(nl - p), p);
	}
	if (lines > 24)
		KTAP_FAIL("--help is %zu lines, more than a screen (24)", lines);
	CHECK_STR_HAS(r.out, "Usage: nsight-analyze [OPTIONS] [FILE|-]\n");
	CHECK_STR_HAS(r.out, "see nsight-analyze(1)");
	CHECK_STR_HAS(r.out, "Exit status: 0 ok, 1 error");
	cli_result_free(&r);
}

static void test_man_page_has_every_option(void)
{
	char *man = cli_slurp(MAN_PAGE), *opts, name[64];
	const char *o;
	size_t n;

	REQUIRE(man);
	opts = long_options(&n);
	REQUIRE(opts);
	/* The table has 25 rows today: a parser that finds few is broken. */
	if (n < 20)
		KTAP_FAIL("found %zu long options in %s", n, MAIN_C);
	for (o = opts; *o; o += strlen(o) + 1) {
		man_name(o, name, sizeof(name));
		if (!strstr(man, name))
			KTAP_FAIL("%s lacks --%s", MAN_PAGE, o);
	}
	/* What the help no longer says. */
	CHECK_STR_HAS(man, "nearest-rank");
	CHECK_STR_HAS(man, ".BR \\-c \", \" \\-\\-clock");
	CHECK_STR_HAS(man, ".BR \\-t \", \" \\-\\-time\\-check");
	CHECK_STR_HAS(man, ".BR \\-p \", \" \\-\\-time\\-params");
	free(opts);
	free(man);
}

static void cleanup(void)
{
	CHECK(cli_fini(&c, NULL) == 0);
}

KTAP_MAIN(
	KTAP_TEST(test_help_fits_a_screen),
	KTAP_TEST(test_man_page_has_every_option),
	KTAP_TEST(cleanup),
)
