// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/samples.h"
#include "base/vec.h"

void nsight_samples_init(struct nsight_samples *s)
{
	memset(s, 0, sizeof(*s));
}

void nsight_samples_fini(struct nsight_samples *s)
{
	free(s->v);
	free(s->ips);
	memset(s, 0, sizeof(*s));
}

static int nomem(struct nsight_diag *d)
{
	return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
}

int nsight_samples_add(struct nsight_samples *s, const struct nsight_rec *rec,
		       struct nsight_diag *d)
{
	struct nsight_rec_sample r;
	struct nsight_sample *e;

	if (rec->hdr.type != NSIGHT_REC_SAMPLE)
		return 0;
	memcpy(&r, rec->data, sizeof(r));
	if (r.nr > NSIGHT_SAMPLE_MAX_DEPTH ||
	    rec->hdr.size < sizeof(r) + (size_t)r.nr * sizeof(uint64_t))
		return nsight_diag_set(d, NSIGHT_E_RECORD,
				       "record at byte %" PRIu64 " (cpu %" PRIu32 "): sample of %u bytes cannot hold its %u frames",
				       rec->offset, rec->hdr.cpu, rec->hdr.size, r.nr);
	if (nsight_vec_reserve((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v)) ||
	    nsight_vec_reserve((void **)&s->ips, &s->cap_ips, s->n_ips + r.nr, sizeof(*s->ips)))
		return nomem(d);
	s->sorted = false;
	e = &s->v[s->n++];
	*e = (struct nsight_sample){ .tsc = rec->hdr.tsc, .cpu = rec->hdr.cpu,
				     .period_ns = r.period_ns, .tid = r.tid,
				     .ips = (uint32_t)s->n_ips, .nr = r.nr, .flags = r.flags };
	if (r.nr)	/* with no frame yet, s->ips is NULL */
		memcpy(s->ips + s->n_ips, rec->data + sizeof(r), (size_t)r.nr * sizeof(uint64_t));
	s->n_ips += r.nr;
	if (!s->period_min || r.period_ns < s->period_min)
		s->period_min = r.period_ns;
	if (r.period_ns > s->period_max)
		s->period_max = r.period_ns;
	return 0;
}

int nsight_samples_add_exact(struct nsight_samples *s, uint32_t cpu, uint64_t lo, uint64_t hi,
			     const uint64_t *ips, uint16_t nr, uint32_t pid,
			     struct nsight_diag *d)
{
	if (nsight_vec_reserve((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v)) ||
	    nsight_vec_reserve((void **)&s->ips, &s->cap_ips, s->n_ips + nr, sizeof(*s->ips)))
		return nomem(d);
	s->sorted = false;
	s->v[s->n++] = (struct nsight_sample){ .tsc = hi, .lo = lo, .cpu = cpu, .tid = UINT32_MAX,
					       .ips = (uint32_t)s->n_ips, .nr = nr,
					       .flags = NSIGHT_SAMPLE_EXACT, .pid = pid };
	if (nr)
		memcpy(s->ips + s->n_ips, ips, (size_t)nr * sizeof(uint64_t));
	s->n_ips += nr;
	s->exact++;
	return 0;
}

/* Functions that enter a context: the frames from there out belong to it. */
static bool is_boundary(const char *sym)
{
	static const char *const names[] = {
		"handle_softirqs", "__do_softirq", "do_softirq", "run_ksoftirqd",
		"__irq_exit_rcu", "irq_exit_rcu", "__handle_irq_event_percpu",
		"handle_irq_event", "do_syscall_64", "process_one_work", "worker_thread",
		"kthread", "ret_from_fork", "ret_from_fork_asm", "do_idle",
		"cpu_startup_entry", "exc_page_fault", "smpboot_thread_fn",
		"common_interrupt",
	};
	size_t i;

	if (!strncmp(sym, "asm_", 4) || !strncmp(sym, "sysvec_", 7) ||
	    !strncmp(sym, "__sysvec_", 9) || !strncmp(sym, "entry_", 6))
		return true;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(sym, names[i]))
			return true;
	return false;
}

/* One CPU's chain of function contexts from the previous sample. */
struct chain {
	uint32_t base;		/* the timeline context they nest in */
	uint64_t end;		/* where the previous sample's stretch ended */
	size_t n;
	uint32_t key[NSIGHT_FUNC_DEPTH];	/* outermost first */
	uint32_t ctx[NSIGHT_FUNC_DEPTH];
};

