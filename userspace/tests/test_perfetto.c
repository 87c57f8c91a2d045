// SPDX-License-Identifier: MIT
/*
 * nsight-analyze --perfetto: the trace of synthetic captures passes the
 * checker (trace_check_lib.h) and holds what they hold: nested contexts
 * per CPU, one async track per complete message with its segments, a
 * flow per RX hand-off, the causes of the diagnosed messages; and the
 * checker itself rejects bad traces.
 */
#include <math.h>

#include "diagnose/categories_builtin.h"
#include "clirun.h"
#include "analyze/perfetto.h"
#include "scenario.h"
#include "trace_check_lib.h"

struct trace {
	char *buf;
	size_t len;
	struct json_object *root;
	struct tc_result r;
	struct tc_slice *sl;		/* B/E slices; names point into root */
	size_t n_sl, cap_sl;
	uint64_t tsc0;
};

static void on_slice(void *arg, const struct tc_slice *s)
{
	struct trace *t = arg;

	TC_GROW(t->sl, t->n_sl, t->cap_sl);
	t->sl[t->n_sl++] = *s;
}

/* Check the text of a trace into @t. */
static void trace_check_text(struct trace *t)
{
	t->r = (struct tc_result){ .log = stdout, .on_slice = on_slice, .arg = t };
	tc_check_buf(t->buf, t->len, &t->r, &t->root);
	if (t->r.violations)
		printf("# %" PRIu64 " violations\n", t->r.violations);
	tc_print_counts(stdout, &t->r.c);
}

/* Write the trace of @a (and @dx) and check it. Returns the writer's result. */
static int trace_of(const struct nsight_analysis *a, const struct nsight_dx *dx, struct trace *t)
{
	struct nsight_diag d = { 0 };
	FILE *f;
	int ret;

	memset(t, 0, sizeof(*t));
	t->tsc0 = a->sum.tsc_first;
	f = open_memstream(&t->buf, &t->len);
	if (!f)
		abort();
	ret = nsight_perfetto_write(f, a, dx, &d);
	if (fclose(f))
		abort();
	if (ret)
		printf("# perfetto: %s\n", d.msg);
	trace_check_text(t);
	return ret;
}

/* Read and check the trace in @path into @t; false if unreadable. */
static bool trace_of_file(struct trace *t, const char *path)
{
	memset(t, 0, sizeof(*t));
	t->buf = cli_slurp(path);
	if (!t->buf)
		return false;
	t->len = strlen(t->buf);
	trace_check_text(t);
	return true;
}

static void trace_free(struct trace *t)
{
	json_object_put(t->root);
	free(t->buf);
	free(t->sl);
	memset(t, 0, sizeof(*t));
}

/* B/E slices on cpu @cpu named @name whose parent is @parent ("" for the top). */
static size_t slices(const struct trace *t, uint32_t cpu, const char *name, const char *parent)
{
	size_t i, n = 0;

	for (i = 0; i < t->n_sl; i++) {
		const struct tc_slice *s = &t->sl[i];

		if (s->pid == 4194305 && s->tid == cpu + 1 && !strcmp(s->name, name) &&
		    !strcmp(s->parent ? s->parent : "", parent))
			n++;
	}
	return n;
}

static const struct tc_slice *slice_at(const struct trace *t, uint32_t cpu, const char *name,
				       size_t nth)
{
	size_t i;

	for (i = 0; i < t->n_sl; i++)
		if (t->sl[i].tid == cpu + 1 && !strcmp(t->sl[i].name, name) && !nth--)
			return &t->sl[i];
	return NULL;
}

static struct json_object *events(const struct trace *t)
{
	struct json_object *evs = NULL;

	if (!t->root || !json_object_object_get_ex(t->root, "traceEvents", &evs))
		return NULL;
	return evs;
}

static const char *str_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

static double num_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_double(v) : NAN;
}

/* The @nth event of phase @ph named @name (NULL: any), or NULL. */
static struct json_object *event(const struct trace *t, const char *ph, const char *name,
				 size_t nth)
{
	struct json_object *evs = events(t);
	size_t i;

	for (i = 0; evs && i < json_object_array_length(evs); i++) {
		struct json_object *e = json_object_array_get_idx(evs, i);

		if (!strcmp(str_of(e, "ph"), ph) && (!name || !strcmp(str_of(e, "name"), name)) &&
		    !nth--)
			return e;
	}
	return NULL;
}

/* The b events of async id @id (the message's, then its segments'). */
static size_t async_bs(const struct trace *t, const char *id, const char **names, size_t max)
{
	struct json_object *evs = events(t);
	size_t i, n = 0;

	for (i = 0; evs && i < json_object_array_length(evs); i++) {
		struct json_object *e = json_object_array_get_idx(evs, i);
		const char *eid = str_of(e, "id");

		if (!strcmp(str_of(e, "ph"), "b") && eid && !strcmp(eid, id)) {
			if (n < max)
				names[n] = str_of(e, "name");
			n++;
		}
	}
	return n;
}

static struct json_object *arg(struct json_object *e, const char *key)
{
	struct json_object *args, *v;

	if (!e || !json_object_object_get_ex(e, "args", &args) ||
	    !json_object_object_get_ex(args, key, &v))
		return NULL;
	return v;
}

