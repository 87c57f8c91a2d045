// SPDX-License-Identifier: MIT
/*
 * Blocking chains and the queue view on synthetic captures with known
 * answers: a server thread blocked on a mutex that "lockholder" on the
 * other CPU releases 34.3 us after the next request's hand-off; a server
 * thread woken by an interrupt but preempted by "stress"; socket queue
 * depths of a known arrival and receive sequence; datagrams lost before
 * a socket's queue; what the lock's holder ran while the server waited
 * (its sampled functions, its time off the CPU left out).
 */
#include <json-c/json.h>

#include "pipeline/analysis.h"
#include "capture/lockfn.h"
#include "capture/threads.h"
#include "clirun.h"
#include "diagnose/queueview.h"
#include "scenario.h"

static struct cli c;

static const char *const files[] = { "lock", "lock_fn", "preempt", "lost", "lost_rcvbuf", NULL };

/* 40 requests, every 8th (from the 7th) a lock pair: 5 slow of 45. */
static void save_lock(void)
{
	struct scen sc;

	scen_init(&sc, "server");
	scen_lock_run(&sc, 40);
	CHECK(scen_save(&sc, cli_file(&c, "lock")) == 0);
}

/* The same, with lockholder's functions sampled (scen_holder_fn()). */
static void save_lock_fn(void)
{
	struct scen sc;

	scen_init(&sc, "server");
	sc.s.ksyms = SC_KSYMS;
	sc.holder_fn = true;
	scen_lock_run(&sc, 40);
	CHECK(scen_save(&sc, cli_file(&c, "lock_fn")) == 0);
}

static int analyze_file(struct nsight_analysis *a, const char *name)
{
	return synth_analyze_file(a, cli_file(&c, name));
}

/* The RX message with @id. */
static const struct nsight_msg *rx_msg(const struct nsight_analysis *a, uint64_t id)
{
	size_t i;

	for (i = 0; i < a->lt.n; i++)
		if (a->lt.msgs[i].dir == NSIGHT_MSG_RX && a->lt.msgs[i].id == id)
			return &a->lt.msgs[i];
	return NULL;
}

static uint64_t act_of(const struct nsight_analysis *a, const struct nsight_chain_act *v, size_t n,
		       const char *key)
{
	char buf[200];
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(nsight_key_format(a->keys, v[i].key, buf, sizeof(buf)), key))
			return v[i].ticks;
	return 0;
}

/* The chain of the second request of the first lock pair (rx 9). */
static void test_chain_mutex(void)
{
	struct nsight_analysis a;
	struct nsight_chain ch = { 0 };
	const struct nsight_chain_node *r, *k;
	const struct nsight_msg *m;

	REQUIRE(analyze_file(&a, "lock") == 0);
	m = rx_msg(&a, 9);
	REQUIRE(m && m->reason == NSIGHT_MSG_COMPLETE);
	CHECK_U64((uint64_t)m->total_ns, 39000);
	REQUIRE(nsight_chain_build(&ch, &a.chains, m->tid, m->t[NSIGHT_RX_H].tsc,
				   m->t[NSIGHT_RX_A].tsc, NSIGHT_CHAIN_DEPTH) == 0);
	nsight_chain_sort(&ch);
	REQUIRE(ch.n == 2);
	r = &ch.v[0];
	k = &ch.v[1];
	CHECK_U64(r->tid, 101);
	CHECK_U64(r->blocked, 34300);
	CHECK_U64(r->blocked_irq, 0);
	CHECK_U64(r->runnable, 1000);	/* woken at W, running at W + 1000 */
	CHECK_U64(r->on, 3000);
	/* The waker: lockholder, on X, what it did while the server waited. */
	CHECK_U64(k->parent, 0);
	CHECK_U64(k->tid, 102);
	CHECK_U64(k->pid, 100);
	CHECK(!strcmp(k->comm, "lockholder"));
	CHECK_U64(k->wakes, 1);
	CHECK_U64(k->wake_cpu, SC_X);
	CHECK_U64(k->waited, 34300);
	CHECK_U64(k->on, 34300);
	/* The second request's softirq ran in it until h2 + 300. */
	CHECK_U64(act_of(&a, k->act, k->n_act, "task:lockholder"), 34000);
	CHECK_U64(act_of(&a, k->act, k->n_act, "softirq:NET_RX"), 300);
	CHECK(k->n_act && !strcmp(nsight_key_name(a.keys, k->act[0].key), "lockholder"));
	/* A request that did not wait: its thread never blocked in h -> a. */
	m = rx_msg(&a, 2);
	REQUIRE(m && nsight_chain_build(&ch, &a.chains, m->tid, m->t[NSIGHT_RX_H].tsc,
					m->t[NSIGHT_RX_A].tsc, NSIGHT_CHAIN_DEPTH) == 0);
	CHECK_U64(ch.n, 1);
	CHECK_U64(ch.v[0].blocked, 100);	/* until the interrupt's wakeup */
	CHECK_U64(ch.v[0].blocked_irq, 100);
	nsight_chain_fini(&ch);
	nsight_analysis_fini(&a);
}

