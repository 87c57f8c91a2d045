// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "cli.h"

int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts)
{
	char spec[64];
	int c;

	/* A leading ':' makes getopt report a missing argument as ':'. */
	snprintf(spec, sizeof(spec), ":%s", shortopts);
	opterr = 0;
	c = getopt_long(argc, argv, spec, longopts, NULL);
	if (c == '?') {
		const char *arg = argv[optind - 1];

		if (!strncmp(arg, "--", 2))
			cli_usage_error(argv[0], "bad option '%s'", arg);
		else
			cli_usage_error(argv[0], "unknown option '-%c'", optopt);
		return '?';
	}
	if (c == ':') {
		cli_usage_error(argv[0], "option '%s' needs an argument", argv[optind - 1]);
		return '?';
	}
	return c;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "nsightctl %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'nsightctl %s --help'.\n", cmd);
	return NSIGHT_EXIT_USAGE;
}

int cli_fail(const struct nsight_diag *d)
{
	fprintf(stderr, "nsightctl: %s\n", d->msg[0] ? d->msg : "unknown error");
	return NSIGHT_EXIT_FAIL;
}

void cli_print_json(struct json_object *o)
{
	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						JSON_C_TO_STRING_SPACED |
						JSON_C_TO_STRING_NOSLASHESCAPE), stdout);
	fputc('\n', stdout);
}

int cli_finish_stdout(void)
{
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "nsightctl: writing to stdout failed: %s\n", strerror(errno));
		return NSIGHT_EXIT_FAIL;
	}
	return NSIGHT_EXIT_OK;
}
