// SPDX-License-Identifier: MIT
/*
 * nsightctl dump's reading and chunking, on fake relay files in a temp
 * dir, checked by summarising the stream it writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl/dump.h"
#include "format/records.h"
#include "pipeline/summary.h"
#include "test.h"

#define SS	sizeof(struct nsight_rec_sched_switch)
#define HO	sizeof(struct nsight_rec_handoff)
#define TK	sizeof(struct nsight_rec_timekeeper)
#define CS	sizeof(struct nsight_rec_clock_sync)
#define NR_CPUS	4

/* Synthetic relay contents: cpu0 and cpu1, cpu2 has no file, cpu3 little. */
static uint8_t relay[NR_CPUS][16384];
static size_t relay_len[NR_CPUS];

static void make_relay_data(void)
{
	size_t *n;
	int i;

	memset(relay_len, 0, sizeof(relay_len));
	n = &relay_len[0];
	put_subbuf(relay[0], n, 0, 10, 0, 0);
	for (i = 0; i < 50; i++)
		put_rec(relay[0], n, NSIGHT_REC_SCHED_SWITCH, SS, 0, 11 + i);
	put_subbuf(relay[0], n, 0, 100, 1, 3);		/* 3 drops before it */
	for (i = 0; i < 30; i++)
		put_rec(relay[0], n, NSIGHT_REC_HANDOFF, HO, 0, 101 + i);
	put_subbuf(relay[0], n, 0, 200, 2, 0);
	for (i = 0; i < 10; i++)
		put_rec(relay[0], n, NSIGHT_REC_TIMEKEEPER, TK, 0, 201 + i);

	n = &relay_len[1];
	put_subbuf(relay[1], n, 1, 5, 0, 0);
	put_rec(relay[1], n, NSIGHT_REC_CLOCK_SYNC, CS, 1, 6);
	for (i = 0; i < 5; i++)
		put_rec(relay[1], n, NSIGHT_REC_HANDOFF, HO, 1, 7 + i);

	n = &relay_len[3];
	put_subbuf(relay[3], n, 3, 50, 0, 0);
	put_rec(relay[3], n, NSIGHT_REC_SCHED_SWITCH, SS, 3, 51);
	put_rec(relay[3], n, NSIGHT_REC_SCHED_SWITCH, SS, 3, 52);

	/* In the compact form the module writes. */
	for (i = 0; i < NR_CPUS; i++) {
		uint8_t *c;
		size_t len;

		REQUIRE(nsight_crecords_encode(relay[i], relay_len[i], &c, &len) == 0);
		REQUIRE(len <= sizeof(relay[i]));
		if (len)
			memcpy(relay[i], c, len);
		relay_len[i] = len;
		free(c);
	}
}

/*
 * The kernel's view matching make_relay_data(): cpu0 dropped 2 more at the
 * end; the compact form names the switches' task once on cpu0 and cpu3
 * (a thread record each, which the kernel counts as written).
 */
static void make_status(struct nsight_status *st, struct nsight_status_cpu *cpus)
{
	memset(st, 0, sizeof(*st));
	st->sources = NSIGHT_SOURCES_ALL;
	st->buffer_size = 64 << 10;
	st->subbuf_size = 4096;
	st->n_subbufs = 16;
	st->tsc_hz = 2000000000;
	st->nr_cpus = NR_CPUS;
	cpus[0] = (struct nsight_status_cpu){ .id = 0, .online = 1, .hook_hits = 96,
					      .records_written = 91, .records_dropped = 5 };
	cpus[1] = (struct nsight_status_cpu){ .id = 1, .online = 1, .hook_hits = 6,
					      .records_written = 6 };
	cpus[2] = (struct nsight_status_cpu){ .id = 3, .online = 1, .hook_hits = 3,
					      .records_written = 3 };
	st->n_cpus = 3;
	st->cpus = cpus;
	st->hook_hits = 105;
	st->records_written = 100;
	st->records_dropped = 5;
}

