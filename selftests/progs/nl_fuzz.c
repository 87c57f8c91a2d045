// SPDX-License-Identifier: GPL-2.0
/*
 * nl_fuzz: random requests to the nsight generic netlink family.
 *
 *   nl_fuzz SEED COUNT SECONDS
 *
 * Sends up to COUNT requests (or for SECONDS) made from a PRNG seeded with
 * SEED: any command number but START (a random valid configuration could
 * ask for 256 MiB per CPU), random genetlink versions, zero to five
 * attributes of random types (known ones more often), lengths around
 * the right one, random payloads, nested filter entries with their own
 * random types and lengths, attribute headers that claim more than the
 * message holds, and sometimes NLM_F_DUMP. Every request asks for an ack
 * and must be answered within 5 s, with success or one of the errors the
 * family documents (EINVAL, ERANGE, E2BIG, EBUSY, EALREADY, EOPNOTSUPP,
 * EMSGSIZE). Prints "sent N answered N ok N" and the count per errno;
 * exit 0 if every request was answered as allowed, 1 otherwise, 2 for
 * usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <linux/nsight.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return n ? (uint32_t)((rng * 2685821657736338717ULL) >> 32) % n : 0;
}

/* Append an attribute of @type with @len payload bytes (random, or @val). */
static size_t put_attr(uint8_t *b, size_t at, size_t cap, uint16_t type, uint16_t len,
		       const uint8_t *val)
{
	struct nlattr a = { .nla_len = NLA_HDRLEN + len, .nla_type = type };
	size_t i;

	if (at + NLA_ALIGN(NLA_HDRLEN + len) > cap)
		return at;
	memcpy(b + at, &a, sizeof(a));
	for (i = 0; i < len; i++)
		b[at + NLA_HDRLEN + i] = val ? val[i] : (uint8_t)rnd(256);
	memset(b + at + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
	return at + NLA_ALIGN(NLA_HDRLEN + len);
}

static uint16_t rnd_len(void)
{
	static const uint16_t lens[] = { 0, 1, 2, 3, 4, 4, 4, 5, 8, 16, 17, 64 };

	return lens[rnd(sizeof(lens) / sizeof(lens[0]))];
}

/* A u32 near the limits of the configuration, never a huge valid buffer. */
static uint32_t rnd_u32(uint16_t type)
{
	static const uint32_t v[] = {
		0, 1, 4096, NSIGHT_BUFFER_MIN - 1, NSIGHT_BUFFER_MIN, 1U << 20,
		NSIGHT_BUFFER_MAX + 1, NSIGHT_SAMPLE_PERIOD_MIN - 1,
		NSIGHT_SAMPLE_PERIOD_MIN, NSIGHT_SAMPLE_PERIOD_MAX,
		NSIGHT_SAMPLE_PERIOD_MAX + 1, NSIGHT_SOURCES_ALL,
		NSIGHT_SOURCES_ALL + 1, 0x80000000U, UINT32_MAX,
	};
	uint32_t x = rnd(4) ? v[rnd(sizeof(v) / sizeof(v[0]))] : (uint32_t)rnd(UINT32_MAX);

	if (type == NSIGHT_A_BUFFER_SIZE && x > (8U << 20) && x <= NSIGHT_BUFFER_MAX)
		x = 8U << 20;
	return x;
}

/* A random filter nest body at b + at. */
static size_t put_filter(uint8_t *b, size_t at, size_t cap)
{
	size_t n = rnd(20), i;

	for (i = 0; i < n; i++) {
		uint16_t type = (uint16_t)rnd(NSIGHT_FILTER_A_MAX + 3);
		uint16_t len = rnd(2) ? (type == NSIGHT_FILTER_A_PORT ? 2 :
					 type == NSIGHT_FILTER_A_ADDR ? (rnd(2) ? 4 : 16) : 4) :
					rnd_len();

		at = put_attr(b, at, cap, type, len, NULL);
	}
	return at;
}

/* Build one request in @b; returns its length. */
static size_t build(uint8_t *b, size_t cap, int family, uint32_t seq)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)b;
	struct genlmsghdr *g = (struct genlmsghdr *)(b + NLMSG_HDRLEN);
	static const uint8_t cmds[] = {
		NSIGHT_CMD_UNSPEC, NSIGHT_CMD_STOP, NSIGHT_CMD_GET_STATUS, NSIGHT_CMD_SET_CONFIG,
		NSIGHT_CMD_SET_CONFIG, NSIGHT_CMD_SET_CONFIG, NSIGHT_CMD_BUFFER_FULL, 6, 99, 255,
	};
	size_t at = NLMSG_HDRLEN + GENL_HDRLEN;
	int nattrs = (int)rnd(6), i;

	memset(b, 0, at);
	nlh->nlmsg_type = (uint16_t)family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (rnd(16) ? 0 : NLM_F_DUMP);
	nlh->nlmsg_seq = seq;
	g->cmd = cmds[rnd(sizeof(cmds) / sizeof(cmds[0]))];
	g->version = rnd(8) ? NSIGHT_GENL_VERSION : (uint8_t)rnd(256);
	g->reserved = rnd(8) ? 0 : (uint16_t)rnd(65536);
	for (i = 0; i < nattrs; i++) {
		uint16_t type = (uint16_t)(rnd(4) ? rnd(NSIGHT_A_MAX + 1) : rnd(65536));

		if (type == NSIGHT_A_FILTER || !rnd(10)) {
			/* A nest, maybe flagged, with random entries. */
			size_t start = at, end;
			struct nlattr a;

			if (at + NLA_HDRLEN > cap)
				break;
			end = put_filter(b, at + NLA_HDRLEN, cap);
			a.nla_len = (uint16_t)(end - start);
			a.nla_type = type | (rnd(2) ? NLA_F_NESTED : 0);
			memcpy(b + start, &a, sizeof(a));
			at = end;
		} else if (rnd(2)) {
			uint32_t v = rnd_u32(type);

			at = put_attr(b, at, cap, type, 4, (const uint8_t *)&v);
		} else {
			at = put_attr(b, at, cap, type, rnd_len(), NULL);
		}
	}
	if (!rnd(12) && at + NLA_HDRLEN <= cap) {
		/* An attribute that claims more than the message holds. */
		struct nlattr lie = { .nla_len = (uint16_t)(NLA_HDRLEN + 1 + rnd(200)),
				      .nla_type = (uint16_t)rnd(NSIGHT_A_MAX + 1) };

		memcpy(b + at, &lie, sizeof(lie));
		at += NLA_HDRLEN;
	}
	nlh->nlmsg_len = (uint32_t)at;
	return at;
}

