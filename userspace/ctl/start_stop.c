// SPDX-License-Identifier: MIT
/* nsightctl start / stop: NSIGHT_CMD_START and NSIGHT_CMD_STOP. */
#include <errno.h>
#include <linux/nsight.h>

#include "cli.h"
#include "hwtstamp.h"
#include "nl.h"

void cmd_start_usage(FILE *f)
{
	fprintf(f,
		"Usage: nsightctl start\n"
		"\n"
		"Start a capture with the current configuration (see 'nsightctl config').\n"
		"Starting resets the per-CPU buffers and counters.\n"
		"\n"
		"  -h, --help   show this help\n");
}

void cmd_stop_usage(FILE *f)
{
	fprintf(f,
		"Usage: nsightctl stop\n"
		"\n"
		"Stop the capture: every probe is detached. The buffers keep their\n"
		"records for 'nsightctl dump'. Hardware timestamping that 'nsightctl\n"
		"config --hw-timestamps' turned on is put back as it was.\n"
		"\n"
		"  -h, --help   show this help\n");
}

static int run(int argc, char **argv, uint8_t cmd, void (*usage)(FILE *),
	       const char *already)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct nsight_diag d = { 0 };
	struct nsight_nl nl;
	struct nl_msg *msg;
	int c, err;

	while ((c = cli_getopt(argc, argv, "h", opts)) != -1) {
		if (c != 'h')
			return NSIGHT_EXIT_USAGE;
		usage(stdout);
		return NSIGHT_EXIT_OK;
	}
	if (optind < argc)
		return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind]);

	if (nsight_nl_open(&nl, &d))
		return cli_fail(&d);
	msg = nsight_nl_msg(&nl, cmd);
	if (msg)
		err = nsight_nl_request(&nl, msg, NULL, NULL, &d);
	else
		err = nsight_diag_set(&d, ENOMEM, "out of memory");
	nsight_nl_close(&nl);
	/* The capture is over (or was): the NICs' stamps go back either way. */
	if (cmd == NSIGHT_CMD_STOP && (!err || err == -EALREADY))
		nsight_hwts_put_back("the capture stopped");
	if (err == -EALREADY) {
		fprintf(stderr, "nsightctl: %s\n", already);
		return NSIGHT_EXIT_FAIL;
	}
	if (err)
		return cli_fail(&d);
	return NSIGHT_EXIT_OK;
}

int cmd_start(int argc, char **argv)
{
	return run(argc, argv, NSIGHT_CMD_START, cmd_start_usage,
		   "a capture is already running");
}

int cmd_stop(int argc, char **argv)
{
	return run(argc, argv, NSIGHT_CMD_STOP, cmd_stop_usage,
		   "no capture is running");
}
