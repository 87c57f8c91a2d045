// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt/pt_evidence.h"
#include "base/vec.h"
#include "format/utext.h"

/* With page table isolation, user code runs on the PGD's user half. */
#define PTI_USER	0x1000ULL

static int nomem(struct nsight_diag *d)
{
	return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
}

int nsight_ptev_init(struct nsight_ptev *p, uint32_t nr_cpus, struct nsight_diag *d)
{
	memset(p, 0, sizeof(*p));
	p->nr_cpus = nr_cpus;
	nsight_usyms_init(&p->usyms);
	p->cpus = calloc(nr_cpus ? nr_cpus : 1, sizeof(*p->cpus));
	return p->cpus ? 0 : nomem(d);
}

void nsight_ptev_fini(struct nsight_ptev *p)
{
	size_t i;

	for (i = 0; p->cpus && i < p->nr_cpus; i++)
		free(p->cpus[i].trace);
	for (i = 0; i < p->n_text; i++)
		free(p->text[i].bytes);
	free(p->cpus);
	free(p->text);
	nsight_usyms_fini(&p->usyms);
	memset(p, 0, sizeof(*p));
}

/* Keep a copy of @len bytes of code at @addr (of process @pid; 0: kernel). */
static int add_text(struct nsight_ptev *p, uint64_t addr, const uint8_t *bytes, uint64_t len,
		    const char *name, size_t name_len, uint32_t pid, struct nsight_diag *d)
{
	struct nsight_ptev_text *t;

	if (!len)
		return 0;
	if (nsight_vec_reserve((void **)&p->text, &p->cap_text, p->n_text + 1, sizeof(*p->text)))
		return nomem(d);
	t = &p->text[p->n_text];
	t->bytes = malloc(len);
	if (!t->bytes)
		return nomem(d);
	memcpy(t->bytes, bytes, len);
	t->addr = addr;
	t->len = len;
	t->pid = pid;
	snprintf(t->name, sizeof(t->name), "%.*s", (int)strnlen(name, name_len), name);
	p->n_text++;
	return 0;
}

int nsight_ptev_add_chunk(struct nsight_ptev *p, const struct nsight_chunk *ch,
			  struct nsight_diag *d)
{
	if (ch->type == NSIGHT_CHUNK_PT && ch->cpu < p->nr_cpus) {
		struct nsight_ptev_cpu *c = &p->cpus[ch->cpu];

		/* An empty chunk adds nothing (and c->trace may still be NULL). */
		if (!ch->size)
			return 0;

		if (nsight_vec_reserve((void **)&c->trace, &c->cap, c->len + ch->size, 1))
			return nomem(d);
		memcpy(c->trace + c->len, ch->payload, ch->size);
		c->len += ch->size;
	} else if (ch->type == NSIGHT_CHUNK_KTEXT) {
		struct nsight_ktext_hdr h;

		memcpy(&h, ch->payload, sizeof(h));
		if (h.len != ch->size - sizeof(h))
			return nsight_diag_set(d, NSIGHT_E_CHUNK,
					       "KTEXT chunk at byte %" PRIu64 ": says %" PRIu64 " bytes of code, has %" PRIu64,
					       ch->offset, (uint64_t)h.len, ch->size - sizeof(h));
		return add_text(p, h.addr, (const uint8_t *)ch->payload + sizeof(h), h.len, h.name,
				sizeof(h.name), 0, d);
	} else if (ch->type == NSIGHT_CHUNK_UTEXT) {
		struct nsight_utext u;
		int err = nsight_utext_parse(ch, &u, d);

		if (!err)
			err = nsight_usyms_add(&p->usyms, &u, d);
		/* pid 0 is no process: its code would be the kernel's. */
		if (!err && u.hdr.pid)
			err = add_text(p, u.hdr.addr, u.code, u.hdr.code_len, u.hdr.path,
				       sizeof(u.hdr.path), u.hdr.pid, d);
		return err;
	}
	return 0;
}

int nsight_ptev_add_record(struct nsight_ptev *p, const struct nsight_rec *rec,
			   struct nsight_diag *d)
{
	struct nsight_rec_pt r;
	struct nsight_ptev_cpu *c;

	if (rec->hdr.type == NSIGHT_REC_PT_CR3)
		return nsight_usyms_add_record(&p->usyms, rec, d);
	if (rec->hdr.type != NSIGHT_REC_PT || rec->hdr.cpu >= p->nr_cpus)
		return 0;
	memcpy(&r, rec->data, sizeof(r));
	c = &p->cpus[rec->hdr.cpu];
	if (r.flags & NSIGHT_PT_START) {
		nsight_pt_config_from_rec(&c->cfg, &r);
		c->have_cfg = true;
	}
	if (r.flags & NSIGHT_PT_STOP)
		c->stop_flags |= r.flags;
	return 0;
}

