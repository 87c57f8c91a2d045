// SPDX-License-Identifier: MIT
/*
 * nsight-analyze --window end to end: one window that holds the whole
 * capture gives the reports of the analysis without windows; with narrow
 * windows every message comes out exactly as without them, once; a cause
 * shows in the window it happened in; stdin; bad widths and option mixes.
 */
#include <json-c/json.h>

#include "clirun.h"
#include "scenario.h"

static struct cli c;

static const char *const files[] = { "mixed", "phases", "cut", NULL };

static const char *path(const char *name)
{
	static char buf[4][192];
	static int k;

	k = (k + 1) % 4;
	return cli_path(&c, name, buf[k], sizeof(buf[k]));
}

static void run(struct cli_result *r, const char *in, const char *const *args)
{
	cli_run_verbose(&c, r, in, args);
}

/*
 * 200 requests, every 5th slowed by one cause in turn (records lost in
 * one of them), a batch of three, in RECORDS chunks of at most 1 KiB.
 */
static void save_mixed(void)
{
	static const enum scen_kind slow[] = { SC_HOG, SC_KWORKER, SC_DROP, SC_FAULT, SC_NETRX,
					       SC_IDLE_IRQ };
	struct scen sc;

	scen_init(&sc, "server");
	sc.s.chunk_max = 1024;
	scen_mixed(&sc, 200, slow, 6, 5, 2, 105);
	CHECK(scen_save(&sc, path("mixed")) == 0);
}

/* 40 plain requests, then 40 with "stress" in every 8th: 8 ms each. */
static void save_phases(void)
{
	struct scen sc;

	scen_init(&sc, "server");
	sc.s.chunk_max = 4096;
	scen_run(&sc, 40, SC_NORMAL, 0, 0);
	scen_run(&sc, 40, SC_HOG, 8, 3);
	CHECK(scen_save(&sc, path("phases")) == 0);
}

/* The mixed capture without its last 100 bytes. */
static void save_cut(void)
{
	static uint8_t buf[1 << 20];
	FILE *f = fopen(path("mixed"), "rb"), *o;
	size_t n;

	REQUIRE(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	REQUIRE(n > 100 && n < sizeof(buf));
	o = fopen(path("cut"), "wb");
	REQUIRE(o);
	CHECK(fwrite(buf, 1, n - 100, o) == n - 100);
	CHECK(fclose(o) == 0);
}

static void setup(void)
{
	REQUIRE(cli_init(&c) == 0);
	save_mixed();
	save_phases();
	save_cut();
}

/* The output's JSON objects, one per line. */
static size_t parse_lines(const char *out, struct json_object **v, size_t max)
{
	size_t n = 0;

	while (out && *out && n < max) {
		const char *nl = strchr(out, '\n');
		size_t len = nl ? (size_t)(nl - out) : strlen(out);
		char *line = strndup(out, len);

		v[n] = line ? json_tokener_parse(line) : NULL;
		free(line);
		if (!v[n])
			break;
		n++;
		out += len + (nl != NULL);
	}
	return n;
}

/* Lines of @out that start with @prefix. */
static size_t count_lines(const char *out, const char *prefix)
{
	size_t n = 0, len = strlen(prefix);
	const char *p;

	for (p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += !strncmp(p, prefix, len);
	return n;
}

static void put_all(struct json_object **v, size_t n)
{
	while (n)
		json_object_put(v[--n]);
}

/* The latency groups of a whole analysis, and the whole capture's after windows. */
static bool same_groups(struct json_object *whole, struct json_object *last)
{
	struct json_object *x, *y;

	return json_object_object_get_ex(whole, "latency", &x) &&
	       json_object_object_get_ex(x, "groups", &x) &&
	       json_object_object_get_ex(last, "capture", &y) &&
	       json_object_object_get_ex(y, "latency", &y) &&
	       json_object_object_get_ex(y, "groups", &y) && json_object_equal(x, y);
}

/* One window holding the whole of @file gives the reports of no window. */
static void one_window_is_the_whole(const char *file)
{
	static const char *const keys[] = { "time", "latency", "diagnosis", "chains", "queues",
					    "critical_path" };
	struct json_object *whole, *v[4];
	struct cli_result r, w;
	size_t n, i;

	run(&r, NULL, (const char *[]){ "--json", file, NULL });
	run(&w, NULL, (const char *[]){ "--json", "--window", "1000s", file, NULL });
	CHECK_U64(r.status, 0);
	CHECK_U64(w.status, 0);
	whole = r.out ? json_tokener_parse(r.out) : NULL;
	n = parse_lines(w.out, v, 4);
	REQUIRE(whole);
	CHECK_U64(n, 3);
	if (n == 3) {
		struct json_object *win, *x, *y;

		CHECK(json_object_object_get_ex(v[0], "windows", &win));
		CHECK(json_object_object_get_ex(v[0], "check", &x) &&
		      json_object_object_get_ex(whole, "check", &y) && json_object_equal(x, y));
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			bool same = json_object_object_get_ex(whole, keys[i], &x) &&
				    json_object_object_get_ex(v[1], keys[i], &y) &&
				    json_object_equal(x, y);

			if (!same)
				printf("# %s: '%s' differs\n", file, keys[i]);
			CHECK(same);
		}
		CHECK(same_groups(whole, v[2]));
	}
	put_all(v, n);
	json_object_put(whole);
	cli_result_free(&r);
	cli_result_free(&w);
}

/*
 * The mixed capture, and fuzzing seeds (make test runs in userspace/)
 * with PT trace and code, sampled stacks and kernel symbols, TCP, TX, PHC
 * samples, STATUS, lost records, sched_waking chains.
 */
static void test_one_window_is_the_whole(void)
{
	static const char *const seeds[] = { "seed-pt", "seed-sampled", "seed-tx-tcp-status-phc",
					     "seed-tx-tcp-status-mismatch", "seed-drop",
					     "seed-lock", "seed-batch" };
	char file[128];
	size_t i;

	one_window_is_the_whole(path("mixed"));
	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		snprintf(file, sizeof(file), "fuzz/corpus/window/%s", seeds[i]);
		one_window_is_the_whole(file);
	}
}

