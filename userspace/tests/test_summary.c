// SPDX-License-Identifier: MIT
/* nsight_summarize(): counts, drops, and the check against STATUS. */
#include <json-c/json.h>

#include "analyze/print.h"
#include "format/records.h"
#include "pipeline/summary.h"
#include "test.h"

#define SS	sizeof(struct nsight_rec_sched_switch)
#define HO	sizeof(struct nsight_rec_handoff)
#define TK	sizeof(struct nsight_rec_timekeeper)
#define CS	sizeof(struct nsight_rec_clock_sync)

struct fixture {
	uint8_t cpu0[2048], cpu1[2048];
	size_t n0, split0, n1;
	struct nsight_cpu_status st[2];
	size_t n_st;
	bool status;
	const char *release;
};

/*
 * cpu0: SUBBUF seq 0 (0 dropped), 3 sched_switch | SUBBUF seq 1 (2 dropped),
 *       2 handoff, SUBBUF seq 2 (1 dropped), 1 timekeeper; split in two chunks
 * cpu1: SUBBUF seq 0, clock_sync, an unknown type 99
 * The kernel: cpu0 wrote 6, dropped 5 (2 after the last SUBBUF), cpu1 2/0.
 */
static void fixture_init(struct fixture *f)
{
	int i;

	memset(f, 0, sizeof(*f));
	put_subbuf(f->cpu0, &f->n0, 0, 1000, 0, 0);
	for (i = 0; i < 3; i++)
		put_rec(f->cpu0, &f->n0, NSIGHT_REC_SCHED_SWITCH, SS, 0, 1001 + i);
	f->split0 = f->n0;
	put_subbuf(f->cpu0, &f->n0, 0, 1100, 1, 2);
	put_rec(f->cpu0, &f->n0, NSIGHT_REC_HANDOFF, HO, 0, 1101);
	put_rec(f->cpu0, &f->n0, NSIGHT_REC_HANDOFF, HO, 0, 1102);
	put_subbuf(f->cpu0, &f->n0, 0, 1200, 2, 1);
	put_rec(f->cpu0, &f->n0, NSIGHT_REC_TIMEKEEPER, TK, 0, 1201);

	put_subbuf(f->cpu1, &f->n1, 1, 900, 0, 0);
	put_rec(f->cpu1, &f->n1, NSIGHT_REC_CLOCK_SYNC, CS, 1, 950);
	put_rec(f->cpu1, &f->n1, 99, 24, 1, 2000);

	f->st[0] = (struct nsight_cpu_status){ .cpu = 0, .online = 1, .hook_hits = 11,
					       .records_written = 6, .records_dropped = 5 };
	f->st[1] = (struct nsight_cpu_status){ .cpu = 1, .online = 1, .hook_hits = 2,
					       .records_written = 2 };
	f->n_st = 2;
	f->status = true;
	f->release = "6.12.0-test";
}

static void fixture_stream(const struct fixture *f, struct membuf *m)
{
	struct nsight_stream_writer w;
	struct nsight_stream_hdr h = { .tsc_hz = 1000000000, .nr_cpus = 2, .sources = 3 };

	snprintf(h.release, sizeof(h.release), "%s", f->release);
	membuf_open(m, &w);
	nsight_stream_write_header(&w, &h);
	nsight_stream_write_records(&w, 0, f->cpu0, f->split0);
	nsight_stream_write_records(&w, 1, f->cpu1, f->n1);
	nsight_stream_write_records(&w, 0, f->cpu0 + f->split0, f->n0 - f->split0);
	if (f->status)
		nsight_stream_write_status(&w, f->st, f->n_st);
	nsight_stream_write_end(&w);
	membuf_close(m);
}

static int summarize_mem(const struct membuf *m, struct nsight_summary *s, struct nsight_diag *d)
{
	struct nsight_stream_reader r;
	FILE *in = mem_reader(m->data, m->len);
	int ret;

	memset(s, 0, sizeof(*s));
	if (!in)
		return -NSIGHT_E_IO;
	ret = nsight_stream_reader_init(&r, in);
	if (ret)
		*d = r.diag;
	else
		ret = nsight_summarize(&r, s, d);
	nsight_stream_reader_fini(&r);
	fclose(in);
	return ret;
}

