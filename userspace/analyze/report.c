// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "format/flow.h"
#include "json_out.h"
#include "print.h"
#include "report.h"


static const char *comm_of(const char *comm, char *buf, size_t len)
{
	return comm[0] ? nsight_printable(buf, comm, len, false) : "?";
}

/* "1700000000.000001234": seconds and nanoseconds of @ns. */
static const char *abs_time(int64_t ns, char *buf, size_t len)
{
	uint64_t mag = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;

	snprintf(buf, len, "%s%" PRIu64 ".%09" PRIu64, ns < 0 ? "-" : "", mag / 1000000000,
		 mag % 1000000000);
	return buf;
}

/* ---------------------------------------------------------------------- */
/* Text                                                                     */

void nsight_report_time_text(FILE *f, const struct nsight_analysis *a, enum nsight_clockid clk)
{
	const struct nsight_timeconv *tc = &a->tc;

	switch (tc->quality) {
	case NSIGHT_TC_EXACT:
		fprintf(f, "time: clock %s, exact: %zu timekeeper records (%" PRIu64 " clock-was-set), params %s",
			nsight_clock_name(clk), tc->n_tk, tc->n_clock_was_set,
			nsight_tc_params_name(tc->params));
		break;
	case NSIGHT_TC_APPROXIMATE:
		fprintf(f, "time: clock %s, approximate: %s, clock_sync and %" PRIu64 " Hz used",
			nsight_clock_name(clk),
			tc->n_tk ? "no timekeeper record can convert a TSC" : "no timekeeper records",
			tc->tsc_hz);
		break;
	default:
		fprintf(f, "time: unavailable: no %stimekeeper or clock_sync records, so no latencies",
			tc->n_tk ? "usable " : "");
		break;
	}
	if (tc->n_invalid)
		fprintf(f, "; %" PRIu64 " timekeeper records ignored (invalid parameters)", tc->n_invalid);
	fputc('\n', f);
	nsight_report_phc_text(f, a);
	nsight_report_loss_text(f, a);
}

/*
 * The distinct (clock, interface) pairs of the PHC readings, each with its
 * narrowest-bracket reading: how hardware timestamps map to realtime.
 */
static bool phc_first_of_kind(const struct nsight_capture *cap, size_t i)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (cap->phc[j].phc_index == cap->phc[i].phc_index &&
		    cap->phc[j].ifindex == cap->phc[i].ifindex)
			return false;
	return true;
}

static size_t phc_readings(const struct nsight_capture *cap, size_t i)
{
	size_t j, n = 0;

	for (j = 0; j < cap->n_phc; j++)
		n += cap->phc[j].phc_index == cap->phc[i].phc_index &&
		     cap->phc[j].ifindex == cap->phc[i].ifindex;
	return n;
}

static const char *phc_method(const struct nsight_phc_sample *s)
{
	const char *name = nsight_phc_method_name(s->method);

	return name ? name : "unknown";
}

/* The interface name, terminated even if the stream's was not. */
static const char *phc_ifname(const struct nsight_phc_sample *s, char buf[sizeof(s->ifname) + 1])
{
	memcpy(buf, s->ifname, sizeof(s->ifname));
	buf[sizeof(s->ifname)] = '\0';
	return buf[0] ? buf : "-";
}

void nsight_report_phc_text(FILE *f, const struct nsight_analysis *a)
{
	const struct nsight_capture *cap = &a->cap;
	char name[sizeof(cap->phc->ifname) + 1];
	size_t i;

	for (i = 0; i < cap->n_phc; i++) {
		const struct nsight_phc_sample *s;
		int64_t drift, span;
		ssize_t b;

		if (!phc_first_of_kind(cap, i))
			continue;
		b = nsight_phc_best(cap->phc, cap->n_phc, cap->phc[i].ifindex);
		s = &cap->phc[b >= 0 ? (size_t)b : i];
		fprintf(f, "phc: ptp%" PRIu32 " %s (ifindex %" PRIu32 ") %s, %zu readings, offset %" PRId64
			" ns, window %" PRId64 " ns", s->phc_index, phc_ifname(s, name),
			s->ifindex, phc_method(s), phc_readings(cap, i),
			nsight_phc_offset_ns(s), nsight_phc_window_ns(s));
		/* Read again and again by nsightctl record: how it moved. */
		if (nsight_phc_drift(cap->phc, cap->n_phc, s->ifindex, &drift, &span)) {
			double ppm = 1e6 * (double)drift / (double)span;

			fprintf(f, ", drift %+" PRId64 " ns over %.1f s (%+.3f ppm)%s", drift,
				span / 1e9, ppm, fabs(ppm) > 1000 ?
				": it does not run at the system clock's rate" : ", interpolated");
		}
		fputc('\n', f);
	}
}

