/* SPDX-License-Identifier: MIT */
/*
 * Error reporting shared by the nsight tools: functions return a negative
 * code and describe the failure in a caller-provided message buffer (the
 * libipt convention), so library code never prints.
 *
 * Names: "diag" (this file: struct nsight_diag, nsight_diag_*) is an error
 * and its message; "dx" (diagnose/diagnose.h: nsight_dx_*) is the
 * diagnosis of slow messages.
 */
#ifndef NSIGHT_DIAG_H
#define NSIGHT_DIAG_H

#include <stddef.h>

/* Error codes of libnsight; functions return them negated. */
enum nsight_errcode {
	NSIGHT_OK,
	NSIGHT_E_IO,		/* read or write failed (errno in the message) */
	NSIGHT_E_NOMEM,
	NSIGHT_E_TRUNCATED,	/* the stream ends early */
	NSIGHT_E_FORMAT,	/* bad stream header: magic, version, sizes */
	NSIGHT_E_CHUNK,		/* bad chunk header, padding or placement */
	NSIGHT_E_CRC,		/* chunk payload does not match its crc32 */
	NSIGHT_E_END,		/* END chunk missing or its totals are wrong */
	NSIGHT_E_RECORD,	/* malformed record */
	NSIGHT_E_INVAL,		/* bad argument from the caller */
	__NSIGHT_E_COUNT
};

#define NSIGHT_DIAG_LEN 512

struct nsight_diag {
	int code;			/* enum nsight_errcode, or errno in nsightctl */
	char msg[NSIGHT_DIAG_LEN];
};

/*
 * Record an error in @d (which may be NULL) and return -@code, so callers
 * can write "return nsight_diag_set(d, NSIGHT_E_IO, ...);".
 */
int nsight_diag_set(struct nsight_diag *d, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void nsight_diag_clear(struct nsight_diag *d);

/* A short generic description of an enum nsight_errcode (positive or negative). */
const char *nsight_errcode_str(int code);

#endif /* NSIGHT_DIAG_H */
