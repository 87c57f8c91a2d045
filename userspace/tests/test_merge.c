// SPDX-License-Identifier: MIT
/*
 * Two hosts' captures merged (lib/merge/merge.c, lib/merge/clockfit.c):
 * synthetic client and server captures of one UDP or TCP request/response
 * flow, the server's clock off the client's by a known offset and drift,
 * with delays injected into known layers of known requests.
 */
#include <json-c/json.h>
#include <math.h>

#include "clirun.h"
#include "merge/clockfit.h"
#include "merge/merge.h"
#include "synth.h"

#define UDP	IPPROTO_UDP
#define TCP	IPPROTO_TCP
#define RECV	NSIGHT_REC_APP_RECV
#define SEND	NSIGHT_REC_APP_SEND

/* Client time = TSC; the server's TSC is server time; both count ns. */
#define T_BASE		1000000ULL
#define PERIOD		10000000ULL	/* 10 ms between requests: 2 s for 200 */
#define N_REQ		200
#define WIRE_MIN	5000
#define INJ_SERVER_APP	50000		/* every 20th request from #3 */
#define INJ_CLIENT_WAKE	40000		/* every 20th request from #13 */
/* Realtime of TSC t on either host (the synthetic clock): t + C. */
#define SYN_C		(SYN_MONO0 - (int64_t)SYN_TK_TSC + SYN_OFFS)

struct twohost {
	struct synth c, s;
	int64_t off_ns;		/* server clock - client clock at true time 0 */
	double drift;		/* server clock runs this much faster */
	uint8_t proto;
	uint64_t rnd;
	uint32_t cseq, sseq;	/* TCP: next byte of each direction */
	bool drop_one;		/* the server misses request #50 */
	bool wire;		/* the modules give wire hashes */
};

static uint32_t next_rand(struct twohost *h)
{
	h->rnd = h->rnd * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(h->rnd >> 33);
}

/* The server's TSC at true time (client TSC) @t. */
static uint64_t srv(const struct twohost *h, uint64_t t)
{
	return (uint64_t)((int64_t)t + h->off_ns + (int64_t)llround(h->drift * (double)t));
}

/* True offset (server - client realtime) at client realtime @x. */
static double true_theta(const struct twohost *h, int64_t x)
{
	return (double)h->off_ns + h->drift * (double)(x - SYN_C);
}

/*
 * A message sent on @s: send, queue, xmit at @t (host TSC). @wire is its
 * packets' wire hash (0: none), the same on both hosts.
 */
static void send_msg(struct synth *s, uint64_t t, uint64_t sock_id, struct nsight_flow sock,
		     struct nsight_flow pkt, uint64_t id, uint32_t seq, uint32_t wire,
		     const char *comm)
{
	synth_app(s, SEND, 0, t, sock_id, sock, 64, seq, 11, 10, comm);
	synth_pkt_wire(s, 0, t + 300, NSIGHT_PKT_TX_QUEUE, id, pkt, seq, 64, 0, wire);
	synth_pkt_wire(s, 0, t + 600, NSIGHT_PKT_TX_XMIT, id, pkt, seq, 64, 0, wire);
}

/* A message arriving on @s at @n (host TSC), received at @a. */
static void recv_msg(struct synth *s, uint64_t n, uint64_t a, uint64_t sock_id,
		     struct nsight_flow sock, struct nsight_flow pkt, uint64_t id, uint32_t seq,
		     uint32_t wire, const char *comm)
{
	synth_pkt_wire(s, 1, n, NSIGHT_PKT_RX_GRO, id, pkt, seq, 64, 0, wire);
	synth_pkt_wire(s, 1, n + 200, NSIGHT_PKT_RX_RECEIVE, id, pkt, seq, 64, 0, wire);
	synth_handoff(s, 1, n + 700, sock_id, sock, id, seq + 64);
	if (pkt.protocol == UDP)
		synth_copy(s, 0, a - 500, id, 11, 10, 64);
	synth_app(s, RECV, 0, a, sock_id, sock, 64, pkt.protocol == TCP ? seq + 64 : 0, 11, 10,
		  comm);
}

/* Request i: its injected delays and the layer they should be found in. */
static int64_t inj_server(size_t i)
{
	return i % 20 == 3 ? INJ_SERVER_APP : 0;
}

static int64_t inj_client(size_t i)
{
	return i % 20 == 13 ? INJ_CLIENT_WAKE : 0;
}