/* TSC @tsc in seconds from the capture's first record. */
static double since_start(const struct nsight_analysis *a, uint64_t tsc)
{
	uint64_t hz = a->sum.hdr.tsc_hz ? a->sum.hdr.tsc_hz : 1;

	return tsc > a->sum.tsc_first ? (double)(tsc - a->sum.tsc_first) / (double)hz : 0;
}

void nsight_report_loss_text(FILE *f, const struct nsight_analysis *a)
{
	const struct nsight_capture *cap = &a->cap;
	size_t i;
	uint32_t c;

	if (!a->sum.dropped)
		return;
	fprintf(f, "loss: %" PRIu64 " records lost; messages with a stage there are incomplete or"
		" left out of the diagnosis\n", a->sum.dropped);
	/* Drops after a CPU's last record are windows to UINT64_MAX: told below. */
	for (i = 0; i < cap->n_drops; i++) {
		const struct nsight_drop_window *w = &cap->drops[i];

		if (w->to != UINT64_MAX)
			fprintf(f, "  cpu %" PRIu32 ": %" PRIu64 " between +%.6f s and +%.6f s\n",
				w->cpu, w->dropped, since_start(a, w->from), since_start(a, w->to));
	}
	for (c = 0; c < a->sum.nr_cpus && cap->cpus; c++)
		if (a->sum.cpus[c].dropped_after)
			fprintf(f, "  cpu %" PRIu32 ": %" PRIu64 " after its last record, +%.6f s\n", c,
				a->sum.cpus[c].dropped_after, since_start(a, cap->cpus[c].max_tsc));
}

/* @tsc as @clk ns, or null when it cannot be converted. */
static void add_time(struct json_object *o, const char *key, const struct nsight_analysis *a,
		     enum nsight_clockid clk, uint64_t tsc, int *err)
{
	int64_t ns;

	if (nsight_tc_convert(&a->tc, tsc, clk, &ns))
		jo_add_i64(o, key, ns, err);
	else
		jo_add_null(o, key, err);
}

/* Where each CPU lost records: [{cpu, dropped, from_ns, to_ns}], to_ns null after the last. */
static struct json_object *loss_json(const struct nsight_analysis *a, enum nsight_clockid clk,
				     int *err)
{
	const struct nsight_capture *cap = &a->cap;
	struct json_object *arr = json_object_new_array();
	size_t i;
	uint32_t c;

	for (i = 0; i < cap->n_drops; i++) {
		const struct nsight_drop_window *w = &cap->drops[i];
		struct json_object *o;

		if (w->to == UINT64_MAX)
			continue;	/* after the CPU's last record: below */
		o = json_object_new_object();
		jo_add_u64(o, "cpu", w->cpu, err);
		jo_add_u64(o, "dropped", w->dropped, err);
		add_time(o, "from_ns", a, clk, w->from, err);
		add_time(o, "to_ns", a, clk, w->to, err);
		jo_push(arr, o, err);
	}
	for (c = 0; c < a->sum.nr_cpus && cap->cpus; c++) {
		struct json_object *o;

		if (!a->sum.cpus[c].dropped_after)
			continue;
		o = json_object_new_object();
		jo_add_u64(o, "cpu", c, err);
		jo_add_u64(o, "dropped", a->sum.cpus[c].dropped_after, err);
		add_time(o, "from_ns", a, clk, cap->cpus[c].max_tsc, err);
		jo_add_null(o, "to_ns", err);
		jo_push(arr, o, err);
	}
	return arr;
}

static void print_reasons(FILE *f, const uint64_t *by_reason)
{
	const char *sep = "";
	unsigned int r;

	for (r = NSIGHT_MSG_COMPLETE + 1; r < __NSIGHT_MSG_REASONS; r++) {
		if (!by_reason[r])
			continue;
		fprintf(f, "%s%s %" PRIu64, sep, nsight_msg_reason_name(r), by_reason[r]);
		sep = ", ";
	}
}

