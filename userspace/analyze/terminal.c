// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "print.h"
#include "report.h"
#include "base/sort.h"
#include "terminal.h"

bool nsight_tty_auto_color(void)
{
	const char *term = getenv("TERM");

	return isatty(STDOUT_FILENO) && !getenv("NO_COLOR") && !(term && !strcmp(term, "dumb"));
}

const char *nsight_tty_bold(const struct nsight_tty *t)
{
	return t->color ? "\033[1m" : "";
}

const char *nsight_tty_off(const struct nsight_tty *t)
{
	return t->color ? "\033[0m" : "";
}

static const char *tty_bar(const struct nsight_tty *t)
{
	return t->color ? "\033[36m" : "";
}

const char *nsight_tty_duration(int64_t ns, char *buf, size_t len)
{
	static const struct {
		int64_t div;
		const char *unit;
	} u[] = { { 1000000000, "s" }, { 1000000, "ms" }, { 1000, "us" } };
	uint64_t mag = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
	const char *sign = ns < 0 ? "-" : "";
	size_t i;

	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		double v;

		if (mag < (uint64_t)u[i].div)
			continue;
		v = (double)mag / (double)u[i].div;
		snprintf(buf, len, v < 10 ? "%s%.2f%s" : v < 100 ? "%s%.1f%s" : "%s%.0f%s", sign,
			 v, u[i].unit);
		return buf;
	}
	snprintf(buf, len, "%s%" PRIu64 "ns", sign, mag);
	return buf;
}

const char *nsight_tty_bytes(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "KB", "MB", "GB", "TB" };
	double v = (double)bytes;
	size_t i = 0;

	if (bytes < 1000) {
		snprintf(buf, len, "%" PRIu64 " bytes", bytes);
		return buf;
	}
	for (v /= 1000; v >= 1000 && i + 1 < sizeof(unit) / sizeof(unit[0]); i++)
		v /= 1000;
	snprintf(buf, len, v < 10 ? "%.1f %s" : "%.0f %s", v, unit[i]);
	return buf;
}

const char *nsight_tty_dur(const struct nsight_tty *t, int64_t ns, char *buf, size_t len)
{
	if (t->width)
		return nsight_tty_duration(ns, buf, len);
	snprintf(buf, len, "%" PRId64 " ns", ns);
	return buf;
}

/* Names come from the traced system: no control bytes, no blanks. */
static const char *word(const char *src, size_t n, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len && i < n && src[i]; i++)
		buf[i] = src[i] > 0x20 && src[i] < 0x7f ? src[i] : '?';
	buf[i] = '\0';
	return i ? buf : "?";
}

void nsight_tty_header(FILE *f, const char *name, const struct nsight_summary *s,
		       const struct nsight_tty *t)
{
	char rel[sizeof(s->hdr.release)], nm[128];
	double span = nsight_summary_span_seconds(s);

	fprintf(f, "%scapture:%s %s  kernel %s  cpus %" PRIu32, nsight_tty_bold(t), nsight_tty_off(t),
		word(name, strlen(name), nm, sizeof(nm)),
		word(s->hdr.release, sizeof(s->hdr.release), rel, sizeof(rel)), s->hdr.nr_cpus);
	if (s->have_tsc && span >= 0)
		fprintf(f, "  span %.3f s", span);
	fprintf(f, "  records %" PRIu64 ", dropped %" PRIu64, s->records, s->dropped);
	if (s->bad_tsc)
		fprintf(f, ", %" PRIu64 " with a corrupt TSC left out", s->bad_tsc);
	fputc('\n', f);
	if (s->triggers || s->skipped_subbufs)
		fprintf(f, "%sflight recorder:%s %" PRIu64 " triggers; %" PRIu64 " records outside the saved windows not kept\n",
			nsight_tty_bold(t), nsight_tty_off(t), s->triggers, s->skipped);
	nsight_summary_print_check(f, s);
}


