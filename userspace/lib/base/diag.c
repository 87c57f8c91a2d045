// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/diag.h"

int nsight_diag_set(struct nsight_diag *d, int code, const char *fmt, ...)
{
	va_list ap;

	if (d) {
		d->code = code;
		va_start(ap, fmt);
		vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
		va_end(ap);
	}
	return -code;
}

void nsight_diag_clear(struct nsight_diag *d)
{
	d->code = 0;
	d->msg[0] = '\0';
}

const char *nsight_errcode_str(int code)
{
	static const char *const str[__NSIGHT_E_COUNT] = {
		[NSIGHT_OK]		= "success",
		[NSIGHT_E_IO]		= "input/output error",
		[NSIGHT_E_NOMEM]	= "out of memory",
		[NSIGHT_E_TRUNCATED]	= "truncated stream",
		[NSIGHT_E_FORMAT]	= "bad stream header",
		[NSIGHT_E_CHUNK]	= "bad chunk",
		[NSIGHT_E_CRC]		= "chunk checksum mismatch",
		[NSIGHT_E_END]		= "bad or missing END chunk",
		[NSIGHT_E_RECORD]	= "malformed record",
		[NSIGHT_E_INVAL]	= "invalid argument",
	};

	if (code < 0)
		code = -code;
	if (code >= __NSIGHT_E_COUNT)
		return "unknown error";
	return str[code];
}
