// SPDX-License-Identifier: MIT
/* The fleet queries of Documentation/fleet.sql and their times (chfleet.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "export/chfleet.h"
#include "export/chrow.h"

const char nsight_chfleet_sql_file[] =
#include "fleet_sql.h"
	;

#define NAME_LINE "-- name: "

/* The line after @p (or the end). */
static const char *next_line(const char *p)
{
	const char *nl = strchr(p, '\n');

	return nl ? nl + 1 : p + strlen(p);
}

/* The name on a "-- name: NAME" line at @p: its length (0: not such a line). */
static size_t name_at(const char *p, const char **name)
{
	if (strncmp(p, NAME_LINE, strlen(NAME_LINE)))
		return 0;
	*name = p + strlen(NAME_LINE);
	return strcspn(*name, " \t\n");
}

/* Query @name's lines: [*begin, *end). false if there is none. */
static bool find(const char *name, const char **begin, const char **end)
{
	const char *p, *n;
	size_t len;

	for (p = nsight_chfleet_sql_file; *p; p = next_line(p)) {
		len = name_at(p, &n);
		if (!len || len != strlen(name) || strncmp(n, name, len))
			continue;
		*begin = next_line(p);
		for (p = *begin; *p && !name_at(p, &n); p = next_line(p))
			;
		*end = p;
		return true;
	}
	return false;
}

size_t nsight_chfleet_names(char (*names)[NSIGHT_CHFLEET_NAME], size_t max)
{
	const char *p, *n;
	size_t len, k = 0;

	for (p = nsight_chfleet_sql_file; *p; p = next_line(p)) {
		len = name_at(p, &n);
		if (!len)
			continue;
		if (k < max) {
			if (len >= NSIGHT_CHFLEET_NAME)
				len = NSIGHT_CHFLEET_NAME - 1;
			memcpy(names[k], n, len);
			names[k][len] = '\0';
		}
		k++;
	}
	return k;
}

static int no_query(const char *name, struct nsight_diag *d)
{
	char names[16][NSIGHT_CHFLEET_NAME], list[16 * (NSIGHT_CHFLEET_NAME + 2)] = "";
	size_t i, n = nsight_chfleet_names(names, 16);

	for (i = 0; i < n && i < 16; i++) {
		strcat(list, i ? ", " : "");
		strcat(list, names[i]);
	}
	return nsight_diag_set(d, NSIGHT_E_INVAL, "no fleet query '%s' (%s)", name, list);
}

/* Whether [b, e) has @s. */
static bool has(const char *b, const char *e, const char *s)
{
	size_t n = strlen(s);

	for (; b + n <= e; b++)
		if (!memcmp(b, s, n))
			return true;
	return false;
}

int nsight_chfleet_uses(const char *name, unsigned int *uses, struct nsight_diag *d)
{
	const char *b, *e;

	if (!find(name, &b, &e))
		return no_query(name, d);
	*uses = (has(b, e, "{host}") ? NSIGHT_CHFLEET_HOST : 0) |
		(has(b, e, "{from2}") || has(b, e, "{to2}") ? NSIGHT_CHFLEET_RANGE2 : 0);
	return 0;
}

/* The placeholder at @p written to @f: its length, 0 if @p has none. */
static size_t placeholder(FILE *f, const char *p, const struct nsight_chfleet_args *a)
{
	static const char *const ph[] = { "{db}", "{from}", "{to}", "{from2}", "{to2}", "{host}" };
	const int64_t t[] = { 0, a->from, a->to, a->from2, a->to2 };
	size_t i, n;

	for (i = 0; i < sizeof(ph) / sizeof(ph[0]); i++) {
		n = strlen(ph[i]);
		if (strncmp(p, ph[i], n))
			continue;
		if (i == 0)
			fputs(a->db, f);
		else if (i == 5)
			nsight_chrow_sql_str(f, a->host);
		else
			fprintf(f, "%lld", (long long)t[i]);
		return n;
	}
	return 0;
}

