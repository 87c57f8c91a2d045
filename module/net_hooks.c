// SPDX-License-Identifier: GPL-2.0
/*
 * Network records.
 *
 * Packets are recorded where the stack hands them on: netif_rx (queued to a
 * CPU backlog: veth, non-NAPI drivers), napi_gro_receive_entry (a NAPI
 * driver), netif_receive_skb (protocol input) on receive; net_dev_queue
 * (into the qdisc layer), net_dev_start_xmit (to the driver) and
 * skb_tstamp_tx (the driver reports a transmit timestamp, an ftrace entry
 * hook) on send. None of these tracepoints is exported on Debian kernels;
 * they are found by name.
 * net_dev_xmit is not used: it fires after the driver may have freed the
 * sk_buff.
 *
 * The hand-off: sock_def_readable() runs when data became readable on a
 * socket and wakes its waiters; on the receive path this is where a message
 * crosses from the core that processed the packet to the application. It is
 * static in net/core/sock.c (reached through sk->sk_data_ready). Kernels from
 * 6.6 on have the sk_data_ready tracepoint at its start; on older ones
 * nsight hooks its entry through ftrace (fentry.c), at a quarter of a
 * kprobe's cost. The packet handed off is the newest of the socket's
 * receive queue; for UDP, whose reader may take it before the wake-up
 * runs, it is the one __udp_enqueue_schedule_skb() was just given.
 *
 * A UDP datagram the socket had no room for is recorded at the kernel's
 * udp_fail_queue_rcv_skb tracepoint (a sock_drop record): a hook that
 * costs nothing until the receive buffer overflows.
 */
#include <linux/skbuff.h>
#include <linux/netdevice.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <linux/udp.h>
#include "net_hooks.h"
#include "tracepoint.h"
#include "filter.h"
#include "buffer.h"
#include "pkt.h"
#include "socks.h"
#include "fentry.h"
#include "profile.h"
#include "compat.h"

/* The stages that follow another one of the same packet on the same CPU. */
static __always_inline bool nsight_later_stage(u8 stage)
{
	return stage == NSIGHT_PKT_RX_RECEIVE || stage == NSIGHT_PKT_TX_XMIT ||
	       stage == NSIGHT_PKT_TX_TSTAMP;
}

/*
 * Parse and filter: 0 if @skb is a TCP or UDP packet over IP that the
 * filter lets through, with @pi and @ifindex set. The stages that follow
 * another on the same CPU take the packet from the parse of that one, and
 * so does a first stage when the packet was just parsed here (veth and
 * loopback receive on the CPU that sent): *@again tells that its pkt
 * record was written there, and with @ref, that @pi holds its id alone
 * (for a pkt_stage record; the filter must not look at flows).
 */
static __always_inline int nsight_pkt_prepare(const struct sk_buff *skb,
					      int nh_off, u8 stage,
					      struct nsight_pkt_info *pi,
					      u32 *ifindex, bool *again,
					      bool ref)
{
	int ret;

	*again = false;
	if (!nsight_skb_ip(skb))
		return -EINVAL;
	if (nsight_later_stage(stage))
		ret = nsight_pkt_parse_again(skb, nh_off, pi, again, ref);
	else
		ret = nsight_pkt_parse_first(skb, nh_off, pi, again, ref);
	if (ret)
		return -EINVAL;
	*ifindex = skb->dev ? skb->dev->ifindex : skb->skb_iif;
	if (!nsight_filter_ok_flow(&pi->flow) ||
	    !nsight_filter_ok_ifindex(*ifindex))
		return -EINVAL;
	return 0;
}

/*
 * What a stage may change in a packet: the queue, the GSO and clone flags
 * and the segment count.
 */