/* Summarize the fixture; returns the result, @s must be finalized. */
static int run(const struct fixture *f, struct nsight_summary *s, struct nsight_diag *d)
{
	struct membuf m;
	int ret;

	fixture_stream(f, &m);
	ret = summarize_mem(&m, s, d);
	free(m.data);
	return ret;
}

static char *problem_text(const struct nsight_summary *s, size_t i)
{
	static char buf[256];

	buf[0] = '\0';
	if (i < s->n_kept)
		nsight_problem_format(&s->problems[i], buf, sizeof(buf));
	return buf;
}

static char *text_output(const struct nsight_summary *s)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	nsight_summary_print_text(f, "x.nsight", s);
	fclose(f);
	return out;
}

static void test_consistent(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_summary s;
	struct fixture f;

	fixture_init(&f);
	REQUIRE(run(&f, &s, &d) == 0);
	CHECK_U64(s.records, 8);
	CHECK_U64(s.subbufs, 4);
	CHECK_U64(s.dropped_subbuf, 3);
	CHECK_U64(s.dropped_after, 2);
	CHECK_U64(s.dropped, 5);
	CHECK(s.have_status);
	CHECK_U64(s.n_problems, 0);
	CHECK_U64(s.chunks, 4);
	CHECK_U64(s.record_bytes, f.n0 + f.n1);
	CHECK(s.have_tsc);
	CHECK_U64(s.tsc_first, 900);
	CHECK_U64(s.tsc_last, 2000);
	CHECK(nsight_summary_span_seconds(&s) > 0.0000010 && nsight_summary_span_seconds(&s) < 0.0000012);

	CHECK_U64(s.cpus[0].records, 6);
	CHECK_U64(s.cpus[0].subbufs, 3);
	CHECK_U64(s.cpus[0].seq_first, 0);
	CHECK_U64(s.cpus[0].seq_last, 2);
	CHECK_U64(s.cpus[0].subbuf_dropped, 3);
	CHECK_U64(s.cpus[0].dropped_after, 2);
	CHECK_U64(s.cpus[0].dropped, 5);
	CHECK_U64(s.cpus[1].records, 2);
	CHECK_U64(s.cpus[1].subbufs, 1);
	CHECK_U64(s.cpus[1].dropped, 0);

	CHECK_U64(s.type_counts[NSIGHT_REC_SUBBUF], 4);
	CHECK_U64(s.type_counts[NSIGHT_REC_SCHED_SWITCH], 3);
	CHECK_U64(s.type_counts[NSIGHT_REC_HANDOFF], 2);
	CHECK_U64(s.type_counts[NSIGHT_REC_TIMEKEEPER], 1);
	CHECK_U64(s.type_counts[NSIGHT_REC_CLOCK_SYNC], 1);
	CHECK_U64(s.type_counts[99], 1);
	nsight_summary_fini(&s);
}

static void test_records_mismatch(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_summary s;
	struct fixture f;

	fixture_init(&f);
	f.st[0].records_written = 7;	/* and hits 11 != 7 + 5 */
	f.st[1].hook_hits = 3;
	REQUIRE(run(&f, &s, &d) == 0);
	CHECK_U64(s.n_problems, 3);
	REQUIRE(s.n_kept == 3);
	CHECK_U64(s.problems[0].kind, NSIGHT_PROB_RECORDS);
	CHECK_U64(s.problems[0].cpu, 0);
	CHECK_U64(s.problems[0].a, 6);
	CHECK_U64(s.problems[0].b, 7);
	CHECK(!strcmp(problem_text(&s, 0), "cpu 0: stream holds 6 records, kernel wrote 7"));
	CHECK_U64(s.problems[1].kind, NSIGHT_PROB_HITS);
	CHECK(!strcmp(problem_text(&s, 1), "cpu 0: kernel counted 11 hook hits but 7 written + 5 dropped"));
	CHECK_U64(s.problems[2].kind, NSIGHT_PROB_HITS);
	CHECK_U64(s.problems[2].cpu, 1);
	nsight_summary_fini(&s);
}

