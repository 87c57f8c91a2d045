// SPDX-License-Identifier: MIT
/* A capture's rows of the fleet tables and their export (chexport.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <openssl/evp.h>

#include "base/version.h"
#include "diagnose/profile.h"
#include "diagnose/requests.h"
#include "export/chexport.h"
#include "export/chrow.h"
#include "format/flow.h"
#include "format/stream.h"

/* The rows of one table being gathered into a batch. */
struct batch {
	enum nsight_chtable t;
	const struct nsight_chexport_sink *s;
	struct nsight_chexport_counts *c;
	size_t max;
	char *buf;
	size_t len;
	FILE *f;
	size_t rows;
};

static int batch_open(struct batch *b, struct nsight_diag *d)
{
	b->buf = NULL;
	b->len = 0;
	b->rows = 0;
	b->f = open_memstream(&b->buf, &b->len);
	return b->f ? 0 : nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
}

/* The rows gathered to the sink (none: nothing), and a new batch unless @last. */
static int batch_flush(struct batch *b, bool last, struct nsight_diag *d)
{
	int err = 0;

	if (fclose(b->f))
		err = nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	b->f = NULL;
	if (!err && b->rows) {
		err = b->s->batch(b->s->arg, b->t, b->buf, b->len, b->rows, d);
		b->c->batches++;
		if (err) {
			b->c->failed = true;
			b->c->failed_table = b->t;
		}
	}
	free(b->buf);
	b->buf = NULL;
	if (!err && !last)
		err = batch_open(b, d);
	return err;
}

/* A row ended: the batch goes when full. */
static int batch_row(struct batch *b, struct nsight_diag *d)
{
	return ++b->rows >= b->max ? batch_flush(b, false, d) : 0;
}

static void batch_abandon(struct batch *b)
{
	if (b->f)
		fclose(b->f);
	free(b->buf);
	b->f = NULL;
	b->buf = NULL;
}

static int64_t start_ns(const struct nsight_msg *m)
{
	unsigned int st, n = nsight_msg_n_stages(m->dir);

	for (st = 0; st < n; st++)
		if (m->t[st].valid)
			return m->t[st].timed ? m->t[st].real_ns : 0;
	return 0;
}

/* The diagnosis of each message: its tail entry, by index in the lifetimes. */
struct dx_index {
	const struct nsight_dx_group **g;
	const struct nsight_dx_msg **m;
};

static int dx_index(struct dx_index *x, const struct nsight_lifetimes *lt,
		    const struct nsight_dx *dx, struct nsight_diag *d)
{
	size_t i, k;

	x->g = calloc(lt->n ? lt->n : 1, sizeof(*x->g));
	x->m = calloc(lt->n ? lt->n : 1, sizeof(*x->m));
	if (!x->g || !x->m)
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	for (i = 0; dx && i < dx->n; i++)
		for (k = 0; k < dx->groups[i].n_msgs; k++) {
			size_t msg = dx->groups[i].msgs[k].msg;

			if (msg < lt->n) {
				x->g[msg] = &dx->groups[i];
				x->m[msg] = &dx->groups[i].msgs[k];
			}
		}
	return 0;
}

static void opt_i64(struct nsight_chrow *r, bool have, int64_t v)
{
	if (have)
		nsight_chrow_i64(r, v);
	else
		nsight_chrow_null(r);
}

static void opt_cpu(struct nsight_chrow *r, const struct nsight_msg_time *t)
{
	if (t->valid)
		nsight_chrow_u64(r, t->cpu);
	else
		nsight_chrow_null(r);
}

#define NO_APP INT64_MIN

/*
 * Each message's time in the application (NO_APP: none): for the message
 * that brought a complete request (request marks, diagnose/requests.h),
 * from its receive's return to the request's end, the request's phases
 * "receiving thread", "queued" and "worker" (the requests' --json) added
 * up. NULL *@app without request records.
 */
static int app_times(int64_t **app, const struct nsight_analysis *a,
		     const struct nsight_chexport_opts *o, struct nsight_diag *d)
{
	struct nsight_requests r;
	size_t i;
	int err;

	*app = NULL;
	if (!a->cap.n_requests)
		return 0;
	err = nsight_requests_build(&r, &a->cap, &a->lt, &a->chains, a->keys,
				    (uint32_t)(o->tail_pct * 1000), d);
	if (!err && !(*app = malloc((a->lt.n ? a->lt.n : 1) * sizeof(**app))))
		err = nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	for (i = 0; !err && i < a->lt.n; i++)
		(*app)[i] = NO_APP;
	for (i = 0; !err && i < r.n; i++) {
		const struct nsight_rq *q = &r.v[i];

		if (q->state == NSIGHT_RQ_COMPLETE && q->msg && q->msg <= a->lt.n)
			(*app)[q->msg - 1] = q->phase_ns[NSIGHT_RQ_RECEIVER] +
					     q->phase_ns[NSIGHT_RQ_QUEUED] + q->phase_ns[NSIGHT_RQ_WORKER];
	}
	nsight_requests_fini(&r);
	return err;
}

