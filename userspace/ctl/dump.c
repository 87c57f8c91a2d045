// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "dump.h"
#include "nl.h"
#include "format/records.h"
#include "base/zstdio.h"

void nsight_dump_result_free(struct nsight_dump_result *res)
{
	free(res->cpus);
	res->cpus = NULL;
}

static int write_err(struct nsight_stream_writer *w, struct nsight_diag *d)
{
	return nsight_diag_set(d, EIO, "%s", w->diag.msg);
}

int nsight_drain_init(struct nsight_drain *dr, int fd, uint32_t cpu, const char *path,
		      const struct nsight_dump_opts *o, struct nsight_dump_cpu *res,
		      struct nsight_diag *d)
{
	memset(dr, 0, sizeof(*dr));
	dr->fd = fd;
	dr->cpu = cpu;
	dr->path = path;
	dr->res = res;
	dr->pids = o->pt ? o->pt->pids : NULL;
	dr->chunk_max = o->chunk_max ? o->chunk_max : NSIGHT_DUMP_CHUNK_MAX;
	dr->read_size = o->read_size ? o->read_size : dr->chunk_max;
	/* Room for a full chunk plus one record that does not fit in it. */
	dr->cap = dr->chunk_max + NSIGHT_CREC_MAX_SIZE;
	dr->buf = malloc(dr->cap);
	if (!dr->buf)
		return nsight_diag_set(d, ENOMEM, "out of memory");
	return 0;
}

void nsight_drain_free(struct nsight_drain *dr)
{
	free(dr->buf);
	dr->buf = NULL;
}

/*
 * Write the whole records held as RECORDS chunks: full chunks, and with
 * @flush a last smaller one; a partial record stays.
 */
static int drain_emit(struct nsight_stream_writer *w, struct nsight_drain *dr, bool flush,
		      struct nsight_diag *d)
{
	while (dr->have >= dr->chunk_max || (flush && dr->have)) {
		size_t n = nsight_crecords_whole_prefix(dr->buf, dr->have < dr->chunk_max ?
							dr->have : dr->chunk_max);

		if (n == 0) {
			uint64_t h;

			if (dr->have < sizeof(h))
				break;
			memcpy(&h, dr->buf, sizeof(h));
			if (NSIGHT_CREC_SIZE(h) == 0)
				return nsight_diag_set(d, EIO,
						       "cpu %" PRIu32 ": corrupt record at byte %" PRIu64 " of %s: size 0",
						       dr->cpu, dr->consumed, dr->path);
			if (NSIGHT_CREC_SIZE(h) > dr->have)
				break;
			n = NSIGHT_CREC_SIZE(h);	/* larger than chunk_max: alone */
		}
		/* The processes whose user code the PT trace needs. */
		if (dr->pids && nsight_pt_user_scan(dr->pids, dr->buf, n))
			return nsight_diag_set(d, ENOMEM, "out of memory");
		if (dr->sink) {
			int err = dr->sink(dr->sink_ctx, dr->cpu, dr->buf, n, d);

			if (err)
				return err;
		} else if (nsight_stream_write_crecords(w, dr->cpu, dr->buf, n)) {
			return write_err(w, d);
		}
		dr->res->bytes += n;
		dr->res->chunks++;
		memmove(dr->buf, dr->buf + n, dr->have - n);
		dr->have -= n;
		dr->consumed += n;
	}
	return 0;
}

int nsight_drain_pull(struct nsight_stream_writer *w, struct nsight_drain *dr, uint64_t budget,
		      bool final, struct nsight_diag *d)
{
	uint64_t got = 0;
	int err;

	for (;;) {
		err = drain_emit(w, dr, false, d);
		if (err)
			return err;
		if (budget && got >= budget)
			break;

		size_t want = dr->cap - dr->have < dr->read_size ? dr->cap - dr->have : dr->read_size;
		ssize_t r = read(dr->fd, dr->buf + dr->have, want);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return nsight_diag_set(d, errno, "cpu %" PRIu32 ": reading %s at byte %" PRIu64 ": %s",
					       dr->cpu, dr->path, dr->consumed + dr->have, strerror(errno));
		}
		if (r == 0)
			break;
		dr->have += (size_t)r;
		got += (size_t)r;
	}
	err = drain_emit(w, dr, true, d);
	if (!err && final)
		dr->res->lost_bytes = dr->have;
	return err;
}

