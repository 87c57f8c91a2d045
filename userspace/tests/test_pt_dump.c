// SPDX-License-Identifier: MIT
/* The PT part of a dump: trace files become PT chunks, the code KTEXT chunks. */
#include <sys/stat.h>

#include <unistd.h>

#include "capture/usyms.h"
#include "ctl/dump.h"
#include "format/utext.h"
#include "kcore_synth.h"
#include "test.h"

struct fake {
	char dir[64], path[160];
	struct core core;
	struct nsight_pt_dump_opts o;
	char kallsyms[160], modules[160], warned[512];
};

static void on_warn(void *ctx, const char *msg)
{
	struct fake *f = ctx;

	snprintf(f->warned, sizeof(f->warned), "%s", msg);
}

static bool put_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");
	bool ok = f && fwrite(data, 1, len, f) == len;

	if (f && fclose(f))
		ok = false;
	return ok;
}

/* debugfs with nsight/pt/cpu0 (empty) and cpu1 (@n bytes), kallsyms, modules, a core. */
static bool fake_init(struct fake *f, size_t n, bool with_core)
{
	static const char syms[] = "ffffffff81000000 T _stext\nffffffff81001000 t f\n"
				   "ffffffff81001800 T _etext\n";
	static const char mods[] = "veth 256 0 - Live 0xffff888000000000\n";
	uint8_t *trace = malloc(n ? n : 1);
	size_t i;
	bool ok;

	memset(f, 0, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/nsight-ptdump-XXXXXX");
	if (!trace || !mkdtemp(f->dir))
		return false;
	for (i = 0; i < n; i++)
		trace[i] = (uint8_t)(i * 31);
	snprintf(f->path, sizeof(f->path), "%s/nsight", f->dir);
	ok = !mkdir(f->path, 0700);
	snprintf(f->path, sizeof(f->path), "%s/nsight/pt", f->dir);
	ok = ok && !mkdir(f->path, 0700);
	snprintf(f->path, sizeof(f->path), "%s/nsight/pt/cpu0", f->dir);
	ok = ok && put_file(f->path, "", 0);
	snprintf(f->path, sizeof(f->path), "%s/nsight/pt/cpu1", f->dir);
	ok = ok && put_file(f->path, trace, n);
	snprintf(f->kallsyms, sizeof(f->kallsyms), "%s/kallsyms", f->dir);
	ok = ok && put_file(f->kallsyms, syms, sizeof(syms) - 1);
	snprintf(f->modules, sizeof(f->modules), "%s/modules", f->dir);
	ok = ok && put_file(f->modules, mods, sizeof(mods) - 1);
	free(trace);
	if (with_core)
		ok = ok && write_core(&f->core, 0, true);
	else
		snprintf(f->core.path, sizeof(f->core.path), "%.40s/no-kcore", f->dir);
	f->o = (struct nsight_pt_dump_opts){ .debugfs = f->dir, .kallsyms = f->kallsyms,
					     .modules = f->modules, .kcore = f->core.path,
					     .warn = on_warn, .warn_ctx = f };
	return ok;
}

static void fake_fini(struct fake *f)
{
	char cmd[128];

	unlink(f->core.path);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd))
		printf("# cannot remove %s\n", f->dir);
}

/* Dump into memory, read back: chunk types and sizes. */
static void run(struct fake *f, uint32_t nr_cpus, struct nsight_pt_dump_result *res,
		struct nsight_chunk *got, size_t *n_got, uint64_t *payload_sum)
{
	struct nsight_stream_hdr h = { .nr_cpus = nr_cpus, .tsc_hz = 1000000000 };
	struct nsight_stream_writer w;
	struct nsight_stream_reader r;
	struct nsight_diag d = { 0 };
	struct nsight_chunk c;
	struct membuf m;
	FILE *in;

	membuf_open(&m, &w);
	nsight_stream_write_header(&w, &h);
	CHECK(nsight_dump_pt(&w, &f->o, nr_cpus, res, &d) == 0);
	nsight_stream_write_end(&w);
	membuf_close(&m);
	*n_got = 0;
	*payload_sum = 0;
	in = mem_reader(m.data, m.len);
	REQUIRE(in);
	REQUIRE(nsight_stream_reader_init(&r, in) == 0);
	while (nsight_stream_read_chunk(&r, &c) > 0 && *n_got < 8) {
		if (c.type == NSIGHT_CHUNK_KTEXT) {
			struct nsight_ktext_hdr th;
			const uint8_t *code = (const uint8_t *)c.payload + sizeof(th);
			size_t i;

			memcpy(&th, c.payload, sizeof(th));
			for (i = 0; i < th.len; i++)
				if (code[i] != pattern(th.addr + i))
					break;
			CHECK_U64(i, th.len);
		}
		if (c.type == NSIGHT_CHUNK_PT) {
			const uint8_t *p = c.payload;

			CHECK(p[1] == 31 && p[2] == 62);
		}
		*payload_sum += c.size;
		got[(*n_got)++] = c;
	}
	CHECK(r.ended);
	nsight_stream_reader_fini(&r);
	fclose(in);
	free(m.data);
}

