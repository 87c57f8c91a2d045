// SPDX-License-Identifier: MIT
/* nsight-analyze merge CLIENT SERVER: two hosts' captures joined into requests. */
#include <string.h>

#include "cli.h"
#include "merge_report.h"

void cmd_merge_usage(FILE *f)
{
	fputs("Usage: nsight-analyze merge [OPTIONS] CLIENT SERVER\n"
	      "       nsight-analyze --merge [OPTIONS] CLIENT SERVER\n"
	      "\n"
	      "Join a client's and a server's captures (one of them may be stdin, '-') into\n"
	      "requests: client send, wire, server receive, server application, server send,\n"
	      "wire, client receive, on the client's clock; the server's clock offset and\n"
	      "drift, each layer's median, and which layer and host the tail came from.\n"
	      "\n"
	      "  -j, --json              one JSON object instead of the text\n"
	      "  -v, --verbose           also every tail request\n"
	      "      --tail pN           the tail: requests at or above pN (default p90)\n"
	      "      --synced NS         the hosts' clocks are synchronised within NS ns: their\n"
	      "                          times used as they are, the estimate beside\n"
	      "  -p, --time-params PARAMS  in-force (default) or first\n"
	      "  -h, --help              this help\n", f);
}

int cmd_merge(struct opts *o, int argc, char **argv)
{
	struct nsight_merge_report_opts mo = { .params = o->params, .tail = o->dx.tail,
					       .json = o->json, .verbose = o->verbose,
					       .synced = o->synced_ns >= 0, .synced_ns = o->synced_ns };
	/* Without the command word, --merge said which. */
	const char *merge = o->cmd->name ? "merge" : "--merge";

	if (o->range)
		return cli_usage_error(o, "%s", "--range does not go with --merge");
	if (o->dx.tail_hi < 100000)
		return cli_usage_error(o, "%s takes a tail pN, not a band", merge);
	if (argc != 2)
		return cli_usage_error(o, "%s takes two captures: CLIENT SERVER", merge);
	/* Only --json, --verbose, --tail, --synced and --time-params go with it. */
	if (o->pairs || o->html || o->perfetto || o->intervals || o->n_whatif || o->messages ||
	    o->strict || o->dx.baseline || o->categories || o->window_ns || o->export_opts ||
	    o->fleet_opts)
		return cli_usage_error(o, "%s", "--merge goes only with --json, --verbose, --tail, --synced and --time-params");
	if (!strcmp(argv[0], "-") && !strcmp(argv[1], "-"))
		return cli_usage_error(o, "%s", "the two captures cannot both be stdin");
	if (cli_stdin_is_terminal(argv[0]) || cli_stdin_is_terminal(argv[1]))
		return NSIGHT_EXIT_USAGE;
	return nsight_merge_main(argv[0], argv[1], &mo);
}
