// SPDX-License-Identifier: GPL-2.0
/*
 * handoff_ts: the receive hand-off timestamp of patches/0001
 * (SOF_TIMESTAMPING_RX_HANDOFF, reported in ts[1] of SCM_TIMESTAMPING)
 * against nsight's own records.
 *
 *   handoff_ts recv PORT COUNT OUT [-6]
 *	receive COUNT datagrams on a UDP socket bound to PORT (IPv6 with -6)
 *	with SOF_TIMESTAMPING_RX_HANDOFF | RX_SOFTWARE | SOFTWARE; write one
 *	line per datagram to OUT: "LEN TS0 TS1 RECV" (ns, CLOCK_REALTIME;
 *	RECV is read right after recvmsg() returned). Prints "listening"
 *	once bound. Exit 4 if the kernel rejects the flag with EINVAL (it
 *	lacks the patch), 1 on a timeout (20 s) or a missing timestamp.
 *   handoff_ts send ADDR PORT COUNT GAP_US
 *	send COUNT datagrams, the i-th (from 0) with 64 + i bytes, GAP_US
 *	apart: every datagram of a run has its own length.
 *   handoff_ts check OUT JSON PORT
 *	match the datagrams of OUT with the complete UDP RX messages to PORT
 *	in JSON (nsight-analyze --json --messages) by length, and check for
 *	every one: TS0 <= TS1 <= RECV (the kernel's own clock), nsight's
 *	n <= TS1 <= nsight's a, and TS1 <= nsight's h (nsight's hand-off is
 *	the entry of sock_def_readable(), which the patch's timestamp
 *	precedes). Prints the counts and the gaps; exit 1 on a violation or
 *	if no datagram matched.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* patches/0001; not in the distribution's headers. */
#define HANDOFF_FLAG (1 << 18)
#define MAX_COUNT 1400
#define BASE_LEN 64

struct rec {
	int64_t len, ts0, ts1, recv;
	int matched;
};

static int64_t ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static int do_recv(int port, int count, const char *out, int v6)
{
	int flags = HANDOFF_FLAG | SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
	struct timeval tmo = { .tv_sec = 20 };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(port) };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(port) };
	char buf[2048], ctl[256];
	FILE *f;
	int fd, i;

	fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("socket");
		return 1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags))) {
		int e = errno;

		printf("setsockopt(SO_TIMESTAMPING, RX_HANDOFF): %s\n", strerror(e));
		return e == EINVAL ? 4 : 1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo)) ||
	    (v6 ? bind(fd, (struct sockaddr *)&a6, sizeof(a6)) :
		  bind(fd, (struct sockaddr *)&a4, sizeof(a4)))) {
		perror("setsockopt/bind");
		return 1;
	}
	f = fopen(out, "w");
	if (!f) {
		perror(out);
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	for (i = 0; i < count; i++) {
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
				      .msg_control = ctl, .msg_controllen = sizeof(ctl) };
		struct scm_timestamping *tss = NULL;
		struct cmsghdr *c;
		struct timespec now;
		ssize_t n = recvmsg(fd, &msg, 0);

		clock_gettime(CLOCK_REALTIME, &now);
		if (n < 0) {
			printf("recvmsg after %d datagrams: %s\n", i, strerror(errno));
			break;
		}
		for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMPING)
				tss = (struct scm_timestamping *)CMSG_DATA(c);
		if (!tss) {
			printf("datagram %d: no SCM_TIMESTAMPING\n", i);
			break;
		}
		fprintf(f, "%zd %" PRId64 " %" PRId64 " %" PRId64 "\n", n, ts_ns(&tss->ts[0]),
			ts_ns(&tss->ts[1]), ts_ns(&now));
	}
	fclose(f);
	close(fd);
	printf("received %d\n", i);
	return i == count ? 0 : 1;
}

