// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the trace.dat reader (format/tracedat.h): the header
 * check, libtracecmd opening and walking the file, the mapping of its
 * events to records and the stream written from them, which is then read
 * back and checked. The input is a trace.dat (seed:
 * tests/data/tracecmd-udp-echo.dat). A damaged file must give an error
 * naming the file, never a crash in nsight's code.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "format/tracedat.h"
#include "pipeline/summary.h"

/*
 * libtracecmd allocates what a damaged file's sizes say (a section of
 * exabytes) and handles a NULL from malloc: let it have one here, as it
 * would outside ASan.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nsight_tracedat_info info;
	struct nsight_diag d = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *out;
	int fd, err;

	fd = memfd_create("fuzz.dat", 0);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	out = open_memstream(&buf, &len);
	if (!out) {
		close(fd);
		return 0;
	}
	err = nsight_tracedat_convert("fuzz.dat", fd, out, &info, &d);
	fclose(out);
	close(fd);
	if (err && !strstr(d.msg, "fuzz.dat"))
		abort();	/* every error names the file */
	if (!err) {
		struct nsight_stream_reader r;
		struct nsight_summary s;
		FILE *f = fuzz_file(buf, len);

		/* The stream written is a valid one. */
		memset(&s, 0, sizeof(s));
		if (f) {
			if (nsight_stream_reader_init(&r, f) || nsight_summarize(&r, &s, &d))
				abort();
			nsight_summary_fini(&s);
			nsight_stream_reader_fini(&r);
			fclose(f);
		}
	}
	free(buf);
	return 0;
}
