// SPDX-License-Identifier: MIT
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "format/filter.h"

/* Longest value copied for parsing: an IPv6 literal or an interface name. */
#define VALUE_MAX	64

static const char *const kind_names[] = {
	[NSIGHT_FILTER_A_PORT]		= "port",
	[NSIGHT_FILTER_A_ADDR]		= "addr",
	[NSIGHT_FILTER_A_IFINDEX]	= "ifindex",
	[NSIGHT_FILTER_A_PID]		= "pid",
};

const char *nsight_filter_kind_name(int kind)
{
	if (kind <= NSIGHT_FILTER_A_UNSPEC || kind > NSIGHT_FILTER_A_MAX)
		return NULL;
	return kind_names[kind];
}

bool nsight_filter_empty(const struct nsight_filter *f)
{
	return !f->n_ports && !f->n_addrs && !f->n_ifindexes && !f->n_pids;
}

static bool addr_equal(const struct nsight_filter_addr *a, const struct nsight_filter_addr *b)
{
	return a->len == b->len && !memcmp(a->bytes, b->bytes, a->len);
}

bool nsight_filter_equal(const struct nsight_filter *a, const struct nsight_filter *b)
{
	size_t i;

	if (a->n_ports != b->n_ports || a->n_addrs != b->n_addrs ||
	    a->n_ifindexes != b->n_ifindexes || a->n_pids != b->n_pids)
		return false;
	for (i = 0; i < a->n_addrs; i++)
		if (!addr_equal(&a->addrs[i], &b->addrs[i]))
			return false;
	return !memcmp(a->ports, b->ports, a->n_ports * sizeof(a->ports[0])) &&
	       !memcmp(a->ifindexes, b->ifindexes, a->n_ifindexes * sizeof(a->ifindexes[0])) &&
	       !memcmp(a->pids, b->pids, a->n_pids * sizeof(a->pids[0]));
}

static bool v4mapped(const uint8_t *a)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(a, prefix, sizeof(prefix));
}

int nsight_filter_add(struct nsight_filter *f, int kind, uint32_t value,
		      const void *data, size_t len)
{
	struct nsight_filter_addr *a;

	switch (kind) {
	case NSIGHT_FILTER_A_PORT:
		if (f->n_ports >= NSIGHT_FILTER_MAX)
			return -1;
		f->ports[f->n_ports++] = (uint16_t)value;
		return 0;
	case NSIGHT_FILTER_A_ADDR:
		if ((len != 4 && len != 16) || f->n_addrs >= NSIGHT_FILTER_MAX)
			return -1;
		a = &f->addrs[f->n_addrs++];
		memset(a, 0, sizeof(*a));
		if (len == 16 && v4mapped(data)) {
			a->len = 4;
			memcpy(a->bytes, (const uint8_t *)data + 12, 4);
		} else {
			a->len = (uint8_t)len;
			memcpy(a->bytes, data, len);
		}
		return 0;
	case NSIGHT_FILTER_A_IFINDEX:
		if (f->n_ifindexes >= NSIGHT_FILTER_MAX)
			return -1;
		f->ifindexes[f->n_ifindexes++] = value;
		return 0;
	case NSIGHT_FILTER_A_PID:
		if (f->n_pids >= NSIGHT_FILTER_MAX)
			return -1;
		f->pids[f->n_pids++] = value;
		return 0;
	default:
		return -1;
	}
}

/* ---------------------------------------------------------------------- */
/* Parsing                                                                  */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Decimal digits only, @min..@max. */
int nsight_parse_uint(const char *s, uint64_t min, uint64_t max, uint32_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > max)
			return -1;
	}
	if (v < min)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* One value @v of @kind into @f; a message in @err on failure. */
static int parse_value(int kind, const char *v, nsight_ifname_fn resolve,
		       struct nsight_filter *f, char *err, size_t errlen)
{
	const char *name = kind_names[kind];
	uint8_t bytes[16];
	uint32_t n = 0;
	size_t len = 0;

	switch (kind) {
	case NSIGHT_FILTER_A_PORT:
		if (nsight_parse_uint(v, 1, 65535, &n)) {
			snprintf(err, errlen, "bad port '%s' (1 to 65535)", v);
			return -1;
		}
		break;
	case NSIGHT_FILTER_A_ADDR:
		if (inet_pton(AF_INET, v, bytes) == 1) {
			len = 4;
		} else if (inet_pton(AF_INET6, v, bytes) == 1) {
			len = 16;
		} else {
			snprintf(err, errlen, "bad addr '%s' (an IPv4 or IPv6 address)", v);
			return -1;
		}
		break;
	case NSIGHT_FILTER_A_IFINDEX:
		if (v[0] >= '0' && v[0] <= '9') {
			if (nsight_parse_uint(v, 1, UINT32_MAX, &n)) {
				snprintf(err, errlen, "bad ifindex '%s' (1 to %u, or an interface name)",
					 v, UINT32_MAX);
				return -1;
			}
			break;
		}
		n = resolve ? resolve(v) : 0;
		if (!n && resolve) {
			snprintf(err, errlen, "bad ifindex '%s': no such interface", v);
			return -1;
		}
		if (!n) {
			snprintf(err, errlen, "bad ifindex '%s' (a number from 1 to %u)", v, UINT32_MAX);
			return -1;
		}
		break;
	case NSIGHT_FILTER_A_PID:
		if (nsight_parse_uint(v, 1, UINT32_MAX, &n)) {
			snprintf(err, errlen, "bad pid '%s' (1 to %u)", v, UINT32_MAX);
			return -1;
		}
		break;
	}
	if (nsight_filter_add(f, kind, n, bytes, len) < 0) {
		snprintf(err, errlen, "too many %s values at '%s' (at most %d)",
			 name, v, NSIGHT_FILTER_MAX);
		return -1;
	}
	return 0;
}

