// SPDX-License-Identifier: MIT
/* Lifetimes: the messages, their timing and reasons, their order and ids. */
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lifetime/lifetime_int.h"
#include "base/satmath.h"
#include "base/sort.h"
#include "base/vec.h"

int nsight_lt_nomem(struct lt_build *b)
{
	return nsight_diag_set(b->d, NSIGHT_E_NOMEM, "out of memory");
}

struct nsight_msg *nsight_lt_new_msg(struct lt_build *b, uint8_t dir, uint8_t proto,
				     uint32_t *idx)
{
	struct nsight_lifetimes *lt = b->lt;
	struct nsight_msg *m;

	if (lt->n >= NONE)
		return NULL;	/* positions are 32-bit */
	if (NSIGHT_VEC_GROW(lt->msgs, lt->n, lt->cap))
		return NULL;
	*idx = (uint32_t)lt->n;
	m = &lt->msgs[lt->n++];
	memset(m, 0, sizeof(*m));
	m->dir = dir;
	m->protocol = proto;
	m->tsc_lo = UINT64_MAX;
	return m;
}

void nsight_lt_touch(struct nsight_msg *m, uint64_t tsc, uint32_t cpu, bool ooo)
{
	uint8_t i;

	if (tsc < m->tsc_lo)
		m->tsc_lo = tsc;
	if (tsc > m->tsc_hi)
		m->tsc_hi = tsc;
	m->ooo |= ooo;
	for (i = 0; i < m->n_cpus; i++)
		if (m->cpus[i] == cpu)
			return;
	if (m->n_cpus < sizeof(m->cpus) / sizeof(m->cpus[0]))
		m->cpus[m->n_cpus++] = cpu;
}

void nsight_lt_stage(struct nsight_msg *m, unsigned int stage, uint64_t tsc, uint32_t cpu,
		     bool ooo)
{
	m->t[stage].valid = true;
	m->t[stage].tsc = tsc;
	m->t[stage].cpu = cpu;
	nsight_lt_touch(m, tsc, cpu, ooo);
}

void nsight_lt_hold(struct lt_build *b, struct nsight_msg *m, uint8_t why, uint64_t from,
		    uint64_t to)
{
	m->hold = why;
	m->hold_from = from;
	m->hold_to = to;
	m->hold_ns = nsight_lt_ticks_ns(b, to - from);
}

void nsight_lt_app(struct nsight_msg *m, const struct nsight_rec_app *a)
{
	memcpy(m->comm, a->comm, sizeof(m->comm));
	m->comm[sizeof(m->comm) - 1] = '\0';
	m->pid = a->pid;
	m->tid = a->tid;
	m->sock_id = a->sock_id;
}

/* ---------------------------------------------------------------------- */
/* Timing, reasons, order                                                   */

/* The stage a message lacks, or NSIGHT_MSG_COMPLETE. */
static enum nsight_msg_reason missing_stage(const struct nsight_msg *m)
{
	if (m->dir == NSIGHT_MSG_RX) {
		if (!m->t[NSIGHT_RX_N].valid)
			return NSIGHT_MSG_NO_NIC;
		if (!m->t[NSIGHT_RX_H].valid)
			return NSIGHT_MSG_NO_HANDOFF;
		if (!m->t[NSIGHT_RX_A].valid)
			return NSIGHT_MSG_NO_APP_RECV;
	} else {
		if (!m->t[NSIGHT_TX_QUEUE].valid)
			return NSIGHT_MSG_NO_QUEUE;
		if (!m->t[NSIGHT_TX_XMIT].valid)
			return NSIGHT_MSG_NO_XMIT;
	}
	return NSIGHT_MSG_COMPLETE;
}

/*
 * The first reason that applies: lost records explain missing stages. A
 * missing stage may have been on any CPU, and before the message's first
 * record: then drops on any CPU from 10 ms (or the message's own span)
 * before it count.
 */
