// SPDX-License-Identifier: MIT
/*
 * Intel PT as function-level evidence: a capture with a PT trace (made with
 * libipt's encoder), the code it ran and the kernel symbols, through the
 * timelines to the diagnosis.
 */
#include "diagnose/categories_builtin.h"
#include "pt_synth.h"
#include "scenario.h"

/*
 * At 0xffffffff81010000 (SC_KSYMS):
 *   net_rx_stub: call slow_fn   e8 0b 00 00 00
 *   +5:          nop            90
 *   slow_fn:     nop; ret       90 c3          (+0x10)
 */
#define STUB	0xffffffff81010000ULL
static const uint8_t stub_code[] = {
	0xe8, 0x0b, 0x00, 0x00, 0x00, 0x90, 0x90, 0x90,
	0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
	0x90, 0xc3,
};

/*
 * slow_fn from @t + 100 to @t + 39800 on each mark, returning to @ret_to
 * (0: to net_rx_stub).
 */
static size_t trace_marks(struct enc *x, const uint64_t *marks, size_t n, uint64_t ret_to)
{
	size_t i;

	enc_init(x, 0);
	for (i = 0; i < n; i++) {
		psb_plus(x, marks[i] + 100, 0);
		mode64(x);
		pge(x, STUB);
		tsc(x, marks[i] + 39800);
		tip(x, ret_to ? ret_to : STUB + 5);
		stop_at(x, STUB + 5);
	}
	return enc_fini(x);
}

static void pt_record(struct synth *s, uint32_t cpu, uint64_t tsc, uint32_t flags)
{
	struct nsight_rec_pt r;

	rec_hdr(&r, NSIGHT_REC_PT, sizeof(r), cpu, tsc);
	r.flags = flags;
	synth_put(s, cpu, &r, sizeof(r));
}

static int diagnose(struct scen *sc, struct enc *x, struct nsight_analysis *a, struct nsight_dx *dx,
		    bool with_text, uint64_t ret_to)
{
	struct nsight_analysis_opts ao = { .lifetimes = true };
	struct nsight_diag d = { 0 };
	struct nsight_cats cats;
	struct nsight_dx_opts o;
	struct membuf mb;
	FILE *f;
	int err;

	sc->s.ksyms = SC_KSYMS;
	sc->s.pt[SC_Y] = x->buf;
	sc->s.pt_len[SC_Y] = trace_marks(x, sc->marks, sc->n_marks, ret_to);
	if (with_text) {
		sc->s.ktext = stub_code;
		sc->s.ktext_len = sizeof(stub_code);
		sc->s.ktext_addr = STUB;
	}
	synth_flush(&sc->s);
	synth_stream(&sc->s, &mb);
	synth_free(&sc->s);
	nsight_cats_init(&cats);
	err = nsight_cats_parse(&cats, nsight_categories_builtin, strlen(nsight_categories_builtin),
				"builtin", &d);
	f = mem_reader(mb.data, mb.len);
	if (!f)
		abort();
	if (!err)
		err = nsight_analysis_run(a, f, &ao, &d);
	fclose(f);
	nsight_dx_opts_default(&o);
	if (!err)
		err = nsight_analysis_diagnose(dx, a, NULL, &cats, &o, &d);
	if (err)
		printf("# %s\n", d.msg);
	nsight_cats_fini(&cats);
	free(mb.data);
	return err;
}

/* A server with slow_fn on 5 messages, traced with its code, diagnosed. */
static bool traced_server(struct scen *sc, struct enc *x, struct nsight_analysis *a,
			  struct nsight_dx *dx, uint64_t ret_to)
{
	scen_init(sc, "server");
	pt_record(&sc->s, SC_Y, SC_BASE - 1000, NSIGHT_PT_START);
	scen_run(sc, 40, SC_NETRX_PT, 8, 7);
	return sc->n_marks == 5 && diagnose(sc, x, a, dx, true, ret_to) == 0 && !x->failed;
}

static void test_pt_names_function(void)
{
	struct nsight_analysis a;
	struct nsight_dx dx;
	struct scen sc;
	struct enc x;

	REQUIRE(traced_server(&sc, &x, &a, &dx, 0));
	CHECK_U64(a.ptev.cpus_traced, 1);
	CHECK_U64(a.ptev.calls, 5);
	CHECK_U64(a.ptev.errors, 0);
	CHECK_U64(a.samples.applied_exact, 5);
	REQUIRE(dx.n == 1 && dx.groups[0].n_causes > 0);
	CHECK(strcmp(dx.groups[0].causes[0].category, "Receive processing: slow_fn") == 0);
	CHECK_U64(dx.groups[0].causes[0].role, NSIGHT_ROLE_A);
	CHECK_U64(dx.groups[0].causes[0].main, 5);
	printf("# first cause: %s\n", dx.groups[0].causes[0].category);
	nsight_dx_fini(&dx);
	nsight_analysis_fini(&a);
}

/* Without the code, the trace cannot be followed: errors, no functions. */
static void test_pt_without_code(void)
{
	struct nsight_analysis a;
	struct nsight_dx dx;
	struct scen sc;
	struct enc x;

	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_NETRX_PT, 8, 7);
	REQUIRE(diagnose(&sc, &x, &a, &dx, false, 0) == 0);
	CHECK_U64(a.ptev.calls, 0);
	CHECK(a.ptev.errors > 0);
	CHECK_STR_HAS(a.ptev.first_error, "cpu 1 at byte");
	CHECK_U64(a.ptev.nomap, a.ptev.errors);
	CHECK_U64(a.ptev.nomap_user, 0);
	CHECK_STR_HAS(a.ptev.first_nomap, "cpu 1: kernel code at 0xffffffff81010000");
	REQUIRE(dx.n == 1 && dx.groups[0].n_causes > 0);
	CHECK(strcmp(dx.groups[0].causes[0].category, "Receive processing") == 0);
	nsight_dx_fini(&dx);
	nsight_analysis_fini(&a);
}

/*
 * slow_fn returns into user code, which is not in the capture: its calls
 * are still there, and each return to user code is counted as not
 * decoded (user code), not followed as something else.
 */
static void test_pt_user_not_decoded(void)
{
	struct nsight_analysis a;
	struct nsight_dx dx;
	struct scen sc;
	struct enc x;

	REQUIRE(traced_server(&sc, &x, &a, &dx, 0x401000));
	/* Each decoded mark ends in user code; the decoder may have read past
	 * the next mark's PSB by then, so not every mark is decoded. */
	CHECK(a.ptev.calls > 0 && a.ptev.calls <= 5);
	CHECK_U64(a.ptev.nomap, a.ptev.calls);
	CHECK_U64(a.ptev.nomap_user, a.ptev.calls);
	CHECK_U64(a.ptev.errors, a.ptev.calls);
	CHECK_STR_HAS(a.ptev.first_nomap, "cpu 1: user code at 0x401000 (CR3 0)");
	REQUIRE(dx.n == 1 && dx.groups[0].n_causes > 0);
	CHECK(strcmp(dx.groups[0].causes[0].category, "Receive processing: slow_fn") == 0);
	nsight_dx_fini(&dx);
	nsight_analysis_fini(&a);
}

KTAP_MAIN(
	KTAP_TEST(test_pt_names_function),
	KTAP_TEST(test_pt_without_code),
	KTAP_TEST(test_pt_user_not_decoded),
)