static void test_seq_gap(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_summary s;
	struct nsight_rec_subbuf sb;
	struct fixture f;

	fixture_init(&f);
	/* cpu0's third sub-buffer: seq 2 -> 3, a gap after 1. */
	memcpy(&sb, f.cpu0 + f.split0 + 32 + 2 * HO, sizeof(sb));
	CHECK_U64(sb.seq, 2);
	sb.seq = 3;
	memcpy(f.cpu0 + f.split0 + 32 + 2 * HO, &sb, sizeof(sb));
	REQUIRE(run(&f, &s, &d) == 0);
	CHECK_U64(s.n_problems, 1);
	REQUIRE(s.n_kept == 1);
	CHECK_U64(s.problems[0].kind, NSIGHT_PROB_SEQ_GAP);
	CHECK(!strcmp(problem_text(&s, 0), "cpu 0: sub-buffer seq 3 follows 1 (expected 2)"));
	CHECK_U64(s.cpus[0].seq_first, 0);
	CHECK_U64(s.cpus[0].seq_last, 3);
	nsight_summary_fini(&s);

	/* cpu1 starting at seq 4. */
	fixture_init(&f);
	memcpy(&sb, f.cpu1, sizeof(sb));
	sb.seq = 4;
	memcpy(f.cpu1, &sb, sizeof(sb));
	REQUIRE(run(&f, &s, &d) == 0);
	CHECK_U64(s.n_problems, 1);
	REQUIRE(s.n_kept == 1);
	CHECK_U64(s.problems[0].kind, NSIGHT_PROB_SEQ_START);
	CHECK(!strcmp(problem_text(&s, 0), "cpu 1: first sub-buffer has seq 4, not 0"));
	nsight_summary_fini(&s);
}

static void test_first_record_not_subbuf(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_summary s;
	struct fixture f;

	fixture_init(&f);
	f.n1 = 0;
	put_rec(f.cpu1, &f.n1, NSIGHT_REC_CLOCK_SYNC, CS, 1, 950);
	put_rec(f.cpu1, &f.n1, 99, 24, 1, 2000);
	REQUIRE(run(&f, &s, &d) == 0);
	CHECK_U64(s.n_problems, 1);
	REQUIRE(s.n_kept == 1);
	CHECK_U64(s.problems[0].kind, NSIGHT_PROB_FIRST_REC);
	CHECK(!strcmp(problem_text(&s, 0), "cpu 1: first record is clock_sync, not a sub-buffer header"));
	nsight_summary_fini(&s);
}

static void test_more_drops_in_headers_than_kernel(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_summary s;
	struct fixture f;

	fixture_init(&f);
	f.st[0].records_dropped = 2;	/* headers say 3 */
	f.st[0].hook_hits = 8;
	REQUIRE(run(&f, &s, &d) == 0);
	CHECK_U64(s.n_problems, 1);
	REQUIRE(s.n_kept == 1);
	CHECK_U64(s.problems[0].kind, NSIGHT_PROB_DROPS);
	CHECK(!strcmp(problem_text(&s, 0), "cpu 0: sub-buffer headers report 3 dropped records, kernel counted 2"));
	CHECK_U64(s.cpus[0].dropped_after, 0);
	CHECK_U64(s.dropped, 3);
	nsight_summary_fini(&s);
}

static void test_cpu_missing_from_status(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_summary s;
	struct fixture f;

	fixture_init(&f);
	f.n_st = 1;
	REQUIRE(run(&f, &s, &d) == 0);
	CHECK_U64(s.n_problems, 1);
	REQUIRE(s.n_kept == 1);
	CHECK_U64(s.problems[0].kind, NSIGHT_PROB_NO_STATUS);
	CHECK(!strcmp(problem_text(&s, 0), "cpu 1: has records but no entry in the STATUS chunk"));
	nsight_summary_fini(&s);

	/* The kernel wrote records the stream lacks (its file was missing). */
	fixture_init(&f);
	f.n1 = 0;
	REQUIRE(run(&f, &s, &d) == 0);
	CHECK_U64(s.n_problems, 1);
	CHECK(!strcmp(problem_text(&s, 0), "cpu 1: stream holds 0 records, kernel wrote 2"));
	nsight_summary_fini(&s);
}

