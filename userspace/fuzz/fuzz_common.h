/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the libFuzzer targets (fuzz_*.c): the input as a FILE *, and
 * a repair of a stream's framing so that mutations reach the records.
 *
 * Every chunk carries two crc32s and the END chunk two totals: a random
 * mutation of a record would almost always stop at the first crc check.
 * fuzz_fix_stream() walks a stream as the reader does and recomputes them;
 * the targets run the input as it is, then, if the repair changed
 * anything, once more repaired. Both the reader's own checks and what lies
 * behind them are fuzzed.
 */
#ifndef NSIGHT_FUZZ_COMMON_H
#define NSIGHT_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/nsight.h>

#include "diagnose/categories.h"
#include "diagnose/categories_builtin.h"
#include "format/stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A FILE reading @size bytes of @data (which must outlive it); NULL for 0 bytes. */
static inline FILE *fuzz_file(const void *data, size_t size)
{
	if (!size)
		return NULL;
	return fmemopen((void *)data, size, "rb");
}

/* The built-in category rules into @cats, or abort (LLVMFuzzerInitialize). */
static inline void fuzz_builtin_cats(struct nsight_cats *cats)
{
	struct nsight_diag d = { 0 };

	nsight_cats_init(cats);
	if (nsight_cats_parse(cats, nsight_categories_builtin, strlen(nsight_categories_builtin),
			      nsight_categories_builtin_name, &d)) {
		fprintf(stderr, "fuzz: built-in categories: %s\n", d.msg);
		abort();
	}
}

/* LLVMFuzzerInitialize(), loading the built-in category rules into @cats. */
#define FUZZ_INITIALIZE_CATS(cats)					\
int LLVMFuzzerInitialize(int *argc, char ***argv);			\
int LLVMFuzzerInitialize(int *argc, char ***argv)			\
{									\
	(void)argc;							\
	(void)argv;							\
	fuzz_builtin_cats(&(cats));					\
	return 0;							\
}

/* The stream header's sources field, whose bits 24-31 choose options; 0 if short. */
static inline uint32_t fuzz_options_of(const uint8_t *data, size_t size)
{
	struct nsight_stream_hdr h;

	if (size < sizeof(h))
		return 0;
	memcpy(&h, data, sizeof(h));
	return h.sources;
}

/* A FILE writing to nowhere, opened once. */
static inline FILE *fuzz_null(void)
{
	static FILE *f;

	if (!f) {
		f = fopen("/dev/null", "w");
		if (!f)
			abort();
	}
	return f;
}

/*
 * Make the framing of the stream in @buf (@len bytes) consistent: for every
 * chunk that fits, the payload crc, zero padding, the END chunk's totals
 * and the header crc. Stops at END or at the first chunk that does not
 * fit. Returns whether a byte changed.
 */
static inline bool fuzz_fix_stream(uint8_t *buf, size_t len)
{
	struct nsight_stream_hdr h;
	uint64_t chunks = 0, record_bytes = 0;
	bool changed = false;
	size_t off;

	if (len < sizeof(h))
		return false;
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, NSIGHT_STREAM_MAGIC, sizeof(h.magic)) || h.hdr_size < sizeof(h) ||
	    h.hdr_size > NSIGHT_STREAM_HDR_MAX || h.hdr_size % NSIGHT_REC_ALIGN)
		return false;
	off = h.hdr_size;
	while (off <= len && len - off >= sizeof(struct nsight_chunk_hdr)) {
		struct nsight_chunk_hdr ch, old;
		size_t pl = off + sizeof(ch), pad, i;

		memcpy(&ch, buf + off, sizeof(ch));
		old = ch;
		if (ch.size > len - pl)
			break;
		pad = (NSIGHT_REC_ALIGN - ch.size % NSIGHT_REC_ALIGN) % NSIGHT_REC_ALIGN;
		for (i = 0; i < pad && pl + ch.size + i < len; i++) {
			changed |= buf[pl + ch.size + i] != 0;
			buf[pl + ch.size + i] = 0;
		}
		if (ch.type == NSIGHT_CHUNK_END && ch.size >= sizeof(struct nsight_stream_end)) {
			struct nsight_stream_end e = { .chunks = chunks, .record_bytes = record_bytes };

			changed |= memcmp(buf + pl, &e, sizeof(e)) != 0;
			memcpy(buf + pl, &e, sizeof(e));
		}
		ch.crc32 = nsight_payload_crc(buf + pl, ch.size);
		ch.hdr_crc32 = nsight_chunk_hdr_crc(&ch);
		changed |= memcmp(&ch, &old, sizeof(ch)) != 0;
		memcpy(buf + off, &ch, sizeof(ch));
		if (ch.type == NSIGHT_CHUNK_END)
			break;
		chunks++;
		if (ch.type == NSIGHT_CHUNK_RECORDS)
			record_bytes += ch.size;
		off = pl + ch.size + pad;
	}
	return changed;
}

/*
 * The body of a stream target's LLVMFuzzerTestOneInput: @one on the input
 * as it is, then, if fuzz_fix_stream() changed anything, on a repaired copy.
 */
static inline int fuzz_run_stream(const uint8_t *data, size_t size,
				  void (*one)(const uint8_t *data, size_t size))
{
	uint8_t *fixed;

	one(data, size);
	fixed = malloc(size ? size : 1);
	if (!fixed)
		return 0;
	memcpy(fixed, data, size);
	if (fuzz_fix_stream(fixed, size))
		one(fixed, size);
	free(fixed);
	return 0;
}

#endif /* NSIGHT_FUZZ_COMMON_H */
