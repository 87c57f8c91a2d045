// SPDX-License-Identifier: MIT
/*
 * A band in this capture and in the baseline side by side (band_report.h):
 * the bands' bounds and counts, then one table of both bands' causes.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "band_report.h"
#include "dx_report.h"
#include "json_out.h"
#include "print.h"

/* @v as member @key of @o, JSON null when NULL (the band or cause is absent). */
static void add_or_null(struct json_object *o, const char *key, struct json_object *v, int *err)
{
	if (v)
		jo_add(o, key, v, err);
	else
		jo_add_null(o, key, err);
}

/* A cause of either band: this capture's (c[0]) and the baseline's (c[1]), NULL where absent. */
struct band_row {
	const struct nsight_dx_cause *c[2];
};

static bool same_cause(const struct nsight_dx_cause *a, const struct nsight_dx_cause *b)
{
	return a->role == b->role && !strcmp(a->category, b->category);
}

/*
 * The baseline's group for @g of @dx: the same comm and direction, the
 * same pid if it has one, else the one at the same place among those of
 * that comm and direction (groups go by pid: processes started in the
 * same order, as a server and its client in another run), else the last
 * of them; NULL when it has none.
 */
static const struct nsight_dx_group *baseline_group(const struct nsight_dx *dx,
						    const struct nsight_dx *bdx,
						    const struct nsight_dx_group *g)
{
	const struct nsight_dx_group *last = NULL;
	size_t i, at = 0;

	for (i = 0; &dx->groups[i] != g; i++)
		at += dx->groups[i].dir == g->dir && !memcmp(dx->groups[i].comm, g->comm, sizeof(g->comm));
	for (i = 0; i < bdx->n; i++) {
		const struct nsight_dx_group *b = &bdx->groups[i];

		if (b->dir == g->dir && !memcmp(b->comm, g->comm, sizeof(g->comm)) && b->pid == g->pid)
			return b;
	}
	for (i = 0; i < bdx->n; i++) {
		const struct nsight_dx_group *b = &bdx->groups[i];

		if (b->dir != g->dir || memcmp(b->comm, g->comm, sizeof(g->comm)))
			continue;
		if (!at--)
			return b;
		last = b;
	}
	return last;
}

/*
 * The union of @g's and @bg's (may be NULL) causes: @g's in its order (by
 * excess, so by share), then those only @bg has in its order. Returns the
 * rows (*n of them; free()), or NULL when out of memory.
 */
static struct band_row *band_rows(const struct nsight_dx_group *g, const struct nsight_dx_group *bg,
				  size_t *n)
{
	size_t nb = bg ? bg->n_causes : 0, i, k;
	struct band_row *rows = calloc(g->n_causes + nb + 1, sizeof(*rows));

	*n = 0;
	if (!rows)
		return NULL;
	for (i = 0; i < g->n_causes; i++) {
		rows[*n].c[0] = &g->causes[i];
		for (k = 0; k < nb && !rows[*n].c[1]; k++)
			if (same_cause(&g->causes[i], &bg->causes[k]))
				rows[*n].c[1] = &bg->causes[k];
		(*n)++;
	}
	for (k = 0; k < nb; k++) {
		for (i = 0; i < g->n_causes && !same_cause(&g->causes[i], &bg->causes[k]); i++)
			;
		if (i == g->n_causes)
			rows[(*n)++].c[1] = &bg->causes[k];
	}
	return rows;
}

/* Whether @g has a band to show: a reference, so bounds. */
static bool has_band(const struct nsight_dx_group *g)
{
	return g && g->n_ref && !g->no_baseline;
}

/* A duration column: readable in the compact text, ns in the plain one; "-" for none. */
static const char *dur_col(const struct nsight_tty *t, bool have, int64_t ns, char *buf, size_t len)
{
	if (!have)
		snprintf(buf, len, "-");
	else if (t->width)
		nsight_tty_duration(ns, buf, len);
	else
		snprintf(buf, len, "%" PRId64, ns);
	return buf;
}

/* Columns for a count of up to @most, at least @min wide. */
static int digits_width(uint64_t most, int min)
{
	int w = 2;

	for (; most >= 10; most /= 10)
		w++;
	return w > min ? w : min;
}

