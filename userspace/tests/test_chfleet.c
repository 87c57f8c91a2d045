// SPDX-License-Identifier: MIT
/*
 * The fleet queries without a server: Documentation/fleet.sql built in,
 * each query's text with its placeholders filled (chfleet), the times of
 * a range, and nsight-analyze fleet's arguments, the request it sends and
 * what it prints of an answer, against a fake server on loopback.
 */
#include "export/chfleet.h"
#include "clirun.h"
#include "fakehttp.h"

static void test_names(void)
{
	static const char *const want[] = { "latency", "causes", "top-causes", "slowest", "compare" };
	char names[8][NSIGHT_CHFLEET_NAME];
	struct nsight_diag d = { 0 };
	unsigned int uses;
	size_t i, n = nsight_chfleet_names(names, 8);

	CHECK_U64(n, 5);
	for (i = 0; i < n && i < 5; i++)
		CHECK(!strcmp(names[i], want[i]));
	CHECK_U64(nsight_chfleet_names(names, 2), 5);

	REQUIRE(nsight_chfleet_uses("latency", &uses, &d) == 0);
	CHECK_U64(uses, 0);
	REQUIRE(nsight_chfleet_uses("slowest", &uses, &d) == 0);
	CHECK_U64(uses, NSIGHT_CHFLEET_HOST);
	REQUIRE(nsight_chfleet_uses("compare", &uses, &d) == 0);
	CHECK_U64(uses, NSIGHT_CHFLEET_RANGE2);
	CHECK(nsight_chfleet_uses("latenc", &uses, &d) == -NSIGHT_E_INVAL);
	CHECK_STR_HAS(d.msg, "no fleet query 'latenc' (latency, causes, top-causes, slowest, compare)");
	CHECK(nsight_chfleet_uses("", &uses, &d) == -NSIGHT_E_INVAL);
	/* The file as it is: its comments too. */
	CHECK_STR_HAS(nsight_chfleet_sql_file, "-- SPDX-License-Identifier: GPL-2.0\n");
	CHECK_STR_HAS(nsight_chfleet_sql_file, "-- name: compare\n");
}

static void test_sql(void)
{
	struct nsight_chfleet_args a = { .db = "fl", .from = 100, .to = 200, .from2 = 300, .to2 = 400,
					 .host = "web-1" };
	char names[8][NSIGHT_CHFLEET_NAME];
	struct nsight_diag d = { 0 };
	size_t i, n = nsight_chfleet_names(names, 8);
	char *sql;

	for (i = 0; i < n; i++) {
		REQUIRE(nsight_chfleet_sql(names[i], &a, &sql, &d) == 0);
		/* Every placeholder filled, no comment, no ';' at the end, a query. */
		CHECK(!strchr(sql, '{') && !strchr(sql, '}'));
		CHECK(!strstr(sql, "--"));
		CHECK(sql[0] == 'S' && sql[strlen(sql) - 1] != ';' && sql[strlen(sql) - 1] != '\n');
		CHECK_STR_HAS(sql, "toDateTime(100)");
		CHECK_STR_HAS(sql, "toDateTime(200)");
		CHECK_STR_HAS(sql, "FROM fl.captures GROUP BY capture_id");
		free(sql);
	}
	REQUIRE(nsight_chfleet_sql("latency", &a, &sql, &d) == 0);
	CHECK(!strncmp(sql, "SELECT host, comm, dir, count, p50, p90, p99, `p99.9`, max\nFROM\n(\n", 66));
	CHECK_STR_HAS(sql, "    FROM fl.messages\n    WHERE complete AND time >= toDateTime(100) AND time < toDateTime(200)\n");
	CHECK_STR_HAS(sql, "\nORDER BY p99 DESC, host, comm, dir");
	free(sql);
	REQUIRE(nsight_chfleet_sql("compare", &a, &sql, &d) == 0);
	CHECK_STR_HAS(sql, "time >= toDateTime(300) AND time < toDateTime(400), 2, 0) AS r");
	free(sql);
	/* The host as a SQL string literal. */
	a.host = "it's a\\b";
	REQUIRE(nsight_chfleet_sql("slowest", &a, &sql, &d) == 0);
	CHECK_STR_HAS(sql, "WHERE host = 'it\\'s a\\\\b' AND complete");
	free(sql);
	a.host = NULL;
	CHECK(nsight_chfleet_sql("slowest", &a, &sql, &d) == -NSIGHT_E_INVAL);
	CHECK(!sql);
	CHECK_STR_HAS(d.msg, "'slowest' is of one host");
	CHECK(nsight_chfleet_sql("nope", &a, &sql, &d) == -NSIGHT_E_INVAL);
	CHECK(!sql);
	/* Negative times (before 1970) are written as they are. */
	a.from = -5;
	REQUIRE(nsight_chfleet_sql("causes", &a, &sql, &d) == 0);
	CHECK_STR_HAS(sql, "toDateTime(-5)");
	free(sql);
}

