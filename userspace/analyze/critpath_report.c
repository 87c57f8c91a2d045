// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose/critpath.h"
#include "critpath_report.h"
#include "dx_report.h"
#include "json_out.h"

/* The paths of @dx's groups' tails in @a, into *@out (@dx->n of them). */
static int cp_groups(struct nsight_cp_group **out, const struct nsight_dx *dx,
		     const struct nsight_analysis *a)
{
	struct nsight_diag d = { 0 };
	struct nsight_profiler p;
	size_t gi;
	int err = 0;

	*out = calloc(dx->n ? dx->n : 1, sizeof(**out));
	if (!*out)
		return -1;
	memset(&p, 0, sizeof(p));
	if (nsight_analysis_profiler(&p, a, &d)) {
		nsight_profiler_fini(&p);
		return -1;
	}
	for (gi = 0; gi < dx->n && !err; gi++)
		err = nsight_cp_group_build(&(*out)[gi], &p, &a->chains, a->keys, &dx->groups[gi],
					    &a->lt);
	nsight_profiler_fini(&p);
	return err ? -1 : 0;
}

/* The direction's states by the tail's time, largest first (ties: state order). */
static size_t ranked(const struct nsight_cp_tail *t, unsigned int *v)
{
	size_t n = 0, i, j;
	unsigned int s;

	for (s = 0; s < NSIGHT_CP_STATES; s++) {
		if (!nsight_cp_state_in(t->dir, s) || (!t->ns[s] && !t->most[s]))
			continue;
		for (i = n; i > 0 && t->ns[v[i - 1]] < t->ns[s]; i--)
			;
		for (j = n; j > i; j--)
			v[j] = v[j - 1];
		v[i] = s;
		n++;
	}
	return n;
}

/* The waits: their time is what the path ran through instead. */
static bool waiting(unsigned int s)
{
	return s == NSIGHT_CP_QUEUE || s == NSIGHT_CP_BLOCKED || s == NSIGHT_CP_RUNQ ||
	       s == NSIGHT_CP_INTR;
}

static double share(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0;
}

static void group_text(FILE *f, const struct nsight_dx_group *g, const struct nsight_cp_group *cg,
		       const struct nsight_keys *keys, const struct nsight_tty *t)
{
	unsigned int v[NSIGHT_CP_STATES];
	size_t n = ranked(&cg->tail, v), i;
	char comm[17], kb[NSIGHT_KEY_NAME_MAX + 32];
	const struct nsight_cp_via *via;
	unsigned int s;

	int col = fprintf(f, "critical path: %s[%" PRIu32 "] %s, %zu tail messages:",
			  nsight_comm_format(g->comm, comm, sizeof(comm)), g->pid,
			  nsight_msg_dir_name(g->dir), cg->n);

	for (i = 0; i < n; i++) {
		char item[NSIGHT_KEY_NAME_MAX + 96];
		int len = snprintf(item, sizeof(item), "%s %.0f%%", nsight_cp_state_name(v[i]),
				   share(cg->tail.ns[v[i]], cg->tail.total));

		via = waiting(v[i]) ? nsight_cp_via_top(&cg->tail.via, v[i]) : NULL;
		if (cg->tail.most[v[i]])
			len += snprintf(item + len, sizeof(item) - (size_t)len,
					i ? " (%" PRIu64 "%s" : " (most critical in %" PRIu64 "%s",
					cg->tail.most[v[i]], via ? ", " : ")");
		else if (via)
			len += snprintf(item + len, sizeof(item) - (size_t)len, " (");
		if (via)
			len += snprintf(item + len, sizeof(item) - (size_t)len, "via %s %.0f%%)",
					nsight_key_printable(keys, via->key, kb, sizeof(kb)),
					share(via->ns, cg->tail.ns[v[i]]));
		/* The compact form wraps within the width (but for long names). */
		fputs(i ? "," : "", f);
		col += i ? 1 : 0;
		if (t->width && col > 2 && col + 1 + len + (i + 1 < n) > (int)t->width) {
			fputs("\n ", f);
			col = 1;
		}
		col += fprintf(f, " %s", item);
	}
	fputc('\n', f);
	if (t->width)
		return;
	for (i = 0; i < cg->n; i++) {
		const struct nsight_cp_msg *m = &cg->msgs[i];
		bool first = true;

		fprintf(f, "  %s %" PRIu64 " latency %" PRId64 " ns: most critical %s;",
			nsight_msg_dir_name(g->dir), g->msgs[i].id, g->msgs[i].latency,
			nsight_cp_state_name(m->most));
		for (s = 0; s < NSIGHT_CP_STATES; s++) {
			if (!nsight_cp_state_in(m->dir, s) || !m->ns[s])
				continue;
			fprintf(f, "%s %s %" PRId64 " ns", first ? "" : ",", nsight_cp_state_name(s),
				m->ns[s]);
			via = waiting(s) ? nsight_cp_via_top(&m->via, s) : NULL;
			if (via)
				fprintf(f, " via %s", nsight_key_printable(keys, via->key, kb, sizeof(kb)));
			first = false;
		}
		fputc('\n', f);
	}
}

