/* SPDX-License-Identifier: MIT */
/*
 * A progress line on stderr while nsight-analyze works, when stderr is a
 * terminal: the capture, the pass ("reading", "lifetimes", "diagnosis"),
 * records read and MB/s, redrawn at most NSIGHT_PROGRESS_NS apart and
 * erased at the end, so the report (or an error) starts on a clean line.
 * Silent when given no FILE: never in a pipe's or a test's output.
 */
#ifndef NSIGHT_PROGRESS_H
#define NSIGHT_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

#include "pipeline/analysis.h"

/* At most four lines a second. */
#define NSIGHT_PROGRESS_NS	250000000ULL

struct nsight_progress {
	FILE *f;			/* NULL: silent */
	char name[40];			/* the capture, cut to fit */
	const char *pass;
	uint64_t records, bytes;	/* in this pass */
	uint64_t start_ns, drawn_ns;	/* the pass began; the line was drawn */
	int len;			/* columns of the line on screen, 0: none */
	uint64_t (*clock)(void);	/* monotonic ns; tests set their own */
	struct nsight_analysis_progress hooks;	/* the analysis's: draw here */
};

/* Draw on @f (NULL: silent) about the capture @name. */
void nsight_progress_init(struct nsight_progress *p, FILE *f, const char *name);
/* stderr if it is a terminal, else NULL. */
FILE *nsight_progress_tty(void);
/* The calls below do nothing when @p is NULL or silent. */
/* A new pass: counts from 0, drawn at once. */
void nsight_progress_pass(struct nsight_progress *p, const char *pass);
/* @records and @bytes read so far in the pass; drawn if the last is old enough. */
void nsight_progress_update(struct nsight_progress *p, uint64_t records, uint64_t bytes);
/* Erase the line (if drawn); a later pass draws again. */
void nsight_progress_end(struct nsight_progress *p);

#endif /* NSIGHT_PROGRESS_H */
