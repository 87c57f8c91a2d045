// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: packet parsing and identity on crafted sk_buffs. The identity must
 * hold across the stack (IP header at data, pulled past, behind a link
 * header), for clones, for paged payloads and for the first segment of a
 * GRO aggregate, and must change with the content; a later stage that
 * takes the per-CPU memo must agree with a parse. Hardware receive
 * timestamps, which no emulated NIC delivers, are checked here.
 */
#include <kunit/test.h>
#include <linux/skbuff.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <linux/if_ether.h>
#include <net/ipv6.h>
#include "../pkt.h"
#include "../filter.h"
#include "../net_hooks.h"

static void nsight_test_free_skb(void *skb)
{
	kfree_skb(skb);
}

static struct sk_buff *nsight_test_skb(struct kunit *test, unsigned int len)
{
	struct sk_buff *skb = alloc_skb(len + 128, GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	ret = kunit_add_action_or_reset(test, nsight_test_free_skb, skb);
	KUNIT_ASSERT_EQ(test, ret, 0);
	skb_reserve(skb, 64);
	skb_reset_network_header(skb);
	return skb;
}

struct nsight_test_ip4 {
	__be32 saddr, daddr;
	u16 sport, dport, ipid;
};

static const struct nsight_test_ip4 nsight_t4 = {
	.saddr = cpu_to_be32(0x0a0b0001), .daddr = cpu_to_be32(0x0a0b0002),
	.sport = 40000, .dport = 9000, .ipid = 77,
};

static void nsight_test_put_ip4(struct sk_buff *skb,
				const struct nsight_test_ip4 *t, u8 proto,
				unsigned int l4len)
{
	struct iphdr *iph = skb_put_zero(skb, sizeof(*iph));

	iph->version = 4;
	iph->ihl = 5;
	iph->tot_len = htons(sizeof(*iph) + l4len);
	iph->id = htons(t->ipid);
	iph->ttl = 64;
	iph->protocol = proto;
	iph->saddr = t->saddr;
	iph->daddr = t->daddr;
	skb->protocol = htons(ETH_P_IP);
	skb_set_transport_header(skb, sizeof(*iph));
}

/* A UDP/IPv4 datagram with skb->data at the IP header. */
static struct sk_buff *nsight_test_udp4(struct kunit *test,
					const struct nsight_test_ip4 *t,
					const char *payload)
{
	unsigned int plen = strlen(payload);
	struct sk_buff *skb = nsight_test_skb(test, 28 + plen);
	struct udphdr *uh;

	nsight_test_put_ip4(skb, t, IPPROTO_UDP, sizeof(*uh) + plen);
	uh = skb_put_zero(skb, sizeof(*uh));
	uh->source = htons(t->sport);
	uh->dest = htons(t->dport);
	uh->len = htons(sizeof(*uh) + plen);
	skb_put_data(skb, payload, plen);
	return skb;
}

static struct sk_buff *nsight_test_tcp4(struct kunit *test,
					const struct nsight_test_ip4 *t,
					u32 seq, unsigned int plen)
{
	struct sk_buff *skb = nsight_test_skb(test, 40 + plen);
	struct tcphdr *th;

	nsight_test_put_ip4(skb, t, IPPROTO_TCP, sizeof(*th) + plen);
	th = skb_put_zero(skb, sizeof(*th));
	th->source = htons(t->sport);
	th->dest = htons(t->dport);
	th->seq = htonl(seq);
	th->doff = 5;
	memset(skb_put(skb, plen), 'x', plen);
	return skb;
}

static u64 nsight_test_id(struct kunit *test, const struct sk_buff *skb,
			  int nh_off)
{
	struct nsight_pkt_info pi;

	KUNIT_EXPECT_EQ(test, nsight_pkt_parse(skb, nh_off, &pi), 0);
	return pi.id;
}

static void nsight_test_udp4_flow(struct kunit *test)
{
	struct sk_buff *skb = nsight_test_udp4(test, &nsight_t4, "hello, nsight");
	struct nsight_pkt_info pi;
	struct in6_addr a;

	KUNIT_ASSERT_EQ(test, nsight_pkt_parse(skb, 0, &pi), 0);
	KUNIT_EXPECT_EQ(test, pi.flow.family, AF_INET);
	KUNIT_EXPECT_EQ(test, pi.flow.protocol, IPPROTO_UDP);
	KUNIT_EXPECT_EQ(test, pi.flow.sport, 40000);
	KUNIT_EXPECT_EQ(test, pi.flow.dport, 9000);
	KUNIT_EXPECT_EQ(test, pi.payload_len, 13);
	KUNIT_EXPECT_EQ(test, pi.seq, 0);
	ipv6_addr_set_v4mapped(nsight_t4.saddr, &a);
	KUNIT_EXPECT_EQ(test, memcmp(pi.flow.saddr, &a, 16), 0);
	ipv6_addr_set_v4mapped(nsight_t4.daddr, &a);
	KUNIT_EXPECT_EQ(test, memcmp(pi.flow.daddr, &a, 16), 0);
	KUNIT_EXPECT_NE(test, pi.id, 0);
}

/* The same packet seen where each layer sees it has one identity. */
static void nsight_test_id_across_stack(struct kunit *test)
{
	struct sk_buff *skb = nsight_test_udp4(test, &nsight_t4, "ping 42");
	u64 rx = nsight_test_id(test, skb, 0);

	/* IP input pulled the IP header; UDP keeps data at its header. */
	skb_pull(skb, sizeof(struct iphdr));
	KUNIT_EXPECT_EQ(test, nsight_test_id(test, skb,
					     skb_network_offset(skb)), rx);
	skb_pull(skb, sizeof(struct udphdr));
	KUNIT_EXPECT_EQ(test, nsight_test_id(test, skb,
					     skb_network_offset(skb)), rx);
	/* Transmit: behind an Ethernet header. */
	skb_push(skb, sizeof(struct iphdr) + sizeof(struct udphdr));
	skb_push(skb, ETH_HLEN);
	KUNIT_EXPECT_EQ(test, nsight_test_id(test, skb, ETH_HLEN), rx);
}

static void nsight_test_id_clone(struct kunit *test)
{
	struct sk_buff *skb = nsight_test_udp4(test, &nsight_t4, "clone me");
	struct sk_buff *c = skb_clone(skb, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, nsight_test_id(test, c, 0),
			nsight_test_id(test, skb, 0));
	kfree_skb(c);
}

static u64 nsight_test_udp4_id(struct kunit *test,
			       const struct nsight_test_ip4 *t,
			       const char *payload)
{
	return nsight_test_id(test, nsight_test_udp4(test, t, payload), 0);
}

/* Content decides: other payload, IP id or port give another packet. */
static void nsight_test_id_content(struct kunit *test)
{
	struct nsight_test_ip4 t = nsight_t4;
	u64 a = nsight_test_udp4_id(test, &t, "seq 1");

	KUNIT_EXPECT_NE(test, a, nsight_test_udp4_id(test, &t, "seq 2"));
	t.ipid++;
	KUNIT_EXPECT_NE(test, a, nsight_test_udp4_id(test, &t, "seq 1"));
	t = nsight_t4;
	t.sport++;
	KUNIT_EXPECT_NE(test, a, nsight_test_udp4_id(test, &t, "seq 1"));
	/* The same content again is the same packet (a retransmission). */
	KUNIT_EXPECT_EQ(test, a, nsight_test_udp4_id(test, &nsight_t4, "seq 1"));
}

/* A freed and reused buffer carrying a new packet gets a new identity. */
static void nsight_test_id_reuse(struct kunit *test)
{
	struct sk_buff *skb = nsight_test_udp4(test, &nsight_t4, "first");
	u64 first = nsight_test_id(test, skb, 0);
	struct udphdr *uh = udp_hdr(skb);

	memcpy(uh + 1, "other", 5);
	KUNIT_EXPECT_NE(test, nsight_test_id(test, skb, 0), first);
}

/* A payload in a page fragment hashes like the same payload in the head. */
static void nsight_test_id_paged(struct kunit *test)
{
	struct sk_buff *lin = nsight_test_udp4(test, &nsight_t4,
					       "0123456789abcdefXYZ");
	struct sk_buff *skb = nsight_test_skb(test, 28);
	struct page *page = alloc_page(GFP_KERNEL);
	struct udphdr *uh;

	KUNIT_ASSERT_NOT_NULL(test, page);
	nsight_test_put_ip4(skb, &nsight_t4, IPPROTO_UDP, 8 + 19);
	uh = skb_put_zero(skb, sizeof(*uh));
	uh->source = htons(nsight_t4.sport);
	uh->dest = htons(nsight_t4.dport);
	uh->len = htons(8 + 19);
	memcpy(page_address(page), "0123456789abcdefXYZ", 19);
	skb_add_rx_frag(skb, 0, page, 0, 19, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, nsight_test_id(test, skb, 0),
			nsight_test_id(test, lin, 0));
}

/*
 * TCP: the identity is the flow and the sequence number, so a GRO
 * aggregate carries its first segment's identity and covers all bytes.
 */
static void nsight_test_tcp_gro(struct kunit *test)
{
	struct sk_buff *s1 = nsight_test_tcp4(test, &nsight_t4, 1000, 100);
	struct sk_buff *agg = nsight_test_tcp4(test, &nsight_t4, 1000, 300);
	struct sk_buff *s2 = nsight_test_tcp4(test, &nsight_t4, 1100, 100);
	struct nsight_pkt_info pi;

	KUNIT_ASSERT_EQ(test, nsight_pkt_parse(agg, 0, &pi), 0);
	KUNIT_EXPECT_EQ(test, pi.seq, 1000);
	KUNIT_EXPECT_EQ(test, pi.payload_len, 300);
	KUNIT_EXPECT_EQ(test, pi.flow.protocol, IPPROTO_TCP);
	KUNIT_EXPECT_EQ(test, pi.id, nsight_test_id(test, s1, 0));
	KUNIT_EXPECT_NE(test, pi.id, nsight_test_id(test, s2, 0));
}

static void nsight_test_tcp6(struct kunit *test)
{
	struct sk_buff *skb = nsight_test_skb(test, 40 + 20 + 10);
	struct nsight_pkt_info pi;
	struct ipv6hdr *ip6h;
	struct tcphdr *th;

	ip6h = skb_put_zero(skb, sizeof(*ip6h));
	ip6h->version = 6;
	ip6h->payload_len = htons(sizeof(*th) + 10);
	ip6h->nexthdr = IPPROTO_TCP;
	ip6h->saddr.s6_addr[0] = 0xfd;
	ip6h->saddr.s6_addr[15] = 1;
	ip6h->daddr.s6_addr[0] = 0xfd;
	ip6h->daddr.s6_addr[15] = 2;
	skb->protocol = htons(ETH_P_IPV6);
	th = skb_put_zero(skb, sizeof(*th));
	th->source = htons(5001);
	th->dest = htons(443);
	th->seq = htonl(0xfffffff0);
	th->doff = 5;
	skb_put_zero(skb, 10);

	KUNIT_ASSERT_EQ(test, nsight_pkt_parse(skb, 0, &pi), 0);
	KUNIT_EXPECT_EQ(test, pi.flow.family, AF_INET6);
	KUNIT_EXPECT_EQ(test, pi.flow.sport, 5001);
	KUNIT_EXPECT_EQ(test, pi.flow.dport, 443);
	KUNIT_EXPECT_EQ(test, pi.seq, 0xfffffff0);
	KUNIT_EXPECT_EQ(test, pi.payload_len, 10);
	KUNIT_EXPECT_EQ(test, pi.flow.saddr[15], 1);
	KUNIT_EXPECT_EQ(test, pi.flow.daddr[15], 2);
}

/*
 * The per-CPU memo: a later stage of the packet parsed last gets its
 * identity without a parse, anything else (another sk_buff, a changed
 * header or first payload bytes, a datagram too short to check) is parsed
 * afresh and agrees with a parse.
 */
static void nsight_test_memo(struct kunit *test)
{
	struct sk_buff *a = nsight_test_udp4(test, &nsight_t4,
					     "0123456789abcdefXYZ");
	struct sk_buff *b = nsight_test_udp4(test, &nsight_t4,
					     "0123456789abcdefXYZ");
	struct sk_buff *tiny = nsight_test_udp4(test, &nsight_t4, "ab");
	struct nsight_pkt_info pi, again;
	struct udphdr *uh;
	bool recorded;

	migrate_disable();
	KUNIT_ASSERT_EQ(test, nsight_pkt_parse_first(a, 0, &pi, &recorded, false), 0);
	KUNIT_EXPECT_EQ(test, nsight_pkt_parse_again(a, 0, &again, &recorded, false),
			0);
	KUNIT_EXPECT_FALSE(test, recorded);
	KUNIT_EXPECT_EQ(test, again.id, pi.id);
	KUNIT_EXPECT_EQ(test, again.wire_hash, pi.wire_hash);
	KUNIT_EXPECT_EQ(test, memcmp(&again.flow, &pi.flow, sizeof(pi.flow)),
			0);
	/* Pulled past the IP header: the same header, found again. */
	skb_pull(a, sizeof(struct iphdr));
	KUNIT_EXPECT_EQ(test, nsight_pkt_parse_again(a,
						     skb_network_offset(a),
						     &again, NULL, false), 0);
	KUNIT_EXPECT_EQ(test, again.id, pi.id);
	skb_push(a, sizeof(struct iphdr));

	/* Another buffer with the same content: parsed, the same identity. */
	KUNIT_EXPECT_EQ(test, nsight_pkt_parse_again(b, 0, &again, &recorded, false),
			0);
	KUNIT_EXPECT_FALSE(test, recorded);
	KUNIT_EXPECT_EQ(test, again.id, pi.id);

	/*
	 * Its record written: a later stage may refer to it, as long as
	 * skb->tstamp is the one that record carries.
	 */
	KUNIT_ASSERT_EQ(test, nsight_pkt_parse_first(a, 0, &pi, &recorded, false), 0);
	nsight_pkt_recorded(a, 0);
	KUNIT_EXPECT_EQ(test, nsight_pkt_parse_again(a, 0, &again, &recorded, false),
			0);
	KUNIT_EXPECT_TRUE(test, recorded);
	/* A pkt_stage record's reference: the id alone, the same. */
	again.id = 0;
	KUNIT_EXPECT_EQ(test, nsight_pkt_parse_again(a, 0, &again, &recorded, true),
			0);
	KUNIT_EXPECT_TRUE(test, recorded);
	KUNIT_EXPECT_EQ(test, again.id, pi.id);
	/* The identity alone, from the memo or parsed. */
	KUNIT_EXPECT_EQ(test, nsight_pkt_skb_id(a, 0, false), pi.id);
	KUNIT_EXPECT_EQ(test, nsight_pkt_skb_id(b, 0, false), pi.id);
	KUNIT_EXPECT_EQ(test, nsight_pkt_skb_id(tiny, 0, false),
			nsight_test_id(test, tiny, 0));
	/*
	 * A first stage of the same packet on this CPU (veth: sent, then
	 * received here) takes it from the memo too.
	 */
	KUNIT_EXPECT_EQ(test, nsight_pkt_parse_first(a, 0, &again, &recorded, false),
			0);
	KUNIT_EXPECT_TRUE(test, recorded);
	KUNIT_EXPECT_EQ(test, again.id, pi.id);
	a->tstamp = ns_to_ktime(1000);
	KUNIT_EXPECT_EQ(test, nsight_pkt_parse_again(a, 0, &again, &recorded, false),
			0);
	KUNIT_EXPECT_FALSE(test, recorded);
	KUNIT_EXPECT_EQ(test, again.id, pi.id);
	/* Another packet parsed since: no longer. */
	KUNIT_ASSERT_EQ(test, nsight_pkt_parse_first(b, 0, &again, &recorded, false),
			0);
	KUNIT_EXPECT_FALSE(test, recorded);
	a->tstamp = 0;
	KUNIT_EXPECT_EQ(test, nsight_pkt_parse_again(a, 0, &again, &recorded, false),
			0);
	KUNIT_EXPECT_FALSE(test, recorded);

	/* A first payload byte changed in place: a new packet. */
	uh = (struct udphdr *)(a->data + sizeof(struct iphdr));
	((u8 *)(uh + 1))[0] = 'Z';
	KUNIT_EXPECT_EQ(test, nsight_pkt_parse_again(a, 0, &again, NULL, false), 0);
	KUNIT_EXPECT_NE(test, again.id, pi.id);
	KUNIT_EXPECT_EQ(test, again.id, nsight_test_id(test, a, 0));

	/* Too short to check: never remembered, always parsed. */
	KUNIT_ASSERT_EQ(test, nsight_pkt_parse_first(tiny, 0, &pi, &recorded, false),
			0);
	uh = (struct udphdr *)(tiny->data + sizeof(struct iphdr));
	((u8 *)(uh + 1))[0] = 'z';
	KUNIT_EXPECT_EQ(test, nsight_pkt_parse_again(tiny, 0, &again, &recorded, false),
			0);
	KUNIT_EXPECT_FALSE(test, recorded);
	KUNIT_EXPECT_NE(test, again.id, pi.id);
	KUNIT_EXPECT_EQ(test, again.id, nsight_test_id(test, tiny, 0));
	migrate_enable();
}

/*
 * A packet handed over to the CPU that copies it (the memo there holds
 * another one): its identity as parsed, and a parse again once its header
 * words changed.
 */
static void nsight_test_hand_over(struct kunit *test)
{
	struct sk_buff *a = nsight_test_udp4(test, &nsight_t4,
					     "0123456789abcdefXYZ");
	struct sk_buff *b = nsight_test_udp4(test, &nsight_t4, "another one");
	struct nsight_pkt_info pi, got;
	struct udphdr *uh;
	bool recorded;

	nsight_pkt_forget();
	migrate_disable();
	KUNIT_ASSERT_EQ(test, nsight_pkt_parse_first(a, 0, &pi, &recorded, false), 0);
	KUNIT_EXPECT_EQ(test, nsight_pkt_skb_id(a, 0, true), pi.id);
	KUNIT_ASSERT_EQ(test, nsight_pkt_parse_first(b, 0, &got, &recorded, false), 0);
	KUNIT_EXPECT_NE(test, got.id, pi.id);
	KUNIT_EXPECT_EQ(test, nsight_pkt_parse_handed(a, 0, &got, false), 0);
	KUNIT_EXPECT_EQ(test, got.id, pi.id);
	KUNIT_EXPECT_EQ(test, memcmp(&got.flow, &pi.flow, sizeof(pi.flow)), 0);
	KUNIT_EXPECT_EQ(test, got.payload_len, pi.payload_len);
	/* What the application's copy records, alone. */
	memset(&got, 0, sizeof(got));
	KUNIT_EXPECT_EQ(test, nsight_pkt_parse_handed(a, 0, &got, true), 0);
	KUNIT_EXPECT_EQ(test, got.id, pi.id);
	KUNIT_EXPECT_EQ(test, got.payload_len, pi.payload_len);
	KUNIT_EXPECT_EQ(test, got.flow.protocol, IPPROTO_UDP);
	/* Pulled past the IP header, as a receive finds it. */
	skb_pull(a, sizeof(struct iphdr));
	KUNIT_EXPECT_EQ(test, nsight_pkt_parse_handed(a, skb_network_offset(a),
						      &got, false), 0);
	KUNIT_EXPECT_EQ(test, got.id, pi.id);
	skb_push(a, sizeof(struct iphdr));
	/* Changed since: never the stale identity. */
	uh = (struct udphdr *)(a->data + sizeof(struct iphdr));
	((u8 *)(uh + 1))[0] = 'Z';
	KUNIT_EXPECT_EQ(test, nsight_pkt_parse_handed(a, 0, &got, false), 0);
	KUNIT_EXPECT_NE(test, got.id, pi.id);
	KUNIT_EXPECT_EQ(test, got.id, nsight_test_id(test, a, 0));
	/* Not handed over: parsed. */
	KUNIT_EXPECT_EQ(test, nsight_pkt_parse_handed(b, 0, &got, false), 0);
	KUNIT_EXPECT_EQ(test, got.id, nsight_test_id(test, b, 0));
	/* The identity taken and the packet handed over in one look. */
	KUNIT_ASSERT_EQ(test, nsight_pkt_parse_first(b, 0, &pi, &recorded, false), 0);
	KUNIT_EXPECT_EQ(test, nsight_pkt_skb_id(b, 0, true), pi.id);
	KUNIT_ASSERT_EQ(test, nsight_pkt_parse_first(a, 0, &got, &recorded, false), 0);
	memset(&got, 0, sizeof(got));
	KUNIT_EXPECT_EQ(test, nsight_pkt_parse_handed(b, 0, &got, false), 0);
	KUNIT_EXPECT_EQ(test, got.id, pi.id);
	KUNIT_EXPECT_EQ(test, memcmp(&got.flow, &pi.flow, sizeof(pi.flow)), 0);
	migrate_enable();
	nsight_pkt_forget();
}

/* What is not an unfragmented TCP/UDP packet is refused, never misread. */
static void nsight_test_refused(struct kunit *test)
{
	struct sk_buff *skb = nsight_test_udp4(test, &nsight_t4, "x");
	struct nsight_pkt_info pi;
	struct sk_buff *arp, *tiny;

	ip_hdr(skb)->frag_off = htons(100);	/* a later fragment */
	KUNIT_EXPECT_EQ(test, nsight_pkt_parse(skb, 0, &pi), -EINVAL);
	ip_hdr(skb)->frag_off = 0;
	ip_hdr(skb)->protocol = IPPROTO_ICMP;
	KUNIT_EXPECT_EQ(test, nsight_pkt_parse(skb, 0, &pi), -EINVAL);

	arp = nsight_test_skb(test, 28);
	skb_put_zero(arp, 28);			/* version nibble 0 */
	KUNIT_EXPECT_EQ(test, nsight_pkt_parse(arp, 0, &pi), -EINVAL);

	tiny = nsight_test_skb(test, 12);
	*(u8 *)skb_put_zero(tiny, 12) = 0x45;	/* IPv4, header cut short */
	KUNIT_EXPECT_EQ(test, nsight_pkt_parse(tiny, 0, &pi), -EINVAL);
	/* An offset before the buffer's head is refused, not read. */
	KUNIT_EXPECT_EQ(test, nsight_pkt_parse(tiny, -1000, &pi), -EINVAL);
}

/* nsight_pkt_record() at the protocol-input stage, with the global filter. */
static int nsight_test_record(struct sk_buff *skb, const char *filter,
			      struct nsight_rec_pkt *r)
{
	if (nsight_filter_parse(filter, &nsight_filter))
		return -EBADMSG;
	return nsight_pkt_record(r, skb, 0, NSIGHT_PKT_RX_RECEIVE);
}

/* Records: the hardware receive timestamp and the filter. */
static void nsight_test_pkt_record(struct kunit *test)
{
	struct sk_buff *skb = nsight_test_udp4(test, &nsight_t4, "hw");
	struct nsight_filter saved = nsight_filter;
	struct nsight_rec_pkt r;
	int ret;

	skb_hwtstamps(skb)->hwtstamp = ns_to_ktime(1234567890123LL);
	ret = nsight_pkt_record(&r, skb, 0, NSIGHT_PKT_RX_GRO);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, r.hdr.type, NSIGHT_REC_PKT);
	KUNIT_EXPECT_EQ(test, r.hdr.size, sizeof(r));
	KUNIT_EXPECT_EQ(test, r.stage, NSIGHT_PKT_RX_GRO);
	KUNIT_EXPECT_EQ(test, r.hw_tstamp, 1234567890123LL);
	KUNIT_EXPECT_TRUE(test, r.flags & NSIGHT_PKT_F_HWTSTAMP);
	KUNIT_EXPECT_EQ(test, r.pkt_id, nsight_test_id(test, skb, 0));
	KUNIT_EXPECT_EQ(test, r.payload_len, 2);

