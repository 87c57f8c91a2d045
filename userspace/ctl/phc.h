/* SPDX-License-Identifier: MIT */
/*
 * PTP hardware clocks (PHCs) against CLOCK_REALTIME, for the dump's PHC
 * chunk: every /sys/class/ptp/ptpN, its NIC(s) from ptpN/device/net/, and
 * readings of /dev/ptpN through PTP_SYS_OFFSET_PRECISE or, failing that,
 * PTP_SYS_OFFSET_EXTENDED.
 *
 * The roots, the interface lookup and the reading itself are parameters so
 * tests run the enumeration on a fake tree. Nothing here is fatal: a clock
 * that cannot be read is skipped with a warning.
 */
#ifndef NSIGHTCTL_PHC_H
#define NSIGHTCTL_PHC_H

#include <stddef.h>
#include <stdint.h>
#include <linux/nsight.h>

#include "base/diag.h"
#include "format/filter.h"

/* Readings taken per clock with PTP_SYS_OFFSET_EXTENDED. */
#define NSIGHT_PHC_EXTENDED_SAMPLES	5
/* Most readings a sample function may return for one clock. */
#define NSIGHT_PHC_MAX_PER_CLOCK	8

/*
 * Read the clock open as @fd into @out (room for @max): fill method,
 * sys_before_ns, phc_ns and sys_after_ns; the caller fills the rest.
 * Returns the number of readings (1..@max), or a negative errno with the
 * reason in @why.
 */
typedef int (*nsight_phc_sample_fn)(int fd, struct nsight_phc_sample *out, size_t max,
				    char *why, size_t whylen);

/* The real one: one PRECISE reading, else NSIGHT_PHC_EXTENDED_SAMPLES EXTENDED ones. */
int nsight_phc_sample_ioctl(int fd, struct nsight_phc_sample *out, size_t max,
			    char *why, size_t whylen);

struct nsight_phc_opts {
	const char *sysfs;		/* NULL: "/sys" */
	const char *dev;		/* NULL: "/dev" */
	nsight_phc_sample_fn sample;	/* NULL: nsight_phc_sample_ioctl */
	nsight_ifname_fn ifindex;	/* NULL: if_nametoindex */
	/* Called with each warning ("skipping ptp1 (eth2): ..."); may be NULL. */
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
};

struct nsight_phc_set {
	struct nsight_phc_sample *samples;
	size_t n;
	uint32_t clocks;		/* clocks read */
	uint32_t skipped;		/* clocks skipped with a warning */
};

/*
 * Read every PHC: for clock N with NICs I1, I2, ... under device/net/ the
 * readings appear once per NIC (same times, that NIC's ifname and ifindex),
 * else once with ifname "" and ifindex 0. Clocks in index order, NICs by
 * name. No <sysfs>/class/ptp: no clocks, no warning. Returns 0, or -ENOMEM
 * with @d filled; free @set with nsight_phc_set_free() either way.
 */
int nsight_phc_collect(const struct nsight_phc_opts *o, struct nsight_phc_set *set,
		       struct nsight_diag *d);
void nsight_phc_set_free(struct nsight_phc_set *set);

#endif /* NSIGHTCTL_PHC_H */
