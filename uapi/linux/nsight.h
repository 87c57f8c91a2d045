/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * nsight: the user/kernel contract of the nsight network-latency profiler.
 *
 * This header is the whole interface between nsight.ko and its tools:
 * the sysfs files, the generic netlink family, the binary records the module
 * writes into its per-CPU relay buffers, and the dump stream nsightctl writes
 * for nsight-analyze. Everything is little-endian, native x86-64 layout, and
 * every structure is a multiple of 8 bytes with explicit padding.
 *
 * Sysfs: /sys/kernel/nsight/
 * --------------------------
 *
 *   enable         rw  "0" or "1". Writing 1 starts a capture: the buffers and
 *                      counters are reset and the selected sources attached.
 *                      Writing 0 stops it: every probe is detached and
 *                      synchronized. Anything else is -EINVAL.
 *   sources        rw  Comma- or space-separated source names (see
 *                      NSIGHT_SOURCE_NAMES), or "all" or "none". Reading lists
 *                      the selected ones. -EBUSY while a capture runs.
 *   buffer_size    rw  Bytes of relay buffer per CPU, NSIGHT_BUFFER_MIN to
 *                      NSIGHT_BUFFER_MAX; rounded up to whole pages per
 *                      sub-buffer. -EBUSY while a capture runs.
 *   filter         rw  "none", or space-separated KIND=V1,V2,... with KIND
 *                      one of port, addr, ifindex, pid (see enum
 *                      nsight_filter_attr), e.g. "port=9000 addr=10.0.0.2".
 *                      -EBUSY while a capture runs.
 *   sample_period  rw  ns between two samples of the "sample" source,
 *                      NSIGHT_SAMPLE_PERIOD_MIN to NSIGHT_SAMPLE_PERIOD_MAX.
 *                      -EBUSY while a capture runs.
 *   pt             r   Intel PT: "state: <name>" (see enum nsight_pt_state)
 *                      and, when there is PT, its capabilities; a reason
 *                      when it cannot be used.
 *   pt_filter      rw  "none", or up to 4 IP ranges START-END (0x hex or
 *                      decimal, END exclusive) separated by commas or
 *                      spaces: PT traces only code there. -EINVAL for bad
 *                      syntax or a non-canonical address, -E2BIG for more
 *                      ranges than the CPU has, -EBUSY while a capture runs.
 *   profile        rw  "0" or "1": profile every hook in the captures that
 *                      follow (see Hook profile below). -EBUSY while a
 *                      capture runs.
 *   tsc_hz         r   TSC frequency the record timestamps count in.
 *   hook_hits, records_written, records_dropped
 *                  r   Totals over all CPUs since the capture started.
 *                      Every hook hit is a record written or dropped:
 *                      hook_hits == records_written + records_dropped.
 *   probes_missed  r   Probe hits the kprobe layer skipped (see
 *                      NSIGHT_A_PROBES_MISSED).
 *   cpuN/{hook_hits,records_written,records_dropped,buffer_used}
 *                  r   The same per CPU, and the unread bytes of its buffer.
 *
 * Writes need CAP_SYS_ADMIN.
 *
 * Intel PT output: <debugfs>/nsight/pt/cpuN
 * ----------------------------------------
 *
 * The trace of each CPU of the last capture, oldest byte first; -EBUSY
 * while tracing, empty when there is none. The buffer is buffer_size
 * bytes per CPU (ToPA, circular: when it wraps the oldest trace is lost).
 *
 * Request marks: /dev/nsight
 * --------------------------
 *
 * A misc device any process may open (mode 0666): NSIGHT_IOC_REQUEST with
 * a struct nsight_request_arg writes an NSIGHT_REC_REQUEST record for the
 * calling thread, on its CPU, when a capture with the "request" source
 * runs; -ENODATA when none does (nothing is written or counted), -EINVAL
 * for an unknown op or non-zero flags, -ENOSPC when the buffer was full
 * (the record is counted as dropped, like every hook's), -ENOTTY for
 * another command. A caller marks only its own thread. The device also
 * maps one page, read-only (offset 0, PAGE_SIZE bytes, MAP_SHARED from a
 * descriptor open for reading only; -EPERM for a mapping that could be
 * written): a struct nsight_request_state whose @capturing is
 * non-zero while such a capture runs, so that a mark costs no system call
 * when none does. An open file or mapping holds a reference on the module
 * (rmmod: in use). nsight_request.h is the applications' side.
 *
 * Hook profile: <debugfs>/nsight/hook_profile
 * -------------------------------------------
 *
 * With profile set, each hook handler counts, per CPU, its calls, the
 * records it wrote and dropped, their bytes, and the TSC cycles spent in
 * the handler (hooks nested in it, such as an interrupt's, excluded); the
 * counters start from zero with each capture. Reading the file gives a
 * comment line with the measured cost of the counting itself (cycles per
 * call, subtracted from cycles/call), a header, and one line per hook that
 * ran: hook, mechanism (tracepoint, ftrace, kprobe, kretprobe-entry,
 * kretprobe-ret, notifier, perf, call, ioctl), source, calls, records, dropped,
 * bytes, cycles, cycles/call, bytes/call; the "other" hook holds records
 * written outside any hook. Reaching a handler (the tracepoint call, the
 * ftrace trampoline, the kprobe) is not counted. Off, profiling costs
 * each hook a static-key NOP.
 *
 * Relay buffers: <debugfs>/nsight/cpuN
 * ------------------------------------
 *
 * One relay channel per CPU in no-overwrite mode: when every sub-buffer is
 * full, new records are dropped (and counted), never overwritten. Reading the
 * file consumes it. The bytes read are a sequence of compact records (see
 * Compact records below), each starting with a 64-bit header word; every
 * sub-buffer begins with a struct nsight_crec_subbuf carrying its sequence
 * number, the number of records dropped on that CPU since the previous
 * sub-buffer began, and the whole TSC. Relay strips the padding at the end
 * of each sub-buffer, so records are simply back to back; a reader walks
 * them by their size and skips types it does not know. While a capture
 * runs, a read returns only the sub-buffers the CPU has finished (whole
 * records), 0 when there is none, and poll() reports
 * POLLIN when there is one; after the stop, a read returns the rest.
 *
 * Generic netlink: family NSIGHT_GENL_NAME, version NSIGHT_GENL_VERSION
 * ---------------------------------------------------------------------
 *
 * Every command needs CAP_NET_ADMIN (GENL_ADMIN_PERM). Attributes are
 * validated strictly: an attribute a command does not take, a wrong length or
 * an out-of-range value is rejected with -EINVAL and an extended ack message.
 *
 * NSIGHT_CMD_START: no attributes. Starts a capture with the current
 *     configuration, exactly like writing 1 to enable. -EALREADY if running.
 *
 * NSIGHT_CMD_STOP: no attributes. Stops the capture. -EALREADY if stopped.
 *
 * NSIGHT_CMD_GET_STATUS: no attributes. The reply (same command) carries:
 *     NSIGHT_A_ENABLED        u8   1 while a capture runs
 *     NSIGHT_A_SOURCES        u32  bit mask of enum nsight_source
 *     NSIGHT_A_BUFFER_SIZE    u32  bytes per CPU
 *     NSIGHT_A_SUBBUF_SIZE    u32  bytes per sub-buffer
 *     NSIGHT_A_N_SUBBUFS      u32  sub-buffers per CPU
 *     NSIGHT_A_TSC_HZ         u64
 *     NSIGHT_A_NR_CPUS        u32  CPU ids are below this (nr_cpu_ids)
 *     NSIGHT_A_HOOK_HITS      u64  totals over all CPUs
 *     NSIGHT_A_RECORDS_WRITTEN u64
 *     NSIGHT_A_RECORDS_DROPPED u64
 *     NSIGHT_A_CPUS           nested, one NSIGHT_A_CPU per possible CPU:
 *         NSIGHT_A_CPU        nested:
 *             NSIGHT_CPU_A_ID               u32
 *             NSIGHT_CPU_A_ONLINE           u8
 *             NSIGHT_CPU_A_HOOK_HITS        u64
 *             NSIGHT_CPU_A_RECORDS_WRITTEN  u64
 *             NSIGHT_CPU_A_RECORDS_DROPPED  u64
 *             NSIGHT_CPU_A_BUFFER_USED      u64  unread bytes
 *             NSIGHT_CPU_A_SUBBUFS_PRODUCED u64
 *             NSIGHT_CPU_A_SUBBUFS_CONSUMED u64
 *     u64 attributes are padded with NSIGHT_A_PAD / NSIGHT_CPU_A_PAD.
 *
 *     NSIGHT_A_FILTER         nested, the filter in force (empty: none),
 *                             as in SET_CONFIG
 *     NSIGHT_A_PROBES_MISSED  u64  probe hits the kprobe layer skipped in
 *                             this capture (a kprobe hit inside another
 *                             probe's handler, or every kretprobe instance
 *                             in use): events lost before any record
 *     NSIGHT_A_SAMPLE_PERIOD  u32  ns between samples of the sample source
 *     NSIGHT_A_PT_STATE       u32  enum nsight_pt_state
 *
 * NSIGHT_CMD_SET_CONFIG: at least one of
 *     NSIGHT_A_SOURCES        u32  only bits of NSIGHT_SOURCES_ALL
 *     NSIGHT_A_BUFFER_SIZE    u32  NSIGHT_BUFFER_MIN..NSIGHT_BUFFER_MAX
 *     NSIGHT_A_SAMPLE_PERIOD  u32  NSIGHT_SAMPLE_PERIOD_MIN..MAX ns
 *     NSIGHT_A_FILTER         nested, replaces the whole filter; an empty
 *                             nest removes it. Entries: NSIGHT_FILTER_A_*,
 *                             each kind repeated up to NSIGHT_FILTER_MAX times
 *     -EBUSY while a capture runs, -EINVAL with no attribute, -E2BIG with
 *     too many filter entries.
 *
 * Multicast group NSIGHT_MCGRP_EVENTS:
 * NSIGHT_CMD_BUFFER_FULL is sent (at most once per CPU per capture) when a
 *     CPU's buffer first fills and records start being dropped:
 *     NSIGHT_A_CPU_ID         u32
 *
 * Dump stream (nsightctl dump -> nsight-analyze)
 * ---------------------------------------------
 *
 * struct nsight_stream_hdr, then chunks, each a struct nsight_chunk_hdr and
 * its payload (padded to 8 bytes, padding not counted in size):
 *     NSIGHT_CHUNK_RECORDS  records of one CPU exactly as read from its relay
 *                           file, whole records only; a CPU's chunks are in
 *                           order and concatenate into its record sequence
 *     NSIGHT_CHUNK_STATUS   array of struct nsight_cpu_status taken after the
 *                           buffers were drained
 *     NSIGHT_CHUNK_PHC      array of struct nsight_phc_sample: each NIC
 *                           clock (PHC) against CLOCK_REALTIME, sampled by
 *                           nsightctl when it dumps
 *     NSIGHT_CHUNK_KSYMS    struct nsight_ksyms_hdr, then the kernel's text
 *                           symbols (the lines of /proc/kallsyms of type
 *                           t or T, in its format) at dump time,
 *                           zlib-compressed (compress2())
 *     NSIGHT_CHUNK_PT       Intel PT trace bytes of one CPU (@cpu), oldest
 *                           first; a CPU's chunks concatenate
 *     NSIGHT_CHUNK_KTEXT    struct nsight_ktext_hdr, then @len bytes of
 *                           kernel code at @addr, read from /proc/kcore:
 *                           the code image a PT decoder follows
 *     NSIGHT_CHUNK_UTEXT    user code of a process the trace ran (see
 *                           struct nsight_utext_hdr): one executable
 *                           mapping, its bytes and its function symbols
 *     NSIGHT_CHUNK_TRIGGER  struct nsight_stream_trigger, then the clock
 *                           records in force at its window's start (a
 *                           clock_sync and a timekeeper record, whole):
 *                           nsightctl record --flight-recorder saved the
 *                           window around a message that passed the trigger
 *     NSIGHT_CHUNK_SKIP     struct nsight_stream_skip: sub-buffers of CPU
 *                           @cpu that the flight recorder read and did not
 *                           keep (they held no saved window), written
 *                           before the CPU's next RECORDS chunk, so that
 *                           its sub-buffer sequence and the kernel's
 *                           counters still add up
 *     NSIGHT_CHUNK_END      struct nsight_stream_end; must be last
 * Readers skip chunk types they do not know.
 */
#ifndef _UAPI_LINUX_NSIGHT_H
#define _UAPI_LINUX_NSIGHT_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define NSIGHT_GENL_NAME	"nsight"
#define NSIGHT_GENL_VERSION	1
#define NSIGHT_MCGRP_EVENTS	"events"

enum nsight_cmd {
	NSIGHT_CMD_UNSPEC,
	NSIGHT_CMD_START,
	NSIGHT_CMD_STOP,
	NSIGHT_CMD_GET_STATUS,
	NSIGHT_CMD_SET_CONFIG,
	NSIGHT_CMD_BUFFER_FULL,
	__NSIGHT_CMD_MAX
};

#define NSIGHT_CMD_MAX (__NSIGHT_CMD_MAX - 1)

enum nsight_attr {
	NSIGHT_A_UNSPEC,
	NSIGHT_A_PAD,
	NSIGHT_A_ENABLED,
	NSIGHT_A_SOURCES,
	NSIGHT_A_BUFFER_SIZE,
	NSIGHT_A_SUBBUF_SIZE,
	NSIGHT_A_N_SUBBUFS,
	NSIGHT_A_TSC_HZ,
	NSIGHT_A_NR_CPUS,
	NSIGHT_A_HOOK_HITS,
	NSIGHT_A_RECORDS_WRITTEN,
	NSIGHT_A_RECORDS_DROPPED,
	NSIGHT_A_CPUS,
	NSIGHT_A_CPU,
	NSIGHT_A_CPU_ID,
	NSIGHT_A_FILTER,
	NSIGHT_A_PROBES_MISSED,
	NSIGHT_A_SAMPLE_PERIOD,
	NSIGHT_A_PT_STATE,
	__NSIGHT_A_MAX
};

#define NSIGHT_A_MAX (__NSIGHT_A_MAX - 1)

enum nsight_cpu_attr {
	NSIGHT_CPU_A_UNSPEC,
	NSIGHT_CPU_A_PAD,
	NSIGHT_CPU_A_ID,
	NSIGHT_CPU_A_ONLINE,
	NSIGHT_CPU_A_HOOK_HITS,
	NSIGHT_CPU_A_RECORDS_WRITTEN,
	NSIGHT_CPU_A_RECORDS_DROPPED,
	NSIGHT_CPU_A_BUFFER_USED,
	NSIGHT_CPU_A_SUBBUFS_PRODUCED,
	NSIGHT_CPU_A_SUBBUFS_CONSUMED,
	__NSIGHT_CPU_A_MAX
};

#define NSIGHT_CPU_A_MAX (__NSIGHT_CPU_A_MAX - 1)

/*
 * Filter: which network events a capture records. Each kind given must
 * match (a port is matched against both ends, an address too); within a kind
 * any entry matches. Kinds that do not apply to a record are ignored: pids
 * filter only application records (app_recv, app_send, app_copy), ifindexes
 * only packet records. Context and clock records are never filtered. At
 * most NSIGHT_FILTER_MAX entries of each kind.
 */
enum nsight_filter_attr {
	NSIGHT_FILTER_A_UNSPEC,
	NSIGHT_FILTER_A_PORT,		/* u16, host order */
	NSIGHT_FILTER_A_ADDR,		/* 4 (IPv4) or 16 (IPv6) bytes */
	NSIGHT_FILTER_A_IFINDEX,	/* u32 */
	NSIGHT_FILTER_A_PID,		/* u32, thread-group id */
	__NSIGHT_FILTER_A_MAX
};

#define NSIGHT_FILTER_A_MAX (__NSIGHT_FILTER_A_MAX - 1)
#define NSIGHT_FILTER_MAX	16

/* Event sources, selected by bit (1 << NSIGHT_SRC_*). */
enum nsight_source {
	NSIGHT_SRC_SCHED_SWITCH,	/* sched_switch tracepoint */
	NSIGHT_SRC_HANDOFF,		/* sk_data_ready tracepoint, or an
					 * ftrace hook on sock_def_readable
					 */
	NSIGHT_SRC_CLOCK,		/* timekeeper updates */
	NSIGHT_SRC_NET_RX,		/* netif_rx, napi_gro_receive_entry,
					 * netif_receive_skb tracepoints
					 */
	NSIGHT_SRC_NET_TX,		/* net_dev_queue, net_dev_start_xmit
					 * tracepoints; skb_tstamp_tx entry
					 */
	NSIGHT_SRC_APP,			/* skb_copy_datagram_iovec and
					 * sock_recv_length tracepoints,
					 * skb_consume_udp, inet{,6}_recvmsg
					 * and inet{,6}_sendmsg entries (a
					 * kretprobe on inet{,6}_recvmsg
					 * without sock_recv_length)
					 */
	NSIGHT_SRC_SCHED_WAKING,	/* sched_waking tracepoint */
	NSIGHT_SRC_IRQ,			/* irq_handler_entry/exit */
	NSIGHT_SRC_SOFTIRQ,		/* softirq_entry/exit */
	NSIGHT_SRC_IDLE,		/* cpu_idle */
	NSIGHT_SRC_FAULT,		/* handle_mm_fault entry and return */
	NSIGHT_SRC_WORKQUEUE,		/* workqueue_execute_start/end */
	NSIGHT_SRC_NAPI,		/* napi_poll */
	NSIGHT_SRC_SAMPLE,		/* cpu-clock sampling of kernel stacks */
	NSIGHT_SRC_PT,			/* Intel PT, where the CPU has it */
	NSIGHT_SRC_FUTEX,		/* futex_wait and futex_wake entries */
	NSIGHT_SRC_REQUEST,		/* applications' request marks
					 * (NSIGHT_IOC_REQUEST on /dev/nsight)
					 */
	__NSIGHT_SRC_COUNT
};

#define NSIGHT_SOURCES_ALL	((1U << __NSIGHT_SRC_COUNT) - 1)
/* What a capture records after the module loads: all but the function-level
 * sources, which cost more, and futexes, which a lock-heavy program calls
 * at a high rate: they are asked for.
 */
#define NSIGHT_SOURCES_DEFAULT	(NSIGHT_SOURCES_ALL & \
				 ~((1U << NSIGHT_SRC_SAMPLE) | \
				   (1U << NSIGHT_SRC_PT) | \
				   (1U << NSIGHT_SRC_FUTEX)))
