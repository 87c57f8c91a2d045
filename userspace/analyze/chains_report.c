// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "chains_report.h"
#include "dx_report.h"
#include "format/flow.h"
#include "json_out.h"
#include "print.h"
#include "capture/lockfn.h"
#include "diagnose/queueview.h"
#include "base/vec.h"

#define TOP_BLOCKERS	5
#define TOP_ACTS	3

/* A task that held up tail messages of a group, over all of them. */
struct blocker {
	uint32_t tid, pid;
	char comm[17];
	uint64_t msgs, waited, on, runnable, blocked;
	uint64_t wakes, futex_wakes, futex;	/* the waits it ended; of them
						 * futex releases, on this word */
	struct nsight_chain_act *act;
	size_t n_act, cap_act;
};

struct agg {
	struct blocker *v;
	size_t n, cap;
};

static void agg_fini(struct agg *g)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		free(g->v[i].act);
	free(g->v);
	memset(g, 0, sizeof(*g));
}

/* Names come from the traced system: no control bytes in the output. */
static const char *clean(const char *src, size_t n, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < n && i + 1 < len && src[i]; i++)
		buf[i] = src[i] > 0x20 && src[i] < 0x7f ? src[i] : '?';
	buf[i] = '\0';
	return i ? buf : "?";
}

static int agg_add(struct agg *g, const struct nsight_chain *ch)
{
	size_t i, k, j;

	for (i = 1; i < ch->n; i++) {
		const struct nsight_chain_node *nd = &ch->v[i];
		struct blocker *b = NULL;

		if (nd->parent != 0)
			continue;
		for (k = 0; k < g->n && g->v[k].tid != nd->tid; k++)
			;
		if (k == g->n) {
			if (NSIGHT_VEC_GROW(g->v, g->n, g->cap))
				return -1;
			g->v[g->n] = (struct blocker){ .tid = nd->tid, .pid = nd->pid };
			clean(nd->comm, sizeof(nd->comm), g->v[g->n].comm, sizeof(g->v[g->n].comm));
			g->n++;
		}
		b = &g->v[k];
		b->msgs++;
		b->waited += nd->waited;
		b->on += nd->on;
		b->runnable += nd->runnable;
		b->blocked += nd->blocked;
		b->wakes += nd->wakes;
		b->futex_wakes += nd->futex_wakes;
		if (nd->futex)
			b->futex = nd->futex;
		for (j = 0; j < nd->n_act; j++) {
			size_t x;

			for (x = 0; x < b->n_act && b->act[x].key != nd->act[j].key; x++)
				;
			if (x == b->n_act) {
				if (NSIGHT_VEC_GROW(b->act, b->n_act, b->cap_act))
					return -1;
				b->act[b->n_act++] = (struct nsight_chain_act){ nd->act[j].key, 0 };
			}
			b->act[x].ticks += nd->act[j].ticks;
		}
	}
	return 0;
}

