// SPDX-License-Identifier: GPL-2.0
/*
 * Application records, with no change to the application (statically linked
 * programs included):
 *
 *  - skb_copy_datagram_iovec: the data of one TCP packet is copied to the
 *    application (tracepoint, found by name);
 *  - the return of __skb_recv_udp(): the datagram a UDP receive returns
 *    (kretprobe; udp_recvmsg() copies linear datagrams without the
 *    tracepoint);
 *  - the return of inet_recvmsg()/inet6_recvmsg(): an application receive
 *    completed, with its byte count (kretprobe; the entry handler notes the
 *    socket and when the call began);
 *  - the entry of inet_sendmsg()/inet6_sendmsg(): an application send
 *    begins (kprobe).
 */
#include <linux/sched.h>
#include <linux/skbuff.h>
#include <linux/socket.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/net.h>
#include <linux/string.h>
#include <linux/udp.h>
#include <linux/err.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/ipv6.h>
#include "app_hooks.h"
#include "tracepoint.h"
#include "kprobe.h"
#include "filter.h"
#include "buffer.h"
#include "pkt.h"
#include "compat.h"

static bool nsight_inet_sock(const struct sock *sk)
{
	return sk && (sk->sk_family == AF_INET || sk->sk_family == AF_INET6);
}

static void nsight_app_task(u32 *tid, u32 *pid)
{
	*tid = current->pid;
	*pid = current->tgid;
}

/* For an unconnected datagram socket, the peer is the sendto address. */
static void nsight_send_dest(struct nsight_flow *f, const struct msghdr *msg)
{
	const struct sockaddr *sa = msg->msg_name;

	if (!sa || msg->msg_namelen < (int)sizeof(sa->sa_family))
		return;
	if (sa->sa_family == AF_INET &&
	    msg->msg_namelen >= (int)sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *sin = msg->msg_name;

		ipv6_addr_set_v4mapped(sin->sin_addr.s_addr,
				       (struct in6_addr *)f->daddr);
		f->dport = ntohs(sin->sin_port);
	} else if (sa->sa_family == AF_INET6 &&
		   msg->msg_namelen >= (int)sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *sin6 = msg->msg_name;

		memcpy(f->daddr, &sin6->sin6_addr, 16);
		f->dport = ntohs(sin6->sin6_port);
	}
}

/*
 * Fill the fields common to app_recv and app_send (@msg: the send's message,
 * for its destination). Returns false when the filter rejects the event.
 */
static bool nsight_app_fill(struct nsight_rec_app *r, u16 type,
			    struct sock *sk, const struct msghdr *msg)
{
	nsight_sock_flow(sk, &r->flow);
	if (msg && !sk->sk_dport)
		nsight_send_dest(&r->flow, msg);
	if (!nsight_filter_flow(&nsight_filter, &r->flow) ||
	    !nsight_filter_pid(&nsight_filter, current->tgid))
		return false;
	nsight_rec_init(&r->hdr, type, sizeof(*r));
	r->sock_id = nsight_sock_id(sk);
	nsight_app_task(&r->tid, &r->pid);
	memcpy(r->comm, current->comm, sizeof(r->comm));
	return true;
}

/* app_copy: @len bytes of @skb (all its payload if < 0) go to the task. */
static void nsight_app_copy(const struct sk_buff *skb, int len)
{
	struct nsight_rec_app_copy r;
	struct nsight_pkt_info pi;

	if (skb->protocol != htons(ETH_P_IP) &&
	    skb->protocol != htons(ETH_P_IPV6))
		return;
	if (nsight_pkt_parse(skb, skb_network_offset(skb), &pi) ||
	    !nsight_filter_flow(&nsight_filter, &pi.flow) ||
	    !nsight_filter_pid(&nsight_filter, current->tgid))
		return;
	nsight_rec_init(&r.hdr, NSIGHT_REC_APP_COPY, sizeof(r));
	r.pkt_id = pi.id;
	/* In the receive queue, TCP keeps the sequence range in the cb. */
	r.seq = pi.flow.protocol == IPPROTO_TCP ? TCP_SKB_CB(skb)->seq : 0;
	r.len = len < 0 ? pi.payload_len : len;
	nsight_app_task(&r.tid, &r.pid);
	nsight_emit(&r.hdr);
}

static void nsight_skb_copy(void *data, const struct sk_buff *skb, int len)
{
	/*
	 * Unix and netlink sockets copy datagrams this way too; UDP is
	 * recorded where its datagram is dequeued (nsight_udp_recv_ret).
	 */
	if (!nsight_inet_sock(skb->sk) || skb->sk->sk_protocol != IPPROTO_TCP)
		return;
	nsight_app_copy(skb, len);
}

/* __skb_recv_udp(struct sock *sk, unsigned int flags, int *off, int *err) */
static int nsight_udp_recv_entry(struct kretprobe_instance *ri,
				 struct pt_regs *regs)
{
	return !nsight_inet_sock((struct sock *)nsight_kprobe_arg(regs, 0));
}

/* The datagram stays the caller's until it is copied: safe to read. */
static int nsight_udp_recv_ret(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	const struct sk_buff *skb = (const void *)regs_return_value(regs);

	if (IS_ERR_OR_NULL(skb))
		return 0;
	nsight_app_copy(skb, -1);
	return 0;
}

struct nsight_recv_call {
	struct sock *sk;
	u64 start;
	int flags;
};

