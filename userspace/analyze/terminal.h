/* SPDX-License-Identifier: MIT */
/*
 * The compact terminal summary, nsight-analyze's default text: a header
 * line, the stream check, the time conversion, the latency table in
 * readable units with a histogram per application and direction, then
 * the diagnosis; all of it within NSIGHT_TTY_WIDTH columns but for
 * long names. Colour (ANSI SGR) only when asked for: by default when
 * stdout is a terminal and NO_COLOR is not set.
 */
#ifndef NSIGHT_TERMINAL_H
#define NSIGHT_TERMINAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pipeline/analysis.h"
#include "capture/timeconv.h"

#define NSIGHT_TTY_WIDTH	100
/* Histogram bars: at most this many characters. */
#define NSIGHT_TTY_BAR		40

struct nsight_tty {
	bool color;
	unsigned int width;	/* columns; 0: no limit */
};

/* Whether to colour stdout for --color=auto: a terminal, no NO_COLOR. */
bool nsight_tty_auto_color(void);

/* "950ns", "83.5us", "1.44ms", "12.4ms", "3.21s": @ns in 3 significant digits. */
const char *nsight_tty_duration(int64_t ns, char *buf, size_t len);
/* @bytes in decimal units, as "302 MB" or "6.0 GB" (under 1000: "512 bytes"). */
const char *nsight_tty_bytes(uint64_t bytes, char *buf, size_t len);

/*
 * A duration in a report: in readable units in the compact text (@t has
 * a width), else "12345 ns" (--verbose).
 */
const char *nsight_tty_dur(const struct nsight_tty *t, int64_t ns, char *buf, size_t len);

/* ANSI sequences, or "" without colour. */
const char *nsight_tty_bold(const struct nsight_tty *t);
const char *nsight_tty_off(const struct nsight_tty *t);

/* The header, the check, time and latency with histograms. */
/* The capture line and the check of @s. */
void nsight_tty_header(FILE *f, const char *name, const struct nsight_summary *s,
		       const struct nsight_tty *t);
/* The table of @l's groups: count, percentiles, max, incomplete. */
void nsight_tty_latency_table(FILE *f, const struct nsight_latency *l);
/* Group @g's @n complete messages' latencies @v (sorted) in a histogram. */
void nsight_tty_latency_histogram(FILE *f, const struct nsight_lat_group *g, const int64_t *v,
				  size_t n, const struct nsight_tty *t);
/* The latency table and histograms of @a. */
void nsight_tty_latency(FILE *f, const struct nsight_analysis *a, const struct nsight_tty *t);
/* Its first line, "latency: N messages, C complete, I incomplete; ...". */
void nsight_tty_latency_head(FILE *f, uint64_t messages, uint64_t complete,
			     const struct nsight_tty *t);

/*
 * --baseline: per application and direction of @a, its percentiles and
 * the baseline @b's (messages of the same comm and direction, any pid)
 * one above the other, after "baseline: @bname". Durations in ns with
 * @ns, else readable. Returns 0 or -NSIGHT_E_NOMEM.
 */
int nsight_tty_baseline_table(FILE *f, const struct nsight_analysis *a,
			      const struct nsight_analysis *b, const char *bname, bool ns);

void nsight_tty_summary(FILE *f, const char *name, const struct nsight_analysis *a,
			enum nsight_clockid clk, const struct nsight_tty *t);

#endif /* NSIGHT_TERMINAL_H */
