// SPDX-License-Identifier: MIT
/*
 * Intel PT decoding on streams made with libipt's encoder, following a
 * small hand-assembled code image.
 */
#include <intel-pt.h>
#include <pthread.h>

#include "pt/pt_decode.h"
#include "pt_synth.h"
#include "test.h"

/*
 * The code image at 0x400000:
 *
 *   main:     call f          e8 0b 00 00 00
 *   0x400005: nop             90
 *   0x400006: jne main        75 f8
 *   0x400008: nop x 8
 *   f:        call g          e8 0b 00 00 00      (0x400010)
 *   0x400015: ret             c3
 *   g:        nop             90                  (0x400020)
 *   0x400021: ret             c3
 *   h:        syscall         0f 05               (0x400030)
 *   0x400032: nop             90
 *   0x400033: ret             c3
 *   entry:    call g          e8 db ff ff ff      (0x400040)
 *   0x400045: sysretq         48 0f 07
 *   i:        call h          e8 e3 ff ff ff      (0x400048)
 *   0x40004d: ret             c3
 *   loop:     jmp loop        eb fe               (0x400050)
 */
#define MAIN	0x400000ULL
#define MAIN_RA	0x400005ULL	/* return address of main's call */
#define MAIN_NT	0x400008ULL	/* after the not-taken jne */
#define F	0x400010ULL
#define F_RA	0x400015ULL
#define G	0x400020ULL
#define G_RET	0x400021ULL
#define H	0x400030ULL
#define H_RA	0x400032ULL
#define ENTRY	0x400040ULL
#define I	0x400048ULL
#define I_RA	0x40004dULL
#define LOOP	0x400050ULL

static const uint8_t code[] = {
	/* 0x400000 */ 0xe8, 0x0b, 0x00, 0x00, 0x00, 0x90, 0x75, 0xf8,
	/* 0x400008 */ 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
	/* 0x400010 */ 0xe8, 0x0b, 0x00, 0x00, 0x00, 0xc3, 0x90, 0x90,
	/* 0x400018 */ 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
	/* 0x400020 */ 0x90, 0xc3, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
	/* 0x400028 */ 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
	/* 0x400030 */ 0x0f, 0x05, 0x90, 0xc3, 0x90, 0x90, 0x90, 0x90,
	/* 0x400038 */ 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
	/* 0x400040 */ 0xe8, 0xdb, 0xff, 0xff, 0xff, 0x48, 0x0f, 0x07,
	/* 0x400048 */ 0xe8, 0xe3, 0xff, 0xff, 0xff, 0xc3, 0x90, 0x90,
	/* 0x400050 */ 0xeb, 0xfe,
};

/*
 * One main loop iteration, from main to the jne: main calls f, f calls g,
 * g and f return, jne is taken (@again) or not. libipt stamps a branch
 * with the last timing packet before its TNT/TIP packet, and a direct call
 * with the time of the branch packet before it. So the calls get the time
 * of the packet that brought us to main, g's return t0 + 100, f's
 * t0 + 200 and the jne (and the next calls) t0 + 300.
 * @compressed: returns as TNT bits, else as TIPs.
 */
static void iteration(struct enc *x, uint64_t t0, bool compressed, int again)
{
	tsc(x, t0 + 100);
	if (compressed)
		tnt(x, 1);
	else
		tip(x, F_RA);
	tsc(x, t0 + 200);
	if (compressed)
		tnt(x, 1);
	else
		tip(x, MAIN_RA);
	tsc(x, t0 + 300);
	tnt(x, again);
}

/* ---------------------------------------------------------------------- */
/* Decoding                                                                 */

#define MAX_CALLS	64

struct calls {
	struct nsight_pt_call c[MAX_CALLS];
	size_t n;
	size_t stop_after;	/* nonzero: stop after this many */
};

static int collect(void *arg, const struct nsight_pt_call *c)
{
	struct calls *cs = arg;

	if (cs->n < MAX_CALLS)
		cs->c[cs->n] = *c;
	cs->n++;
	return cs->stop_after && cs->n >= cs->stop_after ? 7 : 0;
}

static struct nsight_pt_image *new_image(void)
{
	struct nsight_pt_image *img = nsight_pt_image_new();

	if (img && nsight_pt_image_add(img, MAIN, code, sizeof(code), "test", NULL)) {
		nsight_pt_image_free(img);
		img = NULL;
	}
	return img;
}

static int decode(const uint8_t *buf, size_t len, const struct nsight_pt_config *cfg,
		  const struct nsight_pt_window *win, size_t n_win, struct calls *cs,
		  struct nsight_pt_stats *st)
{
	struct nsight_pt_image *img = new_image();
	struct nsight_diag d = { 0 };
	int ret;