/* A scenario's capture, analysed and diagnosed. */
static int analyse(struct synth *s, struct nsight_analysis *a, struct nsight_dx *dx)
{
	struct nsight_analysis_opts ao = { .lifetimes = true };
	struct nsight_diag d = { 0 };
	struct nsight_dx_opts o;
	struct nsight_cats cats;
	struct membuf mb;
	FILE *f;
	int ret;

	synth_flush(s);
	synth_stream(s, &mb);
	memset(dx, 0, sizeof(*dx));
	f = mem_reader(mb.data, mb.len);
	if (!f)
		abort();
	ret = nsight_analysis_run(a, f, &ao, &d);
	fclose(f);
	free(mb.data);
	if (ret) {
		printf("# analysis: %s\n", d.msg);
		return ret;
	}
	nsight_cats_init(&cats);
	ret = nsight_cats_parse(&cats, nsight_categories_builtin, strlen(nsight_categories_builtin),
				"builtin", &d);
	nsight_dx_opts_default(&o);
	if (!ret)
		ret = nsight_analysis_diagnose(dx, a, NULL, &cats, &o, &d);
	nsight_cats_fini(&cats);
	if (ret)
		printf("# diagnosis: %s\n", d.msg);
	return ret;
}

#define US(ns)	((double)(ns) / 1000.0)

/*
 * The diagnosis scenario: 40 messages, every 8th with a 40 us NET_RX
 * softirq inside the server on Y. Every message is a track of its own
 * with its two segments, every hand-off a flow from X to Y, and the slow
 * ones name their cause.
 */
static void test_messages_and_contexts(void)
{
	struct nsight_analysis a;
	struct nsight_dx dx;
	struct trace t;
	struct json_object *e, *v;
	const char *names[4];
	size_t i, tail = 0, named = 0;
	struct scen sc;

	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_NETRX, 8, 7);
	REQUIRE(analyse(&sc.s, &a, &dx) == 0);
	synth_free(&sc.s);
	CHECK_U64(a.lt.n_complete, 40);
	CHECK(trace_of(&a, &dx, &t) == 0);
	CHECK_U64(t.r.violations, 0);

	/* Metadata: the CPUs and their threads, the server's process. */
	CHECK_STR_HAS(t.buf, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":4194305,\"tid\":0,\"args\":{\"name\":\"CPUs\"}}");
	CHECK_STR_HAS(t.buf, "\"name\":\"thread_name\",\"pid\":4194305,\"tid\":2,\"args\":{\"name\":\"cpu 1\"}}");
	CHECK_STR_HAS(t.buf, "\"name\":\"process_name\",\"pid\":100,\"tid\":0,\"args\":{\"name\":\"server\"}}");

	/* Y: the softirq inside the server, 5 times; idle inside the swapper. */
	CHECK_U64(slices(&t, SC_Y, "softirq:NET_RX", "task:server"), 5);
	CHECK(slices(&t, SC_Y, "idle", "task:swapper/1") >= 40);
	CHECK_U64(slices(&t, SC_Y, "task:server", ""), 41);	/* woken 40 times, and at the start */
	/* X: the NIC's irq and the NET_RX softirq while idle. */
	CHECK_U64(slices(&t, SC_X, "irq:eth0", "idle"), 40);
	CHECK_U64(slices(&t, SC_X, "softirq:NET_RX", "idle"), 40);
	CHECK_U64(t.r.c.tracks, 2);
	CHECK_U64(t.r.c.B, t.r.c.E);
	/* E names nothing: Perfetto then closes the innermost slice. */
	CHECK(strstr(t.buf, "{\"ph\":\"E\",\"pid\""));
	CHECK(!strstr(t.buf, "{\"ph\":\"E\",\"name\""));
	/* The first slow message's softirq: 40 us from wake + 200. */
	{
		const struct tc_slice *s = slice_at(&t, SC_Y, "softirq:NET_RX", 0);
		uint64_t h = SC_BASE + 7 * SC_GAP + 700, wake = h + 1000;

		REQUIRE(s);
		CHECK(fabs(s->ts - US(wake + 200 - t.tsc0)) < 1e-6);
		CHECK(fabs(s->end - s->ts - 40.0) < 1e-6);
		CHECK_STR_HAS(str_of(s->args, "kind"), "softirq");
		CHECK_U64(json_object_get_int64(json_object_object_get(s->args, "vec")), SYN_NET_RX);
	}

	/* One async track per message: "rx N" and its two segments. */
	CHECK_U64(t.r.c.async, 40);
	CHECK_U64(t.r.c.b, 40 * 3);
	CHECK_U64(t.r.c.e, 40 * 3);
	CHECK_U64(async_bs(&t, "1", names, 4), 3);
	CHECK(!strcmp(names[0], "rx 1") && !strcmp(names[1], "n->h") && !strcmp(names[2], "h->a"));
	e = event(&t, "b", "rx 1", 0);
	REQUIRE(e);
	CHECK_U64(json_object_get_int64(json_object_object_get(e, "pid")), 100);
	CHECK_U64(json_object_get_int64(json_object_object_get(e, "tid")), 101);
	CHECK(!strcmp(str_of(e, "cat"), "rx"));
	CHECK(fabs(num_of(e, "ts") - US(SC_BASE - t.tsc0)) < 1e-6);
	CHECK_U64(json_object_get_int64(arg(e, "latency_ns")), 2700);
	CHECK(!strcmp(json_object_get_string(arg(e, "cores")), "0->1"));
	e = event(&t, "e", "n->h", 0);
	REQUIRE(e);
	CHECK(fabs(num_of(e, "ts") - US(SC_BASE + 700 - t.tsc0)) < 1e-6);
	e = event(&t, "e", "rx 1", 0);
	REQUIRE(e);
	CHECK(fabs(num_of(e, "ts") - US(SC_BASE + 2700 - t.tsc0)) < 1e-6);

	/* A flow per hand-off, from X at h to Y at a, bound to slices there. */
	CHECK_U64(t.r.c.flows, 40);
	CHECK_U64(t.r.c.unbound, 0);
	e = event(&t, "s", "handoff", 0);
	REQUIRE(e);
	CHECK_U64(json_object_get_int64(json_object_object_get(e, "tid")), SC_X + 1);
	CHECK(fabs(num_of(e, "ts") - US(SC_BASE + 700 - t.tsc0)) < 1e-6);
	e = event(&t, "f", "handoff", 0);
	REQUIRE(e);
	CHECK_U64(json_object_get_int64(json_object_object_get(e, "tid")), SC_Y + 1);
	CHECK(!strcmp(str_of(e, "bp"), "e"));
	CHECK(fabs(num_of(e, "ts") - US(SC_BASE + 2700 - t.tsc0)) < 1e-6);

	/* The diagnosed tail messages carry their causes, as the diagnosis has them. */
	REQUIRE(dx.n == 1 && dx.groups[0].n_msgs > 0 && dx.groups[0].n_causes > 0);
	for (i = 0; (e = event(&t, "b", NULL, i)); i++) {
		const struct nsight_dx_group *g = &dx.groups[0];
		struct json_object *c0;
		char want[256];
		size_t k;

		if (!arg(e, "tail"))
			continue;
		tail++;
		v = arg(e, "causes");
		for (k = 0; k < g->n_msgs; k++) {
			const struct nsight_dx_msg *dm = &g->msgs[k];
			char nm[32];

			snprintf(nm, sizeof(nm), "rx %" PRIu64, dm->id);
			if (strcmp(str_of(e, "name"), nm) || !dm->n_mc)
				continue;
			c0 = v ? json_object_array_get_idx(v, 0) : NULL;
			snprintf(want, sizeof(want), "%s (%s)",
				 g->causes[g->mcs[dm->mc].cause].category,
				 nsight_role_name(g->causes[g->mcs[dm->mc].cause].role));
			if (c0 && !strcmp(str_of(c0, "cause"), want) &&
			    json_object_get_int64(json_object_object_get(c0, "dev_ns")) ==
			    g->mcs[dm->mc].dev)
				named++;
			else
				KTAP_FAIL("%s: causes %s, expected first \"%s\"", nm,
					  v ? json_object_to_json_string(v) : "none", want);
		}
	}
	CHECK_U64(tail, dx.groups[0].n_msgs);
	CHECK(named > 0);
	printf("# tail %zu, causes named %zu, first: %s\n", tail, named,
	       dx.groups[0].causes[0].category);
	trace_free(&t);
	nsight_dx_fini(&dx);
	nsight_analysis_fini(&a);
}

