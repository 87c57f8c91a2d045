/* SPDX-License-Identifier: MIT */
/*
 * Where a ClickHouse server is: clickhouse://[USER[:PASSWORD]@]HOST[:PORT]/DB,
 * its HTTP interface (port 8123 unless given). HOST is a name, an IPv4
 * address or an IPv6 one in brackets; DB and USER are identifiers
 * (letters, digits, '_', not starting with a digit). The URL shown in
 * messages leaves the password out.
 */
#ifndef NSIGHT_CHURL_H
#define NSIGHT_CHURL_H

#include <stdbool.h>

#include "base/diag.h"

#define NSIGHT_CHURL_PORT 8123
#define NSIGHT_CHURL_LEN 256

struct nsight_churl {
	char http[NSIGHT_CHURL_LEN + 32];	/* "http://HOST:PORT/" */
	char shown[3 * NSIGHT_CHURL_LEN + 32];	/* "clickhouse://[USER@]HOST:PORT/DB" */
	char host[NSIGHT_CHURL_LEN];		/* IPv6 with its brackets */
	unsigned int port;
	char db[NSIGHT_CHURL_LEN];
	char user[NSIGHT_CHURL_LEN];		/* "" when not given */
	char password[NSIGHT_CHURL_LEN];
	bool has_password;
};

/* Parse @url into @u; 0, or -NSIGHT_E_INVAL with @d saying what is wrong. */
int nsight_churl_parse(struct nsight_churl *u, const char *url, struct nsight_diag *d);

/* An identifier as DB and USER are (and table names): true if @s is one. */
bool nsight_churl_ident(const char *s);

#endif /* NSIGHT_CHURL_H */
