// SPDX-License-Identifier: MIT
/*
 * The fleet export without a server: TabSeparated rows and SQL literals
 * (chrow), the URL (churl), the tables' columns against the rows written
 * (chschema, chexport: a diagnosed scenario through a sink in memory, in
 * batches, and a sink that fails; a request's application time), and nsight-analyze export's errors: a
 * bad URL, no server, a server that answers an HTTP error, one that does
 * not answer, one that stops answering at an INSERT (a fake one on
 * loopback).
 */
#include "base/sort.h"
#include "diagnose/categories_builtin.h"
#include "export/chexport.h"
#include "export/chrow.h"
#include "export/churl.h"
#include "export/chschema.h"
#include "clirun.h"
#include "fakehttp.h"
#include "scenario.h"

/* What @fn wrote to a memory stream, NUL-terminated (free it). */
static char *written(void (*fn)(FILE *f, void *arg), void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		abort();
	fn(f, arg);
	fclose(f);
	return buf;
}

static void row_escapes(FILE *f, void *arg)
{
	struct nsight_chrow r;

	(void)arg;
	nsight_chrow_begin(&r, f);
	nsight_chrow_str(&r, "a\tb\nc\\d\re\bf\fg'h");
	nsight_chrow_strn(&r, "comm-exactly-16b", 16);
	nsight_chrow_u64(&r, UINT64_MAX);
	nsight_chrow_i64(&r, INT64_MIN);
	nsight_chrow_null(&r);
	nsight_chrow_bool(&r, true);
	nsight_chrow_f64(&r, 0.1);
	nsight_chrow_u64_array(&r, (const uint64_t[]){ 1, 0, 7 }, 3);
	nsight_chrow_u64_array(&r, NULL, 0);
	nsight_chrow_datetime(&r, 1700000005999999999);
	nsight_chrow_datetime(&r, -1);
	CHECK_U64(nsight_chrow_end(&r), 11);
	nsight_chrow_escape(f, "x\0y", 3);
}

static void test_row(void)
{
	char *s = written(row_escapes, NULL);

	REQUIRE(s);
	CHECK(!strcmp(s, "a\\tb\\nc\\\\d\\re\\bf\\fg'h\tcomm-exactly-16b\t18446744073709551615\t"
		      "-9223372036854775808\t\\N\t1\t0.10000000000000001\t[1,0,7]\t[]\t1700000005\t0000000000\nx\\0y"));
	free(s);
}

static void sql_literal(FILE *f, void *arg)
{
	nsight_chrow_sql_str(f, arg);
}

static void test_sql_literal(void)
{
	char *s = written(sql_literal, "it's a\\b\n");

	REQUIRE(s);
	CHECK(!strcmp(s, "'it\\'s a\\\\b\\n'"));
	free(s);
}

