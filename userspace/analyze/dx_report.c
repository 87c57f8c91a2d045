// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <string.h>

#include "dx_report.h"
#include "format/flow.h"
#include "diagnose/nextstep.h"
#include "diagnose/loops.h"
#include "diagnose/rxwork.h"
#include "json_out.h"
#include "print.h"


const char *nsight_key_printable(const struct nsight_keys *k, uint32_t key, char *buf, size_t len)
{
	char raw[NSIGHT_KEY_NAME_MAX + 32];

	return nsight_printable(buf, nsight_key_format(k, key, raw, sizeof(raw)), len, true);
}

const char *nsight_comm_format(const char comm[16], char *buf, size_t len)
{
	char c[17];

	memcpy(c, comm, 16);
	c[16] = '\0';
	return c[0] ? nsight_printable(buf, c, len, false) : "?";
}

const char *nsight_pct_format(uint32_t per100k, char *buf, size_t len)
{
	uint32_t whole = per100k / 1000, frac = per100k % 1000;

	if (!frac)
		snprintf(buf, len, "%" PRIu32, whole);
	else if (frac % 100 == 0)
		snprintf(buf, len, "%" PRIu32 ".%" PRIu32, whole, frac / 100);
	else if (frac % 10 == 0)
		snprintf(buf, len, "%" PRIu32 ".%02" PRIu32, whole, frac / 10);
	else
		snprintf(buf, len, "%" PRIu32 ".%03" PRIu32, whole, frac);
	return buf;
}

/* A ratio as a whole percentage, honest beyond 0..100%. */
static const char *pct(double ratio, char *buf, size_t len)
{
	double p = ratio * 100;

	if (p > 1e9 || p < -1e9)
		snprintf(buf, len, "%s", p > 0 ? ">1e9%" : "<-1e9%");
	else
		snprintf(buf, len, "%.0f%%", p);
	return buf;
}

/* "fastest 20%", "slice p20-p30", and " of baseline NAME". */
static const char *reference_desc(const struct nsight_dx_opts *o, char *buf, size_t len)
{
	char lo[16], hi[16], base[256];

	base[0] = '\0';
	if (o->baseline)
		snprintf(base, sizeof(base), " of baseline %s", o->baseline);
	if (!o->slice && !o->ref_lo)
		snprintf(buf, len, "fastest %s%%%s", nsight_pct_format(o->ref_hi, hi, sizeof(hi)), base);
	else
		snprintf(buf, len, "slice p%s-p%s%s", nsight_pct_format(o->ref_lo, lo, sizeof(lo)),
			 nsight_pct_format(o->ref_hi, hi, sizeof(hi)), base);
	return buf;
}

void nsight_dx_cause_name(const struct nsight_dx_cause *c, char *buf, size_t len)
{
	char cat[256];

	snprintf(buf, len, "%s (%s)", nsight_printable(cat, c->category, sizeof(cat), true),
		 nsight_role_name(c->role));
}

/*
 * A column of @g's causes' message counts (@main: main, else messages): at
 * least @min wide, wider when a count needs it, so columns stay apart.
 */
static int count_width(const struct nsight_dx_group *g, bool main, int min)
{
	uint64_t most = 0;
	size_t k;
	int w = 1;

	for (k = 0; k < g->n_causes; k++) {
		uint64_t v = main ? g->causes[k].main : g->causes[k].messages;

		most = v > most ? v : most;
	}
	for (; most >= 10; most /= 10)
		w++;
	return w + 1 > min ? w + 1 : min;
}

/* A cause's deviation: "+12345" (ns) or "+12.3us". */
static const char *plus(const struct nsight_tty *t, int64_t ns, char *buf, size_t len)
{
	char d[32];

	if (t->width)
		snprintf(buf, len, "+%s", nsight_tty_duration(ns, d, sizeof(d)));
	else
		snprintf(buf, len, "+%" PRId64, ns);
	return buf;
}

/*
 * One slowest message's causes after @used columns. Within a width: the
 * first goes on a line of its own when it does not fit, then the causes
 * that fit, then "+N more".
 */
static void msg_causes(FILE *f, const struct nsight_dx_group *g, const struct nsight_dx_msg *m,
		       size_t used, const struct nsight_tty *t)
{
	char buf[300], item[340], p[40];
	size_t k;

	if (!m->n_mc)
		fputs(" no anomaly", f);
	for (k = 0; k < m->n_mc; k++) {
		const struct nsight_dx_mcause *mc = &g->mcs[m->mc + k];
		int n;

		nsight_dx_cause_name(&g->causes[mc->cause], buf, sizeof(buf));
		n = snprintf(item, sizeof(item), "%s %s %s", k ? "," : "", buf,
			     plus(t, mc->dev, p, sizeof(p)));
		if (t->width && !k && used + (size_t)n > t->width) {
			fputs("\n     ", f);
			used = 5;
		}
		/* Room for this one and a ", +N more" after it, unless it is the last. */
		if (t->width && k && used + (size_t)n + (k + 1 < m->n_mc ? 10 : 0) > t->width) {
			fprintf(f, ", +%zu more", m->n_mc - k);
			break;
		}
		fputs(item, f);
		used += (size_t)n;
	}
	fputc('\n', f);
}

/* Next steps and receive work shown for causes up to this rank; flows per cause. */
#define DETAIL_CAUSES	3
#define RXWORK_FLOWS	3

