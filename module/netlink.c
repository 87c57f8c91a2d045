// SPDX-License-Identifier: GPL-2.0
/*
 * The "nsight" generic netlink family; the protocol is documented in
 * uapi/linux/nsight.h. Every operation needs CAP_NET_ADMIN and validates its
 * attributes strictly: commands without a policy reject any attribute.
 */
#include <net/genetlink.h>
#include <linux/cpumask.h>
#include <net/ipv6.h>
#include "netlink.h"
#include "control.h"
#include "filter.h"
#include "buffer.h"
#include "pt.h"

/* Not const: 6.1 policies point to a mutable range. */
static struct netlink_range_validation nsight_buffer_range = {
	.min = NSIGHT_BUFFER_MIN,
	.max = NSIGHT_BUFFER_MAX,
};

static struct netlink_range_validation nsight_period_range = {
	.min = NSIGHT_SAMPLE_PERIOD_MIN,
	.max = NSIGHT_SAMPLE_PERIOD_MAX,
};

static const struct nla_policy nsight_filter_policy[NSIGHT_FILTER_A_MAX + 1] = {
	[NSIGHT_FILTER_A_PORT]		= NLA_POLICY_MIN(NLA_U16, 1),
	[NSIGHT_FILTER_A_ADDR]		= { .type = NLA_BINARY, .len = 16 },
	[NSIGHT_FILTER_A_IFINDEX]	= NLA_POLICY_MIN(NLA_U32, 1),
	[NSIGHT_FILTER_A_PID]		= NLA_POLICY_MIN(NLA_U32, 1),
};

static const struct nla_policy nsight_config_policy[NSIGHT_A_MAX + 1] = {
	[NSIGHT_A_SOURCES]	= NLA_POLICY_MASK(NLA_U32, NSIGHT_SOURCES_ALL),
	[NSIGHT_A_BUFFER_SIZE]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&nsight_buffer_range),
	[NSIGHT_A_FILTER]	= NLA_POLICY_NESTED(nsight_filter_policy),
	[NSIGHT_A_SAMPLE_PERIOD] = NLA_POLICY_FULL_RANGE(NLA_U32,
							 &nsight_period_range),
};

static struct genl_family nsight_genl_family;

static int nsight_nl_start(struct sk_buff *skb, struct genl_info *info)
{
	int ret = nsight_start();

	if (ret == -EALREADY)
		NL_SET_ERR_MSG(info->extack, "capture already running");
	else if (ret == -ENOMEM)
		NL_SET_ERR_MSG(info->extack, "no capture buffer allocated");
	return ret;
}

static int nsight_nl_stop(struct sk_buff *skb, struct genl_info *info)
{
	int ret = nsight_stop();

	if (ret == -EALREADY)
		NL_SET_ERR_MSG(info->extack, "no capture running");
	return ret;
}

static int nsight_nl_put_cpu(struct sk_buff *msg, unsigned int cpu)
{
	struct nsight_cpu_snapshot s;
	struct nlattr *nest;

	nsight_buffer_snapshot(&nsight_buf, cpu, &s);
	nest = nla_nest_start(msg, NSIGHT_A_CPU);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(msg, NSIGHT_CPU_A_ID, cpu) ||
	    nla_put_u8(msg, NSIGHT_CPU_A_ONLINE, cpu_online(cpu)) ||
	    nla_put_u64_64bit(msg, NSIGHT_CPU_A_HOOK_HITS, s.hits,
			      NSIGHT_CPU_A_PAD) ||
	    nla_put_u64_64bit(msg, NSIGHT_CPU_A_RECORDS_WRITTEN, s.written,
			      NSIGHT_CPU_A_PAD) ||
	    nla_put_u64_64bit(msg, NSIGHT_CPU_A_RECORDS_DROPPED, s.dropped,
			      NSIGHT_CPU_A_PAD) ||
	    nla_put_u64_64bit(msg, NSIGHT_CPU_A_BUFFER_USED, s.used,
			      NSIGHT_CPU_A_PAD) ||
	    nla_put_u64_64bit(msg, NSIGHT_CPU_A_SUBBUFS_PRODUCED,
			      s.subbufs_produced, NSIGHT_CPU_A_PAD) ||
	    nla_put_u64_64bit(msg, NSIGHT_CPU_A_SUBBUFS_CONSUMED,
			      s.subbufs_consumed, NSIGHT_CPU_A_PAD)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

static int nsight_nl_put_filter(struct sk_buff *msg,
				const struct nsight_filter *f)
{
	struct nlattr *nest;
	unsigned int i;

	nest = nla_nest_start(msg, NSIGHT_A_FILTER);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < f->nports; i++)
		if (nla_put_u16(msg, NSIGHT_FILTER_A_PORT, f->ports[i]))
			goto err;
	for (i = 0; i < f->naddrs; i++)
		if (nla_put_in6_addr(msg, NSIGHT_FILTER_A_ADDR, &f->addrs[i]))
			goto err;
	for (i = 0; i < f->nifindex; i++)
		if (nla_put_u32(msg, NSIGHT_FILTER_A_IFINDEX, f->ifindex[i]))
			goto err;
	for (i = 0; i < f->npids; i++)
		if (nla_put_u32(msg, NSIGHT_FILTER_A_PID, f->pids[i]))
			goto err;
	nla_nest_end(msg, nest);
	return 0;
err:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}

