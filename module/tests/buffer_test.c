// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: record layout, sub-buffer headers, buffer geometry, and the relay
 * write path's loss accounting on a channel of the test's own (in its own
 * debugfs directory, beside the module's).
 */
#include "test_buffer.h"

static void nsight_test_record_layout(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_rec_hdr), 16);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_rec_subbuf), 32);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_rec_sched_switch), 80);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_flow), 40);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_rec_handoff), 88);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_rec_sock_drop), 88);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_rec_pkt), 104);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_rec_app_copy), 40);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_rec_app), 112);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_tcp_send_state), 40);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_rec_timekeeper), 168);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_rec_clock_sync), 72);
	/* Compact records (their 8-byte header word included). */
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_crec_subbuf), 32);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_cflow4), 16);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_crec_pkt4), 56);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_crec_handoff4), 56);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_crec_app4), 80);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_crec_app4n), 64);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_crec_switch), 24);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_crec_waking), 24);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_crec_switch_s), 16);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_crec_waking_s), 16);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_crec_app4s), 48);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_crec_pkt_stage), 24);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_crec_app_copy0), 24);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_crec_sock4), 32);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_crec_handoff4f), 40);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_crec_app4f), 32);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_rec_sock), 64);
	KUNIT_EXPECT_EQ(test, NSIGHT_CREC_TID_B(NSIGHT_CREC_PACK(1, 0x3fffff, 0xfffff)),
			0x3fffff);
	KUNIT_EXPECT_EQ(test, NSIGHT_CREC_ARG(NSIGHT_CREC_PACK(0x3fffff, 0, 0xfffff)),
			0xfffff);
	KUNIT_EXPECT_LT(test, (int)__NSIGHT_CREC_MAX, NSIGHT_CREC_SOFTIRQ_ENTRY);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_rec_thread), 40);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_phc_sample), 56);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_rec_clock_sync) %
			NSIGHT_REC_ALIGN, 0);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_stream_hdr) % 8, 0);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_chunk_hdr), 24);
	KUNIT_EXPECT_EQ(test, sizeof(struct nsight_cpu_status), 40);
}

static void nsight_test_subbuf_encoding(struct kunit *test)
{
	struct nsight_crec_subbuf r;

	memset(&r, 0xa5, sizeof(r));
	nsight_subbuf_record_fill(&r, 0x1122334455667788ULL, 42, 7);
	KUNIT_EXPECT_EQ(test, NSIGHT_CREC_TYPE(r.hdr), NSIGHT_REC_SUBBUF);
	KUNIT_EXPECT_EQ(test, NSIGHT_CREC_SIZE(r.hdr), sizeof(r));
	/* The header keeps the low 48 bits, the body the whole TSC. */
	KUNIT_EXPECT_EQ(test, NSIGHT_CREC_TSC(r.hdr), 0x334455667788ULL);
	KUNIT_EXPECT_EQ(test, r.tsc, 0x1122334455667788ULL);
	KUNIT_EXPECT_EQ(test, r.seq, 42);
	KUNIT_EXPECT_EQ(test, r.dropped, 7);
}

struct nsight_geometry_case {
	u32 size;
	size_t subbuf_size;
};

static const struct nsight_geometry_case nsight_geometry_cases[] = {
	{ 0, NSIGHT_BUFFER_MIN / NSIGHT_N_SUBBUFS },
	{ NSIGHT_BUFFER_MIN, NSIGHT_BUFFER_MIN / NSIGHT_N_SUBBUFS },
	{ NSIGHT_BUFFER_MIN + 1, NSIGHT_BUFFER_MIN / NSIGHT_N_SUBBUFS + PAGE_SIZE },
	{ NSIGHT_BUFFER_DEFAULT, NSIGHT_BUFFER_DEFAULT / NSIGHT_N_SUBBUFS },
	{ NSIGHT_BUFFER_MAX, NSIGHT_BUFFER_MAX / NSIGHT_N_SUBBUFS },
	{ U32_MAX, NSIGHT_BUFFER_MAX / NSIGHT_N_SUBBUFS },
};

