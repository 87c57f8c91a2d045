/* SPDX-License-Identifier: MIT */
/*
 * The dump stream (see uapi/linux/nsight.h): a writer that frames chunks
 * and keeps the totals for the END chunk, and a reader that validates the
 * framing while pulling from a FILE * without seeking (stdin works).
 */
#ifndef NSIGHT_STREAM_H
#define NSIGHT_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/nsight.h>

#include "base/diag.h"

/* Largest chunk payload a reader accepts. */
#define NSIGHT_STREAM_CHUNK_MAX		(1ULL << 30)
/* Largest stream header a reader accepts (hdr_size). */
#define NSIGHT_STREAM_HDR_MAX		4096
/* Largest nr_cpus a reader accepts; the kernel's NR_CPUS is at most 8192. */
#define NSIGHT_STREAM_MAX_CPUS		65536
/* A TSC frequency in the header: 0 (unknown) or within these, in Hz. */
#define NSIGHT_STREAM_MIN_TSC_HZ	1000000ULL
#define NSIGHT_STREAM_MAX_TSC_HZ	100000000000ULL

#define NSIGHT_CHUNK_HDR_SIZE		sizeof(struct nsight_chunk_hdr)

uint32_t nsight_chunk_hdr_crc(const struct nsight_chunk_hdr *ch);
/* The crc32 a chunk header carries for a payload of @len bytes. */
uint32_t nsight_payload_crc(const void *buf, uint64_t len);
/* RECORDS (expanded records) or CRECORDS (compact, see records.h). */
static inline bool nsight_chunk_has_records(uint32_t type)
{
	return type == NSIGHT_CHUNK_RECORDS || type == NSIGHT_CHUNK_CRECORDS;
}

/* Name of a chunk type ("RECORDS", ...), NULL if unknown. */
const char *nsight_chunk_type_name(uint32_t type);

/* ---------------------------------------------------------------------- */
/* Writer                                                                   */

struct nsight_stream_writer {
	FILE *file;		/* one of file and fd is used */
	int fd;
	uint64_t offset;	/* bytes written so far */
	uint64_t chunks;	/* chunks written so far, END excluded */
	uint64_t record_bytes;	/* payload bytes of RECORDS chunks */
	struct nsight_diag diag;
};

void nsight_stream_writer_init_file(struct nsight_stream_writer *w, FILE *f);
void nsight_stream_writer_init_fd(struct nsight_stream_writer *w, int fd);

/*
 * Write the stream header. @hdr supplies tsc_hz, nr_cpus, sources,
 * dump_realtime_ns and release; magic, version and hdr_size are filled in.
 * Every write function returns 0 or a negative enum nsight_errcode with
 * w->diag filled.
 */
int nsight_stream_write_header(struct nsight_stream_writer *w,
			       const struct nsight_stream_hdr *hdr);

/* Any chunk, padded to 8 bytes; the others are shorthands for this. */
int nsight_stream_write_chunk(struct nsight_stream_writer *w, uint32_t type,
			      uint32_t cpu, const void *payload, uint64_t size);
int nsight_stream_write_records(struct nsight_stream_writer *w, uint32_t cpu,
				const void *records, uint64_t size);
/* Compact records as the module's relay buffers hold them. */
int nsight_stream_write_crecords(struct nsight_stream_writer *w, uint32_t cpu,
				 const void *records, uint64_t size);
int nsight_stream_write_status(struct nsight_stream_writer *w,
			       const struct nsight_cpu_status *st, size_t n);
/* A PHC chunk of @n samples (nsightctl writes it only if @n > 0). */
int nsight_stream_write_phc(struct nsight_stream_writer *w,
			    const struct nsight_phc_sample *s, size_t n);
/* The END chunk with the writer's totals; flushes a FILE *. */
int nsight_stream_write_end(struct nsight_stream_writer *w);

/* ---------------------------------------------------------------------- */
/* Reader                                                                   */

/*
 * Whether the stream in @f, a seekable file at its start, has a chunk of
 * @type, found by the chunk headers alone (payloads are seeked over, not
 * read or checked). Returns 1 or 0 with @f back at its start; -1 when
 * @f cannot be seeked (@f untouched) or cannot be put back.
 */
int nsight_stream_has_chunk(FILE *f, uint32_t type);

/* A chunk returned by the reader; payload is valid until the next call. */
struct nsight_chunk {
	uint32_t type;
	uint32_t cpu;
	uint64_t size;
	uint64_t offset;		/* stream offset of the chunk header */
	uint64_t payload_offset;	/* stream offset of the payload */
	const void *payload;
};

