// SPDX-License-Identifier: MIT
/*
 * Intel PT call/return decoding with libipt's block decoder.
 *
 * The block decoder is configured to end a block after every call
 * (end_on_call); every other instruction that needs trace (returns, far
 * transfers, conditional and indirect branches) ends a block anyway. So the
 * last instruction of a block is the only one that can be a call or a
 * return, and its class is in pt_block.iclass.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <intel-pt.h>

#include "pt/pt_decode.h"
#include "base/vec.h"

/* Frames a call stack holds; deeper stacks only come from garbage. */
#define MAX_FRAMES		65536
/*
 * Instructions decoded without the trace position moving before the
 * decoder is declared stuck: a loop of direct jumps reached through a
 * corrupt stream (or after the end of the trace) would otherwise run
 * forever. Real code reaches a conditional or indirect branch, which needs
 * trace, long before this.
 */
#define MAX_QUIET_INSNS		(1ULL << 22)
/* Our own error codes next to libipt's (which are small negatives). */
#define ERR_STUCK		(-1000)	/* the decoder made no progress */
#define ERR_NOMEM		(-1001)
#define ERR_SPACES		(-1002)	/* more address spaces than MAX_SPACES */
/* Address spaces one decode keeps a call stack for. */
#define MAX_SPACES		4096

/* ---------------------------------------------------------------------- */
/* Image                                                                    */

/*
 * libipt's block decoder caches decoded blocks per image section, which
 * makes it several times faster, but only for sections of an image section
 * cache, and those are files. So each section is also written to a memfd
 * that libipt maps through /proc/self/fd. Where that fails, the bytes are
 * read through a read-memory callback instead (uncached, slower).
 */

struct section {
	uint64_t space;		/* nsight_pt_space_key(); 0: every space */
	uint64_t addr;
	uint64_t len;
	const uint8_t *bytes;
	int fd;			/* its memfd, -1 if none */
};

struct nsight_pt_image {
	struct section *sec;	/* sorted by space, then addr; disjoint per space */
	size_t n, cap;
	uint64_t bytes;
	struct pt_image_section_cache *iscache;
	struct pt_image *image;	/* the memfd sections; copied per decode */
};

uint64_t nsight_pt_space_key(uint64_t cr3)
{
	return cr3 & ~(uint64_t)NSIGHT_PT_CR3_LOW;
}

struct nsight_pt_image *nsight_pt_image_new(void)
{
	struct nsight_pt_image *img = calloc(1, sizeof(*img));

	if (!img)
		return NULL;
	img->iscache = pt_iscache_alloc(NULL);
	img->image = pt_image_alloc(NULL);
	if (!img->iscache || !img->image) {
		nsight_pt_image_free(img);
		return NULL;
	}
	/* Keep every section mapped (and its block cache). */
	pt_iscache_set_limit(img->iscache, UINT64_MAX);
	return img;
}

void nsight_pt_image_free(struct nsight_pt_image *img)
{
	size_t i;

	if (!img)
		return;
	pt_image_free(img->image);
	pt_iscache_free(img->iscache);
	for (i = 0; i < img->n; i++) {
		if (img->sec[i].fd >= 0)
			close(img->sec[i].fd);
	}
	free(img->sec);
	free(img);
}

size_t nsight_pt_image_sections(const struct nsight_pt_image *img)
{
	return img->n;
}

uint64_t nsight_pt_image_bytes(const struct nsight_pt_image *img)
{
	return img->bytes;
}