/* Work, faults, an irq on the idle core, lost records: each nested where it ran. */
static void test_context_kinds(void)
{
	static const enum scen_kind kinds[] = {
		SC_NORMAL, SC_KWORKER, SC_FAULT, SC_IDLE_IRQ, SC_HOG, SC_DROP, SC_NORMAL,
	};
	struct nsight_analysis a;
	struct nsight_dx dx;
	const struct tc_slice *s;
	struct trace t;
	struct scen sc;
	size_t i;

	scen_init(&sc, "server");
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		scen_msg(&sc, kinds[i]);
	REQUIRE(analyse(&sc.s, &a, &dx) == 0);
	synth_free(&sc.s);
	CHECK(trace_of(&a, &dx, &t) == 0);
	CHECK_U64(t.r.violations, 0);
	CHECK_U64(slices(&t, SC_Y, "work:vmstat_update", "task:kworker/1:1"), 1);
	CHECK_U64(slices(&t, SC_Y, "fault:user", "task:server"), 1);
	CHECK_U64(slices(&t, SC_Y, "irq:mlx5_comp0", "idle"), 1);
	CHECK_U64(slices(&t, SC_Y, "task:stress", ""), 2);
	CHECK_U64(slices(&t, SC_Y, "lost records", ""), 1);
	s = slice_at(&t, SC_Y, "work:vmstat_update", 0);
	REQUIRE(s);
	CHECK(fabs(s->end - s->ts - 30.0) < 1e-6);
	/* The idle gap is named by what ran before it. */
	s = slice_at(&t, SC_Y, "idle", 0);
	REQUIRE(s);
	CHECK(str_of(s->args, "after") && !strcmp(str_of(s->args, "after"), "task:server"));
	/* The message in the lost records is incomplete: no track. */
	CHECK_U64(a.lt.n_complete, 6);
	CHECK_U64(t.r.c.async, 6);
	trace_free(&t);
	nsight_dx_fini(&dx);
	nsight_analysis_fini(&a);
}

/*
 * A fault that a switch interrupts: two stretches, both in the server's
 * task slices, the second naming the first as its occurrence.
 */
