// SPDX-License-Identifier: MIT
/* Sampled kernel stacks: function contexts in the timeline and the diagnosis. */
#include "diagnose/categories_builtin.h"
#include "scenario.h"

static const struct syn_task server = { 101, 100, "server" };
static const struct syn_task swapper = { 0, 0, "swapper/0" };

#define NET_RX	SYN_NET_RX
#define FN(x)	"func:softirq:NET_RX > " x

/* The keys at @tsc on @cpu, innermost first, joined by " < ". */
static const char *at(const struct nsight_analysis *a, uint32_t cpu, uint64_t tsc)
{
	static char buf[1024];
	const struct nsight_timeline *tl = &a->tl;
	ssize_t i = nsight_tl_find(tl, cpu, tsc);
	char k[256];
	size_t o = 0;
	uint32_t c;

	if (i < 0 || tsc >= tl->cpus[cpu].last)
		return "none";
	buf[0] = '\0';
	for (c = tl->cpus[cpu].segs[i].ctx; c != NSIGHT_TL_NONE && o < sizeof(buf);
	     c = tl->ctx[c].parent)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s", o ? " < " : "",
				      nsight_key_format(a->keys, tl->ctx[c].key, k, sizeof(k)));
	return buf;
}

#define CHECK_AT(a, cpu, tsc, want) do {					\
	const char *_g = at((a), (cpu), (tsc));					\
	if (strcmp(_g, (want)))							\
		KTAP_FAIL("cpu %u at %llu: \"%s\", expected \"%s\"",		\
			  (unsigned int)(cpu), (unsigned long long)(tsc), _g, (want)); \
} while (0)

static void put_samples(struct synth *s)
{
	static const uint64_t user_ip = 0x401000;

	synth_tk(s, 0, SYN_TK_TSC);
	synth_switch(s, 0, 100, swapper, server);
	synth_softirq(s, 0, 500, NET_RX, true);
	/* Three samples, 1 us apart, in nsight_slow_rcv; then one in ip_rcv. */
	synth_sample(s, 0, 2000, 1000, sc_slow_stack, 6, 0);
	synth_sample(s, 0, 3000, 1000, sc_slow_stack, 6, 0);
	synth_sample(s, 0, 4000, 1000, sc_slow_stack, 6, 0);
	synth_sample(s, 0, 5000, 1000, sc_slow_stack + 2, 4, 0);
	synth_softirq(s, 0, 5500, NET_RX, false);
	/* In user code; then in the idle task (outside any context). */
	synth_sample(s, 0, 6000, 1000, &user_ip, 0, NSIGHT_SAMPLE_USER);
	synth_switch(s, 0, 7000, server, swapper);
	synth_sample(s, 0, 8000, 1000, sc_slow_stack, 6, 0);
	synth_switch(s, 0, 9000, swapper, server);
}

static void test_function_contexts(void)
{
	struct nsight_analysis a;
	struct synth s;
	ssize_t i, j;

	synth_init(&s, 1);
	synth_queue(&s);
	s.ksyms = SC_KSYMS;
	put_samples(&s);
	synth_flush(&s);
	REQUIRE(synth_analyze(&s, &a) == 0);
	CHECK_U64(a.ksyms.n, 8);
	CHECK_U64(a.samples.n, 6);
	CHECK_U64(a.samples.applied, 4);
	CHECK_U64(a.samples.user, 1);
	CHECK_U64(a.samples.outside, 1);
	CHECK_U64(a.samples.period_min, 1000);

	CHECK_AT(&a, 0, 300, "task:server");
	CHECK_AT(&a, 0, 700, "softirq:NET_RX < task:server");
	/* A sample stands for the period before it; cut at handle_softirqs. */
	CHECK_AT(&a, 0, 1000,
		 FN("nsight_slow_rcv [nsight_slowpath]") " < " FN("nsight_slow_pre [nsight_slowpath]")
		 " < " FN("ip_rcv") " < " FN("net_rx_action") " < softirq:NET_RX < task:server");
	CHECK_AT(&a, 0, 3999, FN("nsight_slow_rcv [nsight_slowpath]") " < "
		 FN("nsight_slow_pre [nsight_slowpath]") " < " FN("ip_rcv") " < " FN("net_rx_action")
		 " < softirq:NET_RX < task:server");
	CHECK_AT(&a, 0, 4500, FN("ip_rcv") " < " FN("net_rx_action") " < softirq:NET_RX < task:server");
	CHECK_AT(&a, 0, 5200, "softirq:NET_RX < task:server");
	CHECK_AT(&a, 0, 6500, "task:server");

	/* Consecutive samples share the contexts: one activation, 3 periods. */
	i = nsight_tl_find(&a.tl, 0, 1500 + 1000);
	j = nsight_tl_find(&a.tl, 0, 3999);
	REQUIRE(i >= 0 && j >= 0);
	CHECK_U64(a.tl.cpus[0].segs[i].ctx, a.tl.cpus[0].segs[j].ctx);
	/* ip_rcv goes on in the fourth sample: the same context too. */
	j = nsight_tl_find(&a.tl, 0, 4500);
	REQUIRE(j >= 0);
	CHECK_U64(a.tl.ctx[a.tl.ctx[a.tl.cpus[0].segs[i].ctx].parent].parent,
		  a.tl.cpus[0].segs[j].ctx);
	nsight_analysis_fini(&a);
	synth_free(&s);
}

