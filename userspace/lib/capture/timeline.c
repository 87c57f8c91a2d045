// SPDX-License-Identifier: MIT
/*
 * Timelines in three steps:
 *
 * 1. While the stream is read, each CPU's context records become compact
 *    events in that CPU's order (TSCs clamped so they never go back). A
 *    fault record also gives a begin event at its start_tsc, kept apart
 *    because it is out of order.
 * 2. At the end, each CPU's events are scanned once per epoch (from its
 *    first record, and afresh after every drop) for what was already
 *    running when the epoch began: the first switch's prev, and exits
 *    with no entry before that switch. Synthetic events open those at the
 *    epoch's start; the three event lists are merged in (TSC, order).
 * 3. One sweep over all CPUs in TSC order (a heap of per-CPU cursors) runs
 *    a context stack per CPU and emits a segment whenever the innermost
 *    context changes. It is global because a thread's faults and work
 *    follow the thread: the CPU a fault was recorded on need not be the one
 *    the thread ran on when the fault began.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/timeline.h"
#include "base/vec.h"
#include "base/u64map.h"

#define NONE		NSIGHT_TL_NONE
#define ATT_MAX		4	/* a work and faults inside it, per thread */
#define RETRO_MAX	100	/* contexts reopened at an epoch's start */

/* Order of events at one TSC: drop, epoch, reopened contexts, the record's. */
#define SEQ_DROP	0
#define SEQ_EPOCH	1
#define SEQ_RETRO	2
#define SEQ_FAULT_IN	64
#define SEQ_RECORD	128

enum ev_type {
	EV_DROP,	/* a:b = TSC of the CPU's record before the loss */
	EV_EPOCH,	/* a = the task running (task id), or NONE */
	EV_SWITCH,	/* a = prev task id, b = next task id */
	EV_IRQ_IN,	/* a = irq number, b = key */
	EV_IRQ_OUT,	/* a = irq number */
	EV_SOFT_IN,	/* a = vector, b = key */
	EV_SOFT_OUT,	/* a = vector */
	EV_IDLE_IN,
	EV_IDLE_OUT,
	EV_WORK_IN,	/* b = key */
	EV_WORK_OUT,	/* b = key if the record named the function, else NONE */
	EV_FAULT_IN,	/* a = fault serial */
	EV_FAULT_OUT,	/* a = fault serial */
};

struct tl_ev {
	uint64_t tsc;
	uint64_t seq;		/* record index << 8 | SEQ_* */
	uint32_t a, b;
	uint32_t type;
	uint32_t pad;
};

struct ev_vec {
	struct tl_ev *v;
	size_t n, cap;
};

struct tl_task {
	uint32_t tid, pid, key;
};

struct tl_fault {
	uint32_t tid, key;
};

/* A context that belongs to a thread and follows it (work, fault). */
struct tl_att {
	uint32_t key, occ, serial;	/* serial: a fault's, NONE for work */
	uint8_t kind;
};

struct tl_thr {
	uint32_t cpu;			/* where it runs now, NONE */
	uint8_t n;
	struct tl_att att[ATT_MAX];
};

struct tl_cbuild {
	struct ev_vec ev;		/* the records' events, in order */
	struct ev_vec fin;		/* fault begins */
	uint64_t n_rec;
	uint64_t max_tsc;
	/* The sweep. */
	size_t pos;
	uint32_t stack[NSIGHT_TL_DEPTH];
	uint8_t depth;
	uint8_t n_att;			/* levels 1 .. n_att follow the task */
	uint32_t task;			/* task id, NONE */
	uint32_t last_key;		/* last non-idle activity */
	bool started;
};

#define TASK_MEMO	64

struct nsight_tl_build {
	struct tl_cbuild *c;
	struct tl_task *tasks;
	size_t n_tasks, cap_tasks;
	struct nsight_u64map task_map;	/* tid << 32 | key -> task id */
	struct tl_fault *faults;
	size_t n_faults, cap_faults;
	struct tl_thr *thr;
	size_t n_thr, cap_thr;
	struct nsight_u64map thr_map;	/* tid -> thread */
	struct nsight_u64map irq_key;	/* irq number -> key seen at an entry */
	uint32_t fault_key[2];		/* kernel, user */
	/*
	 * The task ids of recent (tid, comm) pairs, by tid: a switch names
	 * two tasks, almost always ones seen a moment ago, and interning the
	 * name costs a hash of it and two map looks.
	 */
	struct tl_task_memo {
		uint32_t tid, id;	/* id + 1; 0: empty */
		char comm[16];
	} task_memo[TASK_MEMO];
};

static int nomem(struct nsight_diag *d)
{
	return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
}

#define GROW NSIGHT_VEC_GROW

static int ev_push(struct ev_vec *e, uint64_t tsc, uint64_t seq, uint32_t type, uint32_t a,
		   uint32_t b)
{
	if (GROW(e->v, e->n, e->cap))
		return -1;
	e->v[e->n++] = (struct tl_ev){ .tsc = tsc, .seq = seq, .type = type, .a = a, .b = b };
	return 0;
}

int nsight_timeline_init(struct nsight_timeline *tl, uint32_t nr_cpus, struct nsight_keys *keys,
			 struct nsight_diag *d)
{
	struct nsight_tl_build *b;
	uint32_t i;