static void test_url(void)
{
	static const struct { const char *url, *http, *shown, *db, *user, *password; } ok[] = {
		{ "clickhouse://localhost/fleet", "http://localhost:8123/",
		  "clickhouse://localhost:8123/fleet", "fleet", "", "" },
		{ "clickhouse://ch-1.example.org:18123/nsight_2", "http://ch-1.example.org:18123/",
		  "clickhouse://ch-1.example.org:18123/nsight_2", "nsight_2", "", "" },
		{ "clickhouse://me:s3cr:t@10.0.0.1:9/db", "http://10.0.0.1:9/",
		  "clickhouse://me@10.0.0.1:9/db", "db", "me", "s3cr:t" },
		{ "clickhouse://me@[::1]:8124/db", "http://[::1]:8124/", "clickhouse://me@[::1]:8124/db",
		  "db", "me", "" },
		{ "clickhouse://[fe80::1]/db", "http://[fe80::1]:8123/", "clickhouse://[fe80::1]:8123/db",
		  "db", "", "" },
	};
	static const struct { const char *url, *why; } bad[] = {
		{ "http://localhost/db", "not clickhouse://" },
		{ "clickhouse://localhost", "no /DB" },
		{ "clickhouse://localhost/", "no database" },
		{ "clickhouse://localhost/my-db", "not an identifier" },
		{ "clickhouse://localhost/1db", "not an identifier" },
		{ "clickhouse://localhost/db/", "not an identifier" },
		{ "clickhouse:///db", "no host" },
		{ "clickhouse://host:0/db", "1 to 65535" },
		{ "clickhouse://host:65536/db", "1 to 65535" },
		{ "clickhouse://host:/db", "no port" },
		{ "clickhouse://host:80x/db", "1 to 65535" },
		{ "clickhouse://ho st/db", "character" },
		{ "clickhouse://[::1/db", "no ]" },
		{ "clickhouse://b-d user@host/db", "user" },
	};
	struct nsight_churl u;
	struct nsight_diag d;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		memset(&d, 0, sizeof(d));
		CHECK(nsight_churl_parse(&u, ok[i].url, &d) == 0);
		CHECK(!strcmp(u.http, ok[i].http));
		CHECK(!strcmp(u.shown, ok[i].shown));
		CHECK(!strcmp(u.db, ok[i].db));
		CHECK(!strcmp(u.user, ok[i].user));
		CHECK(!strcmp(u.password, ok[i].password));
		if (strcmp(u.shown, ok[i].shown))
			printf("# %s: shown %s\n", ok[i].url, u.shown);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&d, 0, sizeof(d));
		CHECK(nsight_churl_parse(&u, bad[i].url, &d) == -NSIGHT_E_INVAL);
		CHECK_STR_HAS(d.msg, bad[i].why);
		CHECK_STR_HAS(d.msg, bad[i].url);
	}
	CHECK(nsight_churl_ident("_a1"));
	CHECK(!nsight_churl_ident(""));
	CHECK(!nsight_churl_ident("a;drop"));
}

static void schema_print(FILE *f, void *arg)
{
	nsight_chschema_print(f, "fleet", arg);
}

static void test_schema(void)
{
	char *plain = written(schema_print, NULL), *dist = written(schema_print, "two");
	size_t t;

	REQUIRE(plain && dist);
	CHECK_STR_HAS(plain, "CREATE TABLE IF NOT EXISTS fleet.messages\n(");
	CHECK(!strstr(plain, "Distributed"));
	CHECK_STR_HAS(dist, "CREATE TABLE IF NOT EXISTS fleet.messages_local\n(");
	CHECK_STR_HAS(dist, "ENGINE = Distributed(two, fleet, messages_local, cityHash64(capture_id))");
	CHECK_STR_HAS(dist, "ENGINE = Distributed(two, fleet, causes_local, cityHash64(capture_id))");
	CHECK_STR_HAS(dist, "ENGINE = Distributed(two, fleet, captures_local, cityHash64(capture_id))");
	CHECK_STR_HAS(plain, "    time DateTime,\n");
	CHECK(!strstr(plain, "MATERIALIZED"));
	for (t = 0; t < __NSIGHT_CH_TABLES; t++)
		CHECK(nsight_chschema_n_inserted(t) == nsight_chtables[t].n_cols);
	free(plain);
	free(dist);
}

/* A sink in memory: each table's rows, batches counted; fails at batch @fail_at. */
struct mem_sink {
	char *rows[__NSIGHT_CH_TABLES];
	size_t len[__NSIGHT_CH_TABLES], n[__NSIGHT_CH_TABLES], batches[__NSIGHT_CH_TABLES];
	size_t max_batch;
	enum nsight_chtable order[64];
	size_t n_order, fail_at;
};

static int mem_batch(void *arg, enum nsight_chtable t, const char *body, size_t len, size_t rows,
		     struct nsight_diag *d)
{
	struct mem_sink *m = arg;
	char *r;

	if (m->n_order < 64)
		m->order[m->n_order] = t;
	if (++m->n_order == m->fail_at)
		return nsight_diag_set(d, NSIGHT_E_IO, "rejected");
	r = realloc(m->rows[t], m->len[t] + len + 1);
	if (!r)
		abort();
	memcpy(r + m->len[t], body, len);
	m->len[t] += len;
	r[m->len[t]] = '\0';
	m->rows[t] = r;
	m->n[t] += rows;
	m->batches[t]++;
	if (rows > m->max_batch)
		m->max_batch = rows;
	return 0;
}

