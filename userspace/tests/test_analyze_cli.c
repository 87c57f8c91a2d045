// SPDX-License-Identifier: MIT
/*
 * End to end: run the built nsight-analyze ($NSIGHT_ANALYZE, by default
 * build-asan/nsight-analyze) on crafted stream files and check exit codes,
 * output and the byte offsets in its messages.
 */
#include <limits.h>
#include <json-c/json.h>

#include "format/records.h"
#include "base/zstdio.h"
#include "clirun.h"

static struct cli cli;
static char good[128], bad[128], cut[128], crc[128];
static size_t good_len;

static void run(struct cli_result *r, const char *in, const char *const *args)
{
	cli_run_verbose(&cli, r, in, args);
}

static int write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f)
		return -1;
	ok = fwrite(data, 1, len, f) == len;
	return (fclose(f) == 0 && ok) ? 0 : -1;
}

/* A consistent two-CPU stream; @records_written0 lets it disagree. */
static void build(struct membuf *m, uint64_t records_written0)
{
	struct nsight_cpu_status st[2] = {
		{ .cpu = 0, .online = 1, .hook_hits = records_written0 + 1,
		  .records_written = records_written0, .records_dropped = 1 },
		{ .cpu = 1, .online = 1, .hook_hits = 1, .records_written = 1 },
	};
	struct nsight_stream_hdr h = { .tsc_hz = 1000000, .nr_cpus = 2, .sources = 7 };
	struct nsight_stream_writer w;
	uint8_t r0[512], r1[256];
	size_t n0 = 0, n1 = 0;

	strcpy(h.release, "6.12.0-e2e");
	put_subbuf(r0, &n0, 0, 1000, 0, 0);
	put_rec(r0, &n0, NSIGHT_REC_SCHED_SWITCH, sizeof(struct nsight_rec_sched_switch), 0, 1500);
	put_rec(r0, &n0, NSIGHT_REC_HANDOFF, sizeof(struct nsight_rec_handoff), 0, 2000);
	put_subbuf(r1, &n1, 1, 900, 0, 0);
	put_rec(r1, &n1, NSIGHT_REC_CLOCK_SYNC, sizeof(struct nsight_rec_clock_sync), 1, 1100);
	membuf_open(m, &w);
	nsight_stream_write_header(&w, &h);
	nsight_stream_write_records(&w, 0, r0, n0);
	nsight_stream_write_records(&w, 1, r1, n1);
	nsight_stream_write_status(&w, st, 2);
	nsight_stream_write_end(&w);
	membuf_close(m);
}

static void setup(void)
{
	struct membuf m;

	REQUIRE(cli_init(&cli) == 0);
	cli_path(&cli, "good.nsight", good, sizeof(good));
	cli_path(&cli, "bad.nsight", bad, sizeof(bad));
	cli_path(&cli, "cut.nsight", cut, sizeof(cut));
	cli_path(&cli, "crc.nsight", crc, sizeof(crc));

	build(&m, 2);
	good_len = m.len;
	CHECK(write_file(good, m.data, m.len) == 0);
	CHECK(write_file(cut, m.data, m.len - 30) == 0);
	m.data[104 + 24 + 40] ^= 4;	/* inside cpu0's records */
	CHECK(write_file(crc, m.data, m.len) == 0);
	free(m.data);
	build(&m, 3);
	CHECK(write_file(bad, m.data, m.len) == 0);
	free(m.data);
}

static void test_good_stream(void)
{
	struct cli_result r;
	char want[256];

	run(&r, NULL, (const char *[]){ good, NULL });
	CHECK_U64(r.status, 0);
	snprintf(want, sizeof(want), "stream: %s  format 1  kernel 6.12.0-e2e  cpus 2  tsc 1000000 Hz\n", good);
	CHECK_STR_HAS(r.out, want);
	CHECK_STR_HAS(r.out, "\nspan: 0.001100 s  tsc 900..2000\n");
	CHECK_STR_HAS(r.out, "\nrecords: 3  sub-buffers: 2  dropped: 1 (0 in sub-buffer headers, 1 after the last sub-buffer)\n");
	CHECK_STR_HAS(r.out, "\ncheck: ok\n");
	CHECK(r.err && !r.err[0]);
	cli_result_free(&r);
}

