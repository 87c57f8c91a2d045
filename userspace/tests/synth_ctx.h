/* SPDX-License-Identifier: MIT */
/*
 * Context records for synthetic captures: sched_switch, irq, softirq,
 * idle, fault, workqueue, and an app_recv with its entry time.
 */
#ifndef NSIGHT_TEST_SYNTH_CTX_H
#define NSIGHT_TEST_SYNTH_CTX_H

#include "synth.h"

#define SYN_NET_RX	3
#define SYN_TIMER	1

/* A task: thread @tid of process @pid named @comm (pid 0: the swapper). */
struct syn_task {
	uint32_t tid, pid;
	const char *comm;
};

/* A switch whose prev left in @prev_state (0: runnable) with @flags (NSIGHT_SWITCH_*). */
static inline void synth_switch_st(struct synth *s, uint32_t cpu, uint64_t tsc,
				   struct syn_task prev, struct syn_task next, uint32_t prev_state,
				   uint32_t flags)
{
	struct nsight_rec_sched_switch r;

	rec_hdr(&r, NSIGHT_REC_SCHED_SWITCH, sizeof(r), cpu, tsc);
	r.prev_tid = prev.tid;
	r.prev_pid = prev.pid;
	r.next_tid = next.tid;
	r.next_pid = next.pid;
	r.prev_prio = r.next_prio = 120;
	r.prev_state = prev_state;
	r.flags = flags;
	snprintf(r.prev_comm, sizeof(r.prev_comm), "%s", prev.comm);
	snprintf(r.next_comm, sizeof(r.next_comm), "%s", next.comm);
	synth_put(s, cpu, &r, sizeof(r));
}

/* sched_waking of @woken on @cpu (the waker's) by thread @waker_tid (0: an interrupt). */
static inline void synth_waking(struct synth *s, uint32_t cpu, uint64_t tsc, struct syn_task woken,
				uint32_t target_cpu, uint32_t waker_tid)
{
	struct nsight_rec_waking r;

	rec_hdr(&r, NSIGHT_REC_WAKING, sizeof(r), cpu, tsc);
	r.tid = woken.tid;
	r.pid = woken.pid;
	r.prio = 120;
	r.target_cpu = target_cpu;
	r.waker_tid = waker_tid;
	snprintf(r.comm, sizeof(r.comm), "%s", woken.comm);
	synth_put(s, cpu, &r, sizeof(r));
}

/* @t enters futex_wait() or futex_wake() (@op, enum nsight_futex_op) on @uaddr. */
static inline void synth_futex(struct synth *s, uint32_t cpu, uint64_t tsc, struct syn_task t,
			       uint32_t op, uint64_t uaddr)
{
	struct nsight_rec_futex r;

	rec_hdr(&r, NSIGHT_REC_FUTEX, sizeof(r), cpu, tsc);
	r.uaddr = uaddr;
	r.tid = t.tid;
	r.pid = t.pid;
	r.op = op;
	r.arg = op == NSIGHT_FUTEX_WAKE ? 1 : 2;
	synth_put(s, cpu, &r, sizeof(r));
}

/* A request mark of @t (@op, enum nsight_req_op, or any value for a bad one). */
static inline void synth_request(struct synth *s, uint32_t cpu, uint64_t tsc, struct syn_task t,
				 uint32_t op, uint64_t id)
{
	struct nsight_rec_request r;

	rec_hdr(&r, NSIGHT_REC_REQUEST, sizeof(r), cpu, tsc);
	r.id = id;
	r.tid = t.tid;
	r.pid = t.pid;
	r.op = op;
	r.pad = 0;
	synth_put(s, cpu, &r, sizeof(r));
}

static inline void synth_switch(struct synth *s, uint32_t cpu, uint64_t tsc, struct syn_task prev,
				struct syn_task next)
{
	synth_switch_st(s, cpu, tsc, prev, next, 0, 0);
}

static inline void synth_irq(struct synth *s, uint32_t cpu, uint64_t tsc, uint32_t irq,
			     const char *name, bool entry)
{
	struct nsight_rec_irq r;

	rec_hdr(&r, NSIGHT_REC_IRQ, sizeof(r), cpu, tsc);
	r.irq = irq;
	r.flags = entry ? NSIGHT_CTX_ENTRY : NSIGHT_IRQ_HANDLED;
	if (entry && name)
		memcpy(r.name, name, strnlen(name, sizeof(r.name)));
	synth_put(s, cpu, &r, sizeof(r));
}

