// SPDX-License-Identifier: MIT
/*
 * The critical path (critpath.h) on synthetic captures with known
 * answers: a server thread blocked on a mutex held by "lockholder" (most
 * critical: blocked), one runnable behind "stress" (runq), one whose
 * receive processing on X takes 30 us (softirq), one whose packet waits
 * 5 us on the idle X before the interrupt (nic), one preempted by a 40 us
 * softirq on its own core (intr), UDP sends slow in the
 * qdisc or to their completion (qdisc, xmit).
 */
#include <json-c/json.h>

#include "pipeline/analysis.h"
#include "diagnose/critpath.h"
#include "clirun.h"
#include "scenario.h"

static struct cli c;

static const char *const files[] = { "lock", "mixed", "netrx", NULL };

static int analyze_file(struct nsight_analysis *a, const char *name)
{
	return synth_analyze_file(a, cli_file(&c, name));
}

/* The path of the message of @dir with @id, in @out (zeroed, or a path before). */
static int path_of(struct nsight_cp_msg *out, const struct nsight_analysis *a, uint8_t dir,
		   uint64_t id)
{
	struct nsight_profiler p;
	struct nsight_diag d = { 0 };
	size_t i;
	int ret = -1;

	nsight_cp_msg_fini(out);
	for (i = 0; i < a->lt.n; i++)
		if (a->lt.msgs[i].dir == dir && a->lt.msgs[i].id == id)
			break;
	if (i == a->lt.n)
		return -1;
	if (!nsight_profiler_init(&p, &a->tl, &a->cap, &a->tc, a->sum.hdr.tsc_hz, &d) &&
	    !nsight_analysis_use_chains(&p, a, &d))
		ret = nsight_cp_message(out, &p, &a->chains, a->keys, &a->lt.msgs[i]);
	nsight_profiler_fini(&p);
	return ret;
}

/*
 * A request whose packet record is written on the idle X @nic ns before
 * the NIC's interrupt; receive processing then takes @rx ns to the
 * hand-off; the interrupt wakes the server as usual (h + 100, running at
 * h + 1000, a = h + 2000).
 */
static void scen_slow_rx(struct scen *sc, uint64_t nic, uint64_t rx)
{
	struct syn_task me = { 101, 100, sc->comm };
	uint64_t n = sc->t, id = ++sc->pkt, h = n + nic + rx;

	synth_pkt(&sc->s, SC_X, n, NSIGHT_PKT_RX_GRO, id, sc->flow, 0, 64, 0);
	synth_irq(&sc->s, SC_X, n + nic, 30, "eth0", true);
	synth_irq(&sc->s, SC_X, n + nic + 300, 30, NULL, false);
	synth_softirq(&sc->s, SC_X, n + nic + 500, SYN_NET_RX, true);
	synth_pkt(&sc->s, SC_X, n + nic + 600, NSIGHT_PKT_RX_RECEIVE, id, sc->flow, 0, 64, 0);
	synth_handoff(&sc->s, SC_X, h, 0x51, sc->sock, id, 0);
	synth_waking(&sc->s, SC_X, h + 100, me, SC_Y, 0);
	synth_softirq(&sc->s, SC_X, h + 300, SYN_NET_RX, false);
	synth_idle(&sc->s, SC_Y, h + 900, false);
	synth_switch(&sc->s, SC_Y, h + 1000, sc_swapper1, me);
	scen_recv(sc, h + 2000, id, 3000);
	scen_sleep_st(sc);
	sc->t += SC_GAP;
}

/* 40 requests, every 8th (from the 7th) a lock pair: 5 slow of 45. */
static void save_lock(void)
{
	struct scen sc;

	scen_init(&sc, "server");
	scen_lock_run(&sc, 40);
	CHECK(scen_save(&sc, cli_file(&c, "lock")) == 0);
}

/*
 * Datagram @i of "client" on X, 100 us before the next request: 500 ns to
 * the qdisc, then 500 + 10 * @i ns to the driver; tx 6 waits 20 us in the
 * qdisc, tx 16 has its completion 30 us after the xmit.
 */
static void client_send(struct scen *sc, int i)
{
	struct nsight_flow u = flow4("10.0.0.2", 5001, "10.0.0.9", 7000, IPPROTO_UDP);
	uint64_t t = sc->t - 100000, xmit = t + 1000 + 10 * (uint64_t)(i - 1);

	if (i == 6)
		xmit = t + 20500;
	synth_app(&sc->s, NSIGHT_REC_APP_SEND, SC_X, t, 0x71, u, 100, 0, 201, 200, "client");
	synth_pkt(&sc->s, SC_X, t + 500, NSIGHT_PKT_TX_QUEUE, 0x9000 + (uint64_t)i, u, 0, 100, 0);
	synth_pkt(&sc->s, SC_X, xmit, NSIGHT_PKT_TX_XMIT, 0x9000 + (uint64_t)i, u, 0, 100, 0);
	if (i == 16)
		synth_pkt(&sc->s, SC_X, xmit + 30000, NSIGHT_PKT_TX_TSTAMP, 0x9000 + (uint64_t)i, u,
			  0, 100, 0);
}

