/* SPDX-License-Identifier: MIT */
/*
 * A fake HTTP server on a loopback port for the tests of the ClickHouse
 * client (test_chexport, test_chfleet): a child process that answers
 * every connection with the same bytes, or never, or some requests as
 * scripted.
 */
#ifndef NSIGHT_TEST_FAKEHTTP_H
#define NSIGHT_TEST_FAKEHTTP_H

#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* Read a request from @c into @buf: its head, and its body up to Content-Length. */
static inline size_t fake_http_read(int c, char *buf, size_t cap)
{
	size_t len = 0, want = 0;
	const char *head_end, *cl;
	ssize_t n;

	while (len + 1 < cap && (n = read(c, buf + len, cap - 1 - len)) > 0) {
		len += (size_t)n;
		buf[len] = '\0';
		head_end = strstr(buf, "\r\n\r\n");
		if (!head_end)
			continue;
		cl = strcasestr(buf, "\r\nContent-Length:");
		want = (size_t)(head_end + 4 - buf) + (cl && cl < head_end ? strtoul(cl + 17, NULL, 10) : 0);
		if (len >= want)
			break;
	}
	return len;
}

/*
 * A scripted answer: to the first request (in the order they come) that
 * contains @when, once; @answer NULL: read it and never answer (the
 * connection is left open, the next one accepted).
 */
struct fake_reply {
	const char *when;
	const char *answer;
};

/*
 * Listen on a loopback port (into *@port) and answer each connection with
 * the first unused of the @n @replies whose "when" its request contains,
 * else with @answer (NULL: read and never answer), writing the last
 * request to @save if not NULL. Returns the child's pid, or -1.
 */
static inline pid_t fake_http_script(const struct fake_reply *replies, size_t n,
				     const char *answer, const char *save, unsigned int *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	pid_t pid;

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 8) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len))
		return -1;
	*port = ntohs(sa.sin_port);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		static char buf[1 << 20];
		static bool used[64];

		for (;;) {
			int c = accept(fd, NULL, NULL);
			const char *a = answer;
			size_t len, i;
			FILE *f;

			if (c < 0)
				_exit(0);
			len = fake_http_read(c, buf, sizeof(buf));
			if (save && (f = fopen(save, "wb"))) {
				fwrite(buf, 1, len, f);
				fclose(f);
			}
			for (i = 0; i < n && i < 64; i++)
				if (!used[i] && strstr(buf, replies[i].when)) {
					used[i] = true;
					a = replies[i].answer;
					break;
				}
			/* Never answered: left open until the parent kills us. */
			if (!a)
				continue;
			if (write(c, a, strlen(a)) < 0)
				_exit(0);
			close(c);
		}
	}
	close(fd);
	return pid;
}

/* Each connection answered with @answer (NULL: never), the last request to @save. */
static inline pid_t fake_http(const char *answer, const char *save, unsigned int *port)
{
	return fake_http_script(NULL, 0, answer, save, port);
}

static inline void fake_http_stop(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

#endif /* NSIGHT_TEST_FAKEHTTP_H */
