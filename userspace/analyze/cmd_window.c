// SPDX-License-Identifier: MIT
/*
 * nsight-analyze window: a long capture one time window at a time
 * (--window DURATION), or a flight recorder's capture one trigger at a
 * time (--triggers, the default of the command), each window's report
 * printed when it is done (window_report.h).
 */
#include "cli.h"
#include "window_report.h"

void cmd_window_usage(FILE *f)
{
	fputs("Usage: nsight-analyze window [--window DURATION|--triggers] [OPTIONS] [FILE|-]\n"
	      "       nsight-analyze --window DURATION|--triggers [OPTIONS] [FILE|-]\n"
	      "\n"
	      "A capture (FILE, or stdin) a window at a time, in memory that follows the\n"
	      "busiest windows: the summary and the check, then a line per window (its\n"
	      "latency and the cause that explains most of its tail), then the latency of\n"
	      "the whole capture.\n"
	      "\n"
	      "      --window DURATION   windows DURATION wide (with a unit, e.g. 100ms)\n"
	      "      --triggers          the windows a flight recorder saved, each with the\n"
	      "                          message that fired it (the default)\n"
	      "      --whole-diagnosis   then the whole capture's diagnosis, as without\n"
	      "                          windows (two more passes over them)\n"
	      "  -j, --json              a JSON object per line instead of the text\n"
	      "  -v, --verbose           each window's full report instead of its line\n"
	      "  -m, --messages          also list every message\n"
	      "  -s, --strict            exit 1 if the check finds problems\n"
	      "      --tail pN           messages at or above pN (default p90); pA-pB: a band\n"
	      "  -h, --help              this help\n"
	      "The diagnosis: --slice pA-pB, --min-dev NS, --nested-threshold PCT,\n"
	      "--categories FILE; the text: --color WHEN, -c, --clock CLOCK; the time:\n"
	      "-p, --time-params PARAMS; --threads N. See nsight-analyze(1).\n", f);
}

int cmd_window_run(FILE *in, const char *name, const struct opts *o, bool streamed,
		   const char *why)
{
	struct nsight_window_report_opts wo = {
		.width_ns = o->window_ns, .json = o->json, .verbose = o->verbose,
		.strict = o->strict, .messages = o->messages, .whole_dx = o->whole_dx,
		.report = streamed, .why = why, .threads = o->threads, .tty = o->tty, .clk = o->clk,
		.params = o->params,
		.dx = &o->dx,
	};
	struct nsight_cats cats;
	int ret;

	/* Streamed, the report's shape: a trace-cmd capture's origin first. */
	if (streamed && o->json)
		wo.source = cli_origin_json();
	else if (streamed)
		cli_origin_text(stdout);
	ret = cli_load_categories(&cats, o);
	wo.cats = &cats;
	if (!ret)
		ret = nsight_window_report(in, name, &wo);
	else
		json_object_put(wo.source);
	nsight_cats_fini(&cats);
	return ret;
}

int cmd_window(struct opts *o, int argc, char **argv)
{
	const char *name;
	FILE *in;
	int ret;

	/* The command without a width: the flight recorder's windows. */
	if (o->cmd->name && !o->window_ns)
		o->triggers = true;
	ret = cli_check_capture(o, argc, argv, &name);
	if (ret != CLI_GO)
		return ret;
	if (cli_open_input(name, &in))
		return NSIGHT_EXIT_FAIL;
	ret = cmd_window_run(in, name, o, false, NULL);
	if (in != stdin)
		fclose(in);
	return ret;
}
