// SPDX-License-Identifier: MIT
/* Per-CPU context timelines and message profiles on synthetic captures. */
#include "diagnose/categories_builtin.h"
#include "diagnose/profile.h"
#include "scenario.h"

#define NET_RX	SYN_NET_RX

static const struct syn_task bash = { 900, 900, "bash" };
static const struct syn_task server = { 101, 100, "server" };
static const struct syn_task other = { 301, 300, "other" };
static const struct syn_task worker = { 201, 200, "worker" };
static const struct syn_task kworker = { 40, 40, "kworker/0:1" };
static const struct syn_task swapper = { 0, 0, "swapper/0" };

/* A record that only stretches the CPU's span. */
static void napi(struct synth *s, uint32_t cpu, uint64_t tsc)
{
	struct nsight_rec_napi r;

	rec_hdr(&r, NSIGHT_REC_NAPI, sizeof(r), cpu, tsc);
	synth_put(s, cpu, &r, sizeof(r));
}

/*
 * What runs on @cpu at @tsc: the segment's key, then the contexts it is
 * nested in, "<" between them ("lost", "none" outside the span).
 */
static const char *at(const struct nsight_analysis *a, uint32_t cpu, uint64_t tsc)
{
	static char buf[512];
	const struct nsight_timeline *tl = &a->tl;
	ssize_t i = nsight_tl_find(tl, cpu, tsc);
	const struct nsight_seg *seg;
	char k[128];
	size_t o;
	uint32_t c;

	if (i < 0 || tsc >= tl->cpus[cpu].last)
		return "none";
	seg = &tl->cpus[cpu].segs[i];
	if (seg->ctx == NSIGHT_CTX_LOST)
		return "lost";
	o = (size_t)snprintf(buf, sizeof(buf), "%s", nsight_key_format(a->keys, seg->key, k, sizeof(k)));
	for (c = tl->ctx[seg->ctx].parent; c != NSIGHT_TL_NONE && o < sizeof(buf); c = tl->ctx[c].parent) {
		const struct nsight_ctx *x = &tl->ctx[c];

		if (x->kind == NSIGHT_CTX_K_IDLE)
			snprintf(k, sizeof(k), "cpu_idle");
		else
			nsight_key_format(a->keys, x->key, k, sizeof(k));
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, " < %s", k);
	}
	return buf;
}

#define CHECK_AT(a, cpu, tsc, want) do {					\
	const char *_g = at((a), (cpu), (tsc));					\
	if (strcmp(_g, (want)))							\
		KTAP_FAIL("cpu %u at %llu: \"%s\", expected \"%s\"",		\
			  (unsigned int)(cpu), (unsigned long long)(tsc), _g, (want)); \
} while (0)

static void test_nesting(void)
{
	struct nsight_analysis a;
	struct synth s;

	synth_init(&s, 1);
	synth_queue(&s);
	synth_tk(&s, 0, SYN_TK_TSC);
	synth_switch(&s, 0, 100, bash, server);
	synth_softirq(&s, 0, 1100, NET_RX, true);
	synth_irq(&s, 0, 1200, 30, "eth0", true);
	synth_irq(&s, 0, 1300, 30, NULL, false);
	synth_softirq(&s, 0, 1500, NET_RX, false);
	synth_switch(&s, 0, 2000, server, swapper);
	synth_idle(&s, 0, 2100, true);
	synth_irq(&s, 0, 2500, 31, "timer", true);
	synth_irq(&s, 0, 2600, 31, NULL, false);
	synth_idle(&s, 0, 3000, false);
	synth_switch(&s, 0, 3100, swapper, server);
	synth_softirq(&s, 0, 3800, SYN_TIMER, true);	/* never exits */
	napi(&s, 0, 4000);
	synth_flush(&s);
	REQUIRE(synth_analyze(&s, &a) == 0);
	CHECK_U64(a.tl.n_records, 12);

	/* Before the first switch: its prev. */
	CHECK_AT(&a, 0, 50, "task:bash");
	CHECK_AT(&a, 0, 500, "task:server");
	CHECK_AT(&a, 0, 1150, "softirq:NET_RX < task:server");
	CHECK_AT(&a, 0, 1250, "irq:eth0 < softirq:NET_RX < task:server");
	CHECK_AT(&a, 0, 1400, "softirq:NET_RX < task:server");
	CHECK_AT(&a, 0, 1800, "task:server");
	/* Idle is named by what ran before it, swapper or cpu_idle alike. */
	CHECK_AT(&a, 0, 2050, "idle:task:server");
	CHECK_AT(&a, 0, 2200, "idle:task:server < task:swapper/0");
	CHECK_AT(&a, 0, 2550, "irq:timer < cpu_idle < task:swapper/0");
	CHECK_AT(&a, 0, 2700, "idle:irq:timer < task:swapper/0");
	CHECK_AT(&a, 0, 3050, "idle:irq:timer");
	CHECK_AT(&a, 0, 3500, "task:server");
	/* Open at the end: clipped at the last record. */
	CHECK_AT(&a, 0, 3900, "softirq:TIMER < task:server");
	CHECK_AT(&a, 0, 4000, "none");
	CHECK_U64(a.tl.unmatched, 0);
	nsight_analysis_fini(&a);
	synth_free(&s);
}

