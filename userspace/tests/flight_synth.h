/* SPDX-License-Identifier: MIT */
/*
 * Flight recorder streams for the tests and the fuzz seeds: a synthetic
 * capture cut into sub-buffers and fed to ctl/flight.c as a reader meets
 * them, then framed with STATUS and END like nsightctl record's.
 */
#ifndef NSIGHT_TEST_FLIGHT_SYNTH_H
#define NSIGHT_TEST_FLIGHT_SYNTH_H

#include "ctl/flight.h"
#include "scenario.h"

#define PER_SUB		16	/* records per synthetic sub-buffer */
#define SLOW_EVERY	100
#define N_MSGS		400

/*
 * @s's records of @cpu again, a SUBBUF header before every PER_SUB records;
 * with @rx_stages, each received packet's record as a pkt_stage (a veth
 * packet received on the CPU that sent it).
 */
static inline uint8_t *resplit(const struct synth *s, uint32_t cpu, size_t *len, uint64_t *records,
			       bool rx_stages)
{
	size_t cap = s->len[cpu] * 2 + 4096, at = 0, pos = 0, n = 0;
	uint8_t *out = malloc(cap);
	uint64_t seq = 0;

	if (!out)
		abort();
	*records = 0;
	while (pos < s->len[cpu]) {
		struct nsight_rec_hdr h;

		memcpy(&h, s->buf[cpu] + pos, sizeof(h));
		if (h.type == NSIGHT_REC_SUBBUF) {
			pos += h.size;
			continue;
		}
		if (n % PER_SUB == 0) {
			struct nsight_rec_subbuf sb = { 0 };

			rec_hdr(&sb, NSIGHT_REC_SUBBUF, sizeof(sb), cpu, h.tsc);
			sb.seq = seq++;
			memcpy(out + at, &sb, sizeof(sb));
			at += sizeof(sb);
		}
		if (rx_stages && h.type == NSIGHT_REC_PKT) {
			struct nsight_rec_pkt p;

			memcpy(&p, s->buf[cpu] + pos, sizeof(p));
			if (p.stage <= NSIGHT_PKT_RX_RECEIVE) {
				struct nsight_rec_pkt_stage st;

				rec_hdr(&st, NSIGHT_REC_PKT_STAGE, sizeof(st), cpu, h.tsc);
				st.pkt_id = p.pkt_id;
				st.ifindex = p.ifindex;
				st.stage = p.stage;
				st.gso_segs = 1;
				memcpy(out + at, &st, sizeof(st));
				at += sizeof(st);
				pos += h.size;
				n++;
				(*records)++;
				continue;
			}
		}
		memcpy(out + at, s->buf[cpu] + pos, h.size);
		at += h.size;
		pos += h.size;
		n++;
		(*records)++;
	}
	*len = at;
	return out;
}

/* What the flight recorder counted over a stream. */
struct fr_counts {
	uint64_t triggers;	/* messages past the threshold */
	size_t windows;
};

struct fr_case {
	uint32_t sources;	/* of the stream header; 0: 7 */
	uint64_t tk_every;	/* a timekeeper record on CPU X this often (ns); 0: one */
	bool rx_stages;		/* received packets as pkt_stage records */
	uint8_t *buf[2];
	size_t len[2];
	uint64_t records[2];
};

/* N_MSGS requests, each SLOW_EVERY-th (from 50) slowed by "stress". */
static inline void make_case(struct fr_case *fc)
{
	struct scen sc;
	uint32_t i;

	uint64_t t;

	scen_init(&sc, "server");
	scen_run(&sc, N_MSGS, SC_HOG, SLOW_EVERY, 50);
	for (t = SC_BASE; fc->tk_every && t < sc.t; t += fc->tk_every)
		synth_tk(&sc.s, SC_X, t);
	synth_flush(&sc.s);
	for (i = 0; i < 2; i++) {
		uint8_t *v1 = resplit(&sc.s, i, &fc->len[i], &fc->records[i], fc->rx_stages);

		/* As the module's relay buffers hold them, with their thread and sock records. */
		if (nsight_crecords_encode(v1, fc->len[i], &fc->buf[i], &fc->len[i]))
			abort();
		for (size_t pos = 0; pos < fc->len[i];) {
			uint64_t h;

			memcpy(&h, fc->buf[i] + pos, sizeof(h));
			fc->records[i] += NSIGHT_CREC_TYPE(h) == NSIGHT_REC_THREAD ||
					  NSIGHT_CREC_TYPE(h) == NSIGHT_CREC_SOCK4;
			pos += NSIGHT_CREC_SIZE(h);
		}
		free(v1);
	}
	synth_free(&sc.s);
}

static inline void free_case(struct fr_case *fc)
{
	free(fc->buf[0]);
	free(fc->buf[1]);
}

/* Length of the first @k sub-buffers of compact @buf (all of it past the end). */
static inline size_t subbufs_len(const uint8_t *buf, size_t len, size_t k)
{
	size_t pos = 0, seen = 0;

	while (pos < len) {
		uint64_t h;

		memcpy(&h, buf + pos, sizeof(h));
		if (NSIGHT_CREC_TYPE(h) == NSIGHT_REC_SUBBUF && seen++ == k)
			return pos;
		pos += NSIGHT_CREC_SIZE(h);
	}
	return len;
}

/*
 * The flight stream of @fc in @m: CPU @first_cpu's buffer is fed a few
 * sub-buffers ahead of the other's, as a reader meets them.
 */
static inline void flight_stream(const struct fr_case *fc, const struct nsight_flight_opts *o,
				 uint32_t first_cpu, struct membuf *m, struct fr_counts *out)
{
	struct nsight_stream_hdr h = { .tsc_hz = SYN_HZ, .nr_cpus = 2,
				       .sources = fc->sources ? fc->sources : 7 };
	struct nsight_cpu_status st[2];
	struct nsight_stream_writer w;
	struct nsight_diag d = { 0 };
	struct nsight_flight f;
	size_t done[2] = { 0, 0 }, k;
	uint32_t i;

	snprintf(h.release, sizeof(h.release), "6.12.0-synth");
	membuf_open(m, &w);
	CHECK(nsight_stream_write_header(&w, &h) == 0);
	REQUIRE(nsight_flight_init(&f, o, 2, SYN_HZ, &w, &d) == 0);
	for (k = 1; done[0] < fc->len[0] || done[1] < fc->len[1]; k++) {
		for (i = 0; i < 2; i++) {
			uint32_t cpu = i ? 1 - first_cpu : first_cpu;
			size_t upto = subbufs_len(fc->buf[cpu], fc->len[cpu],
						  cpu == first_cpu ? k + 3 : k);

			if (upto > done[cpu]) {
				CHECK(nsight_flight_records(&f, cpu, fc->buf[cpu] + done[cpu],
							    upto - done[cpu], &d) == 0);
				done[cpu] = upto;
			}
		}
	}
	CHECK(nsight_flight_finish(&f, &d) == 0);
	for (i = 0; i < 2; i++)
		st[i] = (struct nsight_cpu_status){ .cpu = i, .online = 1,
						    .hook_hits = fc->records[i],
						    .records_written = fc->records[i] };
	CHECK(nsight_stream_write_status(&w, st, 2) == 0);
	CHECK(nsight_stream_write_end(&w) == 0);
	membuf_close(m);
	*out = (struct fr_counts){ .triggers = f.triggers, .windows = f.n_wins };
	nsight_flight_fini(&f);
}

#endif /* NSIGHT_TEST_FLIGHT_SYNTH_H */
