// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format/records.h"
#include "base/vec.h"

static const struct {
	const char *name;
	size_t size;
} rec_types[__NSIGHT_REC_MAX] = {
	[NSIGHT_REC_SUBBUF]	  = { "subbuf", sizeof(struct nsight_rec_subbuf) },
	[NSIGHT_REC_SCHED_SWITCH] = { "sched_switch", sizeof(struct nsight_rec_sched_switch) },
	[NSIGHT_REC_HANDOFF]	  = { "handoff", sizeof(struct nsight_rec_handoff) },
	[NSIGHT_REC_TIMEKEEPER]	  = { "timekeeper", sizeof(struct nsight_rec_timekeeper) },
	[NSIGHT_REC_CLOCK_SYNC]	  = { "clock_sync", sizeof(struct nsight_rec_clock_sync) },
	[NSIGHT_REC_PKT]	  = { "pkt", sizeof(struct nsight_rec_pkt) },
	[NSIGHT_REC_APP_COPY]	  = { "app_copy", sizeof(struct nsight_rec_app_copy) },
	[NSIGHT_REC_APP_RECV]	  = { "app_recv", sizeof(struct nsight_rec_app) },
	[NSIGHT_REC_APP_SEND]	  = { "app_send", sizeof(struct nsight_rec_app) },
	[NSIGHT_REC_WAKING]	  = { "waking", sizeof(struct nsight_rec_waking) },
	[NSIGHT_REC_IRQ]	  = { "irq", sizeof(struct nsight_rec_irq) },
	[NSIGHT_REC_SOFTIRQ]	  = { "softirq", sizeof(struct nsight_rec_softirq) },
	[NSIGHT_REC_IDLE]	  = { "idle", sizeof(struct nsight_rec_idle) },
	[NSIGHT_REC_FAULT]	  = { "fault", sizeof(struct nsight_rec_fault) },
	[NSIGHT_REC_WORK]	  = { "work", sizeof(struct nsight_rec_work) },
	[NSIGHT_REC_NAPI]	  = { "napi", sizeof(struct nsight_rec_napi) },
	[NSIGHT_REC_SAMPLE]	  = { "sample", sizeof(struct nsight_rec_sample) },
	[NSIGHT_REC_PT]		  = { "pt", sizeof(struct nsight_rec_pt) },
	[NSIGHT_REC_MARK]	  = { "mark", sizeof(struct nsight_rec_mark) },
	[NSIGHT_REC_APP_RECV_START] = { "app_recv_start", sizeof(struct nsight_rec_app_start) },
	[NSIGHT_REC_PKT_STAGE]	  = { "pkt_stage", sizeof(struct nsight_rec_pkt_stage) },
	[NSIGHT_REC_SOCK_DROP]	  = { "sock_drop", sizeof(struct nsight_rec_sock_drop) },
	[NSIGHT_REC_FUTEX]	  = { "futex", sizeof(struct nsight_rec_futex) },
	[NSIGHT_REC_REQUEST]	  = { "request", sizeof(struct nsight_rec_request) },
	[NSIGHT_REC_THREAD]	  = { "thread", sizeof(struct nsight_rec_thread) },
	[NSIGHT_REC_SOCK]	  = { "sock", sizeof(struct nsight_rec_sock) },
	[NSIGHT_REC_NAPI_POLL]	  = { "napi_poll", sizeof(struct nsight_rec_napi_poll) },
	[NSIGHT_REC_PT_CR3]	  = { "pt_cr3", sizeof(struct nsight_rec_pt_cr3) },
};

bool nsight_rec_type_known(unsigned int type)
{
	return type > NSIGHT_REC_INVALID && type < __NSIGHT_REC_MAX;
}

const char *nsight_rec_type_name(unsigned int type)
{
	return nsight_rec_type_known(type) ? rec_types[type].name : NULL;
}

size_t nsight_rec_min_size(unsigned int type)
{
	return nsight_rec_type_known(type) ? rec_types[type].size : 0;
}

bool nsight_rec_size_valid(uint32_t size)
{
	return size >= sizeof(struct nsight_rec_hdr) && size % NSIGHT_REC_ALIGN == 0;
}

void nsight_rec_walker_init(struct nsight_rec_walker *w, const void *buf,
			    size_t len, uint32_t cpu, uint64_t base_offset)
{
	w->buf = buf;
	w->len = len;
	w->pos = 0;
	w->cpu = cpu;
	w->base_offset = base_offset;
	w->dec = NULL;
}

void nsight_rec_walker_init_compact(struct nsight_rec_walker *w, const void *buf,
				    size_t len, uint32_t cpu, uint64_t base_offset,
				    struct nsight_cdec *dec)
{
	nsight_rec_walker_init(w, buf, len, cpu, base_offset);
	w->dec = dec;
}

void nsight_rec_walker_init_chunk(struct nsight_rec_walker *w, uint32_t chunk_type,
				  const void *buf, size_t len, uint32_t cpu,
				  uint64_t base_offset, struct nsight_cdec *dec)
{
	nsight_rec_walker_init(w, buf, len, cpu, base_offset);
	if (chunk_type == NSIGHT_CHUNK_CRECORDS)
		w->dec = dec;
}

/* ---------------------------------------------------------------------- */
/* Compact records                                                          */

void nsight_cdec_init(struct nsight_cdec *c)
{
	c->tsc = 0;
	c->have_tsc = false;
	c->names = NULL;
	c->n_names = c->cap_names = 0;
	nsight_u64map_init(&c->newest);
	c->read_to = 0;
	c->nameless = 0;
	c->nameless_at = 0;
	c->socks = NULL;
	c->n_socks = c->cap_socks = 0;
	nsight_u64map_init(&c->newest_sock);
	c->flowless = 0;
	c->flowless_at = 0;
}

void nsight_cdec_fini(struct nsight_cdec *c)
{
	free(c->names);
	c->names = NULL;
	c->n_names = c->cap_names = 0;
	nsight_u64map_fini(&c->newest);
	free(c->socks);
	c->socks = NULL;
	c->n_socks = c->cap_socks = 0;
	nsight_u64map_fini(&c->newest_sock);
}

/*
 * A new version of @key given at @off, in the list @vec (*@n entries of
 * @size bytes, each starting with struct nsight_cver) that @newest indexes:
 * the entry to fill, or NULL when a chunk read again gave it already
 * (versions only grow forwards) or when out of memory (*@err).
 */
static void *cdec_version(void **vec, size_t *n, size_t *cap, size_t size,
			  struct nsight_u64map *newest, uint64_t key, uint64_t off, int *err,
			  struct nsight_diag *d)
{
	uint32_t *slot = nsight_u64map_get(newest, key);
	struct nsight_cver *v;
	bool added;