void nsight_report_latency_table(FILE *f, const struct nsight_latency *l)
{
	char comm[17];
	size_t i, k;

	if (l->n) {
		fprintf(f, "  %-16s %8s %-3s %8s", "comm", "pid", "dir", "count");
		for (k = 0; k < NSIGHT_LAT_NPCT; k++)
			fprintf(f, " %12s", nsight_lat_pct_name[k]);
		fprintf(f, " %12s  %s\n", "max", "incomplete");
	}
	for (i = 0; i < l->n; i++) {
		const struct nsight_lat_group *g = &l->groups[i];

		fprintf(f, "  %-16s %8" PRIu32 " %-3s %8" PRIu64,
			comm_of(g->comm, comm, sizeof(comm)), g->pid, nsight_msg_dir_name(g->dir),
			g->count);
		for (k = 0; k < NSIGHT_LAT_NPCT; k++) {
			if (g->count)
				fprintf(f, " %12" PRId64, g->pct[k]);
			else
				fprintf(f, " %12s", "-");
		}
		if (g->count)
			fprintf(f, " %12" PRId64 "  %" PRIu64, g->max, g->incomplete);
		else
			fprintf(f, " %12s  %" PRIu64, "-", g->incomplete);
		if (g->incomplete) {
			fputs(" (", f);
			print_reasons(f, g->by_reason);
			fputc(')', f);
		}
		fputc('\n', f);
	}
}

void nsight_report_latency_text(FILE *f, const struct nsight_analysis *a)
{
	const struct nsight_lifetimes *lt = &a->lt;
	uint64_t incomplete = lt->n - lt->n_complete;

	fprintf(f, "latency: %zu messages, %" PRIu64 " complete, %" PRIu64 " incomplete", lt->n,
		lt->n_complete, incomplete);
	if (incomplete) {
		fputs(" (", f);
		print_reasons(f, lt->by_reason);
		fputc(')', f);
	}
	if (!lt->n)
		fputs(" (no packet, hand-off or application records make one)\n", f);
	else
		fputs("; total ns (rx n->a, tx send->xmit or ->done), nearest-rank percentiles\n", f);
	nsight_report_latency_table(f, &a->lat);
	fprintf(f, "  out-of-order records: %" PRIu64 "\n", lt->ooo_records);
	if (lt->stages_unresolved)
		fprintf(f, "  packet stages whose first stage was not read: %" PRIu64 "\n",
			lt->stages_unresolved);
	if (lt->fifo)
		fprintf(f, "  udp receives matched in socket order (no app_copy): %" PRIu64 "\n", lt->fifo);
	if (lt->early_reads)
		fprintf(f, "  udp datagrams read before their hand-off record (h = the read): %" PRIu64 "\n",
			lt->early_reads);
	if (lt->unattributed_pkts)
		fprintf(f, "  rx data packets of no socket seen: %" PRIu64 "\n", lt->unattributed_pkts);
	if (lt->hw_used || lt->hw_unused)
		fprintf(f, "  nic hardware timestamps: %" PRIu64 " used, %" PRIu64 " not convertible or implausible\n",
			lt->hw_used, lt->hw_unused);
}

static void print_cpu(FILE *f, const struct nsight_msg_time *t)
{
	if (t->valid)
		fprintf(f, "%" PRIu32, t->cpu);
	else
		fputc('?', f);
}