/* Exits with no entry before the first switch were running from the start. */
static void test_start_edge(void)
{
	struct nsight_analysis a;
	struct synth s;

	synth_init(&s, 2);
	synth_queue(&s);
	synth_tk(&s, 0, SYN_TK_TSC);
	synth_irq(&s, 1, 50, 31, NULL, false);
	synth_softirq(&s, 1, 80, NET_RX, false);
	synth_switch(&s, 1, 200, (struct syn_task){ 15, 15, "ksoftirqd/1" }, swapper);
	synth_irq(&s, 1, 300, 31, NULL, false);	/* after a switch: ignored */
	napi(&s, 1, 400);
	/* The irq's name comes from an entry on another CPU. */
	synth_irq(&s, 0, 3000, 31, "nvme0q1", true);
	synth_irq(&s, 0, 3010, 31, NULL, false);
	synth_flush(&s);
	REQUIRE(synth_analyze(&s, &a) == 0);

	CHECK_AT(&a, 1, 10, "irq:nvme0q1 < softirq:NET_RX < task:ksoftirqd/1");
	CHECK_AT(&a, 1, 60, "softirq:NET_RX < task:ksoftirqd/1");
	CHECK_AT(&a, 1, 100, "task:ksoftirqd/1");
	CHECK_AT(&a, 1, 250, "idle:task:ksoftirqd/1");
	CHECK_U64(a.tl.unmatched, 1);
	/* CPU 0 never switched: the task is unknown, the irq known. */
	CHECK_AT(&a, 0, 2000, "unknown");
	CHECK_AT(&a, 0, 3005, "irq:nvme0q1 < unknown");
	nsight_analysis_fini(&a);
	synth_free(&s);
}

/* A fault follows its thread: begun on CPU 0, ended on CPU 1. */
static void test_fault_follows_thread(void)
{
	struct nsight_analysis a;
	const struct nsight_timeline *tl;
	struct synth s;
	ssize_t i0, i1;

	synth_init(&s, 2);
	synth_queue(&s);
	synth_tk(&s, 0, SYN_TK_TSC);
	synth_switch(&s, 0, 100, bash, worker);
	synth_switch(&s, 0, 700, worker, other);
	synth_switch(&s, 1, 100, bash, swapper);
	synth_switch(&s, 1, 900, swapper, worker);
	synth_fault(&s, 1, 500, 1200, worker.tid, worker.pid, true);
	synth_fault(&s, 1, 1300, 1400, worker.tid, worker.pid, false);
	synth_switch(&s, 1, 1500, worker, swapper);
	napi(&s, 0, 2000);
	napi(&s, 1, 2000);
	synth_flush(&s);
	REQUIRE(synth_analyze(&s, &a) == 0);
	tl = &a.tl;

	CHECK_AT(&a, 0, 300, "task:worker");
	CHECK_AT(&a, 0, 600, "fault:user < task:worker");
	CHECK_AT(&a, 0, 800, "task:other");
	CHECK_AT(&a, 1, 800, "idle:task:bash");
	CHECK_AT(&a, 1, 1000, "fault:user < task:worker");
	CHECK_AT(&a, 1, 1250, "task:worker");
	CHECK_AT(&a, 1, 1350, "fault:kernel < task:worker");
	CHECK_AT(&a, 1, 1450, "task:worker");
	/* Both stretches are one occurrence. */
	i0 = nsight_tl_find(tl, 0, 600);
	i1 = nsight_tl_find(tl, 1, 1000);
	REQUIRE(i0 >= 0 && i1 >= 0);
	CHECK_U64(tl->ctx[tl->cpus[0].segs[i0].ctx].occ, tl->ctx[tl->cpus[1].segs[i1].ctx].occ);
	nsight_analysis_fini(&a);
	synth_free(&s);
}