	*err = 0;
	if (slot && ((struct nsight_cver *)((uint8_t *)*vec + (*slot - 1) * size))->offset >= off)
		return NULL;
	if (*n >= UINT32_MAX - 1 || nsight_vec_reserve(vec, cap, *n + 1, size))
		goto nomem;
	v = (struct nsight_cver *)((uint8_t *)*vec + *n * size);
	memset(v, 0, size);
	v->offset = off;
	v->older = slot ? *slot : 0;
	if (slot) {
		*slot = (uint32_t)++*n;
		return v;
	}
	if (!nsight_u64map_put(newest, key, (uint32_t)*n + 1, &added))
		goto nomem;
	++*n;
	return v;
nomem:
	*err = nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	return NULL;
}

/* The thread record at @off names its tid from there on. */
static int cdec_name(struct nsight_cdec *c, const uint8_t *p, uint64_t off, struct nsight_diag *d)
{
	struct nsight_rec_thread t;
	struct nsight_cname *n;
	int err;

	memcpy((uint8_t *)&t + sizeof(t.hdr), p + 8, sizeof(t) - sizeof(t.hdr));
	n = cdec_version((void **)&c->names, &c->n_names, &c->cap_names, sizeof(*n), &c->newest,
			 t.tid, off, &err, d);
	if (n) {
		n->tid = t.tid;
		n->pid = t.pid;
		memcpy(n->comm, t.comm, sizeof(n->comm));
		n->comm[sizeof(n->comm) - 1] = '\0';
	}
	return err;
}

/* The sock record at @off gives its socket's flow from there on. */
static int cdec_sock(struct nsight_cdec *c, const uint8_t *p, uint64_t off, struct nsight_diag *d)
{
	struct nsight_crec_sock4 in;
	struct nsight_csock *n;
	int err;

	memcpy(&in, p, sizeof(in));
	n = cdec_version((void **)&c->socks, &c->n_socks, &c->cap_socks, sizeof(*n),
			 &c->newest_sock, in.sock_id, off, &err, d);
	if (n) {
		n->sock_id = in.sock_id;
		n->flow = in.flow;
	}
	return err;
}

/*
 * The flow of socket @sock_id for the record at @off: its last sock record
 * before it. None (a stream cut or corrupt): a zero flow, counted once.
 */
static struct nsight_cflow4 cdec_flow(struct nsight_cdec *c, uint64_t sock_id, uint64_t off)
{
	const uint32_t *slot = nsight_u64map_get(&c->newest_sock, sock_id);
	uint32_t i = slot ? *slot : 0;

	while (i && c->socks[i - 1].v.offset > off)
		i = c->socks[i - 1].v.older;
	if (i)
		return c->socks[i - 1].flow;
	if (off >= c->read_to) {
		if (!c->flowless++)
			c->flowless_at = off;
	}
	return (struct nsight_cflow4){ 0 };
}

/*
 * The name of @tid for the record at @off: its last thread record before
 * it. None (a stream cut or corrupt): pid 0, an empty name, counted once.
 */
static void cdec_lookup(struct nsight_cdec *c, uint32_t tid, uint64_t off, uint32_t *pid,
			char comm[16])
{
	const uint32_t *slot = nsight_u64map_get(&c->newest, tid);
	uint32_t i = slot ? *slot : 0;

	while (i && c->names[i - 1].v.offset > off)
		i = c->names[i - 1].v.older;
	if (i) {
		*pid = c->names[i - 1].pid;
		memcpy(comm, c->names[i - 1].comm, 16);
		return;
	}
	*pid = 0;
	memset(comm, 0, 16);
	if (off >= c->read_to) {
		if (!c->nameless++)
			c->nameless_at = off;
	}
}

/* A softirq or idle record that is its header word alone. */
static bool crec_small(unsigned int type)
{
	return type >= NSIGHT_CREC_SOFTIRQ_ENTRY &&
	       type < NSIGHT_CREC_IDLE_ENTRY + NSIGHT_CREC_SMALL_ARGS;
}

/* The smallest compact record of @type (8 for a type this build lacks). */
static size_t crec_min_size(unsigned int type)
{
	switch (type) {
	case NSIGHT_REC_SUBBUF:		return sizeof(struct nsight_crec_subbuf);
	case NSIGHT_CREC_PKT4:		return sizeof(struct nsight_crec_pkt4);
	case NSIGHT_CREC_PKT4_TS:	return sizeof(struct nsight_crec_pkt4) + 8;
	case NSIGHT_CREC_HANDOFF4:	return sizeof(struct nsight_crec_handoff4);
	case NSIGHT_CREC_APP_RECV4:
	case NSIGHT_CREC_APP_SEND4:	return sizeof(struct nsight_crec_app4);
	case NSIGHT_CREC_SWITCH:
	case NSIGHT_CREC_SWITCH_PREEMPT: return sizeof(struct nsight_crec_switch);
	case NSIGHT_CREC_WAKING:	return sizeof(struct nsight_crec_waking);
	case NSIGHT_CREC_APP_RECV4N:
	case NSIGHT_CREC_APP_SEND4N:	return sizeof(struct nsight_crec_app4n);
	case NSIGHT_CREC_SWITCH_S:
	case NSIGHT_CREC_SWITCH_S_PREEMPT: return sizeof(struct nsight_crec_switch_s);
	case NSIGHT_CREC_WAKING_S:	return sizeof(struct nsight_crec_waking_s);
	case NSIGHT_CREC_APP_RECV4S:
	case NSIGHT_CREC_APP_SEND4S:	return sizeof(struct nsight_crec_app4s);
	case NSIGHT_CREC_PKT_STAGE:	return sizeof(struct nsight_crec_pkt_stage);
	case NSIGHT_CREC_APP_COPY0:	return sizeof(struct nsight_crec_app_copy0);
	case NSIGHT_CREC_SOCK4:		return sizeof(struct nsight_crec_sock4);
	case NSIGHT_CREC_HANDOFF4F:	return sizeof(struct nsight_crec_handoff4f);
	case NSIGHT_CREC_APP_RECV4F:
	case NSIGHT_CREC_APP_SEND4F:	return sizeof(struct nsight_crec_app4f);
	}
	return nsight_rec_type_known(type) ? nsight_rec_min_size(type) - 8 : 8;
}

