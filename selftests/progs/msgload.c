// SPDX-License-Identifier: GPL-2.0
/*
 * msgload: request/response workloads for nsight's guest tests.
 *
 *   msgload server -p udp|tcp -P PORT [-n COUNT] [-w WORK_US] [-b BATCH]
 *                  [-t TOUCH_KB [-R]] [-s SEED] [-L HOLD_US [-I EVERY_US] [-C CPU]]
 *                  [-B RCVBUF]
 *       Echo every request. -w spins WORK_US per request; -b waits until
 *       BATCH requests arrived and then handles them one by one (requests
 *       queue behind each other: head-of-line blocking); -t writes TOUCH_KB
 *       of freshly mapped memory per request (page faults), -R a random
 *       amount up to TOUCH_KB instead. -L: every request is handled
 *       under a mutex that a background thread named "lockholder"
 *       (SCHED_IDLE, on CPU CPU, default 0) takes every EVERY_US (default
 *       1000) and holds for HOLD_US, spinning in hold_lock_slowly(): the
 *       server waits for it (the lock-holder example of seeds/004). -B
 *       sets SO_RCVBUF (the kernel doubles it) before the bind. Prints "listening PORT pid PID",
 *       exits after COUNT requests (default: never) and prints "served N"
 *       (udp: "served N in T us", T from the first receive's return to the
 *       last reply sent: driven faster than it can serve, its capacity).
 *
 *   msgload client -p udp|tcp|memcache -a ADDR -P PORT -n COUNT [-r RATE]
 *                  [-s SEED] [-S SIZE] [-T TIMEOUT_MS] [-g GAP_US] [-W]
 *                  [-B RCVBUF] [-D SLOW_US]
 *       Send COUNT requests of SIZE bytes (default 64) carrying their
 *       sequence number. Closed loop by default (next request GAP_US after
 *       the reply, default 0); with -r, open loop: Poisson arrivals at RATE per second
 *       (seeded, so runs repeat) and a second thread collecting replies.
 *       Prints "sent N received M" and the latency percentiles in
 *       microseconds as measured by the client. memcache speaks memcached's
 *       text protocol over TCP ("get" requests, answered in order). -W
 *       (tcp) writes each request in two halves with Nagle on: the second
 *       waits in the send queue for the ACK of the first. -B sets SO_RCVBUF
 *       before connecting; -D (closed loop) reads every tenth reply
 *       SLOW_US late: with a small receive buffer, the server's reply waits
 *       for the window meanwhile.
 *
 * Exit 0 on success, 1 on a runtime error, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_SIZE 1400

enum proto { PROTO_UDP, PROTO_TCP, PROTO_MEMCACHE };

struct opts {
	enum proto proto;
	int tcp;	/* a stream socket: tcp or memcache */
	int random_touch;
	const char *addr;
	int port;
	unsigned long count;
	unsigned long work_us;
	unsigned long batch;
	unsigned long touch_kb;
	double rate;
	unsigned long seed;
	unsigned long size;
	unsigned long timeout_ms;
	unsigned long gap_us;
	unsigned long hold_us;		/* -L */
	unsigned long hold_every_us;	/* -I */
	unsigned long hold_cpu;		/* -C */
	int split;			/* -W */
	unsigned long rcvbuf;		/* -B */
	unsigned long slow_us;		/* -D */
};

static pthread_mutex_t work_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Sleep, not spin, until @ns (CLOCK_MONOTONIC): in an emulated guest a
 * spinning vCPU starves the others, which would be a cause of its own.
 */
static void sleep_until(uint64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000ULL,
			       .tv_nsec = ns % 1000000000ULL };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void spin_us(unsigned long us)
{
	uint64_t end = now_ns() + us * 1000ULL;

	while (now_ns() < end)
		;
}

/* The lock holder's slow work, under the server's lock. */
static __attribute__((noinline)) void hold_lock_slowly(unsigned long us)
{
	spin_us(us);
}

static void *lock_holder(void *arg)
{
	const struct opts *o = arg;
	cpu_set_t set;

	prctl(PR_SET_NAME, "lockholder", 0, 0, 0);
	/* Background work: it runs when the server does not. */
	pthread_setschedparam(pthread_self(), SCHED_IDLE, &(struct sched_param){ 0 });
	CPU_ZERO(&set);
	CPU_SET(o->hold_cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	for (;;) {
		sleep_until(now_ns() + o->hold_every_us * 1000ULL);
		pthread_mutex_lock(&work_lock);
		hold_lock_slowly(o->hold_us);
		pthread_mutex_unlock(&work_lock);
	}
	return NULL;
}

/* Fresh anonymous memory, written once: every page faults. */
static void touch_fresh(unsigned long kb)
{
	size_t len = kb * 1024, i;
	char *p;

	if (!kb)
		return;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	for (i = 0; i < len; i += 4096)
		p[i] = 1;
	munmap(p, len);
}

static void handle(const struct opts *o)
{
	static unsigned short xsubi[3];
	static int seeded;

	spin_us(o->work_us);
	if (!o->random_touch) {
		touch_fresh(o->touch_kb);
		return;
	}
	if (!seeded) {
		xsubi[0] = o->seed;
		xsubi[1] = o->seed >> 16;
		seeded = 1;
	}
	touch_fresh((unsigned long)(erand48(xsubi) * (o->touch_kb + 1)));
}

/* Read exactly len bytes from a stream socket. */
static int read_full(int fd, char *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n <= 0)
			return n < 0 ? -1 : 1;
		got += n;
	}
	return 0;
}

