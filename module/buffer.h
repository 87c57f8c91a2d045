/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU relay buffers: the record write path and its loss accounting.
 */
#ifndef _NSIGHT_BUFFER_H
#define _NSIGHT_BUFFER_H

#include <linux/types.h>
#include <linux/percpu.h>
#include <linux/relay.h>
#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/smp.h>
#include <linux/nsight.h>
#include "profile.h"
#include "compat.h"

struct rchan;
struct dentry;

/*
 * Per-CPU counters. @written and @dropped are incremented on their CPU
 * with interrupts off (one instruction each, never torn) and read from
 * anywhere; every write attempt is one of them, so the hook hits are their
 * sum. @unreported_drops and @next_seq belong to the buffer's CPU: they are
 * touched only with interrupts off on that CPU, or while no capture runs
 * (reset, channel creation).
 */
struct nsight_cpu_stats {
	u64 written;
	u64 dropped;
	u64 unreported_drops;
	u64 next_seq;
	bool full_reported;
};

/**
 * struct nsight_buffer - one relay channel with a buffer per CPU.
 * @chan:	the relay channel, NULL if none could be allocated
 * @stats:	per-CPU counters
 * @dir:	debugfs directory of the cpuN files
 * @subbuf_size: bytes per sub-buffer
 * @n_subbufs:	sub-buffers per CPU
 * @on_full:	called (from any context, interrupts off) the first time a
 *		CPU drops a record in a capture; may be NULL
 * @live:	writers may run: a reader of cpuN gets finished sub-buffers
 *		only (nsight_buffer_set_live())
 */
struct nsight_buffer {
	struct rchan *chan;
	struct nsight_cpu_stats __percpu *stats;
	struct dentry *dir;
	size_t subbuf_size;
	size_t n_subbufs;
	void (*on_full)(unsigned int cpu);
	bool live;
};

/* Snapshot of one CPU's counters and buffer state. */
struct nsight_cpu_snapshot {
	u64 hits;
	u64 written;
	u64 dropped;
	u64 used;
	u64 subbufs_produced;
	u64 subbufs_consumed;
};

void nsight_buffer_geometry(u32 size, size_t *subbuf_size, size_t *n_subbufs);
int nsight_buffer_open(struct nsight_buffer *b, struct dentry *dir, u32 size);
void nsight_buffer_close(struct nsight_buffer *b);
void nsight_buffer_reset(struct nsight_buffer *b);
void nsight_buffer_set_live(struct nsight_buffer *b, bool live);
bool nsight_buffer_write(struct nsight_buffer *b, struct nsight_rec_hdr *rec);
void nsight_buffer_snapshot(struct nsight_buffer *b, unsigned int cpu,
			    struct nsight_cpu_snapshot *s);
void nsight_subbuf_record_fill(struct nsight_crec_subbuf *r, u64 tsc,
			       u64 seq, u64 dropped);
void nsight_buffer_drop(struct nsight_buffer *b, struct nsight_cpu_stats *st,
			u16 size);

/* The capture's buffer, written by every hook. */
extern struct nsight_buffer nsight_buf;

/* A reservation between nsight_reserve() and nsight_commit(). */
struct nsight_wr {
	unsigned long flags;
	u64 tsc;		/* the record's TSC */
};

/**
 * __nsight_creserve - reserve a compact record in @b on this CPU.
 * @b:    the buffer
 * @w:    kept for nsight_commit(); @w->tsc is the record's TSC
 * @type: enum nsight_rec_type or enum nsight_crec_type
 * @size: bytes of the whole compact record, a multiple of 8
 *
 * Returns the record with its header word written (type, size, the TSC
 * now) and interrupts off until nsight_commit(): the caller fills in every
 * other byte in between, in place. Returns NULL when the record is dropped
 * (the buffer is full, or NMI context), counted, interrupts as they were.
 * Reserving and stamping with interrupts off keep every CPU's records in
 * TSC order; the reservation may start a sub-buffer, whose header is
 * stamped first.
 */
static __always_inline u64 *__nsight_creserve_irqoff(struct nsight_buffer *b,
						     struct nsight_wr *w,
						     u8 type, u32 size);

static __always_inline u64 *__nsight_creserve(struct nsight_buffer *b,
					      struct nsight_wr *w, u8 type,
					      u32 size)
{
	u64 *h;

	local_irq_save(w->flags);
	h = __nsight_creserve_irqoff(b, w, type, size);
	if (unlikely(!h))
		local_irq_restore(w->flags);
	return h;
}

/*
 * __nsight_creserve() for a caller that turned interrupts off itself, with
 * local_irq_save(@w->flags): a record it writes in the same section as it
 * reads per-CPU state. They stay off whether the record is dropped or not.
 */
static __always_inline u64 *__nsight_creserve_irqoff(struct nsight_buffer *b,
						     struct nsight_wr *w,
						     u8 type, u32 size)
{
	struct rchan_buf *rb;
	u64 *h;

	if (unlikely(in_nmi()))
		goto drop;
	/*
	 * relay_reserve() without its preemption toggle, which interrupts
	 * being off make redundant.
	 */
	rb = *this_cpu_ptr(b->chan->buf);
	if (unlikely(rb->offset + size > b->subbuf_size) &&
	    !relay_switch_subbuf(rb, size))
		goto drop;
	h = rb->data + rb->offset;
	rb->offset += size;
	w->tsc = nsight_clock();
	*h = NSIGHT_CREC_HDR(type, size, w->tsc);
	this_cpu_inc(b->stats->written);
	nsight_prof_record(size, true);
	return h;
drop:
	nsight_buffer_drop(b, this_cpu_ptr(b->stats), size);
	return NULL;
}

/*
 * __nsight_reserve - a record of a type of enum nsight_rec_type, written
 * in its compact form: @size is sizeof() its struct nsight_rec_*, and the
 * struct returned lies over the compact record so that its fields after
 * hdr are the compact record's body. The struct's hdr overlaps the bytes
 * before the record and must not be touched (nor read: the TSC is
 * @w->tsc).
 */
static __always_inline void *__nsight_reserve(struct nsight_buffer *b,
					      struct nsight_wr *w, u16 type,
					      u16 size)
{
	u64 *h = __nsight_creserve(b, w, type, size - 8);

	return h ? (void *)h - 8 : NULL;
}

static __always_inline void *nsight_reserve(struct nsight_wr *w, u16 type,
					    u16 size)
{
	return __nsight_reserve(&nsight_buf, w, type, size);
}

/* The record reserved with @w is complete. */
static __always_inline void nsight_commit(struct nsight_wr *w)
{
	local_irq_restore(w->flags);
}

/**
 * nsight_emit - write a record built elsewhere into this CPU's buffer.
 * @rec: a filled record; hdr.type and hdr.size must be set
 *
 * For records that are not on a hot path (a hook fills its record in
 * place with nsight_reserve()). The writer sets hdr.cpu and hdr.tsc.
 * Callable from any context but NMI (NMI writes are counted as dropped).
 * Returns true if the record was written, false if it was dropped.
 */
static inline bool nsight_emit(struct nsight_rec_hdr *rec)
{
	return nsight_buffer_write(&nsight_buf, rec);
}

static inline void nsight_rec_init(struct nsight_rec_hdr *hdr, u16 type,
				   u16 size)
{
	hdr->type = type;
	hdr->size = size;
	hdr->cpu = 0;	/* both set by the writer */
	hdr->tsc = 0;
}

#endif /* _NSIGHT_BUFFER_H */
