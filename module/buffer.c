// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU relay buffers.
 *
 * Each CPU has a relay buffer of n_subbufs sub-buffers in no-overwrite mode.
 * A record is reserved, stamped and copied with interrupts off on the
 * writing CPU, which is all relay needs for per-CPU buffers; stamping after
 * the reservation (which may start a sub-buffer and write its header) keeps
 * every CPU's records in TSC order. When every sub-buffer is
 * full, relay refuses the reservation and the record is counted as dropped;
 * the next sub-buffer that starts after a reader made room begins with a
 * NSIGHT_REC_SUBBUF record carrying its sequence number and the number of
 * records lost before it. Every write attempt is a hook hit: it is
 * counted as written or as dropped, and the hits are their sum.
 *
 * Reading <debugfs>/nsight/cpuN consumes. While a capture runs, a read
 * returns only sub-buffers their CPU has finished, whose records are all
 * complete (relay's own read would also return the sub-buffer being
 * written, whose last record may be half filled), and 0 when there is
 * none; poll() says when one is. Once the capture is stopped, a read
 * returns the rest, the unfinished sub-buffer included.
 */
#include <linux/relay.h>
#include <linux/debugfs.h>
#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/cpumask.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include "buffer.h"
#include "profile.h"
#include "compat.h"

struct nsight_buffer nsight_buf;

void nsight_subbuf_record_fill(struct nsight_crec_subbuf *r, u64 tsc,
			       u64 seq, u64 dropped)
{
	r->hdr = NSIGHT_CREC_HDR(NSIGHT_REC_SUBBUF, sizeof(*r), tsc);
	r->seq = seq;
	r->dropped = dropped;
	r->tsc = tsc;
}

/*
 * Split @size bytes per CPU into NSIGHT_N_SUBBUFS sub-buffers of whole
 * pages, after clamping it to the allowed range.
 */
void nsight_buffer_geometry(u32 size, size_t *subbuf_size, size_t *n_subbufs)
{
	size = clamp(size, NSIGHT_BUFFER_MIN, NSIGHT_BUFFER_MAX);
	*n_subbufs = NSIGHT_N_SUBBUFS;
	*subbuf_size = round_up(DIV_ROUND_UP(size, NSIGHT_N_SUBBUFS), PAGE_SIZE);
}

/*
 * Relay calls this when a sub-buffer starts: at channel creation and reset
 * (prev_subbuf == NULL, process context, possibly on another CPU) and from
 * relay_reserve() on the buffer's own CPU with interrupts off.
 */
static int nsight_subbuf_start(struct rchan_buf *buf, void *subbuf,
			       void *prev_subbuf, size_t prev_padding)
{
	struct nsight_buffer *b = buf->chan->private_data;
	struct nsight_cpu_stats *st = per_cpu_ptr(b->stats, buf->cpu);

	if (relay_buf_full(buf))
		return 0;

	nsight_subbuf_record_fill(subbuf, nsight_clock(), st->next_seq++,
				  st->unreported_drops);
	st->unreported_drops = 0;
	subbuf_start_reserve(buf, sizeof(struct nsight_crec_subbuf));
	return 1;
}

/* Readers against each other and against a reset of the buffers. */
static DEFINE_MUTEX(nsight_buffer_read_lock);

/*
 * Copy what @buf's CPU has finished, at most @count bytes, consuming it.
 * A finished sub-buffer no longer changes: its CPU writes the sub-buffer
 * after the last one produced, and only once the reader consumed one
 * when all were full.
 */