/* Names used by sysfs "sources" and nsightctl, in bit order. */
#define NSIGHT_SOURCE_NAMES	{ "sched_switch", "handoff", "clock", \
				  "net_rx", "net_tx", "app", "sched_waking", \
				  "irq", "softirq", "idle", "fault", \
				  "workqueue", "napi", "sample", "pt", "futex", \
				  "request" }

/*
 * Intel PT as the module sees it. Selecting the "pt" source where PT is
 * absent or busy is not an error: the capture runs without it and the
 * state says why.
 */
enum nsight_pt_state {
	NSIGHT_PT_ABSENT,	/* the CPU has no Intel PT (or no ToPA) */
	NSIGHT_PT_AVAILABLE,	/* usable, not tracing */
	NSIGHT_PT_BUSY,		/* another user (perf's intel_pt) owns it */
	NSIGHT_PT_TRACING,	/* tracing on every online CPU */
	NSIGHT_PT_FAILED,	/* the last start failed; see the kernel log */
};

#define NSIGHT_PT_STATE_NAMES	{ "absent", "available", "busy", \
				  "tracing", "failed" }

/* Sampling period of the "sample" source, ns. */
#define NSIGHT_SAMPLE_PERIOD_MIN	10000U
#define NSIGHT_SAMPLE_PERIOD_MAX	1000000000U
#define NSIGHT_SAMPLE_PERIOD_DEFAULT	1000000U