/*
 * 20 requests: rx 6 preempted, rx 12 a slow softirq, rx 16 a late
 * interrupt (the tail); 20 sends of "client" (client_send()).
 */
static void save_mixed(void)
{
	struct scen sc;
	int i;

	scen_init(&sc, "server");
	for (i = 1; i <= 20; i++) {
		if (i > 1)
			client_send(&sc, i - 1);
		if (i == 6)
			scen_preempted(&sc);
		else if (i == 12)
			scen_slow_rx(&sc, 0, 30000);
		else if (i == 16)
			scen_slow_rx(&sc, 5000, 1000);
		else
			scen_woken(&sc);
	}
	CHECK(scen_save(&sc, cli_file(&c, "mixed")) == 0);
}

#define NS(m, s)	((uint64_t)(m).ns[NSIGHT_CP_##s])

/* State @s's time in @m through @key (0 if none). */
static uint64_t via_ns(const struct nsight_analysis *a, const struct nsight_cp_msg *m,
		       unsigned int s, const char *key)
{
	char buf[200];
	size_t i;

	for (i = 0; i < m->via.n; i++)
		if (m->via.v[i].state == s &&
		    !strcmp(nsight_key_format(a->keys, m->via.v[i].key, buf, sizeof(buf)), key))
			return (uint64_t)m->via.v[i].ns;
	return 0;
}

/* Blocked on the mutex: the path runs through the lock holder. */
static void test_blocked(void)
{
	struct nsight_analysis a;
	struct nsight_cp_msg m = { 0 };

	REQUIRE(analyze_file(&a, "lock") == 0);
	REQUIRE(path_of(&m, &a, NSIGHT_MSG_RX, 9) == 0);
	CHECK_U64(NS(m, NIC), 0);		/* n inside the NET_RX softirq */
	CHECK_U64(NS(m, SOFTIRQ), 700);		/* n -> h */
	CHECK_U64(NS(m, BLOCKED), 34300);	/* h -> W, lockholder's */
	CHECK_U64(NS(m, RUNQ), 1000);		/* woken at W, running at W + 1000 */
	CHECK_U64(NS(m, QUEUE), 2000);		/* still on the first request until
						 * its next receive at W + 3000 */
	CHECK_U64(NS(m, APP), 1000);
	CHECK_U64((uint64_t)m.total, 39000);
	CHECK_U64(m.most, NSIGHT_CP_BLOCKED);
	CHECK_U64(via_ns(&a, &m, NSIGHT_CP_BLOCKED, "blocked:lockholder"), 34300);
	CHECK_U64(via_ns(&a, &m, NSIGHT_CP_QUEUE, "hol"), 2000);
	CHECK(nsight_cp_via_top(&m.via, NSIGHT_CP_BLOCKED) &&
	      nsight_cp_via_top(&m.via, NSIGHT_CP_BLOCKED)->ns == 34300);
	CHECK(!nsight_cp_via_top(&m.via, NSIGHT_CP_NIC));
	/* An ordinary request: the wake-up ties with the application, runq first. */
	REQUIRE(path_of(&m, &a, NSIGHT_MSG_RX, 2) == 0);
	CHECK_U64(NS(m, SOFTIRQ), 700);
	CHECK_U64(NS(m, RUNQ), 1000);		/* asleep in recv 100, runnable 900 */
	CHECK_U64(NS(m, APP), 1000);
	CHECK_U64(NS(m, QUEUE) + NS(m, BLOCKED) + NS(m, NIC), 0);
	CHECK_U64(m.most, NSIGHT_CP_RUNQ);
	nsight_cp_msg_fini(&m);
	nsight_analysis_fini(&a);
}

