// SPDX-License-Identifier: MIT
/*
 * trace.dat -> nsight stream (tracedat.h): libtracecmd reads the file,
 * libtraceevent parses each event's fields, and nsight_tdconv maps them
 * to the records of uapi/linux/nsight.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include <event-parse.h>
#include <event-utils.h>
#include <trace-cmd.h>

#include "format/flow.h"
#include "format/tracedat.h"

bool nsight_tracedat_magic(const void *buf, size_t len)
{
	return len >= NSIGHT_TRACEDAT_MAGIC_LEN &&
	       !memcmp(buf, NSIGHT_TRACEDAT_MAGIC, NSIGHT_TRACEDAT_MAGIC_LEN);
}

#define TD_SOCK	"sk=%di:x64 daddr=+0(%di):u32 saddr=+4(%di):u32 dport=+12(%di):u16 " \
		"sport=+14(%di):u16 family=+16(%di):u16"

const char *const nsight_tracedat_kprobes[] = {
	"p:" NSIGHT_TRACEDAT_KPROBE_GROUP "/handoff sock_def_readable " TD_SOCK,
	"p:" NSIGHT_TRACEDAT_KPROBE_GROUP "/udp_recv udp_recvmsg " TD_SOCK,
	"r:" NSIGHT_TRACEDAT_KPROBE_GROUP "/udp_recv_ret udp_recvmsg ret=$retval:s32",
	"p:" NSIGHT_TRACEDAT_KPROBE_GROUP "/udp_send udp_sendmsg " TD_SOCK
	" len=%dx:u64 to_addr=+4(+0(%si)):u32 to_port=+2(+0(%si)):u16",
	"p:" NSIGHT_TRACEDAT_KPROBE_GROUP "/fault handle_mm_fault address=%si:x64 flags=%dx:u32",
	"r:" NSIGHT_TRACEDAT_KPROBE_GROUP "/fault_ret handle_mm_fault ret=$retval:u32",
	NULL,
};

const char *const nsight_tracedat_events[] = {
	"sched:sched_switch", "sched:sched_waking",
	"irq:irq_handler_entry", "irq:irq_handler_exit", "irq:softirq_entry", "irq:softirq_exit",
	"power:cpu_idle", "workqueue:workqueue_execute_start", "workqueue:workqueue_execute_end",
	"napi:napi_poll", "net:netif_rx", "net:netif_receive_skb", "net:net_dev_queue",
	"net:net_dev_start_xmit", "skb:skb_copy_datagram_iovec", NSIGHT_TRACEDAT_KPROBE_GROUP,
	NULL,
};

static const char *const kind_names[__NSIGHT_TD_KINDS] = {
	[NSIGHT_TD_SWITCH] = "sched_switch",
	[NSIGHT_TD_WAKING] = "sched_waking",
	[NSIGHT_TD_IRQ] = "irq_handler",
	[NSIGHT_TD_SOFTIRQ] = "softirq",
	[NSIGHT_TD_IDLE] = "cpu_idle",
	[NSIGHT_TD_FAULT] = "fault",
	[NSIGHT_TD_WORK] = "workqueue",
	[NSIGHT_TD_NAPI] = "napi_poll",
	[NSIGHT_TD_RX] = "net_rx",
	[NSIGHT_TD_TX] = "net_tx",
	[NSIGHT_TD_COPY] = "skb_copy_datagram_iovec",
	[NSIGHT_TD_HANDOFF] = "handoff",
	[NSIGHT_TD_RECV] = "recv",
	[NSIGHT_TD_SEND] = "send",
};

/* What a missing kind costs, for the report. */
static const char *const kind_missing[__NSIGHT_TD_KINDS] = {
	[NSIGHT_TD_SWITCH] = "no sched_switch events: no program contexts",
	[NSIGHT_TD_RX] = "no netif_receive_skb events: no NIC time n (RX messages lack n)",
	[NSIGHT_TD_HANDOFF] = "no nsight/handoff kprobe (sock_def_readable): no hand-off h",
	[NSIGHT_TD_COPY] = "no skb_copy_datagram_iovec events: receives matched to datagrams by queue order",
	[NSIGHT_TD_RECV] = "no nsight/udp_recv kprobes: no application receive a",
};

const char *nsight_td_kind_name(enum nsight_td_kind k)
{
	return k < __NSIGHT_TD_KINDS ? kind_names[k] : "?";
}

/* ---------------------------------------------------------------------- */
/* Records                                                                  */

/* Records of a CPU are written out once it holds this many bytes. */
#define TD_FLUSH_BYTES	(32U << 20)

static void *cpu_room(struct nsight_tdcpu *c, size_t size)
{
	if (c->len + size > c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 65536;
		uint8_t *p;

		while (cap < c->len + size)
			cap *= 2;
		p = realloc(c->buf, cap);
		if (!p)
			return NULL;
		c->buf = p;
		c->cap = cap;
	}
	return c->buf + c->len;
}

static int put(struct nsight_tdconv *c, uint32_t cpu, void *rec, size_t size, uint16_t type,
	       uint64_t ts, struct nsight_diag *d)
{
	struct nsight_rec_hdr *h = rec;
	struct nsight_tdcpu *tc = &c->cpus[cpu];
	void *p = cpu_room(tc, size);

	if (!p)
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	h->type = type;
	h->size = (uint16_t)size;
	h->cpu = cpu;
	h->tsc = ts;
	memcpy(p, rec, size);
	tc->len += size;
	c->info->records++;
	return 0;
}

static int subbuf(struct nsight_tdconv *c, uint32_t cpu, uint64_t ts, uint64_t dropped,
		  struct nsight_diag *d)
{
	struct nsight_rec_subbuf sb = { .seq = c->cpus[cpu].seq++, .dropped = dropped };

