// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <string.h>

#include "json_out.h"
#include "whatif_report.h"

/* Names come from the traced system or the command line: no control bytes. */
static const char *clean(const char *src, size_t n, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len && i < n && src[i]; i++)
		buf[i] = src[i] >= 0x20 && src[i] < 0x7f ? src[i] : '?';
	buf[i] = '\0';
	return i ? buf : "?";
}

static const char *dur(const struct nsight_tty *t, int64_t ns, char *buf, size_t len)
{
	if (t->width)
		return nsight_tty_duration(ns, buf, len);
	snprintf(buf, len, "%" PRId64, ns);
	return buf;
}

static void row(FILE *f, const char *what, const int64_t *pct, int64_t max,
		const struct nsight_tty *t)
{
	char b[32];
	int k;

	fprintf(f, "    %-10s", what);
	for (k = 0; k < NSIGHT_WI_NPCT; k++)
		fprintf(f, "%10s", dur(t, pct[k], b, sizeof(b)));
	fprintf(f, "%10s\n", dur(t, max, b, sizeof(b)));
}

/* A rate in messages per second: 980, 5.13k, 235k, 1.42M; plain with no terminal. */
static const char *rate_text(const struct nsight_tty *t, double r, char *buf, size_t len)
{
	if (!t->width)
		snprintf(buf, len, "%.0f", r);
	else if (r < 1e3)
		snprintf(buf, len, "%.0f", r);
	else if (r < 1e4)
		snprintf(buf, len, "%.2fk", r / 1e3);
	else if (r < 1e5)
		snprintf(buf, len, "%.1fk", r / 1e3);
	else if (r < 1e6)
		snprintf(buf, len, "%.0fk", r / 1e3);
	else
		snprintf(buf, len, "%.2fM", r / 1e6);
	return buf;
}

static void cap_side_tty(FILE *f, const char *what, const struct nsight_cap_side *sd,
			 const struct nsight_tty *t)
{
	char b1[32], b2[32], b3[32];

	if (!sd->ok) {
		fprintf(f, "      %-10s%10s  %s\n", what, "none", sd->why);
		return;
	}
	fprintf(f, "      %-10s%10s  CPU %" PRIu32 " (%s): %s a message, other work %.1f%% of it",
		what, rate_text(t, sd->rate, b1, sizeof(b1)), sd->cpu, nsight_role_name(sd->role),
		dur(t, sd->per_msg, b2, sizeof(b2)), sd->other * 100);
	if (sd->has_next)
		fprintf(f, "; next CPU %" PRIu32 " (%s) at %s", sd->next_cpu,
			nsight_role_name(sd->next_role), rate_text(t, sd->next_rate, b3, sizeof(b3)));
	fputc('\n', f);
}

/* An RX group's capacity (capacity.h), after its next bottleneck. */
static void cap_tty(FILE *f, const struct nsight_capacity *c, const struct nsight_tty *t)
{
	char b[32];

	if (!c->now.ok && !c->pred.ok && !strcmp(c->now.why, c->pred.why)) {
		fprintf(f, "    capacity: no prediction, %s\n", c->now.why);
		return;
	}
	fprintf(f, "    capacity (messages/s; the capture ran at %s):\n",
		rate_text(t, c->offered, b, sizeof(b)));
	cap_side_tty(f, "now", &c->now, t);
	cap_side_tty(f, "predicted", &c->pred, t);
}

/* The specs of @wi as "remove A, then scale B by 0.5", cleaned for a terminal. */
static const char *specs_text(const struct nsight_whatif *wi, char *buf, size_t len)
{
	char sp[320], c[320];
	size_t i, at = 0;

	buf[0] = '\0';
	for (i = 0; i < wi->n_specs && at < len; i++) {
		clean(nsight_whatif_spec_format(&wi->specs[i], sp, sizeof(sp)), sizeof(sp), c,
		      sizeof(c));
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", then " : "", c);
	}
	return buf;
}

