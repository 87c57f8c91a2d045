// SPDX-License-Identifier: MIT
/*
 * The diagnosis end to end: nsight-analyze on synthetic workloads, each
 * with one injected cause (scenario.h), must name that cause first, in
 * text and in JSON; the reference, tail, threshold and category options.
 */
#include <json-c/json.h>

#include "clirun.h"
#include "scenario.h"

static struct cli c;

/* The files made in the temporary directory. */
static const char *const files[] = {
	"hog", "netrx", "netrx_app", "kworker", "fault", "idleirq", "small", "hol", "clean",
	"allhog", "drop", "client", "tx", "nocontext", "cats.csv", "bad.csv", "harm", "nest_softirq",
	"nest_irq", "nagle", "cwnd", "rwnd", "sndbuf", "noack", "flood", "hole", "rto", "fastre", "rcvbuf", "tail_rwnd", "tail_cwnd",
	"tail_nagle", "txq", "nic", NULL,
};

static const char *path(const char *name)
{
	static char buf[8][192];
	static int k;

	k = (k + 1) % 8;
	return cli_path(&c, name, buf[k], sizeof(buf[k]));
}

static void save_run(const char *name, const char *comm, size_t n, enum scen_kind kind,
		     size_t every, size_t first)
{
	struct scen sc;

	scen_init(&sc, comm);
	scen_run(&sc, n, kind, every, first);
	CHECK(scen_save(&sc, path(name)) == 0);
}

/*
 * TX: "client" (pid 200) sends a datagram on CPU 1 every @period ns. With
 * @stress, every 8th is preempted by "stress" for 30 us between the send
 * and the xmit ("tx"); without, every 4th leaves the qdisc for the driver
 * 5 ms later, on CPU 0 ("txq": the transmit queue held it).
 */
static void save_tx(const char *name, uint64_t period, bool stress)
{
	struct syn_task client = { 201, 200, "client" };
	struct nsight_flow f = flow4("10.0.0.2", 6000, "10.0.0.9", 7000, IPPROTO_UDP);
	struct synth s;
	uint64_t t = 100000;
	int i;

	synth_init(&s, 2);
	synth_queue(&s);
	synth_tk(&s, 0, SYN_TK_TSC);
	synth_switch(&s, 1, 100, sc_swapper1, client);
	for (i = 0; i < 40; i++, t += period) {
		uint64_t xmit = t + 900;
		uint32_t cpu = 1;

		synth_app(&s, NSIGHT_REC_APP_SEND, 1, t, 0x81, f, 64, 0, client.tid, client.pid,
			  "client");
		synth_pkt(&s, 1, t + 400, NSIGHT_PKT_TX_QUEUE, 0x9000 + i, f, 0, 64, 0);
		if (stress && i % 8 == 7) {
			synth_switch(&s, 1, t + 500, client, sc_stress);
			synth_switch(&s, 1, t + 30500, sc_stress, client);
			xmit = t + 30900;
		} else if (!stress && i % 4 == 3) {
			xmit = t + 5000400;
			cpu = 0;
		}
		synth_pkt(&s, cpu, xmit, NSIGHT_PKT_TX_XMIT, 0x9000 + i, f, 0, 64, 0);
	}
	synth_flush(&s);
	CHECK(synth_save(&s, path(name)) == 0);
	synth_free(&s);
}

/*
 * TCP: "client" (pid 300) on CPU 1 writes each request in two 32-byte
 * writes, Nagle on, every 100 ms. Normally the peer's ACK of the first
 * comes before the second write, which goes out at once. In every 8th,
 * the second write finds the first in flight (@held: the sender's state
 * then) and its segment leaves only when the ACK comes, 40 ms later, in
 * the softirq that receives it.
 */
static void save_tcp_held(const char *name, const struct nsight_tcp_send_state *held)
{
	struct syn_task client = { 301, 300, "client" };
	struct nsight_flow f = flow4("10.0.0.2", 6000, "10.0.0.9", 7000, IPPROTO_TCP);
	struct nsight_flow back = flow4("10.0.0.9", 7000, "10.0.0.2", 6000, IPPROTO_TCP);
	struct nsight_tcp_send_state idle_st = {
		.snd_wnd = 65535, .snd_cwnd = 10, .mss = 1448, .sndbuf = 87040, .srtt_us = 100,
	};
	struct synth s;
	uint64_t t = 1000000, id = 0x7000;
	uint32_t seq = 1000;
	int i;

	synth_init(&s, 2);
	synth_queue(&s);
	synth_tk(&s, 0, SYN_TK_TSC);
	synth_switch(&s, 1, 100, sc_swapper1, client);
	for (i = 0; i < 40; i++, t += 100000000, seq += 64) {
		struct nsight_tcp_send_state st = idle_st;
		uint64_t ack = i % 8 == 7 ? t + 40000000 : t + 1500;

		if (i)
			synth_switch(&s, 1, t - 100, sc_swapper1, client);
		st.snd_una = st.snd_nxt = seq;
		synth_send_tcp(&s, 1, t, 0x71, f, 32, seq, client.tid, client.pid, "client", &st);
		synth_pkt(&s, 1, t + 400, NSIGHT_PKT_TX_QUEUE, ++id, f, seq, 32, 0);
		synth_pkt(&s, 1, t + 900, NSIGHT_PKT_TX_XMIT, id, f, seq, 32, 0);
		if (i % 8 != 7) {
			/* The ACK first (an interrupt in the client), then the write. */
			synth_softirq(&s, 1, ack - 300, SYN_NET_RX, true);
			synth_pkt(&s, 1, ack, NSIGHT_PKT_RX_RECEIVE, ++id, back, 5000, 0, 0);
			synth_softirq(&s, 1, ack + 300, SYN_NET_RX, false);
			st.snd_una = st.snd_nxt = seq + 32;
			synth_send_tcp(&s, 1, t + 2000, 0x71, f, 32, seq + 32, client.tid, client.pid,
				       "client", &st);
			synth_pkt(&s, 1, t + 2400, NSIGHT_PKT_TX_QUEUE, ++id, f, seq + 32, 32, 0);
			synth_pkt(&s, 1, t + 2900, NSIGHT_PKT_TX_XMIT, id, f, seq + 32, 32, 0);
			synth_switch(&s, 1, t + 3500, client, sc_swapper1);
			synth_idle(&s, 1, t + 3600, true);
			synth_idle(&s, 1, t + 99999000, false);
			continue;
		}
		st = *held;
		st.snd_una = seq;
		st.snd_nxt = seq + 32;
		synth_send_tcp(&s, 1, t + 2000, 0x71, f, 32, seq + 32, client.tid, client.pid, "client",
			       &st);
		synth_switch(&s, 1, t + 3500, client, sc_swapper1);
		synth_idle(&s, 1, t + 3600, true);
		synth_idle(&s, 1, ack - 400, false);
		synth_softirq(&s, 1, ack - 300, SYN_NET_RX, true);
		synth_pkt(&s, 1, ack, NSIGHT_PKT_RX_RECEIVE, ++id, back, 5000, 0, 0);
		synth_pkt(&s, 1, ack + 50, NSIGHT_PKT_TX_QUEUE, ++id, f, seq + 32, 32, 0);
		synth_pkt(&s, 1, ack + 300, NSIGHT_PKT_TX_XMIT, id, f, seq + 32, 32, 0);
		synth_softirq(&s, 1, ack + 400, SYN_NET_RX, false);
		synth_idle(&s, 1, ack + 500, true);
		synth_idle(&s, 1, t + 99999000, false);
	}
	synth_flush(&s);
	CHECK(synth_save(&s, path(name)) == 0);
	synth_free(&s);
}

/*
 * TCP retransmissions: "srv" (pid 700) on CPU 1 answers every 300 ms with
 * one 64-byte segment, TCP_NODELAY, and the peer's ACK comes 1.5 ms later.
 * Every 8th reply is lost: with @fast, it left the host and was lost on
 * the wire, and the peer's duplicate ACK 30 ms later (received on CPU 1)
 * prompts the copy; without, the qdisc dropped it (no xmit) and the timer
 * sends the copy 210 ms later, in a TIMER softirq.
 */
static void save_tcp_resent(const char *name, bool fast)
{
	struct syn_task srv = { 701, 700, "srv" };
	struct nsight_flow f = flow4("10.0.0.2", 80, "10.0.0.1", 40000, IPPROTO_TCP);
	struct nsight_flow back = flow4("10.0.0.1", 40000, "10.0.0.2", 80, IPPROTO_TCP);
	struct nsight_tcp_send_state st = {
		.snd_wnd = 65535, .snd_cwnd = 10, .mss = 1448, .sndbuf = 87040, .srtt_us = 100,
		.nonagle = NSIGHT_TCP_NAGLE_OFF,
	};
	struct synth s;
	uint64_t t = 1000000, id = 0xa000;
	uint32_t seq = 9000;
	int i;

	synth_init(&s, 2);
	synth_queue(&s);
	synth_tk(&s, 0, SYN_TK_TSC);
	synth_idle(&s, 1, 200, true);
	for (i = 0; i < 40; i++, t += 300000000, seq += 64) {
		bool lost = i % 8 == 7;
		uint64_t re = t + (fast ? 30000000 : 210000000), ack = (lost ? re : t) + 1500;

		synth_idle(&s, 1, t - 1000, false);
		synth_switch(&s, 1, t - 900, sc_swapper1, srv);
		st.snd_una = st.snd_nxt = seq;
		synth_send_tcp(&s, 1, t, 0x72, f, 64, seq, srv.tid, srv.pid, "srv", &st);
		synth_pkt(&s, 1, t + 400, NSIGHT_PKT_TX_QUEUE, ++id, f, seq, 64, 0);
		if (!lost || fast)
			synth_pkt(&s, 1, t + 900, NSIGHT_PKT_TX_XMIT, id, f, seq, 64, 0);
		synth_switch(&s, 1, t + 1000, srv, sc_swapper1);
		synth_idle(&s, 1, t + 1100, true);
		if (lost) {
			synth_idle(&s, 1, re - 1000, false);
			synth_softirq(&s, 1, re - 900, fast ? SYN_NET_RX : SYN_TIMER, true);
			if (fast)
				synth_pkt(&s, 1, re - 300, NSIGHT_PKT_RX_RECEIVE, 0xf000 + i, back, 5000,
					  0, 0);
			synth_pkt(&s, 1, re, NSIGHT_PKT_TX_QUEUE, id, f, seq, 64, 0);
			synth_pkt(&s, 1, re + 500, NSIGHT_PKT_TX_XMIT, id, f, seq, 64, 0);
			synth_softirq(&s, 1, re + 600, fast ? SYN_NET_RX : SYN_TIMER, false);
			synth_idle(&s, 1, re + 700, true);
		}
		synth_idle(&s, 1, ack - 400, false);
		synth_softirq(&s, 1, ack - 300, SYN_NET_RX, true);
		synth_pkt(&s, 1, ack, NSIGHT_PKT_RX_RECEIVE, 0xe000 + i, back, 5000, 0, 0);
		synth_softirq(&s, 1, ack + 300, SYN_NET_RX, false);
		synth_idle(&s, 1, ack + 400, true);
	}
	synth_flush(&s);
	CHECK(synth_save(&s, path(name)) == 0);
	synth_free(&s);
}