static ssize_t nsight_buf_read_finished(struct rchan_buf *buf,
					char __user *ubuf, size_t count)
{
	size_t subbuf_size = buf->chan->subbuf_size;
	size_t n_subbufs = buf->chan->n_subbufs;
	size_t done = 0;

	while (done < count) {
		size_t produced = READ_ONCE(buf->subbufs_produced);
		size_t idx, len, n;

		if (produced == buf->subbufs_consumed)
			break;
		/* The sub-buffer's data and padding, then its production. */
		smp_rmb();
		idx = buf->subbufs_consumed % n_subbufs;
		len = subbuf_size - buf->padding[idx];
		n = min(len - buf->bytes_consumed, count - done);
		if (copy_to_user(ubuf + done, buf->start + idx * subbuf_size +
				 buf->bytes_consumed, n))
			return done ? done : -EFAULT;
		done += n;
		buf->bytes_consumed += n;
		if (buf->bytes_consumed == len) {
			buf->bytes_consumed = 0;
			relay_subbufs_consumed(buf->chan, buf->cpu, 1);
		}
	}
	return done;
}

static int nsight_buf_open(struct inode *inode, struct file *filp)
{
	/*
	 * debugfs keeps the file's operations from running once relay_close()
	 * removed it, so no reference to @buf is taken.
	 */
	filp->private_data = inode->i_private;
	return nonseekable_open(inode, filp);
}

static __poll_t nsight_buf_poll(struct file *filp, poll_table *wait)
{
	struct rchan_buf *buf = filp->private_data;
	struct nsight_buffer *b = buf->chan->private_data;

	if (!READ_ONCE(b->live))
		return EPOLLIN | EPOLLRDNORM;
	poll_wait(filp, &buf->read_wait, wait);
	if (READ_ONCE(buf->subbufs_produced) != buf->subbufs_consumed)
		return EPOLLIN | EPOLLRDNORM;
	return 0;
}

static ssize_t nsight_buf_read(struct file *filp, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct rchan_buf *buf = filp->private_data;
	struct nsight_buffer *b = buf->chan->private_data;
	ssize_t ret;

	mutex_lock(&nsight_buffer_read_lock);
	if (READ_ONCE(b->live)) {
		ret = nsight_buf_read_finished(buf, ubuf, count);
		if (ret > 0)
			*ppos += ret;
	} else {
		ret = relay_file_operations.read(filp, ubuf, count, ppos);
	}
	mutex_unlock(&nsight_buffer_read_lock);
	return ret;
}

static const struct file_operations nsight_buf_fops = {
	.owner		= THIS_MODULE,
	.open		= nsight_buf_open,
	.read		= nsight_buf_read,
	.poll		= nsight_buf_poll,
};

static struct dentry *nsight_create_buf_file(const char *filename,
					     struct dentry *parent,
					     umode_t mode,
					     struct rchan_buf *buf,
					     int *is_global)
{
	*is_global = 0;
	/* relay_open() without a base name would pass no name: never used. */
	if (!filename)
		return ERR_PTR(-EINVAL);
	return debugfs_create_file(filename, 0400, parent, buf,
				   &nsight_buf_fops);
}

static int nsight_remove_buf_file(struct dentry *dentry)
{
	debugfs_remove(dentry);
	return 0;
}

static const struct rchan_callbacks nsight_relay_cb = {
	.subbuf_start		= nsight_subbuf_start,
	.create_buf_file	= nsight_create_buf_file,
	.remove_buf_file	= nsight_remove_buf_file,
};

static void nsight_stats_clear(struct nsight_buffer *b)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct nsight_cpu_stats *st = per_cpu_ptr(b->stats, cpu);

		st->written = 0;
		st->dropped = 0;
		st->unreported_drops = 0;
		st->next_seq = 0;
		st->full_reported = false;
	}
}

/**
 * nsight_buffer_open - allocate the per-CPU buffers of @b.
 * @b:    the buffer, with @stats and @on_full not yet set up
 * @dir:  debugfs directory for the cpuN files
 * @size: bytes per CPU (clamped, see nsight_buffer_geometry())
 *
 * Process context. Returns 0 or -ENOMEM.
 */
int nsight_buffer_open(struct nsight_buffer *b, struct dentry *dir, u32 size)
{
	if (!b->stats) {
		b->stats = alloc_percpu(struct nsight_cpu_stats);
		if (!b->stats)
			return -ENOMEM;
	}
	nsight_stats_clear(b);
	b->live = false;
	nsight_buffer_geometry(size, &b->subbuf_size, &b->n_subbufs);
	b->dir = dir;
	b->chan = relay_open("cpu", dir, b->subbuf_size, b->n_subbufs,
			     &nsight_relay_cb, b);
	if (!b->chan) {
		free_percpu(b->stats);
		b->stats = NULL;
		return -ENOMEM;
	}
	return 0;
}