static void test_resumed_fault(void)
{
	static const struct syn_task server = { 101, 100, "server" }, stress = { 500, 500, "stress" };
	static const struct syn_task swapper = { 0, 0, "swapper/0" };
	struct nsight_analysis a;
	struct nsight_dx dx;
	const struct tc_slice *f1, *f2, *s;
	struct json_object *occ;
	struct trace t;
	struct synth sy;

	synth_init(&sy, 1);
	synth_queue(&sy);
	synth_tk(&sy, 0, SYN_TK_TSC);
	synth_switch(&sy, 0, 2000, swapper, server);
	synth_switch(&sy, 0, 4000, server, stress);
	synth_switch(&sy, 0, 6000, stress, server);
	synth_fault(&sy, 0, 3000, 7000, 101, 100, true);
	synth_switch(&sy, 0, 8000, server, swapper);
	synth_idle(&sy, 0, 9000, true);
	synth_idle(&sy, 0, 10000, false);
	REQUIRE(analyse(&sy, &a, &dx) == 0);
	synth_free(&sy);
	CHECK(trace_of(&a, &dx, &t) == 0);
	CHECK_U64(t.r.violations, 0);
	CHECK_U64(slices(&t, 0, "fault:user", "task:server"), 2);
	f1 = slice_at(&t, 0, "fault:user", 0);
	f2 = slice_at(&t, 0, "fault:user", 1);
	s = slice_at(&t, 0, "task:stress", 0);
	REQUIRE(f1 && f2 && s);
	CHECK(fabs(f1->ts - US(3000 - t.tsc0)) < 1e-6 && fabs(f1->end - US(4000 - t.tsc0)) < 1e-6);
	CHECK(fabs(f2->ts - US(6000 - t.tsc0)) < 1e-6 && fabs(f2->end - US(7000 - t.tsc0)) < 1e-6);
	CHECK(fabs(s->ts - US(4000 - t.tsc0)) < 1e-6 && fabs(s->end - US(6000 - t.tsc0)) < 1e-6);
	CHECK(!json_object_object_get_ex(f1->args, "occ", &occ));
	CHECK(json_object_object_get_ex(f2->args, "occ", &occ));
	CHECK_U64(json_object_get_int64(json_object_object_get(f2->args, "tid")), 101);
	/* The swapper's idle after the server: "after" names it. */
	s = slice_at(&t, 0, "idle", 0);
	REQUIRE(s);
	CHECK(!strcmp(str_of(s->args, "after") ? str_of(s->args, "after") : "", "task:server"));
	CHECK(!strcmp(str_of(s->args, "key") ? str_of(s->args, "key") : "", "idle:task:server"));
	CHECK(fabs(s->ts - US(9000 - t.tsc0)) < 1e-6 && fabs(s->end - US(10000 - t.tsc0)) < 1e-6);
	/* Nothing after the last record: the swapper's slice ends there. */
	s = slice_at(&t, 0, "task:swapper/0", 1);
	REQUIRE(s);
	CHECK(fabs(s->end - US(10000 - t.tsc0)) < 1e-6);
	trace_free(&t);
	nsight_dx_fini(&dx);
	nsight_analysis_fini(&a);
}

/* Functions from sampled stacks nest inside the softirq they ran in. */
static void test_functions(void)
{
	static const struct syn_task server = { 101, 100, "server" }, swapper = { 0, 0, "swapper/0" };
	struct nsight_analysis a;
	struct nsight_dx dx;
	const struct tc_slice *s;
	struct trace t;
	struct synth sy;

	synth_init(&sy, 1);
	synth_queue(&sy);
	sy.ksyms = SC_KSYMS;
	synth_tk(&sy, 0, SYN_TK_TSC);
	synth_switch(&sy, 0, 100, swapper, server);
	synth_softirq(&sy, 0, 500, SYN_NET_RX, true);
	synth_sample(&sy, 0, 2000, 1000, sc_slow_stack, 6, 0);
	synth_sample(&sy, 0, 3000, 1000, sc_slow_stack, 6, 0);
	synth_sample(&sy, 0, 4000, 1000, sc_slow_stack + 2, 4, 0);
	synth_softirq(&sy, 0, 5500, SYN_NET_RX, false);
	synth_switch(&sy, 0, 9000, server, swapper);
	REQUIRE(analyse(&sy, &a, &dx) == 0);
	synth_free(&sy);
	CHECK_U64(a.samples.applied, 3);
	CHECK(trace_of(&a, &dx, &t) == 0);
	CHECK_U64(t.r.violations, 0);
	CHECK_U64(slices(&t, 0, "net_rx_action", "softirq:NET_RX"), 1);
	CHECK_U64(slices(&t, 0, "ip_rcv", "net_rx_action"), 1);
	CHECK_U64(slices(&t, 0, "nsight_slow_pre [nsight_slowpath]", "ip_rcv"), 1);
	CHECK_U64(slices(&t, 0, "nsight_slow_rcv [nsight_slowpath]",
			 "nsight_slow_pre [nsight_slowpath]"), 1);
	CHECK_U64(t.r.c.max_depth, 6);
	s = slice_at(&t, 0, "nsight_slow_rcv [nsight_slowpath]", 0);
	REQUIRE(s);
	/* Two periods of 1 us, in one activation. */
	CHECK(fabs(s->ts - US(1000 - t.tsc0)) < 1e-6 && fabs(s->end - US(3000 - t.tsc0)) < 1e-6);
	CHECK(!strcmp(str_of(s->args, "kind"), "func"));
	CHECK(!strcmp(str_of(s->args, "key"),
		      "func:softirq:NET_RX > nsight_slow_rcv [nsight_slowpath]"));
	s = slice_at(&t, 0, "ip_rcv", 0);
	REQUIRE(s);
	CHECK(fabs(s->ts - US(1000 - t.tsc0)) < 1e-6 && fabs(s->end - US(4000 - t.tsc0)) < 1e-6);
	trace_free(&t);
	nsight_dx_fini(&dx);
	nsight_analysis_fini(&a);
}

