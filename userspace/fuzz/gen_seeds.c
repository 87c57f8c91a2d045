// SPDX-License-Identifier: MIT
/*
 * gen_seeds DIR: write the synthetic seeds of the fuzz targets into
 * DIR/{stream,analysis,window,ksyms,categories}/ (make fuzz-seeds). Small
 * captures made with the unit tests' helpers (tests/synth.h,
 * tests/scenario.h): every diagnosis scenario with 12 messages, a batch,
 * sampled stacks with kernel symbols, an Intel PT trace with its code
 * (kernel, and a process's user code with its pt_cr3 record),
 * UDP and TCP sends and receives with STATUS and PHC chunks, drops, an
 * unknown chunk and record type, a flight recorder's windows (TRIGGER and
 * SKIP chunks); kallsyms text and category files.
 * Crash inputs are kept beside them under other names (crash-*).
 */
#include <errno.h>
#include <sys/stat.h>

#include "format/utext.h"
#include "flight_synth.h"
#include "pt_synth.h"
#include "scenario.h"

static const char *top;
static int failed;

static void put_file(const char *target, const char *name, const void *data, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", top, target);
	if (mkdir(path, 0755) && errno != EEXIST) {
		perror(path);
		failed = 1;
		return;
	}
	snprintf(path, sizeof(path), "%s/%s/seed-%s", top, target, name);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		perror(path);
		failed = 1;
	}
}

/*
 * The stream of @s (records, PHC, KSYMS, PT, KTEXT as synth_stream), for
 * the analysis targets (whole and by window) and, if @stream_too, the reader's.
 */
static void put_synth(const char *name, const struct synth *s, bool stream_too)
{
	struct membuf m;

	synth_stream(s, &m);
	put_file("analysis", name, m.data, m.len);
	put_file("window", name, m.data, m.len);
	if (stream_too)
		put_file("stream", name, m.data, m.len);
	free(m.data);
}

static void put_scen(const char *name, struct scen *sc, bool stream_too)
{
	synth_flush(&sc->s);
	put_synth(name, &sc->s, stream_too);
	synth_free(&sc->s);
}

static void scenarios(void)
{
	static const struct {
		const char *name;
		enum scen_kind kind;
	} kinds[] = {
		{ "hog", SC_HOG }, { "netrx", SC_NETRX }, { "netrx-app", SC_NETRX_APP },
		{ "kworker", SC_KWORKER }, { "fault", SC_FAULT }, { "idleirq", SC_IDLE_IRQ },
		{ "small", SC_SMALL }, { "drop", SC_DROP },
	};
	struct scen sc;
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		memset(&sc, 0, sizeof(sc));
		scen_init(&sc, "server");
		scen_run(&sc, 12, kinds[i].kind, 4, 3);
		put_scen(kinds[i].name, &sc, kinds[i].kind == SC_DROP);
	}
	memset(&sc, 0, sizeof(sc));
	scen_init(&sc, "server");
	scen_run(&sc, 8, SC_NORMAL, 0, 0);
	scen_batch(&sc, 3);
	scen_run(&sc, 2, SC_NORMAL, 0, 0);
	put_scen("batch", &sc, false);

	/* Sleep states, wakers and a lock holder: blocking chains. */
	memset(&sc, 0, sizeof(sc));
	scen_init(&sc, "server");
	for (i = 0; i < 12; i++) {
		if (i % 4 == 3)
			scen_lock_pair(&sc);
		else if (i == 5)
			scen_preempted(&sc);
		else
			scen_woken(&sc);
	}
	put_scen("lock", &sc, false);

	/* The same in compact records, as nsightctl writes the module's. */
	memset(&sc, 0, sizeof(sc));
	scen_init(&sc, "server");
	sc.s.compact = true;
	sc.s.chunk_max = 1024;
	for (i = 0; i < 12; i++)
		if (i % 4 == 3)
			scen_lock_pair(&sc);
		else
			scen_woken(&sc);
	scen_run(&sc, 6, SC_HOG, 2, 1);
	put_scen("compact", &sc, true);

	memset(&sc, 0, sizeof(sc));
	scen_init(&sc, "server");
	sc.s.ksyms = SC_KSYMS;
	scen_run(&sc, 12, SC_NETRX_FN, 4, 3);
	put_scen("sampled", &sc, true);
}

