// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <string.h>

#include "diagnose/nextstep.h"

#define MAX_KEYS	32
#define MAX_CPUS	64

static void tcp_advice(const char *why, char *buf, size_t len)
{
	if (!strcmp(why, "nagle") || !strcmp(why, "nagle_delayed_ack") || !strcmp(why, "cork"))
		snprintf(buf, len, "set TCP_NODELAY on the sender (or uncork) or write each "
			 "request in one call (writev)");
	else if (!strcmp(why, "cwnd"))
		snprintf(buf, len, "the congestion window limits the sender: look for loss "
			 "(ss -ti: retrans) and at the initial window");
	else if (!strcmp(why, "rwnd"))
		snprintf(buf, len, "the peer reads too slowly or its receive buffer is small "
			 "(SO_RCVBUF, tcp_rmem)");
	else if (!strncmp(why, "retrans_", 8))
		snprintf(buf, len, "segments were lost on the way to the peer: look for drops "
			 "on the path (ip -s link, tc -s qdisc, the NIC's counters) and at "
			 "tcp_early_retrans/RACK for single losses");
	else if (!strcmp(why, "sndbuf"))
		snprintf(buf, len, "raise the send buffer (SO_SNDBUF, tcp_wmem) or send less "
			 "at once");
	else
		snprintf(buf, len, "the bytes waited for the peer's ACK: look at the peer's "
			 "ACK timing and at loss");
}

static void advice(const struct nsight_dx_group *g, const struct nsight_keys *keys, uint32_t key,
		   char *buf, size_t len)
{
	const char *name = nsight_key_name(keys, key);
	char app[17];

	memcpy(app, g->comm, 16);
	app[16] = '\0';
	switch (nsight_key_kind(keys, key)) {
	case NSIGHT_KEY_TASK:
		snprintf(buf, len, "move %.16s to another core (taskset, cpusets) or give %s "
			 "priority over it (chrt, nice)", name, app);
		break;
	case NSIGHT_KEY_HOL:
		snprintf(buf, len, "%s's thread was busy with earlier messages: serve them in "
			 "parallel or do less per message", app);
		break;
	case NSIGHT_KEY_SOFTIRQ:
		if (!strcmp(name, "NET_RX"))
			snprintf(buf, len, "steer receive processing to another core (RPS/RFS, IRQ "
				 "affinity) or drop unread traffic earlier");
		else
			snprintf(buf, len, "the %s softirq ran on the core: move its source "
				 "(timers, devices) to another core", name);
		break;
	case NSIGHT_KEY_IRQ:
		snprintf(buf, len, "move the interrupt's affinity off the core "
			 "(/proc/irq/N/smp_affinity, irqbalance)");
		break;
	case NSIGHT_KEY_WORK:
		snprintf(buf, len, "keep kernel work off the core (workqueue cpumask, isolcpus, "
			 "nohz_full)");
		break;
	case NSIGHT_KEY_FAULT:
		snprintf(buf, len, "pre-fault and lock %s's memory (MAP_POPULATE, mlock) and "
			 "reuse buffers instead of fresh mappings", app);
		break;
	case NSIGHT_KEY_IDLE:
		snprintf(buf, len, "the core was idle before %s ran: limit deep C-states "
			 "(cpupower idle-set) or busy-poll (SO_BUSY_POLL)", app);
		break;
	case NSIGHT_KEY_BLOCKED:
		snprintf(buf, len, "%s waited for %.16s: shorten what %.16s holds (a lock, a "
			 "resource) or take it off the request path", app, name, name);
		break;
	case NSIGHT_KEY_TCP:
		tcp_advice(name, buf, len);
		break;
	case NSIGHT_KEY_NIC:
		snprintf(buf, len, "packets waited in the NIC (%s): lower or turn off interrupt "
			 "coalescing (ethtool -C IFACE adaptive-rx off rx-usecs N) or busy-poll "
			 "(SO_BUSY_POLL)", name);
		break;
	case NSIGHT_KEY_APP:
		snprintf(buf, len, "%s's own processing took longer: profile it (the sample "
			 "source, Intel PT)", app);
		break;
	case NSIGHT_KEY_FUNC:
		if (!strncmp(name, "softirq:NET_RX > ", 17))
			snprintf(buf, len, "receive processing spends its time there: look at that "
				 "path (socket filters, netfilter rules, the driver) or steer it "
				 "to another core (RPS/RFS)");
		else
			snprintf(buf, len, "look at that code path: the function's callers in the "
				 "sampled stacks (--verbose)");
		break;
	default:
		snprintf(buf, len, "no records cover that time: enable more sources "
			 "(nsightctl config --sources)");
		break;
	}
}

bool nsight_next_step(const struct nsight_dx_group *g, uint32_t cause,
		      const struct nsight_keys *keys, struct nsight_next_step *out)
{
	uint32_t key[MAX_KEYS], cpu[MAX_CPUS];
	int64_t dev[MAX_KEYS];
	uint64_t hits[MAX_CPUS];
	size_t n_keys = 0, n_cpus = 0, i, k, best;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < g->n_msgs; i++) {
		const struct nsight_dx_msg *dm = &g->msgs[i];
		bool in = false;

		for (k = 0; k < dm->n_anom; k++) {
			const struct nsight_dx_anomaly *a = &g->anoms[dm->anom + k];
			size_t j;

			if (!a->reported || a->cause != cause)
				continue;
			in = true;
			for (j = 0; j < n_keys && key[j] != a->key; j++)
				;
			if (j == n_keys && n_keys < MAX_KEYS) {
				key[n_keys] = a->key;
				dev[n_keys++] = 0;
			}
			if (j < n_keys)
				dev[j] += a->reported_dev;
		}
		if (!in)
			continue;
		out->messages++;
		if (cause < g->n_causes && g->causes[cause].role < NSIGHT_ROLES) {
			uint32_t c = dm->cpu[g->causes[cause].role];
			size_t j;

			if (c == UINT32_MAX)
				continue;
			for (j = 0; j < n_cpus && cpu[j] != c; j++)
				;
			if (j == n_cpus && n_cpus < MAX_CPUS) {
				cpu[n_cpus] = c;
				hits[n_cpus++] = 0;
			}
			if (j < n_cpus)
				hits[j]++;
		}
	}
	if (!n_keys)
		return false;
	for (best = 0, k = 1; k < n_keys; k++)
		if (dev[k] > dev[best])
			best = k;
	out->key = key[best];
	if (n_cpus) {
		size_t c = 0;

		for (k = 1; k < n_cpus; k++)
			if (hits[k] > hits[c] || (hits[k] == hits[c] && cpu[k] < cpu[c]))
				c = k;
		out->cpu = cpu[c];
		out->has_cpu = true;
	}
	advice(g, keys, out->key, out->advice, sizeof(out->advice));
	return true;
}