#define NSIGHT_BUFFER_MIN	(64U << 10)
#define NSIGHT_BUFFER_MAX	(256U << 20)
#define NSIGHT_BUFFER_DEFAULT	(4U << 20)
/* Sub-buffers per CPU; more give finer-grained loss accounting. */
#define NSIGHT_N_SUBBUFS	16

/* ---------------------------------------------------------------------- */
/* Records                                                                  */

enum nsight_rec_type {
	NSIGHT_REC_INVALID,
	NSIGHT_REC_SUBBUF,
	NSIGHT_REC_SCHED_SWITCH,
	NSIGHT_REC_HANDOFF,
	NSIGHT_REC_TIMEKEEPER,
	NSIGHT_REC_CLOCK_SYNC,
	NSIGHT_REC_PKT,
	NSIGHT_REC_APP_COPY,
	NSIGHT_REC_APP_RECV,
	NSIGHT_REC_APP_SEND,
	NSIGHT_REC_WAKING,
	NSIGHT_REC_IRQ,
	NSIGHT_REC_SOFTIRQ,
	NSIGHT_REC_IDLE,
	NSIGHT_REC_FAULT,
	NSIGHT_REC_WORK,
	NSIGHT_REC_NAPI,
	NSIGHT_REC_SAMPLE,
	NSIGHT_REC_PT,
	NSIGHT_REC_MARK,
	NSIGHT_REC_APP_RECV_START,
	NSIGHT_REC_PKT_STAGE,
	NSIGHT_REC_SOCK_DROP,
	NSIGHT_REC_FUTEX,
	NSIGHT_REC_THREAD,
	NSIGHT_REC_SOCK,
	NSIGHT_REC_NAPI_POLL,
	NSIGHT_REC_REQUEST,
	NSIGHT_REC_PT_CR3,
	__NSIGHT_REC_MAX
};

/*
 * struct nsight_rec_hdr - starts every record.
 * @type: enum nsight_rec_type
 * @size: bytes of the whole record including this header, a multiple of 8
 * @cpu:  CPU the record was written on (== the buffer's CPU)
 * @tsc:  TSC when the record was written, with interrupts off, right in
 *        the probe of the event: the records of one CPU are in TSC order
 */
struct nsight_rec_hdr {
	__u16 type;
	__u16 size;
	__u32 cpu;
	__u64 tsc;
};

#define NSIGHT_REC_ALIGN	8

/*
 * struct nsight_rec_subbuf - first record of every sub-buffer.
 * @seq:     sub-buffer sequence number on this CPU, 0 for the first one of a
 *           capture; a gap means sub-buffers were consumed by another reader
 * @dropped: records dropped on this CPU since the previous sub-buffer began
 *           (they were lost while the buffer was full)
 */
struct nsight_rec_subbuf {
	struct nsight_rec_hdr hdr;
	__u64 seq;
	__u64 dropped;
};

#define NSIGHT_SWITCH_PREEMPT	0x1	/* prev was preempted */

/* sched_switch: @prev_state is the kernel's TASK_* state of prev. */
struct nsight_rec_sched_switch {
	struct nsight_rec_hdr hdr;
	__u32 prev_tid;
	__u32 prev_pid;		/* thread-group id */
	__u32 next_tid;
	__u32 next_pid;
	__s32 prev_prio;
	__s32 next_prio;
	__u32 prev_state;
	__u32 flags;		/* NSIGHT_SWITCH_* */
	char prev_comm[16];
	char next_comm[16];
};

/*
 * struct nsight_flow - the transport flow of a packet or socket.
 * Addresses are IPv6 or IPv4-mapped IPv6; ports in host order. For a packet,
 * s is the sender; for a socket, s is the local end (its bound address and
 * port) and d the peer (zero if unconnected).
 */
struct nsight_flow {
	__u8 saddr[16];
	__u8 daddr[16];
	__u16 sport;
	__u16 dport;
	__u8 family;		/* AF_INET or AF_INET6 */
	__u8 protocol;		/* IPPROTO_TCP, IPPROTO_UDP, ... */
	__u16 pad;
};

/*
 * Packet identity: pkt_id is a keyed hash (siphash, key drawn at module
 * load) of what identifies a packet's content, not of its sk_buff: family,
 * protocol, addresses and ports, and for TCP the sequence number of the
 * first payload byte; for other protocols the IP identification (IPv4) or
 * flow label (IPv6), the payload length and up to 16 payload bytes. It is
 * the same for clones, for the first segment of a GRO aggregate and
 * across the stack, and a reused sk_buff gets a new one. Two datagrams of
 * one flow with the same payload and IP id collide; the socket queue is
 * FIFO, so matching them in order stays right.
 *
 * wire_hash is a 32-bit jhash (seed 0, unkeyed) of the same content: equal
 * on every host the packet crosses (unless a middlebox rewrites addresses,
 * ports or the IP id), so two hosts' captures can be joined per datagram.
 * Unkeyed, it tells a reader of the capture which of a few guessed
 * payloads a datagram started with; pkt_id does not.
 */

/*
 * handoff: sock_def_readable() ran for an AF_INET/AF_INET6 socket, i.e. data
 * became readable and waiters are woken. @sock_id is the socket's cookie
 * (as SO_COOKIE and sock_diag report it): never 0, and never the id of
 * another socket, even one later allocated at the same address. @pkt_id
 * is the newest packet in the receive queue (for UDP, the datagram that
 * just arrived); for TCP, bytes before @tcp_rcv_nxt are readable and the
 * reader has consumed up to @tcp_copied_seq.
 */
struct nsight_rec_handoff {
	struct nsight_rec_hdr hdr;
	__u64 sock_id;
	struct nsight_flow flow;
	__u32 rcvq_bytes;	/* sk_rmem_alloc */
	__u32 rcvq_len;		/* skbs in sk_receive_queue */
	__u64 pkt_id;		/* 0 if the queue is empty */
	__u32 tcp_rcv_nxt;
	__u32 tcp_copied_seq;
};

/*
 * sock_drop: a datagram for an AF_INET/AF_INET6 UDP socket was dropped
 * because the socket had no room for it (the kernel's
 * udp_fail_queue_rcv_skb tracepoint). @rc is the kernel's error: -ENOMEM
 * when the receive buffer was full (@rcvq_bytes of @rcvbuf in use),
 * -ENOBUFS when UDP's memory limit (udp_mem) was reached. @pkt_id is the
 * datagram's identity where the kernel gives the datagram (6.10 and
 * later), else 0.
 */
struct nsight_rec_sock_drop {
	struct nsight_rec_hdr hdr;
	__u64 sock_id;
	__u64 pkt_id;
	struct nsight_flow flow;	/* the socket's */
	__u32 rcvq_bytes;		/* sk_rmem_alloc */
	__u32 rcvbuf;			/* sk_rcvbuf */
	__s32 rc;
	__u32 pad;
};

