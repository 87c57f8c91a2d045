// SPDX-License-Identifier: MIT
/* A ClickHouse server's HTTP interface through libcurl (chhttp.h). */
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>

#include "export/chhttp.h"

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
	struct nsight_chhttp *h = arg;
	size_t len = size * n;

	if (h->resp_len + len + 1 > h->resp_cap) {
		size_t cap = h->resp_cap ? h->resp_cap : 4096;
		char *r;

		while (cap < h->resp_len + len + 1)
			cap *= 2;
		r = realloc(h->resp, cap);
		if (!r)
			return 0;	/* libcurl fails the transfer */
		h->resp = r;
		h->resp_cap = cap;
	}
	memcpy(h->resp + h->resp_len, p, len);
	h->resp_len += len;
	h->resp[h->resp_len] = '\0';
	return len;
}

int nsight_chhttp_init(struct nsight_chhttp *h, const struct nsight_churl *u, long timeout_s,
		       struct nsight_diag *d)
{
	memset(h, 0, sizeof(*h));
	h->url = *u;
	h->timeout_s = timeout_s;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) || !(h->curl = curl_easy_init()))
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "libcurl could not start");
	return 0;
}

void nsight_chhttp_fini(struct nsight_chhttp *h)
{
	if (h->curl)
		curl_easy_cleanup(h->curl);
	free(h->resp);
	memset(h, 0, sizeof(*h));
}

/* The first line of the server's message, at most 300 bytes, for an error. */
static const char *first_line(const struct nsight_chhttp *h, char *buf, size_t len)
{
	size_t n = 0;

	if (!h->resp)
		return "(no body)";
	while (h->resp[n] && h->resp[n] != '\n' && n + 1 < len && n < 300)
		n++;
	memcpy(buf, h->resp, n);
	buf[n] = '\0';
	return n ? buf : "(empty body)";
}

/* "INSERT INTO db.messages" or "SELECT count() FROM ...": the query's first 60 bytes. */
static const char *what(const char *query, const char *body, char *buf, size_t len)
{
	const char *q = query ? query : body;
	size_t n = strcspn(q, "\n");

	if (n > 60)
		n = 60;
	if (n >= len)
		n = len - 1;
	memcpy(buf, q, n);
	buf[n] = '\0';
	return buf;
}

int nsight_chhttp_post(struct nsight_chhttp *h, const char *query, const char *params,
		       const char *body, size_t len, struct nsight_diag *d)
{
	CURL *c = h->curl;
	char *url = NULL, *eq = NULL, *edb = NULL, line[320], q[64], err[CURL_ERROR_SIZE] = "";
	size_t ulen;
	struct curl_slist *hdrs = NULL;
	CURLcode rc;
	int ret = 0;

	h->resp_len = 0;
	if (h->resp)
		h->resp[0] = '\0';
	h->status = 0;
	edb = curl_easy_escape(c, h->url.db, 0);
	eq = query ? curl_easy_escape(c, query, 0) : NULL;
	ulen = strlen(h->url.http) + (edb ? strlen(edb) : 0) + (eq ? strlen(eq) : 0) +
	       (params ? strlen(params) : 0) + 32;
	url = malloc(ulen);
	if (!edb || (query && !eq) || !url) {
		ret = nsight_diag_set(d, NSIGHT_E_NOMEM, "%s: out of memory", h->url.shown);
		goto out;
	}
	snprintf(url, ulen, "%s?database=%s%s%s%s%s", h->url.http, edb, eq ? "&query=" : "",
		 eq ? eq : "", params ? "&" : "", params ? params : "");
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_POST, 1L);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, h);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, err);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, h->timeout_s);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, h->timeout_s < 10 ? h->timeout_s : 10L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	/* No "Expect: 100-continue" round trip before a large body. */
	hdrs = curl_slist_append(NULL, "Expect:");
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	if (h->url.user[0]) {
		curl_easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(c, CURLOPT_USERNAME, h->url.user);
		curl_easy_setopt(c, CURLOPT_PASSWORD, h->url.password);
	}
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &h->status);
	if (rc != CURLE_OK)
		ret = nsight_diag_set(d, NSIGHT_E_IO, "%s: %s: %s", h->url.shown,
				      what(query, body, q, sizeof(q)),
				      err[0] ? err : curl_easy_strerror(rc));
	else if (h->status != 200)
		ret = nsight_diag_set(d, NSIGHT_E_IO, "%s: %s: HTTP %ld: %s", h->url.shown,
				      what(query, body, q, sizeof(q)), h->status,
				      first_line(h, line, sizeof(line)));
out:
	curl_slist_free_all(hdrs);
	curl_free(eq);
	curl_free(edb);
	free(url);
	return ret;
}
