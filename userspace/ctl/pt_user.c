// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/nsight.h>

#include "base/vec.h"
#include "format/utext.h"
#include "pt_user.h"

/* Addresses from here up are the kernel's (vsyscall): not the process's. */
#define USER_END	(1ULL << 63)

void nsight_pt_user_pids_init(struct nsight_pt_user_pids *p)
{
	memset(p, 0, sizeof(*p));
	nsight_u64map_init(&p->seen);
}

void nsight_pt_user_pids_fini(struct nsight_pt_user_pids *p)
{
	nsight_u64map_fini(&p->seen);
	free(p->v);
	memset(p, 0, sizeof(*p));
}

int nsight_pt_user_pids_add(struct nsight_pt_user_pids *p, uint32_t pid)
{
	bool added;

	if (!nsight_u64map_put(&p->seen, pid, 0, &added))
		return -1;
	if (!added)
		return 0;
	if (nsight_vec_reserve((void **)&p->v, &p->cap, p->n + 1, sizeof(*p->v)))
		return -1;
	p->v[p->n++] = pid;
	return 0;
}

int nsight_pt_user_scan(struct nsight_pt_user_pids *p, const void *crecords, size_t len)
{
	/* The compact form: the header word, then the fields after hdr. */
	const size_t pid_at = 8 + offsetof(struct nsight_rec_pt_cr3, pid) -
			      sizeof(struct nsight_rec_hdr);
	const uint8_t *b = crecords;
	size_t at = 0;

	while (at + 8 <= len) {
		uint64_t h;
		uint32_t pid;
		size_t size;

		memcpy(&h, b + at, sizeof(h));
		size = NSIGHT_CREC_SIZE(h);
		if (!size || size > len - at)
			break;
		if (NSIGHT_CREC_TYPE(h) == NSIGHT_REC_PT_CR3 && size >= pid_at + sizeof(pid)) {
			memcpy(&pid, b + at + pid_at, sizeof(pid));
			if (pid && nsight_pt_user_pids_add(p, pid))
				return -1;
		}
		at += size;
	}
	return 0;
}

/* A mapping's function symbols, at their addresses in the process. */
struct syms {
	struct nsight_usym *v;
	size_t n, cap;
	char *strs;
	size_t len, strs_cap;
	uint32_t flags;		/* NSIGHT_UTEXT_SYMTAB or _DYNSYM */
};

static void syms_free(struct syms *s)
{
	free(s->v);
	free(s->strs);
	memset(s, 0, sizeof(*s));
}

static int sym_cmp(const void *a, const void *b)
{
	const struct nsight_usym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/*
 * The load bias of the mapping [@start, @end) at file offset @pgoff: the
 * executable PT_LOAD segment that holds @pgoff maps file offset o to
 * bias + p_vaddr + (o - p_offset). False if there is none.
 */
static bool load_bias(Elf *e, uint64_t start, uint64_t pgoff, uint64_t *bias)
{
	size_t i, n;

	if (elf_getphdrnum(e, &n))
		return false;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		/* The mapping starts at the page holding p_offset, or inside. */
		if ((ph.p_offset & ~0xfffULL) <= pgoff && pgoff < ph.p_offset + ph.p_filesz) {
			*bias = start - ph.p_vaddr - pgoff + ph.p_offset;
			return true;
		}
	}
	return false;
}

/* Function symbols of table @scn that start in [@start, @end). */
static int read_table(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, uint64_t bias, uint64_t start,
		      uint64_t end, struct syms *s)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (i = 0; data && i < n; i++) {
		GElf_Sym sym;
		const char *name;
		uint64_t addr;
		size_t len;
		int type;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    !sym.st_value)
			continue;
		addr = bias + sym.st_value;
		name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (addr < start || addr >= end || !name || !*name)
			continue;
		len = strlen(name) + 1;
		if (s->len + len > UINT32_MAX ||
		    nsight_vec_reserve((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v)) ||
		    nsight_vec_reserve((void **)&s->strs, &s->strs_cap, s->len + len, 1))
			return -1;
		memcpy(s->strs + s->len, name, len);
		s->v[s->n++] = (struct nsight_usym){ .addr = addr,
						     .size = sym.st_size > UINT32_MAX ? 0 :
							     (uint32_t)sym.st_size,
						     .name = (uint32_t)s->len };
		s->len += len;
	}
	return 0;
}

/*
 * The function symbols of @path mapped at [@start, @end) from @pgoff:
 * .symtab, else .dynsym; sorted by address, one per address. A file
 * that is not ELF, or has neither table, gives none. -1: out of memory.
 */
static int read_syms(const char *path, uint64_t start, uint64_t end, uint64_t pgoff,
		     struct syms *s)
{
	Elf_Scn *scn = NULL, *dyn = NULL, *tab = NULL;
	GElf_Shdr sh, dyn_sh, tab_sh;
	uint64_t bias;
	size_t i, o;
	int fd, err = 0;
	Elf *e;

	if (path[0] != '/' || elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e && elf_kind(e) == ELF_K_ELF && load_bias(e, start, pgoff, &bias)) {
		while ((scn = elf_nextscn(e, scn))) {
			if (!gelf_getshdr(scn, &sh))
				continue;
			if (sh.sh_type == SHT_SYMTAB) {
				tab = scn;
				tab_sh = sh;
			} else if (sh.sh_type == SHT_DYNSYM) {
				dyn = scn;
				dyn_sh = sh;
			}
		}
		if (tab) {
			s->flags = NSIGHT_UTEXT_SYMTAB;
			err = read_table(e, tab, &tab_sh, bias, start, end, s);
		} else if (dyn) {
			s->flags = NSIGHT_UTEXT_DYNSYM;
			err = read_table(e, dyn, &dyn_sh, bias, start, end, s);
		}
	}
	elf_end(e);
	close(fd);
	if (err || !s->n)
		return err;
	qsort(s->v, s->n, sizeof(*s->v), sym_cmp);
	/* Aliases: the first name of each address. */
	for (i = 1, o = 1; i < s->n; i++)
		if (s->v[i].addr != s->v[o - 1].addr)
			s->v[o++] = s->v[i];
	s->n = o;
	return 0;
}