static void test_trace_and_code(void)
{
	struct nsight_pt_dump_result res;
	struct nsight_chunk got[8];
	uint64_t sum;
	struct fake f;
	size_t n;

	REQUIRE(fake_init(&f, 3000, true));
	run(&f, 2, &res, got, &n, &sum);
	CHECK_U64(res.cpus, 1);
	CHECK_U64(res.bytes, 3000);
	CHECK_U64(res.text_sections, 2);
	CHECK_U64(res.text_bytes, 0x1800 + 256);
	REQUIRE(n == 3);
	CHECK_U64(got[0].type, NSIGHT_CHUNK_PT);
	CHECK_U64(got[0].cpu, 1);
	CHECK_U64(got[0].size, 3000);
	CHECK_U64(got[1].type, NSIGHT_CHUNK_KTEXT);
	CHECK_U64(got[1].size, sizeof(struct nsight_ktext_hdr) + 0x1800);
	CHECK_U64(got[2].type, NSIGHT_CHUNK_KTEXT);
	CHECK_U64(got[2].size, sizeof(struct nsight_ktext_hdr) + 256);
	CHECK(f.warned[0] == '\0');
	fake_fini(&f);
}

/* No trace: no chunks, no code read. No kcore: a warning, the trace still. */
static void test_no_trace_no_core(void)
{
	struct nsight_pt_dump_result res;
	struct nsight_chunk got[8];
	uint64_t sum;
	struct fake f;
	size_t n;

	REQUIRE(fake_init(&f, 0, false));
	run(&f, 2, &res, got, &n, &sum);
	CHECK_U64(n, 0);
	CHECK(f.warned[0] == '\0');
	fake_fini(&f);

	REQUIRE(fake_init(&f, 100, false));
	run(&f, 2, &res, got, &n, &sum);
	CHECK_U64(n, 1);
	CHECK_U64(res.text_sections, 0);
	CHECK_STR_HAS(f.warned, "the trace cannot be decoded without the code");
	fake_fini(&f);
}

/* A function of this test, to find in its own code. */
__attribute__((noinline)) int nsight_test_user_marker(int x)
{
	return x * 3 + 1;
}

/* @len bytes of a stream written by nsight_pt_user_dump() for this process. */
static uint8_t *self_stream(const struct nsight_pt_user_opts *o, struct nsight_pt_user_result *res,
			    size_t *len)
{
	struct nsight_stream_hdr h = { .nr_cpus = 1, .tsc_hz = 1000000000 };
	struct nsight_pt_user_pids pids;
	struct nsight_stream_writer w;
	struct nsight_diag d = { 0 };
	struct membuf m;
	/* Two pt_cr3 records of this process (compact), a SUBBUF between. */
	uint64_t crecs[4 + 4 + 4] = { 0 };
	struct nsight_rec_pt_cr3 r = { .cr3 = 0x1000, .pid = (uint32_t)getpid() };

	crecs[0] = NSIGHT_CREC_HDR(NSIGHT_REC_PT_CR3, 32, 1);
	memcpy(&crecs[1], (const uint8_t *)&r + sizeof(r.hdr), 24);
	crecs[4] = NSIGHT_CREC_HDR(NSIGHT_REC_SUBBUF, 32, 2);
	crecs[8] = NSIGHT_CREC_HDR(NSIGHT_REC_PT_CR3, 32, 3);
	memcpy(&crecs[9], (const uint8_t *)&r + sizeof(r.hdr), 24);
	nsight_pt_user_pids_init(&pids);
	CHECK_U64(nsight_pt_user_scan(&pids, crecs, sizeof(crecs)), 0);
	CHECK_U64(pids.n, 1);
	membuf_open(&m, &w);
	nsight_stream_write_header(&w, &h);
	CHECK_U64(nsight_pt_user_dump(&w, o, &pids, res, &d), 0);
	nsight_stream_write_end(&w);
	membuf_close(&m);
	nsight_pt_user_pids_fini(&pids);
	*len = m.len;
	return (uint8_t *)m.data;
}

/*
 * The user code of this very process, through nsightctl's writer and the
 * analyzer's reader: the mapping that holds a function of the test has
 * its bytes as they are in memory, and its symbols name that function.
 */