/*
 * The traffic behind cause @k of @g when it is receive work: a line with
 * the packets, then one per flow (most packets first).
 */
static void rxwork_text(FILE *f, const struct nsight_dx_group *g, size_t k,
			const struct nsight_analysis *a)
{
	struct nsight_rxwork w;
	char flow[128], proto[8];
	size_t i;

	if (nsight_rxwork_of_cause(&w, g, (uint32_t)k, &a->lt, &a->cap, a->keys) || !w.packets) {
		nsight_rxwork_fini(&w);
		return;
	}
	fprintf(f, "    receive work behind it: %" PRIu64 " packets in the windows of %" PRIu64
		" tail messages, %zu flow%s\n", w.packets, w.messages, w.n, w.n == 1 ? "" : "s");
	for (i = 0; i < w.n && i < RXWORK_FLOWS; i++)
		fprintf(f, "      %s %s: %" PRIu64 " packets, %" PRIu64 " bytes, %s\n",
			nsight_proto_name(w.v[i].flow.protocol, proto, sizeof(proto)),
			nsight_flow_format(&w.v[i].flow, flow, sizeof(flow)), w.v[i].packets,
			w.v[i].bytes, w.v[i].read ? "read" : "no reader");
	if (w.n > RXWORK_FLOWS)
		fprintf(f, "      %zu more flows\n", w.n - RXWORK_FLOWS);
	nsight_rxwork_fini(&w);
}

/* @text indented by @indent, wrapped at word ends within @width columns (0: none). */
static void wrapped(FILE *f, const char *text, int indent, unsigned int width)
{
	const char *p = text;

	while (*p) {
		size_t room = width > (unsigned int)indent + 20 ? width - indent : SIZE_MAX;
		size_t n = strlen(p);

		if (n > room) {
			n = room;
			while (n > 0 && p[n] != ' ')
				n--;
			if (!n)
				n = room;
		}
		fprintf(f, "%*s%.*s\n", indent, "", (int)n, p);
		p += n;
		while (*p == ' ')
			p++;
	}
}

/* The evidence and what to try for cause @k of @g: two lines or more. */
static void next_step_text(FILE *f, const struct nsight_dx_group *g, size_t k,
			   const struct nsight_keys *keys, const struct nsight_tty *t)
{
	struct nsight_next_step st;
	char key[NSIGHT_KEY_NAME_MAX + 32], cpu[32], line[NSIGHT_KEY_NAME_MAX + 128];

	if (!nsight_next_step(g, (uint32_t)k, keys, &st))
		return;
	nsight_key_printable(keys, st.key, key, sizeof(key));
	cpu[0] = '\0';
	if (st.has_cpu)
		snprintf(cpu, sizeof(cpu), " on cpu %" PRIu32, st.cpu);
	snprintf(line, sizeof(line), "next step: %s%s in %" PRIu64 " tail messages", key, cpu,
		 st.messages);
	wrapped(f, line, 4, t->width);
	wrapped(f, st.advice, 6, t->width);
}

/*
 * Under the row of cause @k, within the first DETAIL_CAUSES: its next step
 * (with the anomalies' @keys) and its traffic (with the analysis @a).
 */
static void cause_details(FILE *f, const struct nsight_dx_group *g, size_t k,
			  const struct nsight_analysis *a, const struct nsight_keys *keys,
			  const struct nsight_tty *t)
{
	if (k >= DETAIL_CAUSES)
		return;
	if (keys)
		next_step_text(f, g, k, keys, t);
	if (a)
		rxwork_text(f, g, k, a);
}

/*
 * "tail 5 >= p90 (51.7us)" or, for a band, "band 6 in p85-p95 (22.7us to
 * 62.7us)"; "messages" after the count in the plain text.
 */
static const char *tail_desc(const struct nsight_dx_opts *o, const struct nsight_dx_group *g,
			     const struct nsight_tty *t, char *buf, size_t len)
{
	const char *msgs = t->width ? "" : " messages";
	char tp[16], tp2[16], b1[32], b2[32];

	if (o->tail_hi < 100000)
		snprintf(buf, len, "band %zu%s in p%s-p%s (%s to %s)", g->n_msgs, msgs,
			 nsight_pct_format(o->tail, tp, sizeof(tp)),
			 nsight_pct_format(o->tail_hi, tp2, sizeof(tp2)),
			 nsight_tty_dur(t, g->tail_threshold, b1, sizeof(b1)),
			 nsight_tty_dur(t, g->tail_threshold_hi, b2, sizeof(b2)));
	else
		snprintf(buf, len, "tail %zu%s >= p%s (%s)", g->n_msgs, msgs,
			 nsight_pct_format(o->tail, tp, sizeof(tp)),
			 nsight_tty_dur(t, g->tail_threshold, b1, sizeof(b1)));
	return buf;
}