static void step_tty(FILE *f, const struct nsight_whatif *wi, size_t step, size_t n_steps,
		     int64_t min_dev, const struct nsight_tty *t)
{
	char spec[1024], sp[320], comm[17], b1[32], b2[32], head[32] = "what-if:";
	const struct nsight_wi_spec *last = &wi->specs[wi->n_specs - 1];
	size_t i;
	int k;

	if (n_steps > 1)
		snprintf(head, sizeof(head), "what-if step %zu:", step + 1);
	fprintf(f, "%s%s%s %s%s\n", nsight_tty_bold(t), head, nsight_tty_off(t),
		specs_text(wi, spec, sizeof(spec)), t->width ? "" : " (ns)");
	if (!wi->found)
		fputs("  no message has time in this cause: nothing changes (causes are named as in the diagnosis)\n",
		      f);
	else if (!wi->found_spec[wi->n_specs - 1])
		fprintf(f, "  no message has time in %s: this step changes nothing\n",
			clean(last->category, sizeof(last->category), sp, sizeof(sp)));
	for (i = 0; i < wi->n; i++) {
		const struct nsight_wi_group *g = &wi->groups[i];

		fprintf(f, "  %s[%" PRIu32 "] %s: %zu messages, %zu changed, %s removed",
			clean(g->comm, sizeof(g->comm), comm, sizeof(comm)), g->pid,
			nsight_msg_dir_name(g->dir), g->messages, g->changed,
			dur(t, g->removed, b1, sizeof(b1)));
		if (g->skipped_lost)
			fprintf(f, ", %" PRIu64 " left out (records lost in their windows)",
				g->skipped_lost);
		fputc('\n', f);
		if (!g->messages)
			continue;
		fprintf(f, "    %-10s", "");
		for (k = 0; k < NSIGHT_WI_NPCT; k++)
			fprintf(f, "%10s", nsight_wi_pct_name[k]);
		fprintf(f, "%10s\n", "max");
		row(f, "now", g->now, g->now_max, t);
		row(f, "predicted", g->pred, g->pred_max, t);
		if (g->has_next)
			fprintf(f, "    next bottleneck: %s, largest in %" PRIu64 " of %zu tail messages, %s\n",
				clean(g->next, sizeof(g->next), sp, sizeof(sp)), g->next_main, g->tail,
				dur(t, g->next_total, b2, sizeof(b2)));
		else
			fprintf(f, "    next bottleneck: none of at least %s in the %zu predicted tail messages (>= p90)\n",
				dur(t, min_dev, b2, sizeof(b2)), g->tail);
		if (g->has_cap)
			cap_tty(f, &g->cap, t);
	}
}

void nsight_whatif_report_tty(FILE *f, const struct nsight_whatif *steps, size_t n_steps,
			      int64_t min_dev, const struct nsight_tty *t)
{
	size_t i;

	for (i = 0; i < n_steps; i++)
		step_tty(f, &steps[i], i, n_steps, min_dev, t);
}

static struct json_object *pcts_json(const int64_t *pct, int64_t max, int *err)
{
	struct json_object *j = json_object_new_object();
	int k;

	for (k = 0; k < NSIGHT_WI_NPCT; k++)
		jo_add_i64(j, nsight_wi_pct_name[k], pct[k], err);
	jo_add_i64(j, "max", max, err);
	return j;
}

static struct json_object *cap_side_json(const struct nsight_cap_side *sd, int *err)
{
	struct json_object *j = json_object_new_object();

	if (!sd->ok) {
		jo_add_null(j, "rate", err);
		jo_add_str(j, "why", sd->why, err);
		return j;
	}
	jo_add_f(j, "rate", sd->rate, err);
	jo_add_null(j, "why", err);
	jo_add_u64(j, "cpu", sd->cpu, err);
	jo_add_str(j, "role", nsight_role_name(sd->role), err);
	jo_add_i64(j, "per_msg", sd->per_msg, err);
	jo_add_f(j, "other_share", sd->other, err);
	if (sd->has_next) {
		struct json_object *n = json_object_new_object();

		jo_add_u64(n, "cpu", sd->next_cpu, err);
		jo_add_str(n, "role", nsight_role_name(sd->next_role), err);
		jo_add_f(n, "rate", sd->next_rate, err);
		jo_add(j, "next", n, err);
	} else {
		jo_add_null(j, "next", err);
	}
	return j;
}

static struct json_object *cap_json(const struct nsight_capacity *c, int *err)
{
	struct json_object *j = json_object_new_object();

