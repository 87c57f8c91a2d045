// SPDX-License-Identifier: MIT
/*
 * nsightctl's NIC hardware timestamping (ctl/hwtstamp.c) without a NIC:
 * interface lists, the state file of what to restore (round trip, atomic
 * removal, malformed lines named by file and line), the refusal of an
 * interface that does not timestamp (lo) leaving nothing to restore, and
 * the restore at the next command after the record that set them died.
 * The drivers' side runs in the guest (selftests/nsight/19-hwtstamp.sh).
 */
#include <errno.h>
#include <linux/net_tstamp.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl/cli.h"
#include "ctl/hwtstamp.h"
#include "test.h"

static char dir[] = "/tmp/nsight-hwts-XXXXXX";
static char path[sizeof(dir) + 16];

static void setup(void)
{
	if (!path[0]) {
		if (!mkdtemp(dir))
			abort();
		snprintf(path, sizeof(path), "%s/run/hwtstamp", dir);
		setenv("NSIGHT_HWTS_STATE", path, 1);
	}
	unlink(path);
}

__attribute__((destructor)) static void cleanup(void)
{
	if (!path[0])
		return;
	unlink(path);
	snprintf(path, sizeof(path), "%s/run", dir);
	rmdir(path);
	rmdir(dir);
}

static void write_file(const char *text)
{
	FILE *f;

	snprintf(path, sizeof(path), "%s/run", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/run/hwtstamp", dir);
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

static void test_parse_list(void)
{
	char names[NSIGHT_HWTS_MAX][IF_NAMESIZE];
	struct nsight_diag d = { 0 };
	size_t n = 99;

	CHECK_U64(nsight_hwts_parse_list("eth0", names, &n, &d), 0);
	CHECK_U64(n, 1);
	CHECK(!strcmp(names[0], "eth0"));
	CHECK_U64(nsight_hwts_parse_list("eth0,enp1s0f1", names, &n, &d), 0);
	CHECK_U64(n, 2);
	CHECK(!strcmp(names[1], "enp1s0f1"));
	CHECK_U64(nsight_hwts_parse_list("eth0,,eth1", names, &n, &d), -EINVAL);
	CHECK_STR_HAS(d.msg, "an empty name");
	CHECK_U64(nsight_hwts_parse_list("", names, &n, &d), -EINVAL);
	CHECK_U64(nsight_hwts_parse_list("eth0,", names, &n, &d), -EINVAL);
	CHECK_U64(nsight_hwts_parse_list("a23456789012345", names, &n, &d), 0);
	CHECK_U64(nsight_hwts_parse_list("a234567890123456", names, &n, &d), -EINVAL);
	CHECK_STR_HAS(d.msg, "longer than 15");
	CHECK_U64(nsight_hwts_parse_list("eth0,eth1,eth0", names, &n, &d), -EINVAL);
	CHECK_STR_HAS(d.msg, "eth0 twice");
	CHECK_U64(nsight_hwts_parse_list("a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q", names, &n, &d),
		  -EINVAL);
	CHECK_STR_HAS(d.msg, "more than 16 interfaces");
}

static void test_state_round_trip(void)
{
	struct nsight_hwts_state st = { .owner = 4242, .n = 2 }, back;
	struct nsight_diag d = { 0 };
	struct stat sb;

	setup();
	strcpy(st.ifs[0].ifname, "eth0");
	st.ifs[0].ifindex = 2;
	st.ifs[0].tx_type = HWTSTAMP_TX_OFF;
	st.ifs[0].rx_filter = HWTSTAMP_FILTER_NONE;
	strcpy(st.ifs[1].ifname, "ens5");
	st.ifs[1].ifindex = 7;
	st.ifs[1].tx_type = HWTSTAMP_TX_ON;
	st.ifs[1].rx_filter = HWTSTAMP_FILTER_PTP_V2_EVENT;
	st.ifs[1].flags = 1;
	CHECK_U64(nsight_hwts_state_read(path, &back, &d), -ENOENT);
	CHECK_U64(nsight_hwts_state_write(path, &st, &d), 0);
	CHECK_U64(stat(path, &sb), 0);
	CHECK_U64(sb.st_mode & 0777, 0600);
	CHECK_U64(nsight_hwts_state_read(path, &back, &d), 0);
	CHECK_U64(back.owner, 4242);
	CHECK_U64(back.n, 2);
	CHECK(!memcmp(back.ifs, st.ifs, 2 * sizeof(st.ifs[0])));
	/* Nothing left to restore: the file goes. */
	st.n = 0;
	CHECK_U64(nsight_hwts_state_write(path, &st, &d), 0);
	CHECK(access(path, F_OK) && errno == ENOENT);
	CHECK_U64(nsight_hwts_state_write(path, &st, &d), 0);
}

static void test_state_malformed(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "owner x\n", ":1: expected 'owner PID'" },
		{ "# c\nowner 1\neth0 2 0 0\n", ":3: expected 'IFNAME IFINDEX" },
		{ "owner 1\neth0 0 0 0 0\n", ":2: bad interface line" },
		{ "eth0 2 0 -1 0\n", ":1: bad interface line" },
		{ "a234567890123456 2 0 0 0\n", ":1: bad interface line" },
		{ "eth0 2 0 0 0 extra\n", ":1: expected 'IFNAME" },
	};
	struct nsight_hwts_state st;
	struct nsight_diag d = { 0 };
	size_t i;

	setup();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_file(cases[i].text);
		CHECK_U64(nsight_hwts_state_read(path, &st, &d), -EINVAL);
		CHECK_STR_HAS(d.msg, path);
		CHECK_STR_HAS(d.msg, cases[i].want);
	}
	write_file("# only a comment\n\nowner 0\n");
	CHECK_U64(nsight_hwts_state_read(path, &st, &d), 0);
	CHECK_U64(st.n, 0);
}

