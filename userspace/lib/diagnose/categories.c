// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose/categories.h"

void nsight_cats_init(struct nsight_cats *c)
{
	memset(c, 0, sizeof(*c));
}

void nsight_cats_fini(struct nsight_cats *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		free(c->v[i].pattern);
		free(c->v[i].category);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* [*@s, *@e) without blanks at either end. */
static void trim(const char **s, const char **e)
{
	while (*s < *e && is_blank(**s))
		(*s)++;
	while (*e > *s && is_blank((*e)[-1]))
		(*e)--;
}

static char *dup_range(const char *s, const char *e)
{
	char *p = malloc((size_t)(e - s) + 1);

	if (p) {
		memcpy(p, s, (size_t)(e - s));
		p[e - s] = '\0';
	}
	return p;
}

static bool range_is(const char *s, const char *e, const char *word)
{
	return (size_t)(e - s) == strlen(word) && !memcmp(s, word, (size_t)(e - s));
}

static int add_rule(struct nsight_cats *c, int kind, const char *ps, const char *pe,
		    const char *cs, const char *ce)
{
	struct nsight_cat_rule r = { .kind = (uint8_t)kind };

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 32;
		struct nsight_cat_rule *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return -1;
		c->v = v;
		c->cap = cap;
	}
	r.pattern = dup_range(ps, pe);
	r.category = dup_range(cs, ce);
	if (!r.pattern || !r.category) {
		free(r.pattern);
		free(r.category);
		return -1;
	}
	c->v[c->n++] = r;
	return 0;
}

/* One line [@s, @e); 1 if it was the optional header. */
static int parse_line(struct nsight_cats *c, const char *s, const char *e, const char *fname,
		      size_t line, bool may_be_header, struct nsight_diag *d)
{
	const char *c1, *c2, *ks = s, *ke, *ps, *pe, *cs, *ce = e;
	char kind[16];
	int k;

	c1 = memchr(s, ',', (size_t)(e - s));
	c2 = c1 ? memchr(c1 + 1, ',', (size_t)(e - c1 - 1)) : NULL;
	if (!c2)
		return nsight_diag_set(d, NSIGHT_E_FORMAT,
				       "%s:%zu: expected kind,pattern,category", fname, line);
	ke = c1;
	ps = c1 + 1;
	pe = c2;
	cs = c2 + 1;
	trim(&ks, &ke);
	trim(&ps, &pe);
	trim(&cs, &ce);
	if (may_be_header && range_is(ks, ke, "kind") && range_is(ps, pe, "pattern") &&
	    range_is(cs, ce, "category"))
		return 1;
	snprintf(kind, sizeof(kind), "%.*s", (int)(ke - ks), ks);
	k = (size_t)(ke - ks) < sizeof(kind) ? nsight_key_kind_parse(kind) : -1;
	if (k < 0)
		return nsight_diag_set(d, NSIGHT_E_FORMAT,
				       "%s:%zu: unknown kind '%.*s' (task, irq, softirq, work, fault, idle, func, hol, app, blocked, tcp or unknown)",
				       fname, line, (int)(ke - ks > 32 ? 32 : ke - ks), ks);
	if (ps == pe)
		return nsight_diag_set(d, NSIGHT_E_FORMAT, "%s:%zu: empty pattern", fname, line);
	if (cs == ce)
		return nsight_diag_set(d, NSIGHT_E_FORMAT, "%s:%zu: empty category", fname, line);
	if (add_rule(c, k, ps, pe, cs, ce))
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	return 0;
}

int nsight_cats_parse(struct nsight_cats *c, const char *text, size_t len, const char *fname,
		      struct nsight_diag *d)
{
	const char *p = text, *end = text + len;
	bool first = true;
	size_t line = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end, *s = p;
		int ret;

		line++;
		p = nl ? nl + 1 : end;
		if (memchr(s, '\0', (size_t)(e - s)))
			return nsight_diag_set(d, NSIGHT_E_FORMAT, "%s:%zu: NUL byte", fname, line);
		trim(&s, &e);
		if (s == e || *s == '#')
			continue;
		ret = parse_line(c, s, e, fname, line, first, d);
		if (ret < 0)
			return ret;
		first = false;
	}
	return 0;
}