struct piece {
	uint64_t lo, hi;
	uint32_t ctx, key;
	size_t seg;
};

/* The function keys of @e's frames, outermost first; returns how many. */
static size_t frame_keys(struct nsight_samples *s, const struct nsight_sample *e,
			 const struct nsight_ksyms *ks, const struct nsight_usyms *us,
			 struct nsight_timeline *tl, uint32_t base, uint32_t *keys, int *err)
{
	char outer[NSIGHT_KEY_NAME_MAX + 1], name[NSIGHT_KEY_NAME_MAX + 1];
	const char *names[NSIGHT_FUNC_DEPTH], *prev = NULL;
	uint32_t inner[NSIGHT_FUNC_DEPTH];
	size_t n = 0, i, tracer = 0;
	bool in_task = tl->ctx[base].kind == NSIGHT_CTX_K_TASK, user = false;

	nsight_key_format(tl->keys, tl->ctx[base].key, outer, sizeof(outer));
	for (i = 0; i < e->nr && n < NSIGHT_FUNC_DEPTH; i++) {
		const struct nsight_ksym *sym;
		const char *sname;
		uint64_t ip = s->ips[e->ips + i], off;

		/* User code of an exact stretch: its process's symbols. */
		if (e->flags & NSIGHT_SAMPLE_EXACT && ip < NSIGHT_USER_END) {
			sname = us && e->pid ? nsight_usyms_find(us, e->pid, ip) : NULL;
			if (!sname) {
				s->unsymbolized++;
				break;
			}
			user = true;
			if (prev && !strcmp(prev, sname))
				continue;
			names[n++] = prev = sname;
			continue;
		}
		/* A return address may be one past its call's function. */
		sym = nsight_ksyms_find(ks, i && !(e->flags & NSIGHT_SAMPLE_EXACT) ? ip - 1 : ip,
					&off);
		if (!sym) {
			s->unsymbolized++;
			break;
		}
		sname = nsight_ksym_name(ks, sym);
		if (is_boundary(sname))
			break;
		if (prev && !strcmp(prev, sname))
			continue;	/* recursion is one activity */
		prev = sname;
		/* nsight's own probes, and what they call, are the tracing. */
		if (!strcmp(ks->strs + sym->mod, "nsight"))
			tracer = n + 1;
		names[n++] = sname;
	}
	if (tracer) {
		names[tracer - 1] = NSIGHT_FUNC_TRACING;
		memmove(names, names + tracer - 1, (n - tracer + 1) * sizeof(names[0]));
		n -= tracer - 1;
	}
	s->user_named += user;
	for (i = 0; i < n; i++) {
		int k = snprintf(name, sizeof(name), "%s > %s", outer, names[i]);

		inner[i] = nsight_keys_intern(tl->keys, NSIGHT_KEY_FUNC, name, k > 0 ? (size_t)k : 0);
		if (inner[i] == NSIGHT_KEY_NONE ||
		    (in_task && nsight_keys_func_in_app(tl->keys, inner[i]) == NSIGHT_KEY_NONE)) {
			*err = -NSIGHT_E_NOMEM;
			return 0;
		}
	}
	for (i = 0; i < n; i++)
		keys[i] = inner[n - 1 - i];
	return n;
}

static int sample_cmp(const void *a, const void *b)
{
	const struct nsight_sample *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	return x->ips < y->ips ? -1 : x->ips > y->ips;	/* stream order */
}

/* Rebuild @cpu's segments with @pieces (sorted, each inside its segment). */
static int splice(struct nsight_tl_cpu *c, const struct piece *pc, size_t np)
{
	struct nsight_seg *out = NULL;
	size_t n = 0, cap = 0, i, p = 0;

	if (!np)
		return 0;
	for (i = 0; i < c->n; i++) {
		struct nsight_seg sg = c->segs[i];
		uint64_t at = sg.start, end = i + 1 < c->n ? c->segs[i + 1].start : c->last;

		for (; p < np && pc[p].seg == i; p++) {
			if (nsight_vec_reserve((void **)&out, &cap, n + 2, sizeof(*out)))
				goto nomem;
			if (pc[p].lo > at)
				out[n++] = (struct nsight_seg){ at, sg.ctx, sg.key };
			out[n++] = (struct nsight_seg){ pc[p].lo, pc[p].ctx, pc[p].key };
			at = pc[p].hi;
		}
		if (at < end || (at == sg.start && i + 1 == c->n)) {
			if (nsight_vec_reserve((void **)&out, &cap, n + 1, sizeof(*out)))
				goto nomem;
			out[n++] = (struct nsight_seg){ at, sg.ctx, sg.key };
		}
	}
	free(c->segs);
	c->segs = out;
	c->n = n;
	c->cap = cap;
	return 0;
nomem:
	free(out);
	return -1;
}