static int allowed(int err)
{
	switch (err) {
	case 0: case EINVAL: case ERANGE: case E2BIG: case EBUSY: case EALREADY:
	case EOPNOTSUPP: case EMSGSIZE:
		return 1;
	default:
		return 0;
	}
}

/* Wait for the ack of @seq; returns the errno it carries, or -1 for none. */
static int answer(int fd, uint32_t seq)
{
	static uint8_t buf[65536];

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct nlmsghdr *h;
		ssize_t n;
		int len;

		if (poll(&p, 1, 5000) <= 0)
			return -1;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0)
			return errno == ENOBUFS ? -2 : -1;
		len = (int)n;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR)
				return -((struct nlmsgerr *)NLMSG_DATA(h))->error;
			if (h->nlmsg_type == NLMSG_DONE)
				continue;	/* a dump's end; its ack follows */
		}
	}
}

int main(int argc, char **argv)
{
	static uint8_t req[4096];
	unsigned long count, secs, sent = 0, answered = 0, ok = 0, bad = 0;
	unsigned long per_err[256] = { 0 };
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct nl_sock *sk;
	time_t end;
	int family, fd, one = 1, e;

	if (argc != 4) {
		fprintf(stderr, "usage: nl_fuzz SEED COUNT SECONDS\n");
		return 2;
	}
	rng = strtoull(argv[1], NULL, 0) * 2654435761ULL + 1;
	count = strtoul(argv[2], NULL, 0);
	secs = strtoul(argv[3], NULL, 0);
	sk = nl_socket_alloc();
	if (!sk || genl_connect(sk) || (family = genl_ctrl_resolve(sk, NSIGHT_GENL_NAME)) < 0) {
		fprintf(stderr, "nl_fuzz: family %s not found\n", NSIGHT_GENL_NAME);
		return 1;
	}
	nl_socket_free(sk);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0) {
		perror("nl_fuzz: socket");
		return 1;
	}
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	end = time(NULL) + (time_t)secs;
	while (sent < count && time(NULL) < end) {
		size_t len = build(req, sizeof(req), family, (uint32_t)(sent + 1));

		if (sendto(fd, req, len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
			printf("request %lu: send: %s\n", sent + 1, strerror(errno));
			bad++;
			break;
		}
		sent++;
		e = answer(fd, (uint32_t)sent);
		if (e == -1) {
			printf("request %lu (cmd %u, %zu bytes): no answer within 5 s\n", sent,
			       req[NLMSG_HDRLEN], len);
			bad++;
			break;
		}
		if (e == -2) {		/* our receive queue overflowed: not the kernel's fault */
			per_err[255]++;
			continue;
		}
		answered++;
		per_err[e < 255 ? e : 254]++;
		if (!allowed(e)) {
			printf("request %lu (cmd %u, %zu bytes): unexpected error %d (%s)\n", sent,
			       req[NLMSG_HDRLEN], len, e, strerror(e));
			bad++;
		} else if (!e) {
			ok++;
		}
	}
	printf("sent %lu answered %lu ok %lu\n", sent, answered, ok);
	for (e = 1; e < 255; e++)
		if (per_err[e])
			printf("  %s: %lu\n", strerror(e), per_err[e]);
	if (per_err[255])
		printf("  (receive queue overflows: %lu)\n", per_err[255]);
	close(fd);
	return bad || !sent ? 1 : 0;
}
