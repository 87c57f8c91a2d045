// SPDX-License-Identifier: MIT
/* nsight-analyze --merge: the report of two hosts' captures joined. */
#include <errno.h>
#include <string.h>

#include "format/flow.h"
#include "json_out.h"
#include "merge_report.h"
#include "print.h"
#include "base/zstdio.h"
#include "base/version.h"

static double us(double ns)
{
	return ns / 1000.0;
}

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0;
}

/* Each host's share of the tail's deviation, from its layers'. */
static void host_dev(const struct nsight_merge *m, int64_t dev[__NSIGHT_HOST_COUNT],
		     uint64_t main[__NSIGHT_HOST_COUNT])
{
	int l;

	memset(dev, 0, sizeof(int64_t) * __NSIGHT_HOST_COUNT);
	memset(main, 0, sizeof(uint64_t) * __NSIGHT_HOST_COUNT);
	for (l = 0; l < __NSIGHT_L_COUNT; l++) {
		dev[nsight_layer_host(l)] += m->layers[l].dev_ns;
		main[nsight_layer_host(l)] += m->layers[l].main;
	}
}

static void clock_text(FILE *f, const struct nsight_merge *m)
{
	const struct nsight_clockfit *c = m->given ? &m->estimate : &m->fit;

	if (!m->have_fit) {
		fprintf(f, "clock: no complete request to estimate the server's clock with\n");
		return;
	}
	if (m->given) {
		fprintf(f, "clock: given as synchronised within %.3f us (--synced): %s\n",
			us(m->fit.offset_hi),
			m->fit.consistent ? "the pairs agree" : "the pairs DISAGREE");
		if (!m->fit.consistent)
			fprintf(f, "       by %.3f us: the hosts' clocks are not synchronised that well\n",
				us(m->fit.violation));
		fprintf(f, "       the pairs alone estimate:\n");
	}
	fprintf(f, "clock: server - client %+.3f us at client time %lld.%09lld, bound [%+.3f, %+.3f] us (%s)\n",
		us(c->offset), (long long)(c->x0 / 1000000000), (long long)(c->x0 % 1000000000),
		us(c->offset_lo), us(c->offset_hi),
		c->consistent ? "every pair within" : "INCONSISTENT: the pairs' bounds cross");
	if (!c->consistent)
		fprintf(f, "       by %.3f us: a clock was stepped, or requests were matched wrongly\n",
			us(c->violation));
	fprintf(f, "       drift %+.3f ppm, bound [%+.3f, %+.3f] ppm, from %zu request/response pairs\n",
		c->drift * 1e6, c->drift_lo * 1e6, c->drift_hi * 1e6, c->n);
}

void nsight_merge_report_text(FILE *f, const char *client, const char *server,
			      const struct nsight_merge *m, bool verbose)
{
	int64_t hdev[__NSIGHT_HOST_COUNT];
	uint64_t hmain[__NSIGHT_HOST_COUNT];
	size_t i;
	int l, s;

	fprintf(f, "merge: client %s, server %s\n", client, server);
	fprintf(f, "requests: %zu client sends, %llu complete", m->n,
		(unsigned long long)m->by_state[NSIGHT_REQ_COMPLETE]);
	for (s = 1; s < __NSIGHT_REQ_STATES; s++)
		if (m->by_state[s])
			fprintf(f, ", %llu %s", (unsigned long long)m->by_state[s],
				nsight_req_state_name(s));
	fprintf(f, "; %llu server arrivals no client send joined\n",
		(unsigned long long)m->server_rx_unmatched);
	clock_text(f, m);
	if (m->clamped)
		fprintf(f, "wire: %llu requests had a wire time below 0 under the estimate, shown as 0\n",
			(unsigned long long)m->clamped);
	if (!m->by_state[NSIGHT_REQ_COMPLETE])
		return;
	fprintf(f, "latency (client send -> client receive): median %.3f us; tail (>= %.3f us): %zu requests\n",
		us(m->median_total_ns), us(m->tail_threshold_ns), m->n_tail);
	fprintf(f, "%-14s %-7s %12s %14s %7s %6s\n", "layer", "host", "median us", "tail dev us",
		"share", "main");
	for (l = 0; l < __NSIGHT_L_COUNT; l++)
		fprintf(f, "%-14s %-7s %12.3f %14.3f %6.1f%% %6llu\n", nsight_layer_name(l),
			nsight_layer_host_name(nsight_layer_host(l)), us(m->layers[l].median_ns),
			us(m->layers[l].dev_ns), pct(m->layers[l].dev_ns, m->tail_dev_ns),
			(unsigned long long)m->layers[l].main);
	host_dev(m, hdev, hmain);
	fprintf(f, "tail deviation by host:");
	for (s = 0; s < __NSIGHT_HOST_COUNT; s++)
		fprintf(f, " %s %.1f%% (main in %llu)", nsight_layer_host_name(s),
			pct(hdev[s], m->tail_dev_ns), (unsigned long long)hmain[s]);
	fputc('\n', f);
	fprintf(f, "slowest requests:\n");
	for (i = 0; i < m->n_tail && (verbose || i < 5); i++) {
		const struct nsight_request *r = &m->reqs[m->tail[i]];
		enum nsight_layer ml = nsight_request_main_layer(m, r);
		char fb[128];

		fprintf(f, "  %s at %lld.%09lld: %.3f us, most in %s (%s, %+.3f us)%s\n",
			nsight_flow_format(&r->flow, fb, sizeof(fb)),
			(long long)(r->start_ns / 1000000000), (long long)(r->start_ns % 1000000000),
			us(r->total_ns), nsight_layer_name(ml),
			nsight_layer_host_name(nsight_layer_host(ml)),
			us(r->layer_ns[ml] - m->layers[ml].median_ns), r->clamped ? " [clamped]" : "");
	}
}

