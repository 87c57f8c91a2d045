// SPDX-License-Identifier: MIT
/*
 * Compact records (the module's relay format, CRECORDS chunks): encoded
 * and expanded again they are the records they stand for; a malformed
 * one is an error naming its byte and CPU; and nsight-analyze gives the
 * same answers on a capture written either way.
 */
#include <json-c/json.h>

#include "clirun.h"
#include "scenario.h"

static struct cli c;

/* A capture with every kind of cause the scenarios have, in two forms. */
static void make_mixed(struct scen *sc)
{
	static const enum scen_kind slow[] = { SC_HOG, SC_KWORKER, SC_FAULT, SC_NETRX,
					       SC_IDLE_IRQ, SC_SMALL };

	scen_init(sc, "server");
	scen_mixed(sc, 120, slow, 6, 5, 2, 105);
}

/* Every record of @cpu comes back byte for byte, and smaller on the way. */
static void test_round_trip(void)
{
	unsigned int seen[256] = { 0 }, small = 0, t;
	struct scen sc;
	uint32_t cpu;

	make_mixed(&sc);
	/* What the scenarios lack: a wake-up, UDP and TCP sends, a stamped packet. */
	{
		struct nsight_tcp_send_state ts = { .snd_una = 1, .snd_nxt = 5, .snd_cwnd = 10,
						    .mss = 1448 };
		struct nsight_flow tcp = flow4("10.0.0.2", 11211, "10.0.0.1", 40000, IPPROTO_TCP);

		synth_waking(&sc.s, SC_Y, sc.t + 1500, sc_server, SC_Y, 0);
		synth_app(&sc.s, NSIGHT_REC_APP_SEND, SC_Y, sc.t + 2000, 7, sc.sock, 100, 0,
			  sc_server.tid, sc_server.pid, "server");
		synth_send_tcp(&sc.s, SC_Y, sc.t + 3000, 8, tcp, 100, 5, sc_server.tid,
			       sc_server.pid, "server", &ts);
		/* TCP stamps what it sends: a packet with sw_tstamp. */
		{
			struct nsight_rec_pkt p;

			rec_hdr(&p, NSIGHT_REC_PKT, sizeof(p), SC_Y, sc.t + 4000);
			p.pkt_id = 77;
			p.sw_tstamp = 123456789;
			p.flow = tcp;
			p.stage = NSIGHT_PKT_TX_QUEUE;
			synth_put(&sc.s, SC_Y, &p, sizeof(p));
		}
		/* A NAPI poll, by ifindex. */
		{
			struct nsight_rec_napi_poll np;

			rec_hdr(&np, NSIGHT_REC_NAPI_POLL, sizeof(np), SC_Y, sc.t + 4500);
			np.ifindex = 2;
			np.work = 3;
			np.budget = 64;
			synth_put(&sc.s, SC_Y, &np, sizeof(np));
		}
		/* The long forms next to the short ones: values a short form cannot hold. */
		{
			struct nsight_rec_sched_switch sw;
			struct nsight_rec_waking wk;
			struct nsight_rec_app a;
			struct nsight_rec_pkt_stage ps;
			struct nsight_rec_app_copy cp;

			rec_hdr(&sw, NSIGHT_REC_SCHED_SWITCH, sizeof(sw), SC_Y, sc.t + 5000);
			sw.prev_tid = sw.next_tid = sc_server.tid;
			sw.prev_pid = sw.next_pid = sc_server.pid;
			sw.prev_prio = 120;
			sw.next_prio = 100;	/* a high-priority kworker */
			sw.prev_state = 1;
			strcpy(sw.prev_comm, "server");
			strcpy(sw.next_comm, "server");
			synth_put(&sc.s, SC_Y, &sw, sizeof(sw));
			sw.hdr.tsc += 100;
			sw.next_prio = 120;
			sw.prev_state = 1u << NSIGHT_CREC_ARG_BITS;
			synth_put(&sc.s, SC_Y, &sw, sizeof(sw));
			sw.hdr.tsc += 50;
			sw.prev_state = 0;
			sw.flags = NSIGHT_SWITCH_PREEMPT;
			synth_put(&sc.s, SC_Y, &sw, sizeof(sw));
			rec_hdr(&wk, NSIGHT_REC_WAKING, sizeof(wk), SC_Y, sc.t + 5200);
			wk.tid = sc_server.tid;
			wk.pid = sc_server.pid;
			wk.prio = 0;		/* real-time */
			wk.target_cpu = SC_Y;
			strcpy(wk.comm, "server");
			synth_put(&sc.s, SC_Y, &wk, sizeof(wk));
			/* A receive whose start an app_recv_start record gave: start_tsc 0. */
			rec_hdr(&a, NSIGHT_REC_APP_RECV, sizeof(a), SC_Y, sc.t + 5300);
			a.sock_id = 7;
			a.flow = sc.sock;
			a.ret = 100;
			a.tid = sc_server.tid;
			a.pid = sc_server.pid;
			strcpy(a.comm, "server");
			synth_put(&sc.s, SC_Y, &a, sizeof(a));
			/*
			 * A datagram socket's other peer: the flow the memo does not
			 * have stays in the records (hand-off, receive, send).
			 */
			{
				struct nsight_flow other = flow4("10.0.0.9", 7000, "10.0.0.2", 9000,
								 IPPROTO_UDP);
				struct nsight_rec_app o = a;

				synth_handoff(&sc.s, SC_Y, sc.t + 5310, 7, other, 99, 0);
				o.hdr.tsc = sc.t + 5320;
				o.flow = other;
				synth_put(&sc.s, SC_Y, &o, sizeof(o));
				o.hdr.type = NSIGHT_REC_APP_SEND;
				o.hdr.tsc = sc.t + 5330;
				o.start_tsc = o.hdr.tsc;
				synth_put(&sc.s, SC_Y, &o, sizeof(o));
			}
			/* A receive timed by its own record, a send of more than 2 GiB. */
			a.hdr.tsc += 100;
			a.start_tsc = a.hdr.tsc - 50;
			synth_put(&sc.s, SC_Y, &a, sizeof(a));
			a.hdr.type = NSIGHT_REC_APP_SEND;
			a.hdr.tsc += 100;
			a.start_tsc = a.hdr.tsc;
			a.ret = 3000000000LL;
			synth_put(&sc.s, SC_Y, &a, sizeof(a));
			synth_pkt_stage(&sc.s, SC_Y, sc.t + 5600, NSIGHT_PKT_TX_XMIT, 77, 3);
			rec_hdr(&ps, NSIGHT_REC_PKT_STAGE, sizeof(ps), SC_Y, sc.t + 5700);
			ps.pkt_id = 77;
			ps.stage = NSIGHT_PKT_TX_XMIT;
			ps.flags = NSIGHT_PKT_F_GSO;
			ps.gso_segs = 300;
			synth_put(&sc.s, SC_Y, &ps, sizeof(ps));
			/* A datagram copied to the server, then TCP data at a sequence. */
			synth_copy(&sc.s, SC_Y, sc.t + 5800, 77, sc_server.tid, sc_server.pid, 64);
			rec_hdr(&cp, NSIGHT_REC_APP_COPY, sizeof(cp), SC_Y, sc.t + 5900);
			cp.pkt_id = 78;
			cp.seq = 1000;
			cp.len = 64;
			cp.tid = sc_server.tid;
			cp.pid = sc_server.pid;
			synth_put(&sc.s, SC_Y, &cp, sizeof(cp));
		}
	}
	synth_flush(&sc.s);
	for (cpu = 0; cpu < 2; cpu++) {
		struct nsight_rec_walker a, b;
		struct nsight_rec ra, rb;
		struct nsight_diag d = { 0 };
		struct nsight_cdec dec;
		uint8_t *enc;
		size_t len, pos;
		int ret;

		REQUIRE(nsight_crecords_encode(sc.s.buf[cpu], sc.s.len[cpu], &enc, &len) == 0);
		printf("# cpu %u: %zu bytes of records, %zu compact\n", cpu, sc.s.len[cpu], len);
		CHECK(len < sc.s.len[cpu] * 4 / 5);
		for (pos = 0; pos < len;) {
			uint64_t h;

			memcpy(&h, enc + pos, sizeof(h));
			seen[NSIGHT_CREC_TYPE(h)]++;
			if (NSIGHT_CREC_TYPE(h) == NSIGHT_REC_NAPI_POLL)
				CHECK_U64(NSIGHT_CREC_SIZE(h), 16);
			pos += NSIGHT_CREC_SIZE(h);
		}
		nsight_cdec_init(&dec);
		nsight_rec_walker_init(&a, sc.s.buf[cpu], sc.s.len[cpu], cpu, 0);
		nsight_rec_walker_init_compact(&b, enc, len, cpu, 0, &dec);
		while ((ret = nsight_rec_walker_next(&a, &ra, &d)) > 0) {
			/* The names and flows the compact form adds are not in the original. */
			do
				REQUIRE(nsight_rec_walker_next(&b, &rb, &d) == 1);
			while (rb.hdr.type == NSIGHT_REC_THREAD || rb.hdr.type == NSIGHT_REC_SOCK);
			CHECK_U64(rb.hdr.type, ra.hdr.type);
			CHECK_U64(rb.hdr.size, ra.hdr.size);
			CHECK_U64(rb.hdr.tsc, ra.hdr.tsc);
			CHECK_U64(rb.hdr.cpu, cpu);
			if (rb.hdr.size == ra.hdr.size && memcmp(ra.data, rb.data, ra.hdr.size)) {
				printf("# cpu %u: %s record at tsc %llu differs\n", cpu,
				       nsight_rec_type_name(ra.hdr.type), (unsigned long long)ra.hdr.tsc);
				CHECK(0);
			}
		}
		CHECK_U64(ret, 0);
		CHECK_U64(nsight_rec_walker_next(&b, &rb, &d), 0);
		CHECK_U64(dec.nameless, 0);
		nsight_cdec_fini(&dec);
		free(enc);
	}
	/* Each compact form was used. */
	CHECK(seen[NSIGHT_CREC_PKT4] > 0);
	CHECK_U64(seen[NSIGHT_CREC_PKT4_TS], 1);
	CHECK(seen[NSIGHT_CREC_HANDOFF4] > 0);
	CHECK(seen[NSIGHT_CREC_APP_RECV4N] > 0);
	CHECK(seen[NSIGHT_CREC_APP_SEND4N] > 0);
	CHECK_U64(seen[NSIGHT_CREC_SWITCH], 2);
	CHECK_U64(seen[NSIGHT_CREC_WAKING], 1);
	CHECK(seen[NSIGHT_CREC_SWITCH_S] > 0);
	CHECK(seen[NSIGHT_CREC_SWITCH_S_PREEMPT] > 0);
	CHECK(seen[NSIGHT_CREC_WAKING_S] > 0);
	CHECK_U64(seen[NSIGHT_CREC_APP_RECV4S], 1);
	CHECK_U64(seen[NSIGHT_CREC_APP_SEND4S], 1);
	CHECK(seen[NSIGHT_CREC_SOCK4] > 0);
	CHECK(seen[NSIGHT_CREC_HANDOFF4F] > seen[NSIGHT_CREC_SOCK4]);
	CHECK(seen[NSIGHT_CREC_APP_RECV4F] > 0);
	CHECK(seen[NSIGHT_CREC_APP_SEND4F] > 0);
	CHECK(seen[NSIGHT_CREC_APP_RECV4N] > 0);
	CHECK(seen[NSIGHT_CREC_PKT_STAGE] > 0);
	CHECK(seen[NSIGHT_CREC_APP_COPY0] > 0);
	CHECK(seen[NSIGHT_REC_PKT_STAGE] == 1);
	CHECK_U64(seen[NSIGHT_REC_NAPI_POLL], 1);
	CHECK(seen[NSIGHT_REC_APP_COPY] > 0);
	/* Each task named once per CPU, not per record. */
	CHECK(seen[NSIGHT_REC_THREAD] > 0);
	CHECK(seen[NSIGHT_REC_THREAD] * 4 < seen[NSIGHT_CREC_SWITCH_S]);
	/* softirq and idle records as their header word alone. */
	for (t = NSIGHT_CREC_SOFTIRQ_ENTRY; t < NSIGHT_CREC_IDLE_ENTRY + NSIGHT_CREC_SMALL_ARGS; t++)
		small += seen[t];
	CHECK(seen[NSIGHT_CREC_SOFTIRQ_ENTRY + 3] > 0);
	CHECK(seen[NSIGHT_CREC_SOFTIRQ_EXIT + 3] > 0);
	CHECK(seen[NSIGHT_CREC_IDLE_EXIT] > 0);
	CHECK(small > seen[NSIGHT_REC_SOFTIRQ] + seen[NSIGHT_REC_IDLE]);
	synth_free(&sc.s);
}