/* TX messages: send->queue->xmit(->done): three segments with a completion, two without. */
static void test_tx(void)
{
	struct nsight_flow u = flow4("10.0.0.2", 5001, "10.0.0.9", 7000, IPPROTO_UDP);
	struct nsight_analysis a;
	struct nsight_dx dx;
	struct json_object *e;
	const char *names[5];
	struct trace t;
	struct synth s;

	synth_init(&s, 4);
	synth_tk(&s, 0, SYN_TK_TSC);
	synth_app(&s, NSIGHT_REC_APP_SEND, 2, 80000, 0x71, u, 100, 0, 201, 200, "client");
	synth_pkt(&s, 2, 80500, NSIGHT_PKT_TX_QUEUE, 0xc1, u, 0, 100, 0);
	synth_pkt(&s, 2, 81000, NSIGHT_PKT_TX_XMIT, 0xc1, u, 0, 100, 0);
	synth_pkt(&s, 3, 83000, NSIGHT_PKT_TX_TSTAMP, 0xc1, u, 0, 100, 0);
	synth_app(&s, NSIGHT_REC_APP_SEND, 2, 90000, 0x71, u, 100, 0, 201, 200, "client");
	synth_pkt(&s, 3, 90400, NSIGHT_PKT_TX_QUEUE, 0xc2, u, 0, 100, 0);
	synth_pkt(&s, 3, 90600, NSIGHT_PKT_TX_XMIT, 0xc2, u, 0, 100, 0);
	REQUIRE(analyse(&s, &a, &dx) == 0);
	synth_free(&s);
	CHECK_U64(a.lt.n_complete, 2);
	CHECK(trace_of(&a, &dx, &t) == 0);
	CHECK_U64(t.r.violations, 0);
	CHECK_U64(t.r.c.async, 2);
	CHECK_U64(t.r.c.b, 4 + 3);
	CHECK_U64(t.r.c.flows, 0);
	/* No context records: the time of each CPU with records (not 1) is unknown. */
	CHECK_U64(t.r.c.B, 3);
	CHECK_U64(slices(&t, 0, "unknown", "") + slices(&t, 1, "unknown", "") +
		  slices(&t, 2, "unknown", "") + slices(&t, 3, "unknown", ""), 3);
	CHECK_U64(async_bs(&t, "1", names, 5), 4);
	CHECK(!strcmp(names[0], "tx 1") && !strcmp(names[1], "send->queue") &&
	      !strcmp(names[2], "queue->xmit") && !strcmp(names[3], "xmit->done"));
	CHECK_U64(async_bs(&t, "2", names, 5), 3);
	e = event(&t, "b", "tx 1", 0);
	REQUIRE(e);
	CHECK_U64(json_object_get_int64(arg(e, "latency_ns")), 3000);
	CHECK(!strcmp(str_of(e, "cat"), "tx"));
	CHECK_U64(json_object_get_int64(json_object_object_get(e, "pid")), 200);
	e = event(&t, "e", "tx 1", 0);
	REQUIRE(e);
	CHECK(fabs(num_of(e, "ts") - US(83000 - t.tsc0)) < 1e-6);
	trace_free(&t);
	nsight_dx_fini(&dx);
	nsight_analysis_fini(&a);
}

/* A comm with quotes, a backslash, control characters and a byte that is not UTF-8. */
static void test_hostile_comm(void)
{
	static const char comm[] = "a\"b\\c\n\x01\xff<";
	static const char shown[] = "a\"b\\c\n\x01\xef\xbf\xbd<";
	struct nsight_analysis a;
	struct nsight_dx dx;
	struct json_object *e;
	char key[64];
	struct trace t;
	struct scen sc;

	scen_init(&sc, comm);
	scen_run(&sc, 3, SC_NORMAL, 0, 0);
	REQUIRE(analyse(&sc.s, &a, &dx) == 0);
	synth_free(&sc.s);
	CHECK_U64(a.lt.n_complete, 3);
	CHECK(trace_of(&a, &dx, &t) == 0);
	CHECK_U64(t.r.violations, 0);
	CHECK_STR_HAS(t.buf, "a\\\"b\\\\c\\u000a\\u0001\\ufffd<");
	snprintf(key, sizeof(key), "task:%s", shown);
	CHECK_U64(slices(&t, SC_Y, key, ""), 4);
	e = event(&t, "M", "process_name", 1);
	REQUIRE(e);
	CHECK(!strcmp(json_object_get_string(arg(e, "name")), shown));
	e = event(&t, "b", "rx 1", 0);
	REQUIRE(e);
	CHECK(!strcmp(json_object_get_string(arg(e, "comm")), shown));
	trace_free(&t);
	nsight_dx_fini(&dx);
	nsight_analysis_fini(&a);
}