static int serve_udp(const struct opts *o, int fd)
{
	struct {
		struct sockaddr_storage from;
		socklen_t fromlen;
		char buf[MAX_SIZE];
		ssize_t len;
	} *q;
	unsigned long served = 0, batch = o->batch ? o->batch : 1, i, n;
	uint64_t first = 0, last = 0;

	q = calloc(batch, sizeof(*q));
	if (!q)
		return 1;
	while (!o->count || served < o->count) {
		for (n = 0; n < batch; n++) {
			q[n].fromlen = sizeof(q[n].from);
			q[n].len = recvfrom(fd, q[n].buf, sizeof(q[n].buf), 0,
					    (struct sockaddr *)&q[n].from,
					    &q[n].fromlen);
			if (q[n].len < 0) {
				perror("msgload: recvfrom");
				return 1;
			}
			if (!first)
				first = now_ns();
			if (o->count && served + n + 1 >= o->count) {
				n++;
				break;
			}
		}
		for (i = 0; i < n; i++) {
			if (o->hold_us)
				pthread_mutex_lock(&work_lock);
			handle(o);
			if (o->hold_us)
				pthread_mutex_unlock(&work_lock);
			sendto(fd, q[i].buf, q[i].len, 0,
			       (struct sockaddr *)&q[i].from, q[i].fromlen);
			last = now_ns();
		}
		served += n;
	}
	free(q);
	printf("served %lu in %llu us\n", served,
	       (unsigned long long)(last > first ? (last - first) / 1000 : 0));
	return 0;
}

static int serve_tcp(const struct opts *o, int lfd)
{
	unsigned long served = 0;
	char buf[MAX_SIZE];
	int fd, one = 1;

	if (listen(lfd, 4)) {
		perror("msgload: listen");
		return 1;
	}
	fd = accept(lfd, NULL, NULL);
	if (fd < 0) {
		perror("msgload: accept");
		return 1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	while (!o->count || served < o->count) {
		/* A message is what one receive returns. */
		ssize_t n = read(fd, buf, o->size);

		if (n <= 0)
			break;
		if (n < (ssize_t)o->size &&
		    read_full(fd, buf + n, o->size - n))
			break;
		handle(o);
		if (write(fd, buf, o->size) != (ssize_t)o->size)
			break;
		served++;
	}
	close(fd);
	printf("served %lu\n", served);
	return 0;
}

/* -B: SO_RCVBUF (the kernel doubles it), before bind or connect; 0 if unset. */
static int set_rcvbuf(int fd, unsigned long bytes)
{
	int v = (int)bytes;

	return bytes ? setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)) : 0;
}

static int run_server(const struct opts *o)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(o->port) };
	int fd, one = 1;

	fd = socket(AF_INET, o->tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
				 sizeof(one)) || set_rcvbuf(fd, o->rcvbuf) ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		perror("msgload: server socket");
		return 1;
	}
	if (o->hold_us) {
		pthread_t t;

		if (pthread_create(&t, NULL, lock_holder, (void *)o)) {
			fprintf(stderr, "msgload: cannot start the lock holder\n");
			return 1;
		}
	}
	printf("listening %d pid %d\n", o->port, (int)getpid());
	fflush(stdout);
	return o->tcp ? serve_tcp(o, fd) : serve_udp(o, fd);
}

struct client {
	const struct opts *o;
	int fd;
	uint64_t *sent_at;	/* per sequence number */
	uint64_t *lat;		/* per sequence number, 0 = no reply */
	unsigned long received;
	unsigned long next_reply;	/* memcache: replies come in order */
	unsigned int matched;		/* memcache: bytes of "END\r\n" seen */
};

/*
 * memcache: every reply ends with "END\r\n" (which may straddle two
 * reads). Note the replies completed in @buf and return the sequence
 * number of the last one, or -1.
 */