static __always_inline u16 nsight_pkt_shape(const struct sk_buff *skb,
					    u8 stage, u8 *flags,
					    u16 *gso_segs)
{
	*gso_segs = 1;
	if (skb_is_gso(skb)) {
		*flags |= NSIGHT_PKT_F_GSO;
		*gso_segs = skb_shinfo(skb)->gso_segs;
	}
	if (skb_cloned(skb))
		*flags |= NSIGHT_PKT_F_CLONED;
	if (stage <= NSIGHT_PKT_RX_RECEIVE)
		return skb_rx_queue_recorded(skb) ? skb_get_rx_queue(skb) : 0;
	return skb_get_queue_mapping(skb);
}

/* Every field of @r but the header, in place. */
static __always_inline void nsight_pkt_fill(struct nsight_rec_pkt *r,
					    const struct nsight_pkt_info *pi,
					    const struct sk_buff *skb,
					    u32 ifindex, u8 stage)
{
	u8 flags = NSIGHT_PKT_F_WIRE_HASH;
	ktime_t hw = 0;
	u16 queue, gso_segs;

	if (stage <= NSIGHT_PKT_RX_RECEIVE) {
		hw = skb_hwtstamps((struct sk_buff *)skb)->hwtstamp;
		if (hw)
			flags |= NSIGHT_PKT_F_HWTSTAMP;
	}
	queue = nsight_pkt_shape(skb, stage, &flags, &gso_segs);
	r->gso_segs = gso_segs;
	r->pkt_id = pi->id;
	r->hw_tstamp = ktime_to_ns(hw);
	r->sw_tstamp = ktime_to_ns(skb->tstamp);
	r->flow = pi->flow;
	r->seq = pi->seq;
	r->payload_len = pi->payload_len;
	r->ifindex = ifindex;
	r->queue = queue;
	r->stage = stage;
	r->flags = flags;
	r->rc = 0;
	r->wire_hash = pi->wire_hash;
}

/**
 * nsight_pkt_record - fill a packet record (for tests; hooks write theirs
 * in place).
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
	struct nsight_pkt_info pi __uninitialized;
	bool again;
	u32 ifindex;

	if (nsight_pkt_prepare(skb, nh_off, stage, &pi, &ifindex, &again,
			       false))
		return -EINVAL;
	nsight_rec_init(&r->hdr, NSIGHT_REC_PKT, sizeof(*r));
	nsight_pkt_fill(r, &pi, skb, ifindex, stage);
	return 0;
}

/*
 * The short pkt_stage record (fewer than 256 GSO segments): stage and
 * flags, below 16 always, share a byte.
 */
static __always_inline void nsight_cpkt_stage_fill(struct nsight_crec_pkt_stage *c,
						   u64 pkt_id, u32 ifindex,
						   u16 queue, u8 stage, u8 flags,
						   u16 gso_segs)
{
	c->pkt_id = pkt_id;
	c->ifindex = ifindex;
	c->queue = queue;
	c->stage_flags = stage | flags << 4;
	c->gso_segs = gso_segs;
}

/*
 * A later stage of the packet whose pkt record this CPU wrote just before:
 * what may differ, and a reference to that record (pkt_id).
 */
static __always_inline void nsight_pkt_stage_write(const struct sk_buff *skb,
						   u64 pkt_id, u32 ifindex,
						   u8 stage)
{
	struct nsight_rec_pkt_stage *r;
	struct nsight_wr w;
	u16 queue, gso_segs;
	u8 flags = 0;

	queue = nsight_pkt_shape(skb, stage, &flags, &gso_segs);
	if (likely(gso_segs < 256)) {
		struct nsight_crec_pkt_stage *c;

		c = (void *)__nsight_creserve(&nsight_buf, &w,
					      NSIGHT_CREC_PKT_STAGE, sizeof(*c));
		if (!c)
			return;
		nsight_cpkt_stage_fill(c, pkt_id, ifindex, queue, stage, flags,
				       gso_segs);
		nsight_commit(&w);
		return;
	}
	r = nsight_reserve(&w, NSIGHT_REC_PKT_STAGE, sizeof(*r));
	if (!r)
		return;
	r->pkt_id = pkt_id;
	r->ifindex = ifindex;
	r->queue = queue;
	r->gso_segs = gso_segs;
	r->stage = stage;
	r->flags = flags;
	memset(r->pad, 0, sizeof(r->pad));
	nsight_commit(&w);
}