static void group_text(FILE *f, const struct nsight_dx *dx, const struct nsight_dx_group *g,
		       const struct nsight_analysis *a, const struct nsight_keys *keys,
		       const struct nsight_tty *t)
{
	const struct nsight_dx_opts *o = &dx->opts;
	char comm[17], ref[300], buf[300], b1[32], b2[32], b3[32], b4[32];
	size_t i, k;

	fprintf(f, "diagnosis: %s[%" PRIu32 "] %s: ", nsight_comm_format(g->comm, comm, sizeof(comm)), g->pid,
		nsight_msg_dir_name(g->dir));
	if (g->no_baseline) {
		fprintf(f, "no %s messages of %s in the baseline %s\n", nsight_msg_dir_name(g->dir),
			comm, o->baseline ? o->baseline : "");
		return;
	}
	if (!g->n_ref) {
		fprintf(f, "no reference: records were lost in the windows of all %zu reference messages\n",
			g->ref_candidates);
		return;
	}
	fprintf(f, t->width ? "reference %zu (%s, median %s), %s\n" :
			      "reference %zu messages (%s, median %s), %s\n",
		g->n_ref, reference_desc(o, ref, sizeof(ref)), nsight_tty_dur(t, g->ref_median, b1, sizeof(b1)),
		tail_desc(o, g, t, buf, sizeof(buf)));
	if (g->n_causes && t->width) {
		/*
		 * Compact: the numbers take 35 columns and the causes the rest,
		 * as wide as the longest; a longer one pushes its own row out.
		 * The largest deviation is left to --json and the plain table.
		 */
		int nw = count_width(g, false, 6), mw = count_width(g, true, 5);
		int cw = 44, most = (int)t->width - 26 - nw - mw;

		for (k = 0; k < g->n_causes; k++) {
			nsight_dx_cause_name(&g->causes[k], buf, sizeof(buf));
			if ((int)strlen(buf) + 2 > cw)
				cw = (int)strlen(buf) + 2;
		}
		cw = cw > most && most >= 44 ? most : cw;
		fprintf(f, "  %-*s%6s%9s%*s%*s%9s\n", cw, "cause", "share", "excess", nw, "msgs",
			mw, "main", "median");
		for (k = 0; k < g->n_causes; k++) {
			const struct nsight_dx_cause *c = &g->causes[k];

			nsight_dx_cause_name(c, buf, sizeof(buf));
			fprintf(f, "  %s%-*s%6s%9s%*" PRIu64 "%*" PRIu64 "%9s%s\n",
				k ? "" : nsight_tty_bold(t), cw, buf,
				pct(nsight_dx_cause_share(g, c), b1, sizeof(b1)),
				nsight_tty_duration(c->total, b4, sizeof(b4)), nw, c->messages, mw, c->main,
				nsight_tty_duration(c->median, b2, sizeof(b2)), k ? "" : nsight_tty_off(t));
			cause_details(f, g, k, a, keys, t);
		}
	} else if (g->n_causes) {
		int nw = count_width(g, false, 9), mw = count_width(g, true, 6);

		fprintf(f, "  %-44s%7s%16s%*s%*s%16s%15s\n", "cause", "share", "excess_ns",
			nw, "messages", mw, "main", "median_dev_ns", "max_dev_ns");
		for (k = 0; k < g->n_causes; k++) {
			const struct nsight_dx_cause *c = &g->causes[k];
			int w;

			nsight_dx_cause_name(c, buf, sizeof(buf));
			w = strlen(buf) + 2 > 44 ? (int)strlen(buf) + 2 : 44;
			fprintf(f, "  %-*s%7s%16" PRId64 "%*" PRIu64 "%*" PRIu64 "%16" PRId64 "%15" PRId64 "\n",
				w, buf, pct(nsight_dx_cause_share(g, c), b1, sizeof(b1)), c->total, nw,
				c->messages, mw, c->main, c->median, c->max);
			cause_details(f, g, k, a, keys, t);
		}
	} else if (g->n_msgs) {
		fprintf(f, "  no cause: no anomaly of at least %s in the tail\n",
			nsight_tty_dur(t, o->min_dev, b1, sizeof(b1)));
	} else {
		fprintf(f, "  no cause: records were lost in the windows of all %zu tail messages\n",
			g->tail_candidates);
	}
	if (g->n_cov)
		fprintf(f, "  coverage: median %s, p10 %s, p90 %s\n", pct(g->cov_p50, b1, sizeof(b1)),
			pct(g->cov_p10, b2, sizeof(b2)), pct(g->cov_p90, b3, sizeof(b3)));
	else if (g->n_msgs)
		fprintf(f, "  coverage: - (no tail message is slower than the reference median)\n");
	if (g->skipped_incomplete || g->skipped_ref || g->skipped_tail)
		fprintf(f, "  skipped: %" PRIu64 " messages with records lost in their windows (%" PRIu64
			" incomplete, %" PRIu64 " of the reference, %" PRIu64 " of the tail)\n",
			g->skipped_incomplete + g->skipped_ref + g->skipped_tail, g->skipped_incomplete,
			g->skipped_ref, g->skipped_tail);
	if (!g->n_msgs)
		return;
	fputs("  slowest:\n", f);
	for (i = 0; i < g->n_msgs && i < NSIGHT_DX_SLOWEST; i++) {
		const struct nsight_dx_msg *m = &g->msgs[i];

		int n = fprintf(f, "    %s %" PRIu64 " latency %s, deviation %s, coverage %s:",
				nsight_msg_dir_name(g->dir), m->id, nsight_tty_dur(t, m->latency, b2, sizeof(b2)),
				nsight_tty_dur(t, m->deviation, b3, sizeof(b3)),
				m->has_coverage ? pct(m->coverage, b1, sizeof(b1)) : "-");

		msg_causes(f, g, m, n > 0 ? (size_t)n : 0, t);
	}
}