/* One KIND=V1,V2 token, @t of @n bytes. */
static int parse_token(const char *t, size_t n, nsight_ifname_fn resolve,
		       struct nsight_filter *f, char *err, size_t errlen)
{
	const char *eq = memchr(t, '=', n), *p, *end = t + n;
	int kind;

	if (!eq) {
		snprintf(err, errlen, "bad filter token '%.*s' (expected KIND=VALUE,... or none)",
			 (int)n, t);
		return -1;
	}
	for (kind = NSIGHT_FILTER_A_UNSPEC + 1; kind <= NSIGHT_FILTER_A_MAX; kind++)
		if (strlen(kind_names[kind]) == (size_t)(eq - t) &&
		    !memcmp(t, kind_names[kind], (size_t)(eq - t)))
			break;
	if (kind > NSIGHT_FILTER_A_MAX) {
		snprintf(err, errlen, "unknown filter kind '%.*s' in '%.*s' (kinds: port, addr, ifindex, pid)",
			 (int)(eq - t), t, (int)n, t);
		return -1;
	}
	for (p = eq + 1;; ) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *stop = comma ? comma : end;
		char v[VALUE_MAX];

		if (stop == p) {
			snprintf(err, errlen, "empty %s value in '%.*s'", kind_names[kind], (int)n, t);
			return -1;
		}
		if ((size_t)(stop - p) >= sizeof(v)) {
			snprintf(err, errlen, "bad %s '%.*s' (too long)", kind_names[kind],
				 (int)(stop - p), p);
			return -1;
		}
		memcpy(v, p, (size_t)(stop - p));
		v[stop - p] = '\0';
		if (parse_value(kind, v, resolve, f, err, errlen))
			return -1;
		if (!comma)
			break;
		p = comma + 1;
	}
	return 0;
}

int nsight_filter_parse(const char *spec, nsight_ifname_fn ifname_to_index,
			struct nsight_filter *out, char *err, size_t errlen)
{
	struct nsight_filter f;
	const char *p = spec;
	size_t tokens = 0;
	bool none = false;

	memset(&f, 0, sizeof(f));
	for (;;) {
		const char *t;
		size_t n;

		while (*p && is_blank(*p))
			p++;
		if (!*p)
			break;
		t = p;
		while (*p && !is_blank(*p))
			p++;
		n = (size_t)(p - t);
		if (n == 4 && !memcmp(t, "none", 4))
			none = true;
		else if (parse_token(t, n, ifname_to_index, &f, err, errlen))
			return -1;
		tokens++;
	}
	if (!tokens) {
		snprintf(err, errlen, "empty filter (use 'none' to remove the filter)");
		return -1;
	}
	if (none && tokens > 1) {
		snprintf(err, errlen, "'none' must be the whole filter");
		return -1;
	}
	*out = f;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Formatting                                                               */

const char *nsight_filter_addr_str(const struct nsight_filter_addr *a, char *buf, size_t len)
{
	const char *r;

	if (a->len == 4)
		r = inet_ntop(AF_INET, a->bytes, buf, (socklen_t)len);
	else if (a->len == 16 && v4mapped(a->bytes))
		r = inet_ntop(AF_INET, a->bytes + 12, buf, (socklen_t)len);
	else if (a->len == 16)
		r = inet_ntop(AF_INET6, a->bytes, buf, (socklen_t)len);
	else
		r = NULL;
	if (!r && len)
		snprintf(buf, len, "?");
	return buf;
}

struct out {
	char *buf;
	size_t len;
	size_t pos;		/* length of the whole text so far */
};

static void __attribute__((format(printf, 2, 3))) put(struct out *o, const char *fmt, ...)
{
	size_t room = o->pos < o->len ? o->len - o->pos : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? o->buf + o->pos : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->pos += (size_t)n;
}

static void put_kind(struct out *o, int kind, size_t i)
{
	if (i == 0)
		put(o, "%s%s=", o->pos ? " " : "", kind_names[kind]);
	else
		put(o, ",");
}

int nsight_filter_format(const struct nsight_filter *f, char *buf, size_t len)
{
	struct out o = { .buf = buf, .len = len };
	size_t i;

	if (len)
		buf[0] = '\0';
	if (nsight_filter_empty(f)) {
		put(&o, "none");
		return (int)o.pos;
	}
	for (i = 0; i < f->n_ports; i++) {
		put_kind(&o, NSIGHT_FILTER_A_PORT, i);
		put(&o, "%u", f->ports[i]);
	}
	for (i = 0; i < f->n_addrs; i++) {
		char s[NSIGHT_FILTER_ADDR_STRLEN];

		put_kind(&o, NSIGHT_FILTER_A_ADDR, i);
		put(&o, "%s", nsight_filter_addr_str(&f->addrs[i], s, sizeof(s)));
	}
	for (i = 0; i < f->n_ifindexes; i++) {
		put_kind(&o, NSIGHT_FILTER_A_IFINDEX, i);
		put(&o, "%u", f->ifindexes[i]);
	}
	for (i = 0; i < f->n_pids; i++) {
		put_kind(&o, NSIGHT_FILTER_A_PID, i);
		put(&o, "%u", f->pids[i]);
	}
	return (int)o.pos;
}
