/* SPDX-License-Identifier: MIT */
/* Byte counts as the tools' options take them (nsightctl's sizes, nsight-analyze --memory). */
#ifndef NSIGHT_SIZE_H
#define NSIGHT_SIZE_H

#include <stdint.h>

/*
 * Parse a byte count: decimal digits with an optional K, M or G suffix
 * (powers of 1024, either case). Returns 0, or -1 for anything else
 * (empty, junk, overflow).
 */
int nsight_parse_size(const char *s, uint64_t *out);

#endif /* NSIGHT_SIZE_H */