static struct json_object *clock_json(const struct nsight_clockfit *c, int *err)
{
	struct json_object *o = json_object_new_object();

	if (!o) {
		*err = 1;
		return NULL;
	}
	jo_add_u64(o, "pairs", c->n, err);
	jo_add_i64(o, "at_client_ns", c->x0, err);
	jo_add_f(o, "offset_ns", c->offset, err);
	jo_add_f(o, "offset_lo_ns", c->offset_lo, err);
	jo_add_f(o, "offset_hi_ns", c->offset_hi, err);
	jo_add_f(o, "drift_ppm", c->drift * 1e6, err);
	jo_add_f(o, "drift_lo_ppm", c->drift_lo * 1e6, err);
	jo_add_f(o, "drift_hi_ppm", c->drift_hi * 1e6, err);
	jo_add_bool(o, "consistent", c->consistent, err);
	jo_add_f(o, "violation_ns", c->violation, err);
	return o;
}

struct json_object *nsight_merge_report_json(const char *client, const char *server,
					     const struct nsight_merge *m)
{
	struct json_object *o = json_object_new_object(), *st, *ls, *hs, *tl;
	int64_t hdev[__NSIGHT_HOST_COUNT];
	uint64_t hmain[__NSIGHT_HOST_COUNT];
	int err = !o, l, s;
	size_t i;

	if (err)
		return NULL;
	jo_add_str(o, "client", client, &err);
	jo_add_str(o, "server", server, &err);
	jo_add_u64(o, "requests", m->n, &err);
	st = json_object_new_object();
	for (s = 0; s < __NSIGHT_REQ_STATES; s++)
		jo_add_u64(st, nsight_req_state_name(s), m->by_state[s], &err);
	jo_add(o, "states", st, &err);
	jo_add_u64(o, "server_rx_unmatched", m->server_rx_unmatched, &err);
	jo_add_u64(o, "clamped", m->clamped, &err);
	if (m->have_fit) {
		jo_add(o, "clock", clock_json(&m->fit, &err), &err);
		if (m->given)
			jo_add(o, "clock_estimate", clock_json(&m->estimate, &err), &err);
	} else {
		jo_add_null(o, "clock", &err);
	}
	jo_add_bool(o, "synced_given", m->given, &err);
	jo_add_i64(o, "median_total_ns", m->median_total_ns, &err);
	jo_add_i64(o, "tail_threshold_ns", m->tail_threshold_ns, &err);
	jo_add_u64(o, "tail", m->n_tail, &err);
	ls = json_object_new_array();
	for (l = 0; l < __NSIGHT_L_COUNT; l++) {
		struct json_object *e = json_object_new_object();

		jo_add_str(e, "layer", nsight_layer_name(l), &err);
		jo_add_str(e, "host", nsight_layer_host_name(nsight_layer_host(l)), &err);
		jo_add_i64(e, "median_ns", m->layers[l].median_ns, &err);
		jo_add_i64(e, "tail_dev_ns", m->layers[l].dev_ns, &err);
		jo_add_f(e, "share", pct(m->layers[l].dev_ns, m->tail_dev_ns) / 100, &err);
		jo_add_u64(e, "main", m->layers[l].main, &err);
		jo_push(ls, e, &err);
	}
	jo_add(o, "layers", ls, &err);
	host_dev(m, hdev, hmain);
	hs = json_object_new_array();
	for (s = 0; s < __NSIGHT_HOST_COUNT; s++) {
		struct json_object *e = json_object_new_object();

		jo_add_str(e, "host", nsight_layer_host_name(s), &err);
		jo_add_i64(e, "tail_dev_ns", hdev[s], &err);
		jo_add_f(e, "share", pct(hdev[s], m->tail_dev_ns) / 100, &err);
		jo_add_u64(e, "main", hmain[s], &err);
		jo_push(hs, e, &err);
	}
	jo_add(o, "hosts", hs, &err);
	tl = json_object_new_array();
	for (i = 0; i < m->n_tail; i++) {
		const struct nsight_request *r = &m->reqs[m->tail[i]];
		enum nsight_layer ml = nsight_request_main_layer(m, r);
		struct json_object *e = json_object_new_object(), *la = json_object_new_array();
		char fb[128];

		jo_add_str(e, "flow", nsight_flow_format(&r->flow, fb, sizeof(fb)), &err);
		jo_add_i64(e, "start_ns", r->start_ns, &err);
		jo_add_i64(e, "total_ns", r->total_ns, &err);
		jo_add_str(e, "main_layer", nsight_layer_name(ml), &err);
		jo_add_str(e, "main_host", nsight_layer_host_name(nsight_layer_host(ml)), &err);
		jo_add_i64(e, "main_dev_ns", r->layer_ns[ml] - m->layers[ml].median_ns, &err);
		jo_add_bool(e, "clamped", r->clamped, &err);
		for (l = 0; l < __NSIGHT_L_COUNT; l++)
			jo_push(la, json_object_new_int64(r->layer_ns[l]), &err);
		jo_add(e, "layers_ns", la, &err);
		jo_push(tl, e, &err);
	}
	jo_add(o, "tail_requests", tl, &err);
	if (err) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static int load(struct nsight_analysis *a, const char *name, const struct nsight_merge_report_opts *o)
{
	struct nsight_analysis_opts ao = { .params = o->params, .lifetimes = true };
	struct nsight_diag d = { 0 };
	FILE *f = strcmp(name, "-") ? fopen(name, "rb") : stdin, *in;
	int err;

	memset(a, 0, sizeof(*a));
	if (!f) {
		fprintf(stderr, "nsight-analyze: %s: %s\n", name, strerror(errno));
		return -1;
	}
	/* Read decompressed if it is zstd (nsightctl --compress). */
	in = nsight_zstd_open_read(f);
	if (!in) {
		fprintf(stderr, "nsight-analyze: %s: out of memory\n", name);
		if (f != stdin)
			fclose(f);
		return -1;
	}
	err = nsight_analysis_run(a, in, &ao, &d);
	if (in != stdin)
		fclose(in);
	if (err) {
		fprintf(stderr, "nsight-analyze: %s: %s\n", name, d.msg);
		nsight_analysis_fini(a);
		return -1;
	}
	nsight_summary_warn_cut(&a->sum, name);
	return 0;
}

int nsight_merge_main(const char *client, const char *server,
		      const struct nsight_merge_report_opts *o)
{
	struct nsight_merge_opts mo = { .tail = o->tail, .synced = o->synced,
					.synced_ns = o->synced_ns };
	struct nsight_analysis a, b;
	struct nsight_merge m = { 0 };
	struct nsight_diag d = { 0 };
	int ret = NSIGHT_EXIT_FAIL, la, lb;

	la = load(&a, client, o);
	lb = la ? -1 : load(&b, server, o);
	if (la || lb)
		goto out;
	if (nsight_merge_build(&m, &a.lt, &b.lt, &mo, &d)) {
		fprintf(stderr, "nsight-analyze: --merge: %s\n", d.msg);
		goto out;
	}
	ret = NSIGHT_EXIT_OK;
	if (o->json) {
		ret = jo_put(nsight_merge_report_json(client, server, &m));
	} else {
		nsight_merge_report_text(stdout, client, server, &m, o->verbose);
	}
out:
	nsight_merge_fini(&m);
	if (!la)
		nsight_analysis_fini(&a);
	if (!la && !lb)
		nsight_analysis_fini(&b);
	return ret;
}