static void test_user_code_self(void)
{
	struct nsight_pt_user_opts o = { .proc = "/proc" };
	uint64_t fn = (uint64_t)(uintptr_t)nsight_test_user_marker;
	struct nsight_pt_user_result res;
	struct nsight_stream_reader r;
	struct nsight_usyms us;
	struct nsight_chunk c;
	struct nsight_diag d = { 0 };
	size_t len, found = 0, chunks = 0;
	uint8_t *data = self_stream(&o, &res, &len);
	const char *name;
	FILE *in;

	CHECK_U64(res.procs, 1);
	CHECK_U64(res.gone, 0);
	CHECK(res.mappings >= 2 && res.syms > 0);
	nsight_usyms_init(&us);
	in = mem_reader(data, len);
	REQUIRE(in && nsight_stream_reader_init(&r, in) == 0);
	while (nsight_stream_read_chunk(&r, &c) > 0) {
		struct nsight_utext u;

		if (c.type != NSIGHT_CHUNK_UTEXT)
			continue;
		chunks++;
		REQUIRE(nsight_utext_parse(&c, &u, &d) == 0);
		CHECK_U64(u.hdr.pid, (uint64_t)getpid());
		CHECK_U64(nsight_usyms_add(&us, &u, &d), 0);
		if (fn >= u.hdr.addr && fn < u.hdr.addr + u.hdr.code_len) {
			found++;
			CHECK(!memcmp(u.code + (fn - u.hdr.addr), (const void *)(uintptr_t)fn, 16));
			CHECK(!(u.hdr.flags & NSIGHT_UTEXT_FROM_FILE));
			CHECK(u.hdr.flags & NSIGHT_UTEXT_SYMTAB);
		}
	}
	CHECK(r.ended);
	CHECK_U64(chunks, res.mappings);
	CHECK_U64(found, 1);
	nsight_usyms_sort(&us);
	name = nsight_usyms_find(&us, (uint32_t)getpid(), fn);
	CHECK(name && !strcmp(name, "nsight_test_user_marker [test_pt_dump]"));
	name = nsight_usyms_find(&us, (uint32_t)getpid(), fn + 1);
	CHECK(name && !strncmp(name, "nsight_test_user_marker", 23));
	printf("# %u mappings, %" PRIu64 " bytes, %" PRIu64 " symbols; %s\n", res.mappings,
	       res.bytes, res.syms, name ? name : "-");
	nsight_stream_reader_fini(&r);
	fclose(in);
	nsight_usyms_fini(&us);
	free(data);

	/* A bound below the first mapping: nothing written, all counted. */
	o.max_bytes = 1;
	data = self_stream(&o, &res, &len);
	CHECK_U64(res.mappings, 0);
	CHECK(res.left_out > 0);
	free(data);
	CHECK_U64((uint64_t)nsight_test_user_marker(1), 4);
}

/* A malformed UTEXT chunk: the reader names the chunk's byte offset. */
static void test_user_chunk_malformed(void)
{
	struct nsight_utext_hdr h = { .pid = 7, .addr = 0x400000 };
	struct nsight_usym sym = { .addr = 0x400000, .size = 4, .name = 9 };
	struct nsight_diag d = { 0 };
	struct nsight_utext u;
	struct nsight_chunk c = { .type = NSIGHT_CHUNK_UTEXT, .offset = 4096,
				  .payload_offset = 4096 + sizeof(struct nsight_chunk_hdr) };
	uint8_t code[5] = { 0xc3 };
	size_t size;
	uint8_t *p = nsight_utext_build(&h, code, sizeof(code), &sym, 1, "f", 2, &size);

	REQUIRE(p);
	c.payload = p;
	c.size = size;
	/* The name offset is past the names. */
	CHECK(nsight_utext_parse(&c, &u, &d) == -NSIGHT_E_CHUNK);
	CHECK_STR_HAS(d.msg, "UTEXT chunk at byte 4096: symbol 0 at byte");
	sym.name = 0;
	memcpy(p + sizeof(h) + 8, &sym, sizeof(sym));
	CHECK_U64(nsight_utext_parse(&c, &u, &d), 0);
	CHECK_U64(u.hdr.code_len, 5);
	CHECK_U64(u.code[0], 0xc3);
	/* Sizes that do not add up. */
	c.size = size - 1;
	CHECK(nsight_utext_parse(&c, &u, &d) == -NSIGHT_E_CHUNK);
	CHECK_STR_HAS(d.msg, "UTEXT chunk at byte 4096: header, code, symbols and names do not add up");
	c.size = size;
	h.hdr_size = 12;
	memcpy(p, &h.hdr_size, 4);
	CHECK(nsight_utext_parse(&c, &u, &d) == -NSIGHT_E_CHUNK);
	CHECK_STR_HAS(d.msg, "header size");
	free(p);
}

KTAP_MAIN(
	KTAP_TEST(test_trace_and_code),
	KTAP_TEST(test_no_trace_no_core),
	KTAP_TEST(test_user_code_self),
	KTAP_TEST(test_user_chunk_malformed),
)
