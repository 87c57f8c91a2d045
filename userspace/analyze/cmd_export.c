// SPDX-License-Identifier: MIT
/*
 * nsight-analyze export URL [FILE|-] (or --export URL): a capture's
 * message lifetimes and their causes into ClickHouse, the fleet view
 * (nsight.rst "Fleet view", export/chexport.h); --export-schema: the
 * tables' CREATE TABLE statements.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/zstdio.h"
#include "export/chexport.h"
#include "export/churl.h"
#include "export/chschema.h"
#include "cli.h"

void cmd_export_usage(FILE *f)
{
	fputs("Usage: nsight-analyze export [OPTIONS] URL [FILE|-]\n"
	      "       nsight-analyze --export URL [OPTIONS] [FILE|-]\n"
	      "       nsight-analyze --export-schema [--cluster NAME] [URL]\n"
	      "\n"
	      "Write a capture's message lifetimes and the causes of its tail to ClickHouse\n"
	      "(URL: clickhouse://[USER[:PASSWORD]@]HOST[:PORT]/DB, the HTTP interface, port\n"
	      "8123 by default): tables messages and causes in batches, then the capture's\n"
	      "row in captures. A capture already there (the same bytes) is not written again.\n"
	      "\n"
	      "      --export URL        the server and database\n"
	      "      --host NAME         the captured host's name (default: this one's)\n"
	      "      --batch ROWS        rows per INSERT (default 100000)\n"
	      "      --timeout SECONDS   each request's limit (default 30)\n"
	      "      --export-schema     print the tables' CREATE TABLE statements for URL's\n"
	      "                          database (default nsight) and exit\n"
	      "      --cluster NAME      with --export-schema: MergeTree tables NAME_local and\n"
	      "                          a Distributed table over the cluster's shards\n"
	      "  -h, --help              this help\n"
	      "The diagnosis: --tail pN, --slice pA-pB, --min-dev NS, --nested-threshold PCT,\n"
	      "--categories FILE; the time: -p, --time-params PARAMS; --threads N.\n"
	      "See nsight-analyze(1).\n", f);
}

static int schema(struct opts *o, int argc, char **argv)
{
	struct nsight_diag d = { 0 };
	struct nsight_churl u;
	const char *db = "nsight";

	if (o->export_url || argc > 1)
		return cli_usage_error(o, "%s", "--export-schema takes at most a URL, for its database");
	if (o->host || o->batch != NSIGHT_CHEXPORT_BATCH || o->timeout_s != NSIGHT_CHEXPORT_TIMEOUT)
		return cli_usage_error(o, "%s", "--host, --batch and --timeout go with --export");
	if (o->cluster && !nsight_churl_ident(o->cluster))
		return cli_usage_error(o, "bad --cluster '%s' (letters, digits and '_')", o->cluster);
	if (argc == 1) {
		if (nsight_churl_parse(&u, argv[0], &d))
			return cli_usage_error(o, "%s", d.msg);
		db = u.db;
	}
	nsight_chschema_print(stdout, db, o->cluster);
	return cli_finish_stdout(NSIGHT_EXIT_OK);
}

/*
 * The capture's bytes as a file to hash and then read: @name itself, or
 * stdin copied to a temporary file.
 */
static int open_raw(const char *name, FILE **raw)
{
	char buf[65536];
	size_t n;

	if (strcmp(name, "-")) {
		*raw = fopen(name, "rb");
		if (!*raw) {
			fprintf(stderr, "nsight-analyze: %s: %s\n", name, strerror(errno));
			return NSIGHT_EXIT_FAIL;
		}
		return NSIGHT_EXIT_OK;
	}
	*raw = tmpfile();
	if (!*raw) {
		fprintf(stderr, "nsight-analyze: a temporary file for stdin: %s\n", strerror(errno));
		return NSIGHT_EXIT_FAIL;
	}
	while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0)
		if (fwrite(buf, 1, n, *raw) != n)
			break;
	if (ferror(stdin) || ferror(*raw) || fflush(*raw)) {
		fprintf(stderr, "nsight-analyze: copying stdin to a temporary file: %s\n", strerror(errno));
		fclose(*raw);
		return NSIGHT_EXIT_FAIL;
	}
	rewind(*raw);
	return NSIGHT_EXIT_OK;
}

