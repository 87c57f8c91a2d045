// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/nsight.h>

#include "pt/kcore.h"
#include "pt_dump.h"

/* Trace bytes per PT chunk. */
#define PT_CHUNK	(16U << 20)
/* No code section is larger: the kernel text is tens of MB. */
#define TEXT_MAX	(256U << 20)

static void warn(const struct nsight_pt_dump_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(const struct nsight_pt_dump_opts *o, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!o->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o->warn(o->warn_ctx, msg);
}

static int write_err(struct nsight_stream_writer *w, struct nsight_diag *d)
{
	return nsight_diag_set(d, EIO, "%s", w->diag.msg);
}

static int dump_cpu(struct nsight_stream_writer *w, const char *path, uint32_t cpu,
		    uint64_t *bytes, struct nsight_diag *d)
{
	uint8_t *buf = malloc(PT_CHUNK);
	int fd, err = 0;
	size_t have = 0;

	if (!buf)
		return nsight_diag_set(d, ENOMEM, "out of memory");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return errno == ENOENT ? 0 : nsight_diag_set(d, errno, "%s: %s", path, strerror(errno));
	}
	for (;;) {
		ssize_t r = read(fd, buf + have, PT_CHUNK - have);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = nsight_diag_set(d, errno, "cpu %" PRIu32 ": reading %s at byte %" PRIu64 ": %s",
					      cpu, path, *bytes + have, strerror(errno));
			break;
		}
		have += (size_t)r;
		if ((r == 0 || have == PT_CHUNK) && have) {
			if (nsight_stream_write_chunk(w, NSIGHT_CHUNK_PT, cpu, buf, have)) {
				err = write_err(w, d);
				break;
			}
			*bytes += have;
			have = 0;
		}
		if (r == 0)
			break;
	}
	close(fd);
	free(buf);
	return err;
}

struct section {
	uint64_t addr, len;
	char name[48];
};

/* The kernel text range from kallsyms; 0 if not found or hidden. */
static int kernel_text(const char *path, struct section *s)
{
	unsigned long long a;
	char type, name[128], line[512];
	uint64_t start = 0, end = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && !(start && end)) {
		if (sscanf(line, "%llx %c %127s", &a, &type, name) != 3)
			continue;
		if (!strcmp(name, "_stext"))
			start = a;
		else if (!strcmp(name, "_etext"))
			end = a;
	}
	fclose(f);
	if (!start || end <= start || end - start > TEXT_MAX)
		return -1;
	*s = (struct section){ .addr = start, .len = end - start };
	snprintf(s->name, sizeof(s->name), "kernel");
	return 0;
}

static int write_text(struct nsight_stream_writer *w, struct nsight_kcore *kc,
		      const struct section *s, const struct nsight_pt_dump_opts *o,
		      struct nsight_pt_dump_result *res, struct nsight_diag *d)
{
	struct nsight_ktext_hdr h = { .addr = s->addr, .len = s->len };
	struct nsight_diag kd = { 0 };
	uint8_t *buf = malloc(sizeof(h) + s->len);
	int err = 0;

	if (!buf)
		return nsight_diag_set(d, ENOMEM, "out of memory");
	memcpy(h.name, s->name, sizeof(h.name));
	memcpy(buf, &h, sizeof(h));
	if (nsight_kcore_read_at(kc, s->addr, buf + sizeof(h), s->len, &kd)) {
		warn(o, "%s: %s: the code of %s is not in the stream", o->kcore, kd.msg, s->name);
	} else if (nsight_stream_write_chunk(w, NSIGHT_CHUNK_KTEXT, NSIGHT_CHUNK_NO_CPU, buf,
					     sizeof(h) + s->len)) {
		err = write_err(w, d);
	} else {
		res->text_sections++;
		res->text_bytes += s->len;
	}
	free(buf);
	return err;
}

static int dump_text(struct nsight_stream_writer *w, const struct nsight_pt_dump_opts *o,
		     struct nsight_pt_dump_result *res, struct nsight_diag *d)
{
	struct nsight_diag kd = { 0 };
	struct nsight_kcore *kc;
	struct section s;
	char line[512];
	FILE *f;
	int err = 0;

	if (nsight_kcore_open(&kc, o->kcore, &kd)) {
		warn(o, "%s; the trace cannot be decoded without the code", kd.msg);
		return 0;
	}
	if (kernel_text(o->kallsyms, &s))
		warn(o, "%s: no _stext.._etext (hidden addresses?): kernel code not in the stream",
		     o->kallsyms);
	else
		err = write_text(w, kc, &s, o, res, d);
	/* "name size refcount deps state address [taint]" */
	f = fopen(o->modules, "re");
	while (!err && f && fgets(line, sizeof(line), f)) {
		unsigned long long size, addr;
		char name[64];

		if (sscanf(line, "%63s %llu %*s %*s %*s %llx", name, &size, &addr) != 3 || !addr ||
		    !size || size > TEXT_MAX)
			continue;
		s = (struct section){ .addr = addr, .len = size };
		snprintf(s.name, sizeof(s.name), "%.47s", name);
		err = write_text(w, kc, &s, o, res, d);
	}
	if (f)
		fclose(f);
	nsight_kcore_close(kc);
	return err;
}

int nsight_dump_pt(struct nsight_stream_writer *w, const struct nsight_pt_dump_opts *o,
		   uint32_t nr_cpus, struct nsight_pt_dump_result *res, struct nsight_diag *d)
{
	char path[4096];
	uint32_t cpu;
	int err;

	memset(res, 0, sizeof(*res));
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		uint64_t bytes = 0;

		snprintf(path, sizeof(path), "%s/nsight/pt/cpu%" PRIu32, o->debugfs, cpu);
		err = dump_cpu(w, path, cpu, &bytes, d);
		if (err)
			return err;
		if (bytes) {
			res->cpus++;
			res->bytes += bytes;
		}
	}
	if (!res->bytes)
		return 0;
	err = dump_text(w, o, res, d);
	if (!err && o->pids && o->pids->n)
		err = nsight_pt_user_dump(w, &o->user, o->pids, &res->user, d);
	return err;
}
