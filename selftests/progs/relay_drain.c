// SPDX-License-Identifier: GPL-2.0
/*
 * relay_drain FILE [IDLE_US]: consume a relay file (one CPU's nsight
 * buffer, <debugfs>/nsight/cpuN) as fast as it fills, until SIGTERM or
 * SIGINT: read it in 256 KiB pieces, and sleep IDLE_US microseconds
 * (default 200) whenever it is empty. Prints "relay_drain ready" once it
 * reads, and "relay_drain: bytes B reads R idle I" on exit. The reader of
 * `make bench`'s drain-limit measurement. Exit 0, 1 on a runtime error, 2
 * on usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	static char buf[256 << 10];
	uint64_t bytes = 0, reads = 0, idle = 0;
	struct sigaction sa;
	struct timespec ts;
	long idle_us = 200;
	char *end;
	int fd;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: relay_drain FILE [IDLE_US]\n");
		return 2;
	}
	if (argc == 3) {
		idle_us = strtol(argv[2], &end, 10);
		if (*end || idle_us < 0 || idle_us > 1000000) {
			fprintf(stderr, "relay_drain: bad IDLE_US '%s'\n", argv[2]);
			return 2;
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "relay_drain: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	/* Signals are handled and the file is open: the caller may go on. */
	printf("relay_drain ready\n");
	fflush(stdout);
	ts.tv_sec = idle_us / 1000000;
	ts.tv_nsec = idle_us % 1000000 * 1000;
	while (!stop) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "relay_drain: %s: read: %s\n", argv[1], strerror(errno));
			return 1;
		}
		reads++;
		bytes += (uint64_t)n;
		if (n == 0) {
			idle++;
			nanosleep(&ts, NULL);
		}
	}
	close(fd);
	printf("relay_drain: bytes %llu reads %llu idle %llu\n", (unsigned long long)bytes,
	       (unsigned long long)reads, (unsigned long long)idle);
	return 0;
}