/* Intel PT: as tests/test_pt_evidence.c, slow_fn traced on each mark. */
#define STUB	0xffffffff81010000ULL
static const uint8_t stub_code[] = {
	0xe8, 0x0b, 0x00, 0x00, 0x00, 0x90, 0x90, 0x90,
	0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
	0x90, 0xc3,
};

static void pt(void)
{
	struct nsight_rec_pt r;
	struct scen sc;
	struct enc x;
	size_t i;

	memset(&sc, 0, sizeof(sc));
	scen_init(&sc, "server");
	rec_hdr(&r, NSIGHT_REC_PT, sizeof(r), SC_Y, SC_BASE - 1000);
	r.flags = NSIGHT_PT_START;
	synth_put(&sc.s, SC_Y, &r, sizeof(r));
	scen_run(&sc, 12, SC_NETRX_PT, 4, 3);
	enc_init(&x, 0);
	for (i = 0; i < sc.n_marks; i++) {
		psb_plus(&x, sc.marks[i] + 100, 0);
		mode64(&x);
		pge(&x, STUB);
		tsc(&x, sc.marks[i] + 39800);
		tip(&x, STUB + 5);
		stop_at(&x, STUB + 5);
	}
	sc.s.ksyms = SC_KSYMS;
	sc.s.pt[SC_Y] = x.buf;
	sc.s.pt_len[SC_Y] = enc_fini(&x);
	sc.s.ktext = stub_code;
	sc.s.ktext_len = sizeof(stub_code);
	sc.s.ktext_addr = STUB;
	put_scen("pt", &sc, true);
}

/*
 * User code for PT: a process's pt_cr3 record and a UTEXT chunk of its
 * code (u_loop calling f, which switches CR3), the trace entering it
 * under that CR3 on each mark.
 */
static void pt_user(void)
{
	struct nsight_utext_hdr h = { .pid = 100, .addr = 0x600000, .path = "/usr/sbin/server" };
	struct nsight_usym syms[] = { { 0x600000, 7, 0 }, { 0x600010, 6, 7 }, { 0x600030, 4, 9 } };
	struct nsight_rec_pt_cr3 c;
	uint8_t code[0x40];
	struct nsight_rec_pt r = { 0 };
	struct scen sc;
	struct enc x;
	size_t i, size;
	void *u;

	user_loop(code, sizeof(code), 0x600000, 0x600010, 0x600030);
	memcpy(code + 0x30, (const uint8_t[]){ 0x0f, 0x22, 0xd8, 0xc3 }, 4);
	u = nsight_utext_build(&h, code, sizeof(code), syms, 3, "u_loop\0f\0sw", 12, &size);
	if (!u)
		abort();
	memset(&sc, 0, sizeof(sc));
	scen_init(&sc, "server");
	rec_hdr(&r, NSIGHT_REC_PT, sizeof(r), SC_Y, SC_BASE - 1000);
	r.flags = NSIGHT_PT_START;
	synth_put(&sc.s, SC_Y, &r, sizeof(r));
	rec_hdr(&c, NSIGHT_REC_PT_CR3, sizeof(c), SC_Y, SC_BASE - 900);
	c.cr3 = 0x1234000;
	c.tid = 101;
	c.pid = 100;
	c.flags = 0;
	c.pad = 0;
	synth_put(&sc.s, SC_Y, &c, sizeof(c));
	scen_run(&sc, 12, SC_NETRX_PT, 4, 3);
	enc_init(&x, 0);
	for (i = 0; i < sc.n_marks; i++) {
		psb(&x);
		tsc(&x, sc.marks[i] + 100);
		pip(&x, 0x1234000);
		psbend(&x);
		mode64(&x);
		pge(&x, 0x600000);
		tsc(&x, sc.marks[i] + 30000);
		pip(&x, 0x1234000);
		tsc(&x, sc.marks[i] + 39800);
		stop_at(&x, 0x600033);
	}
	sc.s.pt[SC_Y] = x.buf;
	sc.s.pt_len[SC_Y] = enc_fini(&x);
	sc.s.more[0] = u;
	sc.s.more_len[0] = size;
	sc.s.more_type[0] = NSIGHT_CHUNK_UTEXT;
	sc.s.n_more = 1;
	put_scen("pt-user", &sc, true);
	free(u);
}