/*
 * The resource loops (loops.h), after the groups: each with its resource,
 * socket or flow, application, events and the waits of its messages, and
 * a next step.
 */
/* " T in all, median M, max X": the waits of @lp's messages or packets. */
static void loop_waits_text(FILE *f, const struct nsight_loop *lp, const struct nsight_tty *t)
{
	char b1[32], b2[32], b3[32];

	fprintf(f, " %s in all, median %s, max %s", nsight_tty_dur(t, (int64_t)lp->wait_total_ns, b1, sizeof(b1)),
		nsight_tty_dur(t, (int64_t)lp->wait_median_ns, b2, sizeof(b2)),
		nsight_tty_dur(t, (int64_t)lp->wait_max_ns, b3, sizeof(b3)));
}

static void loops_text(FILE *f, const struct nsight_analysis *a, const struct nsight_tty *t)
{
	struct nsight_diag d = { 0 };
	struct nsight_loops l;
	char where[160], comm[17], b1[32];
	size_t i;

	if (nsight_loops_find(&l, &a->cap, &a->lt, a->tc.tsc_hz, &d) || !l.n) {
		nsight_loops_fini(&l);
		return;
	}
	fputs("resource loops:\n", f);
	for (i = 0; i < l.n; i++) {
		const struct nsight_loop *lp = &l.v[i];

		if (lp->kind == NSIGHT_LOOP_TX_QUEUE) {
			fprintf(f, "  %s: device %" PRIu32 ": %" PRIu64 " packets waited %s or more:",
				nsight_loop_resource(lp->kind), lp->ifindex, lp->events,
				nsight_tty_dur(t, (int64_t)NSIGHT_LOOP_QDISC_NS, b1, sizeof(b1)));
			loop_waits_text(f, lp, t);
		} else {
			if (lp->dir == NSIGHT_MSG_RX)
				nsight_endpoint_format(lp->flow.saddr, lp->flow.sport, where,
						       sizeof(where));
			else
				nsight_flow_format(&lp->flow, where, sizeof(where));
			fprintf(f, "  %s: %s %s[%" PRIu32 "] %s: %" PRIu64 " %s",
				nsight_loop_resource(lp->kind), where,
				nsight_comm_format(lp->comm, comm, sizeof(comm)), lp->pid,
				nsight_msg_dir_name(lp->dir), lp->events,
				lp->dir == NSIGHT_MSG_RX ? "datagrams dropped" : "sends held");
			if (lp->limit_bytes)
				fprintf(f, " (%" PRIu32 " of %" PRIu32 " bytes in use)",
					lp->used_max_bytes, lp->limit_bytes);
			if (lp->messages) {
				fprintf(f, "; %" PRIu64 " messages waited in it:", lp->messages);
				loop_waits_text(f, lp, t);
			}
		}
		fprintf(f, "\n    next step: %s\n", nsight_loop_advice(lp->kind));
	}
	nsight_loops_fini(&l);
}

static const char no_fn_evidence[] =
	"evidence: context records; no function-level evidence (no sample or pt records)\n";

/* What the function-level phase 3 rests on, and at what resolution. */
static void evidence_text(FILE *f, const struct nsight_analysis *a, const struct nsight_tty *t)
{
	const struct nsight_samples *s = &a->samples;
	const struct nsight_ptev *p = &a->ptev;
	uint64_t sampled = s->n - s->exact;
	/* Compact: one part a line. */
	const char *sep = t->width ? ";\n  " : "; ";

	if (!sampled && !p->cpus_traced) {
		fputs(no_fn_evidence, f);
		return;
	}
	fputs("evidence: context records", f);
	if (p->cpus_traced)
		fprintf(f, "%skernel functions from Intel PT on %" PRIu64 " cpus, exact to its timing packets%s"
			"PT: %" PRIu64 " of %" PRIu64 " bytes decoded (the rest is outside every message), %" PRIu64 " calls, %" PRIu64 " errors, %" PRIu64 " overflows, %" PRIu64 " address space switches%s",
			sep, p->cpus_traced, sep, p->decoded_bytes, p->bytes, p->calls, p->errors,
			p->overflows, p->switches, p->wrapped ? ", output wrapped" : "");
	if (sampled) {
		fprintf(f, "%skernel functions from sampled stacks, resolution %" PRIu32 " us", sep,
			s->period_min / 1000);
		if (s->period_max != s->period_min)
			fprintf(f, " to %" PRIu32 " us", s->period_max / 1000);
		fprintf(f, "%ssamples: %" PRIu64 ", %" PRIu64 " placed, %" PRIu64 " in user code, %" PRIu64 " outside known contexts",
			sep, sampled, s->applied, s->user, s->outside);
	}
	if (p->user_procs || p->usyms.mappings)
		fprintf(f, "%suser code of %" PRIu64 " processes from Intel PT (%" PRIu64 " bytes, %zu function symbols; %" PRIu64 " stretches named)",
			sep, p->user_procs, p->user_bytes, p->usyms.n, s->user_named);
	if (p->user_no_cr3)
		fprintf(f, "%s%" PRIu64 " processes' code without a pt_cr3 record (not decoded)", sep,
			p->user_no_cr3);
	fprintf(f, "%s%zu kernel symbols%s\n", sep, a->ksyms.n,
		a->ksyms.no_addrs ? " (addresses hidden)" : "");
	if (p->first_error[0])
		fprintf(f, "evidence: first PT decode error: %s\n", p->first_error);
	if (p->nomap)
		fprintf(f, "evidence: PT code not in the capture: %" PRIu64 " times, %" PRIu64 " of them user code (not decoded: not in the capture's user code), the trace lost up to the next PSB each time; first: %s\n",
			p->nomap, p->nomap_user, p->first_nomap);
}

