/* SPDX-License-Identifier: MIT */
/* Event source names (NSIGHT_SOURCE_NAMES) to and from bit masks. */
#ifndef NSIGHT_SOURCES_H
#define NSIGHT_SOURCES_H

#include <stddef.h>
#include <stdint.h>
#include <linux/nsight.h>

extern const char *const nsight_source_names[__NSIGHT_SRC_COUNT];

/*
 * Parse a comma-separated list of source names, or "all" or "none", into a
 * mask of 1 << NSIGHT_SRC_*. Blanks around names are ignored; an empty
 * list, an empty item or an unknown name is an error. Returns 0, or -1 with
 * a message in @err.
 */
int nsight_sources_parse(const char *list, uint32_t *mask, char *err, size_t errlen);

/*
 * Format @mask as "sched_switch,handoff" ("none" for 0; bits without a name
 * as "bitN"). Returns @buf; the result is cut to fit @len.
 */
char *nsight_sources_format(uint32_t mask, char *buf, size_t len);

#endif /* NSIGHT_SOURCES_H */