/* Walk compact @buf on cpu 2 from offset 500; the walker's last result. */
static int walk(const void *buf, size_t len, size_t *n, uint64_t *last_tsc, char *msg)
{
	struct nsight_rec_walker w;
	struct nsight_diag d = { 0 };
	struct nsight_cdec dec;
	struct nsight_rec rec;
	int ret;

	*n = 0;
	nsight_cdec_init(&dec);
	nsight_rec_walker_init_compact(&w, buf, len, 2, 500, &dec);
	while ((ret = nsight_rec_walker_next(&w, &rec, &d)) > 0) {
		(*n)++;
		*last_tsc = rec.hdr.tsc;
	}
	strcpy(msg, d.msg);
	return ret;
}

static void subbuf(uint64_t *p, uint64_t tsc)
{
	struct nsight_crec_subbuf sb = { .hdr = NSIGHT_CREC_HDR(NSIGHT_REC_SUBBUF, 32, tsc),
					 .tsc = tsc };

	memcpy(p, &sb, sizeof(sb));
}

static void test_malformed(void)
{
	uint64_t buf[16] = { 0 };
	uint64_t tsc = 0;
	char msg[NSIGHT_DIAG_LEN];
	size_t n;

	/* A record before any sub-buffer header has no TSC to extend. */
	buf[0] = NSIGHT_CREC_HDR(NSIGHT_REC_SOFTIRQ, 16, 5);
	CHECK_U64(walk(buf, 16, &n, &tsc, msg), -NSIGHT_E_RECORD);
	CHECK_STR_HAS(msg, "compact record at byte 500 (cpu 2): softirq record before the first sub-buffer header");

	/* The TSC goes on across the 48 bits: the smallest later one. */
	subbuf(buf, (3ULL << 48) - 10);
	buf[4] = NSIGHT_CREC_HDR(NSIGHT_REC_SOFTIRQ, 16, 20);
	CHECK_U64(walk(buf, 48, &n, &tsc, msg), 0);
	CHECK_U64(n, 2);
	CHECK_U64(tsc, (3ULL << 48) + 20);

	/* The sub-buffer header's two TSCs disagree. */
	buf[3] = 7;
	CHECK_U64(walk(buf, 48, &n, &tsc, msg), -NSIGHT_E_RECORD);
	CHECK_STR_HAS(msg, "compact record at byte 500 (cpu 2): sub-buffer header's TSC 0x7 does not end");

	/* Sizes: 0, past the end, below the type's. */
	subbuf(buf, 100);
	buf[4] = NSIGHT_CREC_HDR(NSIGHT_REC_SOFTIRQ, 0, 120);
	CHECK_U64(walk(buf, 48, &n, &tsc, msg), -NSIGHT_E_RECORD);
	CHECK_STR_HAS(msg, "compact record at byte 532 (cpu 2): softirq record of 0 bytes, needs at least 16");
	buf[4] = NSIGHT_CREC_HDR(NSIGHT_REC_SOFTIRQ, 24, 120);
	CHECK_U64(walk(buf, 48, &n, &tsc, msg), -NSIGHT_E_RECORD);
	CHECK_STR_HAS(msg, "size 24 runs past the end of its chunk (16 bytes left)");
	buf[4] = NSIGHT_CREC_HDR(NSIGHT_CREC_PKT4, 48, 120);
	CHECK_U64(walk(buf, 96, &n, &tsc, msg), -NSIGHT_E_RECORD);
	CHECK_STR_HAS(msg, "pkt (compact) record of 48 bytes, needs at least 56");
	buf[4] = NSIGHT_CREC_HDR(0, 16, 120);
	CHECK_U64(walk(buf, 48, &n, &tsc, msg), -NSIGHT_E_RECORD);
	CHECK_STR_HAS(msg, "invalid record type 0");
	CHECK_U64(walk(buf, 36, &n, &tsc, msg), -NSIGHT_E_RECORD);
	CHECK_STR_HAS(msg, "header needs 8 bytes, 4 left");

	/* A type this build does not know is yielded for the caller to skip. */
	buf[4] = NSIGHT_CREC_HDR(200, 24, 120);
	CHECK_U64(walk(buf, 56, &n, &tsc, msg), 0);
	CHECK_U64(n, 2);
	CHECK_U64(tsc, 120);
}