/* A capture with no records: the CPUs' names and nothing else. */
static void test_empty(void)
{
	struct nsight_analysis a;
	struct nsight_dx dx;
	struct trace t;
	struct synth s;

	synth_init(&s, 2);
	REQUIRE(analyse(&s, &a, &dx) == 0);
	synth_free(&s);
	CHECK(trace_of(&a, &dx, &t) == 0);
	CHECK_U64(t.r.violations, 0);
	CHECK_U64(t.r.c.events, 6);
	CHECK_U64(t.r.c.meta, 6);
	CHECK_STR_HAS(t.buf, "\"displayTimeUnit\":\"ns\"");
	CHECK_STR_HAS(t.buf, "\"messages\":0");
	trace_free(&t);
	nsight_dx_fini(&dx);
	nsight_analysis_fini(&a);
}

/* A write that fails is an error, with the reason. */
static void test_write_error(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_analysis a;
	struct nsight_dx dx;
	struct scen sc;
	FILE *f;

	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_NETRX, 8, 7);
	REQUIRE(analyse(&sc.s, &a, &dx) == 0);
	synth_free(&sc.s);
	f = fopen("/dev/full", "w");
	if (f) {
		CHECK(nsight_perfetto_write(f, &a, &dx, &d) == -1);
		CHECK_STR_HAS(d.msg, "writing the trace failed");
		fclose(f);
	} else {
		printf("# no /dev/full: not tried\n");
	}
	nsight_dx_fini(&dx);
	nsight_analysis_fini(&a);
}

/* The exit status of the trace_check command on @path, stdout to @out; -1 if not run. */
static int run_trace_check(const char *path, const char *out)
{
	const char *bin = getenv("NSIGHT_TRACE_CHECK");
	int status;
	pid_t pid;

	if (!bin)
		bin = "build-asan/tests/trace_check";
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd < 0)
			_exit(127);
		dup2(fd, 1);
		dup2(fd, 2);
		execl(bin, bin, path, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* nsight-analyze --perfetto FILE writes the same trace; trace_check agrees. */
static void test_cli(void)
{
	static const char *const files[] = { "c.nsight", "t.json", "check.out", NULL };
	char in[192], out[192], log[192], *text;
	struct cli_result r;
	struct trace t;
	struct scen sc;
	struct cli c;
	FILE *f;

	REQUIRE(cli_init(&c) == 0);
	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_NETRX, 8, 7);
	REQUIRE(scen_save(&sc, cli_path(&c, "c.nsight", in, sizeof(in))) == 0);
	cli_path(&c, "t.json", out, sizeof(out));
	cli_run(&c, &r, NULL, (const char *const[]){ "--perfetto", out, in, NULL });
	CHECK_U64(r.status, 0);
	if (r.status)
		printf("# stderr: %s\n", r.err ? r.err : "");
	cli_result_free(&r);
	REQUIRE(trace_of_file(&t, out));
	CHECK_U64(t.r.violations, 0);
	CHECK_U64(t.r.c.async, 40);
	CHECK_U64(t.r.c.flows, 40);
	CHECK_U64(t.r.c.unbound, 0);
	CHECK(t.r.c.B > 200);
	trace_free(&t);

	/* The command: 0 on the trace, 1 on one cut short, with the reason. */
	CHECK_U64(run_trace_check(out, cli_path(&c, "check.out", log, sizeof(log))), 0);
	text = cli_slurp(log);
	CHECK_STR_HAS(text, "ok 1 - ");
	CHECK_STR_HAS(text, "# tracks 2 async 40 flows 40 unbound 0");
	free(text);
	f = fopen(out, "r+");
	REQUIRE(f);
	REQUIRE(fseek(f, -40, SEEK_END) == 0);
	fputs("]}\n", f);
	REQUIRE(ftruncate(fileno(f), ftell(f)) == 0);
	fclose(f);
	CHECK_U64(run_trace_check(out, log), 1);
	text = cli_slurp(log);
	CHECK_STR_HAS(text, "not ok 1 - ");
	free(text);
	CHECK(cli_fini(&c, files) == 0);
}

/*
 * --range FROM:TO: the report and the trace keep the messages whose first
 * record lies in the range, and the CPU tracks are cut at its edges.
 */