/* Count the errors of @st for code not in the capture. */
static void note_nomap(struct nsight_ptev *p, uint32_t cpu, const struct nsight_pt_stats *st)
{
	if (!st->nomap)
		return;
	p->nomap += st->nomap;
	p->nomap_user += st->nomap_user;
	if (!p->first_nomap[0])
		snprintf(p->first_nomap, sizeof(p->first_nomap),
			 "cpu %" PRIu32 ": %s code at %#" PRIx64 " (CR3 %#" PRIx64 ")", cpu,
			 st->nomap_ip < NSIGHT_PT_KERNEL_HALF ? "user" : "kernel", st->nomap_ip,
			 st->nomap_space);
}

/* The complete messages' TSC windows on @cpu, merged. */
static int windows(const struct nsight_lifetimes *lt, uint32_t cpu, struct nsight_pt_window **w,
		   size_t *n)
{
	size_t cap = 0, i, k, o;

	*w = NULL;
	*n = 0;
	for (i = 0; i < lt->n; i++) {
		const struct nsight_msg *m = &lt->msgs[i];

		if (m->reason != NSIGHT_MSG_COMPLETE)
			continue;
		for (k = 0; k < m->n_cpus && m->cpus[k] != cpu; k++)
			;
		if (k == m->n_cpus)
			continue;
		if (nsight_vec_reserve((void **)w, &cap, *n + 1, sizeof(**w)))
			return -1;
		(*w)[(*n)++] = (struct nsight_pt_window){ m->tsc_lo, m->tsc_hi };
	}
	/* Sort by start (insertion: messages come nearly in order) and merge. */
	for (i = 1; i < *n; i++) {
		struct nsight_pt_window x = (*w)[i];

		for (k = i; k > 0 && (*w)[k - 1].start > x.start; k--)
			(*w)[k] = (*w)[k - 1];
		(*w)[k] = x;
	}
	for (i = 0, o = 0; i < *n; i++) {
		if (o && (*w)[i].start <= (*w)[o - 1].end) {
			if ((*w)[i].end > (*w)[o - 1].end)
				(*w)[o - 1].end = (*w)[i].end;
		} else {
			(*w)[o++] = (*w)[i];
		}
	}
	*n = o;
	return 0;
}

struct calls {
	struct nsight_pt_call *v;
	size_t n, cap;
	/* The address spaces the CPU ran in (NSIGHT_PT_CALL_SPACE), in order. */
	struct nsight_pt_call *sp;
	size_t n_sp, cap_sp;
};

static int on_call(void *arg, const struct nsight_pt_call *c)
{
	struct calls *cs = arg;

	if (c->flags & NSIGHT_PT_CALL_NO_TSC || c->end <= c->start)
		return 0;
	if (c->flags & NSIGHT_PT_CALL_SPACE) {
		if (nsight_vec_reserve((void **)&cs->sp, &cs->cap_sp, cs->n_sp + 1,
				       sizeof(*cs->sp)))
			return -NSIGHT_E_NOMEM;
		cs->sp[cs->n_sp++] = *c;
		return 0;
	}
	if (nsight_vec_reserve((void **)&cs->v, &cs->cap, cs->n + 1, sizeof(*cs->v)))
		return -NSIGHT_E_NOMEM;
	cs->v[cs->n++] = *c;
	return 0;
}