static void exported(const char *name, const struct nsight_chhttp *h,
		     const struct nsight_chexport_opts *eo, const struct nsight_chexport_counts *c)
{
	printf("%s: exported to %s as host %s, capture %s: %" PRIu64 " messages (%" PRIu64
	       " complete), %" PRIu64 " causes\n", name, h->url.shown, eo->host, eo->capture_id,
	       c->messages, c->complete, c->causes);
}

/*
 * The export failed with @msg after @c's batches: say so, and what the
 * server holds. The INSERT of the capture's row can fail here and be
 * committed there (its answer lost, a timeout): the captures table is
 * asked again, and if it has this export's row, the export is complete.
 */
static int failed(const char *name, struct nsight_chhttp *h, const struct nsight_chexport_opts *eo,
		  const struct nsight_chexport_counts *c, const char *msg)
{
	struct nsight_diag d = { 0 };
	int64_t when;
	bool there;

	if (c->failed && c->failed_table == NSIGHT_CH_CAPTURES) {
		if (nsight_chexport_exists(h, eo->capture_id, eo->export_id, &there, &when, &d)) {
			fprintf(stderr, "nsight-analyze: %s: export failed: %s\n"
				"nsight-analyze: %s: whether the capture's row was written is not known: "
				"asking the captures table again failed: %s (an export of the capture again "
				"writes it, or finds it there)\n", name, msg, name, d.msg);
			return NSIGHT_EXIT_FAIL;
		}
		if (there) {
			fprintf(stderr, "nsight-analyze: %s: the capture's row was written although its "
				"INSERT failed here (%s): the captures table has export %" PRIu64
				"; the export is complete\n", name, msg, eo->export_id);
			exported(name, h, eo, c);
			return NSIGHT_EXIT_OK;
		}
	}
	fprintf(stderr, "nsight-analyze: %s: export failed: %s\n", name, msg);
	if (c->batches)
		fprintf(stderr, "nsight-analyze: %s: the capture's row was not written: the fleet queries "
			"leave out the rows of export %" PRIu64 " already written\n", name, eo->export_id);
	return NSIGHT_EXIT_FAIL;
}

/* Analyse and diagnose @in, then write its rows (@eo) to @h. */
static int analyse_and_send(FILE *in, const char *name, struct nsight_chhttp *h,
			    struct nsight_chexport_opts *eo, const struct opts *o)
{
	struct nsight_analysis_opts ao = { .params = o->params, .lifetimes = true,
					   .threads = o->threads };
	struct nsight_chexport_counts c = { 0 };
	struct nsight_diag d = { 0 };
	struct nsight_progress pg;
	struct nsight_analysis a;
	struct nsight_cats cats;
	struct nsight_dx dx;
	int ret;

	memset(&dx, 0, sizeof(dx));
	if (cli_load_categories(&cats, o)) {
		nsight_cats_fini(&cats);
		return NSIGHT_EXIT_FAIL;
	}
	ret = cli_read_capture(&a, in, name, &ao, &pg, o);
	if (ret)
		goto out;
	nsight_progress_pass(&pg, "diagnosis");
	ret = nsight_analysis_diagnose(&dx, &a, NULL, &cats, &o->dx, &d);
	nsight_progress_end(&pg);
	if (ret) {
		fprintf(stderr, "nsight-analyze: %s: %s\n", name, d.msg);
		ret = NSIGHT_EXIT_FAIL;
		goto out;
	}
	if (nsight_chexport_send(h, &a, &dx, eo, &c, &d)) {
		ret = failed(name, h, eo, &c, d.msg);
		goto out;
	}
	exported(name, h, eo, &c);
out:
	nsight_dx_fini(&dx);
	nsight_analysis_fini(&a);
	nsight_cats_fini(&cats);
	return cli_finish_stdout(ret);
}