/*
 * futex: a thread enters futex_wait() (@op NSIGHT_FUTEX_WAIT: it may sleep
 * until the word at @uaddr changes; @arg the value it expects there) or
 * futex_wake() (NSIGHT_FUTEX_WAKE: it wakes up to @arg waiters of @uaddr,
 * as a mutex's unlock does when others wait). @uaddr is the futex word's
 * address in @pid's address space (the lock's identity there); pthread
 * mutexes, condition variables and semaphores come here when contended.
 */
enum nsight_futex_op {
	NSIGHT_FUTEX_WAIT = 1,
	NSIGHT_FUTEX_WAKE = 2,
};

struct nsight_rec_futex {
	struct nsight_rec_hdr hdr;
	__u64 uaddr;
	__u32 tid;
	__u32 pid;
	__u32 op;			/* enum nsight_futex_op */
	__u32 arg;
};

/*
 * request: an application marks what one of its threads does with a
 * request (nsight_request.h; NSIGHT_IOC_REQUEST below). @id is the
 * application's name for the request, unique among those in flight in
 * @pid; @tid is the thread that marked it.
 * - NSIGHT_REQ_BEGIN: @tid starts request @id; the message it received
 *   last (its latest receive that returned data) is the request's.
 * - NSIGHT_REQ_HANDOFF: @tid passes @id on to another thread (e.g. puts it
 *   on a worker's queue).
 * - NSIGHT_REQ_RESUME: @tid takes @id up (the worker dequeues it).
 * - NSIGHT_REQ_END: @id is answered; @tid's latest send is the response.
 * A request may be handed off and resumed several times.
 */
enum nsight_req_op {
	NSIGHT_REQ_BEGIN = 1,
	NSIGHT_REQ_HANDOFF = 2,
	NSIGHT_REQ_RESUME = 3,
	NSIGHT_REQ_END = 4,
	__NSIGHT_REQ_MAX
};

struct nsight_rec_request {
	struct nsight_rec_hdr hdr;
	__u64 id;
	__u32 tid;
	__u32 pid;
	__u32 op;			/* enum nsight_req_op */
	__u32 pad;			/* 0 */
};

/* The argument of NSIGHT_IOC_REQUEST: @op an enum nsight_req_op, @flags 0. */
struct nsight_request_arg {
	__u64 id;
	__u32 op;
	__u32 flags;
};

/* The page /dev/nsight maps (the rest of it is zero). */
struct nsight_request_state {
	__u32 capturing;	/* a capture with the request source runs */
	__u32 pad;
};

#define NSIGHT_IOC_MAGIC	0xb7
#define NSIGHT_IOC_REQUEST	_IOW(NSIGHT_IOC_MAGIC, 1, struct nsight_request_arg)

/* Where a packet record was taken. */
enum nsight_pkt_stage {
	NSIGHT_PKT_RX_NETIF_RX,	/* netif_rx: queued to a CPU's backlog
				 * (veth, non-NAPI drivers)
				 */
	NSIGHT_PKT_RX_GRO,	/* napi_gro_receive_entry: NAPI driver */
	NSIGHT_PKT_RX_RECEIVE,	/* netif_receive_skb: protocol input */
	NSIGHT_PKT_TX_QUEUE,	/* net_dev_queue: enters the qdisc layer */
	NSIGHT_PKT_TX_XMIT,	/* net_dev_start_xmit: handed to the driver */
	NSIGHT_PKT_TX_TSTAMP,	/* skb_tstamp_tx: the driver reported a TX
				 * timestamp (hw_tstamp when hardware)
				 */
	__NSIGHT_PKT_STAGE_MAX
};

#define NSIGHT_PKT_F_HWTSTAMP	0x1	/* hw_tstamp is valid */
#define NSIGHT_PKT_F_GSO	0x2	/* aggregate of gso_segs segments */
#define NSIGHT_PKT_F_CLONED	0x4	/* the sk_buff was a clone */
#define NSIGHT_PKT_F_WIRE_HASH	0x8	/* wire_hash is set (older modules: 0) */

/*
 * pkt: a TCP or UDP packet over IPv4/IPv6 at one stage of its way.
 * @hw_tstamp: NIC timestamp (ns of its PHC), if NSIGHT_PKT_F_HWTSTAMP
 * @sw_tstamp: skb->tstamp (CLOCK_REALTIME ns), 0 if not taken
 * @seq:       TCP sequence number of the first payload byte
 * @payload_len: transport payload bytes (of the whole aggregate)
 * @queue:     RX queue (RX stages) or TX queue (TX stages)
 * @rc:        net_dev_xmit's return code, 0 elsewhere
 * @wire_hash: host-independent identity (see above), if NSIGHT_PKT_F_WIRE_HASH
 */
struct nsight_rec_pkt {
	struct nsight_rec_hdr hdr;
	__u64 pkt_id;
	__s64 hw_tstamp;
	__s64 sw_tstamp;
	struct nsight_flow flow;
	__u32 seq;
	__u32 payload_len;
	__u32 ifindex;
	__u16 queue;
	__u8 stage;		/* enum nsight_pkt_stage */
	__u8 flags;		/* NSIGHT_PKT_F_* */
	__u16 gso_segs;
	__s16 rc;
	__u32 wire_hash;
};

/*
 * pkt_stage: a later stage of a packet whose pkt record was written on this
 * CPU just before (netif_receive_skb after netif_rx, net_dev_start_xmit
 * after net_dev_queue, and netif_rx of a veth or loopback packet after its
 * net_dev_start_xmit on the same CPU): the same packet, unchanged, with the same
 * sw_tstamp. Its pkt record is the last one of this CPU with @pkt_id; the
 * reader takes flow, sequence, lengths, timestamps and wire_hash from it,
 * and stage, ifindex, queue, gso_segs and the NSIGHT_PKT_F_GSO and
 * NSIGHT_PKT_F_CLONED flags from here. A reader that cannot find that
 * record (it read the CPU's records from after it) counts the stage as
 * unresolved.
 */
struct nsight_rec_pkt_stage {
	struct nsight_rec_hdr hdr;
	__u64 pkt_id;
	__u32 ifindex;
	__u16 queue;
	__u8 stage;		/* enum nsight_pkt_stage */
	__u8 flags;		/* NSIGHT_PKT_F_GSO, NSIGHT_PKT_F_CLONED */
	__u16 gso_segs;
	__u16 pad[3];
};

/*
 * app_copy: the data of one packet goes to the application: for TCP at
 * skb_copy_datagram_iovec, @len bytes of it; for UDP when the receive has
 * copied the datagram and consumes it (skb_consume_udp()), @len its
 * payload. @seq is the TCP sequence number the packet starts at.
 */
struct nsight_rec_app_copy {
	struct nsight_rec_hdr hdr;
	__u64 pkt_id;
	__u32 seq;
	__u32 len;
	__u32 tid;
	__u32 pid;
};

/*
 * app_recv / app_send: an application receive returned, or a send began,
 * on an AF_INET/AF_INET6 socket (sock_recv_length or the inet{,6}_recvmsg
 * return, inet{,6}_sendmsg entry).
 * @start_tsc: recv: TSC when recvmsg was entered, or 0 when an
 *             app_recv_start record gives it (the last one of the same
 *             thread before this record); send: hdr.tsc
 * @ret:       recv: bytes returned or a negative errno; send: bytes to send
 * @tcp_seq:   recv: copied_seq after the receive (the message is the
 *             @ret bytes before it); send: write_seq before the send
 * @flags:     the MSG_* flags of the call
 * An app_send on a TCP socket is followed, in the same record, by a
 * struct nsight_tcp_send_state.
 */
struct nsight_rec_app {
	struct nsight_rec_hdr hdr;
	__u64 sock_id;
	struct nsight_flow flow;
	__u64 start_tsc;
	__s64 ret;
	__u32 tcp_seq;
	__u32 tid;
	__u32 pid;
	__u32 flags;
	char comm[16];
};

#define NSIGHT_TCP_NAGLE_OFF	0x1	/* TCP_NODELAY */
#define NSIGHT_TCP_NAGLE_CORK	0x2	/* TCP_CORK */
#define NSIGHT_TCP_NAGLE_PUSH	0x4	/* a push is pending */

/*
 * struct nsight_tcp_send_state - the TCP sender's state as a send begins.
 * It follows the struct nsight_rec_app of an app_send record on a TCP
 * socket (hdr.size is then sizeof(struct nsight_rec_app) +
 * sizeof(struct nsight_tcp_send_state); older modules wrote none). Read
 * without the socket lock at inet{,6}_sendmsg entry, so a value may be a
 * moment old. Sequence numbers are the sender's: @snd_una the first byte
 * not yet acknowledged, @snd_nxt the next byte to send (the app_send's
 * tcp_seq, write_seq, is where its bytes go in the send queue).
 * @snd_wnd:     the peer's receive window, bytes
 * @snd_cwnd:    the congestion window, segments
 * @packets_out: segments sent and not yet acknowledged
 * @mss:         the current MSS
 * @wmem_queued: bytes in the send queue (and its overhead)
 * @sndbuf:      the send buffer's limit, bytes
 * @nonagle:     NSIGHT_TCP_NAGLE_*
 * @srtt_us:     the smoothed round-trip time, us (0 before the first)
 */