	/* No hardware stamp: none recorded. */
	skb_hwtstamps(skb)->hwtstamp = 0;
	KUNIT_ASSERT_EQ(test, nsight_test_record(skb, "none", &r), 0);
	KUNIT_EXPECT_FALSE(test, r.flags & NSIGHT_PKT_F_HWTSTAMP);
	KUNIT_EXPECT_EQ(test, r.hw_tstamp, 0);

	/* The filter decides what is recorded. */
	KUNIT_EXPECT_EQ(test, nsight_test_record(skb, "port=9000", &r), 0);
	KUNIT_EXPECT_EQ(test, nsight_test_record(skb, "port=53 addr=10.11.0.2",
						 &r), -EINVAL);
	KUNIT_EXPECT_EQ(test, nsight_test_record(skb, "addr=10.11.0.2", &r), 0);
	KUNIT_EXPECT_EQ(test, nsight_test_record(skb, "ifindex=7", &r), -EINVAL);
	nsight_filter = saved;
}

static struct kunit_case nsight_pkt_cases[] = {
	KUNIT_CASE(nsight_test_udp4_flow),
	KUNIT_CASE(nsight_test_id_across_stack),
	KUNIT_CASE(nsight_test_id_clone),
	KUNIT_CASE(nsight_test_id_content),
	KUNIT_CASE(nsight_test_id_reuse),
	KUNIT_CASE(nsight_test_id_paged),
	KUNIT_CASE(nsight_test_tcp_gro),
	KUNIT_CASE(nsight_test_tcp6),
	KUNIT_CASE(nsight_test_memo),
	KUNIT_CASE(nsight_test_hand_over),
	KUNIT_CASE(nsight_test_refused),
	KUNIT_CASE(nsight_test_pkt_record),
	{}
};

static struct kunit_suite nsight_pkt_suite = {
	.name = "nsight_pkt",
	.test_cases = nsight_pkt_cases,
};

kunit_test_suite(nsight_pkt_suite);
