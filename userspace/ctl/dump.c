// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "dump.h"
#include "nl.h"
#include "records.h"

void nsight_dump_result_free(struct nsight_dump_result *res)
{
	free(res->cpus);
	res->cpus = NULL;
}

static int write_err(struct nsight_stream_writer *w, struct nsight_diag *d)
{
	return nsight_diag_set(d, EIO, "%s", w->diag.msg);
}

int nsight_dump_cpu_fd(struct nsight_stream_writer *w, int fd, uint32_t cpu,
		       const char *path, const struct nsight_dump_opts *o,
		       struct nsight_dump_cpu *res, struct nsight_diag *d)
{
	size_t chunk_max = o->chunk_max ? o->chunk_max : NSIGHT_DUMP_CHUNK_MAX;
	size_t read_size = o->read_size ? o->read_size : chunk_max;
	/* Room for a full chunk plus one record that does not fit in it. */
	size_t cap = chunk_max + NSIGHT_REC_MAX_SIZE;
	uint64_t consumed = 0;	/* file offset of buf[0] */
	size_t have = 0;
	bool eof = false;
	uint8_t *buf;
	int err = 0;

	buf = malloc(cap);
	if (!buf)
		return nsight_diag_set(d, ENOMEM, "out of memory");

	for (;;) {
		/* Emit whole records: a full chunk while reading, all at EOF. */
		while (have >= chunk_max || (eof && have)) {
			size_t n = nsight_records_whole_prefix(buf, have < chunk_max ? have : chunk_max);

			if (n == 0) {
				struct nsight_rec_hdr h;

				if (have < sizeof(h))
					break;
				memcpy(&h, buf, sizeof(h));
				if (!nsight_rec_size_valid(h.size)) {
					err = nsight_diag_set(d, EIO,
							      "cpu %" PRIu32 ": corrupt record at byte %" PRIu64 " of %s: size %u",
							      cpu, consumed, path, h.size);
					goto out;
				}
				if (h.size > have)
					break;
				n = h.size;	/* larger than chunk_max: alone */
			}
			if (nsight_stream_write_records(w, cpu, buf, n)) {
				err = write_err(w, d);
				goto out;
			}
			res->bytes += n;
			res->chunks++;
			memmove(buf, buf + n, have - n);
			have -= n;
			consumed += n;
		}
		if (eof)
			break;

		size_t want = cap - have < read_size ? cap - have : read_size;
		ssize_t r = read(fd, buf + have, want);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = nsight_diag_set(d, errno, "cpu %" PRIu32 ": reading %s at byte %" PRIu64 ": %s",
					      cpu, path, consumed + have, strerror(errno));
			goto out;
		}
		if (r == 0)
			eof = true;
		have += (size_t)r;
	}
	res->lost_bytes = have;
out:
	free(buf);
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
static int dump_phc(struct nsight_stream_writer *w, const struct nsight_phc_opts *po,
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
	struct nsight_cpu_status *cs = NULL;
	struct nsight_stream_hdr h;
	size_t i;
	int err;

	memset(after, 0, sizeof(*after));
	memset(res, 0, sizeof(*res));
	/* Reading while probes write could tear a record. */
	if (before->enabled)
		return nsight_diag_set(d, EBUSY, "capture is running; run 'nsightctl stop' first");

	fill_header(&h, before);
	if (nsight_stream_write_header(w, &h))
		return write_err(w, d);
	err = nsight_dump_buffers(w, o, before->nr_cpus, res, d);
	if (err)
		return err;

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
	err = o->phc ? dump_phc(w, o->phc, res, d) : 0;
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
		"Usage: nsightctl dump [-o FILE] [--debugfs DIR] [--no-phc] [--no-ksyms]\n"
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

static void report(const struct nsight_status *after, const struct nsight_dump_result *res)
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
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "debugfs", required_argument, NULL, 'd' },
		{ "no-phc", no_argument, NULL, 'P' },
		{ "no-ksyms", no_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct nsight_phc_opts phc = { .warn = phc_warn };
	struct nsight_pt_dump_opts pt = { .kallsyms = "/proc/kallsyms", .modules = "/proc/modules",
					  .kcore = "/proc/kcore", .warn = phc_warn };
	struct nsight_dump_opts o = { .debugfs = "/sys/kernel/debug", .phc = &phc,
				      .kallsyms = "/proc/kallsyms", .warn = phc_warn, .pt = &pt };
	struct nsight_status before, after = { 0 };
	struct nsight_dump_result res = { 0 };
	struct nsight_stream_writer w;
	struct nsight_diag d = { 0 };
	const char *out_path = NULL;
	struct nsight_nl nl;
	FILE *out = stdout;
	int c, err, ret = NSIGHT_EXIT_OK;

	while ((c = cli_getopt(argc, argv, "o:d:h", opts)) != -1) {
		switch (c) {
		case 'o':
			out_path = optarg;
			break;
		case 'd':
			o.debugfs = optarg;
			break;
		case 'P':
			o.phc = NULL;
			break;
		case 'K':
			o.kallsyms = NULL;
			break;
		case 'h':
			cmd_dump_usage(stdout);
			return NSIGHT_EXIT_OK;
		default:
			return NSIGHT_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind]);
	pt.debugfs = o.debugfs;
	if (!out_path && isatty(STDOUT_FILENO))
		return cli_usage_error(argv[0], "refusing to write a binary stream to a terminal; use -o FILE or a pipe");
	if (out_path && !strcmp(out_path, "-"))
		out_path = NULL;

	if (nsight_nl_open(&nl, &d))
		return cli_fail(&d);
	/* Check before creating the output file. */
	err = nsight_status_get(&nl, &before, &d);
	if (!err && before.enabled)
		err = nsight_diag_set(&d, EBUSY, "capture is running; run 'nsightctl stop' first");
	if (!err && out_path) {
		out = fopen(out_path, "wb");
		if (!out)
			err = nsight_diag_set(&d, errno, "cannot create %s: %s", out_path, strerror(errno));
	}
	if (!err) {
		nsight_stream_writer_init_file(&w, out);
		err = nsight_dump(&w, &o, &before, nl_status, &nl, &after, &res, &d);
		if (!err)
			report(&after, &res);
	}
	nsight_nl_close(&nl);
	if (out_path && out && out != stdout) {
		if (fclose(out) && !err)
			err = nsight_diag_set(&d, errno, "writing %s: %s", out_path, strerror(errno));
		if (err)
			unlink(out_path);	/* not a valid stream */
	}
	if (err)
		ret = cli_fail(&d);
	else if (res.lost_bytes)
		ret = NSIGHT_EXIT_FAIL;
	nsight_status_free(&before);
	nsight_status_free(&after);
	nsight_dump_result_free(&res);
	return ret;
}
