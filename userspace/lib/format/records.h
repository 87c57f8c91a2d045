/* SPDX-License-Identifier: MIT */
/*
 * The records of one CPU's relay buffer: type names, minimum sizes, a
 * validating walker and the whole-record prefix the dumper cuts reads at.
 */
#ifndef NSIGHT_RECORDS_H
#define NSIGHT_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/nsight.h>

#include "base/diag.h"
#include "base/u64map.h"

/* hdr.size is a __u16 and a multiple of NSIGHT_REC_ALIGN. */
#define NSIGHT_REC_MAX_SIZE	(UINT16_MAX & ~(NSIGHT_REC_ALIGN - 1))

/* Name of a record type ("sched_switch", ...), NULL if unknown. */
const char *nsight_rec_type_name(unsigned int type);

/* sizeof() the struct of a known record type, 0 if unknown. */
size_t nsight_rec_min_size(unsigned int type);

/* A known type: NSIGHT_REC_SUBBUF up to the last one this build knows. */
bool nsight_rec_type_known(unsigned int type);

/* One record yielded by the walker. */
struct nsight_rec {
	struct nsight_rec_hdr hdr;	/* copy: the buffer may be unaligned */
	const uint8_t *data;		/* the whole record, hdr.size bytes */
	uint64_t offset;		/* of the record, base_offset-relative */
};

/*
 * The TSC of the compact record @p (@size bytes, its type's minimum
 * checked or not): a SUBBUF's own, else the one ending in its header's 48
 * bits nearest to the previous record's of its CPU, *@prev (*@have: there
 * is one), modulo 2^64, which it becomes. Nearest, not the next one up, so
 * that one corrupt stamp does not carry over to the records after it. False when
 * there is no TSC: a record before the first SUBBUF, or a SUBBUF too short.
 */
bool nsight_crec_tsc(uint64_t *prev, bool *have, const uint8_t *p, size_t size, uint64_t *tsc);

/* The largest record a compact one expands into. */
#define NSIGHT_CDEC_OUT_MAX	(NSIGHT_CREC_MAX_SIZE + 64)

/* What a version of a name or a flow starts with: where it was given. */
struct nsight_cver {
	uint64_t offset;		/* of the record that gave it */
	uint32_t older;			/* index + 1 of the version before, or 0 */
};

/* One name of a tid on a CPU, from the thread record at v.offset. */
struct nsight_cname {
	struct nsight_cver v;
	uint32_t tid;
	uint32_t pid;
	char comm[16];
};

/* One flow of a socket on a CPU, from the sock record at v.offset. */
struct nsight_csock {
	struct nsight_cver v;
	uint64_t sock_id;
	struct nsight_cflow4 flow;
};

/*
 * What one CPU's compact records (NSIGHT_CHUNK_CRECORDS) are expanded
 * with: the TSC of its previous record, and the names its thread records
 * gave (uapi "Thread names") and the flows its sock records gave (uapi
 * "Socket flows"), every version by offset, so that a chunk read again
 * (--window) gets the names and flows that applied then. One per CPU, fed that
 * CPU's chunks in stream order (a chunk again after them is fine).
 */
struct nsight_cdec {
	uint64_t tsc;			/* of the previous record */
	bool have_tsc;			/* a sub-buffer header was seen */
	struct nsight_cname *names;	/* in the order read */
	size_t n_names, cap_names;
	struct nsight_u64map newest;	/* tid -> index + 1 of its last name */
	uint64_t read_to;		/* the furthest record offset expanded, + 1 */
	uint64_t nameless;		/* tids given with no name before them */
	uint64_t nameless_at;		/* the first one's offset */
	struct nsight_csock *socks;	/* in the order read */
	size_t n_socks, cap_socks;
	struct nsight_u64map newest_sock;	/* sock_id -> index + 1 of its last flow */
	uint64_t flowless;		/* socket records with no flow before them */
	uint64_t flowless_at;		/* the first one's offset */
	union {
		uint64_t align;
		uint8_t b[NSIGHT_CDEC_OUT_MAX];
	} out;				/* the record being yielded */
};

void nsight_cdec_init(struct nsight_cdec *c);
void nsight_cdec_fini(struct nsight_cdec *c);

struct nsight_rec_walker {
	const uint8_t *buf;
	size_t len;
	size_t pos;
	uint32_t cpu;
	uint64_t base_offset;
	struct nsight_cdec *dec;	/* compact records; NULL: expanded */
};

/*
 * Walk @len bytes of records that were written on @cpu. @base_offset is
 * added to offsets in error messages and in nsight_rec.offset (the stream
 * offset of the chunk payload, say).
 */
void nsight_rec_walker_init(struct nsight_rec_walker *w, const void *buf,
			    size_t len, uint32_t cpu, uint64_t base_offset);

/*
 * The same for compact records (a CRECORDS chunk), expanded with @dec, the
 * state of @cpu: each record is yielded as the struct nsight_rec_* it
 * stands for (nsight_rec.data points into @dec, valid until the next
 * call), and nsight_rec.offset is the compact record's.
 */
void nsight_rec_walker_init_compact(struct nsight_rec_walker *w, const void *buf,
				    size_t len, uint32_t cpu, uint64_t base_offset,
				    struct nsight_cdec *dec);

/* The walker a RECORDS or CRECORDS chunk of @cpu needs (@dec for CRECORDS). */
void nsight_rec_walker_init_chunk(struct nsight_rec_walker *w, uint32_t chunk_type,
				  const void *buf, size_t len, uint32_t cpu,
				  uint64_t base_offset, struct nsight_cdec *dec);

/*
 * Yield the next record in @rec. Every header is validated: size at least
 * the 16-byte header, a multiple of 8, within the buffer; hdr.cpu is the
 * walker's CPU; type not NSIGHT_REC_INVALID; a known type is at least its
 * struct size. Records of unknown types are yielded too (the caller skips
 * them; the walker steps over them by hdr.size).
 *
 * Returns 1 with a record, 0 at the end of the buffer, or a negative
 * enum nsight_errcode (-NSIGHT_E_RECORD) with @d filled.
 */
int nsight_rec_walker_next(struct nsight_rec_walker *w, struct nsight_rec *rec,
			   struct nsight_diag *d);

/*
 * How many leading bytes of @buf form whole records: the walk stops at the
 * first record that does not fit in @len or whose size is not a valid
 * record size (below 16 or not a multiple of 8). Only sizes are looked at.
 */
size_t nsight_records_whole_prefix(const void *buf, size_t len);

/*
 * Encode @len bytes of one CPU's expanded records (a RECORDS chunk's
 * payload, starting with a SUBBUF record) as the module writes them into
 * its relay buffer: the shorter forms where a record has one, the generic
 * form otherwise, with a thread record before a record that gives a task by
 * its tid alone when a direct-mapped memo of 256 tasks lacks it, as the
 * module's memo does (uapi "Thread names"). Decoding the result gives @in back, with those thread records
 * in it. For tests, seeds and benchmarks. Returns 0 with *@out
 * (malloc'd, *@out_len bytes), or -1: out of memory, or @in not whole
 * valid records (or one larger than a compact record can be).
 */
int nsight_crecords_encode(const void *in, size_t len, uint8_t **out, size_t *out_len);

/* The same for compact records: sizes from 8 to NSIGHT_CREC_MAX_SIZE. */
size_t nsight_crecords_whole_prefix(const void *buf, size_t len);

/* Whether @size is a valid hdr.size: >= 16 and a multiple of 8. */
bool nsight_rec_size_valid(uint32_t size);

#endif /* NSIGHT_RECORDS_H */
