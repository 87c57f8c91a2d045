// SPDX-License-Identifier: GPL-2.0
/*
 * UDP traffic for selftests.
 *
 *   udp_pair recv PORT COUNT TIMEOUT_MS [FILTER_INSNS]
 *                                         receive COUNT datagrams (or give up
 *                                         after TIMEOUT_MS of silence), print
 *                                         "received N"; with FILTER_INSNS, a
 *                                         socket filter of that many
 *                                         instructions runs on every datagram
 *                                         in the receive softirq (costly
 *                                         receive processing on demand)
 *   udp_pair send ADDR PORT COUNT [BURST [GAP_US]]
 *                                         send COUNT datagrams, BURST at a
 *                                         time with GAP_US between bursts
 *                                         (rate-limited: an unthrottled flood
 *                                         can upset the emulated guest)
 *   udp_pair flood ADDR PORT SECONDS      send bursts for SECONDS
 *
 * Every datagram carries its sequence number. Exit 0 on success, 1 on a
 * runtime error, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/filter.h>
#include <time.h>
#include <unistd.h>

static int usage(void)
{
	fprintf(stderr,
		"usage: udp_pair recv PORT COUNT TIMEOUT_MS [FILTER_INSNS]\n"
		"       udp_pair send ADDR PORT COUNT [BURST [GAP_US]]\n"
		"       udp_pair flood ADDR PORT SECONDS\n");
	return 2;
}

static int parse_num(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno || end == s || *end || *out > max ? -1 : 0;
}

/*
 * A classic BPF program of @n instructions that accepts every packet: loads
 * from the packet, which even a JIT turns into helper calls, so the cost
 * lands in the receive softirq.
 */
static int attach_costly_filter(int fd, unsigned long n)
{
	struct sock_filter *insns = calloc(n, sizeof(*insns));
	struct sock_fprog prog = { .len = n, .filter = insns };
	unsigned long i;
	int ret;

	if (!insns)
		return -1;
	for (i = 0; i + 1 < n; i++)
		insns[i] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0);
	insns[n - 1] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0xffff);
	ret = setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog));
	free(insns);
	return ret;
}

static int do_recv(unsigned long port, unsigned long count,
		   unsigned long timeout_ms, unsigned long filter_insns)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(port) };
	unsigned long got = 0;
	int rcvbuf = 4 << 20;
	int fd;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
				 sizeof(rcvbuf)) ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		perror("udp_pair: recv socket");
		return 1;
	}
	if (filter_insns && attach_costly_filter(fd, filter_insns)) {
		perror("udp_pair: SO_ATTACH_FILTER");
		return 1;
	}
	/* Tell the script we are listening. */
	printf("listening %lu\n", port);
	fflush(stdout);
	while (got < count) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char buf[2048];
		int n = poll(&p, 1, timeout_ms);

		if (n < 0) {
			perror("udp_pair: poll");
			return 1;
		}
		if (!n)
			break;
		if (recv(fd, buf, sizeof(buf), 0) < 0) {
			perror("udp_pair: recv");
			return 1;
		}
		got++;
	}
	printf("received %lu\n", got);
	close(fd);
	return 0;
}

static int open_sender(const char *addr, unsigned long port,
		       struct sockaddr_in *sin)
{
	int fd;

	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	if (inet_pton(AF_INET, addr, &sin->sin_addr) != 1) {
		fprintf(stderr, "udp_pair: bad address %s\n", addr);
		return -1;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		perror("udp_pair: socket");
	return fd;
}

static void sleep_us(unsigned long us)
{
	struct timespec ts = { .tv_sec = us / 1000000,
			       .tv_nsec = (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int send_one(int fd, const struct sockaddr_in *sin, uint64_t seq)
{
	char buf[64];

	memset(buf, 0, sizeof(buf));
	memcpy(buf, &seq, sizeof(seq));
	if (sendto(fd, buf, sizeof(buf), 0, (const struct sockaddr *)sin,
		   sizeof(*sin)) != sizeof(buf)) {
		perror("udp_pair: sendto");
		return -1;
	}
	return 0;
}

static int do_send(const char *addr, unsigned long port, unsigned long count,
		   unsigned long burst, unsigned long gap_us)
{
	struct sockaddr_in sin;
	unsigned long i;
	int fd;

	fd = open_sender(addr, port, &sin);
	if (fd < 0)
		return 1;
	for (i = 0; i < count; i++) {
		if (send_one(fd, &sin, i))
			return 1;
		if ((i + 1) % burst == 0)
			sleep_us(gap_us);
	}
	printf("sent %lu\n", count);
	close(fd);
	return 0;
}

static int do_flood(const char *addr, unsigned long port, unsigned long secs)
{
	struct sockaddr_in sin;
	struct timespec start, now;
	uint64_t seq = 0;
	int fd, i;

	fd = open_sender(addr, port, &sin);
	if (fd < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		for (i = 0; i < 32; i++)
			send_one(fd, &sin, seq++);	/* ECONNREFUSED is fine */
		sleep_us(3000);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((unsigned long)(now.tv_sec - start.tv_sec) < secs);
	printf("sent %llu\n", (unsigned long long)seq);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long port, count, a, b = 16, c = 1000;

	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "recv") && (argc == 5 || argc == 6)) {
		if (parse_num(argv[2], 65535, &port) ||
		    parse_num(argv[3], ~0UL, &count) ||
		    parse_num(argv[4], 3600000, &a) ||
		    (argc == 6 && (parse_num(argv[5], BPF_MAXINSNS, &b) || !b)))
			return usage();
		return do_recv(port, count, a, argc == 6 ? b : 0);
	}
	if (!strcmp(argv[1], "send") && argc >= 5 && argc <= 7) {
		if (parse_num(argv[3], 65535, &port) ||
		    parse_num(argv[4], ~0UL, &count) ||
		    (argc > 5 && parse_num(argv[5], 1000000, &b)) ||
		    (argc > 6 && parse_num(argv[6], 10000000, &c)) || !b)
			return usage();
		return do_send(argv[2], port, count, b, c);
	}
	if (!strcmp(argv[1], "flood") && argc == 5) {
		if (parse_num(argv[3], 65535, &port) ||
		    parse_num(argv[4], 86400, &a))
			return usage();
		return do_flood(argv[2], port, a);
	}
	return usage();
}