/*
 * Free the channel. No writer may run: the caller has detached and
 * synchronized every probe that writes into @b.
 */
void nsight_buffer_close(struct nsight_buffer *b)
{
	if (b->chan)
		relay_close(b->chan);
	b->chan = NULL;
	free_percpu(b->stats);
	b->stats = NULL;
}

/* Discard everything and zero the counters. No writer may run. */
void nsight_buffer_reset(struct nsight_buffer *b)
{
	mutex_lock(&nsight_buffer_read_lock);
	/* Counters first: relay_reset() writes the first sub-buffer headers. */
	nsight_stats_clear(b);
	relay_reset(b->chan);
	mutex_unlock(&nsight_buffer_read_lock);
}

/*
 * Writers may run from now on (@live), or no writer runs any more (every
 * probe detached and synchronized): what a read of cpuN may return.
 */
void nsight_buffer_set_live(struct nsight_buffer *b, bool live)
{
	WRITE_ONCE(b->live, live);
}

/*
 * The reservation failed: count the drop, tell the sub-buffer header that
 * comes next, and report the first drop of the capture. Interrupts off.
 */
void nsight_buffer_drop(struct nsight_buffer *b, struct nsight_cpu_stats *st,
			u16 size)
{
	/* Single instructions: an NMI's drop may land in between. */
	this_cpu_inc(b->stats->dropped);
	this_cpu_inc(b->stats->unreported_drops);
	nsight_prof_record(size, false);
	if (!st->full_reported && b->on_full) {
		st->full_reported = true;
		b->on_full(smp_processor_id());
	}
}

/*
 * Write @rec in its compact form (its body after the header word). Returns
 * true if it was written, false if it was dropped.
 */
bool nsight_buffer_write(struct nsight_buffer *b, struct nsight_rec_hdr *rec)
{
	struct nsight_wr w;
	u64 *dst;

	if (unlikely(rec->size - 8 > NSIGHT_CREC_MAX_SIZE)) {
		/* No compact form: dropped, and counted as every drop is. */
		local_irq_save(w.flags);
		nsight_buffer_drop(b, this_cpu_ptr(b->stats), rec->size);
		local_irq_restore(w.flags);
		return false;
	}
	dst = __nsight_creserve(b, &w, rec->type, rec->size - 8);
	if (!dst)
		return false;
	memcpy(dst + 1, rec + 1, rec->size - sizeof(*rec));
	rec->cpu = smp_processor_id();
	rec->tsc = w.tsc;
	nsight_commit(&w);
	return true;
}

void nsight_buffer_snapshot(struct nsight_buffer *b, unsigned int cpu,
			    struct nsight_cpu_snapshot *s)
{
	struct nsight_cpu_stats *st = per_cpu_ptr(b->stats, cpu);
	struct rchan_buf *rb = NULL;

	memset(s, 0, sizeof(*s));
	s->written = READ_ONCE(st->written);
	s->dropped = READ_ONCE(st->dropped);
	s->hits = s->written + s->dropped;
	if (b->chan)
		rb = *per_cpu_ptr(b->chan->buf, cpu);
	if (rb) {
		size_t produced = READ_ONCE(rb->subbufs_produced);
		size_t consumed = READ_ONCE(rb->subbufs_consumed);
		size_t offset = min(READ_ONCE(rb->offset), b->subbuf_size);
		size_t bytes_consumed = READ_ONCE(rb->bytes_consumed);

		s64 used;

		/* Approximate while writers run; includes sub-buffer padding. */
		s->subbufs_produced = produced;
		s->subbufs_consumed = consumed;
		used = (s64)(produced - consumed) * b->subbuf_size + offset -
		       bytes_consumed;
		s->used = used > 0 ? used : 0;
	}
}
