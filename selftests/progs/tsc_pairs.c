// SPDX-License-Identifier: GPL-2.0
/*
 * tsc_pairs OUT COUNT: read the TSC (ordered: lfence; rdtsc) and then
 * clock_gettime(CLOCK_REALTIME), back to back, COUNT times, and write the
 * pairs to OUT as little-endian { u64 tsc; s64 realtime_ns; } records, the
 * input of nsight-analyze --time-check (the NSight paper's §6.1 test).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

struct pair {
	uint64_t tsc;
	int64_t realtime_ns;
};

int main(int argc, char **argv)
{
	unsigned long n, i;
	struct pair *p;
	char *end;
	FILE *f;

	if (argc != 3) {
		fprintf(stderr, "usage: tsc_pairs OUT COUNT\n");
		return 2;
	}
	n = strtoul(argv[2], &end, 10);
	if (*end || !n || n > 100000000) {
		fprintf(stderr, "tsc_pairs: bad count %s\n", argv[2]);
		return 2;
	}
	p = malloc(n * sizeof(*p));
	if (!p) {
		perror("tsc_pairs");
		return 1;
	}
	for (i = 0; i < n; i++) {
		struct timespec ts;

		_mm_lfence();
		p[i].tsc = __rdtsc();
		_mm_lfence();
		clock_gettime(CLOCK_REALTIME, &ts);
		p[i].realtime_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	}
	f = fopen(argv[1], "wb");
	if (!f || fwrite(p, sizeof(*p), n, f) != n || fclose(f)) {
		perror("tsc_pairs: write");
		return 1;
	}
	free(p);
	printf("pairs %lu\n", n);
	return 0;
}