static void test_range(void)
{
	static const char *const files[] = { "c.nsight", "t.json", NULL };
	char in[192], out[192];
	struct json_object *j, *v;
	struct cli_result r;
	struct trace t;
	struct scen sc;
	struct cli c;
	size_t i, outside = 0;
	int64_t all = 0, kept = 0;

	REQUIRE(cli_init(&c) == 0);
	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_NETRX, 8, 7);
	REQUIRE(scen_save(&sc, cli_path(&c, "c.nsight", in, sizeof(in))) == 0);
	cli_path(&c, "t.json", out, sizeof(out));
	cli_run(&c, &r, NULL, (const char *const[]){ "--json", in, NULL });
	CHECK_U64(r.status, 0);
	j = r.out ? json_tokener_parse(r.out) : NULL;
	if (j && json_object_object_get_ex(j, "latency", &v) &&
	    json_object_object_get_ex(v, "complete", &v))
		all = json_object_get_int64(v);
	json_object_put(j);
	cli_result_free(&r);

	cli_run(&c, &r, NULL, (const char *const[]){ "--json", "--range", "1ms:3ms", "--perfetto", out,
						      in, NULL });
	CHECK_U64(r.status, 0);
	j = r.out ? json_tokener_parse(r.out) : NULL;
	REQUIRE(j);
	if (json_object_object_get_ex(j, "latency", &v) &&
	    json_object_object_get_ex(v, "complete", &v))
		kept = json_object_get_int64(v);
	CHECK(json_object_object_get_ex(j, "range", &v) &&
	      json_object_object_get_ex(v, "from_ns", &v) && json_object_get_int64(v) == 1000000);
	json_object_put(j);
	cli_result_free(&r);
	printf("# %" PRId64 " complete messages, %" PRId64 " in 1-3 ms\n", all, kept);
	CHECK(all == 40 && kept > 0 && kept < all);

	REQUIRE(trace_of_file(&t, out));
	CHECK_U64(t.r.violations, 0);
	CHECK_U64(t.r.c.async, (uint64_t)kept);
	CHECK(t.n_sl > 0);
	for (i = 0; i < t.n_sl; i++)
		outside += t.sl[i].pid == 4194305 && (t.sl[i].ts < 1000 || t.sl[i].end > 3000);
	CHECK_U64(outside, 0);
	CHECK_STR_HAS(t.buf, "\"range_tsc\":[");
	trace_free(&t);

	cli_run(&c, &r, NULL, (const char *const[]){ "--range", "1ms:3ms", in, NULL });
	CHECK_U64(r.status, 0);
	CHECK_STR_HAS(r.out, "range: 0.001000 s to 0.003000 s after the first record");
	cli_result_free(&r);
	cli_run(&c, &r, NULL, (const char *const[]){ "--range", "3ms:1ms", in, NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "bad --range '3ms:1ms'");
	cli_result_free(&r);
	cli_run(&c, &r, NULL, (const char *const[]){ "--range", "3ms", in, NULL });
	CHECK_U64(r.status, 2);
	cli_result_free(&r);
	cli_run(&c, &r, NULL, (const char *const[]){ "--range", "1ms:2ms", "--window", "1ms", in, NULL });
	CHECK_U64(r.status, 2);
	CHECK_STR_HAS(r.err, "--range does not go with --window");
	cli_result_free(&r);
	CHECK(cli_fini(&c, files) == 0);
}

/* ---------------------------------------------------------------------- */
/* The checker                                                              */

struct bad {
	const char *json;
	const char *why;	/* in its report */
};

#define EV(ph, extra)	"{\"ph\":\"" ph "\",\"name\":\"x\",\"pid\":1,\"tid\":1" extra "}"
#define DOC(x)		"{\"traceEvents\":[" x "]}"
#define AND		","