static void bounds_row(FILE *f, const char *head, const char *which,
		       const struct nsight_dx_group *g, int cw, int dw, const struct nsight_tty *t)
{
	bool have = has_band(g);
	char b1[32], b2[32], b3[32];

	fprintf(f, "  %-24s %-8s%*zu%*s%*s%*s\n", head, which, cw, g ? g->n_msgs : 0,
		dw, dur_col(t, have, g ? g->tail_threshold : 0, b1, sizeof(b1)),
		dw, dur_col(t, have, g ? g->tail_threshold_hi : 0, b2, sizeof(b2)),
		dw, dur_col(t, have && g->n_msgs, g ? g->tail_excess : 0, b3, sizeof(b3)));
}

/* A cause's share of its band's excess and its excess, or dashes. */
static void cause_cols(FILE *f, const struct nsight_dx_group *g, const struct nsight_dx_cause *c,
		       int sw, int dw, const struct nsight_tty *t)
{
	char b1[32], b2[32];

	if (c)
		snprintf(b1, sizeof(b1), "%.0f%%", nsight_dx_cause_share(g, c) * 100);
	fprintf(f, "%*s%*s", sw, c ? b1 : "-", dw, dur_col(t, c != NULL, c ? c->total : 0, b2, sizeof(b2)));
}

static int group_text(FILE *f, const struct nsight_dx_group *g, const struct nsight_dx_group *bg,
		      const struct nsight_tty *t)
{
	int dw = t->width ? 10 : 15, cw = 40, most = (int)t->width - 38, mw;
	size_t bn = bg ? bg->n_msgs : 0, n, k;
	char comm[17], head[48], bhead[48], name[300];
	struct band_row *rows;

	snprintf(head, sizeof(head), "%s[%" PRIu32 "] %s", nsight_comm_format(g->comm, comm, sizeof(comm)),
		 g->pid, nsight_msg_dir_name(g->dir));
	if (g->no_baseline) {
		fprintf(f, "  %s: no such messages in the baseline\n", head);
		return 0;
	}
	rows = band_rows(g, bg, &n);
	if (!rows)
		return -1;
	bhead[0] = '\0';
	if (bg && bg->pid != g->pid)
		snprintf(bhead, sizeof(bhead), "%s[%" PRIu32 "] %s",
			 nsight_comm_format(bg->comm, comm, sizeof(comm)), bg->pid,
			 nsight_msg_dir_name(bg->dir));
	mw = digits_width(g->n_msgs > bn ? g->n_msgs : bn, 7);
	fprintf(f, "  %-24s %-8s%*s%*s%*s%*s\n", "comm[pid] dir", "capture", mw, "msgs", dw, "from",
		dw, "to", dw, t->width ? "excess" : "excess_ns");
	bounds_row(f, head, "this", g, mw, dw, t);
	bounds_row(f, bhead, "baseline", bg, mw, dw, t);
	if (!n) {
		fputs("  no cause in either band\n", f);
		free(rows);
		return 0;
	}
	for (k = 0; k < n; k++) {
		nsight_dx_cause_name(rows[k].c[0] ? rows[k].c[0] : rows[k].c[1], name, sizeof(name));
		if ((int)strlen(name) + 2 > cw)
			cw = (int)strlen(name) + 2;
	}
	cw = t->width && cw > most && most >= 40 ? most : cw;
	fprintf(f, "  %-*s%6s%*s%10s%*s\n", cw, "cause", "this", dw, t->width ? "excess" : "excess_ns",
		"baseline", dw, t->width ? "excess" : "excess_ns");
	for (k = 0; k < n; k++) {
		nsight_dx_cause_name(rows[k].c[0] ? rows[k].c[0] : rows[k].c[1], name, sizeof(name));
		fprintf(f, "  %-*s", cw, name);
		cause_cols(f, g, rows[k].c[0], 6, dw, t);
		cause_cols(f, bg, rows[k].c[1], 10, dw, t);
		fputc('\n', f);
	}
	free(rows);
	return 0;
}

