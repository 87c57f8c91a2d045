// SPDX-License-Identifier: MIT
/*
 * trace_check FILE...: check Chrome trace-event JSON files (what
 * nsight-analyze --perfetto writes) with the rules of trace_check_lib.h.
 * Prints KTAP, one result per file, with its event counts as
 * diagnostics and the first violations with their event index; exits 1
 * if any file has a violation (or cannot be read), 2 on bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_check_lib.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	size_t cap = 1 << 16, n = 0, k;
	char *buf = malloc(cap), *nb;

	if (!f || !buf) {
		free(buf);
		return NULL;
	}
	while ((k = fread(buf + n, 1, cap - n, f)) > 0) {
		n += k;
		if (n == cap) {
			nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	if (buf && ferror(f)) {
		free(buf);
		buf = NULL;
	}
	if (f != stdin)
		fclose(f);
	*len = n;
	return buf;
}

int main(int argc, char **argv)
{
	int i, failed = 0;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fprintf(argc < 2 ? stderr : stdout,
			"Usage: trace_check FILE...\n"
			"Check Chrome trace-event JSON: fields per event type, B/E matched and\n"
			"in order per track, X nested, async b/e and flow s/f matched. KTAP out;\n"
			"exit 1 on any violation.\n");
		return argc < 2 ? 2 : 0;
	}
	printf("KTAP version 1\n1..%d\n", argc - 1);
	for (i = 1; i < argc; i++) {
		struct tc_result r = { .log = stdout };
		size_t len = 0;
		char *buf = slurp(argv[i], &len);

		if (!buf) {
			printf("# %s: %s\nnot ok %d - %s\n", argv[i], strerror(errno ? errno : ENOMEM),
			       i, argv[i]);
			failed++;
			continue;
		}
		tc_check_buf(buf, len, &r, NULL);
		free(buf);
		tc_print_counts(stdout, &r.c);
		if (r.violations) {
			printf("# %" PRIu64 " violations\nnot ok %d - %s\n", r.violations, i, argv[i]);
			failed++;
		} else {
			printf("ok %d - %s\n", i, argv[i]);
		}
	}
	return failed ? 1 : 0;
}