/* nsight_status_fn handing out a copy of a template status. */
static int fake_status(void *ctx, struct nsight_status *st, struct nsight_diag *d)
{
	const struct nsight_status *tmpl = ctx;

	*st = *tmpl;
	st->cpus = calloc(tmpl->n_cpus ? tmpl->n_cpus : 1, sizeof(*st->cpus));
	if (!st->cpus)
		return nsight_diag_set(d, ENOMEM, "out of memory");
	memcpy(st->cpus, tmpl->cpus, tmpl->n_cpus * sizeof(*st->cpus));
	return 0;
}

/* Write @len bytes in pieces of 7, 13, 1, 31, ... bytes. */
static int write_pieces(int fd, const uint8_t *buf, size_t len)
{
	static const size_t pieces[] = { 7, 13, 1, 31, 5, 64, 3 };
	size_t pos = 0, i = 0;

	while (pos < len) {
		size_t n = pieces[i++ % (sizeof(pieces) / sizeof(pieces[0]))];
		ssize_t w;

		if (n > len - pos)
			n = len - pos;
		w = write(fd, buf + pos, n);
		if (w <= 0)
			return -1;
		pos += (size_t)w;
	}
	return 0;
}

struct relay_dir {
	char path[64];
	char files[NR_CPUS][128];
};

/* A temp dir with nsight/cpuN for the CPUs that have data (not cpu2). */
static int relay_dir_make(struct relay_dir *r, const uint8_t extra[], size_t extra_len)
{
	char sub[96];
	int cpu;

	snprintf(r->path, sizeof(r->path), "/tmp/nsight-dump-test-XXXXXX");
	if (!mkdtemp(r->path))
		return -1;
	snprintf(sub, sizeof(sub), "%s/nsight", r->path);
	if (mkdir(sub, 0700))
		return -1;
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		int fd;

		snprintf(r->files[cpu], sizeof(r->files[cpu]), "%s/nsight/cpu%d", r->path, cpu);
		if (cpu == 2)
			continue;
		fd = open(r->files[cpu], O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0)
			return -1;
		if (write_pieces(fd, relay[cpu], relay_len[cpu]) ||
		    (cpu == 3 && extra_len && write_pieces(fd, extra, extra_len))) {
			close(fd);
			return -1;
		}
		close(fd);
	}
	return 0;
}

static void relay_dir_remove(struct relay_dir *r)
{
	char sub[96];
	int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		unlink(r->files[cpu]);
	snprintf(sub, sizeof(sub), "%s/nsight", r->path);
	rmdir(sub);
	rmdir(r->path);
}

/*
 * Read a stream back: per-CPU concatenation of RECORDS payloads into
 * @cat/@cat_len, largest RECORDS chunk in @max_chunk.
 */
static int collect(const struct membuf *m, uint8_t cat[][16384], size_t *cat_len,
		   size_t *max_chunk, size_t *n_chunks)
{
	struct nsight_stream_reader r;
	struct nsight_chunk c;
	FILE *f = mem_reader(m->data, m->len);
	int ret;

	memset(cat_len, 0, NR_CPUS * sizeof(*cat_len));
	*max_chunk = 0;
	*n_chunks = 0;
	if (!f)
		return -1;
	ret = nsight_stream_reader_init(&r, f);
	while (!ret && (ret = nsight_stream_read_chunk(&r, &c)) > 0) {
		ret = 0;
		if (c.type != NSIGHT_CHUNK_CRECORDS)
			continue;
		if (cat_len[c.cpu] + c.size > 16384) {
			ret = -1;
			break;
		}
		memcpy(cat[c.cpu] + cat_len[c.cpu], c.payload, c.size);
		cat_len[c.cpu] += c.size;
		if (c.size > *max_chunk)
			*max_chunk = c.size;
		(*n_chunks)++;
	}
	if (ret)
		printf("# collect: %s\n", r.diag.msg);
	nsight_stream_reader_fini(&r);
	fclose(f);
	return ret;
}