static int do_send(const char *addr, int port, int count, int gap_us)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(port) };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(port) };
	int v6 = strchr(addr, ':') != NULL, fd, i;
	char buf[BASE_LEN + MAX_COUNT];

	if (v6 ? inet_pton(AF_INET6, addr, &a6.sin6_addr) != 1 :
		 inet_pton(AF_INET, addr, &a4.sin_addr) != 1) {
		fprintf(stderr, "bad address %s\n", addr);
		return 2;
	}
	fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || (v6 ? connect(fd, (struct sockaddr *)&a6, sizeof(a6)) :
			    connect(fd, (struct sockaddr *)&a4, sizeof(a4)))) {
		perror("socket/connect");
		return 1;
	}
	memset(buf, 'h', sizeof(buf));
	for (i = 0; i < count; i++) {
		if (send(fd, buf, BASE_LEN + i, 0) < 0) {
			perror("send");
			return 1;
		}
		usleep(gap_us);
	}
	printf("sent %d\n", count);
	return 0;
}

/* The "ns" of stage NAME of message M, or -1 if it has none. */
static int64_t stage_ns(struct json_object *m, const char *name)
{
	struct json_object *stages, *s, *ns;

	if (!json_object_object_get_ex(m, "stages", &stages) ||
	    !json_object_object_get_ex(stages, name, &s) || !s ||
	    !json_object_object_get_ex(s, "ns", &ns) || !ns)
		return -1;
	return json_object_get_int64(ns);
}

static const char *str_of(struct json_object *o, const char *k1, const char *k2)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k1, &v))
		return "";
	if (k2 && !json_object_object_get_ex(v, k2, &v))
		return "";
	return json_object_get_string(v) ? json_object_get_string(v) : "";
}

static int cmp64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return a < b ? -1 : a > b;
}

/* The complete UDP RX message M to a destination ending in SUFFIX: its bytes, else -1. */
static int64_t rx_udp_bytes(struct json_object *m, const char *suffix)
{
	const char *dst = str_of(m, "flow", "dst");
	size_t dl = strlen(dst), sl = strlen(suffix);
	struct json_object *v;

	if (strcmp(str_of(m, "dir", NULL), "rx") || strcmp(str_of(m, "protocol", NULL), "udp") ||
	    dl < sl || strcmp(dst + dl - sl, suffix) ||
	    !json_object_object_get_ex(m, "complete", &v) || !json_object_get_boolean(v) ||
	    !json_object_object_get_ex(m, "bytes", &v))
		return -1;
	return json_object_get_int64(v);
}