/* Work belongs to its kworker, also across a switch; irqs stay on top. */
static void test_work(void)
{
	struct nsight_analysis a;
	struct synth s;

	synth_init(&s, 1);
	synth_queue(&s);
	synth_tk(&s, 0, SYN_TK_TSC);
	synth_work(&s, 0, 50, "flush_to_ldisc", false);	/* running at the start */
	synth_switch(&s, 0, 100, kworker, kworker);
	synth_work(&s, 0, 200, "vmstat_update", true);
	synth_irq(&s, 0, 250, 30, "eth0", true);
	synth_fault(&s, 0, 260, 270, kworker.tid, kworker.pid, false);
	synth_irq(&s, 0, 280, 30, NULL, false);
	synth_switch(&s, 0, 300, kworker, server);
	synth_switch(&s, 0, 400, server, kworker);
	synth_work(&s, 0, 500, NULL, false);
	synth_switch(&s, 0, 600, kworker, swapper);
	napi(&s, 0, 700);
	synth_flush(&s);
	REQUIRE(synth_analyze(&s, &a) == 0);

	CHECK_AT(&a, 0, 20, "work:flush_to_ldisc < task:kworker/0:1");
	CHECK_AT(&a, 0, 75, "task:kworker/0:1");
	CHECK_AT(&a, 0, 220, "work:vmstat_update < task:kworker/0:1");
	/* The fault began under the irq: it goes below it. */
	CHECK_AT(&a, 0, 265, "irq:eth0 < fault:kernel < work:vmstat_update < task:kworker/0:1");
	CHECK_AT(&a, 0, 275, "irq:eth0 < work:vmstat_update < task:kworker/0:1");
	CHECK_AT(&a, 0, 290, "work:vmstat_update < task:kworker/0:1");
	CHECK_AT(&a, 0, 350, "task:server");
	CHECK_AT(&a, 0, 450, "work:vmstat_update < task:kworker/0:1");
	CHECK_AT(&a, 0, 550, "task:kworker/0:1");
	CHECK_AT(&a, 0, 650, "idle:task:kworker/0:1");
	nsight_analysis_fini(&a);
	synth_free(&s);
}

/* Lost records: a lost segment, then a fresh start like the first. */
static void test_drops(void)
{
	struct nsight_analysis a;
	struct synth s;

	synth_init(&s, 1);
	synth_queue(&s);
	synth_tk(&s, 0, SYN_TK_TSC);
	synth_switch(&s, 0, 100, bash, server);
	synth_softirq(&s, 0, 1200, NET_RX, true);
	synth_subbuf(&s, 0, 2000, 5);
	synth_irq(&s, 0, 2100, 7, NULL, false);
	synth_switch(&s, 0, 2500, other, server);
	synth_subbuf(&s, 0, 3000, 0);			/* no loss: nothing changes */
	napi(&s, 0, 3500);
	synth_flush(&s);
	REQUIRE(synth_analyze(&s, &a) == 0);

	CHECK_AT(&a, 0, 150, "task:server");
	CHECK_AT(&a, 0, 1150, "task:server");
	CHECK_AT(&a, 0, 1250, "lost");
	CHECK_AT(&a, 0, 1999, "lost");
	CHECK_AT(&a, 0, 2050, "irq:irq7 < task:other");
	CHECK_AT(&a, 0, 2200, "task:other");
	CHECK_AT(&a, 0, 3200, "task:server");
	nsight_analysis_fini(&a);
	synth_free(&s);
}