int nsight_chfleet_sql(const char *name, const struct nsight_chfleet_args *a, char **sql,
		       struct nsight_diag *d)
{
	const char *b, *e, *p, *l;
	unsigned int uses;
	size_t len = 0, n;
	FILE *f;

	*sql = NULL;
	if (nsight_chfleet_uses(name, &uses, d))
		return -NSIGHT_E_INVAL;
	if ((uses & NSIGHT_CHFLEET_HOST) && !a->host)
		return nsight_diag_set(d, NSIGHT_E_INVAL, "fleet query '%s' is of one host: it needs one", name);
	find(name, &b, &e);
	f = open_memstream(sql, &len);
	if (!f)
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	for (l = b; l < e; l = next_line(l)) {
		if (!strncmp(l, "--", 2))
			continue;
		for (p = l; p < e && *p != '\n'; p++) {
			n = *p == '{' ? placeholder(f, p, a) : 0;
			if (n)
				p += n - 1;
			else
				fputc(*p, f);
		}
		fputc('\n', f);
	}
	if (fclose(f)) {
		free(*sql);
		*sql = NULL;
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	}
	/* Without the blank lines and the ';' at its end. */
	while (len && strchr(" \t\n;", (*sql)[len - 1]))
		(*sql)[--len] = '\0';
	return 0;
}

/* @n digits at @s into *@v; false if they are not all digits. */
static bool digits(const char *s, int n, int *v)
{
	int i;

	*v = 0;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		*v = *v * 10 + (s[i] - '0');
	}
	return true;
}

/* Days from 1970-01-01 to year @y, month @m, day @d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int rfc3339(const char *s, int64_t *t)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y, mo, d, h, mi, sec, oh = 0, om = 0, sign = 0;
	bool leap;

	if (!digits(s, 4, &y) || s[4] != '-' || !digits(s + 5, 2, &mo) || s[7] != '-' ||
	    !digits(s + 8, 2, &d) || !strchr("Tt ", s[10]) || !s[10] || !digits(s + 11, 2, &h) ||
	    s[13] != ':' || !digits(s + 14, 2, &mi) || s[16] != ':' || !digits(s + 17, 2, &sec))
		return -1;
	s += 19;
	if (*s == '.') {
		if (s[1] < '0' || s[1] > '9')
			return -1;
		for (s++; *s >= '0' && *s <= '9'; s++)
			;
	}
	if ((*s == 'Z' || *s == 'z') && !s[1]) {
		sign = 0;
	} else if ((*s == '+' || *s == '-') && digits(s + 1, 2, &oh) && s[3] == ':' &&
		   digits(s + 4, 2, &om) && !s[6] && oh < 24 && om < 60) {
		sign = *s == '+' ? 1 : -1;
	} else {
		return -1;
	}
	leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || (mo == 2 && d == 29 && !leap) ||
	    h > 23 || mi > 59 || sec > 60)
		return -1;
	*t = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec -
	     sign * (oh * 3600 + om * 60);
	return 0;
}

int nsight_chfleet_time(const char *s, int64_t now, int64_t *t)
{
	static const struct { char unit; int64_t s; } units[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 }, { 'w', 604800 },
	};
	long long v;
	char *end;
	size_t i;

	if (!strcmp(s, "now")) {
		*t = now;
		return 0;
	}
	if (s[0] == '-') {
		if (s[1] < '0' || s[1] > '9')
			return -1;
		errno = 0;
		v = strtoll(s + 1, &end, 10);
		if (errno || !end[0] || end[1])
			return -1;
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			if (*end != units[i].unit)
				continue;
			if (v > (INT64_MAX / 2) / units[i].s)
				return -1;
			*t = now - v * units[i].s;
			return 0;
		}
		return -1;
	}
	if (s[0] >= '0' && s[0] <= '9' && strlen(s) == strspn(s, "0123456789")) {
		errno = 0;
		v = strtoll(s, &end, 10);
		if (errno)
			return -1;
		*t = v;
		return 0;
	}
	return rfc3339(s, t);
}

const char *nsight_chfleet_time_str(int64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "%lld", (long long)t);
	return buf;
}