static void test_whole_prefix(void)
{
	uint64_t buf[12] = { 0 };

	subbuf(buf, 100);
	buf[4] = NSIGHT_CREC_HDR(NSIGHT_REC_SOFTIRQ, 16, 120);
	buf[6] = NSIGHT_CREC_HDR(NSIGHT_REC_SOFTIRQ, 16, 130);
	CHECK_U64(nsight_crecords_whole_prefix(buf, 64), 64);
	CHECK_U64(nsight_crecords_whole_prefix(buf, 63), 48);
	CHECK_U64(nsight_crecords_whole_prefix(buf, 31), 0);
	buf[6] = NSIGHT_CREC_HDR(NSIGHT_REC_SOFTIRQ, 0, 130);
	CHECK_U64(nsight_crecords_whole_prefix(buf, 96), 48);
}

/* Append a thread record naming @tid at @tsc to @p; returns the bytes written. */
static size_t put_thread(uint8_t *p, uint32_t tid, const char *comm, uint64_t tsc)
{
	struct nsight_rec_thread t = { .tid = tid, .pid = tid };
	uint64_t w = NSIGHT_CREC_HDR(NSIGHT_REC_THREAD, 32, tsc);

	snprintf(t.comm, sizeof(t.comm), "%s", comm);
	memcpy(p, &w, 8);
	memcpy(p + 8, (uint8_t *)&t + sizeof(t.hdr), 24);
	return 32;
}

