// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <string.h>

#include "print.h"
#include "json_out.h"
#include "format/records.h"
#include "format/sources.h"

const char *nsight_printable(char *dst, const char *src, size_t len, bool blanks)
{
	size_t i;

	for (i = 0; i + 1 < len && src[i]; i++) {
		bool ok = (src[i] > 0x20 || (blanks && src[i] == 0x20)) && src[i] < 0x7f;

		dst[i] = ok ? src[i] : '?';
	}
	dst[i] = '\0';
	return dst;
}

static const char *type_label(unsigned int t, char *buf, size_t len)
{
	const char *name = nsight_rec_type_name(t);

	if (name)
		return name;
	snprintf(buf, len, "unknown(%u)", t);
	return buf;
}

void nsight_summary_print_check(FILE *f, const struct nsight_summary *s)
{
	char line[256];
	size_t i;

	if (!s->have_status && !s->n_problems)
		fprintf(f, "check: no kernel counters in stream\n");
	else if (!s->n_problems)
		fprintf(f, "check: ok\n");
	else
		fprintf(f, "check: %s%" PRIu64 " problem%s\n",
			s->have_status ? "" : "no kernel counters in stream; ",
			s->n_problems, s->n_problems == 1 ? "" : "s");
	for (i = 0; i < s->n_kept; i++) {
		nsight_problem_format(&s->problems[i], line, sizeof(line));
		fprintf(f, "  %s\n", line);
	}
	if (s->n_problems > s->n_kept)
		fprintf(f, "  ... and %" PRIu64 " more\n", s->n_problems - s->n_kept);
}

void nsight_summary_print_text(FILE *f, const char *name, const struct nsight_summary *s)
{
	char release[sizeof(s->hdr.release)], seq[48], tbuf[32];
	double span = nsight_summary_span_seconds(s);
	unsigned int t;
	uint32_t i;

	nsight_printable(release, s->hdr.release, sizeof(release), true);
	fprintf(f, "stream: %s  format %" PRIu32 "  kernel %s  cpus %" PRIu32 "  tsc %" PRIu64 " Hz\n",
		name, s->hdr.version, release[0] ? release : "?", s->hdr.nr_cpus, (uint64_t)s->hdr.tsc_hz);
	if (!s->have_tsc)
		fprintf(f, "span: none (no records)\n");
	else if (span < 0)
		fprintf(f, "span: unknown (tsc rate 0)  tsc %" PRIu64 "..%" PRIu64 "\n",
			s->tsc_first, s->tsc_last);
	else
		fprintf(f, "span: %.6f s  tsc %" PRIu64 "..%" PRIu64 "\n", span, s->tsc_first, s->tsc_last);

	fprintf(f, "records: %" PRIu64 "  sub-buffers: %" PRIu64 "  dropped: %" PRIu64,
		s->records, s->subbufs, s->dropped);
	if (s->have_status)
		fprintf(f, " (%" PRIu64 " in sub-buffer headers, %" PRIu64 " after the last sub-buffer)\n",
			s->dropped_subbuf, s->dropped_after);
	else
		fprintf(f, " (%" PRIu64 " in sub-buffer headers, later drops unknown)\n",
			s->dropped_subbuf);

	if (s->bad_tsc)
		fprintf(f, "corrupt TSC: %" PRIu64 " record%s left out of the span and the analysis\n",
			s->bad_tsc, s->bad_tsc == 1 ? "" : "s");
	if (s->triggers || s->skipped_subbufs)
		fprintf(f, "flight recorder: %" PRIu64 " triggers; %" PRIu64 " records in %" PRIu64 " sub-buffers outside every saved window, not kept\n",
			s->triggers, s->skipped, s->skipped_subbufs);
	fprintf(f, "%3s  %12s  %12s  %8s  %s\n", "cpu", "records", "dropped", "subbufs", "seq");
	for (i = 0; i < s->nr_cpus; i++) {
		const struct nsight_summary_cpu *c = &s->cpus[i];

		if (!c->seen && !c->have_status)
			continue;
		if (c->subbufs)
			snprintf(seq, sizeof(seq), "%" PRIu64 "-%" PRIu64, c->seq_first, c->seq_last);
		else
			snprintf(seq, sizeof(seq), "-");
		fprintf(f, "%3" PRIu32 "  %12" PRIu64 "  %12" PRIu64 "  %8" PRIu64 "  %s\n",
			c->cpu, c->records, c->dropped, c->subbufs, seq);
	}

	fprintf(f, "%-14s %12s\n", "type", "count");
	for (t = 0; t <= UINT16_MAX; t++) {
		if (t == NSIGHT_REC_SUBBUF || !s->type_counts[t])
			continue;
		fprintf(f, "%-14s %12" PRIu64 "\n", type_label(t, tbuf, sizeof(tbuf)), s->type_counts[t]);
	}
	nsight_summary_print_check(f, s);
}