int nsight_samples_apply(struct nsight_samples *s, const struct nsight_ksyms *ks,
			 const struct nsight_usyms *us, uint64_t tsc_hz,
			 struct nsight_timeline *tl, struct nsight_diag *d)
{
	struct piece *pc = NULL;
	size_t npc = 0, cap_pc = 0, i = 0;
	int err = 0;

	if (!s->n || !tl->finished)
		return 0;
	qsort(s->v, s->n, sizeof(*s->v), sample_cmp);
	s->sorted = true;
	while (i < s->n && !err) {
		uint32_t cpu = s->v[i].cpu;
		struct chain ch = { .base = NSIGHT_TL_NONE };
		struct nsight_tl_cpu *c;

		npc = 0;
		for (; i < s->n && s->v[i].cpu == cpu; i++) {
			const struct nsight_sample *e = &s->v[i];
			uint64_t period = (uint64_t)((unsigned __int128)e->period_ns * tsc_hz /
						     1000000000u);
			uint32_t keys[NSIGHT_FUNC_DEPTH], base, parent;
			uint64_t lo, hi = e->tsc;
			size_t nk, k, same = 0;
			ssize_t si;

			if (e->flags & NSIGHT_SAMPLE_USER) {
				s->user++;
				continue;
			}
			if (e->flags & NSIGHT_SAMPLE_NO_STACK)
				s->no_stack++;
			si = nsight_tl_find(tl, cpu, e->tsc);
			c = cpu < tl->nr_cpus ? &tl->cpus[cpu] : NULL;
			if (si < 0 || !c || e->tsc > c->last ||
			    nsight_ctx_is_gap(tl->ctx[c->segs[si].ctx].kind)) {
				s->outside++;
				continue;
			}
			base = c->segs[si].ctx;
			lo = e->flags & NSIGHT_SAMPLE_EXACT ? e->lo : e->tsc > period ? e->tsc - period : 0;
			if (lo < c->segs[si].start)
				lo = c->segs[si].start;
			if (npc && pc[npc - 1].hi > lo)
				lo = pc[npc - 1].hi;
			nk = frame_keys(s, e, ks, us, tl, base, keys, &err);
			if (err)
				break;
			if (!nk || lo >= hi) {
				s->outside += !nk ? 0 : 1;
				continue;
			}
			/* Share the outer frames with the sample just before. */
			if (ch.base == base && ch.end == lo)
				while (same < nk && same < ch.n && ch.key[same] == keys[same])
					same++;
			parent = same ? ch.ctx[same - 1] : base;
			for (k = same; k < nk; k++) {
				ch.ctx[k] = nsight_timeline_add_ctx(tl, keys[k], parent, NSIGHT_TL_NONE,
								    tl->ctx[base].tid, NSIGHT_CTX_K_FUNC);
				if (ch.ctx[k] == NSIGHT_TL_NONE) {
					err = -NSIGHT_E_NOMEM;
					break;
				}
				ch.key[k] = keys[k];
				parent = ch.ctx[k];
			}
			if (err)
				break;
			ch.base = base;
			ch.n = nk;
			ch.end = hi;
			if (nsight_vec_reserve((void **)&pc, &cap_pc, npc + 1, sizeof(*pc))) {
				err = -NSIGHT_E_NOMEM;
				break;
			}
			pc[npc++] = (struct piece){ lo, hi, ch.ctx[nk - 1], keys[nk - 1], (size_t)si };
			if (e->flags & NSIGHT_SAMPLE_EXACT)
				s->applied_exact++;
			else
				s->applied++;
		}
		if (!err && cpu < tl->nr_cpus && splice(&tl->cpus[cpu], pc, npc))
			err = -NSIGHT_E_NOMEM;
	}
	free(pc);
	return err ? nomem(d) : 0;
}