/* The complete messages' latencies of group @g, sorted; NULL if none or no memory. */
static int64_t *group_latencies(const struct nsight_lifetimes *lt, const struct nsight_lat_group *g,
				size_t *n)
{
	int64_t *v = g->count ? malloc(g->count * sizeof(*v)) : NULL;
	size_t i;

	*n = 0;
	if (!v)
		return NULL;
	for (i = 0; i < lt->n && *n < g->count; i++) {
		const struct nsight_msg *m = &lt->msgs[i];

		if (m->reason == NSIGHT_MSG_COMPLETE && m->dir == g->dir && m->pid == g->pid &&
		    !strncmp(m->comm, g->comm, sizeof(g->comm)))
			v[(*n)++] = m->total_ns;
	}
	nsight_sort_i64(v, *n);
	return v;
}

/*
 * Latencies in buckets of a power of two in ns from the smallest up; the
 * bar of the fullest bucket is NSIGHT_TTY_BAR long. At most 16 rows: wider
 * ranges take two or more powers per bucket.
 */
static void histogram(FILE *f, const int64_t *v, size_t n, const struct nsight_tty *t)
{
	uint64_t count[64] = { 0 }, most = 0;
	unsigned int lo = 63, hi = 0, step, b, k;
	char b1[32], b2[32];
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t x = v[i] > 0 ? (uint64_t)v[i] : 1;

		b = 63 - (unsigned int)__builtin_clzll(x);
		count[b]++;
		lo = b < lo ? b : lo;
		hi = b > hi ? b : hi;
	}
	if (!n)
		return;
	step = (hi - lo) / 16 + 1;
	for (b = lo; b <= hi; b += step) {
		uint64_t c = 0;

		for (k = b; k < b + step && k < 64; k++)
			c += count[k];
		most = c > most ? c : most;
	}
	for (b = lo; b <= hi; b += step) {
		uint64_t c = 0;
		unsigned int len;

		for (k = b; k < b + step && k < 64; k++)
			c += count[k];
		len = (unsigned int)((c * NSIGHT_TTY_BAR + most - 1) / most);
		fprintf(f, "    %8s - %-8s %s", nsight_tty_duration((int64_t)1 << b, b1, sizeof(b1)),
			nsight_tty_duration(b + step < 63 ? (int64_t)1 << (b + step) : INT64_MAX, b2,
					    sizeof(b2)), tty_bar(t));
		for (k = 0; k < len; k++)
			fputc('#', f);
		fprintf(f, "%s%*s %" PRIu64 "\n", nsight_tty_off(t), (int)(NSIGHT_TTY_BAR - len), "",
			c);
	}
}

void nsight_tty_latency_table(FILE *f, const struct nsight_latency *l)
{
	char comm[17], b[32];
	size_t i, k;

	if (!l->n)
		return;
	fprintf(f, "  %-16s %7s %-3s %7s", "comm", "pid", "dir", "count");
	for (k = 0; k < NSIGHT_LAT_NPCT; k++)
		fprintf(f, " %9s", nsight_lat_pct_name[k]);
	fprintf(f, " %9s %10s\n", "max", "incomplete");
	for (i = 0; i < l->n; i++) {
		const struct nsight_lat_group *g = &l->groups[i];

		fprintf(f, "  %-16s %7" PRIu32 " %-3s %7" PRIu64,
			word(g->comm, sizeof(g->comm), comm, sizeof(comm)), g->pid,
			nsight_msg_dir_name(g->dir), g->count);
		for (k = 0; k < NSIGHT_LAT_NPCT; k++)
			fprintf(f, " %9s", g->count ? nsight_tty_duration(g->pct[k], b, sizeof(b)) : "-");
		fprintf(f, " %9s %10" PRIu64 "\n", g->count ? nsight_tty_duration(g->max, b, sizeof(b)) : "-",
			g->incomplete);
	}
}