static void nsight_geometry_desc(const struct nsight_geometry_case *c,
				 char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "size %u", c->size);
}

KUNIT_ARRAY_PARAM(nsight_geometry, nsight_geometry_cases, nsight_geometry_desc);

static void nsight_test_geometry(struct kunit *test)
{
	const struct nsight_geometry_case *c = test->param_value;
	size_t subbuf, n;

	nsight_buffer_geometry(c->size, &subbuf, &n);
	KUNIT_EXPECT_EQ(test, n, NSIGHT_N_SUBBUFS);
	KUNIT_EXPECT_EQ(test, subbuf, c->subbuf_size);
	KUNIT_EXPECT_EQ(test, subbuf % PAGE_SIZE, 0);
}

static void nsight_test_fill(struct nsight_rec_sched_switch *r)
{
	memset(r, 0, sizeof(*r));
	nsight_rec_init(&r->hdr, NSIGHT_REC_SCHED_SWITCH, sizeof(*r));
}

/*
 * Fill a minimal channel on one CPU until it drops, then let a reader
 * consume two sub-buffers and write again: every attempt is accounted for,
 * every sub-buffer starts with its header, and the first one after the loss
 * reports how many records were lost.
 */
static void nsight_test_relay_accounting(struct kunit *test)
{
	struct nsight_buffer *b;
	struct nsight_rec_sched_switch r;
	struct nsight_cpu_snapshot s;
	struct nsight_crec_subbuf *hdr;
	const unsigned int attempts = 2000;
	size_t per_subbuf, i, off, ok;
	u64 prev = 0;
	struct rchan_buf *rb;
	unsigned int cpu;

	b = nsight_test_open(test);
	/* Compact: 8 bytes shorter than the struct. */
	per_subbuf = (b->subbuf_size - sizeof(struct nsight_crec_subbuf)) /
		     (sizeof(r) - 8);

	/* Every write of this test goes to one CPU's buffer. */
	migrate_disable();
	cpu = smp_processor_id();
	for (i = 0, ok = 0; i < attempts; i++) {
		nsight_test_fill(&r);
		ok += nsight_buffer_write(b, &r.hdr);
	}

	nsight_buffer_snapshot(b, cpu, &s);
	KUNIT_EXPECT_EQ(test, s.hits, attempts);
	/* The return value tells written from dropped. */
	KUNIT_EXPECT_EQ(test, s.written, ok);
	KUNIT_EXPECT_EQ(test, s.written + s.dropped, s.hits);
	KUNIT_EXPECT_EQ(test, s.written, per_subbuf * b->n_subbufs);
	KUNIT_EXPECT_EQ(test, s.dropped, attempts - s.written);

	rb = *per_cpu_ptr(b->chan->buf, cpu);
	/* Stamped at write time: the sub-buffer's records are in TSC order. */
	hdr = nsight_test_subbuf(rb, b->subbuf_size, 0);
	for (i = 0, off = 0; i <= per_subbuf; i++) {
		u64 *rec = (void *)hdr + off;

		KUNIT_ASSERT_LE(test, off + NSIGHT_CREC_SIZE(*rec),
				b->subbuf_size);
		KUNIT_EXPECT_GE(test, NSIGHT_CREC_TSC(*rec), prev);
		prev = NSIGHT_CREC_TSC(*rec);
		off += NSIGHT_CREC_SIZE(*rec);
	}
	for (i = 0; i < b->n_subbufs; i++) {
		u64 *first;

		hdr = nsight_test_subbuf(rb, b->subbuf_size, i);
		KUNIT_EXPECT_EQ(test, NSIGHT_CREC_TYPE(hdr->hdr),
				NSIGHT_REC_SUBBUF);
		KUNIT_EXPECT_EQ(test, NSIGHT_CREC_TSC(hdr->hdr),
				hdr->tsc & GENMASK_ULL(47, 0));
		KUNIT_EXPECT_EQ(test, hdr->seq, i);
		KUNIT_EXPECT_EQ(test, hdr->dropped, 0);
		/* The first record follows the header, in compact form. */
		first = (u64 *)(hdr + 1);
		KUNIT_EXPECT_EQ(test, NSIGHT_CREC_TYPE(*first),
				NSIGHT_REC_SCHED_SWITCH);
		KUNIT_EXPECT_EQ(test, NSIGHT_CREC_SIZE(*first), sizeof(r) - 8);
	}

	/* A reader frees two sub-buffers; the next one reports the loss. */
	relay_subbufs_consumed(b->chan, cpu, 2);
	nsight_test_fill(&r);
	nsight_buffer_write(b, &r.hdr);

	hdr = nsight_test_subbuf(rb, b->subbuf_size, b->n_subbufs);
	KUNIT_EXPECT_EQ(test, NSIGHT_CREC_TYPE(hdr->hdr), NSIGHT_REC_SUBBUF);
	KUNIT_EXPECT_EQ(test, hdr->seq, b->n_subbufs);
	KUNIT_EXPECT_EQ(test, hdr->dropped, s.dropped);
	nsight_buffer_snapshot(b, cpu, &s);
	KUNIT_EXPECT_EQ(test, s.hits, attempts + 1);
	KUNIT_EXPECT_EQ(test, s.written, per_subbuf * b->n_subbufs + 1);

	/* Reset: counters zero, the first sub-buffer starts again at seq 0. */
	nsight_buffer_reset(b);
	nsight_buffer_snapshot(b, cpu, &s);
	KUNIT_EXPECT_EQ(test, s.hits, 0);
	KUNIT_EXPECT_EQ(test, s.written, 0);
	KUNIT_EXPECT_EQ(test, s.dropped, 0);
	hdr = nsight_test_subbuf(rb, b->subbuf_size, 0);
	KUNIT_EXPECT_EQ(test, hdr->seq, 0);
	KUNIT_EXPECT_EQ(test, hdr->dropped, 0);
	migrate_enable();

	nsight_buffer_close(b);
	KUNIT_EXPECT_NULL(test, b->chan);
}

