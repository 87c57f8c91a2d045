// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the dump stream reader and the summary of nsight-analyze
 * (nsight_stream_reader, nsight_summarize with the record walker, the PHC
 * helpers, the summary's text and JSON). The input is a stream as
 * nsightctl dump writes it; see fuzz_common.h for the framing repair.
 */
#include <json-c/json.h>

#include "fuzz_common.h"
#include "analyze/print.h"
#include "pipeline/summary.h"

/* Every PHC chunk: each sample, each interface's best one. */
static int on_chunk(void *ctx, const struct nsight_chunk *ch, struct nsight_diag *d)
{
	struct nsight_phc_sample s[64];
	size_t n, i;

	(void)ctx;
	(void)d;
	if (ch->type != NSIGHT_CHUNK_PHC)
		return 0;
	n = nsight_phc_chunk_count(ch);
	for (i = 0; i < n && i < 64; i++) {
		nsight_phc_chunk_get(ch, i, &s[i]);
		const char *m = nsight_phc_method_name(s[i].method);

		fprintf(fuzz_null(), "%s %lld %lld\n", m ? m : "?",
			(long long)nsight_phc_offset_ns(&s[i]), (long long)nsight_phc_window_ns(&s[i]));
	}
	/* s[i] qualifies itself unless its bracket runs backwards. */
	for (i = 0; i < n && i < 64; i++)
		if (nsight_phc_window_ns(&s[i]) >= 0 &&
		    nsight_phc_best(s, n < 64 ? n : 64, s[i].ifindex) < 0)
			abort();
	return 0;
}

static void one(const uint8_t *data, size_t size)
{
	struct nsight_summary_hook hook = { .chunk = on_chunk };
	struct nsight_stream_reader r;
	struct nsight_summary s;
	struct nsight_diag d = { 0 };
	FILE *f = fuzz_file(data, size);
	int err;

	if (!f)
		return;
	memset(&s, 0, sizeof(s));
	err = nsight_stream_reader_init(&r, f);
	if (!err)
		err = nsight_summarize_hooked(&r, &s, &hook, &d);
	if (!err) {
		struct json_object *j = nsight_summary_to_json("fuzz", &s);

		nsight_summary_print_text(fuzz_null(), "fuzz", &s);
		nsight_summary_print_check(fuzz_null(), &s);
		nsight_summary_span_seconds(&s);
		if (j) {
			fputs(json_object_to_json_string(j), fuzz_null());
			json_object_put(j);
		}
	}
	nsight_summary_fini(&s);
	nsight_stream_reader_fini(&r);
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_run_stream(data, size, one);
}