#define UDP	IPPROTO_UDP
#define TCP	IPPROTO_TCP

/*
 * As tests/test_lifetime.c: UDP and TCP sends (two of them handed to the
 * driver in pkt_stage records, one segment sent again), TCP receives (the last two with their
 * starts in app_recv_start records), a sock_drop record.
 */
static void tx_tcp(struct synth *s)
{
	struct nsight_flow u = flow4("10.0.0.2", 5001, "10.0.0.9", 7000, UDP);
	struct nsight_flow t = flow4("10.0.0.2", 6000, "10.0.0.9", 443, TCP);
	struct nsight_flow sock = flow4("10.0.0.2", 80, "10.0.0.1", 40000, TCP);
	struct nsight_flow pkt = flow4("10.0.0.1", 40000, "10.0.0.2", 80, TCP);

	synth_init(s, 4);
	synth_tk(s, 0, SYN_TK_TSC);
	synth_sync(s, 0, 2000);
	synth_pkt(s, 3, 79000, NSIGHT_PKT_TX_QUEUE, 0xc0, u, 0, 100, 0);
	synth_app(s, NSIGHT_REC_APP_SEND, 2, 80000, 0x71, u, 100, 0, 201, 200, "client");
	synth_pkt(s, 2, 80500, NSIGHT_PKT_TX_QUEUE, 0xc1, u, 0, 100, 0);
	synth_pkt_stage(s, 2, 81000, NSIGHT_PKT_TX_XMIT, 0xc1, 2);
	synth_pkt(s, 3, 83000, NSIGHT_PKT_TX_TSTAMP, 0xc1, u, 0, 100, 0);
	synth_app(s, NSIGHT_REC_APP_SEND, 0, 100000, 0x81, t, 3000, 5000, 211, 210, "tls");
	synth_pkt(s, 0, 100200, NSIGHT_PKT_TX_QUEUE, 0xd1, t, 5000, 1448, 0);
	synth_pkt_stage(s, 0, 100250, NSIGHT_PKT_TX_XMIT, 0xd1, 2);
	synth_pkt(s, 0, 100300, NSIGHT_PKT_TX_QUEUE, 0xd2, t, 6448, 1448, 0);
	synth_pkt(s, 0, 100350, NSIGHT_PKT_TX_XMIT, 0xd2, t, 6448, 1448, 0);
	synth_pkt(s, 0, 100400, NSIGHT_PKT_TX_QUEUE, 0xd3, t, 7896, 104, 0);
	synth_pkt(s, 0, 100450, NSIGHT_PKT_TX_XMIT, 0xd3, t, 7896, 104, 0);
	synth_pkt(s, 1, 101000, NSIGHT_PKT_TX_TSTAMP, 0xd3, t, 7896, 104, 0);
	/* The last segment again: a retransmission. */
	synth_pkt(s, 0, 105000, NSIGHT_PKT_TX_QUEUE, 0xd3, t, 7896, 104, 0);
	synth_pkt(s, 0, 105050, NSIGHT_PKT_TX_XMIT, 0xd3, t, 7896, 104, 0);
	synth_app(s, NSIGHT_REC_APP_SEND, 0, 110000, 0x81, t, 10, 8000, 211, 210, "tls");
	/* A small send held by Nagle until the peer's ACK (on CPU 1). */
	synth_send_tcp(s, 0, 120000, 0x81, t, 10, 8010, 211, 210, "tls",
		       &(struct nsight_tcp_send_state){ .snd_una = 8000, .snd_nxt = 8010,
			       .snd_wnd = 65535, .snd_cwnd = 10, .packets_out = 1, .mss = 1448,
			       .wmem_queued = 10, .sndbuf = 87040, .srtt_us = 50 });
	synth_pkt(s, 1, 130000, NSIGHT_PKT_RX_RECEIVE, 0xd4, flow4("10.0.0.9", 443, "10.0.0.2", 6000, TCP),
		  90000, 0, 0);
	synth_pkt(s, 1, 130050, NSIGHT_PKT_TX_QUEUE, 0xd5, t, 8010, 10, 0);
	synth_pkt(s, 1, 130100, NSIGHT_PKT_TX_XMIT, 0xd5, t, 8010, 10, 0);

	synth_pkt(s, 1, 150000, NSIGHT_PKT_RX_GRO, 0xb1, pkt, 1000, 100, 0);
	synth_pkt(s, 1, 150100, NSIGHT_PKT_RX_RECEIVE, 0xb1, pkt, 1000, 100, 0);
	synth_handoff(s, 1, 150150, 0x61, sock, 0xb1, 1100);
	synth_pkt(s, 1, 150200, NSIGHT_PKT_RX_GRO, 0xb2, pkt, 1100, 100, 0);
	synth_pkt(s, 1, 150300, NSIGHT_PKT_RX_GRO, 0xb3, pkt, 1200, 100, 0);
	synth_pkt(s, 1, 150400, NSIGHT_PKT_RX_RECEIVE, 0xb2, pkt, 1100, 200, NSIGHT_PKT_F_GSO);
	synth_handoff(s, 1, 150450, 0x61, sock, 0xb2, 1300);
	synth_app(s, NSIGHT_REC_APP_RECV, 0, 152000, 0x61, sock, 300, 1300, 201, 200, "web");
	synth_pkt(s, 1, 160000, NSIGHT_PKT_RX_GRO, 0xb5, pkt, 1300, 50, 0);
	synth_pkt(s, 1, 160050, NSIGHT_PKT_RX_RECEIVE, 0xb5, pkt, 1300, 50, 0);
	synth_handoff(s, 1, 160100, 0x61, sock, 0xb5, 1350);
	/* A datagram the receive buffer had no room for. */
	synth_sock_drop(s, 1, 160200, 0x61, sock, 0xb6, -ENOMEM, 4608, 4608);
	/* Receives whose starts are app_recv_start records (6.3 and later). */
	synth_recv_start(s, 0, 160500, 201);
	synth_recv_end(s, 0, 161000, 0x61, sock, 20, 201, 200, "web");
	synth_recv_start(s, 1, 161500, 201);
	synth_recv_end(s, 0, 162000, 0x61, sock, 30, 201, 200, "web");
}