/* Give libipt the section as a file; -1 if it cannot be. */
static int add_memfd_section(struct nsight_pt_image *img, uint64_t addr, const uint8_t *bytes,
			     size_t len)
{
	char path[64];
	size_t done = 0;
	int fd, isid;

	fd = memfd_create("nsight-pt-image", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	while (done < len) {
		ssize_t r = write(fd, bytes + done, len - done);

		if (r <= 0)
			goto fail;
		done += (size_t)r;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	isid = pt_iscache_add_file(img->iscache, path, 0, len, addr);
	if (isid < 0 || pt_image_add_cached(img->image, img->iscache, isid, NULL) < 0)
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

/* Index of the first section above (@space, @addr). */
static size_t sec_upper(const struct nsight_pt_image *img, uint64_t space, uint64_t addr)
{
	size_t lo = 0, hi = img->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct section *s = &img->sec[mid];

		if (s->space < space || (s->space == space && s->addr <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int add_section(struct nsight_pt_image *img, uint64_t space, uint64_t addr,
		       const void *bytes, size_t len, const char *name, struct nsight_diag *d)
{
	const struct section *prev, *next;
	size_t i;

	if (!name)
		name = "code";
	if (!img || !bytes || !len)
		return nsight_diag_set(d, NSIGHT_E_INVAL, "pt image: empty section %s", name);
	if (addr + len - 1 < addr)
		return nsight_diag_set(d, NSIGHT_E_INVAL,
				       "pt image: section %s at %#" PRIx64 " wraps around",
				       name, addr);
	i = sec_upper(img, space, addr);
	prev = i > 0 && img->sec[i - 1].space == space ? &img->sec[i - 1] : NULL;
	next = i < img->n && img->sec[i].space == space ? &img->sec[i] : NULL;
	if ((prev && prev->addr + prev->len > addr) || (next && next->addr <= addr + len - 1))
		return nsight_diag_set(d, NSIGHT_E_INVAL,
				       "pt image: section %s at %#" PRIx64 "+%zu overlaps another",
				       name, addr, len);
	if (nsight_vec_reserve((void **)&img->sec, &img->cap, img->n + 1, sizeof(*img->sec)))
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "pt image: out of memory");
	memmove(&img->sec[i + 1], &img->sec[i], (img->n - i) * sizeof(*img->sec));
	img->sec[i] = (struct section){
		.space = space, .addr = addr, .len = len, .bytes = bytes,
		/* libipt's asids are exact CR3s: a space's code is read by
		 * image_read(), which masks the PCID. */
		.fd = space ? -1 : add_memfd_section(img, addr, bytes, len),
	};
	img->n++;
	img->bytes += len;
	return 0;
}

int nsight_pt_image_add(struct nsight_pt_image *img, uint64_t addr, const void *bytes,
			size_t len, const char *name, struct nsight_diag *d)
{
	return add_section(img, 0, addr, bytes, len, name, d);
}

int nsight_pt_image_add_space(struct nsight_pt_image *img, uint64_t cr3, uint64_t addr,
			      const void *bytes, size_t len, const char *name,
			      struct nsight_diag *d)
{
	if (!nsight_pt_space_key(cr3))
		return nsight_diag_set(d, NSIGHT_E_INVAL, "pt image: section %s: no CR3",
				       name ? name : "code");
	return add_section(img, nsight_pt_space_key(cr3), addr, bytes, len, name, d);
}

/* Per-decode view of an image, so that several threads can share it. */
struct image_ctx {
	const struct nsight_pt_image *img;
	const struct section *last;	/* the section read last */
};

static const struct section *sec_find(struct image_ctx *ctx, uint64_t space, uint64_t addr)
{
	const struct section *s = ctx->last;
	size_t i;

	if (s && s->space == space && addr - s->addr < s->len)
		return s;
	i = sec_upper(ctx->img, space, addr);
	if (!i)
		return NULL;
	s = &ctx->img->sec[i - 1];
	if (s->space != space || addr - s->addr >= s->len)
		return NULL;
	ctx->last = s;
	return s;
}

/*
 * libipt's read_memory_callback_t: the code of every space, then that of
 * @asid's; an instruction may span adjacent sections.
 */
static int image_read(uint8_t *buf, size_t size, const struct pt_asid *asid, uint64_t ip,
		      void *arg)
{
	struct image_ctx *ctx = arg;
	uint64_t space = 0;
	size_t done = 0;

	if (asid && asid->cr3 != pt_asid_no_cr3)
		space = nsight_pt_space_key(asid->cr3);
	while (done < size) {
		uint64_t addr = ip + done;
		const struct section *s;
		uint64_t off, n;

		if (addr < ip)
			break;
		s = sec_find(ctx, 0, addr);
		if (!s && space)
			s = sec_find(ctx, space, addr);
		if (!s)
			break;
		off = addr - s->addr;
		n = s->len - off;
		if (n > size - done)
			n = size - done;
		memcpy(buf + done, s->bytes + off, n);
		done += n;
	}
	return done ? (int)done : -pte_nomap;
}

/* ---------------------------------------------------------------------- */
/* Configuration                                                            */

void nsight_pt_config_from_rec(struct nsight_pt_config *cfg, const struct nsight_rec_pt *rec)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->tsc_ratio_num = rec->tsc_ratio_num;
	cfg->tsc_ratio_den = rec->tsc_ratio_den;
	cfg->mtc_freq = rec->mtc_freq;
	cfg->nom_freq = rec->nom_freq;
}

static void pt_config_setup(struct pt_config *c, const struct nsight_pt_config *cfg)
{
	pt_config_init(c);
	if (cfg) {
		if (cfg->family) {
			c->cpu.vendor = pcv_intel;
			c->cpu.family = (uint16_t)cfg->family;
			c->cpu.model = (uint8_t)cfg->model;
			c->cpu.stepping = (uint8_t)cfg->stepping;
			/* An unknown CPU just has no errata. */
			(void)pt_cpu_errata(&c->errata, &c->cpu);
		}
		c->cpuid_0x15_eax = cfg->tsc_ratio_den;
		c->cpuid_0x15_ebx = cfg->tsc_ratio_num;
		c->mtc_freq = cfg->mtc_freq;
		/*
		 * libipt wants the max non-turbo ratio (MSR_PLATFORM_INFO[15:8],
		 * units of the 100 MHz bus clock), CPUID.16H gives MHz.
		 */
		c->nom_freq = cfg->nom_freq >= 25550 ? 255 : (uint8_t)((cfg->nom_freq + 50) / 100);
	}
	c->flags.variant.block.end_on_call = 1;
	/*
	 * With its block cache, libipt 2.0 follows a direct backward jump by
	 * recursing, for up to a block's 65535 instructions: a "jmp ." (or
	 * garbage decoded as code) overflows the stack. Ending blocks at
	 * jumps bounds that; "jmp ." is then caught as no progress.
	 */
	c->flags.variant.block.end_on_jump = 1;
}

/* ---------------------------------------------------------------------- */
/* Call stacks                                                              */

struct frame {
	uint64_t start;
	uint64_t func;
	uint32_t flags;
};

/* The call stack of one address space (one CR3, nsight_pt_space_key()). */
struct space {
	uint64_t key;		/* 0: not known yet (no PIP since the sync) */
	struct frame *stack;
	size_t n, cap;
	int32_t base;		/* depth of a call made with an empty stack */
	bool resolve;		/* the top frame's func is the next block's ip */
};

struct decoder {
	struct pt_block_decoder *blk;
	struct pt_image *image;
	struct image_ctx *ictx;
	nsight_pt_call_fn fn;
	void *arg;
	struct nsight_pt_stats *st;
	uint64_t run_off;	/* of the decoder's buffer in the caller's */

	struct space *sp;	/* one per address space seen */
	size_t n_sp, cap_sp;
	struct space *cur;	/* the one the CPU runs in: sp[i_cur] */
	size_t i_cur;
	uint64_t space_start;	/* when the CPU switched to cur */
	uint64_t now;		/* the latest time known */
	uint32_t time_flags;	/* NSIGHT_PT_CALL_NO_TSC if now is relative */
	uint64_t trace_start;	/* when the trace (re)started */
	uint64_t err_ip;	/* where the last block that failed started */
	int stop;		/* the callback's nonzero return */
};

static void emit(struct decoder *x, uint64_t start, uint64_t end, uint64_t func, int32_t depth,
		 uint32_t flags)
{
	struct nsight_pt_call c = {
		.start = start, .end = end, .func = func, .depth = depth,
		.flags = flags | x->time_flags, .space = x->cur->key,
	};

	if (!(flags & NSIGHT_PT_CALL_SPACE))
		x->st->calls++;
	if (x->fn && !x->stop)
		x->stop = x->fn(x->arg, &c);
}

static void record_error(struct decoder *x, int err, uint64_t off)
{
	struct nsight_pt_stats *st = x->st;

	st->errors++;
	if (st->first_error[0])
		return;
	st->first_error_offset = x->run_off + off;
	snprintf(st->first_error, sizeof(st->first_error), "%s at trace offset %#" PRIx64,
		 err == ERR_STUCK ? "no trace progress" :
		 err == ERR_SPACES ? "too many address spaces" : pt_errstr(pt_errcode(err)),
		 st->first_error_offset);
}

/* Close every open frame of the current space: their end is not in the trace. */
static void close_cur(struct decoder *x)
{
	struct space *sp = x->cur;

	while (sp->n && !x->stop) {
		struct frame *f = &sp->stack[--sp->n];

		emit(x, f->start, x->now, f->func, sp->base + (int32_t)sp->n,
		     f->flags | NSIGHT_PT_CALL_END_UNKNOWN);
	}
	sp->n = 0;
	sp->resolve = false;
}

/* The CPU leaves the current space at x->now: report the time it ran there. */
static void leave_space(struct decoder *x)
{
	if (x->cur->key && x->now >= x->space_start)
		emit(x, x->space_start, x->now, 0, 0, NSIGHT_PT_CALL_SPACE);
	x->space_start = x->now;
}

/* Make the space of @key (0: unknown) the current one. */
static int enter_space(struct decoder *x, uint64_t key)
{
	size_t i;

	if (x->cur && x->cur->key == key)
		return 0;
	for (i = 0; i < x->n_sp && x->sp[i].key != key; i++)
		;
	if (i == x->n_sp) {
		if (x->n_sp == MAX_SPACES)
			return ERR_SPACES;
		if (x->n_sp == x->cap_sp) {
			size_t cap = x->cap_sp ? 2 * x->cap_sp : 8;
			struct space *sp = realloc(x->sp, cap * sizeof(*sp));

			if (!sp)
				return ERR_NOMEM;
			x->sp = sp;
			x->cap_sp = cap;
			x->cur = &x->sp[x->i_cur];
		}
		x->sp[x->n_sp++] = (struct space){ .key = key };
	}
	if (x->cur) {
		if (x->cur->key)
			x->st->switches++;
		leave_space(x);
	}
	x->i_cur = i;
	x->cur = &x->sp[i];
	return 0;
}

/* Close every open frame of every space (the trace lost them). */
static void close_all(struct decoder *x)
{
	size_t i, cur = x->i_cur;

	for (i = 0; i < x->n_sp; i++) {
		x->cur = &x->sp[i];
		close_cur(x);
	}
	x->cur = &x->sp[cur];
}

/*
 * The trace starts afresh (sync, enable, overflow): depths restart at 0.
 * With @forget the address space is not known any more (a sync or an
 * overflow: a PIP in the PSB+ tells it again).
 */
static void restart(struct decoder *x, bool forget)
{
	size_t i;

	close_all(x);
	for (i = 0; i < x->n_sp; i++)
		x->sp[i].base = 0;
	if (forget) {
		leave_space(x);
		x->i_cur = 0;	/* sp[0] is the unknown space */
		x->cur = &x->sp[0];
	}
	x->trace_start = x->now;
}

/* The trace ends (or a run of it): nothing is known after x->now. */
static void end_trace(struct decoder *x)
{
	close_all(x);
	leave_space(x);
	x->i_cur = 0;
	x->cur = &x->sp[0];
}

static int push(struct decoder *x, uint64_t func, uint32_t flags)
{
	struct space *sp = x->cur;

	if (sp->n == sp->cap) {
		size_t cap = sp->cap ? 2 * sp->cap : 64;
		struct frame *s;

		if (cap > MAX_FRAMES) {
			/* Runaway recursion, most likely decoded garbage. */
			record_error(x, -pte_internal, 0);
			close_cur(x);
			cap = sp->cap;
		} else {
			s = realloc(sp->stack, cap * sizeof(*s));
			if (!s)
				return ERR_NOMEM;
			sp->stack = s;
			sp->cap = cap;
		}
	}
	sp->stack[sp->n++] = (struct frame){ .start = x->now, .func = func, .flags = flags };
	return 0;
}

/* A return at @ip: ends the top frame, or one entered before the trace. */
static void pop(struct decoder *x, uint64_t ip)
{
	struct space *sp = x->cur;
	struct frame *f;

	sp->resolve = false;
	if (!sp->n) {
		sp->base--;
		emit(x, x->trace_start, x->now, ip, sp->base, NSIGHT_PT_CALL_START_UNKNOWN);
		return;
	}
	f = &sp->stack[--sp->n];
	emit(x, f->start, x->now, f->func, sp->base + (int32_t)sp->n, f->flags);
}

/*
 * A far return (iret, sysret, ...) ends the innermost frame entered by an
 * interrupt or far call; near frames above it never returned.
 */
static void pop_far(struct decoder *x, uint64_t ip)
{
	struct space *sp = x->cur;
	size_t i = sp->n;

	while (i && !(sp->stack[i - 1].flags & (NSIGHT_PT_CALL_ASYNC | NSIGHT_PT_CALL_FAR)))
		i--;
	if (!i) {
		close_cur(x);
		pop(x, ip);
		return;
	}
	while (sp->n > i && !x->stop) {
		struct frame *f = &sp->stack[--sp->n];

		emit(x, f->start, x->now, f->func, sp->base + (int32_t)sp->n,
		     f->flags | NSIGHT_PT_CALL_END_UNKNOWN);
	}
	pop(x, ip);
}

static void resolve_top(struct decoder *x, uint64_t func)
{
	struct space *sp = x->cur;

	if (sp->resolve && sp->n)
		sp->stack[sp->n - 1].func = func;
	sp->resolve = false;
}

static void update_time(struct decoder *x)
{
	uint64_t t;
	int err = pt_blk_time(x->blk, &t, NULL, NULL);

	if (!err || err == -pte_no_time) {
		x->now = t;
		x->time_flags = err ? NSIGHT_PT_CALL_NO_TSC : 0;
	}
}

/* ---------------------------------------------------------------------- */
/* Decoding                                                                 */

static int on_event(struct decoder *x, const struct pt_event *ev)
{
	if (ev->has_tsc) {
		x->now = ev->tsc;
		x->time_flags = 0;
	}
	switch (ev->type) {
	case ptev_enabled:
		restart(x, false);
		break;
	case ptev_paging:
		return enter_space(x, nsight_pt_space_key(ev->variant.paging.cr3));
	case ptev_async_paging:
		return enter_space(x, nsight_pt_space_key(ev->variant.async_paging.cr3));
	case ptev_disabled:
	case ptev_stop:
		close_all(x);
		break;
	case ptev_async_disabled:
		resolve_top(x, ev->variant.async_disabled.at);
		close_all(x);
		break;
	case ptev_overflow:
		x->st->overflows++;
		restart(x, true);
		break;
	case ptev_async_branch:
		/* An interrupt: if it hit right after a call, its source is
		 * the callee's entry. */
		resolve_top(x, ev->variant.async_branch.from);
		return push(x, ev->variant.async_branch.to, NSIGHT_PT_CALL_ASYNC);
	default:
		break;
	}
	return 0;
}

/*
 * The class of a far transfer at @ip, for blocks whose last instruction
 * libipt left unclassified (ptic_error: with its block cache, it does not
 * decode indirect jumps and far transfers again). ptic_other otherwise.
 */
static enum pt_insn_class far_class(struct decoder *x, const struct pt_block *b)
{
	uint8_t raw[pt_max_insn_size];
	int n, i = 0;

	if (b->truncated) {
		n = b->size;
		memcpy(raw, b->raw, sizeof(raw));
	} else {
		struct pt_asid asid;

		pt_asid_init(&asid);
		if (x->cur->key)
			asid.cr3 = x->cur->key;
		n = image_read(raw, sizeof(raw), &asid, b->end_ip, x->ictx);
	}
	/* Legacy prefixes and REX. */
	while (i < n && (raw[i] == 0x66 || raw[i] == 0x67 || raw[i] == 0xf2 || raw[i] == 0xf3 ||
			 raw[i] == 0xf0 || raw[i] == 0x2e || raw[i] == 0x3e || raw[i] == 0x26 ||
			 raw[i] == 0x64 || raw[i] == 0x65 || raw[i] == 0x36 ||
			 (raw[i] & 0xf0) == 0x40))
		i++;
	if (i >= n)
		return ptic_other;
	switch (raw[i]) {
	case 0xcc:	/* int3 */
	case 0xcd:	/* int n */
	case 0xce:	/* into */
	case 0xf1:	/* int1 */
	case 0x9a:	/* call far ptr */
		return ptic_far_call;
	case 0xca:	/* ret far */
	case 0xcb:
	case 0xcf:	/* iret */
		return ptic_far_return;
	case 0x0f:
		if (i + 1 >= n)
			return ptic_other;
		if (raw[i + 1] == 0x05 || raw[i + 1] == 0x34)	/* syscall, sysenter */
			return ptic_far_call;
		if (raw[i + 1] == 0x07 || raw[i + 1] == 0x35)	/* sysret, sysexit */
			return ptic_far_return;
		return ptic_other;
	case 0xff:						/* call far m: /3 */
		if (i + 1 < n && ((raw[i + 1] >> 3) & 7) == 3)
			return ptic_far_call;
		return ptic_other;
	default:
		return ptic_other;
	}
}

static int on_block(struct decoder *x, const struct pt_block *b)
{
	enum pt_insn_class iclass;

	x->st->blocks++;
	x->st->insns += b->ninsn;
	if (x->cur->resolve)
		resolve_top(x, b->ip);
	if (!b->ninsn)
		return 0;
	iclass = b->iclass;
	if (iclass == ptic_error)
		iclass = far_class(x, b);
	switch (iclass) {
	case ptic_call:
		update_time(x);
		x->cur->resolve = true;
		return push(x, 0, 0);
	case ptic_far_call:
		update_time(x);
		x->cur->resolve = true;
		return push(x, 0, NSIGHT_PT_CALL_FAR);
	case ptic_return:
		update_time(x);
		pop(x, b->end_ip);
		break;
	case ptic_far_return:
		update_time(x);
		pop_far(x, b->end_ip);
		break;
	default:
		break;
	}
	return 0;
}

/* Decode from a synchronisation point until an error or the end. */
static int decode_synced(struct decoder *x, int status)
{
	uint64_t off, last_off = UINT64_MAX, quiet = 0;
	struct pt_block b;
	struct pt_event ev;
	int err;

	for (;;) {
		while (status & pts_event_pending) {
			status = pt_blk_event(x->blk, &ev, sizeof(ev));
			if (status < 0)
				return status;
			err = on_event(x, &ev);
			if (err || x->stop)
				return err;
		}
		status = pt_blk_next(x->blk, &b, sizeof(b));
		if (status < 0) {
			/* Where a call went is known even if what follows is
			 * not. */
			if (x->cur->resolve)
				resolve_top(x, b.ip);
			x->err_ip = b.ip;
			return status;
		}
		err = on_block(x, &b);
		if (err || x->stop)
			return err;
		if (pt_blk_get_offset(x->blk, &off) < 0 || off != last_off) {
			last_off = off;
			quiet = 0;
		} else if ((quiet += b.ninsn) > MAX_QUIET_INSNS) {
			return ERR_STUCK;
		}
	}
}

/*
 * Decode @len bytes at @buf (offset @off in the caller's buffer) in one go,
 * resynchronising at the next PSB after each error.
 */
static int decode_run(struct decoder *x, const struct pt_config *base, const uint8_t *buf,
		      size_t len, uint64_t off, struct nsight_diag *d)
{
	struct pt_config c = *base;
	uint64_t mark = 0;	/* where decoding last stopped on an error */
	uint64_t pos, tries;
	bool synced = false;
	int status, err = 0;

	c.begin = (uint8_t *)buf;
	c.end = (uint8_t *)buf + len;
	x->blk = pt_blk_alloc_decoder(&c);
	if (!x->blk)
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "pt: cannot allocate a decoder");
	if (pt_blk_set_image(x->blk, x->image) < 0) {
		pt_blk_free_decoder(x->blk);
		x->blk = NULL;
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "pt: cannot set the image");
	}
	x->run_off = off;
	x->st->runs++;
	x->st->decoded_bytes += len;

	/* Every sync attempt moves past a PSB (16 bytes), this bounds them. */
	for (tries = len / 16 + 2; tries; tries--) {
		status = pt_blk_sync_forward(x->blk);
		if (status == -pte_eos)
			break;
		if (synced)
			x->st->resyncs++;
		synced = true;
		if (pt_blk_get_sync_offset(x->blk, &pos) == 0 && pos > mark)
			x->st->lost_bytes += pos - mark;
		mark = UINT64_MAX;
		if (status >= 0) {
			update_time(x);
			restart(x, true);
			status = decode_synced(x, status);
		}
		if (x->stop || status >= 0) {
			err = status > 0 ? 0 : status;
			break;
		}
		if (status == -pte_eos) {
			close_all(x);
			break;
		}
		if (status == ERR_NOMEM) {
			err = nsight_diag_set(d, NSIGHT_E_NOMEM, "pt: out of memory");
			break;
		}
		if (pt_blk_get_offset(x->blk, &pos) < 0 &&
		    pt_blk_get_sync_offset(x->blk, &pos) < 0)
			pos = 0;
		record_error(x, status, pos);
		if (status == -pte_nomap) {
			if (x->err_ip < NSIGHT_PT_KERNEL_HALF)
				x->st->nomap_user++;
			if (!x->st->nomap++) {
				x->st->nomap_ip = x->err_ip;
				x->st->nomap_space = x->cur->key;
			}
		}
		close_all(x);
		mark = pos;
	}
	if (mark != UINT64_MAX && len > mark)
		x->st->lost_bytes += len - mark;
	end_trace(x);
	pt_blk_free_decoder(x->blk);
	x->blk = NULL;
	return err;
}

/* ---------------------------------------------------------------------- */
/* PSB segments and windows                                                 */

struct segment {
	uint64_t off;
	uint64_t tsc;
	bool has_tsc;
};

/* The PSB offsets of @buf and the TSC of each PSB+; NULL on no memory. */
static struct segment *find_segments(const struct pt_config *base, const uint8_t *buf,
				     size_t len, size_t *n_seg, bool *nomem)
{
	struct pt_config c = *base;
	struct pt_packet_decoder *pkt;
	struct segment *seg = NULL;
	size_t n = 0, cap = 0;

	*nomem = false;
	c.begin = (uint8_t *)buf;
	c.end = (uint8_t *)buf + len;
	pkt = pt_pkt_alloc_decoder(&c);
	if (!pkt) {
		*nomem = true;
		return NULL;
	}
	while (pt_pkt_sync_forward(pkt) >= 0) {
		struct segment s = { 0 };
		struct pt_packet p;
		int i;

		if (pt_pkt_get_sync_offset(pkt, &s.off) < 0)
			break;
		/* The PSB+ header: status packets up to PSBEND. */
		for (i = 0; i < 64 && pt_pkt_next(pkt, &p, sizeof(p)) >= 0; i++) {
			if (p.type == ppt_tsc) {
				s.tsc = p.payload.tsc.tsc;
				s.has_tsc = true;
			} else if (p.type == ppt_psbend) {
				break;
			}
		}
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 64;
			struct segment *ns = realloc(seg, ncap * sizeof(*ns));

			if (!ns) {
				free(seg);
				pt_pkt_free_decoder(pkt);
				*nomem = true;
				return NULL;
			}
			seg = ns;
			cap = ncap;
		}
		seg[n++] = s;
	}
	pt_pkt_free_decoder(pkt);
	*n_seg = n;
	return seg;
}

/* Does [start, end) meet one of the windows? */
static bool in_windows(const struct nsight_pt_window *win, size_t n_win, uint64_t start,
		       uint64_t end)
{
	size_t lo = 0, hi = n_win;

	/* The first window that ends at or after @start. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (win[mid].end < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n_win && win[lo].start < end;
}

static int decode_windows(struct decoder *x, const struct pt_config *c, const uint8_t *buf,
			  size_t len, const struct nsight_pt_window *win, size_t n_win,
			  struct nsight_diag *d)
{
	struct segment *seg;
	size_t n = 0, i, j;
	bool nomem;
	int err = 0;

	seg = find_segments(c, buf, len, &n, &nomem);
	if (nomem)
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "pt: out of memory");
	x->st->lost_bytes += n ? seg[0].off : len;
	for (i = 0; i < n && !err && !x->stop; i = j) {
		uint64_t end;

		/* A run of adjacent selected segments [i, j). */
		for (j = i; j < n; j++) {
			uint64_t next = UINT64_MAX;

			if (j + 1 < n && seg[j + 1].has_tsc)
				next = seg[j + 1].tsc;

			if (seg[j].has_tsc && !in_windows(win, n_win, seg[j].tsc, next))
				break;
		}
		if (j == i) {
			end = i + 1 < n ? seg[i + 1].off : len;
			x->st->skipped_bytes += end - seg[i].off;
			j = i + 1;
			continue;
		}
		end = j < n ? seg[j].off : len;
		err = decode_run(x, c, buf + seg[i].off, end - seg[i].off, seg[i].off, d);
	}
	free(seg);
	return err;
}