/* Garbage in any order must not crash or leak: records in a CPU's order. */
static void test_robust(void)
{
	static const char *const names[] = { "a", "", "kworker/0:0", "swapper/0" };
	struct nsight_analysis a;
	struct synth s;
	uint64_t t = 10, seed = 42;
	int i;

	synth_init(&s, 2);
	synth_tk(&s, 0, SYN_TK_TSC);
	for (i = 0; i < 4000; i++) {
		uint32_t cpu, r, x;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		r = (uint32_t)(seed >> 33);
		cpu = r & 1;
		x = (r >> 1) % 9;
		t += (r >> 8) % 50;
		switch (x) {
		case 0:
			synth_switch(&s, cpu, t, (struct syn_task){ r % 7, r % 3, names[r % 4] },
				     (struct syn_task){ (r >> 4) % 7, (r >> 5) % 3, names[(r >> 6) % 4] });
			break;
		case 1:
			synth_irq(&s, cpu, t, r % 3, names[r % 4], (r >> 3) & 1);
			break;
		case 2:
			synth_softirq(&s, cpu, t, r % 12, (r >> 3) & 1);
			break;
		case 3:
			synth_idle(&s, cpu, t, (r >> 3) & 1);
			break;
		case 4:
			synth_fault(&s, cpu, t - (r % 300), t, r % 7, r % 3, r & 2);
			break;
		case 5:
			synth_work(&s, cpu, t, (r >> 3) & 1 ? names[r % 4] : NULL, (r >> 4) & 1);
			break;
		case 6:
			synth_subbuf(&s, cpu, t, r % 2);
			break;
		case 7:
			/* A TSC going back. */
			synth_softirq(&s, cpu, t > 500 ? t - 500 : 0, 3, (r >> 3) & 1);
			break;
		default:
			napi(&s, cpu, t);
			break;
		}
	}
	REQUIRE(synth_analyze(&s, &a) == 0);
	CHECK(a.tl.finished);
	CHECK(a.tl.cpus[0].n > 0 && a.tl.cpus[1].n > 0);
	for (i = 0; i < 2; i++) {
		const struct nsight_tl_cpu *c = &a.tl.cpus[i];
		size_t k;

		for (k = 1; k < c->n; k++)
			CHECK(c->segs[k].start > c->segs[k - 1].start);
	}
	nsight_analysis_fini(&a);
	synth_free(&s);
}

/* ---------------------------------------------------------------------- */
/* Profiles                                                                 */

static const struct nsight_msg *msg(const struct nsight_analysis *a, uint64_t id)
{
	size_t i;

	for (i = 0; i < a->lt.n; i++)
		if (a->lt.msgs[i].dir == NSIGHT_MSG_RX && a->lt.msgs[i].id == id)
			return &a->lt.msgs[i];
	return NULL;
}

static int64_t ent(const struct nsight_analysis *a, const struct nsight_profile *p, uint8_t role,
		   const char *key, char what)
{
	size_t i;
	char k[128];

	for (i = 0; i < p->n; i++) {
		nsight_key_format(a->keys, p->v[i].key, k, sizeof(k));
		if (p->v[i].role == role && !strcmp(k, key))
			return what == 'e' ? p->v[i].excl : what == 'i' ? p->v[i].incl : p->v[i].count;
	}
	return -1;
}