int nsight_dump_cpu_fd(struct nsight_stream_writer *w, int fd, uint32_t cpu,
		       const char *path, const struct nsight_dump_opts *o,
		       struct nsight_dump_cpu *res, struct nsight_diag *d)
{
	struct nsight_drain dr;
	int err;

	err = nsight_drain_init(&dr, fd, cpu, path, o, res, d);
	if (!err)
		err = nsight_drain_pull(w, &dr, 0, true, d);
	nsight_drain_free(&dr);
	return err;
}

int nsight_dump_buffers(struct nsight_stream_writer *w, const struct nsight_dump_opts *o,
			uint32_t nr_cpus, struct nsight_dump_result *res,
			struct nsight_diag *d)
{
	char path[4096];
	struct stat sb;
	uint32_t cpu;
	int err;

	memset(res, 0, sizeof(*res));
	res->cpus = calloc(nr_cpus ? nr_cpus : 1, sizeof(*res->cpus));
	if (!res->cpus)
		return nsight_diag_set(d, ENOMEM, "out of memory");
	res->nr_cpus = nr_cpus;

	/* Without it every cpuN would look absent: say why instead. */
	snprintf(path, sizeof(path), "%s/nsight", o->debugfs);
	if (stat(path, &sb))
		return nsight_diag_set(d, errno, "%s: %s (is debugfs mounted at %s and the module loaded?)",
				       path, strerror(errno), o->debugfs);
	if (!S_ISDIR(sb.st_mode))
		return nsight_diag_set(d, ENOTDIR, "%s: not a directory", path);

	for (cpu = 0; cpu < nr_cpus; cpu++) {
		struct nsight_dump_cpu *c = &res->cpus[cpu];
		int fd;

		snprintf(path, sizeof(path), "%s/nsight/cpu%" PRIu32, o->debugfs, cpu);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT)
				continue;	/* not a possible CPU: no buffer */
			return nsight_diag_set(d, errno, "cannot open %s: %s", path, strerror(errno));
		}
		c->present = true;
		err = nsight_dump_cpu_fd(w, fd, cpu, path, o, c, d);
		close(fd);
		if (err)
			return err;
		res->cpus_read++;
		res->bytes += c->bytes;
		res->lost_bytes += c->lost_bytes;
	}
	return 0;
}

int nsight_readers_lock(const char *debugfs, int *fd, struct nsight_diag *d)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/nsight", debugfs);
	*fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0)
		return nsight_diag_set(d, errno, "%s: %s (is debugfs mounted at %s and the module loaded?)",
				       path, strerror(errno), debugfs);
	if (flock(*fd, LOCK_EX | LOCK_NB)) {
		int e = errno;

		close(*fd);
		*fd = -1;
		if (e == EWOULDBLOCK)
			return nsight_diag_set(d, EBUSY,
					       "another nsightctl record or dump is reading %s; one reader at a time",
					       path);
		return nsight_diag_set(d, e, "%s: cannot lock: %s", path, strerror(e));
	}
	return 0;
}

static void fill_header(struct nsight_stream_hdr *h, const struct nsight_status *st)
{
	struct timespec ts;
	struct utsname u;

	memset(h, 0, sizeof(*h));
	h->tsc_hz = st->tsc_hz;
	h->nr_cpus = st->nr_cpus;
	h->sources = st->sources;
	if (!clock_gettime(CLOCK_REALTIME, &ts))
		h->dump_realtime_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	/* utsname allows 64 characters, the stream 63 and a NUL. */
	if (!uname(&u))
		memcpy(h->release, u.release, strnlen(u.release, sizeof(h->release) - 1));
}

/* Sample the PHCs and write their chunk; only a write error is an error. */
int nsight_dump_phc(struct nsight_stream_writer *w, const struct nsight_phc_opts *po,
		    struct nsight_dump_result *res, struct nsight_diag *d)
{
	struct nsight_diag pd = { 0 };
	struct nsight_phc_set set;
	int err = 0;

	if (nsight_phc_collect(po, &set, &pd) < 0) {
		if (po->warn)
			po->warn(po->warn_ctx, pd.msg);
	} else if (set.n) {
		if (nsight_stream_write_phc(w, set.samples, set.n)) {
			err = write_err(w, d);
		} else {
			res->phc_clocks = set.clocks;
			res->phc_samples = set.n;
		}
	}
	res->phc_skipped = set.skipped;
	nsight_phc_set_free(&set);
	return err;
}

