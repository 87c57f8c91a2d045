// SPDX-License-Identifier: MIT
/*
 * nsightctl's help and output name every source of NSIGHT_SOURCE_NAMES,
 * and bad --filter / config arguments are usage errors (exit 2) naming the
 * bad token, decided before any netlink traffic; without the module the
 * error says how to load it.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <unistd.h>

#include "ctl/cli.h"
#include "ctl/nl.h"
#include "format/sources.h"
#include "ctl/status.h"
#include "test.h"

/* Output of @fn(@f) as a string (free it). */
static char *capture_usage(void (*fn)(FILE *))
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	fn(f);
	fclose(f);
	return out;
}

/* Run a command with stdout and stderr captured into @out and @err. */
static int run_cmd(int (*cmd)(int, char **), char **argv, char *out, size_t outlen,
		   char *err, size_t errlen)
{
	FILE *fo = tmpfile(), *fe = tmpfile();
	int argc = 0, saved_out, saved_err, ret;
	size_t n;

	while (argv[argc])
		argc++;
	out[0] = err[0] = '\0';
	if (!fo || !fe)
		return -1;
	fflush(stdout);
	fflush(stderr);
	saved_out = dup(STDOUT_FILENO);
	saved_err = dup(STDERR_FILENO);
	dup2(fileno(fo), STDOUT_FILENO);
	dup2(fileno(fe), STDERR_FILENO);
	optind = 0;
	ret = cmd(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, STDOUT_FILENO);
	dup2(saved_err, STDERR_FILENO);
	close(saved_out);
	close(saved_err);
	rewind(fo);
	n = fread(out, 1, outlen - 1, fo);
	out[n] = '\0';
	rewind(fe);
	n = fread(err, 1, errlen - 1, fe);
	err[n] = '\0';
	fclose(fo);
	fclose(fe);
	return ret;
}

static void test_config_help_lists_sources(void)
{
	char *help = capture_usage(cmd_config_usage), all[256];
	size_t i;

	REQUIRE(help);
	for (i = 0; i < __NSIGHT_SRC_COUNT; i++)
		CHECK_STR_HAS(help, nsight_source_names[i]);
	nsight_sources_format(NSIGHT_SOURCES_ALL, all, sizeof(all));
	CHECK_STR_HAS(help, all);
	CHECK_STR_HAS(help, "-f, --filter SPEC");
	CHECK_STR_HAS(help, "port     1 to 65535");
	CHECK_STR_HAS(help, "--filter 'port=9000,9001 addr=10.0.0.2'");
	free(help);

	help = capture_usage(cmd_dump_usage);
	REQUIRE(help);
	CHECK_STR_HAS(help, "--no-phc");
	free(help);
}

static void test_status_lists_sources(void)
{
	struct nsight_status st;
	struct json_object *o, *v;
	char *text = NULL, all[256], want[300];
	size_t len = 0, i;
	FILE *f;

	memset(&st, 0, sizeof(st));
	st.sources = NSIGHT_SOURCES_ALL;
	st.nr_cpus = 1;
	f = open_memstream(&text, &len);
	REQUIRE(f);
	nsight_status_print_text(f, &st);
	fclose(f);
	nsight_sources_format(NSIGHT_SOURCES_ALL, all, sizeof(all));
	/* The full list, not cut short by a buffer. */
	snprintf(want, sizeof(want), "sources:      %s\n", all);
	CHECK_STR_HAS(text, want);
	CHECK(!strstr(all, "bit"));
	for (i = 0; i < __NSIGHT_SRC_COUNT; i++)
		CHECK_STR_HAS(text, nsight_source_names[i]);
	free(text);

	o = nsight_status_to_json(&st);
	REQUIRE(o);
	REQUIRE(json_object_object_get_ex(o, "sources", &v));
	REQUIRE(json_object_array_length(v) == __NSIGHT_SRC_COUNT);
	for (i = 0; i < __NSIGHT_SRC_COUNT; i++)
		CHECK(!strcmp(json_object_get_string(json_object_array_get_idx(v, i)),
			      nsight_source_names[i]));
	json_object_put(o);
}

struct bad_args {
	const char *args[4];
	const char *msg;
};

