/* SPDX-License-Identifier: MIT */
/*
 * trace-cmd captures (trace.dat) as nsight streams: the kernel's own
 * events and the kprobe events of 'nsightctl trace-cmd-args', read with
 * libtracecmd and libtraceevent, become the records nsight.ko would have
 * written (uapi/linux/nsight.h), so that the whole analysis runs on a
 * machine where the module cannot be loaded. Documentation/nsight.rst
 * "Captures without the module" says which event gives which record and
 * what such a capture cannot give.
 *
 * Two layers: nsight_tdconv maps one event at a time (a struct
 * nsight_tdev, whose fields are read through callbacks, so that tests can
 * give events without a file) to records, per CPU, and writes the stream;
 * nsight_tracedat_convert() walks a trace.dat's events in time order into
 * it.
 *
 * The trace clock's timestamps are taken as the TSC of a 1 GHz clock that
 * is CLOCK_MONOTONIC (trace-cmd record -C mono; the default "local" clock
 * is the scheduler clock, close to it): a timekeeper and a clock_sync
 * record say so. No packet identity: a packet is its sk_buff's address
 * (pkt_id a hash of it), from the queueing or receive of that sk_buff to
 * the copy to the application; its flow is the socket's that was made
 * readable with it (on that CPU, right after its receive) or that sent it.
 */
#ifndef NSIGHT_TRACEDAT_H
#define NSIGHT_TRACEDAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/nsight.h>

#include "base/diag.h"
#include "base/u64map.h"
#include "format/stream.h"

/* A trace.dat starts with these bytes (then the version as a string). */
#define NSIGHT_TRACEDAT_MAGIC		"\x17\x08\x44tracing"
#define NSIGHT_TRACEDAT_MAGIC_LEN	10

/* Whether @len bytes at @buf start a trace.dat. */
bool nsight_tracedat_magic(const void *buf, size_t len);

/* The group of the kprobe events of 'nsightctl trace-cmd-args'. */
#define NSIGHT_TRACEDAT_KPROBE_GROUP	"nsight"

/*
 * What 'nsightctl trace-cmd-args' prints: the kprobe events the reader
 * maps (kprobe_events lines, x86-64 registers; struct sock_common's first
 * fields at their fixed offsets), and the kernel events to record, both
 * NULL-terminated; the buffer per CPU, KiB.
 */
extern const char *const nsight_tracedat_kprobes[];
extern const char *const nsight_tracedat_events[];
#define NSIGHT_TRACEDAT_BUFFER_KB	16384

/* What a capture gave: the kinds of event the analysis needs. */
enum nsight_td_kind {
	NSIGHT_TD_SWITCH,	/* sched_switch */
	NSIGHT_TD_WAKING,	/* sched_waking */
	NSIGHT_TD_IRQ,		/* irq_handler_entry/exit */
	NSIGHT_TD_SOFTIRQ,	/* softirq_entry/exit */
	NSIGHT_TD_IDLE,		/* cpu_idle */
	NSIGHT_TD_FAULT,	/* nsight/fault, nsight/fault_ret */
	NSIGHT_TD_WORK,		/* workqueue_execute_start/end */
	NSIGHT_TD_NAPI,		/* napi_poll */
	NSIGHT_TD_RX,		/* netif_rx, netif_receive_skb */
	NSIGHT_TD_TX,		/* net_dev_queue, net_dev_start_xmit */
	NSIGHT_TD_COPY,		/* skb_copy_datagram_iovec */
	NSIGHT_TD_HANDOFF,	/* nsight/handoff (sock_def_readable) */
	NSIGHT_TD_RECV,		/* nsight/recv + nsight/recv_ret */
	NSIGHT_TD_SEND,		/* nsight/send */
	__NSIGHT_TD_KINDS
};

/* "sched_switch", ... : the event a kind stands for, as the report names it. */
const char *nsight_td_kind_name(enum nsight_td_kind k);

struct nsight_tracedat_info {
	uint64_t events;		/* events read */
	uint64_t mapped;		/* of which became records */
	uint64_t unmapped;		/* of events nsight has no record for */
	uint64_t kinds[__NSIGHT_TD_KINDS];	/* events of each kind */
	uint64_t missed;		/* events the ring buffer lost (trace-cmd's count) */
	uint64_t missed_unknown;	/* lost-event marks without a count */
	uint64_t records;		/* records written, SUBBUF included */
	uint64_t pkts_no_flow;		/* RX packets no socket named */
	uint64_t recv_unpaired;		/* receive returns without their entry */
	uint64_t not_inet;		/* socket events of another family (left out) */
	uint32_t nr_cpus;
	uint64_t first_ts, last_ts;	/* trace clock, ns */
	char buffer[64];		/* the instance read ("" the top one) */
	char clock[16];			/* the trace clock, "" if the file does not say */
};

