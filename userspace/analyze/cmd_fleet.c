// SPDX-License-Identifier: MIT
/*
 * nsight-analyze fleet URL QUERY (or --fleet URL QUERY): one of the fleet
 * queries of Documentation/fleet.sql (export/chfleet.h) over what export
 * wrote to ClickHouse, for a time range, as a table or --json.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "export/chexport.h"
#include "export/chfleet.h"
#include "export/chhttp.h"
#include "export/churl.h"
#include "cli.h"
#include "json_out.h"

/* A fleet query may read all the messages of a day: longer than an export's request. */
#define FLEET_TIMEOUT 300
/* Without --from: the hour before --to. */
#define FLEET_RANGE 3600

void cmd_fleet_usage(FILE *f)
{
	char names[16][NSIGHT_CHFLEET_NAME];
	size_t i, n = nsight_chfleet_names(names, 16);

	fputs("Usage: nsight-analyze fleet [OPTIONS] URL QUERY\n"
	      "       nsight-analyze --fleet URL [OPTIONS] QUERY\n"
	      "\n"
	      "Run a query of Documentation/fleet.sql over what 'nsight-analyze export' wrote\n"
	      "(URL: clickhouse://[USER[:PASSWORD]@]HOST[:PORT]/DB); print its rows as a\n"
	      "table or as JSON. QUERY:", f);
	for (i = 0; i < n && i < 16; i++)
		fprintf(f, "%s %s", i ? "," : "", names[i]);
	fputs(".\n"
	      "  latency     p50, p90, p99, p99.9, max per host, application and direction\n"
	      "  causes      the causes across hosts, by the latency they explain\n"
	      "  top-causes  the first cause of each host and application\n"
	      "  slowest     the 20 slowest messages of --host and their causes\n"
	      "  compare     --from/--to against --from2/--to2 per host and application\n"
	      "\n"
	      "      --fleet URL         the server and database\n"
	      "      --from TIME         the range's start (default: an hour before --to)\n"
	      "      --to TIME           its end, not included (default: now)\n"
	      "      --from2, --to2 TIME compare: the second range (default: as long, just\n"
	      "                          before --from)\n"
	      "      --host NAME         slowest: the host\n"
	      "  -j, --json              the rows as JSON\n"
	      "      --timeout SECONDS   the query's limit (default 300)\n"
	      "  -h, --help              this help\n"
	      "TIME: RFC 3339 (2024-05-01T12:00:00Z, ...+02:00), unix seconds, now, or a time\n"
	      "before now: -90s, -15m, -1h, -7d, -2w. See nsight-analyze(1).\n", f);
}

/* The ranges of @o into @a: defaults, checks. CLI_GO or the exit status. */
static int ranges(const struct opts *o, unsigned int uses, struct nsight_chfleet_args *a)
{
	const char *const names[] = { "--from", "--to", "--from2", "--to2" };
	const char *const given[] = { o->from, o->to, o->from2, o->to2 };
	int64_t t[4], now = (int64_t)time(NULL), len;
	size_t i;

	for (i = 0; i < 4; i++)
		if (given[i] && nsight_chfleet_time(given[i], now, &t[i]))
			return cli_usage_error(o, "bad %s '%s' (RFC 3339 like 2024-05-01T12:00:00Z, unix seconds, now, or -N with s, m, h, d or w)",
					   names[i], given[i]);
	if (!(uses & NSIGHT_CHFLEET_RANGE2) && (o->from2 || o->to2))
		return cli_usage_error(o, "%s", "--from2 and --to2 go with compare");
	a->to = o->to ? t[1] : now;
	a->from = o->from ? t[0] : a->to - FLEET_RANGE;
	if (a->from >= a->to)
		return cli_usage_error(o, "%s", "--from must be before --to");
	len = a->to - a->from;
	a->from2 = o->from2 ? t[2] : o->to2 ? t[3] - len : a->from - len;
	a->to2 = o->to2 ? t[3] : a->from2 + len;
	if (a->from2 >= a->to2)
		return cli_usage_error(o, "%s", "--from2 must be before --to2");
	return CLI_GO;
}

/* A column whose values are ns of latency: max, p50, p99.9_a, ..._ns. */
static bool is_duration(const char *name)
{
	size_t n = strlen(name);

	return !strcmp(name, "max") || (name[0] == 'p' && isdigit((unsigned char)name[1])) ||
	       (n > 3 && !strcmp(name + n - 3, "_ns"));
}