static enum nsight_msg_reason reason_of(const struct lt_build *b, const struct nsight_msg *m,
					bool untimed)
{
	enum nsight_msg_reason missing = missing_stage(m);
	uint64_t margin, from;
	uint32_t cpu;
	uint8_t i;

	for (i = 0; i < m->n_cpus; i++)
		if (nsight_capture_dropped_within(b->cap, m->cpus[i], m->tsc_lo, m->tsc_hi))
			return NSIGHT_MSG_DROPS;
	if (missing != NSIGHT_MSG_COMPLETE) {
		margin = b->tc && b->tc->tsc_hz ? b->tc->tsc_hz / 100 : m->tsc_hi - m->tsc_lo;
		from = m->tsc_lo > margin ? m->tsc_lo - margin : 0;
		for (cpu = 0; cpu < b->cap->nr_cpus; cpu++)
			if (nsight_capture_dropped_within(b->cap, cpu, from, m->tsc_hi))
				return NSIGHT_MSG_DROPS;
	}
	if (m->ooo)
		return NSIGHT_MSG_OUT_OF_ORDER;
	if (missing != NSIGHT_MSG_COMPLETE)
		return missing;
	return untimed ? NSIGHT_MSG_NO_CLOCK : NSIGHT_MSG_COMPLETE;
}

static void finalize(struct lt_build *b, struct nsight_msg *m)
{
	unsigned int n = nsight_msg_n_stages(m->dir), st;
	bool untimed = false;
	uint32_t *si;

	for (st = 0; st < n; st++) {
		struct nsight_msg_time *t = &m->t[st];

		if (!t->valid || t->timed)
			continue;
		t->timed = nsight_tc_convert(b->tc, t->tsc, NSIGHT_CLOCK_REALTIME, &t->real_ns) &&
			   nsight_tc_convert(b->tc, t->tsc, NSIGHT_CLOCK_MONOTONIC, &t->mono_ns);
		untimed |= !t->timed;
	}
	si = m->comm[0] || m->pid ? NULL : nsight_u64map_get(&b->sock_by_id, m->sock_id);
	if (si && b->socks[*si].have_app) {
		memcpy(m->comm, b->socks[*si].comm, sizeof(m->comm));
		m->pid = b->socks[*si].pid;
		m->tid = b->socks[*si].tid;
	}

	m->reason = reason_of(b, m, untimed);
	for (st = 0; st + 1 < n; st++)
		m->seg_ns[st] = m->t[st].timed && m->t[st + 1].timed ?
				nsight_sat_sub(m->t[st + 1].mono_ns, m->t[st].mono_ns) : 0;
	if (m->reason == NSIGHT_MSG_COMPLETE) {
		unsigned int end = m->dir == NSIGHT_MSG_RX ? NSIGHT_RX_A :
				   m->t[NSIGHT_TX_DONE].valid ? NSIGHT_TX_DONE : NSIGHT_TX_XMIT;

		m->total_ns = nsight_sat_sub(m->t[end].mono_ns, m->t[0].mono_ns);
		b->lt->n_complete++;
	}
	b->lt->by_reason[m->reason]++;
}

struct order {
	int64_t key;
	uint64_t tsc;
	uint32_t idx;
};

