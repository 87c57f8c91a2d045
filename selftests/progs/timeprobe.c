// SPDX-License-Identifier: GPL-2.0
/*
 * timeprobe: measure a guest's CLOCK_REALTIME against the host's, for the
 * two-guest test's independent figure of the guests' true clock offset.
 *
 *   timeprobe serve PORT
 *       On the host: answer every UDP datagram on 127.0.0.1:PORT (an 8-byte
 *       query number) with the number and the host's CLOCK_MONOTONIC_RAW
 *       (8 bytes each, ns, host order) until killed:
 *       a reference that is never stepped nor slewed (the host's realtime
 *       clock may be, by its own time daemon, between two probes).
 *
 *   timeprobe query ADDR PORT [COUNT]
 *       In a guest: send COUNT (default 20) queries, each bracketed by the
 *       guest's CLOCK_REALTIME before (t1) and after (t4); the host's answer
 *       h was read between them (an answer to an earlier query, late, is
 *       recognised by its number and skipped: taken for this one it would
 *       look like a very short round trip). Of the query with the shortest
 *       round trip,
 *       prints "probe MID OFFSET HALF": MID = (t1 + t4) / 2 (guest ns),
 *       OFFSET = h - MID (host's reference - guest, ns), HALF = (t4 - t1) / 2, the bound
 *       on |OFFSET - true offset at MID|.
 *
 * Exit 0 on success, 1 on a runtime error, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int serve(int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		perror("timeprobe: bind");
		return 1;
	}
	for (;;) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		int64_t a[2];

		if (recvfrom(fd, a, sizeof(a[0]), 0, (struct sockaddr *)&from, &fl) !=
		    sizeof(a[0]))
			continue;
		a[1] = now_ns(CLOCK_MONOTONIC_RAW);
		sendto(fd, a, sizeof(a), 0, (struct sockaddr *)&from, fl);
	}
}

static int query(const char *addr, int port, int count)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	int64_t best_rtt = INT64_MAX, best_mid = 0, best_off = 0;
	int fd = socket(AF_INET, SOCK_DGRAM, 0), i;

	if (fd < 0 || inet_pton(AF_INET, addr, &sin.sin_addr) != 1 ||
	    connect(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		perror("timeprobe: connect");
		return 1;
	}
	for (i = 0; i < count; i++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int64_t t1, t4, h, q = i, a[2] = { -1, 0 };

		t1 = now_ns(CLOCK_REALTIME);
		if (send(fd, &q, sizeof(q), 0) != sizeof(q))
			continue;
		while (a[0] != q && poll(&p, 1, 1000) == 1)
			if (recv(fd, a, sizeof(a), 0) != sizeof(a))
				a[0] = -1;
		t4 = now_ns(CLOCK_REALTIME);
		if (a[0] != q)
			continue;
		h = a[1];
		if (t4 - t1 < best_rtt) {
			best_rtt = t4 - t1;
			best_mid = t1 + (t4 - t1) / 2;
			best_off = h - best_mid;
		}
		usleep(10000);
	}
	if (best_rtt == INT64_MAX) {
		fprintf(stderr, "timeprobe: no answer from %s:%d\n", addr, port);
		return 1;
	}
	printf("probe %lld %lld %lld\n", (long long)best_mid, (long long)best_off,
	       (long long)(best_rtt / 2 + 1));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "serve"))
		return serve(atoi(argv[2]));
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "query"))
		return query(argv[2], atoi(argv[3]), argc == 5 ? atoi(argv[4]) : 20);
	fprintf(stderr, "usage: timeprobe serve PORT | timeprobe query ADDR PORT [COUNT]\n");
	return 2;
}
