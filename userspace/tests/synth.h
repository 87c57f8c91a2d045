/* SPDX-License-Identifier: MIT */
/*
 * Synthetic captures for the lifetime and time tests: per-CPU record
 * buffers (each starting with a SUBBUF header), record builders, and the
 * stream written with the library's writer and analysed in memory or
 * saved to a file.
 *
 * The default clock: a TSC of 1 GHz counted by a TSC clocksource with
 * mult 2^24 and shift 24, so one tick is one nanosecond,
 *   mono(t) = SYN_MONO0 + (t - SYN_TK_TSC), real(t) = mono(t) + SYN_OFFS.
 */
#ifndef NSIGHT_TEST_SYNTH_H
#define NSIGHT_TEST_SYNTH_H

#include <zlib.h>
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <sys/socket.h>

#include "pipeline/analysis.h"
#include "test.h"

#define SYN_MAX_CPUS	4
#define SYN_HZ		1000000000ULL
#define SYN_TK_TSC	1000ULL
#define SYN_MONO0	5000000000LL
#define SYN_OFFS	1700000000000000000LL

/* A record held back by a queued synth (see synth_queue()). */
struct synth_qrec {
	uint32_t cpu;
	uint32_t size;
	uint64_t tsc;
	uint64_t order;
	uint8_t data[176];
};

struct synth {
	uint8_t *buf[SYN_MAX_CPUS];
	size_t len[SYN_MAX_CPUS], cap[SYN_MAX_CPUS];
	uint64_t subbuf_seq[SYN_MAX_CPUS];
	uint32_t nr_cpus;
	uint64_t tsc_hz;
	struct nsight_phc_sample phc[4];	/* written as a PHC chunk if any */
	size_t n_phc;
	const char *ksyms;			/* kallsyms text for a KSYMS chunk */
	const uint8_t *pt[SYN_MAX_CPUS];	/* PT trace bytes, a PT chunk each */
	size_t pt_len[SYN_MAX_CPUS];
	const uint8_t *ktext;			/* code for a KTEXT chunk */
	size_t ktext_len;
	uint64_t ktext_addr;
	/* More chunks written as they are, after the KTEXT chunk (UTEXT...). */
	uint32_t more_type[4];
	const void *more[4];
	size_t more_len[4], n_more;
	size_t chunk_max;			/* RECORDS chunks up to this size (0: one per CPU) */
	bool compact;				/* CRECORDS chunks, as nsightctl writes */
	bool queued;				/* synth_put() queues records */
	struct synth_qrec *q;
	size_t qn, qcap;
};

static inline void synth_put(struct synth *s, uint32_t cpu, const void *rec, size_t size)
{
	if (cpu >= SYN_MAX_CPUS)
		abort();
	if (s->queued) {
		struct synth_qrec *r;

		if (size > sizeof(r->data))
			abort();
		if (s->qn == s->qcap) {
			s->qcap = s->qcap ? s->qcap * 2 : 1024;
			s->q = realloc(s->q, s->qcap * sizeof(*s->q));
			if (!s->q)
				abort();
		}
		r = &s->q[s->qn];
		r->cpu = cpu;
		r->size = (uint32_t)size;
		r->order = s->qn++;
		memcpy(r->data, rec, size);
		memcpy(&r->tsc, (const uint8_t *)rec + offsetof(struct nsight_rec_hdr, tsc),
		       sizeof(r->tsc));
		return;
	}
	while (s->len[cpu] + size > s->cap[cpu]) {
		s->cap[cpu] = s->cap[cpu] ? s->cap[cpu] * 2 : 4096;
		s->buf[cpu] = realloc(s->buf[cpu], s->cap[cpu]);
		if (!s->buf[cpu])
			abort();
	}
	memcpy(s->buf[cpu] + s->len[cpu], rec, size);
	s->len[cpu] += size;
}

/* A SUBBUF header on @cpu: the next sequence number, @dropped before it. */
static inline void synth_subbuf(struct synth *s, uint32_t cpu, uint64_t tsc, uint64_t dropped)
{
	struct nsight_rec_subbuf sb;

	rec_hdr(&sb, NSIGHT_REC_SUBBUF, sizeof(sb), cpu, tsc);
	sb.seq = s->subbuf_seq[cpu]++;
	sb.dropped = dropped;
	synth_put(s, cpu, &sb, sizeof(sb));
}