static void test_profile_windows(void)
{
	struct nsight_analysis a;
	struct nsight_profiler p;
	struct nsight_profile pr = { 0 };
	struct nsight_diag d = { 0 };
	struct scen sc;
	const struct nsight_msg *m;

	scen_init(&sc, "server");
	scen_msg(&sc, SC_NORMAL);
	scen_msg(&sc, SC_NETRX);
	synth_flush(&sc.s);
	REQUIRE(synth_analyze(&sc.s, &a) == 0);
	REQUIRE(nsight_profiler_init(&p, &a.tl, &a.cap, &a.tc, SYN_HZ, &d) == 0);

	/* n = 100000, h = 100700 (X, in NET_RX), a = 102700 on Y. */
	m = msg(&a, 1);
	REQUIRE(m && m->reason == NSIGHT_MSG_COMPLETE);
	REQUIRE(nsight_profile_build(&p, m, &pr, &d) == 0);
	CHECK(!pr.lost);
	CHECK_U64(pr.window_ns[NSIGHT_ROLE_R], 700);
	CHECK_U64(pr.window_ns[NSIGHT_ROLE_A], 2000);
	CHECK_U64(pr.n, 3);
	CHECK_U64(ent(&a, &pr, NSIGHT_ROLE_R, "softirq:NET_RX", 'e'), 700);
	CHECK_U64(ent(&a, &pr, NSIGHT_ROLE_A, "idle:task:server", 'e'), 1000);
	CHECK_U64(ent(&a, &pr, NSIGHT_ROLE_A, "app", 'e'), 1000);
	CHECK_U64(ent(&a, &pr, NSIGHT_ROLE_A, "app", 'c'), 1);

	/* The second: NET_RX nested in the server on Y for 40 us. */
	m = msg(&a, 2);
	REQUIRE(m);
	REQUIRE(nsight_profile_build(&p, m, &pr, &d) == 0);
	CHECK_U64(ent(&a, &pr, NSIGHT_ROLE_A, "softirq:NET_RX", 'e'), 40000);
	CHECK_U64(ent(&a, &pr, NSIGHT_ROLE_A, "app", 'e'), 1000);
	CHECK_U64(ent(&a, &pr, NSIGHT_ROLE_A, "app", 'i'), 41000);
	CHECK_U64(ent(&a, &pr, NSIGHT_ROLE_A, "hol", 'i'), -1);

	nsight_profile_fini(&pr);
	nsight_profiler_fini(&p);
	nsight_analysis_fini(&a);
	synth_free(&sc.s);
}

/* A batch: the 3rd message waits while the server handles the first two. */
static void test_profile_hol(void)
{
	struct nsight_analysis a;
	struct nsight_profiler p;
	struct nsight_profile pr = { 0 };
	struct nsight_diag d = { 0 };
	struct scen sc;
	const struct nsight_msg *m;

	scen_init(&sc, "server");
	scen_batch(&sc, 3);
	synth_flush(&sc.s);
	REQUIRE(synth_analyze(&sc.s, &a) == 0);
	REQUIRE(nsight_profiler_init(&p, &a.tl, &a.cap, &a.tc, SYN_HZ, &d) == 0);

	/*
	 * h = 100700, 101700, 102700; the server wakes at 101700 and returns
	 * at 102700 (a1), 123700 (a2, entered at 122700), 144700 (a3, entered
	 * at 143700). For message 3, [h3, a3] = [102700, 144700]: hol from
	 * 102700 to its receive's entry 143700, then app.
	 */
	m = msg(&a, 3);
	REQUIRE(m && m->reason == NSIGHT_MSG_COMPLETE);
	CHECK_U64(m->total_ns, 144700 - 102000);
	REQUIRE(nsight_profile_build(&p, m, &pr, &d) == 0);
	CHECK_U64(ent(&a, &pr, NSIGHT_ROLE_A, "hol", 'e'), 143700 - 102700);
	CHECK_U64(ent(&a, &pr, NSIGHT_ROLE_A, "app", 'e'), 1000);
	/* Message 1 saw no other message. */
	m = msg(&a, 1);
	REQUIRE(m);
	REQUIRE(nsight_profile_build(&p, m, &pr, &d) == 0);
	CHECK_U64(ent(&a, &pr, NSIGHT_ROLE_A, "hol", 'e'), -1);
	CHECK_U64(ent(&a, &pr, NSIGHT_ROLE_A, "app", 'e'), 1000);
	CHECK_U64(ent(&a, &pr, NSIGHT_ROLE_A, "idle:task:server", 'e'), 1000);
	/* Message 2: hol from h2 (101700) to its entry (122700), wake included. */
	m = msg(&a, 2);
	REQUIRE(m);
	REQUIRE(nsight_profile_build(&p, m, &pr, &d) == 0);
	CHECK_U64(ent(&a, &pr, NSIGHT_ROLE_A, "app", 'e'), 1000 + 1000);
	CHECK_U64(ent(&a, &pr, NSIGHT_ROLE_A, "hol", 'e'), 122700 - 102700);
	/* One stretch of the server, counted once as app and once as hol. */
	CHECK_U64(ent(&a, &pr, NSIGHT_ROLE_A, "app", 'c'), 1);
	CHECK_U64(ent(&a, &pr, NSIGHT_ROLE_A, "hol", 'c'), 1);

	nsight_profile_fini(&pr);
	nsight_profiler_fini(&p);
	nsight_analysis_fini(&a);
	synth_free(&sc.s);
}

