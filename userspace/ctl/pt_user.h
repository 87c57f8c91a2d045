/* SPDX-License-Identifier: MIT */
/*
 * User code for Intel PT in a dump: the processes the capture's pt_cr3
 * records name (found in the records as they are drained), and for each
 * one still running, every executable mapping of /proc/PID/maps as a
 * NSIGHT_CHUNK_UTEXT chunk: its bytes (/proc/PID/mem, else its file at
 * the mapping's offset) and the function symbols of its file (.symtab,
 * else .dynsym, read with libelf), at their addresses in the process.
 * The code of all processes together is bounded (max_bytes): a mapping
 * that would pass the bound is left out, and so are all after it.
 */
#ifndef NSIGHTCTL_PT_USER_H
#define NSIGHTCTL_PT_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/u64map.h"
#include "format/stream.h"

/* Code bytes of all processes of a dump, by default. */
#define NSIGHT_PT_USER_MAX	(64ULL << 20)

/* The processes named by pt_cr3 records, in the order first seen. */
struct nsight_pt_user_pids {
	struct nsight_u64map seen;
	uint32_t *v;
	size_t n, cap;
};

void nsight_pt_user_pids_init(struct nsight_pt_user_pids *p);
void nsight_pt_user_pids_fini(struct nsight_pt_user_pids *p);
/* Add @pid once; 0 or -1 when out of memory. */
int nsight_pt_user_pids_add(struct nsight_pt_user_pids *p, uint32_t pid);

/*
 * Add the pid of every pt_cr3 record among @len bytes of whole compact
 * records (as a relay file gives them). 0 or -1 when out of memory.
 */
int nsight_pt_user_scan(struct nsight_pt_user_pids *p, const void *crecords, size_t len);

struct nsight_pt_user_opts {
	const char *proc;	/* where procfs is, "/proc" */
	uint64_t max_bytes;	/* 0: NSIGHT_PT_USER_MAX */
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
};

struct nsight_pt_user_result {
	uint32_t procs;		/* processes with code in the stream */
	uint32_t gone;		/* processes no longer there at dump time */
	uint32_t mappings;	/* UTEXT chunks */
	uint64_t bytes;		/* code bytes in them */
	uint64_t syms;		/* function symbols in them */
	uint64_t left_out;	/* bytes of mappings left out by max_bytes */
};

/*
 * Write the UTEXT chunks of the processes @pids. A process gone, a mapping
 * that cannot be read, or a file without symbols is warned about or
 * counted, not an error. Returns 0, or an errno with @d filled when the
 * stream cannot be written or memory runs out.
 */
int nsight_pt_user_dump(struct nsight_stream_writer *w, const struct nsight_pt_user_opts *o,
			const struct nsight_pt_user_pids *pids, struct nsight_pt_user_result *res,
			struct nsight_diag *d);

#endif /* NSIGHTCTL_PT_USER_H */
