// SPDX-License-Identifier: MIT
/* nsight-analyze: validate and summarise an nsight dump stream. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <string.h>

#include "print.h"
#include "stream.h"
#include "summary.h"
#include "version.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: nsight-analyze [--json] [--strict] [FILE|-]\n"
		"\n"
		"Read a stream written by 'nsightctl dump' (stdin by default), validate\n"
		"it and print a summary: span, record and drop counts per CPU and per\n"
		"type, and a check of the records against the kernel's counters.\n"
		"\n"
		"  -j, --json      print one JSON object\n"
		"  -s, --strict    exit 1 if the check finds problems\n"
		"  -h, --help      show this help\n"
		"  -V, --version   show the version\n"
		"\n"
		"Exit status: 0 ok, 1 error (including a corrupt or truncated stream),\n"
		"2 usage error.\n");
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "nsight-analyze: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'nsight-analyze --help'.\n");
	return NSIGHT_EXIT_USAGE;
}

static int analyze(FILE *in, const char *name, bool json, bool strict)
{
	struct nsight_stream_reader r;
	struct nsight_summary s;
	struct nsight_diag d = { 0 };
	int err, ret = NSIGHT_EXIT_OK;

	memset(&s, 0, sizeof(s));
	err = nsight_stream_reader_init(&r, in);
	if (err)
		d = r.diag;
	else
		err = nsight_summarize(&r, &s, &d);
	nsight_stream_reader_fini(&r);
	if (err) {
		fprintf(stderr, "nsight-analyze: %s: %s\n", name, d.msg);
		nsight_summary_fini(&s);
		return NSIGHT_EXIT_FAIL;
	}

	if (json) {
		struct json_object *o = nsight_summary_to_json(name, &s);

		if (!o) {
			fprintf(stderr, "nsight-analyze: out of memory\n");
			ret = NSIGHT_EXIT_FAIL;
		} else {
			fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							       JSON_C_TO_STRING_SPACED |
							       JSON_C_TO_STRING_NOSLASHESCAPE), stdout);
			fputc('\n', stdout);
			json_object_put(o);
		}
	} else {
		nsight_summary_print_text(stdout, name, &s);
	}
	if (strict && s.n_problems)
		ret = NSIGHT_EXIT_FAIL;
	nsight_summary_fini(&s);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "nsight-analyze: writing to stdout failed: %s\n", strerror(errno));
		ret = NSIGHT_EXIT_FAIL;
	}
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "strict", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false, strict = false;
	const char *name = "-";
	FILE *in = stdin;
	int c, ret;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "jshV", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 's':
			strict = true;
			break;
		case 'h':
			usage(stdout);
			return NSIGHT_EXIT_OK;
		case 'V':
			printf("nsight-analyze %s (stream format %d)\n", NSIGHT_TOOLS_VERSION,
			       NSIGHT_STREAM_VERSION);
			return NSIGHT_EXIT_OK;
		default:
			return usage_error("bad option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind > 1)
		return usage_error("more than one input ('%s')", argv[optind + 1]);
	if (optind < argc)
		name = argv[optind];

	if (strcmp(name, "-")) {
		in = fopen(name, "rb");
		if (!in) {
			fprintf(stderr, "nsight-analyze: %s: %s\n", name, strerror(errno));
			return NSIGHT_EXIT_FAIL;
		}
	}
	ret = analyze(in, name, json, strict);
	if (in != stdin)
		fclose(in);
	return ret;
}