struct nsight_tcp_send_state {
	__u32 snd_una;
	__u32 snd_nxt;
	__u32 snd_wnd;
	__u32 snd_cwnd;
	__u32 packets_out;
	__u32 mss;
	__u32 wmem_queued;
	__u32 sndbuf;
	__u32 nonagle;
	__u32 srtt_us;
};

/*
 * app_recv_start: an application receive began (inet{,6}_recvmsg entry),
 * written where the kernel records the receive's end with the
 * sock_recv_length tracepoint: the app_recv record that ends it has
 * start_tsc 0 and is the next app_recv of thread @tid.
 * @flags: the MSG_* flags of the call
 */
struct nsight_rec_app_start {
	struct nsight_rec_hdr hdr;
	__u32 tid;
	__u32 flags;
};

/* Context records: what a CPU runs besides tasks (sched_switch). */

/*
 * waking: a task is being woken (sched_waking, on the waker's CPU).
 * @target_cpu: the CPU it will run on
 */
struct nsight_rec_waking {
	struct nsight_rec_hdr hdr;
	__u32 tid;
	__u32 pid;
	__s32 prio;
	__u32 target_cpu;
	__u32 waker_tid;	/* 0 in interrupt context */
	__u32 pad;
	char comm[16];
};

#define NSIGHT_CTX_ENTRY	0x1	/* an interval starts (else it ends) */

/*
 * thread: names a task in its CPU's buffer (see "Thread names" under
 * Compact records). Readers give it to nobody: they fill the names of the
 * records that follow from it.
 */
struct nsight_rec_thread {
	struct nsight_rec_hdr hdr;
	__u32 tid;
	__u32 pid;		/* thread-group id */
	char comm[16];
};

/*
 * sock: gives a socket's flow in its CPU's buffer (see "Socket flows"
 * under Compact records). Readers fill the flows of the records that
 * follow from it.
 */
struct nsight_rec_sock {
	struct nsight_rec_hdr hdr;
	__u64 sock_id;
	struct nsight_flow flow;
};

/* irq: a hard interrupt handler runs (irq_handler_entry/exit). */
struct nsight_rec_irq {
	struct nsight_rec_hdr hdr;
	__u32 irq;
	__u32 flags;		/* NSIGHT_CTX_ENTRY; on exit, bit 1: handled */
	char name[16];		/* the handler's name, at entry */
};

#define NSIGHT_IRQ_HANDLED	0x2

/* softirq: a softirq vector runs (softirq_entry/exit); vec as in the kernel
 * (0 HI, 1 TIMER, 2 NET_TX, 3 NET_RX, 4 BLOCK, 5 IRQ_POLL, 6 TASKLET,
 * 7 SCHED, 8 HRTIMER, 9 RCU).
 */
struct nsight_rec_softirq {
	struct nsight_rec_hdr hdr;
	__u32 vec;
	__u32 flags;		/* NSIGHT_CTX_ENTRY */
};

/* idle: the CPU enters (state) or leaves (NSIGHT_CTX_ENTRY clear) idle. */
struct nsight_rec_idle {
	struct nsight_rec_hdr hdr;
	__u32 state;		/* the idle state entered */
	__u32 flags;		/* NSIGHT_CTX_ENTRY */
};

#define NSIGHT_FAULT_USER	0x1	/* the faulting access was a user one */
#define NSIGHT_FAULT_WRITE	0x2
#define NSIGHT_FAULT_KERNEL_ADDR 0x4	/* address not recorded */

/*
 * fault: a page fault was handled (handle_mm_fault), from @start_tsc to
 * hdr.tsc, in task @tid. @address is recorded for user addresses only.
 * @ret is the vm_fault_t result.
 */
struct nsight_rec_fault {
	struct nsight_rec_hdr hdr;
	__u64 start_tsc;
	__u64 address;
	__u32 flags;		/* NSIGHT_FAULT_* */
	__u32 ret;
	__u32 tid;
	__u32 pid;
};

#define NSIGHT_WORK_FUNC_LEN	40

/* work: a workqueue item's function runs (workqueue_execute_start/end). */
struct nsight_rec_work {
	struct nsight_rec_hdr hdr;
	__u32 flags;		/* NSIGHT_CTX_ENTRY */
	__u32 pad;
	char func[NSIGHT_WORK_FUNC_LEN]; /* the work function's symbol */
};

/*
 * napi: a NAPI poll of @dev processed @work of @budget packets (what the
 * napi source wrote before NSIGHT_REC_NAPI_POLL).
 */
struct nsight_rec_napi {
	struct nsight_rec_hdr hdr;
	__u32 work;
	__u32 budget;
	char dev[16];
};

/*
 * napi_poll: a NAPI poll of the device @ifindex (as in pkt records)
 * processed @work of @budget packets, each at most 65535. The napi
 * source's record: 16 bytes in a compact stream, where the device's name
 * took 32.
 */
struct nsight_rec_napi_poll {
	struct nsight_rec_hdr hdr;
	__u32 ifindex;
	__u16 work;
	__u16 budget;
};

#define NSIGHT_SAMPLE_USER	0x1	/* interrupted in user mode */
#define NSIGHT_SAMPLE_TRUNCATED	0x2	/* the stack had more frames */
#define NSIGHT_SAMPLE_NO_STACK	0x4	/* only ips[0] (the interrupted IP) is
					 * known: the unwinder did not reach it
					 */
#define NSIGHT_SAMPLE_MAX_DEPTH	32

/*
 * sample: the "sample" source's cpu-clock timer interrupted this CPU.
 * @ips: @nr kernel addresses, innermost first: the interrupted IP, then
 *       the return addresses of its callers. Empty when the CPU ran user
 *       code (NSIGHT_SAMPLE_USER; @user_ip is then where).
 * @period_ns: the sampling period, the time each sample stands for
 * The record is sizeof(struct nsight_rec_sample) + 8 * @nr bytes.
 */
struct nsight_rec_sample {
	struct nsight_rec_hdr hdr;
	__u64 user_ip;
	__u32 tid;
	__u32 pid;
	__u32 period_ns;
	__u16 nr;
	__u16 flags;		/* NSIGHT_SAMPLE_* */
	__u64 ips[];
};

#define NSIGHT_PT_START		0x1	/* written when tracing started */
#define NSIGHT_PT_STOP		0x2	/* written when tracing stopped */
#define NSIGHT_PT_WRAPPED	0x4	/* the output wrapped: the oldest
					 * bytes were overwritten
					 */
#define NSIGHT_PT_ERROR		0x8	/* RTIT_STATUS.Error was set */
#define NSIGHT_PT_STOPPED	0x10	/* a ToPA STOP entry was reached */

/*
 * pt: Intel PT on this CPU, when tracing starts and when it stops: the
 * parameters a decoder needs. The trace bytes themselves are in
 * NSIGHT_CHUNK_PT chunks of the dump stream.
 * @rtit_ctl:    the IA32_RTIT_CTL value programmed
 * @rtit_status: IA32_RTIT_STATUS (at stop)
 * @bytes:       trace bytes in the CPU's buffer at stop (the whole buffer
 *               when NSIGHT_PT_WRAPPED)
 * @tsc_ratio_den, @tsc_ratio_num: CPUID.15H EAX and EBX, the TSC / core
 *               crystal clock ratio (0 if not enumerated)
 * @crystal_hz:  CPUID.15H ECX (0 if not enumerated)
 * @mtc_freq:    RTIT_CTL.MTCFreq: MTC every 2^(mtc_freq) crystal ticks
 * @cyc_thresh, @psb_freq: RTIT_CTL.CycThresh, RTIT_CTL.PSBFreq
 * @nom_freq:    CPUID.16H EAX: nominal (base) frequency, MHz (0 if unknown)
 */
struct nsight_rec_pt {
	struct nsight_rec_hdr hdr;
	__u64 rtit_ctl;
	__u64 rtit_status;
	__u64 bytes;
	__u32 tsc_ratio_den;
	__u32 tsc_ratio_num;
	__u32 crystal_hz;
	__u32 flags;		/* NSIGHT_PT_* */
	__u8 mtc_freq;
	__u8 cyc_thresh;
	__u8 psb_freq;
	__u8 pad;
	__u32 nom_freq;
};

#define NSIGHT_PT_CR3_PTI	0x1	/* page table isolation: user code
					 * runs with CR3 @cr3 | 0x1000
					 */

