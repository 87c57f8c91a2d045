/* SPDX-License-Identifier: MIT */
/*
 * Queries to a ClickHouse server over its HTTP interface (libcurl): a POST
 * to http://HOST:PORT/ with the query in the URL (database=DB, the user's
 * name and password by HTTP basic authentication) and the data, or the
 * query itself, as the body. A failure (no connection, a timeout, an HTTP
 * status other than 200) is an error naming the URL as given (without its
 * password) and the status and the server's message.
 */
#ifndef NSIGHT_CHHTTP_H
#define NSIGHT_CHHTTP_H

#include <stddef.h>

#include "base/diag.h"
#include "export/churl.h"

struct nsight_chhttp {
	void *curl;			/* CURL * */
	struct nsight_churl url;
	long timeout_s;			/* each request, whole */
	char *resp;			/* the last response's body, NUL-terminated */
	size_t resp_len, resp_cap;
	long status;			/* its HTTP status, 0 without one */
};

/* For @u, each request at most @timeout_s seconds. 0 or -NSIGHT_E_NOMEM. */
int nsight_chhttp_init(struct nsight_chhttp *h, const struct nsight_churl *u, long timeout_s,
		       struct nsight_diag *d);
void nsight_chhttp_fini(struct nsight_chhttp *h);

/*
 * POST @body (@len bytes) with @query (NULL: the body is the query) and
 * the URL parameters @params ("name=value&...", already escaped, or NULL).
 * The response is in h->resp. Returns 0, or -NSIGHT_E_IO with @d saying
 * "URL: ..." (the query's first words, the status and the server's
 * message, or libcurl's).
 */
int nsight_chhttp_post(struct nsight_chhttp *h, const char *query, const char *params,
		       const char *body, size_t len, struct nsight_diag *d);

#endif /* NSIGHT_CHHTTP_H */