	c->cpus[cpu].started = true;
	return put(c, cpu, &sb, sizeof(sb), NSIGHT_REC_SUBBUF, ts, d);
}

/* The trace clock as a 1 GHz TSC that is CLOCK_MONOTONIC (see tracedat.h). */
static int clock_records(struct nsight_tdconv *c, uint32_t cpu, uint64_t ts, struct nsight_diag *d)
{
	struct nsight_rec_timekeeper tk = { 0 };
	struct nsight_rec_clock_sync cs = { 0 };
	int err;

	tk.mask = UINT64_MAX;
	tk.mult = 1U << 24;
	tk.shift = 24;
	tk.cycle_last = ts;
	tk.base_mono = (int64_t)ts;
	tk.flags = NSIGHT_TK_CS_TSC | NSIGHT_TK_CS_NOW;
	tk.cs_now = ts;
	tk.tsc_cs = ts;
	snprintf(tk.clocksource, sizeof(tk.clocksource), "trace-clock");
	err = put(c, cpu, &tk, sizeof(tk), NSIGHT_REC_TIMEKEEPER, ts, d);
	if (err)
		return err;
	cs.tsc_before = ts;
	cs.tsc_after = ts;
	cs.cs_cycles = ts;
	cs.mono_ns = (int64_t)ts;
	cs.real_ns = (int64_t)ts;
	cs.raw_ns = (int64_t)ts;
	cs.tsc_hz = 1000000000ULL;
	c->clock_written = true;
	return put(c, cpu, &cs, sizeof(cs), NSIGHT_REC_CLOCK_SYNC, ts, d);
}