/* ---------------------------------------------------------------------- */
/* JSON                                                                     */

/* Adders record failure in *err instead of returning it at each call. */



static struct json_object *stream_json(const char *name, const struct nsight_summary *s, int *err)
{
	struct json_object *o = json_object_new_object(), *src = json_object_new_array();
	char release[sizeof(s->hdr.release)];
	unsigned int i;

	if (!o || !src) {
		json_object_put(o);
		json_object_put(src);
		*err = -1;
		return NULL;
	}
	nsight_printable(release, s->hdr.release, sizeof(release), true);
	jo_add(o, "file", json_object_new_string(name), err);
	jo_add_u64(o, "format", s->hdr.version, err);
	jo_add_u64(o, "hdr_size", s->hdr.hdr_size, err);
	jo_add(o, "kernel", json_object_new_string(release), err);
	jo_add_u64(o, "cpus", s->hdr.nr_cpus, err);
	jo_add_u64(o, "tsc_hz", s->hdr.tsc_hz, err);
	for (i = 0; i < 32; i++) {
		char bit[16];

		if (!(s->hdr.sources & (1U << i)))
			continue;
		if (i < __NSIGHT_SRC_COUNT) {
			jo_push(src, json_object_new_string(nsight_source_names[i]), err);
		} else {
			snprintf(bit, sizeof(bit), "bit%u", i);
			jo_push(src, json_object_new_string(bit), err);
		}
	}
	jo_add(o, "sources", src, err);
	jo_add_u64(o, "dump_realtime_ns", s->hdr.dump_realtime_ns, err);
	jo_add_u64(o, "bytes", s->stream_bytes, err);
	jo_add_u64(o, "chunks", s->chunks, err);
	jo_add_u64(o, "skipped_chunks", s->skipped_chunks, err);
	return o;
}

static struct json_object *span_json(const struct nsight_summary *s, int *err)
{
	struct json_object *o = json_object_new_object();
	double span = nsight_summary_span_seconds(s);

	if (!o) {
		*err = -1;
		return NULL;
	}
	if (span < 0) {
		if (json_object_object_add(o, "seconds", NULL))
			*err = -1;
	} else {
		char text[64];

		/* Serialize as printed in text, not with 17 digits. */
		snprintf(text, sizeof(text), "%.6f", span);
		jo_add(o, "seconds", json_object_new_double_s(span, text), err);
	}
	if (s->have_tsc) {
		jo_add_u64(o, "tsc_first", s->tsc_first, err);
		jo_add_u64(o, "tsc_last", s->tsc_last, err);
	}
	return o;
}

static struct json_object *cpu_json(const struct nsight_summary_cpu *c, int *err)
{
	struct json_object *o = json_object_new_object(), *k;

	if (!o) {
		*err = -1;
		return NULL;
	}
	jo_add_u64(o, "cpu", c->cpu, err);
	jo_add_u64(o, "records", c->records, err);
	jo_add_u64(o, "record_bytes", c->record_bytes, err);
	jo_add_u64(o, "dropped", c->dropped, err);
	jo_add_u64(o, "dropped_in_subbufs", c->subbuf_dropped, err);
	jo_add_u64(o, "subbufs", c->subbufs, err);
	if (c->bad_tsc)
		jo_add_u64(o, "bad_tsc_records", c->bad_tsc, err);
	if (c->skipped_subbufs) {
		jo_add_u64(o, "skipped", c->skipped, err);
		jo_add_u64(o, "skipped_subbufs", c->skipped_subbufs, err);
	}
	if (c->subbufs) {
		jo_add_u64(o, "seq_first", c->seq_first, err);
		jo_add_u64(o, "seq_last", c->seq_last, err);
	}
	if (c->have_status) {
		k = json_object_new_object();
		if (k) {
			jo_add(k, "online", json_object_new_boolean(c->status.online), err);
			jo_add_u64(k, "hook_hits", c->status.hook_hits, err);
			jo_add_u64(k, "records_written", c->status.records_written, err);
			jo_add_u64(k, "records_dropped", c->status.records_dropped, err);
			jo_add_u64(k, "buffer_used", c->status.buffer_used, err);
		}
		jo_add(o, "kernel", k, err);
	}
	return o;
}

