/* SPDX-License-Identifier: MIT */
/*
 * nsight-analyze --window: the capture's summary and check once, then the
 * latency figures and the diagnosis of each time window with records
 * (window.h), printed as each is done: text, or with --json one JSON
 * object per line (the summary first, then one per window).
 *
 * --whole-diagnosis: after the windows, the whole capture's diagnosis
 * (diagnose.h, struct nsight_dxs), from two more passes over them.
 *
 * report --stream: the same passes, printed as the report of the whole
 * capture is: its summary, latency, diagnosis and critical path, with what
 * a streamed report leaves out said.
 *
 * --triggers (or a flight recorder's capture): the windows are those the
 * flight recorder saved; each starts with the message that fired it (its
 * trigger, its lifetime as the analysis found it and its own causes), then
 * the window's latency figures and diagnosis.
 */
#ifndef NSIGHT_WINDOW_REPORT_H
#define NSIGHT_WINDOW_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>

#include "diagnose/categories.h"
#include "diagnose/diagnose.h"
#include "terminal.h"
#include "capture/timeconv.h"

struct nsight_window_report_opts {
	uint64_t width_ns;		/* 0: the flight recorder's trigger windows */
	bool json, verbose, strict, messages;
	bool whole_dx;			/* --whole-diagnosis */
	/*
	 * The report streamed (report --stream): the report of the whole
	 * capture in its usual shape, from the windows' passes and without a
	 * line per window; windows of width_ns, or of about
	 * NSIGHT_STREAM_RECORDS records each when it is 0. @why: why it is
	 * streamed, printed with it (NULL: it was asked for).
	 */
	bool report;
	const char *why;
	/* Streamed, with --json: the "source" member first (taken over; NULL: none). */
	struct json_object *source;
	/* 2 or more: each window's timelines finished beside its lifetimes (analysis.h). */
	unsigned int threads;
	struct nsight_tty tty;
	enum nsight_clockid clk;
	enum nsight_tc_params params;
	const struct nsight_dx_opts *dx;
	const struct nsight_cats *cats;
};

/* The streamed report's windows: records in each, about (their memory). */
#define NSIGHT_STREAM_RECORDS	100000

/* Analyse @in (named @name) window by window; returns the exit status. @o->source is put. */
int nsight_window_report(FILE *in, const char *name, const struct nsight_window_report_opts *o);

#endif /* NSIGHT_WINDOW_REPORT_H */
