// SPDX-License-Identifier: GPL-2.0
/*
 * Application records, with no change to the application (statically linked
 * programs included):
 *
 *  - skb_copy_datagram_iovec: the data of one TCP packet is copied to the
 *    application (tracepoint, found by name);
 *  - skb_consume_udp(): a UDP receive has copied its datagram and lets it
 *    go (ftrace entry hook; udp_recvmsg() copies linear datagrams without
 *    the tracepoint);
 *  - an application receive: where the kernel has the sock_recv_length
 *    tracepoint (6.3 and later), an ftrace entry hook on inet_recvmsg() and
 *    inet6_recvmsg() writes an app_recv_start record and the tracepoint,
 *    when sock_recvmsg() returns, the app_recv record; elsewhere a
 *    kretprobe on inet{,6}_recvmsg() writes the app_recv record alone;
 *  - inet_sendmsg()/inet6_sendmsg() entry: an application send begins
 *    (ftrace entry hook).
 *
 * A kretprobe costs about eleven times what an ftrace entry hook does and
 * thirty times a tracepoint (make bench, "dispatch"): it is used only where
 * the kernel offers nothing else.
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
#include "fentry.h"
#include "filter.h"
#include "buffer.h"
#include "names.h"
#include "socks.h"
#include "pkt.h"
#include "profile.h"
#include "compat.h"

static bool nsight_inet_sock(const struct sock *sk)
{
	return sk && (sk->sk_family == AF_INET || sk->sk_family == AF_INET6);
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
 * nsight_send_dest() for an IPv4 socket's compact flow: true if @msg has
 * no address or an IPv4 one (then the peer), false if it has another
 * (nsight_send_dest() decides).
 */
static __always_inline bool nsight_send_dest4(struct nsight_cflow4 *c,
					      const struct msghdr *msg)
{
	const struct sockaddr_in *sin = msg->msg_name;

	if (!sin)
		return true;
	if (msg->msg_namelen < (int)sizeof(*sin) || sin->sin_family != AF_INET)
		return false;
	c->daddr = sin->sin_addr.s_addr;
	c->dport = ntohs(sin->sin_port);
	return true;
}

/* start_tsc of a record written where the call begins: its own stamp. */
#define NSIGHT_APP_START_NOW	U64_MAX

/*
 * The TCP sender's state, read without the socket lock: each field is one
 * load, and a value a moment old is what the reader expects.
 */
static void nsight_tcp_send_state(const struct sock *sk,
				  struct nsight_tcp_send_state *ts)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	ts->snd_una = READ_ONCE(tp->snd_una);
	ts->snd_nxt = READ_ONCE(tp->snd_nxt);
	ts->snd_wnd = READ_ONCE(tp->snd_wnd);
	ts->snd_cwnd = tcp_snd_cwnd(tp);
	ts->packets_out = READ_ONCE(tp->packets_out);
	ts->mss = READ_ONCE(tp->mss_cache);
	ts->wmem_queued = READ_ONCE(sk->sk_wmem_queued);
	ts->sndbuf = READ_ONCE(sk->sk_sndbuf);
	ts->nonagle = tp->nonagle;
	ts->srtt_us = READ_ONCE(tp->srtt_us) >> 3;
}