/* Without symbols, frames have no names: the samples add nothing. */
static void test_no_symbols(void)
{
	struct nsight_analysis a;
	struct synth s;

	synth_init(&s, 1);
	synth_queue(&s);
	put_samples(&s);
	synth_flush(&s);
	REQUIRE(synth_analyze(&s, &a) == 0);
	CHECK_U64(a.samples.applied, 0);
	CHECK(a.samples.unsymbolized > 0);
	CHECK_AT(&a, 0, 2500, "softirq:NET_RX < task:server");
	nsight_analysis_fini(&a);
	synth_free(&s);
}

static void test_bad_sample(void)
{
	struct nsight_rec_sample r;
	struct nsight_analysis a;
	struct nsight_diag d = { 0 };
	struct synth s;

	synth_init(&s, 1);
	synth_switch(&s, 0, 100, swapper, server);
	memset(&r, 0, sizeof(r));
	rec_hdr(&r, NSIGHT_REC_SAMPLE, sizeof(r), 0, 200);
	r.nr = 3;	/* but no room for them */
	synth_put(&s, 0, &r, sizeof(r));
	CHECK(synth_analyze_opts(&s, &a, NSIGHT_TC_IN_FORCE, &d) == -NSIGHT_E_RECORD);
	CHECK_STR_HAS(d.msg, "sample of 40 bytes cannot hold its 3 frames");
	nsight_analysis_fini(&a);
	synth_free(&s);
}

/* The scenario's slow function is named, under receive processing. */
static void test_diagnosis_names_function(void)
{
	struct nsight_analysis_opts ao = { .lifetimes = true };
	struct nsight_analysis a;
	struct nsight_dx_opts o;
	struct nsight_diag d = { 0 };
	struct nsight_cats cats;
	struct nsight_dx dx;
	struct membuf mb;
	struct scen sc;
	FILE *f;

	scen_init(&sc, "server");
	sc.s.ksyms = SC_KSYMS;
	scen_run(&sc, 40, SC_NETRX_FN, 8, 7);
	synth_flush(&sc.s);
	synth_stream(&sc.s, &mb);
	synth_free(&sc.s);
	nsight_cats_init(&cats);
	REQUIRE(nsight_cats_parse(&cats, nsight_categories_builtin,
				  strlen(nsight_categories_builtin), "builtin", &d) == 0);
	f = mem_reader(mb.data, mb.len);
	REQUIRE(f);
	CHECK(nsight_analysis_run(&a, f, &ao, &d) == 0);
	fclose(f);
	nsight_dx_opts_default(&o);
	CHECK(nsight_analysis_diagnose(&dx, &a, NULL, &cats, &o, &d) == 0);
	REQUIRE(dx.n == 1 && dx.groups[0].n_causes > 0);
	CHECK(strcmp(dx.groups[0].causes[0].category,
		     "Receive processing: nsight_slow_rcv [nsight_slowpath]") == 0);
	CHECK_U64(dx.groups[0].causes[0].role, NSIGHT_ROLE_A);
	CHECK_U64(dx.groups[0].causes[0].main, 5);
	if (dx.groups[0].n_causes)
		printf("# first cause: %s\n", dx.groups[0].causes[0].category);
	nsight_dx_fini(&dx);
	nsight_analysis_fini(&a);
	nsight_cats_fini(&cats);
	free(mb.data);
}

KTAP_MAIN(
	KTAP_TEST(test_function_contexts),
	KTAP_TEST(test_no_symbols),
	KTAP_TEST(test_bad_sample),
	KTAP_TEST(test_diagnosis_names_function),
)
