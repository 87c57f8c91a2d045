/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Capture filters: which network events are recorded.
 */
#ifndef _NSIGHT_FILTER_H
#define _NSIGHT_FILTER_H

#include <linux/types.h>
#include <linux/in6.h>
#include <linux/nsight.h>

/*
 * Each kind with entries must match; within a kind any entry matches.
 * Addresses are IPv6 or IPv4-mapped, as in records.
 */
struct nsight_filter {
	u8 nports;
	u8 naddrs;
	u8 nifindex;
	u8 npids;
	u16 ports[NSIGHT_FILTER_MAX];
	struct in6_addr addrs[NSIGHT_FILTER_MAX];
	u32 ifindex[NSIGHT_FILTER_MAX];
	u32 pids[NSIGHT_FILTER_MAX];
};

/* The filter of the capture; changed only while no capture runs. */
extern struct nsight_filter nsight_filter;

bool nsight_filter_flow(const struct nsight_filter *f,
			const struct nsight_flow *flow);
bool nsight_filter_ifindex(const struct nsight_filter *f, u32 ifindex);
bool nsight_filter_pid(const struct nsight_filter *f, u32 pid);
bool nsight_filter_empty(const struct nsight_filter *f);

/*
 * What the hooks call: the capture's filter, with the test for an empty
 * kind inline (most captures have no filter).
 */
/* Whether the filter looks at flows (ports or addresses). */
static __always_inline bool nsight_filter_flows(void)
{
	return nsight_filter.nports | nsight_filter.naddrs;
}

static __always_inline bool nsight_filter_ok_flow(const struct nsight_flow *flow)
{
	return !nsight_filter_flows() ||
	       nsight_filter_flow(&nsight_filter, flow);
}

static __always_inline bool nsight_filter_ok_ifindex(u32 ifindex)
{
	return !nsight_filter.nifindex ||
	       nsight_filter_ifindex(&nsight_filter, ifindex);
}

static __always_inline bool nsight_filter_ok_pid(u32 pid)
{
	return !nsight_filter.npids || nsight_filter_pid(&nsight_filter, pid);
}

int nsight_filter_parse(const char *buf, struct nsight_filter *f);
int nsight_filter_format(const struct nsight_filter *f, char *buf,
			 size_t size);

#endif /* _NSIGHT_FILTER_H */
