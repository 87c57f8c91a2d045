/* SPDX-License-Identifier: MIT */
/*
 * nsightctl dump: drain the per-CPU relay files into a dump stream.
 *
 * The parts below take a directory and a stream writer (and a status
 * callback) rather than a socket, so tests run them on fake relay files.
 */
#ifndef NSIGHTCTL_DUMP_H
#define NSIGHTCTL_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/diag.h"
#include "phc.h"
#include "ksyms_dump.h"
#include "pt_dump.h"
#include "status.h"
#include "format/stream.h"

/* Largest RECORDS chunk payload nsightctl writes. */
#define NSIGHT_DUMP_CHUNK_MAX	(1U << 20)

struct nsight_dump_opts {
	const char *debugfs;	/* the directory holding nsight/cpuN */
	size_t chunk_max;	/* RECORDS payload limit; 0: NSIGHT_DUMP_CHUNK_MAX */
	size_t read_size;	/* bytes asked of each read(); 0: chunk_max */
	/* Where to find and how to read PHCs; NULL: no PHC chunk. */
	const struct nsight_phc_opts *phc;
	/* The kernel's symbols (/proc/kallsyms); NULL: no KSYMS chunk. */
	const char *kallsyms;
	/* Called with a message when the symbols cannot be read. */
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
	/* Intel PT trace and code; NULL: no PT or KTEXT chunks. */
	const struct nsight_pt_dump_opts *pt;
};

struct nsight_dump_cpu {
	bool present;		/* its relay file exists */
	uint64_t bytes;		/* record bytes written to the stream */
	uint64_t chunks;
	uint64_t lost_bytes;	/* a partial record left at end of file */
};

struct nsight_dump_result {
	uint32_t nr_cpus;
	struct nsight_dump_cpu *cpus;	/* nr_cpus entries */
	uint32_t cpus_read;		/* CPUs whose file existed */
	uint64_t bytes;
	uint64_t lost_bytes;
	uint32_t phc_clocks;		/* PHCs in the PHC chunk */
	uint32_t phc_skipped;		/* PHCs that could not be read */
	size_t phc_samples;
	struct nsight_ksyms_result ksyms;	/* lines 0: no KSYMS chunk */
	struct nsight_pt_dump_result pt;
};

void nsight_dump_result_free(struct nsight_dump_result *res);

/*
 * Read the relay file @fd of @cpu until read() returns 0 and write its
 * records as RECORDS chunks of at most chunk_max bytes, cut at record
 * boundaries; a partial record is carried to the next read. One left at
 * end of file is not written and counted in res->lost_bytes. A record
 * header with an impossible size is an error. @path names the file in
 * messages. Returns 0 or a negative errno with @d filled.
 */
/*
 * One CPU's relay file drained in pieces, while its capture runs (reads
 * return finished sub-buffers, 0 when there is none) or after (the rest).
 */
struct nsight_drain {
	int fd;
	uint32_t cpu;
	const char *path;		/* names the file in messages */
	struct nsight_dump_cpu *res;	/* bytes, chunks, lost_bytes */
	uint8_t *buf;
	size_t cap, chunk_max, read_size;
	size_t have;			/* bytes held in buf */
	uint64_t consumed;		/* file offset of buf[0] */
	/*
	 * Where whole records go instead of the stream's RECORDS chunks
	 * (the flight recorder); NULL: the stream.
	 */
	int (*sink)(void *ctx, uint32_t cpu, const void *buf, size_t len, struct nsight_diag *d);
	void *sink_ctx;
	/* Where the pids of pt_cr3 records go (NULL: not looked for). */
	struct nsight_pt_user_pids *pids;
};

int nsight_drain_init(struct nsight_drain *dr, int fd, uint32_t cpu, const char *path,
		      const struct nsight_dump_opts *o, struct nsight_dump_cpu *res,
		      struct nsight_diag *d);
/*
 * Read @dr's file until read() returns 0, or @budget bytes (0: no limit)
 * were read, and write every whole record held as RECORDS chunks; a
 * partial record waits for the next pull. With @final (the capture has
 * stopped and this is the last pull) a partial record left is counted in
 * res->lost_bytes. Returns 0 or a negative errno with @d filled.
 */
int nsight_drain_pull(struct nsight_stream_writer *w, struct nsight_drain *dr, uint64_t budget,
		      bool final, struct nsight_diag *d);
void nsight_drain_free(struct nsight_drain *dr);

