// SPDX-License-Identifier: MIT
#include <math.h>
#include <string.h>

#include "svg.h"

void svg_esc(FILE *f, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && s[i]; i++) {
		unsigned char ch = (unsigned char)s[i];

		switch (ch) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			fputc((ch < 0x20 && ch != '\n') || ch == 0x7f ? '?' : ch, f);
		}
	}
}

void svg_esc_s(FILE *f, const char *s)
{
	svg_esc(f, s, strlen(s));
}

void svg_text(FILE *f, double x, double y, const char *anchor, const char *cls, const char *s)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"", x, y, anchor);
	if (cls)
		fprintf(f, " class=\"%s\"", cls);
	fputc('>', f);
	svg_esc_s(f, s);
	fputs("</text>\n", f);
}

bool svg_wide(double lo, double hi)
{
	return lo > 0 && hi >= 10 * lo;
}

/* 1, 2 or 5 times a power of ten, at least @x / 5. */
static double nice_step(double x)
{
	double p, m;

	if (!(x > 0))
		return 1;
	p = pow(10, floor(log10(x / 5)));
	m = x / 5 / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

void svg_axis_init(struct svg_axis *ax, double lo, double hi, double p0, double p1, bool log)
{
	ax->log = log;
	ax->p0 = p0;
	ax->p1 = p1;
	if (log) {
		ax->v0 = floor(log10(lo > 1 ? lo : 1));
		ax->v1 = ceil(log10(hi > 10 ? hi : 10));
		if (ax->v1 <= ax->v0)
			ax->v1 = ax->v0 + 1;
		ax->step = 1;
		return;
	}
	ax->v0 = lo < 0 ? lo : 0;
	ax->step = nice_step(hi - ax->v0);
	ax->v0 = floor(ax->v0 / ax->step) * ax->step;
	ax->v1 = ceil(hi / ax->step) * ax->step;
	if (ax->v1 <= ax->v0)
		ax->v1 = ax->v0 + ax->step;
}

double svg_pos(const struct svg_axis *ax, double v)
{
	if (ax->log)
		v = log10(v > 1 ? v : 1);
	return ax->p0 + (v - ax->v0) / (ax->v1 - ax->v0) * (ax->p1 - ax->p0);
}

void svg_ticks(FILE *f, const struct svg_axis *ax, bool vert, double at, double len, svg_fmt fmt)
{
	/* Log axes over many decades: every other decade. */
	double step = ax->log && ax->v1 - ax->v0 > 8 ? 2 : ax->step;
	double t;
	char b[48];
	int i;

	/* At most 100: far from 0, a step below the precision does not advance t. */
	for (t = ax->v0, i = 0; t <= ax->v1 + step / 1000 && i < 100; t += step, i++) {
		double v = ax->log ? pow(10, t) : t;
		double p = svg_pos(ax, v);

		if (vert) {
			fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
				at, p, at + len, p);
			svg_text(f, at - 4, p + 4, "end", NULL, fmt(v, b, sizeof(b)));
		} else {
			fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
				p, at, p, at - len);
			svg_text(f, p, at + 14, "middle", NULL, fmt(v, b, sizeof(b)));
		}
	}
}

/* Polygons on the unit circle: corners as (x, y) pairs, y down. */
static const double square[] = { -0.8, -0.8, 0.8, -0.8, 0.8, 0.8, -0.8, 0.8 };
static const double tri_up[] = { 0, -1.1, 1, 0.8, -1, 0.8 };
static const double diamond[] = { 0, -1.2, 1, 0, 0, 1.2, -1, 0 };
static const double tri_down[] = { -1, -0.8, 1, -0.8, 0, 1.1 };
static const double plus[] = { -0.35, -1, 0.35, -1, 0.35, -0.35, 1, -0.35, 1, 0.35, 0.35, 0.35,
				0.35, 1, -0.35, 1, -0.35, 0.35, -1, 0.35, -1, -0.35, -0.35, -0.35 };
static const double star[] = { 0, -1.2, 0.3, -0.4, 1.1, -0.4, 0.45, 0.1, 0.7, 0.95,
			       0, 0.45, -0.7, 0.95, -0.45, 0.1, -1.1, -0.4, -0.3, -0.4 };
static const double hexagon[] = { -0.5, -0.9, 0.5, -0.9, 1, 0, 0.5, 0.9, -0.5, 0.9, -1, 0 };

static const struct {
	const double *p;
	size_t n;
} shapes[SVG_SHAPES] = {
	{ NULL, 0 },
	{ square, sizeof(square) / sizeof(double) / 2 },
	{ tri_up, sizeof(tri_up) / sizeof(double) / 2 },
	{ diamond, sizeof(diamond) / sizeof(double) / 2 },
	{ tri_down, sizeof(tri_down) / sizeof(double) / 2 },
	{ plus, sizeof(plus) / sizeof(double) / 2 },
	{ star, sizeof(star) / sizeof(double) / 2 },
	{ hexagon, sizeof(hexagon) / sizeof(double) / 2 },
};

void svg_marker(FILE *f, unsigned int shape, double x, double y, double r, const char *fill,
		const char *cls, const char *title)
{
	const char *el = "path";
	size_t i;

	shape %= SVG_SHAPES;
	if (!shapes[shape].p) {
		el = "circle";
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"", x, y, r);
	} else {
		fputs("<path d=\"", f);
		for (i = 0; i < shapes[shape].n; i++)
			fprintf(f, "%s%.1f %.1f", i ? " L" : "M", x + shapes[shape].p[2 * i] * r,
				y + shapes[shape].p[2 * i + 1] * r);
		fputs(" Z\"", f);
	}
	fprintf(f, " fill=\"%s\"", fill);
	if (cls)
		fprintf(f, " class=\"%s\"", cls);
	if (!title) {
		fputs("/>\n", f);
		return;
	}
	fputs("><title>", f);
	svg_esc_s(f, title);
	fprintf(f, "</title></%s>\n", el);
}
