// SPDX-License-Identifier: MIT
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libdeflate.h>

#include "format/stream.h"

/* The reader grows its buffer and reads payloads in steps of this size, so a
 * corrupt size field costs memory only for data that is really there. */
#define READ_STEP	(1U << 20)

static const uint8_t zeros[NSIGHT_REC_ALIGN];

const char *nsight_chunk_type_name(uint32_t type)
{
	switch (type) {
	case NSIGHT_CHUNK_RECORDS:	return "RECORDS";
	case NSIGHT_CHUNK_STATUS:	return "STATUS";
	case NSIGHT_CHUNK_END:		return "END";
	case NSIGHT_CHUNK_PHC:		return "PHC";
	case NSIGHT_CHUNK_KSYMS:	return "KSYMS";
	case NSIGHT_CHUNK_PT:		return "PT";
	case NSIGHT_CHUNK_KTEXT:	return "KTEXT";
	case NSIGHT_CHUNK_UTEXT:	return "UTEXT";
	case NSIGHT_CHUNK_TRIGGER:	return "TRIGGER";
	case NSIGHT_CHUNK_SKIP:		return "SKIP";
	case NSIGHT_CHUNK_CRECORDS:	return "CRECORDS";
	default:			return NULL;
	}
}

static size_t pad_len(uint64_t size)
{
	return (NSIGHT_REC_ALIGN - size % NSIGHT_REC_ALIGN) % NSIGHT_REC_ALIGN;
}

/*
 * The CRC-32 of gzip and zlib, from libdeflate: it folds with carry-less
 * multiplication where the CPU has it, several times faster than zlib's
 * tables, and the reader checks every byte of a capture.
 */
static uint32_t crc_update(uint32_t crc, const void *buf, uint64_t len)
{
	return libdeflate_crc32(crc, buf, (size_t)len);
}

static uint32_t crc_init(void)
{
	return 0;
}

uint32_t nsight_payload_crc(const void *buf, uint64_t len)
{
	return crc_update(crc_init(), buf, len);
}

/* The crc of a chunk header, computed with its hdr_crc32 field zero. */
uint32_t nsight_chunk_hdr_crc(const struct nsight_chunk_hdr *ch)
{
	struct nsight_chunk_hdr h = *ch;

	h.hdr_crc32 = 0;
	return crc_update(crc_init(), &h, sizeof(h));
}

/* ---------------------------------------------------------------------- */
/* Writer                                                                   */

void nsight_stream_writer_init_file(struct nsight_stream_writer *w, FILE *f)
{
	memset(w, 0, sizeof(*w));
	w->file = f;
	w->fd = -1;
}

void nsight_stream_writer_init_fd(struct nsight_stream_writer *w, int fd)
{
	memset(w, 0, sizeof(*w));
	w->fd = fd;
}

static int write_bytes(struct nsight_stream_writer *w, const void *buf, uint64_t len)
{
	const uint8_t *p = buf;

	while (len) {
		size_t n = len > SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)len;
		ssize_t done;

		if (w->file) {
			done = (ssize_t)fwrite(p, 1, n, w->file);
			if ((size_t)done < n) {
				w->offset += (uint64_t)done;
				return nsight_diag_set(&w->diag, NSIGHT_E_IO,
						       "write failed at byte %" PRIu64 ": %s",
						       w->offset, strerror(errno));
			}
		} else {
			done = write(w->fd, p, n);
			if (done < 0 && errno == EINTR)
				continue;
			if (done <= 0)
				return nsight_diag_set(&w->diag, NSIGHT_E_IO,
						       "write failed at byte %" PRIu64 ": %s",
						       w->offset, done < 0 ? strerror(errno) : "no progress");
		}
		p += done;
		len -= (uint64_t)done;
		w->offset += (uint64_t)done;
	}
	return 0;
}

int nsight_stream_write_header(struct nsight_stream_writer *w,
			       const struct nsight_stream_hdr *hdr)
{
	struct nsight_stream_hdr h = *hdr;

	memcpy(h.magic, NSIGHT_STREAM_MAGIC, sizeof(h.magic));
	h.version = NSIGHT_STREAM_VERSION;
	h.hdr_size = sizeof(h);
	h.release[sizeof(h.release) - 1] = '\0';
	return write_bytes(w, &h, sizeof(h));
}