/* Run-queue delay behind stress, a slow softirq, a late interrupt. */
static void test_mixed(void)
{
	struct nsight_analysis a;
	struct nsight_cp_msg m = { 0 };

	REQUIRE(analyze_file(&a, "mixed") == 0);
	REQUIRE(path_of(&m, &a, NSIGHT_MSG_RX, 6) == 0);
	CHECK_U64(NS(m, SOFTIRQ), 700);
	CHECK_U64(NS(m, RUNQ), 30000);		/* asleep 100, runnable 29900 */
	CHECK_U64(NS(m, APP), 1000);
	CHECK_U64((uint64_t)m.total, 31700);
	CHECK_U64(m.most, NSIGHT_CP_RUNQ);
	CHECK_U64(via_ns(&a, &m, NSIGHT_CP_RUNQ, "task:stress"), 30000);	/* what ran instead */
	REQUIRE(path_of(&m, &a, NSIGHT_MSG_RX, 12) == 0);
	CHECK_U64(NS(m, NIC), 0);
	CHECK_U64(NS(m, SOFTIRQ), 30000);
	CHECK_U64(NS(m, RUNQ), 1000);
	CHECK_U64(NS(m, APP), 1000);
	CHECK_U64(m.most, NSIGHT_CP_SOFTIRQ);
	REQUIRE(path_of(&m, &a, NSIGHT_MSG_RX, 16) == 0);
	CHECK_U64(NS(m, NIC), 5000);		/* the idle X until the interrupt */
	CHECK_U64(NS(m, SOFTIRQ), 1000);
	CHECK_U64(m.most, NSIGHT_CP_NIC);
	nsight_cp_msg_fini(&m);
	nsight_analysis_fini(&a);
}

/* A 40 us NET_RX softirq on Y inside the server: the thread waits on it. */
static void test_intr(void)
{
	struct nsight_analysis a;
	struct nsight_cp_msg m = { 0 };
	struct scen sc;

	scen_init(&sc, "server");
	scen_run(&sc, 10, SC_NETRX, 10, 5);
	REQUIRE(scen_save(&sc, cli_file(&c, "netrx")) == 0);
	REQUIRE(analyze_file(&a, "netrx") == 0);
	REQUIRE(path_of(&m, &a, NSIGHT_MSG_RX, 6) == 0);
	CHECK_U64(NS(m, SOFTIRQ), 700);
	CHECK_U64(NS(m, RUNQ), 1000);		/* no wakeup records: off its CPU in recv */
	CHECK_U64(NS(m, INTR), 40000);
	CHECK_U64(NS(m, APP), 1000);
	CHECK_U64((uint64_t)m.total, 42700);
	CHECK_U64(m.most, NSIGHT_CP_INTR);
	CHECK_U64(via_ns(&a, &m, NSIGHT_CP_INTR, "softirq:NET_RX"), 40000);
	nsight_cp_msg_fini(&m);
	nsight_analysis_fini(&a);
}

/* A UDP send: 500 ns to the qdisc, 500 ns to the driver, 2000 ns to its completion. */
static void test_tx(void)
{
	struct nsight_flow u = flow4("10.0.0.2", 5001, "10.0.0.9", 7000, IPPROTO_UDP);
	struct nsight_analysis a;
	struct nsight_cp_msg m = { 0 };
	struct nsight_cp_tail t = { 0 };
	struct synth s;

	synth_init(&s, 2);
	synth_tk(&s, 0, SYN_TK_TSC);
	synth_app(&s, NSIGHT_REC_APP_SEND, 1, 80000, 0x71, u, 100, 0, 201, 200, "client");
	synth_pkt(&s, 1, 80500, NSIGHT_PKT_TX_QUEUE, 0xc1, u, 0, 100, 0);
	synth_pkt(&s, 1, 81000, NSIGHT_PKT_TX_XMIT, 0xc1, u, 0, 100, 0);
	synth_pkt(&s, 0, 83000, NSIGHT_PKT_TX_TSTAMP, 0xc1, u, 0, 100, 0);
	REQUIRE(synth_analyze(&s, &a) == 0);
	REQUIRE(path_of(&m, &a, NSIGHT_MSG_TX, 1) == 0);
	CHECK_U64(NS(m, SEND), 500);
	CHECK_U64(NS(m, QDISC), 500);
	CHECK_U64(NS(m, XMIT), 2000);
	CHECK_U64((uint64_t)m.total, 3000);
	CHECK_U64(m.most, NSIGHT_CP_XMIT);
	CHECK(nsight_cp_tail_add(&t, &m) == 0);
	CHECK(nsight_cp_tail_add(&t, &m) == 0);
	CHECK_U64(t.n, 2);
	CHECK_U64((uint64_t)t.total, 6000);
	CHECK_U64(t.most[NSIGHT_CP_XMIT], 2);
	CHECK(!nsight_cp_state_in(NSIGHT_MSG_TX, NSIGHT_CP_APP));
	CHECK(nsight_cp_state_in(NSIGHT_MSG_RX, NSIGHT_CP_APP));
	nsight_cp_tail_fini(&t);
	nsight_cp_msg_fini(&m);
	nsight_analysis_fini(&a);
	synth_free(&s);
}

