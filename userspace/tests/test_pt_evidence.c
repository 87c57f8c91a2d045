// SPDX-License-Identifier: MIT
/*
 * Intel PT as function-level evidence: a capture with a PT trace (made with
 * libipt's encoder), the code it ran and the kernel symbols, through the
 * timelines to the diagnosis.
 */
#include "diagnose/categories_builtin.h"
#include "format/utext.h"
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

/*
 * User code of two processes, the server (pid 100) and stress (pid 500),
 * at the same addresses (each its own bytes), from 0x600000:
 *
 *   u_loop: call f        e8 ..            f is a_f (0x600010) in the server,
 *   +5:     jmp u_loop    eb f9            b_f (0x600020) in stress
 *   f:      call sw       e8 ..
 *   +5:     ret           c3
 *   sw:     mov %rax,%cr3; ret  (0x600030)  a switch to the other process
 */
#define U_LOOP		0x600000ULL
#define U_LOOP_RA	0x600005ULL
#define A_F		0x600010ULL
#define B_F		0x600020ULL
#define U_SW		0x600030ULL
#define CR3_A		0x1234000ULL
#define CR3_B		0x5678000ULL
#define PID_A		100U
#define PID_B		500U

static void user_code(uint8_t code[0x40], uint64_t f)
{
	user_loop(code, 0x40, U_LOOP, f, U_SW);
	memcpy(code + (U_SW - U_LOOP), (const uint8_t[]){ 0x0f, 0x22, 0xd8, 0xc3 }, 4);
}

/* A UTEXT payload of @code for @pid, with u_loop, @fname at @f and sw. */
static void *utext(uint32_t pid, const char *path, const uint8_t *code, uint64_t f,
		   const char *fname, size_t *size)
{
	struct nsight_utext_hdr h = { .pid = pid, .addr = U_LOOP };
	char strs[64];
	int n = snprintf(strs, sizeof(strs), "u_loop%c%s%csw", 0, fname, 0);
	struct nsight_usym syms[] = {
		{ .addr = U_LOOP, .size = 7, .name = 0 },
		{ .addr = f, .size = 6, .name = 7 },
		{ .addr = U_SW, .size = 4, .name = 7 + (uint32_t)strlen(fname) + 1 },
	};

	snprintf(h.path, sizeof(h.path), "%s", path);
	return nsight_utext_build(&h, code, 0x40, syms, 3, strs, (uint32_t)n + 1, size);
}

/* A switch at @t to @cr3, whose process returns from sw and f, and loops. */
static void user_switch(struct enc *x, uint64_t t, uint64_t cr3, uint64_t f)
{
	tsc(x, t);
	pip(x, cr3);
	tsc(x, t + 100);
	tip(x, f + 5);
	tsc(x, t + 200);
	tip(x, U_LOOP_RA);
}

/*
 * On each mark, the server runs a_f, switches to stress (PTI: its user
 * half, PCID bits set) which runs b_f, and back: the two processes'
 * user code interleaved with PIPs.
 */
static size_t trace_user(struct enc *x, const uint64_t *marks, size_t n)
{
	const uint64_t b_user = CR3_B | 0x1000 | 0x801;
	size_t i;

	enc_init(x, 0);
	for (i = 0; i < n; i++) {
		uint64_t t = marks[i] + 100;

		psb(x);
		tsc(x, t);
		pip(x, CR3_A);
		psbend(x);
		mode64(x);
		pge(x, U_LOOP);
		user_switch(x, t + 1000, b_user, B_F);
		user_switch(x, t + 20000, CR3_A, A_F);
		tsc(x, t + 39000);
		pip(x, b_user);
		tsc(x, t + 39500);
		stop_at(x, U_SW + 3);
	}
	return enc_fini(x);
}

static void cr3_record(struct synth *s, uint64_t tsc, uint64_t cr3, uint32_t pid, uint32_t flags)
{
	struct nsight_rec_pt_cr3 r;

	rec_hdr(&r, NSIGHT_REC_PT_CR3, sizeof(r), SC_Y, tsc);
	r.cr3 = cr3;
	r.tid = pid + 1;
	r.pid = pid;
	r.flags = flags;
	r.pad = 0;
	synth_put(s, SC_Y, &r, sizeof(r));
}

/* The FUNC key ending in @tail, or NULL. */
static const char *func_key(const struct nsight_keys *k, const char *tail)
{
	size_t i, lt = strlen(tail);

	for (i = 0; i < k->n; i++) {
		size_t ln = strlen(k->v[i].name);

		if (k->v[i].kind == NSIGHT_KEY_FUNC && ln >= lt &&
		    !strcmp(k->v[i].name + ln - lt, tail))
			return k->v[i].name;
	}
	return NULL;
}

/*
 * Two processes' user code, interleaved with PIPs on one CPU: with the
 * capture's pt_cr3 records and their UTEXT chunks each process's code is
 * decoded in its own space and its functions named after its own symbols
 * (with @with_code), else it is counted as not decoded, as before.
 */
static void user_capture(bool with_code, bool with_cr3, unsigned int threads,
			 struct nsight_analysis *a)
{
	static uint8_t a_code[0x40], b_code[0x40];
	struct nsight_analysis_opts ao = { .lifetimes = true, .threads = threads };
	struct nsight_diag d = { 0 };
	void *ua = NULL, *ub = NULL;
	struct scen sc;
	struct membuf mb;
	struct enc x;
	FILE *f;

