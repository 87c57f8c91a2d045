// SPDX-License-Identifier: MIT
/*
 * nsightctl record --flight-recorder's core (ctl/flight.c) on a synthetic
 * capture cut into sub-buffers: the trigger parser; which windows it
 * saves and which sub-buffers it leaves out, with the stream's counters
 * still adding up; a receive read before its packet; memory bounded; and
 * nsight-analyze --triggers naming the slow message and its cause first.
 */
#include <errno.h>
#include <json-c/json.h>

#include "clirun.h"
#include "flight_synth.h"
#include "pipeline/summary.h"

static struct cli c;

static void summarize(const struct membuf *m, struct nsight_summary *s)
{
	struct nsight_stream_reader r;
	struct nsight_diag d = { 0 };
	FILE *f = mem_reader(m->data, m->len);

	REQUIRE(f);
	REQUIRE(nsight_stream_reader_init(&r, f) == 0);
	CHECK(nsight_summarize(&r, s, &d) == 0);
	nsight_stream_reader_fini(&r);
	fclose(f);
}

static struct nsight_flight_opts opts(void)
{
	return (struct nsight_flight_opts){ .threshold_ns = 30000, .before_ns = 5000000,
					    .after_ns = 1000000 };
}

static void test_trigger_parse(void)
{
	struct nsight_diag d = { 0 };
	uint64_t ns = 0;

	CHECK(nsight_trigger_parse("latency>500us", &ns, &d) == 0);
	CHECK_U64(ns, 500000);
	CHECK(nsight_trigger_parse("latency>2ms", &ns, &d) == 0);
	CHECK_U64(ns, 2000000);
	CHECK(nsight_trigger_parse("latency>750", &ns, &d) == 0);
	CHECK_U64(ns, 750000);
	CHECK(nsight_trigger_parse("latency>0us", &ns, &d) == -EINVAL);
	CHECK(nsight_trigger_parse("latency<5ms", &ns, &d) == -EINVAL);
	CHECK(nsight_trigger_parse("latency>5 ms", &ns, &d) == -EINVAL);
	CHECK(nsight_trigger_parse("", &ns, &d) == -EINVAL);
	CHECK_STR_HAS(d.msg, "latency>DURATION");
}

/* Four slow messages, four windows; the rest left out, and the counters add up. */
static void test_windows_and_counters(void)
{
	struct nsight_flight_opts o = opts();
	struct fr_counts f;
	struct nsight_summary s;
	struct fr_case fc = { 0 };
	struct membuf m;
	uint32_t i;

	make_case(&fc);
	flight_stream(&fc, &o, 0, &m, &f);
	CHECK_U64(f.triggers, N_MSGS / SLOW_EVERY);
	CHECK_U64(f.windows, N_MSGS / SLOW_EVERY);
	summarize(&m, &s);
	CHECK_U64(s.triggers, N_MSGS / SLOW_EVERY);
	CHECK_U64(s.n_problems, 0);
	CHECK(s.skipped > 0);
	CHECK_U64(s.records + s.skipped, fc.records[0] + fc.records[1]);
	/* Each window (6 ms of every 20) and the first sub-buffers: well under half kept. */
	CHECK(s.records < s.skipped);
	for (i = 0; i < 2; i++)
		CHECK_U64(s.cpus[i].seq_last, (fc.records[i] + PER_SUB - 1) / PER_SUB - 1);
	nsight_summary_fini(&s);
	free(m.data);
	free_case(&fc);
}

/* The application's CPU read first: its receives wait for their packets. */
/* A receive's start given by a pkt_stage record (veth): the same triggers. */
static void test_receive_as_stage(void)
{
	struct nsight_flight_opts o = opts();
	struct fr_counts f;
	struct fr_case fc = { .rx_stages = true };
	struct membuf m;

	make_case(&fc);
	flight_stream(&fc, &o, 0, &m, &f);
	CHECK_U64(f.triggers, N_MSGS / SLOW_EVERY);
	CHECK_U64(f.windows, N_MSGS / SLOW_EVERY);
	free(m.data);
	free_case(&fc);
}

static void test_receive_before_packet(void)
{
	struct nsight_flight_opts o = opts();
	struct fr_counts f;
	struct fr_case fc = { 0 };
	struct membuf m;

	make_case(&fc);
	flight_stream(&fc, &o, SC_Y, &m, &f);
	CHECK_U64(f.triggers, N_MSGS / SLOW_EVERY);
	free(m.data);
	free_case(&fc);
}

