/* SPDX-License-Identifier: MIT */
#ifndef NSIGHTCTL_CONFIG_H
#define NSIGHTCTL_CONFIG_H

#include <stdint.h>

#include "base/size.h"

/*
 * Parse a duration into ns: decimal digits with a unit ns, us or ms
 * (microseconds without one). Returns 0, or -1 for anything else.
 */
int nsight_parse_duration(const char *s, uint64_t *ns);

/*
 * Parse a duration into ns: decimal digits with a unit ms, s, m or h
 * (seconds without one), not zero. Returns 0, or -1 for anything else.
 */
int nsight_parse_seconds(const char *s, uint64_t *ns);

/*
 * Parse a time span into ns: decimal digits with a unit us, ms or s
 * (milliseconds without one); 0 is allowed. Returns 0, or -1.
 */
int nsight_parse_window(const char *s, uint64_t *ns);

#endif /* NSIGHTCTL_CONFIG_H */
