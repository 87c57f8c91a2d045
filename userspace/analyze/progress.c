// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void hook_pass(void *p, const char *pass)
{
	nsight_progress_pass(p, pass);
}

static void hook_update(void *p, uint64_t records, uint64_t bytes)
{
	nsight_progress_update(p, records, bytes);
}

void nsight_progress_init(struct nsight_progress *p, FILE *f, const char *name)
{
	const char *base = strrchr(name, '/');
	size_t n;

	memset(p, 0, sizeof(*p));
	p->f = f;
	p->clock = mono_ns;
	p->hooks = (struct nsight_analysis_progress){ hook_pass, hook_update, p };
	name = !strcmp(name, "-") ? "stdin" : base && base[1] ? base + 1 : name;
	n = strlen(name);
	/* The end of a long name says more than its start. */
	if (n >= sizeof(p->name))
		snprintf(p->name, sizeof(p->name), "...%s", name + n - (sizeof(p->name) - 4));
	else
		snprintf(p->name, sizeof(p->name), "%s", name);
}

FILE *nsight_progress_tty(void)
{
	return isatty(STDERR_FILENO) ? stderr : NULL;
}

static void draw(struct nsight_progress *p, uint64_t now)
{
	uint64_t el = now - p->start_ns;
	char line[160];
	int n;

	if (p->bytes && el >= NSIGHT_PROGRESS_NS)
		n = snprintf(line, sizeof(line), "nsight-analyze: %s: %s, %" PRIu64 " records, %.1f MB/s",
			     p->name, p->pass, p->records, (double)p->bytes * 1e3 / (double)el);
	else if (p->records)
		n = snprintf(line, sizeof(line), "nsight-analyze: %s: %s, %" PRIu64 " records",
			     p->name, p->pass, p->records);
	else
		n = snprintf(line, sizeof(line), "nsight-analyze: %s: %s", p->name, p->pass);
	if (n >= (int)sizeof(line))
		n = (int)sizeof(line) - 1;
	/* Over a longer line: blanks to its end. */
	fprintf(p->f, "\r%s%*s", line, p->len > n ? p->len - n : 0, "");
	fflush(p->f);
	p->len = n;
	p->drawn_ns = now;
}

void nsight_progress_pass(struct nsight_progress *p, const char *pass)
{
	if (!p || !p->f)
		return;
	p->pass = pass;
	p->records = p->bytes = 0;
	p->start_ns = p->clock();
	draw(p, p->start_ns);
}

void nsight_progress_update(struct nsight_progress *p, uint64_t records, uint64_t bytes)
{
	uint64_t now;

	if (!p || !p->f)
		return;
	p->records = records;
	p->bytes = bytes;
	now = p->clock();
	if (now - p->drawn_ns >= NSIGHT_PROGRESS_NS)
		draw(p, now);
}

void nsight_progress_end(struct nsight_progress *p)
{
	if (!p || !p->f || !p->len)
		return;
	fprintf(p->f, "\r%*s\r", p->len, "");
	fflush(p->f);
	p->len = 0;
}