static int flush_cpu(struct nsight_tdconv *c, uint32_t cpu, struct nsight_diag *d)
{
	struct nsight_tdcpu *tc = &c->cpus[cpu];

	if (!tc->len)
		return 0;
	if (nsight_stream_write_records(&c->w, cpu, tc->buf, tc->len)) {
		*d = c->w.diag;
		return d->code ? -d->code : -NSIGHT_E_IO;
	}
	tc->len = 0;
	tc->rx_pending = -1;	/* its flow can no longer be given */
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Fields                                                                   */

static uint64_t num(const struct nsight_tdev *ev, const char *field, uint64_t dflt)
{
	uint64_t v;

	return ev->num(ev, field, &v) ? dflt : v;
}

static void str(const struct nsight_tdev *ev, const char *field, char *buf, size_t len)
{
	if (ev->str(ev, field, buf, len))
		buf[0] = 0;
	buf[len - 1] = 0;
}

static void comm_of(const struct nsight_tdev *ev, uint32_t pid, char *buf, size_t len)
{
	const char *s = ev->comm ? ev->comm(ev, pid) : NULL;

	snprintf(buf, len, "%s", s ? s : "");
}

/* A nonzero id for an sk_buff or socket address. */
static uint64_t addr_id(uint64_t a)
{
	uint64_t h = nsight_fnv1a(0xcbf29ce484222325ULL, &a, sizeof(a));

	return h ? h : 1;
}

static uint32_t ifindex_of(struct nsight_tdconv *c, const char *name)
{
	uint32_t i;

	if (!name[0])
		return 0;
	for (i = 0; i < c->n_ifnames; i++)
		if (!strncmp(c->ifnames[i], name, sizeof(c->ifnames[i])))
			return i + 1;
	if (c->n_ifnames == sizeof(c->ifnames) / sizeof(c->ifnames[0]))
		return 0;
	snprintf(c->ifnames[c->n_ifnames], sizeof(c->ifnames[0]), "%s", name);
	return ++c->n_ifnames;
}

static struct nsight_tdtask *task_of(struct nsight_tdconv *c, uint32_t tid)
{
	uint32_t *slot;
	bool added;

	slot = nsight_u64map_put(&c->tids, tid, (uint32_t)c->n_tasks, &added);
	if (!slot)
		return NULL;
	if (!added)
		return &c->tasks[*slot];
	if (c->n_tasks == c->cap_tasks) {
		size_t cap = c->cap_tasks ? c->cap_tasks * 2 : 256;
		struct nsight_tdtask *p = realloc(c->tasks, cap * sizeof(*p));

		if (!p)
			return NULL;
		c->tasks = p;
		c->cap_tasks = cap;
	}
	memset(&c->tasks[c->n_tasks], 0, sizeof(c->tasks[0]));
	return &c->tasks[c->n_tasks++];
}

/*
 * The socket of a kprobe event of trace-cmd-args: sk (its address) and the
 * fields of struct sock_common read at fixed offsets (daddr, saddr, dport
 * in network order, sport the local port in host order, family). A socket
 * flow: s the local end, d the peer. False for a family other than
 * AF_INET (counted).
 */
static bool sock_flow(struct nsight_tdconv *c, const struct nsight_tdev *ev, uint8_t proto,
		      uint64_t *sock_id, struct nsight_flow *f)
{
	uint32_t saddr = (uint32_t)num(ev, "saddr", 0), daddr = (uint32_t)num(ev, "daddr", 0);
	uint64_t family = num(ev, "family", AF_INET);

	memset(f, 0, sizeof(*f));
	*sock_id = addr_id(num(ev, "sk", 0));
	if (family != AF_INET) {
		c->info->not_inet++;
		return false;
	}
	/* IPv4-mapped: ::ffff:a.b.c.d, the address bytes as in memory (network order). */
	f->saddr[10] = f->saddr[11] = 0xff;
	f->daddr[10] = f->daddr[11] = 0xff;
	memcpy(&f->saddr[12], &saddr, 4);
	memcpy(&f->daddr[12], &daddr, 4);
	f->sport = (uint16_t)num(ev, "sport", 0);
	f->dport = ntohs((uint16_t)num(ev, "dport", 0));
	f->family = AF_INET;
	f->protocol = proto;
	return true;
}

/* A socket flow turned round: a packet to the socket, from its peer. */
static void flow_to(struct nsight_flow *pkt, const struct nsight_flow *sock)
{
	*pkt = *sock;
	memcpy(pkt->saddr, sock->daddr, 16);
	memcpy(pkt->daddr, sock->saddr, 16);
	pkt->sport = sock->dport;
	pkt->dport = sock->sport;
}

static uint8_t proto_of(const char *name)
{
	return strstr(name, "tcp") ? IPPROTO_TCP : IPPROTO_UDP;
}

/* ---------------------------------------------------------------------- */
/* Events                                                                   */

static int ev_switch(struct nsight_tdconv *c, const struct nsight_tdev *ev, struct nsight_diag *d)
{
	struct nsight_rec_sched_switch r = { 0 };
	uint64_t state = num(ev, "prev_state", 0);

	r.prev_tid = r.prev_pid = (uint32_t)num(ev, "prev_pid", 0);
	r.next_tid = r.next_pid = (uint32_t)num(ev, "next_pid", 0);
	r.prev_prio = (int32_t)num(ev, "prev_prio", 120);
	r.next_prio = (int32_t)num(ev, "next_prio", 120);
	/* The tracepoint's TASK_REPORT_MAX bit (0x100 since 4.14): preempted. */
	if (!state || (state & 0x100)) {
		r.flags = NSIGHT_SWITCH_PREEMPT;
		state = 0;
	}
	r.prev_state = (uint32_t)state;
	str(ev, "prev_comm", r.prev_comm, sizeof(r.prev_comm));
	str(ev, "next_comm", r.next_comm, sizeof(r.next_comm));
	return put(c, ev->cpu, &r, sizeof(r), NSIGHT_REC_SCHED_SWITCH, ev->ts, d);
}

static int ev_waking(struct nsight_tdconv *c, const struct nsight_tdev *ev, struct nsight_diag *d)
{
	struct nsight_rec_waking r = { 0 };

	r.tid = r.pid = (uint32_t)num(ev, "pid", 0);
	r.prio = (int32_t)num(ev, "prio", 120);
	r.target_cpu = (uint32_t)num(ev, "target_cpu", ev->cpu);
	r.waker_tid = ev->in_irq ? 0 : ev->pid;
	str(ev, "comm", r.comm, sizeof(r.comm));
	return put(c, ev->cpu, &r, sizeof(r), NSIGHT_REC_WAKING, ev->ts, d);
}

static int ev_pkt(struct nsight_tdconv *c, const struct nsight_tdev *ev, uint8_t stage,
		  struct nsight_diag *d)
{
	struct nsight_rec_pkt r = { 0 };
	uint64_t skb = num(ev, "skbaddr", 0);
	char dev[16];
	uint32_t *slot;
	int err;

	str(ev, "name", dev, sizeof(dev));
	r.pkt_id = addr_id(skb);
	r.payload_len = (uint32_t)num(ev, "len", 0);
	r.ifindex = ifindex_of(c, dev);
	r.stage = stage;
	r.flow.family = AF_INET;
	r.flow.protocol = IPPROTO_UDP;
	slot = nsight_u64map_get(&c->skbs, skb);
	if (stage == NSIGHT_PKT_TX_QUEUE) {
		struct nsight_tdtask *t = task_of(c, ev->pid);
		bool added;

		if (!t)
			return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
		/*
		 * Queued by a thread that is sending: the send's datagram,
		 * unless too short to hold its payload under UDP and IPv4
		 * headers (the ARP request a first datagram waits for).
		 */
		if (t->send_ts && !ev->in_irq && r.payload_len >= t->send_len + 28) {
			struct nsight_tdskb *s = &c->skb_ring[c->skb_next];

			if (s->skb && nsight_u64map_get(&c->skbs, s->skb))
				*nsight_u64map_get(&c->skbs, s->skb) = UINT32_MAX;
			s->skb = skb;
			s->flow = t->send_flow;
			s->have_flow = true;
			slot = nsight_u64map_put(&c->skbs, skb, c->skb_next, &added);
			if (!slot)
				return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
			*slot = c->skb_next;
			c->skb_next = (c->skb_next + 1) % NSIGHT_TD_SKBS;
			t->send_ts = 0;
		} else if (slot) {
			*slot = UINT32_MAX;
		}
	}
	/* A socket's flow is local -> peer, as the packet it sends goes. */
	if (slot && *slot != UINT32_MAX && c->skb_ring[*slot].skb == skb &&
	    c->skb_ring[*slot].have_flow)
		r.flow = c->skb_ring[*slot].flow;
	if (stage == NSIGHT_PKT_RX_RECEIVE) {
		struct nsight_tdcpu *tc = &c->cpus[ev->cpu];

		tc->rx_pending = (int64_t)tc->len;
		tc->rx_pending_skb = skb;
	}
	err = put(c, ev->cpu, &r, sizeof(r), NSIGHT_REC_PKT, ev->ts, d);
	return err;
}

static int ev_handoff(struct nsight_tdconv *c, const struct nsight_tdev *ev, struct nsight_diag *d)
{
	struct nsight_tdcpu *tc = &c->cpus[ev->cpu];
	struct nsight_rec_handoff r = { 0 };
	uint64_t sock;

	if (!sock_flow(c, ev, proto_of(ev->name), &sock, &r.flow))
		return 0;
	r.sock_id = sock;
	/*
	 * The datagram made readable: the packet this CPU received last, when
	 * no hand-off took it yet (the receive and the hand-off run in one
	 * call chain).
	 */
	if (tc->rx_pending >= 0) {
		struct nsight_rec_pkt p;
		uint32_t *slot = nsight_u64map_get(&c->skbs, tc->rx_pending_skb);

		memcpy(&p, tc->buf + tc->rx_pending, sizeof(p));
		r.pkt_id = p.pkt_id;
		if (!(slot && *slot != UINT32_MAX && c->skb_ring[*slot].skb == tc->rx_pending_skb &&
		      c->skb_ring[*slot].have_flow)) {
			/* The sender is unknown: from the peer if connected, else 0. */
			flow_to(&p.flow, &r.flow);
		} else {
			/*
			 * The sender's flow, where its socket knew it; the
			 * rest from this socket (bound to the wildcard, the
			 * sender knew better; connected, its peer is the
			 * source).
			 */
			if (!p.flow.dport)
				p.flow.dport = r.flow.sport;
			if (nsight_addr_unspecified(p.flow.daddr))
				memcpy(p.flow.daddr, r.flow.saddr, 16);
			if (nsight_addr_unspecified(p.flow.saddr))
				memcpy(p.flow.saddr, r.flow.daddr, 16);
		}
		p.flow.protocol = r.flow.protocol;
		memcpy(tc->buf + tc->rx_pending, &p, sizeof(p));
		tc->rx_pending = -1;
	}
	r.rcvq_len = 1;
	return put(c, ev->cpu, &r, sizeof(r), NSIGHT_REC_HANDOFF, ev->ts, d);
}

static int ev_copy(struct nsight_tdconv *c, const struct nsight_tdev *ev, struct nsight_diag *d)
{
	struct nsight_rec_app_copy r = { 0 };

	r.pkt_id = addr_id(num(ev, "skbaddr", 0));
	r.len = (uint32_t)num(ev, "len", 0);
	r.tid = r.pid = ev->pid;
	return put(c, ev->cpu, &r, sizeof(r), NSIGHT_REC_APP_COPY, ev->ts, d);
}

static int ev_recv(struct nsight_tdconv *c, const struct nsight_tdev *ev, bool ret,
		   struct nsight_diag *d)
{
	struct nsight_tdtask *t = task_of(c, ev->pid);
	struct nsight_rec_app r = { 0 };

	if (!t)
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	if (!ret) {
		if (!sock_flow(c, ev, proto_of(ev->name), &t->recv_sock, &t->recv_flow)) {
			t->recv_ts = 0;
			return 0;
		}
		t->recv_ts = ev->ts;
		t->recv_cpu = ev->cpu;
		return 0;
	}
	if (!t->recv_ts) {
		c->info->recv_unpaired++;
		return 0;
	}
	r.sock_id = t->recv_sock;
	r.flow = t->recv_flow;
	r.start_tsc = t->recv_ts;
	r.ret = (int64_t)num(ev, "ret", 0);
	r.tid = r.pid = ev->pid;
	comm_of(ev, ev->pid, r.comm, sizeof(r.comm));
	t->recv_ts = 0;
	return put(c, ev->cpu, &r, sizeof(r), NSIGHT_REC_APP_RECV, ev->ts, d);
}

static int ev_send(struct nsight_tdconv *c, const struct nsight_tdev *ev, struct nsight_diag *d)
{
	struct nsight_tdtask *t = task_of(c, ev->pid);
	struct nsight_rec_app r = { 0 };

	if (!t)
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	uint64_t sock;

	if (!sock_flow(c, ev, proto_of(ev->name), &sock, &r.flow))
		return 0;
	r.sock_id = sock;
	/* An unconnected socket: the destination of sendto(), when read. */
	if (!r.flow.dport && num(ev, "to_port", 0)) {
		uint32_t a = (uint32_t)num(ev, "to_addr", 0);

		memcpy(&r.flow.daddr[12], &a, 4);
		r.flow.dport = ntohs((uint16_t)num(ev, "to_port", 0));
	}
	r.start_tsc = ev->ts;
	r.ret = (int64_t)num(ev, "len", 0);
	r.tid = r.pid = ev->pid;
	comm_of(ev, ev->pid, r.comm, sizeof(r.comm));
	t->send_ts = ev->ts;
	t->send_len = (uint64_t)r.ret;
	/* A packet's flow: sender s, receiver d; the socket's local end sends. */
	t->send_flow = r.flow;
	return put(c, ev->cpu, &r, sizeof(r), NSIGHT_REC_APP_SEND, ev->ts, d);
}

static int ev_fault(struct nsight_tdconv *c, const struct nsight_tdev *ev, bool ret,
		    struct nsight_diag *d)
{
	struct nsight_tdtask *t = task_of(c, ev->pid);
	struct nsight_rec_fault r = { 0 };

	if (!t)
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	if (!ret) {
		uint64_t flags = num(ev, "flags", 0);

		t->fault_ts = ev->ts;
		t->fault_addr = num(ev, "address", 0);
		/* FAULT_FLAG_WRITE 0x1, FAULT_FLAG_USER 0x40 (include/linux/mm_types.h) */
		t->fault_flags = ((flags & 0x1) ? NSIGHT_FAULT_WRITE : 0) |
				 ((flags & 0x40) ? NSIGHT_FAULT_USER : NSIGHT_FAULT_KERNEL_ADDR);
		return 0;
	}
	if (!t->fault_ts)
		return 0;
	r.start_tsc = t->fault_ts;
	r.flags = t->fault_flags;
	r.address = (r.flags & NSIGHT_FAULT_USER) ? t->fault_addr : 0;
	r.ret = (uint32_t)num(ev, "ret", 0);
	r.tid = r.pid = ev->pid;
	t->fault_ts = 0;
	return put(c, ev->cpu, &r, sizeof(r), NSIGHT_REC_FAULT, ev->ts, d);
}

static int ev_ctx(struct nsight_tdconv *c, const struct nsight_tdev *ev, enum nsight_td_kind k,
		  bool entry, struct nsight_diag *d)
{
	switch (k) {
	case NSIGHT_TD_IRQ: {
		struct nsight_rec_irq r = { 0 };

		r.irq = (uint32_t)num(ev, "irq", 0);
		r.flags = entry ? NSIGHT_CTX_ENTRY : (num(ev, "ret", 0) ? NSIGHT_IRQ_HANDLED : 0);
		if (entry)
			str(ev, "name", r.name, sizeof(r.name));
		return put(c, ev->cpu, &r, sizeof(r), NSIGHT_REC_IRQ, ev->ts, d);
	}
	case NSIGHT_TD_SOFTIRQ: {
		struct nsight_rec_softirq r = { 0 };

		r.vec = (uint32_t)num(ev, "vec", 0);
		r.flags = entry ? NSIGHT_CTX_ENTRY : 0;
		return put(c, ev->cpu, &r, sizeof(r), NSIGHT_REC_SOFTIRQ, ev->ts, d);
	}
	case NSIGHT_TD_IDLE: {
		struct nsight_rec_idle r = { 0 };
		uint64_t state = num(ev, "state", 0);

		/* PWR_EVENT_EXIT ((u32)-1) leaves idle. */
		r.state = (uint32_t)state == UINT32_MAX ? 0 : (uint32_t)state;
		r.flags = (uint32_t)state == UINT32_MAX ? 0 : NSIGHT_CTX_ENTRY;
		return put(c, ev->cpu, &r, sizeof(r), NSIGHT_REC_IDLE, ev->ts, d);
	}
	case NSIGHT_TD_WORK: {
		struct nsight_rec_work r = { 0 };
		uint64_t fn = num(ev, "function", 0);
		const char *sym = ev->func ? ev->func(ev, fn) : NULL;

		r.flags = entry ? NSIGHT_CTX_ENTRY : 0;
		if (sym)
			snprintf(r.func, sizeof(r.func), "%s", sym);
		else
			snprintf(r.func, sizeof(r.func), "0x%llx", (unsigned long long)fn);
		return put(c, ev->cpu, &r, sizeof(r), NSIGHT_REC_WORK, ev->ts, d);
	}
	case NSIGHT_TD_NAPI: {
		struct nsight_rec_napi_poll r = { 0 };
		char dev[16];
		uint64_t work = num(ev, "work", 0), budget = num(ev, "budget", 0);

		str(ev, "dev_name", dev, sizeof(dev));
		r.ifindex = ifindex_of(c, dev);
		r.work = (uint16_t)(work > 65535 ? 65535 : work);
		r.budget = (uint16_t)(budget > 65535 ? 65535 : budget);
		return put(c, ev->cpu, &r, sizeof(r), NSIGHT_REC_NAPI_POLL, ev->ts, d);
	}
	default:
		return 0;
	}
}

/* The kind of an event and whether it starts an interval, -1 for none. */
static int kind_of(const struct nsight_tdev *ev, bool *entry, bool *ret)
{
	static const struct { const char *sys, *name; int kind; bool entry, ret; } map[] = {
		{ "sched", "sched_switch", NSIGHT_TD_SWITCH, false, false },
		{ "sched", "sched_waking", NSIGHT_TD_WAKING, false, false },
		{ "irq", "irq_handler_entry", NSIGHT_TD_IRQ, true, false },
		{ "irq", "irq_handler_exit", NSIGHT_TD_IRQ, false, false },
		{ "irq", "softirq_entry", NSIGHT_TD_SOFTIRQ, true, false },
		{ "irq", "softirq_exit", NSIGHT_TD_SOFTIRQ, false, false },
		{ "power", "cpu_idle", NSIGHT_TD_IDLE, false, false },
		{ "workqueue", "workqueue_execute_start", NSIGHT_TD_WORK, true, false },
		{ "workqueue", "workqueue_execute_end", NSIGHT_TD_WORK, false, false },
		{ "napi", "napi_poll", NSIGHT_TD_NAPI, false, false },
		{ "net", "netif_rx", NSIGHT_TD_RX, true, false },
		{ "net", "netif_receive_skb", NSIGHT_TD_RX, false, false },
		{ "net", "net_dev_queue", NSIGHT_TD_TX, true, false },
		{ "net", "net_dev_start_xmit", NSIGHT_TD_TX, false, false },
		{ "skb", "skb_copy_datagram_iovec", NSIGHT_TD_COPY, false, false },
		{ NSIGHT_TRACEDAT_KPROBE_GROUP, "handoff", NSIGHT_TD_HANDOFF, false, false },
		{ NSIGHT_TRACEDAT_KPROBE_GROUP, "udp_recv", NSIGHT_TD_RECV, true, false },
		{ NSIGHT_TRACEDAT_KPROBE_GROUP, "udp_recv_ret", NSIGHT_TD_RECV, false, true },
		{ NSIGHT_TRACEDAT_KPROBE_GROUP, "udp_send", NSIGHT_TD_SEND, false, false },
		{ NSIGHT_TRACEDAT_KPROBE_GROUP, "fault", NSIGHT_TD_FAULT, true, false },
		{ NSIGHT_TRACEDAT_KPROBE_GROUP, "fault_ret", NSIGHT_TD_FAULT, false, true },
	};
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(ev->name, map[i].name) && ev->system && !strcmp(ev->system, map[i].sys)) {
			*entry = map[i].entry;
			*ret = map[i].ret;
			return map[i].kind;
		}
	return -1;
}

