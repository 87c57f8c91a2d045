/* SPDX-License-Identifier: MIT */
/*
 * The capture filter (enum nsight_filter_attr) and its text form, the
 * syntax of /sys/kernel/nsight/filter and 'nsightctl config --filter':
 *
 *     none
 *     KIND=V1,V2,... [KIND=V1,...]...
 *
 * with KIND one of
 *     port      1 to 65535
 *     addr      an IPv4 or IPv6 literal (sent as 4 or 16 bytes; an
 *               IPv4-mapped IPv6 address is taken as the IPv4 address)
 *     ifindex   1 to 4294967295, or an interface name if the caller
 *               passes a resolver (nsightctl does; the kernel does not)
 *     pid       1 to 4294967295 (a thread-group id)
 * Tokens are separated by blanks (space, tab, newline). A kind may be
 * given more than once; its values add up. At most NSIGHT_FILTER_MAX
 * values per kind, repeats included (as the kernel counts them).
 *
 * Unlike the kernel's sysfs parser, an empty or all-blank spec is an
 * error here rather than "none": a forgotten argument should not silently
 * remove the filter.
 *
 * No netlink here: ctl/filter_nl.c turns a struct nsight_filter into an
 * NSIGHT_A_FILTER nest and back.
 */
#ifndef NSIGHT_FILTER_H
#define NSIGHT_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/nsight.h>

struct nsight_filter_addr {
	uint8_t len;			/* 4 or 16 */
	uint8_t bytes[16];
};

/*
 * Values in the order given; an empty filter (all n_* 0) is "none".
 * IPv4 addresses are always 4 bytes here, never IPv4-mapped.
 */
struct nsight_filter {
	size_t n_ports, n_addrs, n_ifindexes, n_pids;
	uint16_t ports[NSIGHT_FILTER_MAX];
	struct nsight_filter_addr addrs[NSIGHT_FILTER_MAX];
	uint32_t ifindexes[NSIGHT_FILTER_MAX];
	uint32_t pids[NSIGHT_FILTER_MAX];
};

/* Room for any formatted filter and its NUL (IPv6 at most 45 characters). */
#define NSIGHT_FILTER_FMT_MAX	1280

/* Turns an interface name into its index, 0 if there is none (if_nametoindex). */
typedef unsigned int (*nsight_ifname_fn)(const char *name);

bool nsight_filter_empty(const struct nsight_filter *f);
bool nsight_filter_equal(const struct nsight_filter *a, const struct nsight_filter *b);

/*
 * Decimal digits only (no sign, no blank) from @min to @max into *@out.
 * Returns 0, or -1 for anything else.
 */
int nsight_parse_uint(const char *s, uint64_t min, uint64_t max, uint32_t *out);

/*
 * Parse @spec into @f. A non-numeric ifindex is looked up with
 * @ifname_to_index; with NULL, names are rejected. Returns 0, or -1 with a
 * message naming the offending token in @err (and @f untouched).
 */
int nsight_filter_parse(const char *spec, nsight_ifname_fn ifname_to_index,
			struct nsight_filter *f, char *err, size_t errlen);

/*
 * Format @f as "none" or "port=9000,9001 addr=10.0.0.2 ifindex=2 pid=42"
 * (kinds in this order, values in @f's order, addresses as inet_ntop()
 * writes them, IPv4-mapped ones as IPv4, like the kernel). Returns the length of the whole text like snprintf(); a
 * @buf of NSIGHT_FILTER_FMT_MAX bytes always holds it.
 */
int nsight_filter_format(const struct nsight_filter *f, char *buf, size_t len);

/*
 * Append one value of a kind (NSIGHT_FILTER_A_*). Returns 0, or -1 if the
 * kind already holds NSIGHT_FILTER_MAX values (or is unknown, or an
 * address is not 4 or 16 bytes). Addresses: @data of @len bytes, an
 * IPv4-mapped one stored as IPv4; the others take @value. Used by the
 * parsers; no range checks.
 */
int nsight_filter_add(struct nsight_filter *f, int kind, uint32_t value,
		      const void *data, size_t len);

/* Room for an address as nsight_filter_addr_str() writes it (INET6_ADDRSTRLEN). */
#define NSIGHT_FILTER_ADDR_STRLEN	46

/* @a as the formatter writes it ("10.0.0.2", "fe80::1"); "?" if malformed. Returns @buf. */
const char *nsight_filter_addr_str(const struct nsight_filter_addr *a, char *buf, size_t len);

/* "port", "addr", "ifindex", "pid"; NULL for other types. */
const char *nsight_filter_kind_name(int kind);

#endif /* NSIGHT_FILTER_H */