/* Filters: another port or command fires nothing. */
static void test_filters(void)
{
	struct nsight_flight_opts o = opts();
	struct fr_counts f;
	struct fr_case fc = { 0 };
	struct membuf m;

	make_case(&fc);
	o.port = 9001;
	flight_stream(&fc, &o, 0, &m, &f);
	CHECK_U64(f.triggers, 0);
	free(m.data);
	o.port = 9000;
	o.app = "nginx";
	flight_stream(&fc, &o, 0, &m, &f);
	CHECK_U64(f.triggers, 0);
	free(m.data);
	o.app = "server";
	flight_stream(&fc, &o, 0, &m, &f);
	CHECK_U64(f.triggers, N_MSGS / SLOW_EVERY);
	free(m.data);
	free_case(&fc);
}

/* Held memory over its bound: the oldest leave early, the counters still add up. */
static void test_hold_bound(void)
{
	struct nsight_flight_opts o = opts();
	struct nsight_summary s;
	struct fr_counts f;
	struct fr_case fc = { 0 };
	struct membuf m;

	make_case(&fc);
	o.hold_max = 8192;
	flight_stream(&fc, &o, 0, &m, &f);
	summarize(&m, &s);
	CHECK_U64(s.n_problems, 0);
	CHECK_U64(s.records + s.skipped, fc.records[0] + fc.records[1]);
	nsight_summary_fini(&s);
	free(m.data);
	free_case(&fc);
}

/* Each TRIGGER chunk carries the timekeeper record in force at its window's start. */
static void test_clock_records_carried(void)
{
	struct nsight_flight_opts o = opts();
	struct fr_case fc = { .tk_every = 1000000 };
	struct nsight_stream_reader r;
	struct fr_counts f;
	struct nsight_chunk ch;
	struct membuf m;
	int triggers = 0;
	FILE *in;

	make_case(&fc);
	flight_stream(&fc, &o, 0, &m, &f);
	in = mem_reader(m.data, m.len);
	REQUIRE(in);
	REQUIRE(nsight_stream_reader_init(&r, in) == 0);
	while (nsight_stream_read_chunk(&r, &ch) > 0) {
		struct nsight_stream_trigger t;
		struct nsight_rec_hdr h;
		size_t at = sizeof(t);
		bool tk = false;

		if (ch.type != NSIGHT_CHUNK_TRIGGER)
			continue;
		triggers++;
		memcpy(&t, ch.payload, sizeof(t));
		while (at + sizeof(h) <= ch.size) {
			memcpy(&h, (const uint8_t *)ch.payload + at, sizeof(h));
			if (h.type == NSIGHT_REC_TIMEKEEPER) {
				tk = true;
				CHECK(h.tsc < t.window_lo_tsc && h.tsc + 1000000 >= t.window_lo_tsc);
			}
			at += h.size ? h.size : ch.size;
		}
		CHECK(tk);
	}
	CHECK(triggers == N_MSGS / SLOW_EVERY);
	nsight_stream_reader_fini(&r);
	fclose(in);
	free(m.data);
	free_case(&fc);
}

static char *top_cause(struct json_object *o)
{
	struct json_object *x;

	if (json_object_object_get_ex(o, "causes", &x) && json_object_array_length(x) &&
	    json_object_object_get_ex(json_object_array_get_idx(x, 0), "category", &x))
		return (char *)json_object_get_string(x);
	return "";
}

