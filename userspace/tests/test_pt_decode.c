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
		       " flags %#x space %#" PRIx64 "\n", i, cs->c[i].func, cs->c[i].depth, cs->c[i].start,
		       cs->c[i].end, cs->c[i].flags, cs->c[i].space);
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

/* ---------------------------------------------------------------------- */
/* Address spaces                                                           */

/*
 * Code every space shares (the "kernel"), at 0x500000:
 *
 *   sw_loop: call sw_f        e8 0b 00 00 00
 *   +5:      nop              90
 *   +6:      jmp sw_loop      eb f8
 *   sw_f:    call sw          e8 0b 00 00 00      (0x500010)
 *   +5:      ret              c3
 *   sw:      mov cr3, rax     0f 22 d8            (0x500020)
 *   +3:      ret              c3
 */
#define SW_LOOP		0x500000ULL
#define SW_LOOP_RA	0x500005ULL
#define SW_F		0x500010ULL
#define SW_F_RA		0x500015ULL
#define SW		0x500020ULL
#define SW_RET		0x500023ULL
/* Two processes' CR3s; PIP carries the PCID too (bits 11:5 survive). */
#define CR3_A		0x1234000ULL
#define CR3_B		0x5678000ULL
#define CR3_C		0x9abc000ULL
#define PCID		0x7e0ULL

static const uint8_t sw_code[] = {
	/* 0x500000 */ 0xe8, 0x0b, 0x00, 0x00, 0x00, 0x90, 0xeb, 0xf8,
	/* 0x500008 */ 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
	/* 0x500010 */ 0xe8, 0x0b, 0x00, 0x00, 0x00, 0xc3, 0x90, 0x90,
	/* 0x500018 */ 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
	/* 0x500020 */ 0x0f, 0x22, 0xd8, 0xc3,
};

static int decode_img(const struct nsight_pt_image *img, const uint8_t *buf, size_t len,
		      struct calls *cs, struct nsight_pt_stats *st)
{
	struct nsight_diag d = { 0 };

	cs->n = 0;
	return nsight_pt_decode(buf, len, NULL, img, NULL, 0, collect, cs, st, &d);
}

/* Check that @cs, from its @from-th call on, is exactly the @n of @exp. */
static void check_tail(const struct calls *cs, size_t from, const struct nsight_pt_call *exp,
		       size_t n)
{
	bool ok = cs->n == from + n;
	size_t i;

	for (i = 0; ok && i < n; i++)
		ok = !memcmp(&cs->c[from + i], &exp[i], sizeof(exp[i]));
	if (!ok) {
		KTAP_FAIL("calls from %zu differ from the %zu expected", from, n);
		dump_calls(cs);
	}
}

/*
 * The first nine calls of both tests below: A runs from 1000 two calls
 * deep (@a_f, then sw) and switches to B at 1100; B returns to @b_ret and
 * to the loop (from frames entered before the trace), calls @b_f and sw,
 * switches back to A at 1400; A returns from sw and @a_f, calls again and
 * switches to B at 1700; B returns from sw and @b_f.
 */
static void check_turns(const struct calls *cs, uint64_t a_f, uint64_t b_ret, uint64_t b_f)
{
	const struct nsight_pt_call exp[] = {
		{ .start = 1000, .end = 1100, .space = CR3_A, .flags = NSIGHT_PT_CALL_SPACE },
		{ .start = 1000, .end = 1200, .func = SW_RET, .depth = -1, .space = CR3_B,
		  .flags = NSIGHT_PT_CALL_START_UNKNOWN },
		{ .start = 1000, .end = 1400, .func = b_ret, .depth = -2, .space = CR3_B,
		  .flags = NSIGHT_PT_CALL_START_UNKNOWN },
		{ .start = 1100, .end = 1400, .space = CR3_B, .flags = NSIGHT_PT_CALL_SPACE },
		{ .start = 1100, .end = 1500, .func = SW, .depth = 1, .space = CR3_A },
		{ .start = 1100, .end = 1700, .func = a_f, .depth = 0, .space = CR3_A },
		{ .start = 1400, .end = 1700, .space = CR3_A, .flags = NSIGHT_PT_CALL_SPACE },
		{ .start = 1400, .end = 1800, .func = SW, .depth = -1, .space = CR3_B },
		{ .start = 1400, .end = 2000, .func = b_f, .depth = -2, .space = CR3_B },
	};
	size_t i;

	for (i = 0; i < sizeof(exp) / sizeof(exp[0]); i++)
		if (i >= cs->n || memcmp(&cs->c[i], &exp[i], sizeof(exp[i]))) {
			KTAP_FAIL("call %zu differs", i);
			dump_calls(cs);
			return;
		}
}

/* A starts at @ip at 1000: PSB+ with its CR3, tracing enabled. */
static void begin_a(struct enc *x, uint64_t ip)
{
	enc_init(x, 0);
	psb(x);
	tsc(x, 1000);
	pip(x, CR3_A);
	psbend(x);
	mode64(x);
	pge(x, ip);
}

