// SPDX-License-Identifier: MIT
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "format/sources.h"

const char *const nsight_source_names[__NSIGHT_SRC_COUNT] = NSIGHT_SOURCE_NAMES;

static const char *skip_blanks(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

static int word_is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && !memcmp(s, word, n);
}

int nsight_sources_parse(const char *list, uint32_t *mask, char *err, size_t errlen)
{
	const char *p = list, *end = list + strlen(list);
	uint32_t m = 0;
	bool first = true;

	p = skip_blanks(p, end);
	if (p == end) {
		snprintf(err, errlen, "empty source list");
		return -1;
	}
	for (;;) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *stop = comma ? comma : end;
		const char *w = skip_blanks(p, stop), *we = stop;
		size_t n, i;

		while (we > w && (we[-1] == ' ' || we[-1] == '\t'))
			we--;
		n = (size_t)(we - w);
		if (n == 0) {
			snprintf(err, errlen, "empty name in source list '%s'", list);
			return -1;
		}
		if (word_is(w, n, "all") || word_is(w, n, "none")) {
			if (!first || comma) {
				snprintf(err, errlen, "'%.*s' must be the whole source list", (int)n, w);
				return -1;
			}
			*mask = word_is(w, n, "all") ? NSIGHT_SOURCES_ALL : 0;
			return 0;
		}
		for (i = 0; i < __NSIGHT_SRC_COUNT; i++)
			if (word_is(w, n, nsight_source_names[i]))
				break;
		if (i == __NSIGHT_SRC_COUNT) {
			char known[128];

			nsight_sources_format(NSIGHT_SOURCES_ALL, known, sizeof(known));
			snprintf(err, errlen, "unknown source '%.*s' (known: %s, all, none)",
				 (int)n, w, known);
			return -1;
		}
		m |= 1U << i;
		first = false;
		if (!comma)
			break;
		p = comma + 1;
	}
	*mask = m;
	return 0;
}

char *nsight_sources_format(uint32_t mask, char *buf, size_t len)
{
	size_t pos = 0;
	unsigned int i;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (!mask) {
		snprintf(buf, len, "none");
		return buf;
	}
	for (i = 0; i < 32; i++) {
		char bit[16];
		const char *name;
		int n;

		if (!(mask & (1U << i)))
			continue;
		if (i < __NSIGHT_SRC_COUNT) {
			name = nsight_source_names[i];
		} else {
			snprintf(bit, sizeof(bit), "bit%u", i);
			name = bit;
		}
		n = snprintf(buf + pos, len - pos, "%s%s", pos ? "," : "", name);
		if (n < 0 || (size_t)n >= len - pos) {
			buf[pos] = '\0';	/* no partial name */
			break;
		}
		pos += (size_t)n;
	}
	return buf;
}