	if (!img)
		return -NSIGHT_E_NOMEM;
	cs->n = 0;
	ret = nsight_pt_decode(buf, len, cfg, img, win, n_win, collect, cs, st, &d);
	nsight_pt_image_free(img);
	return ret;
}

static void dump_calls(const struct calls *cs)
{
	size_t i;

	for (i = 0; i < cs->n && i < MAX_CALLS; i++)
		printf("#   call %zu: func %#" PRIx64 " depth %d start %" PRIu64 " end %" PRIu64
		       " flags %#x\n", i, cs->c[i].func, cs->c[i].depth, cs->c[i].start,
		       cs->c[i].end, cs->c[i].flags);
}

/* Check that @cs is exactly @exp. */
#define CHECK_CALLS(cs, ...) do {						\
	static const struct nsight_pt_call _exp[] = { __VA_ARGS__ };		\
	size_t _n = sizeof(_exp) / sizeof(_exp[0]), _i;			\
	bool _ok = (cs)->n == _n;						\
									\
	for (_i = 0; _ok && _i < _n; _i++)					\
		_ok = !memcmp(&(cs)->c[_i], &_exp[_i], sizeof(_exp[_i]));	\
	if (!_ok) {								\
		KTAP_FAIL("calls differ from the %zu expected", _n);		\
		dump_calls(cs);							\
	}									\
} while (0)

#define CALL(f, d, s, e, fl) { .start = (s), .end = (e), .func = (f), .depth = (d), .flags = (fl) }

/* Nested calls, returns as TIP packets, times from TSC packets. */
static void test_nested_tip(void)
{
	struct enc x;
	struct calls cs;
	struct nsight_pt_stats st;
	size_t len;

	enc_init(&x, 0);
	start_at(&x, 1000, MAIN);
	iteration(&x, 1000, false, 1);
	iteration(&x, 1300, false, 0);
	stop_at(&x, MAIN_NT + 1);
	len = enc_fini(&x);
	REQUIRE(!x.failed);

	CHECK_U64(decode(x.buf, len, NULL, NULL, 0, &cs, &st), 0);
	CHECK_CALLS(&cs,
		    CALL(G, 1, 1000, 1100, 0),
		    CALL(F, 0, 1000, 1200, 0),
		    CALL(G, 1, 1300, 1400, 0),
		    CALL(F, 0, 1300, 1500, 0));
	CHECK_U64(st.errors, 0);
	CHECK_U64(st.calls, 4);
	CHECK_U64(st.lost_bytes, 0);
	CHECK_U64(st.bytes, len);
	CHECK_U64(st.decoded_bytes, len);
}

/* The same with returns compressed into TNT bits. */
static void test_nested_tnt(void)
{
	struct enc x;
	struct calls cs;
	struct nsight_pt_stats st;
	size_t len;

	enc_init(&x, 0);
	start_at(&x, 1000, MAIN);
	iteration(&x, 1000, true, 1);
	iteration(&x, 1300, true, 0);
	stop_at(&x, MAIN_NT + 1);
	len = enc_fini(&x);
	REQUIRE(!x.failed);

	CHECK_U64(decode(x.buf, len, NULL, NULL, 0, &cs, &st), 0);
	CHECK_CALLS(&cs,
		    CALL(G, 1, 1000, 1100, 0),
		    CALL(F, 0, 1000, 1200, 0),
		    CALL(G, 1, 1300, 1400, 0),
		    CALL(F, 0, 1300, 1500, 0));
	CHECK_U64(st.errors, 0);
	CHECK_U64(st.insns, 2 * 7 + 1);	/* 7 per iteration, then a nop */
}

/* The trace starts inside g: returns from frames it never saw. */
static void test_start_unknown(void)
{
	struct enc x;
	struct calls cs;
	struct nsight_pt_stats st;
	size_t len;

	enc_init(&x, 0);
	start_at(&x, 5000, G);
	iteration(&x, 5000, false, 1);
	iteration(&x, 5300, false, 0);
	stop_at(&x, MAIN_NT + 1);
	len = enc_fini(&x);
	REQUIRE(!x.failed);

	CHECK_U64(decode(x.buf, len, NULL, NULL, 0, &cs, &st), 0);
	/* f's ret is at F_RA. */
	CHECK_CALLS(&cs,
		    CALL(G_RET, -1, 5000, 5100, NSIGHT_PT_CALL_START_UNKNOWN),
		    CALL(F_RA, -2, 5000, 5200, NSIGHT_PT_CALL_START_UNKNOWN),
		    CALL(G, -1, 5300, 5400, 0),
		    CALL(F, -2, 5300, 5500, 0));
	CHECK_U64(st.errors, 0);
}

