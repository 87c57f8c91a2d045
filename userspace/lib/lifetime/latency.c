// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>

#include "lifetime/latency.h"
#include "base/sort.h"

const uint32_t nsight_lat_pct[NSIGHT_LAT_NPCT] = { 50000, 90000, 99000, 99900 };
const char *const nsight_lat_pct_name[NSIGHT_LAT_NPCT] = { "p50", "p90", "p99", "p99.9" };

static int cmp_group(const struct nsight_msg *x, const struct nsight_msg *y)
{
	return nsight_msg_group_cmp(x->comm, x->pid, x->dir, y->comm, y->pid, y->dir);
}

static int cmp_idx(const void *a, const void *b, void *base)
{
	const struct nsight_msg *msgs = base;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = cmp_group(&msgs[x], &msgs[y]);

	return c ? c : x < y ? -1 : x > y;
}

int nsight_latency_build(struct nsight_latency *l, const struct nsight_lifetimes *lt,
			 struct nsight_diag *d)
{
	size_t *idx, i, j, n_groups = 0;
	struct nsight_lat_group *g2;
	int64_t *vals;

	memset(l, 0, sizeof(*l));
	if (!lt->n)
		return 0;
	idx = malloc(lt->n * sizeof(*idx));
	vals = malloc(lt->n * sizeof(*vals));
	l->groups = calloc(lt->n, sizeof(*l->groups));
	if (!idx || !vals || !l->groups) {
		free(idx);
		free(vals);
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	}
	for (i = 0; i < lt->n; i++)
		idx[i] = i;
	nsight_sort_r(idx, lt->n, sizeof(*idx), cmp_idx, lt->msgs);

	for (i = 0; i < lt->n; i = j) {
		const struct nsight_msg *first = &lt->msgs[idx[i]];
		struct nsight_lat_group *g = &l->groups[n_groups++];
		size_t nv = 0, k;

		memcpy(g->comm, first->comm, sizeof(g->comm));
		g->pid = first->pid;
		g->dir = first->dir;
		for (j = i; j < lt->n && !cmp_group(first, &lt->msgs[idx[j]]); j++) {
			const struct nsight_msg *m = &lt->msgs[idx[j]];

			if (m->reason == NSIGHT_MSG_COMPLETE) {
				vals[nv++] = m->total_ns;
			} else {
				g->incomplete++;
				g->by_reason[m->reason]++;
			}
		}
		g->count = nv;
		if (nv) {
			nsight_sort_i64(vals, nv);
			for (k = 0; k < NSIGHT_LAT_NPCT; k++)
				g->pct[k] = nsight_percentile(vals, nv, nsight_lat_pct[k]);
			g->max = vals[nv - 1];
		}
	}
	l->n = n_groups;
	/* One slot per message was allocated: give back the rest. */
	g2 = realloc(l->groups, (n_groups ? n_groups : 1) * sizeof(*l->groups));
	if (g2)
		l->groups = g2;
	free(idx);
	free(vals);
	return 0;
}

void nsight_latency_fini(struct nsight_latency *l)
{
	free(l->groups);
	l->groups = NULL;
	l->n = 0;
}

int64_t *nsight_latency_values(const struct nsight_lifetimes *lt, const char *comm,
			       const uint32_t *pid, uint8_t dir, size_t *n)
{
	int64_t *v = malloc((lt->n ? lt->n : 1) * sizeof(*v));
	size_t i;

	*n = 0;
	for (i = 0; v && i < lt->n; i++) {
		const struct nsight_msg *m = &lt->msgs[i];

		if (m->reason == NSIGHT_MSG_COMPLETE && m->dir == dir && (!pid || m->pid == *pid) &&
		    !strncmp(m->comm, comm, sizeof(m->comm)))
			v[(*n)++] = m->total_ns;
	}
	if (*n)
		nsight_sort_i64(v, *n);
	return v;
}