struct nsight_stream_reader {
	FILE *file;
	uint64_t offset;		/* bytes consumed so far */
	struct nsight_stream_hdr hdr;	/* v1 fields; hdr.hdr_size as read */
	uint64_t chunks;		/* chunks read, END excluded */
	uint64_t record_bytes;		/* payload bytes of RECORDS chunks */
	uint64_t skipped_chunks;	/* of unknown types */
	bool ended;			/* END read and checked */
	uint8_t *buf;
	size_t buf_cap;
	struct nsight_diag diag;
};

/*
 * Read and validate the stream header from @f: magic, version 1, hdr_size
 * at least the v1 size (extra bytes are skipped), nr_cpus in range, release
 * NUL-terminated. Returns 0 or a negative enum nsight_errcode with r->diag
 * filled; call nsight_stream_reader_fini() in either case.
 */
int nsight_stream_reader_init(struct nsight_stream_reader *r, FILE *f);
void nsight_stream_reader_fini(struct nsight_stream_reader *r);

/*
 * Read the next chunk of a known type other than END. Unknown types are
 * skipped (their crc is still checked). Returns 1 with a chunk, 0 once the
 * END chunk was read, its totals matched and nothing follows it, or a
 * negative enum nsight_errcode with r->diag filled (errors are sticky).
 * Messages name the stream byte offset of the problem.
 *
 * Checked here: chunk type not INVALID, size <= NSIGHT_STREAM_CHUNK_MAX,
 * crc32, zero padding; RECORDS and CRECORDS: cpu < nr_cpus, size a
 * multiple of 8;
 * STATUS: cpu NSIGHT_CHUNK_NO_CPU, size a multiple of the entry size;
 * PHC: cpu NSIGHT_CHUNK_NO_CPU, size a multiple of the sample size, every
 * sample's ifname NUL-terminated;
 * END: cpu NSIGHT_CHUNK_NO_CPU, at least its struct size, totals, last.
 * Records inside a RECORDS chunk are the caller's (nsight_rec_walker).
 */
int nsight_stream_read_chunk(struct nsight_stream_reader *r, struct nsight_chunk *c);

/* ---------------------------------------------------------------------- */
/* PHC samples                                                              */

/* Samples in a PHC chunk returned by the reader. */
size_t nsight_phc_chunk_count(const struct nsight_chunk *c);

/* Copy sample @i (below nsight_phc_chunk_count()) of a PHC chunk into @s. */
void nsight_phc_chunk_get(const struct nsight_chunk *c, size_t i,
			  struct nsight_phc_sample *s);

/* "precise", "extended"; NULL for other values of @method. */
const char *nsight_phc_method_name(uint32_t method);

/*
 * CLOCK_REALTIME minus PHC time at the sample, in ns: the midpoint of the
 * sys_before/sys_after bracket minus phc_ns. A hw_tstamp of this PHC is
 * about hw_tstamp + offset in CLOCK_REALTIME ns.
 */
int64_t nsight_phc_offset_ns(const struct nsight_phc_sample *s);

/* Width of the bracket, sys_after_ns - sys_before_ns (0 when precise). */
int64_t nsight_phc_window_ns(const struct nsight_phc_sample *s);

/*
 * Of the @n samples @s, the one for interface @ifindex with the narrowest
 * bracket (the first of equals; brackets that run backwards, as when the
 * clock was stepped, are ignored). Returns its index into @s, -1 if there
 * is none.
 */
ssize_t nsight_phc_best(const struct nsight_phc_sample *s, size_t n, uint32_t ifindex);

/* Samples whose readings began within this of each other are one reading. */
#define NSIGHT_PHC_GROUP_NS	1000000000LL

/*
 * The offset (CLOCK_REALTIME - PHC) of interface @ifindex's clock at PHC
 * time @phc_ns. nsightctl record reads the PHCs every few seconds: each
 * reading (samples within NSIGHT_PHC_GROUP_NS) stands by its narrowest
 * window; between two readings the offset is interpolated linearly in PHC
 * time, which follows the PHC's drift against the system clock during the
 * capture; before the first or after the last, that reading's offset.
 * With one reading (nsightctl dump) this is nsight_phc_best()'s. Returns
 * false when no sample of @ifindex is valid.
 */
bool nsight_phc_offset_at(const struct nsight_phc_sample *s, size_t n, uint32_t ifindex,
			  int64_t phc_ns, int64_t *offset);

/*
 * The drift of @ifindex's clock over the capture: the offset of its last
 * reading minus that of its first (ns), over the system time between them
 * (*@span_ns). A PHC that does not run gains a second a second. False with
 * fewer than two readings (at least NSIGHT_PHC_GROUP_NS apart).
 */
bool nsight_phc_drift(const struct nsight_phc_sample *s, size_t n, uint32_t ifindex,
		      int64_t *drift_ns, int64_t *span_ns);

#endif /* NSIGHT_STREAM_H */