/*
 * @s's records with STATUS (the kernel's counters; @lie: one CPU's off by
 * one) and PHC chunks, a chunk of an unknown type and a record of an
 * unknown type.
 */
static void put_full(const char *name, struct synth *s, bool lie)
{
	struct nsight_stream_hdr h = { .tsc_hz = s->tsc_hz, .nr_cpus = s->nr_cpus,
				       .sources = NSIGHT_SOURCES_ALL };
	struct nsight_cpu_status st[SYN_MAX_CPUS];
	struct nsight_phc_sample phc[3];
	struct nsight_rec_hdr unk;
	struct nsight_stream_writer w;
	struct membuf m;
	uint32_t i;

	rec_hdr(&unk, 0x7777, sizeof(unk), 1, 200000);
	synth_put(s, 1, &unk, sizeof(unk));
	memset(st, 0, sizeof(st));
	for (i = 0; i < s->nr_cpus; i++) {
		struct nsight_rec_walker wk;
		struct nsight_diag d = { 0 };
		struct nsight_rec rec;
		uint64_t n = 0;

		nsight_rec_walker_init(&wk, s->buf[i], s->len[i], i, 0);
		while (nsight_rec_walker_next(&wk, &rec, &d) > 0)
			n += rec.hdr.type != NSIGHT_REC_SUBBUF;
		st[i].cpu = i;
		st[i].online = 1;
		st[i].records_written = n + (lie && i == 1);
		st[i].hook_hits = n + 2;
		st[i].records_dropped = 2;
	}
	memset(phc, 0, sizeof(phc));
	for (i = 0; i < 3; i++) {
		phc[i].phc_index = i / 2;
		phc[i].ifindex = 2 + i / 2;
		phc[i].method = i == 2 ? NSIGHT_PHC_PRECISE : NSIGHT_PHC_EXTENDED;
		phc[i].sys_before_ns = SYN_OFFS + SYN_MONO0 + 1000 * i;
		phc[i].sys_after_ns = phc[i].sys_before_ns + (i == 2 ? 0 : 300 + 100 * i);
		phc[i].phc_ns = 1000000 + 1000 * i;
		snprintf(phc[i].ifname, sizeof(phc[i].ifname), "eth%u", i / 2);
	}
	snprintf(h.release, sizeof(h.release), "6.12.0-seed");
	membuf_open(&m, &w);
	nsight_stream_write_header(&w, &h);
	for (i = 0; i < s->nr_cpus; i++)
		nsight_stream_write_records(&w, i, s->buf[i], s->len[i]);
	nsight_stream_write_chunk(&w, 0x99, NSIGHT_CHUNK_NO_CPU, "future", 6);
	nsight_stream_write_status(&w, st, s->nr_cpus);
	nsight_stream_write_phc(&w, phc, 3);
	nsight_stream_write_end(&w);
	membuf_close(&m);
	put_file("analysis", name, m.data, m.len);
	put_file("window", name, m.data, m.len);
	put_file("stream", name, m.data, m.len);
	free(m.data);
}

