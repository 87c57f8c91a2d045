// SPDX-License-Identifier: MIT
/*
 * nsight-analyze --perfetto: Chrome trace-event JSON ("JSON Object
 * Format"), written event by event as it goes, so that the memory used
 * does not grow with the trace:
 *
 *   process "CPUs" (pid PF_CPU_PID, no real pid can be that large), one
 *   thread "cpu N" (tid N + 1) per CPU:
 *     B/E slices, one for each stretch of a timeline context (tasks, idle,
 *     irqs, softirqs, faults, work, functions from samples or PT, lost
 *     records, unknown time), nested as the contexts are: a stretch runs
 *     from the first to the last of the CPU's consecutive segments that
 *     have the context in their chain of parents, so a child's lies in its
 *     parent's. A fault or work that a switch interrupts resumes as a new
 *     stretch (args.occ names the first one). Named by their keys (a
 *     function by its symbol); cat and args.kind the context's kind.
 *     Flow "handoff" (cat "handoff", id the message's): "s" at h on the
 *     receive core, "f" (bp "e") at a on the application core, one per
 *     complete RX message; Perfetto binds both to the slices open there.
 *   process "<comm>" (pid: the application's; PF_UNKNOWN_PID when it is
 *   not known) per application, holding its messages:
 *     nestable async b/e per complete message (cat "rx"/"tx", an integer
 *     id unique in the trace), "rx 123" from its first stage to its last,
 *     with one nested slice per segment: "n->h", "h->a"; "send->queue",
 *     "queue->xmit", "xmit->done" (with a completion). A diagnosed tail
 *     message's args hold its deviation, coverage and causes.
 *
 * Times: ts in microseconds with 3 decimals (exact ns), TSC converted at
 * the capture's TSC rate, from the capture's first record. A hardware NIC
 * time n keeps its distance to its packet record's time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/flow.h"
#include "perfetto.h"
#include "base/u64map.h"
#include "base/version.h"

/* Above PID_MAX_LIMIT (4194304): never an application's pid. */
#define PF_CPU_PID	4194305U
#define PF_UNKNOWN_PID	4194306U
/* Deepest chain of contexts followed (timeline depth + function frames). */
#define PF_CHAIN	64
#define PF_NONE		UINT32_MAX

struct pf {
	FILE *f;
	const struct nsight_analysis *a;
	uint64_t tsc0, hz;
	uint64_t lo, hi;	/* the CPU tracks' range (TSC), --range */
	bool first;		/* no event written yet */
	char key[NSIGHT_KEY_NAME_MAX * 2 + 64];
};

/* ---------------------------------------------------------------------- */
/* Output                                                                   */

/* Length of the valid UTF-8 sequence at @s (at most @n bytes), 0 if none. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, beyond U+10FFFF. */
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return len;
}

/*
 * @s (at most @max bytes, cut at a NUL) as a JSON string: quotes,
 * backslashes and control characters escaped, bytes that are not UTF-8
 * replaced by U+FFFD.
 */
static void put_str(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n = strnlen(s, max);

	fputc('"', f);
	while (i < n) {
		size_t len = utf8_len(p + i, n - i);

		if (!len) {
			fputs("\\ufffd", f);
			i++;
		} else if (len > 1) {
			fwrite(p + i, 1, len, f);
			i += len;
		} else if (p[i] == '"' || p[i] == '\\') {
			fputc('\\', f);
			fputc(p[i++], f);
		} else if (p[i] < 0x20 || p[i] == 0x7f) {
			fprintf(f, "\\u%04x", p[i++]);
		} else {
			fputc(p[i++], f);
		}
	}
	fputc('"', f);
}

/* Nanoseconds from the capture's start. */
static uint64_t pf_ns(const struct pf *p, uint64_t tsc)
{
	if (tsc <= p->tsc0)
		return 0;
	return (uint64_t)((unsigned __int128)(tsc - p->tsc0) * 1000000000u / p->hz);
}

/* @ns as microseconds with 3 decimals. */
static void put_us(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%03u", ns / 1000, (unsigned int)(ns % 1000));
}