/* A switch to @cr3 at @t, then returns to @ra1 at @t + 100 and to the loop
 * at @t + 200 (with TIPs). */
static void switch_to(struct enc *x, uint64_t t, uint64_t cr3, uint64_t ra1, uint64_t loop_ra)
{
	tsc(x, t);
	pip(x, cr3);
	tsc(x, t + 100);
	tip(x, ra1);
	tsc(x, t + 200);
	tip(x, loop_ra);
}

/*
 * Two processes with the same code take turns on the CPU: each switch
 * (sw's MOV CR3) happens two calls deep, and the returns after it are the
 * other process's. Each return must end a frame of the process it runs
 * in: A's sw and sw_f end at 1500 and 1700, when A runs again, not at 1200
 * and 1400 when B returns from frames it entered before the trace. With
 * one call stack per CPU B's returns would end A's frames.
 *
 * Times: libipt reads the PIP (and its timing packet) ahead before it
 * hands out the blocks that precede its MOV CR3, so the calls and returns
 * right before a switch carry the switch's time (1100, 1400, 1700, 2000).
 */
static void test_spaces_switch(void)
{
	struct nsight_pt_image *img = nsight_pt_image_new();
	struct nsight_pt_stats st;
	struct calls cs;
	struct enc x;
	size_t len;

	REQUIRE(img && !nsight_pt_image_add(img, SW_LOOP, sw_code, sizeof(sw_code), "sw", NULL));
	begin_a(&x, SW_LOOP);
	/* A: sw_loop > sw_f > sw, switch to B, which returns twice from
	 * frames entered before the trace, calls again (at 1300) */
	switch_to(&x, 1100, CR3_B | PCID, SW_F_RA, SW_LOOP_RA);
	/* switch to A, which returns from sw and sw_f, calls again */
	switch_to(&x, 1400, CR3_A, SW_F_RA, SW_LOOP_RA);
	/* switch to B, which returns from sw and sw_f, calls again */
	switch_to(&x, 1700, CR3_B, SW_F_RA, SW_LOOP_RA);
	/* switch to A, tracing stops in sw */
	tsc(&x, 2000);
	pip(&x, CR3_A);
	tsc(&x, 2100);
	stop_at(&x, SW_RET);
	len = enc_fini(&x);
	REQUIRE(!x.failed);

	CHECK_U64(decode_img(img, x.buf, len, &cs, &st), 0);
	check_turns(&cs, SW_F, SW_F_RA, SW_F);
	check_tail(&cs, 9, (const struct nsight_pt_call[]){
		{ .start = 1700, .end = 2000, .space = CR3_B, .flags = NSIGHT_PT_CALL_SPACE },
		{ .start = 1700, .end = 2100, .func = SW, .depth = 1, .space = CR3_A,
		  .flags = NSIGHT_PT_CALL_END_UNKNOWN },
		{ .start = 1700, .end = 2100, .func = SW_F, .depth = 0, .space = CR3_A,
		  .flags = NSIGHT_PT_CALL_END_UNKNOWN },
		{ .start = 2000, .end = 2100, .func = SW, .depth = -1, .space = CR3_B,
		  .flags = NSIGHT_PT_CALL_END_UNKNOWN },
		{ .start = 2000, .end = 2100, .func = SW_F, .depth = -2, .space = CR3_B,
		  .flags = NSIGHT_PT_CALL_END_UNKNOWN },
		{ .start = 2000, .end = 2100, .space = CR3_A, .flags = NSIGHT_PT_CALL_SPACE },
	}, 6);
	CHECK_U64(st.errors, 0);
	CHECK_U64(st.switches, 4);
	CHECK_U64(st.calls, 10);
	CHECK_U64(nsight_pt_space_key(CR3_B | PCID), CR3_B);
	nsight_pt_image_free(img);
}

/*
 * User code: each process has its own at the same addresses, at 0x600000
 * (A's left, B's right):
 *
 *   u_loop: call a_f  e8 0b 00 00 00   |  call b_f  e8 1b 00 00 00
 *   +5:     jmp u_loop eb f9           |  jmp u_loop eb f9
 *   a_f:    call sw   (0x600010)       |  b_f: call sw (0x600020)
 *   +5:     ret                        |  +5:  ret
 */
#define U_LOOP		0x600000ULL
#define U_LOOP_RA	0x600005ULL
#define A_F		0x600010ULL
#define A_F_RA		0x600015ULL
#define B_F		0x600020ULL
#define B_F_RA		0x600025ULL

static void user_code(uint8_t *code, size_t size, uint64_t f)
{
	user_loop(code, size, U_LOOP, f, SW);
}

/*
 * The two processes' code is at the same addresses: each space's code
 * decodes its calls (b_f in B, a_f in A). With one image for every space
 * B's code would be A's and its calls would go to a_f.
 */