/*
 * The pkt record of an IPv4 packet without a hardware stamp, compact; a
 * first stage is noted for the later ones inside the reservation, as
 * nsight_pkt_write() does (a dropped record is not referred to).
 */
static __always_inline void nsight_pkt4_write(const struct sk_buff *skb,
					      const struct nsight_pkt_info *pi,
					      int nh_off, u32 ifindex, u8 stage)
{
	s64 sw = ktime_to_ns(skb->tstamp);
	struct nsight_crec_pkt4 *r;
	struct nsight_wr w;
	u8 flags = NSIGHT_PKT_F_WIRE_HASH;
	u16 queue, gso_segs;

	queue = nsight_pkt_shape(skb, stage, &flags, &gso_segs);
	r = (void *)__nsight_creserve(&nsight_buf, &w, sw ? NSIGHT_CREC_PKT4_TS :
				      NSIGHT_CREC_PKT4, sizeof(*r) +
				      (sw ? sizeof(sw) : 0));
	if (!r)
		return;
	if (sw)
		memcpy(r + 1, &sw, sizeof(sw));
	r->pkt_id = pi->id;
	nsight_cflow4_fill(&r->flow, &pi->flow);
	r->seq = pi->seq;
	r->payload_len = pi->payload_len;
	r->ifindex = ifindex;
	r->queue = queue;
	r->stage = stage;
	r->flags = flags;
	r->gso_segs = gso_segs;
	r->rc = 0;
	r->wire_hash = pi->wire_hash;
	if (!nsight_later_stage(stage))
		nsight_pkt_recorded(skb, nh_off);
	nsight_commit(&w);
}

/*
 * A packet record of @skb at @stage; @hw, if set, is its hardware stamp.
 * Out of line: the hooks' fast path (nsight_pkt_stage_fast()) then needs
 * no stack frame of this size.
 */
static noinline void nsight_pkt_write(const struct sk_buff *skb, int nh_off,
				      u8 stage, ktime_t hw)
{
	struct nsight_pkt_info pi __uninitialized;
	bool stamped = hw || skb_hwtstamps((struct sk_buff *)skb)->hwtstamp;
	struct nsight_rec_pkt *r;
	struct nsight_wr w;
	u32 ifindex;
	bool again;

	/* A pkt_stage record refers to the earlier one: the id is enough. */
	if (nsight_pkt_prepare(skb, nh_off, stage, &pi, &ifindex, &again,
			       !stamped && !nsight_filter_flows()))
		return;
	if (again && !stamped) {
		nsight_pkt_stage_write(skb, pi.id, ifindex, stage);
		return;
	}
	if (!hw && nsight_flow_v4(&pi.flow) &&
	    (stage > NSIGHT_PKT_RX_RECEIVE ||
	     !skb_hwtstamps((struct sk_buff *)skb)->hwtstamp)) {
		nsight_pkt4_write(skb, &pi, nh_off, ifindex, stage);
		return;
	}
	r = nsight_reserve(&w, NSIGHT_REC_PKT, sizeof(*r));
	if (!r)
		return;
	nsight_pkt_fill(r, &pi, skb, ifindex, stage);
	if (hw) {
		r->hw_tstamp = ktime_to_ns(hw);
		r->flags |= NSIGHT_PKT_F_HWTSTAMP;
	}
	if (!nsight_later_stage(stage))
		nsight_pkt_recorded(skb, nh_off);
	nsight_commit(&w);
}

/*
 * The fast path of a stage whose packet is this CPU's memo, its pkt record
 * written (a later stage, or a veth packet received on the CPU that sent
 * it), with no hardware stamp and no filter on flows: its pkt_stage record
 * is reserved in the same interrupts-off section as the memo is read, with
 * no parse and no copy of the memo. False when that is not the case: the
 * caller then takes nsight_pkt_write().
 */
