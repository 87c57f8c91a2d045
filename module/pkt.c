// SPDX-License-Identifier: GPL-2.0
/*
 * Packet parsing and identity.
 *
 * A packet's identity must survive clones, the merge of segments by GRO and
 * the trip through the stack, and must change when an sk_buff is freed and
 * reused: a pointer is none of these. nsight hashes what identifies the
 * packet's content instead (see uapi/linux/nsight.h): for TCP the flow and
 * the sequence number, for UDP the flow, the IP id or flow label, the length
 * and the first payload bytes. The content hash is unkeyed (wire_hash, the
 * same on every host); pkt_id mixes it with a key drawn at module load.
 * Records carry no kernel addresses.
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
#include <linux/random.h>
#include <linux/string.h>
#include <linux/sock_diag.h>
#include <linux/hash.h>
#include <linux/atomic.h>
#include <net/sock.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include "pkt.h"
#include "compat.h"

static u64 nsight_id_key;

void nsight_pkt_init_key(void)
{
	get_random_bytes(&nsight_id_key, sizeof(nsight_id_key));
}

/*
 * The socket's cookie (SO_COOKIE, sock_diag): unique for the life of the
 * system, so a socket allocated where a closed one was is a new socket to
 * the analyzer, as a hash of the pointer could not tell. The kernel makes
 * the cookie the first time anyone asks; only the _save_ accessor is
 * exported. Once made, nsight_sock_id() reads it from the socket.
 */
u64 nsight_sock_id_make(struct sock *sk)
{
	u32 cookie[2];

	sock_diag_save_cookie(sk, cookie);
	return (u64)cookie[1] << 32 | cookie[0];
}

/* nsight_skb_bytes() when the bytes are not all in the linear head. */
static noinline const void *nsight_skb_bytes_slow(const struct sk_buff *skb,
						  int off, int len, void *buf)
{
	if (off >= 0)
		return skb_header_pointer(skb, off, len, buf);
	return NULL;
}

/*
 * @len bytes at @off from skb->data, copied into @buf if they are not
 * linear. A negative @off must stay within the linear head. The headers
 * of almost every packet are in the linear head: that case is a bounds
 * check, inline.
 */
static __always_inline const void *nsight_skb_bytes(const struct sk_buff *skb,
						    int off, int len,
						    void *buf)
{
	const u8 *p = skb->data + off;

	if (likely(p >= skb->head && p + len <= skb_tail_pointer(skb)))
		return p;
	return nsight_skb_bytes_slow(skb, off, len, buf);
}

/* An IPv4 address as IPv4-mapped IPv6: ::ffff:a.b.c.d */
static __always_inline void nsight_v4mapped(u8 *dst, __be32 a)
{
	__be32 *a32 = (__be32 *)dst;

	a32[0] = 0;
	a32[1] = 0;
	a32[2] = htonl(0xffff);
	a32[3] = a;
}

/*
 * The content hash: one multiply and one shift per 64-bit word, then
 * MurmurHash3's finalizer. A few dozen instructions where siphash over
 * the same bytes took hundreds; identity needs no more than a good mix,
 * the packets of one flow are told apart in order anyway.
 */
#define NSIGHT_MIX_MUL	0x9e3779b97f4a7c15ULL

static __always_inline u64 nsight_mix(u64 h, u64 w)
{
	h = (h ^ w) * NSIGHT_MIX_MUL;
	return h ^ (h >> 32);
}

