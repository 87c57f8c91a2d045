// SPDX-License-Identifier: MIT
/*
 * nsight-analyze --threads: the report does not depend on the number of
 * threads. Each synthetic scenario of the diagnosis tests, and each
 * capture of the analysis fuzzer's corpus (crashes found once included),
 * analysed with 1 and with 2 threads: the same exit status, standard
 * output and standard error, as text, full text and JSON, streamed
 * (text and JSON) and in 1 ms windows with the whole diagnosis.
 */
#include <dirent.h>

#include "clirun.h"
#include "scenario.h"

static struct cli cli;

/* Both runs of @args plus "--threads N" on @file give the same results. */
static void same_both(const char *file, const char *const *args, const char *what)
{
	struct cli_result r[2];
	const char *argv[16];
	size_t n = 0;

	for (int t = 0; t < 2; t++) {
		n = 0;
		argv[n++] = "--threads";
		argv[n++] = t ? "2" : "1";
		for (size_t i = 0; args[i] && n < 14; i++)
			argv[n++] = args[i];
		argv[n++] = file;
		argv[n] = NULL;
		cli_run(&cli, &r[t], NULL, argv);
	}
	if (r[0].status != r[1].status || !r[0].out || !r[1].out || strcmp(r[0].out, r[1].out) ||
	    !r[0].err || !r[1].err || strcmp(r[0].err, r[1].err))
		KTAP_FAIL("%s %s%s: 1 and 2 threads differ (status %d and %d)", what,
			  args[0] ? args[0] : "", args[0] && args[1] ? " ..." : "", r[0].status,
			  r[1].status);
	cli_result_free(&r[0]);
	cli_result_free(&r[1]);
}

static void same_all_modes(const char *file, const char *what)
{
	same_both(file, (const char *[]){ NULL }, what);
	same_both(file, (const char *[]){ "--verbose", "--messages", NULL }, what);
	same_both(file, (const char *[]){ "--json", NULL }, what);
	/* A window at a time: each window's timelines beside its lifetimes. */
	same_both(file, (const char *[]){ "--stream", "always", "--window", "1ms", NULL }, what);
	same_both(file, (const char *[]){ "--stream", "always", "--json", NULL }, what);
	same_both(file, (const char *[]){ "--verbose", "--window", "1ms", "--whole-diagnosis", NULL },
		  what);
}

static void test_scenarios(void)
{
	static const enum scen_kind slow[] = { SC_HOG, SC_KWORKER, SC_DROP, SC_FAULT, SC_NETRX,
					       SC_IDLE_IRQ };
	const char *path = cli_file(&cli, "scenario.nsight");
	struct scen sc;

	scen_init(&sc, "server");
	scen_run(&sc, 40, SC_HOG, 8, 7);
	REQUIRE(!scen_save(&sc, path));
	same_all_modes(path, "hog");

	scen_init(&sc, "server");
	sc.s.chunk_max = 1024;
	scen_mixed(&sc, 200, slow, 6, 5, 2, 105);
	REQUIRE(!scen_save(&sc, path));
	same_all_modes(path, "mixed in 1 KiB chunks");

	scen_init(&sc, "server");
	scen_lock_run(&sc, 40);
	REQUIRE(!scen_save(&sc, path));
	same_all_modes(path, "lock");

	/* The holder's functions sampled (the locks' "holder ... in"). */
	scen_init(&sc, "server");
	sc.s.ksyms = SC_KSYMS;
	sc.holder_fn = true;
	scen_lock_run(&sc, 40);
	REQUIRE(!scen_save(&sc, path));
	same_all_modes(path, "lock with the holder sampled");
}

/* The fuzzer's analysis corpus: odd streams, errors included. */
static void test_fuzz_corpus(void)
{
	DIR *dir = opendir("fuzz/corpus/analysis");
	struct dirent *e;
	size_t n = 0;

	REQUIRE(dir);
	while ((e = readdir(dir))) {
		char path[512];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "fuzz/corpus/analysis/%s", e->d_name);
		same_all_modes(path, e->d_name);
		n++;
	}
	closedir(dir);
	CHECK(n >= 20);
}

static void test_bad_threads(void)
{
	static const char *const bad[] = { "0", "-1", "x", "1025", "" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cli_result r;

		cli_run(&cli, &r, NULL, (const char *[]){ "--threads", bad[i], "x.nsight", NULL });
		CHECK_U64(r.status, 2);
		CHECK_STR_HAS(r.err, "bad --threads");
		cli_result_free(&r);
	}
}

static void setup(void)
{
	REQUIRE(cli_init(&cli) == 0);
}

static void cleanup(void)
{
	CHECK(cli_fini(&cli, (const char *[]){ "scenario.nsight", NULL }) == 0);
}

KTAP_MAIN(
	KTAP_TEST(setup),
	KTAP_TEST(test_scenarios),
	KTAP_TEST(test_fuzz_corpus),
	KTAP_TEST(test_bad_threads),
	KTAP_TEST(cleanup),
)