/* The row of @m in the column order of chschema.c's messages (@app: its application time). */
static void message_row(FILE *f, const struct nsight_msg *m, const struct nsight_dx_msg *dm,
			int64_t app, const struct nsight_chexport_opts *o)
{
	static const unsigned int rx_seg[] = { 0, 1, 3, 3, 3 }, tx_seg[] = { 3, 3, 0, 1, 2 };
	const unsigned int *seg = m->dir == NSIGHT_MSG_RX ? rx_seg : tx_seg;
	const struct nsight_msg_time *from, *to;
	struct nsight_chrow r;
	char buf[128];
	unsigned int k;

	nsight_chrow_begin(&r, f);
	nsight_chrow_str(&r, o->capture_id);
	nsight_chrow_u64(&r, o->export_id);
	nsight_chrow_str(&r, o->host);
	nsight_chrow_strn(&r, m->comm, sizeof(m->comm));
	nsight_chrow_u64(&r, m->pid);
	nsight_chrow_u64(&r, m->tid);
	nsight_chrow_str(&r, nsight_msg_dir_name(m->dir));
	nsight_chrow_str(&r, nsight_proto_name(m->protocol, buf, sizeof(buf)));
	nsight_chrow_str(&r, nsight_endpoint_format(m->flow.saddr, m->flow.sport, buf, sizeof(buf)));
	nsight_chrow_str(&r, nsight_endpoint_format(m->flow.daddr, m->flow.dport, buf, sizeof(buf)));
	nsight_chrow_u64(&r, m->sock_id);
	nsight_chrow_u64(&r, m->id);
	nsight_chrow_i64(&r, start_ns(m));
	nsight_chrow_datetime(&r, start_ns(m));
	nsight_chrow_bool(&r, m->reason == NSIGHT_MSG_COMPLETE);
	nsight_chrow_str(&r, nsight_msg_reason_name(m->reason));
	/* n_h, h_a, send_queue, queue_xmit, xmit_done: the direction's segments, NULL for the other's. */
	for (k = 0; k < 5; k++) {
		unsigned int st = seg[k];

		opt_i64(&r, st < 3 && st + 1 < nsight_msg_n_stages(m->dir) && m->t[st].timed &&
			m->t[st + 1].timed, st < 3 ? m->seg_ns[st] : 0);
		if (k == 1)	/* app after h_a */
			opt_i64(&r, app != NO_APP, app);
	}
	opt_i64(&r, m->reason == NSIGHT_MSG_COMPLETE, m->total_ns);
	from = &m->t[m->dir == NSIGHT_MSG_RX ? NSIGHT_RX_H : NSIGHT_TX_SEND];
	to = &m->t[m->dir == NSIGHT_MSG_RX ? NSIGHT_RX_A : NSIGHT_TX_XMIT];
	opt_cpu(&r, from);
	opt_cpu(&r, to);
	nsight_chrow_u64(&r, m->packets);
	nsight_chrow_u64(&r, m->bytes);
	nsight_chrow_bool(&r, m->fifo);
	nsight_chrow_bool(&r, m->early_read);
	nsight_chrow_str(&r, m->hold ? nsight_tcp_hold_name(m->hold) : "");
	nsight_chrow_u64(&r, m->hold ? m->hold_ns : 0);
	nsight_chrow_bool(&r, dm != NULL);
	opt_i64(&r, dm != NULL, dm ? dm->deviation : 0);
	if (dm && dm->has_coverage)
		nsight_chrow_f64(&r, dm->coverage);
	else
		nsight_chrow_null(&r);
	nsight_chrow_end(&r);
}

/* The rows of @dm's causes in the column order of chschema.c's causes. */
static int cause_rows(struct batch *b, const struct nsight_msg *m, const struct nsight_dx_group *g,
		      const struct nsight_dx_msg *dm, const struct nsight_chexport_opts *o,
		      struct nsight_diag *d)
{
	size_t k;
	int err = 0;