/* Tracing is disabled inside g, then enabled again in main. */
static void test_disabled_in_call(void)
{
	struct enc x;
	struct calls cs;
	struct nsight_pt_stats st;
	size_t len;

	enc_init(&x, 0);
	start_at(&x, 1000, MAIN);
	tsc(&x, 1100);
	stop_at(&x, G_RET);		/* after g's nop */
	tsc(&x, 2000);
	mode64(&x);
	pge(&x, MAIN);
	iteration(&x, 2000, true, 0);
	stop_at(&x, MAIN_NT);
	len = enc_fini(&x);
	REQUIRE(!x.failed);

	CHECK_U64(decode(x.buf, len, NULL, NULL, 0, &cs, &st), 0);
	/* The calls are stamped 1100: libipt reads the FUP + TIP.PGD (an
	 * event) before it follows them. */
	CHECK_CALLS(&cs,
		    CALL(G, 1, 1100, 1100, NSIGHT_PT_CALL_END_UNKNOWN),
		    CALL(F, 0, 1100, 1100, NSIGHT_PT_CALL_END_UNKNOWN),
		    CALL(G, 1, 2000, 2100, 0),
		    CALL(F, 0, 2000, 2200, 0));
	CHECK_U64(st.errors, 0);
}

/* The trace ends (no PGD) with calls open. */
static void test_end_of_trace(void)
{
	struct enc x;
	struct calls cs;
	struct nsight_pt_stats st;
	size_t len;

	enc_init(&x, 0);
	start_at(&x, 1000, MAIN);
	iteration(&x, 1000, true, 1);
	tsc(&x, 1400);			/* read ahead, but no branch follows */
	len = enc_fini(&x);
	REQUIRE(!x.failed);

	CHECK_U64(decode(x.buf, len, NULL, NULL, 0, &cs, &st), 0);
	CHECK_CALLS(&cs,
		    CALL(G, 1, 1000, 1100, 0),
		    CALL(F, 0, 1000, 1200, 0),
		    CALL(G, 1, 1300, 1300, NSIGHT_PT_CALL_END_UNKNOWN),
		    CALL(F, 0, 1300, 1300, NSIGHT_PT_CALL_END_UNKNOWN));
	CHECK_U64(st.errors, 0);
	CHECK_U64(st.lost_bytes, 0);
}

/* Far calls and returns: i calls h, h does a syscall to entry, which calls
 * g and does sysret back to h; h returns, i returns. */
static void test_far(void)
{
	struct enc x;
	struct calls cs;
	struct nsight_pt_stats st;
	size_t len;

	enc_init(&x, 0);
	start_at(&x, 1000, I);
	tsc(&x, 1100);
	tip(&x, ENTRY);			/* syscall */
	tsc(&x, 1200);
	tip(&x, 0x400045);		/* g returns */
	tsc(&x, 1300);
	tip(&x, H_RA);			/* sysret */
	tsc(&x, 1400);
	tip(&x, I_RA);			/* h returns */
	tsc(&x, 1500);
	tip(&x, MAIN_NT);		/* i returns */
	stop_at(&x, MAIN_NT + 1);
	len = enc_fini(&x);
	REQUIRE(!x.failed);

	CHECK_U64(decode(x.buf, len, NULL, NULL, 0, &cs, &st), 0);
	CHECK_CALLS(&cs,
		    CALL(G, 2, 1100, 1200, 0),
		    CALL(ENTRY, 1, 1100, 1300, NSIGHT_PT_CALL_FAR),
		    CALL(H, 0, 1000, 1400, 0),
		    CALL(I_RA, -1, 1000, 1500, NSIGHT_PT_CALL_START_UNKNOWN));
	CHECK_U64(st.errors, 0);
}

/* An interrupt in g (FUP + TIP: an asynchronous branch) to entry, which
 * calls g and irets (here a sysret, also a far return) back. */
static void test_interrupt(void)
{
	struct enc x;
	struct calls cs;
	struct nsight_pt_stats st;
	size_t len;

	enc_init(&x, 0);
	start_at(&x, 1000, MAIN);
	tsc(&x, 1100);
	fup(&x, G_RET);
	tip(&x, ENTRY);
	tsc(&x, 1200);
	tip(&x, 0x400045);		/* the inner g returns */
	tsc(&x, 1300);
	tip(&x, G_RET);			/* sysret back into g */
	tsc(&x, 1400);
	tip(&x, F_RA);			/* g returns */
	tsc(&x, 1500);
	tip(&x, MAIN_RA);		/* f returns */
	tsc(&x, 1600);
	tnt(&x, 0);
	stop_at(&x, MAIN_NT);
	len = enc_fini(&x);
	REQUIRE(!x.failed);

	CHECK_U64(decode(x.buf, len, NULL, NULL, 0, &cs, &st), 0);
	/* The calls to f and g are stamped with the time before the
	 * interrupt's FUP, which libipt reads before it follows them. */
	CHECK_CALLS(&cs,
		    CALL(G, 3, 1100, 1200, 0),
		    CALL(ENTRY, 2, 1100, 1300, NSIGHT_PT_CALL_ASYNC),
		    CALL(G, 1, 1100, 1400, 0),
		    CALL(F, 0, 1100, 1500, 0));
	CHECK_U64(st.errors, 0);
}