static void test_no_status(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_summary s;
	struct fixture f;
	char *out;

	fixture_init(&f);
	f.status = false;
	REQUIRE(run(&f, &s, &d) == 0);
	CHECK(!s.have_status);
	CHECK_U64(s.n_problems, 0);
	CHECK_U64(s.dropped, 3);
	CHECK_U64(s.dropped_after, 0);
	out = text_output(&s);
	CHECK_STR_HAS(out, "\ncheck: no kernel counters in stream\n");
	CHECK_STR_HAS(out, "dropped: 3 (3 in sub-buffer headers, later drops unknown)");
	free(out);
	nsight_summary_fini(&s);
}

static void test_bad_status_chunks(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_summary s;
	struct fixture f;

	/* Entry for a CPU the stream does not have. */
	fixture_init(&f);
	f.st[1].cpu = 2;
	CHECK_U64(run(&f, &s, &d), -NSIGHT_E_CHUNK);
	CHECK_STR_HAS(d.msg, "cpu 2 is not below the stream's 2 cpus");
	CHECK_STR_HAS(d.msg, "STATUS entry at byte ");
	nsight_summary_fini(&s);

	fixture_init(&f);
	f.st[1].cpu = 0;
	CHECK_U64(run(&f, &s, &d), -NSIGHT_E_CHUNK);
	CHECK_STR_HAS(d.msg, "cpu 0 is listed twice");
	nsight_summary_fini(&s);

	/* Two STATUS chunks. */
	{
		struct nsight_stream_writer w;
		struct nsight_stream_hdr h = { .nr_cpus = 2 };
		struct membuf m;

		fixture_init(&f);
		membuf_open(&m, &w);
		nsight_stream_write_header(&w, &h);
		nsight_stream_write_status(&w, f.st, 2);
		nsight_stream_write_status(&w, f.st, 2);
		nsight_stream_write_end(&w);
		membuf_close(&m);
		CHECK_U64(summarize_mem(&m, &s, &d), -NSIGHT_E_CHUNK);
		CHECK_STR_HAS(d.msg, "STATUS chunk at byte 208: the stream has a STATUS chunk already");
		nsight_summary_fini(&s);
		free(m.data);
	}
}

static void test_bad_record_in_chunk(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_summary s;
	struct fixture f;

	fixture_init(&f);
	/* The second record of cpu0 claims cpu 1: payload starts at 104 + 24. */
	f.cpu0[32 + 4] = 1;
	CHECK_U64(run(&f, &s, &d), -NSIGHT_E_RECORD);
	CHECK_STR_HAS(d.msg, "record at byte 160: written on cpu 1 but found in the buffer of cpu 0");
	nsight_summary_fini(&s);
}

static void test_truncated_stream_is_error(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_summary s;
	struct fixture f;
	struct membuf m;

	fixture_init(&f);
	fixture_stream(&f, &m);
	m.len -= 3;
	CHECK_U64(summarize_mem(&m, &s, &d), -NSIGHT_E_TRUNCATED);
	CHECK_STR_HAS(d.msg, "truncated at byte ");
	nsight_summary_fini(&s);
	free(m.data);
}

static void test_text_output(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_summary s;
	struct fixture f;
	char *out;

	fixture_init(&f);
	REQUIRE(run(&f, &s, &d) == 0);
	out = text_output(&s);
	CHECK_STR_HAS(out, "stream: x.nsight  format 1  kernel 6.12.0-test  cpus 2  tsc 1000000000 Hz\n");
	CHECK_STR_HAS(out, "\nspan: 0.000001 s  tsc 900..2000\n");
	CHECK_STR_HAS(out, "\nrecords: 8  sub-buffers: 4  dropped: 5 (3 in sub-buffer headers, 2 after the last sub-buffer)\n");
	CHECK_STR_HAS(out, "\ncpu       records       dropped   subbufs  seq\n");
	CHECK_STR_HAS(out, "\n  0             6             5         3  0-2\n");
	CHECK_STR_HAS(out, "\n  1             2             0         1  0-0\n");
	CHECK_STR_HAS(out, "\ntype                  count\n");
	CHECK_STR_HAS(out, "\nsched_switch              3\n");
	CHECK_STR_HAS(out, "\nunknown(99)               1\n");
	CHECK(!strstr(out, "subbuf "));
	CHECK_STR_HAS(out, "\ncheck: ok\n");
	free(out);
	nsight_summary_fini(&s);

	fixture_init(&f);
	f.st[0].records_written = 7;
	f.st[0].hook_hits = 12;
	REQUIRE(run(&f, &s, &d) == 0);
	out = text_output(&s);
	CHECK_STR_HAS(out, "\ncheck: 1 problem\n  cpu 0: stream holds 6 records, kernel wrote 7\n");
	free(out);
	nsight_summary_fini(&s);
}

