/* SPDX-License-Identifier: MIT */
/*
 * Intel PT in a dump: each CPU's trace (<debugfs>/nsight/pt/cpuN, oldest
 * byte first) as NSIGHT_CHUNK_PT chunks and, when there is any trace, the
 * code it ran as NSIGHT_CHUNK_KTEXT chunks read from /proc/kcore: the
 * kernel text (_stext to _etext in kallsyms) and every module
 * (/proc/modules), which is what a decoder follows; and the user code of
 * the processes the records name (pt_user.h).
 */
#ifndef NSIGHTCTL_PT_DUMP_H
#define NSIGHTCTL_PT_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "format/stream.h"
#include "pt_user.h"

struct nsight_pt_dump_opts {
	const char *debugfs;	/* holds nsight/pt/cpuN */
	const char *kallsyms;	/* /proc/kallsyms */
	const char *modules;	/* /proc/modules */
	const char *kcore;	/* /proc/kcore */
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
	/* The processes of the pt_cr3 records drained (NULL: no user code),
	 * and how their code is read. */
	struct nsight_pt_user_pids *pids;
	struct nsight_pt_user_opts user;
};

struct nsight_pt_dump_result {
	uint32_t cpus;		/* CPUs with trace bytes */
	uint64_t bytes;		/* trace bytes */
	uint32_t text_sections;
	uint64_t text_bytes;
	struct nsight_pt_user_result user;
};

/*
 * Write the PT chunks of CPUs below @nr_cpus and, if any, the KTEXT
 * chunks and the UTEXT chunks of o->pids. No PT directory or files is no trace (0). Code that cannot be
 * read is warned about (the analysis then counts decode errors). Returns 0
 * or an errno (@d says what) when a trace file cannot be read or the
 * stream cannot be written.
 */
int nsight_dump_pt(struct nsight_stream_writer *w, const struct nsight_pt_dump_opts *o,
		   uint32_t nr_cpus, struct nsight_pt_dump_result *res, struct nsight_diag *d);

#endif /* NSIGHTCTL_PT_DUMP_H */