/* Timing from MTC packets: TSC + TMA in PSB+, then MTCs only. */
static void test_mtc(void)
{
	struct nsight_rec_pt rec = { 0 };
	struct nsight_pt_config cfg;
	struct enc x;
	struct calls cs;
	struct nsight_pt_stats st;
	size_t len;

	/* MTC every 2^3 crystal ticks, 100 TSC ticks per crystal tick. */
	rec.tsc_ratio_den = 1;
	rec.tsc_ratio_num = 100;
	rec.mtc_freq = 3;
	rec.nom_freq = 2100;
	nsight_pt_config_from_rec(&cfg, &rec);
	CHECK_U64(cfg.tsc_ratio_num, 100);
	CHECK_U64(cfg.tsc_ratio_den, 1);
	CHECK_U64(cfg.mtc_freq, 3);
	CHECK_U64(cfg.nom_freq, 2100);
	CHECK_U64(cfg.family, 0);

	enc_init(&x, 3);
	psb(&x);
	tsc(&x, 10000);
	tma(&x, 0x10, 0);		/* CTC 0x10 at TSC 10000 */
	psbend(&x);
	mode64(&x);
	pge(&x, MAIN);
	mtc(&x, 3);			/* CTC 24: + 8 * 100 */
	tnt(&x, 1);
	mtc(&x, 4);			/* CTC 32 */
	tnt(&x, 1);
	mtc(&x, 6);			/* CTC 48 */
	tnt(&x, 0);
	stop_at(&x, MAIN_NT);
	len = enc_fini(&x);
	REQUIRE(!x.failed);

	CHECK_U64(decode(x.buf, len, &cfg, NULL, 0, &cs, &st), 0);
	CHECK_CALLS(&cs,
		    CALL(G, 1, 10000, 10800, 0),
		    CALL(F, 0, 10000, 11600, 0));
	CHECK_U64(st.errors, 0);

	/* Without the TSC/crystal ratio, MTCs cannot be used. */
	CHECK_U64(decode(x.buf, len, NULL, NULL, 0, &cs, &st), 0);
	CHECK_CALLS(&cs,
		    CALL(G, 1, 10000, 10000, 0),
		    CALL(F, 0, 10000, 10000, 0));
}

/* No TSC at all: times are relative and flagged. */
static void test_no_tsc(void)
{
	struct enc x;
	struct calls cs;
	struct nsight_pt_stats st;
	size_t len;

	enc_init(&x, 0);
	psb(&x);
	psbend(&x);
	mode64(&x);
	pge(&x, MAIN);
	tnt(&x, 1);
	tnt(&x, 1);
	tnt(&x, 0);
	stop_at(&x, MAIN_NT);
	len = enc_fini(&x);
	REQUIRE(!x.failed);

	CHECK_U64(decode(x.buf, len, NULL, NULL, 0, &cs, &st), 0);
	CHECK_CALLS(&cs,
		    CALL(G, 1, 0, 0, NSIGHT_PT_CALL_NO_TSC),
		    CALL(F, 0, 0, 0, NSIGHT_PT_CALL_NO_TSC));
}

/*
 * Two PSB segments: the first from TSC 1000 (two iterations, the second
 * one crossing into the next segment), the second from TSC 2000.
 * Returns the length; *@seg2 is the second PSB's offset.
 */
static size_t two_segments(struct enc *x, size_t *seg2)
{
	uint64_t off = 0;

	enc_init(x, 0);
	start_at(x, 1000, MAIN);
	iteration(x, 1000, true, 1);	/* then main calls f, f calls g */
	if (x->e)
		pt_enc_get_offset(x->e, &off);
	*seg2 = off;
	/* In g. The hardware clears its return compression stack at PSB:
	 * the returns of calls made before are TIPs. */
	psb_plus(x, 2000, G);
	iteration(x, 2000, false, 0);
	stop_at(x, MAIN_NT);
	return enc_fini(x);
}

