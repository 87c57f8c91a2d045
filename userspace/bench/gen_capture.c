// SPDX-License-Identifier: MIT
/*
 * gen_capture RECORDS FILE: write a synthetic capture of about RECORDS
 * records to FILE (make bench-analyze), streaming: memory does not grow
 * with the size. Two CPUs: UDP requests arrive on CPU 0 every 20 us (irq,
 * NET_RX softirq, GRO, receive, hand-off: 7 records) and a server on
 * CPU 1 wakes, receives and sleeps (idle, switches, copy, recv: 6
 * records); every 10th request a CPU hog runs first (1 more record).
 * RECORDS chunks of about 1 MiB, each starting a sub-buffer, then STATUS
 * with the matching counters, and END.
 */
#include "synth.h"
#include "synth_ctx.h"

#define CHUNK	(1U << 20)
#define GAP	20000ULL

static struct nsight_stream_writer w;
static uint64_t n_recs[2];

static void flush(struct synth *s, uint32_t cpu)
{
	struct nsight_rec_walker wk;
	struct nsight_diag d = { 0 };
	struct nsight_rec rec;

	nsight_rec_walker_init(&wk, s->buf[cpu], s->len[cpu], cpu, 0);
	while (nsight_rec_walker_next(&wk, &rec, &d) > 0)
		n_recs[cpu] += rec.hdr.type != NSIGHT_REC_SUBBUF;
	if (nsight_stream_write_records(&w, cpu, s->buf[cpu], s->len[cpu])) {
		fprintf(stderr, "gen_capture: %s\n", w.diag.msg);
		exit(1);
	}
	s->len[cpu] = 0;
}

int main(int argc, char **argv)
{
	static const struct syn_task server = { 101, 100, "server" };
	static const struct syn_task stress = { 500, 500, "stress" };
	static const struct syn_task swapper1 = { 0, 0, "swapper/1" };
	struct nsight_stream_hdr h = { .tsc_hz = SYN_HZ, .nr_cpus = 2, .sources = 0x1fff };
	struct nsight_flow sock = flow4(NULL, 9000, NULL, 0, IPPROTO_UDP);
	struct nsight_flow flow = flow4("10.0.0.1", 5000, "10.0.0.2", 9000, IPPROTO_UDP);
	struct nsight_cpu_status st[2];
	uint64_t want, k, t, entry = 90, total = 0;
	struct synth s;
	uint32_t c;
	FILE *f;

	if (argc != 3 || !(want = strtoull(argv[1], NULL, 0))) {
		fprintf(stderr, "usage: gen_capture RECORDS FILE\n");
		return 2;
	}
	f = fopen(argv[2], "wb");
	if (!f) {
		perror(argv[2]);
		return 1;
	}
	snprintf(h.release, sizeof(h.release), "6.12.0-bench");
	nsight_stream_writer_init_file(&w, f);
	nsight_stream_write_header(&w, &h);
	synth_init(&s, 2);		/* a SUBBUF on each CPU */
	synth_tk(&s, 0, SYN_TK_TSC);
	synth_switch(&s, 1, 100, server, swapper1);
	synth_idle(&s, 1, 150, true);
	for (k = 0, t = 100000; total < want; k++, t += GAP) {
		uint64_t id = 0x1000 + k, a = t + 2700 + (k * 7919) % 2000, wake = t + 1600;

		synth_irq(&s, 0, t - 1500, 30, "eth0", true);
		synth_irq(&s, 0, t - 1200, 30, NULL, false);
		synth_softirq(&s, 0, t - 1000, SYN_NET_RX, true);
		synth_pkt(&s, 0, t, NSIGHT_PKT_RX_GRO, id, flow, 0, 64, 0);
		synth_pkt(&s, 0, t + 200, NSIGHT_PKT_RX_RECEIVE, id, flow, 0, 64, 0);
		synth_handoff(&s, 0, t + 700, 0x51, sock, id, 0);
		synth_softirq(&s, 0, t + 1000, SYN_NET_RX, false);
		total += 7;
		synth_idle(&s, 1, wake - 100, false);
		if (k % 10 == 9) {
			synth_switch(&s, 1, wake, swapper1, stress);
			synth_switch(&s, 1, wake + 8000, stress, server);
			a += 8000;
			total++;
		} else {
			synth_switch(&s, 1, wake, swapper1, server);
		}
		synth_copy(&s, 1, a - 500, id, server.tid, server.pid, 64);
		synth_recv(&s, 1, entry, a, 0x51, sock, 64, server.tid, server.pid, server.comm);
		entry = a + 3000;
		synth_switch(&s, 1, entry + 100, server, swapper1);
		synth_idle(&s, 1, entry + 200, true);
		total += 6;
		for (c = 0; c < 2; c++) {
			if (s.len[c] < CHUNK)
				continue;
			flush(&s, c);
			synth_subbuf(&s, c, t + GAP / 2, 0);
		}
	}
	for (c = 0; c < 2; c++)
		flush(&s, c);
	memset(st, 0, sizeof(st));
	for (c = 0; c < 2; c++) {
		st[c].cpu = c;
		st[c].online = 1;
		st[c].hook_hits = st[c].records_written = n_recs[c];
	}
	if (nsight_stream_write_status(&w, st, 2) || nsight_stream_write_end(&w) || fclose(f)) {
		fprintf(stderr, "gen_capture: writing %s failed\n", argv[2]);
		return 1;
	}
	printf("%s: %" PRIu64 " records, %" PRIu64 " messages, %" PRIu64 " bytes\n", argv[2],
	       n_recs[0] + n_recs[1], k, w.offset);
	synth_free(&s);
	return 0;
}