static void test_time(void)
{
	static const struct {
		const char *s;
		int64_t t;
	} good[] = {
		{ "2024-05-01T12:00:00Z", 1714564800 },
		{ "2024-05-01t12:00:00z", 1714564800 },
		{ "2024-05-01 14:00:00+02:00", 1714564800 },
		{ "2024-05-01T07:30:00-04:30", 1714564800 },
		{ "2024-05-01T12:00:00.999999Z", 1714564800 },
		{ "1970-01-01T00:00:00Z", 0 },
		{ "2000-02-29T00:00:00Z", 951782400 },
		{ "1969-12-31T23:59:59Z", -1 },
		{ "2016-12-31T23:59:60Z", 1483228800 },
		{ "1714564800", 1714564800 },
		{ "0", 0 },
		{ "now", 1000000 },
		{ "-90s", 1000000 - 90 },
		{ "-15m", 1000000 - 900 },
		{ "-1h", 1000000 - 3600 },
		{ "-7d", 1000000 - 7 * 86400 },
		{ "-1w", 1000000 - 604800 },
		{ "-0s", 1000000 },
	};
	static const char *const bad[] = {
		"", "yesterday", "-1", "-1y", "-h", "--1h", "-1hh", "-1 h", "+1h", "1h", "12abc",
		"-99999999999999999999h", "99999999999999999999", "2023-02-29T00:00:00Z",
		"2024-13-01T00:00:00Z", "2024-00-01T00:00:00Z", "2024-04-31T00:00:00Z",
		"2024-05-01T24:00:00Z", "2024-05-01T12:60:00Z", "2024-05-01T12:00:61Z",
		"2024-05-01T12:00:00", "2024-05-01", "2024-05-01T12:00Z", "2024-05-01T12:00:00+2:00",
		"2024-05-01T12:00:00+02", "2024-05-01T12:00:00.Z", "2024-05-01T12:00:00Zx",
		"2024-05-01X12:00:00Z", "24-05-01T12:00:00Z", "2024-05-01T12:00:00+24:00",
	};
	char buf[40];
	int64_t t;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		t = -12345;
		if (nsight_chfleet_time(good[i].s, 1000000, &t) || t != good[i].t)
			KTAP_FAIL("'%s': %lld, expected %lld", good[i].s, (long long)t, (long long)good[i].t);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!nsight_chfleet_time(bad[i], 1000000, &t))
			KTAP_FAIL("'%s' taken as %lld", bad[i], (long long)t);
	CHECK(!strcmp(nsight_chfleet_time_str(1714564800, buf, sizeof(buf)), "2024-05-01T12:00:00Z"));
	CHECK(!strcmp(nsight_chfleet_time_str(0, buf, sizeof(buf)), "1970-01-01T00:00:00Z"));
	/* Written and read back, over 400 years in odd steps. */
	for (t = -2208988800LL; t < 10413792000LL; t += 86400LL * 97 + 3607) {
		int64_t back;

		nsight_chfleet_time_str(t, buf, sizeof(buf));
		if (nsight_chfleet_time(buf, 0, &back) || back != t) {
			KTAP_FAIL("%lld as %s read back as %lld", (long long)t, buf, (long long)back);
			break;
		}
	}
}

