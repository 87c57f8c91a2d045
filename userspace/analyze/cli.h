/* SPDX-License-Identifier: MIT */
/*
 * nsight-analyze's commands (report, window, time-check, merge, export, fleet; main.c's
 * table) and what they share: the options, parsed by one loop over every
 * option a command takes, the checks of a capture's options, its input,
 * the files the reports go to, the categories.
 */
#ifndef NSIGHT_ANALYZE_CLI_H
#define NSIGHT_ANALYZE_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>

#include "diagnose/categories.h"
#include "diagnose/diagnose.h"
#include "diagnose/whatif.h"
#include "format/tracedat.h"
#include "pipeline/analysis.h"
#include "capture/timeconv.h"
#include "base/version.h"
#include "progress.h"
#include "terminal.h"

/*
 * A file a report goes to, opened before the analysis so that a path that
 * cannot be written fails at once, and emptied only when the report is
 * written: a run that fails leaves a file that was there as it was, and
 * removes one it created.
 */
struct out_file {
	const char *path;
	FILE *f;
	bool created;
};

/*
 * The command being run: its name (NULL without a command word, when the
 * options say which: --merge, --time-check, --window, --triggers), the
 * long options it takes (NULL-terminated; NULL: all of them) and its help.
 */
struct cli_cmd {
	const char *name;
	const char *const *options;
	void (*usage)(FILE *f);
};

/* --stream: the report streamed through windows (window_report.h). */
enum cli_stream {
	CLI_STREAM_AUTO,		/* when the capture would not fit in memory */
	CLI_STREAM_NEVER,
	CLI_STREAM_ALWAYS,
};

struct opts {
	const struct cli_cmd *cmd;
	bool json, strict, messages, verbose;
	struct nsight_tty tty;		/* the compact text's colour */
	bool color_set;			/* --color given */
	enum nsight_clockid clk;
	enum nsight_tc_params params;
	const char *pairs;		/* --time-check */
	struct nsight_dx_opts dx;	/* the diagnosis */
	const char *categories;		/* --categories */
	const char *html;		/* --html FILE */
	const char *perfetto;		/* --perfetto FILE */
	struct out_file *html_out, *perfetto_out;	/* opened before the analysis */
	bool diag_opts;			/* any diagnosis option given */
	bool intervals;			/* --intervals */
	struct nsight_wi_spec whatif[NSIGHT_WI_MAX_SPECS];	/* --what-if, in order */
	size_t n_whatif;
	bool merge;			/* --merge CLIENT SERVER */
	long long synced_ns;		/* --synced NS, -1 if not given */
	uint64_t window_ns;		/* --window, 0 if not given */
	bool range;			/* --range FROM:TO */
	uint64_t range_from_ns, range_to_ns;
	bool triggers;			/* --triggers */
	bool whole;			/* --whole */
	bool whole_dx;			/* --whole-diagnosis */
	enum cli_stream stream;		/* --stream WHEN */
	bool stream_set;		/* --stream given */
	uint64_t memory;		/* --memory SIZE in bytes, 0 if not given */
	unsigned int threads;		/* --threads, or 2 with two CPUs online */
	FILE *progress;			/* stderr if a terminal, else NULL */
	const char *export_url;		/* --export URL */
	bool export_schema;		/* --export-schema */
	const char *cluster;		/* --cluster NAME */
	const char *host;		/* --host NAME */
	size_t batch;			/* --batch ROWS */
	long timeout_s;			/* --timeout SECONDS */
	bool export_opts;		/* any of the four given */
	bool timeout_set;		/* --timeout given */
	const char *fleet_url;		/* --fleet URL */
	const char *from, *to;		/* fleet's --from, --to, as given */
	const char *from2, *to2;	/* --from2, --to2 */
	bool fleet_opts;		/* any of those four given */
};

/* cli_parse(): the options are parsed, the command goes on. */
#define CLI_GO (-1)

/* The defaults, for the command @cmd. */
void cli_opts_init(struct opts *o, const struct cli_cmd *cmd);
/*
 * The options of @argv (argv[0] the program or the command word) into @o;
 * optind then indexes the first operand. Returns CLI_GO, or the exit
 * status when parsing ends the run: --help or --version (0), a usage
 * error (2, said on stderr).
 */
int cli_parse(struct opts *o, int argc, char **argv);

/*
 * "nsight-analyze[ CMD]: MESSAGE" and where the help is, on stderr;
 * returns NSIGHT_EXIT_USAGE.
 */
int cli_usage_error(const struct opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "nsight-analyze: out of memory"; returns NSIGHT_EXIT_FAIL. */
int cli_nomem(void);
/* A failed write to stdout said; @ret, or NSIGHT_EXIT_FAIL then. */
int cli_finish_stdout(int ret);

/*
 * The checks of report, window and time-check: at most one capture (its
 * name into @name, "-" when none), and the options that do not go
 * together. Returns CLI_GO or the exit status.
 */
int cli_check_capture(struct opts *o, int n, char **args, const char **name);
/*
 * A capture named "-" while stdin is a terminal: nobody piped one in, and
 * reading would wait for keys. Says what to do; true then (a usage error).
 */
bool cli_stdin_is_terminal(const char *name);
/*
 * A stream from a file or stdin ("-"), read decompressed if it is zstd; a
 * trace-cmd capture (trace.dat, a file) is converted into one first
 * (format/tracedat.h) and cli_origin says so.
 */
int cli_open_input(const char *name, FILE **in);

/* Where the last input cli_open_input() opened came from. */
struct cli_origin {
	bool tracedat;				/* a trace-cmd capture */
	struct nsight_tracedat_info info;
};
extern struct cli_origin cli_origin;
/*
 * A trace-cmd capture's origin: what it was read as and what it could not
 * give (nsight.rst "Captures without the module"), as text on @f, or as
 * JSON (NULL when the input was no trace.dat, or out of memory).
 */
void cli_origin_text(FILE *f);
struct json_object *cli_origin_json(void);
/* The user's categories (--categories) first, then the built-in ones. */
int cli_load_categories(struct nsight_cats *cats, const struct opts *o);
/*
 * Read @in (named @name) into @a under @ao with the progress line @pg
 * (set up here; ended when the read ends). An exit status.
 */
int cli_read_capture(struct nsight_analysis *a, FILE *in, const char *name,
		     struct nsight_analysis_opts *ao, struct nsight_progress *pg,
		     const struct opts *o);

/* An output file opened, or its failure said (exit 1). */
int cli_out_open(struct out_file *f, const char *path);
/* Without its report: closed, and removed if this run created it. */
void cli_out_abandon(struct out_file *f);

/* The commands (main.c's table), each with its operands. */
int cmd_report(struct opts *o, int argc, char **argv);
int cmd_window(struct opts *o, int argc, char **argv);
int cmd_time_check(struct opts *o, int argc, char **argv);
int cmd_merge(struct opts *o, int argc, char **argv);
int cmd_export(struct opts *o, int argc, char **argv);
int cmd_fleet(struct opts *o, int argc, char **argv);
void cmd_report_usage(FILE *f);
void cmd_window_usage(FILE *f);
void cmd_time_check_usage(FILE *f);
void cmd_merge_usage(FILE *f);
void cmd_export_usage(FILE *f);
void cmd_fleet_usage(FILE *f);

/*
 * window's run on an open capture, also report's for a flight recorder's
 * and, @streamed, report --stream's (@why it streams, NULL: asked for).
 */
int cmd_window_run(FILE *in, const char *name, const struct opts *o, bool streamed,
		   const char *why);

#endif /* NSIGHT_ANALYZE_CLI_H */
