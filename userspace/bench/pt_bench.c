// SPDX-License-Identifier: MIT
/*
 * pt_bench: Intel PT decoding throughput of nsight_pt_decode().
 *
 * Synthesizes a stream with libipt's encoder for a small code image (main
 * calls f, f calls g; g's return compressed into a TNT bit, f's as a TIP,
 * main loops with a conditional branch), with MTC timing packets and a
 * PSB+ (TSC, TMA, FUP, MODE.Exec) every 4 KiB, then decodes it whole on
 * one thread and prints the throughput, per second of wall time and per
 * second of the thread's CPU time (which the host's other load does not
 * stretch).
 *
 *   pt_bench [--size MB] [--nops N]
 *
 * --size: stream size (default 128 MB); --nops: nops in each function
 * (default 8), i.e. how much code each packet stands for.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <intel-pt.h>

#include "pt/pt_decode.h"

#define BASE		0x400000ULL
#define PSB_PERIOD	4096
#define MTC_FREQ	3
#define TSC_PER_CTC	25	/* CPUID.15H EBX/EAX */

struct image {
	uint8_t code[4096];
	uint64_t main, main_ra, jmp, f, f_ra, g;
};

static size_t put_nops(uint8_t *p, unsigned int n)
{
	memset(p, 0x90, n);
	return n;
}

/* A direct jump over two int3, as compilers leave them everywhere. */
static size_t put_jmp(uint8_t *p)
{
	p[0] = 0xeb;
	p[1] = 2;
	p[2] = 0xcc;
	p[3] = 0xcc;
	return 4;
}

static size_t put_call(uint8_t *p, uint64_t at, uint64_t to)
{
	int32_t rel = (int32_t)(to - (at + 5));

	p[0] = 0xe8;
	memcpy(p + 1, &rel, 4);
	return 5;
}

/*
 *   main: call f; nops; jne main; jmp main
 *   f:    nops; jmp 1f; 1: call g; nops; ret
 *   g:    nops; jmp 1f; 1: nops; ret
 */
static void build_image(struct image *im, unsigned int nops)
{
	uint8_t *c = im->code;
	size_t p = 0;

	memset(c, 0xcc, sizeof(im->code));
	im->main = BASE;
	im->f = BASE + 0x400;
	im->g = BASE + 0x800;

	p += put_call(c + p, BASE + p, im->f);
	im->main_ra = BASE + p;
	p += put_nops(c + p, nops);
	c[p] = 0x75;			/* jne main */
	c[p + 1] = (uint8_t)(int8_t)(0 - (int)(p + 2));
	p += 2;
	im->jmp = BASE + p;
	c[p] = 0xeb;			/* jmp main */
	c[p + 1] = (uint8_t)(int8_t)(0 - (int)(p + 2));

	p = 0x400;
	p += put_nops(c + p, nops);
	p += put_jmp(c + p);
	p += put_call(c + p, BASE + p, im->g);
	im->f_ra = BASE + p;
	p += put_nops(c + p, nops / 2);
	c[p] = 0xc3;

	p = 0x800;
	p += put_nops(c + p, nops / 2);
	p += put_jmp(c + p);
	p += put_nops(c + p, nops / 2);
	c[p] = 0xc3;
}

struct gen {
	struct pt_encoder *e;
	uint64_t packets;
	uint64_t iterations;
	uint64_t ctc;		/* crystal clock */
	uint64_t tsc0;
	int err;
};

static void put(struct gen *g, const struct pt_packet *p)
{
	int r = pt_enc_next(g->e, p);

	if (r < 0 && !g->err)
		g->err = r;
	g->packets++;
}

static void put_ip(struct gen *g, enum pt_packet_type type, enum pt_ip_compression ipc,
		   uint64_t ip)
{
	struct pt_packet p = { .type = type };

	p.payload.ip.ipc = ipc;
	p.payload.ip.ip = ip;
	put(g, &p);
}

static void put_tnt(struct gen *g, uint64_t bits, uint8_t n)
{
	struct pt_packet p = { .type = ppt_tnt_8 };

	p.payload.tnt.bit_size = n;
	p.payload.tnt.payload = bits;
	put(g, &p);
}

/* PSB+ with tracing on at @ip. */
static void psb_plus(struct gen *g, uint64_t ip)
{
	struct pt_packet p = { .type = ppt_psb };

	put(g, &p);
	p = (struct pt_packet){ .type = ppt_tsc };
	p.payload.tsc.tsc = g->tsc0 + g->ctc * TSC_PER_CTC;
	put(g, &p);
	p = (struct pt_packet){ .type = ppt_tma };
	p.payload.tma.ctc = (uint16_t)g->ctc;
	p.payload.tma.fc = 0;
	put(g, &p);
	put_ip(g, ppt_fup, pt_ipc_sext_48, ip);
	p = (struct pt_packet){ .type = ppt_mode };
	p.payload.mode.leaf = pt_mol_exec;
	p.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
	put(g, &p);
	p = (struct pt_packet){ .type = ppt_psbend };
	put(g, &p);
}

/*
 * Fill @buf: iterations of main's loop, each giving a TNT-8 (the previous
 * jne, g's compressed return) and a TIP (f's return), an MTC every 4
 * iterations, and a PSB+ every PSB_PERIOD bytes. Returns the length.
 */