/* The app_recv or app_send record of an IPv4 flow, compact. */
static __always_inline void nsight_app4_write(u16 type, struct sock *sk,
					      const struct nsight_cflow4 *cf,
					      u64 sock_id, u64 start, s64 ret,
					      u32 tcp_seq, u32 flags,
					      bool tcp_state)
{
	u32 tail = tcp_state ? sizeof(struct nsight_tcp_send_state) : 0;
	u32 size = sizeof(struct nsight_crec_app4n) + tail;
	struct nsight_crec_app4n *r;
	struct nsight_wr w;

	/* The task's name once per CPU (names.h), the record by tid. */
	nsight_name_current();
	if (likely(ret == (s32)ret &&
		   (type == NSIGHT_REC_APP_SEND ? start == NSIGHT_APP_START_NOW :
		    !start))) {
		struct nsight_crec_app4s *c;

		/* The socket's flow once per CPU (socks.h). */
		if (likely(nsight_sock_named(sock_id, cf))) {
			struct nsight_crec_app4f *f;

			f = (void *)__nsight_creserve(&nsight_buf, &w,
						      type == NSIGHT_REC_APP_SEND ?
						      NSIGHT_CREC_APP_SEND4F :
						      NSIGHT_CREC_APP_RECV4F,
						      sizeof(*f) + tail);
			if (!f)
				return;
			if (tcp_state)
				nsight_tcp_send_state(sk, (void *)(f + 1));
			f->sock_id = sock_id;
			f->ret = ret;
			f->tcp_seq = tcp_seq;
			f->tid = current->pid;
			f->flags = flags;
			nsight_commit(&w);
			return;
		}
		/* The short form: the type says where the call began. */
		c = (void *)__nsight_creserve(&nsight_buf, &w,
					      type == NSIGHT_REC_APP_SEND ?
					      NSIGHT_CREC_APP_SEND4S :
					      NSIGHT_CREC_APP_RECV4S,
					      sizeof(*c) + tail);
		if (!c)
			return;
		if (tcp_state)
			nsight_tcp_send_state(sk, (void *)(c + 1));
		c->sock_id = sock_id;
		c->flow = *cf;
		c->ret = ret;
		c->tcp_seq = tcp_seq;
		c->tid = current->pid;
		c->flags = flags;
		nsight_commit(&w);
		return;
	}
	r = (void *)__nsight_creserve(&nsight_buf, &w,
				      type == NSIGHT_REC_APP_SEND ?
				      NSIGHT_CREC_APP_SEND4N :
				      NSIGHT_CREC_APP_RECV4N, size);
	if (!r)
		return;
	if (tcp_state)
		nsight_tcp_send_state(sk, (struct nsight_tcp_send_state *)(r + 1));
	r->sock_id = sock_id;
	r->start_tsc = start == NSIGHT_APP_START_NOW ? w.tsc : start;
	r->ret = ret;
	r->flow = *cf;
	r->tcp_seq = tcp_seq;
	r->tid = current->pid;
	r->flags = flags;
	r->pad = 0;
	nsight_commit(&w);
}

/*
 * nsight_app_write() in general: the socket's struct nsight_flow, with a
 * send's destination and the filter on flows.
 */
static noinline void nsight_app_write_flow(u16 type, struct sock *sk,
					   const struct msghdr *msg,
					   u64 start, s64 ret, u32 tcp_seq,
					   u32 flags, bool tcp_state)
{
	struct nsight_rec_app *r;
	struct nsight_flow flow __uninitialized;
	struct nsight_cflow4 cf;
	struct nsight_wr w;
	u64 sock_id;

	nsight_sock_flow(sk, &flow);
	if (msg && !sk->sk_dport)
		nsight_send_dest(&flow, msg);
	if (!nsight_filter_ok_flow(&flow))
		return;
	sock_id = nsight_sock_id(sk);
	if (nsight_flow_v4(&flow)) {
		nsight_cflow4_fill(&cf, &flow);
		nsight_app4_write(type, sk, &cf, sock_id, start, ret, tcp_seq,
				  flags, tcp_state);
		return;
	}
	r = nsight_reserve(&w, type, sizeof(*r) + (tcp_state ?
			   sizeof(struct nsight_tcp_send_state) : 0));
	if (!r)
		return;
	if (tcp_state)
		nsight_tcp_send_state(sk, (struct nsight_tcp_send_state *)(r + 1));
	r->sock_id = sock_id;
	r->flow = flow;
	r->start_tsc = start == NSIGHT_APP_START_NOW ? w.tsc : start;
	r->ret = ret;
	r->tcp_seq = tcp_seq;
	r->tid = current->pid;
	r->pid = current->tgid;
	r->flags = flags;
	memcpy(r->comm, current->comm, sizeof(r->comm));
	nsight_commit(&w);
}

/*
 * An app_recv or app_send record of @sk (@msg: the send's message, for
 * its destination; @start: when the call began, NSIGHT_APP_START_NOW, or
 * 0 when an app_recv_start record has it). A send on a TCP socket carries
 * the sender's state after the record. The filter decides first; nothing
 * is written if it rejects the event.
 */
