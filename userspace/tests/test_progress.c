// SPDX-License-Identifier: MIT
/*
 * The progress line (analyze/progress.c) on a fake clock: silent without a
 * FILE, drawn at a pass's start, redrawn at most every 250 ms with records
 * and MB/s, blanked over a longer line, erased at the end; and
 * nsight-analyze's stderr when it is not a terminal has none of it.
 */
#include "clirun.h"
#include "analyze/progress.h"
#include "synth.h"

static uint64_t fake_now;

static uint64_t fake_clock(void)
{
	return fake_now;
}

static char *out;
static size_t out_len;

static void test_silent(void)
{
	struct nsight_progress p;

	nsight_progress_init(&p, NULL, "cap.nsight");
	nsight_progress_pass(&p, "reading");
	nsight_progress_update(&p, 10, 1000);
	nsight_progress_end(&p);
	CHECK_U64(p.len, 0);
	/* A NULL progress, as the analysis gets without one. */
	nsight_progress_pass(NULL, "reading");
	nsight_progress_update(NULL, 1, 1);
	nsight_progress_end(NULL);
}

static void test_line(void)
{
	FILE *f = open_memstream(&out, &out_len);
	struct nsight_progress p;

	REQUIRE(f);
	nsight_progress_init(&p, f, "/var/tmp/cap.nsight");
	p.clock = fake_clock;
	fake_now = 1000000000ULL;
	nsight_progress_pass(&p, "reading");
	fflush(f);
	CHECK_STR_HAS(out, "\rnsight-analyze: cap.nsight: reading");
	/* 100 ms later: not redrawn. */
	fake_now += 100000000ULL;
	nsight_progress_update(&p, 5000, 1000000);
	fflush(f);
	CHECK(!strstr(out, "5000 records"));
	/* 500 ms in: 2,000,000 bytes in 0.5 s is 4.0 MB/s. */
	fake_now += 400000000ULL;
	nsight_progress_update(&p, 20000, 2000000);
	fflush(f);
	CHECK_STR_HAS(out, "\rnsight-analyze: cap.nsight: reading, 20000 records, 4.0 MB/s");
	/* A shorter line blanks the rest of the longer one: 23 columns. */
	nsight_progress_pass(&p, "diagnosis");
	fflush(f);
	CHECK_STR_HAS(out, "\rnsight-analyze: cap.nsight: diagnosis                       ");
	CHECK_U64(strlen(strrchr(out, '\r')), strlen("\rnsight-analyze: cap.nsight: reading, 20000 records, 4.0 MB/s"));
	nsight_progress_end(&p);
	fclose(f);
	/* Erased: blanks over the line, the cursor back at its start. */
	{
		size_t n = strlen(out);
		const char *erase = strrchr(out, '\r');

		REQUIRE(n > 1);
		CHECK(erase == out + n - 1);
		CHECK_U64(p.len, 0);
	}
	free(out);
	out = NULL;
}

static void test_long_name_and_stdin(void)
{
	struct nsight_progress p;

	nsight_progress_init(&p, NULL, "-");
	CHECK(!strcmp(p.name, "stdin"));
	nsight_progress_init(&p, NULL,
			     "/captures/a-very-long-name-of-a-capture-from-the-night-of-the-outage.nsight");
	CHECK(strlen(p.name) < sizeof(p.name));
	CHECK(!strncmp(p.name, "...", 3));
	CHECK_STR_HAS(p.name, "outage.nsight");
}

KTAP_MAIN(
	KTAP_TEST(test_silent),
	KTAP_TEST(test_line),
	KTAP_TEST(test_long_name_and_stdin),
)