static void test_windows(void)
{
	static const struct nsight_pt_window w2[] = { { 2000, 3000 } };
	static const struct nsight_pt_window w1[] = { { 900, 1100 } };
	static const struct nsight_pt_window w12[] = { { 1000, 1100 }, { 2500, 2600 } };
	static const struct nsight_pt_window none[] = { { 0, 10 }, { 500, 600 } };
	struct enc x;
	struct calls cs;
	struct nsight_pt_stats st;
	size_t len, seg2;

	len = two_segments(&x, &seg2);
	REQUIRE(!x.failed);
	REQUIRE(seg2 > 0 && seg2 < len);

	/* Whole: the calls made before the second PSB keep their frames
	 * (libipt stamps them with the PSB's time, read before it follows
	 * them). */
	CHECK_U64(decode(x.buf, len, NULL, NULL, 0, &cs, &st), 0);
	CHECK_CALLS(&cs,
		    CALL(G, 1, 1000, 1100, 0),
		    CALL(F, 0, 1000, 1200, 0),
		    CALL(G, 1, 2000, 2100, 0),
		    CALL(F, 0, 2000, 2200, 0));
	CHECK_U64(st.runs, 1);
	CHECK_U64(st.skipped_bytes, 0);

	/* Only the second segment: decoding starts at its PSB, in g. */
	CHECK_U64(decode(x.buf, len, NULL, w2, 1, &cs, &st), 0);
	CHECK_CALLS(&cs,
		    CALL(G_RET, -1, 2000, 2100, NSIGHT_PT_CALL_START_UNKNOWN),
		    CALL(F_RA, -2, 2000, 2200, NSIGHT_PT_CALL_START_UNKNOWN));
	CHECK_U64(st.runs, 1);
	CHECK_U64(st.skipped_bytes, seg2);
	CHECK_U64(st.decoded_bytes, len - seg2);
	CHECK_U64(st.errors, 0);

	/* Only the first: its open calls end with it. */
	CHECK_U64(decode(x.buf, len, NULL, w1, 1, &cs, &st), 0);
	CHECK_CALLS(&cs,
		    CALL(G, 1, 1000, 1100, 0),
		    CALL(F, 0, 1000, 1200, 0),
		    CALL(G, 1, 1300, 1300, NSIGHT_PT_CALL_END_UNKNOWN),
		    CALL(F, 0, 1300, 1300, NSIGHT_PT_CALL_END_UNKNOWN));
	CHECK_U64(st.skipped_bytes, len - seg2);
	CHECK_U64(st.decoded_bytes, seg2);

	/* Both, through two windows: one run, as if whole. */
	CHECK_U64(decode(x.buf, len, NULL, w12, 2, &cs, &st), 0);
	CHECK_U64(cs.n, 4);
	CHECK_U64(st.runs, 1);
	CHECK_U64(st.skipped_bytes, 0);

	/* Neither. */
	CHECK_U64(decode(x.buf, len, NULL, none, 2, &cs, &st), 0);
	CHECK_U64(cs.n, 0);
	CHECK_U64(st.runs, 0);
	CHECK_U64(st.skipped_bytes, len);
	CHECK_U64(st.decoded_bytes, 0);
}

/*
 * Three segments, each self-contained (one iteration, tracing stopped at
 * its end); the second has uncompressed returns. Returns the length;
 * @off[i] is segment i's offset, @off[3] that of segment 2's first TIP.
 */
static size_t three_segments(struct enc *x, size_t off[4])
{
	uint64_t o;
	int i;

	enc_init(x, 0);
	for (i = 0; i < 3; i++) {
		o = 0;
		if (x->e)
			pt_enc_get_offset(x->e, &o);
		off[i] = o;
		start_at(x, 1000 * (i + 1), MAIN);
		if (i == 1 && x->e) {
			pt_enc_get_offset(x->e, &o);
			off[3] = o + 8;	/* after a TSC */
		}
		iteration(x, 1000 * (i + 1), i != 1, 0);
		stop_at(x, MAIN_NT);
	}
	return enc_fini(x);
}

static bool calls_equal(const struct nsight_pt_call *a, const struct nsight_pt_call *b)
{
	return !memcmp(a, b, sizeof(*a));
}

static const struct nsight_pt_call seg1_calls[] = {
	CALL(G, 1, 1000, 1100, 0), CALL(F, 0, 1000, 1200, 0),
};
static const struct nsight_pt_call seg3_calls[] = {
	CALL(G, 1, 3000, 3100, 0), CALL(F, 0, 3000, 3200, 0),
};

/* The first and last segments' calls are the first and last two of @cs. */
static bool ends_intact(const struct calls *cs)
{
	return cs->n >= 4 && cs->n <= MAX_CALLS &&
	       calls_equal(&cs->c[0], &seg1_calls[0]) &&
	       calls_equal(&cs->c[1], &seg1_calls[1]) &&
	       calls_equal(&cs->c[cs->n - 2], &seg3_calls[0]) &&
	       calls_equal(&cs->c[cs->n - 1], &seg3_calls[1]);
}

