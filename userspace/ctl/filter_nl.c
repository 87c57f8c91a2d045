// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>
#include <linux/nsight.h>

#include "filter_nl.h"

int nsight_filter_put(struct nl_msg *msg, const struct nsight_filter *f)
{
	struct nlattr *nest;
	size_t i;

	if (nsight_filter_empty(f))
		return nla_put(msg, NSIGHT_A_FILTER | NLA_F_NESTED, 0, NULL) < 0 ? -ENOMEM : 0;

	nest = nla_nest_start(msg, NSIGHT_A_FILTER);
	if (!nest)
		return -ENOMEM;
	for (i = 0; i < f->n_ports; i++)
		if (nla_put_u16(msg, NSIGHT_FILTER_A_PORT, f->ports[i]) < 0)
			goto fail;
	for (i = 0; i < f->n_addrs; i++)
		if (nla_put(msg, NSIGHT_FILTER_A_ADDR, f->addrs[i].len, f->addrs[i].bytes) < 0)
			goto fail;
	for (i = 0; i < f->n_ifindexes; i++)
		if (nla_put_u32(msg, NSIGHT_FILTER_A_IFINDEX, f->ifindexes[i]) < 0)
			goto fail;
	for (i = 0; i < f->n_pids; i++)
		if (nla_put_u32(msg, NSIGHT_FILTER_A_PID, f->pids[i]) < 0)
			goto fail;
	return nla_nest_end(msg, nest) < 0 ? -ENOMEM : 0;
fail:
	nla_nest_cancel(msg, nest);
	return -ENOMEM;
}

/* Store one entry as the reply gives it (no range checks: show what is in force). */
static void store(struct nsight_filter *f, int kind, const void *data, size_t len)
{
	uint16_t u16;
	uint32_t u32 = 0;

	if (kind == NSIGHT_FILTER_A_PORT) {
		memcpy(&u16, data, sizeof(u16));
		u32 = u16;
	} else if (kind != NSIGHT_FILTER_A_ADDR) {
		memcpy(&u32, data, sizeof(u32));
	}
	/* Counts and lengths are checked: this cannot fail. */
	nsight_filter_add(f, kind, u32, data, len);
}

int nsight_filter_parse_nest(const struct nlattr *nest, struct nsight_filter *f,
			     const char *what, struct nsight_diag *d)
{
	const struct nlattr *pos;
	int rem;

	memset(f, 0, sizeof(*f));
	nla_for_each_nested(pos, nest, rem) {
		int kind = nla_type(pos);
		size_t len = (size_t)nla_len(pos), *count;
		const char *name = nsight_filter_kind_name(kind);
		bool ok;

		switch (kind) {
		case NSIGHT_FILTER_A_PORT:
			ok = len == sizeof(uint16_t);
			count = &f->n_ports;
			break;
		case NSIGHT_FILTER_A_ADDR:
			ok = len == 4 || len == 16;
			count = &f->n_addrs;
			break;
		case NSIGHT_FILTER_A_IFINDEX:
			ok = len == sizeof(uint32_t);
			count = &f->n_ifindexes;
			break;
		case NSIGHT_FILTER_A_PID:
			ok = len == sizeof(uint32_t);
			count = &f->n_pids;
			break;
		default:
			continue;	/* a newer kernel's kind */
		}
		if (!ok)
			return nsight_diag_set(d, EINVAL, "%s: filter %s entry of %zu bytes", what, name, len);
		if (*count >= NSIGHT_FILTER_MAX)
			return nsight_diag_set(d, EINVAL, "%s: more than %d filter %s entries",
					       what, NSIGHT_FILTER_MAX, name);
		store(f, kind, nla_data(pos), len);
	}
	if (rem > 0 && rem >= NLA_HDRLEN)
		return nsight_diag_set(d, EINVAL, "%s: malformed filter entry", what);
	return 0;
}
