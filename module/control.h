/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Capture control: start, stop and configuration, shared by sysfs and
 * netlink.
 */
#ifndef _NSIGHT_CONTROL_H
#define _NSIGHT_CONTROL_H

#include <linux/types.h>

struct netlink_ext_ack;

#include "filter.h"

struct nsight_config {
	u32 sources;
	u32 buffer_size;
	u32 sample_period;	/* ns */
};

/* A configuration change: what is not NULL is set. */
struct nsight_config_req {
	const u32 *sources;
	const u32 *buffer_size;
	const u32 *sample_period;
	const struct nsight_filter *filter;
	const bool *profile;
};

/* The state a status report needs, taken under the control lock. */
struct nsight_status {
	bool enabled;
	struct nsight_config config;
	u32 subbuf_size;
	u32 n_subbufs;
	u64 clock_hz;
	u64 probes_missed;
	struct nsight_filter filter;
	bool profile;
};

int nsight_control_init(void);
void nsight_control_shutdown(void);
void nsight_control_exit(void);

int nsight_start(void);
int nsight_stop(void);
int nsight_set_config(const struct nsight_config_req *req,
		      struct netlink_ext_ack *extack);
void nsight_get_status(struct nsight_status *st);

int nsight_sources_parse(const char *buf, u32 *mask);
int nsight_sources_format(u32 mask, char *buf, size_t size);

#endif /* _NSIGHT_CONTROL_H */