static void print_msg(FILE *f, const struct nsight_msg *m, enum nsight_clockid clk)
{
	unsigned int n = nsight_msg_n_stages(m->dir), st, first = 0;
	char comm[17], flow[128], proto[8], when[32];

	while (first + 1 < n && !m->t[first].valid)
		first++;
	fprintf(f, "  %s %" PRIu64 " %s %s[%" PRIu32 "/%" PRIu32 "] %s", nsight_msg_dir_name(m->dir),
		m->id, nsight_proto_name(m->protocol, proto, sizeof(proto)),
		comm_of(m->comm, comm, sizeof(comm)), m->pid, m->tid,
		nsight_flow_format(&m->flow, flow, sizeof(flow)));
	if (m->t[first].timed)
		fprintf(f, " %s@%s", nsight_msg_stage_name(m->dir, first),
			abs_time(nsight_msg_time_ns(&m->t[first], clk), when, sizeof(when)));
	else
		fprintf(f, " %s@tsc:%" PRIu64, nsight_msg_stage_name(m->dir, first), m->t[first].tsc);
	for (st = 0; st + 1 < n; st++) {
		fprintf(f, " %s->%s ", nsight_msg_stage_name(m->dir, st), nsight_msg_stage_name(m->dir, st + 1));
		if (m->t[st].timed && m->t[st + 1].timed)
			fprintf(f, "%" PRId64, m->seg_ns[st]);
		else
			fputc('-', f);
	}
	fputs(" cpu ", f);
	print_cpu(f, &m->t[m->dir == NSIGHT_MSG_RX ? NSIGHT_RX_H : NSIGHT_TX_SEND]);
	fputs("->", f);
	print_cpu(f, &m->t[m->dir == NSIGHT_MSG_RX ? NSIGHT_RX_A : NSIGHT_TX_XMIT]);
	if (m->reason == NSIGHT_MSG_COMPLETE)
		fprintf(f, " total %" PRId64, m->total_ns);
	else
		fprintf(f, " incomplete %s", nsight_msg_reason_name(m->reason));
	fprintf(f, " pkts %" PRIu32 " bytes %" PRIu64 "%s%s%s", m->packets, m->bytes,
		m->dir == NSIGHT_MSG_RX && m->t[NSIGHT_RX_N].hw ? " hw" : "",
		m->fifo ? " fifo" : "", m->early_read ? " early" : "");
	if (m->hold)
		fprintf(f, " held %s", nsight_tcp_hold_name(m->hold));
	fputc('\n', f);
}

void nsight_report_messages_text(FILE *f, const struct nsight_analysis *a, enum nsight_clockid clk)
{
	const struct nsight_lifetimes *lt = &a->lt;
	size_t i;
	int pass;

	fprintf(f, "messages: %zu (%" PRIu64 " complete, %" PRIu64 " incomplete listed last); ids per direction, durations ns, clock %s\n",
		lt->n, lt->n_complete, lt->n - lt->n_complete, nsight_clock_name(clk));
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < lt->n; i++)
			if ((lt->msgs[i].reason == NSIGHT_MSG_COMPLETE) == !pass)
				print_msg(f, &lt->msgs[i], clk);
}

void nsight_report_tcheck_text(FILE *f, const struct nsight_timeconv *tc,
			       const struct nsight_tcheck *r)
{
	size_t i;

	fprintf(f, "time-check: %" PRIu64 " conversions, %" PRIu64 " inversions, %zu timekeeper records (%" PRIu64
		" clock-was-set), max |conv - real| %" PRIu64 " ns, params %s, %" PRIu64 " uncovered, %"
		PRIu64 " ambiguous\n",
		r->conversions, r->inversions, tc->n_tk, tc->n_clock_was_set, r->max_abs_err,
		nsight_tc_params_name(tc->params), r->uncovered, r->ambiguous);
	for (i = 0; i < r->n_examples; i++) {
		const struct nsight_tcheck_example *e = &r->ex[i];

		if (e->after_real)
			fprintf(f, "  pair %" PRIu64 ": conv(tsc %" PRIu64 ") %" PRId64 " > real %" PRId64 " by %" PRIu64 " ns\n",
				e->pair, e->tsc, e->conv, e->real, (uint64_t)e->conv - (uint64_t)e->real);
		else
			fprintf(f, "  pair %" PRIu64 ": real %" PRId64 " of pair %" PRIu64 " > conv(tsc %" PRIu64 ") %" PRId64
				" by %" PRIu64 " ns\n", e->pair, e->real, e->prev, e->tsc, e->conv,
				(uint64_t)e->real - (uint64_t)e->conv);
	}
	if (r->inversions > r->n_examples)
		fprintf(f, "  ... and %" PRIu64 " more\n", r->inversions - r->n_examples);
}

/* ---------------------------------------------------------------------- */
/* JSON                                                                     */







static struct json_object *reasons_json(const uint64_t *by_reason, int *err)
{
	struct json_object *o = json_object_new_object();
	unsigned int r;

	for (r = NSIGHT_MSG_COMPLETE + 1; r < __NSIGHT_MSG_REASONS; r++)
		jo_add_u64(o, nsight_msg_reason_name(r), by_reason[r], err);
	return o;
}

static struct json_object *phc_json(const struct nsight_analysis *a, int *err)
{
	const struct nsight_capture *cap = &a->cap;
	struct json_object *arr = json_object_new_array();
	char name[sizeof(cap->phc->ifname) + 1];
	size_t i;