static const char *crec_name(unsigned int type)
{
	switch (type) {
	case NSIGHT_CREC_PKT4:
	case NSIGHT_CREC_PKT4_TS:	return "pkt (compact)";
	case NSIGHT_CREC_HANDOFF4:	return "handoff (compact)";
	case NSIGHT_CREC_APP_RECV4:	return "app_recv (compact)";
	case NSIGHT_CREC_APP_SEND4:	return "app_send (compact)";
	case NSIGHT_CREC_SWITCH:
	case NSIGHT_CREC_SWITCH_PREEMPT: return "sched_switch (compact)";
	case NSIGHT_CREC_WAKING:	return "waking (compact)";
	case NSIGHT_CREC_APP_RECV4N:	return "app_recv (compact, named)";
	case NSIGHT_CREC_APP_SEND4N:	return "app_send (compact, named)";
	case NSIGHT_CREC_SWITCH_S:
	case NSIGHT_CREC_SWITCH_S_PREEMPT: return "sched_switch (short)";
	case NSIGHT_CREC_WAKING_S:	return "waking (short)";
	case NSIGHT_CREC_APP_RECV4S:	return "app_recv (short)";
	case NSIGHT_CREC_APP_SEND4S:	return "app_send (short)";
	case NSIGHT_CREC_PKT_STAGE:	return "pkt_stage (short)";
	case NSIGHT_CREC_APP_COPY0:	return "app_copy (short)";
	case NSIGHT_CREC_SOCK4:		return "sock (compact)";
	case NSIGHT_CREC_HANDOFF4F:	return "handoff (compact, by socket)";
	case NSIGHT_CREC_APP_RECV4F:	return "app_recv (short, by socket)";
	case NSIGHT_CREC_APP_SEND4F:	return "app_send (short, by socket)";
	}
	if (crec_small(type))
		return type < NSIGHT_CREC_IDLE_EXIT ? "softirq (compact)" : "idle (compact)";
	return nsight_rec_type_known(type) ? nsight_rec_type_name(type) : "unknown";
}

static void flow_of(struct nsight_flow *f, const struct nsight_cflow4 *c)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };

	memset(f, 0, sizeof(*f));
	memcpy(f->saddr, mapped, sizeof(mapped));
	memcpy(f->saddr + 12, &c->saddr, 4);
	memcpy(f->daddr, mapped, sizeof(mapped));
	memcpy(f->daddr + 12, &c->daddr, 4);
	f->sport = c->sport;
	f->dport = c->dport;
	f->family = c->family;
	f->protocol = c->protocol;
}

/*
 * Expand the compact record @p (@size bytes, @type, a known size) into
 * @out (NSIGHT_CDEC_OUT_MAX bytes); returns the expanded size.
 */
/*
 * The fields of an IPv4 app record both compact forms share, and the TCP
 * send's state (@tail_len bytes at @tail) after the struct, as it follows
 * struct nsight_rec_app.
 */
static void app4_fill(struct nsight_rec_app *r, const struct nsight_crec_app4n *in,
		      const uint8_t *tail, size_t tail_len)
{
	r->sock_id = in->sock_id;
	flow_of(&r->flow, &in->flow);
	r->start_tsc = in->start_tsc;
	r->ret = in->ret;
	r->tcp_seq = in->tcp_seq;
	r->tid = in->tid;
	r->flags = in->flags;
	memcpy(r + 1, tail, tail_len);
}

/* An IPv4 hand-off's fields, its flow @f given apart. */
static void handoff4_fill(struct nsight_rec_handoff *r, const struct nsight_crec_handoff4f *in,
			  const struct nsight_cflow4 *f)
{
	r->sock_id = in->sock_id;
	flow_of(&r->flow, f);
	r->rcvq_bytes = in->rcvq_bytes;
	r->rcvq_len = in->rcvq_len;
	r->pkt_id = in->pkt_id;
	r->tcp_rcv_nxt = in->tcp_rcv_nxt;
	r->tcp_copied_seq = in->tcp_copied_seq;
}