/*
 * Start an event: {"ph":..[,"name":..],"pid":..,"tid":..[,"ts":..]. An E
 * has no name: Perfetto closes the innermost slice with an E that names
 * none, and looks for a slice of that name when it has one.
 */
static void ev(struct pf *p, const char *ph, const char *name, uint32_t pid, uint32_t tid,
	       const uint64_t *ns)
{
	FILE *f = p->f;

	fputs(p->first ? "\n" : ",\n", f);
	p->first = false;
	fprintf(f, "{\"ph\":\"%s\"", ph);
	if (name) {
		fputs(",\"name\":", f);
		put_str(f, name, SIZE_MAX);
	}
	fprintf(f, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32, pid, tid);
	if (ns) {
		fputs(",\"ts\":", f);
		put_us(f, *ns);
	}
}

static void meta_name(struct pf *p, const char *what, uint32_t pid, uint32_t tid,
		      const char *name)
{
	ev(p, "M", what, pid, tid, NULL);
	fputs(",\"args\":{\"name\":", p->f);
	put_str(p->f, name, 16);
	fputs("}}", p->f);
}

static void meta_sort(struct pf *p, const char *what, uint32_t pid, uint32_t tid, int64_t idx)
{
	ev(p, "M", what, pid, tid, NULL);
	fprintf(p->f, ",\"args\":{\"sort_index\":%" PRId64 "}}", idx);
}

/* ---------------------------------------------------------------------- */
/* CPU tracks                                                               */

static const char *ctx_kind_name(uint8_t kind)
{
	static const char *const names[] = {
		[NSIGHT_CTX_K_LOST] = "lost",
		[NSIGHT_CTX_K_UNKNOWN] = "unknown",
		[NSIGHT_CTX_K_TASK] = "task",
		[NSIGHT_CTX_K_SWAPPER] = "swapper",
		[NSIGHT_CTX_K_IDLE] = "idle",
		[NSIGHT_CTX_K_IRQ] = "irq",
		[NSIGHT_CTX_K_SOFTIRQ] = "softirq",
		[NSIGHT_CTX_K_FAULT] = "fault",
		[NSIGHT_CTX_K_WORK] = "work",
		[NSIGHT_CTX_K_FUNC] = "func",
	};

	return kind < sizeof(names) / sizeof(names[0]) && names[kind] ? names[kind] : "?";
}

/*
 * The chain of contexts of @ctx, outermost first, in @out; how many. Any
 * chains give well-formed slices (each segment's is diffed against the
 * one open), so one too deep (never: timeline and function depths are
 * bounded) is only cut.
 */
static size_t chain_of(const struct nsight_timeline *tl, uint32_t ctx, uint32_t *out)
{
	uint32_t inner[PF_CHAIN], c;
	size_t n = 0, i;

	/* Parents come before their children: a loop cannot happen. */
	for (c = ctx; c < tl->n_ctx && n < PF_CHAIN;
	     c = tl->ctx[c].parent < c ? tl->ctx[c].parent : PF_NONE)
		inner[n++] = c;
	for (i = 0; i < n; i++)
		out[i] = inner[n - 1 - i];
	return n;
}