static struct json_object *check_json(const struct nsight_summary *s, int *err)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	char line[256];
	size_t i;

	if (!o || !a) {
		json_object_put(o);
		json_object_put(a);
		*err = -1;
		return NULL;
	}
	jo_add(o, "result", json_object_new_string(s->n_problems ? "problems" :
						  s->have_status ? "ok" : "no_kernel_counters"), err);
	jo_add(o, "kernel_counters", json_object_new_boolean(s->have_status), err);
	jo_add(o, "ok", json_object_new_boolean(s->have_status && !s->n_problems), err);
	jo_add_u64(o, "n_problems", s->n_problems, err);
	for (i = 0; i < s->n_kept; i++) {
		const struct nsight_problem *p = &s->problems[i];
		struct json_object *po = json_object_new_object();

		if (!po) {
			*err = -1;
			break;
		}
		nsight_problem_format(p, line, sizeof(line));
		jo_add_u64(po, "cpu", p->cpu, err);
		jo_add(po, "kind", json_object_new_string(nsight_problem_kind_name(p->kind)), err);
		jo_add(po, "message", json_object_new_string(line), err);
		jo_push(a, po, err);
	}
	jo_add(o, "problems", a, err);
	return o;
}

struct json_object *nsight_summary_to_json(const char *name, const struct nsight_summary *s)
{
	struct json_object *o = json_object_new_object(), *cpus, *types, *drops;
	char tbuf[32];
	unsigned int t;
	uint32_t i;
	int err = 0;

	if (!o)
		return NULL;
	jo_add(o, "stream", stream_json(name, s, &err), &err);
	jo_add(o, "span", span_json(s, &err), &err);
	jo_add_u64(o, "records", s->records, &err);
	jo_add_u64(o, "record_bytes", s->record_bytes, &err);
	jo_add_u64(o, "subbufs", s->subbufs, &err);
	jo_add_u64(o, "bad_tsc_records", s->bad_tsc, &err);
	if (s->triggers || s->skipped_subbufs) {
		struct json_object *fr = json_object_new_object();

		jo_add_u64(fr, "triggers", s->triggers, &err);
		jo_add_u64(fr, "skipped_records", s->skipped, &err);
		jo_add_u64(fr, "skipped_subbufs", s->skipped_subbufs, &err);
		jo_add(o, "flight_recorder", fr, &err);
	}

	drops = json_object_new_object();
	if (drops) {
		jo_add_u64(drops, "total", s->dropped, &err);
		jo_add_u64(drops, "in_subbuf_headers", s->dropped_subbuf, &err);
		if (s->have_status)
			jo_add_u64(drops, "after_last_subbuf", s->dropped_after, &err);
		else if (json_object_object_add(drops, "after_last_subbuf", NULL))
			err = -1;
	}
	jo_add(o, "dropped", drops, &err);

	cpus = json_object_new_array();
	for (i = 0; cpus && i < s->nr_cpus; i++)
		if (s->cpus[i].seen || s->cpus[i].have_status)
			jo_push(cpus, cpu_json(&s->cpus[i], &err), &err);
	jo_add(o, "cpus", cpus, &err);

	types = json_object_new_object();
	for (t = 0; types && t <= UINT16_MAX; t++)
		if (t != NSIGHT_REC_SUBBUF && s->type_counts[t])
			jo_add_u64(types, type_label(t, tbuf, sizeof(tbuf)), s->type_counts[t], &err);
	jo_add(o, "types", types, &err);

	jo_add(o, "check", check_json(s, &err), &err);
	if (err) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

void nsight_summary_warn_cut(const struct nsight_summary *s, const char *name)
{
	if (s->cut)
		fprintf(stderr, "nsight-analyze: %s: warning: %s; analysed the %" PRIu64
			" whole chunks before it\n", name, s->cut_msg, s->chunks);
}