static size_t put_switch(uint8_t *p, uint32_t prev, uint32_t next, uint64_t tsc)
{
	struct nsight_crec_switch r = { .hdr = NSIGHT_CREC_HDR(NSIGHT_CREC_SWITCH_PREEMPT, 24, tsc),
					.prev_tid = prev, .next_tid = next, .prev_prio = 120,
					.next_prio = -1 };

	memcpy(p, &r, sizeof(r));
	return sizeof(r);
}

/*
 * Records that give a task by tid take the name of the last thread record
 * before them on their CPU, also when their chunk is walked again after
 * the task was renamed (--window reads chunks again); a tid never named is
 * counted once, however often it is walked.
 */
static void test_thread_names(void)
{
	uint8_t buf[512] = { 0 };
	struct nsight_crec_app4n a = { .hdr = NSIGHT_CREC_HDR(NSIGHT_CREC_APP_RECV4N, 64, 170),
				       .tid = 7, .ret = 100 };
	struct nsight_rec_sched_switch sw;
	struct nsight_rec_app app;
	struct nsight_diag d = { 0 };
	struct nsight_rec_walker w;
	struct nsight_cdec dec;
	struct nsight_rec rec;
	size_t n = 0, first_switch, pass;

	subbuf((uint64_t *)buf, 100);
	n = 32;
	n += put_thread(buf + n, 7, "srv", 110);
	first_switch = n;
	n += put_switch(buf + n, 0, 7, 120);
	n += put_thread(buf + n, 7, "srv2", 130);
	n += put_switch(buf + n, 7, 9, 140);
	memcpy(buf + n, &a, sizeof(a));
	n += sizeof(a);

	nsight_cdec_init(&dec);
	for (pass = 0; pass < 2; pass++) {
		size_t k = 0;

		dec.have_tsc = false;
		nsight_rec_walker_init_compact(&w, buf, n, 3, 1000, &dec);
		while (nsight_rec_walker_next(&w, &rec, &d) == 1) {
			k++;
			if (k == 3) {
				memcpy(&sw, rec.data, sizeof(sw));
				CHECK_U64(rec.hdr.type, NSIGHT_REC_SCHED_SWITCH);
				CHECK_U64(sw.flags, NSIGHT_SWITCH_PREEMPT);
				CHECK_U64(sw.prev_prio, 120);
				CHECK_U64((uint64_t)(int64_t)sw.next_prio, (uint64_t)-1);
				CHECK(!strcmp(sw.prev_comm, ""));
				CHECK(!strcmp(sw.next_comm, "srv"));
				CHECK_U64(sw.next_pid, 7);
			}
			if (k == 5) {
				memcpy(&sw, rec.data, sizeof(sw));
				CHECK(!strcmp(sw.prev_comm, "srv2"));
				CHECK(!strcmp(sw.next_comm, ""));
			}
			if (k == 6) {
				memcpy(&app, rec.data, sizeof(app));
				CHECK_U64(rec.hdr.type, NSIGHT_REC_APP_RECV);
				CHECK(!strcmp(app.comm, "srv2"));
				CHECK_U64(app.pid, 7);
				CHECK_U64(app.tid, 7);
				CHECK_U64(app.ret, 100);
			}
		}
		CHECK_U64(k, 6);
		/* tid 0 and tid 9, counted on the first walk only. */
		CHECK_U64(dec.nameless, 2);
		CHECK_U64(dec.nameless_at, 1000 + first_switch);
		CHECK_U64(dec.n_names, 2);
	}
	nsight_cdec_fini(&dec);
}