static int summarize_mem(const struct membuf *m, struct nsight_summary *s, struct nsight_diag *d)
{
	struct nsight_stream_reader r;
	FILE *f = mem_reader(m->data, m->len);
	int ret;

	memset(s, 0, sizeof(*s));
	if (!f)
		return -1;
	ret = nsight_stream_reader_init(&r, f);
	if (ret)
		*d = r.diag;
	else
		ret = nsight_summarize(&r, s, d);
	nsight_stream_reader_fini(&r);
	fclose(f);
	return ret;
}

/* Dump the fake relay dir with @o and check the stream byte for byte and by summary. */
static void dump_and_check(size_t chunk_max, size_t read_size, size_t want_max_chunk)
{
	static uint8_t cat[NR_CPUS][16384];
	struct nsight_status_cpu cpus[NR_CPUS];
	struct nsight_status before, after;
	struct nsight_dump_result res;
	struct nsight_stream_writer w;
	struct nsight_diag d = { 0 };
	struct nsight_summary s;
	struct relay_dir rd;
	struct membuf m;
	size_t cat_len[NR_CPUS], max_chunk, n_chunks;
	struct nsight_dump_opts o = { .chunk_max = chunk_max, .read_size = read_size };
	int cpu, ret;

	make_relay_data();
	make_status(&before, cpus);
	REQUIRE(relay_dir_make(&rd, NULL, 0) == 0);
	o.debugfs = rd.path;

	membuf_open(&m, &w);
	ret = nsight_dump(&w, &o, &before, fake_status, &before, &after, &res, &d);
	membuf_close(&m);
	relay_dir_remove(&rd);
	if (ret)
		printf("# nsight_dump: %s\n", d.msg);
	CHECK_U64(ret, 0);

	CHECK_U64(res.cpus_read, 3);
	CHECK_U64(res.bytes, relay_len[0] + relay_len[1] + relay_len[3]);
	CHECK_U64(res.lost_bytes, 0);
	CHECK(res.cpus[0].present && res.cpus[1].present && !res.cpus[2].present && res.cpus[3].present);
	CHECK_U64(after.n_cpus, 3);
	CHECK_U64(after.records_dropped, 5);

	/* Byte for byte what the relay files held, in chunks no larger than allowed. */
	REQUIRE(collect(&m, cat, cat_len, &max_chunk, &n_chunks) == 0);
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		CHECK_U64(cat_len[cpu], relay_len[cpu]);
		CHECK(!memcmp(cat[cpu], relay[cpu], relay_len[cpu]));
	}
	CHECK_U64(max_chunk, want_max_chunk);
	CHECK_U64(n_chunks, res.cpus[0].chunks + res.cpus[1].chunks + res.cpus[3].chunks);

	REQUIRE(summarize_mem(&m, &s, &d) == 0);
	CHECK_U64(s.hdr.nr_cpus, NR_CPUS);
	CHECK_U64(s.hdr.tsc_hz, 2000000000);
	CHECK_U64(s.hdr.sources, NSIGHT_SOURCES_ALL);
	CHECK(s.hdr.dump_realtime_ns > 0);
	CHECK(s.hdr.release[0] != '\0');
	CHECK_U64(s.records, 91 + 6 + 3);
	CHECK_U64(s.subbufs, 5);
	CHECK_U64(s.cpus[0].records, 91);
	CHECK_U64(s.cpus[0].subbufs, 3);
	CHECK_U64(s.cpus[0].seq_last, 2);
	CHECK_U64(s.cpus[1].records, 6);
	CHECK(!s.cpus[2].seen);
	CHECK_U64(s.cpus[3].records, 3);
	CHECK_U64(s.dropped_subbuf, 3);
	CHECK_U64(s.dropped_after, 2);
	CHECK_U64(s.dropped, 5);
	CHECK_U64(s.type_counts[NSIGHT_REC_SCHED_SWITCH], 52);
	CHECK_U64(s.type_counts[NSIGHT_REC_HANDOFF], 35);
	CHECK_U64(s.type_counts[NSIGHT_REC_TIMEKEEPER], 10);
	CHECK_U64(s.type_counts[NSIGHT_REC_CLOCK_SYNC], 1);
	CHECK_U64(s.type_counts[NSIGHT_REC_THREAD], 2);
	CHECK(s.have_status);
	CHECK_U64(s.n_problems, 0);
	nsight_summary_fini(&s);
	nsight_status_free(&after);
	nsight_dump_result_free(&res);
	free(m.data);
}

