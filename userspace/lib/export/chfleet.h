/* SPDX-License-Identifier: MIT */
/*
 * The fleet queries (nsight.rst "Fleet view"): Documentation/fleet.sql,
 * built in (the Makefile makes it a C string), its queries by name
 * ("-- name: NAME" before each) with their placeholders filled: {db},
 * {from}, {to}, {from2}, {to2} (unix seconds) and {host} (a SQL string
 * literal). What a query needs is read from its text: {host}, {from2}.
 * And the times a range is given in: RFC 3339, unix seconds, "now" or a
 * time before now ("-1h").
 */
#ifndef NSIGHT_CHFLEET_H
#define NSIGHT_CHFLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"

/* Documentation/fleet.sql, as it is. */
extern const char nsight_chfleet_sql_file[];

/* What a query's text has placeholders for, beside {db}, {from} and {to}. */
enum {
	NSIGHT_CHFLEET_HOST = 1 << 0,	/* {host} */
	NSIGHT_CHFLEET_RANGE2 = 1 << 1,	/* {from2}, {to2} */
};

/* The values of the placeholders. */
struct nsight_chfleet_args {
	const char *db;			/* an identifier (churl's) */
	int64_t from, to;		/* [from, to), unix seconds */
	int64_t from2, to2;		/* the second range (compare) */
	const char *host;		/* NULL: none */
};

#define NSIGHT_CHFLEET_NAME 32

/* The queries' names in the file's order into @names (at most @max); their number. */
size_t nsight_chfleet_names(char (*names)[NSIGHT_CHFLEET_NAME], size_t max);

/*
 * Query @name's placeholders (NSIGHT_CHFLEET_*) into *@uses. 0, or
 * -NSIGHT_E_INVAL with @d naming the queries there are.
 */
int nsight_chfleet_uses(const char *name, unsigned int *uses, struct nsight_diag *d);

/*
 * Query @name with @a's values (malloc'd into *@sql): the file's lines of
 * the query without its comments and its ';'. 0, -NSIGHT_E_INVAL (no such
 * query, a placeholder without a value) or -NSIGHT_E_NOMEM, with @d.
 */
int nsight_chfleet_sql(const char *name, const struct nsight_chfleet_args *a, char **sql,
		       struct nsight_diag *d);

/*
 * A time into unix seconds (*@t): RFC 3339 ("2024-05-01T12:00:00Z",
 * "...T14:00:00.5+02:00", a space for the T; a fraction of a second is
 * dropped, toward the past), unix seconds ("1714564800"), "now" (@now)
 * or a time before @now: "-N" with s, m, h, d or w ("-90s", "-1h",
 * "-7d"). 0 or -1.
 */
int nsight_chfleet_time(const char *s, int64_t now, int64_t *t);

/* @t as RFC 3339 in UTC ("2024-05-01T12:00:00Z") into @buf. */
const char *nsight_chfleet_time_str(int64_t t, char *buf, size_t len);

#endif /* NSIGHT_CHFLEET_H */