static void test_corrupt(void)
{
	struct enc x;
	struct calls cs;
	struct nsight_pt_stats st;
	size_t len, off[4], i, intact = 0;
	uint8_t *buf;

	len = three_segments(&x, off);
	REQUIRE(!x.failed);
	CHECK_U64(decode(x.buf, len, NULL, NULL, 0, &cs, &st), 0);
	CHECK_U64(cs.n, 6);
	CHECK(ends_intact(&cs));
	CHECK_U64(st.errors, 0);

	/* A bad opcode (0x02 0x55) instead of segment 2's second TIP. */
	buf = malloc(len);
	REQUIRE(buf);
	memcpy(buf, x.buf, len);
	buf[off[3] + 15] = 0x02;
	buf[off[3] + 16] = 0x55;
	CHECK_U64(decode(buf, len, NULL, NULL, 0, &cs, &st), 0);
	/* Segment 2's calls were open at the error: libipt reports it with
	 * g's return, whose TIP it read just before. */
	CHECK_CALLS(&cs,
		    CALL(G, 1, 1000, 1100, 0),
		    CALL(F, 0, 1000, 1200, 0),
		    CALL(G, 1, 2000, 2000, NSIGHT_PT_CALL_END_UNKNOWN),
		    CALL(F, 0, 2000, 2000, NSIGHT_PT_CALL_END_UNKNOWN),
		    CALL(G, 1, 3000, 3100, 0),
		    CALL(F, 0, 3000, 3200, 0));
	CHECK_U64(st.errors, 1);
	CHECK_U64(st.resyncs, 1);
	CHECK(st.lost_bytes > 0 && st.lost_bytes <= off[2] - off[3]);
	CHECK_STR_HAS(st.first_error, "trace offset");
	CHECK(st.first_error_offset >= off[3] && st.first_error_offset < off[2]);

	/* 5 bytes cut out of that TIP. */
	memcpy(buf, x.buf, len);
	memmove(buf + off[3] + 2, buf + off[3] + 7, len - off[3] - 7);
	CHECK_U64(decode(buf, len - 5, NULL, NULL, 0, &cs, &st), 0);
	CHECK(ends_intact(&cs));
	CHECK(st.errors > 0);
	CHECK(st.resyncs > 0);

	/*
	 * Every byte of segment 2 flipped in turn. Some flips give valid
	 * but wrong trace (another IP, TNT bits for other packets) which
	 * no decoder can tell, and which may consume segment 3's packets;
	 * the first segment stays intact and nothing crashes.
	 */
	for (i = off[1]; i < off[2]; i++) {
		memcpy(buf, x.buf, len);
		buf[i] ^= 0xa5;
		if (decode(buf, len, NULL, NULL, 0, &cs, &st) != 0)
			KTAP_FAIL("flipping byte %zu: decode failed", i);
		else if (cs.n < 2 || !calls_equal(&cs.c[0], &seg1_calls[0]) ||
			 !calls_equal(&cs.c[1], &seg1_calls[1]))
			KTAP_FAIL("flipping byte %zu: first segment damaged", i);
		intact += ends_intact(&cs);
	}
	printf("# %zu of %zu flips left segment 3 intact\n", intact, off[2] - off[1]);
	CHECK(intact * 4 >= (off[2] - off[1]) * 3);

	/* Truncated in the middle of the last segment. */
	CHECK_U64(decode(x.buf, off[2] + (len - off[2]) / 2, NULL, NULL, 0, &cs, &st), 0);
	CHECK(cs.n >= 4);
	free(buf);
}

/* xorshift64*, for reproducible garbage. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static void test_garbage(void)
{
	static const struct nsight_pt_window w[] = { { 0, UINT64_MAX } };
	struct calls cs;
	struct nsight_pt_stats st;
	uint64_t seed = 42;
	size_t len = 256 * 1024, i, round;
	uint8_t *buf = malloc(len);
	struct enc x;

	REQUIRE(buf);
	/* Empty input. */
	CHECK_U64(decode(NULL, 0, NULL, NULL, 0, &cs, &st), 0);
	CHECK_U64(cs.n, 0);
	CHECK_U64(decode(buf, 0, NULL, w, 1, &cs, &st), 0);

	for (round = 0; round < 3; round++) {
		for (i = 0; i < len; i++)
			buf[i] = (uint8_t)rnd(&seed);
		if (round > 0) {
			/* Sprinkle valid PSB+ headers so the decoder syncs
			 * into garbage; round 2 also copies real packets. */
			len = 256 * 1024;
			enc_init(&x, 0);
			start_at(&x, 1000, MAIN);
			iteration(&x, 1000, true, 1);
			size_t n = enc_fini(&x);

			for (i = 0; i + n < len; i += 997 + rnd(&seed) % 2000)
				memcpy(buf + i, x.buf, round == 1 ? 16 : n);
		}
		CHECK_U64(decode(buf, len, NULL, NULL, 0, &cs, &st), 0);
		CHECK_U64(decode(buf, len, NULL, w, 1, &cs, &st), 0);
		CHECK_U64(st.bytes, len);
		if (round > 0)
			CHECK(st.errors > 0);
	}
	free(buf);
}