int cmd_export(struct opts *o, int argc, char **argv)
{
	struct nsight_chexport_opts eo = { .batch = o->batch, .tail_pct = o->dx.tail / 1000.0 };
	struct nsight_diag d = { 0 };
	struct nsight_chhttp h;
	struct nsight_churl u;
	const char *url = o->export_url, *name;
	char host[256];
	struct timespec ts;
	FILE *raw, *in;
	int64_t when;
	bool exists;
	int ret;

	if (o->export_schema)
		return schema(o, argc, argv);
	if (o->cluster)
		return cli_usage_error(o, "%s", "--cluster goes with --export-schema");
	if (o->json || o->messages || o->verbose || o->strict || o->html || o->perfetto ||
	    o->dx.baseline || o->intervals || o->n_whatif || o->range || o->window_ns ||
	    o->triggers || o->pairs || o->merge || o->synced_ns >= 0 || o->fleet_url || o->fleet_opts)
		return cli_usage_error(o, "%s", "--export goes only with --host, --batch, --timeout, the diagnosis options, --time-params and --threads");
	if (!url) {
		if (!argc)
			return cli_usage_error(o, "%s", "export takes a URL (clickhouse://HOST[:PORT]/DB)");
		url = argv[0];
		argc--;
		argv++;
	}
	if (argc > 1)
		return cli_usage_error(o, "more than one input ('%s')", argv[1]);
	name = argc ? argv[0] : "-";
	if (nsight_churl_parse(&u, url, &d))
		return cli_usage_error(o, "%s", d.msg);
	if (cli_stdin_is_terminal(name))
		return NSIGHT_EXIT_USAGE;
	if (!o->host) {
		if (gethostname(host, sizeof(host) - 1))
			snprintf(host, sizeof(host), "unknown");
		host[sizeof(host) - 1] = '\0';
	}
	eo.host = o->host ? o->host : host;
	eo.file = name;
	eo.export_id = nsight_chexport_new_id();
	clock_gettime(CLOCK_REALTIME, &ts);
	eo.exported_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;

	if (open_raw(name, &raw))
		return NSIGHT_EXIT_FAIL;
	if (nsight_chexport_hash(raw, eo.capture_id, &d)) {
		fprintf(stderr, "nsight-analyze: %s: %s\n", name, d.msg);
		fclose(raw);
		return NSIGHT_EXIT_FAIL;
	}
	rewind(raw);
	if (nsight_chhttp_init(&h, &u, o->timeout_s, &d)) {
		fprintf(stderr, "nsight-analyze: %s\n", d.msg);
		fclose(raw);
		return NSIGHT_EXIT_FAIL;
	}
	/* The server first: one that is down or lacks the tables fails before the analysis. */
	if (nsight_chexport_exists(&h, eo.capture_id, 0, &exists, &when, &d)) {
		fprintf(stderr, "nsight-analyze: %s: %s\n", name, d.msg);
		ret = NSIGHT_EXIT_FAIL;
	} else if (exists) {
		printf("%s: already in %s (capture %s, exported at %" PRId64 ".%09" PRId64
		       "): nothing written\n", name, h.url.shown, eo.capture_id, when / 1000000000,
		       when % 1000000000);
		ret = cli_finish_stdout(NSIGHT_EXIT_OK);
	} else if (!(in = nsight_zstd_open_read(raw))) {
		fprintf(stderr, "nsight-analyze: %s: out of memory\n", name);
		ret = NSIGHT_EXIT_FAIL;
	} else {
		ret = analyse_and_send(in, name, &h, &eo, o);
		raw = in;	/* closing it closes the file */
	}
	nsight_chhttp_fini(&h);
	fclose(raw);
	return ret;
}