int nsight_tdconv_event(struct nsight_tdconv *c, const struct nsight_tdev *ev,
			struct nsight_diag *d)
{
	struct nsight_tdcpu *tc;
	bool entry = false, ret = false;
	int kind, err;

	if (ev->cpu >= c->nr_cpus)
		return nsight_diag_set(d, NSIGHT_E_RECORD, "event on CPU %u of %u", ev->cpu,
				       c->nr_cpus);
	tc = &c->cpus[ev->cpu];
	c->info->events++;
	if (!c->info->first_ts || ev->ts < c->info->first_ts)
		c->info->first_ts = ev->ts;
	if (ev->ts > c->info->last_ts)
		c->info->last_ts = ev->ts;
	if (ev->missed) {
		c->info->missed += ev->missed;
		if (tc->started && (err = subbuf(c, ev->cpu, ev->ts, ev->missed, d)))
			return err;
	}
	kind = kind_of(ev, &entry, &ret);
	if (kind < 0) {
		c->info->unmapped++;
		return 0;
	}
	c->info->kinds[kind]++;
	c->info->mapped++;
	if (!tc->started && (err = subbuf(c, ev->cpu, ev->ts, 0, d)))
		return err;
	if (!c->clock_written && (err = clock_records(c, ev->cpu, ev->ts, d)))
		return err;
	switch (kind) {
	case NSIGHT_TD_SWITCH:
		err = ev_switch(c, ev, d);
		break;
	case NSIGHT_TD_WAKING:
		err = ev_waking(c, ev, d);
		break;
	case NSIGHT_TD_RX:
		err = ev_pkt(c, ev, entry ? NSIGHT_PKT_RX_NETIF_RX : NSIGHT_PKT_RX_RECEIVE, d);
		break;
	case NSIGHT_TD_TX:
		err = ev_pkt(c, ev, entry ? NSIGHT_PKT_TX_QUEUE : NSIGHT_PKT_TX_XMIT, d);
		break;
	case NSIGHT_TD_COPY:
		err = ev_copy(c, ev, d);
		break;
	case NSIGHT_TD_HANDOFF:
		err = ev_handoff(c, ev, d);
		break;
	case NSIGHT_TD_RECV:
		err = ev_recv(c, ev, ret, d);
		break;
	case NSIGHT_TD_SEND:
		err = ev_send(c, ev, d);
		break;
	case NSIGHT_TD_FAULT:
		err = ev_fault(c, ev, ret, d);
		break;
	default:
		err = ev_ctx(c, ev, (enum nsight_td_kind)kind, entry, d);
		break;
	}
	if (err)
		return err;
	if (tc->len >= c->flush_at)
		return flush_cpu(c, ev->cpu, d);
	return 0;
}