/* inet_recvmsg(struct socket *sock, struct msghdr *msg, size_t size, int flags) */
static int nsight_recv_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct nsight_recv_call *c = (void *)ri->data;
	struct socket *sock = (struct socket *)nsight_kprobe_arg(regs, 0);

	c->sk = sock->sk;
	if (!nsight_inet_sock(c->sk))
		return 1;
	c->start = nsight_clock();
	c->flags = nsight_kprobe_arg(regs, 3);
	return 0;
}

/*
 * The socket cannot go away during the call: the caller holds a reference
 * to its file.
 */
static int nsight_recv_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct nsight_recv_call *c = (void *)ri->data;
	struct nsight_rec_app r;

	if (!nsight_app_fill(&r, NSIGHT_REC_APP_RECV, c->sk, NULL))
		return 0;
	r.start_tsc = c->start;
	r.ret = (long)regs_return_value(regs);
	r.tcp_seq = c->sk->sk_protocol == IPPROTO_TCP ?
		    READ_ONCE(tcp_sk(c->sk)->copied_seq) : 0;
	r.flags = c->flags;
	nsight_emit(&r.hdr);
	return 0;
}

/* inet_sendmsg(struct socket *sock, struct msghdr *msg, size_t size) */
static int nsight_send_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct socket *sock = (struct socket *)nsight_kprobe_arg(regs, 0);
	const struct msghdr *msg = (const void *)nsight_kprobe_arg(regs, 1);
	struct sock *sk = sock->sk;
	struct nsight_rec_app r;

	if (!nsight_inet_sock(sk) ||
	    !nsight_app_fill(&r, NSIGHT_REC_APP_SEND, sk, msg))
		return 0;
	r.start_tsc = nsight_clock();
	r.ret = nsight_kprobe_arg(regs, 2);
	r.tcp_seq = sk->sk_protocol == IPPROTO_TCP ?
		    READ_ONCE(tcp_sk(sk)->write_seq) : 0;
	r.flags = msg->msg_flags;
	nsight_emit(&r.hdr);
	return 0;
}

static struct nsight_tp nsight_app_tps[] = {
	{ .name = "skb_copy_datagram_iovec", .probe = nsight_skb_copy },
};

/* Receivers blocked in recvmsg each hold an instance while they wait. */
#define NSIGHT_RECV_MAXACTIVE	256

static struct nsight_kretprobe nsight_app_kretprobes[] = {
	{ .symbol = "__skb_recv_udp", .entry = nsight_udp_recv_entry,
	  .ret = nsight_udp_recv_ret, .maxactive = NSIGHT_RECV_MAXACTIVE,
	  .source = NSIGHT_SRC_APP },
	{ .symbol = "inet_recvmsg", .entry = nsight_recv_entry,
	  .ret = nsight_recv_ret, .data_size = sizeof(struct nsight_recv_call),
	  .maxactive = NSIGHT_RECV_MAXACTIVE, .source = NSIGHT_SRC_APP },
#if IS_ENABLED(CONFIG_IPV6)
	{ .symbol = "inet6_recvmsg", .entry = nsight_recv_entry,
	  .ret = nsight_recv_ret, .data_size = sizeof(struct nsight_recv_call),
	  .maxactive = NSIGHT_RECV_MAXACTIVE, .source = NSIGHT_SRC_APP },
#endif
};

static struct nsight_kprobe nsight_app_kprobes[] = {
	{ .symbol = "inet_sendmsg", .pre = nsight_send_pre,
	  .source = NSIGHT_SRC_APP },
#if IS_ENABLED(CONFIG_IPV6)
	{ .symbol = "inet6_sendmsg", .pre = nsight_send_pre,
	  .source = NSIGHT_SRC_APP },
#endif
};

int nsight_app_init(void)
{
	return nsight_tp_lookup(nsight_app_tps, ARRAY_SIZE(nsight_app_tps));
}

int nsight_app_attach(u32 sources)
{
	int ret;

	if (!(sources & BIT(NSIGHT_SRC_APP)))
		return 0;
	ret = nsight_tp_attach(nsight_app_tps, ARRAY_SIZE(nsight_app_tps));
	if (ret)
		return ret;
	ret = nsight_kretprobes_attach(nsight_app_kretprobes,
				       ARRAY_SIZE(nsight_app_kretprobes),
				       sources);
	if (ret)
		goto err_tp;
	ret = nsight_kprobes_attach(nsight_app_kprobes,
				    ARRAY_SIZE(nsight_app_kprobes), sources);
	if (ret)
		goto err_kretprobes;
	return 0;

err_kretprobes:
	nsight_kretprobes_detach(nsight_app_kretprobes,
				 ARRAY_SIZE(nsight_app_kretprobes));
err_tp:
	nsight_tp_detach(nsight_app_tps, ARRAY_SIZE(nsight_app_tps));
	return ret;
}

void nsight_app_detach(void)
{
	nsight_kprobes_detach(nsight_app_kprobes,
			      ARRAY_SIZE(nsight_app_kprobes));
	nsight_kretprobes_detach(nsight_app_kretprobes,
				 ARRAY_SIZE(nsight_app_kretprobes));
	nsight_tp_detach(nsight_app_tps, ARRAY_SIZE(nsight_app_tps));
}

u64 nsight_app_missed(void)
{
	return nsight_kprobes_missed(nsight_app_kprobes,
				     ARRAY_SIZE(nsight_app_kprobes)) +
	       nsight_kretprobes_missed(nsight_app_kretprobes,
					ARRAY_SIZE(nsight_app_kretprobes));
}
