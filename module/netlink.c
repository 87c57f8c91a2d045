// SPDX-License-Identifier: GPL-2.0
/*
 * The "nsight" generic netlink family; the protocol is documented in
 * uapi/linux/nsight.h. Every operation needs CAP_NET_ADMIN and validates its
 * attributes strictly: commands without a policy reject any attribute.
 */
#include <net/genetlink.h>
#include <linux/cpumask.h>
#include "netlink.h"
#include "control.h"
#include "buffer.h"

/* Not const: 6.1 policies point to a mutable range. */
static struct netlink_range_validation nsight_buffer_range = {
	.min = NSIGHT_BUFFER_MIN,
	.max = NSIGHT_BUFFER_MAX,
};

static const struct nla_policy nsight_config_policy[NSIGHT_A_MAX + 1] = {
	[NSIGHT_A_SOURCES]	= NLA_POLICY_MASK(NLA_U32, NSIGHT_SOURCES_ALL),
	[NSIGHT_A_BUFFER_SIZE]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&nsight_buffer_range),
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
	    nla_put_u32(msg, NSIGHT_A_SUBBUF_SIZE, st.subbuf_size) ||
	    nla_put_u32(msg, NSIGHT_A_N_SUBBUFS, st.n_subbufs) ||
	    nla_put_u64_64bit(msg, NSIGHT_A_TSC_HZ, st.clock_hz,
			      NSIGHT_A_PAD) ||
	    nla_put_u32(msg, NSIGHT_A_NR_CPUS, nr_cpu_ids) ||
	    nla_put_u64_64bit(msg, NSIGHT_A_HOOK_HITS, hits, NSIGHT_A_PAD) ||
	    nla_put_u64_64bit(msg, NSIGHT_A_RECORDS_WRITTEN, written,
			      NSIGHT_A_PAD) ||
	    nla_put_u64_64bit(msg, NSIGHT_A_RECORDS_DROPPED, dropped,
			      NSIGHT_A_PAD))
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

	return 5 * nla_total_size(4) + nla_total_size(1) +
	       4 * nla_total_size_64bit(8) + nla_total_size(0) +
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
	u32 sources, size;

	if (!a[NSIGHT_A_SOURCES] && !a[NSIGHT_A_BUFFER_SIZE]) {
		NL_SET_ERR_MSG(info->extack,
			       "nothing to set: give NSIGHT_A_SOURCES and/or NSIGHT_A_BUFFER_SIZE");
		return -EINVAL;
	}
	if (a[NSIGHT_A_SOURCES])
		sources = nla_get_u32(a[NSIGHT_A_SOURCES]);
	if (a[NSIGHT_A_BUFFER_SIZE])
		size = nla_get_u32(a[NSIGHT_A_BUFFER_SIZE]);
	return nsight_set_config(a[NSIGHT_A_SOURCES] ? &sources : NULL,
				 a[NSIGHT_A_BUFFER_SIZE] ? &size : NULL,
				 info->extack);
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
