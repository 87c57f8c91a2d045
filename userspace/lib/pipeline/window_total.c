// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>

#include "base/sort.h"
#include "base/vec.h"
#include "pipeline/window_total.h"


static int cmp_group(const void *a, const void *b)
{
	const struct nsight_lat_group *x = &((const struct nsight_wtotal_group *)a)->g;
	const struct nsight_lat_group *y = &((const struct nsight_wtotal_group *)b)->g;

	return nsight_msg_group_cmp(x->comm, x->pid, x->dir, y->comm, y->pid, y->dir);
}

/* @m's group, made if new; NULL when out of memory. */
static struct nsight_wtotal_group *group_of(struct nsight_wtotal *t, const struct nsight_msg *m,
					    size_t *last)
{
	struct nsight_wtotal_group *g;
	size_t i;

	for (i = 0; i < t->n; i++) {
		/* Messages of one group often come together: try the last one first. */
		size_t k = (*last + i) % t->n;

		g = &t->groups[k];
		if (g->g.pid == m->pid && g->g.dir == m->dir &&
		    !strncmp(g->g.comm, m->comm, sizeof(g->g.comm))) {
			*last = k;
			return g;
		}
	}
	if (NSIGHT_VEC_GROW(t->groups, t->n, t->cap))
		return NULL;
	g = &t->groups[t->n];
	memset(g, 0, sizeof(*g));
	memcpy(g->g.comm, m->comm, sizeof(g->g.comm));
	g->g.pid = m->pid;
	g->g.dir = m->dir;
	*last = t->n++;
	return g;
}

int nsight_wtotal_add(struct nsight_wtotal *t, const struct nsight_lifetimes *lt,
		      struct nsight_diag *d)
{
	size_t i, last = 0;

	for (i = 0; i < lt->n; i++) {
		const struct nsight_msg *m = &lt->msgs[i];
		struct nsight_wtotal_group *g = group_of(t, m, &last);

		if (!g)
			return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
		t->messages++;
		if (m->reason != NSIGHT_MSG_COMPLETE) {
			g->g.incomplete++;
			if (m->reason < __NSIGHT_MSG_REASONS)
				g->g.by_reason[m->reason]++;
			continue;
		}
		if (NSIGHT_VEC_GROW(g->v, g->g.count, g->cap))
			return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
		g->v[g->g.count++] = m->total_ns;
		t->complete++;
	}
	return 0;
}

int nsight_wtotal_finish(struct nsight_wtotal *t, struct nsight_diag *d)
{
	size_t i, k;

	free(t->lat.groups);
	t->lat.groups = NULL;
	t->lat.n = 0;
	if (t->n > 1)
		qsort(t->groups, t->n, sizeof(*t->groups), cmp_group);
	if (t->n) {
		t->lat.groups = calloc(t->n, sizeof(*t->lat.groups));
		if (!t->lat.groups)
			return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	}
	for (i = 0; i < t->n; i++) {
		struct nsight_wtotal_group *g = &t->groups[i];

		if (g->g.count > 1)
			nsight_sort_i64(g->v, g->g.count);
		for (k = 0; g->g.count && k < NSIGHT_LAT_NPCT; k++)
			g->g.pct[k] = nsight_percentile(g->v, g->g.count, nsight_lat_pct[k]);
		g->g.max = g->g.count ? g->v[g->g.count - 1] : 0;
		t->lat.groups[i] = g->g;
	}
	t->lat.n = t->n;
	return 0;
}

void nsight_wtotal_fini(struct nsight_wtotal *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->groups[i].v);
	free(t->groups);
	free(t->lat.groups);
	memset(t, 0, sizeof(*t));
}

size_t nsight_wtotal_spread(const struct nsight_lifetimes *lt, int64_t out[3])
{
	int64_t *v = lt->n_complete ? malloc(lt->n_complete * sizeof(*v)) : NULL;
	size_t i, n = 0;

	out[0] = out[1] = out[2] = 0;
	if (lt->n_complete && !v)
		return SIZE_MAX;
	for (i = 0; i < lt->n && n < lt->n_complete; i++)
		if (lt->msgs[i].reason == NSIGHT_MSG_COMPLETE)
			v[n++] = lt->msgs[i].total_ns;
	if (n) {
		nsight_sort_i64(v, n);
		out[0] = nsight_percentile(v, n, 50000);
		out[1] = nsight_percentile(v, n, 99000);
		out[2] = v[n - 1];
	}
	free(v);
	return n;
}
