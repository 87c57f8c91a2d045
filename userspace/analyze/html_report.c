// SPDX-License-Identifier: MIT
/*
 * The HTML report: plain HTML with inline CSS and inline SVG, no script,
 * nothing fetched. Per application and direction, each plot is a function
 * writing one <svg> in a <section class="plot" data-plot="NAME">; the data
 * comes straight from the lifetimes, the timelines and the diagnosis.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dx_report.h"
#include "html_report.h"
#include "base/sort.h"
#include "svg.h"
#include "terminal.h"

#define W	900		/* plot width, px */
#define H	300		/* plot height */
#define ML	70		/* margins: left, right, top, bottom */
#define MR	20
#define MT	20
#define MB	40
#define MAX_CAUSES	8	/* causes with their own colour and marker */
#define MAX_POINTS	5000	/* balloon points beyond the tail */
#define MAX_QUEUED	40	/* tail messages in the queuing breakdown */
#define MAX_BOXES	12	/* causes in the box plot */
#define MAX_IDLE	16	/* idle causes of one message */
#define ROW		13	/* a nesting level in the timelines */

static const char *const palette[MAX_CAUSES] = {
	"#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
};

/* Context kinds: colours and names in the timelines and the summary. */
static const char *const kind_color[] = {
	[NSIGHT_CTX_K_LOST] = "#000000",    [NSIGHT_CTX_K_UNKNOWN] = "#bbbbbb",
	[NSIGHT_CTX_K_TASK] = "#9ecae1",    [NSIGHT_CTX_K_SWAPPER] = "#e5e5e5",
	[NSIGHT_CTX_K_IDLE] = "#f0f0f0",    [NSIGHT_CTX_K_IRQ] = "#fd8d3c",
	[NSIGHT_CTX_K_SOFTIRQ] = "#fdd0a2", [NSIGHT_CTX_K_FAULT] = "#c994c7",
	[NSIGHT_CTX_K_WORK] = "#a1d99b",    [NSIGHT_CTX_K_FUNC] = "#fff7bc",
};

static const char *const kind_name[] = {
	[NSIGHT_CTX_K_LOST] = "records lost", [NSIGHT_CTX_K_UNKNOWN] = "no records",
	[NSIGHT_CTX_K_TASK] = "task",	      [NSIGHT_CTX_K_SWAPPER] = "idle task",
	[NSIGHT_CTX_K_IDLE] = "idle",	      [NSIGHT_CTX_K_IRQ] = "irq",
	[NSIGHT_CTX_K_SOFTIRQ] = "softirq",   [NSIGHT_CTX_K_FAULT] = "page fault",
	[NSIGHT_CTX_K_WORK] = "work item",    [NSIGHT_CTX_K_FUNC] = "kernel function",
};

#define N_KINDS		(NSIGHT_CTX_K_FUNC + 1)
/* The core-context summary counts the message's own thread apart. */
#define K_APP		N_KINDS
#define APP_COLOR	"#31a354"

struct rep {
	FILE *f;
	const struct nsight_analysis *a;
	const struct nsight_dx *dx;
	const struct nsight_analysis *b;
	double tsc_ns;		/* ns per TSC tick */
	size_t group;		/* index of the group being written */
};

/* @v rounded, within int64_t: the figures of an absurd capture reach beyond (or are NaN). */
static int64_t to_i64(double v)
{
	if (!(v > -9e18))
		return (int64_t)-9e18;
	if (v > 9e18)
		return (int64_t)9e18;
	return (int64_t)(v + (v >= 0 ? 0.5 : -0.5));
}

static const char *fmt_dur(double v, char *buf, size_t len)
{
	return nsight_tty_duration(to_i64(v), buf, len);
}

static const char *fmt_num(double v, char *buf, size_t len)
{
	snprintf(buf, len, "%.0f", v);
	return buf;
}

static const char *fmt_pct(double v, char *buf, size_t len)
{
	snprintf(buf, len, "%.0f%%", v * 100);
	return buf;
}

static const char *dur(int64_t ns, char *buf, size_t len)
{
	return nsight_tty_duration(ns, buf, len);
}