int nsight_stream_write_chunk(struct nsight_stream_writer *w, uint32_t type,
			      uint32_t cpu, const void *payload, uint64_t size)
{
	struct nsight_chunk_hdr ch = {
		.type = type,
		.cpu = cpu,
		.size = size,
		.crc32 = nsight_payload_crc(payload, size),
	};
	int err;

	ch.hdr_crc32 = nsight_chunk_hdr_crc(&ch);
	err = write_bytes(w, &ch, sizeof(ch));
	if (!err)
		err = write_bytes(w, payload, size);
	if (!err)
		err = write_bytes(w, zeros, pad_len(size));
	if (err)
		return err;
	w->chunks++;
	if (nsight_chunk_has_records(type))
		w->record_bytes += size;
	return 0;
}

int nsight_stream_write_records(struct nsight_stream_writer *w, uint32_t cpu,
				const void *records, uint64_t size)
{
	return nsight_stream_write_chunk(w, NSIGHT_CHUNK_RECORDS, cpu, records, size);
}

int nsight_stream_write_crecords(struct nsight_stream_writer *w, uint32_t cpu,
				 const void *records, uint64_t size)
{
	return nsight_stream_write_chunk(w, NSIGHT_CHUNK_CRECORDS, cpu, records, size);
}

int nsight_stream_write_status(struct nsight_stream_writer *w,
			       const struct nsight_cpu_status *st, size_t n)
{
	return nsight_stream_write_chunk(w, NSIGHT_CHUNK_STATUS, NSIGHT_CHUNK_NO_CPU,
					 st, (uint64_t)n * sizeof(*st));
}

int nsight_stream_write_phc(struct nsight_stream_writer *w,
			    const struct nsight_phc_sample *s, size_t n)
{
	return nsight_stream_write_chunk(w, NSIGHT_CHUNK_PHC, NSIGHT_CHUNK_NO_CPU,
					 s, (uint64_t)n * sizeof(*s));
}