/* A JSONCompact answer: the columns a query has, a row with a null, a name with a control byte. */
static const char answer_body[] =
	"{\"meta\":[{\"name\":\"host\",\"type\":\"String\"},{\"name\":\"comm\",\"type\":\"String\"},"
	"{\"name\":\"count\",\"type\":\"UInt64\"},{\"name\":\"p50\",\"type\":\"Int64\"},"
	"{\"name\":\"p99.9\",\"type\":\"Int64\"},{\"name\":\"cpu_to\",\"type\":\"Nullable(UInt32)\"},"
	"{\"name\":\"mean_share\",\"type\":\"Float64\"}],"
	"\"data\":[[\"web-1\",\"ng\\u0007inx\",1200,83500,1440000,null,0.333],"
	"[\"web-22\",\"redis\",7,950,12000000,3,1]],"
	"\"rows\":2,\"statistics\":{\"elapsed\":0.0125,\"rows_read\":5000,\"bytes_read\":100}}\n";

/* run: nsight-analyze with @args; its status, and @out and @err have these. */
static void run(struct cli *c, const char *const *args, int status, const char *out, const char *err)
{
	struct cli_result r;

	cli_run(c, &r, NULL, args);
	if (r.status != status)
		KTAP_FAIL("%s %s: status %d, expected %d: %s", args[0], args[1], r.status, status, r.err);
	if (out)
		CHECK_STR_HAS(r.out, out);
	if (err)
		CHECK_STR_HAS(r.err, err);
	cli_result_free(&r);
}

static void test_cli_usage(void)
{
	const char *u = "clickhouse://127.0.0.1:1/fl";
	struct cli c;

	REQUIRE(cli_init(&c) == 0);
	run(&c, (const char *[]){ "fleet", u, NULL }, 2, NULL, "which QUERY");
	run(&c, (const char *[]){ "fleet", NULL }, 2, NULL, "fleet takes a URL");
	run(&c, (const char *[]){ "fleet", u, "latency", "causes", NULL }, 2, NULL, "not 'causes' too");
	run(&c, (const char *[]){ "fleet", u, "nope", NULL }, 2, NULL, "no fleet query 'nope' (latency, causes");
	run(&c, (const char *[]){ "fleet", "http://x/fl", "latency", NULL }, 2, NULL, "clickhouse://");
	run(&c, (const char *[]){ "fleet", u, "slowest", NULL }, 2, NULL, "slowest needs --host NAME");
	run(&c, (const char *[]){ "fleet", u, "latency", "--host", "h", NULL }, 2, NULL,
	    "--host goes with a query of one host, not latency");
	run(&c, (const char *[]){ "fleet", u, "latency", "--from2", "-1h", NULL }, 2, NULL,
	    "--from2 and --to2 go with compare");
	run(&c, (const char *[]){ "fleet", u, "latency", "--from", "now", "--to", "-1h", NULL }, 2, NULL,
	    "--from must be before --to");
	run(&c, (const char *[]){ "fleet", u, "compare", "--from2", "100", "--to2", "100", NULL }, 2, NULL,
	    "--from2 must be before --to2");
	run(&c, (const char *[]){ "fleet", u, "latency", "--from", "yesterday", NULL }, 2, NULL,
	    "bad --from 'yesterday' (RFC 3339");
	run(&c, (const char *[]){ "fleet", u, "latency", "--to2", "x", NULL }, 2, NULL, "bad --to2 'x'");
	run(&c, (const char *[]){ "fleet", u, "latency", "--batch", "5", NULL }, 2, NULL, "fleet does not take --batch");
	run(&c, (const char *[]){ "fleet", u, "latency", "--timeout", "0", NULL }, 2, NULL, "bad --timeout");
	run(&c, (const char *[]){ "--fleet", u, "latency", "--batch", "5", NULL }, 2, NULL,
	    "--fleet goes only with --from");
	run(&c, (const char *[]){ "--fleet", u, "latency", "--tail", "p90", NULL }, 2, NULL,
	    "--fleet goes only with --from");
	run(&c, (const char *[]){ "--fleet", u, "latency", "--export", u, NULL }, 2, NULL, "--export goes only");
	run(&c, (const char *[]){ "--from", "-1h", "cap.nsight", NULL }, 2, NULL, "go with --fleet");
	run(&c, (const char *[]){ "export", "--from", "-1h", u, NULL }, 2, NULL, "export does not take --from");
	run(&c, (const char *[]){ "--export", u, "--to", "-1h", "cap.nsight", NULL }, 2, NULL, "--export goes only");
	run(&c, (const char *[]){ "--merge", "--from", "-1h", "a", "b", NULL }, 2, NULL, "--merge goes only");
	run(&c, (const char *[]){ "fleet", "--help", NULL }, 0,
	    "QUERY: latency, causes, top-causes, slowest, compare.", NULL);
	run(&c, (const char *[]){ "--help", NULL }, 0, "  fleet ", NULL);
	/* No server: exit 1, the URL and the query. */
	run(&c, (const char *[]){ "fleet", u, "causes", "--timeout", "5", NULL }, 1, NULL,
	    "nsight-analyze: fleet query causes: clickhouse://127.0.0.1:1/fl: SELECT category, role");
	cli_fini(&c, NULL);
}

