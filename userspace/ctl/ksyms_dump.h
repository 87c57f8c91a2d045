/* SPDX-License-Identifier: MIT */
/*
 * The kernel symbol snapshot of a dump (NSIGHT_CHUNK_KSYMS): the text
 * symbols of /proc/kallsyms, compressed, so that the analysis can name the
 * functions of sampled stacks and PT traces after the kernel (or a module)
 * has changed.
 */
#ifndef NSIGHTCTL_KSYMS_DUMP_H
#define NSIGHTCTL_KSYMS_DUMP_H

#include <stddef.h>

#include "base/diag.h"
#include "format/stream.h"

struct nsight_ksyms_result {
	size_t lines;		/* text symbols written */
	size_t raw, packed;	/* bytes before and after compression */
	bool no_addrs;		/* kallsyms showed every address as 0 */
};

/*
 * Read @path (/proc/kallsyms) and write its KSYMS chunk. Returns 0, 1 if
 * @path cannot be read (@d says why; the caller warns and goes on), or -1
 * when writing or memory failed (@d says why).
 */
int nsight_dump_ksyms(struct nsight_stream_writer *w, const char *path,
		      struct nsight_ksyms_result *res, struct nsight_diag *d);

#endif /* NSIGHTCTL_KSYMS_DUMP_H */