static long memcache_replies(struct client *c, const char *buf, size_t n)
{
	static const char end[] = "END\r\n";
	long last = -1;
	size_t i;

	for (i = 0; i < n; i++) {
		if (buf[i] == end[c->matched])
			c->matched++;
		else
			c->matched = buf[i] == 'E';
		if (c->matched < sizeof(end) - 1)
			continue;
		c->matched = 0;
		if (c->next_reply < c->o->count) {
			last = c->next_reply++;
			c->lat[last] = now_ns() - c->sent_at[last];
			c->received++;
		}
	}
	return last;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Receive one reply and note its latency. Returns its sequence number, -2
 * when what was read completed no reply yet, or -1 when none came within
 * the timeout or the connection failed.
 */
static long recv_reply(struct client *c)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	char buf[MAX_SIZE];
	uint64_t seq;
	ssize_t n;

	if (poll(&p, 1, c->o->timeout_ms) <= 0)
		return -1;
	if (c->o->proto == PROTO_MEMCACHE) {
		long last;

		n = recv(c->fd, buf, sizeof(buf), 0);
		if (n <= 0)
			return -1;
		last = memcache_replies(c, buf, n);
		/* No reply complete yet: not a timeout. */
		return last >= 0 ? last : -2;
	}
	if (c->o->tcp)
		n = read_full(c->fd, buf, c->o->size) ? -1 : (ssize_t)c->o->size;
	else
		n = recv(c->fd, buf, sizeof(buf), 0);
	if (n < (ssize_t)sizeof(seq))
		return -1;
	memcpy(&seq, buf, sizeof(seq));
	if (seq >= c->o->count)
		return -1;
	if (!c->lat[seq]) {
		c->lat[seq] = now_ns() - c->sent_at[seq];
		c->received++;
	}
	return seq;
}

/* Open loop: collect replies until all came or the timeout passed. */
static void *collect(void *arg)
{
	struct client *c = arg;

	while (c->received < c->o->count && recv_reply(c) != -1)
		;
	return NULL;
}

static int send_req(struct client *c, uint64_t seq)
{
	char buf[MAX_SIZE];

	if (c->o->proto == PROTO_MEMCACHE) {
		int len = snprintf(buf, sizeof(buf), "get key%lu\r\n",
				   (unsigned long)(seq % 1000));

		c->sent_at[seq] = now_ns();
		return send(c->fd, buf, len, 0) == len ? 0 : -1;
	}
	memset(buf, 0, c->o->size);
	memcpy(buf, &seq, sizeof(seq));
	c->sent_at[seq] = now_ns();
	if (c->o->split) {
		size_t half = c->o->size / 2;

		/* Two writes: Nagle holds the second while the first is in flight. */
		if (send(c->fd, buf, half, 0) != (ssize_t)half)
			return -1;
		return send(c->fd, buf + half, c->o->size - half, 0) ==
		       (ssize_t)(c->o->size - half) ? 0 : -1;
	}
	return send(c->fd, buf, c->o->size, 0) == (ssize_t)c->o->size ? 0 : -1;
}

/* Exponential gaps from a seeded generator: Poisson arrivals. */
static uint64_t next_gap_ns(double rate, unsigned short xsubi[3])
{
	double u = erand48(xsubi);

	return (uint64_t)(-log(1.0 - u) / rate * 1e9);
}