static void build(struct twohost *h, int64_t off_ns, double drift, uint8_t proto)
{
	struct nsight_flow req = flow4("10.0.0.1", 5000, "10.0.0.2", 9000, proto);
	struct nsight_flow rsp = flow4("10.0.0.2", 9000, "10.0.0.1", 5000, proto);
	/* The client's socket is connected; the UDP server's is not. */
	struct nsight_flow csock = req;
	struct nsight_flow ssock = proto == TCP ? rsp : flow4(NULL, 9000, NULL, 0, proto);
	/* Its sendto() names the peer, which the send record carries. */
	struct nsight_flow ssend = proto == TCP ? rsp : flow4(NULL, 9000, "10.0.0.1", 5000, proto);
	size_t i;

	h->off_ns = off_ns;
	h->drift = drift;
	h->proto = proto;
	h->rnd = 42;
	h->cseq = 1000;
	h->sseq = 7000000;
	synth_init(&h->c, 2);
	synth_init(&h->s, 2);
	synth_queue(&h->c);
	synth_queue(&h->s);
	synth_tk(&h->c, 0, SYN_TK_TSC);
	synth_tk(&h->s, 0, SYN_TK_TSC);
	for (i = 0; i < N_REQ; i++) {
		uint64_t t = T_BASE + i * PERIOD + next_rand(h) % 200000;
		uint64_t w1 = WIRE_MIN + next_rand(h) % 3000, w2 = WIRE_MIN + next_rand(h) % 3000;
		uint64_t sn = t + 600 + w1;			/* true times */
		uint64_t sa = sn + 2000 + next_rand(h) % 500;
		uint64_t ss = sa + 3000 + (uint64_t)inj_server(i);
		uint64_t cn = ss + 600 + w2;
		uint64_t ca = cn + 2000 + next_rand(h) % 500 + (uint64_t)inj_client(i);
		uint64_t id = 0x1000 + i;
		/* Per-host pkt_ids differ; wire hashes do not. */
		uint32_t wq = h->wire ? 0xa0000000u + (uint32_t)i : 0;
		uint32_t wr = h->wire ? 0xb0000000u + (uint32_t)i : 0;

		send_msg(&h->c, t, 0x71, csock, req, id, h->cseq, wq, "client");
		if (!(h->drop_one && i == 50)) {
			recv_msg(&h->s, srv(h, sn), srv(h, sa), 0x81, ssock, req, id + 0x50000,
				 h->cseq, wq, "server");
			send_msg(&h->s, srv(h, ss), 0x81, ssend, rsp, id + 0x90000, h->sseq, wr,
				 "server");
			recv_msg(&h->c, cn, ca, 0x71, csock, rsp, id + 0xd0000, h->sseq, wr,
				 "client");
		}
		h->cseq += 64;
		h->sseq += 64;
	}
	synth_flush(&h->c);
	synth_flush(&h->s);
}

struct merged {
	struct nsight_analysis a, b;
	struct nsight_merge m;
};

static int merge_opts(struct twohost *h, struct merged *x, const struct nsight_merge_opts *o)
{
	struct nsight_diag d = { 0 };

	memset(x, 0, sizeof(*x));
	if (synth_analyze(&h->c, &x->a) || synth_analyze(&h->s, &x->b))
		return -1;
	return nsight_merge_build(&x->m, &x->a.lt, &x->b.lt, o, &d);
}

static int merge_them(struct twohost *h, struct merged *x)
{
	/* p90.5 of 200: the 20 slowest (nearest rank 181, and those above). */
	struct nsight_merge_opts o = { .tail = 90500 };

	return merge_opts(h, x, &o);
}

static void merged_fini(struct merged *x)
{
	nsight_merge_fini(&x->m);
	nsight_analysis_fini(&x->a);
	nsight_analysis_fini(&x->b);
}

/*
 * --synced: clocks given as synchronised. Truly synchronised (offset 0,
 * no drift), the pairs agree and nothing is clamped; 2 ms apart while
 * given as within 10 us, they disagree, wire times that would be negative
 * are clamped, and the estimate still finds the 2 ms.
 */
