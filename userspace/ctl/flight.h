/* SPDX-License-Identifier: MIT */
/*
 * nsightctl record --flight-recorder: keep only the windows around slow
 * messages.
 *
 * Every CPU's buffer is drained as for a plain record, but its sub-buffers
 * are held in memory for a while (--before plus a margin) instead of being
 * written. Each record is also fed to a trigger: a received message whose
 * latency, from its first receive record (netif_rx, GRO or
 * netif_receive_skb) to the return of the application's receive, passes
 * the threshold opens a window from --before ahead of its first record to
 * --after past its receive. A held sub-buffer that overlaps a window is
 * written when it leaves memory; one that overlaps none is left out and
 * counted in a SKIP chunk, so that the stream's sub-buffer sequence and the
 * kernel's counters still add up. Each CPU's first sub-buffer (it holds
 * the capture's clock records) is always written. Each window gets a
 * TRIGGER chunk naming the message that opened it.
 *
 * The latency is measured here, on the records, and not in the module:
 * the module's hooks stay as they are, and the trigger costs the reader's
 * CPU only.
 */
#ifndef NSIGHTCTL_FLIGHT_H
#define NSIGHTCTL_FLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/nsight.h>

#include "base/diag.h"
#include "format/records.h"
#include "format/stream.h"

struct nsight_flight_opts {
	uint64_t threshold_ns;	/* the trigger: latency above this */
	uint64_t before_ns;	/* kept ahead of a slow message's first record */
	uint64_t after_ns;	/* kept after its receive returned */
	const char *app;	/* only receives by this command name; NULL: any */
	uint16_t port;		/* only receives on this local port; 0: any */
	uint64_t hold_max;	/* bytes held per CPU at most; 0: the default */
};

#define NSIGHT_FLIGHT_BEFORE_NS	200000000ULL	/* 200 ms */
#define NSIGHT_FLIGHT_AFTER_NS	50000000ULL	/* 50 ms */
#define NSIGHT_FLIGHT_HOLD_MAX	(256ULL << 20)

/*
 * Parse a trigger expression: "latency>DURATION", DURATION a number with
 * ns, us, ms or s (no unit: us). Returns 0 or -EINVAL with @d saying why.
 */
int nsight_trigger_parse(const char *expr, uint64_t *threshold_ns, struct nsight_diag *d);

/* A sub-buffer held in memory. */
struct nsight_flight_sub {
	uint8_t *data;
	size_t len, cap;
	uint64_t seq, dropped, records;
	uint64_t tsc_first, tsc_last;
};

struct nsight_flight_cpu {
	bool any;			/* a sub-buffer began */
	bool prologue_done;		/* the first sub-buffer was written */
	struct nsight_flight_sub cur;	/* being filled */
	struct nsight_flight_sub *held;	/* oldest first */
	size_t n_held, cap_held;
	uint64_t held_bytes;
	bool skipping;			/* a SKIP run is pending */
	struct nsight_stream_skip skip;
	struct nsight_cdec dec;		/* the relay's compact records */
	uint64_t fed;			/* bytes of them so far: their offsets */
};

/* A window: the trigger chunk it gets once closed. */
struct nsight_flight_win {
	struct nsight_stream_trigger t;
	bool written;
	bool have_tk;
	struct nsight_rec_timekeeper tk;	/* in force at its start, when it opened */
};

struct nsight_flight_start;	/* first receive record of a packet */
struct nsight_flight_pending;	/* a receive whose packet was not seen yet */
struct nsight_flight_tid;	/* a thread's first packet copied */

struct nsight_flight {
	struct nsight_flight_opts o;
	struct nsight_stream_writer *w;
	uint32_t nr_cpus;
	uint64_t tsc_hz;
	uint64_t threshold, before, after, keep;	/* in TSC ticks */
	uint64_t newest;			/* highest TSC seen */
	struct nsight_flight_cpu *cpus;

	struct nsight_flight_start *starts;
	struct nsight_flight_pending *pending;
	struct nsight_flight_tid *tids;

	struct nsight_flight_win *wins;
	size_t n_wins, cap_wins;

	/* The clock records in force, for the trigger chunks. */
	uint8_t sync[sizeof(struct nsight_rec_clock_sync)];
	bool have_sync;
	struct nsight_rec_timekeeper *tk;	/* a ring of the latest */
	size_t n_tk, tk_head;

	/* Results. */
	uint64_t triggers;		/* messages past the threshold */
	uint64_t saved_bytes, skipped_records, skipped_bytes;
};

int nsight_flight_init(struct nsight_flight *f, const struct nsight_flight_opts *o,
		       uint32_t nr_cpus, uint64_t tsc_hz, struct nsight_stream_writer *w,
		       struct nsight_diag *d);
/*
 * The drain's sink: whole records of CPU @cpu, in its order. Returns 0 or a
 * negative errno with @d filled (a write error, a corrupt record).
 */
int nsight_flight_records(void *ctx, uint32_t cpu, const void *buf, size_t len,
			  struct nsight_diag *d);
/* Once the buffers are drained: close every window and write what is held. */
int nsight_flight_finish(struct nsight_flight *f, struct nsight_diag *d);
void nsight_flight_fini(struct nsight_flight *f);

#endif /* NSIGHTCTL_FLIGHT_H */