void nsight_dx_report_text(FILE *f, const struct nsight_dx *dx, const struct nsight_analysis *a)
{
	static const struct nsight_tty plain = { .color = false, .width = 0 };

	nsight_dx_report_tty(f, dx, a, &plain);
}

/*
 * @dx with its analysis @a (NULL: from windows, the evidence line then
 * only when @no_fn says there is none) and the anomalies' @keys.
 */
static void report_tty(FILE *f, const struct nsight_dx *dx, const struct nsight_analysis *a,
		       const struct nsight_keys *keys, bool no_fn, const struct nsight_tty *t)
{
	size_t i;

	if (dx->no_context) {
		fputs("diagnosis: no context records (sched_switch, irq, softirq, idle, fault, workqueue) in the capture, so no causes\n",
		      f);
		return;
	}
	if (!dx->n) {
		fputs("diagnosis: no complete messages\n", f);
		return;
	}
	if (a)
		evidence_text(f, a, t);
	else if (no_fn)
		fputs(no_fn_evidence, f);
	for (i = 0; i < dx->n; i++)
		group_text(f, dx, &dx->groups[i], a, keys, t);
	if (a && a->have_lifetimes)
		loops_text(f, a, t);
}

void nsight_dx_report_tty(FILE *f, const struct nsight_dx *dx, const struct nsight_analysis *a,
			  const struct nsight_tty *t)
{
	report_tty(f, dx, a, a ? a->keys : NULL, false, t);
}

void nsight_dx_report_groups_tty(FILE *f, const struct nsight_dx *dx,
				 const struct nsight_keys *keys, bool no_fn_evidence,
				 const struct nsight_tty *t)
{
	report_tty(f, dx, NULL, keys, no_fn_evidence, t);
}

/* ---------------------------------------------------------------------- */
/* JSON                                                                     */









static double pct_f(uint32_t per100k)
{
	return per100k / 1000.0;
}

static struct json_object *options_json(const struct nsight_dx_opts *o, int *err)
{
	struct json_object *j = json_object_new_object();

	jo_add_str(j, "reference", o->slice || o->ref_lo ? "slice" : "fastest", err);
	jo_add_f(j, "reference_from_pct", pct_f(o->ref_lo), err);
	jo_add_f(j, "reference_to_pct", pct_f(o->ref_hi), err);
	jo_add_u64(j, "reference_min_messages", NSIGHT_DX_MIN_REF, err);
	if (o->baseline)
		jo_add_str(j, "baseline", o->baseline, err);
	else
		jo_add_null(j, "baseline", err);
	jo_add_f(j, "tail_pct", pct_f(o->tail), err);
	jo_add_f(j, "tail_to_pct", pct_f(o->tail_hi), err);
	jo_add_i64(j, "min_dev_ns", o->min_dev, err);
	jo_add_f(j, "nested_threshold_pct", pct_f(o->nested), err);
	return j;
}

static struct json_object *anomaly_json(const struct nsight_dx_group *g,
					const struct nsight_dx_anomaly *an,
					const struct nsight_keys *keys, int *err)
{
	struct json_object *j = json_object_new_object();
	char key[NSIGHT_KEY_NAME_MAX + 32], buf[sizeof(key)], cat[256];

	nsight_key_format(keys, an->key, key, sizeof(key));
	jo_add_str(j, "key", nsight_printable(buf, key, sizeof(buf), true), err);
	jo_add_str(j, "kind", nsight_key_kind_name(nsight_key_kind(keys, an->key)), err);
	if (an->reported)
		jo_add_str(j, "category", nsight_printable(cat, g->causes[an->cause].category, sizeof(cat), true),
			err);
	else
		jo_add_null(j, "category", err);
	jo_add_str(j, "role", nsight_role_name(an->role), err);
	jo_add_u64(j, "phase", an->phase, err);
	jo_add_str(j, "reason", nsight_dx_reason_name(an->reason), err);
	jo_add_i64(j, "value_ns", an->value, err);
	jo_add_i64(j, "expected_ns", an->expected, err);
	jo_add_i64(j, "deviation_ns", an->dev, err);
	jo_add_i64(j, "explained_by_nested_ns", an->explained, err);
	jo_add_bool(j, "reported", an->reported, err);
	jo_add_i64(j, "reported_ns", an->reported_dev, err);
	jo_add_bool(j, "capped", an->capped, err);
	jo_add_u64(j, "count", an->count, err);
	jo_add_f(j, "expected_count", an->expected_count, err);
	jo_add_f(j, "presence", an->presence, err);
	return j;
}

