// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <linux/nsight.h>

#include "capture/ksyms.h"

void nsight_ksyms_init(struct nsight_ksyms *ks)
{
	memset(ks, 0, sizeof(*ks));
}

void nsight_ksyms_fini(struct nsight_ksyms *ks)
{
	free(ks->v);
	free(ks->strs);
	memset(ks, 0, sizeof(*ks));
}

/* Append @n bytes and a NUL to the string table; returns the offset or -1. */
static int64_t add_str(struct nsight_ksyms *ks, const char *s, size_t n)
{
	size_t at;

	if (!ks->strs_len) {	/* offset 0 is the empty string */
		ks->strs_cap = 4096;
		ks->strs = malloc(ks->strs_cap);
		if (!ks->strs)
			return -1;
		ks->strs[0] = '\0';
		ks->strs_len = 1;
	}
	if (ks->strs_len + n + 1 > UINT32_MAX)
		return -1;
	while (ks->strs_len + n + 1 > ks->strs_cap) {
		char *p = realloc(ks->strs, ks->strs_cap * 2);

		if (!p)
			return -1;
		ks->strs = p;
		ks->strs_cap *= 2;
	}
	at = ks->strs_len;
	memcpy(ks->strs + at, s, n);
	ks->strs[at + n] = '\0';
	ks->strs_len += n + 1;
	return (int64_t)at;
}

