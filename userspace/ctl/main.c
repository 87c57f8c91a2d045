// SPDX-License-Identifier: MIT
/* nsightctl: control the nsight kernel module over generic netlink. */
#include <string.h>
#include <linux/nsight.h>

#include "cli.h"
#include "hwtstamp.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	void (*usage)(FILE *f);
	const char *summary;
};

static const struct command commands[] = {
	{ "start",  cmd_start,  cmd_start_usage,  "start a capture" },
	{ "stop",   cmd_stop,   cmd_stop_usage,   "stop the capture" },
	{ "status", cmd_status, cmd_status_usage, "show state, configuration and counters" },
	{ "config", cmd_config, cmd_config_usage, "show or change sources, buffer size and filter" },
	{ "dump",   cmd_dump,   cmd_dump_usage,   "write the buffers as a stream for nsight-analyze" },
	{ "record", cmd_record, cmd_record_usage, "capture and write the stream while the capture runs" },
	{ "trace-cmd-args", cmd_tracecmd_args, cmd_tracecmd_args_usage,
	  "print the trace-cmd commands that capture without the module" },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"Usage: nsightctl [--help] [--version] COMMAND [ARGS]\n"
		"\n"
		"Control nsight, the network-latency profiler. Needs CAP_NET_ADMIN.\n"
		"\n"
		"Commands:\n");
	for (i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "  %-8s %s\n", "help", "show this help, or 'help COMMAND' for a command's");
	fprintf(f,
		"\n"
		"Run 'nsightctl COMMAND --help' for a command's options.\n"
		"Exit status: 0 ok, 1 error, 2 usage error.\n");
}

static const struct command *find(const char *name)
{
	size_t i;

	for (i = 0; i < N_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static int unknown(const char *name)
{
	fprintf(stderr, "nsightctl: unknown command '%s'\nTry 'nsightctl --help'.\n", name);
	return NSIGHT_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	const struct command *cmd;
	const char *name;

	if (argc < 2) {
		usage(stderr);
		return NSIGHT_EXIT_USAGE;
	}
	name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
		usage(stdout);
		return cli_finish_stdout();
	}
	if (!strcmp(name, "--version") || !strcmp(name, "-V")) {
		printf("nsightctl %s (genl family %s version %d, stream format %d)\n",
		       NSIGHT_TOOLS_VERSION, NSIGHT_GENL_NAME, NSIGHT_GENL_VERSION,
		       NSIGHT_STREAM_VERSION);
		return cli_finish_stdout();
	}
	if (!strcmp(name, "help")) {
		if (argc > 3) {
			fprintf(stderr, "nsightctl help: too many arguments\n");
			return NSIGHT_EXIT_USAGE;
		}
		if (argc == 2) {
			usage(stdout);
			return cli_finish_stdout();
		}
		cmd = find(argv[2]);
		if (!cmd)
			return unknown(argv[2]);
		cmd->usage(stdout);
		return cli_finish_stdout();
	}
	if (name[0] == '-') {
		fprintf(stderr, "nsightctl: unknown option '%s'\nTry 'nsightctl --help'.\n", name);
		return NSIGHT_EXIT_USAGE;
	}
	cmd = find(name);
	if (!cmd)
		return unknown(name);
	/* NIC stamps left on by a record that died or a module unloaded. */
	nsight_hwts_restore_stale(NSIGHT_SYSFS_DIR);
	optind = 0;	/* full getopt reset for the command's own options */
	return cmd->run(argc - 1, argv + 1);
}
