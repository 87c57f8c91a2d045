// SPDX-License-Identifier: MIT
/* nsight-analyze --html on synthetic captures: every plot there, with data. */
#include <ctype.h>

#include "clirun.h"
#include "scenario.h"

static struct cli c;

static const char *path(const char *name)
{
	return cli_file(&c, name);
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;

	for (s = strstr(s, needle); s; s = strstr(s + 1, needle))
		n++;
	return n;
}

/* The <section> of plot @id in @html, copied; NULL if missing. */
static char *section(const char *html, const char *id)
{
	char open[64];
	const char *s, *e;

	snprintf(open, sizeof(open), "<section class=\"plot\" data-plot=\"%s\"", id);
	s = strstr(html, open);
	e = s ? strstr(s, "</section>") : NULL;
	return e ? strndup(s, (size_t)(e - s)) : NULL;
}

/* Plot @id is present, its <svg> closed, with at least @min of @el. */
static void check_plot(const char *html, const char *id, const char *el, size_t min)
{
	char *s = section(html, id);

	if (!s) {
		KTAP_FAIL("plot %s missing", id);
		return;
	}
	if (count(s, "<svg") != 1 || count(s, "</svg>") != 1)
		KTAP_FAIL("plot %s: <svg> not exactly once and closed", id);
	if (count(s, el) < min)
		KTAP_FAIL("plot %s: %zu '%s', expected at least %zu", id, count(s, el), el, min);
	free(s);
}

/*
 * Well-formed enough for a browser and an XML parser alike: tags nest and
 * close (void elements of HTML aside), quotes in tags pair up, every '&'
 * starts an entity and no '<' stands alone in text. Returns an error or NULL.
 */
static const char *well_formed(const char *html, char *err, size_t len)
{
	static const char *const voids[] = { "meta", "br", "hr", "img", "!DOCTYPE", NULL };
	char stack[64][16];
	size_t depth = 0, i;
	const char *p;

	for (p = html; *p; p++) {
		char name[16];
		const char *e;
		size_t n = 0, q = 0;
		bool closing, self;

		if (*p == '&') {
			if (strncmp(p, "&lt;", 4) && strncmp(p, "&gt;", 4) && strncmp(p, "&amp;", 5) &&
			    strncmp(p, "&quot;", 6) && strncmp(p, "&#", 2)) {
				snprintf(err, len, "bare '&' at %zu", (size_t)(p - html));
				return err;
			}
			continue;
		}
		if (*p != '<')
			continue;
		e = strchr(p, '>');
		if (!e) {
			snprintf(err, len, "unclosed tag at %zu", (size_t)(p - html));
			return err;
		}
		for (const char *t = p; t < e; t++)
			q += *t == '"';
		if (q % 2) {
			snprintf(err, len, "odd quotes in tag at %zu", (size_t)(p - html));
			return err;
		}
		closing = p[1] == '/';
		self = e[-1] == '/';
		for (const char *t = p + 1 + closing; n + 1 < sizeof(name) && (isalnum((unsigned char)*t) || *t == '!'); t++)
			name[n++] = *t;
		name[n] = '\0';
		if (!n) {
			snprintf(err, len, "'<' in text at %zu", (size_t)(p - html));
			return err;
		}
		for (i = 0; voids[i] && strcmp(voids[i], name); i++)
			;
		if (voids[i] || self) {
			p = e;
			continue;
		}
		if (closing) {
			if (!depth || strcmp(stack[depth - 1], name)) {
				snprintf(err, len, "</%s> closes <%s> at %zu", name,
					 depth ? stack[depth - 1] : "nothing", (size_t)(p - html));
				return err;
			}
			depth--;
		} else {
			if (depth == 64) {
				snprintf(err, len, "nesting too deep at %zu", (size_t)(p - html));
				return err;
			}
			strcpy(stack[depth++], name);
		}
		p = e;
	}
	if (depth) {
		snprintf(err, len, "<%s> not closed", stack[depth - 1]);
		return err;
	}
	return NULL;
}

static void check_well_formed(const char *html)
{
	char err[128];

	if (well_formed(html, err, sizeof(err)))
		KTAP_FAIL("not well-formed: %s", err);
}

static char *report(const char *cap, const char *baseline)
{
	char out[192];
	struct cli_result r;
	char *html;

	cli_path(&c, "report.html", out, sizeof(out));
	if (baseline)
		cli_run(&c, &r, NULL, (const char *[]){ "--html", out, "--baseline", baseline, cap, NULL });
	else
		cli_run(&c, &r, NULL, (const char *[]){ "--html", out, cap, NULL });
	CHECK_U64(r.status, 0);
	if (r.status)
		printf("# %s\n", r.err ? r.err : "");
	cli_result_free(&r);
	html = cli_slurp(out);
	unlink(out);
	return html;
}