static int call_cmp(const void *a, const void *b)
{
	const struct nsight_pt_call *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

/* Add [lo, hi) with the active frames, cut at @tl's segments of @cpu. */
static int put_stretch(struct nsight_ptev *p, const struct nsight_timeline *tl, uint32_t cpu,
		       uint64_t lo, uint64_t hi, const uint64_t *ips, uint16_t nr, uint32_t pid,
		       struct nsight_samples *s, struct nsight_diag *d)
{
	while (lo < hi) {
		ssize_t si = nsight_tl_find(tl, cpu, lo);
		uint64_t end = hi;

		if (si >= 0 && (size_t)si + 1 < tl->cpus[cpu].n &&
		    tl->cpus[cpu].segs[si + 1].start < end)
			end = tl->cpus[cpu].segs[si + 1].start;
		if (si < 0 && tl->cpus[cpu].n && tl->cpus[cpu].segs[0].start < end)
			end = tl->cpus[cpu].segs[0].start;
		/* A stretch is placed at its end: keep that inside the segment. */
		if (end - 1 > lo && nsight_samples_add_exact(s, cpu, lo, end - 1, ips, nr, pid, d))
			return -NSIGHT_E_NOMEM;
		p->stretches++;
		lo = end;
	}
	return 0;
}

/*
 * The space the CPU ran in at @t (0: not known) and the next time it may
 * change after @t; *@j is where the search starts and moves on.
 */
static uint64_t space_at(const struct calls *cs, size_t *j, uint64_t t, uint64_t *change)
{
	while (*j < cs->n_sp && cs->sp[*j].end <= t)
		(*j)++;
	*change = UINT64_MAX;
	if (*j == cs->n_sp)
		return 0;
	if (cs->sp[*j].start > t) {
		*change = cs->sp[*j].start;
		return 0;
	}
	*change = cs->sp[*j].end;
	return cs->sp[*j].space;
}

/*
 * Sweep @cs (sorted by start) into stretches of constant stacks. The calls
 * of one space nest: a call that starts inside another ends inside it.
 * A stretch has the frames of the space the CPU ran in then (those of the
 * others stay open underneath, for when it switches back).
 */
static int sweep(struct nsight_ptev *p, const struct nsight_timeline *tl, uint32_t cpu,
		 const struct calls *cs, const struct nsight_u64map *pids,
		 struct nsight_samples *s, struct nsight_diag *d)
{
	const struct nsight_pt_call *open[NSIGHT_FUNC_DEPTH * 16];
	const struct nsight_pt_call *mine[NSIGHT_FUNC_DEPTH * 16];
	uint64_t ips[NSIGHT_FUNC_DEPTH], t, change, space;
	size_t depth = 0, i = 0, j = 0, k, base, n, m;

	if (!cs->n)
		return 0;
	t = cs->v[0].start;
	while (i < cs->n || depth) {
		uint64_t next = UINT64_MAX;

		space = space_at(cs, &j, t, &change);
		if (i < cs->n)
			next = cs->v[i].start;
		for (k = 0; k < depth; k++)
			if (open[k]->end < next)
				next = open[k]->end;
		if (depth && change < next)
			next = change;
		for (m = 0, k = 0; k < depth; k++)
			if (open[k]->space == space)
				mine[m++] = open[k];
		if (m && next > t) {
			/* The frames above the innermost interrupt or far call. */
			for (base = m; base > 0 &&
			     !(mine[base - 1]->flags & (NSIGHT_PT_CALL_ASYNC | NSIGHT_PT_CALL_FAR));
			     base--)
				;
			for (n = 0, k = m; k > base && n < NSIGHT_FUNC_DEPTH; k--)
				if (mine[k - 1]->func)
					ips[n++] = mine[k - 1]->func;
			const uint32_t *pid = nsight_u64map_get(pids, space);

			if (n && put_stretch(p, tl, cpu, t, next, ips, (uint16_t)n, pid ? *pid : 0,
					     s, d))
				return -NSIGHT_E_NOMEM;
		}
		t = next;
		/* Close what ends now, open what starts now. */
		for (k = 0; k < depth;)
			if (open[k]->end <= t)
				memmove(&open[k], &open[k + 1], (--depth - k) * sizeof(open[0]));
			else
				k++;
		for (; i < cs->n && cs->v[i].start <= t; i++)
			if (depth < sizeof(open) / sizeof(open[0]))
				open[depth++] = &cs->v[i];
	}
	return 0;
}

/* Map the space of @cr3 to @u's process, unless a later CR3 record has it. */
static int map_space(struct nsight_u64map *pids, const struct nsight_usyms *us,
		     const struct nsight_uproc *u, uint64_t cr3)
{
	bool added;
	uint32_t *pid = nsight_u64map_put(pids, nsight_pt_space_key(cr3), u->pid, &added);
	const struct nsight_uproc *o;

	if (!pid)
		return -1;
	o = added ? NULL : nsight_usyms_proc(us, *pid);
	/* The page tables of a process that exited, reused by a later one. */
	if (o && u->cr3_tsc > o->cr3_tsc)
		*pid = u->pid;
	return 0;
}

/*
 * The code of every process with a CR3, in its spaces (both halves with
 * PTI), and @pids: space -> process. A mapping the image refuses (it
 * overlaps another of its process) is counted and left out.
 */
static int add_user(struct nsight_ptev *p, struct nsight_pt_image *img,
		    struct nsight_u64map *pids, struct nsight_diag *d)
{
	struct nsight_u64map added;
	size_t i;
	int err = 0;

	nsight_u64map_init(&added);
	for (i = 0; i < p->usyms.n_procs; i++) {
		const struct nsight_uproc *u = &p->usyms.procs[i];

		if (u->have_cr3 && (map_space(pids, &p->usyms, u, u->cr3) ||
				    (u->cr3_flags & NSIGHT_PT_CR3_PTI &&
				     map_space(pids, &p->usyms, u, u->cr3 | PTI_USER))))
			goto nomem;
	}
	for (i = 0; i < p->n_text; i++) {
		const struct nsight_ptev_text *t = &p->text[i];
		const struct nsight_uproc *u = t->pid ? nsight_usyms_proc(&p->usyms, t->pid) : NULL;
		struct nsight_diag ad = { 0 };
		bool fresh;

		if (!u)
			continue;
		if (!nsight_u64map_put(&added, u->pid, 0, &fresh))
			goto nomem;
		if (!u->have_cr3) {
			p->user_no_cr3 += fresh;
			continue;
		}
		err = nsight_pt_image_add_space(img, u->cr3, t->addr, t->bytes, t->len, t->name, &ad);
		if (!err && u->cr3_flags & NSIGHT_PT_CR3_PTI)
			err = nsight_pt_image_add_space(img, u->cr3 | PTI_USER, t->addr, t->bytes,
							t->len, t->name, &ad);
		if (err == -NSIGHT_E_NOMEM)
			goto nomem;
		if (err) {
			p->user_rejected++;
			err = 0;
			continue;
		}
		p->user_procs += fresh;
		p->user_bytes += t->len;
	}
	nsight_u64map_fini(&added);
	return 0;
nomem:
	nsight_u64map_fini(&added);
	return nomem(d);
}

int nsight_ptev_decode(struct nsight_ptev *p, const struct nsight_lifetimes *lt,
		       const struct nsight_timeline *tl, struct nsight_samples *s,
		       struct nsight_diag *d)
{
	struct nsight_pt_image *img = NULL;
	struct nsight_pt_window *win = NULL;
	struct calls cs = { 0 };
	struct nsight_u64map pids;
	size_t n_win, i;
	uint32_t cpu;
	int err = 0;

	nsight_usyms_sort(&p->usyms);
	for (cpu = 0; cpu < p->nr_cpus; cpu++)
		if (p->cpus[cpu].len)
			p->cpus_traced++;
	if (!p->cpus_traced)
		return 0;
	nsight_u64map_init(&pids);
	img = nsight_pt_image_new();
	if (!img) {
		err = nomem(d);
		goto out;
	}
	for (i = 0; i < p->n_text; i++) {
		if (p->text[i].pid)
			continue;
		err = nsight_pt_image_add(img, p->text[i].addr, p->text[i].bytes, p->text[i].len,
					  p->text[i].name, d);
		if (err)
			goto out;
	}
	err = add_user(p, img, &pids, d);
	if (err)
		goto out;
	for (cpu = 0; cpu < p->nr_cpus && cpu < tl->nr_cpus; cpu++) {
		struct nsight_ptev_cpu *c = &p->cpus[cpu];
		struct nsight_pt_stats st;

		if (!c->len)
			continue;
		p->bytes += c->len;
		if (c->stop_flags & NSIGHT_PT_WRAPPED)
			p->wrapped++;
		if (windows(lt, cpu, &win, &n_win)) {
			err = nomem(d);
			goto out;
		}
		cs.n = 0;
		cs.n_sp = 0;
		/* No message on this CPU: nothing to decode. */
		if (n_win) {
			err = nsight_pt_decode(c->trace, c->len, c->have_cfg ? &c->cfg : NULL, img,
					       win, n_win, on_call, &cs, &st, d);
			if (err == -NSIGHT_E_NOMEM) {
				err = nomem(d);
				goto out;
			}
			if (err)
				goto out;
			p->decoded_bytes += st.decoded_bytes;
			p->skipped_bytes += st.skipped_bytes;
			p->lost_bytes += st.lost_bytes;
			p->calls += cs.n;
			p->errors += st.errors;
			p->overflows += st.overflows;
			p->switches += st.switches;
			note_nomap(p, cpu, &st);
			if (st.first_error[0] && !p->first_error[0])
				snprintf(p->first_error, sizeof(p->first_error),
					 "cpu %" PRIu32 " at byte %" PRIu64 ": %s", cpu,
					 st.first_error_offset, st.first_error);
		} else {
			p->skipped_bytes += c->len;
		}
		if (cs.n)
			qsort(cs.v, cs.n, sizeof(*cs.v), call_cmp);
		err = sweep(p, tl, cpu, &cs, &pids, s, d);
		free(win);
		win = NULL;
		if (err)
			goto out;
	}
out:
	free(win);
	free(cs.v);
	free(cs.sp);
	nsight_pt_image_free(img);
	nsight_u64map_fini(&pids);
	return err;
}
