// SPDX-License-Identifier: MIT
/*
 * nsight-analyze: validate, summarise and diagnose nsight captures. The
 * commands, what each takes, and which runs: the command word, or without
 * one the options that selected a mode before there were commands.
 */
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* The long options of each command (cli.c has them all). */
static const char *const report_options[] = {
	"json", "verbose", "messages", "strict", "html", "perfetto", "baseline", "tail",
	"what-if", "intervals", "range", "whole", "slice", "min-dev", "nested-threshold",
	"categories", "color", "clock", "time-params", "threads", "stream", "memory", "window",
	"help", NULL,
};

static const char *const window_options[] = {
	"window", "triggers", "whole-diagnosis", "json", "verbose", "messages", "strict", "tail",
	"slice", "min-dev", "nested-threshold", "categories", "color", "clock", "time-params",
	"threads", "help", NULL,
};

static const char *const time_check_options[] = {
	"json", "strict", "time-params", "threads", "help", NULL,
};

static const char *const merge_options[] = {
	"json", "verbose", "tail", "synced", "time-params", "help", NULL,
};

static const char *const export_options[] = {
	"export", "export-schema", "cluster", "host", "batch", "timeout", "tail", "slice",
	"min-dev", "nested-threshold", "categories", "time-params", "threads", "help", NULL,
};

static const char *const fleet_options[] = {
	"fleet", "from", "to", "from2", "to2", "host", "json", "timeout", "help", NULL,
};

struct command {
	struct cli_cmd cli;		/* name, options, help */
	int (*run)(struct opts *o, int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ { "report", report_options, cmd_report_usage }, cmd_report,
	  "a capture's check, latency and diagnosis (the default)" },
	{ { "window", window_options, cmd_window_usage }, cmd_window,
	  "a line per time window, or per flight-recorder trigger" },
	{ { "time-check", time_check_options, cmd_time_check_usage }, cmd_time_check,
	  "the time conversion against (TSC, realtime) PAIRS" },
	{ { "merge", merge_options, cmd_merge_usage }, cmd_merge,
	  "two hosts' captures, CLIENT SERVER, joined into requests" },
	{ { "export", export_options, cmd_export_usage }, cmd_export,
	  "a capture's messages and causes into ClickHouse (the fleet view)" },
	{ { "fleet", fleet_options, cmd_fleet_usage }, cmd_fleet,
	  "the fleet view's queries: latency, causes, slowest, compare" },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/* One screen; each command's options in its own, the rest in nsight-analyze(1). */
static void usage(FILE *f)
{
	size_t i;

	fputs("Usage: nsight-analyze [COMMAND] [OPTIONS] [FILE|-]\n"
	      "\n"
	      "Check a capture of 'nsightctl dump' or 'record' (FILE, or stdin; zstd or not),\n"
	      "print its latency per application and direction and why the tail was slow.\n"
	      "\n"
	      "Commands:\n", f);
	for (i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %-11s %s\n", commands[i].cli.name, commands[i].summary);
	fprintf(f, "  %-11s %s\n", "help", "this help, or 'help COMMAND' for a command's");
	fputs("\n"
	      "Without a COMMAND: report, or the command an option names: --window DURATION\n"
	      "or --triggers (window), --time-check PAIRS, --merge, --export URL or\n"
	      "--export-schema (export), --fleet URL (fleet). A capture named like a\n"
	      "command: ./report, or -- before it.\n"
	      "\n"
	      "Run 'nsight-analyze COMMAND --help' for a command's options; what the report\n"
	      "means and examples: see nsight-analyze(1).\n"
	      "  -h, --help              this help (-V, --version: the version)\n"
	      "Exit status: 0 ok, 1 error (or problems with --strict), 2 usage error.\n", f);
}

/* Without a command word: all the options, and these say which command. */
static const struct cli_cmd no_command = { NULL, NULL, usage };

static const struct command *find(const char *name)
{
	size_t i;

	for (i = 0; i < N_COMMANDS; i++)
		if (!strcmp(commands[i].cli.name, name))
			return &commands[i];
	return NULL;
}

static int unknown(const char *name)
{
	fprintf(stderr, "nsight-analyze: unknown command '%s' (and no file of that name)\n"
		"Try 'nsight-analyze --help'.\n", name);
	return NSIGHT_EXIT_USAGE;
}

/* "help [COMMAND]": the help, or a command's. */
static int help(int argc, char **argv)
{
	const struct command *cmd;

	if (argc > 3) {
		fprintf(stderr, "nsight-analyze help: too many arguments\n"
			"Try 'nsight-analyze --help'.\n");
		return NSIGHT_EXIT_USAGE;
	}
	if (argc == 2) {
		usage(stdout);
		return cli_finish_stdout(NSIGHT_EXIT_OK);
	}
	cmd = find(argv[2]);
	if (!cmd)
		return unknown(argv[2]);
	cmd->cli.usage(stdout);
	return cli_finish_stdout(NSIGHT_EXIT_OK);
}

/*
 * A first argument that is neither an option nor a command, and that names
 * no file: a command mistyped rather than a capture. A capture's name
 * (a path, a name with a dot) is left to the report, which says if it is
 * missing.
 */
static bool mistyped(const char *arg)
{
	return arg[0] != '-' && !strchr(arg, '/') && !strchr(arg, '.') && access(arg, F_OK);
}

int main(int argc, char **argv)
{
	const struct command *cmd = argc > 1 ? find(argv[1]) : NULL;
	struct opts o;
	int ret;

	if (cmd) {
		cli_opts_init(&o, &cmd->cli);
		ret = cli_parse(&o, argc - 1, argv + 1);
		if (ret != CLI_GO)
			return ret;
		return cmd->run(&o, argc - 1 - optind, argv + 1 + optind);
	}
	if (argc > 1 && !strcmp(argv[1], "help"))
		return help(argc, argv);
	if (argc > 1 && mistyped(argv[1]))
		return unknown(argv[1]);
	/* No command word: as before there were commands. */
	cli_opts_init(&o, &no_command);
	ret = cli_parse(&o, argc, argv);
	if (ret != CLI_GO)
		return ret;
	if (o.merge)
		cmd = find("merge");
	else if (o.export_url || o.export_schema)
		cmd = find("export");
	else if (o.fleet_url)
		cmd = find("fleet");
	else if (o.pairs)
		cmd = find("time-check");
	else if ((o.window_ns && o.stream != CLI_STREAM_ALWAYS) || o.triggers)
		cmd = find("window");
	else
		cmd = find("report");
	return cmd->run(&o, argc - optind, argv + optind);
}