	memset(tl, 0, sizeof(*tl));
	tl->keys = keys;
	tl->nr_cpus = nr_cpus;
	tl->cpus = calloc(nr_cpus ? nr_cpus : 1, sizeof(*tl->cpus));
	tl->b = b = calloc(1, sizeof(*b));
	if (!tl->cpus || !b)
		return nomem(d);
	b->c = calloc(nr_cpus ? nr_cpus : 1, sizeof(*b->c));
	if (!b->c)
		return nomem(d);
	for (i = 0; i < nr_cpus; i++)
		b->c[i].task = NONE;
	nsight_u64map_init(&b->task_map);
	nsight_u64map_init(&b->thr_map);
	nsight_u64map_init(&b->irq_key);
	b->fault_key[0] = nsight_keys_intern(keys, NSIGHT_KEY_FAULT, "kernel", 6);
	b->fault_key[1] = nsight_keys_intern(keys, NSIGHT_KEY_FAULT, "user", 4);
	if (b->fault_key[0] == NSIGHT_KEY_NONE || b->fault_key[1] == NSIGHT_KEY_NONE)
		return nomem(d);
	/* The shared contexts: lost records, nothing known. */
	tl->ctx = calloc(64, sizeof(*tl->ctx));
	if (!tl->ctx)
		return nomem(d);
	tl->cap_ctx = 64;
	tl->ctx[NSIGHT_CTX_LOST] = (struct nsight_ctx){ .key = NSIGHT_KEY_ID_UNKNOWN, .parent = NONE,
		.occ = NSIGHT_CTX_LOST, .tid = NONE, .kind = NSIGHT_CTX_K_LOST };
	tl->ctx[NSIGHT_CTX_UNKNOWN] = (struct nsight_ctx){ .key = NSIGHT_KEY_ID_UNKNOWN, .parent = NONE,
		.occ = NSIGHT_CTX_UNKNOWN, .tid = NONE, .kind = NSIGHT_CTX_K_UNKNOWN };
	tl->n_ctx = 2;
	return 0;
}

static void build_free(struct nsight_timeline *tl)
{
	struct nsight_tl_build *b = tl->b;
	uint32_t i;

	if (!b)
		return;
	for (i = 0; b->c && i < tl->nr_cpus; i++) {
		free(b->c[i].ev.v);
		free(b->c[i].fin.v);
	}
	free(b->c);
	free(b->tasks);
	free(b->faults);
	free(b->thr);
	nsight_u64map_fini(&b->task_map);
	nsight_u64map_fini(&b->thr_map);
	nsight_u64map_fini(&b->irq_key);
	free(b);
	tl->b = NULL;
}

void nsight_timeline_fini(struct nsight_timeline *tl)
{
	uint32_t i;

	build_free(tl);
	for (i = 0; tl->cpus && i < tl->nr_cpus; i++) {
		free(tl->cpus[i].segs);
		free(tl->cpus[i].idx);
	}
	free(tl->cpus);
	free(tl->ctx);
	memset(tl, 0, sizeof(*tl));
}

/* ---------------------------------------------------------------------- */
/* Step 1: records to events                                                */

static uint32_t task_id(struct nsight_timeline *tl, uint32_t tid, uint32_t pid, const char *comm)
{
	struct nsight_tl_build *b = tl->b;
	struct tl_task_memo *m = &b->task_memo[tid % TASK_MEMO];
	uint32_t key, *slot, id;
	bool added;

	if (m->id && m->tid == tid && !memcmp(m->comm, comm, sizeof(m->comm)))
		return m->id - 1;
	key = nsight_keys_intern(tl->keys, NSIGHT_KEY_TASK, comm, 16);
	if (key == NSIGHT_KEY_NONE)
		return NONE;
	slot = nsight_u64map_put(&b->task_map, (uint64_t)tid << 32 | key, (uint32_t)b->n_tasks, &added);
	if (!slot)
		return NONE;
	if (!added) {
		id = *slot;
	} else if (GROW(b->tasks, b->n_tasks, b->cap_tasks) || b->n_tasks >= NONE - 1) {
		*slot = NONE;	/* the map has no delete; never used again */
		return NONE;
	} else {
		b->tasks[b->n_tasks] = (struct tl_task){ .tid = tid, .pid = pid, .key = key };
		id = (uint32_t)b->n_tasks++;
	}
	if (id != NONE) {
		m->tid = tid;
		m->id = id + 1;
		memcpy(m->comm, comm, sizeof(m->comm));
	}
	return id;
}

static uint32_t irq_key(struct nsight_timeline *tl, uint32_t irq, const char *name)
{
	char buf[24];
	bool added;
	uint32_t key;

	if (!name || !name[0]) {
		snprintf(buf, sizeof(buf), "irq%" PRIu32, irq);
		name = buf;
	}
	key = nsight_keys_intern(tl->keys, NSIGHT_KEY_IRQ, name, 16);
	if (key != NSIGHT_KEY_NONE && !nsight_u64map_put(&tl->b->irq_key, irq, key, &added))
		key = NSIGHT_KEY_NONE;
	return key;
}