/* Every message's JSON without its id (ids are numbered per window). */
static size_t messages(struct json_object *o, char **out, size_t n, size_t max)
{
	struct json_object *arr;
	size_t i;

	if (!json_object_object_get_ex(o, "messages", &arr))
		return n;
	for (i = 0; i < json_object_array_length(arr) && n < max; i++) {
		struct json_object *m = json_object_get(json_object_array_get_idx(arr, i));

		json_object_object_del(m, "id");
		out[n++] = strdup(json_object_to_json_string_ext(m, JSON_C_TO_STRING_PLAIN));
		json_object_put(m);
	}
	return n;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_strs(char **s, size_t n)
{
	while (n)
		free(s[--n]);
}

/* Windows narrower than a gap and wider than a message; edges anywhere. */
static void test_messages_exact(void)
{
	static const char *const widths[] = { "60us", "137us", "333us", "1ms", "7ms" };
	enum { MAX = 400, LINES = 2000 };
	static char *a[MAX], *b[MAX];
	static struct json_object *whole, *v[LINES];
	struct cli_result r, w;
	size_t na, nb, nv, i, k;

	run(&r, NULL, (const char *[]){ "--json", "--messages", path("mixed"), NULL });
	CHECK_U64(r.status, 0);
	whole = r.out ? json_tokener_parse(r.out) : NULL;
	REQUIRE(whole);
	na = messages(whole, a, 0, MAX);
	CHECK(na >= 200);
	qsort(a, na, sizeof(*a), cmp_str);
	for (k = 0; k < sizeof(widths) / sizeof(widths[0]); k++) {
		bool same;

		run(&w, NULL, (const char *[]){ "--json", "--messages", "--window", widths[k],
						path("mixed"), NULL });
		CHECK_U64(w.status, 0);
		nv = parse_lines(w.out, v, LINES);
		CHECK(nv >= 2 && nv < LINES);
		for (nb = 0, i = 1; i < nv; i++)
			nb = messages(v[i], b, nb, MAX);
		qsort(b, nb, sizeof(*b), cmp_str);
		same = na == nb;
		for (i = 0; same && i < na; i++)
			same = !strcmp(a[i], b[i]);
		printf("# --window %s: %zu windows with records, %zu messages (%zu without)\n",
		       widths[k], nv > 2 ? nv - 2 : 0, nb, na);
		CHECK(same);
		/* The whole capture's latency, last: as without windows. */
		CHECK(nv && same_groups(whole, v[nv - 1]));
		free_strs(b, nb);
		put_all(v, nv);
		cli_result_free(&w);
	}
	free_strs(a, na);
	json_object_put(whole);
	cli_result_free(&r);
}

/* The top cause of a window's first group, "" if none. */
static const char *top_cause(struct json_object *o)
{
	struct json_object *x;

	if (json_object_object_get_ex(o, "diagnosis", &x) &&
	    json_object_object_get_ex(x, "groups", &x) && json_object_array_length(x) &&
	    json_object_object_get_ex(json_object_array_get_idx(x, 0), "causes", &x) &&
	    json_object_array_length(x) &&
	    json_object_object_get_ex(json_object_array_get_idx(x, 0), "category", &x))
		return json_object_get_string(x);
	return "";
}

static void test_cause_in_its_window(void)
{
	struct json_object *v[8];
	struct cli_result r;
	size_t n;

	run(&r, NULL, (const char *[]){ "--json", "--window", "8ms", path("phases"), NULL });
	CHECK_U64(r.status, 0);
	n = parse_lines(r.out, v, 8);
	CHECK_U64(n, 4);
	if (n == 4) {
		struct json_object *x;

		CHECK(json_object_object_get_ex(v[0], "windows", &x) &&
		      json_object_get_int64(json_object_object_get(x, "count")) == 2);
		printf("# window 0: '%s', window 1: '%s'\n", top_cause(v[1]), top_cause(v[2]));
		CHECK(strcmp(top_cause(v[1]), "stress interference") != 0);
		CHECK(!strcmp(top_cause(v[2]), "stress interference"));
		CHECK(json_object_object_get_ex(v[1], "latency", &x) &&
		      json_object_get_int64(json_object_object_get(x, "complete")) == 40);
		CHECK(json_object_object_get_ex(v[2], "latency", &x) &&
		      json_object_get_int64(json_object_object_get(x, "complete")) == 40);
	}
	put_all(v, n);
	cli_result_free(&r);

	/* The text names the windows and the cause; --verbose has each window's full report. */
	run(&r, NULL, (const char *[]){ "--window", "8ms", "--color", "never", path("phases"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "\nwindows: 2 of 8.00ms from the first record");
	CHECK_STR_HAS(r.out, "\nwindow 0: +0.000000 s to +0.008000 s, ");
	CHECK_STR_HAS(r.out, "\nwindow 1: +0.008000 s to +0.016000 s, ");
	CHECK_STR_HAS(strstr(r.out ? r.out : "", "\nwindow 1:"), "stress interference");
	CHECK_U64(count_lines(r.out, "latency: "), 2);
	CHECK_STR_HAS(r.out, "\nwhole capture: 80 messages");
	cli_result_free(&r);

	/* Without --verbose: a line per window, then the whole capture's latency. */
	cli_run(&c, &r, NULL, (const char *[]){ "--window", "8ms", "--color", "never", path("phases"),
					       NULL });
	CHECK_U64(r.status, 0);
	CHECK_U64(count_lines(r.out, "window "), 2);
	CHECK_STR_HAS(r.out, "\nwindow 0: +0.000000 s to +0.008000 s, ");
	CHECK_STR_HAS(r.out, " records, 40 messages, 40 complete: p50 ");
	CHECK_STR_HAS(r.out, "\n\nwhole capture: 80 messages, 80 complete, 0 incomplete, each in the window it starts in;");
	CHECK_STR_HAS(strstr(r.out ? r.out : "", "\nwindow 1:"), "; top cause stress interference (A), ");
	CHECK(r.out && !strstr(r.out, "\nlatency:"));
	cli_result_free(&r);
}

static void test_stdin(void)
{
	struct cli_result f, s;

	run(&f, NULL, (const char *[]){ "--json", "--window", "1ms", path("mixed"), NULL });
	run(&s, path("mixed"), (const char *[]){ "--json", "--window", "1ms", "-", NULL });
	CHECK_U64(f.status, 0);
	CHECK_U64(s.status, 0);
	/* The same but for the name. */
	CHECK(f.out && s.out && strlen(f.out) > 1000 &&
	      !strcmp(strchr(f.out, '\n'), strchr(s.out, '\n')));
	cli_result_free(&f);
	cli_result_free(&s);
}

static void test_errors(void)
{
	static const char *const bad[] = { "0ms", "5", "1h", "ms", "-1s", "99999999999999999999s" };
	struct cli_result r;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		run(&r, NULL, (const char *[]){ "--window", bad[i], path("mixed"), NULL });
		CHECK_U64(r.status, 2);
		CHECK_STR_HAS(r.err, "bad --window");
		cli_result_free(&r);
	}
	run(&r, NULL, (const char *[]){ "--window", "1ms", "--html", "x.html", path("mixed"), NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "--window does not go with");
	cli_result_free(&r);

	/* 40 ms of capture in 100 ns windows. */
	run(&r, NULL, (const char *[]){ "--window", "100ns", path("mixed"), NULL });
	CHECK_U64(r.status, 1);
	CHECK_STR_HAS(r.err, "into more than 100000");
	cli_result_free(&r);

	/* A cut stream: its windows up to the cut, a warning, a problem for --strict. */
	run(&r, NULL, (const char *[]){ "--window", "1ms", path("cut"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.err, "warning: truncated at byte");
	CHECK_STR_HAS(r.out, "\nwindow 0:");
	cli_result_free(&r);
	run(&r, NULL, (const char *[]){ "--strict", "--window", "1ms", path("cut"), NULL });
	CHECK_U64(r.status, 1);
	cli_result_free(&r);
}

/* @o's diagnosis groups without what needs the analysis (receive work). */
static struct json_object *dx_groups(struct json_object *o)
{
	struct json_object *g, *copy = NULL;
	size_t i, k;

	if (!json_object_object_get_ex(o, "diagnosis", &g) ||
	    !json_object_object_get_ex(g, "groups", &g) || json_object_deep_copy(g, &copy, NULL))
		return NULL;
	for (i = 0; i < json_object_array_length(copy); i++) {
		struct json_object *causes;

		if (!json_object_object_get_ex(json_object_array_get_idx(copy, i), "causes", &causes))
			continue;
		for (k = 0; k < json_object_array_length(causes); k++) {
			json_object_object_del(json_object_array_get_idx(causes, k), "receive_work");
		}
	}
	return copy;
}

/*
 * @o's critical path; without what the waits ran through (@via false)
 * where a window may be narrower than the state of a core around it.
 */
static struct json_object *cp_groups(struct json_object *o, bool via)
{
	static const char *const in[] = { "states", "messages" };
	struct json_object *g, *copy = NULL;
	size_t i, k, j;

	if (!json_object_object_get_ex(o, "critical_path", &g) ||
	    !json_object_object_get_ex(g, "groups", &g) || json_object_deep_copy(g, &copy, NULL))
		return NULL;
	for (i = 0; !via && i < json_object_array_length(copy); i++) {
		for (j = 0; j < 2; j++) {
			struct json_object *v;

			if (!json_object_object_get_ex(json_object_array_get_idx(copy, i), in[j], &v))
				continue;
			for (k = 0; k < json_object_array_length(v); k++) {
				json_object_object_del(json_object_array_get_idx(v, k), "via");
				json_object_object_del(json_object_array_get_idx(v, k), "via_ns");
			}
		}
	}
	return copy;
}

/*
 * The whole capture's diagnosis and critical path in @got as in @want, the
 * analysis without windows (@via: with what the waits ran through); @file
 * and @what name the run when they differ.
 */
static void same_dx(struct json_object *want, struct json_object *got, bool via, const char *file,
		    const char *what)
{
	struct json_object *x = dx_groups(want), *y = got ? dx_groups(got) : NULL;
	struct json_object *cx = cp_groups(want, via), *cy = got ? cp_groups(got, via) : NULL;
	bool same = x && y && json_object_equal(x, y);

	CHECK(x && json_object_array_length(x) > 0);
	if (!same)
		printf("# %s %s: the whole diagnosis differs\n", file, what);
	CHECK(same);
	same = cx && cy && json_object_equal(cx, cy);
	if (!same)
		printf("# %s %s: the critical path differs\n", file, what);
	CHECK(same);
	json_object_put(x);
	json_object_put(y);
	json_object_put(cx);
	json_object_put(cy);
}

/* In @file: the mixed and two-phase captures, then the window fuzzer's @n @seeds (named in @seed). */
static void capture_files(const char **file, char (*seed)[128], const char *const *seeds, size_t n)
{
	size_t f;

	file[0] = path("mixed");
	file[1] = path("phases");
	for (f = 0; f < n; f++) {
		snprintf(seed[f], sizeof(seed[f]), "fuzz/corpus/window/%s", seeds[f]);
		file[2 + f] = seed[f];
	}
}

/*
 * --whole-diagnosis: after windows of any width, the whole capture's
 * diagnosis as without windows (reference, tail, causes, shares, the
 * slowest messages with their ids, coverage, skipped), in JSON and text;
 * on the mixed capture (drops, a batch), the one whose cause changes
 * halfway, and fuzzing seeds with locks, receive work, faults, lost
 * records, sampled stacks and user-space PT; and its tail's critical path,
 * but for what a wait ran through in windows of 60us (a core idle since
 * before the window's margin is "unknown" there).
 */
static void test_whole_diagnosis(void)
{
	static const char *const widths[] = { "60us", "333us", "7ms" };
	static const char *const seeds[] = { "seed-sampled", "seed-netrx", "seed-fault", "seed-drop",
					     "seed-lock", "seed-batch", "seed-pt-user" };
	enum { LINES = 2000 };
	static struct json_object *v[LINES];
	const char *file[2 + sizeof(seeds) / sizeof(seeds[0])];
	char seed[sizeof(seeds) / sizeof(seeds[0])][128];
	struct cli_result r, w;
	size_t f, k, nv;

	capture_files(file, seed, seeds, sizeof(seeds) / sizeof(seeds[0]));
	for (f = 0; f < sizeof(file) / sizeof(file[0]); f++) {
		struct json_object *whole, *cx;

		run(&r, NULL, (const char *[]){ "--json", file[f], NULL });
		CHECK_U64(r.status, 0);
		whole = r.out ? json_tokener_parse(r.out) : NULL;
		REQUIRE(whole);
		cx = cp_groups(whole, true);
		CHECK(cx && json_object_array_length(cx) > 0);
		json_object_put(cx);
		for (k = 0; k < sizeof(widths) / sizeof(widths[0]); k++) {
			struct json_object *cap = NULL;
			char what[64];

			run(&w, NULL, (const char *[]){ "--json", "--window", widths[k],
							"--whole-diagnosis", file[f], NULL });
			CHECK_U64(w.status, 0);
			nv = parse_lines(w.out, v, LINES);
			CHECK(nv >= 2 && nv < LINES);
			if (nv)
				json_object_object_get_ex(v[nv - 1], "capture", &cap);
			snprintf(what, sizeof(what), "--window %s", widths[k]);
			same_dx(whole, cap, k > 0, file[f], what);
			put_all(v, nv);
			cli_result_free(&w);
		}
		json_object_put(whole);
		cli_result_free(&r);
	}
	/* The text: the groups after the whole capture's latency. */
	run(&r, NULL, (const char *[]){ "--color", "never", path("phases"), NULL });
	run(&w, NULL, (const char *[]){ "--color", "never", "--window", "1ms", "--whole-diagnosis",
					path("phases"), NULL });
	CHECK_U64(w.status, 0);
	CHECK_STR_HAS(w.out, "\nwhole capture:");
	{
		const char *a = r.out ? strstr(r.out, "\ndiagnosis: ") : NULL;
		const char *b = w.out ? strstr(w.out, "\nwhole capture:") : NULL;
		size_t len = a ? strcspn(a + 1, "\n") + 1 : 0;

		b = b ? strstr(b, "\ndiagnosis: ") : NULL;
		/* The group's first line: reference and tail as without windows. */
		CHECK(a && b && len > 1 && !strncmp(a, b, len));
		/* Its critical path, after the diagnosis, as without windows. */
		a = r.out ? strstr(r.out, "\ncritical path: ") : NULL;
		b = b ? strstr(b, "\ncritical path: ") : NULL;
		len = a ? strcspn(a + 1, "\n") + 1 : 0;
		CHECK(a && b && len > 1 && !strncmp(a, b, len));
	}
	cli_result_free(&r);
	cli_result_free(&w);
	/* Only after time windows. */
	run(&r, NULL, (const char *[]){ "--whole-diagnosis", path("mixed"), NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "--whole-diagnosis needs --window DURATION");
	cli_result_free(&r);
}

/* The text of @out from the line starting with @from, its first @n lines ("" if none). */
static char *lines_from(const char *out, const char *from, size_t n)
{
	const char *a = out ? strstr(out, from) : NULL, *e;

	if (!a)
		return strdup("");
	for (e = a; n && e; n--) {
		e = strchr(e, '\n');
		e = e ? e + 1 : NULL;
	}
	return strndup(a, e ? (size_t)(e - a) : strlen(a));
}

/*
 * report --stream: the whole capture's report from its windows' passes,
 * in the report's own shape: the same check, latency, diagnosis and
 * critical path as the report in memory (JSON) on the scenarios and the
 * seeds of test_whole_diagnosis, with windows of any width or of the
 * default count of records; the text's latency, diagnosis and critical
 * path lines; streamed by itself when the capture passes --memory, never
 * from stdin; and the options' errors.
 */
static void test_streamed(void)
{
	static const char *const widths[] = { NULL, "60us", "7ms" };
	static const char *const seeds[] = { "seed-sampled", "seed-fault", "seed-lock",
					     "seed-pt-user" };
	const char *file[2 + sizeof(seeds) / sizeof(seeds[0])];
	char seed[sizeof(seeds) / sizeof(seeds[0])][128];
	struct cli_result r, w;
	size_t f, k;

	capture_files(file, seed, seeds, sizeof(seeds) / sizeof(seeds[0]));
	for (f = 0; f < sizeof(file) / sizeof(file[0]); f++) {
		struct json_object *whole;

		run(&r, NULL, (const char *[]){ "--json", file[f], NULL });
		CHECK_U64(r.status, 0);
		whole = r.out ? json_tokener_parse(r.out) : NULL;
		REQUIRE(whole);
		for (k = 0; k < sizeof(widths) / sizeof(widths[0]); k++) {
			struct json_object *st, *a, *b;
			char what[64];
			bool same;

			if (widths[k])
				run(&w, NULL, (const char *[]){ "--json", "--stream", "always", "--window",
								widths[k], file[f], NULL });
			else
				run(&w, NULL, (const char *[]){ "--json", "--stream", "always", file[f],
								NULL });
			CHECK_U64(w.status, 0);
			snprintf(what, sizeof(what), "--stream always --window %s",
				 widths[k] ? widths[k] : "(auto)");
			st = w.out ? json_tokener_parse(w.out) : NULL;
			CHECK(st != NULL);
			CHECK(json_object_object_get_ex(st, "streamed", &a) &&
			      json_object_object_get_ex(a, "windows", &a) && json_object_get_uint64(a) >= 1);
			same = json_object_object_get_ex(st, "check", &a) &&
			       json_object_object_get_ex(whole, "check", &b) && json_object_equal(a, b);
			CHECK(same);
			same = json_object_object_get_ex(st, "latency", &a) &&
			       json_object_object_get_ex(a, "groups", &a) &&
			       json_object_object_get_ex(whole, "latency", &b) &&
			       json_object_object_get_ex(b, "groups", &b) && json_object_equal(a, b);
			if (!same)
				printf("# %s %s: the latency differs\n", file[f], what);
			CHECK(same);
			/* What a wait ran through: not in windows of 60us (test_whole_diagnosis). */
			same_dx(whole, st, k != 1, file[f], what);
			/* What it leaves out is not there, not empty. */
			CHECK(st && !json_object_object_get_ex(st, "chains", NULL));
			json_object_put(st);
			cli_result_free(&w);
		}
		json_object_put(whole);
		cli_result_free(&r);
	}

	/*
	 * The text, full and compact: the lines of the report in memory, and
	 * what it left out said.
	 */
	for (k = 0; k < 2; k++) {
		static const char *const from[] = { "\nlatency: ", "\ndiagnosis: ",
						     "\ncritical path: " };
		const char *const plain[] = { "--color", "never", path("phases"), NULL };
		const char *const streamed[] = { "--color", "never", "--stream", "always", "--window",
						 "1ms", path("phases"), NULL };
		char *a, *b;
		size_t i;

		if (k) {
			cli_run(&c, &r, NULL, plain);
			cli_run(&c, &w, NULL, streamed);
		} else {
			run(&r, NULL, plain);
			run(&w, NULL, streamed);
		}
		CHECK_U64(w.status, 0);
		CHECK_STR_HAS(w.out, "\nstreamed: ");
		CHECK_STR_HAS(w.out, "\n  why: --stream always\n");
		/* No samples, PT, futexes or request marks: left out only what it could have. */
		CHECK_STR_HAS(w.out, "\n  left out: the time and loss lines, receive work, chains, queues and loops (--stream never)\n");
		CHECK_STR_HAS(r.out, "\nevidence: context records; no function-level evidence (no sample or pt records)\n");
		CHECK_STR_HAS(w.out, "\nevidence: context records; no function-level evidence (no sample or pt records)\n");
		CHECK(!strstr(w.out ? w.out : "", "\nwindow 0:"));
		/* The latency up to what streaming leaves out (the lifetimes' counts, the evidence). */
		a = lines_from(r.out, from[0], k ? 6 : 3);
		b = lines_from(w.out, from[0], k ? 6 : 3);
		CHECK(a[0] && !strcmp(a, b));
		if (strcmp(a, b))
			printf("# --stream always, the latency differs:\n# %s\n# %s\n", a, b);
		free(a);
		free(b);
		for (i = 1; i < 3; i++) {
			a = lines_from(r.out, from[i], i == 1 ? 8 : 2);
			b = lines_from(w.out, from[i], i == 1 ? 8 : 2);
			CHECK(a[0] && !strcmp(a, b));
			if (strcmp(a, b))
				printf("# --stream always, the text from '%s' differs:\n# %s\n# %s\n",
				       from[i] + 1, a, b);
			free(a);
			free(b);
		}
		cli_result_free(&w);
		if (!k)
			cli_result_free(&r);
	}

	/* With samples and futex records: the evidence and the locks left out too. */
	cli_run(&c, &w, NULL, (const char *[]){ "--stream", "always", "fuzz/corpus/window/seed-sampled",
						 NULL });
	CHECK_U64(w.status, 0);
	CHECK_STR_HAS(w.out, "\n  left out: the time and loss lines, the evidence, receive work, chains, queues and loops (--stream never)\n");
	CHECK(w.out && !strstr(w.out, "\nevidence: "));
	cli_result_free(&w);
	cli_run(&c, &w, NULL, (const char *[]){ "--stream", "always", "fuzz/corpus/window/seed-lock",
						 NULL });
	CHECK_U64(w.status, 0);
	CHECK_STR_HAS(w.out, "\n  left out: the time and loss lines, receive work, chains, queues, loops and locks (--stream never)\n");
	cli_result_free(&w);

	/* A trace-cmd capture: its source first, as in the report in memory. */
	cli_run(&c, &w, NULL, (const char *[]){ "--stream", "always", "tests/data/tracecmd-guest-udp.dat",
						 NULL });
	CHECK_U64(w.status, 0);
	CHECK(w.out && !strncmp(w.out, "source: trace-cmd trace.dat: ", 29));
	cli_result_free(&w);
	cli_run(&c, &w, NULL, (const char *[]){ "--json", "--stream", "always",
						 "tests/data/tracecmd-guest-udp.dat", NULL });
	CHECK_U64(w.status, 0);
	CHECK(w.out && !strncmp(w.out, "{\n  \"source\": {\n", 16));
	CHECK_STR_HAS(w.out, "\"format\": \"trace.dat\"");
	cli_result_free(&w);

	/* By itself: a file over --memory streams, the same under it does not, stdin never. */
	cli_run(&c, &w, NULL, (const char *[]){ "--color", "never", "--memory", "1K", path("phases"),
						 NULL });
	CHECK_U64(w.status, 0);
	CHECK_STR_HAS(w.out, "\nstreamed: ");
	CHECK_STR_HAS(w.out, "  why: the capture is ");
	CHECK_STR_HAS(w.out, "over the budget of 1.0 KB (--memory)\n");
	{
		char *a = lines_from(r.out, "\ndiagnosis: ", 8), *b = lines_from(w.out, "\ndiagnosis: ", 8);

		CHECK(a[0] && !strcmp(a, b));
		free(a);
		free(b);
	}
	cli_result_free(&w);
	cli_run(&c, &w, NULL, (const char *[]){ "--color", "never", "--memory", "1G", path("phases"),
						 NULL });
	CHECK_U64(w.status, 0);
	CHECK(w.out && r.out && !strcmp(w.out, r.out));
	cli_result_free(&w);
	run(&w, path("phases"), (const char *[]){ "--color", "never", "--memory", "1K", "-", NULL });
	CHECK_U64(w.status, 0);
	CHECK(w.out && !strstr(w.out, "streamed:"));
	cli_result_free(&w);
	/* Asked for something that needs the whole capture: not streamed. */
	run(&w, NULL, (const char *[]){ "--color", "never", "--memory", "1K", "--range", "0s:1s",
					path("phases"), NULL });
	CHECK_U64(w.status, 0);
	CHECK(w.out && !strstr(w.out, "streamed:"));
	cli_result_free(&w);
	/* --strict: the check's problems fail it, as in memory. */
	run(&w, NULL, (const char *[]){ "--stream", "always", "--strict", path("cut"), NULL });
	CHECK_U64(w.status, 1);
	cli_result_free(&w);
	cli_result_free(&r);

	/* The options' errors. */
	{
		static const char *const bad[][6] = {
			{ "--stream", "sometimes", NULL },
			{ "--stream", "always", "--html", "/tmp/x.html", NULL },
			{ "--stream", "always", "--messages", NULL },
			{ "--memory", "0", NULL },
			{ "--memory", "12Q", NULL },
			{ "--memory", "1G", "--stream", "never", NULL },
			{ "--stream", "always", "--window", "1ms", "--whole-diagnosis", NULL },
		};
		static const char *const said[] = {
			"bad --stream 'sometimes' (auto, always or never)",
			"--stream always does not go with",
			"--stream always does not go with",
			"bad --memory '0'",
			"bad --memory '12Q'",
			"--memory is the budget of --stream auto",
			"--stream always does not go with",
		};

		for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			const char *args[8];
			size_t i;

			for (i = 0; bad[k][i]; i++)
				args[i] = bad[k][i];
			args[i++] = path("mixed");
			args[i] = NULL;
			run(&w, NULL, args);
			CHECK_U64(w.status, 2);
			CHECK_STR_HAS(w.err, said[k]);
			cli_result_free(&w);
		}
		cli_run(&c, &w, NULL, (const char *[]){ "report", "--window", "1ms", path("mixed"),
							 NULL });
		CHECK_U64(w.status, 2);
		CHECK_STR_HAS(w.err, "report --window DURATION sets the windows of --stream always");
		cli_result_free(&w);
		cli_run(&c, &w, NULL, (const char *[]){ "window", "--window", "1ms", "--stream",
							 "always", path("mixed"), NULL });
		CHECK_U64(w.status, 2);
		CHECK_STR_HAS(w.err, "window does not take --stream");
		cli_result_free(&w);
	}
}

static void cleanup(void)
{
	CHECK(cli_fini(&c, files) == 0);
}

KTAP_MAIN(
	KTAP_TEST(setup),
	KTAP_TEST(test_one_window_is_the_whole),
	KTAP_TEST(test_messages_exact),
	KTAP_TEST(test_cause_in_its_window),
	KTAP_TEST(test_stdin),
	KTAP_TEST(test_errors),
	KTAP_TEST(test_whole_diagnosis),
	KTAP_TEST(test_streamed),
	KTAP_TEST(cleanup),
)