static inline void synth_init(struct synth *s, uint32_t nr_cpus)
{
	uint32_t i;

	memset(s, 0, sizeof(*s));
	s->nr_cpus = nr_cpus;
	s->tsc_hz = SYN_HZ;
	for (i = 0; i < nr_cpus; i++)
		synth_subbuf(s, i, 1, 0);
}

static inline void synth_free(struct synth *s)
{
	uint32_t i;

	for (i = 0; i < SYN_MAX_CPUS; i++)
		free(s->buf[i]);
	free(s->q);
}

/*
 * From now on records are queued, so a test can write them in any order;
 * synth_flush() puts them in each CPU's buffer by TSC (then in the order
 * they were written).
 */
static inline void synth_queue(struct synth *s)
{
	s->queued = true;
}

static inline int synth_qcmp(const void *a, const void *b)
{
	const struct synth_qrec *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static inline void synth_flush(struct synth *s)
{
	size_t i;

	s->queued = false;
	if (s->qn > 1)
		qsort(s->q, s->qn, sizeof(*s->q), synth_qcmp);
	for (i = 0; i < s->qn; i++)
		synth_put(s, s->q[i].cpu, s->q[i].data, s->q[i].size);
	s->qn = 0;
}

/* The default timekeeper record (see above) at @tsc on @cpu. */
static inline void synth_tk(struct synth *s, uint32_t cpu, uint64_t tsc)
{
	struct nsight_rec_timekeeper tk;

	rec_hdr(&tk, NSIGHT_REC_TIMEKEEPER, sizeof(tk), cpu, tsc);
	tk.mask = UINT64_MAX;
	tk.mult = 1U << 24;
	tk.shift = 24;
	tk.xtime_nsec = (tsc - SYN_TK_TSC) << 24;	/* as if accumulated */
	tk.cycle_last = tsc;
	tk.base_mono = SYN_MONO0;
	tk.offs_real = SYN_OFFS;
	tk.flags = NSIGHT_TK_CS_TSC | NSIGHT_TK_CS_NOW;
	tk.cs_now = tsc;
	tk.tsc_cs = tsc;
	snprintf(tk.clocksource, sizeof(tk.clocksource), "tsc");
	synth_put(s, cpu, &tk, sizeof(tk));
}

/* A clock_sync consistent with the default clock, bracket [@tsc, @tsc + 20]. */
static inline void synth_sync(struct synth *s, uint32_t cpu, uint64_t tsc)
{
	struct nsight_rec_clock_sync cs;

	rec_hdr(&cs, NSIGHT_REC_CLOCK_SYNC, sizeof(cs), cpu, tsc + 20);
	cs.tsc_before = tsc;
	cs.tsc_after = tsc + 20;
	cs.cs_cycles = tsc + 10;
	cs.mono_ns = SYN_MONO0 + (int64_t)(tsc + 10 - SYN_TK_TSC);
	cs.real_ns = cs.mono_ns + SYN_OFFS;
	cs.tsc_hz = SYN_HZ;
	synth_put(s, cpu, &cs, sizeof(cs));
}

static inline int64_t syn_mono(uint64_t tsc)
{
	return SYN_MONO0 + (int64_t)tsc - (int64_t)SYN_TK_TSC;
}

/* An IPv4 flow (addresses IPv4-mapped) "a.b.c.d" strings. */
static inline struct nsight_flow flow4(const char *saddr, uint16_t sport, const char *daddr,
				       uint16_t dport, uint8_t proto)
{
	struct nsight_flow f;

	memset(&f, 0, sizeof(f));
	f.saddr[10] = f.saddr[11] = 0xff;
	f.daddr[10] = f.daddr[11] = 0xff;
	if (saddr)
		inet_pton(AF_INET, saddr, f.saddr + 12);
	if (daddr)
		inet_pton(AF_INET, daddr, f.daddr + 12);
	f.sport = sport;
	f.dport = dport;
	f.family = AF_INET;
	f.protocol = proto;
	return f;
}

/*
 * A packet record; a non-zero @wire_hash sets NSIGHT_PKT_F_WIRE_HASH, a
 * non-zero @hw_tstamp (the NIC's clock) NSIGHT_PKT_F_HWTSTAMP.
 */
static inline void synth_pkt_hw(struct synth *s, uint32_t cpu, uint64_t tsc, uint8_t stage,
				uint64_t pkt_id, struct nsight_flow flow, uint32_t seq,
				uint32_t len, uint8_t flags, uint32_t wire_hash, int64_t hw_tstamp)
{
	struct nsight_rec_pkt p;

	rec_hdr(&p, NSIGHT_REC_PKT, sizeof(p), cpu, tsc);
	p.pkt_id = pkt_id;
	p.flow = flow;
	p.seq = seq;
	p.payload_len = len;
	p.ifindex = 2;
	p.stage = stage;
	p.flags = flags;
	p.gso_segs = (flags & NSIGHT_PKT_F_GSO) ? 2 : 1;
	if (wire_hash) {
		p.wire_hash = wire_hash;
		p.flags |= NSIGHT_PKT_F_WIRE_HASH;
	}
	if (hw_tstamp) {
		p.hw_tstamp = hw_tstamp;
		p.flags |= NSIGHT_PKT_F_HWTSTAMP;
	}
	synth_put(s, cpu, &p, sizeof(p));
}

static inline void synth_pkt_wire(struct synth *s, uint32_t cpu, uint64_t tsc, uint8_t stage,
				  uint64_t pkt_id, struct nsight_flow flow, uint32_t seq,
				  uint32_t len, uint8_t flags, uint32_t wire_hash)
{
	synth_pkt_hw(s, cpu, tsc, stage, pkt_id, flow, seq, len, flags, wire_hash, 0);
}

static inline void synth_pkt(struct synth *s, uint32_t cpu, uint64_t tsc, uint8_t stage,
			     uint64_t pkt_id, struct nsight_flow flow, uint32_t seq, uint32_t len,
			     uint8_t flags)
{
	synth_pkt_wire(s, cpu, tsc, stage, pkt_id, flow, seq, len, flags, 0);
}

/* A pkt_stage record: a later @stage of the CPU's pkt record of @pkt_id. */
static inline void synth_pkt_stage(struct synth *s, uint32_t cpu, uint64_t tsc, uint8_t stage,
				   uint64_t pkt_id, uint32_t ifindex)
{
	struct nsight_rec_pkt_stage p;

	rec_hdr(&p, NSIGHT_REC_PKT_STAGE, sizeof(p), cpu, tsc);
	p.pkt_id = pkt_id;
	p.ifindex = ifindex;
	p.queue = 0;
	p.stage = stage;
	p.flags = 0;
	p.gso_segs = 1;
	synth_put(s, cpu, &p, sizeof(p));
}

static inline void synth_handoff(struct synth *s, uint32_t cpu, uint64_t tsc, uint64_t sock_id,
				 struct nsight_flow sock, uint64_t pkt_id, uint32_t rcv_nxt)
{
	struct nsight_rec_handoff h;

	rec_hdr(&h, NSIGHT_REC_HANDOFF, sizeof(h), cpu, tsc);
	h.sock_id = sock_id;
	h.flow = sock;
	h.pkt_id = pkt_id;
	h.rcvq_len = 1;
	h.tcp_rcv_nxt = rcv_nxt;
	synth_put(s, cpu, &h, sizeof(h));
}

static inline void synth_sock_drop(struct synth *s, uint32_t cpu, uint64_t tsc, uint64_t sock_id,
				   struct nsight_flow sock, uint64_t pkt_id, int32_t rc,
				   uint32_t used, uint32_t rcvbuf)
{
	struct nsight_rec_sock_drop r;

	rec_hdr(&r, NSIGHT_REC_SOCK_DROP, sizeof(r), cpu, tsc);
	r.sock_id = sock_id;
	r.pkt_id = pkt_id;
	r.flow = sock;
	r.rcvq_bytes = used;
	r.rcvbuf = rcvbuf;
	r.rc = rc;
	synth_put(s, cpu, &r, sizeof(r));
}

static inline void synth_copy(struct synth *s, uint32_t cpu, uint64_t tsc, uint64_t pkt_id,
			      uint32_t tid, uint32_t pid, uint32_t len)
{
	struct nsight_rec_app_copy c;

	rec_hdr(&c, NSIGHT_REC_APP_COPY, sizeof(c), cpu, tsc);
	c.pkt_id = pkt_id;
	c.len = len;
	c.tid = tid;
	c.pid = pid;
	synth_put(s, cpu, &c, sizeof(c));
}

/* app_recv or app_send (@type) on socket @sock_id with flow @sock. */
static inline void synth_app(struct synth *s, uint16_t type, uint32_t cpu, uint64_t tsc,
			     uint64_t sock_id, struct nsight_flow sock, int64_t ret, uint32_t tcp_seq,
			     uint32_t tid, uint32_t pid, const char *comm)
{
	struct nsight_rec_app a;

	rec_hdr(&a, type, sizeof(a), cpu, tsc);
	a.sock_id = sock_id;
	a.flow = sock;
	a.start_tsc = tsc;
	a.ret = ret;
	a.tcp_seq = tcp_seq;
	a.tid = tid;
	a.pid = pid;
	snprintf(a.comm, sizeof(a.comm), "%s", comm);
	synth_put(s, cpu, &a, sizeof(a));
}

/* An app_send on a TCP socket with the sender's state after it. */
static inline void synth_send_tcp(struct synth *s, uint32_t cpu, uint64_t tsc, uint64_t sock_id,
				  struct nsight_flow sock, int64_t len, uint32_t write_seq,
				  uint32_t tid, uint32_t pid, const char *comm,
				  const struct nsight_tcp_send_state *ts)
{
	struct {
		struct nsight_rec_app a;
		struct nsight_tcp_send_state ts;
	} r;

	memset(&r, 0, sizeof(r));
	rec_hdr(&r, NSIGHT_REC_APP_SEND, sizeof(r), cpu, tsc);
	r.a.sock_id = sock_id;
	r.a.flow = sock;
	r.a.start_tsc = tsc;
	r.a.ret = len;
	r.a.tcp_seq = write_seq;
	r.a.tid = tid;
	r.a.pid = pid;
	snprintf(r.a.comm, sizeof(r.a.comm), "%s", comm);
	r.ts = *ts;
	synth_put(s, cpu, &r, sizeof(r));
}

/* app_recv_start: thread @tid entered a receive. */
static inline void synth_recv_start(struct synth *s, uint32_t cpu, uint64_t tsc, uint32_t tid)
{
	struct nsight_rec_app_start r;

	rec_hdr(&r, NSIGHT_REC_APP_RECV_START, sizeof(r), cpu, tsc);
	r.tid = tid;
	r.flags = 0;
	synth_put(s, cpu, &r, sizeof(r));
}

/* An app_recv whose start is in an app_recv_start record (start_tsc 0). */
static inline void synth_recv_end(struct synth *s, uint32_t cpu, uint64_t tsc, uint64_t sock_id,
				  struct nsight_flow sock, int64_t ret, uint32_t tid, uint32_t pid,
				  const char *comm)
{
	struct nsight_rec_app a;

	rec_hdr(&a, NSIGHT_REC_APP_RECV, sizeof(a), cpu, tsc);
	a.sock_id = sock_id;
	a.flow = sock;
	a.start_tsc = 0;
	a.ret = ret;
	a.tcp_seq = 0;
	a.tid = tid;
	a.pid = pid;
	a.flags = 0;
	snprintf(a.comm, sizeof(a.comm), "%s", comm);
	synth_put(s, cpu, &a, sizeof(a));
}

/* The stream of @s in @m (free(m->data) later). */
static inline void synth_stream(const struct synth *s, struct membuf *m)
{
	struct nsight_stream_hdr h = { .tsc_hz = s->tsc_hz, .nr_cpus = s->nr_cpus, .sources = 7 };
	struct nsight_stream_writer w;
	uint32_t i;

	snprintf(h.release, sizeof(h.release), "6.12.0-synth");
	membuf_open(m, &w);
	nsight_stream_write_header(&w, &h);
	for (i = 0; i < s->nr_cpus; i++) {
		size_t off = 0, n, len = s->len[i];
		uint8_t *buf = s->buf[i], *c = NULL;

		if (s->compact) {
			if (len && nsight_crecords_encode(s->buf[i], s->len[i], &c, &len))
				abort();
			buf = c;
		}
		if (!s->chunk_max) {
			if (s->compact)
				nsight_stream_write_crecords(&w, i, buf, len);
			else
				nsight_stream_write_records(&w, i, buf, len);
			free(c);
			continue;
		}
		for (; off < len; off += n) {
			n = len - off < s->chunk_max ? len - off : s->chunk_max;
			if (s->compact) {
				n = nsight_crecords_whole_prefix(buf + off, n);
				if (!n)
					abort();
				nsight_stream_write_crecords(&w, i, buf + off, n);
				continue;
			}
			n = nsight_records_whole_prefix(buf + off, n);
			if (!n)
				abort();
			nsight_stream_write_records(&w, i, buf + off, n);
		}
		free(c);
	}
	if (s->n_phc)
		nsight_stream_write_phc(&w, s->phc, s->n_phc);
	if (s->ksyms) {
		size_t len = strlen(s->ksyms);
		uLongf packed = compressBound((uLong)len);
		uint8_t *p = malloc(sizeof(struct nsight_ksyms_hdr) + packed);
		struct nsight_ksyms_hdr kh = { .raw_size = len };

		if (!p || compress2(p + sizeof(kh), &packed, (const Bytef *)s->ksyms, (uLong)len,
				    Z_DEFAULT_COMPRESSION) != Z_OK)
			abort();
		memcpy(p, &kh, sizeof(kh));
		nsight_stream_write_chunk(&w, NSIGHT_CHUNK_KSYMS, NSIGHT_CHUNK_NO_CPU, p,
					  sizeof(kh) + packed);
		free(p);
	}
	for (i = 0; i < s->nr_cpus; i++)
		if (s->pt_len[i])
			nsight_stream_write_chunk(&w, NSIGHT_CHUNK_PT, i, s->pt[i], s->pt_len[i]);
	if (s->ktext_len) {
		struct nsight_ktext_hdr th = { .addr = s->ktext_addr, .len = s->ktext_len };
		uint8_t *p = malloc(sizeof(th) + s->ktext_len);

		if (!p)
			abort();
		snprintf(th.name, sizeof(th.name), "kernel");
		memcpy(p, &th, sizeof(th));
		memcpy(p + sizeof(th), s->ktext, s->ktext_len);
		nsight_stream_write_chunk(&w, NSIGHT_CHUNK_KTEXT, NSIGHT_CHUNK_NO_CPU, p,
					  sizeof(th) + s->ktext_len);
		free(p);
	}
	for (i = 0; i < s->n_more; i++)
		nsight_stream_write_chunk(&w, s->more_type[i], NSIGHT_CHUNK_NO_CPU, s->more[i],
					  s->more_len[i]);
	nsight_stream_write_end(&w);
	membuf_close(m);
}

static inline int synth_analyze_opts(const struct synth *s, struct nsight_analysis *a,
				     enum nsight_tc_params params, struct nsight_diag *d)
{
	struct nsight_analysis_opts o = { .params = params, .lifetimes = true };
	struct membuf m;
	FILE *f;
	int ret;

	synth_stream(s, &m);
	f = mem_reader(m.data, m.len);
	if (!f)
		abort();
	ret = nsight_analysis_run(a, f, &o, d);
	fclose(f);
	free(m.data);
	if (ret)
		printf("# analysis: %s\n", d->msg);
	return ret;
}

/* Analyse the capture saved at @path. */
static inline int synth_analyze_file(struct nsight_analysis *a, const char *path)
{
	struct nsight_analysis_opts o = { .params = NSIGHT_TC_IN_FORCE, .lifetimes = true };
	struct nsight_diag d = { 0 };
	FILE *f = fopen(path, "rb");
	int ret;

	if (!f)
		return -1;
	ret = nsight_analysis_run(a, f, &o, &d);
	fclose(f);
	if (ret)
		printf("# %s: %s\n", path, d.msg);
	return ret;
}

static inline int synth_analyze(const struct synth *s, struct nsight_analysis *a)
{
	struct nsight_diag d = { 0 };

	return synth_analyze_opts(s, a, NSIGHT_TC_IN_FORCE, &d);
}

static inline int synth_save(const struct synth *s, const char *path)
{
	struct membuf m;
	FILE *f;
	int ok;

	synth_stream(s, &m);
	f = fopen(path, "wb");
	ok = f && fwrite(m.data, 1, m.len, f) == m.len;
	if (f && fclose(f))
		ok = 0;
	free(m.data);
	return ok ? 0 : -1;
}

#endif /* NSIGHT_TEST_SYNTH_H */