/* An app record of the form before thread names keeps its own pid and comm. */
static void test_app4_before_names(void)
{
	struct nsight_crec_app4 a = { .hdr = NSIGHT_CREC_HDR(NSIGHT_CREC_APP_SEND4, 80, 120),
				      .sock_id = 5, .ret = 64, .tid = 11, .pid = 10,
				      .flags = 1 };
	uint8_t buf[112] = { 0 };
	struct nsight_diag d = { 0 };
	struct nsight_rec_walker w;
	struct nsight_rec_app app;
	struct nsight_cdec dec;
	struct nsight_rec rec;

	snprintf(a.comm, sizeof(a.comm), "old");
	subbuf((uint64_t *)buf, 100);
	memcpy(buf + 32, &a, sizeof(a));
	nsight_cdec_init(&dec);
	nsight_rec_walker_init_compact(&w, buf, sizeof(buf), 0, 0, &dec);
	REQUIRE(nsight_rec_walker_next(&w, &rec, &d) == 1);
	REQUIRE(nsight_rec_walker_next(&w, &rec, &d) == 1);
	CHECK_U64(rec.hdr.type, NSIGHT_REC_APP_SEND);
	CHECK_U64(rec.hdr.size, sizeof(app));
	memcpy(&app, rec.data, sizeof(app));
	CHECK_U64(app.sock_id, 5);
	CHECK_U64(app.ret, 64);
	CHECK_U64(app.tid, 11);
	CHECK_U64(app.pid, 10);
	CHECK_U64(app.flags, 1);
	CHECK(!strcmp(app.comm, "old"));
	CHECK_U64(dec.nameless, 0);
	nsight_cdec_fini(&dec);
}