	user_code(a_code, A_F);
	user_code(b_code, B_F);
	scen_init(&sc, "server");
	pt_record(&sc.s, SC_Y, SC_BASE - 1000, NSIGHT_PT_START);
	if (with_cr3) {
		/* An older CR3 of the server (before an exec): the later one counts. */
		cr3_record(&sc.s, SC_BASE - 950, 0x9999000, PID_A, 0);
		cr3_record(&sc.s, SC_BASE - 900, CR3_A, PID_A, 0);
		cr3_record(&sc.s, SC_BASE - 800, CR3_B, PID_B, NSIGHT_PT_CR3_PTI);
	}
	scen_run(&sc, 20, SC_NETRX_PT, 4, 3);
	sc.s.ksyms = SC_KSYMS;
	sc.s.pt[SC_Y] = x.buf;
	sc.s.pt_len[SC_Y] = trace_user(&x, sc.marks, sc.n_marks);
	if (with_code) {
		ua = utext(PID_A, "/usr/sbin/server", a_code, A_F, "a_f", &sc.s.more_len[0]);
		ub = utext(PID_B, "/usr/bin/stress", b_code, B_F, "b_f", &sc.s.more_len[1]);
		REQUIRE(ua && ub);
		sc.s.more[0] = ua;
		sc.s.more[1] = ub;
		sc.s.more_type[0] = sc.s.more_type[1] = NSIGHT_CHUNK_UTEXT;
		sc.s.n_more = 2;
	}
	synth_flush(&sc.s);
	synth_stream(&sc.s, &mb);
	synth_free(&sc.s);
	REQUIRE(!x.failed && sc.n_marks == 5);
	f = mem_reader(mb.data, mb.len);
	REQUIRE(f);
	CHECK_U64(nsight_analysis_run(a, f, &ao, &d), 0);
	if (d.msg[0])
		printf("# %s\n", d.msg);
	fclose(f);
	free(mb.data);
	free(ua);
	free(ub);
}

static void test_pt_user_two_processes(void)
{
	struct nsight_analysis a, a2;
	const char *ka, *kb;

	user_capture(true, true, 1, &a);
	CHECK_U64(a.ptev.user_procs, 2);
	CHECK_U64(a.ptev.user_bytes, 2 * 0x40);
	CHECK_U64(a.ptev.user_no_cr3, 0);
	CHECK_U64(a.ptev.errors, 0);
	CHECK_U64(a.ptev.nomap_user, 0);
	/* Four PIPs a mark; the first of the trace enters a space, no switch. */
	CHECK_U64(a.ptev.switches, 4 * 5 - 1);
	CHECK(a.samples.user_named > 0);
	ka = func_key(a.keys, "> a_f [server]");
	kb = func_key(a.keys, "> b_f [stress]");
	CHECK(ka != NULL);
	CHECK(kb != NULL);
	CHECK(func_key(a.keys, "> sw [server]") != NULL);
	CHECK(func_key(a.keys, "> sw [stress]") != NULL);
	/* Each process's code is its own: no b_f in the server, no a_f in stress. */
	CHECK(func_key(a.keys, "> b_f [server]") == NULL);
	CHECK(func_key(a.keys, "> a_f [stress]") == NULL);
	printf("# %s; %s\n", ka ? ka : "-", kb ? kb : "-");
	/* The context side on its own thread: the same. */
	user_capture(true, true, 2, &a2);
	CHECK_U64(a2.ptev.user_procs, a.ptev.user_procs);
	CHECK_U64(a2.samples.user_named, a.samples.user_named);
	CHECK_U64(a2.samples.applied_exact, a.samples.applied_exact);
	CHECK(func_key(a2.keys, "> a_f [server]") && func_key(a2.keys, "> b_f [stress]"));
	nsight_analysis_fini(&a2);
	nsight_analysis_fini(&a);
}

/* Without the code: not decoded and counted, as before; no user names. */
static void test_pt_user_no_chunk(void)
{
	struct nsight_analysis a;

	user_capture(false, true, 1, &a);
	CHECK_U64(a.ptev.user_procs, 0);
	CHECK(a.ptev.nomap_user > 0);
	CHECK_U64(a.ptev.nomap, a.ptev.nomap_user);
	CHECK_STR_HAS(a.ptev.first_nomap, "user code at 0x600000 (CR3 0x1234000)");
	CHECK_U64(a.samples.user_named, 0);
	CHECK(func_key(a.keys, "> a_f [server]") == NULL);
	nsight_analysis_fini(&a);
}

/* The code without pt_cr3 records: no space to put it in, counted. */
static void test_pt_user_no_cr3(void)
{
	struct nsight_analysis a;

	user_capture(true, false, 1, &a);
	CHECK_U64(a.ptev.user_procs, 0);
	CHECK_U64(a.ptev.user_no_cr3, 2);
	CHECK(a.ptev.nomap_user > 0);
	CHECK(func_key(a.keys, "> a_f [server]") == NULL);
	nsight_analysis_fini(&a);
}

KTAP_MAIN(
	KTAP_TEST(test_pt_names_function),
	KTAP_TEST(test_pt_without_code),
	KTAP_TEST(test_pt_user_not_decoded),
	KTAP_TEST(test_pt_user_two_processes),
	KTAP_TEST(test_pt_user_no_chunk),
	KTAP_TEST(test_pt_user_no_cr3),
)