static void nsight_app_write(u16 type, struct sock *sk,
			     const struct msghdr *msg, u64 start, s64 ret,
			     u32 tcp_seq, u32 flags)
{
	bool tcp_state = type == NSIGHT_REC_APP_SEND &&
			 sk->sk_protocol == IPPROTO_TCP;
	struct nsight_cflow4 cf;

	if (!nsight_filter_ok_pid(current->tgid))
		return;
	/*
	 * The common case, an IPv4 socket and no filter on flows: the compact
	 * flow read from the socket (and a datagram's sendto address), no
	 * struct nsight_flow; the general case is out of line, with its
	 * larger frame.
	 */
	if (unlikely(sk->sk_family != AF_INET || nsight_filter_flows()))
		goto general;
	nsight_sock_cflow4(sk, &cf);
	if (msg && !sk->sk_dport && !nsight_send_dest4(&cf, msg))
		goto general;
	nsight_app4_write(type, sk, &cf, nsight_sock_id(sk), start, ret,
			  tcp_seq, flags, tcp_state);
	return;
general:
	nsight_app_write_flow(type, sk, msg, start, ret, tcp_seq, flags,
			      tcp_state);
}

/* app_copy: @len bytes of @skb (all its payload if < 0) go to the task. */
static void nsight_app_copy(const struct sk_buff *skb, int len)
{
	struct nsight_rec_app_copy *r;
	struct nsight_pkt_info pi __uninitialized;
	struct nsight_wr w;

	if (!nsight_skb_ip(skb))
		return;
	if (nsight_pkt_parse_handed(skb, skb_network_offset(skb), &pi,
				    !nsight_filter_flows()) ||
	    !nsight_filter_ok_flow(&pi.flow) ||
	    !nsight_filter_ok_pid(current->tgid))
		return;
	if (pi.flow.protocol != IPPROTO_TCP) {
		struct nsight_crec_app_copy0 *c;

		/* A datagram: no sequence, the task by tid (names.h). */
		nsight_name_current();
		c = (void *)__nsight_creserve(&nsight_buf, &w,
					      NSIGHT_CREC_APP_COPY0, sizeof(*c));
		if (!c)
			return;
		c->pkt_id = pi.id;
		c->len = len < 0 ? pi.payload_len : len;
		c->tid = current->pid;
		nsight_commit(&w);
		return;
	}
	r = nsight_reserve(&w, NSIGHT_REC_APP_COPY, sizeof(*r));
	if (!r)
		return;
	r->pkt_id = pi.id;
	/* In the receive queue, TCP keeps the sequence range in the cb. */
	r->seq = TCP_SKB_CB(skb)->seq;
	r->len = len < 0 ? pi.payload_len : len;
	r->tid = current->pid;
	r->pid = current->tgid;
	nsight_commit(&w);
}

static void nsight_skb_copy(void *data, const struct sk_buff *skb, int len)
{
	/*
	 * Unix and netlink sockets copy datagrams this way too; UDP is
	 * recorded where its datagram is consumed (nsight_udp_consume).
	 */
	if (!nsight_inet_sock(skb->sk) || skb->sk->sk_protocol != IPPROTO_TCP)
		return;
	nsight_prof_enter(NSIGHT_HOOK_SKB_COPY);
	nsight_app_copy(skb, len);
	nsight_prof_exit();
}

/*
 * skb_consume_udp(struct sock *sk, struct sk_buff *skb, int len): a UDP
 * receive copied @skb and is about to return. The datagram is still
 * whole.
 */
static __always_inline void
nsight_udp_consume_body(unsigned long ip, unsigned long parent_ip,
			struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	const struct sk_buff *skb = (const void *)nsight_fentry_arg(fregs, 1);

	nsight_prof_enter(NSIGHT_HOOK_UDP_CONSUME);
	nsight_app_copy(skb, -1);
	nsight_prof_exit();
}

NSIGHT_FENTRY_CALLBACK(nsight_udp_consume)

/* Whether the filter on flows lets @sk's flow through (out of line). */
static noinline bool nsight_sock_filter_ok(const struct sock *sk)
{
	struct nsight_flow flow __uninitialized;

	nsight_sock_flow(sk, &flow);
	return nsight_filter_ok_flow(&flow);
}

/*
 * inet_recvmsg(struct socket *sock, struct msghdr *msg, size_t size,
 *		int flags) entry, where sock_recv_length gives the end: the
 * start of the receive, which the analysis pairs with the next app_recv
 * of the thread.
 */