/* @len bytes at @off of @path into @buf; 0 or -1. */
static int read_at(const char *path, uint64_t off, uint8_t *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;

	if (fd < 0)
		return -1;
	while (got < len) {
		ssize_t r = pread(fd, buf + got, len - got, (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	return got == len ? 0 : -1;
}

struct mapping {
	uint64_t start, end, pgoff;
	char path[4096];
};

/* One executable mapping of @pid as a UTEXT chunk. */
static int write_mapping(struct nsight_stream_writer *w, const struct nsight_pt_user_opts *o,
			 uint32_t pid, const struct mapping *m, struct nsight_pt_user_result *res,
			 struct nsight_diag *d)
{
	struct nsight_utext_hdr h = { .pid = pid, .addr = m->start, .pgoff = m->pgoff };
	uint64_t len = m->end - m->start;
	struct syms s = { 0 };
	char mem[64];
	uint8_t *code;
	void *payload;
	size_t size;
	int err = 0;

	code = malloc(len ? len : 1);
	if (!code)
		return nsight_diag_set(d, ENOMEM, "out of memory");
	snprintf(mem, sizeof(mem), "%s/%" PRIu32 "/mem", o->proc, pid);
	if (read_at(mem, m->start, code, len)) {
		/* A file's bytes are what it maps unless the process changed them. */
		if (m->path[0] != '/' || read_at(m->path, m->pgoff, code, len)) {
			char msg[512];

			snprintf(msg, sizeof(msg),
				 "process %" PRIu32 ": cannot read its code at %#" PRIx64 "-%#" PRIx64 " (%s): left out",
				 pid, m->start, m->end, m->path);
			if (o->warn)
				o->warn(o->warn_ctx, msg);
			free(code);
			return 0;
		}
		h.flags |= NSIGHT_UTEXT_FROM_FILE;
	}
	if (read_syms(m->path, m->start, m->end, m->pgoff, &s)) {
		free(code);
		syms_free(&s);
		return nsight_diag_set(d, ENOMEM, "out of memory");
	}
	h.flags |= s.flags;
	snprintf(h.path, sizeof(h.path), "%s", m->path);
	payload = nsight_utext_build(&h, code, len, s.v, (uint32_t)s.n, s.strs, (uint32_t)s.len,
				     &size);
	if (!payload) {
		err = nsight_diag_set(d, ENOMEM, "out of memory");
	} else if (nsight_stream_write_chunk(w, NSIGHT_CHUNK_UTEXT, NSIGHT_CHUNK_NO_CPU, payload,
					     size)) {
		err = nsight_diag_set(d, EIO, "%s", w->diag.msg);
	} else {
		res->mappings++;
		res->bytes += len;
		res->syms += s.n;
	}
	free(payload);
	free(code);
	syms_free(&s);
	return err;
}

/*
 * A line of /proc/PID/maps: "START-END PERMS OFFSET DEV INODE [PATH]".
 * True for an executable mapping below the kernel's addresses.
 */
static bool parse_map(const char *line, struct mapping *m)
{
	unsigned long long start, end, off;
	char perms[8];
	int n = 0;
	size_t len;

	if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off, &n) != 4 ||
	    !n || strlen(perms) < 3 || perms[2] != 'x' || end <= start || end > USER_END)
		return false;
	m->start = start;
	m->end = end;
	m->pgoff = off;
	snprintf(m->path, sizeof(m->path), "%s", line + n);
	len = strlen(m->path);
	while (len && (m->path[len - 1] == '\n' || m->path[len - 1] == ' '))
		m->path[--len] = '\0';
	return true;
}

int nsight_pt_user_dump(struct nsight_stream_writer *w, const struct nsight_pt_user_opts *o,
			const struct nsight_pt_user_pids *pids, struct nsight_pt_user_result *res,
			struct nsight_diag *d)
{
	uint64_t max = o->max_bytes ? o->max_bytes : NSIGHT_PT_USER_MAX;
	struct mapping m;
	char path[64], line[4096 + 256];
	size_t i;
	int err = 0;

	memset(res, 0, sizeof(*res));
	for (i = 0; i < pids->n && !err; i++) {
		uint32_t before = res->mappings;
		FILE *f;

		snprintf(path, sizeof(path), "%s/%" PRIu32 "/maps", o->proc, pids->v[i]);
		f = fopen(path, "re");
		if (!f) {
			res->gone++;
			continue;
		}
		while (!err && fgets(line, sizeof(line), f)) {
			if (!parse_map(line, &m))
				continue;
			if (res->left_out || res->bytes + (m.end - m.start) > max) {
				res->left_out += m.end - m.start;
				continue;
			}
			err = write_mapping(w, o, pids->v[i], &m, res, d);
		}
		fclose(f);
		res->procs += res->mappings > before;
	}
	if (!err && res->left_out && o->warn) {
		snprintf(line, sizeof(line),
			 "user code of the traced processes passed %" PRIu64 " bytes: %" PRIu64 " bytes of it left out (not decoded)",
			 max, res->left_out);
		o->warn(o->warn_ctx, line);
	}
	return err;
}