int nsight_pt_decode(const uint8_t *buf, size_t len, const struct nsight_pt_config *cfg,
		     const struct nsight_pt_image *img, const struct nsight_pt_window *win,
		     size_t n_win, nsight_pt_call_fn fn, void *arg, struct nsight_pt_stats *st,
		     struct nsight_diag *d)
{
	struct nsight_pt_stats dummy;
	struct image_ctx ictx = { .img = img };
	struct decoder x = { 0 };
	struct pt_config c;
	size_t i;
	int err;

	if (!st)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	st->bytes = len;
	if ((!buf && len) || !img || (n_win && !win))
		return nsight_diag_set(d, NSIGHT_E_INVAL, "pt decode: missing argument");
	for (i = 0; i < n_win; i++) {
		if (win[i].start > win[i].end || (i && win[i].start <= win[i - 1].end))
			return nsight_diag_set(d, NSIGHT_E_INVAL,
					       "pt decode: window %zu is not sorted or overlaps",
					       i);
	}
	if (!len)
		return 0;

	pt_config_setup(&c, cfg);
	x.fn = fn;
	x.arg = arg;
	x.st = st;
	/* A private libipt image per call: libipt's images are not thread-safe. */
	x.ictx = &ictx;
	x.image = pt_image_alloc(NULL);
	if (!x.image || pt_image_copy(x.image, img->image) != 0) {
		pt_image_free(x.image);
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "pt: out of memory");
	}
	pt_image_set_callback(x.image, image_read, &ictx);

	/* sp[0]: the address space before the first PIP, not known. */
	if (enter_space(&x, 0))
		err = nsight_diag_set(d, NSIGHT_E_NOMEM, "pt: out of memory");
	else if (n_win)
		err = decode_windows(&x, &c, buf, len, win, n_win, d);
	else
		err = decode_run(&x, &c, buf, len, 0, d);

	pt_image_free(x.image);
	for (i = 0; i < x.n_sp; i++)
		free(x.sp[i].stack);
	free(x.sp);
	if (!err && x.stop)
		err = x.stop;
	return err;
}