static uint32_t softirq_key(struct nsight_timeline *tl, uint32_t vec)
{
	char buf[24];
	const char *name = nsight_softirq_name(vec, buf, sizeof(buf));

	return nsight_keys_intern(tl->keys, NSIGHT_KEY_SOFTIRQ, name, sizeof(buf));
}

/* The types add_record() takes. */
bool nsight_timeline_is_context(uint32_t type)
{
	switch (type) {
	case NSIGHT_REC_SCHED_SWITCH:
	case NSIGHT_REC_IRQ:
	case NSIGHT_REC_SOFTIRQ:
	case NSIGHT_REC_IDLE:
	case NSIGHT_REC_WORK:
	case NSIGHT_REC_FAULT:
		return true;
	}
	return false;
}

/* A record of a type nsight_timeline_is_context() names; 1 for any other. */
static int add_record(struct nsight_timeline *tl, struct tl_cbuild *c, const struct nsight_rec *rec,
		      uint64_t tsc, uint64_t seq)
{
	const uint8_t *p = rec->data;

	switch (rec->hdr.type) {
	case NSIGHT_REC_SCHED_SWITCH: {
		struct nsight_rec_sched_switch s;
		uint32_t prev, next;

		memcpy(&s, p, sizeof(s));
		prev = task_id(tl, s.prev_tid, s.prev_pid, s.prev_comm);
		next = task_id(tl, s.next_tid, s.next_pid, s.next_comm);
		if (prev == NONE || next == NONE)
			return -1;
		return ev_push(&c->ev, tsc, seq, EV_SWITCH, prev, next);
	}
	case NSIGHT_REC_IRQ: {
		struct nsight_rec_irq r;
		char name[sizeof(r.name) + 1];

		memcpy(&r, p, sizeof(r));
		if (!(r.flags & NSIGHT_CTX_ENTRY))
			return ev_push(&c->ev, tsc, seq, EV_IRQ_OUT, r.irq, NONE);
		memcpy(name, r.name, sizeof(r.name));
		name[sizeof(r.name)] = '\0';
		return ev_push(&c->ev, tsc, seq, EV_IRQ_IN, r.irq, irq_key(tl, r.irq, name));
	}
	case NSIGHT_REC_SOFTIRQ: {
		struct nsight_rec_softirq r;

		memcpy(&r, p, sizeof(r));
		if (!(r.flags & NSIGHT_CTX_ENTRY))
			return ev_push(&c->ev, tsc, seq, EV_SOFT_OUT, r.vec, NONE);
		return ev_push(&c->ev, tsc, seq, EV_SOFT_IN, r.vec, softirq_key(tl, r.vec));
	}
	case NSIGHT_REC_IDLE: {
		struct nsight_rec_idle r;

		memcpy(&r, p, sizeof(r));
		return ev_push(&c->ev, tsc, seq, r.flags & NSIGHT_CTX_ENTRY ? EV_IDLE_IN : EV_IDLE_OUT,
			       0, 0);
	}
	case NSIGHT_REC_WORK: {
		struct nsight_rec_work r;
		uint32_t key = NONE;

		memcpy(&r, p, sizeof(r));
		if (r.func[0])
			key = nsight_keys_intern(tl->keys, NSIGHT_KEY_WORK, r.func, sizeof(r.func));
		else if (r.flags & NSIGHT_CTX_ENTRY)
			key = nsight_keys_intern(tl->keys, NSIGHT_KEY_WORK, "?", 1);
		if ((r.flags & NSIGHT_CTX_ENTRY) && key == NONE)
			return -1;
		return ev_push(&c->ev, tsc, seq, r.flags & NSIGHT_CTX_ENTRY ? EV_WORK_IN : EV_WORK_OUT,
			       0, key);
	}
	case NSIGHT_REC_FAULT: {
		struct nsight_tl_build *b = tl->b;
		struct nsight_rec_fault r;
		uint64_t start;

		memcpy(&r, p, sizeof(r));
		if (GROW(b->faults, b->n_faults, b->cap_faults) || b->n_faults >= NONE)
			return -1;
		b->faults[b->n_faults] = (struct tl_fault){
			.tid = r.tid, .key = b->fault_key[!!(r.flags & NSIGHT_FAULT_USER)] };
		/* A start after the end is garbage: an empty interval. */
		start = r.start_tsc <= tsc ? r.start_tsc : tsc;
		if (ev_push(&c->fin, start, seq - SEQ_RECORD + SEQ_FAULT_IN, EV_FAULT_IN,
			    (uint32_t)b->n_faults, 0) ||
		    ev_push(&c->ev, tsc, seq, EV_FAULT_OUT, (uint32_t)b->n_faults, 0))
			return -1;
		b->n_faults++;
		return 0;
	}
	}
	return 1;	/* not a context record */
}

int nsight_timeline_add(struct nsight_timeline *tl, const struct nsight_rec *rec,
			struct nsight_diag *d)
{
	struct tl_cbuild *c;
	struct nsight_tl_cpu *cpu;
	uint64_t tsc = rec->hdr.tsc, base;
	int ret;