int nsight_band_report_text(FILE *f, const struct nsight_dx *dx, const struct nsight_dx *bdx,
			    const char *bname, const struct nsight_tty *t)
{
	char lo[16], hi[16], ref[16];
	size_t i;

	if (!dx->n)
		return 0;
	fprintf(f, "%sband p%s-p%s of both captures%s, each against the fastest %s%% of baseline %s:\n",
		nsight_tty_bold(t), nsight_pct_format(dx->opts.tail, lo, sizeof(lo)),
		nsight_pct_format(dx->opts.tail_hi, hi, sizeof(hi)), nsight_tty_off(t),
		nsight_pct_format(dx->opts.ref_hi, ref, sizeof(ref)), bname);
	for (i = 0; i < dx->n; i++)
		if (group_text(f, &dx->groups[i], baseline_group(dx, bdx, &dx->groups[i]), t))
			return -1;
	return 0;
}

/* One band's figures: its messages, bounds and excess. */
static struct json_object *band_json(const struct nsight_dx_group *g, int *err)
{
	struct json_object *j;

	if (!g)
		return NULL;
	j = json_object_new_object();
	jo_add_u64(j, "pid", g->pid, err);
	jo_add_u64(j, "candidates", g->tail_candidates, err);
	jo_add_u64(j, "messages", g->n_msgs, err);
	if (has_band(g)) {
		jo_add_i64(j, "from_ns", g->tail_threshold, err);
		jo_add_i64(j, "to_ns", g->tail_threshold_hi, err);
		jo_add_i64(j, "reference_median_ns", g->ref_median, err);
	} else {
		jo_add_null(j, "from_ns", err);
		jo_add_null(j, "to_ns", err);
		jo_add_null(j, "reference_median_ns", err);
	}
	jo_add_i64(j, "excess_ns", g->tail_excess, err);
	return j;
}

/* A cause's figures in one band; NULL (JSON null) where the band lacks it. */
static struct json_object *cause_json(const struct nsight_dx_group *g, const struct nsight_dx_cause *c,
				      int *err)
{
	struct json_object *j;

	if (!c)
		return NULL;
	j = json_object_new_object();
	jo_add_f(j, "share", nsight_dx_cause_share(g, c), err);
	jo_add_i64(j, "excess_ns", c->total, err);
	jo_add_u64(j, "messages", c->messages, err);
	jo_add_u64(j, "main", c->main, err);
	jo_add_i64(j, "median_dev_ns", c->median, err);
	jo_add_i64(j, "max_dev_ns", c->max, err);
	return j;
}

static struct json_object *group_json(const struct nsight_dx_group *g,
				      const struct nsight_dx_group *bg, int *err)
{
	struct json_object *j = json_object_new_object(), *causes = json_object_new_array();
	size_t n, k;
	struct band_row *rows = band_rows(g, bg, &n);
	char cat[256];

	if (!rows)
		*err = -1;
	nsight_dx_group_json_who(j, g, err);
	jo_add(j, "this", band_json(g, err), err);
	add_or_null(j, "baseline", band_json(bg, err), err);
	for (k = 0; rows && k < n; k++) {
		const struct nsight_dx_cause *c = rows[k].c[0] ? rows[k].c[0] : rows[k].c[1];
		struct json_object *co = json_object_new_object();

		jo_add_str(co, "category", nsight_printable(cat, c->category, sizeof(cat), true), err);
		jo_add_str(co, "role", nsight_role_name(c->role), err);
		add_or_null(co, "this", cause_json(g, rows[k].c[0], err), err);
		add_or_null(co, "baseline", cause_json(bg, rows[k].c[1], err), err);
		jo_push(causes, co, err);
	}
	free(rows);
	jo_add(j, "causes", causes, err);
	return j;
}

int nsight_band_report_json(struct json_object *o, const struct nsight_dx *dx,
			    const struct nsight_dx *bdx, const char *bname)
{
	struct json_object *j = json_object_new_object(), *groups = json_object_new_array();
	int err = !j || !groups;
	size_t i;

	jo_add_str(j, "baseline", bname, &err);
	jo_add_f(j, "from_pct", dx->opts.tail / 1000.0, &err);
	jo_add_f(j, "to_pct", dx->opts.tail_hi / 1000.0, &err);
	jo_add_f(j, "reference_to_pct", dx->opts.ref_hi / 1000.0, &err);
	for (i = 0; i < dx->n; i++)
		jo_push(groups, group_json(&dx->groups[i], baseline_group(dx, bdx, &dx->groups[i]), &err),
			&err);
	jo_add(j, "groups", groups, &err);
	jo_add(o, "band_comparison", j, &err);
	return err;
}
