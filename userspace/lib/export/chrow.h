/* SPDX-License-Identifier: MIT */
/*
 * The text ClickHouse reads: rows of its TabSeparated format (what an
 * INSERT ... FORMAT TabSeparated takes) and string literals of its SQL.
 *
 * TabSeparated: a row's values separated by a tab and ended by a newline;
 * in a string, a backslash, tab, newline, carriage return, backspace, form
 * feed and NUL are written as \\, \t, \n, \r, \b, \f and \0 (every other
 * byte as it is: a String holds bytes); NULL (a Nullable column) is \N; an
 * array is [v,v,...]; a DateTime a unix time of exactly 10 digits. A SQL string literal is quoted with ' and escapes '
 * and \ (and the same control bytes) with a backslash.
 */
#ifndef NSIGHT_CHROW_H
#define NSIGHT_CHROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A row being written to @f: its values in the columns' order. */
struct nsight_chrow {
	FILE *f;
	unsigned int cols;	/* values written so far */
};

void nsight_chrow_begin(struct nsight_chrow *r, FILE *f);
void nsight_chrow_str(struct nsight_chrow *r, const char *s);
/* At most @n bytes of @s, up to its NUL (a comm). */
void nsight_chrow_strn(struct nsight_chrow *r, const char *s, size_t n);
void nsight_chrow_u64(struct nsight_chrow *r, uint64_t v);
void nsight_chrow_i64(struct nsight_chrow *r, int64_t v);
/* Shortest text that reads back as @v (%.17g); nan and inf as ClickHouse writes them. */
void nsight_chrow_f64(struct nsight_chrow *r, double v);
void nsight_chrow_bool(struct nsight_chrow *r, bool v);
void nsight_chrow_null(struct nsight_chrow *r);
/* A DateTime: the second of realtime @ns (10 digits, 1970 to 2286; clamped). */
void nsight_chrow_datetime(struct nsight_chrow *r, int64_t ns);
/* An Array(UInt64). */
void nsight_chrow_u64_array(struct nsight_chrow *r, const uint64_t *v, size_t n);
/* The newline; returns the number of values in the row. */
unsigned int nsight_chrow_end(struct nsight_chrow *r);

/* @n bytes of @s escaped for TabSeparated to @f. */
void nsight_chrow_escape(FILE *f, const char *s, size_t n);
/* @s as a SQL string literal, quotes included, to @f. */
void nsight_chrow_sql_str(FILE *f, const char *s);

#endif /* NSIGHT_CHROW_H */