int nsight_tdconv_init(struct nsight_tdconv *c, FILE *out, uint32_t nr_cpus, const char *release,
		       struct nsight_tracedat_info *info, struct nsight_diag *d)
{
	struct nsight_stream_hdr h = { .tsc_hz = 1000000000ULL, .nr_cpus = nr_cpus };
	uint32_t i;

	memset(c, 0, sizeof(*c));
	nsight_u64map_init(&c->tids);
	nsight_u64map_init(&c->skbs);
	c->info = info;
	c->flush_at = TD_FLUSH_BYTES;
	if (!nr_cpus || nr_cpus > NSIGHT_STREAM_MAX_CPUS)
		return nsight_diag_set(d, NSIGHT_E_FORMAT, "%u CPUs", nr_cpus);
	c->nr_cpus = nr_cpus;
	c->cpus = calloc(nr_cpus, sizeof(*c->cpus));
	c->skb_ring = calloc(NSIGHT_TD_SKBS, sizeof(*c->skb_ring));
	if (!c->cpus || !c->skb_ring)
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	for (i = 0; i < nr_cpus; i++)
		c->cpus[i].rx_pending = -1;
	info->nr_cpus = nr_cpus;
	snprintf(h.release, sizeof(h.release), "%s", release ? release : "");
	/* The sources a trace-cmd capture can stand in for. */
	h.sources = (1U << NSIGHT_SRC_SCHED_SWITCH) | (1U << NSIGHT_SRC_SCHED_WAKING) |
		    (1U << NSIGHT_SRC_IRQ) | (1U << NSIGHT_SRC_SOFTIRQ) | (1U << NSIGHT_SRC_CLOCK);
	nsight_stream_writer_init_file(&c->w, out);
	if (nsight_stream_write_header(&c->w, &h)) {
		*d = c->w.diag;
		return d->code ? -d->code : -NSIGHT_E_IO;
	}
	return 0;
}