static void test_dump_default_chunks(void)
{
	make_relay_data();
	/* One chunk per CPU: cpu0's 7696 bytes are the largest. */
	dump_and_check(0, 0, relay_len[0]);
}

static void test_dump_small_reads_and_chunks(void)
{
	/*
	 * 7-byte reads: every record is carried across several reads. The
	 * fullest chunk under 256 bytes: the last 2 compact sched_switch
	 * (72 each), the SUBBUF (32) and a handoff (80) fill it exactly.
	 */
	dump_and_check(256, 7, 2 * (SS - 8) + 32 + HO - 8);
}

static void test_dump_odd_chunk_limit(void)
{
	/* 200 bytes: SUBBUF + a compact timekeeper (160) is the fullest chunk. */
	_Static_assert(32 + sizeof(struct nsight_rec_timekeeper) - 8 == 192, "layout");
	dump_and_check(200, 13, 32 + TK - 8);
}

static void test_dump_record_larger_than_chunk(void)
{
	/* 100 bytes: a compact timekeeper record (160 bytes) goes alone. */
	dump_and_check(100, 0, TK - 8);
}

static void test_dump_partial_record_lost(void)
{
	struct nsight_status_cpu cpus[NR_CPUS];
	struct nsight_status before, after;
	struct nsight_dump_result res;
	struct nsight_stream_writer w;
	struct nsight_diag d = { 0 };
	struct nsight_summary s;
	struct nsight_dump_opts o = { .read_size = 11 };
	struct relay_dir rd;
	struct membuf m;
	uint64_t partial[10] = { NSIGHT_CREC_HDR(NSIGHT_REC_HANDOFF, HO - 8, 60) };

	make_relay_data();
	make_status(&before, cpus);
	/* 40 of the 80 bytes of a compact handoff. */
	REQUIRE(relay_dir_make(&rd, (const uint8_t *)partial, 40) == 0);
	o.debugfs = rd.path;

	membuf_open(&m, &w);
	CHECK_U64(nsight_dump(&w, &o, &before, fake_status, &before, &after, &res, &d), 0);
	membuf_close(&m);
	relay_dir_remove(&rd);
	CHECK_U64(res.lost_bytes, 40);
	CHECK_U64(res.cpus[3].lost_bytes, 40);
	CHECK_U64(res.cpus[3].bytes, relay_len[3]);
	CHECK_U64(res.bytes, relay_len[0] + relay_len[1] + relay_len[3]);
	/* The stream is still valid and holds only whole records. */
	REQUIRE(summarize_mem(&m, &s, &d) == 0);
	CHECK_U64(s.cpus[3].records, 3);
	CHECK_U64(s.n_problems, 0);
	nsight_summary_fini(&s);
	nsight_status_free(&after);
	nsight_dump_result_free(&res);
	free(m.data);
}

static void test_dump_refuses_running_capture(void)
{
	struct nsight_status_cpu cpus[NR_CPUS];
	struct nsight_status before, after;
	struct nsight_dump_result res;
	struct nsight_stream_writer w;
	struct nsight_diag d = { 0 };
	struct nsight_dump_opts o = { .debugfs = "/nonexistent" };
	struct membuf m;

	make_status(&before, cpus);
	before.enabled = true;
	membuf_open(&m, &w);
	CHECK_U64(nsight_dump(&w, &o, &before, fake_status, &before, &after, &res, &d), -EBUSY);
	membuf_close(&m);
	CHECK_STR_HAS(d.msg, "capture is running; run 'nsightctl stop' first");
	CHECK_U64(m.len, 0);
	nsight_status_free(&after);
	nsight_dump_result_free(&res);
	free(m.data);
}