static void test_release_sanitized(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_summary s;
	struct fixture f;
	char *out;

	fixture_init(&f);
	f.release = "6.1\x1b[31m\n";
	REQUIRE(run(&f, &s, &d) == 0);
	out = text_output(&s);
	CHECK_STR_HAS(out, "kernel 6.1?[31m?  cpus");
	free(out);
	nsight_summary_fini(&s);
}

static void test_many_problems_capped(void)
{
	static uint8_t buf[3000 * 32];
	struct nsight_stream_writer w;
	struct nsight_stream_hdr h = { .nr_cpus = 1 };
	struct nsight_diag d = { 0 };
	struct nsight_summary s;
	struct membuf m;
	size_t pos = 0;
	uint64_t i;
	char *out;

	for (i = 0; i < 3000; i++)
		put_subbuf(buf, &pos, 0, i, 2 * i, 0);	/* 2999 gaps */
	membuf_open(&m, &w);
	nsight_stream_write_header(&w, &h);
	nsight_stream_write_records(&w, 0, buf, pos);
	nsight_stream_write_end(&w);
	membuf_close(&m);
	REQUIRE(summarize_mem(&m, &s, &d) == 0);
	CHECK_U64(s.n_problems, 2999);
	CHECK_U64(s.n_kept, NSIGHT_SUMMARY_MAX_PROBLEMS);
	out = text_output(&s);
	CHECK_STR_HAS(out, "\ncheck: no kernel counters in stream; 2999 problems\n");
	CHECK_STR_HAS(out, "\n  ... and 1999 more\n");
	free(out);
	nsight_summary_fini(&s);
	free(m.data);
}

static uint64_t jget_u64(struct json_object *o, const char *path)
{
	char buf[128], *key, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (key = strtok_r(buf, ".", &save); key && o; key = strtok_r(NULL, ".", &save)) {
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, (size_t)atoi(key));
		else if (!json_object_object_get_ex(o, key, &o))
			return UINT64_MAX;
	}
	return o ? json_object_get_uint64(o) : UINT64_MAX;
}

static void test_json_output(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_summary s;
	struct json_object *o, *v;
	struct fixture f;

	fixture_init(&f);
	f.st[0].records_written = 7;
	f.st[0].hook_hits = 12;
	REQUIRE(run(&f, &s, &d) == 0);
	o = nsight_summary_to_json("x.nsight", &s);
	REQUIRE(o);
	CHECK_U64(jget_u64(o, "stream.format"), 1);
	CHECK_U64(jget_u64(o, "stream.cpus"), 2);
	CHECK_U64(jget_u64(o, "stream.tsc_hz"), 1000000000);
	CHECK_U64(jget_u64(o, "span.tsc_first"), 900);
	CHECK_U64(jget_u64(o, "records"), 8);
	CHECK_U64(jget_u64(o, "subbufs"), 4);
	CHECK_U64(jget_u64(o, "dropped.total"), 5);
	CHECK_U64(jget_u64(o, "dropped.in_subbuf_headers"), 3);
	CHECK_U64(jget_u64(o, "dropped.after_last_subbuf"), 2);
	CHECK_U64(jget_u64(o, "cpus.0.records"), 6);
	CHECK_U64(jget_u64(o, "cpus.1.kernel.records_written"), 2);
	CHECK_U64(jget_u64(o, "types.handoff"), 2);
	CHECK_U64(jget_u64(o, "types.unknown(99)"), 1);
	CHECK_U64(jget_u64(o, "check.n_problems"), 1);
	CHECK(json_object_object_get_ex(o, "check", &v) &&
	      json_object_object_get_ex(v, "problems", &v) &&
	      json_object_array_length(v) == 1);
	CHECK_STR_HAS(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), "\"message\":\"cpu 0: stream holds 6 records, kernel wrote 7\"");
	CHECK_STR_HAS(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), "\"seconds\":0.000001");
	CHECK_STR_HAS(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), "\"sources\":[\"sched_switch\",\"handoff\"]");
	json_object_put(o);
	nsight_summary_fini(&s);
}