static size_t expand(struct nsight_cdec *c, unsigned int type, const uint8_t *p, size_t size,
		     uint32_t cpu, uint64_t tsc, uint64_t off, uint8_t *out)
{
	struct nsight_rec_hdr *h = (struct nsight_rec_hdr *)out;
	size_t n;

	memset(out, 0, sizeof(struct nsight_rec_app) + sizeof(struct nsight_tcp_send_state));
	switch (type) {
	case NSIGHT_REC_SUBBUF: {
		struct nsight_crec_subbuf in;
		struct nsight_rec_subbuf *r = (void *)out;

		memcpy(&in, p, sizeof(in));
		r->seq = in.seq;
		r->dropped = in.dropped;
		n = sizeof(*r);
		break;
	}
	case NSIGHT_CREC_PKT4:
	case NSIGHT_CREC_PKT4_TS: {
		struct nsight_crec_pkt4 in;
		struct nsight_rec_pkt *r = (void *)out;

		memcpy(&in, p, sizeof(in));
		if (type == NSIGHT_CREC_PKT4_TS)
			memcpy(&r->sw_tstamp, p + sizeof(in), sizeof(r->sw_tstamp));
		r->pkt_id = in.pkt_id;
		flow_of(&r->flow, &in.flow);
		r->seq = in.seq;
		r->payload_len = in.payload_len;
		r->ifindex = in.ifindex;
		r->queue = in.queue;
		r->stage = in.stage;
		r->flags = in.flags;
		r->gso_segs = in.gso_segs;
		r->rc = in.rc;
		r->wire_hash = in.wire_hash;
		type = NSIGHT_REC_PKT;
		n = sizeof(*r);
		break;
	}
	case NSIGHT_CREC_HANDOFF4: {
		struct nsight_crec_handoff4 in;
		struct nsight_rec_handoff *r = (void *)out;

		memcpy(&in, p, sizeof(in));
		handoff4_fill(r, &(struct nsight_crec_handoff4f){ .sock_id = in.sock_id,
				.pkt_id = in.pkt_id, .rcvq_bytes = in.rcvq_bytes,
				.rcvq_len = in.rcvq_len, .tcp_rcv_nxt = in.tcp_rcv_nxt,
				.tcp_copied_seq = in.tcp_copied_seq }, &in.flow);
		type = NSIGHT_REC_HANDOFF;
		n = sizeof(*r);
		break;
	}
	case NSIGHT_CREC_APP_RECV4:
	case NSIGHT_CREC_APP_SEND4: {
		/* The form before thread names: its own pid and comm. */
		struct nsight_crec_app4 in;
		struct nsight_rec_app *r = (void *)out;

		memcpy(&in, p, sizeof(in));
		app4_fill(r, &(struct nsight_crec_app4n){ .sock_id = in.sock_id,
				.start_tsc = in.start_tsc, .ret = in.ret, .flow = in.flow,
				.tcp_seq = in.tcp_seq, .tid = in.tid, .flags = in.flags },
			  p + sizeof(in), size - sizeof(in));
		r->pid = in.pid;
		memcpy(r->comm, in.comm, sizeof(r->comm));
		type = type == NSIGHT_CREC_APP_SEND4 ? NSIGHT_REC_APP_SEND : NSIGHT_REC_APP_RECV;
		n = sizeof(*r) + size - sizeof(in);
		break;
	}
	case NSIGHT_CREC_APP_RECV4N:
	case NSIGHT_CREC_APP_SEND4N: {
		struct nsight_crec_app4n in;
		struct nsight_rec_app *r = (void *)out;

		memcpy(&in, p, sizeof(in));
		app4_fill(r, &in, p + sizeof(in), size - sizeof(in));
		cdec_lookup(c, in.tid, off, &r->pid, r->comm);
		r->comm[sizeof(r->comm) - 1] = '\0';
		type = type == NSIGHT_CREC_APP_SEND4N ? NSIGHT_REC_APP_SEND : NSIGHT_REC_APP_RECV;
		n = sizeof(*r) + size - sizeof(in);
		break;
	}
	case NSIGHT_CREC_SWITCH:
	case NSIGHT_CREC_SWITCH_PREEMPT: {
		struct nsight_crec_switch in;
		struct nsight_rec_sched_switch *r = (void *)out;

		memcpy(&in, p, sizeof(in));
		r->prev_tid = in.prev_tid;
		r->next_tid = in.next_tid;
		r->prev_prio = in.prev_prio;
		r->next_prio = in.next_prio;
		r->prev_state = in.prev_state;
		r->flags = type == NSIGHT_CREC_SWITCH_PREEMPT ? NSIGHT_SWITCH_PREEMPT : 0;
		cdec_lookup(c, in.prev_tid, off, &r->prev_pid, r->prev_comm);
		cdec_lookup(c, in.next_tid, off, &r->next_pid, r->next_comm);
		type = NSIGHT_REC_SCHED_SWITCH;
		n = sizeof(*r);
		break;
	}
	case NSIGHT_CREC_SOCK4: {
		struct nsight_crec_sock4 in;
		struct nsight_rec_sock *r = (void *)out;

		memcpy(&in, p, sizeof(in));
		r->sock_id = in.sock_id;
		flow_of(&r->flow, &in.flow);
		type = NSIGHT_REC_SOCK;
		n = sizeof(*r);
		break;
	}
	case NSIGHT_CREC_HANDOFF4F: {
		struct nsight_crec_handoff4f in;
		struct nsight_rec_handoff *r = (void *)out;
		struct nsight_cflow4 f;

		memcpy(&in, p, sizeof(in));
		f = cdec_flow(c, in.sock_id, off);
		handoff4_fill(r, &in, &f);
		type = NSIGHT_REC_HANDOFF;
		n = sizeof(*r);
		break;
	}
	case NSIGHT_CREC_APP_RECV4F:
	case NSIGHT_CREC_APP_SEND4F:
	case NSIGHT_CREC_APP_RECV4S:
	case NSIGHT_CREC_APP_SEND4S: {
		/* The flow by socket id (4F) or in the record (4S), the start by type. */
		bool by_sock = type == NSIGHT_CREC_APP_RECV4F || type == NSIGHT_CREC_APP_SEND4F;
		bool send = type == NSIGHT_CREC_APP_SEND4F || type == NSIGHT_CREC_APP_SEND4S;
		struct nsight_rec_app *r = (void *)out;
		struct nsight_crec_app4s in;
		size_t len = by_sock ? sizeof(struct nsight_crec_app4f) : sizeof(in);

		if (by_sock) {
			struct nsight_crec_app4f f;

			memcpy(&f, p, sizeof(f));
			in = (struct nsight_crec_app4s){ .sock_id = f.sock_id,
				.flow = cdec_flow(c, f.sock_id, off), .ret = f.ret,
				.tcp_seq = f.tcp_seq, .tid = f.tid, .flags = f.flags };
		} else {
			memcpy(&in, p, sizeof(in));
		}
		app4_fill(r, &(struct nsight_crec_app4n){ .sock_id = in.sock_id,
				.start_tsc = send ? tsc : 0, .ret = in.ret, .flow = in.flow,
				.tcp_seq = in.tcp_seq, .tid = in.tid, .flags = in.flags },
			  p + len, size - len);
		cdec_lookup(c, in.tid, off, &r->pid, r->comm);
		r->comm[sizeof(r->comm) - 1] = '\0';
		type = send ? NSIGHT_REC_APP_SEND : NSIGHT_REC_APP_RECV;
		n = sizeof(*r) + size - len;
		break;
	}
	case NSIGHT_CREC_SWITCH_S:
	case NSIGHT_CREC_SWITCH_S_PREEMPT: {
		struct nsight_crec_switch_s in;
		struct nsight_rec_sched_switch *r = (void *)out;

		memcpy(&in, p, sizeof(in));
		r->prev_tid = NSIGHT_CREC_TID_A(in.w);
		r->next_tid = NSIGHT_CREC_TID_B(in.w);
		r->prev_state = NSIGHT_CREC_ARG(in.w);
		r->prev_prio = NSIGHT_CREC_DEFAULT_PRIO;
		r->next_prio = NSIGHT_CREC_DEFAULT_PRIO;
		r->flags = type == NSIGHT_CREC_SWITCH_S_PREEMPT ? NSIGHT_SWITCH_PREEMPT : 0;
		cdec_lookup(c, r->prev_tid, off, &r->prev_pid, r->prev_comm);
		cdec_lookup(c, r->next_tid, off, &r->next_pid, r->next_comm);
		type = NSIGHT_REC_SCHED_SWITCH;
		n = sizeof(*r);
		break;
	}
	case NSIGHT_CREC_WAKING_S: {
		struct nsight_crec_waking_s in;
		struct nsight_rec_waking *r = (void *)out;

		memcpy(&in, p, sizeof(in));
		r->tid = NSIGHT_CREC_TID_A(in.w);
		r->waker_tid = NSIGHT_CREC_TID_B(in.w);
		r->target_cpu = NSIGHT_CREC_ARG(in.w);
		r->prio = NSIGHT_CREC_DEFAULT_PRIO;
		cdec_lookup(c, r->tid, off, &r->pid, r->comm);
		type = NSIGHT_REC_WAKING;
		n = sizeof(*r);
		break;
	}
	case NSIGHT_CREC_PKT_STAGE: {
		struct nsight_crec_pkt_stage in;
		struct nsight_rec_pkt_stage *r = (void *)out;

		memcpy(&in, p, sizeof(in));
		r->pkt_id = in.pkt_id;
		r->ifindex = in.ifindex;
		r->queue = in.queue;
		r->stage = in.stage_flags & 0xf;
		r->flags = in.stage_flags >> 4;
		r->gso_segs = in.gso_segs;
		type = NSIGHT_REC_PKT_STAGE;
		n = sizeof(*r);
		break;
	}
	case NSIGHT_CREC_APP_COPY0: {
		struct nsight_crec_app_copy0 in;
		struct nsight_rec_app_copy *r = (void *)out;
		char comm[16];

		memcpy(&in, p, sizeof(in));
		r->pkt_id = in.pkt_id;
		r->len = in.len;
		r->tid = in.tid;
		cdec_lookup(c, in.tid, off, &r->pid, comm);
		type = NSIGHT_REC_APP_COPY;
		n = sizeof(*r);
		break;
	}
	case NSIGHT_CREC_WAKING: {
		struct nsight_crec_waking in;
		struct nsight_rec_waking *r = (void *)out;

		memcpy(&in, p, sizeof(in));
		r->tid = in.tid;
		r->prio = in.prio;
		r->target_cpu = in.target_cpu;
		r->waker_tid = in.waker_tid;
		cdec_lookup(c, in.tid, off, &r->pid, r->comm);
		type = NSIGHT_REC_WAKING;
		n = sizeof(*r);
		break;
	}
	default:
		if (crec_small(type)) {
			/* The header word alone; the type holds the rest. */
			if (type < NSIGHT_CREC_IDLE_EXIT) {
				struct nsight_rec_softirq *r = (void *)out;

				r->vec = (type - NSIGHT_CREC_SOFTIRQ_ENTRY) % NSIGHT_CREC_SMALL_ARGS;
				r->flags = type < NSIGHT_CREC_SOFTIRQ_EXIT ? NSIGHT_CTX_ENTRY : 0;
				type = NSIGHT_REC_SOFTIRQ;
				n = sizeof(*r);
			} else {
				struct nsight_rec_idle *r = (void *)out;

				r->state = type == NSIGHT_CREC_IDLE_EXIT ? UINT32_MAX :
					   type - NSIGHT_CREC_IDLE_ENTRY;
				r->flags = type == NSIGHT_CREC_IDLE_EXIT ? 0 : NSIGHT_CTX_ENTRY;
				type = NSIGHT_REC_IDLE;
				n = sizeof(*r);
			}
			break;
		}
		/* The struct's fields after hdr follow the header word. */
		memcpy(out + sizeof(*h), p + 8, size - 8);
		n = size + 8;
		break;
	}
	h->type = (uint16_t)type;
	h->size = (uint16_t)n;
	h->cpu = cpu;
	h->tsc = tsc;
	return n;
}

