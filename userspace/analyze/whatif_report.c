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

void nsight_whatif_report_tty(FILE *f, const struct nsight_whatif *wi, int64_t min_dev,
			      const struct nsight_tty *t)
{
	char spec[320], sp[320], comm[17], b1[32], b2[32];
	size_t i;
	int k;

	clean(nsight_whatif_spec_format(&wi->spec, sp, sizeof(sp)), sizeof(sp), spec, sizeof(spec));
	fprintf(f, "%swhat-if:%s %s%s\n", nsight_tty_bold(t), nsight_tty_off(t), spec,
		t->width ? "" : " (ns)");
	if (!wi->found)
		fputs("  no message has time in this cause: nothing changes (causes are named as in the diagnosis)\n",
		      f);
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
	}
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

int nsight_whatif_report_json(struct json_object *o, const struct nsight_whatif *wi,
			      int64_t min_dev)
{
	struct json_object *j = json_object_new_object(), *groups = json_object_new_array();
	char buf[320], comm[17];
	int err = 0;
	size_t i;

	jo_add_str(j, "unit", "ns", &err);
	jo_add_str(j, "spec", clean(nsight_whatif_spec_format(&wi->spec, buf, sizeof(buf)), 320,
				    buf, sizeof(buf)), &err);
	jo_add_str(j, "action", wi->spec.remove ? "remove" : "scale", &err);
	jo_add_str(j, "category", clean(wi->spec.category, sizeof(wi->spec.category), buf,
					sizeof(buf)), &err);
	if (wi->spec.role >= 0)
		jo_add_str(j, "role", nsight_role_name((uint8_t)wi->spec.role), &err);
	else
		jo_add_null(j, "role", &err);
	jo_add_f(j, "factor", wi->spec.remove ? 0 : wi->spec.factor, &err);
	jo_add_bool(j, "found", wi->found, &err);
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
		jo_push(groups, go, &err);
	}
	jo_add(j, "groups", groups, &err);
	jo_add(o, "what_if", j, &err);
	return err ? -1 : 0;
}