/*
 * pt_cr3: while Intel PT traces, the process whose page tables a CR3
 * value loads, so that a decoder can give each address space of the trace
 * (its PIP packets) the user code of its process. Written by the
 * sched_switch hook (the "sched_switch" source) when the task switched in
 * has an mm other than the last one this CPU wrote a pt_cr3 record for,
 * and once per CPU for the task running when tracing starts there (none
 * for a kernel thread: it has no mm and runs on the last task's CR3).
 * Kernel threads and switches between threads of one process write none.
 * @cr3:   __pa(mm->pgd): the CR3 value without its PCID (bits 11:0) and
 *         without the no-flush bit 63, which is what a PIP packet gives
 *         (CR3[51:5]) with the PCID bits cleared; the kernel loads it for
 *         kernel code, and for user code too unless NSIGHT_PT_CR3_PTI
 * @flags: NSIGHT_PT_CR3_PTI: page table isolation is on, user code runs
 *         on the user half of the PGD, CR3 @cr3 | 0x1000 (PTI's
 *         PTI_USER_PGTABLE_MASK; also PCID bit 11, cleared as above)
 * A CR3 value may name another process later in a capture (the page
 * tables were freed when the first one exited): the latest record of a
 * process is its own.
 */
struct nsight_rec_pt_cr3 {
	struct nsight_rec_hdr hdr;
	__u64 cr3;
	__u32 tid;
	__u32 pid;		/* thread-group id */
	__u32 flags;		/* NSIGHT_PT_CR3_* */
	__u32 pad;		/* 0 */
};

#define NSIGHT_MARK_MAX_DATA	256

/*
 * mark: written by another kernel module through nsight_mark() (the
 * in-kernel interface, module/nsight_mark.h), e.g. the write-path benchmark
 * selftests/modules/nsight_wpbench. @id is the caller's; @len bytes of
 * @data follow (at most NSIGHT_MARK_MAX_DATA), and the record is padded to
 * a multiple of 8. Marks are written while a capture runs, whatever the
 * sources; the analysis counts them and otherwise skips them.
 */
struct nsight_rec_mark {
	struct nsight_rec_hdr hdr;
	__u64 id;
	__u32 len;
	__u32 pad;
	__u8 data[];
};

#define NSIGHT_TK_CLOCK_WAS_SET	0x1	/* clock was set (not just advanced) */
#define NSIGHT_TK_CS_TSC	0x2	/* clocksource counts TSC cycles */
#define NSIGHT_TK_CS_NOW	0x4	/* cs_now is valid */

/*
 * timekeeper: the parameters the kernel converts clocksource cycles with,
 * logged on every timekeeper update and when the clock source is enabled.
 * Until the next such record:
 *   mono_ns(c) = base_mono +
 *                ((((c - cycle_last) & mask) * mult + xtime_nsec) >> shift)
 *   real_ns(c) = mono_ns(c) + offs_real
 *   raw_ns(c)  = base_raw + ((((c - raw_cycle_last) & mask) * raw_mult +
 *                             raw_xtime_nsec) >> raw_shift)
 * where c is the clocksource's cycle count (the TSC when NSIGHT_TK_CS_TSC).
 * @cs_now is the clocksource read right after the TSC read @tsc_cs, so every
 * record is also an exact (TSC, clocksource) pair, which is what converts
 * TSC stamps when the clocksource is not the TSC.
 *
 * The parameters are in force from @tsc_cs on (the first thing the notifier
 * reads). @tsc_update is the TSC when the kernel began publishing them to
 * the vDSO (update_vsyscall(); 0 if unknown): a clock_gettime() between
 * @tsc_update and @tsc_cs may have used either the old or the new ones.
 */
struct nsight_rec_timekeeper {
	struct nsight_rec_hdr hdr;
	__u64 cycle_last;
	__u64 mask;
	__u64 xtime_nsec;
	__s64 base_mono;
	__s64 offs_real;
	__s64 offs_boot;
	__s64 offs_tai;
	__u64 raw_cycle_last;
	__u64 raw_xtime_nsec;
	__s64 base_raw;
	__u64 xtime_sec;
	__u32 mult;
	__u32 shift;
	__u32 raw_mult;
	__u32 raw_shift;
	__u32 clock_was_set_seq;
	__u32 flags;		/* NSIGHT_TK_* */
	char clocksource[16];
	__u64 cs_now;
	__u64 tsc_cs;
	__u64 tsc_update;
};

/**
 * nsight_cycles_to_ns - the kernel's clocksource conversion, exactly.
 *
 * Returns (((c - cycle_last) & mask) * mult + xtime_nsec) >> shift, computed
 * in 128 bits so that no delta overflows (the kernel does the same for large
 * deltas). Add base_mono for CLOCK_MONOTONIC; with the raw_* fields and
 * base_raw for CLOCK_MONOTONIC_RAW. A shift above 63 is not meaningful and
 * gives 0.
 */
static inline __u64 nsight_cycles_to_ns(__u64 c, __u64 cycle_last,
					__u64 mask, __u32 mult,
					__u32 shift, __u64 xtime_nsec)
{
	__u64 delta = (c - cycle_last) & mask;
	__u64 lo = (delta & 0xffffffffULL) * mult;	/* < 2^64 */
	__u64 mid = (delta >> 32) * mult;		/* < 2^64 */
	__u64 p_lo = lo + (mid << 32);
	__u64 p_hi = (mid >> 32) + (p_lo < lo);
	__u64 r_lo = p_lo + xtime_nsec;

	p_hi += r_lo < p_lo;
	if (shift == 0)
		return r_lo;
	if (shift > 63)
		return 0;
	return (r_lo >> shift) | (p_hi << (64 - shift));
}

/*
 * clock_sync: written when every capture starts. @tsc_before and @tsc_after
 * bracket a ktime_get_snapshot(), which gives @cs_cycles (the clocksource
 * count), @real_ns and @raw_ns for one instant; @mono_ns is read just
 * after it, still inside the bracket.
 */
struct nsight_rec_clock_sync {
	struct nsight_rec_hdr hdr;
	__u64 tsc_before;
	__u64 tsc_after;
	__u64 cs_cycles;
	__s64 mono_ns;
	__s64 real_ns;
	__s64 raw_ns;
	__u64 tsc_hz;
};

/* ---------------------------------------------------------------------- */
/* Compact records                                                          */

/*
 * The relay buffers hold compact records; the dump stream carries them
 * verbatim in NSIGHT_CHUNK_CRECORDS chunks, and a reader expands each into
 * the struct nsight_rec_* above (the form of NSIGHT_CHUNK_RECORDS chunks,
 * which tools write). Every compact record starts with a __u64 header:
 *
 *   bits  0-7   type: enum nsight_rec_type or enum nsight_crec_type
 *   bits  8-15  size of the whole record in 8-byte units (8 to 2040 bytes)
 *   bits 16-63  the low 48 bits of the TSC when it was written
 *
 * A record's TSC is the one ending in these 48 bits nearest to the
 * previous record's of its CPU (modulo 2^64): every sub-buffer begins with
 * a struct nsight_crec_subbuf, which carries the whole TSC.
 *
 * A type of enum nsight_rec_type is that struct without its 16-byte
 * struct nsight_rec_hdr: the header word, then the struct's fields from the
 * first one after hdr (the compact record is 8 bytes shorter). The types of
 * enum nsight_crec_type are shorter forms of records written often: a flow
 * whose two addresses are IPv4 (or IPv4-mapped IPv6) takes 16 bytes,
 * struct nsight_cflow4, in packet, hand-off and application records; and
 * softirq and idle records are their header word alone.
 */
enum nsight_crec_type {
	NSIGHT_CREC_PKT4 = 64,		/* struct nsight_crec_pkt4 */
	NSIGHT_CREC_HANDOFF4,		/* struct nsight_crec_handoff4 */
	NSIGHT_CREC_APP_RECV4,		/* struct nsight_crec_app4 */
	NSIGHT_CREC_APP_SEND4,		/* struct nsight_crec_app4 */
	NSIGHT_CREC_PKT4_TS,		/* struct nsight_crec_pkt4, then sw_tstamp */
	NSIGHT_CREC_SWITCH,		/* struct nsight_crec_switch */
	NSIGHT_CREC_SWITCH_PREEMPT,	/* the same, prev was preempted */
	NSIGHT_CREC_WAKING,		/* struct nsight_crec_waking */
	NSIGHT_CREC_APP_RECV4N,		/* struct nsight_crec_app4n */
	NSIGHT_CREC_APP_SEND4N,		/* struct nsight_crec_app4n */
	NSIGHT_CREC_SWITCH_S,		/* struct nsight_crec_switch_s */
	NSIGHT_CREC_SWITCH_S_PREEMPT,	/* the same, prev was preempted */
	NSIGHT_CREC_WAKING_S,		/* struct nsight_crec_waking_s */
	NSIGHT_CREC_APP_RECV4S,		/* struct nsight_crec_app4s */
	NSIGHT_CREC_APP_SEND4S,		/* struct nsight_crec_app4s */
	NSIGHT_CREC_PKT_STAGE,		/* struct nsight_crec_pkt_stage */
	NSIGHT_CREC_APP_COPY0,		/* struct nsight_crec_app_copy0 */
	NSIGHT_CREC_SOCK4,		/* struct nsight_crec_sock4 */
	NSIGHT_CREC_HANDOFF4F,		/* struct nsight_crec_handoff4f */
	NSIGHT_CREC_APP_RECV4F,		/* struct nsight_crec_app4f */
	NSIGHT_CREC_APP_SEND4F,		/* struct nsight_crec_app4f */
	__NSIGHT_CREC_MAX
};

