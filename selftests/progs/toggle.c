// SPDX-License-Identifier: GPL-2.0
/*
 * toggle FILE COUNT: writes "1" then "0" to FILE (a sysfs enable switch),
 * COUNT times, each write a fresh write(2) at offset 0. Stops at the first
 * failed write, naming the cycle and the errno; prints "toggle: N cycles in
 * S.SSS s" on success. Exit 0, 1 on a failed write, 2 on usage errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int put(int fd, const char *file, const char *v, unsigned long cycle)
{
	if (pwrite(fd, v, 1, 0) == 1)
		return 0;
	fprintf(stderr, "toggle: %s: cycle %lu, writing %s: %s\n", file, cycle, v,
		strerror(errno));
	return -1;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	unsigned long n, i;
	char *end;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: toggle FILE COUNT\n");
		return 2;
	}
	errno = 0;
	n = strtoul(argv[2], &end, 10);
	if (errno || *end || !*argv[2]) {
		fprintf(stderr, "toggle: bad COUNT '%s'\n", argv[2]);
		return 2;
	}
	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		fprintf(stderr, "toggle: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		if (put(fd, argv[1], "1", i) || put(fd, argv[1], "0", i)) {
			close(fd);
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	close(fd);
	printf("toggle: %lu cycles in %.3f s\n", n,
	       (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