static void test_dump_capture_started_meanwhile(void)
{
	struct nsight_status_cpu cpus[NR_CPUS];
	struct nsight_status before, later, after;
	struct nsight_dump_result res;
	struct nsight_stream_writer w;
	struct nsight_diag d = { 0 };
	struct nsight_dump_opts o = { 0 };
	struct relay_dir rd;
	struct membuf m;
	char msg[512];

	make_relay_data();
	make_status(&before, cpus);
	later = before;
	later.enabled = true;
	REQUIRE(relay_dir_make(&rd, NULL, 0) == 0);
	o.debugfs = rd.path;
	membuf_open(&m, &w);
	CHECK_U64(nsight_dump(&w, &o, &before, fake_status, &later, &after, &res, &d), -EBUSY);
	membuf_close(&m);
	relay_dir_remove(&rd);
	CHECK_STR_HAS(d.msg, "a capture was started during the dump");
	/* No END: the reader calls the stream truncated. */
	CHECK_U64(read_all(m.data, m.len, msg, sizeof(msg), NULL), -NSIGHT_E_TRUNCATED);
	nsight_status_free(&after);
	nsight_dump_result_free(&res);
	free(m.data);
}

static void test_dump_missing_dir(void)
{
	struct nsight_dump_result res;
	struct nsight_stream_writer w;
	struct nsight_diag d = { 0 };
	struct nsight_dump_opts o = { .debugfs = "/nonexistent-debugfs" };
	struct membuf m;

	membuf_open(&m, &w);
	CHECK_U64(nsight_dump_buffers(&w, &o, 2, &res, &d), -ENOENT);
	membuf_close(&m);
	CHECK_STR_HAS(d.msg, "/nonexistent-debugfs/nsight: No such file or directory (is debugfs mounted");
	nsight_dump_result_free(&res);
	free(m.data);
}

static void test_dump_corrupt_record(void)
{
	struct nsight_dump_result res;
	struct nsight_stream_writer w;
	struct nsight_diag d = { 0 };
	struct nsight_dump_opts o = { .read_size = 5 };
	struct relay_dir rd;
	struct membuf m;
	uint64_t bad[2] = { NSIGHT_CREC_HDR(NSIGHT_REC_HANDOFF, 0, 0) };	/* size 0 */
	char want[64];

	make_relay_data();
	REQUIRE(relay_dir_make(&rd, (const uint8_t *)bad, 16) == 0);
	o.debugfs = rd.path;
	membuf_open(&m, &w);
	CHECK_U64(nsight_dump_buffers(&w, &o, NR_CPUS, &res, &d), -EIO);
	membuf_close(&m);
	relay_dir_remove(&rd);
	snprintf(want, sizeof(want), "cpu 3: corrupt record at byte %zu of ", relay_len[3]);
	CHECK_STR_HAS(d.msg, want);
	CHECK_STR_HAS(d.msg, "/nsight/cpu3: size 0");
	nsight_dump_result_free(&res);
	free(m.data);
}

/* A pipe written in small pieces by another process: real short reads. */
static void test_dump_fd_short_reads(void)
{
	static uint8_t cat[NR_CPUS][16384];
	struct nsight_dump_cpu res = { 0 };
	struct nsight_stream_writer w;
	struct nsight_stream_hdr h = { .nr_cpus = 1 };
	struct nsight_diag d = { 0 };
	struct nsight_dump_opts o = { .chunk_max = 1000 };
	struct membuf m;
	size_t cat_len[NR_CPUS], max_chunk, n_chunks;
	int fds[2], status;
	pid_t pid;

	make_relay_data();
	REQUIRE(pipe(fds) == 0);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		_exit(write_pieces(fds[1], relay[0], relay_len[0]) ? 1 : 0);
	}
	close(fds[1]);
	membuf_open(&m, &w);
	nsight_stream_write_header(&w, &h);
	CHECK_U64(nsight_dump_cpu_fd(&w, fds[0], 0, "pipe", &o, &res, &d), 0);
	nsight_stream_write_end(&w);
	membuf_close(&m);
	close(fds[0]);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_U64(res.bytes, relay_len[0]);
	CHECK_U64(res.lost_bytes, 0);
	REQUIRE(collect(&m, cat, cat_len, &max_chunk, &n_chunks) == 0);
	CHECK_U64(cat_len[0], relay_len[0]);
	CHECK(!memcmp(cat[0], relay[0], relay_len[0]));
	CHECK(max_chunk <= 1000);
	CHECK_U64(n_chunks, res.chunks);
	free(m.data);
}

