/* SPDX-License-Identifier: MIT */
/*
 * nsight_request.h: mark the requests an application handles, so that
 * nsight-analyze follows each one from the thread that received it to the
 * thread that answers it (nsight.rst "Requests across threads").
 *
 *   receiving thread                     worker thread
 *   recv(fd, ...)                        id = dequeue();
 *   nsight_request_begin(id);            nsight_request_resume(id);
 *   nsight_request_handoff(id);          ... work ...
 *   enqueue(id);                         send(fd, response, ...);
 *                                        nsight_request_end(id);
 *
 * begin names the message this thread received last as the request's;
 * end names this thread's latest send as its response. Mark the hand-off
 * before the other thread can see the request, so that its resume comes
 * after it. @id is any number
 * unique among the process's requests in flight (a sequence number, a
 * pointer). Each call is one ioctl on /dev/nsight while a capture with the
 * "request" source runs; when none does, a load from the page the device
 * maps says so and the call returns without a system call. Without the
 * module a call costs a time() (the device is tried again at most once a
 * second). Once open, the device stays open and mapped for the life of
 * the process (closing it under other threads' feet could hand them a
 * reused descriptor), which holds the module: rmmod says it is in use
 * while such a process runs. Thread-safe; header-only (C99 and later, C++;
 * GCC or Clang, for the __atomic builtins).
 * Returns 0 if the mark was recorded, -1 otherwise (errno as the ioctl's:
 * ENODATA no capture, ENOSPC the buffer was full; ENODEV when the device
 * could not be opened).
 */
#ifndef NSIGHT_REQUEST_H
#define NSIGHT_REQUEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/nsight.h>

#define NSIGHT_REQUEST_DEVICE	"/dev/nsight"

/* -1 until opened; no attempt to open it before the second in _retry_. */
static int nsight_request_fd_ = -1;
static time_t nsight_request_retry_;
/* The device's state page, set before the descriptor (NULL: not mapped). */
static const volatile struct nsight_request_state *nsight_request_state_;

static inline int nsight_request_get_fd_(void)
{
	int fd = __atomic_load_n(&nsight_request_fd_, __ATOMIC_ACQUIRE);
	int none = -1;
	time_t now;

	if (fd >= 0)
		return fd;
	now = time(NULL);
	if (now < __atomic_load_n(&nsight_request_retry_, __ATOMIC_RELAXED))
		return -1;
	__atomic_store_n(&nsight_request_retry_, now + 1, __ATOMIC_RELAXED);
#ifdef O_CLOEXEC
	fd = open(NSIGHT_REQUEST_DEVICE, O_RDONLY | O_CLOEXEC);
#else	/* strict C without POSIX 2008 */
	fd = open(NSIGHT_REQUEST_DEVICE, O_RDONLY);
	if (fd >= 0)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
#endif
	if (fd < 0)
		return -1;
	if (__atomic_compare_exchange_n(&nsight_request_fd_, &none, fd, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		/* Once per process: the winner maps the page; no page, every mark asks. */
		void *p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);

		if (p != MAP_FAILED)
			__atomic_store_n(&nsight_request_state_,
					 (const volatile struct nsight_request_state *)p,
					 __ATOMIC_RELEASE);
		return fd;
	}
	close(fd);	/* another thread opened it first */
	return none;
}

static inline int nsight_request_mark(uint64_t id, uint32_t op)
{
	const volatile struct nsight_request_state *st =
		__atomic_load_n(&nsight_request_state_, __ATOMIC_ACQUIRE);
	struct nsight_request_arg a;
	int fd;

	if (st && !st->capturing) {
		errno = ENODATA;
		return -1;
	}
	fd = nsight_request_get_fd_();

	if (fd < 0) {
		errno = ENODEV;
		return -1;
	}
	a.id = id;
	a.op = op;
	a.flags = 0;
	return ioctl(fd, NSIGHT_IOC_REQUEST, &a) == 0 ? 0 : -1;
}

static inline int nsight_request_begin(uint64_t id)
{
	return nsight_request_mark(id, NSIGHT_REQ_BEGIN);
}

static inline int nsight_request_handoff(uint64_t id)
{
	return nsight_request_mark(id, NSIGHT_REQ_HANDOFF);
}

static inline int nsight_request_resume(uint64_t id)
{
	return nsight_request_mark(id, NSIGHT_REQ_RESUME);
}

static inline int nsight_request_end(uint64_t id)
{
	return nsight_request_mark(id, NSIGHT_REQ_END);
}

#endif /* NSIGHT_REQUEST_H */