/* One record of cpu0 with a corrupt TSC: counted, in the check, not in the span. */
static void test_bad_tsc(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_summary s;
	struct json_object *o;
	struct fixture f;
	uint64_t at;
	char *out;

	fixture_init(&f);
	/* The second sched_switch. */
	at = sizeof(struct nsight_rec_subbuf) + SS;
	memcpy(f.cpu0 + at + offsetof(struct nsight_rec_hdr, tsc), &(uint64_t){ UINT64_MAX - 3 },
	       sizeof(uint64_t));
	REQUIRE(run(&f, &s, &d) == 0);
	CHECK_U64(s.records, 8);
	CHECK_U64(s.bad_tsc, 1);
	CHECK_U64(s.cpus[0].bad_tsc, 1);
	CHECK_U64(s.tsc_first, 900);
	CHECK_U64(s.tsc_last, 2000);
	CHECK_U64(s.type_counts[NSIGHT_REC_SCHED_SWITCH], 3);
	CHECK_U64(s.n_problems, 1);
	REQUIRE(s.n_kept == 1);
	CHECK_U64(s.problems[0].kind, NSIGHT_PROB_BAD_TSC);
	/* The stream header (104 bytes) and the chunk's header (24) come first. */
	CHECK_U64(s.cpus[0].bad_tsc_at, 104 + 24 + at);
	CHECK_STR_HAS(problem_text(&s, 0), "cpu 0: 1 record with a TSC far out of its neighbours' order");
	out = text_output(&s);
	CHECK_STR_HAS(out, "\ncorrupt TSC: 1 record left out of the span and the analysis\n");
	CHECK_STR_HAS(out, "\ncheck: 1 problem\n");
	free(out);
	o = nsight_summary_to_json("x.nsight", &s);
	REQUIRE(o);
	CHECK_U64(jget_u64(o, "bad_tsc_records"), 1);
	CHECK_U64(jget_u64(o, "cpus.0.bad_tsc_records"), 1);
	CHECK_STR_HAS(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), "\"kind\":\"bad_tsc\"");
	json_object_put(o);
	nsight_summary_fini(&s);
}

/*
 * Damage anywhere, headers included (they carry no crc): the result is a
 * summary or an error with a message, never a crash (ASan/UBSan watch).
 */
static void test_random_damage(void)
{
	struct nsight_diag d;
	struct nsight_summary s;
	struct fixture f;
	struct membuf m;
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	size_t bad = 0;
	int i, j;

	fixture_init(&f);
	fixture_stream(&f, &m);
	for (i = 0; i < 3000; i++) {
		struct membuf copy = m;
		int ret;

		copy.data = malloc(m.len);
		REQUIRE(copy.data);
		memcpy(copy.data, m.data, m.len);
		for (j = 0; j < 1 + i % 4; j++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			copy.data[x % m.len] ^= (char)(1 + (x >> 32) % 255);
		}
		/* Some of them also cut short. */
		if (i % 5 == 0)
			copy.len = (x >> 16) % m.len;
		memset(&d, 0, sizeof(d));
		ret = summarize_mem(&copy, &s, &d);
		if (ret > 0 || (ret < 0 && !d.msg[0]))
			bad++;
		nsight_summary_fini(&s);
		free(copy.data);
	}
	CHECK_U64(bad, 0);
	free(m.data);
}

KTAP_MAIN(
	KTAP_TEST(test_consistent),
	KTAP_TEST(test_records_mismatch),
	KTAP_TEST(test_seq_gap),
	KTAP_TEST(test_first_record_not_subbuf),
	KTAP_TEST(test_more_drops_in_headers_than_kernel),
	KTAP_TEST(test_cpu_missing_from_status),
	KTAP_TEST(test_no_status),
	KTAP_TEST(test_bad_status_chunks),
	KTAP_TEST(test_bad_record_in_chunk),
	KTAP_TEST(test_truncated_stream_is_error),
	KTAP_TEST(test_text_output),
	KTAP_TEST(test_release_sanitized),
	KTAP_TEST(test_many_problems_capped),
	KTAP_TEST(test_json_output),
	KTAP_TEST(test_bad_tsc),
	KTAP_TEST(test_random_damage),
)
