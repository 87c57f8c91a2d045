// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt/kcore.h"

struct kseg {
	uint64_t vaddr;
	uint64_t offset;
	uint64_t filesz;
};

struct nsight_kcore {
	int fd;
	char *path;
	struct kseg *seg;
	size_t n;
};

void nsight_kcore_close(struct nsight_kcore *kc)
{
	if (!kc)
		return;
	if (kc->fd >= 0)
		close(kc->fd);
	free(kc->seg);
	free(kc->path);
	free(kc);
}

/* The program headers, through libelf (which reads only the headers). */
static int load_segments(struct nsight_kcore *kc, struct nsight_diag *d)
{
	size_t i, phnum;
	Elf *e;
	int ret = 0;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return nsight_diag_set(d, NSIGHT_E_FORMAT, "kcore: libelf: %s", elf_errmsg(-1));
	e = elf_begin(kc->fd, ELF_C_READ, NULL);
	if (!e)
		return nsight_diag_set(d, NSIGHT_E_FORMAT, "kcore %s: %s", kc->path,
				       elf_errmsg(-1));
	if (elf_kind(e) != ELF_K_ELF || gelf_getclass(e) != ELFCLASS64) {
		ret = nsight_diag_set(d, NSIGHT_E_FORMAT, "kcore %s: not a 64-bit ELF file",
				      kc->path);
		goto out;
	}
	if (elf_getphdrnum(e, &phnum) < 0) {
		ret = nsight_diag_set(d, NSIGHT_E_FORMAT, "kcore %s: %s", kc->path,
				      elf_errmsg(-1));
		goto out;
	}
	kc->seg = calloc(phnum ? phnum : 1, sizeof(*kc->seg));
	if (!kc->seg) {
		ret = nsight_diag_set(d, NSIGHT_E_NOMEM, "kcore: out of memory");
		goto out;
	}
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph)) {
			ret = nsight_diag_set(d, NSIGHT_E_FORMAT,
					      "kcore %s: program header %zu: %s",
					      kc->path, i, elf_errmsg(-1));
			goto out;
		}
		if (ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		kc->seg[kc->n++] = (struct kseg){
			.vaddr = ph.p_vaddr, .offset = ph.p_offset, .filesz = ph.p_filesz,
		};
	}
	if (!kc->n)
		ret = nsight_diag_set(d, NSIGHT_E_FORMAT, "kcore %s: no PT_LOAD segment", kc->path);
out:
	elf_end(e);
	return ret;
}

int nsight_kcore_open(struct nsight_kcore **kcp, const char *path, struct nsight_diag *d)
{
	struct nsight_kcore *kc;
	int ret;

	*kcp = NULL;
	kc = calloc(1, sizeof(*kc));
	if (!kc || !(kc->path = strdup(path))) {
		free(kc);
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "kcore: out of memory");
	}
	kc->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (kc->fd < 0) {
		ret = nsight_diag_set(d, NSIGHT_E_IO, "kcore %s: %s", path, strerror(errno));
		nsight_kcore_close(kc);
		return ret;
	}
	ret = load_segments(kc, d);
	if (ret) {
		nsight_kcore_close(kc);
		return ret;
	}
	*kcp = kc;
	return 0;
}

size_t nsight_kcore_segments(const struct nsight_kcore *kc)
{
	return kc->n;
}

void nsight_kcore_segment(const struct nsight_kcore *kc, size_t i, uint64_t *start, uint64_t *end)
{
	*start = kc->seg[i].vaddr;
	*end = kc->seg[i].vaddr + kc->seg[i].filesz;
}

static const struct kseg *find_seg(const struct nsight_kcore *kc, uint64_t addr)
{
	size_t i;

	for (i = 0; i < kc->n; i++) {
		if (addr - kc->seg[i].vaddr < kc->seg[i].filesz)
			return &kc->seg[i];
	}
	return NULL;
}

int nsight_kcore_read_at(struct nsight_kcore *kc, uint64_t addr, void *buf, size_t len,
			 struct nsight_diag *d)
{
	uint8_t *p = buf;

	if (len && addr + len - 1 < addr)
		return nsight_diag_set(d, NSIGHT_E_INVAL, "kcore %s: range at %#" PRIx64
				       " wraps around", kc->path, addr);
	while (len) {
		const struct kseg *s = find_seg(kc, addr);
		uint64_t off, n;
		ssize_t r;

		if (!s)
			return nsight_diag_set(d, NSIGHT_E_INVAL,
					       "kcore %s: address %#" PRIx64 " is in no segment",
					       kc->path, addr);
		off = addr - s->vaddr;
		n = s->filesz - off;
		if (n > len)
			n = len;
		if (n > (1U << 30))
			n = 1U << 30;
		r = pread(kc->fd, p, n, (off_t)(s->offset + off));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return nsight_diag_set(d, NSIGHT_E_IO, "kcore %s: reading %#" PRIx64 ": %s",
					       kc->path, addr, strerror(errno));
		}
		if (r == 0)
			return nsight_diag_set(d, NSIGHT_E_TRUNCATED,
					       "kcore %s: file ends before address %#" PRIx64,
					       kc->path, addr);
		p += r;
		addr += (uint64_t)r;
		len -= (size_t)r;
	}
	return 0;
}

int nsight_kcore_read(const char *path, uint64_t addr, void *buf, size_t len,
		      struct nsight_diag *d)
{
	struct nsight_kcore *kc;
	int ret = nsight_kcore_open(&kc, path, d);

	if (ret)
		return ret;
	ret = nsight_kcore_read_at(kc, addr, buf, len, d);
	nsight_kcore_close(kc);
	return ret;
}