/* g is not in the image. */
static void test_missing_image(void)
{
	struct nsight_pt_image *img = nsight_pt_image_new();
	struct nsight_diag d = { 0 };
	struct nsight_pt_stats st;
	struct calls cs = { 0 };
	struct enc x;
	size_t len;

	REQUIRE(img);
	CHECK_U64(nsight_pt_image_add(img, MAIN, code, 0x20, "main+f", &d), 0);
	enc_init(&x, 0);
	start_at(&x, 1000, MAIN);
	iteration(&x, 1000, true, 0);
	stop_at(&x, MAIN_NT);
	len = enc_fini(&x);
	REQUIRE(!x.failed);

	CHECK_U64(nsight_pt_decode(x.buf, len, NULL, img, NULL, 0, collect, &cs, &st, &d), 0);
	CHECK_U64(st.errors, 1);
	CHECK_STR_HAS(st.first_error, "no memory mapped");
	/* g was called, then nothing is known. */
	CHECK_U64(cs.n, 2);
	CHECK(cs.c[0].func == G && (cs.c[0].flags & NSIGHT_PT_CALL_END_UNKNOWN));

	/* An empty image. */
	nsight_pt_image_free(img);
	img = nsight_pt_image_new();
	REQUIRE(img);
	CHECK_U64(nsight_pt_decode(x.buf, len, NULL, img, NULL, 0, collect, &cs, &st, &d), 0);
	CHECK_U64(st.errors, 1);
	nsight_pt_image_free(img);
}

/* Tracing enabled at a "jmp ." and nothing more: the decoder gives up. */
static void test_stuck(void)
{
	struct enc x;
	struct calls cs;
	struct nsight_pt_stats st;
	size_t len;

	enc_init(&x, 0);
	start_at(&x, 1000, LOOP);
	len = enc_fini(&x);
	REQUIRE(!x.failed);
	CHECK_U64(decode(x.buf, len, NULL, NULL, 0, &cs, &st), 0);
	CHECK_U64(st.errors, 1);
	CHECK_STR_HAS(st.first_error, "no trace progress");
}

/* An image in two sections with the call in f split between them. */
static void test_image(void)
{
	struct nsight_pt_image *img = nsight_pt_image_new();
	struct nsight_diag d = { 0 };
	struct nsight_pt_stats st;
	struct calls cs = { 0 };
	struct enc x;
	size_t len;

	REQUIRE(img);
	CHECK_U64(nsight_pt_image_add(img, MAIN + 0x12, code + 0x12, sizeof(code) - 0x12, "b",
				      &d), 0);
	CHECK_U64(nsight_pt_image_add(img, MAIN, code, 0x12, "a", &d), 0);
	CHECK_U64(nsight_pt_image_sections(img), 2);
	CHECK_U64(nsight_pt_image_bytes(img), sizeof(code));
	/* Overlaps, empty and wrapping sections are refused. */
	CHECK_U64(nsight_pt_image_add(img, MAIN + 0x11, code, 1, "c", &d), -NSIGHT_E_INVAL);
	CHECK_STR_HAS(d.msg, "overlaps");
	CHECK_U64(nsight_pt_image_add(img, MAIN - 1, code, 2, "c", &d), -NSIGHT_E_INVAL);
	CHECK_U64(nsight_pt_image_add(img, MAIN - 1, code, 0, "c", &d), -NSIGHT_E_INVAL);
	CHECK_U64(nsight_pt_image_add(img, UINT64_MAX - 1, code, 4, "c", &d), -NSIGHT_E_INVAL);
	CHECK_U64(nsight_pt_image_add(img, MAIN - 1, code, 1, NULL, &d), 0);
	CHECK_U64(nsight_pt_image_sections(img), 3);

	enc_init(&x, 0);
	start_at(&x, 1000, MAIN);
	iteration(&x, 1000, true, 0);
	stop_at(&x, MAIN_NT);
	len = enc_fini(&x);
	REQUIRE(!x.failed);
	CHECK_U64(nsight_pt_decode(x.buf, len, NULL, img, NULL, 0, collect, &cs, &st, &d), 0);
	CHECK_CALLS(&cs,
		    CALL(G, 1, 1000, 1100, 0),
		    CALL(F, 0, 1000, 1200, 0));
	CHECK_U64(st.errors, 0);
	nsight_pt_image_free(img);
	nsight_pt_image_free(NULL);
}