	for (i = 0; i < cap->n_phc; i++) {
		const struct nsight_phc_sample *s;
		struct json_object *o;
		int64_t drift, span;
		ssize_t b;

		if (!phc_first_of_kind(cap, i))
			continue;
		b = nsight_phc_best(cap->phc, cap->n_phc, cap->phc[i].ifindex);
		s = &cap->phc[b >= 0 ? (size_t)b : i];
		o = json_object_new_object();
		jo_add_u64(o, "phc_index", s->phc_index, err);
		jo_add_str(o, "ifname", phc_ifname(s, name), err);
		jo_add_u64(o, "ifindex", s->ifindex, err);
		jo_add_str(o, "method", phc_method(s), err);
		jo_add_u64(o, "readings", phc_readings(cap, i), err);
		jo_add_i64(o, "offset_ns", nsight_phc_offset_ns(s), err);
		jo_add_i64(o, "window_ns", nsight_phc_window_ns(s), err);
		if (nsight_phc_drift(cap->phc, cap->n_phc, s->ifindex, &drift, &span)) {
			jo_add_i64(o, "drift_ns", drift, err);
			jo_add_i64(o, "drift_span_ns", span, err);
		}
		jo_push(arr, o, err);
	}
	return arr;
}

static struct json_object *time_json(const struct nsight_analysis *a, enum nsight_clockid clk,
				     int *err)
{
	const struct nsight_timeconv *tc = &a->tc;
	struct json_object *o = json_object_new_object();

	jo_add_str(o, "clock", nsight_clock_name(clk), err);
	jo_add_str(o, "quality", nsight_tc_quality_name(tc->quality), err);
	jo_add_str(o, "params", nsight_tc_params_name(tc->params), err);
	jo_add_u64(o, "timekeeper_records", tc->n_tk, err);
	jo_add_u64(o, "clock_was_set", tc->n_clock_was_set, err);
	jo_add_u64(o, "invalid_timekeeper_records", tc->n_invalid, err);
	jo_add_u64(o, "clock_sync_records", tc->n_cs, err);
	jo_add_u64(o, "tsc_hz", tc->tsc_hz, err);
	jo_add(o, "phc", phc_json(a, err), err);
	return o;
}

struct json_object *nsight_report_lat_group_json(const struct nsight_lat_group *g, int *err)
{
	struct json_object *go = json_object_new_object();
	char comm[17];
	size_t k;

	jo_add_str(go, "comm", nsight_printable(comm, g->comm, sizeof(comm), true), err);
	jo_add_u64(go, "pid", g->pid, err);
	jo_add_str(go, "dir", nsight_msg_dir_name(g->dir), err);
	jo_add_u64(go, "count", g->count, err);
	for (k = 0; k < NSIGHT_LAT_NPCT; k++) {
		if (g->count)
			jo_add_i64(go, nsight_lat_pct_name[k], g->pct[k], err);
		else
			jo_add_null(go, nsight_lat_pct_name[k], err);
	}
	if (g->count)
		jo_add_i64(go, "max", g->max, err);
	else
		jo_add_null(go, "max", err);
	jo_add_u64(go, "incomplete", g->incomplete, err);
	jo_add(go, "incomplete_by_reason", reasons_json(g->by_reason, err), err);
	return go;
}

static struct json_object *latency_json(const struct nsight_analysis *a, int *err)
{
	const struct nsight_lifetimes *lt = &a->lt;
	const struct nsight_latency *l = &a->lat;
	struct json_object *o = json_object_new_object(), *groups = json_object_new_array();
	size_t i;

	jo_add_str(o, "unit", "ns", err);
	jo_add_str(o, "percentiles", "nearest-rank", err);
	jo_add_u64(o, "messages", lt->n, err);
	jo_add_u64(o, "complete", lt->n_complete, err);
	jo_add_u64(o, "incomplete", lt->n - lt->n_complete, err);
	jo_add(o, "incomplete_by_reason", reasons_json(lt->by_reason, err), err);
	jo_add_u64(o, "out_of_order_records", lt->ooo_records, err);
	jo_add_u64(o, "packet_stages_unresolved", lt->stages_unresolved, err);
	jo_add_u64(o, "udp_fifo_matched", lt->fifo, err);
	jo_add_u64(o, "udp_early_reads", lt->early_reads, err);
	jo_add_u64(o, "unattributed_packets", lt->unattributed_pkts, err);
	jo_add_u64(o, "hw_timestamps_used", lt->hw_used, err);
	jo_add_u64(o, "hw_timestamps_unused", lt->hw_unused, err);
	for (i = 0; i < l->n; i++)
		jo_push(groups, nsight_report_lat_group_json(&l->groups[i], err), err);
	jo_add(o, "groups", groups, err);
	return o;
}