bool nsight_crec_tsc(uint64_t *prev, bool *have, const uint8_t *p, size_t size, uint64_t *tsc)
{
	const uint64_t span = 1ULL << NSIGHT_CREC_TSC_BITS;
	uint64_t h, t;

	memcpy(&h, p, sizeof(h));
	if (NSIGHT_CREC_TYPE(h) == NSIGHT_REC_SUBBUF) {
		if (size < sizeof(struct nsight_crec_subbuf))
			return false;
		memcpy(&t, p + offsetof(struct nsight_crec_subbuf, tsc), sizeof(t));
	} else if (!*have) {
		return false;
	} else {
		/* The 48-bit step from the previous one, signed, modulo 2^64. */
		uint64_t step = (NSIGHT_CREC_TSC(h) - *prev) & (span - 1);

		t = *prev + (uint64_t)((int64_t)(step << 16) >> 16);
	}
	*prev = t;
	*have = true;
	*tsc = t;
	return true;
}

static int compact_next(struct nsight_rec_walker *w, struct nsight_rec *rec,
			struct nsight_diag *d)
{
	struct nsight_cdec *c = w->dec;

	for (;;) {
		size_t left = w->len - w->pos, need;
		uint64_t off = w->base_offset + w->pos;
		unsigned int type, size;
		const uint8_t *p;
		uint64_t h, tsc;

		if (left == 0)
			return 0;	/* also for an empty chunk's NULL payload */
		p = w->buf + w->pos;
		if (left < sizeof(h))
			return nsight_diag_set(d, NSIGHT_E_RECORD,
					       "compact record at byte %" PRIu64 " (cpu %" PRIu32 "): header needs %zu bytes, %zu left",
					       off, w->cpu, sizeof(h), left);
		memcpy(&h, p, sizeof(h));
		type = NSIGHT_CREC_TYPE(h);
		size = NSIGHT_CREC_SIZE(h);
		if (type == NSIGHT_REC_INVALID)
			return nsight_diag_set(d, NSIGHT_E_RECORD,
					       "compact record at byte %" PRIu64 " (cpu %" PRIu32 "): invalid record type 0",
					       off, w->cpu);
		if (size > left)
			return nsight_diag_set(d, NSIGHT_E_RECORD,
					       "compact record at byte %" PRIu64 " (cpu %" PRIu32 "): size %u runs past the end of its chunk (%zu bytes left)",
					       off, w->cpu, size, left);
		need = crec_min_size(type);
		if (size < need)
			return nsight_diag_set(d, NSIGHT_E_RECORD,
					       "compact record at byte %" PRIu64 " (cpu %" PRIu32 "): %s record of %u bytes, needs at least %zu",
					       off, w->cpu, crec_name(type), size, need);
		if (type == NSIGHT_REC_SUBBUF) {
			struct nsight_crec_subbuf sb;

			memcpy(&sb, p, sizeof(sb));
			if ((sb.tsc << 16) >> 16 != NSIGHT_CREC_TSC(h))
				return nsight_diag_set(d, NSIGHT_E_RECORD,
						       "compact record at byte %" PRIu64 " (cpu %" PRIu32 "): sub-buffer header's TSC 0x%" PRIx64 " does not end in its header word's 0x%" PRIx64,
						       off, w->cpu, (uint64_t)sb.tsc, NSIGHT_CREC_TSC(h));
		}
		if (!nsight_crec_tsc(&c->tsc, &c->have_tsc, p, size, &tsc))
			return nsight_diag_set(d, NSIGHT_E_RECORD,
					       "compact record at byte %" PRIu64 " (cpu %" PRIu32 "): %s record before the first sub-buffer header, whose TSC it extends",
					       off, w->cpu, crec_name(type));
		if (type == NSIGHT_REC_THREAD || type == NSIGHT_CREC_SOCK4) {
			int err = type == NSIGHT_REC_THREAD ? cdec_name(c, p, off, d) :
				  cdec_sock(c, p, off, d);

			if (err)
				return err;
		}
		w->pos += size;
		expand(c, type, p, size, w->cpu, tsc, off, c->out.b);
		if (off >= c->read_to)
			c->read_to = off + 1;
		memcpy(&rec->hdr, c->out.b, sizeof(rec->hdr));
		rec->data = c->out.b;
		rec->offset = off;
		return 1;
	}
}

int nsight_rec_walker_next(struct nsight_rec_walker *w, struct nsight_rec *rec,
			   struct nsight_diag *d)
{
	size_t left = w->len - w->pos;
	uint64_t off = w->base_offset + w->pos;
	struct nsight_rec_hdr h;