/* Entries of each kind in the order given; the policy checked the types. */
static int nsight_nl_get_filter(const struct nlattr *nest,
				struct nsight_filter *f,
				struct netlink_ext_ack *extack)
{
	const struct nlattr *a;
	int rem;

	memset(f, 0, sizeof(*f));
	nla_for_each_nested(a, nest, rem) {
		u8 *n;

		switch (nla_type(a)) {
		case NSIGHT_FILTER_A_PORT:
			n = &f->nports;
			break;
		case NSIGHT_FILTER_A_ADDR:
			n = &f->naddrs;
			break;
		case NSIGHT_FILTER_A_IFINDEX:
			n = &f->nifindex;
			break;
		default:
			n = &f->npids;
			break;
		}
		if (*n == NSIGHT_FILTER_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "too many filter entries of this kind");
			return -E2BIG;
		}
		switch (nla_type(a)) {
		case NSIGHT_FILTER_A_PORT:
			f->ports[*n] = nla_get_u16(a);
			break;
		case NSIGHT_FILTER_A_ADDR:
			if (nla_len(a) == 4) {
				ipv6_addr_set_v4mapped(nla_get_in_addr(a),
						       &f->addrs[*n]);
			} else if (nla_len(a) == 16) {
				f->addrs[*n] = nla_get_in6_addr(a);
			} else {
				NL_SET_ERR_MSG_ATTR(extack, a,
						    "an address is 4 or 16 bytes");
				return -EINVAL;
			}
			break;
		case NSIGHT_FILTER_A_IFINDEX:
			f->ifindex[*n] = nla_get_u32(a);
			break;
		default:
			f->pids[*n] = nla_get_u32(a);
			break;
		}
		(*n)++;
	}
	return 0;
}

static int nsight_nl_fill_status(struct sk_buff *msg)
{
	u64 hits = 0, written = 0, dropped = 0;
	struct nsight_cpu_snapshot s;
	struct nsight_status st;
	struct nlattr *cpus;
	unsigned int cpu;

	nsight_get_status(&st);
	for_each_possible_cpu(cpu) {
		nsight_buffer_snapshot(&nsight_buf, cpu, &s);
		hits += s.hits;
		written += s.written;
		dropped += s.dropped;
	}
	if (nla_put_u8(msg, NSIGHT_A_ENABLED, st.enabled) ||
	    nla_put_u32(msg, NSIGHT_A_SOURCES, st.config.sources) ||
	    nla_put_u32(msg, NSIGHT_A_BUFFER_SIZE, st.config.buffer_size) ||
	    nla_put_u32(msg, NSIGHT_A_SAMPLE_PERIOD, st.config.sample_period) ||
	    nla_put_u32(msg, NSIGHT_A_SUBBUF_SIZE, st.subbuf_size) ||
	    nla_put_u32(msg, NSIGHT_A_N_SUBBUFS, st.n_subbufs) ||
	    nla_put_u64_64bit(msg, NSIGHT_A_TSC_HZ, st.clock_hz,
			      NSIGHT_A_PAD) ||
	    nla_put_u32(msg, NSIGHT_A_NR_CPUS, nr_cpu_ids) ||
	    nla_put_u64_64bit(msg, NSIGHT_A_HOOK_HITS, hits, NSIGHT_A_PAD) ||
	    nla_put_u64_64bit(msg, NSIGHT_A_RECORDS_WRITTEN, written,
			      NSIGHT_A_PAD) ||
	    nla_put_u64_64bit(msg, NSIGHT_A_RECORDS_DROPPED, dropped,
			      NSIGHT_A_PAD) ||
	    nla_put_u64_64bit(msg, NSIGHT_A_PROBES_MISSED, st.probes_missed,
			      NSIGHT_A_PAD) ||
	    nla_put_u32(msg, NSIGHT_A_PT_STATE, nsight_pt_get_state()) ||
	    nsight_nl_put_filter(msg, &st.filter))
		return -EMSGSIZE;

	cpus = nla_nest_start(msg, NSIGHT_A_CPUS);
	if (!cpus)
		return -EMSGSIZE;
	for_each_possible_cpu(cpu)
		if (nsight_nl_put_cpu(msg, cpu))
			return -EMSGSIZE;
	nla_nest_end(msg, cpus);
	return 0;
}