/* B of context @c on @cpu at @ns; @seg_key: the segment's key. */
static void ctx_begin(struct pf *p, uint32_t cpu, uint32_t c, uint32_t seg_key, uint64_t ns)
{
	const struct nsight_timeline *tl = &p->a->tl;
	const struct nsight_keys *keys = p->a->keys;
	const struct nsight_ctx *x = &tl->ctx[c];
	const char *name, *sym;
	FILE *f = p->f;

	/* Idle: the key the diagnosis sees, "idle:<what ran before>". */
	if (x->kind == NSIGHT_CTX_K_IDLE && nsight_key_kind(keys, seg_key) == NSIGHT_KEY_IDLE)
		nsight_key_format(keys, seg_key, p->key, sizeof(p->key));
	else
		nsight_key_format(keys, x->key, p->key, sizeof(p->key));
	switch (x->kind) {
	case NSIGHT_CTX_K_LOST:
		name = "lost records";
		break;
	case NSIGHT_CTX_K_IDLE:
		name = "idle";
		break;
	case NSIGHT_CTX_K_FUNC:
		/* "func:<context> > <symbol>": the symbol. */
		sym = strrchr(p->key, '>');
		name = sym && sym[1] == ' ' ? sym + 2 : p->key;
		break;
	default:
		name = p->key;
	}
	ev(p, "B", name, PF_CPU_PID, cpu + 1, &ns);
	fprintf(f, ",\"cat\":\"%s\",\"args\":{\"kind\":\"%s\",\"key\":", ctx_kind_name(x->kind),
		ctx_kind_name(x->kind));
	put_str(f, p->key, sizeof(p->key));
	/* The timeline keeps an irq's number and a softirq's vector in tid. */
	if (x->tid != NSIGHT_TL_NONE)
		fprintf(f, ",\"%s\":%" PRIu32, x->kind == NSIGHT_CTX_K_IRQ ? "irq" :
			x->kind == NSIGHT_CTX_K_SOFTIRQ ? "vec" : "tid", x->tid);
	if (x->occ != c)
		fprintf(f, ",\"occ\":%" PRIu32, x->occ);
	if (x->kind == NSIGHT_CTX_K_IDLE || x->kind == NSIGHT_CTX_K_SWAPPER) {
		if (nsight_key_kind(keys, seg_key) == NSIGHT_KEY_IDLE) {
			fputs(",\"after\":", f);
			put_str(f, nsight_key_name(keys, seg_key), NSIGHT_KEY_NAME_MAX + 1);
		}
	}
	fputs("}}", f);
}

static void ctx_end(struct pf *p, uint32_t cpu, uint64_t ns)
{
	ev(p, "E", NULL, PF_CPU_PID, cpu + 1, &ns);
	fputc('}', p->f);
}

/*
 * One CPU's segments as B/E slices: at each segment, close what its chain
 * no longer has and open what it adds.
 */
static void cpu_track(struct pf *p, uint32_t cpu)
{
	const struct nsight_timeline *tl = &p->a->tl;
	const struct nsight_tl_cpu *c = &tl->cpus[cpu];
	uint64_t last = c->last < p->hi ? c->last : p->hi;	/* cut at the range */
	uint32_t open[PF_CHAIN], chain[PF_CHAIN];
	size_t n_open = 0, i;
	uint64_t ns = 0;

	for (i = 0; i < c->n; i++) {
		const struct nsight_seg *sg = &c->segs[i];
		uint64_t end = i + 1 < c->n ? c->segs[i + 1].start : c->last;
		size_t n, same = 0, k;

		/* A last segment that lasts no time: nothing ran in it. */
		if (i + 1 == c->n && sg->start >= c->last)
			break;
		/* Outside the range: cut at its edges. */
		if (end <= p->lo)
			continue;
		if (sg->start >= p->hi)
			break;
		n = sg->ctx < tl->n_ctx ? chain_of(tl, sg->ctx, chain) : 0;
		ns = pf_ns(p, sg->start > p->lo ? sg->start : p->lo);
		while (same < n && same < n_open && open[same] == chain[same])
			same++;
		while (n_open > same) {
			ctx_end(p, cpu, ns);
			n_open--;
		}
		for (k = same; k < n; k++) {
			ctx_begin(p, cpu, chain[k], sg->key, ns);
			open[n_open++] = chain[k];
		}
	}
	if (c->n && pf_ns(p, last) > ns)
		ns = pf_ns(p, last);
	while (n_open--)
		ctx_end(p, cpu, ns);
}

/* ---------------------------------------------------------------------- */
/* Messages                                                                 */

struct pf_dx {
	uint32_t g, m;		/* group and its tail message, PF_NONE */
};

static uint32_t msg_pid(const struct nsight_msg *m)
{
	return m->pid ? m->pid : PF_UNKNOWN_PID;
}

