/* SPDX-License-Identifier: MIT */
/*
 * Intel PT streams for tests, made with libipt's encoder: packets one at a
 * time into a fixed buffer; any encoder error marks the stream failed.
 */
#ifndef NSIGHT_TEST_PT_SYNTH_H
#define NSIGHT_TEST_PT_SYNTH_H

#include <intel-pt.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* ---------------------------------------------------------------------- */
/* Stream synthesis                                                         */

struct enc {
	uint8_t buf[8192];
	struct pt_config cfg;
	struct pt_encoder *e;
	bool failed;
};

static inline void enc_init(struct enc *x, uint8_t mtc_freq)
{
	memset(x->buf, 0, sizeof(x->buf));
	pt_config_init(&x->cfg);
	x->cfg.begin = x->buf;
	x->cfg.end = x->buf + sizeof(x->buf);
	x->cfg.mtc_freq = mtc_freq;
	x->cfg.cpuid_0x15_eax = 1;
	x->cfg.cpuid_0x15_ebx = 100;
	x->e = pt_alloc_encoder(&x->cfg);
	x->failed = !x->e;
}

static inline size_t enc_fini(struct enc *x)
{
	uint64_t off = 0;

	if (x->e)
		pt_enc_get_offset(x->e, &off);
	pt_free_encoder(x->e);
	x->e = NULL;
	return off;
}

static inline void put(struct enc *x, const struct pt_packet *p)
{
	if (!x->e || pt_enc_next(x->e, p) < 0)
		x->failed = true;
}

static inline void put_ip(struct enc *x, enum pt_packet_type type, uint64_t ip)
{
	struct pt_packet p = { .type = type };

	p.payload.ip.ipc = ip ? pt_ipc_sext_48 : pt_ipc_suppressed;
	p.payload.ip.ip = ip;
	put(x, &p);
}

static inline void psb(struct enc *x)
{
	put(x, &(struct pt_packet){ .type = ppt_psb });
}

static inline void psbend(struct enc *x)
{
	put(x, &(struct pt_packet){ .type = ppt_psbend });
}

static inline void tsc(struct enc *x, uint64_t t)
{
	struct pt_packet p = { .type = ppt_tsc };

	p.payload.tsc.tsc = t;
	put(x, &p);
}

static inline void tma(struct enc *x, uint16_t ctc, uint16_t fc)
{
	struct pt_packet p = { .type = ppt_tma };

	p.payload.tma.ctc = ctc;
	p.payload.tma.fc = fc;
	put(x, &p);
}

static inline void mtc(struct enc *x, uint8_t ctc)
{
	struct pt_packet p = { .type = ppt_mtc };

	p.payload.mtc.ctc = ctc;
	put(x, &p);
}

static inline void mode64(struct enc *x)
{
	struct pt_packet p = { .type = ppt_mode };

	p.payload.mode.leaf = pt_mol_exec;
	p.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
	put(x, &p);
}

/* One TNT-8 bit. */
static inline void tnt(struct enc *x, int taken)
{
	struct pt_packet p = { .type = ppt_tnt_8 };

	p.payload.tnt.bit_size = 1;
	p.payload.tnt.payload = taken ? 1 : 0;
	put(x, &p);
}

static inline void tip(struct enc *x, uint64_t ip)
{
	put_ip(x, ppt_tip, ip);
}

static inline void pge(struct enc *x, uint64_t ip)
{
	put_ip(x, ppt_tip_pge, ip);
}

static inline void fup(struct enc *x, uint64_t ip)
{
	put_ip(x, ppt_fup, ip);
}

/* A MOV CR3 (or the CR3 of a PSB+): the address space is @cr3. */
static inline void pip(struct enc *x, uint64_t cr3)
{
	struct pt_packet p = { .type = ppt_pip };

	p.payload.pip.cr3 = cr3;
	put(x, &p);
}

/* Tracing stops at @ip (FUP + TIP.PGD without IP: asynchronous). */
static inline void stop_at(struct enc *x, uint64_t ip)
{
	fup(x, ip);
	put_ip(x, ppt_tip_pgd, 0);
}

/* A PSB+ with TSC @t and tracing enabled at @ip (0: disabled). */
static inline void psb_plus(struct enc *x, uint64_t t, uint64_t ip)
{
	psb(x);
	tsc(x, t);
	if (ip) {
		fup(x, ip);
		mode64(x);
	}
	psbend(x);
}

/* Start tracing at @ip at time @t: PSB+ with tracing off, then TIP.PGE. */
static inline void start_at(struct enc *x, uint64_t t, uint64_t ip)
{
	psb_plus(x, t, 0);
	mode64(x);
	pge(x, ip);
}

/*
 * @size bytes of user code at @loop: "loop: call f; jmp loop" and, at @f,
 * "f: call sw; ret"; nops elsewhere.
 */
static inline void user_loop(uint8_t *code, size_t size, uint64_t loop, uint64_t f, uint64_t sw)
{
	int32_t to_f = (int32_t)(f - (loop + 5)), to_sw = (int32_t)(sw - (f + 5));

	memset(code, 0x90, size);
	code[0] = 0xe8;
	memcpy(code + 1, &to_f, 4);
	code[5] = 0xeb;
	code[6] = 0xf9;
	code[f - loop] = 0xe8;
	memcpy(code + (f - loop) + 1, &to_sw, 4);
	code[f - loop + 5] = 0xc3;
}

#endif /* NSIGHT_TEST_PT_SYNTH_H */
