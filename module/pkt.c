// SPDX-License-Identifier: GPL-2.0
/*
 * Packet parsing and identity.
 *
 * A packet's identity must survive clones, the merge of segments by GRO and
 * the trip through the stack, and must change when an sk_buff is freed and
 * reused: a pointer is none of these. nsight hashes what identifies the
 * packet's content instead (see uapi/linux/nsight.h): for TCP the flow and
 * the sequence number, for UDP the flow, the IP id or flow label, the length
 * and the first payload bytes. The hash is keyed with a key drawn at module
 * load, so records carry no kernel addresses.
 *
 * Parsing starts at the IP header, given as an offset from skb->data: 0 on
 * the receive path before IP input, the network offset elsewhere (negative
 * once the stack has pulled the IP header).
 */
#include <linux/skbuff.h>
#include <linux/ip.h>
#include <net/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <linux/jhash.h>
#include <linux/siphash.h>
#include <linux/random.h>
#include <linux/string.h>
#include <linux/sock_diag.h>
#include <net/sock.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include "pkt.h"

static siphash_key_t nsight_id_key;

void nsight_pkt_init_key(void)
{
	get_random_bytes(&nsight_id_key, sizeof(nsight_id_key));
}

/*
 * The socket's cookie (SO_COOKIE, sock_diag): unique for the life of the
 * system, so a socket allocated where a closed one was is a new socket to
 * the analyzer, as a hash of the pointer could not tell. The kernel makes
 * the cookie the first time anyone asks; only the _save_ accessor is
 * exported.
 */
u64 nsight_sock_id(struct sock *sk)
{
	u32 cookie[2];

	sock_diag_save_cookie(sk, cookie);
	return (u64)cookie[1] << 32 | cookie[0];
}

/*
 * @len bytes at @off from skb->data, copied into @buf if they are not
 * linear. A negative @off must stay within the linear head.
 */
static const void *nsight_skb_bytes(const struct sk_buff *skb, int off,
				    int len, void *buf)
{
	if (off >= 0)
		return skb_header_pointer(skb, off, len, buf);
	if (skb->data + off < skb->head || off + len > (int)skb_headlen(skb))
		return NULL;
	return skb->data + off;
}

/* What is hashed into a packet id; zeroed, so padding is deterministic. */
struct nsight_id_input {
	struct nsight_flow flow;
	u32 seq;
	u32 ipid;	/* IPv4 id or IPv6 flow label, not for TCP */
	u32 len;	/* payload length, not for TCP */
	u8 payload[16];	/* not for TCP */
};

static u64 nsight_pkt_hash(const struct nsight_id_input *in)
{
	return siphash(in, sizeof(*in), &nsight_id_key);
}

/**
 * nsight_pkt_parse - read flow, sequence and identity of a TCP/UDP packet.
 * @skb:    the packet
 * @nh_off: offset of the IP header from skb->data
 * @pi:     filled on success
 *
 * Returns 0, or -EINVAL for anything that is not an unfragmented (or first
 * fragment) TCP or UDP packet over IPv4/IPv6 whose headers can be read.
 */
int nsight_pkt_parse(const struct sk_buff *skb, int nh_off,
		     struct nsight_pkt_info *pi)
{
	struct nsight_id_input in = {};
	union {
		struct iphdr v4;
		struct ipv6hdr v6;
	} ipbuf;
	union {
		struct tcphdr tcp;
		struct udphdr udp;
	} thbuf;
	const struct iphdr *iph;
	const struct tcphdr *th;
	const struct udphdr *uh;
	int th_off, ip_payload;
	const u8 *first;
	u8 proto;