/* The reports: the tail's shares, each message's path, the JSON object. */
static void test_report(void)
{
	struct json_object *j, *cp, *groups, *g, *st, *v;
	struct cli_result r;

	cli_run(&c, &r, NULL, (const char *[]){ "--color", "never", cli_file(&c, "lock"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "critical path: server[100] rx, 5 tail messages:\n"
			     "  blocked 88% (most critical in 5, via blocked:lockholder 100%), queue 5% (via hol 100%),\n"
			     "  runq 3% (via idle:task:server 100%), app 3%, softirq 2%\n");
	CHECK(!strstr(r.out, "ns: most critical"));	/* per message: --verbose */
	cli_result_free(&r);

	cli_run_verbose(&c, &r, NULL, (const char *[]){ cli_file(&c, "mixed"), NULL });
	CHECK_U64(r.status, 0);
	/* Of 71700 ns: runq 32000, softirq 31700, nic 5000, app 3000. */
	/* Of 32000 ns runq, 30000 behind stress: 94%. */
	CHECK_STR_HAS(r.out, "critical path: server[100] rx, 3 tail messages: runq 45% (most critical in 1, via task:stress 94%), softirq 44% (1), nic 7% (1), app 4%\n"
			     "  rx 12 latency 32000 ns: most critical softirq; softirq 30000 ns, runq 1000 ns via idle:task:server, app 1000 ns\n"
			     "  rx 6 latency 31700 ns: most critical runq; softirq 700 ns, runq 30000 ns via task:stress, app 1000 ns\n"
			     "  rx 16 latency 8000 ns: most critical nic; nic 5000 ns, softirq 1000 ns, runq 1000 ns via idle:task:server, app 1000 ns\n");
	/*
	 * tx 1..19 (none after the last request), 1000 to 1180 ns but two:
	 * the tail from p90 (the 18th of 19: 20500 ns) is tx 16 (31150 ns)
	 * and tx 6; of 51650 ns: xmit 30000 58%, qdisc 20650 40%, send 1000 2%.
	 */
	CHECK_STR_HAS(r.out, "critical path: client[200] tx, 2 tail messages: xmit 58% (most critical in 1), qdisc 40% (1), send 2%\n"
			     "  tx 16 latency 31150 ns: most critical xmit; send 500 ns, qdisc 650 ns, xmit 30000 ns\n"
			     "  tx 6 latency 20500 ns: most critical qdisc; send 500 ns, qdisc 20000 ns\n");
	cli_result_free(&r);

	cli_result_free(&r);

	cli_run(&c, &r, NULL, (const char *[]){ "--json", cli_file(&c, "lock"), NULL });
	CHECK_U64(r.status, 0);
	j = json_tokener_parse(r.out);
	REQUIRE(j);
	REQUIRE(json_object_object_get_ex(j, "critical_path", &cp));
	REQUIRE(json_object_object_get_ex(cp, "groups", &groups));
	CHECK_U64(json_object_array_length(groups), 1);
	g = json_object_array_get_idx(groups, 0);
	REQUIRE(g && json_object_object_get_ex(g, "states", &st));
	v = json_object_object_get(g, "tail_latency_ns");
	CHECK_U64(v ? (uint64_t)json_object_get_int64(v) : 0, 5 * 39000);
	v = json_object_array_get_idx(st, NSIGHT_CP_BLOCKED);
	REQUIRE(v);
	CHECK(!strcmp(json_object_get_string(json_object_object_get(v, "state")), "blocked"));
	CHECK_U64((uint64_t)json_object_get_int64(json_object_object_get(v, "ns")), 5 * 34300);
	CHECK_U64((uint64_t)json_object_get_int64(json_object_object_get(v, "most_critical")), 5);
	CHECK_STR_HAS(r.out, "\"most_critical\": \"blocked\"");
	CHECK_STR_HAS(r.out, "\"via\": \"blocked:lockholder\"");
	json_object_put(j);
	cli_result_free(&r);
}

static void test_setup(void)
{
	REQUIRE(cli_init(&c) == 0);
	save_lock();
	save_mixed();
}

static void test_cleanup(void)
{
	CHECK(cli_fini(&c, files) == 0);
}

KTAP_MAIN(KTAP_TEST(test_setup), KTAP_TEST(test_blocked), KTAP_TEST(test_mixed),
	  KTAP_TEST(test_intr), KTAP_TEST(test_tx), KTAP_TEST(test_report), KTAP_TEST(test_cleanup))
