// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <string.h>

#include "intervals_report.h"
#include "json_out.h"

/* Columns of the numbers: count, the percentiles, max. */
#define NUM_W	(8 + (NSIGHT_IV_NPCT + 1) * 10)
#define KIND_W	8

/* Names come from the traced system: no control bytes; cut to @w with "...". */
static const char *cell(const char *src, size_t w, char *buf, size_t len)
{
	size_t i, n = strlen(src);

	for (i = 0; i + 1 < len && src[i]; i++)
		buf[i] = src[i] >= 0x20 && src[i] < 0x7f ? src[i] : '?';
	buf[i] = '\0';
	if (w >= 4 && n > w && w < len) {
		buf[w - 3] = '\0';
		strcat(buf, "...");
	}
	return buf;
}

static const char *dur(const struct nsight_tty *t, int64_t ns, char *buf, size_t len)
{
	if (t->width)
		return nsight_tty_duration(ns, buf, len);
	snprintf(buf, len, "%" PRId64, ns);
	return buf;
}

void nsight_intervals_report_tty(FILE *f, const struct nsight_intervals *iv,
				 const struct nsight_tty *t)
{
	bool kinds[__NSIGHT_IV_KINDS] = { false };
	size_t i, n_kinds = 0, name_w = 4, shown;
	char name[512], b[32];
	int k;

	for (i = 0; i < iv->n; i++) {
		size_t l = strlen(iv->rows[i].name);

		n_kinds += !kinds[iv->rows[i].kind];
		kinds[iv->rows[i].kind] = true;
		name_w = l > name_w ? l : name_w;
	}
	fprintf(f, "%sintervals:%s %" PRIu64 " of %zu kinds, ranked by p99.99%s; %" PRIu64
		" left out (cut by capture edges or lost records)\n", nsight_tty_bold(t),
		nsight_tty_off(t), iv->intervals, n_kinds, t->width ? "" : " (ns)", iv->clipped);
	if (!iv->n)
		return;
	if (name_w > sizeof(name) - 1)
		name_w = sizeof(name) - 1;
	if (t->width && name_w > t->width - 2 - KIND_W - 1 - NUM_W)
		name_w = t->width > 2 + KIND_W + 1 + NUM_W + 10 ? t->width - 2 - KIND_W - 1 - NUM_W : 10;
	fprintf(f, "  %-*s %-*s%8s", KIND_W, "kind", (int)name_w, "name", "count");
	for (k = 0; k < NSIGHT_IV_NPCT; k++)
		fprintf(f, "%10s", nsight_iv_pct_name[k]);
	fprintf(f, "%10s\n", "max");
	shown = t->width && iv->n > NSIGHT_IV_TTY_ROWS ? NSIGHT_IV_TTY_ROWS : iv->n;
	for (i = 0; i < shown; i++) {
		const struct nsight_iv_row *r = &iv->rows[i];

		fprintf(f, "  %-*s %-*s%8" PRIu64, KIND_W, nsight_iv_kind_name(r->kind), (int)name_w,
			cell(r->name, t->width ? name_w : sizeof(name), name, sizeof(name)), r->count);
		for (k = 0; k < NSIGHT_IV_NPCT; k++)
			fprintf(f, "%10s", dur(t, r->pct[k], b, sizeof(b)));
		fprintf(f, "%10s\n", dur(t, r->max, b, sizeof(b)));
	}
	if (shown < iv->n)
		fprintf(f, "  +%zu more (--verbose or --json for all)\n", iv->n - shown);
}

int nsight_intervals_report_json(struct json_object *o, const struct nsight_intervals *iv)
{
	struct json_object *arr = json_object_new_array();
	char name[512];
	int err = 0;
	size_t i;
	int k;

	for (i = 0; i < iv->n; i++) {
		const struct nsight_iv_row *r = &iv->rows[i];
		struct json_object *j = json_object_new_object();

		jo_add_str(j, "kind", nsight_iv_kind_name(r->kind), &err);
		jo_add_str(j, "name", cell(r->name, 0, name, sizeof(name)), &err);
		jo_add_u64(j, "count", r->count, &err);
		for (k = 0; k < NSIGHT_IV_NPCT; k++)
			jo_add_i64(j, nsight_iv_pct_name[k], r->pct[k], &err);
		jo_add_i64(j, "max", r->max, &err);
		jo_push(arr, j, &err);
	}
	jo_add(o, "intervals", arr, &err);
	jo_add_u64(o, "intervals_clipped", iv->clipped, &err);
	return err ? -1 : 0;
}