/* Stage times of @m in ns, never going back. */
static void msg_times(const struct pf *p, const struct nsight_msg *m, uint64_t *ns,
		      unsigned int *n_st)
{
	unsigned int n = nsight_msg_n_stages(m->dir), st;

	if (m->dir == NSIGHT_MSG_TX && !m->t[NSIGHT_TX_DONE].valid)
		n--;
	for (st = 0; st < n; st++) {
		const struct nsight_msg_time *t = &m->t[st];
		int64_t rec;

		ns[st] = pf_ns(p, t->tsc);
		/* A hardware time: its distance to the packet record's time. */
		if (t->hw && t->timed &&
		    nsight_tc_convert(&p->a->tc, t->tsc, NSIGHT_CLOCK_REALTIME, &rec) !=
		    NSIGHT_TC_UNAVAILABLE) {
			int64_t delta = t->real_ns - rec;

			if (delta < 0)
				ns[st] = (uint64_t)-delta > ns[st] ? 0 : ns[st] - (uint64_t)-delta;
			else
				ns[st] += (uint64_t)delta;
		}
	}
	/* n first: a hardware time after h is clamped (the others are in order). */
	for (st = n - 1; st > 0; st--)
		if (ns[st - 1] > ns[st])
			ns[st - 1] = ns[st];
	*n_st = n;
}

static void msg_causes(struct pf *p, const struct nsight_dx *dx, const struct pf_dx *x)
{
	const struct nsight_dx_group *g = &dx->groups[x->g];
	const struct nsight_dx_msg *dm = &g->msgs[x->m];
	FILE *f = p->f;
	bool first = true;
	size_t i;

	fprintf(f, ",\"tail\":true,\"deviation_ns\":%" PRId64, dm->deviation);
	if (dm->has_coverage)
		fprintf(f, ",\"coverage_pct\":%.1f", dm->coverage * 100.0);
	if (!dm->n_mc)
		return;
	fputs(",\"causes\":[", f);
	for (i = 0; i < dm->n_mc && dm->mc + i < g->n_mcs; i++) {
		const struct nsight_dx_mcause *mc = &g->mcs[dm->mc + i];
		char name[NSIGHT_KEY_NAME_MAX * 2 + 8];

		if (mc->cause >= g->n_causes)
			continue;
		snprintf(name, sizeof(name), "%s (%s)", g->causes[mc->cause].category,
			 nsight_role_name(g->causes[mc->cause].role));
		fputs(first ? "{\"cause\":" : ",{\"cause\":", f);
		first = false;
		put_str(f, name, sizeof(name));
		fprintf(f, ",\"dev_ns\":%" PRId64 "}", mc->dev);
	}
	fputc(']', f);
}