static __always_inline u64 nsight_fmix(u64 h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

/* Up to 16 payload bytes as two words, zero beyond @n. */
static __always_inline int nsight_payload_words(const struct sk_buff *skb,
						int off, int n, u64 *w)
{
	u8 buf[16] __aligned(8) __uninitialized;
	const u8 *p;

	w[0] = 0;
	w[1] = 0;
	if (n <= 0)
		return 0;
	n = min(n, 16);
	p = nsight_skb_bytes(skb, off, n, buf);
	if (!p)
		return -EINVAL;
	if (n == 16) {
		w[0] = nsight_load64(p);
		w[1] = nsight_load64(p + 8);
	} else {
		memcpy(w, p, n);
	}
	return 0;
}

/*
 * Read flow, sequence and identity of a TCP/UDP packet into @pi; *@thp is
 * its transport header when that is in the linear head, else NULL.
 */
static int nsight_pkt_read(const struct sk_buff *skb, int nh_off,
			   struct nsight_pkt_info *pi, const u8 **thp)
{
	union {
		struct iphdr v4;
		struct ipv6hdr v6;
	} ipbuf __uninitialized;
	union {
		struct tcphdr tcp;
		struct udphdr udp;
	} thbuf __uninitialized;
	struct nsight_flow *f = &pi->flow;
	int th_off, ip_payload;
	u32 ipid;
	const u8 *first;
	u64 h, pl[2];
	u8 proto;

	*thp = NULL;
	first = nsight_skb_bytes(skb, nh_off, 1, &ipbuf);
	if (!first)
		return -EINVAL;
	if ((*first >> 4) == 4) {
		const struct iphdr *iph;

		iph = nsight_skb_bytes(skb, nh_off, sizeof(*iph), &ipbuf);
		if (!iph || iph->ihl < 5 || (iph->frag_off & htons(IP_OFFSET)))
			return -EINVAL;
		proto = iph->protocol;
		f->family = AF_INET;
		nsight_v4mapped(f->saddr, iph->saddr);
		nsight_v4mapped(f->daddr, iph->daddr);
		h = nsight_mix(0, (__force u64)iph->saddr |
			       (__force u64)iph->daddr << 32);
		th_off = nh_off + iph->ihl * 4;
		/* tot_len is 0 for aggregates beyond 64 KiB (BIG TCP). */
		ip_payload = ntohs(iph->tot_len) ? ntohs(iph->tot_len) -
			     iph->ihl * 4 : (int)skb->len - th_off;
		ipid = ntohs(iph->id);
	} else if ((*first >> 4) == 6) {
		const struct ipv6hdr *ip6h;
		const u64 *s, *d;

		ip6h = nsight_skb_bytes(skb, nh_off, sizeof(*ip6h), &ipbuf);
		if (!ip6h)
			return -EINVAL;
		/* Extension headers are not followed. */
		proto = ip6h->nexthdr;
		f->family = AF_INET6;
		memcpy(f->saddr, &ip6h->saddr, 16);
		memcpy(f->daddr, &ip6h->daddr, 16);
		s = (const u64 *)f->saddr;
		d = (const u64 *)f->daddr;
		h = nsight_mix(nsight_mix(nsight_mix(nsight_mix(0, s[0]), s[1]),
					  d[0]), d[1]);
		th_off = nh_off + sizeof(*ip6h);
		ip_payload = ntohs(ip6h->payload_len) ?
			     ntohs(ip6h->payload_len) : (int)skb->len - th_off;
		ipid = ntohl(ip6_flowlabel(ip6h));
	} else {
		return -EINVAL;
	}
	f->protocol = proto;
	f->pad = 0;

	switch (proto) {
	case IPPROTO_TCP: {
		const struct tcphdr *th;

		th = nsight_skb_bytes(skb, th_off, sizeof(*th), &thbuf);
		if (!th || th->doff < 5)
			return -EINVAL;
		*thp = (const u8 *)th != (const u8 *)&thbuf ? (const u8 *)th : NULL;
		f->sport = ntohs(th->source);
		f->dport = ntohs(th->dest);
		pi->seq = ntohl(th->seq);
		pi->payload_len = max(ip_payload - th->doff * 4, 0);
		h = nsight_mix(h, f->sport | (u32)f->dport << 16 |
			       (u64)proto << 32 | (u64)f->family << 40);
		h = nsight_mix(h, pi->seq);
		break;
	}
	case IPPROTO_UDP: {
		const struct udphdr *uh;

		uh = nsight_skb_bytes(skb, th_off, sizeof(*uh), &thbuf);
		if (!uh)
			return -EINVAL;
		*thp = (const u8 *)uh != (const u8 *)&thbuf ? (const u8 *)uh : NULL;
		f->sport = ntohs(uh->source);
		f->dport = ntohs(uh->dest);
		pi->seq = 0;
		pi->payload_len = max(ip_payload - (int)sizeof(*uh), 0);
		if (nsight_payload_words(skb, th_off + sizeof(*uh),
					 pi->payload_len, pl))
			return -EINVAL;
		h = nsight_mix(h, f->sport | (u32)f->dport << 16 |
			       (u64)proto << 32 | (u64)f->family << 40);
		h = nsight_mix(h, ipid | (u64)pi->payload_len << 32);
		h = nsight_mix(nsight_mix(h, pl[0]), pl[1]);
		break;
	}
	default:
		return -EINVAL;
	}
	h = nsight_fmix(h);
	/* Unkeyed: the same on every host the packet crosses. */
	pi->wire_hash = (u32)h ^ (u32)(h >> 32);
	pi->id = nsight_fmix(h ^ nsight_id_key);
	return 0;
}

/*
 * The last packet parsed on each CPU, so that the next stage of the same
 * packet on that CPU (netif_rx then netif_receive_skb, net_dev_queue then
 * net_dev_start_xmit, protocol input then the hand-off) need not parse and
 * hash it again. It is the same packet when the sk_buff, the address of its
 * IP header and the first 8 bytes there and 16 bytes at its transport
 * header (ids, lengths, ports, checksum, TCP sequence number, the first
 * UDP payload bytes) are all unchanged: a buffer freed and reused in
 * between for a packet that skipped its first stage on this CPU would
 * have to match all of them. Touched with interrupts off: a hook in an
 * interrupt may parse in between. Its look is inline (pkt.h), for the
 * hooks' fast path.
 */
DEFINE_PER_CPU(struct nsight_pkt_memo, nsight_pkt_memo);

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
	const u8 *th;

	return nsight_pkt_read(skb, nh_off, pi, &th);
}