int nsight_critpath_report_groups_text(FILE *f, const struct nsight_dx *dx,
				       const struct nsight_cp_group *cgs,
				       const struct nsight_keys *keys, const struct nsight_tty *t)
{
	size_t gi;

	for (gi = 0; cgs && gi < dx->n; gi++)
		if (cgs[gi].n)
			group_text(f, &dx->groups[gi], &cgs[gi], keys, t);
	return ferror(f) ? -1 : 0;
}

int nsight_critpath_report_text(FILE *f, const struct nsight_dx *dx,
				const struct nsight_analysis *a, const struct nsight_tty *t)
{
	struct nsight_cp_group *cgs = NULL;
	int ret = 0;

	if (!a->have_lifetimes || !dx->n)
		return 0;
	if (cp_groups(&cgs, dx, a))
		ret = -1;
	else
		ret = nsight_critpath_report_groups_text(f, dx, cgs, a->keys, t);
	nsight_cp_groups_free(cgs, dx->n);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* JSON                                                                     */

/* Per state of @dir: its ns in @ns, or its top key in @via (waits only). */
static struct json_object *states_json(uint8_t dir, const int64_t *ns,
				       const struct nsight_cp_vias *via,
				       const struct nsight_keys *keys, int *err)
{
	struct json_object *o = json_object_new_object();
	char kb[NSIGHT_KEY_NAME_MAX + 32];
	unsigned int s;

	if (!o) {
		*err = -1;
		return NULL;
	}
	for (s = 0; s < NSIGHT_CP_STATES; s++) {
		const struct nsight_cp_via *v;

		if (!nsight_cp_state_in(dir, s))
			continue;
		if (ns)
			jo_add_i64(o, nsight_cp_state_name(s), ns[s], err);
		else if (waiting(s) && (v = nsight_cp_via_top(via, s)))
			jo_add_str(o, nsight_cp_state_name(s),
				   nsight_key_printable(keys, v->key, kb, sizeof(kb)), err);
	}
	return o;
}

/* A group's states and each tail message's, to @sink. */
static void group_json(struct nsight_jsink *sink, const struct nsight_dx_group *g,
		       const struct nsight_cp_group *cg, const struct nsight_keys *keys)
{
	struct json_object *o = json_object_new_object(), *st = json_object_new_array();
	struct nsight_jsink go, msgs;
	int *err = sink->err;
	unsigned int s;
	size_t i;

	if (!o || !st) {
		json_object_put(o);
		json_object_put(st);
		*err = -1;
		return;
	}
	nsight_dx_group_json_who(o, g, err);
	jo_add_u64(o, "tail_messages", cg->n, err);
	jo_add_i64(o, "tail_latency_ns", cg->tail.total, err);
	for (s = 0; s < NSIGHT_CP_STATES; s++) {
		struct json_object *x;

		if (!nsight_cp_state_in(g->dir, s))
			continue;
		x = json_object_new_object();
		if (!x) {
			*err = -1;
			break;
		}
		jo_add_str(x, "state", nsight_cp_state_name(s), err);
		jo_add_i64(x, "ns", cg->tail.ns[s], err);
		jo_add_f(x, "share", cg->tail.total > 0 ?
			 (double)cg->tail.ns[s] / (double)cg->tail.total : 0, err);
		jo_add_u64(x, "most_critical", cg->tail.most[s], err);
		if (waiting(s) && nsight_cp_via_top(&cg->tail.via, s)) {
			char kb[NSIGHT_KEY_NAME_MAX + 32];
			const struct nsight_cp_via *v = nsight_cp_via_top(&cg->tail.via, s);

			jo_add_str(x, "via", nsight_key_printable(keys, v->key, kb, sizeof(kb)), err);
			jo_add_i64(x, "via_ns", v->ns, err);
		}
		jo_push(st, x, err);
	}
	jo_add(o, "states", st, err);
	/* The group's object as it was, then its messages one at a time. */
	go = nsight_jsink_open(sink, NULL, false);
	nsight_jsink_put_members(&go, o);
	msgs = nsight_jsink_open(&go, "messages", true);
	for (i = 0; i < cg->n && !*err; i++) {
		struct json_object *x = json_object_new_object();

		if (!x) {
			*err = -1;
			break;
		}
		jo_add_u64(x, "id", g->msgs[i].id, err);
		jo_add_i64(x, "latency_ns", g->msgs[i].latency, err);
		jo_add_str(x, "most_critical", nsight_cp_state_name(cg->msgs[i].most), err);
		jo_add(x, "states", states_json(g->dir, cg->msgs[i].ns, NULL, keys, err), err);
		jo_add(x, "via", states_json(g->dir, NULL, &cg->msgs[i].via, keys, err), err);
		nsight_jsink_put(&msgs, NULL, x);
	}
	nsight_jsink_close(&msgs);
	nsight_jsink_close(&go);
}

int nsight_critpath_report_groups_jsink(struct nsight_jsink *s, const struct nsight_dx *dx,
					const struct nsight_cp_group *cgs,
					const struct nsight_keys *keys)
{
	struct nsight_jsink cp = nsight_jsink_open(s, "critical_path", false), groups;
	size_t gi;

	groups = nsight_jsink_open(&cp, "groups", true);
	for (gi = 0; cgs && gi < dx->n && !*s->err; gi++)
		if (cgs[gi].n)
			group_json(&groups, &dx->groups[gi], &cgs[gi], keys);
	nsight_jsink_close(&groups);
	nsight_jsink_close(&cp);
	return *s->err ? -1 : 0;
}

int nsight_critpath_report_jsink(struct nsight_jsink *s, const struct nsight_dx *dx,
				 const struct nsight_analysis *a)
{
	struct nsight_cp_group *cgs = NULL;
	int ret;

	if (a->have_lifetimes && dx->n && cp_groups(&cgs, dx, a))
		*s->err = -1;
	ret = nsight_critpath_report_groups_jsink(s, dx, *s->err ? NULL : cgs, a->keys);
	nsight_cp_groups_free(cgs, dx->n);
	return ret;
}

int nsight_critpath_report_json(struct json_object *o, const struct nsight_dx *dx,
				const struct nsight_analysis *a)
{
	int err = 0;
	struct nsight_jsink s = nsight_jsink_tree(o, &err);

	return nsight_critpath_report_jsink(&s, dx, a);
}

int nsight_critpath_report_groups_json(struct json_object *o, const struct nsight_dx *dx,
				       const struct nsight_cp_group *cgs,
				       const struct nsight_keys *keys)
{
	int err = 0;
	struct nsight_jsink s = nsight_jsink_tree(o, &err);

	return nsight_critpath_report_groups_jsink(&s, dx, cgs, keys);
}