static size_t generate(struct gen *g, uint8_t *buf, size_t size, const struct image *im)
{
	struct pt_config cfg;
	uint64_t off = 0, next_psb = 0;
	bool pending_jne = false;

	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + size;
	cfg.mtc_freq = MTC_FREQ;
	cfg.cpuid_0x15_eax = 1;
	cfg.cpuid_0x15_ebx = TSC_PER_CTC;
	g->e = pt_alloc_encoder(&cfg);
	if (!g->e) {
		g->err = -pte_nomem;
		return 0;
	}
	g->tsc0 = 1000000;
	while (!g->err && off + 128 < size) {
		if (off >= next_psb) {
			/* The hardware flushes TNT before PSB and starts afresh. */
			if (pending_jne)
				put_tnt(g, 1, 1);
			pending_jne = false;
			psb_plus(g, im->main);
			next_psb += PSB_PERIOD;
		}
		if (pending_jne)
			put_tnt(g, 3, 2);	/* jne taken, g returns */
		else
			put_tnt(g, 1, 1);
		put_ip(g, ppt_tip, pt_ipc_update_16, im->main_ra);	/* f returns */
		pending_jne = true;
		g->ctc += 2;
		if (!(g->ctc & ((1U << MTC_FREQ) - 1))) {
			struct pt_packet p = { .type = ppt_mtc };

			p.payload.mtc.ctc = (uint8_t)(g->ctc >> MTC_FREQ);
			put(g, &p);
		}
		g->iterations++;
		pt_enc_get_offset(g->e, &off);
	}
	/* Leave main's loop and stop: the jne not taken, then FUP + PGD. */
	if (pending_jne)
		put_tnt(g, 0, 1);
	put_ip(g, ppt_fup, pt_ipc_sext_48, im->jmp);
	put_ip(g, ppt_tip_pgd, pt_ipc_suppressed, 0);
	pt_enc_get_offset(g->e, &off);
	pt_free_encoder(g->e);
	return off;
}

struct counter {
	uint64_t calls, unknown;
	uint64_t last_end;
	uint64_t backwards;
};

static int count(void *arg, const struct nsight_pt_call *c)
{
	struct counter *k = arg;

	k->calls++;
	if (c->flags)
		k->unknown++;
	if (c->end < c->start)
		k->backwards++;
	return 0;
}

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

static void usage(void)
{
	fprintf(stderr, "usage: pt_bench [--size MB] [--nops N]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct nsight_pt_config cfg = {
		.tsc_ratio_num = TSC_PER_CTC, .tsc_ratio_den = 1, .mtc_freq = MTC_FREQ,
	};
	struct nsight_pt_image *img;
	struct nsight_pt_stats st;
	struct nsight_diag d = { 0 };
	struct counter k = { 0 };
	struct gen g = { 0 };
	struct image im;
	unsigned long size_mb = 128, nops = 8;
	size_t size, len;
	double t0, t1, c0, c1, mb;
	uint8_t *buf;
	int i, ret;

	for (i = 1; i < argc; i++) {
		char *end;

		if (!strcmp(argv[i], "--size") && i + 1 < argc) {
			size_mb = strtoul(argv[++i], &end, 10);
			if (*end || !size_mb || size_mb > 65536)
				usage();
		} else if (!strcmp(argv[i], "--nops") && i + 1 < argc) {
			nops = strtoul(argv[++i], &end, 10);
			if (*end || nops > 200)
				usage();
		} else {
			usage();
		}
	}

	build_image(&im, (unsigned int)nops);
	size = (size_t)size_mb << 20;
	buf = malloc(size);
	img = nsight_pt_image_new();
	if (!buf || !img) {
		fprintf(stderr, "pt_bench: out of memory\n");
		return 1;
	}
	if (nsight_pt_image_add(img, BASE, im.code, sizeof(im.code), "bench", &d)) {
		fprintf(stderr, "pt_bench: %s\n", d.msg);
		return 1;
	}

	t0 = now();
	len = generate(&g, buf, size, &im);
	t1 = now();
	if (g.err) {
		fprintf(stderr, "pt_bench: encoder: %s\n", pt_errstr(pt_errcode(g.err)));
		return 1;
	}
	mb = (double)len / 1e6;
	printf("synthesized %.1f MB: %" PRIu64 " packets, %" PRIu64 " loop iterations in %.2f s\n",
	       mb, g.packets, g.iterations, t1 - t0);

	t0 = now();
	c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	ret = nsight_pt_decode(buf, len, &cfg, img, NULL, 0, count, &k, &st, &d);
	c1 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	t1 = now();
	if (ret) {
		fprintf(stderr, "pt_bench: %s\n", d.msg);
		return 1;
	}
	printf("decoded %.1f MB in %.3f s: %.1f MB/s, %.2f M packets/s, %.2f M calls/s, "
	       "%.1f M insns/s\n", mb, t1 - t0, mb / (t1 - t0),
	       (double)g.packets / (t1 - t0) / 1e6, (double)k.calls / (t1 - t0) / 1e6,
	       (double)st.insns / (t1 - t0) / 1e6);
	printf("CPU time %.3f s: %.1f MB/s, %.2f M packets/s, %.1f M insns/s per CPU second\n",
	       c1 - c0, mb / (c1 - c0), (double)g.packets / (c1 - c0) / 1e6,
	       (double)st.insns / (c1 - c0) / 1e6);
	printf("calls %" PRIu64 " (expected %" PRIu64 "), blocks %" PRIu64 ", insns %" PRIu64
	       ", errors %" PRIu64 "%s%s\n", k.calls, 2 * g.iterations, st.blocks, st.insns,
	       st.errors, st.errors ? ": " : "", st.first_error);
	nsight_pt_image_free(img);
	free(buf);
	if (st.errors || k.calls != 2 * g.iterations || k.unknown || k.backwards) {
		fprintf(stderr, "pt_bench: the decoded calls are not the synthesized ones\n");
		return 1;
	}
	return 0;
}