/* The checker itself catches what it is for. */
static void test_well_formed_checker(void)
{
	char err[128];

	CHECK(!well_formed("<p>a &amp; b<svg><rect x=\"1\"/></svg></p>", err, sizeof(err)));
	CHECK(well_formed("<p><svg></p></svg>", err, sizeof(err)) != NULL);
	CHECK(well_formed("<svg><g></svg>", err, sizeof(err)) != NULL);
	CHECK(well_formed("<p>a & b</p>", err, sizeof(err)) != NULL);
	CHECK(well_formed("<p>a < b</p>", err, sizeof(err)) != NULL);
	CHECK(well_formed("<p title=\"x>y</p>", err, sizeof(err)) != NULL);
}

static void test_plots(void)
{
	struct scen sc;
	char *html;

	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_HOG, 8, 7);
	REQUIRE(scen_save(&sc, path("hog")) == 0);
	html = report(path("hog"), NULL);
	REQUIRE(html);
	CHECK(!strncmp(html, "<!DOCTYPE html>", 15));
	CHECK(strstr(html, "</html>") != NULL);
	check_well_formed(html);
	/* Nothing fetched, no script. */
	CHECK(!strstr(html, "<script") && !strstr(html, "src=") && !strstr(html, "href=") &&
	      !strstr(html, "url("));
	/* The header: the evidence line, the reference. */
	CHECK_STR_HAS(html, "<p class=\"evidence\">evidence: context records; no function-level");
	CHECK_STR_HAS(html, "reference 8 messages (median 2.70us), tail 5 messages &gt;= p90");
	/* 40 messages; the 5 hogged ones with the first cause's marker and colour. */
	check_plot(html, "balloon", "<circle", 40);
	CHECK_U64(count(html, "class=\"tail\"><title>"), 5);
	CHECK_U64(count(html, "fill=\"#d62728\" class=\"tail\"><title>rx"), 5);
	check_plot(html, "causes", "class=\"box\"", 1);
	CHECK_STR_HAS(html, "stress interference (A)");
	CHECK_STR_HAS(html, ">n=5, main 5</text>");
	/* The slowest messages' timelines: the hog on the application core. */
	check_plot(html, "timelines", "<rect", 10);
	CHECK_U64(count(html, "class=\"msg\""), 5);
	CHECK_U64(count(html, "class=\"stage\">h</text>"), 5);
	CHECK_STR_HAS(html, "<title>task:stress 50.0us</title>");
	/* The hog leaves the tail messages no idle time. */
	check_plot(html, "idle", "<svg", 1);
	CHECK_STR_HAS(html, "no idle time in the tail messages");
	/* Waiting in another context: the hog. */
	check_plot(html, "queuing", "class=\"bar\"", 10);
	CHECK_U64(count(html, "h-&gt;a waiting: other contexts: 50"), 5);
	check_plot(html, "contexts", "class=\"bar\"", 2);
	CHECK_STR_HAS(html, "<title>other tasks: ");
	check_plot(html, "cdf", "<path class=\"cdf\"", 1);
	CHECK_U64(count(html, "cdf baseline"), 0);
	free(html);

	/* An irq on the idle application core, then 40 us idle: named after it. */
	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_IDLE_IRQ, 8, 7);
	REQUIRE(scen_save(&sc, path("idleirq")) == 0);
	html = report(path("idleirq"), NULL);
	REQUIRE(html);
	check_well_formed(html);
	check_plot(html, "idle", "class=\"box\"", 2);
	CHECK_STR_HAS(html, ">idle:irq:mlx5_comp0 (A)</text>");
	CHECK_U64(count(html, "h-&gt;a waiting: core idle: 3"), 5);
	free(html);
}