static __always_inline bool nsight_pkt_stage_fast(const struct sk_buff *skb,
						  int nh_off, u8 stage)
{
	const u8 *nh = skb->data + nh_off;
	struct nsight_crec_pkt_stage *c;
	struct nsight_pkt_memo *m;
	struct nsight_wr w;
	u16 queue, gso_segs;
	u8 flags = 0;
	bool recorded;
	u32 ifindex;

	if (!nsight_skb_ip(skb) || nsight_filter_flows() ||
	    skb_hwtstamps((struct sk_buff *)skb)->hwtstamp)
		return false;
	local_irq_save(w.flags);
	m = this_cpu_ptr(&nsight_pkt_memo);
	if (!nsight_memo_hit(m, skb, nh, &recorded) || !recorded)
		goto slow;
	queue = nsight_pkt_shape(skb, stage, &flags, &gso_segs);
	if (unlikely(gso_segs >= 256))
		goto slow;
	ifindex = skb->dev ? skb->dev->ifindex : skb->skb_iif;
	if (!nsight_filter_ok_ifindex(ifindex))
		goto out;
	c = (void *)__nsight_creserve_irqoff(&nsight_buf, &w,
					     NSIGHT_CREC_PKT_STAGE, sizeof(*c));
	if (c)
		nsight_cpkt_stage_fill(c, m->p.pi.id, ifindex, queue, stage,
				       flags, gso_segs);
out:
	local_irq_restore(w.flags);
	return true;
slow:
	local_irq_restore(w.flags);
	return false;
}

static void nsight_pkt_hook(const struct sk_buff *skb, int nh_off, u8 stage,
			    enum nsight_hook hook)
{
	nsight_prof_enter(hook);
	/*
	 * A packet's first stage in a driver's NAPI poll or on its way out is
	 * almost never the memo (a forwarded packet is, and the general path
	 * finds it): not worth the look there.
	 */
	if (stage == NSIGHT_PKT_RX_GRO || stage == NSIGHT_PKT_TX_QUEUE ||
	    !nsight_pkt_stage_fast(skb, nh_off, stage))
		nsight_pkt_write(skb, nh_off, stage, 0);
	nsight_prof_exit();
}

/* Receive side: skb->data is at the IP header (eth_type_trans pulled). */
static void nsight_netif_rx(void *data, struct sk_buff *skb)
{
	nsight_pkt_hook(skb, 0, NSIGHT_PKT_RX_NETIF_RX, NSIGHT_HOOK_NETIF_RX);
}

static void nsight_gro_receive(void *data, const struct sk_buff *skb)
{
	nsight_pkt_hook(skb, 0, NSIGHT_PKT_RX_GRO, NSIGHT_HOOK_GRO_RECEIVE);
}

static void nsight_netif_receive_skb(void *data, struct sk_buff *skb)
{
	nsight_pkt_hook(skb, 0, NSIGHT_PKT_RX_RECEIVE,
			NSIGHT_HOOK_NETIF_RECEIVE_SKB);
}

/* Transmit side: skb->data is at the link-layer header. */
static void nsight_dev_queue(void *data, struct sk_buff *skb)
{
	nsight_pkt_hook(skb, skb_network_offset(skb), NSIGHT_PKT_TX_QUEUE,
			NSIGHT_HOOK_DEV_QUEUE);
}

static void nsight_dev_start_xmit(void *data, const struct sk_buff *skb,
				  const struct net_device *dev)
{
	nsight_pkt_hook(skb, skb_network_offset(skb), NSIGHT_PKT_TX_XMIT,
			NSIGHT_HOOK_DEV_START_XMIT);
}

/*
 * The identity of @skb (NULL or not TCP/UDP: 0), parsed or remembered; as
 * it goes to its socket (@hand), the parse is handed over to the CPU that
 * will copy it to the application (app_copy).
 */