int nsight_tdconv_finish(struct nsight_tdconv *c, struct nsight_diag *d)
{
	uint32_t i;
	int err;

	for (i = 0; i < c->nr_cpus; i++)
		if ((err = flush_cpu(c, i, d)))
			return err;
	if (nsight_stream_write_end(&c->w)) {
		*d = c->w.diag;
		return d->code ? -d->code : -NSIGHT_E_IO;
	}
	return 0;
}

void nsight_tdconv_fini(struct nsight_tdconv *c)
{
	uint32_t i;

	for (i = 0; c->cpus && i < c->nr_cpus; i++)
		free(c->cpus[i].buf);
	free(c->cpus);
	free(c->tasks);
	free(c->skb_ring);
	nsight_u64map_fini(&c->tids);
	nsight_u64map_fini(&c->skbs);
	memset(c, 0, sizeof(*c));
}

void nsight_tracedat_missing(const struct nsight_tracedat_info *info, char *buf, size_t len)
{
	static const enum nsight_td_kind need[] = {
		NSIGHT_TD_SWITCH, NSIGHT_TD_RX, NSIGHT_TD_HANDOFF, NSIGHT_TD_COPY, NSIGHT_TD_RECV,
	};
	size_t i, off;

	off = (size_t)snprintf(buf, len, "no packet identity across clones (a packet is its "
			       "sk_buff), no TCP sequence numbers (TCP receives are not matched), "
			       "no NIC timestamps, IPv4 only, realtime taken as the trace clock");
	for (i = 0; i < sizeof(need) / sizeof(need[0]) && off < len; i++)
		if (!info->kinds[need[i]])
			off += (size_t)snprintf(buf + off, len - off, "; %s", kind_missing[need[i]]);
	if (off < len && info->missed_unknown)
		snprintf(buf + off, len - off, "; %llu losses of unknown size",
			 (unsigned long long)info->missed_unknown);
}