static void test_checker_rejects(void)
{
	static const struct bad bad[] = {
		{ "{\"traceEvents\":[", "not JSON" },
		{ DOC(EV("B", ",\"ts\":1")) "x", "not JSON" },
		{ "{\"events\":[]}", "no \"traceEvents\"" },
		{ "{\"traceEvents\":{}}", "not an array" },
		{ "{\"traceEvents\":[],\"displayTimeUnit\":\"s\"}", "displayTimeUnit" },
		{ DOC("[]"), "not an object" },
		{ DOC(EV("Q", ",\"ts\":1")), "no known \"ph\"" },
		{ DOC("{\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":1}"), "B without a name" },
		{ DOC("{\"ph\":\"B\",\"name\":\"x\",\"tid\":1,\"ts\":1}"), "no integer \"pid\"" },
		{ DOC("{\"ph\":\"B\",\"name\":\"x\",\"pid\":1,\"ts\":1}"), "no integer \"tid\"" },
		{ DOC("{\"ph\":\"B\",\"name\":\"x\",\"pid\":-1,\"tid\":1,\"ts\":1}"), "negative \"pid\"" },
		{ DOC(EV("B", "")), "B without a numeric ts" },
		{ DOC(EV("B", ",\"ts\":\"1\"")), "B without a numeric ts" },
		{ DOC(EV("B", ",\"ts\":-1") AND EV("E", ",\"ts\":2")), "negative ts" },
		{ DOC(EV("B", ",\"ts\":1")), "B left open" },
		{ DOC(EV("E", ",\"ts\":1")), "E with no open B" },
		{ DOC(EV("B", ",\"ts\":2") AND EV("E", ",\"ts\":1")), "before the track's previous B/E" },
		{ DOC(EV("B", ",\"ts\":1") AND "{\"ph\":\"E\",\"name\":\"y\",\"pid\":1,\"tid\":1,\"ts\":2}"),
		  "E \"y\" closes B \"x\"" },
		{ DOC(EV("X", ",\"ts\":1")), "X without a finite non-negative dur" },
		{ DOC(EV("X", ",\"ts\":1,\"dur\":-2")), "X without a finite non-negative dur" },
		{ DOC(EV("X", ",\"ts\":1,\"dur\":5") AND EV("X", ",\"ts\":3,\"dur\":5")), "overlaps" },
		{ DOC(EV("X", ",\"ts\":3,\"dur\":1") AND EV("X", ",\"ts\":1,\"dur\":1")), "starts before" },
		{ DOC(EV("b", ",\"ts\":1,\"id\":1")), "b without a cat" },
		{ DOC(EV("b", ",\"ts\":1,\"cat\":\"c\"")), "b without an id" },
		{ DOC(EV("b", ",\"ts\":1,\"cat\":\"c\",\"id\":1")), "async \"x\" left open" },
		{ DOC(EV("e", ",\"ts\":1,\"cat\":\"c\",\"id\":1")), "e of c 1 with no b" },
		{ DOC(EV("b", ",\"ts\":2,\"cat\":\"c\",\"id\":1") AND EV("e", ",\"ts\":1,\"cat\":\"c\",\"id\":1")),
		  "before its b" },
		{ DOC(EV("s", ",\"ts\":1,\"cat\":\"c\",\"id\":1")), "1 s and 0 f" },
		{ DOC(EV("f", ",\"ts\":1,\"cat\":\"c\",\"id\":1")), "0 s and 1 f" },
		{ DOC(EV("s", ",\"ts\":2,\"cat\":\"c\",\"id\":1") AND EV("f", ",\"ts\":1,\"cat\":\"c\",\"id\":1")),
		  "before it begins" },
		{ DOC(EV("s", ",\"ts\":1,\"id\":1")), "s without a cat" },
		{ DOC(EV("M", "")), "M of unknown name" },
		{ DOC("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{}}"),
		  "without a string args.name" },
		{ DOC(EV("i", ",\"ts\":1e400")), "not finite" },
		{ DOC("{\"ph\":\"i\",\"name\":\"\xff\",\"pid\":1,\"tid\":1,\"ts\":1}"), "not JSON" },
		{ DOC(EV("i", ",\"ts\":NaN")), "not finite" },
		{ DOC(EV("i", ",\"ts\":1,\"args\":{\"a\":[-Infinity]}")), "not finite" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct tc_result r = { 0 };
		char *log = NULL;
		size_t len = 0;

		r.log = open_memstream(&log, &len);
		REQUIRE(r.log);
		tc_check_buf(bad[i].json, strlen(bad[i].json), &r, NULL);
		fclose(r.log);
		if (!r.violations)
			KTAP_FAIL("bad trace %zu accepted: %s", i, bad[i].json);
		else if (!strstr(log, bad[i].why))
			KTAP_FAIL("bad trace %zu: \"%s\" lacks \"%s\"", i, log, bad[i].why);
		free(log);
	}
}

/* Every kind of event, right: nothing to report; flows bound to slices. */
static void test_checker_accepts(void)
{
	static const char good[] = DOC(
		"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"p\"}}" AND
		"{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":1,\"tid\":1,\"args\":{\"sort_index\":-1}}" AND
		EV("B", ",\"ts\":1") AND EV("B", ",\"ts\":1.5,\"args\":{\"v\":[1.5,{\"w\":2}]}") AND
		"{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":2}" AND EV("E", ",\"ts\":3") AND
		EV("B", ",\"ts\":3") AND EV("E", ",\"ts\":4") AND
		"{\"ph\":\"X\",\"name\":\"x\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":4}" AND
		"{\"ph\":\"X\",\"name\":\"x\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":2}" AND
		"{\"ph\":\"X\",\"name\":\"x\",\"pid\":1,\"tid\":2,\"ts\":3,\"dur\":2}" AND
		"{\"ph\":\"X\",\"name\":\"x\",\"pid\":1,\"tid\":2,\"ts\":6,\"dur\":0}" AND
		EV("b", ",\"ts\":1,\"cat\":\"c\",\"id\":\"0x1\"") AND
		EV("b", ",\"ts\":1,\"cat\":\"c\",\"id\":\"0x1\"") AND
		EV("e", ",\"ts\":2,\"cat\":\"c\",\"id\":\"0x1\"") AND
		EV("e", ",\"ts\":2,\"cat\":\"c\",\"id\":\"0x1\"") AND
		EV("b", ",\"ts\":1,\"cat\":\"d\",\"id\":\"0x1\"") AND
		EV("e", ",\"ts\":5,\"cat\":\"d\",\"id\":\"0x1\"") AND
		EV("s", ",\"ts\":1.2,\"cat\":\"h\",\"id\":7") AND
		"{\"ph\":\"f\",\"name\":\"x\",\"pid\":1,\"tid\":2,\"ts\":4,\"cat\":\"h\",\"id\":7,\"bp\":\"e\"}" AND
		EV("s", ",\"ts\":9,\"cat\":\"h\",\"id\":8") AND EV("f", ",\"ts\":9,\"cat\":\"h\",\"id\":8") AND
		EV("i", ",\"ts\":1,\"s\":\"t\""));
	struct tc_result r = { .log = stdout };

	CHECK_U64(tc_check_buf(good, strlen(good), &r, NULL), 0);
	CHECK_U64(r.c.events, 23);
	CHECK_U64(r.c.meta, 2);
	CHECK_U64(r.c.B, 3);
	CHECK_U64(r.c.X, 4);
	CHECK_U64(r.c.async, 2);
	CHECK_U64(r.c.flows, 2);
	/* The second flow: no slice at 9, and its f has no bp "e". */
	CHECK_U64(r.c.unbound, 1);
	CHECK_U64(r.c.tracks, 2);
	CHECK_U64(r.c.max_depth, 2);
}

KTAP_MAIN(
	KTAP_TEST(test_messages_and_contexts),
	KTAP_TEST(test_range),
	KTAP_TEST(test_context_kinds),
	KTAP_TEST(test_resumed_fault),
	KTAP_TEST(test_functions),
	KTAP_TEST(test_tx),
	KTAP_TEST(test_hostile_comm),
	KTAP_TEST(test_empty),
	KTAP_TEST(test_write_error),
	KTAP_TEST(test_cli),
	KTAP_TEST(test_checker_rejects),
	KTAP_TEST(test_checker_accepts),
)