/* One row of the baseline table: @v's @n sorted latencies. */
static void baseline_row(FILE *f, const char *head, const char *which, const int64_t *v,
			 size_t n, bool ns)
{
	int w = ns ? 12 : 8;
	char b[32];
	size_t k;

	fprintf(f, "  %-24s %-8s %7zu", head, which, n);
	for (k = 0; k <= NSIGHT_LAT_NPCT; k++) {
		int64_t x = k < NSIGHT_LAT_NPCT && n ? nsight_percentile(v, n, nsight_lat_pct[k]) :
			    n ? v[n - 1] : 0;

		if (!n)
			fprintf(f, " %*s", w, "-");
		else if (ns)
			fprintf(f, " %*" PRId64, w, x);
		else
			fprintf(f, " %*s", w, nsight_tty_duration(x, b, sizeof(b)));
	}
	fputc('\n', f);
}

int nsight_tty_baseline_table(FILE *f, const struct nsight_analysis *a,
			      const struct nsight_analysis *b, const char *bname, bool ns)
{
	const struct nsight_latency *l = &a->lat;
	char comm[17], head[40];
	int w = ns ? 12 : 8;
	size_t i, k;

	fprintf(f, "baseline: %s, its messages of the same comm and direction%s\n", bname,
		ns ? " (ns)" : "");
	if (!l->n)
		return 0;
	fprintf(f, "  %-24s %-8s %7s", "comm[pid] dir", "capture", "count");
	for (k = 0; k < NSIGHT_LAT_NPCT; k++)
		fprintf(f, " %*s", w, nsight_lat_pct_name[k]);
	fprintf(f, " %*s\n", w, "max");
	for (i = 0; i < l->n; i++) {
		const struct nsight_lat_group *g = &l->groups[i];
		int64_t *v, *vb;
		size_t n, nb;

		v = nsight_latency_values(&a->lt, g->comm, &g->pid, g->dir, &n);
		vb = nsight_latency_values(&b->lt, g->comm, NULL, g->dir, &nb);
		if (!v || !vb) {
			free(v);
			free(vb);
			return -NSIGHT_E_NOMEM;
		}
		snprintf(head, sizeof(head), "%s[%" PRIu32 "] %s",
			 word(g->comm, sizeof(g->comm), comm, sizeof(comm)), g->pid,
			 nsight_msg_dir_name(g->dir));
		baseline_row(f, head, "this", v, n, ns);
		baseline_row(f, "", "baseline", vb, nb, ns);
		free(v);
		free(vb);
	}
	return 0;
}

void nsight_tty_latency_histogram(FILE *f, const struct nsight_lat_group *g, const int64_t *v,
				  size_t n, const struct nsight_tty *t)
{
	char comm[17];

	if (!n)
		return;
	fprintf(f, "  %s[%" PRIu32 "] %s: %zu complete messages by latency\n",
		word(g->comm, sizeof(g->comm), comm, sizeof(comm)), g->pid,
		nsight_msg_dir_name(g->dir), n);
	histogram(f, v, n, t);
}

void nsight_tty_latency_head(FILE *f, uint64_t messages, uint64_t complete,
			     const struct nsight_tty *t)
{
	fprintf(f, "%slatency:%s %" PRIu64 " messages, %" PRIu64 " complete, %" PRIu64 " incomplete; "
		"rx n->a, tx send->xmit or ->done\n", nsight_tty_bold(t), nsight_tty_off(t), messages,
		complete, messages - complete);
}

void nsight_tty_latency(FILE *f, const struct nsight_analysis *a, const struct nsight_tty *t)
{
	const struct nsight_lifetimes *lt = &a->lt;
	const struct nsight_latency *l = &a->lat;
	size_t i;

	nsight_tty_latency_head(f, lt->n, lt->n_complete, t);
	nsight_tty_latency_table(f, l);
	for (i = 0; i < l->n; i++) {
		size_t n;
		int64_t *v = group_latencies(lt, &l->groups[i], &n);

		nsight_tty_latency_histogram(f, &l->groups[i], v, n, t);
		free(v);
	}
}

void nsight_tty_summary(FILE *f, const char *name, const struct nsight_analysis *a,
			enum nsight_clockid clk, const struct nsight_tty *t)
{
	nsight_tty_header(f, name, &a->sum, t);
	nsight_report_time_text(f, a, clk);
	nsight_tty_latency(f, a, t);
}