/*
 * The rest of a write held: "srv" (pid 800) on CPU 1 answers every 100 ms
 * with 2,000 bytes, two segments (1,448 and 552). Normally the second
 * follows the first at once; in every 8th it is queued only when a packet
 * of the peer comes 40 ms later (on CPU 1), the sender's state at the
 * write (@st) saying why.
 */
static void save_tcp_tail(const char *name, const struct nsight_tcp_send_state *st0)
{
	struct syn_task srv = { 801, 800, "srv" };
	struct nsight_flow f = flow4("10.0.0.2", 80, "10.0.0.1", 40000, IPPROTO_TCP);
	struct nsight_flow back = flow4("10.0.0.1", 40000, "10.0.0.2", 80, IPPROTO_TCP);
	struct synth s;
	uint64_t t = 1000000, id = 0xb000;
	uint32_t seq = 7000;
	int i;

	synth_init(&s, 2);
	synth_queue(&s);
	synth_tk(&s, 0, SYN_TK_TSC);
	synth_idle(&s, 1, 200, true);
	for (i = 0; i < 40; i++, t += 100000000, seq += 2000) {
		struct nsight_tcp_send_state st = *st0;
		/* The peer's packet: the window update or ACK (after the rest normally). */
		uint64_t rest = i % 8 == 7 ? t + 40000000 : t + 1400;
		uint64_t peer = i % 8 == 7 ? rest - 300 : t + 3500;

		st.snd_una = st.snd_nxt = seq;
		synth_idle(&s, 1, t - 1000, false);
		synth_switch(&s, 1, t - 900, sc_swapper1, srv);
		synth_send_tcp(&s, 1, t, 0x73, f, 2000, seq, srv.tid, srv.pid, "srv", &st);
		synth_pkt(&s, 1, t + 400, NSIGHT_PKT_TX_QUEUE, ++id, f, seq, 1448, 0);
		synth_pkt(&s, 1, t + 900, NSIGHT_PKT_TX_XMIT, id, f, seq, 1448, 0);
		if (i % 8 != 7) {
			synth_pkt(&s, 1, rest, NSIGHT_PKT_TX_QUEUE, ++id, f, seq + 1448, 552, 0);
			synth_pkt(&s, 1, rest + 500, NSIGHT_PKT_TX_XMIT, id, f, seq + 1448, 552, 0);
		}
		synth_switch(&s, 1, t + 2000, srv, sc_swapper1);
		synth_idle(&s, 1, t + 2100, true);
		synth_idle(&s, 1, peer - 700, false);
		synth_softirq(&s, 1, peer - 600, SYN_NET_RX, true);
		synth_pkt(&s, 1, peer, NSIGHT_PKT_RX_RECEIVE, 0xf000 + i, back, 5000, 0, 0);
		if (i % 8 == 7) {
			synth_pkt(&s, 1, rest, NSIGHT_PKT_TX_QUEUE, ++id, f, seq + 1448, 552, 0);
			synth_pkt(&s, 1, rest + 500, NSIGHT_PKT_TX_XMIT, id, f, seq + 1448, 552, 0);
		}
		synth_softirq(&s, 1, peer + 900, SYN_NET_RX, false);
		synth_idle(&s, 1, peer + 1000, true);
	}
	synth_flush(&s);
	CHECK(synth_save(&s, path(name)) == 0);
	synth_free(&s);
}

/*
 * TCP receive: "srv" (pid 500) on CPU 1 reads a 64-byte request every
 * 100 ms, received on CPU 0. In every 8th, the second half of the request
 * arrives first and the first half 30 ms later (a fast retransmit): the
 * bytes wait for it.
 */
static void save_tcp_hole(void)
{
	struct syn_task srv = { 501, 500, "srv" };
	struct nsight_flow sock = flow4("10.0.0.2", 80, "10.0.0.1", 40000, IPPROTO_TCP);
	struct nsight_flow pkt = flow4("10.0.0.1", 40000, "10.0.0.2", 80, IPPROTO_TCP);
	struct synth s;
	uint64_t t = 1000000, id = 0x8000;
	uint32_t seq = 5000;
	int i;

	synth_init(&s, 2);
	synth_queue(&s);
	synth_tk(&s, 0, SYN_TK_TSC);
	synth_idle(&s, 0, 200, true);
	synth_switch(&s, 1, 100, srv, sc_swapper1);
	synth_idle(&s, 1, 200, true);
	for (i = 0; i < 40; i++, t += 100000000, seq += 64) {
		uint64_t h = t + 1000;

		synth_idle(&s, 0, t - 500, false);
		synth_softirq(&s, 0, t - 400, SYN_NET_RX, true);
		if (i % 8 == 7) {
			synth_pkt(&s, 0, t, NSIGHT_PKT_RX_RECEIVE, ++id, pkt, seq + 32, 32, 0);
			synth_softirq(&s, 0, t + 400, SYN_NET_RX, false);
			synth_idle(&s, 0, t + 500, true);
			h = t + 30000000;
			synth_idle(&s, 0, h - 1500, false);
			synth_softirq(&s, 0, h - 1400, SYN_NET_RX, true);
			synth_pkt(&s, 0, h - 1000, NSIGHT_PKT_RX_RECEIVE, ++id, pkt, seq, 32, 0);
		} else {
			synth_pkt(&s, 0, t, NSIGHT_PKT_RX_RECEIVE, ++id, pkt, seq, 64, 0);
		}
		synth_handoff(&s, 0, h, 0x91, sock, id, seq + 64);
		synth_softirq(&s, 0, h + 300, SYN_NET_RX, false);
		synth_idle(&s, 0, h + 400, true);
		synth_idle(&s, 1, h + 900, false);
		synth_switch(&s, 1, h + 1000, sc_swapper1, srv);
		synth_app(&s, NSIGHT_REC_APP_RECV, 1, h + 2000, 0x91, sock, 64, seq + 64, srv.tid,
			  srv.pid, "srv");
		synth_switch(&s, 1, h + 3000, srv, sc_swapper1);
		synth_idle(&s, 1, h + 3100, true);
	}
	synth_flush(&s);
	CHECK(synth_save(&s, path("hole")) == 0);
	synth_free(&s);
}

/* Lifetimes but no context records at all. */
static void save_nocontext(void)
{
	struct nsight_flow sock = flow4(NULL, 9000, NULL, 0, IPPROTO_UDP);
	struct nsight_flow pkt = flow4("10.0.0.1", 5000, "10.0.0.2", 9000, IPPROTO_UDP);
	struct synth s;

	synth_init(&s, 2);
	synth_tk(&s, 0, SYN_TK_TSC);
	synth_pkt(&s, 1, 10000, NSIGHT_PKT_RX_GRO, 0xa1, pkt, 0, 64, 0);
	synth_handoff(&s, 1, 11000, 0x51, sock, 0xa1, 0);
	synth_copy(&s, 0, 12000, 0xa1, 101, 100, 64);
	synth_app(&s, NSIGHT_REC_APP_RECV, 0, 12500, 0x51, sock, 64, 0, 101, 100, "server");
	CHECK(synth_save(&s, path("nocontext")) == 0);
	synth_free(&s);
}

static int write_file(const char *p, const char *text)
{
	FILE *f = fopen(p, "w");
	int ok = f && fputs(text, f) >= 0;

	if (f && fclose(f))
		ok = 0;
	return ok ? 0 : -1;
}