	first = nsight_skb_bytes(skb, nh_off, 1, &ipbuf);
	if (!first)
		return -EINVAL;
	memset(&pi->flow, 0, sizeof(pi->flow));
	if ((*first >> 4) == 4) {
		iph = nsight_skb_bytes(skb, nh_off, sizeof(*iph), &ipbuf);
		if (!iph || iph->ihl < 5 || (iph->frag_off & htons(IP_OFFSET)))
			return -EINVAL;
		proto = iph->protocol;
		pi->flow.family = AF_INET;
		ipv6_addr_set_v4mapped(iph->saddr,
				       (struct in6_addr *)pi->flow.saddr);
		ipv6_addr_set_v4mapped(iph->daddr,
				       (struct in6_addr *)pi->flow.daddr);
		th_off = nh_off + iph->ihl * 4;
		/* tot_len is 0 for aggregates beyond 64 KiB (BIG TCP). */
		ip_payload = ntohs(iph->tot_len) ? ntohs(iph->tot_len) -
			     iph->ihl * 4 : (int)skb->len - th_off;
		in.ipid = ntohs(iph->id);
	} else if ((*first >> 4) == 6) {
		const struct ipv6hdr *ip6h;

		ip6h = nsight_skb_bytes(skb, nh_off, sizeof(*ip6h), &ipbuf);
		if (!ip6h)
			return -EINVAL;
		/* Extension headers are not followed. */
		proto = ip6h->nexthdr;
		pi->flow.family = AF_INET6;
		memcpy(pi->flow.saddr, &ip6h->saddr, 16);
		memcpy(pi->flow.daddr, &ip6h->daddr, 16);
		th_off = nh_off + sizeof(*ip6h);
		ip_payload = ntohs(ip6h->payload_len) ?
			     ntohs(ip6h->payload_len) : (int)skb->len - th_off;
		in.ipid = ntohl(ip6_flowlabel(ip6h));
	} else {
		return -EINVAL;
	}
	pi->flow.protocol = proto;

	switch (proto) {
	case IPPROTO_TCP:
		th = nsight_skb_bytes(skb, th_off, sizeof(*th), &thbuf);
		if (!th || th->doff < 5)
			return -EINVAL;
		pi->flow.sport = ntohs(th->source);
		pi->flow.dport = ntohs(th->dest);
		pi->seq = ntohl(th->seq);
		pi->payload_len = max(ip_payload - th->doff * 4, 0);
		in.flow = pi->flow;
		in.seq = pi->seq;
		in.ipid = 0;
		break;
	case IPPROTO_UDP: {
		const u8 *payload;
		int n;

		uh = nsight_skb_bytes(skb, th_off, sizeof(*uh), &thbuf);
		if (!uh)
			return -EINVAL;
		pi->flow.sport = ntohs(uh->source);
		pi->flow.dport = ntohs(uh->dest);
		pi->seq = 0;
		pi->payload_len = max(ip_payload - (int)sizeof(*uh), 0);
		in.flow = pi->flow;
		in.len = pi->payload_len;
		n = min_t(int, pi->payload_len, sizeof(in.payload));
		payload = n ? nsight_skb_bytes(skb, th_off + sizeof(*uh), n,
					       in.payload) : NULL;
		if (payload && payload != in.payload)
			memcpy(in.payload, payload, n);
		break;
	}
	default:
		return -EINVAL;
	}
	pi->id = nsight_pkt_hash(&in);
	/* Unkeyed: the same on every host the packet crosses. */
	pi->wire_hash = jhash(&in, sizeof(in), 0);
	return 0;
}

/* A socket's flow: s is the local end, d the peer (zero if unconnected). */
void nsight_sock_flow(const struct sock *sk, struct nsight_flow *f)
{
	memset(f, 0, sizeof(*f));
	f->family = sk->sk_family;
	f->protocol = sk->sk_protocol;
	f->sport = ntohs(inet_sk(sk)->inet_sport);
	f->dport = ntohs(sk->sk_dport);
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6) {
		memcpy(f->saddr, &sk->sk_v6_rcv_saddr, 16);
		memcpy(f->daddr, &sk->sk_v6_daddr, 16);
		return;
	}
#endif
	ipv6_addr_set_v4mapped(sk->sk_rcv_saddr, (struct in6_addr *)f->saddr);
	ipv6_addr_set_v4mapped(sk->sk_daddr, (struct in6_addr *)f->daddr);
}