/* Five causes and head-of-line blocking: a marker shape and colour each. */
static void test_causes(void)
{
	static const enum scen_kind slow[] = { SC_HOG, SC_KWORKER, SC_IDLE_IRQ, SC_FAULT, SC_NETRX };
	static const char *const colors[] = { "#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd" };
	struct scen sc;
	char *html, *s, needle[64];
	size_t i;

	scen_init(&sc, "server");
	scen_mixed(&sc, 100, slow, 5, 10, 4, 100);
	REQUIRE(scen_save(&sc, path("mixed")) == 0);
	html = report(path("mixed"), NULL);
	REQUIRE(html);
	check_well_formed(html);
	s = section(html, "balloon");
	REQUIRE(s);
	/*
	 * Tail p90: 11 messages, two per cause and one a little slower by the
	 * application itself (a sixth cause); each cause its colour, the
	 * first a circle, the others paths.
	 */
	for (i = 0; i < 5; i++) {
		snprintf(needle, sizeof(needle), "fill=\"%s\" class=\"tail\">", colors[i]);
		CHECK_U64(count(s, needle), 2);
	}
	CHECK_U64(count(s, "<circle cx"), 89 + 2 + 1);	/* outside the tail, cause 0, legend */
	CHECK_U64(count(s, "<path d=\"M"), 9 + 5);	/* causes 1 to 5, legend */
	CHECK_STR_HAS(s, ">Application processing (A)</text>");
	free(s);
	s = section(html, "causes");
	REQUIRE(s);
	CHECK_U64(count(s, "class=\"box\""), 6);
	CHECK_U64(count(s, ">n=2, main 2</text>"), 5);
	free(s);
	check_plot(html, "timelines", "class=\"msg\"", 5);
	CHECK_STR_HAS(html, ">work item</text>");
	CHECK_STR_HAS(html, ">page fault</text>");
	check_plot(html, "contexts", "class=\"bar\"", 6);
	free(html);
}

static void test_baseline_and_escaping(void)
{
	struct scen sc;
	char *html;

	scen_init(&sc, "<b>&\"x'");
	scen_run(&sc, 40, SC_NORMAL, 0, 0);
	REQUIRE(scen_save(&sc, path("clean")) == 0);
	scen_init(&sc, "<b>&\"x'");
	scen_run(&sc, 40, SC_KWORKER, 8, 7);
	REQUIRE(scen_save(&sc, path("kworker")) == 0);
	html = report(path("kworker"), path("clean"));
	REQUIRE(html);
	check_well_formed(html);
	/* The baseline's CDF on the same axes. */
	check_plot(html, "cdf", "<path class=\"cdf", 2);
	CHECK_U64(count(html, "<path class=\"cdf baseline\""), 1);
	CHECK_STR_HAS(html, ">baseline (40, median 2.70us)</text>");
	CHECK_STR_HAS(html, "reference 8 messages of the baseline");
	CHECK_STR_HAS(html, "&lt;b&gt;&amp;&quot;x&#39;[100] rx");
	CHECK(!strstr(html, "<b>"));
	CHECK_STR_HAS(html, "OS threads: vmstat_update (A)");
	free(html);
}

/* No messages: a valid page that says so. */
static void test_empty(void)
{
	struct synth s;
	char *html;

	synth_init(&s, 1);
	synth_tk(&s, 0, SYN_TK_TSC);
	REQUIRE(synth_save(&s, path("empty")) == 0);
	synth_free(&s);
	html = report(path("empty"), NULL);
	REQUIRE(html);
	check_well_formed(html);
	CHECK_STR_HAS(html, "no complete messages to diagnose");
	CHECK(strstr(html, "</html>") != NULL);
	free(html);
}

/* Messages, none of them slow: the tail plots say so, the rest are drawn. */
static void test_no_causes(void)
{
	struct scen sc;
	char *html;

	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_NORMAL, 0, 0);
	REQUIRE(scen_save(&sc, path("clean")) == 0);
	html = report(path("clean"), NULL);
	REQUIRE(html);
	check_well_formed(html);
	check_plot(html, "balloon", "<circle", 40);
	check_plot(html, "causes", "<svg", 1);
	CHECK_STR_HAS(html, ">no causes</text>");
	check_plot(html, "cdf", "<path class=\"cdf\"", 1);
	free(html);
}

static void test_write_error(void)
{
	struct cli_result r;

	cli_run(&c, &r, NULL, (const char *[]){ "--html", "/dev/full", path("hog"), NULL });
	CHECK_U64(r.status, 1);
	CHECK_STR_HAS(r.err, "HTML report /dev/full: writing failed");
	cli_result_free(&r);
	cli_run(&c, &r, NULL, (const char *[]){ "--html", "-", path("hog"), NULL });
	CHECK_U64(r.status, 2);
	cli_result_free(&r);
}

static void setup(void)
{
	REQUIRE(cli_init(&c) == 0);
}

static void teardown(void)
{
	CHECK(cli_fini(&c, (const char *[]){ "hog", "idleirq", "mixed", "clean", "kworker", "empty",
					     NULL }) == 0);
}

KTAP_MAIN(
	KTAP_TEST(setup),
	KTAP_TEST(test_well_formed_checker),
	KTAP_TEST(test_plots),
	KTAP_TEST(test_causes),
	KTAP_TEST(test_baseline_and_escaping),
	KTAP_TEST(test_empty),
	KTAP_TEST(test_no_causes),
	KTAP_TEST(test_write_error),
	KTAP_TEST(teardown),
)