static void setup(void)
{
	struct scen sc;
	int i;

	REQUIRE(cli_init(&c) == 0);
	/* 40 messages, every 8th slow: 5 of 40, the tail at p90. */
	save_run("hog", "server", 40, SC_HOG, 8, 7);
	save_run("netrx", "server", 40, SC_NETRX, 8, 7);
	save_run("netrx_app", "server", 40, SC_NETRX_APP, 8, 7);
	save_run("kworker", "server", 40, SC_KWORKER, 8, 7);
	save_run("fault", "server", 40, SC_FAULT, 8, 7);
	save_run("idleirq", "server", 40, SC_IDLE_IRQ, 8, 7);
	save_run("small", "server", 40, SC_SMALL, 8, 7);
	/* Clean: the server's time jitters by 0 to 810 ns, under the granularity. */
	scen_init(&sc, "server");
	for (i = 0; i < 40; i++) {
		sc.jitter = (i * 37 % 10) * 90;
		scen_msg(&sc, SC_NORMAL);
	}
	CHECK(scen_save(&sc, path("clean")) == 0);
	save_run("allhog", "server", 40, SC_HOG, 1, 0);
	/* Hardware stamps: every 8th packet waited 40 us in the NIC. */
	scen_init(&sc, "server");
	scen_hw(&sc);
	scen_run(&sc, 40, SC_NIC, 8, 7);
	CHECK(scen_save(&sc, path("nic")) == 0);
	save_run("client", "client", 40, SC_NORMAL, 0, 0);
	/* 30 alone, then two batches of 5. */
	scen_init(&sc, "server");
	scen_run(&sc, 30, SC_NORMAL, 0, 0);
	scen_batch(&sc, 5);
	scen_batch(&sc, 5);
	CHECK(scen_save(&sc, path("hol")) == 0);
	/* The same, and two more datagrams of each batch find the buffer full. */
	scen_init(&sc, "server");
	scen_run(&sc, 30, SC_NORMAL, 0, 0);
	sc.rx_drops = 2;
	scen_batch(&sc, 5);
	scen_batch(&sc, 5);
	CHECK(scen_save(&sc, path("rcvbuf")) == 0);
	/* The hog capture and one more hogged message that loses records. */
	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_HOG, 8, 7);
	scen_msg(&sc, SC_DROP);
	CHECK(scen_save(&sc, path("drop")) == 0);
	/*
	 * Harm against count: 2 of 100 messages wait 5 ms for a competitor,
	 * 32 others take 5 us longer in the server. At p90 (the 34 at or
	 * above 7.7 us) the slower server is the largest cause in 32, the
	 * competitor in 2.
	 */
	scen_init(&sc, "server");
	sc.small_ns = 5000;
	for (i = 0; i < 100; i++) {
		sc.hog_ns = 5000000;
		scen_msg(&sc, i == 10 || i == 60 ? SC_HOG : i % 3 == 1 ? SC_SMALL : SC_NORMAL);
	}
	CHECK(scen_save(&sc, path("harm")) == 0);
	/* Receive processing on Y busy with 8 packets of a flow nobody reads. */
	scen_init(&sc, "server");
	sc.flood = 8;
	scen_run(&sc, 40, SC_NETRX, 8, 7);
	CHECK(scen_save(&sc, path("flood")) == 0);
	/* Nested: a softirq inside the competitor's slice ... */
	scen_init(&sc, "server");
	sc.hog_softirq = true;
	scen_run(&sc, 40, SC_HOG, 8, 7);
	CHECK(scen_save(&sc, path("nest_softirq")) == 0);
	/* ... and an interrupt inside the server's own (8 us longer) time. */
	scen_init(&sc, "server");
	sc.small_ns = 8000;
	sc.app_irq = true;
	scen_run(&sc, 40, SC_SMALL, 8, 7);
	CHECK(scen_save(&sc, path("nest_irq")) == 0);
	save_tx("tx", 100000, true);
	save_tx("txq", 10000000, false);
	save_nocontext();
	save_tcp_hole();
	save_tcp_resent("rto", false);
	/* The peer's window takes the first segment only. */
	save_tcp_tail("tail_rwnd", &(struct nsight_tcp_send_state){
		.snd_wnd = 1448, .snd_cwnd = 10, .mss = 1448, .sndbuf = 87040, .srtt_us = 100,
		.nonagle = NSIGHT_TCP_NAGLE_OFF });
	/* The congestion window takes one segment. */
	save_tcp_tail("tail_cwnd", &(struct nsight_tcp_send_state){
		.snd_wnd = 65535, .snd_cwnd = 1, .mss = 1448, .sndbuf = 87040, .srtt_us = 100,
		.nonagle = NSIGHT_TCP_NAGLE_OFF });
	/* Room everywhere, Nagle on: the small rest waits for the first's ACK. */
	save_tcp_tail("tail_nagle", &(struct nsight_tcp_send_state){
		.snd_wnd = 65535, .snd_cwnd = 10, .mss = 1448, .sndbuf = 87040, .srtt_us = 100 });
	save_tcp_resent("fastre", true);
	/* One 32-byte segment in flight, the window and the buffer open. */
	save_tcp_held("nagle", &(struct nsight_tcp_send_state){
		.snd_wnd = 65535, .snd_cwnd = 10, .packets_out = 1, .mss = 1448,
		.wmem_queued = 32, .sndbuf = 87040, .srtt_us = 100 });
	/* The bytes past the peer's window (snd_una + 20 < the end). */
	save_tcp_held("rwnd", &(struct nsight_tcp_send_state){
		.snd_wnd = 20, .snd_cwnd = 10, .packets_out = 1, .mss = 1448,
		.wmem_queued = 32, .sndbuf = 87040, .srtt_us = 100 });
	/* The send buffer full: it waits whatever the windows say. */
	save_tcp_held("sndbuf", &(struct nsight_tcp_send_state){
		.snd_wnd = 20, .snd_cwnd = 1, .packets_out = 1, .mss = 1448,
		.wmem_queued = 4096, .sndbuf = 4096, .srtt_us = 100 });
	/* Room everywhere, Nagle off: held until the ACK, no state says why. */
	save_tcp_held("noack", &(struct nsight_tcp_send_state){
		.snd_wnd = 65535, .snd_cwnd = 10, .packets_out = 1, .mss = 1448,
		.wmem_queued = 32, .sndbuf = 87040, .srtt_us = 100, .nonagle = NSIGHT_TCP_NAGLE_OFF });
	/* The congestion window full. */
	save_tcp_held("cwnd", &(struct nsight_tcp_send_state){
		.snd_wnd = 65535, .snd_cwnd = 1, .packets_out = 1, .mss = 1448,
		.wmem_queued = 32, .sndbuf = 87040, .srtt_us = 100, .nonagle = NSIGHT_TCP_NAGLE_OFF });
	CHECK(write_file(path("cats.csv"), "# mine\ntask,stress,CPU hog\nidle,irq:*,Woken late after <name>\n") == 0);
	CHECK(write_file(path("bad.csv"), "task,stress,CPU hog\n\nbogus,x,y\n") == 0);
}

/* The lines from "diagnosis: @group" to the next "diagnosis:" or the end. */
static char *section(const char *out, const char *group)
{
	static char buf[8192];
	char head[128];
	const char *s, *e;

	snprintf(head, sizeof(head), "diagnosis: %s", group);
	s = out ? strstr(out, head) : NULL;
	if (!s)
		return "(no section)";
	e = strstr(s + 1, "\ndiagnosis: ");
	e = e ? e + 1 : s + strlen(s);
	snprintf(buf, sizeof(buf), "%.*s", (int)(e - s), s);
	return buf;
}

/* The first cause's name: the row after the column header, up to the counts. */
static const char *first_cause(const char *sec)
{
	static char buf[160];
	const char *p = strstr(sec, "\n  cause ");
	size_t n = 0;

	if (!p || !(p = strchr(p + 1, '\n')))
		return "(none)";
	p += 3;	/* "\n  " */
	while (p[n] && p[n] != '\n' && !(p[n] == ' ' && p[n + 1] == ' '))
		n++;
	snprintf(buf, sizeof(buf), "%.*s", (int)n, p);
	return buf;
}

#define CHECK_FIRST(sec, want) do {						\
	const char *_f = first_cause(sec);					\
	if (strcmp(_f, (want)))							\
		KTAP_FAIL("first cause \"%s\", expected \"%s\"", _f, (want));	\
} while (0)

static void run(struct cli_result *r, const char *const *args)
{
	cli_run_verbose(&c, r, NULL, args);
}

static void test_hog(void)
{
	struct cli_result r;
	const char *sec;

	run(&r, (const char *[]){ path("hog"), NULL });
	CHECK_U64(r.status, 0);
	sec = section(r.out, "server[100] rx");
	CHECK_STR_HAS(sec,
		"diagnosis: server[100] rx: reference 8 messages (fastest 20%, median 2700 ns), tail 5 messages >= p90 (51700 ns)\n"
		"  cause                                         share       excess_ns messages  main   median_dev_ns     max_dev_ns\n"
		"  stress interference (A)                        100%          245000        5     5           49000          49000\n"
		"    next step: task:stress on cpu 1 in 5 tail messages\n"
		"      move stress to another core (taskset, cpusets) or give server priority over it (chrt, nice)\n"
		"  coverage: median 100%, p10 100%, p90 100%\n"
		"  slowest:\n"
		"    rx 8 latency 51700 ns, deviation 49000 ns, coverage 100%: stress interference (A) +49000\n"
		"    rx 16 latency 51700 ns, deviation 49000 ns, coverage 100%: stress interference (A) +49000\n");
	CHECK_FIRST(sec, "stress interference (A)");
	/* Printed after the existing sections. */
	CHECK(r.out && strstr(r.out, "\nlatency: ") < strstr(r.out, "\ndiagnosis: "));
	CHECK(r.err && !r.err[0]);
	cli_result_free(&r);
}

static void test_receive_processing(void)
{
	struct cli_result r;
	const char *sec;

	run(&r, (const char *[]){ path("netrx"), NULL });
	CHECK_U64(r.status, 0);
	sec = section(r.out, "server[100] rx");
	/* The server's time grew, but NET_RX inside it explains all of it. */
	CHECK_FIRST(sec, "Receive processing (A)");
	CHECK_STR_HAS(sec, "\n  Receive processing (A)                         100%          200000        5     5           40000          40000\n"
		      "    next step: softirq:NET_RX on cpu 1 in 5 tail messages\n"
		      "      steer receive processing to another core (RPS/RFS, IRQ affinity) or drop unread traffic earlier\n"
		      "  coverage: median 100%, p10 100%, p90 100%\n");
	CHECK(!strstr(sec, "Application processing"));
	cli_result_free(&r);
}

