// SPDX-License-Identifier: MIT
/*
 * nsight-analyze end to end on a synthetic capture with lifetimes: the
 * first-version lines stay, then "time:", "latency:" and "messages:", and
 * the same in JSON.
 */
#include <json-c/json.h>

#include "clirun.h"
#include "synth.h"

#define RECV	NSIGHT_REC_APP_RECV
#define SEND	NSIGHT_REC_APP_SEND

static struct cli c;
static char cap[192], approx[192], noclock[192], badtsc[192];

/*
 * UDP: two datagrams to "server" (pid 100), the second never read; TCP TX:
 * one send by "client" (pid 200). With @tk the default timekeeper record,
 * with @sync a clock_sync, with @corrupt a record of cpu 1 whose TSC is
 * far beyond its neighbours'.
 */
static void build(struct synth *s, bool tk, bool sync, bool corrupt)
{
	struct nsight_flow sock = flow4(NULL, 9000, NULL, 0, IPPROTO_UDP);
	struct nsight_flow pkt = flow4("10.0.0.1", 5000, "10.0.0.2", 9000, IPPROTO_UDP);
	struct nsight_flow out = flow4("10.0.0.2", 6000, "10.0.0.9", 443, IPPROTO_TCP);

	synth_init(s, 2);
	if (tk)
		synth_tk(s, 0, SYN_TK_TSC);
	if (sync)
		synth_sync(s, 1, 2000);
	synth_pkt(s, 1, 10000, NSIGHT_PKT_RX_GRO, 0xa1, pkt, 0, 64, 0);
	synth_pkt(s, 1, 10500, NSIGHT_PKT_RX_RECEIVE, 0xa1, pkt, 0, 64, 0);
	synth_handoff(s, 1, 11000, 0x51, sock, 0xa1, 0);
	if (corrupt) {
		struct nsight_rec_sched_switch sw = { 0 };

		rec_hdr(&sw, NSIGHT_REC_SCHED_SWITCH, sizeof(sw), 1, (1ULL << 63) + 11500);
		synth_put(s, 1, &sw, sizeof(sw));
	}
	synth_copy(s, 0, 12000, 0xa1, 101, 100, 64);
	synth_app(s, RECV, 0, 12500, 0x51, sock, 64, 0, 101, 100, "server");
	synth_pkt(s, 1, 20000, NSIGHT_PKT_RX_RECEIVE, 0xa2, pkt, 0, 64, 0);
	synth_handoff(s, 1, 21000, 0x51, sock, 0xa2, 0);

	synth_app(s, SEND, 0, 30000, 0x81, out, 100, 7000, 201, 200, "client");
	synth_pkt(s, 0, 30400, NSIGHT_PKT_TX_QUEUE, 0xd1, out, 7000, 100, 0);
	synth_pkt(s, 1, 30900, NSIGHT_PKT_TX_XMIT, 0xd1, out, 7000, 100, 0);
}

static void setup(void)
{
	struct synth s;

	REQUIRE(cli_init(&c) == 0);
	build(&s, true, true, false);
	CHECK(synth_save(&s, cli_path(&c, "cap.nsight", cap, sizeof(cap))) == 0);
	synth_free(&s);
	build(&s, true, true, true);
	CHECK(synth_save(&s, cli_path(&c, "badtsc.nsight", badtsc, sizeof(badtsc))) == 0);
	synth_free(&s);
	build(&s, false, true, false);
	CHECK(synth_save(&s, cli_path(&c, "approx.nsight", approx, sizeof(approx))) == 0);
	synth_free(&s);
	build(&s, false, false, false);
	CHECK(synth_save(&s, cli_path(&c, "noclock.nsight", noclock, sizeof(noclock))) == 0);
	synth_free(&s);
}

/* Follow a dotted path ("a.b.0.c") through objects and arrays. */
static struct json_object *jget(struct json_object *o, const char *path)
{
	char buf[128], *key, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (key = strtok_r(buf, ".", &save); key && o; key = strtok_r(NULL, ".", &save)) {
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, (size_t)atoi(key));
		else if (!json_object_object_get_ex(o, key, &o))
			return NULL;
	}
	return o;
}

static uint64_t ju64(struct json_object *o, const char *path)
{
	struct json_object *v = jget(o, path);

	return v ? json_object_get_uint64(v) : UINT64_MAX - 1;
}