/* Receive and application on one core: two windows there, R then A. */
static void test_profile_one_core(void)
{
	struct nsight_flow sock = flow4(NULL, 9000, NULL, 0, IPPROTO_UDP);
	struct nsight_flow f = flow4("10.0.0.1", 5000, "10.0.0.2", 9000, IPPROTO_UDP);
	struct nsight_analysis a;
	struct nsight_profiler p;
	struct nsight_profile pr = { 0 };
	struct nsight_diag d = { 0 };
	const struct nsight_msg *m;
	struct synth s;

	synth_init(&s, 1);
	synth_queue(&s);
	synth_tk(&s, 0, SYN_TK_TSC);
	synth_switch(&s, 0, 100, server, swapper);
	synth_softirq(&s, 0, 9000, NET_RX, true);
	synth_pkt(&s, 0, 10000, NSIGHT_PKT_RX_GRO, 0xa1, f, 0, 64, 0);
	synth_handoff(&s, 0, 10700, 0x51, sock, 0xa1, 0);
	synth_softirq(&s, 0, 11000, NET_RX, false);
	synth_switch(&s, 0, 11500, swapper, server);
	synth_copy(&s, 0, 12000, 0xa1, server.tid, server.pid, 64);
	synth_recv(&s, 0, 50, 12500, 0x51, sock, 64, server.tid, server.pid, "server");
	synth_switch(&s, 0, 13000, server, swapper);
	synth_flush(&s);
	REQUIRE(synth_analyze(&s, &a) == 0);
	REQUIRE(nsight_profiler_init(&p, &a.tl, &a.cap, &a.tc, SYN_HZ, &d) == 0);
	m = msg(&a, 1);
	REQUIRE(m && m->reason == NSIGHT_MSG_COMPLETE);
	REQUIRE(nsight_profile_build(&p, m, &pr, &d) == 0);
	/* One core: the receive processing ran on the application core. */
	CHECK_U64(pr.window_ns[NSIGHT_ROLE_R], 0);
	CHECK_U64(pr.window_ns[NSIGHT_ROLE_A], 2500);
	CHECK_U64(ent(&a, &pr, NSIGHT_ROLE_R, "softirq:NET_RX", 'e'), UINT64_MAX);
	CHECK_U64(ent(&a, &pr, NSIGHT_ROLE_A, "softirq:NET_RX", 'e'), 1000);
	CHECK_U64(ent(&a, &pr, NSIGHT_ROLE_A, "idle:softirq:NET_RX", 'e'), 500);
	CHECK_U64(ent(&a, &pr, NSIGHT_ROLE_A, "app", 'e'), 1000);
	/* Beyond the last record nothing is known. */
	CHECK_U64(a.tl.cpus[0].last, 13000);
	nsight_profile_fini(&pr);
	nsight_profiler_fini(&p);
	nsight_analysis_fini(&a);
	synth_free(&s);
}

/*
 * A NIC hardware time starts the receive core's window before the GRO
 * record: the packet was in the NIC from its stamp to that record.
 */