/* Each line of @s has @cols values; returns the lines. */
static size_t lines_with(const char *s, size_t cols)
{
	size_t n = 0, tabs = 0;

	for (; s && *s; s++) {
		if (*s == '\t') {
			tabs++;
		} else if (*s == '\n') {
			if (tabs + 1 != cols)
				KTAP_FAIL("a row of %zu values, expected %zu", tabs + 1, cols);
			n++;
			tabs = 0;
		}
	}
	return n;
}

/* The mixed scenario (gen_scenario mixed), analysed and diagnosed. */
static int mixed(struct nsight_analysis *a, struct nsight_dx *dx)
{
	static const enum scen_kind slow[] = { SC_HOG, SC_KWORKER, SC_IDLE_IRQ, SC_FAULT, SC_NETRX };
	struct nsight_diag d = { 0 };
	struct nsight_dx_opts o;
	struct nsight_cats cats;
	struct scen sc;
	int ret;

	scen_init(&sc, "server");
	scen_mixed(&sc, 200, slow, 5, 10, 4, 105);
	synth_flush(&sc.s);
	memset(dx, 0, sizeof(*dx));
	ret = synth_analyze(&sc.s, a);
	synth_free(&sc.s);
	nsight_cats_init(&cats);
	nsight_dx_opts_default(&o);
	if (!ret)
		ret = nsight_cats_parse(&cats, nsight_categories_builtin,
					strlen(nsight_categories_builtin),
					nsight_categories_builtin_name, &d);
	if (!ret)
		ret = nsight_analysis_diagnose(dx, a, NULL, &cats, &o, &d);
	nsight_cats_fini(&cats);
	return ret;
}

static const struct nsight_chexport_opts eo = {
	.host = "web\t1", .file = "mixed.nsight", .capture_id = "0123456789abcdef0123456789abcdef",
	.export_id = 42, .exported_ns = 1700000000000000000, .tail_pct = 90, .batch = 7,
};

static void test_rows(void)
{
	struct nsight_chexport_counts c;
	struct nsight_diag d = { 0 };
	struct mem_sink m = { 0 };
	struct nsight_chexport_sink s = { mem_batch, &m };
	struct nsight_analysis a;
	struct nsight_dx dx;
	uint64_t tail = 0, causes = 0;
	size_t i, k, t;

	REQUIRE(mixed(&a, &dx) == 0);
	for (i = 0; i < dx.n; i++)
		for (k = 0; k < dx.groups[i].n_msgs; k++) {
			tail++;
			causes += dx.groups[i].msgs[k].n_mc;
		}
	CHECK(nsight_chexport_rows(&a, &dx, &eo, &s, &c, &d) == 0);
	CHECK_U64(c.messages, a.lt.n);
	CHECK_U64(c.complete, a.lt.n_complete);
	CHECK_U64(c.causes, causes);
	CHECK(causes > 0);
	for (t = 0; t < __NSIGHT_CH_TABLES; t++)
		CHECK_U64(lines_with(m.rows[t], nsight_chschema_n_inserted(t)), m.n[t]);
	CHECK_U64(m.n[NSIGHT_CH_MESSAGES], a.lt.n);
	CHECK_U64(m.n[NSIGHT_CH_CAUSES], causes);
	CHECK_U64(m.n[NSIGHT_CH_CAPTURES], 1);
	CHECK_U64(m.batches[NSIGHT_CH_MESSAGES], (a.lt.n + 6) / 7);
	CHECK(m.max_batch <= 7);
	/* The capture's row last, and only once. */
	REQUIRE(m.n_order > 2);
	CHECK(m.order[m.n_order - 1] == NSIGHT_CH_CAPTURES);
	CHECK(m.order[0] == NSIGHT_CH_MESSAGES);
	CHECK_U64(c.batches, m.n_order);
	/* The host escaped, the capture's counts in its row. */
	CHECK_STR_HAS(m.rows[NSIGHT_CH_CAPTURES], "0123456789abcdef0123456789abcdef\t42\tweb\\t1\tmixed.nsight\t");
	{
		char want[64];

		snprintf(want, sizeof(want), "\t%zu\t%" PRIu64 "\t%" PRIu64 "\t90\t", a.lt.n, a.lt.n_complete,
			 causes);
		CHECK_STR_HAS(m.rows[NSIGHT_CH_CAPTURES], want);
	}
	CHECK_STR_HAS(m.rows[NSIGHT_CH_MESSAGES], "\tserver\t100\t101\trx\tudp\t10.0.0.1:5000\t10.0.0.2:9000\t");
	CHECK_STR_HAS(m.rows[NSIGHT_CH_MESSAGES], "\t1700000005\t1\tcomplete\t");
	CHECK_STR_HAS(m.rows[NSIGHT_CH_CAUSES], "\tstress interference\tA\t1\t");
	(void)tail;
	for (t = 0; t < __NSIGHT_CH_TABLES; t++)
		free(m.rows[t]);
	nsight_dx_fini(&dx);
	nsight_analysis_fini(&a);
}