int nsight_dump_cpu_fd(struct nsight_stream_writer *w, int fd, uint32_t cpu,
		       const char *path, const struct nsight_dump_opts *o,
		       struct nsight_dump_cpu *res, struct nsight_diag *d);

/*
 * Dump <debugfs>/nsight/cpuN for N below @nr_cpus; a missing cpuN file is
 * skipped (no buffer for that CPU), a missing nsight directory is an error.
 * @res is filled (free it with nsight_dump_result_free()).
 */
int nsight_dump_buffers(struct nsight_stream_writer *w, const struct nsight_dump_opts *o,
			uint32_t nr_cpus, struct nsight_dump_result *res,
			struct nsight_diag *d);

/*
 * Take the lock that one nsightctl reader of <debugfs>/nsight at a time
 * holds (flock on the directory), so that two readers never split a
 * CPU's sub-buffers between them. *@fd gets the descriptor to close
 * (which releases it). -EBUSY when another holds it.
 */
int nsight_readers_lock(const char *debugfs, int *fd, struct nsight_diag *d);

/*
 * Read every PHC against CLOCK_REALTIME (@po) and write a PHC chunk if any
 * could be read: clocks that cannot be read are @po->warn()ings; only a
 * write error is an error. @res gets the counts.
 */
int nsight_dump_phc(struct nsight_stream_writer *w, const struct nsight_phc_opts *po,
		    struct nsight_dump_result *res, struct nsight_diag *d);

typedef int (*nsight_status_fn)(void *ctx, struct nsight_status *st, struct nsight_diag *d);

/*
 * The whole dump: refuse (-EBUSY) if @before says a capture runs; write the
 * stream header from @before, the buffers, then with o->phc a PHC chunk (if
 * any clock could be read; failures are o->phc->warn()ings, never errors),
 * with o->kallsyms a KSYMS chunk (an unreadable file is an o->warn()ing),
 * with o->pt the PT trace and the code it ran (pt_dump.h),
 * a STATUS chunk from a fresh status that @get_status puts in @after (the
 * caller frees it), and END.
 */
int nsight_dump(struct nsight_stream_writer *w, const struct nsight_dump_opts *o,
		const struct nsight_status *before, nsight_status_fn get_status, void *ctx,
		struct nsight_status *after, struct nsight_dump_result *res,
		struct nsight_diag *d);

/* The parts of nsight_dump(), for nsightctl record: the stream header... */
int nsight_dump_header(struct nsight_stream_writer *w, const struct nsight_status *st,
		       struct nsight_diag *d);
/* ...and, once the buffers are drained, everything after them. */
int nsight_dump_finish(struct nsight_stream_writer *w, const struct nsight_dump_opts *o,
		       const struct nsight_status *before, nsight_status_fn get_status, void *ctx,
		       struct nsight_status *after, struct nsight_dump_result *res,
		       struct nsight_diag *d);

/* The command line that dump and record share: options -o, -d, --no-phc
 * (P), --no-ksyms (K), --compress (z), and the output. */
struct nsight_dump_cli {
	struct nsight_phc_opts phc;
	struct nsight_pt_dump_opts pt;
	struct nsight_dump_opts o;
	const char *out_path;		/* NULL: stdout */
	bool compress;			/* -z: through zstd */
	FILE *out;			/* what the writer writes to */
	FILE *file;			/* with compress: the output under out */
	struct nsight_stream_writer w;
	struct nsight_pt_user_pids pids;	/* of the pt_cr3 records */
};

void nsight_dump_cli_init(struct nsight_dump_cli *c);
/* Take option @opt if it is one of the shared ones. */
bool nsight_dump_cli_option(struct nsight_dump_cli *c, int opt, const char *arg);
/* After the options: refuse a terminal for the stream (NSIGHT_EXIT_USAGE). */
int nsight_dump_cli_check(struct nsight_dump_cli *c, const char *cmd);
/* Create the output and its writer (c->w). */
int nsight_dump_cli_open(struct nsight_dump_cli *c, struct nsight_diag *d);
/*
 * Close the output after the command's @err; a failed write names the
 * output, and a file that is not a whole stream is removed. Returns the
 * error, @err or a new one.
 */
int nsight_dump_cli_close(struct nsight_dump_cli *c, int err, struct nsight_diag *d);

/* What was dumped and lost, on stderr. */
void nsight_dump_report(const struct nsight_status *after, const struct nsight_dump_result *res);

#endif /* NSIGHTCTL_DUMP_H */