static void test_profile_hw(void)
{
	const int64_t offset = SYN_OFFS + SYN_MONO0 - 50000;	/* realtime - PHC */
	struct nsight_analysis a;
	struct nsight_profiler p;
	struct nsight_profile pr = { 0 };
	struct nsight_diag d = { 0 };
	struct scen sc;
	const struct nsight_msg *m;
	size_t pos;

	scen_init(&sc, "server");
	scen_msg(&sc, SC_NORMAL);
	synth_flush(&sc.s);
	/* The GRO record of n = 100000: stamped by the NIC 1200 ns earlier. */
	for (pos = 0; pos < sc.s.len[SC_X];) {
		struct nsight_rec_pkt *r = (struct nsight_rec_pkt *)(sc.s.buf[SC_X] + pos);

		if (r->hdr.type == NSIGHT_REC_PKT && r->stage == NSIGHT_PKT_RX_GRO) {
			r->flags |= NSIGHT_PKT_F_HWTSTAMP;
			r->hw_tstamp = syn_mono(100000) - 1200 + SYN_OFFS - offset;
		}
		pos += r->hdr.size;
	}
	sc.s.phc[0] = (struct nsight_phc_sample){ .ifindex = 2, .ifname = "eth0",
						  .sys_before_ns = offset + 1000000, .phc_ns = 1000000,
						  .sys_after_ns = offset + 1000000,
						  .method = NSIGHT_PHC_PRECISE };
	sc.s.n_phc = 1;
	REQUIRE(synth_analyze(&sc.s, &a) == 0);
	REQUIRE(nsight_profiler_init(&p, &a.tl, &a.cap, &a.tc, SYN_HZ, &d) == 0);
	m = msg(&a, 1);
	REQUIRE(m && m->t[NSIGHT_RX_N].hw);
	CHECK_U64(m->total_ns, 3900);
	REQUIRE(nsight_profile_build(&p, m, &pr, &d) == 0);
	/*
	 * The irq ran from n - 1500 to n - 1200, before the stamp: no
	 * interrupt began in the NIC's stretch, wire to NAPI. Then NET_RX to h.
	 */
	CHECK_U64(pr.window_ns[NSIGHT_ROLE_R], 1900);
	CHECK_U64(ent(&a, &pr, NSIGHT_ROLE_R, "nic:wire to NAPI", 'e'), 1200);
	CHECK_U64(ent(&a, &pr, NSIGHT_ROLE_R, "softirq:NET_RX", 'e'), 700);
	CHECK(ent(&a, &pr, NSIGHT_ROLE_R, "idle:irq:eth0", 'e') == -1);
	nsight_profile_fini(&pr);

	/* Stamped 1600 ns before: the irq began after it, at n - 1500. */
	nsight_profiler_fini(&p);
	nsight_analysis_fini(&a);
	for (pos = 0; pos < sc.s.len[SC_X];) {
		struct nsight_rec_pkt *r = (struct nsight_rec_pkt *)(sc.s.buf[SC_X] + pos);

		if (r->hdr.type == NSIGHT_REC_PKT && r->stage == NSIGHT_PKT_RX_GRO)
			r->hw_tstamp -= 400;
		pos += r->hdr.size;
	}
	REQUIRE(synth_analyze(&sc.s, &a) == 0);
	REQUIRE(nsight_profiler_init(&p, &a.tl, &a.cap, &a.tc, SYN_HZ, &d) == 0);
	m = msg(&a, 1);
	REQUIRE(m && m->t[NSIGHT_RX_N].hw);
	REQUIRE(nsight_profile_build(&p, m, &pr, &d) == 0);
	CHECK_U64(ent(&a, &pr, NSIGHT_ROLE_R, "nic:wire to IRQ", 'e'), 100);
	CHECK_U64(ent(&a, &pr, NSIGHT_ROLE_R, "nic:IRQ to NAPI", 'e'), 1500);
	CHECK_U64(ent(&a, &pr, NSIGHT_ROLE_R, "softirq:NET_RX", 'e'), 700);
	nsight_profile_fini(&pr);
	nsight_profiler_fini(&p);
	nsight_analysis_fini(&a);
	synth_free(&sc.s);
}