static void test_synced(void)
{
	struct nsight_merge_opts o = { .tail = 90500, .synced = true, .synced_ns = 10000 };
	struct twohost h = { 0 };
	struct merged x;

	build(&h, 0, 0, UDP);
	REQUIRE(merge_opts(&h, &x, &o) == 0);
	CHECK(x.m.given && x.m.have_fit);
	CHECK(x.m.fit.consistent);
	CHECK(x.m.fit.offset == 0 && x.m.fit.drift == 0);
	CHECK_U64(x.m.clamped, 0);
	CHECK_U64(x.m.layers[NSIGHT_L_SERVER_APP].main, 10);
	merged_fini(&x);
	synth_free(&h.c);
	synth_free(&h.s);

	build(&h, 2000000, 0, UDP);
	REQUIRE(merge_opts(&h, &x, &o) == 0);
	CHECK(!x.m.fit.consistent);
	CHECK(x.m.fit.violation > 2000000 - 10000 - 2 * (WIRE_MIN + 3000));
	CHECK_U64(x.m.clamped, N_REQ);
	CHECK(fabs(x.m.estimate.offset - 2000000) < 1000);
	merged_fini(&x);
	synth_free(&h.c);
	synth_free(&h.s);
}

/* The checks every clean run passes. */
static void check_run(struct twohost *h, struct merged *x)
{
	const struct nsight_merge *m = &x->m;
	const struct nsight_clockfit *f = &m->fit;
	double truth;
	size_t i, k;
	int l;

	CHECK_U64(m->n, N_REQ);
	CHECK_U64(m->by_state[NSIGHT_REQ_COMPLETE], N_REQ);
	CHECK_U64(m->server_rx_unmatched, 0);
	CHECK_U64(m->clamped, 0);
	REQUIRE(m->have_fit);
	CHECK(f->consistent);
	CHECK_U64(f->n, N_REQ);
	truth = true_theta(h, f->x0);
	printf("# offset %.1f ns, bound [%.1f, %.1f], true %.1f; drift %.3f ppm [%.3f, %.3f], true %.3f\n",
	       f->offset, f->offset_lo, f->offset_hi, truth, f->drift * 1e6, f->drift_lo * 1e6,
	       f->drift_hi * 1e6, h->drift * 1e6);
	CHECK(f->offset_lo <= truth && truth <= f->offset_hi);
	CHECK(f->offset_lo <= f->offset && f->offset <= f->offset_hi);
	/* Pairs with wire times near WIRE_MIN both ways bound it tightly. */
	CHECK(f->offset_hi - f->offset_lo < 2 * WIRE_MIN + 1000);
	CHECK(fabs(f->offset - truth) < 1000);
	CHECK(f->drift_lo <= h->drift && h->drift <= f->drift_hi);
	CHECK(fabs(f->drift - h->drift) < 1e-6);
	for (i = 0; i < m->n; i++) {
		const struct nsight_request *r = &m->reqs[i];

		for (l = 0; l < __NSIGHT_L_COUNT; l++)
			CHECK(r->layer_ns[l] >= 0);
		CHECK(r->layer_ns[NSIGHT_L_WIRE_OUT] >= WIRE_MIN - 1000);
		CHECK(r->layer_ns[NSIGHT_L_WIRE_BACK] >= WIRE_MIN - 1000);
	}
	/* The tail (p90 of 200: 20) is the 20 requests with a delay. */
	CHECK_U64(m->n_tail, 20);
	CHECK_U64(m->layers[NSIGHT_L_SERVER_APP].main, 10);
	CHECK_U64(m->layers[NSIGHT_L_CLIENT_WAKE].main, 10);
	for (k = 0; k < m->n_tail; k++) {
		const struct nsight_request *r = &m->reqs[m->tail[k]];
		size_t idx = m->tail[k];	/* one flow: requests in send order */
		enum nsight_layer want = inj_server(idx) ? NSIGHT_L_SERVER_APP :
					 NSIGHT_L_CLIENT_WAKE;

		CHECK(inj_server(idx) || inj_client(idx));
		CHECK_U64(nsight_request_main_layer(m, r), want);
	}
	CHECK(m->layers[NSIGHT_L_SERVER_APP].dev_ns > 10 * (INJ_SERVER_APP - 2000));
	CHECK(m->layers[NSIGHT_L_CLIENT_WAKE].dev_ns > 10 * (INJ_CLIENT_WAKE - 2000));
}

/* Build, merge and check a clean run. */
static void clean_run(int64_t off_ns, double drift, uint8_t proto)
{
	struct twohost h = { 0 };
	struct merged x;

	build(&h, off_ns, drift, proto);
	if (merge_them(&h, &x) == 0)
		check_run(&h, &x);
	else
		CHECK(!"merge failed");
	merged_fini(&x);
	synth_free(&h.c);
	synth_free(&h.s);
}