static __always_inline void
nsight_recv_start_body(unsigned long ip, unsigned long parent_ip,
		       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct socket *sock = (struct socket *)nsight_fentry_arg(fregs, 0);
	struct nsight_rec_app_start *r;
	struct nsight_wr w;

	if (!nsight_inet_sock(sock->sk) ||
	    !nsight_filter_ok_pid(current->tgid))
		return;
	/* With a port or address filter, only its sockets' receives. */
	if (nsight_filter_flows() && !nsight_sock_filter_ok(sock->sk))
		return;
	nsight_prof_enter(NSIGHT_HOOK_RECVMSG);
	r = nsight_reserve(&w, NSIGHT_REC_APP_RECV_START, sizeof(*r));
	if (r) {
		r->tid = current->pid;
		r->flags = nsight_fentry_arg(fregs, 3);
		nsight_commit(&w);
	}
	nsight_prof_exit();
}

NSIGHT_FENTRY_CALLBACK(nsight_recv_start)

/*
 * sock_recv_length(sk, ret, flags): sock_recvmsg() returns @ret. The socket
 * cannot go away during the call: the caller holds a reference to its
 * file.
 */
static void nsight_recv_length(void *data, struct sock *sk, int ret,
			       int flags)
{
	if (!nsight_inet_sock(sk))
		return;
	nsight_prof_enter(NSIGHT_HOOK_RECV_LENGTH);
	nsight_app_write(NSIGHT_REC_APP_RECV, sk, NULL, 0, ret,
			 sk->sk_protocol == IPPROTO_TCP ?
			 READ_ONCE(tcp_sk(sk)->copied_seq) : 0, flags);
	nsight_prof_exit();
}

struct nsight_recv_call {
	struct sock *sk;
	u64 start;
	int flags;
};

/* The kretprobe fallback: inet_recvmsg() entry... */
static int nsight_recv_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct nsight_recv_call *c = (void *)ri->data;
	struct socket *sock = (struct socket *)nsight_kprobe_arg(regs, 0);
	int ret = 1;

	nsight_prof_enter(NSIGHT_HOOK_RECVMSG_KRET);
	c->sk = sock->sk;
	if (nsight_inet_sock(c->sk)) {
		c->start = nsight_clock();
		c->flags = nsight_kprobe_arg(regs, 3);
		ret = 0;
	}
	nsight_prof_exit();
	return ret;
}

/* ... and return. */
static int nsight_recv_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct nsight_recv_call *c = (void *)ri->data;
	struct sock *sk = c->sk;

	nsight_prof_enter(NSIGHT_HOOK_RECVMSG_RET);
	nsight_app_write(NSIGHT_REC_APP_RECV, sk, NULL, c->start,
			 (long)regs_return_value(regs),
			 sk->sk_protocol == IPPROTO_TCP ?
			 READ_ONCE(tcp_sk(sk)->copied_seq) : 0, c->flags);
	nsight_prof_exit();
	return 0;
}

/* inet_sendmsg(struct socket *sock, struct msghdr *msg, size_t size) */
static __always_inline void
nsight_send_body(unsigned long ip, unsigned long parent_ip,
		 struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct socket *sock = (struct socket *)nsight_fentry_arg(fregs, 0);
	const struct msghdr *msg = (const void *)nsight_fentry_arg(fregs, 1);
	struct sock *sk = sock->sk;

	if (!nsight_inet_sock(sk))
		return;
	nsight_prof_enter(NSIGHT_HOOK_SENDMSG);
	nsight_app_write(NSIGHT_REC_APP_SEND, sk, msg, NSIGHT_APP_START_NOW,
			 nsight_fentry_arg(fregs, 2),
			 sk->sk_protocol == IPPROTO_TCP ?
			 READ_ONCE(tcp_sk(sk)->write_seq) : 0, msg->msg_flags);
	nsight_prof_exit();
}

NSIGHT_FENTRY_CALLBACK(nsight_send)

enum { NSIGHT_TP_SKB_COPY, NSIGHT_TP_RECV_LENGTH, NSIGHT_APP_NR_TP };

static struct nsight_tp nsight_app_tps[NSIGHT_APP_NR_TP] = {
	[NSIGHT_TP_SKB_COPY] = {
		.name = "skb_copy_datagram_iovec", .probe = nsight_skb_copy,
	},
	[NSIGHT_TP_RECV_LENGTH] = {
		.name = "sock_recv_length", .probe = nsight_recv_length,
		.optional = true,
	},
};

