// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/usyms.h"
#include "base/vec.h"

/* Longest "symbol [file]" kept (C++ names are cut). */
#define USYM_NAME_MAX	128

void nsight_usyms_init(struct nsight_usyms *us)
{
	memset(us, 0, sizeof(*us));
	nsight_u64map_init(&us->by_pid);
}

void nsight_usyms_fini(struct nsight_usyms *us)
{
	free(us->procs);
	free(us->v);
	free(us->strs);
	nsight_u64map_fini(&us->by_pid);
	memset(us, 0, sizeof(*us));
}

static int nomem(struct nsight_diag *d)
{
	return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
}

/* The process @pid, made if new; NULL when out of memory. */
static struct nsight_uproc *proc(struct nsight_usyms *us, uint32_t pid)
{
	bool added;
	uint32_t *i = nsight_u64map_put(&us->by_pid, pid, (uint32_t)us->n_procs, &added);

	if (!i)
		return NULL;
	if (added) {
		if (nsight_vec_reserve((void **)&us->procs, &us->cap_procs, us->n_procs + 1,
				       sizeof(*us->procs))) {
			*i = UINT32_MAX;	/* not made: found as absent */
			return NULL;
		}
		us->procs[us->n_procs++] = (struct nsight_uproc){ .pid = pid };
	}
	return *i < us->n_procs ? &us->procs[*i] : NULL;
}

int nsight_usyms_add_record(struct nsight_usyms *us, const struct nsight_rec *rec,
			    struct nsight_diag *d)
{
	struct nsight_rec_pt_cr3 r;
	struct nsight_uproc *p;

	if (rec->hdr.type != NSIGHT_REC_PT_CR3)
		return 0;
	memcpy(&r, rec->data, sizeof(r));
	p = proc(us, r.pid);
	if (!p)
		return nomem(d);
	p->records++;
	if (!p->have_cr3 || rec->hdr.tsc >= p->cr3_tsc) {
		p->have_cr3 = true;
		p->cr3 = r.cr3;
		p->cr3_flags = r.flags;
		p->cr3_tsc = rec->hdr.tsc;
	}
	return 0;
}

static uint32_t put_str(struct nsight_usyms *us, const char *s, size_t len)
{
	size_t at = us->strs_len;

	if (nsight_vec_reserve((void **)&us->strs, &us->strs_cap, at + len + 1, 1))
		return UINT32_MAX;
	memcpy(us->strs + at, s, len);
	us->strs[at + len] = '\0';
	us->strs_len += len + 1;
	return (uint32_t)at;
}

int nsight_usyms_add(struct nsight_usyms *us, const struct nsight_utext *u,
		     struct nsight_diag *d)
{
	const char *file = strrchr(u->hdr.path, '/');
	uint64_t map_end = u->hdr.addr + u->hdr.code_len;
	char name[USYM_NAME_MAX];
	uint32_t i;

	file = file ? file + 1 : u->hdr.path;
	if (!proc(us, u->hdr.pid))
		return nomem(d);
	us->mappings++;
	for (i = 0; i < u->hdr.n_syms; i++) {
		struct nsight_usym s;
		uint32_t at;
		int k;

		nsight_utext_sym(u, i, &s);
		if (s.addr < u->hdr.addr || s.addr >= map_end)
			continue;
		k = snprintf(name, sizeof(name), "%s [%s]", nsight_utext_sym_name(u, &s), file);
		at = put_str(us, name, k < 0 ? 0 : (size_t)k < sizeof(name) ? (size_t)k :
			     sizeof(name) - 1);
		if (at == UINT32_MAX ||
		    nsight_vec_reserve((void **)&us->v, &us->cap, us->n + 1, sizeof(*us->v)))
			return nomem(d);
		us->v[us->n++] = (struct nsight_usym_ent){
			.addr = s.addr,
			/* No size: up to the next symbol, set when sorted. */
			.end = s.size ? s.addr + s.size : 0, .map_end = map_end,
			.pid = u->hdr.pid, .name = at };
	}
	us->sorted = false;
	return 0;
}

static int ent_cmp(const void *a, const void *b)
{
	const struct nsight_usym_ent *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

void nsight_usyms_sort(struct nsight_usyms *us)
{
	size_t i;

	if (us->n)
		qsort(us->v, us->n, sizeof(*us->v), ent_cmp);
	/* A symbol without a size ends where the next one of its process starts. */
	for (i = 0; i < us->n; i++) {
		struct nsight_usym_ent *e = &us->v[i];
		size_t k;

		if (e->end)
			continue;
		e->end = e->map_end;
		for (k = i + 1; k < us->n && us->v[k].pid == e->pid; k++)
			if (us->v[k].addr > e->addr) {
				if (us->v[k].addr < e->end)
					e->end = us->v[k].addr;
				break;
			}
	}
	us->sorted = true;
}

const struct nsight_uproc *nsight_usyms_proc(const struct nsight_usyms *us, uint32_t pid)
{
	const uint32_t *i = nsight_u64map_get(&us->by_pid, pid);

	return i && *i < us->n_procs ? &us->procs[*i] : NULL;
}

const char *nsight_usyms_find(const struct nsight_usyms *us, uint32_t pid, uint64_t addr)
{
	size_t lo = 0, hi = us->n;

	if (!us->sorted)
		return NULL;
	/* The last symbol of @pid at or below @addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct nsight_usym_ent *e = &us->v[mid];

		if (e->pid < pid || (e->pid == pid && e->addr <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || us->v[lo - 1].pid != pid || addr >= us->v[lo - 1].end)
		return NULL;
	return us->strs + us->v[lo - 1].name;
}
