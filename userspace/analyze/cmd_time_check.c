// SPDX-License-Identifier: MIT
/*
 * nsight-analyze time-check PAIRS: the capture's conversion of TSC to
 * CLOCK_REALTIME against (TSC, realtime) pairs read while it ran.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/timecheck.h"
#include "cli.h"
#include "json_out.h"
#include "report.h"

void cmd_time_check_usage(FILE *f)
{
	fputs("Usage: nsight-analyze time-check PAIRS [OPTIONS] [FILE|-]\n"
	      "       nsight-analyze --time-check PAIRS [OPTIONS] [FILE|-]\n"
	      "\n"
	      "Check the capture's time conversion (FILE, or stdin) against PAIRS, a file of\n"
	      "little-endian {u64 tsc; s64 realtime_ns} read back to back while it ran:\n"
	      "conv(tsc0) <= real0 <= conv(tsc1) <= ... must hold. Prints the time-check:\n"
	      "line (conversions, inversions, the largest |conv - real|) and up to 5\n"
	      "inversions.\n"
	      "\n"
	      "  -j, --json              one JSON object instead of the text\n"
	      "  -s, --strict            exit 1 if there is any inversion\n"
	      "  -p, --time-params PARAMS  in-force (default) or first: every TSC converted\n"
	      "                          with the first timekeeper record only\n"
	      "      --threads N         threads for the analysis (1 to 1024)\n"
	      "  -h, --help              this help\n", f);
}

/* The pairs read and checked against @a's conversion, the result printed. */
static int time_check(const struct nsight_analysis *a, const char *name, const struct opts *o)
{
	struct nsight_diag d = { 0 };
	struct nsight_tpair *pairs = NULL;
	struct nsight_tcheck res;
	size_t n = 0;
	FILE *f;
	int ret;

	f = fopen(o->pairs, "rb");
	if (!f) {
		fprintf(stderr, "nsight-analyze: %s: %s\n", o->pairs, strerror(errno));
		return NSIGHT_EXIT_FAIL;
	}
	ret = nsight_tpairs_read(f, o->pairs, &pairs, &n, &d);
	fclose(f);
	if (!ret)
		ret = nsight_tcheck_run(&a->tc, pairs, n, &res, &d);
	free(pairs);
	if (ret) {
		/* Messages about the pairs file name it already. */
		if (ret == -NSIGHT_E_INVAL)
			fprintf(stderr, "nsight-analyze: %s: %s\n", name, d.msg);
		else
			fprintf(stderr, "nsight-analyze: %s\n", d.msg);
		return NSIGHT_EXIT_FAIL;
	}
	if (o->json)
		ret = jo_put(nsight_report_tcheck_json(o->pairs, name, &a->tc, &res));
	else
		nsight_report_tcheck_text(stdout, &a->tc, &res);
	if (o->strict && res.inversions)
		ret = NSIGHT_EXIT_FAIL;
	return ret;
}

int cmd_time_check(struct opts *o, int argc, char **argv)
{
	struct nsight_analysis_opts ao = { .params = o->params, .threads = o->threads };
	struct nsight_progress pg;
	struct nsight_analysis a;
	const char *name;
	FILE *in;
	int ret;

	/* The command's first operand; --time-check's option argument. */
	if (o->cmd->name) {
		if (!argc)
			return cli_usage_error(o, "%s", "time-check needs PAIRS, a file of (TSC, realtime) pairs");
		o->pairs = argv[0];
		argc--;
		argv++;
	}
	ret = cli_check_capture(o, argc, argv, &name);
	if (ret != CLI_GO)
		return ret;
	if (cli_open_input(name, &in))
		return NSIGHT_EXIT_FAIL;
	ret = cli_read_capture(&a, in, name, &ao, &pg, o);
	if (!ret)
		ret = time_check(&a, name, o);
	nsight_analysis_fini(&a);
	if (in != stdin)
		fclose(in);
	return cli_finish_stdout(ret);
}