/* An HTTP 200 or 404 response with @body. */
static char *response(int status, const char *body)
{
	char *r = malloc(strlen(body) + 256);

	if (r)
		sprintf(r, "HTTP/1.1 %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n"
			"Connection: close\r\n\r\n%s", status == 200 ? "200 OK" : "404 Not Found",
			strlen(body), body);
	return r;
}

/* The request the fake server saved at @path has each of @needles (NULL-terminated). */
static void request_has(const char *path, const char *const *needles)
{
	char *sent = cli_slurp(path);

	for (; *needles; needles++)
		CHECK_STR_HAS(sent, *needles);
	free(sent);
}

static void test_cli_answer(void)
{
	char *ok = response(200, answer_body), *nf, *junk = response(200, "Ok.\n"), url[96];
	const char *req;
	struct cli_result r;
	unsigned int port;
	struct cli c;
	pid_t pid;

	nf = response(404, "Code: 81, e.displayText() = DB::Exception: Database fl doesn't exist\n");
	REQUIRE(ok && nf && junk);
	REQUIRE(cli_init(&c) == 0);
	req = cli_file(&c, "request");
	pid = fake_http(ok, req, &port);
	REQUIRE(pid > 0);
	snprintf(url, sizeof(url), "clickhouse://127.0.0.1:%u/fl", port);

	/* The table: durations readable, a null as '-', no control bytes, the time range, the figures. */
	cli_run(&c, &r, NULL, (const char *[]){ "fleet", url, "latency", "--from", "2024-05-01T11:00:00Z",
						 "--to", "1714564800", NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "latency from ");
	CHECK_STR_HAS(r.out, ", [2024-05-01T11:00:00Z, 2024-05-01T12:00:00Z): 2 rows (0.013 s, 5000 rows read)\n");
	CHECK_STR_HAS(r.out, "\nhost    comm    count     p50   p99.9  cpu_to  mean_share\n");
	CHECK_STR_HAS(r.out, "\nweb-1   ng?inx   1200  83.5us  1.44ms       -  0.333\n");
	CHECK_STR_HAS(r.out, "\nweb-22  redis       7   950ns  12.0ms       3  1\n");
	cli_result_free(&r);
	request_has(req, (const char *[]){
		"POST /?database=fl&output_format_json_quote_64bit_integers=0 HTTP/1.1\r\n",
		"\r\n\r\nSELECT host, comm, dir, count, p50, p90, p99, `p99.9`, max\nFROM\n",
		"FROM fl.messages\n    WHERE complete AND time >= toDateTime(1714561200) AND time < toDateTime(1714564800)\n",
		"ORDER BY p99 DESC, host, comm, dir\nFORMAT JSONCompact", NULL });

	/* --json: the rows as objects, numbers as numbers, the range; the --fleet form. */
	cli_run(&c, &r, NULL, (const char *[]){ "--fleet", url, "compare", "--json", "--from", "1714561200",
						 "--to", "1714564800", NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "\"query\": \"compare\",");
	CHECK_STR_HAS(r.out, "\"from\": 1714561200,");
	CHECK_STR_HAS(r.out, "\"to_utc\": \"2024-05-01T12:00:00Z\",");
	/* The second range: by default the hour before. */
	CHECK_STR_HAS(r.out, "\"from2\": 1714557600,");
	CHECK_STR_HAS(r.out, "\"to2\": 1714561200,");
	CHECK_STR_HAS(r.out, "\"comm\": \"ng\\u0007inx\",");
	CHECK_STR_HAS(r.out, "\"p99.9\": 1440000,");
	CHECK_STR_HAS(r.out, "\"cpu_to\": null,");
	CHECK_STR_HAS(r.out, "\"mean_share\": 0.333\n");
	CHECK_STR_HAS(r.out, "\"rows_read\": 5000");
	cli_result_free(&r);
	request_has(req, (const char *[]){
		"time >= toDateTime(1714557600) AND time < toDateTime(1714561200), 2, 0) AS r", NULL });

	/* slowest: the host as a literal; relative times against now. */
	cli_run(&c, &r, NULL, (const char *[]){ "fleet", url, "slowest", "--host", "o'hara", "--from", "-2h",
						 "--to", "-1h", NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "slowest from ");
	CHECK_STR_HAS(r.out, ", host o'hara, [");
	cli_result_free(&r);
	request_has(req, (const char *[]){ "WHERE host = 'o\\'hara' AND complete", NULL });
	fake_http_stop(pid);

	/* The server's error: exit 1, the URL, the query, the status and message. */
	pid = fake_http(nf, NULL, &port);
	REQUIRE(pid > 0);
	snprintf(url, sizeof(url), "clickhouse://u:secret@127.0.0.1:%u/fl", port);
	cli_run(&c, &r, NULL, (const char *[]){ "fleet", url, "top-causes", NULL });
	CHECK_U64(r.status, 1);
	CHECK_STR_HAS(r.err, "fleet query top-causes: clickhouse://u@127.0.0.1:");
	CHECK_STR_HAS(r.err, "/fl: SELECT host, comm, dir, category, role, sum(deviation_ns) AS: "
		      "HTTP 404: Code: 81, e.displayText() = DB::Exception: Database fl doesn't exist");
	CHECK(!strstr(r.err, "secret"));
	CHECK(r.out && !r.out[0]);
	cli_result_free(&r);
	fake_http_stop(pid);

	/* An answer that is not JSONCompact. */
	pid = fake_http(junk, NULL, &port);
	REQUIRE(pid > 0);
	snprintf(url, sizeof(url), "clickhouse://127.0.0.1:%u/fl", port);
	run(&c, (const char *[]){ "fleet", url, "causes", NULL }, 1, NULL, "the answer is not ClickHouse's JSONCompact");
	fake_http_stop(pid);

	/* A server that does not answer: --timeout. */
	pid = fake_http(NULL, NULL, &port);
	REQUIRE(pid > 0);
	snprintf(url, sizeof(url), "clickhouse://127.0.0.1:%u/fl", port);
	run(&c, (const char *[]){ "fleet", url, "causes", "--timeout", "1", NULL }, 1, NULL, "timed out");
	fake_http_stop(pid);

	cli_fini(&c, (const char *[]){ "request", NULL });
	free(ok);
	free(nf);
	free(junk);
}

KTAP_MAIN(
	KTAP_TEST(test_names),
	KTAP_TEST(test_sql),
	KTAP_TEST(test_time),
	KTAP_TEST(test_cli_usage),
	KTAP_TEST(test_cli_answer),
)
