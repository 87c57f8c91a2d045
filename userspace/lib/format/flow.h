/* SPDX-License-Identifier: MIT */
/* struct nsight_flow: matching packets to sockets, and printing. */
#ifndef NSIGHT_FLOW_H
#define NSIGHT_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/nsight.h>

/* All zero, or the IPv4-mapped 0.0.0.0 (::ffff:0.0.0.0). */
bool nsight_addr_unspecified(const uint8_t a[16]);

/* A socket flow with a peer (connect()ed, or an accepted TCP socket). */
bool nsight_flow_connected(const struct nsight_flow *sock);

/*
 * Whether a packet flow @pkt is addressed to the socket whose flow is @sock
 * (s = local end, d = peer): same protocol, packet daddr/dport the local
 * end (an unspecified local address matches any), and for a connected
 * socket packet saddr/sport the peer. Returns how specific the match is:
 * 0 no match, 1 wildcard local address, 2 bound address, +2 connected.
 */
int nsight_flow_to_socket(const struct nsight_flow *pkt, const struct nsight_flow *sock);

/*
 * Whether a packet flow @pkt was sent from the local end of @send (the flow
 * of an app_send: s = local, d = destination) to its destination.
 */
bool nsight_flow_from_socket(const struct nsight_flow *pkt, const struct nsight_flow *send);

/* A 64-bit hash (FNV-1a) of the flow's addresses, ports and protocol. */
uint64_t nsight_flow_hash(const struct nsight_flow *f);

/* "10.0.0.1", "fe80::1"; IPv4-mapped addresses print as IPv4. */
char *nsight_addr_format(const uint8_t a[16], char *buf, size_t len);

/* "10.0.0.1:80", "[fe80::1]:80". */
char *nsight_endpoint_format(const uint8_t a[16], uint16_t port, char *buf, size_t len);

/* "10.0.0.1:5000 > 10.0.0.2:80": s > d. */
char *nsight_flow_format(const struct nsight_flow *f, char *buf, size_t len);

#endif /* NSIGHT_FLOW_H */
