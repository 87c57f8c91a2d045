// SPDX-License-Identifier: GPL-2.0
/*
 * run_as UID CMD [ARGS...]: run CMD as an unprivileged user (uid and gid
 * UID, no supplementary groups, no capabilities), for permission tests.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *end;
	long id;

	if (argc < 3) {
		fprintf(stderr, "usage: run_as UID CMD [ARGS...]\n");
		return 2;
	}
	id = strtol(argv[1], &end, 10);
	if (*end || id <= 0) {
		fprintf(stderr, "run_as: bad uid %s\n", argv[1]);
		return 2;
	}
	if (setgroups(0, NULL) || setgid(id) || setuid(id)) {
		perror("run_as");
		return 1;
	}
	execvp(argv[2], argv + 2);
	perror("run_as: exec");
	return 127;
}