static int add_sym(struct nsight_ksyms *ks, uint64_t addr, const char *name, size_t nlen,
		   const char *mod, size_t mlen)
{
	int64_t no, mo = 0;

	if (ks->n == ks->cap) {
		size_t cap = ks->cap ? ks->cap * 2 : 1024;
		struct nsight_ksym *v = realloc(ks->v, cap * sizeof(*v));

		if (!v)
			return -1;
		ks->v = v;
		ks->cap = cap;
	}
	if (mlen) {
		/* "name [module]" for printing, and the module alone. */
		char buf[512];
		int k = snprintf(buf, sizeof(buf), "%.*s [%.*s]", (int)nlen, name, (int)mlen, mod);

		no = add_str(ks, buf, (size_t)k < sizeof(buf) ? (size_t)k : sizeof(buf) - 1);
		/* A module's symbols are consecutive in kallsyms: one copy of its name. */
		if (ks->last_mod && strlen(ks->strs + ks->last_mod) == mlen &&
		    !memcmp(ks->strs + ks->last_mod, mod, mlen))
			mo = ks->last_mod;
		else if (no >= 0)
			mo = add_str(ks, mod, mlen);
		if (mo > 0)
			ks->last_mod = (uint32_t)mo;
	} else {
		no = add_str(ks, name, nlen);
	}
	if (no < 0 || mo < 0)
		return -1;
	ks->v[ks->n++] = (struct nsight_ksym){ addr, (uint32_t)no, (uint32_t)mo };
	return 0;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int nsight_ksyms_parse(struct nsight_ksyms *ks, const char *text, size_t len, const char *fname,
		       struct nsight_diag *d)
{
	size_t pos = 0, line = 0;
	bool any = false, nonzero = false;

	while (pos < len) {
		const char *l = text + pos, *e = memchr(l, '\n', len - pos), *p, *name, *mod = NULL;
		size_t ll = e ? (size_t)(e - l) : len - pos, nlen, mlen = 0;
		uint64_t addr = 0;
		char type;

		pos += ll + (e ? 1 : 0);
		line++;
		if (!ll)
			continue;
		for (p = l; p < l + ll && is_hex(*p); p++) {
			if (p - l >= 16)
				return nsight_diag_set(d, NSIGHT_E_FORMAT, "%s:%zu: address too long",
						       fname, line);
			addr = addr << 4 | (uint64_t)(*p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10);
		}
		if (p == l || p + 3 > l + ll || p[0] != ' ' || p[2] != ' ')
			return nsight_diag_set(d, NSIGHT_E_FORMAT,
					       "%s:%zu: expected \"ADDRESS TYPE NAME\"", fname, line);
		type = p[1];
		name = p + 3;
		nlen = (size_t)(l + ll - name);
		p = memchr(name, '\t', nlen);
		if (p) {
			mod = p + 1;
			mlen = (size_t)(l + ll - mod);
			nlen = (size_t)(p - name);
			if (mlen < 2 || mod[0] != '[' || mod[mlen - 1] != ']')
				return nsight_diag_set(d, NSIGHT_E_FORMAT,
						       "%s:%zu: module must be \"[name]\"", fname, line);
			mod++;
			mlen -= 2;
		}
		if (!nlen)
			return nsight_diag_set(d, NSIGHT_E_FORMAT, "%s:%zu: empty symbol name",
					       fname, line);
		any = true;
		if (addr)
			nonzero = true;
		if (type != 't' && type != 'T')
			continue;
		if (add_sym(ks, addr, name, nlen, mod, mlen))
			return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	}
	if (any && !nonzero)
		ks->no_addrs = true;
	return 0;
}

int nsight_ksyms_load_chunk(struct nsight_ksyms *ks, const void *payload, size_t size,
			    uint64_t off, struct nsight_diag *d)
{
	struct nsight_ksyms_hdr h;
	char fname[64];
	uLongf out_len;
	char *text;
	int zret, err;

	snprintf(fname, sizeof(fname), "KSYMS chunk at byte %" PRIu64, off);
	if (size < sizeof(h))
		return nsight_diag_set(d, NSIGHT_E_CHUNK, "%s: %zu bytes, its header needs %zu",
				       fname, size, sizeof(h));
	memcpy(&h, payload, sizeof(h));
	/* kallsyms text is a few MB; refuse what cannot be a snapshot of it. */
	if (h.raw_size > (256ULL << 20))
		return nsight_diag_set(d, NSIGHT_E_CHUNK, "%s: %" PRIu64 " bytes of text is too large",
				       fname, (uint64_t)h.raw_size);
	text = malloc(h.raw_size ? h.raw_size : 1);
	if (!text)
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	out_len = (uLongf)h.raw_size;
	zret = uncompress((Bytef *)text, &out_len, (const Bytef *)payload + sizeof(h),
			  (uLong)(size - sizeof(h)));
	if (zret != Z_OK || out_len != h.raw_size) {
		free(text);
		return nsight_diag_set(d, NSIGHT_E_CHUNK,
				       "%s: the compressed text does not inflate to %" PRIu64 " bytes (%s)",
				       fname, (uint64_t)h.raw_size,
				       zret == Z_OK ? "wrong size" : zError(zret));
	}
	err = nsight_ksyms_parse(ks, text, out_len, fname, d);
	free(text);
	if (!err && (h.flags & NSIGHT_KSYMS_NO_ADDRS))
		ks->no_addrs = true;
	return err;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct nsight_ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

void nsight_ksyms_sort(struct nsight_ksyms *ks)
{
	if (ks->n)
		qsort(ks->v, ks->n, sizeof(*ks->v), sym_cmp);
}

const struct nsight_ksym *nsight_ksyms_find(const struct nsight_ksyms *ks, uint64_t addr,
					    uint64_t *offset)
{
	size_t lo = 0, hi = ks->n, i;

	if (ks->no_addrs || !ks->n || addr < ks->v[0].addr)
		return NULL;
	while (hi - lo > 1) {	/* last symbol at or below addr */
		size_t mid = lo + (hi - lo) / 2;

		if (ks->v[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	i = lo;
	/* Of aliases at one address, the first (sorted by name offset: file order). */
	while (i > 0 && ks->v[i - 1].addr == ks->v[i].addr)
		i--;
	/* Past the last symbol of the kernel or a module: only so far. */
	if ((lo + 1 == ks->n || ks->v[lo + 1].mod != ks->v[lo].mod) &&
	    addr - ks->v[lo].addr >= NSIGHT_KSYM_MAX_SIZE)
		return NULL;
	if (offset)
		*offset = addr - ks->v[i].addr;
	return &ks->v[i];
}