static struct json_object *msg_json(const struct nsight_dx_group *g, const struct nsight_dx_msg *m,
				    const struct nsight_keys *keys, int *err)
{
	struct json_object *j = json_object_new_object(), *causes = json_object_new_array();
	struct json_object *anoms = json_object_new_array();
	char cat[256];
	size_t k;

	jo_add_u64(j, "id", m->id, err);
	jo_add_i64(j, "latency_ns", m->latency, err);
	jo_add_i64(j, "deviation_ns", m->deviation, err);
	jo_add_i64(j, "explained_ns", m->explained, err);
	if (m->has_coverage)
		jo_add_f(j, "coverage", m->coverage, err);
	else
		jo_add_null(j, "coverage", err);
	for (k = 0; k < m->n_mc; k++) {
		const struct nsight_dx_mcause *mc = &g->mcs[m->mc + k];
		struct json_object *c = json_object_new_object();

		jo_add_str(c, "category", nsight_printable(cat, g->causes[mc->cause].category, sizeof(cat), true),
			err);
		jo_add_str(c, "role", nsight_role_name(g->causes[mc->cause].role), err);
		jo_add_i64(c, "deviation_ns", mc->dev, err);
		jo_push(causes, c, err);
	}
	jo_add(j, "causes", causes, err);
	for (k = 0; k < m->n_anom; k++)
		jo_push(anoms, anomaly_json(g, &g->anoms[m->anom + k], keys, err), err);
	jo_add(j, "anomalies", anoms, err);
	return j;
}

bool nsight_dx_find_msg(const struct nsight_dx *dx, size_t msg, const struct nsight_dx_group **g,
			const struct nsight_dx_msg **m)
{
	size_t i, k;

	for (i = 0; i < dx->n; i++)
		for (k = 0; k < dx->groups[i].n_msgs; k++)
			if (dx->groups[i].msgs[k].msg == msg) {
				*g = &dx->groups[i];
				*m = &dx->groups[i].msgs[k];
				return true;
			}
	return false;
}

void nsight_dx_report_msg_tty(FILE *f, const struct nsight_dx_group *g,
			      const struct nsight_dx_msg *m, const struct nsight_tty *t)
{
	char b1[32], b2[32], b3[32];
	int n = fprintf(f, "  its causes (latency %s, deviation %s, coverage %s):",
			nsight_tty_dur(t, m->latency, b1, sizeof(b1)), nsight_tty_dur(t, m->deviation, b2, sizeof(b2)),
			m->has_coverage ? pct(m->coverage, b3, sizeof(b3)) : "-");

	msg_causes(f, g, m, n > 0 ? (size_t)n : 0, t);
}

struct json_object *nsight_dx_report_msg_json(const struct nsight_dx_group *g,
					      const struct nsight_dx_msg *m,
					      const struct nsight_analysis *a)
{
	int err = 0;
	struct json_object *j = msg_json(g, m, a->keys, &err);

	if (err) {
		json_object_put(j);
		return NULL;
	}
	return j;
}

void nsight_dx_group_json_who(struct json_object *o, const struct nsight_dx_group *g, int *err)
{
	char comm[17], pc[17];

	memcpy(comm, g->comm, 16);
	comm[16] = '\0';
	jo_add_str(o, "comm", nsight_printable(pc, comm, sizeof(pc), true), err);
	jo_add_u64(o, "pid", g->pid, err);
	jo_add_str(o, "direction", nsight_msg_dir_name(g->dir), err);
}

/* "next_step" of cause @k: its key, core and what to try. */
static void next_step_json(struct json_object *co, const struct nsight_dx_group *g, size_t k,
			   const struct nsight_keys *keys, int *err)
{
	struct json_object *ns;
	struct nsight_next_step st;
	char key[NSIGHT_KEY_NAME_MAX + 32];

	if (!nsight_next_step(g, (uint32_t)k, keys, &st))
		return;
	ns = json_object_new_object();
	jo_add_str(ns, "key", nsight_key_printable(keys, st.key, key, sizeof(key)), err);
	if (st.has_cpu)
		jo_add_u64(ns, "cpu", st.cpu, err);
	else
		jo_add_null(ns, "cpu", err);
	jo_add_u64(ns, "messages", st.messages, err);
	jo_add_str(ns, "advice", st.advice, err);
	jo_add(co, "next_step", ns, err);
}

/* "receive_work" of cause @k: its packets and flows, when it is receive work. */
static void rxwork_json(struct json_object *co, const struct nsight_dx_group *g, size_t k,
			const struct nsight_analysis *a, int *err)
{
	struct json_object *rw, *flows;
	struct nsight_rxwork w;
	char flow[128], proto[8];
	size_t i;

	if (nsight_rxwork_of_cause(&w, g, (uint32_t)k, &a->lt, &a->cap, a->keys)) {
		*err = -1;
	} else if (w.packets) {
		rw = json_object_new_object();
		flows = json_object_new_array();
		jo_add_u64(rw, "packets", w.packets, err);
		jo_add_u64(rw, "messages", w.messages, err);
		for (i = 0; i < w.n; i++) {
			struct json_object *fo = json_object_new_object();

			jo_add_str(fo, "protocol",
				   nsight_proto_name(w.v[i].flow.protocol, proto, sizeof(proto)), err);
			jo_add_str(fo, "flow", nsight_flow_format(&w.v[i].flow, flow, sizeof(flow)), err);
			jo_add_u64(fo, "packets", w.v[i].packets, err);
			jo_add_u64(fo, "bytes", w.v[i].bytes, err);
			jo_add_bool(fo, "read", w.v[i].read, err);
			jo_push(flows, fo, err);
		}
		jo_add(rw, "flows", flows, err);
		jo_add(co, "receive_work", rw, err);
	}
	nsight_rxwork_fini(&w);
}