/* nsight-analyze: each window names its message first, with the cause. */
static void test_analyze_triggers(void)
{
	struct nsight_flight_opts o = opts();
	struct cli_result r, j;
	struct fr_counts f;
	struct fr_case fc = { 0 };
	struct membuf m;
	const char *file;
	const char *out;
	FILE *w;
	int windows = 0;

	make_case(&fc);
	flight_stream(&fc, &o, 0, &m, &f);
	file = cli_file(&c, "flight");
	w = fopen(file, "wb");
	REQUIRE(w);
	CHECK(fwrite(m.data, 1, m.len, w) == m.len);
	CHECK(fclose(w) == 0);

	/* A file: its windows by default. */
	cli_run(&c, &r, NULL, (const char *[]){ "--color", "never", file, NULL });
	CHECK_U64(r.status, 0);
	out = r.out ? r.out : "";
	CHECK_STR_HAS(out, "4 saved by the flight recorder");
	CHECK_STR_HAS(strstr(out, "\nwindow 2:"), "trigger: server[100/101]");
	CHECK_STR_HAS(strstr(out, "\nwindow 2:"), "its causes");
	CHECK_STR_HAS(strstr(out, "\nwindow 2:"), "stress interference");

	cli_run(&c, &j, NULL, (const char *[]){ "--json", "--triggers", file, NULL });
	CHECK_U64(j.status, 0);
	for (out = j.out ? strchr(j.out, '\n') : NULL; out && out[1]; out = strchr(out + 1, '\n')) {
		struct json_object *v = json_tokener_parse(out + 1), *win, *t, *dx, *x;

		if (!v)
			break;
		if (json_object_object_get_ex(v, "window", &win) &&
		    json_object_object_get_ex(win, "trigger", &t)) {
			windows++;
			CHECK(json_object_object_get_ex(t, "latency_ns", &x) &&
			      json_object_get_uint64(x) > 30000);
			CHECK(json_object_object_get_ex(t, "diagnosis", &dx) && dx);
			if (dx)
				CHECK_STR_HAS(top_cause(dx), "stress interference");
		}
		json_object_put(v);
	}
	CHECK(windows == 4);

	/* --whole: one analysis. */
	cli_result_free(&r);
	cli_run(&c, &r, NULL, (const char *[]){ "--whole", file, NULL });
	CHECK_U64(r.status, 0);
	CHECK(!strstr(r.out ? r.out : "", "saved by the flight recorder"));
	CHECK_STR_HAS(r.out, "flight recorder: 4 triggers");
	cli_result_free(&r);
	/* stdin is read once: the whole capture, and the note. */
	cli_run(&c, &r, file, (const char *[]){ "-", NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.err, "4 trigger windows, analysed as one; --triggers analyses each");
	cli_result_free(&r);
	cli_run(&c, &r, file, (const char *[]){ "--triggers", "-", NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "saved by the flight recorder");
	if (getenv("NSIGHT_TEST_SHOW"))
		printf("%s", r.out);
	cli_result_free(&r);
	cli_result_free(&j);
	free(m.data);
	free_case(&fc);
}

/* A stream without triggers: --triggers says why it cannot. */
static void test_no_triggers(void)
{
	struct nsight_flight_opts o = opts();
	struct fr_counts f;
	struct cli_result r;
	struct fr_case fc = { 0 };
	struct membuf m;
	const char *file;
	FILE *w;

	make_case(&fc);
	o.threshold_ns = 10000000;
	flight_stream(&fc, &o, 0, &m, &f);
	CHECK_U64(f.triggers, 0);
	file = cli_file(&c, "flight-none");
	w = fopen(file, "wb");
	REQUIRE(w);
	CHECK(fwrite(m.data, 1, m.len, w) == m.len);
	CHECK(fclose(w) == 0);
	cli_run(&c, &r, NULL, (const char *[]){ "--triggers", file, NULL });
	CHECK_U64(r.status, 1);
	CHECK_STR_HAS(r.err, "no trigger windows");
	cli_result_free(&r);
	cli_run(&c, &r, NULL, (const char *[]){ "--triggers", "--window", "1ms", file, NULL });
	CHECK_U64(r.status, 2);
	cli_result_free(&r);
	free(m.data);
	free_case(&fc);
}

static void setup(void)
{
	REQUIRE(cli_init(&c) == 0);
}

static void cleanup(void)
{
	static const char *const files[] = { "flight", "flight-none", NULL };

	CHECK(cli_fini(&c, files) == 0);
}

KTAP_MAIN(
	KTAP_TEST(setup),
	KTAP_TEST(test_trigger_parse),
	KTAP_TEST(test_windows_and_counters),
	KTAP_TEST(test_receive_before_packet),
	KTAP_TEST(test_receive_as_stage),
	KTAP_TEST(test_filters),
	KTAP_TEST(test_hold_bound),
	KTAP_TEST(test_clock_records_carried),
	KTAP_TEST(test_analyze_triggers),
	KTAP_TEST(test_no_triggers),
	KTAP_TEST(cleanup),
)