	if (w->dec)
		return compact_next(w, rec, d);
	if (left == 0)
		return 0;
	if (left < sizeof(h))
		return nsight_diag_set(d, NSIGHT_E_RECORD,
				       "record at byte %" PRIu64 " (cpu %" PRIu32 "): header needs %zu bytes, %zu left",
				       off, w->cpu, sizeof(h), left);
	memcpy(&h, w->buf + w->pos, sizeof(h));
	if (h.size < sizeof(h))
		return nsight_diag_set(d, NSIGHT_E_RECORD,
				       "record at byte %" PRIu64 " (cpu %" PRIu32 "): size %u is smaller than the %zu-byte header",
				       off, w->cpu, h.size, sizeof(h));
	if (h.size % NSIGHT_REC_ALIGN)
		return nsight_diag_set(d, NSIGHT_E_RECORD,
				       "record at byte %" PRIu64 " (cpu %" PRIu32 "): size %u is not a multiple of %d",
				       off, w->cpu, h.size, NSIGHT_REC_ALIGN);
	if (h.size > left)
		return nsight_diag_set(d, NSIGHT_E_RECORD,
				       "record at byte %" PRIu64 " (cpu %" PRIu32 "): size %u runs past the end of its chunk (%zu bytes left)",
				       off, w->cpu, h.size, left);
	if (h.cpu != w->cpu)
		return nsight_diag_set(d, NSIGHT_E_RECORD,
				       "record at byte %" PRIu64 ": written on cpu %" PRIu32 " but found in the buffer of cpu %" PRIu32,
				       off, h.cpu, w->cpu);
	if (h.type == NSIGHT_REC_INVALID)
		return nsight_diag_set(d, NSIGHT_E_RECORD,
				       "record at byte %" PRIu64 " (cpu %" PRIu32 "): invalid record type 0",
				       off, w->cpu);
	if (nsight_rec_type_known(h.type) && h.size < nsight_rec_min_size(h.type))
		return nsight_diag_set(d, NSIGHT_E_RECORD,
				       "record at byte %" PRIu64 " (cpu %" PRIu32 "): %s record of %u bytes, needs at least %zu",
				       off, w->cpu, nsight_rec_type_name(h.type), h.size,
				       nsight_rec_min_size(h.type));

	rec->hdr = h;
	rec->data = w->buf + w->pos;
	rec->offset = off;
	w->pos += h.size;
	return 1;
}

size_t nsight_records_whole_prefix(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t pos = 0;

	while (len - pos >= sizeof(struct nsight_rec_hdr)) {
		struct nsight_rec_hdr h;

		memcpy(&h, p + pos, sizeof(h));
		if (!nsight_rec_size_valid(h.size) || h.size > len - pos)
			break;
		pos += h.size;
	}
	return pos;
}

size_t nsight_crecords_whole_prefix(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t pos = 0;

	while (len - pos >= sizeof(uint64_t)) {
		uint64_t h;
		unsigned int size;

		memcpy(&h, p + pos, sizeof(h));
		size = NSIGHT_CREC_SIZE(h);
		if (!size || size > len - pos)
			break;
		pos += size;
	}
	return pos;
}

/* ---------------------------------------------------------------------- */
/* Encoding                                                                 */

#define CENC_NAME_SLOTS	256

struct cenc {
	uint8_t *buf;
	size_t len, cap;
	/* Tasks named, as the module's per-CPU memo (uapi "Thread names"). */
	struct {
		uint32_t tid, pid;
		char comm[16];
		bool used;
	} memo[CENC_NAME_SLOTS];
	/* Socket flows given, as the module's per-CPU memo (uapi "Socket flows"). */
	struct {
		uint64_t sock_id;
		struct nsight_cflow4 flow;
		bool used;
	} socks[CENC_NAME_SLOTS];
};

static void *cenc_put(struct cenc *e, const void *p, size_t n)
{
	if (nsight_vec_reserve((void **)&e->buf, &e->cap, e->len + n, 1))
		return NULL;
	memcpy(e->buf + e->len, p, n);
	e->len += n;
	return e->buf + e->len - n;
}

static bool flow_v4(const struct nsight_flow *f)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(f->saddr, mapped, 12) && !memcmp(f->daddr, mapped, 12) && !f->pad;
}

static struct nsight_cflow4 cflow4(const struct nsight_flow *f)
{
	struct nsight_cflow4 c = { .sport = f->sport, .dport = f->dport,
				   .family = f->family, .protocol = f->protocol };

	memcpy(&c.saddr, f->saddr + 12, 4);
	memcpy(&c.daddr, f->daddr + 12, 4);
	return c;
}

/* A thread record before the record at @tsc naming @tid, unless the memo has it. */
static int cenc_name(struct cenc *e, uint32_t tid, uint32_t pid, const char comm[16], uint64_t tsc)
{
	struct nsight_rec_thread t = { .tid = tid, .pid = pid };
	uint64_t w = NSIGHT_CREC_HDR(NSIGHT_REC_THREAD, sizeof(t) - 8, tsc);
	unsigned int i = tid % CENC_NAME_SLOTS;

	if (e->memo[i].used && e->memo[i].tid == tid && e->memo[i].pid == pid &&
	    !memcmp(e->memo[i].comm, comm, 16))
		return 0;
	memcpy(t.comm, comm, sizeof(t.comm));
	if (!cenc_put(e, &w, sizeof(w)) ||
	    !cenc_put(e, (uint8_t *)&t + sizeof(t.hdr), sizeof(t) - sizeof(t.hdr)))
		return -1;
	e->memo[i].used = true;
	e->memo[i].tid = tid;
	e->memo[i].pid = pid;
	memcpy(e->memo[i].comm, comm, 16);
	return 0;
}

static bool fits_s16(int32_t v)
{
	return v >= INT16_MIN && v <= INT16_MAX;
}

/* Whether the memo names @tid as a task of @pid (a record without its comm). */
static bool cenc_named(const struct cenc *e, uint32_t tid, uint32_t pid)
{
	unsigned int i = tid % CENC_NAME_SLOTS;

	return e->memo[i].used && e->memo[i].tid == tid && e->memo[i].pid == pid;
}

/*
 * Whether a record of socket @sock_id with flow @f may leave the flow out:
 * a sock record before it gives it, written now if the memo lacks the
 * socket (1), or -1 when out of memory. 0: the memo has another flow.
 */
static int cenc_sock(struct cenc *e, uint64_t sock_id, struct nsight_cflow4 f, uint64_t tsc)
{
	unsigned int i = sock_id % CENC_NAME_SLOTS;
	struct nsight_crec_sock4 r = { .hdr = NSIGHT_CREC_HDR(NSIGHT_CREC_SOCK4, sizeof(r), tsc),
				       .sock_id = sock_id, .flow = f };

	if (e->socks[i].used && e->socks[i].sock_id == sock_id)
		return !memcmp(&e->socks[i].flow, &f, sizeof(f));
	if (!cenc_put(e, &r, sizeof(r)))
		return -1;
	e->socks[i].used = true;
	e->socks[i].sock_id = sock_id;
	e->socks[i].flow = f;
	return 1;
}

/* Three fields of the short switch and waking forms (uapi "Short forms"). */
static bool cenc_packs(uint32_t tid_a, uint32_t tid_b, uint32_t arg)
{
	return tid_a >> NSIGHT_CREC_TID_BITS == 0 && tid_b >> NSIGHT_CREC_TID_BITS == 0 &&
	       arg >> NSIGHT_CREC_ARG_BITS == 0;
}

