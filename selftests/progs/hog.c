// SPDX-License-Identifier: GPL-2.0
/*
 * hog [SECONDS]: burn CPU in a loop (for SECONDS, default until killed), a
 * CPU hog with a known name for nsight's diagnosis scenarios. Pin it with
 * taskset and give it a priority with nice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	unsigned long secs = argc > 1 ? strtoul(argv[1], NULL, 10) : 0;
	volatile unsigned long n = 0;
	time_t end = time(NULL) + (time_t)secs;

	if (argc > 2) {
		fprintf(stderr, "usage: hog [SECONDS]\n");
		return 2;
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
