// SPDX-License-Identifier: GPL-2.0
/*
 * Network records.
 *
 * Packets are recorded where the stack hands them on: netif_rx (queued to a
 * CPU backlog: veth, non-NAPI drivers), napi_gro_receive_entry (a NAPI
 * driver), netif_receive_skb (protocol input) on receive; net_dev_queue
 * (into the qdisc layer), net_dev_start_xmit (to the driver) and
 * skb_tstamp_tx (the driver reports a transmit timestamp) on send. None of
 * these tracepoints is exported on Debian kernels; they are found by name.
 * net_dev_xmit is not used: it fires after the driver may have freed the
 * sk_buff.
 *
 * The hand-off: sock_def_readable() runs when data became readable on a
 * socket and wakes its waiters; on the receive path this is where a message
 * crosses from the core that processed the packet to the application. It is
 * static in net/core/sock.c (reached through sk->sk_data_ready), so nsight
 * puts a kprobe on its entry.
 */
#include <linux/kprobes.h>
#include <linux/skbuff.h>
#include <linux/netdevice.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <net/sock.h>
#include <net/tcp.h>
#include "net_hooks.h"
#include "tracepoint.h"
#include "filter.h"
#include "buffer.h"
#include "pkt.h"
#include "kprobe.h"
#include "compat.h"

/**
 * nsight_pkt_record - fill a packet record.
 * @r:      the record
 * @skb:    the packet
 * @nh_off: offset of its IP header from skb->data
 * @stage:  enum nsight_pkt_stage
 *
 * Returns 0, or -EINVAL if the packet is not TCP/UDP over IP or the filter
 * rejects it (nothing to record).
 */
int nsight_pkt_record(struct nsight_rec_pkt *r, const struct sk_buff *skb,
		      int nh_off, u8 stage)
{
	struct nsight_pkt_info pi;
	u32 ifindex;

	if (skb->protocol != htons(ETH_P_IP) &&
	    skb->protocol != htons(ETH_P_IPV6))
		return -EINVAL;
	if (nsight_pkt_parse(skb, nh_off, &pi))
		return -EINVAL;
	ifindex = skb->dev ? skb->dev->ifindex : skb->skb_iif;
	if (!nsight_filter_flow(&nsight_filter, &pi.flow) ||
	    !nsight_filter_ifindex(&nsight_filter, ifindex))
		return -EINVAL;

	nsight_rec_init(&r->hdr, NSIGHT_REC_PKT, sizeof(*r));
	r->pkt_id = pi.id;
	r->flow = pi.flow;
	r->seq = pi.seq;
	r->payload_len = pi.payload_len;
	r->ifindex = ifindex;
	r->stage = stage;
	r->flags = 0;
	r->hw_tstamp = 0;
	r->sw_tstamp = ktime_to_ns(skb->tstamp);
	r->gso_segs = 1;
	r->rc = 0;
	r->wire_hash = pi.wire_hash;
	r->flags |= NSIGHT_PKT_F_WIRE_HASH;
	if (stage <= NSIGHT_PKT_RX_RECEIVE) {
		r->queue = skb_rx_queue_recorded(skb) ?
			   skb_get_rx_queue(skb) : 0;
		if (skb_hwtstamps((struct sk_buff *)skb)->hwtstamp) {
			r->hw_tstamp = ktime_to_ns(skb_hwtstamps((struct sk_buff *)skb)->hwtstamp);
			r->flags |= NSIGHT_PKT_F_HWTSTAMP;
		}
	} else {
		r->queue = skb_get_queue_mapping(skb);
	}
	if (skb_is_gso(skb)) {
		r->flags |= NSIGHT_PKT_F_GSO;
		r->gso_segs = skb_shinfo(skb)->gso_segs;
	}
	if (skb_cloned(skb))
		r->flags |= NSIGHT_PKT_F_CLONED;
	return 0;
}

static void nsight_pkt_emit(const struct sk_buff *skb, int nh_off, u8 stage)
{
	struct nsight_rec_pkt r;

	if (!nsight_pkt_record(&r, skb, nh_off, stage))
		nsight_emit(&r.hdr);
}