static int do_check(const char *out, const char *json, int port)
{
	static struct rec r[MAX_COUNT];
	static int64_t stack[MAX_COUNT], probe[MAX_COUNT], wait[MAX_COUNT];
	struct json_object *root, *msgs;
	int nr = 0, i, matched = 0, bad = 0, own_bad = 0, udp_msgs = 0;
	int64_t off = -1;
	size_t k, n;
	char suffix[16];
	FILE *f = fopen(out, "r");

	if (!f) {
		perror(out);
		return 1;
	}
	while (nr < MAX_COUNT && fscanf(f, "%" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNd64,
					&r[nr].len, &r[nr].ts0, &r[nr].ts1, &r[nr].recv) == 4)
		nr++;
	fclose(f);
	for (i = 0; i < nr; i++) {
		/* The kernel's own order: RX software <= hand-off <= recv. */
		if (!(r[i].ts0 > 0 && r[i].ts0 <= r[i].ts1 && r[i].ts1 <= r[i].recv)) {
			if (own_bad++ < 3)
				printf("datagram len %" PRId64 ": ts0 %" PRId64 " ts1 %" PRId64
				       " recv %" PRId64 " out of order\n",
				       r[i].len, r[i].ts0, r[i].ts1, r[i].recv);
		}
	}
	root = json_object_from_file(json);
	if (!root || !json_object_object_get_ex(root, "messages", &msgs)) {
		printf("%s: no \"messages\" array\n", json);
		return 1;
	}
	snprintf(suffix, sizeof(suffix), ":%d", port);
	n = json_object_array_length(msgs);
	/*
	 * nsight's length of a datagram may include headers: the shortest
	 * message is the first datagram (BASE_LEN bytes of payload).
	 */
	for (k = 0; k < n; k++) {
		int64_t bytes = rx_udp_bytes(json_object_array_get_idx(msgs, k), suffix);

		if (bytes >= 0 && (off < 0 || bytes - BASE_LEN < off))
			off = bytes - BASE_LEN;
	}
	for (k = 0; k < n; k++) {
		struct json_object *m = json_object_array_get_idx(msgs, k);
		int64_t bytes = rx_udp_bytes(m, suffix), nic, h, a;

		if (bytes < 0)
			continue;
		udp_msgs++;
		for (i = 0; i < nr; i++)
			if (!r[i].matched && r[i].len + off == bytes)
				break;
		if (i == nr)
			continue;
		r[i].matched = 1;
		nic = stage_ns(m, "n");
		h = stage_ns(m, "h");
		a = stage_ns(m, "a");
		if (nic < 0 || h < 0 || a < 0)
			continue;
		if (!(nic <= r[i].ts1 && r[i].ts1 <= h && h <= a)) {
			if (bad++ < 5)
				printf("datagram len %" PRId64 ": n %" PRId64 " ts1 %" PRId64
				       " h %" PRId64 " a %" PRId64 ": not n <= ts1 <= h <= a\n",
				       r[i].len, nic, r[i].ts1, h, a);
		}
		stack[matched] = r[i].ts1 - nic;
		probe[matched] = h - r[i].ts1;
		wait[matched] = a - r[i].ts1;
		matched++;
	}
	/* What kept a datagram from matching: the other messages to the port. */
	for (k = 0; k < n; k++) {
		struct json_object *m = json_object_array_get_idx(msgs, k);
		const char *dst = str_of(m, "flow", "dst");
		size_t dl = strlen(dst), sl = strlen(suffix);

		if (!strcmp(str_of(m, "dir", NULL), "rx") && dl >= sl &&
		    !strcmp(dst + dl - sl, suffix) && rx_udp_bytes(m, suffix) < 0)
			printf("incomplete: %s\n",
			       json_object_to_json_string_ext(m, JSON_C_TO_STRING_PLAIN));
	}
	for (i = 0; i < nr; i++)
		if (!r[i].matched)
			printf("datagram len %" PRId64 " ts0 %" PRId64 " not matched\n",
			       r[i].len, r[i].ts0);
	json_object_put(root);
	printf("datagrams %d, nsight complete udp rx messages to port %d: %d (length offset %"
	       PRId64 "), matched %d\n", nr, port, udp_msgs, off, matched);
	printf("ts0 <= ts1 <= recv violations %d; n <= ts1 <= h <= a violations %d\n",
	       own_bad, bad);
	if (matched) {
		qsort(stack, matched, sizeof(stack[0]), cmp64);
		qsort(probe, matched, sizeof(probe[0]), cmp64);
		qsort(wait, matched, sizeof(wait[0]), cmp64);
		printf("median n->ts1 %" PRId64 " ns, ts1->h %" PRId64 " ns, ts1->a %" PRId64
		       " ns\n", stack[matched / 2], probe[matched / 2], wait[matched / 2]);
	}
	return matched > 0 && matched == nr && !bad && !own_bad ? 0 : 1;
}

int main(int argc, char **argv)
{
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "recv") && atoi(argv[3]) <= MAX_COUNT)
		return do_recv(atoi(argv[2]), atoi(argv[3]), argv[4],
			       argc == 6 && !strcmp(argv[5], "-6"));
	if (argc == 6 && !strcmp(argv[1], "send") && atoi(argv[4]) <= MAX_COUNT)
		return do_send(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
	if (argc == 5 && !strcmp(argv[1], "check"))
		return do_check(argv[2], argv[3], atoi(argv[4]));
	fprintf(stderr, "usage: handoff_ts recv PORT COUNT OUT [-6] | send ADDR PORT COUNT GAP_US |\n"
			"       check OUT JSON PORT\n");
	return 2;
}