static struct json_object *stage_json(const struct nsight_msg_time *t, enum nsight_clockid clk,
				      int *err)
{
	struct json_object *o;

	if (!t->valid)
		return NULL;
	o = json_object_new_object();
	if (t->timed)
		jo_add_i64(o, "ns", nsight_msg_time_ns(t, clk), err);
	else
		jo_add_null(o, "ns", err);
	jo_add_u64(o, "tsc", t->tsc, err);
	jo_add_u64(o, "cpu", t->cpu, err);
	jo_add_str(o, "source", t->hw ? "hw" : "sw", err);
	return o;
}

static struct json_object *msg_json(const struct nsight_msg *m, enum nsight_clockid clk, int *err)
{
	struct json_object *o = json_object_new_object(), *app = json_object_new_object();
	struct json_object *flow = json_object_new_object(), *stages = json_object_new_object();
	struct json_object *segs = json_object_new_object(), *cpus = json_object_new_object();
	unsigned int n = nsight_msg_n_stages(m->dir), st;
	const struct nsight_msg_time *from, *to;
	char buf[128], proto[8];

	jo_add_u64(o, "id", m->id, err);
	jo_add_str(o, "dir", nsight_msg_dir_name(m->dir), err);
	jo_add_str(o, "protocol", nsight_proto_name(m->protocol, proto, sizeof(proto)), err);
	jo_add(o, "complete", json_object_new_boolean(m->reason == NSIGHT_MSG_COMPLETE), err);
	jo_add_str(o, "reason", nsight_msg_reason_name(m->reason), err);

	jo_add_str(app, "comm", nsight_printable(buf, m->comm, 17, true), err);
	jo_add_u64(app, "pid", m->pid, err);
	jo_add_u64(app, "tid", m->tid, err);
	jo_add(o, "app", app, err);

	jo_add_str(flow, "src", nsight_endpoint_format(m->flow.saddr, m->flow.sport, buf, sizeof(buf)),
		err);
	jo_add_str(flow, "dst", nsight_endpoint_format(m->flow.daddr, m->flow.dport, buf, sizeof(buf)),
		err);
	jo_add(o, "flow", flow, err);
	jo_add_u64(o, "sock_id", m->sock_id, err);

	for (st = 0; st < n; st++) {
		struct json_object *s = stage_json(&m->t[st], clk, err);

		if (s)
			jo_add(stages, nsight_msg_stage_name(m->dir, st), s, err);
		else
			jo_add_null(stages, nsight_msg_stage_name(m->dir, st), err);
	}
	jo_add(o, "stages", stages, err);
	for (st = 0; st + 1 < n; st++) {
		snprintf(buf, sizeof(buf), "%s_%s", nsight_msg_stage_name(m->dir, st),
			 nsight_msg_stage_name(m->dir, st + 1));
		if (m->t[st].timed && m->t[st + 1].timed)
			jo_add_i64(segs, buf, m->seg_ns[st], err);
		else
			jo_add_null(segs, buf, err);
	}
	jo_add(o, "segments_ns", segs, err);

	from = &m->t[m->dir == NSIGHT_MSG_RX ? NSIGHT_RX_H : NSIGHT_TX_SEND];
	to = &m->t[m->dir == NSIGHT_MSG_RX ? NSIGHT_RX_A : NSIGHT_TX_XMIT];
	if (from->valid)
		jo_add_u64(cpus, "from", from->cpu, err);
	else
		jo_add_null(cpus, "from", err);
	if (to->valid)
		jo_add_u64(cpus, "to", to->cpu, err);
	else
		jo_add_null(cpus, "to", err);
	jo_add(o, "cpus", cpus, err);