static u64 nsight_skb_id(const struct sk_buff *skb, bool hand)
{
	return skb ? nsight_pkt_skb_id(skb, skb_network_offset(skb), hand) : 0;
}

/*
 * The newest packet of a socket's receive queue. For protocols other than
 * TCP a reader on another CPU may dequeue concurrently, so the queue lock is
 * held while the packet is read; TCP's queue is protected by the socket
 * lock, which the caller of sk_data_ready holds. A UDP reader moves the
 * whole receive queue to its own reader_queue when that runs empty: if it
 * just did, the datagram that was appended is the reader_queue's newest.
 */
static u64 nsight_rcvq_tail_id(const struct sock *sk)
{
	struct sk_buff_head *q = (struct sk_buff_head *)&sk->sk_receive_queue;
	unsigned long flags;
	u64 id;

	if (sk->sk_protocol == IPPROTO_TCP)
		return nsight_skb_id(skb_peek_tail(q), true);
	spin_lock_irqsave(&q->lock, flags);
	id = nsight_skb_id(skb_peek_tail(q), false);
	spin_unlock_irqrestore(&q->lock, flags);
	if (id || sk->sk_protocol != IPPROTO_UDP)
		return id;
	q = (struct sk_buff_head *)&udp_sk(sk)->reader_queue;
	spin_lock_irqsave(&q->lock, flags);
	id = nsight_skb_id(skb_peek_tail(q), false);
	spin_unlock_irqrestore(&q->lock, flags);
	return id;
}

/*
 * The UDP datagram each CPU is enqueueing, recorded at the entry of
 * __udp_enqueue_schedule_skb(), which wakes the reader (sk_data_ready)
 * after it has queued the datagram and dropped the queue lock. A reader on
 * another CPU can take the datagram in between; the hand-off then finds it
 * in no queue, but here. It was dropped instead of queued when the
 * socket's drop count moved since.
 */
struct nsight_udp_enqueue {
	const struct sock *sk;
	u64 pkt_id;
	int drops;
};

static DEFINE_PER_CPU(struct nsight_udp_enqueue, nsight_udp_enqueue);
static bool nsight_udp_enqueue_on;

/* __udp_enqueue_schedule_skb(sk, skb): softirq, as is its sk_data_ready. */
static __always_inline void
nsight_udp_enqueue_fentry_body(unsigned long ip, unsigned long parent_ip,
			       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	const struct sock *sk = (const void *)nsight_fentry_arg(fregs, 0);
	const struct sk_buff *skb = (const void *)nsight_fentry_arg(fregs, 1);
	struct nsight_udp_enqueue *q = this_cpu_ptr(&nsight_udp_enqueue);

	nsight_prof_enter(NSIGHT_HOOK_UDP_ENQUEUE);
	q->sk = NULL;
	barrier();
	q->pkt_id = nsight_skb_id(skb, true);
	q->drops = atomic_read(&sk->sk_drops);
	barrier();
	q->sk = sk;
	nsight_prof_exit();
}

NSIGHT_FENTRY_CALLBACK(nsight_udp_enqueue_fentry)

/* The datagram @sk was just given on this CPU, else 0. */
static u64 nsight_udp_enqueued_id(const struct sock *sk)
{
	struct nsight_udp_enqueue *q = this_cpu_ptr(&nsight_udp_enqueue);

	if (q->sk != sk)
		return 0;
	q->sk = NULL;
	if (q->drops != atomic_read(&sk->sk_drops))
		return 0;
	return q->pkt_id;
}