static void test_spaces_user_code(void)
{
	static uint8_t a_code[0x30], b_code[0x30];
	struct nsight_pt_image *img = nsight_pt_image_new();
	struct nsight_diag d = { 0 };
	struct nsight_pt_stats st;
	struct calls cs;
	struct enc x;
	size_t len;

	user_code(a_code, sizeof(a_code), A_F);
	user_code(b_code, sizeof(b_code), B_F);
	REQUIRE(img);
	CHECK_U64(nsight_pt_image_add(img, SW_LOOP, sw_code, sizeof(sw_code), "sw", &d), 0);
	CHECK_U64(nsight_pt_image_add_space(img, CR3_A, U_LOOP, a_code, sizeof(a_code), "a", &d), 0);
	CHECK_U64(nsight_pt_image_add_space(img, CR3_B | PCID, U_LOOP, b_code, sizeof(b_code),
					    "b", &d), 0);
	/* Overlaps within a space are refused, not across spaces. */
	CHECK(nsight_pt_image_add_space(img, CR3_B, U_LOOP + 8, b_code, 8, "b2", &d) ==
	      -NSIGHT_E_INVAL);
	CHECK_STR_HAS(d.msg, "overlaps");
	CHECK(nsight_pt_image_add_space(img, 0x800, U_LOOP, b_code, 8, "b3", &d) == -NSIGHT_E_INVAL);
	CHECK_STR_HAS(d.msg, "no CR3");

	begin_a(&x, U_LOOP);
	switch_to(&x, 1100, CR3_B | PCID, B_F_RA, U_LOOP_RA);
	switch_to(&x, 1400, CR3_A, A_F_RA, U_LOOP_RA);
	switch_to(&x, 1700, CR3_B, B_F_RA, U_LOOP_RA);
	tsc(&x, 2000);
	stop_at(&x, U_LOOP + 5);
	len = enc_fini(&x);
	REQUIRE(!x.failed);

	CHECK_U64(decode_img(img, x.buf, len, &cs, &st), 0);
	check_turns(&cs, A_F, B_F_RA, B_F);
	check_tail(&cs, 9, (const struct nsight_pt_call[]){
		{ .start = 1700, .end = 2000, .func = SW, .depth = 1, .space = CR3_A,
		  .flags = NSIGHT_PT_CALL_END_UNKNOWN },
		{ .start = 1700, .end = 2000, .func = A_F, .depth = 0, .space = CR3_A,
		  .flags = NSIGHT_PT_CALL_END_UNKNOWN },
		{ .start = 1700, .end = 2000, .space = CR3_B, .flags = NSIGHT_PT_CALL_SPACE },
	}, 3);
	CHECK_U64(st.errors, 0);
	CHECK_U64(st.nomap, 0);
	nsight_pt_image_free(img);
}

/*
 * A process whose code is not in the image (C): decoding stops where it
 * returns to its code, counted as code missing in that space, and nothing
 * of it is decoded; A's open frames end there unknown.
 */
static void test_spaces_no_code(void)
{
	static uint8_t a_code[0x30];
	struct nsight_pt_image *img = nsight_pt_image_new();
	struct nsight_pt_stats st;
	struct calls cs;
	struct enc x;
	size_t len;

	user_code(a_code, sizeof(a_code), A_F);
	REQUIRE(img && !nsight_pt_image_add(img, SW_LOOP, sw_code, sizeof(sw_code), "sw", NULL));
	REQUIRE(!nsight_pt_image_add_space(img, CR3_A, U_LOOP, a_code, sizeof(a_code), "a", NULL));
	begin_a(&x, U_LOOP);
	switch_to(&x, 1100, CR3_C, B_F_RA, U_LOOP_RA);
	len = enc_fini(&x);
	REQUIRE(!x.failed);

	CHECK_U64(decode_img(img, x.buf, len, &cs, &st), 0);
	CHECK_U64(st.nomap, 1);
	CHECK_U64(st.nomap_space, CR3_C);
	CHECK_U64(st.nomap_ip, B_F_RA);
	CHECK_U64(st.errors, 1);
	CHECK_STR_HAS(st.first_error, "no memory mapped");
	/* C's return from sw (shared code) is decoded, nothing of its own. */
	CHECK_CALLS(&cs,
		    { .start = 1000, .end = 1100, .space = CR3_A, .flags = NSIGHT_PT_CALL_SPACE },
		    { .start = 1000, .end = 1200, .func = SW_RET, .depth = -1, .space = CR3_C,
		      .flags = NSIGHT_PT_CALL_START_UNKNOWN },
		    { .start = 1100, .end = 1200, .func = SW, .depth = 1, .space = CR3_A,
		      .flags = NSIGHT_PT_CALL_END_UNKNOWN },
		    { .start = 1100, .end = 1200, .func = A_F, .depth = 0, .space = CR3_A,
		      .flags = NSIGHT_PT_CALL_END_UNKNOWN },
		    { .start = 1100, .end = 1200, .space = CR3_C, .flags = NSIGHT_PT_CALL_SPACE });
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
	KTAP_TEST(test_spaces_switch),
	KTAP_TEST(test_spaces_user_code),
	KTAP_TEST(test_spaces_no_code),
)
