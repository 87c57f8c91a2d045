// SPDX-License-Identifier: GPL-2.0
/*
 * Capture filters, so a busy host can be profiled for one service. Probes
 * call the match functions on every event, so they are plain loops over a
 * few entries; the filter only changes while no capture runs.
 */
#include <linux/string.h>
#include <linux/kernel.h>
#include <linux/inet.h>
#include <net/ipv6.h>
#include "filter.h"

struct nsight_filter nsight_filter;

bool nsight_filter_empty(const struct nsight_filter *f)
{
	return !f->nports && !f->naddrs && !f->nifindex && !f->npids;
}

static bool nsight_filter_addr(const struct nsight_filter *f, const u8 *a)
{
	unsigned int i;

	for (i = 0; i < f->naddrs; i++)
		if (!memcmp(&f->addrs[i], a, sizeof(f->addrs[i])))
			return true;
	return false;
}

/* Ports and addresses; either end of the flow may match. */
bool nsight_filter_flow(const struct nsight_filter *f,
			const struct nsight_flow *flow)
{
	unsigned int i;
	bool hit;

	if (f->nports) {
		hit = false;
		for (i = 0; i < f->nports && !hit; i++)
			hit = f->ports[i] == flow->sport ||
			      f->ports[i] == flow->dport;
		if (!hit)
			return false;
	}
	if (f->naddrs && !nsight_filter_addr(f, flow->saddr) &&
	    !nsight_filter_addr(f, flow->daddr))
		return false;
	return true;
}

bool nsight_filter_ifindex(const struct nsight_filter *f, u32 ifindex)
{
	unsigned int i;

	if (!f->nifindex)
		return true;
	for (i = 0; i < f->nifindex; i++)
		if (f->ifindex[i] == ifindex)
			return true;
	return false;
}

bool nsight_filter_pid(const struct nsight_filter *f, u32 pid)
{
	unsigned int i;

	if (!f->npids)
		return true;
	for (i = 0; i < f->npids; i++)
		if (f->pids[i] == pid)
			return true;
	return false;
}

/* One value of KIND into @f; -EINVAL if bad, -E2BIG if too many. */
static int nsight_filter_add(struct nsight_filter *f, const char *kind,
			     size_t klen, const char *val)
{
	u32 v;

	if (klen == 4 && !strncmp(kind, "port", 4)) {
		if (kstrtou32(val, 10, &v) || !v || v > 65535)
			return -EINVAL;
		if (f->nports == NSIGHT_FILTER_MAX)
			return -E2BIG;
		f->ports[f->nports++] = v;
	} else if (klen == 4 && !strncmp(kind, "addr", 4)) {
		struct in6_addr *a;
		__be32 v4;

		if (f->naddrs == NSIGHT_FILTER_MAX)
			return -E2BIG;
		a = &f->addrs[f->naddrs];
		if (in4_pton(val, -1, (u8 *)&v4, '\0', NULL))
			ipv6_addr_set_v4mapped(v4, a);
		else if (!in6_pton(val, -1, a->s6_addr, '\0', NULL))
			return -EINVAL;
		f->naddrs++;
	} else if (klen == 7 && !strncmp(kind, "ifindex", 7)) {
		if (kstrtou32(val, 10, &v) || !v)
			return -EINVAL;
		if (f->nifindex == NSIGHT_FILTER_MAX)
			return -E2BIG;
		f->ifindex[f->nifindex++] = v;
	} else if (klen == 3 && !strncmp(kind, "pid", 3)) {
		if (kstrtou32(val, 10, &v) || !v)
			return -EINVAL;
		if (f->npids == NSIGHT_FILTER_MAX)
			return -E2BIG;
		f->pids[f->npids++] = v;
	} else {
		return -EINVAL;
	}
	return 0;
}

/**
 * nsight_filter_parse - parse "none" or "KIND=V1,V2 KIND=V3 ...".
 * @buf: NUL-terminated, may end with a newline
 * @f:   the result; left untouched on error
 *
 * KIND is port, addr, ifindex or pid. Returns 0, -EINVAL or -E2BIG.
 */
int nsight_filter_parse(const char *buf, struct nsight_filter *f)
{
	struct nsight_filter nf = {};
	char val[INET6_ADDRSTRLEN + 1];
	const char *p = buf;

	p = skip_spaces(p);
	if (!strncmp(p, "none", 4) && !*skip_spaces(p + 4)) {
		*f = nf;
		return 0;
	}
	while (*(p = skip_spaces(p))) {
		size_t tok = strcspn(p, " \t\n");
		const char *eq = memchr(p, '=', tok);
		const char *v, *end = p + tok;
		size_t klen;
		int ret;

		if (!eq || eq == p || eq + 1 == end)
			return -EINVAL;
		klen = eq - p;
		for (v = eq + 1; v < end; ) {
			size_t vlen = strcspn(v, ", \t\n");

			if (!vlen || vlen >= sizeof(val))
				return -EINVAL;
			memcpy(val, v, vlen);
			val[vlen] = '\0';
			ret = nsight_filter_add(&nf, p, klen, val);
			if (ret)
				return ret;
			v += vlen;
			if (v < end && *v == ',') {
				v++;
				if (v == end)
					return -EINVAL;
			}
		}
		p = end;
	}
	*f = nf;
	return 0;
}

static int nsight_fmt_kind(char *buf, size_t size, int len, const char *kind,
			   unsigned int i)
{
	if (len >= size)
		return len;
	return len + scnprintf(buf + len, size - len, "%s%s", i ? "," :
			       len ? " " : "", i ? "" : kind);
}

/* The filter in the syntax nsight_filter_parse() reads; returns the length. */
int nsight_filter_format(const struct nsight_filter *f, char *buf, size_t size)
{
	unsigned int i;
	int len = 0;

	if (!size)
		return 0;
	buf[0] = '\0';
	if (nsight_filter_empty(f))
		return scnprintf(buf, size, "none");
	for (i = 0; i < f->nports; i++) {
		len = nsight_fmt_kind(buf, size, len, "port=", i);
		len += scnprintf(buf + len, size - len, "%u", f->ports[i]);
	}
	for (i = 0; i < f->naddrs; i++) {
		len = nsight_fmt_kind(buf, size, len, "addr=", i);
		if (ipv6_addr_v4mapped(&f->addrs[i]))
			len += scnprintf(buf + len, size - len, "%pI4",
					 &f->addrs[i].s6_addr32[3]);
		else
			len += scnprintf(buf + len, size - len, "%pI6c",
					 &f->addrs[i]);
	}
	for (i = 0; i < f->nifindex; i++) {
		len = nsight_fmt_kind(buf, size, len, "ifindex=", i);
		len += scnprintf(buf + len, size - len, "%u", f->ifindex[i]);
	}
	for (i = 0; i < f->npids; i++) {
		len = nsight_fmt_kind(buf, size, len, "pid=", i);
		len += scnprintf(buf + len, size - len, "%u", f->pids[i]);
	}
	return len;
}
