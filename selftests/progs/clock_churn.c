// SPDX-License-Identifier: GPL-2.0
/*
 * clock_churn SECONDS [CHANGES]: keep changing CLOCK_REALTIME for SECONDS,
 * or until CHANGES changes were made, or until SIGTERM/SIGINT, as NTP and an
 * operator would: adjtimex frequency changes (+-100 ppm), offset slews
 * (ADJ_OFFSET, nanoseconds) and forward steps of 1 ms (ADJ_SETOFFSET), in
 * turn, every 500 us. Steps go forward only: a backward step makes the
 * measured clock itself go back, which no conversion can hide; and they are
 * relative, so a task preempted around the step cannot turn it into a
 * backward one. Restores the frequency at the end and prints "changes N".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	unsigned long secs, max_changes = ~0UL, changes = 0, failed = 0;
	struct timespec start, now;
	unsigned int seed = 1;
	char *end;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: clock_churn SECONDS [CHANGES]\n");
		return 2;
	}
	secs = strtoul(argv[1], &end, 10);
	if (*end || !secs || secs > 3600) {
		fprintf(stderr, "clock_churn: bad duration %s\n", argv[1]);
		return 2;
	}
	if (argc == 3) {
		max_changes = strtoul(argv[2], &end, 10);
		if (*end || !max_changes) {
			fprintf(stderr, "clock_churn: bad count %s\n", argv[2]);
			return 2;
		}
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		struct timex tx;
		int ret;

		memset(&tx, 0, sizeof(tx));
		switch (changes % 3) {
		case 0:
			tx.modes = ADJ_FREQUENCY;
			/* ppm with a 16-bit fraction */
			tx.freq = ((long)(rand_r(&seed) % 201) - 100) << 16;
			ret = adjtimex(&tx);
			break;
		case 1:
			tx.modes = ADJ_OFFSET | ADJ_NANO | ADJ_STATUS;
			tx.status = STA_PLL | STA_NANO;
			tx.offset = (long)(rand_r(&seed) % 2000001) - 1000000;
			ret = adjtimex(&tx);
			break;
		default:
			tx.modes = ADJ_SETOFFSET | ADJ_NANO;
			tx.time.tv_sec = 0;
			tx.time.tv_usec = 1000000;	/* ns with ADJ_NANO */
			ret = adjtimex(&tx);
			break;
		}
		if (ret < 0)
			failed++;
		else
			changes++;
		if (failed > 100) {
			fprintf(stderr, "clock_churn: %s\n", strerror(errno));
			return 1;
		}
		usleep(500);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (!stop && changes < max_changes &&
		 (unsigned long)(now.tv_sec - start.tv_sec) < secs);
	{
		struct timex tx = { .modes = ADJ_FREQUENCY | ADJ_STATUS,
				    .status = 0 };

		adjtimex(&tx);
	}
	printf("changes %lu\n", changes);
	return 0;
}
