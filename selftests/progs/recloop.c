// SPDX-License-Identifier: GPL-2.0
/*
 * recloop COUNT: COUNT round trips of a 64-byte UDP datagram through one
 * loopback socket connected to itself (send, then receive it back), as fast
 * as the CPU goes. Drives nsight's network and application hooks in a
 * tight loop for the per-record cost of `make bench`. Prints
 * "recloop: loops N ns T tsc C": the elapsed CLOCK_MONOTONIC nanoseconds
 * and TSC cycles of the loop. Exit 0, 1 on a runtime error, 2 on usage.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	unsigned long n, i;
	uint64_t t0, t1, c0, c1;
	char buf[64];
	char *end;
	int fd;

	if (argc != 2 || !(n = strtoul(argv[1], &end, 10)) || *end) {
		fprintf(stderr, "usage: recloop COUNT\n");
		return 2;
	}
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &len) ||
	    connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		perror("recloop: socket");
		return 1;
	}
	memset(buf, 'x', sizeof(buf));
	t0 = now_ns();
	c0 = __rdtsc();
	for (i = 0; i < n; i++) {
		memcpy(buf, &i, sizeof(i));
		if (send(fd, buf, sizeof(buf), 0) != sizeof(buf) ||
		    recv(fd, buf, sizeof(buf), 0) != sizeof(buf)) {
			perror("recloop: send/recv");
			return 1;
		}
	}
	c1 = __rdtsc();
	t1 = now_ns();
	printf("recloop: loops %lu ns %llu tsc %llu\n", n, (unsigned long long)(t1 - t0),
	       (unsigned long long)(c1 - c0));
	return 0;
}
