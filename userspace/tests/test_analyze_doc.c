// SPDX-License-Identifier: MIT
/*
 * nsight-analyze's documentation against its code: --help fits a screen,
 * lists the commands of analyze/main.c's table and points at the man
 * page, each command's --help fits one and names every option the table
 * gives it; every long option of analyze/cli.c's table is in
 * Documentation/nsight-analyze.1, whose COMMANDS section has each command
 * with its options, and every option its EXAMPLES use is in the table;
 * each man page has EXAMPLES; the bash completion offers the commands,
 * every long option without a command and each command's own. Run from
 * userspace/.
 */
#include "clirun.h"

#define MAN_PAGE "../Documentation/nsight-analyze.1"
#define CLI_C    "analyze/cli.c"
#define MAIN_C   "analyze/main.c"
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

/*
 * The commands of main.c's table, "report\0window\0...\0\0", and for each
 * its long options the same way (opts[i]); the count, 0 if unreadable.
 */
#define MAX_CMDS 8
static size_t commands(char **names, char *opts[MAX_CMDS])
{
	char *src = cli_slurp(MAIN_C), *p, *q, *a, *b, *out, *list;
	size_t n = 0, len = 0;

	*names = NULL;
	if (!src)
		return 0;
	out = calloc(1, strlen(src) + 2);
	/* The table's rows: { { "report", report_options, cmd_report_usage }, ... */
	for (p = src; out && n < MAX_CMDS && (p = strstr(p, "{ { \"")); p = q) {
		char ident[64], def[80];
		size_t k = 0, olen = 0;

		p += 5;
		q = strchr(p, '"');
		if (!q || strncmp(q, "\", ", 3))
			break;
		memcpy(out + len, p, (size_t)(q - p));
		len += (size_t)(q - p) + 1;
		for (p = q + 3; *p && *p != ',' && k + 1 < sizeof(ident); p++)
			ident[k++] = *p;
		ident[k] = '\0';
		snprintf(def, sizeof(def), "%s[] = {", ident);
		list = strstr(src, def);
		opts[n] = calloc(1, strlen(src) + 2);
		for (a = list; a && opts[n] && (a = strchr(a, '"')) && a < strstr(list, "NULL"); a = b + 1) {
			b = strchr(a + 1, '"');
			if (!b)
				break;
			memcpy(opts[n] + olen, a + 1, (size_t)(b - a - 1));
			olen += (size_t)(b - a);
		}
		n++;
	}
	free(src);
	*names = out;
	return n;
}

static void commands_free(char *names, char *opts[MAX_CMDS], size_t n)
{
	while (n--)
		free(opts[n]);
	free(names);
}

/* Blank-separated @list (from a shell variable) as "\0"-separated words. */
static bool in_words(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

/* The value of `NAME="..."` in @text, copied; NULL if none. */
static char *shell_var(const char *text, const char *name)
{
	char want[96];
	const char *p, *end;

	snprintf(want, sizeof(want), "\n%s=\"", name);
	p = strstr(text, want);
	if (!p)
		return NULL;
	p += strlen(want);
	end = strchr(p, '"');
	return end ? strndup(p, (size_t)(end - p)) : NULL;
}

/* @out has no line over 80 columns and at most 24 lines. */
static void fits_a_screen(const char *what, const char *out)
{
	const char *p, *nl;
	size_t lines = 0;

	for (p = out; *p; p = nl + 1, lines++) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		if (nl - p > 80)
			KTAP_FAIL("%s: line %zu is %zu columns: %.*s", what, lines + 1,
				  (size_t)(nl - p), (int)(nl - p), p);
	}
	if (lines > 24)
		KTAP_FAIL("%s is %zu lines, more than a screen (24)", what, lines);
}