static void test_config_usage_errors(void)
{
	static const struct bad_args bad[] = {
		{ { "--filter", "port=0" }, "nsightctl config: bad filter: bad port '0' (1 to 65535)" },
		{ { "--filter", "host=x" }, "bad filter: unknown filter kind 'host' in 'host=x'" },
		{ { "-f", "ifindex=no-such-if0" }, "bad filter: bad ifindex 'no-such-if0': no such interface" },
		{ { "--filter", "port=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17" },
		  "too many port values at '17' (at most 16)" },
		{ { "--filter", "" }, "bad filter: empty filter" },
		{ { "--sources", "handoff,bogus" }, "unknown source 'bogus'" },
		{ { "--filter" }, "option '--filter' needs an argument" },
		{ { "--buffer-size", "1K" }, "out of range" },
		{ { "extra" }, "unexpected argument 'extra'" },
	};
	char out[4096], err[4096];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[6] = { "config" };
		int j, ret;

		for (j = 0; j < 4 && bad[i].args[j]; j++)
			argv[j + 1] = (char *)bad[i].args[j];
		argv[j + 1] = NULL;
		ret = run_cmd(cmd_config, argv, out, sizeof(out), err, sizeof(err));
		if (ret != NSIGHT_EXIT_USAGE)
			KTAP_FAIL("case %zu: exit %d, expected 2 (stderr: %s)", i, ret, err);
		if (!strstr(err, bad[i].msg))
			KTAP_FAIL("case %zu: stderr \"%s\" lacks \"%s\"", i, err, bad[i].msg);
		CHECK_STR_HAS(err, "Try 'nsightctl config --help'.");
		CHECK_U64(strlen(out), 0);
	}
}

static void test_help_exit_codes(void)
{
	char *config_help[] = { "config", "--help", NULL };
	char *dump_help[] = { "dump", "-h", NULL };
	char *dump_bad[] = { "dump", "-P", NULL };
	char out[4096], err[4096];

	CHECK_U64(run_cmd(cmd_config, config_help, out, sizeof(out), err, sizeof(err)), 0);
	CHECK_STR_HAS(out, "Usage: nsightctl config [--sources LIST] [--buffer-size BYTES] [--filter SPEC]");
	CHECK_U64(strlen(err), 0);
	CHECK_U64(run_cmd(cmd_dump, dump_help, out, sizeof(out), err, sizeof(err)), 0);
	CHECK_STR_HAS(out, "Usage: nsightctl dump");
	/* --no-phc has no short form. */
	CHECK_U64(run_cmd(cmd_dump, dump_bad, out, sizeof(out), err, sizeof(err)), NSIGHT_EXIT_USAGE);
	CHECK_STR_HAS(err, "unknown option '-P'");
}

/* The family not found: how to load the module, or why a loaded one is not seen. */
static void test_module_not_loaded(void)
{
	char dir[] = "/tmp/nsight-sysmod-XXXXXX", absent[64];
	char *argv[] = { "status", NULL };
	char out[4096], err[4096];
	struct nsight_diag d = { 0 };

	REQUIRE(mkdtemp(dir));
	snprintf(absent, sizeof(absent), "%s/nsight", dir);
	CHECK_U64(nsight_nl_family_error(-NLE_OBJ_NOTFOUND, absent, &d), -ENOENT);
	CHECK_STR_HAS(d.msg, "nsight.ko is not loaded (no genl family 'nsight'): "
		      "load it with 'insmod nsight.ko' (or 'modprobe nsight' when installed)");
	CHECK_U64(nsight_nl_family_error(-NLE_OBJ_NOTFOUND, dir, &d), -ENOENT);
	CHECK_STR_HAS(d.msg, "nsight.ko is loaded but its genl family 'nsight' is not here");
	CHECK_STR_HAS(d.msg, "initial network namespace");
	CHECK_U64(nsight_nl_family_error(-NLE_NOMEM, absent, &d), -EIO);
	CHECK_STR_HAS(d.msg, "cannot resolve genl family 'nsight': ");
	rmdir(dir);

	/* The command itself, where no module is loaded here: exit 1 and the hint. */
	if (access(NSIGHT_SYS_MODULE, F_OK)) {
		CHECK_U64(run_cmd(cmd_status, argv, out, sizeof(out), err, sizeof(err)),
			  NSIGHT_EXIT_FAIL);
		if (!strstr(err, "cannot open a generic netlink socket"))
			CHECK_STR_HAS(err, "nsightctl: nsight.ko is not loaded");
		CHECK_U64(strlen(out), 0);
	}
}

KTAP_MAIN(
	KTAP_TEST(test_config_help_lists_sources),
	KTAP_TEST(test_status_lists_sources),
	KTAP_TEST(test_config_usage_errors),
	KTAP_TEST(test_help_exit_codes),
	KTAP_TEST(test_module_not_loaded),
)