	if (!tl->b || rec->hdr.cpu >= tl->nr_cpus)
		return 0;	/* the capture reports a bad CPU */
	c = &tl->b->c[rec->hdr.cpu];
	cpu = &tl->cpus[rec->hdr.cpu];
	/* A TSC going back stays put: a CPU's timeline never goes back. */
	if (cpu->any && tsc < c->max_tsc)
		tsc = c->max_tsc;
	base = c->n_rec++ << 8;

	if (rec->hdr.type == NSIGHT_REC_SUBBUF && cpu->any) {
		struct nsight_rec_subbuf sb;

		memcpy(&sb, rec->data, sizeof(sb));
		if (sb.dropped && ev_push(&c->ev, tsc, base | SEQ_DROP, EV_DROP,
					  (uint32_t)(c->max_tsc >> 32), (uint32_t)c->max_tsc))
			return nomem(d);
	}
	if (!cpu->any)
		cpu->first = tsc;
	cpu->any = true;
	cpu->last = c->max_tsc = tsc;

	ret = add_record(tl, c, rec, tsc, base | SEQ_RECORD);
	if (ret < 0)
		return nomem(d);
	if (!ret)
		tl->n_records++;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Step 2: what ran when each epoch began; merge                            */

struct sim {
	uint32_t type, id;	/* the entry's event type and irq / vector */
};

static bool exit_matches(uint32_t in_type, uint32_t in_id, const struct tl_ev *e)
{
	switch (e->type) {
	case EV_IRQ_OUT:
		return in_type == EV_IRQ_IN && in_id == e->a;
	case EV_SOFT_OUT:
		return in_type == EV_SOFT_IN && in_id == e->a;
	case EV_IDLE_OUT:
		return in_type == EV_IDLE_IN;
	case EV_WORK_OUT:
		return in_type == EV_WORK_IN;
	}
	return false;
}

/* The synthetic events that open what ran at an epoch's start. */
static int epoch_events(struct nsight_timeline *tl, struct ev_vec *syn, uint64_t tsc,
			uint64_t base, uint32_t task, const struct tl_ev *retro, size_t n_retro)
{
	size_t k;

	if (ev_push(syn, tsc, base | SEQ_EPOCH, EV_EPOCH, task, 0))
		return -1;
	/* They exited innermost first: open them outermost first. */
	for (k = 0; k < n_retro; k++) {
		const struct tl_ev *x = &retro[n_retro - 1 - k];
		uint32_t type = x->type - 1, b = x->b;	/* the matching *_IN */
		uint32_t *key;

		if (x->type == EV_IRQ_OUT) {
			key = nsight_u64map_get(&tl->b->irq_key, x->a);
			b = key ? *key : irq_key(tl, x->a, NULL);
		} else if (x->type == EV_SOFT_OUT) {
			b = softirq_key(tl, x->a);
		}
		if (b == NONE && x->type != EV_IDLE_OUT)
			return -1;
		if (ev_push(syn, tsc, base | (SEQ_RETRO + k), type, x->a, b))
			return -1;
	}
	return 0;
}

static int prescan(struct nsight_timeline *tl, uint32_t cpu, struct ev_vec *syn)
{
	struct tl_cbuild *c = &tl->b->c[cpu];
	struct sim stack[NSIGHT_TL_DEPTH];
	struct tl_ev retro[RETRO_MAX];
	uint64_t ep_tsc = tl->cpus[cpu].first, ep_base = 0;
	uint32_t task = NONE;
	size_t depth = 0, n_retro = 0, i;
	bool switched = false;

	for (i = 0; i < c->ev.n; i++) {
		const struct tl_ev *e = &c->ev.v[i];
		size_t j;

		switch (e->type) {
		case EV_DROP:
			if (epoch_events(tl, syn, ep_tsc, ep_base, task, retro, n_retro))
				return -1;
			ep_tsc = e->tsc;
			ep_base = e->seq & ~(uint64_t)0xff;
			task = NONE;
			depth = n_retro = 0;
			switched = false;
			break;
		case EV_SWITCH:
			if (!switched)
				task = e->a;
			switched = true;
			depth = 0;
			break;
		case EV_IRQ_IN:
		case EV_SOFT_IN:
		case EV_IDLE_IN:
		case EV_WORK_IN:
			if (depth < NSIGHT_TL_DEPTH)
				stack[depth++] = (struct sim){ e->type, e->a };
			break;
		case EV_IRQ_OUT:
		case EV_SOFT_OUT:
		case EV_IDLE_OUT:
		case EV_WORK_OUT:
			for (j = depth; j > 0; j--)
				if (exit_matches(stack[j - 1].type, stack[j - 1].id, e))
					break;
			if (j) {
				depth = j - 1;
			} else if (!switched && n_retro < RETRO_MAX &&
				   (e->type != EV_WORK_OUT || e->b != NONE)) {
				/* Running since before the epoch (a work only if named). */
				retro[n_retro++] = *e;
			}
			break;
		}
	}
	return epoch_events(tl, syn, ep_tsc, ep_base, task, retro, n_retro);
}

static int ev_cmp(const struct tl_ev *x, const struct tl_ev *y)
{
	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int ev_qcmp(const void *a, const void *b)
{
	return ev_cmp(a, b);
}

/* Merge the three ordered lists of @cpu into its ev. */
static int merge_cpu(struct nsight_timeline *tl, uint32_t cpu)
{
	struct tl_cbuild *c = &tl->b->c[cpu];
	struct ev_vec syn = { 0 }, *in[3];
	struct tl_ev *out;
	size_t pos[3] = { 0 }, n, k;

	if (prescan(tl, cpu, &syn)) {
		free(syn.v);
		return -1;
	}
	if (c->fin.n > 1)
		qsort(c->fin.v, c->fin.n, sizeof(*c->fin.v), ev_qcmp);
	in[0] = &c->ev;
	in[1] = &c->fin;
	in[2] = &syn;
	n = c->ev.n + c->fin.n + syn.n;
	out = malloc((n ? n : 1) * sizeof(*out));
	if (!out) {
		free(syn.v);
		return -1;
	}
	for (k = 0; k < n; k++) {
		int best = -1, s;

		for (s = 0; s < 3; s++)
			if (pos[s] < in[s]->n &&
			    (best < 0 || ev_cmp(&in[s]->v[pos[s]], &in[best]->v[pos[best]]) < 0))
				best = s;
		out[k] = in[best]->v[pos[best]++];
	}
	free(c->ev.v);
	free(c->fin.v);
	free(syn.v);
	c->fin = (struct ev_vec){ 0 };
	c->ev = (struct ev_vec){ .v = out, .n = n, .cap = n };
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Step 3: the sweep                                                        */

/* What a stack level holds, to push it again (after a change below it). */
struct desc {
	uint32_t key, occ, tid;
	uint8_t kind;
};

static uint32_t new_ctx(struct nsight_timeline *tl, const struct desc *ds, uint32_t parent)
{
	struct nsight_ctx *x;

	if (tl->n_ctx >= NONE - 1 || GROW(tl->ctx, tl->n_ctx, tl->cap_ctx))
		return NONE;
	x = &tl->ctx[tl->n_ctx];
	x->key = ds->key;
	x->parent = parent;
	x->occ = ds->occ == NONE ? (uint32_t)tl->n_ctx : ds->occ;
	x->tid = ds->tid;
	x->kind = ds->kind;
	return (uint32_t)tl->n_ctx++;
}

static int add_seg(struct nsight_tl_cpu *cpu, uint64_t t, uint32_t ctx, uint32_t key)
{
	struct nsight_seg *last = cpu->n ? &cpu->segs[cpu->n - 1] : NULL;

	if (last && t < last->start)
		t = last->start;
	if (last && t == last->start) {
		last->ctx = ctx;	/* the one before lasted no time */
		last->key = key;
		return 0;
	}
	if (last && last->ctx == ctx && last->key == key)
		return 0;
	if (GROW(cpu->segs, cpu->n, cpu->cap))
		return -1;
	cpu->segs[cpu->n++] = (struct nsight_seg){ .start = t, .ctx = ctx, .key = key };
	return 0;
}

/* A segment for @cpu's innermost context from @t on. */
static int emit(struct nsight_timeline *tl, uint32_t cpu, uint64_t t)
{
	struct tl_cbuild *c = &tl->b->c[cpu];
	uint32_t top = c->depth ? c->stack[c->depth - 1] : NSIGHT_CTX_UNKNOWN, key;
	const struct nsight_ctx *x = &tl->ctx[top];

	if (!c->started || t > tl->cpus[cpu].last)
		return 0;
	if (x->kind == NSIGHT_CTX_K_SWAPPER || x->kind == NSIGHT_CTX_K_IDLE) {
		key = nsight_keys_idle_after(tl->keys, c->last_key);
		if (key == NSIGHT_KEY_NONE)
			return -1;
	} else {
		key = c->last_key = x->key;
	}
	return add_seg(&tl->cpus[cpu], t, top, key);
}

static int push(struct nsight_timeline *tl, uint32_t cpu, const struct desc *ds)
{
	struct tl_cbuild *c = &tl->b->c[cpu];
	uint32_t x;

	if (c->depth >= NSIGHT_TL_DEPTH) {
		tl->too_deep++;
		return 0;
	}
	x = new_ctx(tl, ds, c->depth ? c->stack[c->depth - 1] : NONE);
	if (x == NONE)
		return -1;
	c->stack[c->depth++] = x;
	return 0;
}

static struct desc desc_of(const struct nsight_timeline *tl, uint32_t ctx)
{
	const struct nsight_ctx *x = &tl->ctx[ctx];

	return (struct desc){ .key = x->key, .occ = x->occ, .tid = x->tid, .kind = x->kind };
}

/*
 * Cut @cpu's stack back to @level, push @ins (if any) and push again what
 * was above @level, but for the first of those when @skip: how a thread's
 * fault or work comes and goes below the CPU's interrupts.
 */
static int restack(struct nsight_timeline *tl, uint32_t cpu, size_t level,
		   const struct desc *ins, bool skip)
{
	struct tl_cbuild *c = &tl->b->c[cpu];
	struct desc saved[NSIGHT_TL_DEPTH];
	size_t n = 0, i;

	for (i = level + (skip ? 1 : 0); i < c->depth; i++)
		saved[n++] = desc_of(tl, c->stack[i]);
	c->depth = (uint8_t)(level < c->depth ? level : c->depth);
	if (ins && push(tl, cpu, ins))
		return -1;
	for (i = 0; i < n; i++)
		if (push(tl, cpu, &saved[i]))
			return -1;
	return 0;
}

static struct tl_thr *thread(struct nsight_timeline *tl, uint32_t tid)
{
	struct nsight_tl_build *b = tl->b;
	uint32_t *slot;
	bool added;

	slot = nsight_u64map_put(&b->thr_map, tid, (uint32_t)b->n_thr, &added);
	if (!slot)
		return NULL;
	if (added) {
		if (GROW(b->thr, b->n_thr, b->cap_thr)) {
			*slot = NONE;
			return NULL;
		}
		b->thr[b->n_thr] = (struct tl_thr){ .cpu = NONE };
		b->n_thr++;
	}
	return *slot == NONE ? NULL : &b->thr[*slot];
}

/* The thread of @cpu's task, NULL if unknown or the swapper. */
static struct tl_thr *cpu_thread(struct nsight_timeline *tl, uint32_t cpu, uint32_t *tid)
{
	struct tl_cbuild *c = &tl->b->c[cpu];
	const struct tl_task *t;

	if (c->task == NONE)
		return NULL;
	t = &tl->b->tasks[c->task];
	if (!t->pid)
		return NULL;
	*tid = t->tid;
	return thread(tl, t->tid);
}

/* Nothing runs on @cpu any more (a switch, lost records). */
static void clear_cpu(struct nsight_timeline *tl, uint32_t cpu)
{
	struct tl_cbuild *c = &tl->b->c[cpu];
	struct tl_thr *th;
	uint32_t tid;

	th = cpu_thread(tl, cpu, &tid);
	if (th && th->cpu == cpu)
		th->cpu = NONE;
	c->depth = c->n_att = 0;
	c->task = NONE;
}

/* @task (NONE: unknown) runs on @cpu from @t, with what follows its thread. */
static int set_task(struct nsight_timeline *tl, uint32_t cpu, uint64_t t, uint32_t task)
{
	struct tl_cbuild *c = &tl->b->c[cpu];
	const struct tl_task *tk;
	struct tl_thr *th;
	struct desc ds;
	uint32_t tid;
	uint8_t i;

	clear_cpu(tl, cpu);
	if (task == NONE) {
		c->stack[0] = NSIGHT_CTX_UNKNOWN;
		c->depth = 1;
		return emit(tl, cpu, t);
	}
	tk = &tl->b->tasks[task];
	ds = (struct desc){ .key = tk->key, .occ = NONE, .tid = tk->tid,
			    .kind = tk->pid ? NSIGHT_CTX_K_TASK : NSIGHT_CTX_K_SWAPPER };
	if (push(tl, cpu, &ds))
		return -1;
	c->task = task;
	th = cpu_thread(tl, cpu, &tid);
	if (th) {
		th->cpu = cpu;
		for (i = 0; i < th->n; i++) {
			ds = (struct desc){ .key = th->att[i].key, .occ = th->att[i].occ, .tid = tid,
					    .kind = th->att[i].kind };
			if (push(tl, cpu, &ds))
				return -1;
			/* Every later stretch counts as the same occurrence. */
			th->att[i].occ = tl->ctx[c->stack[c->depth - 1]].occ;
			c->n_att++;
		}
	} else if (tk->pid) {
		return -1;
	}
	return emit(tl, cpu, t);
}

/* A fault or work of thread @tid begins at @t. */
static int attach(struct nsight_timeline *tl, uint32_t tid, uint64_t t, uint8_t kind, uint32_t key,
		  uint32_t serial)
{
	struct tl_thr *th = thread(tl, tid);
	struct tl_cbuild *c;
	struct desc ds;

	if (!th)
		return -1;
	if (th->n >= ATT_MAX) {
		tl->too_deep++;
		return 0;
	}
	th->att[th->n] = (struct tl_att){ .key = key, .occ = NONE, .serial = serial, .kind = kind };
	th->n++;
	if (th->cpu == NONE)
		return 0;
	c = &tl->b->c[th->cpu];
	if (1 + (size_t)c->n_att >= NSIGHT_TL_DEPTH) {
		th->n--;
		tl->too_deep++;
		return 0;
	}
	ds = (struct desc){ .key = key, .occ = NONE, .tid = tid, .kind = kind };
	if (restack(tl, th->cpu, 1 + (size_t)c->n_att, &ds, false))
		return -1;
	th->att[th->n - 1].occ = tl->ctx[c->stack[1 + c->n_att]].occ;
	c->n_att++;
	return emit(tl, th->cpu, t);
}

/* Attached context @j of @th (thread @tid) ends at @t. */
static int detach(struct nsight_timeline *tl, struct tl_thr *th, uint8_t j, uint64_t t)
{
	struct tl_cbuild *c;

	memmove(&th->att[j], &th->att[j + 1], (th->n - j - 1) * sizeof(th->att[0]));
	th->n--;
	if (th->cpu == NONE)
		return 0;
	c = &tl->b->c[th->cpu];
	if (j >= c->n_att)
		return 0;	/* it was never on the stack (too deep) */
	if (restack(tl, th->cpu, 1 + (size_t)j, NULL, true))
		return -1;
	c->n_att--;
	return emit(tl, th->cpu, t);
}

static int work_in(struct nsight_timeline *tl, uint32_t cpu, const struct tl_ev *e)
{
	uint32_t tid;
	struct tl_thr *th = cpu_thread(tl, cpu, &tid);
	struct desc ds = { .key = e->b, .occ = NONE, .tid = NONE, .kind = NSIGHT_CTX_K_WORK };
	uint8_t i;

	if (!th) {
		/* No thread known: the CPU's own level until the work ends. */
		if (push(tl, cpu, &ds))
			return -1;
		return emit(tl, cpu, e->tsc);
	}
	/* A worker runs one function at a time: a lost end closes it now. */
	for (i = th->n; i > 0; i--) {
		if (th->att[i - 1].kind == NSIGHT_CTX_K_WORK) {
			tl->unmatched++;
			if (detach(tl, th, i - 1, e->tsc))
				return -1;
		}
	}
	return attach(tl, tid, e->tsc, NSIGHT_CTX_K_WORK, e->b, NONE);
}

/* Pop @cpu's own levels down to the innermost matching entry. */
static int pop_level(struct nsight_timeline *tl, uint32_t cpu, uint8_t kind, uint32_t id,
		     bool match_id, uint64_t t)
{
	struct tl_cbuild *c = &tl->b->c[cpu];
	size_t j;

	for (j = c->depth; j > (size_t)1 + c->n_att; j--) {
		const struct nsight_ctx *x = &tl->ctx[c->stack[j - 1]];

		if (x->kind == kind && (!match_id || x->tid == id))
			break;
	}
	if (j <= (size_t)1 + c->n_att) {
		tl->unmatched++;
		return 0;
	}
	tl->unmatched += c->depth - j;	/* inner ones lost their exits */
	c->depth = (uint8_t)(j - 1);
	return emit(tl, cpu, t);
}

static int work_out(struct nsight_timeline *tl, uint32_t cpu, const struct tl_ev *e)
{
	uint32_t tid;
	struct tl_thr *th = cpu_thread(tl, cpu, &tid);
	uint8_t i;

	for (i = th ? th->n : 0; i > 0; i--)
		if (th->att[i - 1].kind == NSIGHT_CTX_K_WORK)
			return detach(tl, th, i - 1, e->tsc);
	return pop_level(tl, cpu, NSIGHT_CTX_K_WORK, 0, false, e->tsc);
}

static int fault_in(struct nsight_timeline *tl, const struct tl_ev *e)
{
	const struct tl_fault *f = &tl->b->faults[e->a];

	return attach(tl, f->tid, e->tsc, NSIGHT_CTX_K_FAULT, f->key, e->a);
}

static int fault_out(struct nsight_timeline *tl, const struct tl_ev *e)
{
	const struct tl_fault *f = &tl->b->faults[e->a];
	struct tl_thr *th = thread(tl, f->tid);
	uint8_t i;

	if (!th)
		return -1;
	for (i = 0; i < th->n; i++)
		if (th->att[i].kind == NSIGHT_CTX_K_FAULT && th->att[i].serial == e->a)
			return detach(tl, th, i, e->tsc);
	return 0;	/* it was too deep to keep */
}

static int cpu_level(struct nsight_timeline *tl, uint32_t cpu, uint8_t kind, uint32_t key,
		     uint32_t id, uint64_t t)
{
	struct desc ds = { .key = key, .occ = NONE, .tid = id, .kind = kind };

	if (push(tl, cpu, &ds))
		return -1;
	return emit(tl, cpu, t);
}

static int lost(struct nsight_timeline *tl, uint32_t cpu, const struct tl_ev *e)
{
	struct nsight_tl_cpu *tc = &tl->cpus[cpu];
	struct tl_cbuild *c = &tl->b->c[cpu];
	uint64_t from = (uint64_t)e->a << 32 | e->b;

	/* Nothing on this CPU can be known after its last record before the loss. */
	while (tc->n && tc->segs[tc->n - 1].start > from)
		tc->n--;
	clear_cpu(tl, cpu);
	c->last_key = NSIGHT_KEY_ID_UNKNOWN;
	return add_seg(tc, from, NSIGHT_CTX_LOST, NSIGHT_KEY_ID_UNKNOWN);
}

static int run_event(struct nsight_timeline *tl, uint32_t cpu, const struct tl_ev *e)
{
	struct tl_cbuild *c = &tl->b->c[cpu];

	switch (e->type) {
	case EV_DROP:
		return c->started ? lost(tl, cpu, e) : 0;
	case EV_EPOCH:
		c->started = true;
		return set_task(tl, cpu, e->tsc, e->a);
	case EV_SWITCH:
		if (c->depth > 1 + c->n_att)
			tl->unmatched += c->depth - 1 - c->n_att;
		return set_task(tl, cpu, e->tsc, e->b);
	case EV_IRQ_IN:
		return cpu_level(tl, cpu, NSIGHT_CTX_K_IRQ, e->b, e->a, e->tsc);
	case EV_IRQ_OUT:
		return pop_level(tl, cpu, NSIGHT_CTX_K_IRQ, e->a, true, e->tsc);
	case EV_SOFT_IN:
		return cpu_level(tl, cpu, NSIGHT_CTX_K_SOFTIRQ, e->b, e->a, e->tsc);
	case EV_SOFT_OUT:
		return pop_level(tl, cpu, NSIGHT_CTX_K_SOFTIRQ, e->a, true, e->tsc);
	case EV_IDLE_IN: {
		uint8_t i;

		for (i = 0; i < c->depth; i++)
			if (tl->ctx[c->stack[i]].kind == NSIGHT_CTX_K_IDLE)
				return 0;	/* already idle */
		return cpu_level(tl, cpu, NSIGHT_CTX_K_IDLE, NSIGHT_KEY_ID_UNKNOWN, NONE, e->tsc);
	}
	case EV_IDLE_OUT:
		return pop_level(tl, cpu, NSIGHT_CTX_K_IDLE, 0, false, e->tsc);
	case EV_WORK_IN:
		return work_in(tl, cpu, e);
	case EV_WORK_OUT:
		return work_out(tl, cpu, e);
	case EV_FAULT_IN:
		return fault_in(tl, e);
	case EV_FAULT_OUT:
		return fault_out(tl, e);
	}
	return 0;
}

/* A min-heap of CPUs by their next event. */
static bool heap_less(const struct nsight_tl_build *b, uint32_t x, uint32_t y)
{
	int c = ev_cmp(&b->c[x].ev.v[b->c[x].pos], &b->c[y].ev.v[b->c[y].pos]);

	return c < 0 || (c == 0 && x < y);
}

static void heap_down(const struct nsight_tl_build *b, uint32_t *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		uint32_t t;

		if (l < n && heap_less(b, h[l], h[m]))
			m = l;
		if (r < n && heap_less(b, h[r], h[m]))
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static int sweep(struct nsight_timeline *tl)
{
	struct nsight_tl_build *b = tl->b;
	uint32_t *h = malloc((tl->nr_cpus ? tl->nr_cpus : 1) * sizeof(*h)), i;
	size_t n = 0, k;
	int err = 0;

	if (!h)
		return -1;
	for (i = 0; i < tl->nr_cpus; i++)
		if (b->c[i].ev.n)
			h[n++] = i;
	for (k = n / 2; k > 0; k--)
		heap_down(b, h, n, k - 1);
	while (n && !err) {
		uint32_t cpu = h[0];
		struct tl_cbuild *c = &b->c[cpu];

		err = run_event(tl, cpu, &c->ev.v[c->pos]);
		if (++c->pos == c->ev.n)
			h[0] = h[--n];
		heap_down(b, h, n, 0);
	}
	free(h);
	return err;
}

/* The search index of a finished CPU (none without memory: searches are slower). */
static void index_cpu(struct nsight_tl_cpu *c)
{
	size_t k, n = (c->n + NSIGHT_TL_IDX_STEP - 1) / NSIGHT_TL_IDX_STEP;

	if (n < 2)
		return;
	c->idx = malloc(n * sizeof(*c->idx));
	if (!c->idx)
		return;
	for (k = 0; k < n; k++)
		c->idx[k] = c->segs[k * NSIGHT_TL_IDX_STEP].start;
	c->n_idx = n;
}

int nsight_timeline_finish(struct nsight_timeline *tl, const uint64_t *tail_drops,
			   struct nsight_diag *d)
{
	uint32_t i;
	int err = 0;

	if (!tl->b)
		return nsight_diag_set(d, NSIGHT_E_INVAL, "timeline finished twice");
	for (i = 0; i < tl->nr_cpus && !err; i++) {
		tl->cpus[i].lost_after = tail_drops && tail_drops[i];
		if (tl->cpus[i].any)
			err = merge_cpu(tl, i);
	}
	if (!err)
		err = sweep(tl);
	build_free(tl);
	if (err)
		return nomem(d);
	for (i = 0; i < tl->nr_cpus; i++)
		index_cpu(&tl->cpus[i]);
	tl->finished = true;
	return 0;
}

ssize_t nsight_tl_find(const struct nsight_timeline *tl, uint32_t cpu, uint64_t tsc)
{
	const struct nsight_tl_cpu *c;
	size_t lo = 0, hi;

	if (cpu >= tl->nr_cpus)
		return -1;
	c = &tl->cpus[cpu];
	hi = c->n;
	if (c->idx) {
		/* The first step whose first start is past @tsc; the answer is before it. */
		size_t l = 0, h = c->n_idx;

		while (l < h) {
			size_t mid = l + (h - l) / 2;

			if (c->idx[mid] <= tsc)
				l = mid + 1;
			else
				h = mid;
		}
		if (!l)
			return -1;
		lo = (l - 1) * NSIGHT_TL_IDX_STEP;
		if (l * NSIGHT_TL_IDX_STEP < hi)
			hi = l * NSIGHT_TL_IDX_STEP;
	}
	/* The first segment past @tsc; the one before holds it. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->segs[mid].start <= tsc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (ssize_t)lo - 1;
}

uint32_t nsight_timeline_add_ctx(struct nsight_timeline *tl, uint32_t key, uint32_t parent,
				 uint32_t occ, uint32_t tid, uint8_t kind)
{
	struct desc ds = { .key = key, .occ = occ, .tid = tid, .kind = kind };

	return new_ctx(tl, &ds, parent);
}
