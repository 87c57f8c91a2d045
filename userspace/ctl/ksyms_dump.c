// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <linux/nsight.h>

#include "ksyms_dump.h"

/* Append @n bytes to the growing buffer; -1 when out of memory. */
static int append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n > *cap) {
		size_t ncap = *cap ? *cap : 1 << 20;
		char *p;

		while (ncap < *len + n)
			ncap *= 2;
		p = realloc(*buf, ncap);
		if (!p)
			return -1;
		*buf = p;
		*cap = ncap;
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	return 0;
}

/* "ADDR TYPE NAME...": keep types t and T; note whether ADDR is all zeros. */
static bool text_line(const char *l, bool *nonzero)
{
	const char *sp = strchr(l, ' ');
	const char *p;

	if (!sp || sp[1] == '\0' || sp[2] != ' ')
		return false;
	for (p = l; p < sp; p++)
		if (*p != '0')
			*nonzero = true;
	return sp[1] == 't' || sp[1] == 'T';
}

int nsight_dump_ksyms(struct nsight_stream_writer *w, const char *path,
		      struct nsight_ksyms_result *res, struct nsight_diag *d)
{
	struct nsight_ksyms_hdr h = { 0 };
	char *text = NULL, *line = NULL, *out = NULL;
	size_t len = 0, cap = 0, lcap = 0;
	bool nonzero = false;
	uLongf packed;
	ssize_t n;
	FILE *f;
	int ret = -1;

	memset(res, 0, sizeof(*res));
	f = fopen(path, "re");
	if (!f) {
		nsight_diag_set(d, errno, "%s: %s; the stream has no kernel symbols", path,
				strerror(errno));
		return 1;
	}
	while ((n = getline(&line, &lcap, f)) > 0) {
		if (!text_line(line, &nonzero))
			continue;
		if (append(&text, &len, &cap, line, (size_t)n)) {
			nsight_diag_set(d, ENOMEM, "out of memory");
			goto out;
		}
		res->lines++;
	}
	if (ferror(f)) {
		nsight_diag_set(d, errno, "%s: read error: %s; the stream has no kernel symbols",
				path, strerror(errno));
		ret = 1;
		goto out;
	}
	packed = compressBound((uLong)len);
	out = malloc(sizeof(h) + packed);
	if (!out) {
		nsight_diag_set(d, ENOMEM, "out of memory");
		goto out;
	}
	if (compress2((Bytef *)out + sizeof(h), &packed, (const Bytef *)(text ? text : ""),
		      (uLong)len, Z_DEFAULT_COMPRESSION) != Z_OK) {
		nsight_diag_set(d, ENOMEM, "compressing %zu bytes of symbols failed", len);
		goto out;
	}
	h.raw_size = len;
	h.lines = (uint32_t)res->lines;
	res->no_addrs = res->lines && !nonzero;
	h.flags = res->no_addrs ? NSIGHT_KSYMS_NO_ADDRS : 0;
	memcpy(out, &h, sizeof(h));
	if (nsight_stream_write_chunk(w, NSIGHT_CHUNK_KSYMS, NSIGHT_CHUNK_NO_CPU, out,
				      sizeof(h) + packed)) {
		nsight_diag_set(d, EIO, "%s", w->diag.msg);
		goto out;
	}
	res->raw = len;
	res->packed = sizeof(h) + packed;
	ret = 0;
out:
	fclose(f);
	free(line);
	free(text);
	free(out);
	return ret;
}
