/* SPDX-License-Identifier: MIT */
/* Command-line plumbing shared by the nsightctl commands. */
#ifndef NSIGHTCTL_CLI_H
#define NSIGHTCTL_CLI_H

#include <getopt.h>
#include <stdio.h>
#include <json-c/json.h>

#include "base/diag.h"
#include "base/version.h"

/*
 * getopt_long() for a command whose name is argv[0]: an unknown option or
 * a missing argument prints a usage error and returns '?'.
 */
int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts);

/* Print "nsightctl CMD: MESSAGE" and a --help hint; returns NSIGHT_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print "nsightctl: MESSAGE" from @d; returns NSIGHT_EXIT_FAIL. */
int cli_fail(const struct nsight_diag *d);

void cli_print_json(struct json_object *o);

/* Flush stdout; a failed write is an error. Returns an exit code. */
int cli_finish_stdout(void);

/* The commands, each called with argv[0] == its name. */
int cmd_start(int argc, char **argv);
int cmd_stop(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_tracecmd_args(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_record(int argc, char **argv);
void cmd_start_usage(FILE *f);
void cmd_stop_usage(FILE *f);
void cmd_status_usage(FILE *f);
void cmd_tracecmd_args_usage(FILE *f);
void cmd_config_usage(FILE *f);
void cmd_dump_usage(FILE *f);
void cmd_record_usage(FILE *f);

#endif /* NSIGHTCTL_CLI_H */