static const char *jstr(struct json_object *o, const char *path)
{
	struct json_object *v = jget(o, path);

	return v ? json_object_get_string(v) : "(none)";
}

static void test_text(void)
{
	struct cli_result r;
	const char *p, *q;

	cli_run_verbose(&c, &r, NULL, (const char *[]){ cap, NULL });
	CHECK_U64(r.status, 0);
	/* The first version's lines, unchanged. */
	CHECK_STR_HAS(r.out, "\nrecords: 12  sub-buffers: 2  dropped: 0 ");
	CHECK_STR_HAS(r.out, "\nhandoff                   2\n");
	CHECK_STR_HAS(r.out, "\npkt                       5\n");
	CHECK_STR_HAS(r.out, "\napp_recv                  1\n");
	/* Then the new sections. */
	CHECK_STR_HAS(r.out, "\ncheck: no kernel counters in stream\n"
		      "time: clock realtime, exact: 1 timekeeper records (0 clock-was-set), params in-force\n"
		      "latency: 3 messages, 2 complete, 1 incomplete (no_app_recv 1); total ns (rx n->a, tx send->xmit or ->done), nearest-rank percentiles\n"
		      "  comm                  pid dir    count          p50          p90          p99        p99.9          max  incomplete\n"
		      "  client                200 tx         1          900          900          900          900          900  0\n"
		      "  server                100 rx         1         2500         2500         2500         2500         2500  1 (no_app_recv 1)\n"
		      "  out-of-order records: 0\n");
	CHECK(r.out && !strstr(r.out, "messages:"));
	CHECK(r.err && !r.err[0]);
	cli_result_free(&r);

	cli_run_verbose(&c, &r, NULL, (const char *[]){ "--messages", cap, NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "\n  out-of-order records: 0\n"
		      "messages: 3 (2 complete, 1 incomplete listed last); ids per direction, durations ns, clock realtime\n"
		      "  rx 1 udp server[100/101] 10.0.0.1:5000 > 10.0.0.2:9000 n@1700000005.000009000 n->h 1000 h->a 1500 cpu 1->0 total 2500 pkts 1 bytes 64\n"
		      "  tx 1 tcp client[200/201] 10.0.0.2:6000 > 10.0.0.9:443 send@1700000005.000029000 send->queue 400 queue->xmit 500 xmit->done - cpu 0->1 total 900 pkts 1 bytes 100\n"
		      "  rx 2 udp server[100/101] 10.0.0.1:5000 > 10.0.0.2:9000 n@1700000005.000019000 n->h 1000 h->a - cpu 1->? incomplete no_app_recv pkts 1 bytes 64\n");
	/* Messages come last. */
	p = r.out ? strstr(r.out, "\nmessages:") : NULL;
	q = r.out ? strstr(r.out, "\nlatency:") : NULL;
	CHECK(p && q && q < p);
	cli_result_free(&r);
}

static void test_clock_domains(void)
{
	struct cli_result r;

	cli_run_verbose(&c, &r, NULL, (const char *[]){ "-m", "--clock", "monotonic", cap, NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "\ntime: clock monotonic, exact: ");
	CHECK_STR_HAS(r.out, " n@5.000009000 n->h 1000 h->a 1500 cpu 1->0 total 2500 ");
	cli_result_free(&r);

	/* Only clock_sync: stated approximate, latencies still there. */
	cli_run_verbose(&c, &r, NULL, (const char *[]){ "--messages", "--clock", "monotonic", approx, NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "\ntime: clock monotonic, approximate: no timekeeper records, clock_sync and 1000000000 Hz used\n");
	CHECK_STR_HAS(r.out, "\nlatency: 3 messages, 2 complete, 1 incomplete (no_app_recv 1);");
	CHECK_STR_HAS(r.out, " n@5.000009000 n->h 1000 h->a 1500 cpu 1->0 total 2500 ");
	cli_result_free(&r);

	/* No clock records: stated, messages kept as incomplete, the rest printed. */
	cli_run_verbose(&c, &r, NULL, (const char *[]){ "--messages", noclock, NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "\ncheck: no kernel counters in stream\n");
	CHECK_STR_HAS(r.out, "\ntime: unavailable: no timekeeper or clock_sync records, so no latencies\n");
	CHECK_STR_HAS(r.out, "\nlatency: 3 messages, 0 complete, 3 incomplete (no_app_recv 1, no_clock 2);");
	CHECK_STR_HAS(r.out, "\n  server                100 rx         0            -            -            -            -            -  2 (no_app_recv 1, no_clock 1)\n");
	CHECK_STR_HAS(r.out, "\n  rx 1 udp server[100/101] 10.0.0.1:5000 > 10.0.0.2:9000 n@tsc:10000 n->h - h->a - cpu 1->0 incomplete no_clock pkts 1 bytes 64\n");
	cli_result_free(&r);

	cli_run(&c, &r, NULL, (const char *[]){ "--clock", "tai", cap, NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "bad clock 'tai' (realtime or monotonic)");
	cli_result_free(&r);
}

static void test_json(void)
{
	struct json_object *o;
	struct cli_result r;

	cli_run(&c, &r, NULL, (const char *[]){ "--json", "--messages", cap, NULL });
	CHECK_U64(r.status, 0);
	o = r.out ? json_tokener_parse(r.out) : NULL;
	REQUIRE(o);
	/* The summary as before ... */
	CHECK_U64(ju64(o, "records"), 12);
	CHECK_U64(ju64(o, "types.pkt"), 5);
	CHECK_U64(ju64(o, "types.app_send"), 1);
	/* ... and the new objects. */
	CHECK(!strcmp(jstr(o, "time.quality"), "exact"));
	CHECK(!strcmp(jstr(o, "time.clock"), "realtime"));
	CHECK_U64(ju64(o, "time.timekeeper_records"), 1);
	CHECK(!strcmp(jstr(o, "latency.percentiles"), "nearest-rank"));
	CHECK_U64(ju64(o, "latency.complete"), 2);
	CHECK_U64(ju64(o, "latency.incomplete_by_reason.no_app_recv"), 1);
	CHECK(!strcmp(jstr(o, "latency.groups.1.comm"), "server"));
	CHECK_U64(ju64(o, "latency.groups.1.pid"), 100);
	CHECK(!strcmp(jstr(o, "latency.groups.1.dir"), "rx"));
	CHECK_U64(ju64(o, "latency.groups.1.count"), 1);
	CHECK_U64(ju64(o, "latency.groups.1.p50"), 2500);
	CHECK_U64(ju64(o, "latency.groups.1.p99.9"), UINT64_MAX - 1);	/* "." splits the path */
	CHECK(jget(o, "latency.groups.1") &&
	      json_object_object_get_ex(jget(o, "latency.groups.1"), "p99.9", NULL));
	CHECK_U64(ju64(o, "latency.groups.1.incomplete"), 1);
	CHECK(json_object_array_length(jget(o, "messages")) == 3);
	CHECK_U64(ju64(o, "messages.0.id"), 1);
	CHECK(!strcmp(jstr(o, "messages.0.dir"), "rx"));
	CHECK(!strcmp(jstr(o, "messages.0.protocol"), "udp"));
	CHECK(!strcmp(jstr(o, "messages.0.app.comm"), "server"));
	CHECK_U64(ju64(o, "messages.0.app.tid"), 101);
	CHECK(!strcmp(jstr(o, "messages.0.flow.src"), "10.0.0.1:5000"));
	CHECK(!strcmp(jstr(o, "messages.0.flow.dst"), "10.0.0.2:9000"));
	CHECK_U64(ju64(o, "messages.0.stages.n.ns"), 1700000005000009000ULL);
	CHECK_U64(ju64(o, "messages.0.stages.n.tsc"), 10000);
	CHECK(!strcmp(jstr(o, "messages.0.stages.n.source"), "sw"));
	CHECK_U64(ju64(o, "messages.0.stages.a.cpu"), 0);
	CHECK_U64(ju64(o, "messages.0.segments_ns.n_h"), 1000);
	CHECK_U64(ju64(o, "messages.0.segments_ns.h_a"), 1500);
	CHECK_U64(ju64(o, "messages.0.cpus.from"), 1);
	CHECK_U64(ju64(o, "messages.0.cpus.to"), 0);
	CHECK_U64(ju64(o, "messages.0.total_ns"), 2500);
	CHECK_U64(ju64(o, "messages.0.packets"), 1);
	CHECK_U64(ju64(o, "messages.0.bytes"), 64);
	CHECK(!strcmp(jstr(o, "messages.1.dir"), "tx"));
	CHECK_U64(ju64(o, "messages.1.stages.xmit.tsc"), 30900);
	CHECK(json_object_object_get_ex(jget(o, "messages.1.stages"), "done", NULL) &&
	      !jget(o, "messages.1.stages.done"));
	CHECK(!strcmp(jstr(o, "messages.2.reason"), "no_app_recv"));
	CHECK(!jget(o, "messages.2.total_ns"));
	json_object_put(o);
	cli_result_free(&r);

	/* Without --messages no array; monotonic times. */
	cli_run(&c, &r, NULL, (const char *[]){ "--json", "-c", "monotonic", cap, NULL });
	CHECK_U64(r.status, 0);
	o = r.out ? json_tokener_parse(r.out) : NULL;
	REQUIRE(o);
	CHECK(!json_object_object_get_ex(o, "messages", NULL));
	CHECK(!strcmp(jstr(o, "time.clock"), "monotonic"));
	json_object_put(o);
	cli_result_free(&r);
}

/*
 * A record with a corrupt TSC is left out: the span and the messages are
 * those of the capture without it; the check counts it, --strict fails.
 */
static void test_bad_tsc(void)
{
	struct cli_result r;

	cli_run_verbose(&c, &r, NULL, (const char *[]){ badtsc, NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "\nspan: 0.000031 s  tsc 1..30900\n");
	CHECK_STR_HAS(r.out, "\nrecords: 13  sub-buffers: 2  dropped: 0 ");
	CHECK_STR_HAS(r.out, "\ncorrupt TSC: 1 record left out of the span and the analysis\n");
	CHECK_STR_HAS(r.out, "\ncheck: no kernel counters in stream; 1 problem\n"
		      "  cpu 1: 1 record with a TSC far out of its neighbours' order, left out of the analysis (the first at byte ");
	CHECK_STR_HAS(r.out, "\nlatency: 3 messages, 2 complete, 1 incomplete (no_app_recv 1);");
	CHECK_STR_HAS(r.out, "\n  out-of-order records: 0\n");
	cli_result_free(&r);

	cli_run(&c, &r, NULL, (const char *[]){ "--strict", "--json", badtsc, NULL });
	CHECK_U64(r.status, 1);
	CHECK_STR_HAS(r.out, "\"bad_tsc_records\": 1");
	CHECK_STR_HAS(r.out, "\"kind\": \"bad_tsc\"");
	cli_result_free(&r);

	/*
	 * Streamed through windows, whose reading checks again only the
	 * chunks the first pass found a corrupt stamp in: the same messages.
	 */
	for (int w = 0; w < 2; w++) {
		cli_run(&c, &r, NULL, (const char *[]){ "--stream", "always", "--window",
							 w ? "1s" : "8us", "--strict", badtsc,
							 NULL });
		CHECK_U64(r.status, 1);
		CHECK_STR_HAS(r.out, "\nlatency: 3 messages, 2 complete, 1 incomplete; ");
		cli_result_free(&r);
	}
}

static void test_help(void)
{
	struct cli_result r;

	cli_run(&c, &r, NULL, (const char *[]){ "--help", NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "--time-check PAIRS");
	CHECK_STR_HAS(r.out, "nsight-analyze(1)");
	cli_result_free(&r);
	cli_run(&c, &r, NULL, (const char *[]){ "report", "--help", NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "-m, --messages");
	/* The rest (nearest-rank, what each means) in the man page: test_analyze_doc. */
	CHECK_STR_HAS(r.out, "-c, --clock CLOCK");
	CHECK_STR_HAS(r.out, "nsight-analyze(1)");
	cli_result_free(&r);
}

static void cleanup(void)
{
	static const char *const files[] = { "cap.nsight", "approx.nsight", "noclock.nsight",
					       "badtsc.nsight", NULL };

	CHECK(cli_fini(&c, files) == 0);
}

KTAP_MAIN(
	KTAP_TEST(setup),
	KTAP_TEST(test_text),
	KTAP_TEST(test_clock_domains),
	KTAP_TEST(test_json),
	KTAP_TEST(test_bad_tsc),
	KTAP_TEST(test_help),
	KTAP_TEST(cleanup),
)