int nsight_stream_write_end(struct nsight_stream_writer *w)
{
	struct nsight_stream_end end = {
		.chunks = w->chunks,
		.record_bytes = w->record_bytes,
	};
	uint64_t chunks = w->chunks;
	int err;

	err = nsight_stream_write_chunk(w, NSIGHT_CHUNK_END, NSIGHT_CHUNK_NO_CPU,
					&end, sizeof(end));
	if (err)
		return err;
	w->chunks = chunks;	/* END counts itself in no total */
	if (w->file && fflush(w->file))
		return nsight_diag_set(&w->diag, NSIGHT_E_IO, "write failed at byte %" PRIu64 ": %s",
				       w->offset, strerror(errno));
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Reader                                                                   */

/*
 * Read exactly @len bytes. A short read is a truncation error naming the
 * offset where the data ran out and @what it was meant to be.
 */
static int read_exact(struct nsight_stream_reader *r, void *buf, size_t len,
		      const char *what)
{
	size_t got = fread(buf, 1, len, r->file);

	r->offset += got;
	if (got == len)
		return 0;
	if (ferror(r->file))
		return nsight_diag_set(&r->diag, NSIGHT_E_IO, "read error at byte %" PRIu64 ": %s",
				       r->offset, strerror(errno));
	return nsight_diag_set(&r->diag, NSIGHT_E_TRUNCATED,
			       "truncated at byte %" PRIu64 ": %s needs %zu bytes, %zu available",
			       r->offset, what, len, got);
}

static int grow_buf(struct nsight_stream_reader *r, size_t need)
{
	size_t cap = r->buf_cap ? r->buf_cap : 4096;
	uint8_t *p;

	if (need <= r->buf_cap)
		return 0;
	while (cap < need)
		cap *= 2;
	p = realloc(r->buf, cap);
	if (!p)
		return nsight_diag_set(&r->diag, NSIGHT_E_NOMEM,
				       "out of memory for a chunk of %zu bytes", need);
	r->buf = p;
	r->buf_cap = cap;
	return 0;
}

/*
 * Read a chunk payload of @c->size bytes and return its crc32. With @keep
 * it ends up in r->buf, otherwise it is read through a bounded window.
 */
static int read_payload(struct nsight_stream_reader *r, const struct nsight_chunk *c,
			const char *name, bool keep, uint32_t *crc)
{
	uint64_t have = 0;

	*crc = crc_init();
	while (have < c->size) {
		uint64_t left = c->size - have;
		size_t want = left > READ_STEP ? READ_STEP : (size_t)left;
		size_t at = keep ? (size_t)have : 0;
		size_t got;
		int err;

		err = grow_buf(r, at + want);
		if (err)
			return err;
		got = fread(r->buf + at, 1, want, r->file);
		*crc = crc_update(*crc, r->buf + at, got);
		have += got;
		r->offset += got;
		if (got < want) {
			if (ferror(r->file))
				return nsight_diag_set(&r->diag, NSIGHT_E_IO,
						       "read error at byte %" PRIu64 ": %s",
						       r->offset, strerror(errno));
			return nsight_diag_set(&r->diag, NSIGHT_E_TRUNCATED,
					       "truncated at byte %" PRIu64 ": %s chunk at byte %" PRIu64
					       " needs %" PRIu64 " payload bytes, %" PRIu64 " available",
					       r->offset, name, c->offset, c->size, have);
		}
	}
	return 0;
}

static int read_padding(struct nsight_stream_reader *r, const struct nsight_chunk *c,
			const char *name)
{
	uint8_t pad[NSIGHT_REC_ALIGN];
	size_t n = pad_len(c->size), i;
	uint64_t start = r->offset;
	char what[64];
	int err;

	snprintf(what, sizeof(what), "padding of the %s chunk", name);
	err = read_exact(r, pad, n, what);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		if (pad[i])
			return nsight_diag_set(&r->diag, NSIGHT_E_CHUNK,
					       "%s chunk at byte %" PRIu64 ": padding byte at byte %" PRIu64 " is 0x%02x, not 0",
					       name, c->offset, start + i, pad[i]);
	return 0;
}

int nsight_stream_has_chunk(FILE *f, uint32_t type)
{
	struct nsight_stream_hdr h;
	struct nsight_chunk_hdr ch;
	int found = 0;

	if (ftello(f) != 0 || fseeko(f, 0, SEEK_SET))
		return -1;
	if (fread(&h, sizeof(h), 1, f) == 1 && !memcmp(h.magic, NSIGHT_STREAM_MAGIC, sizeof(h.magic)) &&
	    h.hdr_size >= sizeof(h) && h.hdr_size <= NSIGHT_STREAM_HDR_MAX &&
	    !fseeko(f, (off_t)h.hdr_size, SEEK_SET)) {
		while (fread(&ch, sizeof(ch), 1, f) == 1 && ch.type != NSIGHT_CHUNK_END &&
		       ch.size <= NSIGHT_STREAM_CHUNK_MAX) {
			if (ch.type == type) {
				found = 1;
				break;
			}
			if (fseeko(f, (off_t)(ch.size + pad_len(ch.size)), SEEK_CUR))
				break;
		}
	}
	clearerr(f);
	return fseeko(f, 0, SEEK_SET) ? -1 : found;
}

int nsight_stream_reader_init(struct nsight_stream_reader *r, FILE *f)
{
	struct nsight_stream_hdr *h = &r->hdr;
	uint64_t extra;
	int err;

	memset(r, 0, sizeof(*r));
	r->file = f;

	err = read_exact(r, h, sizeof(*h), "stream header");
	if (err)
		return err;
	if (memcmp(h->magic, NSIGHT_STREAM_MAGIC, sizeof(h->magic)))
		return nsight_diag_set(&r->diag, NSIGHT_E_FORMAT,
				       "bad magic at byte 0: not an nsight dump stream");
	if (h->version != NSIGHT_STREAM_VERSION)
		return nsight_diag_set(&r->diag, NSIGHT_E_FORMAT,
				       "unsupported stream version %" PRIu32 " at byte %zu (this reader knows version %d)",
				       h->version, offsetof(struct nsight_stream_hdr, version),
				       NSIGHT_STREAM_VERSION);
	if (h->hdr_size < sizeof(*h) || h->hdr_size > NSIGHT_STREAM_HDR_MAX ||
	    h->hdr_size % NSIGHT_REC_ALIGN)
		return nsight_diag_set(&r->diag, NSIGHT_E_FORMAT,
				       "bad header size %" PRIu32 " at byte %zu (must be a multiple of 8 from %zu to %d)",
				       h->hdr_size, offsetof(struct nsight_stream_hdr, hdr_size),
				       sizeof(*h), NSIGHT_STREAM_HDR_MAX);
	if (h->nr_cpus == 0 || h->nr_cpus > NSIGHT_STREAM_MAX_CPUS)
		return nsight_diag_set(&r->diag, NSIGHT_E_FORMAT,
				       "bad cpu count %" PRIu32 " at byte %zu (must be 1 to %d)",
				       h->nr_cpus, offsetof(struct nsight_stream_hdr, nr_cpus),
				       NSIGHT_STREAM_MAX_CPUS);
	if (h->tsc_hz && (h->tsc_hz < NSIGHT_STREAM_MIN_TSC_HZ || h->tsc_hz > NSIGHT_STREAM_MAX_TSC_HZ))
		return nsight_diag_set(&r->diag, NSIGHT_E_FORMAT,
				       "bad TSC frequency %" PRIu64 " Hz at byte %zu (must be 0, unknown, or 1 MHz to 100 GHz)",
				       (uint64_t)h->tsc_hz, offsetof(struct nsight_stream_hdr, tsc_hz));
	if (!memchr(h->release, '\0', sizeof(h->release)))
		return nsight_diag_set(&r->diag, NSIGHT_E_FORMAT,
				       "kernel release at byte %zu is not NUL-terminated",
				       offsetof(struct nsight_stream_hdr, release));

	/* A newer writer's header fields this reader does not know. */
	extra = h->hdr_size - sizeof(*h);
	if (extra) {
		err = grow_buf(r, extra);
		if (!err)
			err = read_exact(r, r->buf, extra, "stream header");
		if (err)
			return err;
	}
	return 0;
}

void nsight_stream_reader_fini(struct nsight_stream_reader *r)
{
	free(r->buf);
	r->buf = NULL;
	r->buf_cap = 0;
}

/* Header checks that need no payload. */
static int check_chunk_hdr(struct nsight_stream_reader *r, const struct nsight_chunk *c,
			   const char *name)
{
	if (c->type == NSIGHT_CHUNK_INVALID)
		return nsight_diag_set(&r->diag, NSIGHT_E_CHUNK,
				       "chunk at byte %" PRIu64 ": invalid chunk type 0", c->offset);
	if (c->size > NSIGHT_STREAM_CHUNK_MAX)
		return nsight_diag_set(&r->diag, NSIGHT_E_CHUNK,
				       "%s chunk at byte %" PRIu64 ": size %" PRIu64 " exceeds the limit of %llu bytes",
				       name, c->offset, c->size, NSIGHT_STREAM_CHUNK_MAX);

	switch (c->type) {
	case NSIGHT_CHUNK_PT:
		if (c->cpu >= r->hdr.nr_cpus)
			return nsight_diag_set(&r->diag, NSIGHT_E_CHUNK,
					       "PT chunk at byte %" PRIu64 ": cpu %" PRIu32 " is not below the stream's %" PRIu32 " cpus",
					       c->offset, c->cpu, r->hdr.nr_cpus);
		break;
	case NSIGHT_CHUNK_KSYMS:
	case NSIGHT_CHUNK_KTEXT:
	case NSIGHT_CHUNK_UTEXT:
		if (c->cpu != NSIGHT_CHUNK_NO_CPU)
			return nsight_diag_set(&r->diag, NSIGHT_E_CHUNK,
					       "%s chunk at byte %" PRIu64 ": cpu field is %" PRIu32 ", expected 0x%x",
					       name, c->offset, c->cpu, NSIGHT_CHUNK_NO_CPU);
		if (c->size < (c->type == NSIGHT_CHUNK_KSYMS ? sizeof(struct nsight_ksyms_hdr) :
			       c->type == NSIGHT_CHUNK_KTEXT ? sizeof(struct nsight_ktext_hdr) :
			       sizeof(struct nsight_utext_hdr)))
			return nsight_diag_set(&r->diag, NSIGHT_E_CHUNK,
					       "%s chunk at byte %" PRIu64 ": size %" PRIu64 " is below its header's",
					       name, c->offset, c->size);
		break;
	case NSIGHT_CHUNK_RECORDS:
	case NSIGHT_CHUNK_CRECORDS:
		if (c->cpu >= r->hdr.nr_cpus)
			return nsight_diag_set(&r->diag, NSIGHT_E_CHUNK,
					       "%s chunk at byte %" PRIu64 ": cpu %" PRIu32 " is not below the stream's %" PRIu32 " cpus",
					       name, c->offset, c->cpu, r->hdr.nr_cpus);
		if (c->size % NSIGHT_REC_ALIGN)
			return nsight_diag_set(&r->diag, NSIGHT_E_CHUNK,
					       "%s chunk at byte %" PRIu64 ": size %" PRIu64 " is not a multiple of %d",
					       name, c->offset, c->size, NSIGHT_REC_ALIGN);
		break;
	case NSIGHT_CHUNK_SKIP:
		if (c->cpu >= r->hdr.nr_cpus)
			return nsight_diag_set(&r->diag, NSIGHT_E_CHUNK,
					       "SKIP chunk at byte %" PRIu64 ": cpu %" PRIu32 " is not below the stream's %" PRIu32 " cpus",
					       c->offset, c->cpu, r->hdr.nr_cpus);
		if (c->size != sizeof(struct nsight_stream_skip))
			return nsight_diag_set(&r->diag, NSIGHT_E_CHUNK,
					       "SKIP chunk at byte %" PRIu64 ": size %" PRIu64 ", expected %zu",
					       c->offset, c->size, sizeof(struct nsight_stream_skip));
		break;
	case NSIGHT_CHUNK_TRIGGER:
		if (c->cpu != NSIGHT_CHUNK_NO_CPU)
			return nsight_diag_set(&r->diag, NSIGHT_E_CHUNK,
					       "%s chunk at byte %" PRIu64 ": cpu field is %" PRIu32 ", expected 0x%x",
					       name, c->offset, c->cpu, NSIGHT_CHUNK_NO_CPU);
		if (c->size < sizeof(struct nsight_stream_trigger) ||
		    (c->size - sizeof(struct nsight_stream_trigger)) % NSIGHT_REC_ALIGN)
			return nsight_diag_set(&r->diag, NSIGHT_E_CHUNK,
					       "TRIGGER chunk at byte %" PRIu64 ": size %" PRIu64 " is not %zu and whole records",
					       c->offset, c->size, sizeof(struct nsight_stream_trigger));
		break;
	case NSIGHT_CHUNK_STATUS:
	case NSIGHT_CHUNK_PHC:
	case NSIGHT_CHUNK_END:
		if (c->cpu != NSIGHT_CHUNK_NO_CPU)
			return nsight_diag_set(&r->diag, NSIGHT_E_CHUNK,
					       "%s chunk at byte %" PRIu64 ": cpu field is %" PRIu32 ", expected 0x%x",
					       name, c->offset, c->cpu, NSIGHT_CHUNK_NO_CPU);
		if (c->type == NSIGHT_CHUNK_STATUS && c->size % sizeof(struct nsight_cpu_status))
			return nsight_diag_set(&r->diag, NSIGHT_E_CHUNK,
					       "STATUS chunk at byte %" PRIu64 ": size %" PRIu64 " is not a multiple of %zu",
					       c->offset, c->size, sizeof(struct nsight_cpu_status));
		if (c->type == NSIGHT_CHUNK_PHC && c->size % sizeof(struct nsight_phc_sample))
			return nsight_diag_set(&r->diag, NSIGHT_E_CHUNK,
					       "PHC chunk at byte %" PRIu64 ": size %" PRIu64 " is not a multiple of %zu",
					       c->offset, c->size, sizeof(struct nsight_phc_sample));
		if (c->type == NSIGHT_CHUNK_END && c->size < sizeof(struct nsight_stream_end))
			return nsight_diag_set(&r->diag, NSIGHT_E_END,
					       "END chunk at byte %" PRIu64 ": size %" PRIu64 " is below %zu",
					       c->offset, c->size, sizeof(struct nsight_stream_end));
		break;
	}
	return 0;
}

/* The PHC chunk's payload is in r->buf: every ifname must be a C string. */
static int check_phc(struct nsight_stream_reader *r, const struct nsight_chunk *c)
{
	const size_t sz = sizeof(struct nsight_phc_sample);
	const size_t at = offsetof(struct nsight_phc_sample, ifname);
	const size_t len = sizeof(((struct nsight_phc_sample *)0)->ifname);
	uint64_t i;

	for (i = 0; i < c->size / sz; i++)
		if (!memchr(r->buf + i * sz + at, '\0', len))
			return nsight_diag_set(&r->diag, NSIGHT_E_CHUNK,
					       "PHC chunk at byte %" PRIu64 ": sample %" PRIu64 ": ifname at byte %" PRIu64 " is not NUL-terminated",
					       c->offset, i, c->payload_offset + i * sz + at);
	return 0;
}

/* The END chunk's payload is in r->buf: compare totals, then demand EOF. */
static int check_end(struct nsight_stream_reader *r, const struct nsight_chunk *c)
{
	struct nsight_stream_end end;
	int ch;

	memcpy(&end, r->buf, sizeof(end));
	if (end.chunks != r->chunks)
		return nsight_diag_set(&r->diag, NSIGHT_E_END,
				       "END chunk at byte %" PRIu64 ": says %" PRIu64 " chunks precede it, the stream has %" PRIu64,
				       c->offset, (uint64_t)end.chunks, r->chunks);
	if (end.record_bytes != r->record_bytes)
		return nsight_diag_set(&r->diag, NSIGHT_E_END,
				       "END chunk at byte %" PRIu64 ": says %" PRIu64 " record bytes, the stream has %" PRIu64,
				       c->offset, (uint64_t)end.record_bytes, r->record_bytes);
	ch = fgetc(r->file);
	if (ch != EOF)
		return nsight_diag_set(&r->diag, NSIGHT_E_END,
				       "data at byte %" PRIu64 " after the END chunk (END must be last)",
				       r->offset);
	if (ferror(r->file))
		return nsight_diag_set(&r->diag, NSIGHT_E_IO, "read error at byte %" PRIu64 ": %s",
				       r->offset, strerror(errno));
	r->ended = true;
	return 0;
}

int nsight_stream_read_chunk(struct nsight_stream_reader *r, struct nsight_chunk *c)
{
	for (;;) {
		struct nsight_chunk_hdr ch;
		const char *name;
		char unknown[32];
		uint32_t crc;
		bool known;
		size_t got;
		int err;

		if (r->diag.code)
			return -r->diag.code;
		if (r->ended)
			return 0;

		memset(c, 0, sizeof(*c));
		c->offset = r->offset;
		got = fread(&ch, 1, sizeof(ch), r->file);
		r->offset += got;
		if (got == 0 && !ferror(r->file))
			return nsight_diag_set(&r->diag, NSIGHT_E_TRUNCATED,
					       "truncated at byte %" PRIu64 ": stream ends without an END chunk",
					       r->offset);
		if (got < sizeof(ch)) {
			if (ferror(r->file))
				return nsight_diag_set(&r->diag, NSIGHT_E_IO, "read error at byte %" PRIu64 ": %s",
						       r->offset, strerror(errno));
			return nsight_diag_set(&r->diag, NSIGHT_E_TRUNCATED,
					       "truncated at byte %" PRIu64 ": chunk header needs %zu bytes, %zu available",
					       r->offset, sizeof(ch), got);
		}
		if (nsight_chunk_hdr_crc(&ch) != ch.hdr_crc32)
			return nsight_diag_set(&r->diag, NSIGHT_E_CRC,
					       "chunk header at byte %" PRIu64 ": crc32 is 0x%08" PRIx32
					       ", the header says 0x%08" PRIx32,
					       c->offset, nsight_chunk_hdr_crc(&ch), ch.hdr_crc32);
		c->type = ch.type;
		c->cpu = ch.cpu;
		c->size = ch.size;
		c->payload_offset = r->offset;

		name = nsight_chunk_type_name(ch.type);
		known = name != NULL;
		if (!known) {
			snprintf(unknown, sizeof(unknown), "type-%" PRIu32, ch.type);
			name = unknown;
		}
		err = check_chunk_hdr(r, c, name);
		if (!err)
			err = read_payload(r, c, name, known, &crc);
		if (!err && crc != ch.crc32)
			err = nsight_diag_set(&r->diag, NSIGHT_E_CRC,
					      "%s chunk at byte %" PRIu64 ": crc32 of the %" PRIu64 "-byte payload is 0x%08" PRIx32
					      ", header says 0x%08" PRIx32,
					      name, c->offset, c->size, crc, ch.crc32);
		if (!err)
			err = read_padding(r, c, name);
		if (!err && ch.type == NSIGHT_CHUNK_PHC)
			err = check_phc(r, c);
		if (err)
			return err;

		if (ch.type == NSIGHT_CHUNK_END)
			return check_end(r, c);
		r->chunks++;
		if (!known) {
			r->skipped_chunks++;
			continue;
		}
		if (nsight_chunk_has_records(ch.type))
			r->record_bytes += c->size;
		c->payload = r->buf;
		return 1;
	}
}

/* ---------------------------------------------------------------------- */
/* PHC samples                                                              */

size_t nsight_phc_chunk_count(const struct nsight_chunk *c)
{
	if (c->type != NSIGHT_CHUNK_PHC)
		return 0;
	return (size_t)(c->size / sizeof(struct nsight_phc_sample));
}

void nsight_phc_chunk_get(const struct nsight_chunk *c, size_t i,
			  struct nsight_phc_sample *s)
{
	/* Copied: the payload is only byte-aligned as far as callers know. */
	memcpy(s, (const uint8_t *)c->payload + i * sizeof(*s), sizeof(*s));
}

const char *nsight_phc_method_name(uint32_t method)
{
	switch (method) {
	case NSIGHT_PHC_PRECISE:	return "precise";
	case NSIGHT_PHC_EXTENDED:	return "extended";
	default:			return NULL;
	}
}

int64_t nsight_phc_window_ns(const struct nsight_phc_sample *s)
{
	return (int64_t)((uint64_t)s->sys_after_ns - (uint64_t)s->sys_before_ns);
}

int64_t nsight_phc_offset_ns(const struct nsight_phc_sample *s)
{
	/* before + (after - before) / 2 does not overflow where (a + b) / 2 could. */
	uint64_t mid = (uint64_t)s->sys_before_ns + (uint64_t)(nsight_phc_window_ns(s) / 2);

	return (int64_t)(mid - (uint64_t)s->phc_ns);
}

static bool phc_valid(const struct nsight_phc_sample *s, uint32_t ifindex)
{
	return s->ifindex == ifindex && nsight_phc_window_ns(s) >= 0;
}

/* When a sample was taken: in the PHC's time or, with @sys, the system's. */
static int64_t phc_key(const struct nsight_phc_sample *s, bool sys)
{
	return sys ? s->sys_before_ns : s->phc_ns;
}

/*
 * The narrowest valid sample of @ifindex taken in [@lo, @hi] (phc_key());
 * the first of equals; -1 if none.
 */
static ssize_t phc_best_in(const struct nsight_phc_sample *s, size_t n, uint32_t ifindex,
			   bool sys, int64_t lo, int64_t hi)
{
	ssize_t best = -1;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!phc_valid(&s[i], ifindex) || phc_key(&s[i], sys) < lo ||
		    phc_key(&s[i], sys) > hi)
			continue;
		if (best < 0 || nsight_phc_window_ns(&s[i]) < nsight_phc_window_ns(&s[best]))
			best = (ssize_t)i;
	}
	return best;
}