/* Upper bound of the GET_STATUS reply payload. */
static size_t nsight_nl_status_size(void)
{
	size_t cpu = nla_total_size(0) + nla_total_size(4) +
		     nla_total_size(1) + 6 * nla_total_size_64bit(8);

	size_t filter = nla_total_size(0) +
			NSIGHT_FILTER_MAX * (nla_total_size(2) +
					     nla_total_size(16) +
					     2 * nla_total_size(4));

	/* u32: sources, buffer and sub-buffer sizes, sub-buffers, sample
	 * period, nr_cpus, PT state; u8: enabled; u64: the rest.
	 */
	return 7 * nla_total_size(4) + nla_total_size(1) +
	       5 * nla_total_size_64bit(8) + filter + nla_total_size(0) +
	       num_possible_cpus() * cpu;
}

static int nsight_nl_get_status(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;
	int ret;

	msg = genlmsg_new(nsight_nl_status_size(), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &nsight_genl_family, 0,
				NSIGHT_CMD_GET_STATUS);
	if (!hdr) {
		ret = -EMSGSIZE;
		goto err;
	}
	ret = nsight_nl_fill_status(msg);
	if (ret)
		goto err;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err:
	nlmsg_free(msg);
	return ret;
}

static int nsight_nl_set_config(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	struct nsight_config_req req = {};
	struct nsight_filter filter;
	u32 sources, size, period;
	int ret;

	if (!a[NSIGHT_A_SOURCES] && !a[NSIGHT_A_BUFFER_SIZE] &&
	    !a[NSIGHT_A_FILTER] && !a[NSIGHT_A_SAMPLE_PERIOD]) {
		NL_SET_ERR_MSG(info->extack,
			       "nothing to set: give NSIGHT_A_SOURCES, NSIGHT_A_BUFFER_SIZE, NSIGHT_A_SAMPLE_PERIOD or NSIGHT_A_FILTER");
		return -EINVAL;
	}
	if (a[NSIGHT_A_SOURCES]) {
		sources = nla_get_u32(a[NSIGHT_A_SOURCES]);
		req.sources = &sources;
	}
	if (a[NSIGHT_A_BUFFER_SIZE]) {
		size = nla_get_u32(a[NSIGHT_A_BUFFER_SIZE]);
		req.buffer_size = &size;
	}
	if (a[NSIGHT_A_SAMPLE_PERIOD]) {
		period = nla_get_u32(a[NSIGHT_A_SAMPLE_PERIOD]);
		req.sample_period = &period;
	}
	if (a[NSIGHT_A_FILTER]) {
		ret = nsight_nl_get_filter(a[NSIGHT_A_FILTER], &filter,
					   info->extack);
		if (ret)
			return ret;
		req.filter = &filter;
	}
	return nsight_set_config(&req, info->extack);
}

static const struct genl_ops nsight_genl_ops[] = {
	{
		.cmd = NSIGHT_CMD_START,
		.doit = nsight_nl_start,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = NSIGHT_CMD_STOP,
		.doit = nsight_nl_stop,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = NSIGHT_CMD_GET_STATUS,
		.doit = nsight_nl_get_status,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = NSIGHT_CMD_SET_CONFIG,
		.doit = nsight_nl_set_config,
		.policy = nsight_config_policy,
		.maxattr = NSIGHT_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
};

static const struct genl_multicast_group nsight_genl_mcgrps[] = {
	{ .name = NSIGHT_MCGRP_EVENTS, },
};

static struct genl_family nsight_genl_family __ro_after_init = {
	.name = NSIGHT_GENL_NAME,
	.version = NSIGHT_GENL_VERSION,
	.module = THIS_MODULE,
	.ops = nsight_genl_ops,
	.n_ops = ARRAY_SIZE(nsight_genl_ops),
	.mcgrps = nsight_genl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(nsight_genl_mcgrps),
};

/* Process context (the notification work item). */
void nsight_nl_notify_full(unsigned int cpu)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(nla_total_size(4), GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &nsight_genl_family, 0,
			  NSIGHT_CMD_BUFFER_FULL);
	if (!hdr || nla_put_u32(msg, NSIGHT_A_CPU_ID, cpu)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast(&nsight_genl_family, msg, 0, 0, GFP_KERNEL);
}

int nsight_netlink_init(void)
{
	return genl_register_family(&nsight_genl_family);
}

void nsight_netlink_exit(void)
{
	genl_unregister_family(&nsight_genl_family);
}