/*
 * This CPU's memo into @pi if it is @skb (nsight_memo_hit()); *@recorded
 * (if not NULL) false when it is not. With @ref, a hit whose record was
 * written gives pi->id alone, all that a record referring to it needs.
 */
static __always_inline bool nsight_memo_take(const struct sk_buff *skb,
					     const u8 *nh,
					     struct nsight_pkt_info *pi,
					     bool *recorded, bool ref)
{
	struct nsight_pkt_memo *m;
	unsigned long flags;
	bool hit;

	local_irq_save(flags);
	m = this_cpu_ptr(&nsight_pkt_memo);
	hit = nsight_memo_hit(m, skb, nh, recorded);
	if (hit) {
		if (ref && *recorded)
			pi->id = m->p.pi.id;
		else
			*pi = m->p.pi;
	}
	local_irq_restore(flags);
	if (!hit && recorded)
		*recorded = false;
	return hit;
}

/**
 * nsight_pkt_parse_first - nsight_pkt_parse() at a packet's first stage on
 * this CPU: the packet becomes the CPU's memo for nsight_pkt_parse_again().
 * A packet that is the memo already (a veth or loopback packet received on
 * the CPU that sent it, a forwarded one) is not parsed again; *@recorded
 * then tells whether its pkt record was written here, as for
 * nsight_pkt_parse_again(), and with @ref set, @pi is its id alone.
 */
int nsight_pkt_parse_first(const struct sk_buff *skb, int nh_off,
			   struct nsight_pkt_info *pi, bool *recorded, bool ref)
{
	const u8 *nh = skb->data + nh_off, *th = NULL;
	struct nsight_pkt_memo *m;
	unsigned long flags;
	int ret;

	if (nsight_memo_take(skb, nh, pi, recorded, ref && recorded))
		return 0;
	ret = nsight_pkt_read(skb, nh_off, pi, &th);
	if (ret || !th || !nsight_memo_span(skb, nh, th))
		return ret;
	local_irq_save(flags);
	m = this_cpu_ptr(&nsight_pkt_memo);
	m->p.skb = skb;
	m->p.nh = nh;
	m->p.th = th;
	m->p.nh_word = nsight_load64(nh);
	m->p.th_words[0] = nsight_load64(th);
	m->p.th_words[1] = nsight_load64(th + 8);
	m->p.pi = *pi;
	m->recorded = false;
	local_irq_restore(flags);
	return 0;
}

/**
 * nsight_pkt_recorded - the pkt record of @skb's first stage is being
 * written on this CPU (interrupts off, inside its reservation): a later
 * stage of the same packet here may refer to it (pkt_stage records).
 */
void nsight_pkt_recorded(const struct sk_buff *skb, int nh_off)
{
	struct nsight_pkt_memo *m = this_cpu_ptr(&nsight_pkt_memo);

	if (m->p.skb == skb && m->p.nh == skb->data + nh_off) {
		m->recorded = true;
		m->tstamp = skb->tstamp;
	}
}

/**
 * nsight_pkt_parse_again - nsight_pkt_parse() of a packet that may have
 * just been parsed on this CPU at an earlier stage: the result of then
 * when it is the same packet, unchanged, else a fresh parse. *@recorded
 * (if not NULL) tells whether that earlier stage's pkt record was written
 * here, with the same skb->tstamp; if it was and @ref is set, @pi is the
 * packet's id alone (a pkt_stage record needs no more).
 */
int nsight_pkt_parse_again(const struct sk_buff *skb, int nh_off,
			   struct nsight_pkt_info *pi, bool *recorded, bool ref)
{
	const u8 *nh = skb->data + nh_off;

	if (nsight_memo_take(skb, nh, pi, recorded, ref && recorded))
		return 0;
	return nsight_pkt_parse(skb, nh_off, pi);
}

