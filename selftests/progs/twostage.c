// SPDX-License-Identifier: GPL-2.0
/*
 * twostage: a two-stage UDP echo server that marks its requests with
 * nsight_request.h, for nsight's guest tests and benchmarks.
 *
 *   twostage server -P PORT [-n COUNT] [-w WORK_US] [-c RECV_CPU] [-C WORK_CPU]
 *       The main thread receives each datagram, marks the request begun
 *       and handed off, and queues it; the worker thread "ts-work"
 *       takes it up (marked resumed), spins WORK_US (default 20), echoes
 *       it and marks it ended. -c and -C pin the two threads. Prints
 *       "listening PORT pid PID", and "served N marks-failed F" after COUNT
 *       requests (default: never exits).
 *
 *   twostage probe
 *       The ioctl's answers on /dev/nsight, one line each: "unknown-op
 *       ERRNO", "flags ERRNO", "command ERRNO", "mark ERRNO|ok" (a valid
 *       mark: ok while a capture with the request source runs), "state N"
 *       (the mapped page's capturing), "writable-map ERRNO|ok".
 *
 *   twostage bench -n COUNT
 *       COUNT begin/end pairs of marks; prints "marks N ns-per-mark X ok K
 *       syscall-ns Y": X from CLOCK_MONOTONIC, K marks recorded, Y the
 *       time of one getppid() (the cheapest system call) for comparison.
 *
 * Exit 0 on success, 1 on a runtime error, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <nsight_request.h>

#define QLEN	256
#define MAXLEN	1500

struct req {
	uint64_t id;
	struct sockaddr_in from;
	size_t len;
	char buf[MAXLEN];
};

static struct req queue[QLEN];
static size_t q_head, q_tail;
static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_cond = PTHREAD_COND_INITIALIZER;
static pthread_cond_t q_room = PTHREAD_COND_INITIALIZER;
static int sock = -1, work_cpu = -1;
static long work_us = 20, count;
static unsigned long failed;

static int usage(void)
{
	fprintf(stderr, "usage: twostage server -P PORT [-n COUNT] [-w WORK_US] [-c RECV_CPU] [-C WORK_CPU]\n"
			"       twostage probe\n"
			"       twostage bench -n COUNT\n");
	return 2;
}

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("twostage: sched_setaffinity");
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void spin_us(long us)
{
	uint64_t end = now_ns() + (uint64_t)us * 1000;

	while (now_ns() < end)
		;
}

static void mark(int rc)
{
	if (rc)
		__atomic_fetch_add(&failed, 1, __ATOMIC_RELAXED);
}

static void *worker(void *arg)
{
	long served = 0;

	(void)arg;
	prctl(PR_SET_NAME, "ts-work");
	pin(work_cpu);
	for (;;) {
		struct req r;

		pthread_mutex_lock(&q_lock);
		while (q_head == q_tail)
			pthread_cond_wait(&q_cond, &q_lock);
		r = queue[q_tail % QLEN];
		q_tail++;
		pthread_cond_signal(&q_room);
		pthread_mutex_unlock(&q_lock);
		mark(nsight_request_resume(r.id));
		spin_us(work_us);
		if (sendto(sock, r.buf, r.len, 0, (struct sockaddr *)&r.from, sizeof(r.from)) < 0)
			perror("twostage: sendto");
		mark(nsight_request_end(r.id));
		if (count && ++served == count) {
			printf("served %ld marks-failed %lu\n", served,
			       __atomic_load_n(&failed, __ATOMIC_RELAXED));
			fflush(stdout);
			exit(0);
		}
	}
	return NULL;
}

static int server(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int port = 0, recv_cpu = -1, opt;
	pthread_t t;
	uint64_t id = 0;

	while ((opt = getopt(argc, argv, "P:n:w:c:C:")) != -1) {
		switch (opt) {
		case 'P': port = atoi(optarg); break;
		case 'n': count = atol(optarg); break;
		case 'w': work_us = atol(optarg); break;
		case 'c': recv_cpu = atoi(optarg); break;
		case 'C': work_cpu = atoi(optarg); break;
		default: return usage();
		}
	}
	if (port <= 0 || port > 65535 || work_us < 0 || count < 0)
		return usage();
	pin(recv_cpu);
	sock = socket(AF_INET, SOCK_DGRAM, 0);
	a.sin_port = htons((uint16_t)port);
	if (sock < 0 || bind(sock, (struct sockaddr *)&a, sizeof(a))) {
		perror("twostage: socket");
		return 1;
	}
	if (pthread_create(&t, NULL, worker, NULL)) {
		fprintf(stderr, "twostage: pthread_create failed\n");
		return 1;
	}
	printf("listening %d pid %d\n", port, getpid());
	fflush(stdout);
	for (;;) {
		struct req *r;
		socklen_t sl = sizeof(r->from);
		ssize_t n;

		pthread_mutex_lock(&q_lock);
		while (q_head - q_tail == QLEN)
			pthread_cond_wait(&q_room, &q_lock);
		r = &queue[q_head % QLEN];
		pthread_mutex_unlock(&q_lock);
		/* Only this thread writes the slot at q_head. */
		n = recvfrom(sock, r->buf, sizeof(r->buf), 0, (struct sockaddr *)&r->from, &sl);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("twostage: recvfrom");
			return 1;
		}
		r->len = (size_t)n;
		r->id = ++id;
		mark(nsight_request_begin(r->id));
		/* Before the worker can see it: its resume comes after. */
		mark(nsight_request_handoff(id));
		pthread_mutex_lock(&q_lock);
		q_head++;
		pthread_cond_signal(&q_cond);
		pthread_mutex_unlock(&q_lock);
	}
}