static int cmp_order(const void *a, const void *b)
{
	const struct order *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * Number messages [@from, @to) in order of their first stage: by its
 * monotonic time when the capture is timed (a hardware NIC time may put a
 * packet before another whose software record came first), else by TSC.
 */
static int order_msgs(struct lt_build *b, size_t from, size_t to)
{
	struct nsight_lifetimes *lt = b->lt;
	bool timed = lt->quality != NSIGHT_TC_UNAVAILABLE;
	struct order *o = calloc(to - from + 1, sizeof(*o));
	struct nsight_msg hold;
	size_t i;

	if (!o)
		return nsight_lt_nomem(b);
	for (i = from; i < to; i++) {
		const struct nsight_msg *m = &lt->msgs[i];
		unsigned int st = 0;

		while (st + 1 < NSIGHT_MSG_STAGES && !m->t[st].valid)
			st++;
		o[i - from].idx = (uint32_t)i;
		o[i - from].tsc = m->t[st].tsc;
		o[i - from].key = !timed ? 0 : m->t[st].timed ? m->t[st].mono_ns : INT64_MAX;
	}
	nsight_sort(o, to - from, sizeof(*o), cmp_order);
	/*
	 * Message o[i].idx goes to from + i: moved cycle by cycle, in place
	 * (a sorted copy would double the messages' memory at its peak).
	 */
	for (i = 0; i < to - from; i++) {
		size_t j = i;

		if (o[i].idx == from + i)
			continue;
		hold = lt->msgs[from + i];
		for (;;) {
			size_t k = o[j].idx - from;

			o[j].idx = (uint32_t)(from + j);
			if (k == i) {
				lt->msgs[from + j] = hold;
				break;
			}
			lt->msgs[from + j] = lt->msgs[from + k];
			j = k;
		}
	}
	for (i = from; i < to; i++)
		lt->msgs[i].id = i - from + 1;
	free(o);
	return 0;
}

int nsight_lifetimes_build(struct nsight_lifetimes *lt, const struct nsight_capture *cap,
			   const struct nsight_timeconv *tc, struct nsight_diag *d)
{
	struct lt_build b = { .cap = cap, .tc = tc, .lt = lt, .d = d };
	size_t i;
	int err;

	memset(lt, 0, sizeof(*lt));
	lt->quality = tc->quality;
	lt->ooo_records = cap->ooo;
	lt->stages_unresolved = cap->stages_unresolved;
	nsight_u64map_init(&b.sock_by_id);
	nsight_u64map_init(&b.port_head);

	/* Indexes hold 32-bit positions. */
	if (cap->n_pkts >= NONE || cap->n_handoffs >= NONE || cap->n_recvs >= NONE ||
	    cap->n_sends >= NONE || cap->n_copies >= NONE) {
		err = nsight_diag_set(d, NSIGHT_E_INVAL, "too many records for the lifetime analysis");
		goto out;
	}
	err = nsight_lt_rx_index(&b);
	if (!err)
		err = nsight_lt_rx(&b);
	lt->n_rx = lt->n;
	if (!err)
		err = nsight_lt_tx(&b);
	lt->n_tx = lt->n - lt->n_rx;
	for (i = 0; !err && i < lt->n; i++)
		finalize(&b, &lt->msgs[i]);
	NSIGHT_VEC_SHRINK(lt->msgs, lt->n, lt->cap);
	if (!err)
		err = order_msgs(&b, 0, lt->n_rx);
	if (!err)
		err = order_msgs(&b, lt->n_rx, lt->n);
out:
	for (i = 0; i < b.n_socks; i++) {
		free(b.socks[i].ho.v);
		free(b.socks[i].rv.v);
		free(b.socks[i].insts.v);
	}
	free(b.socks);
	free(b.inst);
	free(b.recv_copy);
	free(b.next_send);
	free(b.next_send_thread);
	free(b.claimed);
	nsight_chains_fini(&b.inst_by_id);
	nsight_chains_fini(&b.txq);
	nsight_chains_fini(&b.rxack);
	nsight_chains_fini(&b.txre);
	free(b.txq_last);
	nsight_chains_fini(&b.txid);
	nsight_u64map_fini(&b.sock_by_id);
	nsight_u64map_fini(&b.port_head);
	return err;
}

void nsight_lifetimes_keep(struct nsight_lifetimes *lt, uint64_t lo, uint64_t hi)
{
	size_t i, n = 0, n_rx = 0;

	lt->n_complete = 0;
	lt->fifo = 0;
	lt->early_reads = 0;
	memset(lt->by_reason, 0, sizeof(lt->by_reason));
	for (i = 0; i < lt->n; i++) {
		const struct nsight_msg *m = &lt->msgs[i];

		if (m->tsc_lo < lo || m->tsc_lo >= hi)
			continue;
		n_rx += i < lt->n_rx;
		lt->n_complete += m->reason == NSIGHT_MSG_COMPLETE;
		lt->by_reason[m->reason]++;
		lt->fifo += m->fifo;
		lt->early_reads += m->early_read;
		lt->msgs[n++] = *m;
	}
	lt->n = n;
	lt->n_rx = n_rx;
	lt->n_tx = n - n_rx;
	/* Ids 1.. per direction again, in the same order. */
	for (i = 0; i < n; i++)
		lt->msgs[i].id = i < n_rx ? i + 1 : i - n_rx + 1;
}

void nsight_lifetimes_fini(struct nsight_lifetimes *lt)
{
	free(lt->msgs);
	lt->msgs = NULL;
	lt->n = lt->cap = 0;
}

const char *nsight_msg_reason_name(enum nsight_msg_reason r)
{
	static const char *const names[__NSIGHT_MSG_REASONS] = {
		[NSIGHT_MSG_COMPLETE]		= "complete",
		[NSIGHT_MSG_DROPS]		= "drops",
		[NSIGHT_MSG_OUT_OF_ORDER]	= "out_of_order",
		[NSIGHT_MSG_NO_NIC]		= "no_nic",
		[NSIGHT_MSG_NO_HANDOFF]		= "no_handoff",
		[NSIGHT_MSG_NO_APP_RECV]	= "no_app_recv",
		[NSIGHT_MSG_NO_QUEUE]		= "no_queue",
		[NSIGHT_MSG_NO_XMIT]		= "no_xmit",
		[NSIGHT_MSG_NO_CLOCK]		= "no_clock",
	};

	return (unsigned int)r < __NSIGHT_MSG_REASONS ? names[r] : "unknown";
}

static uint64_t lt_hz(const struct lt_build *b)
{
	return b->tc && b->tc->tsc_hz ? b->tc->tsc_hz : 1000000000ULL;
}

uint64_t nsight_lt_ticks_ns(const struct lt_build *b, uint64_t ticks)
{
	return nsight_mul_div_u64(ticks, 1000000000ULL, lt_hz(b));
}

uint64_t nsight_lt_ns_ticks(const struct lt_build *b, uint64_t ns)
{
	return nsight_mul_div_u64(ns, lt_hz(b), 1000000000ULL);
}

const char *nsight_tcp_hold_name(enum nsight_tcp_hold h)
{
	static const char *const names[__NSIGHT_HOLD_REASONS] = {
		[NSIGHT_HOLD_NONE]		= "",
		[NSIGHT_HOLD_SNDBUF]		= "sndbuf",
		[NSIGHT_HOLD_RWND]		= "rwnd",
		[NSIGHT_HOLD_CWND]		= "cwnd",
		[NSIGHT_HOLD_CORK]		= "cork",
		[NSIGHT_HOLD_NAGLE]		= "nagle",
		[NSIGHT_HOLD_NAGLE_DELACK]	= "nagle_delayed_ack",
		[NSIGHT_HOLD_ACK]		= "ack",
		[NSIGHT_HOLD_RETRANS_FAST]	= "retrans_fast",
		[NSIGHT_HOLD_RETRANS_TIMEOUT]	= "retrans_timeout",
		[NSIGHT_HOLD_OOO]		= "ooo",
		[NSIGHT_HOLD_OOO_RTO]		= "ooo_rto",
	};

	return (unsigned int)h < __NSIGHT_HOLD_REASONS ? names[h] : "";
}

const char *nsight_msg_dir_name(enum nsight_msg_dir dir)
{
	return dir == NSIGHT_MSG_TX ? "tx" : "rx";
}

const char *nsight_proto_name(uint8_t proto, char *buf, size_t len)
{
	if (proto == IPPROTO_UDP)
		return "udp";
	if (proto == IPPROTO_TCP)
		return "tcp";
	snprintf(buf, len, "%u", proto);
	return buf;
}

const char *nsight_msg_stage_name(enum nsight_msg_dir dir, unsigned int stage)
{
	static const char *const rx[] = { "n", "h", "a" };
	static const char *const tx[] = { "send", "queue", "xmit", "done" };

	if (dir == NSIGHT_MSG_RX)
		return stage < 3 ? rx[stage] : "?";
	return stage < 4 ? tx[stage] : "?";
}

int nsight_msg_group_cmp(const char *comm_x, uint32_t pid_x, uint8_t dir_x, const char *comm_y,
			 uint32_t pid_y, uint8_t dir_y)
{
	int c = strncmp(comm_x, comm_y, 16);

	if (c)
		return c;
	if (pid_x != pid_y)
		return pid_x < pid_y ? -1 : 1;
	return dir_x < dir_y ? -1 : dir_x > dir_y;
}