/*
 * Records that are their header word alone: the type says it all.
 * softirq entry and exit of vector v (< 16): NSIGHT_CREC_SOFTIRQ_ENTRY + v,
 * NSIGHT_CREC_SOFTIRQ_EXIT + v; idle: NSIGHT_CREC_IDLE_EXIT, and entry of
 * state s (< 16) NSIGHT_CREC_IDLE_ENTRY + s. Other values take the
 * generic form.
 */
#define NSIGHT_CREC_SOFTIRQ_ENTRY	96
#define NSIGHT_CREC_SOFTIRQ_EXIT	112
#define NSIGHT_CREC_IDLE_EXIT		128
#define NSIGHT_CREC_IDLE_ENTRY		129
#define NSIGHT_CREC_SMALL_ARGS		16

#define NSIGHT_CREC_TSC_BITS	48
#define NSIGHT_CREC_MAX_SIZE	2040
#define NSIGHT_CREC_HDR(type, size, tsc) \
	((__u64)(type) | (__u64)((size) / 8) << 8 | (__u64)(tsc) << 16)
#define NSIGHT_CREC_TYPE(h)	((unsigned int)((h) & 0xff))
#define NSIGHT_CREC_SIZE(h)	((unsigned int)(((h) >> 8) & 0xff) * 8)
#define NSIGHT_CREC_TSC(h)	((h) >> 16)

/* First record of every sub-buffer (struct nsight_rec_subbuf) and the TSC. */
struct nsight_crec_subbuf {
	__u64 hdr;		/* type NSIGHT_REC_SUBBUF */
	__u64 seq;
	__u64 dropped;
	__u64 tsc;		/* the whole TSC of this record */
};

/* An IPv4 flow (struct nsight_flow with IPv4-mapped addresses). */
struct nsight_cflow4 {
	__be32 saddr;
	__be32 daddr;
	__u16 sport;
	__u16 dport;
	__u8 family;		/* AF_INET, or AF_INET6 with mapped addresses */
	__u8 protocol;
	__u16 pad;
};

/*
 * pkt of an IPv4 packet without a hardware timestamp; NSIGHT_CREC_PKT4 when
 * sw_tstamp is 0 too, NSIGHT_CREC_PKT4_TS with a __s64 sw_tstamp after it
 * (TCP stamps every packet it sends).
 */
struct nsight_crec_pkt4 {
	__u64 hdr;
	__u64 pkt_id;
	struct nsight_cflow4 flow;
	__u32 seq;
	__u32 payload_len;
	__u32 ifindex;
	__u16 queue;
	__u8 stage;
	__u8 flags;
	__u16 gso_segs;
	__s16 rc;
	__u32 wire_hash;
};

/* handoff of a socket with an IPv4 flow. */
struct nsight_crec_handoff4 {
	__u64 hdr;
	__u64 sock_id;
	__u64 pkt_id;
	struct nsight_cflow4 flow;
	__u32 rcvq_bytes;
	__u32 rcvq_len;
	__u32 tcp_rcv_nxt;
	__u32 tcp_copied_seq;
};

/*
 * app_recv / app_send of a socket with an IPv4 flow. A TCP send's struct
 * nsight_tcp_send_state follows, as in struct nsight_rec_app.
 */
struct nsight_crec_app4 {
	__u64 hdr;
	__u64 sock_id;
	__u64 start_tsc;
	__s64 ret;
	struct nsight_cflow4 flow;
	__u32 tcp_seq;
	__u32 tid;
	__u32 pid;
	__u32 flags;
	char comm[16];
};

/*
 * Thread names. A struct nsight_rec_thread in compact form (type
 * NSIGHT_REC_THREAD, 32 bytes) names a task on its CPU; the records of
 * types NSIGHT_CREC_SWITCH*, NSIGHT_CREC_WAKING*, NSIGHT_CREC_APP_*4N,
 * NSIGHT_CREC_APP_*4S, NSIGHT_CREC_APP_*4F and NSIGHT_CREC_APP_COPY0 give
 * only the tid of the tasks they refer to, and their CPU's buffer holds,
 * before them, a
 * thread record of each such tid with the task's thread-group id and
 * command name as they were then (the last such record before a record is
 * the one that applies). The module keeps, per CPU, a memo of the last
 * tasks it named and writes a thread record whenever a task is not in it
 * (a reader must not rely on how often: it keeps every name it read).
 * nsightctl record's flight recorder, which leaves sub-buffers out,
 * writes the ones it keeps as expanded records (NSIGHT_CHUNK_RECORDS),
 * names filled in. The types NSIGHT_CREC_APP_RECV4 and
 * NSIGHT_CREC_APP_SEND4, with their own pid and comm, are those of
 * captures from before thread names.
 */

/* sched_switch: struct nsight_rec_sched_switch without names. */
struct nsight_crec_switch {
	__u64 hdr;
	__u32 prev_tid;
	__u32 next_tid;
	__u32 prev_state;
	__s16 prev_prio;
	__s16 next_prio;
};

/* sched_waking: struct nsight_rec_waking without names. */
struct nsight_crec_waking {
	__u64 hdr;
	__u32 tid;
	__u32 waker_tid;	/* 0 in interrupt context */
	__s16 prio;
	__u16 target_cpu;
	__u32 pad;
};

/* app_recv / app_send of an IPv4 flow without names (a TCP send's state follows). */
struct nsight_crec_app4n {
	__u64 hdr;
	__u64 sock_id;
	__u64 start_tsc;
	__s64 ret;
	struct nsight_cflow4 flow;
	__u32 tcp_seq;
	__u32 tid;
	__u32 flags;
	__u32 pad;
};

/*
 * Short forms of the commonest records, 8 to 16 bytes less each; a writer
 * uses them when the values fit, the forms above otherwise.
 *
 * sched_switch and sched_waking of tasks at the default priority (prio
 * 120, nice 0, both tasks of a switch): the tids (below 2^22, the kernel's
 * PID_MAX_LIMIT) and a third field of 20 bits packed in one word, by the
 * macros below. NSIGHT_CREC_SWITCH_S_PREEMPT when prev was preempted.
 */
#define NSIGHT_CREC_DEFAULT_PRIO	120
#define NSIGHT_CREC_TID_BITS		22
#define NSIGHT_CREC_ARG_BITS		20
#define NSIGHT_CREC_PACK(tid_a, tid_b, arg) \
	((__u64)(tid_a) | (__u64)(tid_b) << 22 | (__u64)(arg) << 44)
#define NSIGHT_CREC_TID_A(w)	((__u32)((w) & 0x3fffff))
#define NSIGHT_CREC_TID_B(w)	((__u32)(((w) >> 22) & 0x3fffff))
#define NSIGHT_CREC_ARG(w)	((__u32)((w) >> 44))

/* sched_switch: tid_a prev_tid, tid_b next_tid, arg prev_state. */
struct nsight_crec_switch_s {
	__u64 hdr;
	__u64 w;
};

/* sched_waking: tid_a tid, tid_b waker_tid, arg target_cpu. */
struct nsight_crec_waking_s {
	__u64 hdr;
	__u64 w;
};

/*
 * app_recv / app_send of an IPv4 flow whose return value fits in 32 bits
 * and whose start needs no field: NSIGHT_CREC_APP_RECV4S is a receive whose
 * start an app_recv_start record gave (start_tsc 0), NSIGHT_CREC_APP_SEND4S
 * a send written as it began (start_tsc is the record's own TSC). A TCP
 * send's state follows.
 */
struct nsight_crec_app4s {
	__u64 hdr;
	__u64 sock_id;
	struct nsight_cflow4 flow;
	__s32 ret;
	__u32 tcp_seq;
	__u32 tid;
	__u32 flags;
};

/*
 * pkt_stage whose gso_segs is below 256: @stage_flags holds stage in its
 * low four bits and flags in its high four.
 */
struct nsight_crec_pkt_stage {
	__u64 hdr;
	__u64 pkt_id;
	__u32 ifindex;
	__u16 queue;
	__u8 stage_flags;
	__u8 gso_segs;
};

/* app_copy with seq 0 (UDP), the task by tid (thread names). */
struct nsight_crec_app_copy0 {
	__u64 hdr;
	__u64 pkt_id;
	__u32 len;
	__u32 tid;
};

/*
 * Socket flows. A struct nsight_crec_sock4 (type NSIGHT_CREC_SOCK4; the
 * expanded form is struct nsight_rec_sock) gives the IPv4 flow of a socket
 * on its CPU; the records of types NSIGHT_CREC_HANDOFF4F and
 * NSIGHT_CREC_APP_*4F give only the socket's id, and their CPU's buffer
 * holds, before them, a sock record of that id whose flow is theirs (the
 * last such record before a record is the one that applies). The module
 * keeps, per CPU, a memo of the last flow it gave each socket; a record
 * whose flow is not the one the memo has (a datagram socket sending to
 * another peer) takes a form with its flow.
 */
