/* SPDX-License-Identifier: MIT */
/*
 * nsightctl record: a capture drained while it runs (record.c). Built on
 * dump.h's pieces; the stream is the same.
 */
#ifndef NSIGHTCTL_RECORD_H
#define NSIGHTCTL_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "dump.h"
#include "flight.h"
#include "nl.h"

struct nsight_record_opts {
	const struct nsight_dump_opts *dump;	/* debugfs, PHC, KSYMS, PT */
	uint64_t duration_ns;	/* stop after this long; 0: no limit */
	uint64_t max_bytes;	/* stop once this many record bytes are written; 0: no limit */
	bool progress;		/* a progress line on stderr */
	/* Keep only the windows around slow messages (flight.h); NULL: all. */
	const struct nsight_flight_opts *flight;
};

struct nsight_record_result {
	bool started;		/* the capture was started by record */
	bool stopped_elsewhere;	/* somebody else stopped it */
	uint64_t elapsed_ns;
	uint64_t records_written;	/* the kernel's counters at the end */
	uint64_t records_dropped;
	uint64_t bytes_written;	/* of the stream */
	/* With a flight recorder: */
	uint64_t triggers;	/* messages past the trigger */
	uint64_t windows;	/* windows saved */
	uint64_t skipped_records;	/* outside every window, not kept */
};

/*
 * Start the capture unless one runs, write the stream header, drain every
 * CPU's buffer while the capture runs until a signal (SIGINT, SIGTERM),
 * ro->duration_ns, ro->max_bytes or a stop by somebody else, then stop it,
 * drain the rest and finish the stream (nsight_dump_finish()). With
 * ro->flight, only the windows around the messages that pass its trigger
 * are kept (flight.h). On an
 * error the capture is stopped if record started it. Returns 0 or a
 * negative errno with @d filled; @after and @res are the caller's to free.
 */
int nsight_record(struct nsight_nl *nl, struct nsight_stream_writer *w,
		  const struct nsight_record_opts *ro, struct nsight_status *after,
		  struct nsight_dump_result *res, struct nsight_record_result *rr,
		  struct nsight_diag *d);

#endif /* NSIGHTCTL_RECORD_H */
