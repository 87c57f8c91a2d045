// SPDX-License-Identifier: GPL-2.0
/*
 * nsight_slowpath: a test module for nsight's sampling scenario. A kprobe
 * on ip_rcv() calls nsight_slow_rcv() for every every-th UDP datagram to
 * port; that function spins for spin_us. The spin reads the TSC inline, so
 * the slow function is the innermost frame of every sample taken in it.
 */
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/skbuff.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <linux/in.h>
#include <linux/timex.h>
#include <asm/tsc.h>

static unsigned int port = 9300;
module_param(port, uint, 0444);
MODULE_PARM_DESC(port, "UDP destination port of the datagrams slowed");
static unsigned int every = 50;
module_param(every, uint, 0444);
MODULE_PARM_DESC(every, "slow down one datagram in this many");
static unsigned int spin_us = 200;
module_param(spin_us, uint, 0444);
MODULE_PARM_DESC(spin_us, "how long the slow function spins");

static atomic_t nsight_slow_seen = ATOMIC_INIT(0);
static atomic_t nsight_slow_hits = ATOMIC_INIT(0);

static noinline void nsight_slow_rcv(void)
{
	u64 end = get_cycles() + (u64)spin_us * tsc_khz / 1000;

	while (get_cycles() < end)
		cpu_relax();
	atomic_inc(&nsight_slow_hits);
}

static int nsight_slow_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct sk_buff *skb = (struct sk_buff *)regs->di;
	const struct iphdr *iph;
	const struct udphdr *uh;

	if (skb_headlen(skb) < sizeof(*iph))
		return 0;
	iph = (const struct iphdr *)skb->data;
	if (iph->version != 4 || iph->protocol != IPPROTO_UDP ||
	    skb_headlen(skb) < iph->ihl * 4 + sizeof(*uh))
		return 0;
	uh = (const struct udphdr *)(skb->data + iph->ihl * 4);
	if (ntohs(uh->dest) != port)
		return 0;
	if (atomic_inc_return(&nsight_slow_seen) % every == 0)
		nsight_slow_rcv();
	return 0;
}

static struct kprobe nsight_slow_kp = {
	.symbol_name = "ip_rcv",
	.pre_handler = nsight_slow_pre,
};

static int __init nsight_slowpath_init(void)
{
	if (!every || spin_us > 10000)
		return -EINVAL;
	return register_kprobe(&nsight_slow_kp);
}

static void __exit nsight_slowpath_exit(void)
{
	unregister_kprobe(&nsight_slow_kp);
	pr_info("slowed %d of %d datagrams\n", atomic_read(&nsight_slow_hits),
		atomic_read(&nsight_slow_seen));
}

module_init(nsight_slowpath_init);
module_exit(nsight_slowpath_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("nsight test: a slow function in the IPv4 receive path");