static int run_client(const struct opts *o)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(o->port) };
	struct client c = { .o = o };
	unsigned short xsubi[3] = { o->seed, o->seed >> 16, 0x330e };
	unsigned long i, n = 0;
	uint64_t *sorted;
	int one = 1;

	if (inet_pton(AF_INET, o->addr, &sin.sin_addr) != 1) {
		fprintf(stderr, "msgload: bad address %s\n", o->addr);
		return 2;
	}
	c.fd = socket(AF_INET, o->tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
	if (c.fd < 0 || set_rcvbuf(c.fd, o->rcvbuf) ||
	    connect(c.fd, (struct sockaddr *)&sin, sizeof(sin))) {
		perror("msgload: connect");
		return 1;
	}
	if (o->tcp && !o->split)
		setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c.sent_at = calloc(o->count, sizeof(*c.sent_at));
	c.lat = calloc(o->count, sizeof(*c.lat));
	sorted = calloc(o->count, sizeof(*sorted));
	if (!c.sent_at || !c.lat || !sorted)
		return 1;

	if (o->rate > 0) {
		pthread_t t;
		uint64_t next = now_ns();

		if (pthread_create(&t, NULL, collect, &c))
			return 1;
		for (i = 0; i < o->count; i++) {
			next += next_gap_ns(o->rate, xsubi);
			sleep_until(next);
			if (send_req(&c, i))
				perror("msgload: send");
		}
		pthread_join(t, NULL);
	} else {
		for (i = 0; i < o->count; i++) {
			long r;

			if (send_req(&c, i)) {
				perror("msgload: send");
				break;
			}
			/* A slow reader now and then. */
			if (o->slow_us && i % 10 == 9)
				usleep(o->slow_us);
			/* Closed loop: until this reply (or a timeout). */
			do
				r = recv_reply(&c);
			while (r != -1 && r != (long)i);
			if (o->gap_us)
				usleep(o->gap_us);
		}
	}
	for (i = 0; i < o->count; i++)
		if (c.lat[i])
			sorted[n++] = c.lat[i];
	qsort(sorted, n, sizeof(*sorted), cmp_u64);
	printf("sent %lu received %lu", o->count, n);
	if (n) {
		/* Nearest rank. */
		static const double q[] = { 50, 90, 99, 99.9 };
		static const char *const name[] = { "p50", "p90", "p99", "p999" };

		for (i = 0; i < 4; i++) {
			unsigned long r = (unsigned long)ceil(q[i] / 100 * n);

			printf(" %s_us %.1f", name[i],
			       sorted[(r ? r : 1) - 1] / 1000.0);
		}
		printf(" max_us %.1f", sorted[n - 1] / 1000.0);
	}
	printf("\n");
	free(c.sent_at);
	free(c.lat);
	free(sorted);
	close(c.fd);
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: msgload server -p udp|tcp -P PORT [-n COUNT] [-w WORK_US] [-b BATCH] [-t TOUCH_KB [-R]] [-s SEED]\n"
		"                      [-L HOLD_US [-I EVERY_US] [-C CPU]] [-B RCVBUF]\n"
		"       msgload client -p udp|tcp|memcache -a ADDR -P PORT -n COUNT [-r RATE] [-s SEED] [-S SIZE] [-T TIMEOUT_MS] [-g GAP_US] [-W]\n"
		"                      [-B RCVBUF] [-D SLOW_US]\n");
	return 2;
}

static int num(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno || end == s || *end || *v > max ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .size = 64, .seed = 1, .timeout_ms = 5000, .hold_every_us = 1000 };
	unsigned long v;
	int server, c;

	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "server"))
		server = 1;
	else if (!strcmp(argv[1], "client"))
		server = 0;
	else
		return usage();
	optind = 2;
	while ((c = getopt(argc, argv, "p:a:P:n:w:b:t:Rr:s:S:T:g:L:I:C:WB:D:")) != -1) {
		switch (c) {
		case 'p':
			if (!strcmp(optarg, "udp"))
				o.proto = PROTO_UDP;
			else if (!strcmp(optarg, "tcp"))
				o.proto = PROTO_TCP;
			else if (!strcmp(optarg, "memcache"))
				o.proto = PROTO_MEMCACHE;
			else
				return usage();
			o.tcp = o.proto != PROTO_UDP;
			break;
		case 'R':
			o.random_touch = 1;
			break;
		case 'a':
			o.addr = optarg;
			break;
		case 'P':
			if (num(optarg, 65535, &v) || !v)
				return usage();
			o.port = v;
			break;
		case 'n':
			if (num(optarg, 100000000, &o.count))
				return usage();
			break;
		case 'w':
			if (num(optarg, 10000000, &o.work_us))
				return usage();
			break;
		case 'b':
			if (num(optarg, 4096, &o.batch))
				return usage();
			break;
		case 'B':
			if (num(optarg, 1 << 30, &o.rcvbuf))
				return usage();
			break;
		case 'D':
			if (num(optarg, 10000000, &o.slow_us))
				return usage();
			break;
		case 't':
			if (num(optarg, 1 << 20, &o.touch_kb))
				return usage();
			break;
		case 'r':
			if (num(optarg, 10000000, &v) || !v)
				return usage();
			o.rate = v;
			break;
		case 's':
			if (num(optarg, 0xffffffff, &o.seed))
				return usage();
			break;
		case 'S':
			if (num(optarg, MAX_SIZE, &o.size) || o.size < 8)
				return usage();
			break;
		case 'T':
			if (num(optarg, 3600000, &o.timeout_ms))
				return usage();
			break;
		case 'g':
			if (num(optarg, 10000000, &o.gap_us))
				return usage();
			break;
		case 'L':
			if (num(optarg, 10000000, &o.hold_us))
				return usage();
			break;
		case 'I':
			if (num(optarg, 10000000, &o.hold_every_us) || !o.hold_every_us)
				return usage();
			break;
		case 'C':
			if (num(optarg, CPU_SETSIZE - 1, &o.hold_cpu))
				return usage();
			break;
		case 'W':
			o.split = 1;
			break;
		default:
			return usage();
		}
	}
	if (optind != argc || !o.port || (o.split && (server || o.proto != PROTO_TCP)))
		return usage();
	if (server && o.proto == PROTO_MEMCACHE)
		return usage();
	if (server)
		return run_server(&o);
	if (!o.addr || !o.count)
		return usage();
	return run_client(&o);
}