int nsight_dump(struct nsight_stream_writer *w, const struct nsight_dump_opts *o,
		const struct nsight_status *before, nsight_status_fn get_status, void *ctx,
		struct nsight_status *after, struct nsight_dump_result *res,
		struct nsight_diag *d)
{
	int err;

	memset(after, 0, sizeof(*after));
	memset(res, 0, sizeof(*res));
	/* The unfinished sub-buffers are only read once writers stopped. */
	if (before->enabled)
		return nsight_diag_set(d, EBUSY, "capture is running; run 'nsightctl stop' first");

	err = nsight_dump_header(w, before, d);
	if (err)
		return err;
	err = nsight_dump_buffers(w, o, before->nr_cpus, res, d);
	if (err)
		return err;
	return nsight_dump_finish(w, o, before, get_status, ctx, after, res, d);
}

int nsight_dump_header(struct nsight_stream_writer *w, const struct nsight_status *st,
		       struct nsight_diag *d)
{
	struct nsight_stream_hdr h;

	fill_header(&h, st);
	if (nsight_stream_write_header(w, &h))
		return write_err(w, d);
	return 0;
}

int nsight_dump_finish(struct nsight_stream_writer *w, const struct nsight_dump_opts *o,
		       const struct nsight_status *before, nsight_status_fn get_status, void *ctx,
		       struct nsight_status *after, struct nsight_dump_result *res,
		       struct nsight_diag *d)
{
	struct nsight_cpu_status *cs = NULL;
	size_t i;
	int err;

	err = get_status(ctx, after, d);
	if (err)
		return err;
	if (after->enabled)
		return nsight_diag_set(d, EBUSY, "a capture was started during the dump; the stream is incomplete");
	if (after->nr_cpus != before->nr_cpus)
		return nsight_diag_set(d, EIO, "nr_cpus changed from %" PRIu32 " to %" PRIu32 " during the dump",
				       before->nr_cpus, after->nr_cpus);

	if (after->n_cpus) {
		cs = calloc(after->n_cpus, sizeof(*cs));
		if (!cs)
			return nsight_diag_set(d, ENOMEM, "out of memory");
	}
	for (i = 0; i < after->n_cpus; i++) {
		const struct nsight_status_cpu *c = &after->cpus[i];

		cs[i].cpu = c->id;
		cs[i].online = c->online;
		cs[i].hook_hits = c->hook_hits;
		cs[i].records_written = c->records_written;
		cs[i].records_dropped = c->records_dropped;
		cs[i].buffer_used = c->buffer_used;
	}
	err = o->phc ? nsight_dump_phc(w, o->phc, res, d) : 0;
	if (!err && o->kallsyms) {
		struct nsight_diag kd = { 0 };
		int kret = nsight_dump_ksyms(w, o->kallsyms, &res->ksyms, &kd);

		if (kret < 0)
			err = nsight_diag_set(d, kd.code, "%s", kd.msg);
		else if (kret > 0 && o->warn)
			o->warn(o->warn_ctx, kd.msg);
		else if (!kret && res->ksyms.no_addrs && o->warn)
			o->warn(o->warn_ctx, "kallsyms hides kernel addresses (kptr_restrict): functions stay unnamed");
	}
	if (!err && o->pt)
		err = nsight_dump_pt(w, o->pt, before->nr_cpus, &res->pt, d);
	if (err) {
		free(cs);
		return err;
	}
	err = nsight_stream_write_status(w, cs, after->n_cpus);
	free(cs);
	if (err || nsight_stream_write_end(w))
		return write_err(w, d);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* nsightctl dump                                                           */

void cmd_dump_usage(FILE *f)
{
	fprintf(f,
		"Usage: nsightctl dump [-o FILE] [--debugfs DIR] [--no-phc] [--no-ksyms] [--compress]\n"
		"\n"
		"Drain the per-CPU buffers of a stopped capture into a dump stream for\n"
		"nsight-analyze, on stdout unless -o is given (stdout must not be a\n"
		"terminal). Reading consumes the buffers.\n"
		"\n"
		"The stream also gets readings of every PTP hardware clock (/dev/ptpN,\n"
		"the NIC clocks of hardware timestamps) against CLOCK_REALTIME; a clock\n"
		"that cannot be read is skipped with a warning. And it gets the kernel's\n"
		"text symbols (/proc/kallsyms, compressed, about 1 MB), which name the\n"
		"functions of sampled stacks. When the module traced with Intel PT, each\n"
		"CPU's trace follows, with the code it ran (kernel and module text from\n"
		"/proc/kcore) so that it can be decoded elsewhere.\n"
		"\n"
		"  -o, --output FILE   write the stream to FILE ('-' for stdout)\n"
		"  -d, --debugfs DIR   where debugfs is mounted (default /sys/kernel/debug)\n"
		"      --no-phc        do not read the PTP hardware clocks\n"
		"      --no-ksyms      do not add the kernel symbols\n"
		"  -z, --compress      compress the stream with zstd (nsight-analyze reads it as is)\n"
		"  -h, --help          show this help\n");
}

static int nl_status(void *ctx, struct nsight_status *st, struct nsight_diag *d)
{
	return nsight_status_get(ctx, st, d);
}

static void phc_warn(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "nsightctl: warning: %s\n", msg);
}

