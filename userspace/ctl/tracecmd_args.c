// SPDX-License-Identifier: MIT
/*
 * nsightctl trace-cmd-args: the commands that record, with trace-cmd and
 * no module, what nsight-analyze reads from a trace.dat (format/tracedat.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "format/tracedat.h"

void cmd_tracecmd_args_usage(FILE *f)
{
	fprintf(f,
		"Usage: nsightctl trace-cmd-args [-o FILE] [--no-kprobes]\n"
		"\n"
		"Print a shell script that records, with trace-cmd and without the module,\n"
		"what nsight-analyze needs from a trace.dat: it makes the kprobe events\n"
		"nsight/* (sock_def_readable, udp_recvmsg and its return, udp_sendmsg,\n"
		"handle_mm_fault and its return; x86-64), runs 'trace-cmd record' with the\n"
		"kernel's events, the monotonic trace clock and %u KiB of buffer per CPU\n"
		"until Ctrl-C (or the command given to the script), then removes the\n"
		"kprobes. Run it as root: nsightctl trace-cmd-args > rec.sh; sh rec.sh;\n"
		"nsight-analyze trace.dat.\n"
		"\n"
		"  -o, --output FILE  the trace.dat to write (default trace.dat)\n"
		"      --no-kprobes   the kernel's events only (no hand-off, no receives:\n"
		"                     no RX lifetimes)\n"
		"  -h, --help         this help\n", NSIGHT_TRACEDAT_BUFFER_KB);
}

/* A loop that removes the kprobe events (GROUP/NAME of each definition). */
static void remove_kprobes(const char *redirect)
{
	size_t i;

	printf("for k in");
	for (i = 0; nsight_tracedat_kprobes[i]; i++) {
		const char *sp = strchr(nsight_tracedat_kprobes[i], ' ');

		printf(" '%.*s'", (int)(sp - nsight_tracedat_kprobes[i] - 2),
		       nsight_tracedat_kprobes[i] + 2);
	}
	printf("; do echo \"-:$k\" >> $T/kprobe_events%s; done\n", redirect);
}

int cmd_tracecmd_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "no-kprobes", no_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = "trace.dat";
	bool kprobes = true;
	size_t i;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'K':
			kprobes = false;
			break;
		case 'h':
			cmd_tracecmd_args_usage(stdout);
			return 0;
		default:
			cmd_tracecmd_args_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "nsightctl trace-cmd-args: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (strchr(out, '\''))
		return fprintf(stderr, "nsightctl trace-cmd-args: a file name with a quote\n"), 2;
	printf("#!/bin/sh\n"
	       "# Made by 'nsightctl trace-cmd-args': record for nsight-analyze with trace-cmd.\n"
	       "# Run as root; stop with Ctrl-C, or give a command to trace while it runs.\n"
	       "T=/sys/kernel/tracing\n"
	       "[ -w $T/kprobe_events ] || T=/sys/kernel/debug/tracing\n");
	if (kprobes) {
		remove_kprobes(" 2>/dev/null");
		for (i = 0; nsight_tracedat_kprobes[i]; i++)
			printf("echo '%s' >> $T/kprobe_events || exit 1\n", nsight_tracedat_kprobes[i]);
	}
	printf("trace-cmd record -C mono -b %u", NSIGHT_TRACEDAT_BUFFER_KB);
	for (i = 0; nsight_tracedat_events[i]; i++) {
		if (!kprobes && !strcmp(nsight_tracedat_events[i], NSIGHT_TRACEDAT_KPROBE_GROUP))
			continue;
		printf(" \\\n\t-e %s", nsight_tracedat_events[i]);
	}
	printf(" \\\n\t-o '%s' \"$@\"\nrc=$?\n", out);
	if (kprobes) {
		remove_kprobes("");
	}
	printf("exit $rc\n");
	return 0;
}