/* A batch rejected: the error stops the export, the capture's row is not written. */
static void test_rows_fail(void)
{
	struct nsight_chexport_counts c;
	struct nsight_diag d = { 0 };
	struct mem_sink m = { .fail_at = 3 };
	struct nsight_chexport_sink s = { mem_batch, &m };
	struct nsight_analysis a;
	struct nsight_dx dx;
	size_t t;

	REQUIRE(mixed(&a, &dx) == 0);
	CHECK(nsight_chexport_rows(&a, &dx, &eo, &s, &c, &d) == -NSIGHT_E_IO);
	CHECK_STR_HAS(d.msg, "rejected");
	CHECK_U64(m.n_order, 3);
	CHECK_U64(m.n[NSIGHT_CH_CAPTURES], 0);
	CHECK_U64(m.n[NSIGHT_CH_MESSAGES], 14);
	for (t = 0; t < __NSIGHT_CH_TABLES; t++)
		free(m.rows[t]);
	nsight_dx_fini(&dx);
	nsight_analysis_fini(&a);
}

/* The values of column @name of the messages rows @rows, each into @v (INT64_MIN for \N). */
static size_t message_col(const char *rows, const char *name, int64_t *v, size_t max)
{
	const struct nsight_chtable_def *t = &nsight_chtables[NSIGHT_CH_MESSAGES];
	size_t col, n = 0, k;

	for (col = 0; col < t->n_cols && strcmp(t->cols[col].name, name); col++)
		;
	if (col == t->n_cols)
		return 0;
	while (rows && *rows && n < max) {
		const char *p = rows;

		for (k = 0; k < col; k++)
			p = strchr(p, '\t') + 1;
		v[n++] = !strncmp(p, "\\N", 2) ? INT64_MIN : strtoll(p, NULL, 10);
		rows = strchr(rows, '\n');
		rows = rows ? rows + 1 : NULL;
	}
	return n;
}

#define N_REQ 100

/* The app_ns values of @a's message rows (@dx: its diagnosis) into @got. */
static size_t app_col(const struct nsight_analysis *a, const struct nsight_dx *dx, int64_t *got,
		      size_t max)
{
	struct nsight_chexport_counts c;
	struct nsight_diag d = { 0 };
	struct mem_sink m = { 0 };
	struct nsight_chexport_sink s = { mem_batch, &m };
	size_t n, t;

	CHECK(nsight_chexport_rows(a, dx, &eo, &s, &c, &d) == 0);
	n = message_col(m.rows[NSIGHT_CH_MESSAGES], "app_ns", got, max);
	CHECK_U64(n, a->lt.n);
	for (t = 0; t < __NSIGHT_CH_TABLES; t++)
		free(m.rows[t]);
	return n;
}

/*
 * app_ns: the two-stage server's requests (request marks) each give their
 * message the time from its receive to the end, as built by the scenario
 * (receiving thread 500 ns, queued 200 or SC_HOG_RUN + 100, the work);
 * the other messages, and every one of a capture without marks, NULL.
 */