void nsight_dump_report(const struct nsight_status *after, const struct nsight_dump_result *res)
{
	size_t i;

	for (i = 0; i < after->n_cpus; i++)
		if (after->cpus[i].records_dropped)
			fprintf(stderr, "nsightctl: cpu %" PRIu32 ": %" PRIu64 " records dropped (buffer full)\n",
				after->cpus[i].id, after->cpus[i].records_dropped);
	for (i = 0; i < res->nr_cpus; i++)
		if (res->cpus[i].lost_bytes)
			fprintf(stderr, "nsightctl: cpu %zu: partial record of %" PRIu64 " bytes at the end of the buffer, lost\n",
				i, res->cpus[i].lost_bytes);
	fprintf(stderr, "nsightctl: dumped %" PRIu64 " bytes of records from %" PRIu32 " CPUs, %" PRIu64 " records dropped\n",
		res->bytes, res->cpus_read, after->records_dropped);
	if (res->phc_clocks)
		fprintf(stderr, "nsightctl: %zu readings of %" PRIu32 " PTP hardware clocks\n",
			res->phc_samples, res->phc_clocks);
	if (res->ksyms.lines)
		fprintf(stderr, "nsightctl: %zu kernel symbols (%zu bytes compressed)\n",
			res->ksyms.lines, res->ksyms.packed);
	if (res->pt.cpus)
		fprintf(stderr, "nsightctl: %" PRIu64 " bytes of Intel PT trace from %" PRIu32 " CPUs, %" PRIu64 " bytes of code in %" PRIu32 " sections\n",
			res->pt.bytes, res->pt.cpus, res->pt.text_bytes, res->pt.text_sections);
	if (res->pt.user.procs || res->pt.user.gone)
		fprintf(stderr, "nsightctl: user code of %" PRIu32 " traced processes: %" PRIu64 " bytes in %" PRIu32 " mappings, %" PRIu64 " function symbols; %" PRIu32 " processes gone before the dump (their code is not decoded)\n",
			res->pt.user.procs, res->pt.user.bytes, res->pt.user.mappings,
			res->pt.user.syms, res->pt.user.gone);
}

void nsight_dump_cli_init(struct nsight_dump_cli *c)
{
	memset(c, 0, sizeof(*c));
	c->phc = (struct nsight_phc_opts){ .warn = phc_warn };
	nsight_pt_user_pids_init(&c->pids);
	c->pt = (struct nsight_pt_dump_opts){ .kallsyms = "/proc/kallsyms", .modules = "/proc/modules",
					     .kcore = "/proc/kcore", .warn = phc_warn, .pids = &c->pids,
					     .user = { .proc = "/proc", .warn = phc_warn } };
	c->o = (struct nsight_dump_opts){ .debugfs = "/sys/kernel/debug", .phc = &c->phc,
					  .kallsyms = "/proc/kallsyms", .warn = phc_warn, .pt = &c->pt };
	c->out = stdout;
}

bool nsight_dump_cli_option(struct nsight_dump_cli *c, int opt, const char *arg)
{
	switch (opt) {
	case 'o':
		c->out_path = arg;
		return true;
	case 'd':
		c->o.debugfs = arg;
		return true;
	case 'P':
		c->o.phc = NULL;
		return true;
	case 'K':
		c->o.kallsyms = NULL;
		return true;
	case 'z':
		c->compress = true;
		return true;
	}
	return false;
}