static inline void synth_softirq(struct synth *s, uint32_t cpu, uint64_t tsc, uint32_t vec,
				 bool entry)
{
	struct nsight_rec_softirq r;

	rec_hdr(&r, NSIGHT_REC_SOFTIRQ, sizeof(r), cpu, tsc);
	r.vec = vec;
	r.flags = entry ? NSIGHT_CTX_ENTRY : 0;
	synth_put(s, cpu, &r, sizeof(r));
}

static inline void synth_idle(struct synth *s, uint32_t cpu, uint64_t tsc, bool entry)
{
	struct nsight_rec_idle r;

	rec_hdr(&r, NSIGHT_REC_IDLE, sizeof(r), cpu, tsc);
	r.state = entry ? 1 : UINT32_MAX;
	r.flags = entry ? NSIGHT_CTX_ENTRY : 0;
	synth_put(s, cpu, &r, sizeof(r));
}

/* A page fault of thread @tid from @start to @end, recorded on @cpu at @end. */
static inline void synth_fault(struct synth *s, uint32_t cpu, uint64_t start, uint64_t end,
			       uint32_t tid, uint32_t pid, bool user)
{
	struct nsight_rec_fault r;

	rec_hdr(&r, NSIGHT_REC_FAULT, sizeof(r), cpu, end);
	r.start_tsc = start;
	r.address = user ? 0x7f0000001000ULL : 0;
	r.flags = user ? NSIGHT_FAULT_USER : NSIGHT_FAULT_KERNEL_ADDR;
	r.tid = tid;
	r.pid = pid;
	synth_put(s, cpu, &r, sizeof(r));
}

/* A work function starts (@func named) or ends (@func may be NULL). */
static inline void synth_work(struct synth *s, uint32_t cpu, uint64_t tsc, const char *func,
			      bool entry)
{
	struct nsight_rec_work r;

	rec_hdr(&r, NSIGHT_REC_WORK, sizeof(r), cpu, tsc);
	r.flags = entry ? NSIGHT_CTX_ENTRY : 0;
	if (func)
		memcpy(r.func, func, strnlen(func, sizeof(r.func)));
	synth_put(s, cpu, &r, sizeof(r));
}

/* An app_recv returning at @tsc what a call entered at @entry got. */
static inline void synth_recv(struct synth *s, uint32_t cpu, uint64_t entry, uint64_t tsc,
			      uint64_t sock_id, struct nsight_flow sock, int64_t ret, uint32_t tid,
			      uint32_t pid, const char *comm)
{
	struct nsight_rec_app a;

	rec_hdr(&a, NSIGHT_REC_APP_RECV, sizeof(a), cpu, tsc);
	a.sock_id = sock_id;
	a.flow = sock;
	a.start_tsc = entry;
	a.ret = ret;
	a.tid = tid;
	a.pid = pid;
	snprintf(a.comm, sizeof(a.comm), "%s", comm);
	synth_put(s, cpu, &a, sizeof(a));
}

/* A stack sample of thread @t on @cpu at @tsc: @n frames, innermost first. */
static inline void synth_sample_of(struct synth *s, uint32_t cpu, uint64_t tsc, uint32_t period_ns,
				   const uint64_t *ips, uint16_t n, uint16_t flags, struct syn_task t)
{
	uint8_t buf[sizeof(struct nsight_rec_sample) + 16 * sizeof(uint64_t)];
	struct nsight_rec_sample r;

	if (n > 16)
		abort();
	rec_hdr(buf, NSIGHT_REC_SAMPLE, (uint16_t)(sizeof(r) + n * sizeof(uint64_t)), cpu, tsc);
	memcpy(&r, buf, sizeof(r));
	r.period_ns = period_ns;
	r.nr = n;
	r.flags = flags;
	r.tid = t.tid;
	r.pid = t.pid;
	memcpy(buf, &r, sizeof(r));
	memcpy(buf + sizeof(r), ips, n * sizeof(uint64_t));
	synth_put(s, cpu, buf, sizeof(r) + n * sizeof(uint64_t));
}

/* The same, of the server's thread (101 of process 100). */
static inline void synth_sample(struct synth *s, uint32_t cpu, uint64_t tsc, uint32_t period_ns,
				const uint64_t *ips, uint16_t n, uint16_t flags)
{
	synth_sample_of(s, cpu, tsc, period_ns, ips, n, flags,
			(struct syn_task){ 101, 100, "server" });
}

#endif /* NSIGHT_TEST_SYNTH_CTX_H */