static void svg_open(struct rep *r, const char *plot, const char *title, int w, int h)
{
	fprintf(r->f, "<section class=\"plot\" data-plot=\"%s\" id=\"g%zu-%s\"><h3>", plot,
		r->group, plot);
	svg_esc_s(r->f, title);
	fprintf(r->f, "</h3>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		w, h, w, h);
}

static void svg_close(struct rep *r, const char *note)
{
	fputs("</svg>", r->f);
	if (note) {
		fputs("<p class=\"note\">", r->f);
		svg_esc_s(r->f, note);
		fputs("</p>", r->f);
	}
	fputs("</section>\n", r->f);
}

/* A plot without data: an empty frame with @note in it, and below. */
static void empty_plot(struct rep *r, const char *plot, const char *title, const char *note)
{
	svg_open(r, plot, title, W, 60);
	fprintf(r->f, "<rect class=\"frame\" x=\"0.5\" y=\"0.5\" width=\"%d\" height=\"59\" fill=\"none\"/>\n",
		W - 1);
	svg_text(r->f, W / 2.0, 34, "middle", "note", note);
	svg_close(r, note);
}

/* A small square of @color and @label at (@x, @y): a legend entry. */
static double legend(struct rep *r, double x, double y, const char *color, const char *label)
{
	fprintf(r->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\" stroke=\"#999\" stroke-width=\"0.5\"/>\n",
		x, y - 9, color);
	svg_text(r->f, x + 14, y, "start", NULL, label);
	return x + 24 + 6.2 * (double)strlen(label);
}

static bool in_group(const struct nsight_msg *m, const struct nsight_dx_group *g)
{
	return m->reason == NSIGHT_MSG_COMPLETE && m->dir == g->dir && m->pid == g->pid &&
	       !strncmp(m->comm, g->comm, sizeof(g->comm));
}

static const struct nsight_msg *msg_of(const struct rep *r, const struct nsight_dx_msg *t)
{
	return &r->a->lt.msgs[t->msg];
}

static const char *cause_color(uint32_t cause)
{
	return cause < MAX_CAUSES ? palette[cause] : "#7f7f7f";
}

static void cause_label(const struct nsight_dx_group *g, uint32_t c, char *buf, size_t len)
{
	snprintf(buf, len, "%s (%s)", g->causes[c].category, nsight_role_name(g->causes[c].role));
}


/* @q of @n sorted values (nearest rank). */
static int64_t quant(const int64_t *v, size_t n, double q)
{
	return v[(size_t)((double)(n - 1) * q + 0.5)];
}

/* A horizontal box plot of @n sorted values at @y on @ax, with @label left of x = @lx. */
static void hbox(struct rep *r, const struct svg_axis *ax, const int64_t *v, size_t n, double y,
		 const char *color, const char *title)
{
	double lo = svg_pos(ax, (double)v[0]), hi = svg_pos(ax, (double)v[n - 1]);
	double q1 = svg_pos(ax, (double)quant(v, n, 0.25)), q3 = svg_pos(ax, (double)quant(v, n, 0.75));
	double med = svg_pos(ax, (double)quant(v, n, 0.5));

	fprintf(r->f, "<line class=\"whisker\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		lo, y, hi, y);
	fprintf(r->f, "<line class=\"whisker\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		lo, y - 5, lo, y + 5);
	fprintf(r->f, "<line class=\"whisker\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		hi, y - 5, hi, y + 5);
	fprintf(r->f, "<rect class=\"box\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"16\" fill=\"%s\"><title>",
		q1 - 1, y - 8, q3 - q1 + 2, color);
	svg_esc_s(r->f, title);
	fputs("</title></rect>\n", r->f);
	fprintf(r->f, "<line class=\"median\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		med, y - 8, med, y + 8);
}

/* ---------------------------------------------------------------------- */
/* 1. Latency by message id; tail messages by their main cause.           */

static void balloon(struct rep *r, const struct nsight_dx_group *g)
{
	static const char title[] = "Latency by message (tail messages by their main cause)";
	const struct nsight_lifetimes *lt = &r->a->lt;
	int64_t lo = INT64_MAX, hi = 0;
	uint64_t max_id = 1, n = 0, step;
	bool other = false, none = false;
	struct svg_axis ay, ax;
	char b[320], c[256], d[32];
	double x, y;
	size_t i, k;

	for (i = 0; i < lt->n; i++) {
		const struct nsight_msg *m = &lt->msgs[i];

		if (!in_group(m, g))
			continue;
		lo = m->total_ns < lo ? m->total_ns : lo;
		hi = m->total_ns > hi ? m->total_ns : hi;
		max_id = m->id > max_id ? m->id : max_id;
		n++;
	}
	if (!n) {
		empty_plot(r, "balloon", title, "no complete messages");
		return;
	}
	svg_open(r, "balloon", title, W, H + 40);
	svg_axis_init(&ay, (double)lo, (double)hi, H - MB, MT, svg_wide((double)lo, (double)hi));
	svg_ticks(r->f, &ay, true, ML, W - ML - MR, fmt_dur);
	svg_axis_init(&ax, 0, (double)max_id, ML, W - MR, false);
	svg_ticks(r->f, &ax, false, H - MB, H - MB - MT, fmt_num);
	svg_text(r->f, (W + ML) / 2.0, H - 6, "middle", "label", "message id");
	svg_text(r->f, 14, (H - MB + MT) / 2.0, "middle", "label vlabel", "latency");
	/* The tail threshold (a band's two). */
	if (g->tail_threshold > 0) {
		y = svg_pos(&ay, (double)g->tail_threshold);
		fprintf(r->f, "<line class=\"threshold\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n",
			ML, y, W - MR, y);
		snprintf(b, sizeof(b), "%s >= %s", g->tail_threshold_hi ? "band" : "tail",
			 dur(g->tail_threshold, d, sizeof(d)));
		svg_text(r->f, W - MR - 2, y - 3, "end", "small", b);
	}
	if (g->tail_threshold_hi > 0) {
		y = svg_pos(&ay, (double)g->tail_threshold_hi);
		fprintf(r->f, "<line class=\"threshold\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n",
			ML, y, W - MR, y);
		snprintf(b, sizeof(b), "band <= %s", dur(g->tail_threshold_hi, d, sizeof(d)));
		svg_text(r->f, W - MR - 2, y - 3, "end", "small", b);
	}
	/* Messages outside the tail first (sampled), the tail on top. */
	step = n > MAX_POINTS ? n / MAX_POINTS + 1 : 1;
	for (i = 0, k = 0; i < lt->n; i++) {
		const struct nsight_msg *m = &lt->msgs[i];

		if (!in_group(m, g) || (m->total_ns >= g->tail_threshold &&
					(!g->tail_threshold_hi || m->total_ns <= g->tail_threshold_hi)) ||
		    k++ % step)
			continue;
		fprintf(r->f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"1.6\" fill=\"#aaa\"/>\n",
			svg_pos(&ax, (double)m->id), svg_pos(&ay, (double)m->total_ns));
	}
	for (k = g->n_msgs; k-- > 0;) {
		const struct nsight_dx_msg *t = &g->msgs[k];
		const struct nsight_msg *m = msg_of(r, t);
		uint32_t cause = t->n_mc ? g->mcs[t->mc].cause : UINT32_MAX;

		x = svg_pos(&ax, (double)m->id);
		y = svg_pos(&ay, (double)m->total_ns);
		if (cause == UINT32_MAX) {
			none = true;
			snprintf(b, sizeof(b), "%s %" PRIu64 ": %s, no cause", nsight_msg_dir_name(g->dir),
				 m->id, dur(m->total_ns, d, sizeof(d)));
			svg_marker(r->f, 0, x, y, 3.5, "#000", "tail", b);
			continue;
		}
		cause_label(g, cause, c, sizeof(c));
		snprintf(b, sizeof(b), "%s %" PRIu64 ": %s, main cause %s", nsight_msg_dir_name(g->dir),
			 m->id, dur(m->total_ns, d, sizeof(d)), c);
		other |= cause >= MAX_CAUSES;
		svg_marker(r->f, cause < MAX_CAUSES ? cause : 0, x, y, 4.5, cause_color(cause), "tail", b);
	}
	/* The legend: the top causes, then the rest. */
	for (k = 0; k < g->n_causes && k < MAX_CAUSES + 2; k++) {
		x = ML + (double)(k % 3) * 280;
		y = H + 4 + (double)(k / 3) * 15;
		if (k < MAX_CAUSES) {
			cause_label(g, (uint32_t)k, b, sizeof(b));
			svg_marker(r->f, (unsigned int)k, x, y - 4, 4.5, palette[k], NULL, NULL);
		} else if (k == MAX_CAUSES && other) {
			snprintf(b, sizeof(b), "other causes");
			svg_marker(r->f, 0, x, y - 4, 4.5, "#7f7f7f", NULL, NULL);
		} else {
			snprintf(b, sizeof(b), "tail, no cause");
			svg_marker(r->f, 0, x, y - 4, 3.5, "#000", NULL, NULL);
			if (!none)
				break;
		}
		svg_text(r->f, x + 9, y, "start", NULL, b);
	}
	if (none && g->n_causes < MAX_CAUSES + 1) {
		k = g->n_causes;
		x = ML + (double)(k % 3) * 280;
		y = H + 4 + (double)(k / 3) * 15;
		svg_marker(r->f, 0, x, y - 4, 3.5, "#000", NULL, NULL);
		svg_text(r->f, x + 9, y, "start", NULL, "tail, no cause");
	}
	svg_close(r, step > 1 ? "messages outside the tail are sampled" : NULL);
}

/* ---------------------------------------------------------------------- */
/* 2. Each cause's deviation over the tail messages it is in.             */

static void cause_boxes(struct rep *r, const struct nsight_dx_group *g)
{
	static const char title[] =
		"Deviation added by each cause in the tail messages (sorted like the table)";
	size_t nc = g->n_causes < MAX_BOXES ? g->n_causes : MAX_BOXES, c, i;
	int64_t lo = INT64_MAX, hi = 1, *v;
	int h = MT + MB + (int)nc * 28;
	struct svg_axis ax;
	char b[320], t[400], d1[32], d2[32];

	if (!nc) {
		empty_plot(r, "causes", title, g->n_msgs ? "no causes" : "no tail messages");
		return;
	}
	v = malloc((g->n_mcs ? g->n_mcs : 1) * sizeof(*v));
	if (!v) {
		empty_plot(r, "causes", title, "out of memory");
		return;
	}
	for (i = 0; i < g->n_mcs; i++) {
		if (g->mcs[i].cause >= nc || g->mcs[i].dev <= 0)
			continue;
		lo = g->mcs[i].dev < lo ? g->mcs[i].dev : lo;
		hi = g->mcs[i].dev > hi ? g->mcs[i].dev : hi;
	}
	lo = lo == INT64_MAX ? 1 : lo;
	svg_open(r, "causes", title, W, h);
	svg_axis_init(&ax, (double)lo, (double)hi, 330, W - 130, svg_wide((double)lo, (double)hi));
	svg_ticks(r->f, &ax, false, h - MB + 6, h - MB - MT + 6, fmt_dur);
	svg_text(r->f, (330 + W - 130) / 2.0, h - 6, "middle", "label", "latency deviation");
	for (c = 0; c < nc; c++) {
		double y = MT + (double)c * 28 + 14;
		size_t n = 0;

		for (i = 0; i < g->n_mcs; i++)
			if (g->mcs[i].cause == c && g->mcs[i].dev > 0)
				v[n++] = g->mcs[i].dev;
		cause_label(g, (uint32_t)c, b, sizeof(b));
		svg_marker(r->f, (unsigned int)c, 318, y, 4.5, cause_color((uint32_t)c), NULL, NULL);
		svg_text(r->f, 308, y + 4, "end", NULL, b);
		if (!n)
			continue;
		nsight_sort_i64(v, n);
		snprintf(t, sizeof(t), "%s: %zu messages, median %s, max %s", b, n,
			 dur(quant(v, n, 0.5), d1, sizeof(d1)), dur(v[n - 1], d2, sizeof(d2)));
		hbox(r, &ax, v, n, y, cause_color((uint32_t)c), t);
		snprintf(b, sizeof(b), "n=%zu, main %" PRIu64, n, g->causes[c].main);
		svg_text(r->f, W - 124, y + 4, "start", "count", b);
	}
	free(v);
	svg_close(r, g->n_causes > nc ? "only the first causes are drawn" : NULL);
}

/* ---------------------------------------------------------------------- */
/* Walking a core's segments in a message's window.                       */

/* The core and TSC window of @role (0 receive core, 1 application core) of @m. */
static bool window(const struct nsight_msg *m, int role, uint32_t *cpu, uint64_t *lo, uint64_t *hi)
{
	if (m->dir == NSIGHT_MSG_TX) {
		unsigned int last = m->t[NSIGHT_TX_DONE].valid ? NSIGHT_TX_DONE : NSIGHT_TX_XMIT;

		if (role == 0)
			return false;
		*cpu = m->t[NSIGHT_TX_SEND].cpu;
		*lo = m->t[NSIGHT_TX_SEND].tsc;
		*hi = m->t[last].tsc;
		return *hi > *lo;
	}
	*cpu = role ? m->t[NSIGHT_RX_A].cpu : m->t[NSIGHT_RX_H].cpu;
	*lo = role ? m->t[NSIGHT_RX_H].tsc : m->t[NSIGHT_RX_N].tsc;
	*hi = role ? m->t[NSIGHT_RX_A].tsc : m->t[NSIGHT_RX_H].tsc;
	return *hi > *lo;
}

/* Called for each segment of a window, cut to it: fn(seg, from, to). */
typedef void (*seg_fn)(struct rep *r, void *arg, const struct nsight_seg *s, uint64_t from,
		       uint64_t to);

static void each_seg(struct rep *r, uint32_t cpu, uint64_t lo, uint64_t hi, seg_fn fn, void *arg)
{
	const struct nsight_timeline *tl = &r->a->tl;
	ssize_t i;
	size_t k;

	if (cpu >= tl->nr_cpus)
		return;
	i = nsight_tl_find(tl, cpu, lo);
	for (k = i < 0 ? 0 : (size_t)i; k < tl->cpus[cpu].n; k++) {
		uint64_t s = tl->cpus[cpu].segs[k].start, e = nsight_tl_seg_end(tl, cpu, k);

		if (s >= hi)
			break;
		s = s < lo ? lo : s;
		e = e > hi ? hi : e;
		if (e > s)
			fn(r, arg, &tl->cpus[cpu].segs[k], s, e);
	}
}

/* Both windows of @m. */
static void each_window_seg(struct rep *r, const struct nsight_msg *m, seg_fn fn, void *arg,
			    int *role)
{
	uint32_t cpu;
	uint64_t lo, hi;

	for (*role = 0; *role < 2; (*role)++)
		if (window(m, *role, &cpu, &lo, &hi))
			each_seg(r, cpu, lo, hi, fn, arg);
}

/* The contexts of @s, outermost first, into @chain; returns how many. */
static size_t chain_of(const struct nsight_timeline *tl, const struct nsight_seg *s,
		       uint32_t chain[NSIGHT_TL_DEPTH])
{
	uint32_t rev[NSIGHT_TL_DEPTH], c;
	size_t n = 0, i;

	for (c = s->ctx; c != NSIGHT_TL_NONE && n < NSIGHT_TL_DEPTH; c = tl->ctx[c].parent)
		rev[n++] = c;
	for (i = 0; i < n; i++)
		chain[i] = rev[n - 1 - i];
	return n;
}

/* Whether segment @s runs inside thread @tid. */
static bool in_thread(const struct nsight_timeline *tl, const struct nsight_seg *s, uint32_t tid)
{
	uint32_t c;

	for (c = s->ctx; c != NSIGHT_TL_NONE; c = tl->ctx[c].parent)
		if (tl->ctx[c].kind == NSIGHT_CTX_K_TASK)
			return tl->ctx[c].tid == tid;
	return false;
}

static const char *color_of_kind(uint8_t kind)
{
	return kind < N_KINDS ? kind_color[kind] : "#ccc";
}

/* ---------------------------------------------------------------------- */
/* 3. The slowest messages: each core's nested contexts from n to a.      */

struct lane {
	uint64_t t0;		/* the message's first TSC */
	double x0, scale;	/* px at t0, px per tick */
	double y;		/* top of the lane */
	size_t depth;		/* deepest nesting seen (the pre-pass) */
	bool used[N_KINDS];	/* kinds drawn, for the legend */
};

static void depth_seg(struct rep *r, void *arg, const struct nsight_seg *s, uint64_t from,
		      uint64_t to)
{
	uint32_t chain[NSIGHT_TL_DEPTH];
	struct lane *ln = arg;
	size_t n = chain_of(&r->a->tl, s, chain);

	(void)from;
	(void)to;
	ln->depth = n > ln->depth ? n : ln->depth;
}

/* One segment: a box per nesting level, outermost at the top. */
static void lane_seg(struct rep *r, void *arg, const struct nsight_seg *s, uint64_t from,
		     uint64_t to)
{
	const struct nsight_timeline *tl = &r->a->tl;
	struct lane *ln = arg;
	uint32_t chain[NSIGHT_TL_DEPTH];
	double x = ln->x0 + (double)(from - ln->t0) * ln->scale;
	double w = (double)(to - from) * ln->scale;
	size_t n = chain_of(tl, s, chain), i;
	char name[NSIGHT_KEY_NAME_MAX + 32], d[32];

	for (i = 0; i < n; i++) {
		const struct nsight_ctx *c = &tl->ctx[chain[i]];
		/* The innermost box carries the segment's key (idle:<before>). */
		uint32_t key = i + 1 == n ? s->key : c->key;
		double y = ln->y + (double)i * ROW;

		if (c->kind == NSIGHT_CTX_K_IDLE && i + 1 < n)
			snprintf(name, sizeof(name), "idle");	/* its name is the gap's */
		else
			nsight_key_format(r->a->keys, key, name, sizeof(name));
		if (c->kind < N_KINDS)
			ln->used[c->kind] = true;
		fprintf(r->f, "<rect class=\"ctx\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>",
			x, y, w > 0.4 ? w : 0.4, ROW - 1, color_of_kind(c->kind));
		svg_esc_s(r->f, name);
		fprintf(r->f, " %s</title></rect>\n", fmt_dur((double)(to - from) * r->tsc_ns, d,
							      sizeof(d)));
		if (w > 30) {
			fprintf(r->f, "<text class=\"small\" x=\"%.1f\" y=\"%.1f\">", x + 2,
				y + ROW - 3);
			svg_esc(r->f, name, (size_t)((w - 4) / 5.2));
			fputs("</text>\n", r->f);
		}
	}
}

static void timelines(struct rep *r, const struct nsight_dx_group *g)
{
	static const char title[] = "The slowest messages: contexts per core from NIC to application";
	size_t n = g->n_msgs < NSIGHT_DX_SLOWEST ? g->n_msgs : NSIGHT_DX_SLOWEST, k;
	struct lane lanes[NSIGHT_DX_SLOWEST][2];
	bool used[N_KINDS] = { false };
	double y = MT + 14, lx;
	int role, h;
	char b[64], label[128];
	unsigned int j;

	if (!n) {
		empty_plot(r, "timelines", title, "no tail messages");
		return;
	}
	/* First how deep each lane goes, for the height. */
	memset(lanes, 0, sizeof(lanes));
	h = MT + 20;
	for (k = 0; k < n; k++) {
		const struct nsight_msg *m = msg_of(r, &g->msgs[k]);

		for (role = 0; role < 2; role++) {
			uint32_t cpu;
			uint64_t lo, hi;

			if (!window(m, role, &cpu, &lo, &hi))
				continue;
			each_seg(r, cpu, lo, hi, depth_seg, &lanes[k][role]);
			if (!lanes[k][role].depth)
				lanes[k][role].depth = 1;
			h += (int)lanes[k][role].depth * ROW + 8;
		}
		h += 48;
	}
	svg_open(r, "timelines", title, W, h);
	for (k = 0; k < n; k++) {
		const struct nsight_msg *m = msg_of(r, &g->msgs[k]);
		unsigned int last = nsight_msg_n_stages(m->dir) - 1, st;
		uint64_t t0 = m->t[0].tsc, t1;
		double top = y, bottom, span;
		struct svg_axis ax;

		while (last > 0 && !m->t[last].valid)
			last--;
		t1 = m->t[last].tsc;
		span = t1 > t0 ? (double)(t1 - t0) : 1;
		snprintf(label, sizeof(label), "%s %" PRIu64 ", %s", nsight_msg_dir_name(m->dir),
			 m->id, dur(m->total_ns, b, sizeof(b)));
		svg_text(r->f, 8, y, "start", "msg", label);
		y += 8;
		for (role = 0; role < 2; role++) {
			struct lane *ln = &lanes[k][role];
			uint32_t cpu;
			uint64_t lo, hi;

			if (!window(m, role, &cpu, &lo, &hi))
				continue;
			ln->t0 = t0;
			ln->x0 = 130;
			ln->scale = (W - 150) / span;
			ln->y = y;
			snprintf(label, sizeof(label), "%s: cpu %" PRIu32,
				 role ? "A (application)" : "R (receive)", cpu);
			svg_text(r->f, 8, y + 10, "start", NULL, label);
			each_seg(r, cpu, lo, hi, lane_seg, ln);
			for (j = 0; j < N_KINDS; j++)
				used[j] |= ln->used[j];
			y += (double)ln->depth * ROW + 8;
		}
		bottom = y;
		/* n, h, a (send, queue, xmit, done) as dashed lines. */
		for (st = 0; st <= last; st++) {
			double x;

			if (!m->t[st].valid)
				continue;
			x = 130 + (double)(m->t[st].tsc - t0) * (W - 150) / span;
			fprintf(r->f, "<line class=\"stage\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
				x, top + 2, x, bottom);
			svg_text(r->f, x, top, "middle", "stage", nsight_msg_stage_name(m->dir, st));
		}
		/* Time since the first stage. */
		svg_axis_init(&ax, 0, span * r->tsc_ns, 130, W - 20, false);
		ax.v1 = span * r->tsc_ns;	/* the lanes' scale: no rounding up */
		svg_ticks(r->f, &ax, false, bottom + 4, 0, fmt_dur);
		y = bottom + 40;
	}
	for (j = 0, lx = 130; j < N_KINDS; j++)
		if (used[j])
			lx = legend(r, lx, y - 4, kind_color[j], kind_name[j]);
	svg_close(r, NULL);
}

/* ---------------------------------------------------------------------- */
/* 4. The idle gaps of one message by what ran before them.               */

struct idle_cause {
	uint32_t key;
	uint8_t role;
	int64_t total;
	int64_t *gaps;
	size_t n;
};

struct idles {
	struct idle_cause c[MAX_IDLE];
	size_t n;
	int role;
	bool nomem;
	int64_t total;
};

static void idle_seg(struct rep *r, void *arg, const struct nsight_seg *s, uint64_t from,
		     uint64_t to)
{
	struct idles *id = arg;
	uint8_t kind = r->a->tl.ctx[s->ctx].kind;
	int64_t ns = to_i64((double)(to - from) * r->tsc_ns);
	struct idle_cause *c;
	int64_t *g;
	size_t i;

	if (kind != NSIGHT_CTX_K_IDLE && kind != NSIGHT_CTX_K_SWAPPER)
		return;
	for (i = 0; i < id->n; i++)
		if (id->c[i].key == s->key && id->c[i].role == id->role)
			break;
	if (i == MAX_IDLE)
		return;
	c = &id->c[i];
	if (i == id->n) {
		memset(c, 0, sizeof(*c));
		c->key = s->key;
		c->role = (uint8_t)id->role;
		id->n++;
	}
	g = realloc(c->gaps, (c->n + 1) * sizeof(*g));
	if (!g) {
		id->nomem = true;
		return;
	}
	c->gaps = g;
	c->gaps[c->n++] = ns;
	c->total += ns;
	id->total += ns;
}

static void idles_free(struct idles *id)
{
	size_t i;

	for (i = 0; i < id->n; i++)
		free(id->c[i].gaps);
	id->n = 0;
	id->total = 0;
}

static int cmp_idle(const void *x, const void *y)
{
	const struct idle_cause *a = x, *b = y;

	return a->total > b->total ? -1 : a->total < b->total;
}

static void idle_causes(struct rep *r, const struct nsight_dx_group *g)
{
	static const char title[] = "Idle time of the slowest message, by the activity before it";
	struct idles id = { .n = 0 };
	const struct nsight_msg *m = NULL;
	int64_t lo = INT64_MAX, hi = 1;
	struct svg_axis ax;
	char t[128], name[NSIGHT_KEY_NAME_MAX + 40], b[NSIGHT_KEY_NAME_MAX + 80], d[32];
	size_t k, i;
	int h;

	/* The slowest tail message with idle time on its cores. */
	for (k = 0; k < g->n_msgs && !id.n && !id.nomem; k++) {
		m = msg_of(r, &g->msgs[k]);
		each_window_seg(r, m, idle_seg, &id, &id.role);
	}
	if (id.nomem || !id.n) {
		idles_free(&id);
		empty_plot(r, "idle", title,
			   id.nomem ? "out of memory" :
			   g->n_msgs ? "no idle time in the tail messages" : "no tail messages");
		return;
	}
	qsort(id.c, id.n, sizeof(id.c[0]), cmp_idle);
	for (i = 0; i < id.n; i++) {
		nsight_sort_i64(id.c[i].gaps, id.c[i].n);
		lo = id.c[i].gaps[0] < lo ? id.c[i].gaps[0] : lo;
		hi = id.c[i].gaps[id.c[i].n - 1] > hi ? id.c[i].gaps[id.c[i].n - 1] : hi;
	}
	snprintf(t, sizeof(t), "Idle time of %s %" PRIu64 " (%s, %s idle), by the activity before it",
		 nsight_msg_dir_name(g->dir), m->id, dur(m->total_ns, b, sizeof(b)),
		 dur(id.total, d, sizeof(d)));
	h = MT + MB + (int)id.n * 28;
	svg_open(r, "idle", t, W, h);
	svg_axis_init(&ax, (double)(lo > 0 ? lo : 1), (double)hi, 330, W - 150,
		      svg_wide((double)(lo > 0 ? lo : 1), (double)hi));
	svg_ticks(r->f, &ax, false, h - MB + 6, h - MB - MT + 6, fmt_dur);
	svg_text(r->f, (330 + W - 150) / 2.0, h - 6, "middle", "label", "idle gap");
	for (i = 0; i < id.n; i++) {
		const struct idle_cause *c = &id.c[i];
		double y = MT + (double)i * 28 + 14;

		nsight_key_format(r->a->keys, c->key, name, sizeof(name));
		snprintf(b, sizeof(b), "%s (%s)", name, nsight_role_name(c->role));
		svg_text(r->f, 320, y + 4, "end", NULL, b);
		snprintf(t, sizeof(t), "%zu gaps, %s in all", c->n, dur(c->total, d, sizeof(d)));
		hbox(r, &ax, c->gaps, c->n, y, c->role ? "#6baed6" : "#fdae6b", t);
		snprintf(t, sizeof(t), "%zu gap%s, %s", c->n, c->n == 1 ? "" : "s",
			 dur(c->total, d, sizeof(d)));
		svg_text(r->f, W - 144, y + 4, "start", "count", t);
	}
	idles_free(&id);
	svg_close(r, k > 1 ? "the slowest messages before it have no idle time" : NULL);
}

/* ---------------------------------------------------------------------- */
/* 5. Queuing: n->h, then h->a idle, in other contexts, or processing.    */

struct split {
	uint32_t tid;
	uint64_t ticks[3];	/* idle, other contexts, the application thread */
};

static void split_seg(struct rep *r, void *arg, const struct nsight_seg *s, uint64_t from,
		      uint64_t to)
{
	const struct nsight_timeline *tl = &r->a->tl;
	struct split *sp = arg;
	uint32_t c = s->ctx;

	/* The innermost context but a function: the thread itself, or its
	 * fault, is the application; interrupts in it are not. */
	while (tl->ctx[c].kind == NSIGHT_CTX_K_FUNC && tl->ctx[c].parent != NSIGHT_TL_NONE)
		c = tl->ctx[c].parent;
	if (tl->ctx[c].kind == NSIGHT_CTX_K_IDLE || tl->ctx[c].kind == NSIGHT_CTX_K_SWAPPER)
		sp->ticks[0] += to - from;
	else if ((tl->ctx[c].kind == NSIGHT_CTX_K_TASK || tl->ctx[c].kind == NSIGHT_CTX_K_FAULT) &&
		 tl->ctx[c].tid == sp->tid)
		sp->ticks[2] += to - from;
	else
		sp->ticks[1] += to - from;
}

static void queuing(struct rep *r, const struct nsight_dx_group *g)
{
	static const char title[] = "Queuing breakdown of the tail messages (slowest first)";
	static const char *const colors[4] = { "#fdae6b", "#d9d9d9", "#969696", APP_COLOR };
	const char *parts[4] = { "n->h: receive core", "h->a waiting: core idle",
				 "h->a waiting: other contexts", "h->a: application thread" };
	/* The thread includes its processing of earlier messages (hol). */
	size_t n = g->n_msgs < MAX_QUEUED ? g->n_msgs : MAX_QUEUED, k, every;
	struct svg_axis ay;
	double most = 1, bw, lx;
	char b[64], t[160];
	int j;

	if (!n) {
		empty_plot(r, "queuing", title, "no tail messages");
		return;
	}
	if (g->dir == NSIGHT_MSG_TX) {
		parts[1] = "send->xmit waiting: core idle";
		parts[2] = "send->xmit waiting: other contexts";
		parts[3] = "send->xmit: application thread";
	}
	for (k = 0; k < n; k++)
		most = (double)msg_of(r, &g->msgs[k])->total_ns > most ?
			       (double)msg_of(r, &g->msgs[k])->total_ns : most;
	svg_open(r, "queuing", title, W, H + 30);
	svg_axis_init(&ay, 0, most, H - MB, MT, false);
	svg_ticks(r->f, &ay, true, ML, W - ML - MR, fmt_dur);
	bw = (double)(W - ML - MR) / (double)n;
	every = bw >= 28 ? 1 : (size_t)(28 / bw) + 1;
	for (k = 0; k < n; k++) {
		const struct nsight_msg *m = msg_of(r, &g->msgs[k]);
		struct split sp = { .tid = m->tid };
		int64_t first = m->dir == NSIGHT_MSG_RX ? m->seg_ns[0] : 0;
		double v[4], y = H - MB, wt, x = ML + (double)k * bw + bw * 0.1;
		uint64_t sum;
		uint32_t cpu;
		uint64_t lo, hi;

		if (window(m, 1, &cpu, &lo, &hi))
			each_seg(r, cpu, lo, hi, split_seg, &sp);
		/* The window's split, scaled to its measured duration. */
		sum = sp.ticks[0] + sp.ticks[1] + sp.ticks[2];
		wt = (double)m->total_ns - (double)first;
		v[0] = (double)first;
		for (j = 0; j < 3; j++)
			v[j + 1] = sum ? (double)sp.ticks[j] / (double)sum * wt : 0;
		if (!sum)
			v[2] = wt;	/* nothing known: not the application */
		for (j = 0; j < 4; j++) {
			double hgt = svg_pos(&ay, 0) - svg_pos(&ay, v[j]);

			if (hgt <= 0)
				continue;
			y -= hgt;
			snprintf(t, sizeof(t), "%s %" PRIu64 " %s: %s", nsight_msg_dir_name(m->dir),
				 m->id, parts[j], dur(to_i64(v[j]), b, sizeof(b)));
			fprintf(r->f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>",
				x, y, bw * 0.8, hgt, colors[j]);
			svg_esc_s(r->f, t);
			fputs("</title></rect>\n", r->f);
		}
		if (k % every == 0) {
			snprintf(b, sizeof(b), "%" PRIu64, m->id);
			svg_text(r->f, x + bw * 0.4, H - MB + 14, "middle", "small", b);
		}
	}
	svg_text(r->f, (W + ML) / 2.0, H - 12, "middle", "label", "message id");
	for (j = g->dir == NSIGHT_MSG_RX ? 0 : 1, lx = ML; j < 4; j++)
		lx = legend(r, lx, H + 14, colors[j], parts[j]);
	svg_close(r, NULL);
}

/* ---------------------------------------------------------------------- */
/* 6. The share of the tail's time on each core by context kind.          */

struct kinds {
	double ticks[2][N_KINDS + 1];	/* [role][kind], K_APP: the message's thread */
	uint32_t tid;
	int role;
};

static void kind_seg(struct rep *r, void *arg, const struct nsight_seg *s, uint64_t from,
		     uint64_t to)
{
	const struct nsight_timeline *tl = &r->a->tl;
	struct kinds *kd = arg;
	uint8_t kind = tl->ctx[s->ctx].kind;
	uint32_t c;

	/* The innermost context but a function or a task: what kept the core busy. */
	for (c = s->ctx; c != NSIGHT_TL_NONE; c = tl->ctx[c].parent)
		if (tl->ctx[c].kind != NSIGHT_CTX_K_FUNC && tl->ctx[c].kind != NSIGHT_CTX_K_TASK) {
			kind = tl->ctx[c].kind;
			break;
		}
	if (kind == NSIGHT_CTX_K_FUNC)
		kind = NSIGHT_CTX_K_TASK;
	if (kind == NSIGHT_CTX_K_TASK && in_thread(tl, s, kd->tid))
		kind = K_APP;
	if (kind <= K_APP)
		kd->ticks[kd->role][kind] += (double)(to - from);
}

static void core_contexts(struct rep *r, const struct nsight_dx_group *g)
{
	static const char title[] = "Core contexts during the tail messages (share of their time)";
	/* Drawn in this order; "task" are other tasks here. */
	static const uint8_t order[] = {
		K_APP,		     NSIGHT_CTX_K_TASK,	 NSIGHT_CTX_K_SOFTIRQ, NSIGHT_CTX_K_IRQ,
		NSIGHT_CTX_K_WORK,   NSIGHT_CTX_K_FAULT, NSIGHT_CTX_K_IDLE,    NSIGHT_CTX_K_SWAPPER,
		NSIGHT_CTX_K_UNKNOWN, NSIGHT_CTX_K_LOST,
	};
	struct kinds kd;
	bool used[N_KINDS + 1] = { false };
	char b[96], t[128];
	size_t k, j;
	double lx;
	int role;

	if (!g->n_msgs) {
		empty_plot(r, "contexts", title, "no tail messages");
		return;
	}
	memset(&kd, 0, sizeof(kd));
	for (k = 0; k < g->n_msgs; k++) {
		const struct nsight_msg *m = msg_of(r, &g->msgs[k]);

		kd.tid = m->tid;
		each_window_seg(r, m, kind_seg, &kd, &kd.role);
	}
	svg_open(r, "contexts", title, W, 150);
	for (role = 0; role < 2; role++) {
		double total = 0, x = 150, y = MT + role * 40;

		for (j = 0; j <= N_KINDS; j++)
			total += kd.ticks[role][j];
		svg_text(r->f, 140, y + 18, "end", NULL,
			 role ? "A: application core" : "R: receive core");
		if (total <= 0) {
			svg_text(r->f, x, y + 18, "start", "note",
				 g->dir == NSIGHT_MSG_TX ? "(none: send messages)" : "(no time)");
			continue;
		}
		for (j = 0; j < sizeof(order); j++) {
			uint8_t kind = order[j];
			double share = kd.ticks[role][kind] / total, w = share * (W - 170);
			const char *name = kind == K_APP ? "the application" :
					   kind == NSIGHT_CTX_K_TASK ? "other tasks" : kind_name[kind];

			if (w <= 0)
				continue;
			used[kind] = true;
			snprintf(t, sizeof(t), "%s: %.1f%%", name, share * 100);
			fprintf(r->f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"26\" fill=\"%s\"><title>",
				x, y, w, kind == K_APP ? APP_COLOR : kind_color[kind]);
			svg_esc_s(r->f, t);
			fputs("</title></rect>\n", r->f);
			if (w > 80) {
				snprintf(b, sizeof(b), "%s %.0f%%", name, share * 100);
				svg_text(r->f, x + w / 2, y + 17, "middle", NULL, b);
			}
			x += w;
		}
	}
	for (j = 0, lx = 150; j < sizeof(order); j++)
		if (used[order[j]])
			lx = legend(r, lx, 118, order[j] == K_APP ? APP_COLOR : kind_color[order[j]],
				    order[j] == K_APP ? "the application" :
				    order[j] == NSIGHT_CTX_K_TASK ? "other tasks" : kind_name[order[j]]);
	svg_close(r, NULL);
}

/* ---------------------------------------------------------------------- */
/* 7. The latency CDF; with a baseline, its CDF too.                      */

/* The sorted latencies of the group's comm and direction in @a (@same_pid: and pid). */
static int64_t *latencies(const struct nsight_analysis *a, const struct nsight_dx_group *g,
			  bool same_pid, size_t *n)
{
	return nsight_latency_values(&a->lt, g->comm, same_pid ? &g->pid : NULL, g->dir, n);
}

/* A step line through the @n sorted latencies @v. */
static void cdf_line(struct rep *r, const struct svg_axis *ax, const struct svg_axis *ay,
		     const int64_t *v, size_t n, const char *color, const char *cls)
{
	size_t i, step = n > 2000 ? n / 2000 : 1;

	fprintf(r->f, "<path class=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" d=\"M%.1f %.1f",
		cls, color, svg_pos(ax, (double)v[0]), svg_pos(ay, 0));
	for (i = 0; i < n; i += step) {
		size_t last = i + step < n ? i + step - 1 : n - 1;

		fprintf(r->f, " L%.1f %.1f L%.1f %.1f", svg_pos(ax, (double)v[i]),
			svg_pos(ay, (double)i / (double)n), svg_pos(ax, (double)v[last]),
			svg_pos(ay, (double)(last + 1) / (double)n));
	}
	fputs("\"/>\n", r->f);
}

static void cdf(struct rep *r, const struct nsight_dx_group *g)
{
	const char *title = r->b ? "Latency CDF, this capture and the baseline" : "Latency CDF";
	size_t n, nb = 0;
	int64_t *v = latencies(r->a, g, true, &n), *vb = NULL;
	struct svg_axis ax, ay;
	int64_t lo, hi;
	char b[64], d[32];

	if (r->b)
		vb = latencies(r->b, g, false, &nb);
	if (!v || (r->b && !vb) || !n) {
		free(v);
		free(vb);
		empty_plot(r, "cdf", title, n ? "out of memory" : "no complete messages");
		return;
	}
	lo = v[0];
	hi = v[n - 1];
	if (nb) {
		lo = vb[0] < lo ? vb[0] : lo;
		hi = vb[nb - 1] > hi ? vb[nb - 1] : hi;
	}
	svg_open(r, "cdf", title, W, H + 20);
	svg_axis_init(&ax, (double)lo, (double)hi, ML, W - MR, svg_wide((double)lo, (double)hi));
	svg_ticks(r->f, &ax, false, H - MB, H - MB - MT, fmt_dur);
	svg_axis_init(&ay, 0, 1, H - MB, MT, false);
	ay.step = 0.25;
	svg_ticks(r->f, &ay, true, ML, W - ML - MR, fmt_pct);
	svg_text(r->f, (W + ML) / 2.0, H - 6, "middle", "label", "latency");
	cdf_line(r, &ax, &ay, v, n, "#d62728", "cdf");
	snprintf(b, sizeof(b), "this capture (%zu, median %s)", n, dur(quant(v, n, 0.5), d, sizeof(d)));
	legend(r, W - 300, H - MB - 36, "#d62728", b);
	if (nb) {
		cdf_line(r, &ax, &ay, vb, nb, "#1f77b4", "cdf baseline");
		snprintf(b, sizeof(b), "baseline (%zu, median %s)", nb,
			 dur(quant(vb, nb, 0.5), d, sizeof(d)));
		legend(r, W - 300, H - MB - 20, "#1f77b4", b);
	}
	free(v);
	free(vb);
	svg_close(r, r->b && !nb ? "the baseline has no such messages" : NULL);
}

/* ---------------------------------------------------------------------- */
/* The page.                                                              */

static const char style[] =
	"body{font-family:sans-serif;margin:20px;color:#222;max-width:960px}"
	"h1{font-size:20px}h2{font-size:17px;border-top:1px solid #ccc;padding-top:10px}"
	"h3{font-size:14px;margin:14px 0 4px}svg{background:#fff;border:1px solid #ddd}"
	"svg text{font-size:11px;fill:#222}svg text.small{font-size:9px}"
	"svg text.label{fill:#555}svg text.msg{font-weight:bold}svg text.count{fill:#444}"
	"svg text.stage{font-weight:bold;font-size:10px}svg text.note{fill:#777}"
	"svg .vlabel{writing-mode:vertical-rl}"
	"line.grid{stroke:#eee}line.stage{stroke:#000;stroke-dasharray:3 2}"
	"line.threshold{stroke:#d62728;stroke-dasharray:5 3}line.whisker{stroke:#444}"
	"line.median{stroke:#000;stroke-width:2}rect.box{stroke:#333;stroke-width:0.6}"
	"rect.ctx{stroke:#fff;stroke-width:0.3}rect.frame{stroke:#eee}"
	"table{border-collapse:collapse;font-size:13px}td,th{padding:2px 8px;text-align:right}"
	"td:first-child,th:first-child{text-align:left}.note{color:#777;font-size:12px}"
	"svg.mark{border:none;vertical-align:middle}pre{font-size:12px;background:#f7f7f7;padding:8px;overflow-x:auto}";

static void cause_table(struct rep *r, const struct nsight_dx_group *g)
{
	char b1[32], b2[32], b3[32];
	size_t k;

	if (!g->n_causes) {
		fputs("<p class=\"note\">no cause</p>\n", r->f);
		return;
	}
	fputs("<table><tr><th>cause</th><th>share</th><th>excess</th><th>messages</th><th>main</th><th>median</th><th>max</th></tr>\n",
	      r->f);
	for (k = 0; k < g->n_causes; k++) {
		const struct nsight_dx_cause *c = &g->causes[k];

		fputs("<tr><td><svg class=\"mark\" width=\"12\" height=\"12\">", r->f);
		svg_marker(r->f, k < MAX_CAUSES ? (unsigned int)k : 0, 6, 6, 4.5,
			   cause_color((uint32_t)k), NULL, NULL);
		fputs("</svg> ", r->f);
		svg_esc_s(r->f, c->category);
		fprintf(r->f, " (%s)</td><td>%.0f%%</td><td>%s</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%s</td><td>%s</td></tr>\n",
			nsight_role_name(c->role), nsight_dx_cause_share(g, c) * 100,
			dur(c->total, b3, sizeof(b3)), c->messages, c->main,
			dur(c->median, b1, sizeof(b1)), dur(c->max, b2, sizeof(b2)));
	}
	fputs("</table>\n", r->f);
}

/* The group's reference and tail, as the text's "diagnosis:" line says them. */
static void group_head(struct rep *r, const struct nsight_dx_group *g)
{
	char comm[17], b1[32], b2[32], tp[16];

	snprintf(comm, sizeof(comm), "%.16s", g->comm);
	fputs("<h2>", r->f);
	svg_esc_s(r->f, comm[0] ? comm : "?");
	fprintf(r->f, "[%" PRIu32 "] %s: %zu complete messages, tail %zu</h2>\n<p>", g->pid,
		nsight_msg_dir_name(g->dir), g->complete, g->n_msgs);
	if (g->no_baseline)
		fputs("no such messages in the baseline: no reference", r->f);
	else if (!g->n_ref)
		fprintf(r->f, "no reference: records were lost in the windows of all %zu reference messages",
			g->ref_candidates);
	else
		fprintf(r->f, "reference %zu messages%s (median %s), %s %zu messages %s p%s (%s)",
			g->n_ref, r->dx->opts.baseline ? " of the baseline" : "",
			dur(g->ref_median, b1, sizeof(b1)),
			g->tail_threshold_hi ? "band" : "tail", g->n_msgs,
			g->tail_threshold_hi ? "from" : "&gt;=",
			nsight_pct_format(r->dx->opts.tail, tp, sizeof(tp)),
			dur(g->tail_threshold, b2, sizeof(b2)));
	if (g->n_ref && g->tail_threshold_hi)
		fprintf(r->f, " to p%s (%s)", nsight_pct_format(r->dx->opts.tail_hi, tp, sizeof(tp)),
			dur(g->tail_threshold_hi, b2, sizeof(b2)));
	if (g->n_cov)
		fprintf(r->f, "; coverage median %.0f%%", g->cov_p50 * 100);
	fputs("</p>\n", r->f);
}

/*
 * The diagnosis as nsight-analyze prints it: its "evidence:" lines in the
 * header, all of it in a <details>.
 */
static int diag_text(struct rep *r, struct nsight_diag *d)
{
	static const struct nsight_tty plain = { .color = false, .width = NSIGHT_TTY_WIDTH };
	char *text = NULL, *line, *nl;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	nsight_dx_report_tty(m, r->dx, r->a, &plain);
	if (fclose(m)) {
		free(text);
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	}
	for (line = text; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			nl = line + strlen(line) - 1;
		if (!strncmp(line, "evidence: ", 10)) {
			fputs("<p class=\"evidence\">", r->f);
			svg_esc(r->f, line, (size_t)(nl - line));
			fputs("</p>\n", r->f);
		}
	}
	fputs("<details><summary>the diagnosis as text</summary><pre>", r->f);
	svg_esc_s(r->f, text);
	fputs("</pre></details>\n", r->f);
	free(text);
	return 0;
}

int nsight_html_report(FILE *f, const char *name, const struct nsight_analysis *a,
		       const struct nsight_dx *dx, const struct nsight_analysis *b,
		       struct nsight_diag *d)
{
	struct rep r = { .f = f, .a = a, .dx = dx, .b = b, .tsc_ns = 1 };
	char rel[sizeof(a->sum.hdr.release) + 1];
	int err;

	if (a->sum.hdr.tsc_hz)
		r.tsc_ns = 1e9 / (double)a->sum.hdr.tsc_hz;
	snprintf(rel, sizeof(rel), "%.*s", (int)sizeof(a->sum.hdr.release), a->sum.hdr.release);
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>nsight: ", f);
	svg_esc_s(f, name);
	fprintf(f, "</title><style>%s</style></head><body>\n<h1>nsight report: ", style);
	svg_esc_s(f, name);
	fputs("</h1>\n<p>kernel ", f);
	svg_esc_s(f, rel);
	fprintf(f, ", %" PRIu32 " cpus, span %.3f s, %" PRIu64 " records (%" PRIu64 " dropped), %zu messages (%" PRIu64 " complete)",
		a->sum.hdr.nr_cpus, nsight_summary_span_seconds(&a->sum), a->sum.records,
		a->sum.dropped, a->lt.n, a->lt.n_complete);
	if (b) {
		fputs("; baseline ", f);
		svg_esc_s(f, dx->opts.baseline ? dx->opts.baseline : "");
		fprintf(f, " (%zu messages)", b->lt.n);
	}
	fputs("</p>\n", f);
	err = diag_text(&r, d);
	if (err)
		return err;
	if (dx->no_context)
		fputs("<p class=\"note\">no context records (sched_switch, irq, softirq, idle, fault, workqueue): no diagnosis</p>\n",
		      f);
	if (!dx->n)
		fputs("<p class=\"note\">no complete messages to diagnose</p>\n", f);
	for (r.group = 0; r.group < dx->n; r.group++) {
		const struct nsight_dx_group *g = &dx->groups[r.group];

		group_head(&r, g);
		cause_table(&r, g);
		balloon(&r, g);
		cause_boxes(&r, g);
		timelines(&r, g);
		idle_causes(&r, g);
		queuing(&r, g);
		core_contexts(&r, g);
		cdf(&r, g);
	}
	fputs("</body></html>\n", f);
	if (fflush(f) || ferror(f))
		return nsight_diag_set(d, NSIGHT_E_IO, "writing failed: %s", strerror(errno));
	return 0;
}
