// SPDX-License-Identifier: MIT
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "lifetime/latency.h"
#include "diagnose/queueview.h"
#include "base/sort.h"

void nsight_queueview_fini(struct nsight_queueview *qv)
{
	free(qv->msg);
	free(qv->socks);
	memset(qv, 0, sizeof(*qv));
}

/* RX messages by socket, then hand-off time. */
static int cmp_by_sock(const void *a, const void *b, void *arg)
{
	const struct nsight_msg *m = arg;
	const struct nsight_msg *x = &m[*(const size_t *)a], *y = &m[*(const size_t *)b];

	if (x->sock_id != y->sock_id)
		return x->sock_id < y->sock_id ? -1 : 1;
	if (x->t[NSIGHT_RX_H].tsc != y->t[NSIGHT_RX_H].tsc)
		return x->t[NSIGHT_RX_H].tsc < y->t[NSIGHT_RX_H].tsc ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}


/* The hand-off record at (@tsc, @cpu), or NULL. */
static const struct nsight_rec_handoff *handoff_at(const struct nsight_capture *cap, uint64_t tsc,
						   uint32_t cpu)
{
	size_t lo = 0, hi = cap->n_handoffs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cap->handoffs[mid].r.hdr.tsc < tsc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < cap->n_handoffs && cap->handoffs[lo].r.hdr.tsc == tsc; lo++)
		if (cap->handoffs[lo].r.hdr.cpu == cpu)
			return &cap->handoffs[lo].r;
	return NULL;
}

/* Nearest-rank p50/p99/max of @n values (sorted in place). */
static void pcts(int64_t *v, size_t n, uint32_t *p50, uint32_t *p99, uint32_t *max)
{
	if (!n)
		return;
	nsight_sort_i64(v, n);
	if (p50)
		*p50 = (uint32_t)nsight_percentile(v, n, 50000);
	*p99 = (uint32_t)nsight_percentile(v, n, 99000);
	*max = (uint32_t)v[n - 1];
}