/* The handoff record of a socket with an IPv4 flow, compact. */
static __always_inline void nsight_handoff4_write(const struct sock *sk,
						  const struct nsight_cflow4 *cf,
						  u64 pkt_id, u32 rcv_nxt,
						  u32 copied)
{
	u64 sock_id = nsight_sock_id(sk);
	struct nsight_crec_handoff4 *r;
	struct nsight_wr w;

	/* The socket's flow once per CPU (socks.h). */
	if (likely(nsight_sock_named(sock_id, cf))) {
		struct nsight_crec_handoff4f *f;

		f = (void *)__nsight_creserve(&nsight_buf, &w,
					      NSIGHT_CREC_HANDOFF4F, sizeof(*f));
		if (!f)
			return;
		f->sock_id = sock_id;
		f->pkt_id = pkt_id;
		f->rcvq_bytes = sk_rmem_alloc_get(sk);
		f->rcvq_len = skb_queue_len_lockless(&sk->sk_receive_queue);
		f->tcp_rcv_nxt = rcv_nxt;
		f->tcp_copied_seq = copied;
		nsight_commit(&w);
		return;
	}
	r = (void *)__nsight_creserve(&nsight_buf, &w, NSIGHT_CREC_HANDOFF4,
				      sizeof(*r));
	if (!r)
		return;
	r->sock_id = sock_id;
	r->pkt_id = pkt_id;
	r->flow = *cf;
	r->rcvq_bytes = sk_rmem_alloc_get(sk);
	r->rcvq_len = skb_queue_len_lockless(&sk->sk_receive_queue);
	r->tcp_rcv_nxt = rcv_nxt;
	r->tcp_copied_seq = copied;
	nsight_commit(&w);
}

/*
 * The packet that made @sk readable, and for TCP the receiver's sequence
 * numbers.
 */
static __always_inline u64 nsight_handoff_pkt(const struct sock *sk,
					      u32 *rcv_nxt, u32 *copied)
{
	u64 pkt_id = 0;

	*rcv_nxt = 0;
	*copied = 0;
	if (sk->sk_protocol == IPPROTO_UDP && READ_ONCE(nsight_udp_enqueue_on))
		pkt_id = nsight_udp_enqueued_id(sk);
	if (!pkt_id)
		pkt_id = nsight_rcvq_tail_id(sk);
	if (sk->sk_protocol == IPPROTO_TCP) {
		*rcv_nxt = READ_ONCE(tcp_sk(sk)->rcv_nxt);
		*copied = READ_ONCE(tcp_sk(sk)->copied_seq);
	}
	return pkt_id;
}

/*
 * nsight_handoff() in general: the socket's struct nsight_flow, the filter
 * on flows, IPv6 (out of line, with its larger frame).
 */
static noinline void nsight_handoff_flow(const struct sock *sk)
{
	struct nsight_rec_handoff *r;
	struct nsight_flow flow __uninitialized;
	struct nsight_cflow4 cf;
	struct nsight_wr w;
	u32 rcv_nxt, copied;
	u64 pkt_id;

	nsight_sock_flow(sk, &flow);
	if (!nsight_filter_ok_flow(&flow))
		return;
	pkt_id = nsight_handoff_pkt(sk, &rcv_nxt, &copied);
	if (nsight_flow_v4(&flow)) {
		nsight_cflow4_fill(&cf, &flow);
		nsight_handoff4_write(sk, &cf, pkt_id, rcv_nxt, copied);
		return;
	}
	r = nsight_reserve(&w, NSIGHT_REC_HANDOFF, sizeof(*r));
	if (!r)
		return;
	r->sock_id = nsight_sock_id(sk);
	r->flow = flow;
	r->rcvq_bytes = sk_rmem_alloc_get(sk);
	r->rcvq_len = skb_queue_len_lockless(&sk->sk_receive_queue);
	r->pkt_id = pkt_id;
	r->tcp_rcv_nxt = rcv_nxt;
	r->tcp_copied_seq = copied;
	nsight_commit(&w);
}