static void test_stdin(void)
{
	struct cli_result r;

	run(&r, good, (const char *[]){ NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "stream: -  format 1");
	cli_result_free(&r);
	run(&r, good, (const char *[]){ "--strict", "-", NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "stream: -  format 1");
	cli_result_free(&r);
}

/* The text after the first line (which names the input). */
static const char *after_first_line(const char *out)
{
	const char *nl = out ? strchr(out, '\n') : NULL;

	return nl ? nl : "";
}

/* A stream written through zstd reads as the plain one, file or stdin. */
static void test_compressed(void)
{
	char zpath[128], zcut[128];
	struct cli_result plain, r;
	FILE *f, *z;
	uint8_t *buf;
	long zlen;

	buf = malloc(good_len);
	REQUIRE(buf);
	f = fopen(good, "rb");
	REQUIRE(f && fread(buf, 1, good_len, f) == good_len);
	fclose(f);
	cli_path(&cli, "good.nsight.zst", zpath, sizeof(zpath));
	f = fopen(zpath, "wb");
	REQUIRE(f);
	z = nsight_zstd_open_write(f, true, NSIGHT_ZSTD_LEVEL);
	REQUIRE(z);
	CHECK(fwrite(buf, 1, good_len, z) == good_len);
	CHECK_U64(fclose(z), 0);

	run(&plain, NULL, (const char *[]){ "--strict", good, NULL });
	CHECK_U64(plain.status, 0);
	run(&r, NULL, (const char *[]){ "--strict", zpath, NULL });
	CHECK_U64(r.status, 0);
	CHECK(!strcmp(after_first_line(r.out), after_first_line(plain.out)));
	cli_result_free(&r);
	run(&r, zpath, (const char *[]){ "--strict", "-", NULL });
	CHECK_U64(r.status, 0);
	CHECK(!strcmp(after_first_line(r.out), after_first_line(plain.out)));
	cli_result_free(&r);
	run(&r, NULL, (const char *[]){ "--window", "1ms", zpath, NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "check: ok");
	cli_result_free(&r);
	cli_result_free(&plain);

	/* Cut: an error naming the input, exit 1. */
	f = fopen(zpath, "rb");
	REQUIRE(f);
	fseek(f, 0, SEEK_END);
	zlen = ftell(f);
	rewind(f);
	REQUIRE(zlen > 20 && fread(buf, 1, (size_t)zlen, f) == (size_t)zlen);
	fclose(f);
	cli_path(&cli, "cut.nsight.zst", zcut, sizeof(zcut));
	CHECK(write_file(zcut, buf, (size_t)zlen - 10) == 0);
	run(&r, NULL, (const char *[]){ zcut, NULL });
	CHECK_U64(r.status, 1);
	CHECK_STR_HAS(r.err, zcut);
	CHECK_STR_HAS(r.err, "Bad message");
	cli_result_free(&r);
	free(buf);
}

static void test_truncated(void)
{
	struct cli_result r;
	char want[256];

	/* Analysed up to the cut, with a warning and a problem in the check. */
	run(&r, NULL, (const char *[]){ cut, NULL });
	CHECK_U64(r.status, 0);
	snprintf(want, sizeof(want), "nsight-analyze: %s: warning: truncated at byte %zu: ", cut,
		 good_len - 30);
	CHECK_STR_HAS(r.err, want);
	CHECK_STR_HAS(r.err, "whole chunks before it");
	CHECK_STR_HAS(r.out, "the stream is cut short at byte");
	cli_result_free(&r);
	run(&r, NULL, (const char *[]){ "--strict", cut, NULL });
	CHECK_U64(r.status, 1);
	cli_result_free(&r);

	/* The same through stdin. */
	run(&r, cut, (const char *[]){ "--json", NULL });
	CHECK_U64(r.status, 0);
	snprintf(want, sizeof(want), "nsight-analyze: -: warning: truncated at byte %zu: ",
		 good_len - 30);
	CHECK_STR_HAS(r.err, want);
	CHECK_STR_HAS(r.out, "\"cut\"");
	cli_result_free(&r);

	/* Empty input. */
	run(&r, NULL, (const char *[]){ NULL });
	CHECK_U64(r.status, 1);
	CHECK_STR_HAS(r.err, "nsight-analyze: -: truncated at byte 0: stream header needs 104 bytes, 0 available");
	cli_result_free(&r);
}

static void test_corrupt(void)
{
	struct cli_result r;
	char want[128];

	run(&r, NULL, (const char *[]){ crc, NULL });
	CHECK_U64(r.status, 1);
	/* cpu0's chunk: SUBBUF, sched_switch, handoff. */
	snprintf(want, sizeof(want), "RECORDS chunk at byte 104: crc32 of the %zu-byte payload",
		 sizeof(struct nsight_rec_subbuf) + sizeof(struct nsight_rec_sched_switch) +
		 sizeof(struct nsight_rec_handoff));
	CHECK_STR_HAS(r.err, want);
	cli_result_free(&r);
}

static void test_problems_and_strict(void)
{
	struct cli_result r;

	run(&r, NULL, (const char *[]){ bad, NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "\ncheck: 1 problem\n  cpu 0: stream holds 2 records, kernel wrote 3\n");
	cli_result_free(&r);
	run(&r, NULL, (const char *[]){ "--strict", bad, NULL });
	CHECK_U64(r.status, 1);
	CHECK_STR_HAS(r.out, "\ncheck: 1 problem\n");
	cli_result_free(&r);
}

static void test_json(void)
{
	struct json_object *o, *v;
	struct cli_result r;

	run(&r, NULL, (const char *[]){ "--json", bad, NULL });
	CHECK_U64(r.status, 0);
	o = r.out ? json_tokener_parse(r.out) : NULL;
	CHECK(o);
	if (o) {
		CHECK(json_object_object_get_ex(o, "records", &v) && json_object_get_uint64(v) == 3);
		CHECK(json_object_object_get_ex(o, "check", &v) &&
		      json_object_object_get_ex(v, "n_problems", &v) && json_object_get_uint64(v) == 1);
		json_object_put(o);
	}
	cli_result_free(&r);
}

/* Where records were lost: a line per span, and "loss" in JSON. */
static void test_loss_spans(void)
{
	static const char *const seed = "fuzz/corpus/window/seed-drop";
	struct json_object *j, *loss;
	struct cli_result r;

	cli_run(&cli, &r, NULL, (const char *[]){ "--color", "never", seed, NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "\nloss: 9 records lost;");
	CHECK_STR_HAS(r.out, "\n  cpu 1: 3 between +0.000698 s and +0.000721 s\n");
	cli_result_free(&r);
	cli_run(&cli, &r, NULL, (const char *[]){ "--json", seed, NULL });
	CHECK_U64(r.status, 0);
	j = r.out ? json_tokener_parse(r.out) : NULL;
	CHECK(j && json_object_object_get_ex(j, "loss", &loss) &&
	      json_object_array_length(loss) == 3);
	json_object_put(j);
	cli_result_free(&r);
	/*
	 * Lost after a CPU's last record: told once, from its last record
	 * (it was also listed as a window ending at the end of time).
	 */
	cli_run(&cli, &r, NULL, (const char *[]){ "--verbose", good, NULL });
	CHECK_STR_HAS(r.out, "\nloss: 1 records lost;");
	CHECK_STR_HAS(r.out, " after its last record, +");
	CHECK(r.out && !strstr(r.out, " between +"));
	cli_result_free(&r);
	cli_run(&cli, &r, NULL, (const char *[]){ "--json", good, NULL });
	j = r.out ? json_tokener_parse(r.out) : NULL;
	CHECK(j && json_object_object_get_ex(j, "loss", &loss) &&
	      json_object_array_length(loss) == 1);
	json_object_put(j);
	cli_result_free(&r);
	/* No loss: no line, an empty array. */
	cli_run(&cli, &r, NULL,
		(const char *[]){ "--color", "never", "fuzz/corpus/window/seed-hog", NULL });
	CHECK(!strstr(r.out ? r.out : "", "\nloss:"));
	cli_result_free(&r);
}

/* The header's TSC frequency: 0 only with a rate elsewhere, never absurd. */
static void test_bad_header(void)
{
	static const uint64_t hz[] = { 5, 1000000000000ULL, 0 };
	struct cli_result r;
	struct membuf m;
	char path[192];
	size_t i;

	build(&m, 2);
	for (i = 0; i < 3; i++) {
		memcpy(m.data + offsetof(struct nsight_stream_hdr, tsc_hz), &hz[i], sizeof(hz[i]));
		cli_path(&cli, "hz.nsight", path, sizeof(path));
		CHECK(write_file(path, m.data, m.len) == 0);
		run(&r, NULL, (const char *[]){ path, NULL });
		CHECK_U64(r.status, 1);
		CHECK_STR_HAS(r.err, path);
		CHECK_STR_HAS(r.err, hz[i] ? " Hz at byte 16 (must be 0, unknown, or 1 MHz to 100 GHz)" :
			      "the TSC frequency in the stream header (byte 16) is 0 and no timekeeper or clock_sync record gives the TSC's rate");
		CHECK(r.out && !r.out[0]);
		cli_result_free(&r);
	}
	free(m.data);
}

/*
 * The reports' files are opened before the analysis: one that cannot be
 * written fails first; a run that fails removes the one it created and
 * leaves one that was there as it was.
 */
static void test_output_paths(void)
{
	char html[192], *kept;
	struct cli_result r;

	run(&r, NULL, (const char *[]){ "--html", "/nonexistent/r.html", crc, NULL });
	CHECK_U64(r.status, 1);
	CHECK_STR_HAS(r.err, "nsight-analyze: cannot create /nonexistent/r.html: No such file or directory");
	CHECK(r.err && !strstr(r.err, "crc32"));
	cli_result_free(&r);
	run(&r, NULL, (const char *[]){ "--perfetto", cli.dir, good, NULL });
	CHECK_U64(r.status, 1);
	CHECK_STR_HAS(r.err, "cannot create");
	CHECK_STR_HAS(r.err, "Is a directory");
	cli_result_free(&r);

	cli_path(&cli, "r.html", html, sizeof(html));
	run(&r, NULL, (const char *[]){ "--html", html, crc, NULL });
	CHECK_U64(r.status, 1);
	CHECK_STR_HAS(r.err, "crc32");
	CHECK(access(html, F_OK) != 0);
	cli_result_free(&r);
	CHECK(write_file(html, "old", 3) == 0);
	run(&r, NULL, (const char *[]){ "--html", html, crc, NULL });
	CHECK_U64(r.status, 1);
	kept = cli_slurp(html);
	CHECK(kept && !strcmp(kept, "old"));
	free(kept);
	cli_result_free(&r);

	run(&r, NULL, (const char *[]){ "--html", html, "--perfetto", html, good, NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "--html and --perfetto name the same file");
	cli_result_free(&r);
	run(&r, NULL, (const char *[]){ "--html", good, good, NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "a report would overwrite the capture");
	cli_result_free(&r);
}

static void test_usage(void)
{
	struct cli_result r;

	run(&r, NULL, (const char *[]){ good, bad, NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "more than one input");
	cli_result_free(&r);
	run(&r, NULL, (const char *[]){ "--frobnicate", NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "bad option '--frobnicate'");
	cli_result_free(&r);
	run(&r, NULL, (const char *[]){ "--help", NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "Usage: nsight-analyze [COMMAND] [OPTIONS] [FILE|-]\n");
	cli_result_free(&r);
	run(&r, NULL, (const char *[]){ "/nonexistent/x.nsight", NULL });
	CHECK_U64(r.status, 1);
	CHECK_STR_HAS(r.err, "nsight-analyze: /nonexistent/x.nsight: No such file or directory");
	cli_result_free(&r);
}

/* No capture named and stdin a terminal: a hint and exit 2, not a wait for keys. */
static void test_stdin_terminal(void)
{
	struct cli_result r;
	int pty = posix_openpt(O_RDWR | O_NOCTTY);
	const char *tty;

	REQUIRE(pty >= 0);
	REQUIRE(!grantpt(pty) && !unlockpt(pty) && (tty = ptsname(pty)));
	/* End-of-file typed ahead: a run that read the terminal would end, not hang. */
	CHECK_U64(write(pty, "\004\004\004\004\004", 5), 5);
	run(&r, tty, (const char *[]){ NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "nsight-analyze: reading a capture from stdin, which is a terminal; "
		      "pipe 'nsightctl dump' into it or name a file (see --help)\n");
	CHECK_U64(strlen(r.out), 0);
	cli_result_free(&r);
	run(&r, tty, (const char *[]){ "--baseline", "-", good, NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "reading a capture from stdin, which is a terminal");
	cli_result_free(&r);
	run(&r, tty, (const char *[]){ "--merge", good, "-", NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "reading a capture from stdin, which is a terminal");
	cli_result_free(&r);
	/* A file named: stdin is not read, the terminal does not matter. */
	run(&r, tty, (const char *[]){ good, NULL });
	CHECK_U64(r.status, 0);
	CHECK(r.err && !strstr(r.err, "terminal"));
	cli_result_free(&r);
	close(pty);
}

/* Two runs gave the same status, stdout and stderr. */
static void check_same(const struct cli_result *a, const struct cli_result *b, const char *what)
{
	if (a->status != b->status || !a->out || !b->out || strcmp(a->out, b->out) ||
	    !a->err || !b->err || strcmp(a->err, b->err))
		KTAP_FAIL("%s: not the same as the form without a command word", what);
}

/* The command words run what the options without them run. */
static void test_commands(void)
{
	static const char *const forms[][6] = {
		/* with the command word           without it */
		{ "report", NULL },		/* + good: the default */
		{ "report", "--json", NULL },
		{ "window", "--window", "1ms", NULL },
		{ "window", "--json", "--window", "1ms", NULL },
		{ "window", "--triggers", NULL },	/* exit 1: no trigger windows */
		{ "window", NULL },			/* the same: --triggers is its default */
	};
	static const char *const legacy[][5] = {
		{ NULL }, { "--json", NULL }, { "--window", "1ms", NULL },
		{ "--json", "--window", "1ms", NULL }, { "--triggers", NULL }, { "--triggers", NULL },
	};
	struct cli_result a, b;
	size_t i, k;

	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		const char *args[8], *old[8];

		for (k = 0; forms[i][k]; k++)
			args[k] = forms[i][k];
		args[k++] = good;
		args[k] = NULL;
		for (k = 0; legacy[i][k]; k++)
			old[k] = legacy[i][k];
		old[k++] = good;
		old[k] = NULL;
		cli_run(&cli, &a, NULL, args);
		cli_run(&cli, &b, NULL, old);
		check_same(&a, &b, forms[i][0]);
		CHECK_U64(a.status, i >= 4 ? 1 : 0);
		cli_result_free(&a);
		cli_result_free(&b);
	}
	cli_run(&cli, &a, NULL, (const char *[]){ "window", good, NULL });
	CHECK_STR_HAS(a.err, "the stream has no trigger windows");
	CHECK_STR_HAS(a.err, "windows of a fixed width: --window DURATION");
	cli_result_free(&a);
	/* The capture on stdin. */
	cli_run(&cli, &a, good, (const char *[]){ "report", NULL });
	CHECK_U64(a.status, 0);
	CHECK_STR_HAS(a.out, "capture: -  kernel 6.12.0-e2e");
	cli_result_free(&a);
	cli_run(&cli, &a, good, (const char *[]){ "report", "--strict", "-", NULL });
	CHECK_U64(a.status, 0);
	cli_result_free(&a);
}

/* A command's options only; its usage errors name it. */
static void test_command_usage(void)
{
	struct cli_result r;

	cli_run(&cli, &r, NULL, (const char *[]){ "window", "--baseline", good, good, NULL });
	CHECK_U64(r.status, 2);
	CHECK(r.err && !strcmp(r.err, "nsight-analyze window: window does not take --baseline\n"
			       "Try 'nsight-analyze window --help'.\n"));
	CHECK(r.out && !r.out[0]);
	cli_result_free(&r);
	cli_run(&cli, &r, NULL, (const char *[]){ "report", "--merge", good, good, NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "nsight-analyze report: report does not take --merge\n");
	cli_result_free(&r);
	cli_run(&cli, &r, NULL, (const char *[]){ "merge", "-m", good, good, NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "nsight-analyze merge: merge does not take --messages\n");
	cli_result_free(&r);
	cli_run(&cli, &r, NULL, (const char *[]){ "report", "--version", NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "report does not take --version");
	cli_result_free(&r);
	cli_run(&cli, &r, NULL, (const char *[]){ "report", "--frobnicate", good, NULL });
	CHECK_U64(r.status, 2);
	CHECK(r.err && !strcmp(r.err, "nsight-analyze report: bad option '--frobnicate'\n"
			       "Try 'nsight-analyze report --help'.\n"));
	cli_result_free(&r);
	cli_run(&cli, &r, NULL, (const char *[]){ "report", good, bad, NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "nsight-analyze report: more than one input ('");
	cli_result_free(&r);
	cli_run(&cli, &r, NULL, (const char *[]){ "time-check", NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "nsight-analyze time-check: time-check needs PAIRS, a file of (TSC, realtime) pairs\n");
	cli_result_free(&r);
	cli_run(&cli, &r, NULL, (const char *[]){ "time-check", "/nonexistent/p", good, NULL });
	CHECK_U64(r.status, 1);
	CHECK_STR_HAS(r.err, "nsight-analyze: /nonexistent/p: No such file or directory");
	cli_result_free(&r);
	cli_run(&cli, &r, NULL, (const char *[]){ "merge", good, NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "nsight-analyze merge: merge takes two captures: CLIENT SERVER\n");
	cli_result_free(&r);
	/* Without a command word: the messages as before. */
	cli_run(&cli, &r, NULL, (const char *[]){ "--merge", good, NULL });
	CHECK_U64(r.status, 2);
	CHECK(r.err && !strcmp(r.err, "nsight-analyze: --merge takes two captures: CLIENT SERVER\n"
			       "Try 'nsight-analyze --help'.\n"));
	cli_result_free(&r);
	cli_run(&cli, &r, NULL, (const char *[]){ "--frobnicate", NULL });
	CHECK(r.err && !strcmp(r.err, "nsight-analyze: bad option '--frobnicate'\n"
			       "Try 'nsight-analyze --help'.\n"));
	cli_result_free(&r);
}

/* --help lists the commands; COMMAND --help and help COMMAND a command's options. */
static void test_command_help(void)
{
	static const char *const cmds[] = { "report", "window", "time-check", "merge" };
	struct cli_result r, h;
	char want[64];
	size_t i;

	cli_run(&cli, &r, NULL, (const char *[]){ "--help", NULL });
	CHECK_U64(r.status, 0);
	for (i = 0; i < 4; i++) {
		snprintf(want, sizeof(want), "\n  %s ", cmds[i]);
		CHECK_STR_HAS(r.out, want);
	}
	cli_run(&cli, &h, NULL, (const char *[]){ "help", NULL });
	CHECK_U64(h.status, 0);
	check_same(&r, &h, "help");
	cli_result_free(&r);
	cli_result_free(&h);
	for (i = 0; i < 4; i++) {
		cli_run(&cli, &r, NULL, (const char *[]){ cmds[i], "--help", NULL });
		CHECK_U64(r.status, 0);
		snprintf(want, sizeof(want), i ? "Usage: nsight-analyze %s " :
			 "Usage: nsight-analyze [%s] ", cmds[i]);
		CHECK_STR_HAS(r.out, want);
		CHECK_STR_HAS(r.out, "  -h, --help ");
		CHECK(r.err && !r.err[0]);
		cli_run(&cli, &h, NULL, (const char *[]){ "help", cmds[i], NULL });
		check_same(&r, &h, cmds[i]);
		cli_result_free(&h);
		/* -h too, after other options. */
		cli_run(&cli, &h, NULL, (const char *[]){ cmds[i], "--json", "-h", NULL });
		check_same(&r, &h, cmds[i]);
		cli_result_free(&h);
		cli_result_free(&r);
	}
	cli_run(&cli, &r, NULL, (const char *[]){ "help", "frob", NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "unknown command 'frob'");
	cli_result_free(&r);
	cli_run(&cli, &r, NULL, (const char *[]){ "help", "report", "window", NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "nsight-analyze help: too many arguments");
	cli_result_free(&r);
}

/* A first word that is no command, no option and no file: a mistyped command. */
static void test_unknown_command(void)
{
	struct cli_result r;

	cli_run(&cli, &r, NULL, (const char *[]){ "reprot", good, NULL });
	CHECK_U64(r.status, 2);
	CHECK(r.err && !strcmp(r.err, "nsight-analyze: unknown command 'reprot' (and no file of that name)\n"
			       "Try 'nsight-analyze --help'.\n"));
	CHECK(r.out && !r.out[0]);
	cli_result_free(&r);
	cli_run(&cli, &r, NULL, (const char *[]){ "windows", NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "unknown command 'windows'");
	cli_result_free(&r);
	/* A missing capture with a dot or a slash in its name is a missing file, as before. */
	cli_run(&cli, &r, NULL, (const char *[]){ "missing.nsight", NULL });
	CHECK_U64(r.status, 1);
	CHECK_STR_HAS(r.err, "nsight-analyze: missing.nsight: No such file or directory");
	cli_result_free(&r);
}

/* cli_run() from the test's directory, where captures are named like commands. */
static void run_in_dir(struct cli_result *r, const char *in, const char *const *args)
{
	const char *bin = getenv("NSIGHT_ANALYZE");
	char abs[PATH_MAX], cwd[PATH_MAX], *old = bin ? strdup(bin) : NULL;

	REQUIRE(realpath(bin ? bin : "build-asan/nsight-analyze", abs) && getcwd(cwd, sizeof(cwd)));
	setenv("NSIGHT_ANALYZE", abs, 1);
	REQUIRE(chdir(cli.dir) == 0);
	cli_run(&cli, r, in, args);
	REQUIRE(chdir(cwd) == 0);
	if (old)
		setenv("NSIGHT_ANALYZE", old, 1);
	else
		unsetenv("NSIGHT_ANALYZE");
	free(old);
}

/* A capture called "report": ./report, after --, after an option, or after the command. */
static void test_capture_named_like_a_command(void)
{
	static const char *const ways[][3] = {
		{ "./report", NULL },
		{ "--", "report", NULL },
		{ "--strict", "report", NULL },
		{ "report", "report", NULL },
		{ "capture", NULL },	/* no dot, but there */
	};
	struct cli_result r;
	struct membuf m;
	size_t i;

	build(&m, 2);
	CHECK(write_file(cli_file(&cli, "report"), m.data, m.len) == 0);
	CHECK(write_file(cli_file(&cli, "capture"), m.data, m.len) == 0);
	free(m.data);
	for (i = 0; i < sizeof(ways) / sizeof(ways[0]); i++) {
		char want[64];

		run_in_dir(&r, NULL, ways[i]);
		CHECK_U64(r.status, 0);
		snprintf(want, sizeof(want), "capture: %s  kernel ", i == 0 ? "./report" :
			 i == 4 ? "capture" : "report");
		CHECK_STR_HAS(r.out, want);
		cli_result_free(&r);
	}
	/* "report" alone is the command: the capture from stdin. */
	run_in_dir(&r, good, (const char *[]){ "report", NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "capture: -  kernel ");
	cli_result_free(&r);
}

/*
 * A damaged trace.dat: one error naming the file and the byte where
 * libtracecmd stopped, exit 1, and no second try as an nsight stream.
 */
static void test_damaged_tracedat(void)
{
	static const char *const errs[] = {
		"nsight-analyze: bad.dat: byte 2079: libtracecmd cannot read the file from here "
		"(141374 bytes in all)\n",
		"nsight-analyze: cut.dat: byte 4096: the file ends before byte 126668, where "
		"libtracecmd reads next\n",
	};
	const char *names[] = { "bad.dat", "cut.dat" };
	struct cli_result r;
	struct membuf m = { 0 };
	FILE *in = fopen("tests/data/tracecmd-udp-echo.dat", "rb");
	char buf[4096];
	size_t i;

	REQUIRE(in);
	m.f = open_memstream(&m.data, &m.len);
	REQUIRE(m.f);
	while ((i = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, i, m.f);
	fclose(in);
	fclose(m.f);
	REQUIRE(m.len == 141374);
	/*
	 * A section's header overwritten (not one whose size libtracecmd
	 * would malloc: ASan stops on the size, where libc returns NULL);
	 * then the file cut after a page.
	 */
	memset(m.data + 2063, 'A', 4);
	CHECK(write_file(cli_file(&cli, names[0]), m.data, m.len) == 0);
	CHECK(write_file(cli_file(&cli, names[1]), m.data, 4096) == 0);
	free(m.data);
	for (i = 0; i < 2; i++) {
		run_in_dir(&r, NULL, (const char *[]){ names[i], NULL });
		CHECK_U64(r.status, 1);
		CHECK(!strcmp(r.err, errs[i]));
		if (strcmp(r.err, errs[i]))
			printf("# stderr: %s", r.err);
		cli_result_free(&r);
	}
}

static void cleanup(void)
{
	CHECK(cli_fini(&cli, (const char *[]){ "good.nsight", "bad.nsight",
					       "cut.nsight", "crc.nsight", "good.nsight.zst",
					       "cut.nsight.zst", "hz.nsight", "r.html", "report",
					       "capture", "bad.dat", "cut.dat", NULL }) == 0);
}

KTAP_MAIN(
	KTAP_TEST(setup),
	KTAP_TEST(test_good_stream),
	KTAP_TEST(test_stdin),
	KTAP_TEST(test_truncated),
	KTAP_TEST(test_corrupt),
	KTAP_TEST(test_compressed),
	KTAP_TEST(test_problems_and_strict),
	KTAP_TEST(test_json),
	KTAP_TEST(test_loss_spans),
	KTAP_TEST(test_bad_header),
	KTAP_TEST(test_output_paths),
	KTAP_TEST(test_usage),
	KTAP_TEST(test_stdin_terminal),
	KTAP_TEST(test_commands),
	KTAP_TEST(test_command_usage),
	KTAP_TEST(test_command_help),
	KTAP_TEST(test_unknown_command),
	KTAP_TEST(test_capture_named_like_a_command),
	KTAP_TEST(test_damaged_tracedat),
	KTAP_TEST(cleanup),
)