/* ---------------------------------------------------------------------- */
/* trace.dat through libtracecmd                                            */

/* The last message libtracecmd or libtraceevent gave (see tep_vprint()). */
static __thread char td_msg[256];
static __thread bool td_quiet;

/*
 * libtraceevent's printer is weak so that a program can take the messages
 * of both libraries: keep the last one for the error nsight-analyze gives,
 * print nothing while a file is read here.
 */
int tep_vprint(const char *name, enum tep_loglevel level, bool print_err, const char *fmt,
	       va_list ap)
{
	if (!td_quiet)
		return __tep_vprint(name, level, print_err, fmt, ap);
	if (level <= TEP_LOG_WARNING) {
		char *c;

		vsnprintf(td_msg, sizeof(td_msg), fmt, ap);
		td_msg[strcspn(td_msg, "\n")] = 0;
		/* It may quote the damaged bytes (a compression name). */
		for (c = td_msg; *c; c++)
			if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
				*c = '?';
	}
	return 0;
}

struct td_walk {
	struct nsight_tdconv conv;
	struct tep_handle *tep;
	struct tep_record *rec;
	struct tep_event *event;
	struct nsight_diag *d;
	const char *name;
	int err;
	char fbuf[256];
};

static int td_num(const struct nsight_tdev *ev, const char *field, uint64_t *v)
{
	struct td_walk *w = ev->priv;
	struct tep_format_field *f = tep_find_field(w->event, field);
	unsigned long long val;

	if (!f || (f->flags & (TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_ARRAY)) ||
	    f->offset + f->size > w->rec->size ||
	    tep_read_number_field(f, w->rec->data, &val))
		return -1;
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8 && f->size > 0) {
		unsigned int bits = (unsigned int)f->size * 8;

		if (val & (1ULL << (bits - 1)))
			val |= ~0ULL << bits;
	}
	*v = val;
	return 0;
}

static int td_str(const struct nsight_tdev *ev, const char *field, char *buf, size_t len)
{
	struct td_walk *w = ev->priv;
	struct tep_format_field *f = tep_find_field(w->event, field);
	unsigned int off, size;

	if (!f || !len)
		return -1;
	off = (unsigned int)f->offset;
	size = (unsigned int)f->size;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		unsigned long long v;

		if (f->offset + f->size > w->rec->size ||
		    tep_read_number_field(f, w->rec->data, &v))
			return -1;
		off = (unsigned int)(v & 0xffff);
		size = (unsigned int)(v >> 16);
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += (unsigned int)(f->offset + f->size);
	}
	if ((uint64_t)off + size > (uint64_t)w->rec->size)
		return -1;
	if (size >= len)
		size = (unsigned int)len - 1;
	memcpy(buf, (const char *)w->rec->data + off, size);
	buf[size] = 0;
	return 0;
}

static const char *td_comm(const struct nsight_tdev *ev, uint32_t pid)
{
	struct td_walk *w = ev->priv;
	const char *s = tep_data_comm_from_pid(w->tep, (int)pid);

	return s && strcmp(s, "<...>") ? s : NULL;
}

static const char *td_func(const struct nsight_tdev *ev, uint64_t addr)
{
	struct td_walk *w = ev->priv;

	return tep_find_function(w->tep, addr);
}

static int td_event(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *arg)
{
	struct td_walk *w = arg;
	struct nsight_tdev ev = {
		.num = td_num, .str = td_str, .comm = td_comm, .func = td_func, .priv = w,
	};
	int flags;

	(void)h;
	w->rec = rec;
	w->event = tep_find_event_by_record(w->tep, rec);
	if (!w->event) {
		/* An event the file's formats do not describe: the file is damaged. */
		w->err = nsight_diag_set(w->d, NSIGHT_E_RECORD,
					 "%s: byte %llu: event of CPU %d with no format (a damaged trace.dat?)",
					 w->name, (unsigned long long)rec->offset, cpu);
		return -1;
	}
	ev.system = w->event->system;
	ev.name = w->event->name;
	ev.cpu = (uint32_t)cpu;
	ev.ts = rec->ts;
	ev.pid = (uint32_t)tep_data_pid(w->tep, rec);
	flags = tep_data_flags(w->tep, rec);
	ev.in_irq = flags >= 0 && (flags & (TRACE_FLAG_HARDIRQ | TRACE_FLAG_SOFTIRQ));
	if (rec->missed_events > 0)
		ev.missed = (uint64_t)rec->missed_events;
	else if (rec->missed_events < 0) {
		ev.missed = 1;
		w->conv.info->missed_unknown++;
	}
	w->err = nsight_tdconv_event(&w->conv, &ev, w->d);
	if (w->err) {
		char msg[NSIGHT_DIAG_LEN];

		snprintf(msg, sizeof(msg), "%s", w->d->msg);
		nsight_diag_set(w->d, -w->err, "%s: byte %llu: %s", w->name,
				(unsigned long long)rec->offset, msg);
		return -1;
	}
	return 0;
}

/*
 * The trace.dat header as far as it can be checked without libtracecmd:
 * magic, version, endianness, long size, page size. Returns 0, or an error
 * naming the byte.
 */