static const char *err_name(int rc)
{
	return rc ? strerrorname_np(errno) : "ok";
}

static int probe(void)
{
	struct nsight_request_arg arg = { .id = 1, .op = 0 };
	int fd = open(NSIGHT_REQUEST_DEVICE, O_RDONLY | O_CLOEXEC);
	const struct nsight_request_state *st;
	void *w;
	int rc;

	if (fd < 0) {
		perror("twostage: " NSIGHT_REQUEST_DEVICE);
		return 1;
	}
	rc = ioctl(fd, NSIGHT_IOC_REQUEST, &arg);
	printf("unknown-op %s\n", err_name(rc));
	arg.op = NSIGHT_REQ_BEGIN;
	arg.flags = 1;
	rc = ioctl(fd, NSIGHT_IOC_REQUEST, &arg);
	printf("flags %s\n", err_name(rc));
	arg.flags = 0;
	rc = ioctl(fd, _IOW(NSIGHT_IOC_MAGIC, 2, struct nsight_request_arg), &arg);
	printf("command %s\n", err_name(rc));
	rc = ioctl(fd, NSIGHT_IOC_REQUEST, &arg);
	printf("mark %s\n", err_name(rc));
	st = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	if (st == MAP_FAILED)
		printf("state %s\n", strerrorname_np(errno));
	else
		printf("state %u\n", st->capturing);
	close(fd);
	/* Writable: from a descriptor open for writing, or the VFS says EACCES first. */
	fd = open(NSIGHT_REQUEST_DEVICE, O_RDWR | O_CLOEXEC);
	w = fd < 0 ? MAP_FAILED :
		mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	printf("writable-map %s\n", w == MAP_FAILED ? strerrorname_np(errno) : "ok");
	if (fd >= 0)
		close(fd);
	return 0;
}

static int bench(int argc, char **argv)
{
	long n = 0, i, ok = 0, getppid_sum = 0;
	uint64_t t0, t1;
	int opt;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n')
			return usage();
		n = atol(optarg);
	}
	if (n <= 0)
		return usage();
	nsight_request_begin(0);	/* opens the device outside the timing */
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		ok += !nsight_request_begin((uint64_t)i);
		ok += !nsight_request_end((uint64_t)i);
	}
	t1 = now_ns();
	for (i = 0; i < 2 * n; i++)
		getppid_sum += syscall(SYS_getppid);
	printf("marks %ld ns-per-mark %.1f ok %ld syscall-ns %.1f\n", 2 * n,
	       (double)(t1 - t0) / (double)(2 * n), ok,
	       (double)(now_ns() - t1) / (double)(2 * n));
	return getppid_sum < 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "server"))
		return server(argc - 1, argv + 1);
	if (!strcmp(argv[1], "probe") && argc == 2)
		return probe();
	if (!strcmp(argv[1], "bench"))
		return bench(argc - 1, argv + 1);
	return usage();
}