/* Bad arguments, and a callback that stops the decoding. */
static void test_args_and_stop(void)
{
	static const struct nsight_pt_window bad[] = { { 10, 20 }, { 15, 30 } };
	static const struct nsight_pt_window rev[] = { { 20, 10 } };
	struct nsight_pt_image *img = new_image();
	struct nsight_diag d = { 0 };
	struct nsight_pt_stats st;
	struct calls cs = { 0 };
	struct enc x;
	size_t len;

	REQUIRE(img);
	enc_init(&x, 0);
	start_at(&x, 1000, MAIN);
	iteration(&x, 1000, true, 1);
	iteration(&x, 1300, true, 0);
	stop_at(&x, MAIN_NT);
	len = enc_fini(&x);
	REQUIRE(!x.failed);

	CHECK_U64(nsight_pt_decode(x.buf, len, NULL, NULL, NULL, 0, collect, &cs, &st, &d),
		  -NSIGHT_E_INVAL);
	CHECK_U64(nsight_pt_decode(NULL, 4, NULL, img, NULL, 0, collect, &cs, &st, &d),
		  -NSIGHT_E_INVAL);
	CHECK_U64(nsight_pt_decode(x.buf, len, NULL, img, bad, 2, collect, &cs, &st, &d),
		  -NSIGHT_E_INVAL);
	CHECK_STR_HAS(d.msg, "window 1");
	CHECK_U64(nsight_pt_decode(x.buf, len, NULL, img, rev, 1, collect, &cs, &st, &d),
		  -NSIGHT_E_INVAL);
	CHECK_U64(nsight_pt_decode(x.buf, len, NULL, img, NULL, 1, collect, &cs, &st, &d),
		  -NSIGHT_E_INVAL);
	CHECK_U64(cs.n, 0);

	/* No callback, no stats. */
	CHECK_U64(nsight_pt_decode(x.buf, len, NULL, img, NULL, 0, NULL, NULL, NULL, NULL), 0);

	/* The callback's nonzero return stops and is returned. */
	cs.stop_after = 3;
	CHECK_U64(nsight_pt_decode(x.buf, len, NULL, img, NULL, 0, collect, &cs, &st, &d), 7);
	CHECK_U64(cs.n, 3);
	nsight_pt_image_free(img);
}

/* Several threads decode with one image at once. */
struct thread_arg {
	const struct nsight_pt_image *img;
	const uint8_t *buf;
	size_t len;
	size_t bad;
};

static void *decode_thread(void *p)
{
	static const struct nsight_pt_call last = CALL(F, 0, 1300, 1500, 0);
	struct thread_arg *a = p;
	struct nsight_pt_stats st;
	struct calls cs;
	int i;

	for (i = 0; i < 50; i++) {
		cs.n = 0;
		cs.stop_after = 0;
		if (nsight_pt_decode(a->buf, a->len, NULL, a->img, NULL, 0, collect, &cs, &st,
				     NULL) || cs.n != 4 || !calls_equal(&cs.c[3], &last))
			a->bad++;
	}
	return NULL;
}

static void test_threads(void)
{
	struct nsight_pt_image *img = new_image();
	struct thread_arg a[4];
	pthread_t t[4];
	struct enc x;
	size_t len;
	int i, started = 0;

	REQUIRE(img);
	enc_init(&x, 0);
	start_at(&x, 1000, MAIN);
	iteration(&x, 1000, true, 1);
	iteration(&x, 1300, false, 0);
	stop_at(&x, MAIN_NT);
	len = enc_fini(&x);
	REQUIRE(!x.failed);
	for (i = 0; i < 4; i++) {
		a[i] = (struct thread_arg){ .img = img, .buf = x.buf, .len = len };
		if (pthread_create(&t[i], NULL, decode_thread, &a[i]))
			break;
		started++;
	}
	for (i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	CHECK_U64(started, 4);
	for (i = 0; i < started; i++)
		CHECK_U64(a[i].bad, 0);
	nsight_pt_image_free(img);
}

KTAP_MAIN(
	KTAP_TEST(test_nested_tip),
	KTAP_TEST(test_nested_tnt),
	KTAP_TEST(test_start_unknown),
	KTAP_TEST(test_disabled_in_call),
	KTAP_TEST(test_end_of_trace),
	KTAP_TEST(test_far),
	KTAP_TEST(test_interrupt),
	KTAP_TEST(test_mtc),
	KTAP_TEST(test_no_tsc),
	KTAP_TEST(test_windows),
	KTAP_TEST(test_corrupt),
	KTAP_TEST(test_garbage),
	KTAP_TEST(test_missing_image),
	KTAP_TEST(test_stuck),
	KTAP_TEST(test_image),
	KTAP_TEST(test_args_and_stop),
	KTAP_TEST(test_threads),
)