/* Workloads with random context noise: the whole diagnosis must hold up. */
static void test_diagnose_noise(void)
{
	static const enum scen_kind kinds[] = {
		SC_NORMAL, SC_HOG, SC_NETRX, SC_NETRX_APP, SC_KWORKER, SC_FAULT, SC_IDLE_IRQ,
		SC_SMALL, SC_DROP,
	};
	static const struct syn_task tasks[] = {
		{ 101, 100, "server" }, { 500, 500, "stress" }, { 0, 0, "swapper/1" },
		{ 50, 50, "kworker/1:1" }, { 7, 7, "" },
	};
	uint64_t seed = 7;
	int round;

	for (round = 0; round < 6; round++) {
		struct nsight_analysis a, b;
		struct nsight_analysis_opts ao = { .lifetimes = true };
		struct nsight_diag d = { 0 };
		struct nsight_dx_opts o;
		struct nsight_cats cats;
		struct nsight_dx dx;
		struct membuf mb;
		struct scen sc;
		FILE *f;
		int i;

		scen_init(&sc, "server");
		for (i = 0; i < 60; i++) {
			uint32_t r;
			int k;

			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			r = (uint32_t)(seed >> 33);
			if (r % 11 == 0) {
				scen_batch(&sc, 1 + r % 4);
				continue;
			}
			scen_msg(&sc, kinds[r % (sizeof(kinds) / sizeof(kinds[0]))]);
			/* Noise anywhere in the last message's time, on either CPU. */
			for (k = 0; k < (int)(r % 6); k++) {
				uint64_t t = sc.t - SC_GAP + (uint64_t)((r >> k) % 60000);
				uint32_t cpu = (r >> (k + 3)) & 1;

				switch ((r >> (2 * k)) % 5) {
				case 0:
					synth_switch(&sc.s, cpu, t, tasks[(r >> k) % 5], tasks[(r >> (k + 1)) % 5]);
					break;
				case 1:
					synth_irq(&sc.s, cpu, t, 40, "x", (r >> k) & 1);
					break;
				case 2:
					synth_softirq(&sc.s, cpu, t, (r >> k) % 10, (r >> (k + 2)) & 1);
					break;
				case 3:
					synth_fault(&sc.s, cpu, t - 300, t, 101, 100, (r >> k) & 1);
					break;
				default:
					synth_work(&sc.s, cpu, t, (r >> k) & 1 ? "f" : NULL, (r >> (k + 1)) & 1);
					break;
				}
			}
		}
		synth_flush(&sc.s);
		synth_stream(&sc.s, &mb);
		synth_free(&sc.s);

		nsight_dx_opts_default(&o);
		o.min_dev = round * 300;
		o.nested = round * 20000;
		if (round & 1)
			o.baseline = "self";
		nsight_cats_init(&cats);
		REQUIRE(nsight_cats_parse(&cats, nsight_categories_builtin,
					  strlen(nsight_categories_builtin), "builtin", &d) == 0);
		f = mem_reader(mb.data, mb.len);
		REQUIRE(f);
		CHECK(nsight_analysis_run(&a, f, &ao, &d) == 0);
		fclose(f);
		if (o.baseline) {
			ao.keys = a.keys;
			f = mem_reader(mb.data, mb.len);
			REQUIRE(f);
			CHECK(nsight_analysis_run(&b, f, &ao, &d) == 0);
			fclose(f);
			ao.keys = NULL;
		}
		CHECK(nsight_analysis_diagnose(&dx, &a, o.baseline ? &b : NULL, &cats, &o, &d) == 0);
		CHECK_U64(dx.n, 1);
		CHECK(dx.n && dx.groups[0].n_ref > 0);
		if (dx.n) {
			const struct nsight_dx_group *g = &dx.groups[0];
			size_t m, k;

			/* Every reported deviation is at least the granularity. */
			for (k = 0; k < g->n_anoms; k++)
				CHECK(!g->anoms[k].reported || g->anoms[k].reported_dev >= o.min_dev);
			for (m = 1; m < g->n_msgs; m++)
				CHECK(g->msgs[m].latency <= g->msgs[m - 1].latency);
			/* Causes rank by the messages they are the largest in. */
			for (k = 1; k < g->n_causes; k++)
				CHECK(g->causes[k].main <= g->causes[k - 1].main);
		}
		nsight_dx_fini(&dx);
		if (o.baseline)
			nsight_analysis_fini(&b);
		nsight_analysis_fini(&a);
		nsight_cats_fini(&cats);
		free(mb.data);
	}
}

KTAP_MAIN(
	KTAP_TEST(test_nesting),
	KTAP_TEST(test_start_edge),
	KTAP_TEST(test_fault_follows_thread),
	KTAP_TEST(test_work),
	KTAP_TEST(test_drops),
	KTAP_TEST(test_robust),
	KTAP_TEST(test_profile_windows),
	KTAP_TEST(test_profile_hol),
	KTAP_TEST(test_profile_one_core),
	KTAP_TEST(test_profile_hw),
	KTAP_TEST(test_diagnose_noise),
)
