// SPDX-License-Identifier: MIT
/*
 * nsight-analyze's documentation against its code: --help fits a screen
 * and points at the man page, every long option of analyze/cli.c's
 * table is in Documentation/nsight-analyze.1 and every option its
 * EXAMPLES use is in the table; each man page has EXAMPLES; the bash
 * completion offers every long option. Run from userspace/.
 */
#include "clirun.h"

#define MAN_PAGE "../Documentation/nsight-analyze.1"
#define CLI_C    "analyze/cli.c"
#define COMPLETION "completion/nsight-analyze"

static struct cli c;

/* The long options of cli.c's table, "json\0strict\0...\0\0"; NULL if unreadable. */
static char *long_options(size_t *n)
{
	char *src = cli_slurp(CLI_C), *out, *p, *q;
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
	CHECK_STR_HAS(r.out, "Usage: nsight-analyze [COMMAND] [OPTIONS] [FILE|-]\n");
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
		KTAP_FAIL("found %zu long options in %s", n, CLI_C);
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

/* The options in the man page's EXAMPLES command lines of nsight-analyze exist. */
static void test_examples(void)
{
	static const char *const pages[] = { MAN_PAGE, "../Documentation/nsightctl.8",
					     "../Documentation/nsight.4" };
	char *man = cli_slurp(MAN_PAGE), *opts, *ex, *end, *line, want[80];
	size_t n, i, used = 0;
	const char *o;

	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		char *page = cli_slurp(pages[i]);

		if (!page || !strstr(page, "\n.SH EXAMPLES\n"))
			KTAP_FAIL("%s has no EXAMPLES section", pages[i]);
		free(page);
	}
	REQUIRE(man);
	opts = long_options(&n);
	REQUIRE(opts);
	ex = strstr(man, "\n.SH EXAMPLES\n");
	REQUIRE(ex);
	end = strstr(ex + 1, "\n.SH ");
	if (end)
		*end = '\0';
	for (line = ex; (line = strstr(line, "\nnsight\\-analyze ")); line++) {
		char *eol = strchr(line + 1, '\n'), *p;

		if (eol)
			*eol = '\0';
		for (p = line; (p = strstr(p, " \\-\\-")); p += 5) {
			size_t k = 0;
			const char *q = p + 5;

			/* "\-\-what\-if" back to "what-if". */
			while (*q && *q != ' ' && k + 1 < sizeof(want)) {
				if (*q != '\\')
					want[k++] = *q;
				q++;
			}
			want[k] = '\0';
			for (o = opts; *o && strcmp(o, want); o += strlen(o) + 1)
				;
			if (!*o)
				KTAP_FAIL("EXAMPLES use --%s, which nsight-analyze does not have", want);
			used++;
		}
		if (eol)
			*eol = '\n';
	}
	/* The examples show most modes: a parser that finds few options is broken. */
	if (used < 8)
		KTAP_FAIL("found %zu options in the EXAMPLES", used);
	free(opts);
	free(man);
}

/* The completion's option list has every long option, as a word. */
static void test_completion_has_every_option(void)
{
	char *comp = cli_slurp(COMPLETION), *opts, *list, *end, want[80];
	const char *o;
	size_t n;

	REQUIRE(comp);
	list = strstr(comp, "_nsight_analyze_opts=\"");
	REQUIRE(list);
	list += strlen("_nsight_analyze_opts=\"");
	end = strchr(list, '"');
	REQUIRE(end);
	/* Blank-delimited: " --window " is not found in " --windows ". */
	list[-1] = ' ';
	end[0] = ' ';
	end[1] = '\0';
	opts = long_options(&n);
	REQUIRE(opts);
	for (o = opts; *o; o += strlen(o) + 1) {
		snprintf(want, sizeof(want), " --%s ", o);
		if (!strstr(list - 1, want))
			KTAP_FAIL("%s does not offer --%s", COMPLETION, o);
	}
	free(opts);
	free(comp);
}

static void cleanup(void)
{
	CHECK(cli_fini(&c, NULL) == 0);
}

KTAP_MAIN(
	KTAP_TEST(test_help_fits_a_screen),
	KTAP_TEST(test_man_page_has_every_option),
	KTAP_TEST(test_examples),
	KTAP_TEST(test_completion_has_every_option),
	KTAP_TEST(cleanup),
)