/* @a NULL: no next steps nor receive work (the whole capture from windows). */
static struct json_object *group_json(const struct nsight_dx *dx, const struct nsight_dx_group *g,
				      const struct nsight_analysis *a,
				      const struct nsight_keys *keys, int *err)
{
	struct json_object *j = json_object_new_object(), *ref, *tail, *sk, *causes, *cov, *slow;
	char comm[17], pc[17];
	size_t k;

	memcpy(comm, g->comm, 16);
	comm[16] = '\0';
	jo_add_str(j, "comm", nsight_printable(pc, comm, sizeof(pc), true), err);
	jo_add_u64(j, "pid", g->pid, err);
	jo_add_str(j, "dir", nsight_msg_dir_name(g->dir), err);
	jo_add_u64(j, "complete", g->complete, err);

	ref = json_object_new_object();
	jo_add_str(ref, "source", dx->opts.baseline ? "baseline" : "capture", err);
	jo_add_bool(ref, "missing", g->no_baseline, err);
	jo_add_u64(ref, "candidates", g->ref_candidates, err);
	jo_add_u64(ref, "messages", g->n_ref, err);
	if (g->n_ref) {
		jo_add_i64(ref, "median_ns", g->ref_median, err);
		jo_add_i64(ref, "min_ns", g->ref_min, err);
		jo_add_i64(ref, "max_ns", g->ref_max, err);
	} else {
		jo_add_null(ref, "median_ns", err);
		jo_add_null(ref, "min_ns", err);
		jo_add_null(ref, "max_ns", err);
	}
	jo_add(j, "reference", ref, err);

	tail = json_object_new_object();
	jo_add_f(tail, "percentile", pct_f(dx->opts.tail), err);
	jo_add_f(tail, "to_percentile", pct_f(dx->opts.tail_hi), err);
	if (g->n_ref)
		jo_add_i64(tail, "threshold_ns", g->tail_threshold, err);
	else
		jo_add_null(tail, "threshold_ns", err);
	if (g->n_ref && dx->opts.tail_hi < 100000)
		jo_add_i64(tail, "threshold_hi_ns", g->tail_threshold_hi, err);
	else
		jo_add_null(tail, "threshold_hi_ns", err);
	jo_add_u64(tail, "candidates", g->tail_candidates, err);
	jo_add_u64(tail, "messages", g->n_msgs, err);
	jo_add_i64(tail, "excess_ns", g->tail_excess, err);
	jo_add(j, "tail", tail, err);

	sk = json_object_new_object();
	jo_add_u64(sk, "incomplete_drops", g->skipped_incomplete, err);
	jo_add_u64(sk, "reference", g->skipped_ref, err);
	jo_add_u64(sk, "tail", g->skipped_tail, err);
	jo_add(j, "skipped", sk, err);

	causes = json_object_new_array();
	for (k = 0; k < g->n_causes; k++) {
		const struct nsight_dx_cause *c = &g->causes[k];
		struct json_object *co = json_object_new_object();
		char cat[256];

		jo_add_str(co, "category", nsight_printable(cat, c->category, sizeof(cat), true), err);
		jo_add_str(co, "role", nsight_role_name(c->role), err);
		jo_add_u64(co, "main", c->main, err);
		jo_add_u64(co, "messages", c->messages, err);
		jo_add_f(co, "share", nsight_dx_cause_share(g, c), err);
		jo_add_f(co, "main_share", nsight_dx_cause_main_share(g, c), err);
		jo_add_i64(co, "median_dev_ns", c->median, err);
		jo_add_i64(co, "max_dev_ns", c->max, err);
		jo_add_i64(co, "total_dev_ns", c->total, err);
		if (keys)
			next_step_json(co, g, k, keys, err);
		if (a)
			rxwork_json(co, g, k, a, err);
		jo_push(causes, co, err);
	}
	jo_add(j, "causes", causes, err);

	cov = json_object_new_object();
	jo_add_u64(cov, "messages", g->n_cov, err);
	if (g->n_cov) {
		jo_add_f(cov, "median", g->cov_p50, err);
		jo_add_f(cov, "p10", g->cov_p10, err);
		jo_add_f(cov, "p90", g->cov_p90, err);
	} else {
		jo_add_null(cov, "median", err);
		jo_add_null(cov, "p10", err);
		jo_add_null(cov, "p90", err);
	}
	jo_add(j, "coverage", cov, err);

	slow = json_object_new_array();
	for (k = 0; k < g->n_msgs && k < NSIGHT_DX_SLOWEST; k++)
		jo_push(slow, msg_json(g, &g->msgs[k], keys, err), err);
	jo_add(j, "slowest", slow, err);
	return j;
}

static struct json_object *evidence_json(const struct nsight_analysis *a, int *err)
{
	const struct nsight_samples *s = &a->samples;
	struct json_object *j = json_object_new_object();

