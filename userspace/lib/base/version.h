/* SPDX-License-Identifier: MIT */
#ifndef NSIGHT_VERSION_H
#define NSIGHT_VERSION_H

#define NSIGHT_TOOLS_VERSION "0.1.0"

/* Exit codes of nsightctl and nsight-analyze. */
enum nsight_exit {
	NSIGHT_EXIT_OK = 0,
	NSIGHT_EXIT_FAIL = 1,	/* runtime error, corrupt or truncated input */
	NSIGHT_EXIT_USAGE = 2,
};

#endif /* NSIGHT_VERSION_H */