static int check_head(const char *name, int fd, struct nsight_diag *d)
{
	uint8_t b[64];
	ssize_t n = pread(fd, b, sizeof(b), 0);
	size_t v, vlen;
	unsigned long ver;

	if (n < 0)
		return nsight_diag_set(d, NSIGHT_E_IO, "%s: %s", name, strerror(errno));
	if (!nsight_tracedat_magic(b, (size_t)n))
		return nsight_diag_set(d, NSIGHT_E_FORMAT, "%s: byte 0: not a trace.dat (magic)",
				       name);
	v = NSIGHT_TRACEDAT_MAGIC_LEN;
	for (vlen = 0; v + vlen < (size_t)n && b[v + vlen]; vlen++)
		if (b[v + vlen] < '0' || b[v + vlen] > '9')
			return nsight_diag_set(d, NSIGHT_E_FORMAT,
					       "%s: byte %zu: bad version string", name, v + vlen);
	if (v + vlen >= (size_t)n || !vlen)
		return nsight_diag_set(d, NSIGHT_E_TRUNCATED, "%s: byte %zu: file ends in its header",
				       name, (size_t)n);
	ver = strtoul((const char *)b + v, NULL, 10);
	if (ver < 6 || ver > 7)
		return nsight_diag_set(d, NSIGHT_E_FORMAT,
				       "%s: byte %zu: trace.dat version %lu (6 and 7 are read)",
				       name, v, ver);
	v += vlen + 1;
	if (v + 6 > (size_t)n)
		return nsight_diag_set(d, NSIGHT_E_TRUNCATED, "%s: byte %zu: file ends in its header",
				       name, (size_t)n);
	if (b[v] != 0)
		return nsight_diag_set(d, NSIGHT_E_FORMAT,
				       "%s: byte %zu: a big-endian trace (only little-endian is read)",
				       name, v);
	if (b[v + 1] != 8)
		return nsight_diag_set(d, NSIGHT_E_FORMAT,
				       "%s: byte %zu: longs of %u bytes (a 64-bit kernel's are read)",
				       name, v + 1, b[v + 1]);
	return 0;
}

/* The buffer with the data: the top one, or else the first instance that has events. */
static struct tracecmd_input *pick_buffer(struct tracecmd_input *top, char *bname, size_t blen)
{
	struct tep_record *r;
	int i, n, cpu, cpus;

	bname[0] = 0;
	cpus = tep_get_cpus(tracecmd_get_tep(top));
	for (cpu = 0; cpu < cpus; cpu++) {
		r = tracecmd_read_cpu_first(top, cpu);
		if (r) {
			tracecmd_free_record(r);
			return top;
		}
	}
	n = tracecmd_buffer_instances(top);
	for (i = 0; i < n; i++) {
		struct tracecmd_input *h = tracecmd_buffer_instance_handle(top, i);

		if (!h)
			continue;
		cpus = tep_get_cpus(tracecmd_get_tep(h));
		for (cpu = 0; cpu < cpus; cpu++) {
			r = tracecmd_read_cpu_first(h, cpu);
			if (r) {
				const char *s = tracecmd_buffer_instance_name(top, i);

				tracecmd_free_record(r);
				snprintf(bname, blen, "%s", s ? s : "?");
				return h;
			}
		}
		tracecmd_close(h);
	}
	return top;
}

int nsight_tracedat_convert(const char *name, int fd, FILE *out,
			    struct nsight_tracedat_info *info, struct nsight_diag *d)
{
	struct tracecmd_input *top, *h;
	struct td_walk *w;
	int err, cpus;

	memset(info, 0, sizeof(*info));
	err = check_head(name, fd, d);
	if (err)
		return err;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return nsight_diag_set(d, NSIGHT_E_IO, "%s: %s", name, strerror(errno));
	td_quiet = true;
	td_msg[0] = 0;
	tracecmd_set_loglevel(TEP_LOG_WARNING);
	top = tracecmd_open_fd(dup(fd), TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!top) {
		/*
		 * libtracecmd reads the sections after the header through a
		 * dup of fd, which shares its offset, with read()s of exact
		 * sizes and lseek()s over what it skips: the offset is where
		 * it was to read next. Past the end, the file was cut.
		 */
		off_t at = lseek(fd, 0, SEEK_CUR);
		off_t size = lseek(fd, 0, SEEK_END);

		td_quiet = false;
		if (at > size)
			return nsight_diag_set(d, NSIGHT_E_TRUNCATED,
					       "%s: byte %lld: the file ends before byte %lld, where "
					       "libtracecmd reads next%s%s", name, (long long)size,
					       (long long)at, td_msg[0] ? ": " : "", td_msg);
		return nsight_diag_set(d, NSIGHT_E_FORMAT,
				       "%s: byte %lld: libtracecmd cannot read the file from here "
				       "(%lld bytes in all)%s%s", name, (long long)at, (long long)size,
				       td_msg[0] ? ": " : "", td_msg);
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		tracecmd_close(top);
		td_quiet = false;
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	}
	h = pick_buffer(top, info->buffer, sizeof(info->buffer));
	w->tep = tracecmd_get_tep(h);
	w->d = d;
	w->name = name;
	cpus = tep_get_cpus(w->tep);
	err = nsight_tdconv_init(&w->conv, out, cpus > 0 ? (uint32_t)cpus : 0, NULL, info, d);
	if (err) {
		char msg[NSIGHT_DIAG_LEN];

		snprintf(msg, sizeof(msg), "%s", d->msg);
		nsight_diag_set(d, -err, "%s: %s", name, msg);
	}
	if (!err && tracecmd_iterate_events(h, NULL, 0, td_event, w) < 0 && !w->err)
		w->err = nsight_diag_set(d, NSIGHT_E_FORMAT, "%s: reading its events failed%s%s",
					 name, td_msg[0] ? ": " : "", td_msg);
	if (!err)
		err = w->err;
	if (!err)
		err = nsight_tdconv_finish(&w->conv, d);
	nsight_tdconv_fini(&w->conv);
	if (h != top)
		tracecmd_close(h);
	tracecmd_close(top);
	free(w);
	td_quiet = false;
	return err;
}