/*
 * The reading nearest @at from below (@below) or above, in PHC time or,
 * with @sys, system time: its best sample (the narrowest within
 * NSIGHT_PHC_GROUP_NS of the nearest one).
 */
static ssize_t phc_reading(const struct nsight_phc_sample *s, size_t n, uint32_t ifindex,
			   bool sys, int64_t at, bool below)
{
	bool found = false;
	int64_t edge = 0, k;
	size_t i;

	for (i = 0; i < n; i++) {
		k = phc_key(&s[i], sys);
		if (!phc_valid(&s[i], ifindex) || (below ? k > at : k < at))
			continue;
		if (!found || (below ? k > edge : k < edge))
			edge = k;
		found = true;
	}
	if (!found)
		return -1;
	if (below)
		return phc_best_in(s, n, ifindex, sys, edge < INT64_MIN + NSIGHT_PHC_GROUP_NS ?
					       INT64_MIN : edge - NSIGHT_PHC_GROUP_NS, edge);
	return phc_best_in(s, n, ifindex, sys, edge,
			   edge > INT64_MAX - NSIGHT_PHC_GROUP_NS ? INT64_MAX : edge + NSIGHT_PHC_GROUP_NS);
}

/* @b - @a in 128 bits: PHC times and offsets come from the stream as they are. */
static __int128 phc_diff(int64_t b, int64_t a)
{
	return (__int128)b - (__int128)a;
}

