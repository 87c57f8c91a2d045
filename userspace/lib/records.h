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

#include "diag.h"

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

struct nsight_rec_walker {
	const uint8_t *buf;
	size_t len;
	size_t pos;
	uint32_t cpu;
	uint64_t base_offset;
};

/*
 * Walk @len bytes of records that were written on @cpu. @base_offset is
 * added to offsets in error messages and in nsight_rec.offset (the stream
 * offset of the chunk payload, say).
 */
void nsight_rec_walker_init(struct nsight_rec_walker *w, const void *buf,
			    size_t len, uint32_t cpu, uint64_t base_offset);

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

/* Whether @size is a valid hdr.size: >= 16 and a multiple of 8. */
bool nsight_rec_size_valid(uint32_t size);

#endif /* NSIGHT_RECORDS_H */
