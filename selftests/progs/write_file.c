// SPDX-License-Identifier: GPL-2.0
/*
 * write_file FILE VALUE: one write(2) of VALUE (no newline added) to FILE.
 * On failure prints "write_file: FILE: <strerror>" and exits 1, so tests
 * can check which errno a sysfs store returned.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t len;
	ssize_t n;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: write_file FILE VALUE\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		fprintf(stderr, "write_file: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	len = strlen(argv[2]);
	n = write(fd, argv[2], len);
	if (n < 0) {
		fprintf(stderr, "write_file: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if ((size_t)n != len) {
		fprintf(stderr, "write_file: %s: short write %zd of %zu\n",
			argv[1], n, len);
		return 1;
	}
	return close(fd) ? 1 : 0;
}