static void test_help_fits_a_screen(void)
{
	char *names, *opts[MAX_CMDS], line[64];
	struct cli_result r;
	const char *name;
	size_t n, i;

	REQUIRE(cli_init(&c) == 0);
	n = commands(&names, opts);
	/* Four today: a parser that finds fewer is broken. */
	if (n < 4)
		KTAP_FAIL("found %zu commands in %s", n, MAIN_C);
	cli_run(&c, &r, NULL, (const char *[]){ "--help", NULL });
	CHECK_U64(r.status, 0);
	REQUIRE(r.out);
	fits_a_screen("--help", r.out);
	CHECK_STR_HAS(r.out, "Usage: nsight-analyze [COMMAND] [OPTIONS] [FILE|-]\n");
	CHECK_STR_HAS(r.out, "see nsight-analyze(1)");
	CHECK_STR_HAS(r.out, "Exit status: 0 ok, 1 error");
	for (name = names, i = 0; i < n; name += strlen(name) + 1, i++) {
		snprintf(line, sizeof(line), "\n  %s ", name);
		if (!strstr(r.out, line))
			KTAP_FAIL("--help does not list the command %s", name);
	}
	CHECK_STR_HAS(r.out, "\n  help ");
	cli_result_free(&r);

	/* Each command's help: a screen, every option the table gives it. */
	for (name = names, i = 0; i < n; name += strlen(name) + 1, i++) {
		char what[64];

		cli_run(&c, &r, NULL, (const char *[]){ name, "--help", NULL });
		snprintf(what, sizeof(what), "%s --help", name);
		CHECK_U64(r.status, 0);
		if (!r.out) {
			cli_result_free(&r);
			continue;
		}
		fits_a_screen(what, r.out);
		snprintf(line, sizeof(line), "Usage: nsight-analyze %s", name);
		if (!strstr(r.out, line) && !(i == 0 && strstr(r.out, "Usage: nsight-analyze [report]")))
			KTAP_FAIL("%s does not start with its usage", what);
		for (const char *o = opts[i]; *o; o += strlen(o) + 1) {
			snprintf(line, sizeof(line), "--%s", o);
			if (!strstr(r.out, line))
				KTAP_FAIL("%s does not name %s", what, line);
		}
		cli_result_free(&r);
	}
	commands_free(names, opts, n);
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
	char *man = cli_slurp(MAN_PAGE), *opts, *ex, *end, *line, want[80], *names, *cmd_opts[MAX_CMDS];
	size_t n, i, used = 0, n_cmds, cmds_used = 0;
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
	n_cmds = commands(&names, cmd_opts);
	ex = strstr(man, "\n.SH EXAMPLES\n");
	REQUIRE(ex);
	end = strstr(ex + 1, "\n.SH ");
	if (end)
		*end = '\0';
	for (line = ex; (line = strstr(line, "\nnsight\\-analyze ")); line++) {
		char *eol = strchr(line + 1, '\n'), *p;

		if (eol)
			*eol = '\0';
		/* A first word that is no option and no file (no '.', '/') is a command. */
		p = line + strlen("\nnsight\\-analyze ");
		if (*p != '\\' && strcspn(p, " ./") == strcspn(p, " ")) {
			char word[32] = "";
			size_t k = 0;

			for (const char *q = p; *q && *q != ' ' && k + 1 < sizeof(word); q++)
				if (*q != '\\')
					word[k++] = *q;
			word[k] = '\0';
			for (k = 0, o = names; k < n_cmds && strcmp(o, word); k++)
				o += strlen(o) + 1;
			if (k == n_cmds)
				KTAP_FAIL("EXAMPLES use the command '%s', which nsight-analyze does not have",
					  word);
			cmds_used++;
		}
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
	/* The examples show the commands too. */
	if (cmds_used < 3)
		KTAP_FAIL("found %zu commands in the EXAMPLES", cmds_used);
	commands_free(names, cmd_opts, n_cmds);
	free(opts);
	free(man);
}

/* The completion's option list (without a command) has every long option, as a word. */
static void test_completion_has_every_option(void)
{
	char *comp = cli_slurp(COMPLETION), *opts, *list, want[80];
	const char *o;
	size_t n;

	REQUIRE(comp);
	list = shell_var(comp, "_nsight_analyze_opts");
	REQUIRE(list);
	opts = long_options(&n);
	REQUIRE(opts);
	for (o = opts; *o; o += strlen(o) + 1) {
		snprintf(want, sizeof(want), "--%s", o);
		if (!in_words(list, want))
			KTAP_FAIL("%s does not offer --%s", COMPLETION, o);
	}
	free(opts);
	free(list);
	free(comp);
}

/* COMMANDS: an entry per command, naming each of its options. */
static void test_man_page_commands(void)
{
	char *man = cli_slurp(MAN_PAGE), *names, *opts[MAX_CMDS], *sec, *end, want[96];
	const char *name;
	size_t n, i;

	REQUIRE(man);
	n = commands(&names, opts);
	REQUIRE(n);
	sec = strstr(man, "\n.SH COMMANDS\n");
	REQUIRE(sec);
	end = strstr(sec + 1, "\n.SH ");
	if (end)
		*end = '\0';
	for (name = names, i = 0; i < n; name += strlen(name) + 1, i++) {
		char *entry, *next, mname[64];
		size_t k = 0;

		/* "time-check" as groff writes it; the entry from its tag to the next. */
		for (const char *q = name; *q && k + 2 < sizeof(mname); q++) {
			if (*q == '-')
				mname[k++] = '\\';
			mname[k++] = *q;
		}
		mname[k] = '\0';
		snprintf(want, sizeof(want), "\n.TP\n.B %s\n", mname);
		entry = strstr(sec, want);
		if (!entry) {
			snprintf(want, sizeof(want), "\n.TP\n.BI %s \"", mname);
			entry = strstr(sec, want);
		}
		if (!entry) {
			KTAP_FAIL("%s: COMMANDS has no entry for %s", MAN_PAGE, name);
			continue;
		}
		next = strstr(entry + 1, "\n.TP\n");
		if (next)
			*next = '\0';
		for (const char *o = opts[i]; *o; o += strlen(o) + 1) {
			if (!strcmp(o, "help"))
				continue;
			man_name(o, want, sizeof(want));
			if (!strstr(entry, want))
				KTAP_FAIL("%s: COMMANDS' %s does not name --%s", MAN_PAGE, name, o);
		}
		if (next)
			*next = '\n';
	}
	CHECK_STR_HAS(sec, "\n.BR help \" [\\fICOMMAND\\fR]\"\n");
	/* How a capture named like a command is given. */
	CHECK_STR_HAS(sec, ".B ./report\n");
	commands_free(names, opts, n);
	free(man);
}

/* The completion's commands and, per command, exactly the options it takes. */
static void test_completion_commands(void)
{
	char *comp = cli_slurp(COMPLETION), *names, *opts[MAX_CMDS], *cmds;
	const char *name;
	size_t n, i;

	REQUIRE(comp);
	n = commands(&names, opts);
	REQUIRE(n);
	cmds = shell_var(comp, "_nsight_analyze_commands");
	REQUIRE(cmds);
	CHECK(in_words(cmds, "help"));
	for (name = names, i = 0; i < n; name += strlen(name) + 1, i++) {
		char var[64], want[64], *list;
		size_t k, count = 0, words = 0;

		if (!in_words(cmds, name))
			KTAP_FAIL("%s does not offer the command %s", COMPLETION, name);
		snprintf(var, sizeof(var), "_nsight_analyze_%s_opts", name);
		for (k = 0; var[k]; k++)
			if (var[k] == '-')
				var[k] = '_';
		list = shell_var(comp, var);
		if (!list) {
			KTAP_FAIL("%s has no %s", COMPLETION, var);
			continue;
		}
		for (const char *o = opts[i]; *o; o += strlen(o) + 1, count++) {
			snprintf(want, sizeof(want), "--%s", o);
			if (!in_words(list, want))
				KTAP_FAIL("%s: %s lacks %s", COMPLETION, var, want);
		}
		for (const char *p = list; *p; p++)
			if (*p == '-' && p[1] == '-' && (p == list || p[-1] == ' '))
				words++;
		if (words != count)
			KTAP_FAIL("%s: %s has %zu options, %s gives %s %zu", COMPLETION, var, words,
				  MAIN_C, name, count);
		free(list);
	}
	free(cmds);
	commands_free(names, opts, n);
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
	KTAP_TEST(test_man_page_commands),
	KTAP_TEST(test_completion_commands),
	KTAP_TEST(cleanup),
)