static void test_describe(void)
{
	char b[64];

	CHECK(!strcmp(nsight_hwts_describe(HWTSTAMP_TX_OFF, HWTSTAMP_FILTER_NONE, b, sizeof(b)),
		      "tx off, rx none"));
	CHECK(!strcmp(nsight_hwts_describe(HWTSTAMP_TX_ON, HWTSTAMP_FILTER_ALL, b, sizeof(b)),
		      "tx on, rx all"));
	CHECK(!strcmp(nsight_hwts_describe(HWTSTAMP_TX_ON, HWTSTAMP_FILTER_PTP_V2_EVENT, b, sizeof(b)),
		      "tx on, rx ptp filter 12"));
	CHECK(!strcmp(nsight_hwts_describe(9, HWTSTAMP_FILTER_NONE, b, sizeof(b)), "tx 9, rx none"));
}

/* lo cannot timestamp: refused with the driver's answer, nothing saved. */
static void test_refusal(void)
{
	struct nsight_diag d = { 0 };

	setup();
	CHECK_U64(nsight_hwts_enable("nsight-nosuch0", 0, NULL, &d), -ENODEV);
	CHECK_STR_HAS(d.msg, "nsight-nosuch0: no such interface");
	CHECK(access(path, F_OK) && errno == ENOENT);
	CHECK(nsight_hwts_enable("lo", 0, NULL, &d) < 0);
	CHECK_STR_HAS(d.msg, "lo: the driver does not timestamp packets");
	CHECK(access(path, F_OK) && errno == ENOENT);
	/* Nothing saved: restoring is silent and succeeds. */
	CHECK_U64(nsight_hwts_restore("test", NULL, &d), 0);
}

/*
 * A state left by a record that died: the next command puts it back (here
 * lo refuses, which is reported) and removes the file; a live owner's is
 * left alone while the module is loaded.
 */
static void test_restore_stale(void)
{
	char live[64];

	setup();
	snprintf(live, sizeof(live), "owner %d\nlo 1 0 0 0\n", (int)getpid());
	write_file(live);
	nsight_hwts_restore_stale(dir);
	CHECK_U64(access(path, F_OK), 0);
	/* The module's directory gone: restored (attempted) and removed. */
	nsight_hwts_restore_stale("/nonexistent/nsight");
	CHECK(access(path, F_OK) && errno == ENOENT);
	/* A dead owner (pid beyond pid_max). */
	write_file("owner 2147483647\nlo 1 0 0 0\n");
	nsight_hwts_restore_stale(dir);
	CHECK(access(path, F_OK) && errno == ENOENT);
}

static void test_cli_usage(void)
{
	char *argv_cfg[] = { "config", "--hw-timestamps", "", NULL };
	char *argv_rec[] = { "record", "--hw-timestamps", "eth0,eth0", "-o", "/dev/null", NULL };
	int ret;

	optind = 0;
	ret = cmd_config(3, argv_cfg);
	CHECK_U64(ret, NSIGHT_EXIT_USAGE);
	optind = 0;
	ret = cmd_record(5, argv_rec);
	CHECK_U64(ret, NSIGHT_EXIT_USAGE);
}

KTAP_MAIN(
	KTAP_TEST(test_parse_list),
	KTAP_TEST(test_state_round_trip),
	KTAP_TEST(test_state_malformed),
	KTAP_TEST(test_describe),
	KTAP_TEST(test_refusal),
	KTAP_TEST(test_restore_stale),
	KTAP_TEST(test_cli_usage),
)