/* The compact form of the expanded record @p; -1 when out of memory. */
static int cenc_record(struct cenc *e, const struct nsight_rec_hdr *h, const uint8_t *p)
{
	switch (h->type) {
	case NSIGHT_REC_SUBBUF: {
		struct nsight_rec_subbuf in;
		struct nsight_crec_subbuf r;

		memcpy(&in, p, sizeof(in));
		r = (struct nsight_crec_subbuf){ .seq = in.seq, .dropped = in.dropped, .tsc = h->tsc };
		r.hdr = NSIGHT_CREC_HDR(NSIGHT_REC_SUBBUF, sizeof(r), h->tsc);
		return cenc_put(e, &r, sizeof(r)) ? 0 : -1;
	}
	case NSIGHT_REC_SOFTIRQ: {
		struct nsight_rec_softirq in;
		uint64_t w;

		memcpy(&in, p, sizeof(in));
		if (in.vec >= NSIGHT_CREC_SMALL_ARGS || in.flags & ~NSIGHT_CTX_ENTRY ||
		    h->size != sizeof(in))
			break;
		w = NSIGHT_CREC_HDR(in.vec + (in.flags ? NSIGHT_CREC_SOFTIRQ_ENTRY :
					      NSIGHT_CREC_SOFTIRQ_EXIT), 8, h->tsc);
		return cenc_put(e, &w, sizeof(w)) ? 0 : -1;
	}
	case NSIGHT_REC_IDLE: {
		struct nsight_rec_idle in;
		uint64_t w;

		memcpy(&in, p, sizeof(in));
		if (h->size != sizeof(in))
			break;
		if (in.state == UINT32_MAX && !in.flags)
			w = NSIGHT_CREC_HDR(NSIGHT_CREC_IDLE_EXIT, 8, h->tsc);
		else if (in.state < NSIGHT_CREC_SMALL_ARGS && in.flags == NSIGHT_CTX_ENTRY)
			w = NSIGHT_CREC_HDR(NSIGHT_CREC_IDLE_ENTRY + in.state, 8, h->tsc);
		else
			break;
		return cenc_put(e, &w, sizeof(w)) ? 0 : -1;
	}
	case NSIGHT_REC_PKT: {
		struct nsight_rec_pkt in;
		struct nsight_crec_pkt4 r = { 0 };

		memcpy(&in, p, sizeof(in));
		if (!flow_v4(&in.flow) || in.hw_tstamp || h->size != sizeof(in))
			break;
		r.hdr = in.sw_tstamp ? NSIGHT_CREC_HDR(NSIGHT_CREC_PKT4_TS, sizeof(r) + 8, h->tsc) :
			NSIGHT_CREC_HDR(NSIGHT_CREC_PKT4, sizeof(r), h->tsc);
		r.pkt_id = in.pkt_id;
		r.flow = cflow4(&in.flow);
		r.seq = in.seq;
		r.payload_len = in.payload_len;
		r.ifindex = in.ifindex;
		r.queue = in.queue;
		r.stage = in.stage;
		r.flags = in.flags;
		r.gso_segs = in.gso_segs;
		r.rc = in.rc;
		r.wire_hash = in.wire_hash;
		if (!cenc_put(e, &r, sizeof(r)))
			return -1;
		return !in.sw_tstamp || cenc_put(e, &in.sw_tstamp, 8) ? 0 : -1;
	}
	case NSIGHT_REC_HANDOFF: {
		struct nsight_rec_handoff in;
		struct nsight_crec_handoff4 r = { 0 };

		memcpy(&in, p, sizeof(in));
		if (!flow_v4(&in.flow) || h->size != sizeof(in))
			break;
		switch (cenc_sock(e, in.sock_id, cflow4(&in.flow), h->tsc)) {
		case -1:
			return -1;
		case 1: {
			struct nsight_crec_handoff4f f = {
				.hdr = NSIGHT_CREC_HDR(NSIGHT_CREC_HANDOFF4F, sizeof(f), h->tsc),
				.sock_id = in.sock_id, .pkt_id = in.pkt_id,
				.rcvq_bytes = in.rcvq_bytes, .rcvq_len = in.rcvq_len,
				.tcp_rcv_nxt = in.tcp_rcv_nxt, .tcp_copied_seq = in.tcp_copied_seq,
			};

			return cenc_put(e, &f, sizeof(f)) ? 0 : -1;
		}
		}
		r.hdr = NSIGHT_CREC_HDR(NSIGHT_CREC_HANDOFF4, sizeof(r), h->tsc);
		r.sock_id = in.sock_id;
		r.pkt_id = in.pkt_id;
		r.flow = cflow4(&in.flow);
		r.rcvq_bytes = in.rcvq_bytes;
		r.rcvq_len = in.rcvq_len;
		r.tcp_rcv_nxt = in.tcp_rcv_nxt;
		r.tcp_copied_seq = in.tcp_copied_seq;
		return cenc_put(e, &r, sizeof(r)) ? 0 : -1;
	}
	case NSIGHT_REC_APP_RECV:
	case NSIGHT_REC_APP_SEND: {
		struct nsight_rec_app in;
		struct nsight_crec_app4n r = { 0 };
		size_t tail = h->size - sizeof(in);
		uint8_t *q;

		memcpy(&in, p, sizeof(in));
		if (!flow_v4(&in.flow) || sizeof(r) + tail > NSIGHT_CREC_MAX_SIZE ||
		    memchr(in.comm, 0, sizeof(in.comm)) == NULL)
			break;
		if (cenc_name(e, in.tid, in.pid, in.comm, h->tsc))
			return -1;
		if (in.ret == (int32_t)in.ret &&
		    in.start_tsc == (h->type == NSIGHT_REC_APP_SEND ? h->tsc : 0)) {
			int named = cenc_sock(e, in.sock_id, cflow4(&in.flow), h->tsc);
			struct nsight_crec_app4f f = {
				.hdr = NSIGHT_CREC_HDR(h->type == NSIGHT_REC_APP_SEND ?
						       NSIGHT_CREC_APP_SEND4F : NSIGHT_CREC_APP_RECV4F,
						       sizeof(f) + tail, h->tsc),
				.sock_id = in.sock_id, .ret = (int32_t)in.ret,
				.tcp_seq = in.tcp_seq, .tid = in.tid, .flags = in.flags,
			};
			struct nsight_crec_app4s c = {
				.hdr = NSIGHT_CREC_HDR(h->type == NSIGHT_REC_APP_SEND ?
						       NSIGHT_CREC_APP_SEND4S : NSIGHT_CREC_APP_RECV4S,
						       sizeof(c) + tail, h->tsc),
				.sock_id = in.sock_id, .flow = cflow4(&in.flow), .ret = (int32_t)in.ret,
				.tcp_seq = in.tcp_seq, .tid = in.tid, .flags = in.flags,
			};

			if (named < 0)
				return -1;
			if (named)
				return cenc_put(e, &f, sizeof(f)) &&
				       (!tail || cenc_put(e, p + sizeof(in), tail)) ? 0 : -1;
			return cenc_put(e, &c, sizeof(c)) &&
			       (!tail || cenc_put(e, p + sizeof(in), tail)) ? 0 : -1;
		}
		r.hdr = NSIGHT_CREC_HDR(h->type == NSIGHT_REC_APP_SEND ? NSIGHT_CREC_APP_SEND4N :
					NSIGHT_CREC_APP_RECV4N, sizeof(r) + tail, h->tsc);
		r.sock_id = in.sock_id;
		r.start_tsc = in.start_tsc;
		r.ret = in.ret;
		r.flow = cflow4(&in.flow);
		r.tcp_seq = in.tcp_seq;
		r.tid = in.tid;
		r.flags = in.flags;
		q = cenc_put(e, &r, sizeof(r));
		return q && (!tail || cenc_put(e, p + sizeof(in), tail)) ? 0 : -1;
	}
	case NSIGHT_REC_SCHED_SWITCH: {
		struct nsight_rec_sched_switch in;
		struct nsight_crec_switch r = { 0 };

		memcpy(&in, p, sizeof(in));
		if (h->size != sizeof(in) || in.flags & ~NSIGHT_SWITCH_PREEMPT ||
		    !fits_s16(in.prev_prio) || !fits_s16(in.next_prio) ||
		    !memchr(in.prev_comm, 0, 16) || !memchr(in.next_comm, 0, 16))
			break;
		if (cenc_name(e, in.prev_tid, in.prev_pid, in.prev_comm, h->tsc) ||
		    cenc_name(e, in.next_tid, in.next_pid, in.next_comm, h->tsc))
			return -1;
		if (in.prev_prio == NSIGHT_CREC_DEFAULT_PRIO && in.next_prio == NSIGHT_CREC_DEFAULT_PRIO &&
		    cenc_packs(in.prev_tid, in.next_tid, in.prev_state)) {
			struct nsight_crec_switch_s c = {
				.hdr = NSIGHT_CREC_HDR(in.flags ? NSIGHT_CREC_SWITCH_S_PREEMPT :
						       NSIGHT_CREC_SWITCH_S, sizeof(c), h->tsc),
				.w = NSIGHT_CREC_PACK(in.prev_tid, in.next_tid, in.prev_state),
			};

			return cenc_put(e, &c, sizeof(c)) ? 0 : -1;
		}
		r.hdr = NSIGHT_CREC_HDR(in.flags ? NSIGHT_CREC_SWITCH_PREEMPT : NSIGHT_CREC_SWITCH,
					sizeof(r), h->tsc);
		r.prev_tid = in.prev_tid;
		r.next_tid = in.next_tid;
		r.prev_state = in.prev_state;
		r.prev_prio = (int16_t)in.prev_prio;
		r.next_prio = (int16_t)in.next_prio;
		return cenc_put(e, &r, sizeof(r)) ? 0 : -1;
	}
	case NSIGHT_REC_WAKING: {
		struct nsight_rec_waking in;
		struct nsight_crec_waking r = { 0 };

		memcpy(&in, p, sizeof(in));
		if (h->size != sizeof(in) || in.pad || in.target_cpu > UINT16_MAX ||
		    !fits_s16(in.prio) || !memchr(in.comm, 0, 16))
			break;
		if (cenc_name(e, in.tid, in.pid, in.comm, h->tsc))
			return -1;
		if (in.prio == NSIGHT_CREC_DEFAULT_PRIO &&
		    cenc_packs(in.tid, in.waker_tid, in.target_cpu)) {
			struct nsight_crec_waking_s c = {
				.hdr = NSIGHT_CREC_HDR(NSIGHT_CREC_WAKING_S, sizeof(c), h->tsc),
				.w = NSIGHT_CREC_PACK(in.tid, in.waker_tid, in.target_cpu),
			};

			return cenc_put(e, &c, sizeof(c)) ? 0 : -1;
		}
		r.hdr = NSIGHT_CREC_HDR(NSIGHT_CREC_WAKING, sizeof(r), h->tsc);
		r.tid = in.tid;
		r.waker_tid = in.waker_tid;
		r.prio = (int16_t)in.prio;
		r.target_cpu = (uint16_t)in.target_cpu;
		return cenc_put(e, &r, sizeof(r)) ? 0 : -1;
	}
	case NSIGHT_REC_PKT_STAGE: {
		struct nsight_rec_pkt_stage in;
		struct nsight_crec_pkt_stage r = { 0 };

		memcpy(&in, p, sizeof(in));
		if (h->size != sizeof(in) || in.stage > 0xf || in.flags > 0xf ||
		    in.gso_segs > UINT8_MAX || in.pad[0] || in.pad[1] || in.pad[2])
			break;
		r.hdr = NSIGHT_CREC_HDR(NSIGHT_CREC_PKT_STAGE, sizeof(r), h->tsc);
		r.pkt_id = in.pkt_id;
		r.ifindex = in.ifindex;
		r.queue = in.queue;
		r.stage_flags = (uint8_t)(in.stage | in.flags << 4);
		r.gso_segs = (uint8_t)in.gso_segs;
		return cenc_put(e, &r, sizeof(r)) ? 0 : -1;
	}
	case NSIGHT_REC_APP_COPY: {
		struct nsight_rec_app_copy in;
		struct nsight_crec_app_copy0 r = { 0 };

		/* Short only when a thread record before it names the task. */
		memcpy(&in, p, sizeof(in));
		if (h->size != sizeof(in) || in.seq || !cenc_named(e, in.tid, in.pid))
			break;
		r.hdr = NSIGHT_CREC_HDR(NSIGHT_CREC_APP_COPY0, sizeof(r), h->tsc);
		r.pkt_id = in.pkt_id;
		r.len = in.len;
		r.tid = in.tid;
		return cenc_put(e, &r, sizeof(r)) ? 0 : -1;
	}
	}
	/* The generic form: the header word, then the fields after hdr. */
	{
		uint64_t w = NSIGHT_CREC_HDR(h->type, h->size - 8u, h->tsc);

		if (h->type > 0xff || h->size - 8u > NSIGHT_CREC_MAX_SIZE ||
		    !cenc_put(e, &w, sizeof(w)) || !cenc_put(e, p + sizeof(*h), h->size - sizeof(*h)))
			return -1;
	}
	return 0;
}

int nsight_crecords_encode(const void *in, size_t len, uint8_t **out, size_t *out_len)
{
	struct nsight_rec_walker w;
	struct nsight_diag d = { 0 };
	struct nsight_rec rec;
	struct cenc *e = calloc(1, sizeof(*e));
	uint32_t cpu = 0;
	int ret;

	if (!e)
		return -1;
	/* The walker checks hdr.cpu against its own: take the first one's. */
	if (len >= sizeof(struct nsight_rec_hdr))
		memcpy(&cpu, (const uint8_t *)in + offsetof(struct nsight_rec_hdr, cpu), sizeof(cpu));
	nsight_rec_walker_init(&w, in, len, cpu, 0);
	while ((ret = nsight_rec_walker_next(&w, &rec, &d)) > 0) {
		if (cenc_record(e, &rec.hdr, rec.data))
			break;
	}
	if (ret != 0) {
		free(e->buf);
		free(e);
		return -1;
	}
	*out = e->buf;
	*out_len = e->len;
	free(e);
	return 0;
}