	jo_add_str(j, "functions", a->ptev.cpus_traced ? (s->n > s->exact ? "pt+sampled stacks" : "pt") :
				  s->n ? "sampled stacks" : "none", err);
	jo_add_u64(j, "samples", s->n - s->exact, err);
	jo_add_u64(j, "pt_cpus", a->ptev.cpus_traced, err);
	jo_add_u64(j, "pt_bytes", a->ptev.bytes, err);
	jo_add_u64(j, "pt_decoded_bytes", a->ptev.decoded_bytes, err);
	jo_add_u64(j, "pt_calls", a->ptev.calls, err);
	jo_add_u64(j, "pt_errors", a->ptev.errors, err);
	jo_add_u64(j, "pt_overflows", a->ptev.overflows, err);
	jo_add_u64(j, "pt_switches", a->ptev.switches, err);
	jo_add_u64(j, "pt_not_decoded", a->ptev.nomap, err);
	jo_add_u64(j, "pt_not_decoded_user", a->ptev.nomap_user, err);
	jo_add_u64(j, "pt_user_processes", a->ptev.user_procs, err);
	jo_add_u64(j, "pt_user_bytes", a->ptev.user_bytes, err);
	jo_add_u64(j, "pt_user_stretches_named", a->samples.user_named, err);
	jo_add_u64(j, "pt_stretches", s->exact, err);
	jo_add_u64(j, "samples_placed", s->applied, err);
	jo_add_u64(j, "samples_user", s->user, err);
	jo_add_u64(j, "samples_outside", s->outside, err);
	jo_add_u64(j, "frames_unsymbolized", s->unsymbolized, err);
	jo_add_u64(j, "resolution_ns_min", s->period_min, err);
	jo_add_u64(j, "resolution_ns_max", s->period_max, err);
	jo_add_u64(j, "kernel_symbols", a->ksyms.n, err);
	return j;
}

static struct json_object *loops_json(const struct nsight_analysis *a, int *err)
{
	struct json_object *arr = json_object_new_array();
	struct nsight_diag d = { 0 };
	struct nsight_loops l;
	char buf[160];
	size_t i;

	if (!a->have_lifetimes)
		return arr;
	if (nsight_loops_find(&l, &a->cap, &a->lt, a->tc.tsc_hz, &d))
		*err = 1;
	for (i = 0; i < l.n; i++) {
		const struct nsight_loop *lp = &l.v[i];
		struct json_object *o = json_object_new_object();

		jo_add_str(o, "kind", nsight_loop_kind_name(lp->kind), err);
		jo_add_str(o, "resource", nsight_loop_resource(lp->kind), err);
		jo_add_str(o, "dir", nsight_msg_dir_name(lp->dir), err);
		jo_add_u64(o, "sock_id", lp->sock_id, err);
		jo_add_u64(o, "ifindex", lp->ifindex, err);
		jo_add_str(o, "flow", nsight_flow_format(&lp->flow, buf, sizeof(buf)), err);
		jo_add_str(o, "comm", nsight_comm_format(lp->comm, buf, sizeof(buf)), err);
		jo_add_u64(o, "pid", lp->pid, err);
		jo_add_u64(o, "events", lp->events, err);
		jo_add_u64(o, "limit_bytes", lp->limit_bytes, err);
		jo_add_u64(o, "used_max_bytes", lp->used_max_bytes, err);
		jo_add_u64(o, "messages", lp->messages, err);
		jo_add_u64(o, "wait_total_ns", lp->wait_total_ns, err);
		jo_add_u64(o, "wait_median_ns", lp->wait_median_ns, err);
		jo_add_u64(o, "wait_max_ns", lp->wait_max_ns, err);
		jo_add_str(o, "advice", nsight_loop_advice(lp->kind), err);
		jo_push(arr, o, err);
	}
	nsight_loops_fini(&l);
	return arr;
}

int nsight_dx_report_json(struct json_object *o, const struct nsight_dx *dx,
			  const struct nsight_analysis *a)
{
	struct json_object *j = json_object_new_object(), *groups = json_object_new_array();
	int err = 0;
	size_t i;

	jo_add_str(j, "unit", "ns", &err);
	jo_add_u64(j, "context_records", a->tl.n_records, &err);
	jo_add_u64(j, "context_unmatched", a->tl.unmatched, &err);
	jo_add_u64(j, "context_too_deep", a->tl.too_deep, &err);
	jo_add(j, "options", options_json(&dx->opts, &err), &err);
	jo_add(j, "evidence", evidence_json(a, &err), &err);
	for (i = 0; i < dx->n; i++)
		jo_push(groups, group_json(dx, &dx->groups[i], a, a->keys, &err), &err);
	jo_add(j, "groups", groups, &err);
	jo_add(j, "loops", loops_json(a, &err), &err);
	jo_add(o, "diagnosis", j, &err);
	return err;
}

int nsight_dx_report_groups_json(struct json_object *o, const struct nsight_dx *dx,
				 const struct nsight_keys *keys)
{
	struct json_object *j = json_object_new_object(), *groups = json_object_new_array();
	int err = !j || !groups;
	size_t i;

	jo_add_str(j, "unit", "ns", &err);
	jo_add(j, "options", options_json(&dx->opts, &err), &err);
	for (i = 0; i < dx->n; i++)
		jo_push(groups, group_json(dx, &dx->groups[i], NULL, keys, &err), &err);
	jo_add(j, "groups", groups, &err);
	jo_add(o, "diagnosis", j, &err);
	return err;
}