static void msg_track(struct pf *p, size_t idx, const struct nsight_dx *dx, const struct pf_dx *x)
{
	const struct nsight_msg *m = &p->a->lt.msgs[idx];
	const char *dir = nsight_msg_dir_name(m->dir);
	uint32_t pid = msg_pid(m);
	char name[48], flow[128], proto[8], seg[32];
	uint64_t ns[NSIGHT_MSG_STAGES];
	unsigned int n, st;
	FILE *f = p->f;
	bool rx = m->dir == NSIGHT_MSG_RX;

	msg_times(p, m, ns, &n);
	snprintf(name, sizeof(name), "%s %" PRIu64, dir, m->id);
	ev(p, "b", name, pid, m->tid, &ns[0]);
	fprintf(f, ",\"cat\":\"%s\",\"id\":%zu,\"args\":{\"msg_id\":%" PRIu64 ",\"protocol\":\"%s\",\"comm\":",
		dir, idx + 1, m->id, nsight_proto_name(m->protocol, proto, sizeof(proto)));
	put_str(f, m->comm, sizeof(m->comm));
	fprintf(f, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"flow\":", m->pid, m->tid);
	put_str(f, nsight_flow_format(&m->flow, flow, sizeof(flow)), sizeof(flow));
	fprintf(f, ",\"latency_ns\":%" PRId64, m->total_ns);
	if (rx)
		fprintf(f, ",\"cores\":\"%" PRIu32 "->%" PRIu32 "\",\"receive_cpu\":%" PRIu32
			",\"app_cpu\":%" PRIu32, m->t[NSIGHT_RX_H].cpu, m->t[NSIGHT_RX_A].cpu,
			m->t[NSIGHT_RX_H].cpu, m->t[NSIGHT_RX_A].cpu);
	else
		fprintf(f, ",\"cores\":\"%" PRIu32 "->%" PRIu32 "\",\"send_cpu\":%" PRIu32
			",\"xmit_cpu\":%" PRIu32, m->t[NSIGHT_TX_SEND].cpu, m->t[NSIGHT_TX_XMIT].cpu,
			m->t[NSIGHT_TX_SEND].cpu, m->t[NSIGHT_TX_XMIT].cpu);
	fprintf(f, ",\"packets\":%" PRIu32 ",\"bytes\":%" PRIu64, m->packets, m->bytes);
	if (rx && m->t[NSIGHT_RX_N].hw)
		fputs(",\"hw_nic_time\":true", f);
	if (m->fifo)
		fputs(",\"fifo\":true", f);
	if (x && x->g != PF_NONE)
		msg_causes(p, dx, x);
	fputs("}}", f);

	for (st = 0; st + 1 < n; st++) {
		snprintf(seg, sizeof(seg), "%s->%s", nsight_msg_stage_name(m->dir, st),
			 nsight_msg_stage_name(m->dir, st + 1));
		ev(p, "b", seg, pid, m->tid, &ns[st]);
		fprintf(f, ",\"cat\":\"%s\",\"id\":%zu,\"args\":{\"ns\":%" PRId64
			",\"from_cpu\":%" PRIu32 ",\"to_cpu\":%" PRIu32 "}}", dir, idx + 1,
			m->seg_ns[st], m->t[st].cpu, m->t[st + 1].cpu);
		ev(p, "e", seg, pid, m->tid, &ns[st + 1]);
		fprintf(f, ",\"cat\":\"%s\",\"id\":%zu}", dir, idx + 1);
	}
	ev(p, "e", name, pid, m->tid, &ns[n - 1]);
	fprintf(f, ",\"cat\":\"%s\",\"id\":%zu}", dir, idx + 1);

	/* The hand-off, from the receive core to the application core. */
	if (rx && m->t[NSIGHT_RX_H].cpu < p->a->tl.nr_cpus &&
	    m->t[NSIGHT_RX_A].cpu < p->a->tl.nr_cpus) {
		ev(p, "s", "handoff", PF_CPU_PID, m->t[NSIGHT_RX_H].cpu + 1, &ns[NSIGHT_RX_H]);
		fprintf(f, ",\"cat\":\"handoff\",\"id\":%zu,\"args\":{\"msg\":", idx + 1);
		put_str(f, name, sizeof(name));
		fputs("}}", f);
		ev(p, "f", "handoff", PF_CPU_PID, m->t[NSIGHT_RX_A].cpu + 1, &ns[NSIGHT_RX_A]);
		fprintf(f, ",\"cat\":\"handoff\",\"id\":%zu,\"bp\":\"e\"}", idx + 1);
	}
}

/* The processes of the applications: one per pid, named by its first message's comm. */
static int app_processes(struct pf *p, struct nsight_diag *d)
{
	const struct nsight_lifetimes *lt = &p->a->lt;
	struct nsight_u64map seen;
	size_t i;
	int err = 0;

	nsight_u64map_init(&seen);
	for (i = 0; i < lt->n; i++) {
		const struct nsight_msg *m = &lt->msgs[i];
		bool added;

		if (m->reason != NSIGHT_MSG_COMPLETE)
			continue;
		if (!nsight_u64map_put(&seen, msg_pid(m), 0, &added)) {
			err = nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
			break;
		}
		if (added)
			meta_name(p, "process_name", msg_pid(m), 0,
				  m->pid && m->comm[0] ? m->comm : "unknown");
	}
	nsight_u64map_fini(&seen);
	return err;
}

/* Index of each diagnosed tail message's group and entry, by message. */
static struct pf_dx *dx_index(const struct nsight_lifetimes *lt, const struct nsight_dx *dx)
{
	struct pf_dx *x = malloc((lt->n ? lt->n : 1) * sizeof(*x));
	size_t g, k;