/* Append @len bytes of @buf to @path. */
static void append(const char *path, const uint8_t *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_APPEND);

	REQUIRE(fd >= 0);
	REQUIRE(write(fd, buf, len) == (ssize_t)len);
	close(fd);
}

/*
 * nsightctl record's pulls on a file that grows while it is read, as a
 * relay file of a running capture does: a pull writes the whole records
 * read so far and keeps a partial one for the next; a budget bounds a
 * pull; the last pull counts a partial record left as lost.
 */
static void test_drain_pulls_while_file_grows(void)
{
	static uint8_t cat[NR_CPUS][16384];
	char path[] = "/tmp/nsight-drain-XXXXXX";
	struct nsight_dump_cpu res = { 0 };
	struct nsight_stream_writer w;
	struct nsight_stream_hdr h = { .nr_cpus = 1 };
	struct nsight_diag d = { 0 };
	struct nsight_dump_opts o = { .chunk_max = 1000, .read_size = 64 };
	struct nsight_drain dr;
	size_t cat_len[NR_CPUS], max_chunk, n_chunks, cut, whole;
	struct membuf m;
	int fd;

	make_relay_data();
	fd = mkstemp(path);
	REQUIRE(fd >= 0);
	/* Cut inside a record. */
	cut = relay_len[0] / 2 + 5;
	whole = nsight_crecords_whole_prefix(relay[0], cut);
	REQUIRE(whole < cut);
	append(path, relay[0], cut);

	membuf_open(&m, &w);
	nsight_stream_write_header(&w, &h);
	REQUIRE(nsight_drain_init(&dr, fd, 0, path, &o, &res, &d) == 0);
	/* A budget: one read of 64 bytes, then the whole records held. */
	CHECK_U64(nsight_drain_pull(&w, &dr, 1, false, &d), 0);
	CHECK_U64(res.bytes, nsight_crecords_whole_prefix(relay[0], 64));
	CHECK_U64(nsight_drain_pull(&w, &dr, 0, false, &d), 0);
	CHECK_U64(res.bytes, whole);
	CHECK_U64(res.lost_bytes, 0);
	/* Nothing new: nothing written. */
	CHECK_U64(nsight_drain_pull(&w, &dr, 0, false, &d), 0);
	CHECK_U64(res.bytes, whole);
	append(path, relay[0] + cut, relay_len[0] - cut);
	/* The rest and a partial record after it, lost at the last pull. */
	append(path, relay[1], 10);
	CHECK_U64(nsight_drain_pull(&w, &dr, 0, true, &d), 0);
	CHECK_U64(res.bytes, relay_len[0]);
	CHECK_U64(res.lost_bytes, 10);
	nsight_drain_free(&dr);
	nsight_stream_write_end(&w);
	membuf_close(&m);
	close(fd);
	unlink(path);
	REQUIRE(collect(&m, cat, cat_len, &max_chunk, &n_chunks) == 0);
	CHECK_U64(cat_len[0], relay_len[0]);
	CHECK(!memcmp(cat[0], relay[0], relay_len[0]));
	CHECK(max_chunk <= 1000);
	CHECK_U64(n_chunks, res.chunks);
	free(m.data);
}

KTAP_MAIN(
	KTAP_TEST(test_drain_pulls_while_file_grows),
	KTAP_TEST(test_dump_default_chunks),
	KTAP_TEST(test_dump_small_reads_and_chunks),
	KTAP_TEST(test_dump_odd_chunk_limit),
	KTAP_TEST(test_dump_record_larger_than_chunk),
	KTAP_TEST(test_dump_partial_record_lost),
	KTAP_TEST(test_dump_refuses_running_capture),
	KTAP_TEST(test_dump_capture_started_meanwhile),
	KTAP_TEST(test_dump_missing_dir),
	KTAP_TEST(test_dump_corrupt_record),
	KTAP_TEST(test_dump_fd_short_reads),
)