/*
 * nsight-analyze --strict on a stream of one CPU's compact records @buf
 * (@len bytes), saved as @name: exit 1 and @problem in its check.
 */
static void strict_reports(const char *name, const uint8_t *buf, size_t len, const char *problem)
{
	struct nsight_stream_hdr h = { .tsc_hz = 1000000000, .nr_cpus = 1, .sources = 7 };
	const char *names[] = { name, NULL };
	struct nsight_stream_writer w;
	struct cli_result r;
	struct membuf m;
	FILE *f;

	REQUIRE(cli_init(&c) == 0);
	membuf_open(&m, &w);
	snprintf(h.release, sizeof(h.release), "6.12.0-synth");
	CHECK(nsight_stream_write_header(&w, &h) == 0);
	CHECK(nsight_stream_write_crecords(&w, 0, buf, len) == 0);
	CHECK(nsight_stream_write_end(&w) == 0);
	membuf_close(&m);
	f = fopen(cli_file(&c, name), "wb");
	REQUIRE(f);
	CHECK(fwrite(m.data, 1, m.len, f) == m.len);
	CHECK(fclose(f) == 0);
	free(m.data);
	cli_run(&c, &r, NULL, (const char *[]){ "--strict", cli_file(&c, name), NULL });
	CHECK_U64(r.status, 1);
	CHECK_STR_HAS(r.out, problem);
	cli_result_free(&r);
	CHECK(cli_fini(&c, names) == 0);
}

/* A switch whose tasks no thread record named: a problem of the check. */
static void test_nameless_reported(void)
{
	uint8_t buf[64] = { 0 };

	subbuf((uint64_t *)buf, 100);
	put_switch(buf + 32, 5, 6, 120);
	strict_reports("nameless", buf, 56,
		       "cpu 0: 2 tasks given by tid with no thread record naming them before (the first at byte ");
}