	jo_add_str(j, "unit", "messages/s", err);
	jo_add_u64(j, "messages", c->messages, err);
	jo_add_f(j, "offered", c->offered, err);
	jo_add(j, "now", cap_side_json(&c->now, err), err);
	jo_add(j, "predicted", cap_side_json(&c->pred, err), err);
	return j;
}

/* One step: the last spec's fields, every spec applied, the groups. */
static struct json_object *step_json(const struct nsight_whatif *wi, int64_t min_dev, int *e)
{
	struct json_object *j = json_object_new_object(), *groups = json_object_new_array();
	struct json_object *specs = json_object_new_array();
	const struct nsight_wi_spec *last = &wi->specs[wi->n_specs - 1];
	char buf[1024], comm[17];
	int err = 0;
	size_t i;

	jo_add_str(j, "unit", "ns", &err);
	jo_add_str(j, "spec", specs_text(wi, buf, sizeof(buf)), &err);
	for (i = 0; i < wi->n_specs; i++) {
		char sp[320];

		jo_push(specs, json_object_new_string(clean(nsight_whatif_spec_format(
			&wi->specs[i], sp, sizeof(sp)), sizeof(sp), buf, sizeof(buf))), &err);
	}
	jo_add(j, "specs", specs, &err);
	jo_add_str(j, "action", last->remove ? "remove" : "scale", &err);
	jo_add_str(j, "category", clean(last->category, sizeof(last->category), buf,
					sizeof(buf)), &err);
	if (last->role >= 0)
		jo_add_str(j, "role", nsight_role_name((uint8_t)last->role), &err);
	else
		jo_add_null(j, "role", &err);
	jo_add_f(j, "factor", last->remove ? 0 : last->factor, &err);
	jo_add_bool(j, "found", wi->found, &err);
	jo_add_bool(j, "found_last", wi->found_spec[wi->n_specs - 1], &err);
	jo_add_i64(j, "min_dev_ns", min_dev, &err);
	for (i = 0; i < wi->n; i++) {
		const struct nsight_wi_group *g = &wi->groups[i];
		struct json_object *go = json_object_new_object();

		jo_add_str(go, "comm", clean(g->comm, sizeof(g->comm), comm, sizeof(comm)), &err);
		jo_add_u64(go, "pid", g->pid, &err);
		jo_add_str(go, "dir", nsight_msg_dir_name(g->dir), &err);
		jo_add_u64(go, "messages", g->messages, &err);
		jo_add_u64(go, "changed", g->changed, &err);
		jo_add_u64(go, "skipped_lost", g->skipped_lost, &err);
		jo_add_i64(go, "removed", g->removed, &err);
		if (g->messages) {
			jo_add(go, "now", pcts_json(g->now, g->now_max, &err), &err);
			jo_add(go, "predicted", pcts_json(g->pred, g->pred_max, &err), &err);
		}
		jo_add_u64(go, "predicted_tail", g->tail, &err);
		if (g->has_next) {
			struct json_object *n = json_object_new_object();

			jo_add_str(n, "cause", clean(g->next, sizeof(g->next), buf, sizeof(buf)), &err);
			jo_add_u64(n, "main", g->next_main, &err);
			jo_add_i64(n, "total", g->next_total, &err);
			jo_add(go, "next_bottleneck", n, &err);
		} else {
			jo_add_null(go, "next_bottleneck", &err);
		}
		if (g->has_cap)
			jo_add(go, "capacity", cap_json(&g->cap, &err), &err);
		else
			jo_add_null(go, "capacity", &err);
		jo_push(groups, go, &err);
	}
	jo_add(j, "groups", groups, &err);
	if (err)
		*e = err;
	return j;
}

int nsight_whatif_report_json(struct json_object *o, const struct nsight_whatif *steps,
			      size_t n_steps, int64_t min_dev)
{
	struct json_object *arr = json_object_new_array();
	int err = 0;
	size_t i;

	for (i = 0; i < n_steps; i++)
		jo_push(arr, step_json(&steps[i], min_dev, &err), &err);
	/* The last step, shared (json-c counts references), not built again. */
	if (n_steps && !err)
		jo_add(o, "what_if", json_object_get(json_object_array_get_idx(arr, n_steps - 1)),
		       &err);
	jo_add(o, "what_if_steps", arr, &err);
	return err ? -1 : 0;
}