/* @s into @buf without control bytes: names come from traced systems, for a terminal. */
static const char *printable(const char *s, char *buf, size_t len)
{
	size_t i;

	snprintf(buf, len, "%s", s);
	for (i = 0; buf[i]; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			buf[i] = '?';
	return buf;
}

/* Value @v of column @name as the table shows it, into @buf. */
static const char *cell(const char *name, struct json_object *v, char *buf, size_t len)
{
	if (!v)
		return "-";
	if (json_object_is_type(v, json_type_int) && is_duration(name))
		return nsight_tty_duration(json_object_get_int64(v), buf, len);
	return printable(json_object_get_string(v), buf, len);
}

/* The rows of ClickHouse's JSONCompact @meta, @data as a table on stdout. */
static void table(struct json_object *meta, struct json_object *data)
{
	size_t nc = json_object_array_length(meta), nr = json_object_array_length(data), c, r;
	size_t *w = calloc(nc ? nc : 1, sizeof(*w));
	bool *left = calloc(nc ? nc : 1, sizeof(*left));
	char buf[4096];
	int pass;

	if (!w || !left) {
		free(w);
		free(left);
		return;
	}
	for (pass = 0; pass < 2; pass++) {
		for (r = 0; r <= nr; r++) {
			struct json_object *row = r ? json_object_array_get_idx(data, r - 1) : NULL;

			for (c = 0; c < nc; c++) {
				struct json_object *m = json_object_array_get_idx(meta, c);
				const char *name = json_object_get_string(json_object_object_get(m, "name"));
				const char *type = json_object_get_string(json_object_object_get(m, "type"));
				const char *s = r ? cell(name, json_object_array_get_idx(row, c), buf, sizeof(buf)) : name;
				size_t n = strlen(s);

				if (!pass) {
					left[c] = strstr(type, "String") || strstr(type, "Date");
					if (n > w[c])
						w[c] = n;
					continue;
				}
				if (c + 1 == nc)
					printf("%s%s\n", c ? "  " : "", s);
				else
					printf("%s%*s%s", c ? "  " : "", left[c] ? -(int)w[c] : (int)w[c], s, "");
			}
		}
	}
	free(w);
	free(left);
}

/* "{name: value, ...}" of each row. NULL when out of memory. */
static struct json_object *json_rows(struct json_object *meta, struct json_object *data)
{
	struct json_object *rows = json_object_new_array();
	size_t nc = json_object_array_length(meta), nr = json_object_array_length(data), c, r;

	for (r = 0; rows && r < nr; r++) {
		struct json_object *row = json_object_array_get_idx(data, r), *o = json_object_new_object();

		if (!o || json_object_array_add(rows, o)) {
			json_object_put(o);
			json_object_put(rows);
			return NULL;
		}
		for (c = 0; c < nc; c++) {
			struct json_object *m = json_object_array_get_idx(meta, c);
			struct json_object *v = json_object_array_get_idx(row, c);

			json_object_object_add(o, json_object_get_string(json_object_object_get(m, "name")),
					       json_object_get(v));
		}
	}
	return rows;
}

/* The answer @ans of query @name for @a from @url: JSON or a table. An exit status. */
static int print(const struct opts *o, const char *name, const struct nsight_chfleet_args *a,
		 const char *url, struct json_object *ans, unsigned int uses)
{
	struct json_object *meta = json_object_object_get(ans, "meta");
	struct json_object *data = json_object_object_get(ans, "data");
	struct json_object *stats = json_object_object_get(ans, "statistics"), *j, *cols;
	char f[40], t[40], f2[40], t2[40], host[256];
	size_t i;

	nsight_chfleet_time_str(a->from, f, sizeof(f));
	nsight_chfleet_time_str(a->to, t, sizeof(t));
	nsight_chfleet_time_str(a->from2, f2, sizeof(f2));
	nsight_chfleet_time_str(a->to2, t2, sizeof(t2));
	if (o->json) {
		j = json_object_new_object();
		cols = json_object_new_array();
		if (!j || !cols) {
			json_object_put(j);
			json_object_put(cols);
			return cli_nomem();
		}
		json_object_object_add(j, "query", json_object_new_string(name));
		json_object_object_add(j, "url", json_object_new_string(url));
		json_object_object_add(j, "from", json_object_new_int64(a->from));
		json_object_object_add(j, "to", json_object_new_int64(a->to));
		json_object_object_add(j, "from_utc", json_object_new_string(f));
		json_object_object_add(j, "to_utc", json_object_new_string(t));
		if (uses & NSIGHT_CHFLEET_RANGE2) {
			json_object_object_add(j, "from2", json_object_new_int64(a->from2));
			json_object_object_add(j, "to2", json_object_new_int64(a->to2));
			json_object_object_add(j, "from2_utc", json_object_new_string(f2));
			json_object_object_add(j, "to2_utc", json_object_new_string(t2));
		}
		if (a->host)
			json_object_object_add(j, "host", json_object_new_string(a->host));
		for (i = 0; i < json_object_array_length(meta); i++)
			json_object_array_add(cols, json_object_get(json_object_array_get_idx(meta, i)));
		json_object_object_add(j, "columns", cols);
		json_object_object_add(j, "rows", json_rows(meta, data));
		if (stats)
			json_object_object_add(j, "statistics", json_object_get(stats));
		return cli_finish_stdout(jo_put(j));
	}
	printf("%s from %s", name, url);
	if (a->host)
		printf(", host %s", printable(a->host, host, sizeof(host)));
	printf(", [%s, %s)", f, t);
	if (uses & NSIGHT_CHFLEET_RANGE2)
		printf(" (a) against [%s, %s) (b)", f2, t2);
	printf(": %zu rows", json_object_array_length(data));
	if (stats)
		printf(" (%.3f s, %" PRId64 " rows read)",
		       json_object_get_double(json_object_object_get(stats, "elapsed")),
		       json_object_get_int64(json_object_object_get(stats, "rows_read")));
	fputs("\n", stdout);
	if (json_object_array_length(data))
		table(meta, data);
	return cli_finish_stdout(NSIGHT_EXIT_OK);
}

int cmd_fleet(struct opts *o, int argc, char **argv)
{
	struct nsight_chfleet_args a = { 0 };
	struct nsight_diag d = { 0 };
	struct json_object *ans, *meta, *data;
	const char *url = o->fleet_url, *name;
	struct nsight_chhttp h;
	struct nsight_churl u;
	unsigned int uses;
	char *sql, *body;
	size_t len;
	int ret;

	if (o->export_url || o->export_schema || o->cluster || o->batch != NSIGHT_CHEXPORT_BATCH ||
	    o->messages || o->verbose || o->strict || o->html || o->perfetto || o->diag_opts ||
	    o->intervals || o->n_whatif || o->range || o->whole || o->window_ns || o->triggers ||
	    o->pairs || o->merge || o->synced_ns >= 0)
		return cli_usage_error(o, "%s", "--fleet goes only with --from, --to, --from2, --to2, --host, --json and --timeout");
	if (!url) {
		if (!argc)
			return cli_usage_error(o, "%s", "fleet takes a URL (clickhouse://HOST[:PORT]/DB) and a QUERY");
		url = argv[0];
		argc--;
		argv++;
	}
	if (argc != 1)
		return cli_usage_error(o, argc ? "one QUERY, not '%s' too" : "%s",
				       argc ? argv[1] : "which QUERY (latency, causes, top-causes, slowest, compare)");
	name = argv[0];
	if (nsight_churl_parse(&u, url, &d) || nsight_chfleet_uses(name, &uses, &d))
		return cli_usage_error(o, "%s", d.msg);
	if ((uses & NSIGHT_CHFLEET_HOST) && !o->host)
		return cli_usage_error(o, "%s needs --host NAME", name);
	if (!(uses & NSIGHT_CHFLEET_HOST) && o->host)
		return cli_usage_error(o, "--host goes with a query of one host, not %s", name);
	ret = ranges(o, uses, &a);
	if (ret != CLI_GO)
		return ret;
	a.db = u.db;
	a.host = o->host;
	if (nsight_chfleet_sql(name, &a, &sql, &d)) {
		fprintf(stderr, "nsight-analyze: %s\n", d.msg);
		return NSIGHT_EXIT_FAIL;
	}
	len = strlen(sql) + 32;
	body = malloc(len);
	if (!body) {
		free(sql);
		return cli_nomem();
	}
	snprintf(body, len, "%s\nFORMAT JSONCompact", sql);
	free(sql);
	if (nsight_chhttp_init(&h, &u, o->timeout_set ? o->timeout_s : FLEET_TIMEOUT, &d)) {
		fprintf(stderr, "nsight-analyze: %s\n", d.msg);
		free(body);
		return NSIGHT_EXIT_FAIL;
	}
	ret = NSIGHT_EXIT_FAIL;
	if (nsight_chhttp_post(&h, NULL, "output_format_json_quote_64bit_integers=0", body,
			       strlen(body), &d)) {
		fprintf(stderr, "nsight-analyze: fleet query %s: %s\n", name, d.msg);
	} else if (!(ans = json_tokener_parse(h.resp)) ||
		   !json_object_object_get_ex(ans, "meta", &meta) ||
		   !json_object_object_get_ex(ans, "data", &data) ||
		   !json_object_is_type(meta, json_type_array) ||
		   !json_object_is_type(data, json_type_array)) {
		fprintf(stderr, "nsight-analyze: fleet query %s: %s: the answer is not ClickHouse's JSONCompact\n",
			name, h.url.shown);
		json_object_put(ans);
	} else {
		ret = print(o, name, &a, h.url.shown, ans, uses);
		json_object_put(ans);
	}
	nsight_chhttp_fini(&h);
	free(body);
	return ret;
}