int nsight_dump_cli_check(struct nsight_dump_cli *c, const char *cmd)
{
	c->pt.debugfs = c->o.debugfs;
	if (!c->out_path && isatty(STDOUT_FILENO))
		return cli_usage_error(cmd, "refusing to write a binary stream to a terminal; use -o FILE or a pipe");
	if (c->out_path && !strcmp(c->out_path, "-"))
		c->out_path = NULL;
	return 0;
}

int nsight_dump_cli_open(struct nsight_dump_cli *c, struct nsight_diag *d)
{
	if (c->out_path) {
		c->out = fopen(c->out_path, "wb");
		if (!c->out)
			return nsight_diag_set(d, errno, "cannot create %s: %s", c->out_path,
					       strerror(errno));
	}
	if (c->compress) {
		FILE *z = nsight_zstd_open_write(c->out, c->out_path != NULL, NSIGHT_ZSTD_LEVEL);

		if (!z)
			return nsight_diag_set(d, ENOMEM, "out of memory");
		c->file = c->out;
		c->out = z;
	}
	nsight_stream_writer_init_file(&c->w, c->out);
	return 0;
}

int nsight_dump_cli_close(struct nsight_dump_cli *c, int err, struct nsight_diag *d)
{
	const char *name = c->out_path ? c->out_path : "stdout";

	if (err && c->w.diag.code)	/* the output failed: name it */
		err = nsight_diag_set(d, EIO, "writing %s: %s", name, c->w.diag.msg);
	/* A compressed stream's FILE closes (or flushes) the output under it. */
	if ((c->out_path || c->compress) && c->out) {
		if (fclose(c->out) && !err)
			err = nsight_diag_set(d, errno, "writing %s: %s", name, strerror(errno));
		if (err)
			unlink(c->out_path);	/* not a valid stream */
	} else if (c->out && fflush(c->out) && !err) {
		err = nsight_diag_set(d, errno, "writing %s: %s", name, strerror(errno));
	}
	c->out = NULL;
	nsight_pt_user_pids_fini(&c->pids);
	return err;
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "debugfs", required_argument, NULL, 'd' },
		{ "no-phc", no_argument, NULL, 'P' },
		{ "no-ksyms", no_argument, NULL, 'K' },
		{ "compress", no_argument, NULL, 'z' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct nsight_status before, after = { 0 };
	struct nsight_dump_result res = { 0 };
	struct nsight_diag d = { 0 };
	struct nsight_dump_cli cli;
	struct nsight_nl nl;
	int c, err, ret = NSIGHT_EXIT_OK, lock = -1;

	nsight_dump_cli_init(&cli);
	while ((c = cli_getopt(argc, argv, "o:d:zh", opts)) != -1) {
		if (nsight_dump_cli_option(&cli, c, optarg))
			continue;
		if (c == 'h') {
			cmd_dump_usage(stdout);
			return NSIGHT_EXIT_OK;
		}
		return NSIGHT_EXIT_USAGE;
	}
	if (optind < argc)
		return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind]);
	if (nsight_dump_cli_check(&cli, argv[0]))
		return NSIGHT_EXIT_USAGE;

	if (nsight_nl_open(&nl, &d))
		return cli_fail(&d);
	/* Check before creating the output file. */
	err = nsight_status_get(&nl, &before, &d);
	if (!err && before.enabled)
		err = nsight_diag_set(&d, EBUSY, "capture is running; run 'nsightctl stop' first");
	if (!err)
		err = nsight_readers_lock(cli.o.debugfs, &lock, &d);
	if (!err)
		err = nsight_dump_cli_open(&cli, &d);
	if (!err) {
		err = nsight_dump(&cli.w, &cli.o, &before, nl_status, &nl, &after, &res, &d);
		err = nsight_dump_cli_close(&cli, err, &d);
		if (!err)
			nsight_dump_report(&after, &res);
	}
	nsight_nl_close(&nl);
	if (lock >= 0)
		close(lock);
	if (err)
		ret = cli_fail(&d);
	else if (res.lost_bytes)
		ret = NSIGHT_EXIT_FAIL;
	nsight_status_free(&before);
	nsight_status_free(&after);
	nsight_dump_result_free(&res);
	return ret;
}