static void full(void)
{
	struct synth s;

	tx_tcp(&s);
	put_full("tx-tcp-status-phc", &s, false);
	synth_free(&s);
	tx_tcp(&s);
	put_full("tx-tcp-status-mismatch", &s, true);
	synth_free(&s);
}

static void text(const char *target, const char *name, const char *t)
{
	put_file(target, name, t, strlen(t));
}

static void ksyms(void)
{
	text("ksyms", "scenario", SC_KSYMS);
	text("ksyms", "kernel-and-modules",
	     "ffffffff81000000 T _stext\n"
	     "ffffffff81000000 T startup_64\n"
	     "ffffffff81001000 t secondary_startup_64\n"
	     "ffffffff81002000 D some_data\n"
	     "ffffffff81003000 W weak_fn\n"
	     "ffffffff81ffffff T _etext\n"
	     "ffffffffc0000000 t veth_xmit\t[veth]\n"
	     "ffffffffc0000100 t veth_poll\t[veth]\n"
	     "ffffffffc0200000 t e1000_intr\t[e1000e]\n"
	     "ffffffffc0200080 T e1000e_poll\t[e1000e]\n");
	text("ksyms", "hidden-addresses",
	     "0000000000000000 T _stext\n"
	     "0000000000000000 t veth_xmit\t[veth]\n");
	text("ksyms", "errors", "ffffffff81000000 T\n12345678901234567 T long\nzz T x\n");
	text("categories", "user", "# comment\n"
	     "task,stress*,hog interference\n"
	     "func,*> ip_rcv,<outer>: ip_rcv\n"
	     "irq,mlx5*,NIC interrupt <name>\n"
	     "idle,*,Idle after <name>\n"
	     "work,vmstat_update,OS threads: <name>\n");
	text("categories", "errors", "bogus,x,y\ntask,,empty pattern\ntask,a\n");
}

/* A flight recorder's stream: four windows; fuzz_window takes them (bit 30). */
static void flight(void)
{
	struct nsight_flight_opts o = { .threshold_ns = 30000, .before_ns = 5000000,
					.after_ns = 1000000 };
	struct fr_counts f;
	struct fr_case fc = { .sources = 7 | (1U << 30) };
	struct membuf m;

	make_case(&fc);
	flight_stream(&fc, &o, 0, &m, &f);
	put_file("analysis", "flight", m.data, m.len);
	put_file("window", "flight", m.data, m.len);
	put_file("stream", "flight", m.data, m.len);
	free(m.data);
	free_case(&fc);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_seeds DIR\n");
		return 2;
	}
	top = argv[1];
	scenarios();
	pt();
	pt_user();
	full();
	flight();
	ksyms();
	return failed;
}