	if (!x)
		return NULL;
	for (k = 0; k < lt->n; k++)
		x[k] = (struct pf_dx){ PF_NONE, PF_NONE };
	for (g = 0; dx && g < dx->n; g++)
		for (k = 0; k < dx->groups[g].n_msgs; k++)
			if (dx->groups[g].msgs[k].msg < lt->n)
				x[dx->groups[g].msgs[k].msg] = (struct pf_dx){ (uint32_t)g, (uint32_t)k };
	return x;
}

/* ---------------------------------------------------------------------- */

int nsight_perfetto_write(FILE *f, const struct nsight_analysis *a, const struct nsight_dx *dx,
			  struct nsight_diag *d)
{
	struct pf p = { .f = f, .a = a, .first = true, .lo = 0, .hi = UINT64_MAX };
	const struct nsight_lifetimes *lt = &a->lt;
	bool ctx = a->tl.finished && a->tl.cpus;
	uint32_t nr_cpus = ctx ? a->tl.nr_cpus : a->sum.nr_cpus, cpu;
	struct pf_dx *x = NULL;
	char name[32];
	int64_t start;
	size_t i;

	p.tsc0 = a->sum.have_tsc ? a->sum.tsc_first : 0;
	p.hz = a->tc.tsc_hz ? a->tc.tsc_hz : a->sum.hdr.tsc_hz;
	if (a->have_range) {
		p.lo = a->range_lo;
		p.hi = a->range_hi;
	}
	if (a->have_lifetimes && lt->n) {
		x = dx_index(lt, dx);
		if (!x) {
			nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
			return -1;
		}
	}

	fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"nsight-analyze %s\","
		"\"time\":\"TSC since the capture's first record\",\"tsc_hz\":%" PRIu64
		",\"tsc_first\":%" PRIu64, NSIGHT_TOOLS_VERSION, p.hz ? p.hz : 1000000000u, p.tsc0);
	if (!p.hz)
		fputs(",\"tsc_hz_assumed\":true", f);
	if (a->have_range)
		fprintf(f, ",\"range_tsc\":[%" PRIu64 ",%" PRIu64 "]", p.lo, p.hi);
	if (a->sum.have_tsc &&
	    nsight_tc_convert(&a->tc, p.tsc0, NSIGHT_CLOCK_REALTIME, &start) != NSIGHT_TC_UNAVAILABLE)
		fprintf(f, ",\"start_realtime_ns\":%" PRId64, start);
	fprintf(f, ",\"cpus\":%" PRIu32 ",\"messages\":%zu,\"complete\":%" PRIu64 "}"
		",\"traceEvents\":[", nr_cpus, a->have_lifetimes ? lt->n : 0,
		a->have_lifetimes ? lt->n_complete : 0);
	if (!p.hz)
		p.hz = 1000000000u;

	meta_name(&p, "process_name", PF_CPU_PID, 0, "CPUs");
	meta_sort(&p, "process_sort_index", PF_CPU_PID, 0, -1);
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		snprintf(name, sizeof(name), "cpu %" PRIu32, cpu);
		meta_name(&p, "thread_name", PF_CPU_PID, cpu + 1, name);
		meta_sort(&p, "thread_sort_index", PF_CPU_PID, cpu + 1, cpu);
	}
	if (a->have_lifetimes && app_processes(&p, d)) {
		free(x);
		return -1;
	}
	for (cpu = 0; ctx && cpu < nr_cpus && !ferror(f); cpu++)
		cpu_track(&p, cpu);
	for (i = 0; a->have_lifetimes && i < lt->n && !ferror(f); i++)
		if (lt->msgs[i].reason == NSIGHT_MSG_COMPLETE)
			msg_track(&p, i, dx, x ? &x[i] : NULL);
	fputs("\n]}\n", f);
	free(x);
	if (fflush(f) || ferror(f)) {
		nsight_diag_set(d, NSIGHT_E_IO, "writing the trace failed: %s", strerror(errno));
		return -1;
	}
	return 0;
}