static void test_app_ns(void)
{
	static int64_t got[4 * N_REQ], want[N_REQ];
	struct nsight_analysis a;
	struct nsight_dx dx;
	struct scen sc;
	size_t i, n, k = 0;

	scen_init(&sc, "twostage");
	scen_twostage(&sc, N_REQ);
	synth_flush(&sc.s);
	REQUIRE(synth_analyze(&sc.s, &a) == 0);
	synth_free(&sc.s);
	n = app_col(&a, NULL, got, 4 * N_REQ);
	nsight_analysis_fini(&a);
	for (i = 0; i < n; i++)
		if (got[i] != INT64_MIN)
			got[k++] = got[i];
	for (i = 0; i < N_REQ; i++)
		want[i] = 500 + (i % 10 == 9 ? SC_HOG_RUN + 100 : 200) + (int64_t)sc_work_ns(i);
	REQUIRE(k == N_REQ);
	nsight_sort_i64(got, k);
	nsight_sort_i64(want, N_REQ);
	for (i = 0; i < N_REQ; i++)
		CHECK_U64(got[i], want[i]);

	REQUIRE(mixed(&a, &dx) == 0);
	n = app_col(&a, &dx, got, 4 * N_REQ);
	CHECK(n > 0);
	for (i = 0; i < n; i++)
		CHECK(got[i] == INT64_MIN);
	nsight_dx_fini(&dx);
	nsight_analysis_fini(&a);
}