/* Receivers blocked in recvmsg each hold an instance while they wait. */
#define NSIGHT_RECV_MAXACTIVE	256

/* Only where the sock_recv_length tracepoint is missing (6.1). */
static struct nsight_kretprobe nsight_app_kretprobes[] = {
	{ .symbol = "inet_recvmsg", .entry = nsight_recv_entry,
	  .ret = nsight_recv_ret, .data_size = sizeof(struct nsight_recv_call),
	  .maxactive = NSIGHT_RECV_MAXACTIVE, .source = NSIGHT_SRC_APP },
#if IS_ENABLED(CONFIG_IPV6)
	{ .symbol = "inet6_recvmsg", .entry = nsight_recv_entry,
	  .ret = nsight_recv_ret, .data_size = sizeof(struct nsight_recv_call),
	  .maxactive = NSIGHT_RECV_MAXACTIVE, .source = NSIGHT_SRC_APP },
#endif
};

static struct nsight_fentry nsight_app_fentries[] = {
	{ .symbol = "skb_consume_udp", .func = nsight_udp_consume,
	  .source = NSIGHT_SRC_APP },
	{ .symbol = "inet_sendmsg", .func = nsight_send,
	  .source = NSIGHT_SRC_APP },
#if IS_ENABLED(CONFIG_IPV6)
	{ .symbol = "inet6_sendmsg", .func = nsight_send,
	  .source = NSIGHT_SRC_APP },
#endif
};

/* With sock_recv_length: the starts of the receives. */
static struct nsight_fentry nsight_recv_fentries[] = {
	{ .symbol = "inet_recvmsg", .func = nsight_recv_start,
	  .source = NSIGHT_SRC_APP },
#if IS_ENABLED(CONFIG_IPV6)
	{ .symbol = "inet6_recvmsg", .func = nsight_recv_start,
	  .source = NSIGHT_SRC_APP },
#endif
};

int nsight_app_init(void)
{
	return nsight_tp_lookup(nsight_app_tps, NSIGHT_APP_NR_TP);
}

static bool nsight_have_recv_length(void)
{
	return nsight_app_tps[NSIGHT_TP_RECV_LENGTH].tp;
}

int nsight_app_attach(u32 sources)
{
	int ret;

	if (!(sources & BIT(NSIGHT_SRC_APP)))
		return 0;
	ret = nsight_tp_attach(&nsight_app_tps[NSIGHT_TP_SKB_COPY], 1);
	if (ret)
		return ret;
	ret = nsight_fentries_attach(nsight_app_fentries,
				     ARRAY_SIZE(nsight_app_fentries), sources);
	if (ret)
		goto err;
	if (nsight_have_recv_length()) {
		/* The starts first: every end then has its start. */
		ret = nsight_fentries_attach(nsight_recv_fentries,
					     ARRAY_SIZE(nsight_recv_fentries),
					     sources);
		if (!ret)
			ret = nsight_tp_attach(&nsight_app_tps[NSIGHT_TP_RECV_LENGTH],
					       1);
	} else {
		ret = nsight_kretprobes_attach(nsight_app_kretprobes,
					       ARRAY_SIZE(nsight_app_kretprobes),
					       sources);
	}
	if (ret)
		goto err;
	return 0;

err:
	nsight_app_detach();
	return ret;
}

/*
 * Detach all; ftrace hooks and kretprobes are synchronized on return,
 * tracepoint probes after the caller's tracepoint_synchronize_unregister().
 */
void nsight_app_detach(void)
{
	nsight_kretprobes_detach(nsight_app_kretprobes,
				 ARRAY_SIZE(nsight_app_kretprobes));
	nsight_tp_detach(nsight_app_tps, NSIGHT_APP_NR_TP);
	nsight_fentries_detach(nsight_recv_fentries,
			       ARRAY_SIZE(nsight_recv_fentries));
	nsight_fentries_detach(nsight_app_fentries,
			       ARRAY_SIZE(nsight_app_fentries));
}

u64 nsight_app_missed(void)
{
	return nsight_kretprobes_missed(nsight_app_kretprobes,
					ARRAY_SIZE(nsight_app_kretprobes));
}