/*
 * Packets handed to another CPU: a received packet is queued to its socket
 * on the CPU that processed it, and copied to the application on the
 * reader's CPU, where the memo holds other packets. The CPU that queues it
 * hands its parse over in a slot of a small table, chosen by a hash of the
 * sk_buff's address, which the reader's CPU checks as it checks its memo
 * (the same sk_buff, IP header address and header words). Slots are
 * written under a sequence count, taken with a cmpxchg (a writer that
 * finds the slot busy leaves it: the reader then parses); a reader copies
 * the slot, then checks the count did not move.
 */
struct nsight_pkt_hand {
	u32 seq;		/* odd while written */
	struct nsight_pkt_seen p;
};

#define NSIGHT_HAND_BITS	8

static struct nsight_pkt_hand nsight_pkt_hands[1 << NSIGHT_HAND_BITS];

/*
 * @h takes @m's packet unless another writer has it (then the reader
 * parses). Interrupts off.
 */
static __always_inline void nsight_hand_put(struct nsight_pkt_hand *h,
					    const struct nsight_pkt_memo *m)
{
	u32 seq = READ_ONCE(h->seq);

	/* A fully ordered cmpxchg: the slot is ours, odd, before any store. */
	if ((seq & 1) || cmpxchg(&h->seq, seq, seq + 1) != seq)
		return;
	h->p = m->p;
	/* Pairs with the reader's acquire: the slot, then the even count. */
	smp_store_release(&h->seq, seq + 2);
}

/**
 * nsight_pkt_skb_id - the identity of @skb (0 if it is not TCP or UDP over
 * IP), from this CPU's memo or parsed; with @hand, a packet that is the
 * memo is handed over to the CPU that will copy it to the application
 * (nsight_pkt_parse_handed()), in the same look at the memo.
 */
u64 nsight_pkt_skb_id(const struct sk_buff *skb, int nh_off, bool hand)
{
	const u8 *nh = skb->data + nh_off;
	struct nsight_pkt_info pi __uninitialized;
	struct nsight_pkt_memo *m;
	unsigned long flags;
	u64 id = 0;

	local_irq_save(flags);
	m = this_cpu_ptr(&nsight_pkt_memo);
	if (nsight_memo_hit(m, skb, nh, NULL)) {
		id = m->p.pi.id;
		if (hand)
			nsight_hand_put(&nsight_pkt_hands[hash_ptr(skb, NSIGHT_HAND_BITS)],
					m);
	}
	local_irq_restore(flags);
	if (id || nsight_pkt_parse(skb, nh_off, &pi))
		return id;
	return pi.id;
}

/**
 * nsight_pkt_parse_handed - nsight_pkt_parse() of a packet another CPU may
 * have handed over (nsight_pkt_skb_id()), or this CPU parsed last.
 * With @brief, a packet handed over fills pi->id, pi->payload_len and
 * pi->flow.protocol alone, what the application's copy records.
 */
int nsight_pkt_parse_handed(const struct sk_buff *skb, int nh_off,
			    struct nsight_pkt_info *pi, bool brief)
{
	const u8 *nh = skb->data + nh_off;
	const struct nsight_pkt_hand *h;
	u32 seq;

	h = &nsight_pkt_hands[hash_ptr(skb, NSIGHT_HAND_BITS)];
	/* Pairs with the writer's release: an even count, then its slot. */
	seq = smp_load_acquire(&h->seq);
	/*
	 * Read in place: a racing writer may mix two packets' fields, which
	 * the count read again tells; the header pointer is checked against
	 * this sk_buff's bounds before it is read through.
	 */
	if (!(seq & 1) && nsight_seen_is(&h->p, skb, nh)) {
		if (brief) {
			pi->id = h->p.pi.id;
			pi->payload_len = h->p.pi.payload_len;
			pi->flow.protocol = h->p.pi.flow.protocol;
		} else {
			*pi = h->p.pi;
		}
		/* The slot, then the count read again. */
		smp_rmb();
		if (READ_ONCE(h->seq) == seq)
			return 0;
	}
	return nsight_pkt_parse_again(skb, nh_off, pi, NULL, false);
}

/* Forget every CPU's memo and the packets handed over (no capture runs). */
void nsight_pkt_forget(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&nsight_pkt_memo, cpu), 0,
		       sizeof(struct nsight_pkt_memo));
	memset(nsight_pkt_hands, 0, sizeof(nsight_pkt_hands));
}

/* A socket's flow: s is the local end, d the peer (zero if unconnected). */
void nsight_sock_flow(const struct sock *sk, struct nsight_flow *f)
{
	f->family = sk->sk_family;
	f->pad = 0;
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
	nsight_v4mapped(f->saddr, sk->sk_rcv_saddr);
	nsight_v4mapped(f->daddr, sk->sk_daddr);
}