int nsight_cats_load(struct nsight_cats *c, const char *path, struct nsight_diag *d)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int ret;

	if (!f)
		return nsight_diag_set(d, NSIGHT_E_IO, "%s: %s", path, strerror(errno));
	for (;;) {
		size_t got;

		if (len == cap) {
			/* A category file is small: 64 MiB is surely a mistake. */
			char *nb = cap < (64U << 20) ? realloc(buf, cap ? cap * 2 : 4096) : NULL;

			if (!nb) {
				free(buf);
				fclose(f);
				if (cap >= (64U << 20))
					return nsight_diag_set(d, NSIGHT_E_FORMAT, "%s: too large", path);
				return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
			}
			buf = nb;
			cap = cap ? cap * 2 : 4096;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		ret = nsight_diag_set(d, NSIGHT_E_IO, "%s: read failed", path);
	} else {
		ret = nsight_cats_parse(c, buf, len, path, d);
	}
	free(buf);
	fclose(f);
	return ret;
}

/* @tmpl with every "<name>" replaced by @name, cut to @len. */
static void expand(const char *tmpl, const char *name, const char *outer, char *buf, size_t len)
{
	size_t o = 0;

	while (*tmpl && o + 1 < len) {
		const char *put = NULL;

		if (!strncmp(tmpl, "<name>", 6)) {
			put = name;
			tmpl += 6;
		} else if (!strncmp(tmpl, "<outer>", 7)) {
			put = outer ? outer : "";
			tmpl += 7;
		}
		if (put) {
			size_t n = strlen(put);

			if (n > len - 1 - o)
				n = len - 1 - o;
			memcpy(buf + o, put, n);
			o += n;
		} else {
			buf[o++] = *tmpl++;
		}
	}
	buf[o] = '\0';
}

/*
 * A function key's name is "<outer key> > <symbol>": split it, and name
 * the outer key's category into @outer. Returns the symbol part.
 */
static const char *func_split(const struct nsight_cats *c, const char *name, char *outer,
			      size_t len)
{
	const char *sep = NULL, *p, *colon;
	char okey[NSIGHT_KEY_NAME_MAX + 1];
	size_t n;
	int kind;

	/* The last separator: an outer task's comm could hold one. */
	for (p = strstr(name, " > "); p; p = strstr(p + 1, " > "))
		sep = p;
	outer[0] = '\0';
	if (!sep)
		return name;
	n = (size_t)(sep - name);
	if (n >= sizeof(okey))
		n = sizeof(okey) - 1;
	memcpy(okey, name, n);
	okey[n] = '\0';
	colon = strchr(okey, ':');
	if (colon)
		okey[colon - okey] = '\0';
	kind = nsight_key_kind_parse(okey);
	if (kind >= 0 && kind != NSIGHT_KEY_FUNC)
		nsight_cats_name(c, (enum nsight_key_kind)kind, colon ? okey + (colon - okey) + 1 : "",
				 outer, len);
	return sep + 3;
}

const char *nsight_cats_name(const struct nsight_cats *c, enum nsight_key_kind kind,
			     const char *name, char *buf, size_t len)
{
	char outer[256];
	size_t i;

	if (!len)
		return buf;
	if (kind == NSIGHT_KEY_FUNC)
		name = func_split(c, name, outer, sizeof(outer));
	for (i = 0; i < c->n; i++) {
		if (c->v[i].kind == kind && !fnmatch(c->v[i].pattern, name, 0)) {
			expand(c->v[i].category, name, kind == NSIGHT_KEY_FUNC ? outer : NULL, buf,
			       len);
			return buf;
		}
	}
	if (name[0])
		snprintf(buf, len, "%s:%s", nsight_key_kind_name(kind), name);
	else
		snprintf(buf, len, "%s", nsight_key_kind_name(kind));
	return buf;
}