static void test_cli(void)
{
	static const char http_404[] =
		"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 70\r\n"
		"Connection: close\r\n\r\n"
		"Code: 81, e.displayText() = DB::Exception: Database nope doesn't exist\n";
	struct cli_result r;
	struct scen sc;
	struct cli c;
	char url[128];
	unsigned int port;
	pid_t pid;

	REQUIRE(cli_init(&c) == 0);
	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_HOG, 8, 7);
	REQUIRE(scen_save(&sc, cli_file(&c, "hog.nsight")) == 0);

	cli_run(&c, &r, NULL, (const char *[]){ "--export", "http://x/db", cli_file(&c, "hog.nsight"), NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "not clickhouse://");
	cli_result_free(&r);
	cli_run(&c, &r, NULL, (const char *[]){ "--host", "h", cli_file(&c, "hog.nsight"), NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "go with --export");
	cli_result_free(&r);
	cli_run(&c, &r, NULL, (const char *[]){ "export", "--json", "clickhouse://x/db", NULL });
	CHECK_U64(r.status, 2);
	cli_result_free(&r);
	cli_run(&c, &r, NULL, (const char *[]){ "--export-schema", "--cluster", "two", "clickhouse://x/f", NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "ENGINE = Distributed(two, f, causes_local, cityHash64(capture_id));");
	cli_result_free(&r);

	/* Nothing listens on port 1 of loopback. */
	cli_run(&c, &r, NULL, (const char *[]){ "export", "clickhouse://127.0.0.1:1/db",
						 cli_file(&c, "hog.nsight"), NULL });
	CHECK_U64(r.status, 1);
	CHECK_STR_HAS(r.err, "clickhouse://127.0.0.1:1/db: SELECT count()");
	CHECK(r.out && !r.out[0]);
	cli_result_free(&r);

	pid = fake_http(http_404, NULL, &port);
	REQUIRE(pid > 0);
	snprintf(url, sizeof(url), "clickhouse://127.0.0.1:%u/nope", port);
	cli_run(&c, &r, NULL, (const char *[]){ "--export", url, cli_file(&c, "hog.nsight"), NULL });
	CHECK_U64(r.status, 1);
	CHECK_STR_HAS(r.err, url);
	CHECK_STR_HAS(r.err, "HTTP 404: Code: 81, e.displayText() = DB::Exception: Database nope doesn't exist");
	cli_result_free(&r);
	fake_http_stop(pid);

	pid = fake_http(NULL, NULL, &port);
	REQUIRE(pid > 0);
	snprintf(url, sizeof(url), "clickhouse://127.0.0.1:%u/db", port);
	cli_run(&c, &r, NULL, (const char *[]){ "--export", url, "--timeout", "1",
						 cli_file(&c, "hog.nsight"), NULL });
	CHECK_U64(r.status, 1);
	CHECK_STR_HAS(r.err, url);
	CHECK_STR_HAS(r.err, "timed out");
	cli_result_free(&r);
	fake_http_stop(pid);
	cli_fini(&c, (const char *[]){ "hog.nsight", NULL });
}

#define HTTP_200(body) "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n" \
	"Content-Length: " body

/*
 * A server that stops answering after the capture check: at the first
 * INSERT, or at the captures row's, which it may have committed (the
 * captures table asked again says whether).
 */
static void test_cli_stalls(void)
{
	static const char none[] = HTTP_200("4\r\n\r\n0\t0\n"), ok[] = HTTP_200("0\r\n\r\n"),
			  there[] = HTTP_200("22\r\n\r\n1\t1700000000000000000\n");
	static const char check[] = "SELECT count()", captures[] = "INSERT%20INTO%20db.captures";
	static const struct {
		const char *what;
		struct fake_reply r[3];
		size_t n;
		const char *dflt;
		int status;
		const char *err[3];
		bool complete;
	} cases[] = {
		{ "the first INSERT", { { check, none } }, 1, NULL, 1,
		  { ": INSERT INTO db.messages (capture_id, ", "timed out",
		    "the capture's row was not written" }, false },
		{ "the captures row, committed", { { check, none }, { captures, NULL }, { check, there } }, 3,
		  ok, 0, { ": INSERT INTO db.captures (capture_id, ", "timed out",
			   "the capture's row was written although its INSERT failed here" }, true },
		{ "the captures row, not committed", { { check, none }, { captures, NULL }, { check, none } },
		  3, ok, 1, { ": INSERT INTO db.captures (capture_id, ", "timed out",
			      "the capture's row was not written" }, false },
		{ "the captures row, the check again unanswered", { { check, none }, { captures, NULL } }, 2,
		  ok, 1, { "unexpected answer to the capture check",
			   "whether the capture's row was written is not known", "timed out" }, false },
	};
	struct cli_result r;
	struct scen sc;
	struct cli c;
	char url[128];
	unsigned int port;
	size_t i, k;
	pid_t pid;

	REQUIRE(cli_init(&c) == 0);
	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_HOG, 8, 7);
	REQUIRE(scen_save(&sc, cli_file(&c, "hog.nsight")) == 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		printf("# stalls at %s\n", cases[i].what);
		pid = fake_http_script(cases[i].r, cases[i].n, cases[i].dflt, cli_file(&c, "last.req"),
				       &port);
		REQUIRE(pid > 0);
		snprintf(url, sizeof(url), "clickhouse://127.0.0.1:%u/db", port);
		cli_run(&c, &r, NULL, (const char *[]){ "--export", url, "--timeout", "1",
							 cli_file(&c, "hog.nsight"), NULL });
		CHECK_U64(r.status, cases[i].status);
		CHECK_STR_HAS(r.err, url);
		for (k = 0; k < 3; k++)
			CHECK_STR_HAS(r.err, cases[i].err[k]);
		/* Complete only when the server has the capture's row. */
		if (cases[i].complete)
			CHECK_STR_HAS(r.out, "exported to");
		else
			CHECK(r.out && !r.out[0]);
		cli_result_free(&r);
		fake_http_stop(pid);
		/* The check again asks for this export's row. */
		if (cases[i].n > 2) {
			char *req = cli_slurp(cli_file(&c, "last.req"));

			CHECK_STR_HAS(req, "SELECT count(), min(exported_ns) FROM db.captures WHERE capture_id = '");
			CHECK_STR_HAS(req, "' AND export_id = ");
			free(req);
		}
	}
	cli_fini(&c, (const char *[]){ "hog.nsight", "last.req", NULL });
}

KTAP_MAIN(
	KTAP_TEST(test_row),
	KTAP_TEST(test_sql_literal),
	KTAP_TEST(test_url),
	KTAP_TEST(test_schema),
	KTAP_TEST(test_rows),
	KTAP_TEST(test_rows_fail),
	KTAP_TEST(test_app_ns),
	KTAP_TEST(test_cli),
	KTAP_TEST(test_cli_stalls),
)