/*
 * One event. Fields are read through @num (numbers, sign-extended to 64
 * bits for signed fields; 0 or -1 when absent) and @str (strings and char
 * arrays, NUL-terminated into @buf; 0 or -1 when absent).
 */
struct nsight_tdev {
	const char *system, *name;
	uint32_t cpu;
	uint64_t ts;
	uint32_t pid;			/* the current task (common_pid) */
	bool in_irq;			/* in hard or soft interrupt context */
	uint64_t missed;		/* events lost just before this one (1 when unknown) */
	int (*num)(const struct nsight_tdev *ev, const char *field, uint64_t *v);
	int (*str)(const struct nsight_tdev *ev, const char *field, char *buf, size_t len);
	/* The name of @pid from the capture's saved command lines, or NULL. */
	const char *(*comm)(const struct nsight_tdev *ev, uint32_t pid);
	/* The kernel symbol at @addr, or NULL. */
	const char *(*func)(const struct nsight_tdev *ev, uint64_t addr);
	void *priv;
};

struct nsight_tdcpu {
	uint8_t *buf;
	size_t len, cap;
	uint64_t seq;
	bool started;
	int64_t rx_pending;	/* offset in buf of the last RX receive no hand-off took, or -1 */
	uint64_t rx_pending_skb;
};

struct nsight_tdtask {
	uint64_t recv_ts;	/* a receive's entry (0: none) */
	uint64_t recv_sock;
	struct nsight_flow recv_flow;
	uint32_t recv_cpu;
	uint64_t fault_ts;	/* a fault's entry (0: none) */
	uint64_t fault_addr;
	uint32_t fault_flags;
	uint64_t send_ts;	/* its last send */
	uint64_t send_len;	/* its payload */
	struct nsight_flow send_flow;
};

struct nsight_tdskb {
	uint64_t skb;
	struct nsight_flow flow;	/* from its send, when it had one */
	bool have_flow;
};

struct nsight_tdconv {
	struct nsight_stream_writer w;
	uint32_t nr_cpus;
	struct nsight_tdcpu *cpus;
	struct nsight_u64map tids;	/* tid -> index into tasks */
	struct nsight_tdtask *tasks;
	size_t n_tasks, cap_tasks;
	struct nsight_u64map skbs;	/* skb -> index into skb ring */
	struct nsight_tdskb *skb_ring;	/* the last NSIGHT_TD_SKBS sent sk_buffs */
	uint32_t skb_next;
	char ifnames[64][16];		/* ifindex i + 1 */
	uint32_t n_ifnames;
	bool clock_written;
	uint64_t flush_at;		/* a CPU's records are written out past this */
	struct nsight_tracedat_info *info;
};

#define NSIGHT_TD_SKBS	4096

/*
 * Start a stream on @out for @nr_cpus CPUs (@release the traced kernel's,
 * may be NULL); counts go to @info. Returns 0 or a negative enum
 * nsight_errcode with @d filled; nsight_tdconv_fini() either way.
 */
int nsight_tdconv_init(struct nsight_tdconv *c, FILE *out, uint32_t nr_cpus, const char *release,
		       struct nsight_tracedat_info *info, struct nsight_diag *d);
/* One event, in time order (per CPU at least). */
int nsight_tdconv_event(struct nsight_tdconv *c, const struct nsight_tdev *ev,
			struct nsight_diag *d);
/* The rest of the records and the END chunk. */
int nsight_tdconv_finish(struct nsight_tdconv *c, struct nsight_diag *d);
void nsight_tdconv_fini(struct nsight_tdconv *c);

/*
 * Convert the trace.dat open on @fd (seekable, at any position; @name for
 * messages) into a stream written to @out. Errors name the file and, where
 * it is known, the byte offset. Returns 0 or a negative enum
 * nsight_errcode.
 */
int nsight_tracedat_convert(const char *name, int fd, FILE *out,
			    struct nsight_tracedat_info *info, struct nsight_diag *d);

/*
 * What the capture could not give, as one sentence for the report ("" when
 * it gave everything a trace-cmd capture can), into @buf.
 */
void nsight_tracedat_missing(const struct nsight_tracedat_info *info, char *buf, size_t len);

#endif /* NSIGHT_TRACEDAT_H */