struct nsight_crec_sock4 {
	__u64 hdr;
	__u64 sock_id;
	struct nsight_cflow4 flow;
};

/* handoff without its flow (a sock record before it gives it). */
struct nsight_crec_handoff4f {
	__u64 hdr;
	__u64 sock_id;
	__u64 pkt_id;
	__u32 rcvq_bytes;
	__u32 rcvq_len;
	__u32 tcp_rcv_nxt;
	__u32 tcp_copied_seq;
};

/*
 * struct nsight_crec_app4s without its flow: NSIGHT_CREC_APP_RECV4F and
 * NSIGHT_CREC_APP_SEND4F, the start as for NSIGHT_CREC_APP_*4S.
 */
struct nsight_crec_app4f {
	__u64 hdr;
	__u64 sock_id;
	__s32 ret;
	__u32 tcp_seq;
	__u32 tid;
	__u32 flags;
};

/* ---------------------------------------------------------------------- */
/* Dump stream                                                              */

#define NSIGHT_STREAM_MAGIC	"NSIGHT\r\n"	/* 8 bytes, no NUL */
#define NSIGHT_STREAM_VERSION	1

/*
 * struct nsight_stream_hdr - starts a dump stream.
 * @hdr_size: sizeof(struct nsight_stream_hdr) of the writer; readers skip
 *            what they do not know
 * @nr_cpus:  CPU ids in the stream are below this
 * @dump_realtime_ns: CLOCK_REALTIME when the dump began
 * @release:  uname -r of the traced kernel, NUL-terminated (a release
 *            of 64 characters, the utsname maximum, is cut to 63)
 */
struct nsight_stream_hdr {
	char magic[8];
	__u32 version;
	__u32 hdr_size;
	__u64 tsc_hz;
	__u32 nr_cpus;
	__u32 sources;
	__u64 dump_realtime_ns;
	char release[64];
};

enum nsight_chunk_type {
	NSIGHT_CHUNK_INVALID,
	NSIGHT_CHUNK_RECORDS,
	NSIGHT_CHUNK_STATUS,
	NSIGHT_CHUNK_END,
	NSIGHT_CHUNK_PHC,
	NSIGHT_CHUNK_KSYMS,
	NSIGHT_CHUNK_PT,
	NSIGHT_CHUNK_KTEXT,
	NSIGHT_CHUNK_TRIGGER,
	NSIGHT_CHUNK_SKIP,
	NSIGHT_CHUNK_CRECORDS,
	NSIGHT_CHUNK_UTEXT,
};

/*
 * struct nsight_chunk_hdr - starts every chunk.
 * @cpu:   the CPU for NSIGHT_CHUNK_RECORDS, 0xffffffff otherwise
 * @size:  payload bytes following this header (not counting padding to 8)
 * @crc32: zlib crc32() of the payload
 * @hdr_crc32: zlib crc32() of this header with @hdr_crc32 zero, so that a
 *         damaged header is caught before its fields are believed
 */
struct nsight_chunk_hdr {
	__u32 type;
	__u32 cpu;
	__u64 size;
	__u32 crc32;
	__u32 hdr_crc32;
};

#define NSIGHT_CHUNK_NO_CPU	0xffffffffU

/* One per possible CPU in NSIGHT_CHUNK_STATUS: the kernel's counters. */
struct nsight_cpu_status {
	__u32 cpu;
	__u32 online;
	__u64 hook_hits;
	__u64 records_written;
	__u64 records_dropped;
	__u64 buffer_used;	/* bytes still unread after the dump */
};

#define NSIGHT_PHC_EXTENDED	1	/* PTP_SYS_OFFSET_EXTENDED */
#define NSIGHT_PHC_PRECISE	2	/* PTP_SYS_OFFSET_PRECISE */

/*
 * One PHC reading in NSIGHT_CHUNK_PHC: @phc_ns was read between
 * @sys_before_ns and @sys_after_ns (CLOCK_REALTIME; equal for a precise
 * cross-timestamp). A NIC's hw_tstamp in packet records is in its PHC's
 * time: sys ~= hw_tstamp - phc_ns + (sys_before_ns + sys_after_ns) / 2.
 */
struct nsight_phc_sample {
	__u32 phc_index;	/* /dev/ptpN */
	__u32 ifindex;
	char ifname[16];
	__s64 sys_before_ns;
	__s64 phc_ns;
	__s64 sys_after_ns;
	__u32 method;		/* NSIGHT_PHC_* */
	__u32 pad;
};

#define NSIGHT_KSYMS_NO_ADDRS	0x1	/* kallsyms hid the addresses (all 0) */

struct nsight_ksyms_hdr {
	__u64 raw_size;		/* bytes of the uncompressed text */
	__u32 lines;
	__u32 flags;		/* NSIGHT_KSYMS_* */
};

struct nsight_ktext_hdr {
	__u64 addr;
	__u64 len;
	char name[48];		/* "kernel" or the module's name */
};

/*
 * NSIGHT_CHUNK_UTEXT: an executable mapping of process @pid (a line of
 * /proc/PID/maps with "x"), written by nsightctl for each process that
 * pt_cr3 records of the capture name, while it still runs at dump time:
 *   struct nsight_utext_hdr (@hdr_size bytes: a reader takes the fields it
 *       knows, at least this version's, and skips the rest; a multiple
 *       of 8)
 *   @code_len bytes of the mapping at @addr as the process has them
 *       (/proc/PID/mem), or its file's bytes at @pgoff when the memory
 *       could not be read (NSIGHT_UTEXT_FROM_FILE); zero-padded to 8
 *   @n_syms struct nsight_usym: the function symbols (STT_FUNC,
 *       STT_GNU_IFUNC) of the mapped file that start inside the
 *       mapping, at their address in the process, by address
 *   @strs_len bytes: their names, each NUL-terminated
 * The chunk's size is exactly the sum. @path is the file as maps names it
 * ("[vdso]" and the like for others), NUL-terminated, cut to fit.
 */
#define NSIGHT_UTEXT_FROM_FILE	0x1	/* code read from the file */
#define NSIGHT_UTEXT_SYMTAB	0x2	/* symbols from .symtab */
#define NSIGHT_UTEXT_DYNSYM	0x4	/* symbols from .dynsym (no .symtab) */
#define NSIGHT_UTEXT_CUT	0x8	/* the mapping is longer than @code_len */

struct nsight_utext_hdr {
	__u32 hdr_size;
	__u32 pid;
	__u64 addr;
	__u64 code_len;
	__u64 pgoff;		/* the mapping's offset in its file */
	__u32 n_syms;
	__u32 strs_len;
	__u32 flags;		/* NSIGHT_UTEXT_* */
	__u32 pad;
	char path[96];
};

struct nsight_usym {
	__u64 addr;
	__u32 size;		/* bytes, 0 if the file does not say */
	__u32 name;		/* offset of its name in the names */
};

/*
 * NSIGHT_CHUNK_TRIGGER: a received message took longer than @threshold_ns
 * from its first receive record (@start_tsc, on @rx_cpu) to the return of
 * the application's receive (@recv_tsc, on @app_cpu). The records of every
 * CPU from @window_lo_tsc to @window_hi_tsc (--before and --after around
 * the message) are in the stream, in whole sub-buffers; @seq numbers the
 * windows of the stream from 0. A message that passes the trigger while
 * an earlier one's window is still open (it starts before that window's
 * end) extends that window instead and is counted in @more.
 */
struct nsight_stream_trigger {
	__u64 seq;
	__u64 pkt_id;
	__u64 start_tsc;
	__u64 recv_tsc;
	__u64 latency_ns;
	__u64 threshold_ns;
	__u64 window_lo_tsc;
	__u64 window_hi_tsc;
	struct nsight_flow flow;	/* the receiving socket's */
	__u64 sock_id;
	__u32 tid;
	__u32 pid;
	__u32 rx_cpu;
	__u32 app_cpu;
	char comm[16];
	__u64 more;
};

/*
 * NSIGHT_CHUNK_SKIP: sub-buffers @seq_first to @seq_last of CPU @cpu (the
 * chunk header's) were read and not kept: @records records (SUBBUF headers
 * not counted) of @bytes bytes from @tsc_first to @tsc_last, and @dropped,
 * the sum of their SUBBUF dropped fields.
 */
struct nsight_stream_skip {
	__u64 seq_first;
	__u64 seq_last;
	__u64 records;
	__u64 bytes;
	__u64 dropped;
	__u64 tsc_first;
	__u64 tsc_last;
};

/* NSIGHT_CHUNK_END: totals to check the stream against. */
struct nsight_stream_end {
	__u64 chunks;		/* chunks before this one */
	__u64 record_bytes;	/* payload bytes of all RECORDS chunks */
};

#endif /* _UAPI_LINUX_NSIGHT_H */