/* Data became readable on @sk and its readers are being woken. */
static void nsight_handoff(const struct sock *sk, enum nsight_hook hook)
{
	struct nsight_cflow4 cf;
	u32 rcv_nxt, copied;
	u64 pkt_id;

	/* Unix and netlink sockets use sock_def_readable() too. */
	if (sk->sk_family != AF_INET && sk->sk_family != AF_INET6)
		return;
	nsight_prof_enter(hook);
	/* An IPv4 socket and no filter on flows: the compact flow in place. */
	if (likely(sk->sk_family == AF_INET && !nsight_filter_flows())) {
		nsight_sock_cflow4(sk, &cf);
		pkt_id = nsight_handoff_pkt(sk, &rcv_nxt, &copied);
		nsight_handoff4_write(sk, &cf, pkt_id, rcv_nxt, copied);
	} else {
		nsight_handoff_flow(sk);
	}
	nsight_prof_exit();
}

/* The sk_data_ready tracepoint (6.6 and later), in sock_def_readable(). */
static void nsight_sk_data_ready(void *data, const struct sock *sk)
{
	nsight_handoff(sk, NSIGHT_HOOK_SK_DATA_READY);
}

/* sock_def_readable(struct sock *sk), where the kernel has no tracepoint. */
static __always_inline void
nsight_handoff_fentry_body(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	nsight_handoff((const struct sock *)nsight_fentry_arg(fregs, 0),
		       NSIGHT_HOOK_HANDOFF);
}

NSIGHT_FENTRY_CALLBACK(nsight_handoff_fentry)

/*
 * udp:udp_fail_queue_rcv_skb: @sk had no room for a datagram (-ENOMEM: its
 * receive buffer is full, -ENOBUFS: UDP's memory limit); softirq.
 */
static void nsight_udp_fail(void *data, NSIGHT_UDP_FAIL_ARGS)
{
	const struct sk_buff *dropped = NSIGHT_UDP_FAIL_DROPPED;
	struct nsight_rec_sock_drop *r;
	struct nsight_flow flow __uninitialized;
	struct nsight_wr w;

	if (sk->sk_family != AF_INET && sk->sk_family != AF_INET6)
		return;
	nsight_prof_enter(NSIGHT_HOOK_UDP_FAIL);
	nsight_sock_flow(sk, &flow);
	if (!nsight_filter_ok_flow(&flow))
		goto out;
	r = nsight_reserve(&w, NSIGHT_REC_SOCK_DROP, sizeof(*r));
	if (!r)
		goto out;
	r->sock_id = nsight_sock_id(sk);
	r->pkt_id = nsight_skb_id(dropped, false);
	r->flow = flow;
	r->rcvq_bytes = sk_rmem_alloc_get(sk);
	r->rcvbuf = READ_ONCE(sk->sk_rcvbuf);
	r->rc = rc;
	r->pad = 0;
	nsight_commit(&w);
out:
	nsight_prof_exit();
}

/* skb_tstamp_tx(orig_skb, hwtstamps): the driver's transmit timestamp. */
static __always_inline void
nsight_tstamp_tx_body(unsigned long ip, unsigned long parent_ip,
		      struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	const struct sk_buff *skb = (const void *)nsight_fentry_arg(fregs, 0);
	const struct skb_shared_hwtstamps *hw =
		(const void *)nsight_fentry_arg(fregs, 1);

	nsight_prof_enter(NSIGHT_HOOK_TSTAMP_TX);
	nsight_pkt_write(skb, skb_network_offset(skb), NSIGHT_PKT_TX_TSTAMP,
			 hw ? hw->hwtstamp : 0);
	nsight_prof_exit();
}

NSIGHT_FENTRY_CALLBACK(nsight_tstamp_tx)

enum {
	NSIGHT_TP_NETIF_RX,
	NSIGHT_TP_GRO_RECEIVE,
	NSIGHT_TP_NETIF_RECEIVE_SKB,
	NSIGHT_TP_DEV_QUEUE,
	NSIGHT_TP_DEV_START_XMIT,
	NSIGHT_TP_SK_DATA_READY,
	NSIGHT_TP_UDP_FAIL,
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
	[NSIGHT_TP_SK_DATA_READY] = {
		.name = "sk_data_ready", .probe = nsight_sk_data_ready,
		.optional = true,
	},
	[NSIGHT_TP_UDP_FAIL] = {
		.name = "udp_fail_queue_rcv_skb", .probe = nsight_udp_fail,
		.optional = true,
	},
};