/* UDP, the server 37 s ahead and 25 ppm fast. */
static void test_udp_ahead(void)
{
	clean_run(37000000000LL, 25e-6, UDP);
}

/* UDP, the server behind by 0.5 ms and 40 ppm slow (its TSC still > 0). */
static void test_udp_behind(void)
{
	clean_run(-500000LL, -40e-6, UDP);
}

/* TCP: joined by sequence numbers. */
static void test_tcp(void)
{
	clean_run(5000000000LL, 10e-6, TCP);
}

/*
 * A request the server never saw (#50): joined by key (TCP's sequence
 * number, UDP's wire hash) it alone is "no-server-rx", every other request
 * is joined and timed right.
 */
static void lost_run(int64_t off_ns, double drift, uint8_t proto, bool wire)
{
	struct twohost h = { .drop_one = true, .wire = wire };
	struct merged x;

	build(&h, off_ns, drift, proto);
	REQUIRE(merge_them(&h, &x) == 0);
	CHECK_U64(x.m.n, N_REQ);
	CHECK_U64(x.m.by_state[NSIGHT_REQ_COMPLETE], N_REQ - 1);
	CHECK_U64(x.m.by_state[NSIGHT_REQ_NO_SERVER_RX], 1);
	CHECK(x.m.reqs[50].state == NSIGHT_REQ_NO_SERVER_RX);
	CHECK(x.m.fit.consistent);
	CHECK(x.m.fit.offset_lo <= true_theta(&h, x.m.fit.x0) &&
	      true_theta(&h, x.m.fit.x0) <= x.m.fit.offset_hi);
	CHECK_U64(x.m.clamped, 0);
	merged_fini(&x);
	synth_free(&h.c);
	synth_free(&h.s);
}

static void test_tcp_lost(void)
{
	lost_run(5000000000LL, 10e-6, TCP, false);
}

/*
 * UDP from modules without wire hashes joins by order: with a datagram the
 * server missed, order would join the wrong ones from there on, and
 * closed-loop timing would not show it. The flow is reported ambiguous
 * instead.
 */
static void test_udp_lost(void)
{
	struct twohost h = { .drop_one = true };
	struct merged x;

	build(&h, 37000000000LL, 25e-6, UDP);
	REQUIRE(merge_them(&h, &x) == 0);
	CHECK_U64(x.m.by_state[NSIGHT_REQ_COMPLETE], 0);
	CHECK_U64(x.m.by_state[NSIGHT_REQ_AMBIGUOUS], N_REQ);
	CHECK(!x.m.have_fit);
	merged_fini(&x);
	synth_free(&h.c);
	synth_free(&h.s);
}

/* With wire hashes UDP joins per datagram, like TCP. */
static void test_udp_wire_lost(void)
{
	lost_run(37000000000LL, 25e-6, UDP, true);
}

/* The fit alone: exact symmetric pairs, one pair, crossing bounds. */
static void test_clockfit(void)
{
	struct nsight_clock_pair p[3] = {
		{ 1000, 1000 + 500 + 100, 1000 + 500 + 200, 1000 + 300 },
		{ 2000, 2000 + 500 + 150, 2000 + 500 + 250, 2000 + 400 },
		{ 3000, 3000 + 500 + 100, 3000 + 500 + 200, 3000 + 300 },
	};
	struct nsight_clockfit f;

	/* Wire 100 both ways, offset 500: bounds [400, 600] at every pair. */
	REQUIRE(nsight_clockfit(&f, p, 3) == 0);
	CHECK(f.consistent);
	CHECK(fabs(f.offset - 500) < 1);
	CHECK(f.offset_lo <= 500 && f.offset_hi >= 500);
	CHECK(f.offset_lo > 390 && f.offset_hi < 610);
	CHECK(fabs(f.drift) < 1e-6);
	CHECK_U64(nsight_clockfit_to_a(&f, 2500), 2000);

	REQUIRE(nsight_clockfit(&f, p, 1) == 0);
	CHECK(f.consistent);
	CHECK(f.drift == 0);
	CHECK(fabs(f.offset_lo - 400) < 1e-6 && fabs(f.offset_hi - 600) < 1e-6);

	/* The third pair's server stamps 1000 late: its request bound says
	 * theta <= 1600, its response bound theta >= 1400; the others
	 * say <= 600.
	 */
	p[2].t2 += 1000;
	p[2].t3 += 1000;
	REQUIRE(nsight_clockfit(&f, p, 3) == 0);
	CHECK(!f.consistent);
	CHECK(f.violation > 0);
	CHECK(nsight_clockfit(&f, p, 0) == -1);
}

