// SPDX-License-Identifier: MIT
/* TabSeparated rows and SQL string literals for ClickHouse (chrow.h). */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "export/chrow.h"

/* The escape of byte @c in both forms, or 0 when it goes as it is. */
static char escape_of(unsigned char c)
{
	switch (c) {
	case '\\': return '\\';
	case '\t': return 't';
	case '\n': return 'n';
	case '\r': return 'r';
	case '\b': return 'b';
	case '\f': return 'f';
	case '\0': return '0';
	default: return 0;
	}
}

void nsight_chrow_escape(FILE *f, const char *s, size_t n)
{
	size_t i, from = 0;

	for (i = 0; i < n; i++) {
		char e = escape_of((unsigned char)s[i]);

		if (!e)
			continue;
		fwrite(s + from, 1, i - from, f);
		fputc('\\', f);
		fputc(e, f);
		from = i + 1;
	}
	fwrite(s + from, 1, n - from, f);
}

void nsight_chrow_sql_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		char e = *s == '\'' ? '\'' : escape_of((unsigned char)*s);

		if (e) {
			fputc('\\', f);
			fputc(e, f);
		} else {
			fputc(*s, f);
		}
	}
	fputc('\'', f);
}

void nsight_chrow_begin(struct nsight_chrow *r, FILE *f)
{
	r->f = f;
	r->cols = 0;
}

static void sep(struct nsight_chrow *r)
{
	if (r->cols++)
		fputc('\t', r->f);
}

void nsight_chrow_str(struct nsight_chrow *r, const char *s)
{
	sep(r);
	nsight_chrow_escape(r->f, s, strlen(s));
}

void nsight_chrow_strn(struct nsight_chrow *r, const char *s, size_t n)
{
	sep(r);
	nsight_chrow_escape(r->f, s, strnlen(s, n));
}

void nsight_chrow_u64(struct nsight_chrow *r, uint64_t v)
{
	sep(r);
	fprintf(r->f, "%" PRIu64, v);
}

void nsight_chrow_i64(struct nsight_chrow *r, int64_t v)
{
	sep(r);
	fprintf(r->f, "%" PRId64, v);
}

void nsight_chrow_f64(struct nsight_chrow *r, double v)
{
	sep(r);
	if (isnan(v))
		fputs("nan", r->f);
	else if (isinf(v))
		fputs(v < 0 ? "-inf" : "inf", r->f);
	else
		fprintf(r->f, "%.17g", v);
}

void nsight_chrow_bool(struct nsight_chrow *r, bool v)
{
	sep(r);
	fputc(v ? '1' : '0', r->f);
}

void nsight_chrow_null(struct nsight_chrow *r)
{
	sep(r);
	fputs("\\N", r->f);
}

void nsight_chrow_datetime(struct nsight_chrow *r, int64_t ns)
{
	int64_t sec = ns < 0 ? 0 : ns / 1000000000;

	sep(r);
	fprintf(r->f, "%010" PRId64, sec > 9999999999 ? 9999999999 : sec);
}

void nsight_chrow_u64_array(struct nsight_chrow *r, const uint64_t *v, size_t n)
{
	size_t i;

	sep(r);
	fputc('[', r->f);
	for (i = 0; i < n; i++)
		fprintf(r->f, "%s%" PRIu64, i ? "," : "", v[i]);
	fputc(']', r->f);
}

unsigned int nsight_chrow_end(struct nsight_chrow *r)
{
	fputc('\n', r->f);
	return r->cols;
}