static const u32 nsight_net_tp_source[NSIGHT_NET_NR_TP] = {
	[NSIGHT_TP_NETIF_RX] = NSIGHT_SRC_NET_RX,
	[NSIGHT_TP_GRO_RECEIVE] = NSIGHT_SRC_NET_RX,
	[NSIGHT_TP_NETIF_RECEIVE_SKB] = NSIGHT_SRC_NET_RX,
	[NSIGHT_TP_DEV_QUEUE] = NSIGHT_SRC_NET_TX,
	[NSIGHT_TP_DEV_START_XMIT] = NSIGHT_SRC_NET_TX,
	[NSIGHT_TP_SK_DATA_READY] = NSIGHT_SRC_HANDOFF,
	[NSIGHT_TP_UDP_FAIL] = NSIGHT_SRC_HANDOFF,
};

enum {
	NSIGHT_FE_HANDOFF,
	NSIGHT_FE_TSTAMP_TX,
	NSIGHT_FE_UDP_ENQUEUE,
	NSIGHT_NET_NR_FE
};

static struct nsight_fentry nsight_net_fentries[NSIGHT_NET_NR_FE] = {
	/* Only where the sk_data_ready tracepoint is missing (6.1). */
	[NSIGHT_FE_HANDOFF] = {
		.symbol = "sock_def_readable", .func = nsight_handoff_fentry,
		.source = NSIGHT_SRC_HANDOFF,
	},
	[NSIGHT_FE_TSTAMP_TX] = {
		.symbol = "skb_tstamp_tx", .func = nsight_tstamp_tx,
		.source = NSIGHT_SRC_NET_TX,
	},
	[NSIGHT_FE_UDP_ENQUEUE] = {
		.symbol = "__udp_enqueue_schedule_skb",
		.func = nsight_udp_enqueue_fentry,
		.source = NSIGHT_SRC_HANDOFF,
	},
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
		if (!(sources & BIT(nsight_net_tp_source[i])) ||
		    !nsight_net_tps[i].tp)
			continue;
		ret = nsight_tp_attach(&nsight_net_tps[i], 1);
		if (ret)
			goto err;
	}
	/* The hand-off: the tracepoint where there is one, else ftrace. */
	if (nsight_net_tps[NSIGHT_TP_SK_DATA_READY].tp)
		ret = nsight_fentries_attach(&nsight_net_fentries[NSIGHT_FE_TSTAMP_TX],
					     NSIGHT_NET_NR_FE - NSIGHT_FE_TSTAMP_TX,
					     sources);
	else
		ret = nsight_fentries_attach(nsight_net_fentries,
					     NSIGHT_NET_NR_FE, sources);
	if (ret)
		goto err;
	WRITE_ONCE(nsight_udp_enqueue_on,
		   nsight_net_fentries[NSIGHT_FE_UDP_ENQUEUE].attached);
	return 0;
err:
	nsight_net_detach();
	return ret;
}

/*
 * Detach everything: ftrace hooks are synchronized on return, tracepoint
 * probes after the caller's tracepoint_synchronize_unregister().
 */
void nsight_net_detach(void)
{
	unsigned int cpu;

	nsight_fentries_detach(nsight_net_fentries, NSIGHT_NET_NR_FE);
	nsight_tp_detach(nsight_net_tps, NSIGHT_NET_NR_TP);
	WRITE_ONCE(nsight_udp_enqueue_on, false);
	for_each_possible_cpu(cpu)
		per_cpu_ptr(&nsight_udp_enqueue, cpu)->sk = NULL;
}
