// SPDX-License-Identifier: GPL-2.0
/*
 * hog [NICE [SECONDS]]: burn CPU in a loop at nice level NICE (default 0)
 * for SECONDS (default until killed): a CPU hog with a known name for
 * nsight's diagnosis scenarios. Pin it with taskset.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

int main(int argc, char **argv)
{
	long prio = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
	unsigned long secs = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;
	volatile unsigned long n = 0;
	time_t end = time(NULL) + (time_t)secs;

	if (argc > 3 || prio < -20 || prio > 19) {
		fprintf(stderr, "usage: hog [NICE [SECONDS]]\n");
		return 2;
	}
	if (setpriority(PRIO_PROCESS, 0, (int)prio)) {
		perror("hog: setpriority");
		return 1;
	}
	for (;;) {
		unsigned int i;

		for (i = 0; i < 1000000; i++)
			n++;
		if (secs && time(NULL) >= end)
			break;
	}
	return 0;
}