	for (k = 0; k < dm->n_mc && !err; k++) {
		const struct nsight_dx_mcause *mc = &g->mcs[dm->mc + k];
		const struct nsight_dx_cause *c = &g->causes[mc->cause];
		struct nsight_chrow r;
		uint64_t lo, hi;
		uint32_t cpu;

		nsight_chrow_begin(&r, b->f);
		nsight_chrow_str(&r, o->capture_id);
		nsight_chrow_u64(&r, o->export_id);
		nsight_chrow_str(&r, o->host);
		nsight_chrow_strn(&r, m->comm, sizeof(m->comm));
		nsight_chrow_u64(&r, m->pid);
		nsight_chrow_str(&r, nsight_msg_dir_name(m->dir));
		nsight_chrow_u64(&r, m->id);
		nsight_chrow_i64(&r, start_ns(m));
		nsight_chrow_datetime(&r, start_ns(m));
		nsight_chrow_i64(&r, dm->latency);
		nsight_chrow_i64(&r, dm->deviation);
		if (dm->has_coverage)
			nsight_chrow_f64(&r, dm->coverage);
		else
			nsight_chrow_null(&r);
		nsight_chrow_str(&r, c->category);
		nsight_chrow_str(&r, nsight_role_name(c->role));
		if (nsight_msg_window(m, c->role, &cpu, &lo, &hi))
			nsight_chrow_u64(&r, cpu);
		else
			nsight_chrow_null(&r);
		nsight_chrow_i64(&r, mc->dev);
		nsight_chrow_f64(&r, dm->deviation > 0 ? (double)mc->dev / (double)dm->deviation : 0);
		nsight_chrow_u64(&r, mc->cause + 1);
		nsight_chrow_i64(&r, c->total);
		nsight_chrow_f64(&r, nsight_dx_cause_share(g, c));
		nsight_chrow_end(&r);
		b->c->causes++;
		err = batch_row(b, d);
	}
	return err;
}

/* The captures row, in the column order of chschema.c's captures. */
static void capture_row(FILE *f, const struct nsight_analysis *a,
			const struct nsight_chexport_opts *o, const struct nsight_chexport_counts *c)
{
	const struct nsight_summary *s = &a->sum;
	uint64_t *drops = calloc(s->nr_cpus ? s->nr_cpus : 1, sizeof(*drops));
	int64_t first = 0, span = 0;
	struct nsight_chrow r;
	uint32_t cpu;

	/* Each CPU's: in its SUBBUF records, and after its last record. */
	for (cpu = 0; drops && cpu < s->nr_cpus && s->cpus; cpu++)
		drops[cpu] = s->cpus[cpu].dropped;
	if (s->have_tsc && nsight_tc_convert(&a->tc, s->tsc_first, NSIGHT_CLOCK_REALTIME, &first)) {
		int64_t last;

		if (nsight_tc_convert(&a->tc, s->tsc_last, NSIGHT_CLOCK_REALTIME, &last))
			span = last - first;
	} else {
		first = 0;
	}
	nsight_chrow_begin(&r, f);
	nsight_chrow_str(&r, o->capture_id);
	nsight_chrow_u64(&r, o->export_id);
	nsight_chrow_str(&r, o->host);
	nsight_chrow_str(&r, o->file);
	nsight_chrow_i64(&r, o->exported_ns);
	nsight_chrow_datetime(&r, o->exported_ns);
	nsight_chrow_strn(&r, s->hdr.release, sizeof(s->hdr.release));
	nsight_chrow_u64(&r, s->nr_cpus);
	nsight_chrow_u64(&r, s->hdr.tsc_hz);
	nsight_chrow_i64(&r, first);
	nsight_chrow_i64(&r, span);
	nsight_chrow_u64(&r, s->records);
	nsight_chrow_u64(&r, s->dropped);
	nsight_chrow_u64_array(&r, drops ? drops : (uint64_t[1]){ 0 }, drops ? s->nr_cpus : 0);
	nsight_chrow_u64(&r, s->n_problems);
	nsight_chrow_u64(&r, c->messages);
	nsight_chrow_u64(&r, c->complete);
	nsight_chrow_u64(&r, c->causes);
	nsight_chrow_f64(&r, o->tail_pct);
	nsight_chrow_str(&r, NSIGHT_TOOLS_VERSION);
	nsight_chrow_u64(&r, s->hdr.version);
	nsight_chrow_end(&r);
	free(drops);
}

int nsight_chexport_rows(const struct nsight_analysis *a, const struct nsight_dx *dx,
			 const struct nsight_chexport_opts *o, const struct nsight_chexport_sink *s,
			 struct nsight_chexport_counts *c, struct nsight_diag *d)
{
	const struct nsight_lifetimes *lt = &a->lt;
	struct batch b = { .s = s, .c = c, .max = o->batch ? o->batch : NSIGHT_CHEXPORT_BATCH };
	struct dx_index x = { 0 };
	int64_t *app = NULL;
	size_t i;
	int err;