	if (m->reason == NSIGHT_MSG_COMPLETE)
		jo_add_i64(o, "total_ns", m->total_ns, err);
	else
		jo_add_null(o, "total_ns", err);
	jo_add_u64(o, "packets", m->packets, err);
	jo_add_u64(o, "bytes", m->bytes, err);
	jo_add(o, "fifo", json_object_new_boolean(m->fifo), err);
	jo_add(o, "early_read", json_object_new_boolean(m->early_read), err);
	/* Why a TCP message's bytes waited, and how long. */
	if (m->hold) {
		jo_add_str(o, "tcp_hold", nsight_tcp_hold_name(m->hold), err);
		jo_add_u64(o, "tcp_hold_ns", m->hold_ns, err);
	} else {
		jo_add_null(o, "tcp_hold", err);
	}
	return o;
}

void nsight_report_time_json(struct nsight_jsink *s, const struct nsight_analysis *a,
			     enum nsight_clockid clk)
{
	nsight_jsink_put(s, "time", time_json(a, clk, s->err));
	nsight_jsink_put(s, "loss", loss_json(a, clk, s->err));
}

void nsight_report_latency_json(struct nsight_jsink *s, const struct nsight_analysis *a)
{
	nsight_jsink_put(s, "latency", latency_json(a, s->err));
}

void nsight_report_messages_json(struct nsight_jsink *s, const struct nsight_analysis *a,
				 enum nsight_clockid clk)
{
	struct nsight_jsink arr = nsight_jsink_open(s, "messages", true);
	size_t i;
	int pass;

	for (pass = 0; pass < 2 && !*s->err; pass++)
		for (i = 0; i < a->lt.n && !*s->err; i++)
			if ((a->lt.msgs[i].reason == NSIGHT_MSG_COMPLETE) == !pass)
				nsight_jsink_put(&arr, NULL, msg_json(&a->lt.msgs[i], clk, s->err));
	nsight_jsink_close(&arr);
}

int nsight_report_json(struct nsight_jsink *s, const struct nsight_analysis *a,
		       enum nsight_clockid clk, bool messages)
{
	nsight_report_time_json(s, a, clk);
	nsight_report_latency_json(s, a);
	if (messages)
		nsight_report_messages_json(s, a, clk);
	return *s->err;
}

int nsight_report_add_json(struct json_object *o, const struct nsight_analysis *a,
			   enum nsight_clockid clk, bool messages)
{
	int err = 0;
	struct nsight_jsink s = nsight_jsink_tree(o, &err);

	return nsight_report_json(&s, a, clk, messages);
}

struct json_object *nsight_report_tcheck_json(const char *pairs_name, const char *name,
					      const struct nsight_timeconv *tc,
					      const struct nsight_tcheck *r)
{
	struct json_object *top = json_object_new_object(), *o = json_object_new_object();
	struct json_object *ex = json_object_new_array();
	size_t i;
	int err = 0;

	jo_add_str(o, "stream", name, &err);
	jo_add_str(o, "pairs_file", pairs_name, &err);
	jo_add_u64(o, "pairs", r->pairs, &err);
	jo_add_u64(o, "conversions", r->conversions, &err);
	jo_add_u64(o, "inversions", r->inversions, &err);
	jo_add_u64(o, "uncovered", r->uncovered, &err);
	jo_add_u64(o, "ambiguous", r->ambiguous, &err);
	jo_add_u64(o, "timekeeper_records", tc->n_tk, &err);
	jo_add_u64(o, "clock_was_set", tc->n_clock_was_set, &err);
	jo_add_u64(o, "max_abs_err_ns", r->max_abs_err, &err);
	jo_add_str(o, "params", nsight_tc_params_name(tc->params), &err);
	for (i = 0; i < r->n_examples; i++) {
		const struct nsight_tcheck_example *e = &r->ex[i];
		struct json_object *eo = json_object_new_object();

		jo_add_u64(eo, "pair", e->pair, &err);
		jo_add_str(eo, "kind", e->after_real ? "conv_after_real" : "real_after_next_conv", &err);
		if (!e->after_real)
			jo_add_u64(eo, "prev_pair", e->prev, &err);
		jo_add_u64(eo, "tsc", e->tsc, &err);
		jo_add_i64(eo, "conv_ns", e->conv, &err);
		jo_add_i64(eo, "real_ns", e->real, &err);
		jo_push(ex, eo, &err);
	}
	jo_add(o, "examples", ex, &err);
	jo_add(top, "time_check", o, &err);
	if (err) {
		json_object_put(top);
		return NULL;
	}
	return top;
}