bool nsight_phc_offset_at(const struct nsight_phc_sample *s, size_t n, uint32_t ifindex,
			  int64_t phc_ns, int64_t *offset)
{
	ssize_t lo = phc_reading(s, n, ifindex, false, phc_ns, true);
	ssize_t hi = phc_reading(s, n, ifindex, false, phc_ns, false);
	__int128 v;

	if (lo < 0 && hi < 0)
		return false;
	if (lo < 0 || hi < 0 || lo == hi ||
	    phc_diff(s[hi].phc_ns, s[lo].phc_ns) < NSIGHT_PHC_GROUP_NS) {
		/* One reading: its narrowest sample, as nsight_phc_best(). */
		ssize_t b = lo < 0 ? hi : hi < 0 ? lo :
			    nsight_phc_window_ns(&s[lo]) <= nsight_phc_window_ns(&s[hi]) ? lo : hi;

		*offset = nsight_phc_offset_ns(&s[b]);
		return true;
	}
	/* lo <= phc_ns <= hi: the product stays below 2^126 when the change does 2^62. */
	v = phc_diff(nsight_phc_offset_ns(&s[hi]), nsight_phc_offset_ns(&s[lo]));
	if (v > ((__int128)1 << 62) || v < -((__int128)1 << 62))
		return false;
	v = v * phc_diff(phc_ns, s[lo].phc_ns) / phc_diff(s[hi].phc_ns, s[lo].phc_ns) +
	    nsight_phc_offset_ns(&s[lo]);
	if (v > INT64_MAX || v < INT64_MIN)
		return false;
	*offset = (int64_t)v;
	return true;
}

bool nsight_phc_drift(const struct nsight_phc_sample *s, size_t n, uint32_t ifindex,
		      int64_t *drift_ns, int64_t *span_ns)
{
	ssize_t first = phc_reading(s, n, ifindex, true, INT64_MIN, false);
	ssize_t last = phc_reading(s, n, ifindex, true, INT64_MAX, true);
	__int128 drift, span;

	if (first < 0 || last < 0)
		return false;
	span = phc_diff(s[last].sys_before_ns, s[first].sys_before_ns);
	drift = phc_diff(nsight_phc_offset_ns(&s[last]), nsight_phc_offset_ns(&s[first]));
	if (span < NSIGHT_PHC_GROUP_NS || span > INT64_MAX || drift > INT64_MAX || drift < INT64_MIN)
		return false;
	*drift_ns = (int64_t)drift;
	*span_ns = (int64_t)span;
	return true;
}

ssize_t nsight_phc_best(const struct nsight_phc_sample *s, size_t n, uint32_t ifindex)
{
	return phc_best_in(s, n, ifindex, false, INT64_MIN, INT64_MAX);
}