/*
 * A record larger than a compact record can be (and than a sub-buffer) is
 * dropped and counted, not written.
 */
static void nsight_test_relay_too_big(struct kunit *test)
{
	struct nsight_buffer *b;
	struct nsight_cpu_snapshot s;
	struct nsight_rec_hdr *big;
	unsigned int cpu;
	bool written;

	b = nsight_test_open(test);
	big = kunit_kzalloc(test, 2 * b->subbuf_size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, big);
	nsight_rec_init(big, NSIGHT_REC_SCHED_SWITCH,
			min_t(size_t, 2 * b->subbuf_size, 65528));

	cpu = get_cpu();
	written = nsight_buffer_write(b, big);
	put_cpu();
	KUNIT_EXPECT_FALSE(test, written);
	nsight_buffer_snapshot(b, cpu, &s);
	KUNIT_EXPECT_EQ(test, s.hits, 1);
	KUNIT_EXPECT_EQ(test, s.written, 0);
	KUNIT_EXPECT_EQ(test, s.dropped, 1);
	nsight_buffer_close(b);
}

static struct kunit_case nsight_buffer_cases[] = {
	KUNIT_CASE(nsight_test_record_layout),
	KUNIT_CASE(nsight_test_subbuf_encoding),
	KUNIT_CASE_PARAM(nsight_test_geometry, nsight_geometry_gen_params),
	KUNIT_CASE(nsight_test_relay_accounting),
	KUNIT_CASE(nsight_test_relay_too_big),
	{}
};

static struct kunit_suite nsight_buffer_suite = {
	.name = "nsight_buffer",
	.test_cases = nsight_buffer_cases,
};

kunit_test_suite(nsight_buffer_suite);
