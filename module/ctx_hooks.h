/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Context records: what each CPU runs.
 */
#ifndef _NSIGHT_CTX_HOOKS_H
#define _NSIGHT_CTX_HOOKS_H

#include <linux/types.h>

int nsight_ctx_init(void);
int nsight_ctx_attach(u32 sources);
void nsight_ctx_detach(void);
u64 nsight_ctx_missed(void);

#endif /* _NSIGHT_CTX_HOOKS_H */
