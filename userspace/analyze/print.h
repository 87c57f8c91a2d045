/* SPDX-License-Identifier: MIT */
/* Text and JSON output of a struct nsight_summary. */
#ifndef NSIGHT_PRINT_H
#define NSIGHT_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <json-c/json.h>

#include "pipeline/summary.h"

/*
 * @src (at most @len - 1 bytes, to its NUL) into @dst with '?' for what a
 * terminal must not get: names come from the traced system. @blanks keeps
 * spaces; text tables drop them so that every line splits into fields.
 * Returns @dst.
 */
const char *nsight_printable(char *dst, const char *src, size_t len, bool blanks);

/* @name is the stream's file name ("-" for stdin). */
void nsight_summary_print_text(FILE *f, const char *name, const struct nsight_summary *s);
/* The "check:" line and the problems found, as the text above ends. */
void nsight_summary_print_check(FILE *f, const struct nsight_summary *s);
/* A new json-c object (the caller puts it), NULL if out of memory. */
struct json_object *nsight_summary_to_json(const char *name, const struct nsight_summary *s);
/*
 * A stream cut short, on stderr: "nsight-analyze: NAME: warning: ...".
 * Nothing when @s is whole.
 */
void nsight_summary_warn_cut(const struct nsight_summary *s, const char *name);

#endif /* NSIGHT_PRINT_H */
