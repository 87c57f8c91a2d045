/* SPDX-License-Identifier: MIT */
/*
 * The records the lifetime and time analyses need, gathered from a whole
 * stream: packet, hand-off, application and clock records (copied out of
 * the chunks, merged over all CPUs and sorted by TSC), the PHC samples, the
 * windows in which each CPU lost records, and the records whose TSC went
 * backwards on their CPU.
 */
#ifndef NSIGHT_CAPTURE_H
#define NSIGHT_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/nsight.h>

#include "base/diag.h"
#include "format/records.h"
#include "format/stream.h"

/* Where a gathered record came from. */
struct nsight_cap_meta {
	uint64_t offset;	/* stream byte offset of the record */
	bool ooo;		/* its TSC is below an earlier one of its CPU */
};

struct nsight_cap_pkt {
	struct nsight_rec_pkt r;
	struct nsight_cap_meta m;
};

struct nsight_cap_handoff {
	struct nsight_rec_handoff r;
	struct nsight_cap_meta m;
};

struct nsight_cap_sock_drop {
	struct nsight_rec_sock_drop r;
	struct nsight_cap_meta m;
};

struct nsight_cap_copy {
	struct nsight_rec_app_copy r;
	struct nsight_cap_meta m;
};

struct nsight_cap_app {
	struct nsight_rec_app r;
	struct nsight_cap_meta m;
	bool has_tcp;				/* a TCP send's state follows */
	struct nsight_tcp_send_state tcp;
};

/* A request mark of an application (uapi nsight.h NSIGHT_REC_REQUEST). */
struct nsight_cap_request {
	struct nsight_rec_request r;
	struct nsight_cap_meta m;
};

/*
 * Records of @cpu were lost at some TSC strictly between @from and @to: a
 * sub-buffer header counted drops since the previous record, or the kernel
 * counted drops after the CPU's last record (@to is UINT64_MAX).
 */
/* An app_recv_start record: thread @tid entered a receive at @tsc. */
struct nsight_cap_recv_start {
	uint64_t tsc;
	uint32_t tid;
};

struct nsight_drop_window {
	uint32_t cpu;
	uint64_t from, to;
	uint64_t dropped;
};

/* pkt records of a CPU by pkt_id, for its pkt_stage records: the latest. */
#define NSIGHT_CAP_PKT_SLOTS	64

struct nsight_cap_cpu {
	bool any;		/* a record was seen */
	uint64_t max_tsc;	/* highest TSC so far */
	uint64_t ooo;		/* records below max_tsc */
	size_t pkt_slot[NSIGHT_CAP_PKT_SLOTS];	/* index + 1 in pkts, 0: none */
};

/* Each array: n_NAME elements of cap_NAME allocated. */
struct nsight_capture {
	struct nsight_cap_pkt *pkts;
	size_t n_pkts, cap_pkts;
	struct nsight_cap_handoff *handoffs;
	size_t n_handoffs, cap_handoffs;
	struct nsight_cap_copy *copies;
	size_t n_copies, cap_copies;
	struct nsight_cap_sock_drop *sock_drops;	/* datagrams a socket had no room for */
	size_t n_sock_drops, cap_sock_drops;
	struct nsight_cap_app *recvs;
	size_t n_recvs, cap_recvs;
	struct nsight_cap_app *sends;
	size_t n_sends, cap_sends;
	struct nsight_cap_request *requests;	/* in stream order */
	size_t n_requests, cap_requests;
	struct nsight_cap_recv_start *starts;	/* paired into recvs, then freed */
	size_t n_starts, cap_starts;
	struct nsight_rec_timekeeper *tks;
	size_t n_tks, cap_tks;
	struct nsight_rec_clock_sync *syncs;
	size_t n_syncs, cap_syncs;
	struct nsight_phc_sample *phc;
	size_t n_phc, cap_phc;
	struct nsight_drop_window *drops;	/* by CPU, then from */
	size_t n_drops, cap_drops;

	uint32_t nr_cpus;
	struct nsight_cap_cpu *cpus;	/* nr_cpus entries */
	uint64_t ooo;			/* out-of-order records, all CPUs */
	uint64_t stages_unresolved;	/* pkt_stage records without their pkt */
	bool finished;
};

/* Returns 0 or -NSIGHT_E_NOMEM; nsight_capture_fini() either way. */
int nsight_capture_init(struct nsight_capture *cap, uint32_t nr_cpus, struct nsight_diag *d);
void nsight_capture_fini(struct nsight_capture *cap);

/*
 * Take one record as yielded by the walker (any type; the ones not needed
 * only count for the order check). Records of one CPU must come in stream
 * order. A pkt_stage record becomes a pkt record: its own fields over those
 * of the CPU's latest pkt record with its pkt_id (without one, it counts in
 * stages_unresolved). Returns 0 or a negative enum nsight_errcode.
 */
int nsight_capture_add(struct nsight_capture *cap, const struct nsight_rec *rec,
		       struct nsight_diag *d);

/* Take a chunk that is not RECORDS: PHC samples are kept, others ignored. */
int nsight_capture_add_chunk(struct nsight_capture *cap, const struct nsight_chunk *ch,
			     struct nsight_diag *d);

/*
 * After the last record: @tail_drops[cpu] (may be NULL) are drops the
 * kernel counted after each CPU's last sub-buffer header. Gives each
 * receive whose start is in an app_recv_start record (start_tsc 0) that
 * start: the last one of its thread after the thread's previous receive;
 * without one (lost, or outside a window) start_tsc stays 0, unknown.
 * Sorts every array by (TSC, CPU, offset).
 */
int nsight_capture_finish(struct nsight_capture *cap, const uint64_t *tail_drops,
			  struct nsight_diag *d);

/* Whether @cpu lost records at a TSC that may lie within [@from, @to]. */
bool nsight_capture_dropped_within(const struct nsight_capture *cap, uint32_t cpu,
				   uint64_t from, uint64_t to);

#endif /* NSIGHT_CAPTURE_H */