/* Receive side: skb->data is at the IP header (eth_type_trans pulled). */
static void nsight_netif_rx(void *data, struct sk_buff *skb)
{
	nsight_pkt_emit(skb, 0, NSIGHT_PKT_RX_NETIF_RX);
}

static void nsight_gro_receive(void *data, const struct sk_buff *skb)
{
	nsight_pkt_emit(skb, 0, NSIGHT_PKT_RX_GRO);
}

static void nsight_netif_receive_skb(void *data, struct sk_buff *skb)
{
	nsight_pkt_emit(skb, 0, NSIGHT_PKT_RX_RECEIVE);
}

/* Transmit side: skb->data is at the link-layer header. */
static void nsight_dev_queue(void *data, struct sk_buff *skb)
{
	nsight_pkt_emit(skb, skb_network_offset(skb), NSIGHT_PKT_TX_QUEUE);
}

static void nsight_dev_start_xmit(void *data, const struct sk_buff *skb,
				  const struct net_device *dev)
{
	nsight_pkt_emit(skb, skb_network_offset(skb), NSIGHT_PKT_TX_XMIT);
}

enum {
	NSIGHT_TP_NETIF_RX,
	NSIGHT_TP_GRO_RECEIVE,
	NSIGHT_TP_NETIF_RECEIVE_SKB,
	NSIGHT_TP_DEV_QUEUE,
	NSIGHT_TP_DEV_START_XMIT,
	NSIGHT_NET_NR_TP
};

static struct nsight_tp nsight_net_tps[NSIGHT_NET_NR_TP] = {
	[NSIGHT_TP_NETIF_RX] = {
		.name = "netif_rx", .probe = nsight_netif_rx,
	},
	[NSIGHT_TP_GRO_RECEIVE] = {
		.name = "napi_gro_receive_entry", .probe = nsight_gro_receive,
	},
	[NSIGHT_TP_NETIF_RECEIVE_SKB] = {
		.name = "netif_receive_skb", .probe = nsight_netif_receive_skb,
	},
	[NSIGHT_TP_DEV_QUEUE] = {
		.name = "net_dev_queue", .probe = nsight_dev_queue,
	},
	[NSIGHT_TP_DEV_START_XMIT] = {
		.name = "net_dev_start_xmit", .probe = nsight_dev_start_xmit,
	},
};

static const u32 nsight_net_tp_source[NSIGHT_NET_NR_TP] = {
	[NSIGHT_TP_NETIF_RX] = NSIGHT_SRC_NET_RX,
	[NSIGHT_TP_GRO_RECEIVE] = NSIGHT_SRC_NET_RX,
	[NSIGHT_TP_NETIF_RECEIVE_SKB] = NSIGHT_SRC_NET_RX,
	[NSIGHT_TP_DEV_QUEUE] = NSIGHT_SRC_NET_TX,
	[NSIGHT_TP_DEV_START_XMIT] = NSIGHT_SRC_NET_TX,
};

/* skb_tstamp_tx(orig_skb, hwtstamps): the driver's transmit timestamp. */
static int nsight_tstamp_tx_pre(struct kprobe *p, struct pt_regs *regs)
{
	const struct sk_buff *skb = (const void *)nsight_kprobe_arg(regs, 0);
	const struct skb_shared_hwtstamps *hw =
		(const void *)nsight_kprobe_arg(regs, 1);
	struct nsight_rec_pkt r;

	if (nsight_pkt_record(&r, skb, skb_network_offset(skb),
			      NSIGHT_PKT_TX_TSTAMP))
		return 0;
	if (hw && hw->hwtstamp) {
		r.hw_tstamp = ktime_to_ns(hw->hwtstamp);
		r.flags |= NSIGHT_PKT_F_HWTSTAMP;
	}
	nsight_emit(&r.hdr);
	return 0;
}