static void test_nested_threshold(void)
{
	struct cli_result r;
	const char *sec;

	/* NET_RX explains 40000 of the server's 48000 (83%): dropped at 80%. */
	run(&r, (const char *[]){ path("netrx_app"), NULL });
	CHECK_U64(r.status, 0);
	sec = section(r.out, "server[100] rx");
	CHECK_FIRST(sec, "Receive processing (A)");
	CHECK(!strstr(sec, "Application processing"));
	CHECK_STR_HAS(sec, "\n  coverage: median 83%, p10 83%, p90 83%\n");
	cli_result_free(&r);

	/* At 90% it stays, with what NET_RX leaves: 8000. */
	run(&r, (const char *[]){ "--nested-threshold", "90", path("netrx_app"), NULL });
	CHECK_U64(r.status, 0);
	sec = section(r.out, "server[100] rx");
	CHECK_FIRST(sec, "Receive processing (A)");
	CHECK_STR_HAS(sec, "\n  Application processing (A)                      17%           40000        5     0            8000           8000\n"
		      "    next step: app on cpu 1 in 5 tail messages\n"
		      "      server's own processing took longer: profile it (the sample source, Intel PT)\n"
		      "  coverage: median 100%, p10 100%, p90 100%\n");
	CHECK_STR_HAS(sec, "coverage 100%: Receive processing (A) +40000, Application processing (A) +8000\n");
	cli_result_free(&r);

	run(&r, (const char *[]){ "--nested-threshold", "83.4%", path("netrx_app"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "Application processing (A)");
	cli_result_free(&r);
	run(&r, (const char *[]){ "--nested-threshold", "83.3", path("netrx_app"), NULL });
	CHECK(r.out && !strstr(r.out, "Application processing (A)"));
	cli_result_free(&r);

	run(&r, (const char *[]){ "--nested-threshold", "101", path("netrx_app"), NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "bad --nested-threshold '101' (a percentage, 0 to 100)");
	cli_result_free(&r);
}

static void test_kworker_fault_idle(void)
{
	struct cli_result r;
	const char *sec;

	run(&r, (const char *[]){ path("kworker"), NULL });
	CHECK_U64(r.status, 0);
	sec = section(r.out, "server[100] rx");
	/* The work function, not the kworker that ran it. */
	CHECK_FIRST(sec, "OS threads: vmstat_update (A)");
	CHECK(!strstr(sec, "OS threads (A)"));
	CHECK_STR_HAS(sec, "  OS threads: vmstat_update (A)                  100%          150000        5     5           30000          30000\n");
	cli_result_free(&r);

	run(&r, (const char *[]){ path("fault"), NULL });
	CHECK_U64(r.status, 0);
	sec = section(r.out, "server[100] rx");
	CHECK_FIRST(sec, "Page faults (A)");
	CHECK(!strstr(sec, "Application processing"));
	cli_result_free(&r);

	/*
	 * 39300 ns idle after the irq, in messages 39000 ns late; the irq
	 * itself (500 ns) is under 1000.
	 */
	run(&r, (const char *[]){ path("idleirq"), NULL });
	CHECK_U64(r.status, 0);
	sec = section(r.out, "server[100] rx");
	CHECK_FIRST(sec, "Idle after irq:mlx5_comp0 (A)");
	CHECK_STR_HAS(sec, "  Idle after irq:mlx5_comp0 (A)                  100%          195000        5     5           39000          39000\n");
	CHECK(!strstr(sec, "Interrupts"));
	cli_result_free(&r);
}

static void test_hol(void)
{
	struct cli_result r;
	const char *sec;

	run(&r, (const char *[]){ path("hol"), NULL });
	CHECK_U64(r.status, 0);
	sec = section(r.out, "server[100] rx");
	/* Latencies 22700, 42700, 62700, 82700 after the first of a batch. */
	CHECK_STR_HAS(sec, "tail 6 messages >= p90 (42700 ns)\n");
	CHECK_FIRST(sec, "Head-of-line blocking (A)");
	CHECK_STR_HAS(sec, "  Head-of-line blocking (A)                      100%          360000        6     6           60000          80000\n");
	CHECK_STR_HAS(sec, "    rx 35 latency 82700 ns, deviation 80000 ns, coverage 100%: Head-of-line blocking (A) +80000\n");
	cli_result_free(&r);
}

static void test_clean_and_min_dev(void)
{
	struct cli_result r;
	const char *sec;

	/* Only jitter: nothing to blame. */
	run(&r, (const char *[]){ path("clean"), NULL });
	CHECK_U64(r.status, 0);
	sec = section(r.out, "server[100] rx");
	CHECK_STR_HAS(sec, "reference 8 messages (fastest 20%, median 2700 ns), tail 8 messages >= p90 (3420 ns)\n"
		      "  no cause: no anomaly of at least 1000 ns in the tail\n"
		      "  coverage: median 0%, p10 0%, p90 0%\n"
		      "  slowest:\n"
		      "    rx 8 latency 3510 ns, deviation 810 ns, coverage 0%: no anomaly\n");
	CHECK(!strstr(sec, "  cause "));
	cli_result_free(&r);

	/* Identical messages: no deviation at all. */
	run(&r, (const char *[]){ "--tail", "p0", path("allhog"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(section(r.out, "server[100] rx"), "tail 40 messages >= p0 (51700 ns)\n"
		      "  no cause: no anomaly of at least 1000 ns in the tail\n"
		      "  coverage: - (no tail message is slower than the reference median)\n");
	cli_result_free(&r);

	/* 500 ns slower: under the granularity, then over a finer one. */
	run(&r, (const char *[]){ path("small"), NULL });
	CHECK_U64(r.status, 0);
	sec = section(r.out, "server[100] rx");
	CHECK_STR_HAS(sec, "  no cause: no anomaly of at least 1000 ns in the tail\n"
		      "  coverage: median 0%, p10 0%, p90 0%\n");
	cli_result_free(&r);
	run(&r, (const char *[]){ "--min-dev", "100", path("small"), NULL });
	CHECK_U64(r.status, 0);
	sec = section(r.out, "server[100] rx");
	CHECK_FIRST(sec, "Application processing (A)");
	CHECK_STR_HAS(sec, "  Application processing (A)                     100%            2500        5     5             500            500\n");
	cli_result_free(&r);

	run(&r, (const char *[]){ "--min-dev", "-5", path("small"), NULL });
	CHECK_U64(r.status, 2);
	cli_result_free(&r);
}

static void test_slice_and_tail(void)
{
	struct cli_result r;
	const char *sec;

	/* p20-p30 of 40: ranks 9-12, widened to 5 messages. */
	run(&r, (const char *[]){ "--slice", "p20-p30", path("hog"), NULL });
	CHECK_U64(r.status, 0);
	sec = section(r.out, "server[100] rx");
	CHECK_STR_HAS(sec, "reference 5 messages (slice p20-p30, median 2700 ns), tail 5 messages >= p90 (51700 ns)\n");
	CHECK_FIRST(sec, "stress interference (A)");
	cli_result_free(&r);

	/* The slow ones as the reference: the hog is expected. */
	run(&r, (const char *[]){ "--slice", "p90-p100", path("hog"), NULL });
	CHECK_U64(r.status, 0);
	sec = section(r.out, "server[100] rx");
	CHECK_STR_HAS(sec, "reference 5 messages (slice p90-p100, median 51700 ns)");
	CHECK(!strstr(sec, "stress interference"));
	cli_result_free(&r);

	/* A lower tail takes in messages without a cause. */
	run(&r, (const char *[]){ "--tail", "p50", path("hol"), NULL });
	CHECK_U64(r.status, 0);
	sec = section(r.out, "server[100] rx");
	CHECK_STR_HAS(sec, "tail 40 messages >= p50 (2700 ns)\n");
	CHECK_STR_HAS(sec, "  Head-of-line blocking (A)                      100%          398094        8     8           40000          80000\n");
	cli_result_free(&r);

	run(&r, (const char *[]){ "--tail", "p99.9", path("hol"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "tail 2 messages >= p99.9 (82700 ns)\n");
	cli_result_free(&r);

	/*
	 * A band (seeds/001 §7.4): from the p85 latency to the p95 one, the
	 * slowest two (82700 ns) left out.
	 */
	run(&r, (const char *[]){ "--tail", "p85-p95", path("hol"), NULL });
	CHECK_U64(r.status, 0);
	sec = section(r.out, "server[100] rx");
	CHECK_STR_HAS(sec, "reference 8 messages (fastest 20%, median 2700 ns), band 6 messages in p85-p95 (22700 ns to 62700 ns)\n");
	CHECK_FIRST(sec, "Head-of-line blocking (A)");
	CHECK(!strstr(sec, "latency 82700 ns"));
	cli_result_free(&r);
	run(&r, (const char *[]){ "--json", "--tail", "p85-p95", path("hol"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "\"tail_to_pct\": 95.0,");
	CHECK_STR_HAS(r.out, "\"to_percentile\": 95.0,\n          \"threshold_ns\": 22700,\n          \"threshold_hi_ns\": 62700,\n          \"candidates\": 6,");
	cli_result_free(&r);
	run(&r, (const char *[]){ "--tail", "p30-p20", path("hog"), NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "bad tail 'p30-p20' (pN or a band pA-pB");
	cli_result_free(&r);
	run(&r, (const char *[]){ "--tail", "p20-", path("hog"), NULL });
	CHECK_U64(r.status, 2);
	cli_result_free(&r);
	run(&r, (const char *[]){ "--merge", "--tail", "p20-p30", path("hog"), path("hol"), NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "--merge takes a tail pN, not a band");
	cli_result_free(&r);

	run(&r, (const char *[]){ "--slice", "p30-p20", path("hog"), NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "bad slice 'p30-p20'");
	cli_result_free(&r);
	run(&r, (const char *[]){ "--tail", "p101", path("hog"), NULL });
	CHECK_U64(r.status, 2);
	cli_result_free(&r);
	run(&r, (const char *[]){ "--time-check", path("hog"), "--slice", "p0-p10", path("hog"), NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "diagnosis options do not go with --time-check");
	cli_result_free(&r);
}

/*
 * A NIC that held packets, seen by its hardware stamps: the time from the
 * stamp to the interrupt is "NIC delay (R)", nic:wire to IRQ, whatever the
 * receive core did meanwhile.
 */
static void test_nic_delay(void)
{
	struct cli_result r;
	const char *sec;

	run(&r, (const char *[]){ path("nic"), NULL });
	CHECK_U64(r.status, 0);
	sec = section(r.out, "server[100] rx");
	CHECK_FIRST(sec, "NIC delay (R)");
	CHECK_STR_HAS(sec, "    next step: nic:wire to IRQ on cpu 0 in 5 tail messages\n"
			   "      packets waited in the NIC (wire to IRQ): lower or turn off interrupt coalescing");
	/* 40 us in the NIC against the reference's 300 ns: exactly the difference. */
	CHECK_STR_HAS(sec, "    rx 8 latency 44200 ns, deviation 39700 ns, coverage 100%: NIC delay (R) +39700\n");
	cli_result_free(&r);
}

static void test_baseline(void)
{
	struct cli_result r;
	char want[1024];
	const char *sec;

	/* Every message hogged: its own fastest look the same ... */
	run(&r, (const char *[]){ path("allhog"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(section(r.out, "server[100] rx"), "  no cause: ");
	cli_result_free(&r);

	/* ... but not against a clean baseline. */
	run(&r, (const char *[]){ "--baseline", path("clean"), path("allhog"), NULL });
	CHECK_U64(r.status, 0);
	sec = section(r.out, "server[100] rx");
	snprintf(want, sizeof(want),
		 "reference 8 messages (fastest 20%% of baseline %s, median 2700 ns), tail 40 messages >= p90 (51700 ns)\n",
		 path("clean"));
	CHECK_STR_HAS(sec, want);
	CHECK_FIRST(sec, "stress interference (A)");
	CHECK_STR_HAS(sec, "  stress interference (A)                        100%         1960000       40    40           49000          49000\n");
	/* Both captures' percentiles, one above the other. */
	snprintf(want, sizeof(want), "\nbaseline: %s, its messages of the same comm and direction (ns)\n"
		 "  comm[pid] dir            capture    count          p50          p90          p99        p99.9          max\n"
		 "  server[100] rx           this          40        51700        51700        51700        51700        51700\n"
		 "                           baseline      40         3060         3420         3510         3510         3510\n",
		 path("clean"));
	CHECK_STR_HAS(r.out, want);
	cli_result_free(&r);
	/* The compact text: readable durations. */
	cli_run(&c, &r, NULL, (const char *[]){ "--baseline", path("clean"), path("allhog"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "\n  comm[pid] dir            capture    count      p50      p90      p99    p99.9      max\n"
		      "  server[100] rx           this          40   51.7us   51.7us   51.7us   51.7us   51.7us\n"
		      "                           baseline      40   3.06us   3.42us   3.51us   3.51us   3.51us\n");
	cli_result_free(&r);

	/* A slice of the baseline: ranks 17-24 of its 40, 360 and 450 ns of jitter. */
	run(&r, (const char *[]){ "--baseline", path("clean"), "--slice", "p40-p60", path("allhog"), NULL });
	CHECK_U64(r.status, 0);
	snprintf(want, sizeof(want), "reference 8 messages (slice p40-p60 of baseline %s, median 3060 ns)",
		 path("clean"));
	CHECK_STR_HAS(r.out, want);
	cli_result_free(&r);

	/* A band against the same band of the baseline. */
	run(&r, (const char *[]){ "--baseline", path("clean"), "--tail", "p20-p30", path("allhog"), NULL });
	CHECK_U64(r.status, 0);
	sec = section(r.out, "server[100] rx");
	snprintf(want, sizeof(want),
		 "reference 5 messages (slice p20-p30 of baseline %s, median 2880 ns), band 40 messages in p20-p30 (51700 ns to 51700 ns)\n",
		 path("clean"));
	CHECK_STR_HAS(sec, want);
	CHECK_FIRST(sec, "stress interference (A)");
	/* Beside it, the baseline's band against its own fastest 20%: nothing slow. */
	snprintf(want, sizeof(want), "baseline %s, the same band against its own fastest 20%%:\n"
		 "evidence: context records; no function-level evidence (no sample or pt records)\n"
		 "diagnosis: server[100] rx: reference 8 messages (fastest 20%%, median 2700 ns), band 8 messages in p20-p30 (2790 ns to 2880 ns)\n",
		 path("clean"));
	CHECK_STR_HAS(r.out, want);
	CHECK_STR_HAS(strstr(r.out, "the same band against its own") ?
		      strstr(r.out, "the same band against its own") : "", "  no cause: ");
	cli_result_free(&r);
	run(&r, (const char *[]){ "--json", "--baseline", path("clean"), "--tail", "p20-p30",
				  path("allhog"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "\"baseline_diagnosis\": {");
	cli_result_free(&r);
	/* --slice still chooses the baseline's reference. */
	run(&r, (const char *[]){ "--baseline", path("clean"), "--slice", "p0-p20", "--tail", "p20-p30",
				  path("allhog"), NULL });
	CHECK_U64(r.status, 0);
	snprintf(want, sizeof(want), "reference 8 messages (slice p0-p20 of baseline %s, median 2700 ns), band 40",
		 path("clean"));
	CHECK_STR_HAS(r.out, want);
	cli_result_free(&r);

	/* Another application's capture has no reference for this one. */
	run(&r, (const char *[]){ "--baseline", path("client"), path("allhog"), NULL });
	CHECK_U64(r.status, 0);
	snprintf(want, sizeof(want), "diagnosis: server[100] rx: no rx messages of server in the baseline %s\n",
		 path("client"));
	CHECK_STR_HAS(r.out, want);
	/* No such messages there: a row of dashes, not a diagnosis-only silence. */
	CHECK_STR_HAS(r.out, "\n                           baseline       0            -            -            -            -            -\n");
	cli_result_free(&r);

	run(&r, (const char *[]){ "--baseline", "/nonexistent.nsight", path("allhog"), NULL });
	CHECK_U64(r.status, 1);
	CHECK_STR_HAS(r.err, "nsight-analyze: /nonexistent.nsight: ");
	cli_result_free(&r);
	run(&r, (const char *[]){ "--baseline", path("cats.csv"), path("allhog"), NULL });
	CHECK_U64(r.status, 1);
	cli_result_free(&r);
}

static void test_categories(void)
{
	struct cli_result r;
	char want[256];

	run(&r, (const char *[]){ "--categories", path("cats.csv"), path("hog"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_FIRST(section(r.out, "server[100] rx"), "CPU hog (A)");
	cli_result_free(&r);
	run(&r, (const char *[]){ "--categories", path("cats.csv"), path("idleirq"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_FIRST(section(r.out, "server[100] rx"), "Woken late after irq:mlx5_comp0 (A)");
	cli_result_free(&r);
	/* The built-in rules still apply after the user's. */
	run(&r, (const char *[]){ "--categories", path("cats.csv"), path("kworker"), NULL });
	CHECK_FIRST(section(r.out, "server[100] rx"), "OS threads: vmstat_update (A)");
	cli_result_free(&r);

	run(&r, (const char *[]){ "--categories", path("bad.csv"), path("hog"), NULL });
	CHECK_U64(r.status, 1);
	snprintf(want, sizeof(want), "nsight-analyze: %s:3: unknown kind 'bogus'", path("bad.csv"));
	CHECK_STR_HAS(r.err, want);
	CHECK(r.out && !r.out[0]);
	cli_result_free(&r);
	run(&r, (const char *[]){ "--categories", "/nonexistent.csv", path("hog"), NULL });
	CHECK_U64(r.status, 1);
	CHECK_STR_HAS(r.err, "nsight-analyze: /nonexistent.csv: No such file or directory");
	cli_result_free(&r);
}

static void test_drops(void)
{
	struct cli_result r;
	const char *sec;

	run(&r, (const char *[]){ path("drop"), NULL });
	CHECK_U64(r.status, 0);
	sec = section(r.out, "server[100] rx");
	CHECK_FIRST(sec, "stress interference (A)");
	CHECK_STR_HAS(sec, "tail 5 messages >= p90 (51700 ns)\n");
	CHECK_STR_HAS(sec, "\n  skipped: 1 messages with records lost in their windows (1 incomplete, 0 of the reference, 0 of the tail)\n");
	cli_result_free(&r);
}

static void test_tx_and_groups(void)
{
	struct cli_result r;
	const char *sec;

	run(&r, (const char *[]){ path("tx"), NULL });
	CHECK_U64(r.status, 0);
	sec = section(r.out, "client[200] tx");
	CHECK_STR_HAS(sec, "diagnosis: client[200] tx: reference 8 messages (fastest 20%, median 900 ns), tail 5 messages >= p90 (30900 ns)\n");
	CHECK_FIRST(sec, "stress interference (A)");
	CHECK_STR_HAS(sec, "    tx 8 latency 30900 ns, deviation 30000 ns, coverage 100%: stress interference (A) +30000\n");
	cli_result_free(&r);

	run(&r, (const char *[]){ path("nocontext"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "\ndiagnosis: no context records (sched_switch, irq, softirq, idle, fault, workqueue) in the capture, so no causes\n");
	cli_result_free(&r);
}

/* Follow a dotted path ("a.b.0.c") through objects and arrays. */
static struct json_object *jget(struct json_object *o, const char *p)
{
	char buf[160], *key, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", p);
	for (key = strtok_r(buf, ".", &save); key && o; key = strtok_r(NULL, ".", &save)) {
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, (size_t)atoi(key));
		else if (!json_object_object_get_ex(o, key, &o))
			return NULL;
	}
	return o;
}

static int64_t ji(struct json_object *o, const char *p)
{
	struct json_object *v = jget(o, p);

	return v ? json_object_get_int64(v) : INT64_MIN;
}

static double jd(struct json_object *o, const char *p)
{
	struct json_object *v = jget(o, p);

	return v ? json_object_get_double(v) : -1e300;
}

static const char *js(struct json_object *o, const char *p)
{
	struct json_object *v = jget(o, p);

	return v ? json_object_get_string(v) : "(none)";
}

static void test_json(void)
{
	struct json_object *o, *g, *an;
	struct cli_result r;
	size_t i, n;
	bool seen = false;

	run(&r, (const char *[]){ "--json", path("hog"), NULL });
	CHECK_U64(r.status, 0);
	o = r.out ? json_tokener_parse(r.out) : NULL;
	REQUIRE(o);
	CHECK(ji(o, "diagnosis.context_records") > 0);
	CHECK(!strcmp(js(o, "diagnosis.options.reference"), "fastest"));
	CHECK(jd(o, "diagnosis.options.reference_to_pct") == 20.0);
	CHECK(jd(o, "diagnosis.options.tail_pct") == 90.0);
	CHECK_U64(ji(o, "diagnosis.options.min_dev_ns"), 1000);
	CHECK(jd(o, "diagnosis.options.nested_threshold_pct") == 80.0);
	CHECK(jget(o, "diagnosis.options") &&
	      json_object_object_get_ex(jget(o, "diagnosis.options"), "baseline", NULL));
	g = jget(o, "diagnosis.groups.0");
	REQUIRE(g);
	CHECK(!strcmp(js(g, "comm"), "server"));
	CHECK_U64(ji(g, "pid"), 100);
	CHECK(!strcmp(js(g, "dir"), "rx"));
	CHECK_U64(ji(g, "complete"), 40);
	CHECK_U64(ji(g, "reference.messages"), 8);
	CHECK_U64(ji(g, "reference.median_ns"), 2700);
	CHECK(!strcmp(js(g, "reference.source"), "capture"));
	CHECK_U64(ji(g, "tail.messages"), 5);
	CHECK_U64(ji(g, "tail.threshold_ns"), 51700);
	CHECK_U64(ji(g, "skipped.tail"), 0);
	CHECK(json_object_array_length(jget(g, "causes")) == 1);
	CHECK(!strcmp(js(g, "causes.0.category"), "stress interference"));
	CHECK(!strcmp(js(g, "causes.0.role"), "A"));
	CHECK_U64(ji(g, "causes.0.messages"), 5);
	CHECK(jd(g, "causes.0.share") == 1.0);
	CHECK(jd(g, "causes.0.main_share") == 1.0);
	/* 50 us of the competitor in a message 49 us late: 49 us. */
	CHECK_U64(ji(g, "causes.0.median_dev_ns"), 49000);
	CHECK_U64(ji(g, "causes.0.max_dev_ns"), 49000);
	CHECK_U64(ji(g, "causes.0.total_dev_ns"), 245000);
	CHECK_U64(ji(g, "tail.excess_ns"), 245000);
	CHECK(!strcmp(js(g, "causes.0.next_step.key"), "task:stress"));
	CHECK_U64(ji(g, "causes.0.next_step.cpu"), 1);
	CHECK_U64(ji(g, "causes.0.next_step.messages"), 5);
	CHECK_STR_HAS(js(g, "causes.0.next_step.advice"), "move stress to another core");
	CHECK_U64(ji(g, "coverage.messages"), 5);
	CHECK(jd(g, "coverage.median") == 1.0);
	CHECK(json_object_array_length(jget(g, "slowest")) == 5);
	CHECK_U64(ji(g, "slowest.0.id"), 8);
	CHECK_U64(ji(g, "slowest.0.latency_ns"), 51700);
	CHECK_U64(ji(g, "slowest.0.deviation_ns"), 49000);
	CHECK_U64(ji(g, "slowest.0.explained_ns"), 49000);
	CHECK(!strcmp(js(g, "slowest.0.causes.0.category"), "stress interference"));
	CHECK_U64(ji(g, "slowest.0.causes.0.deviation_ns"), 49000);
	an = jget(g, "slowest.0.anomalies");
	REQUIRE(an);
	n = json_object_array_length(an);
	for (i = 0; i < n; i++) {
		struct json_object *a = json_object_array_get_idx(an, i);

		if (strcmp(js(a, "key"), "task:stress"))
			continue;
		seen = true;
		CHECK(!strcmp(js(a, "category"), "stress interference"));
		CHECK(!strcmp(js(a, "role"), "A"));
		CHECK_U64(ji(a, "phase"), 1);
		CHECK(!strcmp(js(a, "reason"), "unexpected"));
		CHECK_U64(ji(a, "deviation_ns"), 50000);
		CHECK_U64(ji(a, "reported_ns"), 49000);
		CHECK(json_object_get_boolean(jget(a, "capped")));
		CHECK_U64(ji(a, "expected_ns"), 0);
		CHECK(jd(a, "presence") == 0.0);
		CHECK(json_object_get_boolean(jget(a, "reported")));
	}
	CHECK(seen);
	json_object_put(o);
	cli_result_free(&r);

	/* The parent left out by the 80% rule is there, not reported. */
	run(&r, (const char *[]){ "--json", path("netrx_app"), NULL });
	CHECK_U64(r.status, 0);
	o = r.out ? json_tokener_parse(r.out) : NULL;
	REQUIRE(o);
	an = jget(o, "diagnosis.groups.0.slowest.0.anomalies");
	REQUIRE(an);
	seen = false;
	n = json_object_array_length(an);
	for (i = 0; i < n; i++) {
		struct json_object *a = json_object_array_get_idx(an, i);

		if (!strcmp(js(a, "key"), "app")) {
			seen = true;
			CHECK_U64(ji(a, "phase"), 3);
			CHECK(!strcmp(js(a, "reason"), "slower"));
			CHECK_U64(ji(a, "deviation_ns"), 48000);
			CHECK_U64(ji(a, "explained_by_nested_ns"), 40000);
			CHECK(!json_object_get_boolean(jget(a, "reported")));
			CHECK(jget(a, "category") == NULL);
		} else if (!strcmp(js(a, "key"), "softirq:NET_RX")) {
			CHECK(!strcmp(js(a, "category"), "Receive processing"));
			CHECK_U64(ji(a, "phase"), 1);
		}
	}
	CHECK(seen);
	CHECK(jd(o, "diagnosis.groups.0.coverage.median") > 0.83 &&
	      jd(o, "diagnosis.groups.0.coverage.median") < 0.834);
	json_object_put(o);
	cli_result_free(&r);

	/* HOL is phase 4. */
	run(&r, (const char *[]){ "--json", path("hol"), NULL });
	o = r.out ? json_tokener_parse(r.out) : NULL;
	REQUIRE(o);
	CHECK(!strcmp(js(o, "diagnosis.groups.0.causes.0.category"), "Head-of-line blocking"));
	CHECK(!strcmp(js(o, "diagnosis.groups.0.slowest.0.anomalies.0.key"), "hol"));
	CHECK_U64(ji(o, "diagnosis.groups.0.slowest.0.anomalies.0.phase"), 4);
	json_object_put(o);
	cli_result_free(&r);

	/* No context records: the object is there, without groups. */
	run(&r, (const char *[]){ "--json", path("nocontext"), NULL });
	o = r.out ? json_tokener_parse(r.out) : NULL;
	REQUIRE(o);
	CHECK_U64(ji(o, "diagnosis.context_records"), 0);
	CHECK(json_object_array_length(jget(o, "diagnosis.groups")) == 0);
	json_object_put(o);
	cli_result_free(&r);
}

/*
 * A band beside the baseline's: both bands against the baseline's fastest
 * 20%, their bounds and counts, and one table of both bands' causes, each
 * in its capture's column and a dash where a band lacks it.
 */
static void test_band_side(void)
{
	struct json_object *o, *g, *v;
	struct cli_result r;
	char want[2048];

	/* Every message hogged here, none in the clean baseline. */
	run(&r, (const char *[]){ "--baseline", path("clean"), "--tail", "p20-p30", path("allhog"), NULL });
	CHECK_U64(r.status, 0);
	snprintf(want, sizeof(want),
		 "\nband p20-p30 of both captures, each against the fastest 20%% of baseline %s:\n"
		 "  comm[pid] dir            capture    msgs           from             to      excess_ns\n"
		 "  server[100] rx           this         40          51700          51700        1960000\n"
		 "                           baseline      8           2790           2880           1080\n"
		 "  cause                                     this      excess_ns  baseline      excess_ns\n"
		 "  stress interference (A)                   100%%        1960000         -              -\n"
		 "baseline %s, the same band against its own fastest 20%%:\n", path("clean"), path("clean"));
	CHECK_STR_HAS(r.out, want);
	cli_result_free(&r);
	/* Compact: readable durations, and no baseline diagnosis after the table. */
	cli_run(&c, &r, NULL, (const char *[]){ "--baseline", path("clean"), "--tail", "p20-p30",
						path("allhog"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "  comm[pid] dir            capture    msgs      from        to    excess\n"
			     "  server[100] rx           this         40    51.7us    51.7us    1.96ms\n"
			     "                           baseline      8    2.79us    2.88us    1.08us\n"
			     "  cause                                     this    excess  baseline    excess\n"
			     "  stress interference (A)                   100%    1.96ms         -         -\n");
	CHECK(r.out && !strstr(r.out, "the same band against its own"));
	cli_result_free(&r);

	/* A cause only here (the kworker's), one only in the baseline (the hog's). */
	run(&r, (const char *[]){ "--baseline", path("hog"), "--tail", "p80-p99", path("kworker"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out,
		      "  server[100] rx           this         40           2700          32700         150000\n"
		      "                           baseline     40           2700          51700         245000\n"
		      "  cause                                     this      excess_ns  baseline      excess_ns\n"
		      "  OS threads: vmstat_update (A)             100%         150000         -              -\n"
		      "  stress interference (A)                      -              -      100%         245000\n");
	cli_result_free(&r);
	/* The same cause in both: one row, each capture's excess in its column. */
	run(&r, (const char *[]){ "--baseline", path("hog"), "--tail", "p80-p99", path("allhog"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out,
		      "  cause                                     this      excess_ns  baseline      excess_ns\n"
		      "  stress interference (A)                   100%        1960000      100%         245000\n"
		      "baseline ");
	cli_result_free(&r);
	/* No such application in the baseline: no table. */
	run(&r, (const char *[]){ "--baseline", path("client"), "--tail", "p80-p99", path("allhog"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "  server[100] rx: no such messages in the baseline\nbaseline ");
	cli_result_free(&r);

	/* The JSON: both bands' bounds, and each cause's figures in both or null. */
	run(&r, (const char *[]){ "--json", "--baseline", path("hog"), "--tail", "p80-p99",
				  path("kworker"), NULL });
	CHECK_U64(r.status, 0);
	o = r.out ? json_tokener_parse(r.out) : NULL;
	cli_result_free(&r);
	REQUIRE(o);
	CHECK(jd(o, "band_comparison.from_pct") == 80.0);
	CHECK(jd(o, "band_comparison.to_pct") == 99.0);
	CHECK(jd(o, "band_comparison.reference_to_pct") == 20.0);
	CHECK(jget(o, "baseline_diagnosis.diagnosis") != NULL);
	g = jget(o, "band_comparison.groups.0");
	REQUIRE(g);
	CHECK(!strcmp(js(g, "comm"), "server") && !strcmp(js(g, "direction"), "rx"));
	CHECK_U64(ji(g, "this.messages"), 40);
	CHECK_U64(ji(g, "this.from_ns"), 2700);
	CHECK_U64(ji(g, "this.to_ns"), 32700);
	CHECK_U64(ji(g, "this.excess_ns"), 150000);
	CHECK_U64(ji(g, "baseline.pid"), 100);
	CHECK_U64(ji(g, "baseline.to_ns"), 51700);
	CHECK_U64(ji(g, "baseline.excess_ns"), 245000);
	CHECK(json_object_array_length(jget(g, "causes")) == 2);
	CHECK(!strcmp(js(g, "causes.0.category"), "OS threads: vmstat_update"));
	CHECK(jd(g, "causes.0.this.share") == 1.0);
	CHECK_U64(ji(g, "causes.0.this.excess_ns"), 150000);
	CHECK(json_object_object_get_ex(jget(g, "causes.0"), "baseline", &v) && !v);
	CHECK(!strcmp(js(g, "causes.1.category"), "stress interference"));
	CHECK(json_object_object_get_ex(jget(g, "causes.1"), "this", &v) && !v);
	CHECK(jd(g, "causes.1.baseline.share") == 1.0);
	CHECK_U64(ji(g, "causes.1.baseline.excess_ns"), 245000);
	CHECK_U64(ji(g, "causes.1.baseline.messages"), 5);
	json_object_put(o);
}

/* Each cause's total and main, and the group's tail excess, from --json. */
static struct json_object *diag_json(const char *name, const char *extra)
{
	struct cli_result r;
	struct json_object *o;

	if (extra)	/* "--opt=value" */
		run(&r, (const char *[]){ "--json", extra, path(name), NULL });
	else
		run(&r, (const char *[]){ "--json", path(name), NULL });
	CHECK_U64(r.status, 0);
	o = r.out ? json_tokener_parse(r.out) : NULL;
	cli_result_free(&r);
	return o;
}

/* Every tail message's coverage is at most 1 and its causes add up to it. */
static void check_coverage_capped(struct json_object *g)
{
	struct json_object *slow = jget(g, "slowest");
	size_t i, k, n = slow ? json_object_array_length(slow) : 0;
	int64_t excess = 0, causes = 0;

	CHECK(n > 0);
	for (i = 0; i < n; i++) {
		struct json_object *m = json_object_array_get_idx(slow, i);
		struct json_object *mc = jget(m, "causes");
		int64_t sum = 0;

		for (k = 0; mc && k < json_object_array_length(mc); k++)
			sum += json_object_get_int64(jget(json_object_array_get_idx(mc, k),
							  "deviation_ns"));
		CHECK(jd(m, "coverage") <= 1.0);
		CHECK(sum <= ji(m, "deviation_ns"));
		CHECK_U64(sum, ji(m, "explained_ns"));
	}
	for (k = 0; k < json_object_array_length(jget(g, "causes")); k++) {
		causes += json_object_get_int64(jget(json_object_array_get_idx(jget(g, "causes"), k),
						     "total_dev_ns"));
		excess = ji(g, "tail.excess_ns");
	}
	CHECK(causes <= excess);
	CHECK(jd(g, "coverage.p90") <= 1.0);
}

static void test_rank_by_excess(void)
{
	struct json_object *o = diag_json("harm", NULL), *g;

	REQUIRE(o);
	g = jget(o, "diagnosis.groups.0");
	REQUIRE(g);
	CHECK_U64(ji(g, "tail.messages"), 34);
	/* The competitor first: 10 ms of the tail's excess, against 160 us. */
	CHECK(!strcmp(js(g, "causes.0.category"), "stress interference"));
	CHECK_U64(ji(g, "causes.0.main"), 2);
	CHECK(jd(g, "causes.0.share") > 0.98);
	CHECK(!strcmp(js(g, "causes.1.category"), "Application processing"));
	CHECK_U64(ji(g, "causes.1.main"), 32);
	CHECK_U64(ji(g, "causes.1.total_dev_ns"), 160000);
	CHECK(jd(g, "causes.1.share") < 0.02);
	CHECK(jd(g, "causes.1.main_share") > 0.94);
	check_coverage_capped(g);
	json_object_put(o);

	/* At p99 only the competitor's messages are the tail. */
	o = diag_json("harm", "--tail=p99");
	REQUIRE(o);
	CHECK_U64(ji(o, "diagnosis.groups.0.tail.messages"), 2);
	CHECK(!strcmp(js(o, "diagnosis.groups.0.causes.0.category"), "stress interference"));
	CHECK(json_object_array_length(jget(o, "diagnosis.groups.0.causes")) == 1);
	json_object_put(o);
}

static void test_nested_coverage(void)
{
	struct json_object *o, *g;

	/*
	 * A 20 us softirq inside the competitor's 50 us slice: each once,
	 * 30 and 20 us, scaled to the 49 us the message was late.
	 */
	o = diag_json("nest_softirq", NULL);
	REQUIRE(o);
	g = jget(o, "diagnosis.groups.0");
	REQUIRE(g);
	CHECK(!strcmp(js(g, "causes.0.category"), "stress interference"));
	CHECK(!strcmp(js(g, "causes.1.category"), "Receive processing"));
	CHECK_U64(ji(g, "slowest.0.deviation_ns"), 49000);
	CHECK_U64(ji(g, "slowest.0.causes.0.deviation_ns"), 29400);
	CHECK_U64(ji(g, "slowest.0.causes.1.deviation_ns"), 19600);
	CHECK(jd(g, "coverage.median") == 1.0);
	check_coverage_capped(g);
	json_object_put(o);

	/* A 5 us interrupt inside the server's 8 us of extra time. */
	o = diag_json("nest_irq", NULL);
	REQUIRE(o);
	g = jget(o, "diagnosis.groups.0");
	REQUIRE(g);
	CHECK_U64(ji(g, "slowest.0.deviation_ns"), 8000);
	CHECK(!strcmp(js(g, "causes.0.category"), "Interrupts"));
	CHECK_U64(ji(g, "slowest.0.causes.0.deviation_ns"), 5000);
	CHECK(!strcmp(js(g, "causes.1.category"), "Application processing"));
	CHECK_U64(ji(g, "slowest.0.causes.1.deviation_ns"), 3000);
	CHECK(jd(g, "coverage.median") == 1.0);
	check_coverage_capped(g);
	json_object_put(o);
}

/*
 * A full receive buffer is a resource loop: named with its socket, the
 * datagrams it dropped and the messages that waited in it, text and JSON.
 */
static void test_resource_loop(void)
{
	struct json_object *o, *lp;
	struct cli_result r;

	run(&r, (const char *[]){ path("rcvbuf"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "resource loops:\n  UDP receive buffer full: 0.0.0.0:9000 server[100] rx: 4 datagrams dropped (4608 of 4608 bytes in use); 8 messages waited in it:");
	CHECK_STR_HAS(r.out, "    next step: the reader falls behind its arrivals");
	cli_result_free(&r);
	/* Without drops, no section. */
	run(&r, (const char *[]){ path("hol"), NULL });
	CHECK(r.out && !strstr(r.out, "resource loops:"));
	cli_result_free(&r);

	o = diag_json("rcvbuf", NULL);
	REQUIRE(o);
	lp = jget(o, "diagnosis.loops.0");
	REQUIRE(lp);
	CHECK(!strcmp(js(lp, "kind"), "udp_rcvbuf"));
	CHECK(!strcmp(js(lp, "comm"), "server"));
	CHECK_U64(ji(lp, "events"), 4);
	CHECK_U64(ji(lp, "messages"), 8);
	CHECK_U64(ji(lp, "limit_bytes"), 4608);
	/* The i-th of a batch waits 2 us and 20 us for each one before it. */
	CHECK_U64(ji(lp, "wait_max_ns"), 2000 + 4 * 20000);
	CHECK_U64(ji(lp, "wait_total_ns"), 2 * (22000 + 42000 + 62000 + 82000));
	CHECK(!jget(o, "diagnosis.loops.1"));
	json_object_put(o);

	/* The TCP send buffer and the peer's window are loops too. */
	o = diag_json("sndbuf", NULL);
	REQUIRE(o);
	CHECK(!strcmp(js(o, "diagnosis.loops.0.kind"), "tcp_sndbuf"));
	CHECK_U64(ji(o, "diagnosis.loops.0.events"), 5);
	json_object_put(o);
	o = diag_json("rwnd", NULL);
	REQUIRE(o);
	CHECK(!strcmp(js(o, "diagnosis.loops.0.kind"), "tcp_rwnd"));
	json_object_put(o);

	/* Packets that waited 1 ms or more for the device. */
	o = diag_json("txq", NULL);
	REQUIRE(o);
	lp = jget(o, "diagnosis.loops.0");
	REQUIRE(lp);
	CHECK(!strcmp(js(lp, "kind"), "tx_queue"));
	CHECK_U64(ji(lp, "events"), 10);
	CHECK_U64(ji(lp, "wait_total_ns"), 50000000);
	CHECK_U64(ji(lp, "wait_max_ns"), 5000000);
	json_object_put(o);
	run(&r, (const char *[]){ path("txq"), NULL });
	CHECK_STR_HAS(r.out, "  transmit queue held packets: device 2: 10 packets waited 1000000 ns or more: 50000000 ns in all, median 5000000 ns, max 5000000 ns\n    next step: packets waited for the device");
	cli_result_free(&r);
	/* 30 us in the qdisc is no loop. */
	run(&r, (const char *[]){ path("tx"), NULL });
	CHECK(r.out && !strstr(r.out, "resource loops:"));
	cli_result_free(&r);
}

/* diag_json() of @capture, whose first group's first cause must be @want. */
static struct json_object *diag_first(const char *capture, const char *want)
{
	struct json_object *o = diag_json(capture, NULL);

	if (!o) {
		KTAP_FAIL("%s: no JSON", capture);
		return NULL;
	}
	if (strcmp(js(o, "diagnosis.groups.0.causes.0.category"), want))
		KTAP_FAIL("%s: first cause \"%s\", expected \"%s\"", capture,
			  js(o, "diagnosis.groups.0.causes.0.category"), want);
	return o;
}

/*
 * The messages of @capture (40, all complete) held @hold, each for
 * @hold_ns and, unless @total_ns is 0, that long in all: how many.
 */
static size_t held_messages(const char *capture, const char *hold, uint64_t hold_ns,
			    uint64_t total_ns)
{
	struct json_object *o = diag_json(capture, "--messages"), *an = jget(o, "messages");
	size_t j, held = 0;

	if (!an) {
		KTAP_FAIL("%s: no messages", capture);
		json_object_put(o);
		return 0;
	}
	CHECK_U64(json_object_array_length(an), 40);
	for (j = 0; j < json_object_array_length(an); j++) {
		struct json_object *m = json_object_array_get_idx(an, j);

		CHECK(!strcmp(js(m, "reason"), "complete"));
		if (!jget(m, "tcp_hold"))
			continue;
		held++;
		CHECK(!strcmp(js(m, "tcp_hold"), hold));
		CHECK_U64(ji(m, "tcp_hold_ns"), hold_ns);
		if (total_ns)
			CHECK_U64(ji(m, "total_ns"), total_ns);
	}
	json_object_put(o);
	return held;
}

static void test_tcp_held(void)
{
	struct json_object *o = diag_json("nagle", NULL), *g, *an;
	struct cli_result r;
	size_t i;
	bool seen = false;

	REQUIRE(o);
	g = jget(o, "diagnosis.groups.0");
	REQUIRE(g);
	CHECK(!strcmp(js(g, "comm"), "client"));
	CHECK(!strcmp(js(g, "dir"), "tx"));
	CHECK(!strcmp(js(g, "causes.0.category"), "TCP send held by Nagle for the peer's delayed ACK"));
	CHECK_U64(ji(g, "causes.0.messages"), 5);
	CHECK(jd(g, "causes.0.share") > 0.99);
	CHECK_STR_HAS(js(g, "causes.0.next_step.advice"), "TCP_NODELAY");
	an = jget(g, "slowest.0.anomalies");
	for (i = 0; an && i < json_object_array_length(an); i++) {
		struct json_object *a = json_object_array_get_idx(an, i);

		if (strcmp(js(a, "key"), "tcp:nagle_delayed_ack"))
			continue;
		seen = true;
		CHECK_U64(ji(a, "phase"), 4);
		CHECK(!strcmp(js(a, "reason"), "tcp_held"));
		/* From the write to the segment's queueing, 40 ms later. */
		CHECK_U64(ji(a, "value_ns"), 39998050);
	}
	CHECK(seen);
	check_coverage_capped(g);
	json_object_put(o);

	{
		static const char *const want[][2] = {
			{ "cwnd", "TCP send held by a full congestion window" },
			{ "rwnd", "TCP send held by the peer's full receive window" },
			{ "sndbuf", "TCP send held by a full send buffer" },
			{ "noack", "TCP send held until an ACK" },
		};

		for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
			json_object_put(diag_first(want[i][0], want[i][1]));
	}

	/*
	 * Retransmissions: the 5 lost replies end with the copy's xmit, held
	 * from the first queueing (+400 ns) to the copy's (30 or 210 ms).
	 */
	{
		static const char *const want[][3] = {
			{ "rto", "TCP send lost and retransmitted after a timeout", "retrans_timeout" },
			{ "fastre", "TCP send lost and retransmitted after duplicate ACKs",
			  "retrans_fast" },
		};

		for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			uint64_t copy = i ? 30000000 : 210000000;

			o = diag_first(want[i][0], want[i][1]);
			REQUIRE(o);
			CHECK(jd(o, "diagnosis.groups.0.causes.0.share") > 0.99);
			CHECK_U64(ji(o, "diagnosis.groups.0.causes.0.messages"), 5);
			CHECK_STR_HAS(js(o, "diagnosis.groups.0.causes.0.next_step.advice"),
				      "drops");
			json_object_put(o);
			CHECK_U64(held_messages(want[i][0], want[i][2], copy - 400, copy + 500), 5);
		}
	}

	/*
	 * The rest of a write held: the first segment left (+400 ns), the
	 * second only when the peer's packet came, 40 ms later.
	 */
	{
		static const char *const want[][3] = {
			{ "tail_rwnd", "TCP send held by the peer's full receive window", "rwnd" },
			{ "tail_cwnd", "TCP send held by a full congestion window", "cwnd" },
			{ "tail_nagle", "TCP send held by Nagle for the peer's delayed ACK",
			  "nagle_delayed_ack" },
		};

		for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			json_object_put(diag_first(want[i][0], want[i][1]));
			CHECK_U64(held_messages(want[i][0], want[i][2], 40000000 - 400, 0), 5);
		}
	}

	/* The messages: the 5 second writes held, the other 75 not. */
	o = diag_json("nagle", "--messages");
	REQUIRE(o);
	an = jget(o, "messages");
	REQUIRE(an);
	{
		size_t held = 0, free_ = 0;

		for (i = 0; i < json_object_array_length(an); i++) {
			struct json_object *m = json_object_array_get_idx(an, i);

			if (!jget(m, "tcp_hold")) {
				free_++;
				continue;
			}
			held++;
			CHECK(!strcmp(js(m, "tcp_hold"), "nagle_delayed_ack"));
			CHECK_U64(ji(m, "tcp_hold_ns"), 39998050);
			CHECK_U64(ji(m, "bytes"), 32);
		}
		CHECK_U64(held, 5);
		CHECK_U64(free_, 75);
	}
	json_object_put(o);

	/* On receive: the bytes waited for the first half, 30 ms. */
	o = diag_json("hole", NULL);
	REQUIRE(o);
	g = jget(o, "diagnosis.groups.0");
	REQUIRE(g);
	CHECK(!strcmp(js(g, "comm"), "srv"));
	CHECK(!strcmp(js(g, "causes.0.category"),
		      "TCP receive waited for a missing segment (loss or reordering)"));
	CHECK(!strcmp(js(g, "causes.0.role"), "R"));
	CHECK_U64(ji(g, "causes.0.messages"), 5);
	check_coverage_capped(g);
	json_object_put(o);

	/* Text: the cause's row. */
	run(&r, (const char *[]){ path("nagle"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_FIRST(section(r.out, "client[300] tx"), "TCP send held by Nagle for the peer's delayed ACK (A)");
	cli_result_free(&r);
}

static void test_receive_work(void)
{
	struct json_object *o = diag_json("flood", NULL), *g;
	struct cli_result r;

	REQUIRE(o);
	g = jget(o, "diagnosis.groups.0");
	REQUIRE(g);
	CHECK(!strcmp(js(g, "causes.0.category"), "Receive processing"));
	/* 8 packets in each of the 5 tail messages' windows. */
	CHECK_U64(ji(g, "causes.0.receive_work.packets"), 40);
	CHECK_U64(ji(g, "causes.0.receive_work.messages"), 5);
	CHECK(json_object_array_length(jget(g, "causes.0.receive_work.flows")) == 1);
	CHECK(!strcmp(js(g, "causes.0.receive_work.flows.0.flow"), "10.0.0.3:4000 > 10.0.0.2:9999"));
	CHECK(!strcmp(js(g, "causes.0.receive_work.flows.0.protocol"), "udp"));
	CHECK_U64(ji(g, "causes.0.receive_work.flows.0.bytes"), 4000);
	CHECK(!json_object_get_boolean(jget(g, "causes.0.receive_work.flows.0.read")));
	json_object_put(o);

	run(&r, (const char *[]){ path("flood"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(section(r.out, "server[100] rx"),
		      "    receive work behind it: 40 packets in the windows of 5 tail messages, 1 flow\n"
		      "      udp 10.0.0.3:4000 > 10.0.0.2:9999: 40 packets, 4000 bytes, no reader\n");
	cli_result_free(&r);

	/* No packets in the windows: no receive work to show. */
	o = diag_json("netrx", NULL);
	REQUIRE(o);
	CHECK(!jget(o, "diagnosis.groups.0.causes.0.receive_work"));
	json_object_put(o);
}

static void test_help(void)
{
	struct cli_result r;

	run(&r, (const char *[]){ "--help", NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "why the tail was slow");
	cli_result_free(&r);
	cli_run(&c, &r, NULL, (const char *[]){ "report", "--help", NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "  --baseline FILE ");
	CHECK_STR_HAS(r.out, "  --tail pN ");
	/* The other diagnosis options in the man page (test_analyze_doc), named here. */
	CHECK_STR_HAS(r.out, "The diagnosis: --slice pA-pB, --min-dev NS, --nested-threshold PCT,\n--categories FILE");
	cli_result_free(&r);
}

static void cleanup(void)
{
	CHECK(cli_fini(&c, files) == 0);
}

KTAP_MAIN(
	KTAP_TEST(setup),
	KTAP_TEST(test_hog),
	KTAP_TEST(test_receive_processing),
	KTAP_TEST(test_nested_threshold),
	KTAP_TEST(test_kworker_fault_idle),
	KTAP_TEST(test_hol),
	KTAP_TEST(test_clean_and_min_dev),
	KTAP_TEST(test_slice_and_tail),
	KTAP_TEST(test_baseline),
	KTAP_TEST(test_band_side),
	KTAP_TEST(test_nic_delay),
	KTAP_TEST(test_categories),
	KTAP_TEST(test_drops),
	KTAP_TEST(test_rank_by_excess),
	KTAP_TEST(test_nested_coverage),
	KTAP_TEST(test_tcp_held),
	KTAP_TEST(test_receive_work),
	KTAP_TEST(test_resource_loop),
	KTAP_TEST(test_tx_and_groups),
	KTAP_TEST(test_json),
	KTAP_TEST(test_help),
	KTAP_TEST(cleanup),
)