static int cmp_blocker(const void *a, const void *b)
{
	const struct blocker *x = a, *y = b;

	if (x->waited != y->waited)
		return x->waited > y->waited ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmp_act(const void *a, const void *b)
{
	const struct nsight_chain_act *x = a, *y = b;

	if (x->ticks != y->ticks)
		return x->ticks > y->ticks ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* The chain of tail message @dm: its thread over h -> a. */
static int msg_chain(struct nsight_chain *ch, const struct nsight_analysis *a,
		     const struct nsight_dx_msg *dm)
{
	const struct nsight_msg *m = &a->lt.msgs[dm->msg];
	int ret;

	ret = nsight_chain_build(ch, &a->chains, m->tid, m->t[NSIGHT_RX_H].tsc,
				 m->t[NSIGHT_RX_A].tsc, NSIGHT_CHAIN_DEPTH);
	if (!ret)
		nsight_chain_sort(ch);
	return ret;
}

/* The blockers of group @g's tail. */
static int group_agg(struct agg *ag, const struct nsight_dx_group *g,
		     const struct nsight_analysis *a)
{
	struct nsight_chain ch = { 0 };
	size_t i;
	int ret = 0;

	memset(ag, 0, sizeof(*ag));
	if (g->dir != NSIGHT_MSG_RX || !a->chains.finished)
		return 0;
	for (i = 0; i < g->n_msgs && !ret; i++) {
		ret = msg_chain(&ch, a, &g->msgs[i]);
		if (!ret)
			ret = agg_add(ag, &ch);
	}
	nsight_chain_fini(&ch);
	if (ag->n > 1)
		qsort(ag->v, ag->n, sizeof(*ag->v), cmp_blocker);
	for (i = 0; i < ag->n; i++)
		if (ag->v[i].n_act > 1)
			qsort(ag->v[i].act, ag->v[i].n_act, sizeof(*ag->v[i].act), cmp_act);
	return ret ? -1 : 0;
}

/* ---------------------------------------------------------------------- */
/* Text                                                                     */

static const char *dur(const struct nsight_analysis *a, const struct nsight_tty *t, uint64_t ticks,
		       char *buf, size_t len)
{
	return nsight_tty_dur(t, nsight_threads_ns(&a->chains, ticks), buf, len);
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* "KEY P%, KEY P%" of the largest @max of @v, in shares of @whole. */
static void acts_text(FILE *f, const struct nsight_keys *keys, const struct nsight_chain_act *v,
		      size_t n, size_t max, uint64_t whole)
{
	char kb[NSIGHT_KEY_NAME_MAX + 32], cb[sizeof(kb)];
	size_t i;

	for (i = 0; i < n && i < max; i++)
		fprintf(f, "%s%s %.0f%%", i ? ", " : "",
			clean(nsight_key_format(keys, v[i].key, kb, sizeof(kb)), sizeof(kb), cb,
			      sizeof(cb)),
			share(v[i].ticks, whole));
	if (n > max)
		fprintf(f, ", +%zu more", n - max);
}

static void blocker_text(FILE *f, const struct blocker *b, const struct nsight_analysis *a,
			 const struct nsight_tty *t)
{
	uint64_t all = b->on + b->runnable + b->blocked;
	char d[32];

	fprintf(f, "  held up by %s[%" PRIu32 "] tid %" PRIu32, b->comm, b->pid, b->tid);
	if (b->futex_wakes)
		fprintf(f, " releasing futex 0x%" PRIx64 " (%" PRIu64 " of %" PRIu64 " waits)",
			b->futex, b->futex_wakes, b->wakes);
	fprintf(f, ": %" PRIu64 " tail messages, %s\n", b->msgs, dur(a, t, b->waited, d, sizeof(d)));
	fprintf(f, "    meanwhile on a CPU %.0f%%", share(b->on, all));
	if (b->n_act) {
		fputs(" (", f);
		acts_text(f, a->keys, b->act, b->n_act, TOP_ACTS, b->on);
		fputc(')', f);
	}
	fprintf(f, ", runnable %.0f%%, blocked %.0f%%\n", share(b->runnable, all),
		share(b->blocked, all));
}

/* "futex": the word a waker released (or null) and "futex_releases": how often. */
static void futex_json(struct json_object *o, uint64_t releases, uint64_t futex, int *err)
{
	char fx[32];

	if (releases) {
		snprintf(fx, sizeof(fx), "0x%" PRIx64, futex);
		jo_add_str(o, "futex", fx, err);
	} else {
		jo_add_null(o, "futex", err);
	}
	jo_add_u64(o, "futex_releases", releases, err);
}

/* One chain node and its children, indented by depth. */
static void node_text(FILE *f, const struct nsight_chain *ch, size_t i,
		      const struct nsight_analysis *a)
{
	const struct nsight_chain_node *nd = &ch->v[i];
	const struct nsight_tty t = { 0 };
	char comm[17], d1[32], d2[32], d3[32];
	size_t k;

	fprintf(f, "%*s", 4 + 2 * nd->depth, "");
	if (nd->depth) {
		fprintf(f, "<- %s[%" PRIu32 "] tid %" PRIu32 " ended %" PRIu32 " wait%s (%s, woke it from cpu %" PRIu32,
			clean(nd->comm, sizeof(nd->comm), comm, sizeof(comm)), nd->pid, nd->tid,
			nd->wakes, nd->wakes == 1 ? "" : "s", dur(a, &t, nd->waited, d1, sizeof(d1)),
			nd->wake_cpu);
		if (nd->futex_wakes)
			fprintf(f, ", releasing futex 0x%" PRIx64, nd->futex);
		fputs("):", f);
	}
	else
		fprintf(f, "%s[%" PRIu32 "] tid %" PRIu32 ":",
			clean(nd->comm, sizeof(nd->comm), comm, sizeof(comm)), nd->pid, nd->tid);
	fprintf(f, " on cpu %s", dur(a, &t, nd->on, d1, sizeof(d1)));
	if (nd->n_act) {
		fputs(" (", f);
		acts_text(f, a->keys, nd->act, nd->n_act, TOP_ACTS, nd->on);
		fputc(')', f);
	}
	fprintf(f, ", runnable %s", dur(a, &t, nd->runnable, d1, sizeof(d1)));
	if (nd->n_inst) {
		fputs(" (instead: ", f);
		acts_text(f, a->keys, nd->inst, nd->n_inst, TOP_ACTS, nd->runnable);
		fputc(')', f);
	}
	fprintf(f, ", blocked %s (by interrupts or unseen %s), unknown %s\n",
		dur(a, &t, nd->blocked, d1, sizeof(d1)), dur(a, &t, nd->blocked_irq, d2, sizeof(d2)),
		dur(a, &t, nd->unknown, d3, sizeof(d3)));
	for (k = i + 1; k < ch->n; k++)
		if (ch->v[k].parent == i)
			node_text(f, ch, k, a);
}

static void queue_text(FILE *f, const struct nsight_qv_sock *s)
{
	char fl[160], comm[17], pb[8];

	fprintf(f, "queue: %s %s %s[%" PRIu32 "]: %zu messages, ahead at hand-off p50 %" PRIu32
		", p99 %" PRIu32 ", max %" PRIu32 "; kernel queue at %zu hand-offs p99 %" PRIu32
		" skbs %" PRIu32 " bytes, max %" PRIu32 " skbs %" PRIu32 " bytes\n",
		nsight_proto_name(s->protocol, pb, sizeof(pb)),
		nsight_flow_format(&s->flow, fl, sizeof(fl)),
		clean(s->comm, sizeof(s->comm), comm, sizeof(comm)), s->pid, s->messages,
		s->ahead_p50, s->ahead_p99, s->ahead_max, s->handoffs, s->kq_len_p99,
		s->kq_bytes_p99, s->kq_len_max, s->kq_bytes_max);
}

static void warn_text(FILE *f, const struct nsight_qv_sock *s)
{
	char fl[160];

	if (!s->not_queued)
		return;
	if (s->rcvbuf_drops) {
		fprintf(f, "warning: %" PRIu64 " datagrams to %s were never made readable: the kernel dropped %" PRIu64 " of them for a full receive buffer (see resource loops in the diagnosis)\n",
			s->not_queued, nsight_flow_format(&s->flow, fl, sizeof(fl)), s->rcvbuf_drops);
		return;
	}
	fprintf(f, "warning: %" PRIu64 " datagrams to %s were never made readable: lost before the socket's queue (a full receive buffer, a socket filter or a bad checksum; kernel queue max %" PRIu32 " bytes)\n",
		s->not_queued, nsight_flow_format(&s->flow, fl, sizeof(fl)), s->kq_bytes_max);
}

int nsight_chains_report_text(FILE *f, const struct nsight_dx *dx, const struct nsight_analysis *a,
			      const struct nsight_tty *t)
{
	struct nsight_queueview qv;
	struct nsight_diag d = { 0 };
	struct nsight_chain ch = { 0 };
	size_t gi, i;

	if (!a->have_lifetimes)
		return 0;
	for (gi = 0; gi < dx->n; gi++) {
		const struct nsight_dx_group *g = &dx->groups[gi];
		struct agg ag;
		char comm[17];

		if (group_agg(&ag, g, a))
			return -1;
		if (ag.n) {
			fprintf(f, "chains: %s[%" PRIu32 "] %s: waits of the tail's threads ended by other tasks\n",
				clean(g->comm, sizeof(g->comm), comm, sizeof(comm)), g->pid,
				nsight_msg_dir_name(g->dir));
			for (i = 0; i < ag.n && (!t->width || i < TOP_BLOCKERS); i++)
				blocker_text(f, &ag.v[i], a, t);
		}
		agg_fini(&ag);
		if (t->width || g->dir != NSIGHT_MSG_RX || !g->n_msgs || !a->chains.finished)
			continue;
		fprintf(f, "chains of the tail: %s[%" PRIu32 "] %s, each thread over h->a\n",
			clean(g->comm, sizeof(g->comm), comm, sizeof(comm)), g->pid,
			nsight_msg_dir_name(g->dir));
		for (i = 0; i < g->n_msgs; i++) {
			fprintf(f, "  rx %" PRIu64 " latency %" PRId64 " ns\n", g->msgs[i].id,
				g->msgs[i].latency);
			if (msg_chain(&ch, a, &g->msgs[i])) {
				nsight_chain_fini(&ch);
				return -1;
			}
			node_text(f, &ch, 0, a);
		}
	}
	nsight_chain_fini(&ch);
	if (nsight_queueview_build(&qv, &a->lt, &a->cap, &d)) {
		nsight_queueview_fini(&qv);
		return -1;
	}
	for (i = 0; i < qv.n_socks; i++) {
		if (!t->width)
			queue_text(f, &qv.socks[i]);
		warn_text(f, &qv.socks[i]);
	}
	nsight_queueview_fini(&qv);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* JSON                                                                     */

static struct json_object *acts_json(const struct nsight_analysis *a,
				     const struct nsight_chain_act *v, size_t n, int *err)
{
	struct json_object *arr = json_object_new_array();
	char kb[NSIGHT_KEY_NAME_MAX + 32];
	size_t i;

	if (!arr) {
		*err = -1;
		return NULL;
	}
	for (i = 0; i < n; i++) {
		struct json_object *o = json_object_new_object();

		if (!o) {
			*err = -1;
			break;
		}
		jo_add_str(o, "context", nsight_key_format(a->keys, v[i].key, kb, sizeof(kb)), err);
		jo_add_i64(o, "ns", nsight_threads_ns(&a->chains, v[i].ticks), err);
		jo_push(arr, o, err);
	}
	return arr;
}

static struct json_object *node_json(const struct nsight_chain *ch, size_t i,
				     const struct nsight_analysis *a, int *err)
{
	const struct nsight_chain_node *nd = &ch->v[i];
	struct json_object *o = json_object_new_object(), *kids = json_object_new_array();
	char comm[17];
	size_t k;

	if (!o || !kids) {
		json_object_put(o);
		json_object_put(kids);
		*err = -1;
		return NULL;
	}
	memcpy(comm, nd->comm, 16);
	comm[16] = '\0';
	jo_add_str(o, "comm", comm, err);
	jo_add_u64(o, "pid", nd->pid, err);
	jo_add_u64(o, "tid", nd->tid, err);
	if (nd->depth) {
		jo_add_u64(o, "waits_ended", nd->wakes, err);
		jo_add_i64(o, "waited_ns", nsight_threads_ns(&a->chains, nd->waited), err);
		jo_add_u64(o, "waker_cpu", nd->wake_cpu, err);
		futex_json(o, nd->futex_wakes, nd->futex, err);
	}
	jo_add_i64(o, "on_cpu_ns", nsight_threads_ns(&a->chains, nd->on), err);
	jo_add(o, "on_cpu", acts_json(a, nd->act, nd->n_act, err), err);
	jo_add_i64(o, "runnable_ns", nsight_threads_ns(&a->chains, nd->runnable), err);
	jo_add(o, "instead", acts_json(a, nd->inst, nd->n_inst, err), err);
	jo_add_i64(o, "blocked_ns", nsight_threads_ns(&a->chains, nd->blocked), err);
	jo_add_i64(o, "blocked_irq_ns", nsight_threads_ns(&a->chains, nd->blocked_irq), err);
	jo_add_i64(o, "unknown_ns", nsight_threads_ns(&a->chains, nd->unknown), err);
	for (k = i + 1; k < ch->n; k++)
		if (ch->v[k].parent == i)
			jo_push(kids, node_json(ch, k, a, err), err);
	jo_add(o, "woken_by", kids, err);
	return o;
}

/* A group's blockers and, for received messages, each one's chain, to @s. */
static void group_json(struct nsight_jsink *s, const struct nsight_dx_group *g,
		       const struct nsight_analysis *a, const struct nsight_queueview *qv)
{
	struct json_object *o = json_object_new_object(), *bl = json_object_new_array();
	struct nsight_jsink go, msgs;
	struct nsight_chain ch = { 0 };
	int *err = s->err;
	struct agg ag;
	size_t i;

	if (!o || !bl || group_agg(&ag, g, a)) {
		json_object_put(o);
		json_object_put(bl);
		*err = -1;
		return;
	}
	nsight_dx_group_json_who(o, g, err);
	for (i = 0; i < ag.n; i++) {
		const struct blocker *b = &ag.v[i];
		struct json_object *x = json_object_new_object();

		if (!x) {
			*err = -1;
			break;
		}
		jo_add_str(x, "comm", b->comm, err);
		jo_add_u64(x, "pid", b->pid, err);
		jo_add_u64(x, "tid", b->tid, err);
		jo_add_u64(x, "messages", b->msgs, err);
		jo_add_i64(x, "waited_ns", nsight_threads_ns(&a->chains, b->waited), err);
		jo_add_u64(x, "waits_ended", b->wakes, err);
		futex_json(x, b->futex_wakes, b->futex, err);
		jo_add_i64(x, "on_cpu_ns", nsight_threads_ns(&a->chains, b->on), err);
		jo_add(x, "on_cpu", acts_json(a, b->act, b->n_act, err), err);
		jo_add_i64(x, "runnable_ns", nsight_threads_ns(&a->chains, b->runnable), err);
		jo_add_i64(x, "blocked_ns", nsight_threads_ns(&a->chains, b->blocked), err);
		jo_push(bl, x, err);
	}
	agg_fini(&ag);
	jo_add(o, "blockers", bl, err);
	/* The group's object as it was, then its messages one at a time. */
	go = nsight_jsink_open(s, NULL, false);
	nsight_jsink_put_members(&go, o);
	msgs = nsight_jsink_open(&go, "messages", true);
	for (i = 0; i < g->n_msgs && g->dir == NSIGHT_MSG_RX && a->chains.finished && !*err; i++) {
		const struct nsight_qv_msg *q = &qv->msg[g->msgs[i].msg];
		struct json_object *x = json_object_new_object();

		if (!x || msg_chain(&ch, a, &g->msgs[i])) {
			json_object_put(x);
			*err = -1;
			break;
		}
		jo_add_u64(x, "id", g->msgs[i].id, err);
		if (q->ahead != NSIGHT_QV_NONE)
			jo_add_u64(x, "queue_ahead", q->ahead, err);
		if (q->kq_len != NSIGHT_QV_NONE) {
			jo_add_u64(x, "rcvq_len", q->kq_len, err);
			jo_add_u64(x, "rcvq_bytes", q->kq_bytes, err);
		}
		jo_add(x, "chain", node_json(&ch, 0, a, err), err);
		nsight_jsink_put(&msgs, NULL, x);
	}
	nsight_chain_fini(&ch);
	nsight_jsink_close(&msgs);
	nsight_jsink_close(&go);
}

int nsight_chains_report_jsink(struct nsight_jsink *s, const struct nsight_dx *dx,
			       const struct nsight_analysis *a)
{
	struct nsight_queueview qv;
	struct nsight_jsink chains, queues;
	struct nsight_diag d = { 0 };
	char fl[160], pb[8];
	int *err = s->err;
	size_t i;

	memset(&qv, 0, sizeof(qv));
	if (a->have_lifetimes && nsight_queueview_build(&qv, &a->lt, &a->cap, &d)) {
		nsight_queueview_fini(&qv);
		*err = -1;
		return -1;
	}
	chains = nsight_jsink_open(s, "chains", true);
	for (i = 0; a->have_lifetimes && i < dx->n && !*err; i++)
		group_json(&chains, &dx->groups[i], a, &qv);
	nsight_jsink_close(&chains);
	queues = nsight_jsink_open(s, "queues", true);
	for (i = 0; i < qv.n_socks && !*err; i++) {
		const struct nsight_qv_sock *so = &qv.socks[i];
		struct json_object *x = json_object_new_object();
		char comm[17];

		if (!x) {
			*err = -1;
			break;
		}
		memcpy(comm, so->comm, 16);
		comm[16] = '\0';
		jo_add_str(x, "protocol", nsight_proto_name(so->protocol, pb, sizeof(pb)), err);
		jo_add_str(x, "flow", nsight_flow_format(&so->flow, fl, sizeof(fl)), err);
		jo_add_str(x, "comm", comm, err);
		jo_add_u64(x, "pid", so->pid, err);
		jo_add_u64(x, "messages", so->messages, err);
		jo_add_u64(x, "ahead_p50", so->ahead_p50, err);
		jo_add_u64(x, "ahead_p99", so->ahead_p99, err);
		jo_add_u64(x, "ahead_max", so->ahead_max, err);
		jo_add_u64(x, "handoffs", so->handoffs, err);
		jo_add_u64(x, "rcvq_len_p99", so->kq_len_p99, err);
		jo_add_u64(x, "rcvq_len_max", so->kq_len_max, err);
		jo_add_u64(x, "rcvq_bytes_p99", so->kq_bytes_p99, err);
		jo_add_u64(x, "rcvq_bytes_max", so->kq_bytes_max, err);
		jo_add_u64(x, "not_queued", so->not_queued, err);
		jo_add_u64(x, "rcvbuf_drops", so->rcvbuf_drops, err);
		nsight_jsink_put(&queues, NULL, x);
	}
	nsight_jsink_close(&queues);
	nsight_queueview_fini(&qv);
	return *err ? -1 : 0;
}

int nsight_chains_report_json(struct json_object *o, const struct nsight_dx *dx,
			      const struct nsight_analysis *a)
{
	int err = 0;
	struct nsight_jsink s = nsight_jsink_tree(o, &err);

	return nsight_chains_report_jsink(&s, dx, a);
}

/* ---------------------------------------------------------------------- */
/* Locks                                                                    */

#define TOP_LOCKS 5
#define TOP_FUNCS 3

/* The locks and their holders' functions (*@fv, one per lock). */
static int locks_of(const struct nsight_analysis *a, struct nsight_lock **v, size_t *n,
		    struct nsight_lockfns **fv, size_t max)
{
	struct nsight_diag d = { 0 };

	*fv = NULL;
	if (nsight_threads_locks(&a->chains, v, n, &d))
		return -1;
	if (*n < max)
		max = *n;
	if (!max)
		return 0;
	*fv = calloc(max, sizeof(**fv));
	if (!*fv || nsight_lockfn_build(&a->chains, &a->samples, *v, max, *fv, &d)) {
		free(*fv);
		free(*v);
		return -1;
	}
	return 0;
}

/*
 * "    holder COMM tid T: in F P%, G P%, H P%, +N more (of D sampled or
 * traced, of D on a CPU while its waiters waited)"; nothing without.
 */
static void holder_fns_text(FILE *f, const struct nsight_analysis *a, const struct nsight_tty *t,
			    const struct nsight_lock *l, const struct nsight_lockfns *fn)
{
	char c[17], nb[NSIGHT_KEY_NAME_MAX + 32], cb[sizeof(nb)], b[2][32];
	size_t i;

	if (fn->none != NSIGHT_LOCKFN_NAMED)
		return;
	fprintf(f, "    holder %s tid %" PRIu32 ": in ",
		clean(l->holder_comm, sizeof(l->holder_comm), c, sizeof(c)), l->holder_tid);
	for (i = 0; i < fn->n_top && i < TOP_FUNCS; i++)
		fprintf(f, "%s%s %.0f%%", i ? ", " : "",
			nsight_printable(cb, nsight_lockfn_name(a->keys, &fn->top[i], nb, sizeof(nb)),
					 sizeof(cb), true),
			share(fn->top[i].ticks, fn->evidence));
	if (fn->n_funcs > TOP_FUNCS)
		fprintf(f, ", +%zu more", fn->n_funcs - TOP_FUNCS);
	fprintf(f, " (of %s sampled or traced, of %s on a CPU while its waiters waited)\n",
		dur(a, t, fn->evidence, b[0], sizeof(b[0])), dur(a, t, fn->on, b[1], sizeof(b[1])));
}

int nsight_locks_report_text(FILE *f, const struct nsight_analysis *a, const struct nsight_tty *t)
{
	struct nsight_lockfns *fv;
	struct nsight_lock *v;
	char c1[17], c2[17], b[5][32];
	size_t n, i;

	if (locks_of(a, &v, &n, &fv, TOP_LOCKS))
		return -1;
	if (n)
		fprintf(f, "locks: futexes threads slept on, by total wait%s\n",
			t->width ? "" : " (ns)");
	for (i = 0; i < n && i < TOP_LOCKS; i++) {
		const struct nsight_lock *l = &v[i];

		fprintf(f, "  futex 0x%" PRIx64 " of %s[%" PRIu32 "]: %" PRIu64 " sleeps, %s in all, p50 %s, p99 %s, max %s",
			l->uaddr, clean(l->comm, sizeof(l->comm), c1, sizeof(c1)), l->pid, l->waits,
			dur(a, t, l->total, b[0], sizeof(b[0])), dur(a, t, l->p50, b[1], sizeof(b[1])),
			dur(a, t, l->p99, b[2], sizeof(b[2])), dur(a, t, l->max, b[3], sizeof(b[3])));
		if (l->holder_tid)
			fprintf(f, "; woken most by %s tid %" PRIu32 " (%" PRIu64 " times, %" PRIu64
				" in futex_wake on it)",
				clean(l->holder_comm, sizeof(l->holder_comm), c2, sizeof(c2)),
				l->holder_tid, l->holder_wakes, l->holder_released);
		if (l->holds)
			fprintf(f, "; held after a sleep p50 %s, p99 %s, max %s (%" PRIu64
				" releases through futex_wake)",
				dur(a, t, l->hold_p50, b[0], sizeof(b[0])),
				dur(a, t, l->hold_p99, b[1], sizeof(b[1])),
				dur(a, t, l->hold_max, b[2], sizeof(b[2])), l->holds);
		fputc('\n', f);
		holder_fns_text(f, a, t, l, &fv[i]);
	}
	if (n > TOP_LOCKS)
		fprintf(f, "  %zu more (--json)\n", n - TOP_LOCKS);
	free(fv);
	free(v);
	return 0;
}

/*
 * The holder's "functions" ([{name, ns, share}], most time first, share of
 * evidence_ns), "evidence_ns", "on_cpu_ns", "waited_ns" and "no_functions"
 * (why the list is empty, or null).
 */
static void holder_fns_json(struct json_object *h, const struct nsight_analysis *a,
			    const struct nsight_lockfns *fn, int *err)
{
	struct json_object *arr = json_object_new_array();
	char nb[NSIGHT_KEY_NAME_MAX + 32], cb[sizeof(nb)];
	const char *why = nsight_lockfn_why(fn->none);
	size_t i;

	for (i = 0; arr && i < fn->n_top; i++) {
		struct json_object *x = json_object_new_object();

		jo_add_str(x, "name",
			   nsight_printable(cb, nsight_lockfn_name(a->keys, &fn->top[i], nb,
								   sizeof(nb)), sizeof(cb), true),
			   err);
		jo_add_i64(x, "ns", nsight_threads_ns(&a->chains, fn->top[i].ticks), err);
		jo_add_f(x, "share", share(fn->top[i].ticks, fn->evidence) / 100, err);
		jo_push(arr, x, err);
	}
	jo_add(h, "functions", arr, err);
	jo_add_i64(h, "evidence_ns", nsight_threads_ns(&a->chains, fn->evidence), err);
	jo_add_i64(h, "on_cpu_ns", nsight_threads_ns(&a->chains, fn->on), err);
	jo_add_i64(h, "waited_ns", nsight_threads_ns(&a->chains, fn->waited), err);
	if (why)
		jo_add_str(h, "no_functions", why, err);
	else
		jo_add_null(h, "no_functions", err);
}

int nsight_locks_report_json(struct json_object *o, const struct nsight_analysis *a)
{
	struct nsight_lockfns *fv;
	struct json_object *arr;
	struct nsight_lock *v;
	char buf[32], c[17];
	size_t n, i;
	int err = 0;

	if (locks_of(a, &v, &n, &fv, SIZE_MAX))
		return -1;
	arr = json_object_new_array();
	for (i = 0; i < n; i++) {
		const struct nsight_lock *l = &v[i];
		struct json_object *j = json_object_new_object();

		snprintf(buf, sizeof(buf), "0x%" PRIx64, l->uaddr);
		jo_add_str(j, "futex", buf, &err);
		jo_add_u64(j, "pid", l->pid, &err);
		jo_add_str(j, "comm", clean(l->comm, sizeof(l->comm), c, sizeof(c)), &err);
		jo_add_u64(j, "sleeps", l->waits, &err);
		jo_add_i64(j, "total_ns", nsight_threads_ns(&a->chains, l->total), &err);
		jo_add_i64(j, "p50_ns", nsight_threads_ns(&a->chains, l->p50), &err);
		jo_add_i64(j, "p99_ns", nsight_threads_ns(&a->chains, l->p99), &err);
		jo_add_i64(j, "max_ns", nsight_threads_ns(&a->chains, l->max), &err);
		if (l->holder_tid) {
			struct json_object *h = json_object_new_object();

			jo_add_u64(h, "tid", l->holder_tid, &err);
			jo_add_str(h, "comm", clean(l->holder_comm, sizeof(l->holder_comm), c,
						    sizeof(c)), &err);
			jo_add_u64(h, "wakes", l->holder_wakes, &err);
			jo_add_u64(h, "released", l->holder_released, &err);
			holder_fns_json(h, a, &fv[i], &err);
			jo_add(j, "holder", h, &err);
		} else {
			jo_add_null(j, "holder", &err);
		}
		if (l->holds) {
			struct json_object *h = json_object_new_object();

			jo_add_u64(h, "releases", l->holds, &err);
			jo_add_i64(h, "p50_ns", nsight_threads_ns(&a->chains, l->hold_p50), &err);
			jo_add_i64(h, "p99_ns", nsight_threads_ns(&a->chains, l->hold_p99), &err);
			jo_add_i64(h, "max_ns", nsight_threads_ns(&a->chains, l->hold_max), &err);
			jo_add(j, "hold", h, &err);
		} else {
			jo_add_null(j, "hold", &err);
		}
		jo_push(arr, j, &err);
	}
	jo_add(o, "locks", arr, &err);
	free(fv);
	free(v);
	return err ? -1 : 0;
}