/*
 * The newest packet of a socket's receive queue. For protocols other than
 * TCP a reader on another CPU may dequeue concurrently, so the queue lock is
 * held while the packet is read; TCP's queue is protected by the socket
 * lock, which the caller of sk_data_ready holds.
 */
static u64 nsight_rcvq_tail_id(struct sock *sk)
{
	struct nsight_pkt_info pi;
	struct sk_buff *skb;
	unsigned long flags;
	u64 id = 0;

	if (sk->sk_protocol == IPPROTO_TCP) {
		skb = skb_peek_tail(&sk->sk_receive_queue);
		if (skb && !nsight_pkt_parse(skb, skb_network_offset(skb), &pi))
			id = pi.id;
		return id;
	}
	spin_lock_irqsave(&sk->sk_receive_queue.lock, flags);
	skb = skb_peek_tail(&sk->sk_receive_queue);
	if (skb && !nsight_pkt_parse(skb, skb_network_offset(skb), &pi))
		id = pi.id;
	spin_unlock_irqrestore(&sk->sk_receive_queue.lock, flags);
	return id;
}

static int nsight_handoff_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct sock *sk = (struct sock *)nsight_kprobe_arg(regs, 0);
	struct nsight_rec_handoff r;

	/* Unix and netlink sockets use sock_def_readable() too. */
	if (sk->sk_family != AF_INET && sk->sk_family != AF_INET6)
		return 0;
	nsight_sock_flow(sk, &r.flow);
	if (!nsight_filter_flow(&nsight_filter, &r.flow))
		return 0;

	nsight_rec_init(&r.hdr, NSIGHT_REC_HANDOFF, sizeof(r));
	r.sock_id = nsight_sock_id(sk);
	r.rcvq_bytes = sk_rmem_alloc_get(sk);
	r.rcvq_len = skb_queue_len_lockless(&sk->sk_receive_queue);
	r.pkt_id = nsight_rcvq_tail_id(sk);
	if (sk->sk_protocol == IPPROTO_TCP) {
		r.tcp_rcv_nxt = READ_ONCE(tcp_sk(sk)->rcv_nxt);
		r.tcp_copied_seq = READ_ONCE(tcp_sk(sk)->copied_seq);
	} else {
		r.tcp_rcv_nxt = 0;
		r.tcp_copied_seq = 0;
	}
	nsight_emit(&r.hdr);
	return 0;
}

static struct nsight_kprobe nsight_net_kprobes[] = {
	{ .symbol = "sock_def_readable", .pre = nsight_handoff_pre,
	  .source = NSIGHT_SRC_HANDOFF },
	{ .symbol = "skb_tstamp_tx", .pre = nsight_tstamp_tx_pre,
	  .source = NSIGHT_SRC_NET_TX },
};

int nsight_net_init(void)
{
	return nsight_tp_lookup(nsight_net_tps, NSIGHT_NET_NR_TP);
}

int nsight_net_attach(u32 sources)
{
	unsigned int i;
	int ret;

	for (i = 0; i < NSIGHT_NET_NR_TP; i++) {
		if (!(sources & BIT(nsight_net_tp_source[i])))
			continue;
		ret = nsight_tp_attach(&nsight_net_tps[i], 1);
		if (ret)
			goto err;
	}
	ret = nsight_kprobes_attach(nsight_net_kprobes,
				    ARRAY_SIZE(nsight_net_kprobes), sources);
	if (ret)
		goto err;
	return 0;
err:
	nsight_net_detach();
	return ret;
}

/*
 * Detach everything: kprobes are synchronized on return, tracepoint probes
 * after the caller's tracepoint_synchronize_unregister().
 */
void nsight_net_detach(void)
{
	nsight_kprobes_detach(nsight_net_kprobes,
			      ARRAY_SIZE(nsight_net_kprobes));
	nsight_tp_detach(nsight_net_tps, NSIGHT_NET_NR_TP);
}

u64 nsight_net_missed(void)
{
	return nsight_kprobes_missed(nsight_net_kprobes,
				     ARRAY_SIZE(nsight_net_kprobes));
}
