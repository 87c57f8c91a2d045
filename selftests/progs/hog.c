// SPDX-License-Identifier: GPL-2.0
/*
 * hog [NICE [SECONDS [BUSY_US PERIOD_US]]]: burn CPU in a loop at nice
 * level NICE (default 0) for SECONDS (0 or none: until killed): a CPU hog
 * with a known name for nsight's diagnosis scenarios. With BUSY_US and
 * PERIOD_US it burns BUSY_US of every PERIOD_US and sleeps the rest, a
 * periodic batch job rather than one that takes every spare cycle. Pin it
 * with taskset.
 *
 * Every turn of the loop executes a PAUSE, as the kernel's cpu_relax()
 * does. Under QEMU's single-threaded TCG the vCPUs take turns on one host
 * thread, and a vCPU leaves its turn early only on an exit such as PAUSE
 * or HLT: a plain counting loop keeps it for its whole instruction budget
 * (with -icount, half the time to the next timer deadline), and the other
 * vCPU, the one receiving the packets, stands still for up to that long
 * mid-softirq. The guest sees that as slow receive processing on the
 * other core, a cost two real cores do not have; with the PAUSE the hog
 * only takes its own core, as it would on hardware.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

int main(int argc, char **argv)
{
	long prio = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
	unsigned long secs = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;
	long busy = argc > 4 ? strtol(argv[3], NULL, 10) : 0;
	long period = argc > 4 ? strtol(argv[4], NULL, 10) : 0;
	volatile unsigned long n = 0;
	time_t end = time(NULL) + (time_t)secs;
	long long next = now_us();

	if (argc > 5 || argc == 4 || prio < -20 || prio > 19 ||
	    busy < 0 || period < 0 || busy > period || (argc > 4 && !busy)) {
		fprintf(stderr, "usage: hog [NICE [SECONDS [BUSY_US PERIOD_US]]]\n");
		return 2;
	}
	if (setpriority(PRIO_PROCESS, 0, (int)prio)) {
		perror("hog: setpriority");
		return 1;
	}
	for (;;) {
		unsigned int i;

		if (period) {
			struct timespec ts;
			long long left;

			while (now_us() < next + busy) {
				n++;
				relax();
			}
			next += period;
			left = next - now_us();
			if (left > 0) {
				ts.tv_sec = left / 1000000;
				ts.tv_nsec = left % 1000000 * 1000;
				nanosleep(&ts, NULL);
			} else {
				next = now_us();	/* overran: start afresh */
			}
		} else {
			for (i = 0; i < 1000000; i++) {
				n++;
				relax();
			}
		}
		if (secs && time(NULL) >= end)
			break;
	}
	return 0;
}