/* Depths of one socket's complete messages @idx[0..n), in hand-off order. */
static int sock_depths(struct nsight_queueview *qv, const struct nsight_msg *msgs,
		       const size_t *idx, size_t n, int64_t *scratch)
{
	uint64_t *as = malloc((n ? n : 1) * sizeof(*as));
	uint32_t *bit = calloc(n + 1, sizeof(*bit));
	size_t i, j;

	if (!as || !bit) {
		free(as);
		free(bit);
		return -1;
	}
	for (i = 0; i < n; i++)
		as[i] = msgs[idx[i]].t[NSIGHT_RX_A].tsc;
	qsort(as, n, sizeof(*as), cmp_u64);
	/* ahead(i) = i - #(earlier ones received by h_i): a Fenwick tree on a's rank. */
	for (i = 0; i < n; i++) {
		const struct nsight_msg *m = &msgs[idx[i]];
		uint64_t h = m->t[NSIGHT_RX_H].tsc, a = m->t[NSIGHT_RX_A].tsc;
		size_t lo = 0, hi = n, done = 0;

		while (lo < hi) {	/* ranks of a <= h: [0, lo) */
			size_t mid = lo + (hi - lo) / 2;

			if (as[mid] <= h)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (j = lo; j > 0; j -= j & -j)
			done += bit[j];
		qv->msg[idx[i]].ahead = (uint32_t)(i - done);
		scratch[i] = (int64_t)(i - done);
		lo = 0;
		hi = n;
		while (lo < hi) {	/* rank of a: first >= a */
			size_t mid = lo + (hi - lo) / 2;

			if (as[mid] < a)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (j = lo + 1; j <= n; j += j & -j)
			bit[j]++;
	}
	free(as);
	free(bit);
	return 0;
}

/* A hand-off's socket and queue. */
struct hq {
	uint64_t sock_id;
	uint32_t len, bytes;
};

static int cmp_hq(const void *a, const void *b)
{
	const struct hq *x = a, *y = b;

	return x->sock_id < y->sock_id ? -1 : x->sock_id > y->sock_id;
}

static size_t lower_sock(const struct hq *hq, size_t n, uint64_t sock_id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (hq[mid].sock_id < sock_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int cmp_sock(const void *a, const void *b)
{
	const struct nsight_qv_sock *x = a, *y = b;

	return x->sock_id < y->sock_id ? -1 : x->sock_id > y->sock_id;
}

static struct nsight_qv_sock *sock_of(const struct nsight_queueview *qv, uint64_t sock_id)
{
	struct nsight_qv_sock key = { .sock_id = sock_id };

	return qv->n_socks ? bsearch(&key, qv->socks, qv->n_socks, sizeof(key), cmp_sock) : NULL;
}

const struct nsight_qv_sock *nsight_queueview_sock(const struct nsight_queueview *qv,
						   uint64_t sock_id)
{
	return sock_of(qv, sock_id);
}

int nsight_queueview_build(struct nsight_queueview *qv, const struct nsight_lifetimes *lt,
			   const struct nsight_capture *cap, struct nsight_diag *d)
{
	size_t n = 0, i, s, k;
	size_t *idx = NULL;
	int64_t *v = NULL, *w = NULL, *hv = NULL, *hw = NULL;
	struct hq *hq = NULL;
	size_t nh = cap->n_handoffs ? cap->n_handoffs : 1;
	int err = 0;

	memset(qv, 0, sizeof(*qv));
	qv->n_msg = lt->n;
	qv->msg = malloc((lt->n ? lt->n : 1) * sizeof(*qv->msg));
	idx = malloc((lt->n ? lt->n : 1) * sizeof(*idx));
	v = malloc((lt->n ? lt->n : 1) * sizeof(*v));
	w = malloc((lt->n ? lt->n : 1) * sizeof(*w));
	/* At most one socket per RX message. */
	qv->socks = calloc(lt->n_rx ? lt->n_rx : 1, sizeof(*qv->socks));
	hq = malloc(nh * sizeof(*hq));
	hv = malloc(nh * sizeof(*hv));
	hw = malloc(nh * sizeof(*hw));
	if (!qv->msg || !idx || !v || !w || !qv->socks || !hq || !hv || !hw)
		goto nomem;
	for (i = 0; i < cap->n_handoffs; i++)
		hq[i] = (struct hq){ cap->handoffs[i].r.sock_id, cap->handoffs[i].r.rcvq_len,
				     cap->handoffs[i].r.rcvq_bytes };
	if (cap->n_handoffs > 1)
		nsight_sort(hq, cap->n_handoffs, sizeof(*hq), cmp_hq);
	for (i = 0; i < lt->n; i++) {
		const struct nsight_msg *m = &lt->msgs[i];

		qv->msg[i] = (struct nsight_qv_msg){ NSIGHT_QV_NONE, NSIGHT_QV_NONE, NSIGHT_QV_NONE };
		if (m->dir == NSIGHT_MSG_RX && m->sock_id)
			idx[n++] = i;
	}
	if (n > 1)
		nsight_sort_r(idx, n, sizeof(*idx), cmp_by_sock, lt->msgs);
	for (s = 0; s < n; ) {
		const struct nsight_msg *m0 = &lt->msgs[idx[s]];
		struct nsight_qv_sock *so = &qv->socks[qv->n_socks++];
		size_t e = s, nc = 0, nk = 0;

		so->sock_id = m0->sock_id;
		so->flow = m0->flow;
		so->protocol = m0->protocol;
		for (; e < n && lt->msgs[idx[e]].sock_id == m0->sock_id; e++) {
			const struct nsight_msg *m = &lt->msgs[idx[e]];

			if (m->reason == NSIGHT_MSG_COMPLETE) {
				idx[s + nc++] = idx[e];
				if (!so->comm[0]) {
					memcpy(so->comm, m->comm, sizeof(so->comm));
					so->pid = m->pid;
				}
			} else if (m->reason == NSIGHT_MSG_NO_HANDOFF &&
				   m->protocol == IPPROTO_UDP) {
				so->not_queued++;
			}
		}
		/* idx[s, s + nc) are the complete ones, still in hand-off order. */
		so->messages = nc;
		if (sock_depths(qv, lt->msgs, idx + s, nc, v))
			goto nomem;
		pcts(v, nc, &so->ahead_p50, &so->ahead_p99, &so->ahead_max);
		for (k = 0; k < nc; k++) {
			const struct nsight_msg_time *h = &lt->msgs[idx[s + k]].t[NSIGHT_RX_H];
			const struct nsight_rec_handoff *r = handoff_at(cap, h->tsc, h->cpu);

			if (!r)
				continue;
			qv->msg[idx[s + k]].kq_len = r->rcvq_len;
			qv->msg[idx[s + k]].kq_bytes = r->rcvq_bytes;
		}
		/* The kernel's queue at every hand-off of the socket. */
		for (k = lower_sock(hq, cap->n_handoffs, so->sock_id);
		     k < cap->n_handoffs && hq[k].sock_id == so->sock_id; k++) {
			hv[nk] = hq[k].len;
			hw[nk++] = hq[k].bytes;
		}
		so->handoffs = nk;
		pcts(hv, nk, NULL, &so->kq_len_p99, &so->kq_len_max);
		pcts(hw, nk, NULL, &so->kq_bytes_p99, &so->kq_bytes_max);
		s = e;
	}
	if (qv->n_socks > 1)
		qsort(qv->socks, qv->n_socks, sizeof(*qv->socks), cmp_sock);
	/* What the full receive buffer took of the datagrams a socket lost. */
	for (i = 0; i < cap->n_sock_drops; i++) {
		struct nsight_qv_sock *so = sock_of(qv, cap->sock_drops[i].r.sock_id);

		if (so && so->not_queued && cap->sock_drops[i].r.rc == -ENOMEM)
			so->rcvbuf_drops++;
	}
	goto out;
nomem:
	err = nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
out:
	free(idx);
	free(v);
	free(w);
	free(hq);
	free(hv);
	free(hw);
	return err;
}
