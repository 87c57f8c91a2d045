/* SPDX-License-Identifier: MIT */
/*
 * Small helpers for inline SVG in the HTML report: escaping, text, linear
 * and log10 axes with ticks, and marker shapes. Everything is written to a
 * stdio stream; write errors are left to the caller's ferror().
 */
#ifndef NSIGHT_SVG_H
#define NSIGHT_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Marker shapes, one per cause: circle, square, triangle, diamond, ... */
#define SVG_SHAPES	8

/*
 * Write at most @n bytes of @s (up to a NUL) escaped for HTML text and
 * attribute values alike: < > & " ' as entities, control bytes but '\n'
 * as '?'.
 */
void svg_esc(FILE *f, const char *s, size_t n);
void svg_esc_s(FILE *f, const char *s);

/* <text> at (@x, @y), anchored start, middle or end; @cls may be NULL. */
void svg_text(FILE *f, double x, double y, const char *anchor, const char *cls, const char *s);

/* A value axis mapped onto pixels [@p0, @p1] (p1 may be below p0). */
struct svg_axis {
	bool log;		/* log10 of the value */
	double v0, v1;		/* the ends: values, or their log10 */
	double step;		/* linear: between ticks */
	double p0, p1;
};

/* Whether [@lo, @hi] spans enough (a factor of 10 or more) for a log axis. */
bool svg_wide(double lo, double hi);
/*
 * An axis covering [@lo, @hi]: log10 from the decade below @lo to the one
 * above @hi (values under 1 count as 1), or linear from 0 (or @lo when it
 * is negative) to @hi rounded up to a tick, ticks at 1, 2 or 5 times a
 * power of ten.
 */
void svg_axis_init(struct svg_axis *ax, double lo, double hi, double p0, double p1, bool log);
double svg_pos(const struct svg_axis *ax, double v);

/* Tick labels: @v into @buf. */
typedef const char *(*svg_fmt)(double v, char *buf, size_t len);

/*
 * Grid lines and labels of @ax: @vert, a Y axis with its labels left of x =
 * @at and lines @len to the right; else an X axis with labels below y =
 * @at and lines @len upwards.
 */
void svg_ticks(FILE *f, const struct svg_axis *ax, bool vert, double at, double len, svg_fmt fmt);

/* Marker @shape (mod SVG_SHAPES) of radius @r at (@x, @y); @title may be NULL. */
void svg_marker(FILE *f, unsigned int shape, double x, double y, double r, const char *fill,
		const char *cls, const char *title);

#endif /* NSIGHT_SVG_H */
