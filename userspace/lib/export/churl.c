// SPDX-License-Identifier: MIT
/* clickhouse://[USER[:PASSWORD]@]HOST[:PORT]/DB parsed (churl.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/churl.h"

#define SCHEME "clickhouse://"

bool nsight_churl_ident(const char *s)
{
	const char *p;

	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return p - s < NSIGHT_CHURL_LEN;
}

static bool host_char(char c, bool v6)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || (v6 && c == ':');
}

/* [@s, @e) into @dst (NSIGHT_CHURL_LEN); false when too long. */
static bool copy(char *dst, const char *s, const char *e)
{
	if (e - s >= NSIGHT_CHURL_LEN)
		return false;
	memcpy(dst, s, (size_t)(e - s));
	dst[e - s] = '\0';
	return true;
}

static int bad(struct nsight_diag *d, const char *url, const char *why)
{
	return nsight_diag_set(d, NSIGHT_E_INVAL, "bad URL '%s': %s (clickhouse://[USER[:PASSWORD]@]HOST[:PORT]/DB)",
			       url, why);
}

int nsight_churl_parse(struct nsight_churl *u, const char *url, struct nsight_diag *d)
{
	const char *p = url, *at, *slash, *h, *he;
	bool v6 = false;

	memset(u, 0, sizeof(*u));
	u->port = NSIGHT_CHURL_PORT;
	if (strncmp(p, SCHEME, strlen(SCHEME)))
		return bad(d, url, "not clickhouse://");
	p += strlen(SCHEME);
	slash = strchr(p, '/');
	if (!slash)
		return bad(d, url, "no /DB");
	/* USER[:PASSWORD]@: the last @ before the path (a password may hold one). */
	at = NULL;
	for (const char *q = p; q < slash; q++)
		if (*q == '@')
			at = q;
	if (at) {
		const char *c = memchr(p, ':', (size_t)(at - p));
		char user[NSIGHT_CHURL_LEN];

		if (!copy(user, p, c ? c : at) || !nsight_churl_ident(user))
			return bad(d, url, "the user is not an identifier");
		strcpy(u->user, user);
		if (c) {
			if (!copy(u->password, c + 1, at))
				return bad(d, url, "the password is too long");
			u->has_password = true;
		}
		p = at + 1;
	}
	h = p;
	if (*h == '[') {
		he = memchr(h, ']', (size_t)(slash - h));
		if (!he)
			return bad(d, url, "no ] after an IPv6 address");
		v6 = true;
		p = he + 1;
		h++;
	} else {
		for (he = h; he < slash && *he != ':'; he++)
			;
		p = he;
	}
	if (he == h)
		return bad(d, url, "no host");
	for (const char *q = h; q < he; q++)
		if (!host_char(*q, v6))
			return bad(d, url, "the host has a character not in a name or an address");
	if (v6) {
		if (!copy(u->host + 1, h, he) || he - h + 2 >= NSIGHT_CHURL_LEN)
			return bad(d, url, "the host is too long");
		u->host[0] = '[';
		strcat(u->host, "]");
	} else if (!copy(u->host, h, he)) {
		return bad(d, url, "the host is too long");
	}
	if (p < slash && *p == ':') {
		char *end;
		unsigned long port;

		if (p + 1 == slash || p[1] < '0' || p[1] > '9')
			return bad(d, url, "no port after ':'");
		port = strtoul(p + 1, &end, 10);
		if (end != slash || !port || port > 65535)
			return bad(d, url, "the port is not 1 to 65535");
		u->port = (unsigned int)port;
	} else if (p != slash) {
		return bad(d, url, "the host has a character not in a name or an address");
	}
	if (!slash[1])
		return bad(d, url, "no database after /");
	if (!copy(u->db, slash + 1, slash + 1 + strlen(slash + 1)) || !nsight_churl_ident(u->db))
		return bad(d, url, "the database is not an identifier");
	snprintf(u->http, sizeof(u->http), "http://%s:%u/", u->host, u->port);
	snprintf(u->shown, sizeof(u->shown), "clickhouse://%s%s%s:%u/%s", u->user, u->user[0] ? "@" : "",
		 u->host, u->port, u->db);
	return 0;
}