/*
 * A hand-off by socket id whose sock record is missing: a problem of the
 * check; with the sock record before it, its flow.
 */
static void test_flowless_reported(void)
{
	struct nsight_crec_sock4 sk = { .hdr = NSIGHT_CREC_HDR(NSIGHT_CREC_SOCK4, 32, 100),
					.sock_id = 5, .flow = { .sport = 9000, .dport = 5000,
								.family = 2, .protocol = 17 } };
	struct nsight_crec_handoff4f ho = { .hdr = NSIGHT_CREC_HDR(NSIGHT_CREC_HANDOFF4F, 40, 100),
					    .sock_id = 5, .pkt_id = 9, .rcvq_len = 1 };
	struct nsight_rec_walker wk;
	struct nsight_rec_handoff got;
	struct nsight_diag d = { 0 };
	struct nsight_cdec dec;
	struct nsight_rec rec;
	uint8_t buf[104] = { 0 };

	subbuf((uint64_t *)buf, 100);
	memcpy(buf + 32, &sk, sizeof(sk));
	memcpy(buf + 64, &ho, sizeof(ho));
	nsight_cdec_init(&dec);
	nsight_rec_walker_init_compact(&wk, buf, sizeof(buf), 0, 0, &dec);
	REQUIRE(nsight_rec_walker_next(&wk, &rec, &d) == 1);
	REQUIRE(nsight_rec_walker_next(&wk, &rec, &d) == 1);
	CHECK_U64(rec.hdr.type, NSIGHT_REC_SOCK);
	REQUIRE(nsight_rec_walker_next(&wk, &rec, &d) == 1);
	CHECK_U64(rec.hdr.type, NSIGHT_REC_HANDOFF);
	memcpy(&got, rec.data, sizeof(got));
	CHECK_U64(got.flow.sport, 9000);
	CHECK_U64(got.flow.dport, 5000);
	CHECK_U64(got.flow.protocol, 17);
	CHECK_U64(got.pkt_id, 9);
	CHECK_U64(dec.flowless, 0);
	nsight_cdec_fini(&dec);

	/* Without the sock record. */
	memcpy(buf + 32, &ho, sizeof(ho));
	strict_reports("flowless", buf, 72,
		       "cpu 0: 1 record giving a socket by id with no sock record giving its flow before (the first at byte ");
}

/* The reports of a capture do not depend on the form of its records. */
static void test_same_answers(void)
{
	static const char *const keys[] = { "time", "latency", "diagnosis", "chains", "queues",
					    "critical_path" };
	const char *const names[] = { "plain", "compact", NULL };
	struct json_object *x[2];
	struct cli_result r[2];
	int k;
	size_t i;

	REQUIRE(cli_init(&c) == 0);
	for (k = 0; k < 2; k++) {
		struct scen sc;

		make_mixed(&sc);
		sc.s.chunk_max = 2048;
		sc.s.compact = k == 1;
		REQUIRE(scen_save(&sc, cli_file(&c, names[k])) == 0);
		cli_run(&c, &r[k], NULL, (const char *[]){ "--json", "--strict",
							   cli_file(&c, names[k]), NULL });
		CHECK_U64(r[k].status, 0);
		x[k] = r[k].out ? json_tokener_parse(r[k].out) : NULL;
		REQUIRE(x[k]);
	}
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		struct json_object *a, *b;
		bool same = json_object_object_get_ex(x[0], keys[i], &a) &&
			    json_object_object_get_ex(x[1], keys[i], &b) && json_object_equal(a, b);

		if (!same)
			printf("# '%s' differs\n", keys[i]);
		CHECK(same);
	}
	for (k = 0; k < 2; k++) {
		json_object_put(x[k]);
		cli_result_free(&r[k]);
	}
	CHECK(cli_fini(&c, names) == 0);
}

KTAP_MAIN(
	KTAP_TEST(test_round_trip),
	KTAP_TEST(test_malformed),
	KTAP_TEST(test_whole_prefix),
	KTAP_TEST(test_thread_names),
	KTAP_TEST(test_app4_before_names),
	KTAP_TEST(test_nameless_reported),
	KTAP_TEST(test_flowless_reported),
	KTAP_TEST(test_same_answers),
)