	memset(c, 0, sizeof(*c));
	err = dx_index(&x, lt, dx, d);
	if (!err)
		err = app_times(&app, a, o, d);
	b.t = NSIGHT_CH_MESSAGES;
	if (!err)
		err = batch_open(&b, d);
	for (i = 0; !err && i < lt->n; i++) {
		message_row(b.f, &lt->msgs[i], x.m[i], app ? app[i] : NO_APP, o);
		c->messages++;
		c->complete += lt->msgs[i].reason == NSIGHT_MSG_COMPLETE;
		err = batch_row(&b, d);
	}
	if (!err)
		err = batch_flush(&b, false, d);
	b.t = NSIGHT_CH_CAUSES;
	for (i = 0; !err && i < lt->n; i++)
		if (x.m[i])
			err = cause_rows(&b, &lt->msgs[i], x.g[i], x.m[i], o, d);
	if (!err)
		err = batch_flush(&b, false, d);
	b.t = NSIGHT_CH_CAPTURES;
	if (!err) {
		capture_row(b.f, a, o, c);
		b.rows++;
		err = batch_flush(&b, true, d);
	}
	batch_abandon(&b);
	free(app);
	free(x.g);
	free(x.m);
	return err;
}

int nsight_chexport_hash(FILE *f, char id[33], struct nsight_diag *d)
{
	unsigned char buf[65536], md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0, i;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	size_t n;
	int err = 0;

	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(ctx);
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "SHA-256 could not start");
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (!EVP_DigestUpdate(ctx, buf, n))
			err = nsight_diag_set(d, NSIGHT_E_NOMEM, "SHA-256 failed");
	if (!err && ferror(f))
		err = nsight_diag_set(d, NSIGHT_E_IO, "reading it failed: %s", strerror(errno));
	if (!err && !EVP_DigestFinal_ex(ctx, md, &mdlen))
		err = nsight_diag_set(d, NSIGHT_E_NOMEM, "SHA-256 failed");
	EVP_MD_CTX_free(ctx);
	for (i = 0; !err && i < 16 && i < mdlen; i++)
		snprintf(id + 2 * i, 3, "%02x", md[i]);
	return err;
}

uint64_t nsight_chexport_new_id(void)
{
	uint64_t v = 0;

	if (getrandom(&v, sizeof(v), 0) != sizeof(v)) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		v = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	}
	return v ? v : 1;
}

int nsight_chexport_exists(struct nsight_chhttp *h, const char *capture_id, uint64_t export_id,
			   bool *exists, int64_t *when, struct nsight_diag *d)
{
	char *q = NULL;
	size_t qlen = 0;
	FILE *f = open_memstream(&q, &qlen);
	int err;

	if (!f)
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	fprintf(f, "SELECT count(), min(exported_ns) FROM %s.captures WHERE capture_id = ", h->url.db);
	nsight_chrow_sql_str(f, capture_id);
	if (export_id)
		fprintf(f, " AND export_id = %" PRIu64, export_id);
	fputs(" FORMAT TabSeparated", f);
	if (fclose(f)) {
		free(q);
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	}
	err = nsight_chhttp_post(h, NULL, NULL, q, qlen, d);
	free(q);
	if (err)
		return err;
	{
		unsigned long long n = 0;
		long long w = 0;

		if (sscanf(h->resp, "%llu\t%lld", &n, &w) != 2)
			return nsight_diag_set(d, NSIGHT_E_IO, "%s: unexpected answer to the capture check: %.80s",
					       h->url.shown, h->resp);
		*exists = n > 0;
		*when = w;
	}
	return 0;
}

/* A batch to the server: INSERT INTO DB.TABLE (columns) FORMAT TabSeparated. */
static int http_batch(void *arg, enum nsight_chtable t, const char *body, size_t len, size_t rows,
		      struct nsight_diag *d)
{
	struct nsight_chhttp *h = arg;
	char *q = NULL;
	size_t qlen = 0;
	FILE *f = open_memstream(&q, &qlen);
	int err;

	(void)rows;
	if (!f)
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	fprintf(f, "INSERT INTO %s.%s ", h->url.db, nsight_chtables[t].name);
	nsight_chschema_columns(f, t);
	fputs(" FORMAT TabSeparated", f);
	if (fclose(f)) {
		free(q);
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	}
	err = nsight_chhttp_post(h, q, "insert_distributed_sync=1", body, len, d);
	free(q);
	return err;
}

int nsight_chexport_send(struct nsight_chhttp *h, const struct nsight_analysis *a,
			 const struct nsight_dx *dx, const struct nsight_chexport_opts *o,
			 struct nsight_chexport_counts *c, struct nsight_diag *d)
{
	struct nsight_chexport_sink s = { http_batch, h };

	return nsight_chexport_rows(a, dx, o, &s, c, d);
}