/* nsight-analyze --merge on files: JSON and text, and the usage errors. */
static void test_cli(void)
{
	static const char *const files[] = { "c.nsight", "s.nsight", NULL };
	struct twohost h = { 0 };
	struct cli_result r;
	struct json_object *j, *v, *clock;
	const char *cf, *sf;
	struct cli c;

	REQUIRE(cli_init(&c) == 0);
	build(&h, 37000000000LL, 25e-6, UDP);
	cf = cli_file(&c, "c.nsight");
	REQUIRE(synth_save(&h.c, cf) == 0);
	sf = cli_file(&c, "s.nsight");
	REQUIRE(synth_save(&h.s, sf) == 0);

	cli_run(&c, &r, NULL, (const char *[]){ "--merge", "--json", cf, sf, NULL });
	CHECK_U64(r.status, 0);
	j = r.out ? json_tokener_parse(r.out) : NULL;
	REQUIRE(j);
	CHECK(json_object_object_get_ex(j, "requests", &v) && json_object_get_int64(v) == N_REQ);
	CHECK(json_object_object_get_ex(j, "clamped", &v) && json_object_get_int64(v) == 0);
	REQUIRE(json_object_object_get_ex(j, "clock", &clock));
	CHECK(json_object_object_get_ex(clock, "consistent", &v) && json_object_get_boolean(v));
	CHECK(json_object_object_get_ex(clock, "offset_lo_ns", &v) &&
	      json_object_get_double(v) > 36.99e9);
	json_object_put(j);
	cli_result_free(&r);

	cli_run(&c, &r, NULL, (const char *[]){ "--merge", cf, sf, NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "requests: 200 client sends, 200 complete; 0 server arrivals no client send joined");
	CHECK_STR_HAS(r.out, "(every pair within)");
	CHECK_STR_HAS(r.out, "server app     server");
	CHECK_STR_HAS(r.out, "most in server app (server, +");
	/* The command: the same. */
	{
		struct cli_result m;

		cli_run(&c, &m, NULL, (const char *[]){ "merge", cf, sf, NULL });
		CHECK_U64(m.status, 0);
		CHECK(r.out && m.out && !strcmp(r.out, m.out));
		cli_result_free(&m);
		cli_run(&c, &m, NULL, (const char *[]){ "merge", "--tail", "p20-p30", cf, sf, NULL });
		CHECK_U64(m.status, 2);
		CHECK_STR_HAS(m.err, "nsight-analyze merge: merge takes a tail pN, not a band\n");
		cli_result_free(&m);
	}
	cli_result_free(&r);

	cli_run(&c, &r, NULL, (const char *[]){ "--merge", "--synced", "1000", cf, sf, NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "clock: given as synchronised within 1.000 us (--synced): the pairs DISAGREE");
	cli_result_free(&r);
	cli_run(&c, &r, NULL, (const char *[]){ "--synced", "1000", cf, NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "--synced goes with --merge");
	cli_result_free(&r);
	cli_run(&c, &r, NULL, (const char *[]){ "--merge", "--synced", "-3", cf, sf, NULL });
	CHECK_U64(r.status, 2);
	cli_result_free(&r);
	cli_run(&c, &r, NULL, (const char *[]){ "--merge", cf, NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "--merge takes two captures");
	cli_result_free(&r);
	cli_run(&c, &r, NULL, (const char *[]){ "--merge", "--html", "x.html", cf, sf, NULL });
	CHECK_U64(r.status, 2);
	cli_result_free(&r);
	cli_run(&c, &r, NULL, (const char *[]){ "--merge", cf, "/nonexistent/s.nsight", NULL });
	CHECK_U64(r.status, 1);
	CHECK_STR_HAS(r.err, "/nonexistent/s.nsight");
	cli_result_free(&r);

	CHECK(cli_fini(&c, files) == 0);
	synth_free(&h.c);
	synth_free(&h.s);
}

KTAP_MAIN(
	KTAP_TEST(test_clockfit),
	KTAP_TEST(test_udp_ahead),
	KTAP_TEST(test_udp_behind),
	KTAP_TEST(test_tcp),
	KTAP_TEST(test_tcp_lost),
	KTAP_TEST(test_udp_lost),
	KTAP_TEST(test_udp_wire_lost),
	KTAP_TEST(test_synced),
	KTAP_TEST(test_cli),
)