/* The diagnosis names the sc_holder first; the reports carry the chain. */
static void test_diagnosis_mutex(void)
{
	struct cli_result r;
	struct json_object *j, *ch, *g, *b, *msgs, *m0, *kids, *v;

	cli_run(&c, &r, NULL, (const char *[]){ "--color", "never", cli_file(&c, "lock"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "  Blocked by lockholder (A)");
	CHECK_STR_HAS(r.out, "chains: server[100] rx: waits of the tail's threads ended by other tasks\n"
			     "  held up by lockholder[100] tid 102 releasing futex 0x55d0c0de0040 (5 of 5 waits): 5 tail messages, 172us\n"
			     "    meanwhile on a CPU 100% (task:lockholder 99%, softirq:NET_RX 1%), runnable 0%, blocked 0%\n");
	cli_result_free(&r);

	cli_run_verbose(&c, &r, NULL, (const char *[]){ cli_file(&c, "lock"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "  Blocked by lockholder (A)                       94%          171500        5     5           34300          34300\n");
	CHECK_STR_HAS(r.out, "  rx 9 latency 39000 ns\n"
			     "    server[100] tid 101: on cpu 3000 ns (task:server 100%), runnable 1000 ns (instead: idle:task:server 100%), blocked 34300 ns (by interrupts or unseen 0 ns), unknown 0 ns\n"
			     "      <- lockholder[100] tid 102 ended 1 wait (34300 ns, woke it from cpu 0, releasing futex 0x55d0c0de0040): on cpu 34300 ns (task:lockholder 99%, softirq:NET_RX 1%), runnable 0 ns, blocked 0 ns (by interrupts or unseen 0 ns), unknown 0 ns\n");
	cli_result_free(&r);

	cli_run(&c, &r, NULL, (const char *[]){ "--json", cli_file(&c, "lock"), NULL });
	CHECK_U64(r.status, 0);
	j = json_tokener_parse(r.out);
	REQUIRE(j);
	REQUIRE(json_object_object_get_ex(j, "chains", &ch));
	g = json_object_array_get_idx(ch, 0);
	REQUIRE(g && json_object_object_get_ex(g, "blockers", &b));
	CHECK_U64(json_object_array_length(b), 1);
	v = json_object_object_get(json_object_array_get_idx(b, 0), "comm");
	CHECK(v && !strcmp(json_object_get_string(v), "lockholder"));
	REQUIRE(json_object_object_get_ex(g, "messages", &msgs));
	CHECK_U64(json_object_array_length(msgs), 5);
	m0 = json_object_object_get(json_object_array_get_idx(msgs, 0), "chain");
	REQUIRE(m0 && json_object_object_get_ex(m0, "woken_by", &kids));
	CHECK_U64(json_object_array_length(kids), 1);
	v = json_object_object_get(json_object_array_get_idx(kids, 0), "waited_ns");
	CHECK_U64(v ? (uint64_t)json_object_get_int64(v) : 0, 34300);
	/* The anomaly's reason. */
	CHECK_STR_HAS(r.out, "\"reason\": \"blocked\"");
	json_object_put(j);
	cli_result_free(&r);
}

/*
 * The lock's identity from the futex records: the server slept on futex
 * 0x55d0c0de0040 of its process 5 times, 39800 ns from futex_wait() to
 * the wakeup each time, woken by lockholder inside futex_wake() on it.
 */
static void test_locks(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_analysis a;
	struct nsight_lock *v;
	struct cli_result r;
	size_t n;

	REQUIRE(analyze_file(&a, "lock") == 0);
	REQUIRE(nsight_threads_locks(&a.chains, &v, &n, &d) == 0);
	CHECK_U64(n, 1);
	if (n) {
		CHECK_U64(v[0].pid, 100);
		CHECK_U64(v[0].uaddr, SC_LOCK_FUTEX);
		CHECK_U64(v[0].waits, 5);
		CHECK_U64(v[0].p50, 39800);
		CHECK_U64(v[0].max, 39800);
		CHECK_U64(v[0].total, 5 * 39800);
		CHECK_U64(v[0].holder_tid, 102);
		CHECK_U64(v[0].holder_wakes, 5);
		CHECK_U64(v[0].holder_released, 5);
		CHECK(!strcmp(v[0].holder_comm, "lockholder") && !strcmp(v[0].comm, "server"));
		/* Each woken server held it from its return to its futex_wake(). */
		CHECK_U64(v[0].holds, 5);
		CHECK_U64(v[0].hold_p50, 1000);
		CHECK_U64(v[0].hold_max, 1000);
	}
	free(v);
	nsight_analysis_fini(&a);

	cli_run(&c, &r, NULL, (const char *[]){ "--color", "never", cli_file(&c, "lock"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "locks: futexes threads slept on, by total wait\n"
			     "  futex 0x55d0c0de0040 of server[100]: 5 sleeps, 199us in all, p50 39.8us, p99 39.8us, max 39.8us; woken most by lockholder tid 102 (5 times, 5 in futex_wake on it); held after a sleep p50 1.00us, p99 1.00us, max 1.00us (5 releases through futex_wake)\n");
	cli_result_free(&r);
	cli_run(&c, &r, NULL, (const char *[]){ "--json", cli_file(&c, "lock"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "\"futex\": \"0x55d0c0de0040\"");
	CHECK_STR_HAS(r.out, "\"p99_ns\": 39800");
	CHECK_STR_HAS(r.out, "\"hold\": {\n        \"releases\": 5,\n        \"p50_ns\": 1000,");
	CHECK_STR_HAS(r.out, "\"futex\": \"0x55d0c0de0040\",\n          \"futex_releases\": 5,");
	cli_result_free(&r);
	/* Without futex records: no locks section. */
	cli_run(&c, &r, NULL, (const char *[]){ cli_file(&c, "preempt"), NULL });
	CHECK(r.out && !strstr(r.out, "locks:"));
	cli_result_free(&r);
}

/* The one lock of @file and its holder's functions, into @l and @fn. */
static void lock_fns(const char *file, struct nsight_lock *l, struct nsight_lockfns *fn)
{
	struct nsight_diag d = { 0 };
	struct nsight_analysis a;
	struct nsight_lock *v = NULL;
	size_t n = 0;

	memset(l, 0, sizeof(*l));
	memset(fn, 0, sizeof(*fn));
	REQUIRE(analyze_file(&a, file) == 0);
	REQUIRE(nsight_threads_locks(&a.chains, &v, &n, &d) == 0);
	CHECK_U64(n, 1);
	if (n == 1) {
		*l = v[0];
		CHECK(nsight_lockfn_build(&a.chains, &a.samples, v, 1, fn, &d) == 0);
	}
	free(v);
	nsight_analysis_fini(&a);
}

/* The JSON "holder" of the first lock of @file's report. */
static struct json_object *holder_json(const char *file, struct json_object **root)
{
	struct json_object *locks, *l, *h = NULL;
	struct cli_result r;

	cli_run(&c, &r, NULL, (const char *[]){ "--json", cli_file(&c, file), NULL });
	CHECK_U64(r.status, 0);
	*root = r.out ? json_tokener_parse(r.out) : NULL;
	cli_result_free(&r);
	if (*root && json_object_object_get_ex(*root, "locks", &locks) &&
	    (l = json_object_array_get_idx(locks, 0)))
		json_object_object_get_ex(l, "holder", &h);
	return h;
}

static int64_t jint(struct json_object *o, const char *key)
{
	struct json_object *v;

	return o && json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v) : -1;
}

static const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v;

	return o && json_object_object_get_ex(o, key, &v) && json_object_get_string(v) ?
	       json_object_get_string(v) : "(none)";
}

/*
 * While the server slept on the mutex (5 times 39800 ns), lockholder ran
 * 32800 ns of each, 27900 of them sampled: slow_fn 15000, net_rx_stub 8000,
 * user code 3000, and net_rx_stub in the softirq that ran in its time
 * 1900. Its 7000 ns off the CPU (stress ran, in slow_fn too) are not its.
 */
static void test_lock_holder_functions(void)
{
	static const char *const names[] = {
		"slow_fn", "net_rx_stub", "user code", "softirq:NET_RX > net_rx_stub",
	};
	static const uint64_t ticks[] = { 75000, 40000, 15000, 9500 };
	struct json_object *j, *h, *fns, *f;
	struct nsight_analysis a;
	struct nsight_lockfns fn;
	struct nsight_lock l;
	struct cli_result r;
	char buf[200];
	size_t i;

	lock_fns("lock_fn", &l, &fn);
	CHECK_U64(l.holder_tid, 102);
	CHECK_U64(fn.none, NSIGHT_LOCKFN_NAMED);
	CHECK_U64(fn.waited, 5 * 39800);
	CHECK_U64(fn.on, 5 * 32800);
	CHECK_U64(fn.evidence, 5 * 27900);
	CHECK_U64(fn.n_funcs, 4);
	REQUIRE(fn.n_top == 4);
	/* Names need the capture's keys. */
	REQUIRE(analyze_file(&a, "lock_fn") == 0);
	for (i = 0; i < 4; i++) {
		const char *name = nsight_lockfn_name(a.keys, &fn.top[i], buf, sizeof(buf));

		if (strcmp(name, names[i]))
			KTAP_FAIL("function %zu: \"%s\", expected \"%s\"", i, name, names[i]);
		CHECK_U64(fn.top[i].ticks, ticks[i]);
	}
	nsight_analysis_fini(&a);

	cli_run(&c, &r, NULL, (const char *[]){ "--color", "never", cli_file(&c, "lock_fn"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "(5 releases through futex_wake)\n"
			     "    holder lockholder tid 102: in slow_fn 54%, net_rx_stub 29%, user code 11%, +1 more (of 140us sampled or traced, of 164us on a CPU while its waiters waited)\n");
	cli_result_free(&r);

	h = holder_json("lock_fn", &j);
	REQUIRE(h && json_object_object_get_ex(h, "functions", &fns));
	CHECK_U64(json_object_array_length(fns), 4);
	f = json_object_array_get_idx(fns, 0);
	CHECK_STR_HAS(jstr(f, "name"), "slow_fn");
	CHECK_U64(jint(f, "ns"), 75000);
	f = json_object_array_get_idx(fns, 2);
	CHECK_STR_HAS(jstr(f, "name"), "user code");
	/* 15000 of 139500 ns. */
	CHECK(f && json_object_object_get_ex(f, "share", &f) &&
	      json_object_get_double(f) > 0.10752 && json_object_get_double(f) < 0.10753);
	CHECK_U64(jint(h, "evidence_ns"), 139500);
	CHECK_U64(jint(h, "on_cpu_ns"), 164000);
	CHECK_U64(jint(h, "waited_ns"), 199000);
	CHECK(json_object_object_get_ex(h, "no_functions", &f) && !f);
	json_object_put(j);
}

/* Without samples or PT: no function, and the JSON says why. */
static void test_lock_holder_no_evidence(void)
{
	struct json_object *j, *h, *fns;
	struct nsight_lockfns fn;
	struct nsight_lock l;
	struct cli_result r;

	lock_fns("lock", &l, &fn);
	CHECK_U64(fn.none, NSIGHT_LOCKFN_NO_EVIDENCE);
	CHECK_U64(fn.n_funcs, 0);
	CHECK_U64(fn.evidence, 0);
	/* lockholder ran through every sleep. */
	CHECK_U64(fn.waited, 5 * 39800);
	CHECK_U64(fn.on, 5 * 39800);

	cli_run(&c, &r, NULL, (const char *[]){ "--color", "never", cli_file(&c, "lock"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "(5 releases through futex_wake)\n");
	CHECK(r.out && !strstr(r.out, "    holder "));
	cli_result_free(&r);

	h = holder_json("lock", &j);
	REQUIRE(h && json_object_object_get_ex(h, "functions", &fns));
	CHECK_U64(json_object_array_length(fns), 0);
	CHECK_U64(jint(h, "evidence_ns"), 0);
	CHECK_STR_HAS(jstr(h, "no_functions"), "no function evidence in the capture");
	json_object_put(j);
}

/* Runnable but not running: what ran instead. */
static void test_chain_preempted(void)
{
	struct nsight_analysis a;
	struct nsight_chain ch = { 0 };
	const struct nsight_msg *m;
	struct scen sc;
	int i;

	scen_init(&sc, "server");
	for (i = 0; i < 10; i++) {
		if (i == 5)
			scen_preempted(&sc);
		else
			scen_woken(&sc);
	}
	REQUIRE(scen_save(&sc, cli_file(&c, "preempt")) == 0);
	REQUIRE(analyze_file(&a, "preempt") == 0);
	m = rx_msg(&a, 6);
	REQUIRE(m && m->reason == NSIGHT_MSG_COMPLETE);
	REQUIRE(nsight_chain_build(&ch, &a.chains, m->tid, m->t[NSIGHT_RX_H].tsc,
				   m->t[NSIGHT_RX_A].tsc, NSIGHT_CHAIN_DEPTH) == 0);
	nsight_chain_sort(&ch);
	CHECK_U64(ch.n, 1);	/* no task woke it */
	CHECK_U64(ch.v[0].blocked, 100);
	CHECK_U64(ch.v[0].blocked_irq, 100);
	CHECK_U64(ch.v[0].runnable, 29900);
	CHECK_U64(ch.v[0].on, 1000);
	CHECK_U64(ch.v[0].n_inst, 1);
	CHECK_U64(act_of(&a, ch.v[0].inst, ch.v[0].n_inst, "task:stress"), 29900);
	nsight_chain_fini(&ch);
	nsight_analysis_fini(&a);
}

/* Depths of a known sequence: (h, a) of five datagrams on one socket. */
static void test_queue_depths(void)
{
	static const uint64_t ha[][2] = {
		{ 100, 150 }, { 200, 600 }, { 300, 700 }, { 400, 800 }, { 900, 950 },
	};
	static const uint32_t ahead[] = { 0, 0, 1, 2, 0 };
	struct nsight_msg msgs[7];
	struct nsight_cap_handoff ho[5];
	struct nsight_lifetimes lt = { .msgs = msgs, .n = 7, .n_rx = 7 };
	struct nsight_capture cap = { .handoffs = ho, .n_handoffs = 5 };
	struct nsight_queueview qv;
	struct nsight_diag d = { 0 };
	const struct nsight_qv_sock *s;
	size_t i;

	memset(msgs, 0, sizeof(msgs));
	memset(ho, 0, sizeof(ho));
	for (i = 0; i < 5; i++) {
		msgs[i].id = i + 1;
		msgs[i].protocol = IPPROTO_UDP;
		msgs[i].sock_id = 0x51;
		msgs[i].t[NSIGHT_RX_H] = (struct nsight_msg_time){ .valid = true, .tsc = ha[i][0] };
		msgs[i].t[NSIGHT_RX_A] = (struct nsight_msg_time){ .valid = true, .tsc = ha[i][1] };
		ho[i].r.hdr.tsc = ha[i][0];
		ho[i].r.sock_id = 0x51;
		ho[i].r.rcvq_len = ahead[i] + 1;
		ho[i].r.rcvq_bytes = 64 * (ahead[i] + 1);
	}
	/* A datagram never made readable, and another socket's message. */
	msgs[5] = (struct nsight_msg){ .id = 6, .protocol = IPPROTO_UDP, .sock_id = 0x51,
				       .reason = NSIGHT_MSG_NO_HANDOFF };
	msgs[6] = (struct nsight_msg){ .id = 7, .protocol = IPPROTO_UDP, .sock_id = 0x52,
				       .reason = NSIGHT_MSG_NO_APP_RECV };
	REQUIRE(nsight_queueview_build(&qv, &lt, &cap, &d) == 0);
	for (i = 0; i < 5; i++) {
		CHECK_U64(qv.msg[i].ahead, ahead[i]);
		CHECK_U64(qv.msg[i].kq_len, ahead[i] + 1);
		CHECK_U64(qv.msg[i].kq_bytes, 64 * (ahead[i] + 1));
	}
	CHECK_U64(qv.msg[5].ahead, NSIGHT_QV_NONE);
	CHECK_U64(qv.n_socks, 2);
	s = nsight_queueview_sock(&qv, 0x51);
	REQUIRE(s);
	CHECK_U64(s->messages, 5);
	CHECK_U64(s->ahead_p50, 0);
	CHECK_U64(s->ahead_p99, 2);
	CHECK_U64(s->ahead_max, 2);
	CHECK_U64(s->handoffs, 5);
	CHECK_U64(s->kq_len_max, 3);
	CHECK_U64(s->kq_bytes_max, 192);
	CHECK_U64(s->not_queued, 1);
	s = nsight_queueview_sock(&qv, 0x52);
	REQUIRE(s);
	CHECK_U64(s->messages, 0);
	CHECK_U64(s->not_queued, 0);
	nsight_queueview_fini(&qv);
}

/* Datagrams that reach the host but never the socket's queue: a warning. */
static void test_rcvbuf_warning(void)
{
	struct cli_result r;
	struct scen sc;
	uint64_t t;
	int i;

	scen_init(&sc, "server");
	for (i = 0; i < 10; i++)
		scen_woken(&sc);
	/* Three more datagrams seen on X, dropped before the socket. */
	for (i = 0, t = sc.t; i < 3; i++, t += 1000) {
		synth_pkt(&sc.s, SC_X, t, NSIGHT_PKT_RX_GRO, 0x9000 + i, sc.flow, 0, 64, 0);
		synth_pkt(&sc.s, SC_X, t + 200, NSIGHT_PKT_RX_RECEIVE, 0x9000 + i, sc.flow, 0, 64, 0);
	}
	REQUIRE(scen_save(&sc, cli_file(&c, "lost")) == 0);
	cli_run(&c, &r, NULL, (const char *[]){ cli_file(&c, "lost"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "warning: 3 datagrams to 10.0.0.1:5000 > 10.0.0.2:9000 were never made readable: lost before the socket's queue (a full receive buffer, a socket filter or a bad checksum; kernel queue max 0 bytes)\n");
	cli_result_free(&r);
	cli_run_verbose(&c, &r, NULL, (const char *[]){ cli_file(&c, "lost"), NULL });
	CHECK_STR_HAS(r.out, "queue: udp 10.0.0.1:5000 > 10.0.0.2:9000 server[100]: 10 messages, ahead at hand-off p50 0, p99 0, max 0; kernel queue at 10 hand-offs p99 1 skbs 0 bytes, max 1 skbs 0 bytes\n");
	CHECK_STR_HAS(r.out, "warning: 3 datagrams");
	cli_result_free(&r);
	/* The kernel's sock_drop records say the full buffer took two of them. */
	scen_init(&sc, "server");
	for (i = 0; i < 10; i++)
		scen_woken(&sc);
	for (i = 0, t = sc.t; i < 3; i++, t += 1000) {
		synth_pkt(&sc.s, SC_X, t, NSIGHT_PKT_RX_GRO, 0x9000 + i, sc.flow, 0, 64, 0);
		synth_pkt(&sc.s, SC_X, t + 200, NSIGHT_PKT_RX_RECEIVE, 0x9000 + i, sc.flow, 0, 64, 0);
		if (i)
			synth_sock_drop(&sc.s, SC_X, t + 300, 0x51, sc.sock, 0x9000 + i, -ENOMEM,
					4608, 4608);
	}
	REQUIRE(scen_save(&sc, cli_file(&c, "lost_rcvbuf")) == 0);
	cli_run(&c, &r, NULL, (const char *[]){ cli_file(&c, "lost_rcvbuf"), NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "warning: 3 datagrams to 10.0.0.1:5000 > 10.0.0.2:9000 were never made readable: the kernel dropped 2 of them for a full receive buffer (see resource loops in the diagnosis)\n");
	cli_result_free(&r);
	/* Without losses, no warning. */
	cli_run(&c, &r, NULL, (const char *[]){ cli_file(&c, "lock"), NULL });
	CHECK(r.out && !strstr(r.out, "warning:"));
	cli_result_free(&r);
}

static void test_setup(void)
{
	REQUIRE(cli_init(&c) == 0);
	save_lock();
	save_lock_fn();
}

static void test_cleanup(void)
{
	CHECK(cli_fini(&c, files) == 0);
}

KTAP_MAIN(KTAP_TEST(test_setup), KTAP_TEST(test_chain_mutex), KTAP_TEST(test_diagnosis_mutex),
	  KTAP_TEST(test_locks), KTAP_TEST(test_lock_holder_functions),
	  KTAP_TEST(test_lock_holder_no_evidence), KTAP_TEST(test_chain_preempted), KTAP_TEST(test_queue_depths),
	  KTAP_TEST(test_rcvbuf_warning), KTAP_TEST(test_cleanup))
