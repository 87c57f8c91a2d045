// SPDX-License-Identifier: MIT
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "format/flow.h"

static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

static bool is_v4mapped(const uint8_t a[16])
{
	return !memcmp(a, v4mapped, sizeof(v4mapped));
}

bool nsight_addr_unspecified(const uint8_t a[16])
{
	static const uint8_t zero[16];

	return !memcmp(a, zero, 16) || (is_v4mapped(a) && !memcmp(a + 12, zero, 4));
}

bool nsight_flow_connected(const struct nsight_flow *sock)
{
	return sock->dport || !nsight_addr_unspecified(sock->daddr);
}

int nsight_flow_to_socket(const struct nsight_flow *pkt, const struct nsight_flow *sock)
{
	int score;

	if (pkt->protocol != sock->protocol || pkt->dport != sock->sport)
		return 0;
	if (nsight_addr_unspecified(sock->saddr))
		score = 1;
	else if (!memcmp(pkt->daddr, sock->saddr, 16))
		score = 2;
	else
		return 0;
	if (nsight_flow_connected(sock)) {
		/*
		 * No packet comes from 0.0.0.0 or ::: such a source is one
		 * the capture could not know (trace-cmd's, for a datagram
		 * sent from a socket bound to the wildcard address).
		 */
		if (pkt->sport != sock->dport ||
		    (memcmp(pkt->saddr, sock->daddr, 16) && !nsight_addr_unspecified(pkt->saddr)))
			return 0;
		score += 2;
	}
	return score;
}

bool nsight_flow_from_socket(const struct nsight_flow *pkt, const struct nsight_flow *send)
{
	return pkt->protocol == send->protocol &&
	       pkt->sport == send->sport && pkt->dport == send->dport &&
	       (nsight_addr_unspecified(send->saddr) || !memcmp(pkt->saddr, send->saddr, 16)) &&
	       (nsight_addr_unspecified(send->daddr) || !memcmp(pkt->daddr, send->daddr, 16));
}

char *nsight_addr_format(const uint8_t a[16], char *buf, size_t len)
{
	if (is_v4mapped(a))
		snprintf(buf, len, "%u.%u.%u.%u", a[12], a[13], a[14], a[15]);
	else if (!inet_ntop(AF_INET6, a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

char *nsight_endpoint_format(const uint8_t a[16], uint16_t port, char *buf, size_t len)
{
	char addr[INET6_ADDRSTRLEN];

	nsight_addr_format(a, addr, sizeof(addr));
	if (is_v4mapped(a))
		snprintf(buf, len, "%s:%u", addr, port);
	else
		snprintf(buf, len, "[%s]:%u", addr, port);
	return buf;
}

uint64_t nsight_flow_hash(const struct nsight_flow *f)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	uint8_t b[37];
	size_t i;

	memcpy(b, f->saddr, 16);
	memcpy(b + 16, f->daddr, 16);
	memcpy(b + 32, &f->sport, 2);
	memcpy(b + 34, &f->dport, 2);
	b[36] = f->protocol;
	for (i = 0; i < sizeof(b); i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

char *nsight_flow_format(const struct nsight_flow *f, char *buf, size_t len)
{
	char s[INET6_ADDRSTRLEN + 8], d[INET6_ADDRSTRLEN + 8];

	snprintf(buf, len, "%s > %s", nsight_endpoint_format(f->saddr, f->sport, s, sizeof(s)),
		 nsight_endpoint_format(f->daddr, f->dport, d, sizeof(d)));
	return buf;
}
