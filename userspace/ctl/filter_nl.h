/* SPDX-License-Identifier: MIT */
/* The filter as an NSIGHT_A_FILTER nest (SET_CONFIG, GET_STATUS). */
#ifndef NSIGHTCTL_FILTER_NL_H
#define NSIGHTCTL_FILTER_NL_H

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "base/diag.h"
#include "format/filter.h"

/*
 * Append NSIGHT_A_FILTER holding @f's entries to @msg: ports, then
 * addresses, interface indexes and pids. An empty filter is an empty nest
 * (built by hand: nla_nest_end() would drop it). Returns 0 or -ENOMEM.
 */
int nsight_filter_put(struct nl_msg *msg, const struct nsight_filter *f);

/*
 * Read the entries of an NSIGHT_A_FILTER nest into @f (emptied first);
 * IPv4-mapped addresses (the kernel sends every address as 16 bytes) become
 * IPv4 ones.
 * Wrong lengths (port 2 bytes, addr 4 or 16, ifindex and pid 4) and more
 * than NSIGHT_FILTER_MAX entries of a kind are -EINVAL with @d filled;
 * entry types this tool does not know are ignored. @what prefixes messages
 * ("GET_STATUS reply").
 */
int nsight_filter_parse_nest(const struct nlattr *nest, struct nsight_filter *f,
			     const char *what, struct nsight_diag *d);

#endif /* NSIGHTCTL_FILTER_NL_H */
