// SPDX-License-Identifier: MIT
/*
 * trace-cmd captures (format/tracedat.h): events given one by one become
 * the records of a UDP message's lifetime; a trace.dat recorded on a host
 * (tests/data/tracecmd-udp-echo.dat, see tests/data/README) is read and
 * analysed; damaged ones give an error naming the file and the byte.
 */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "format/tracedat.h"
#include "pipeline/analysis.h"
#include "test.h"

#define ECHO_DAT "tests/data/tracecmd-udp-echo.dat"
#define GUEST_DAT "tests/data/tracecmd-guest-udp.dat"

/* A fake event: fields as name=value pairs. */
struct fake {
	const char *names[12];
	uint64_t vals[12];
	const char *strs[4][2];
};

static int fake_num(const struct nsight_tdev *ev, const char *field, uint64_t *v)
{
	const struct fake *f = ev->priv;
	size_t i;

	for (i = 0; i < 12 && f->names[i]; i++)
		if (!strcmp(f->names[i], field)) {
			*v = f->vals[i];
			return 0;
		}
	return -1;
}

static int fake_str(const struct nsight_tdev *ev, const char *field, char *buf, size_t len)
{
	const struct fake *f = ev->priv;
	size_t i;

	for (i = 0; i < 4 && f->strs[i][0]; i++)
		if (!strcmp(f->strs[i][0], field)) {
			snprintf(buf, len, "%s", f->strs[i][1]);
			return 0;
		}
	return -1;
}

static const char *fake_comm(const struct nsight_tdev *ev, uint32_t pid)
{
	(void)ev;
	return pid == 42 ? "server" : NULL;
}

static int give(struct nsight_tdconv *c, const char *sys, const char *name, uint32_t cpu,
		uint64_t ts, uint32_t pid, struct fake *f)
{
	struct nsight_tdev ev = {
		.system = sys, .name = name, .cpu = cpu, .ts = ts, .pid = pid,
		.num = fake_num, .str = fake_str, .comm = fake_comm, .priv = f,
	};
	struct nsight_diag d = { 0 };
	int err = nsight_tdconv_event(c, &ev, &d);

	if (err)
		printf("# %s\n", d.msg);
	return err;
}

/* The server's socket 127.0.0.1:9000, unconnected, at address 0xffff8880aa. */
static struct fake sock_ev(void)
{
	struct fake f = { .names = { "sk", "saddr", "daddr", "sport", "dport", "family" } };
	uint32_t lo = htonl(0x7f000001);

	f.vals[0] = 0xffff8880aaULL;
	f.vals[1] = lo;
	f.vals[2] = 0;
	f.vals[3] = 9000;
	f.vals[4] = 0;
	f.vals[5] = AF_INET;
	return f;
}

/*
 * One datagram: received on CPU 0 (netif_receive_skb, then the hand-off in
 * the same softirq), read by tid 42 on CPU 1 (udp_recvmsg entry before it
 * arrived, the copy, the return). The analysis finds one complete RX
 * message n 10000, h 10400, a 12000.
 */
static void test_tdconv_udp_rx(void)
{
	struct nsight_tracedat_info info;
	struct nsight_analysis_opts o = { .params = NSIGHT_TC_IN_FORCE, .lifetimes = true };
	struct nsight_analysis a;
	struct nsight_tdconv c;
	struct nsight_diag d = { 0 };
	struct fake sw = { .names = { "prev_pid", "next_pid", "prev_state", "prev_prio", "next_prio" },
			   .vals = { 0, 42, 0, 120, 120 },
			   .strs = { { "prev_comm", "swapper/1" }, { "next_comm", "server" } } };
	struct fake rx = { .names = { "skbaddr", "len" }, .vals = { 0xffff888011ULL, 32 },
			   .strs = { { "name", "lo" } } };
	struct fake copy = { .names = { "skbaddr", "len" }, .vals = { 0xffff888011ULL, 4 } };
	struct fake ret = { .names = { "ret" }, .vals = { 4 } };
	struct fake sk = sock_ev();
	struct membuf m;
	FILE *f;
	int err;

	memset(&info, 0, sizeof(info));
	m.f = open_memstream(&m.data, &m.len);
	REQUIRE(m.f);
	REQUIRE(!nsight_tdconv_init(&c, m.f, 2, "6.1.0-test", &info, &d));
	CHECK(!give(&c, "sched", "sched_switch", 1, 8000, 0, &sw));
	CHECK(!give(&c, "nsight", "udp_recv", 1, 9000, 42, &sk));
	CHECK(!give(&c, "net", "netif_receive_skb", 0, 10000, 0, &rx));
	CHECK(!give(&c, "nsight", "handoff", 0, 10400, 0, &sk));
	CHECK(!give(&c, "skb", "skb_copy_datagram_iovec", 1, 11500, 42, &copy));
	CHECK(!give(&c, "nsight", "udp_recv_ret", 1, 12000, 42, &ret));
	CHECK(!give(&c, "foo", "bar", 1, 12500, 42, &ret));
	REQUIRE(!nsight_tdconv_finish(&c, &d));
	nsight_tdconv_fini(&c);
	fclose(m.f);
	CHECK_U64(info.events, 7);
	CHECK_U64(info.mapped, 6);
	CHECK_U64(info.unmapped, 1);
	CHECK_U64(info.kinds[NSIGHT_TD_HANDOFF], 1);

	f = mem_reader(m.data, m.len);
	REQUIRE(f);
	memset(&a, 0, sizeof(a));
	err = nsight_analysis_run(&a, f, &o, &d);
	fclose(f);
	if (err)
		printf("# %s\n", d.msg);
	CHECK(!err);
	CHECK_U64(a.lt.n_rx, 1);
	CHECK_U64(a.lt.n_complete, 1);
	if (a.lt.n_rx == 1) {
		const struct nsight_msg *msg = &a.lt.msgs[0];

		CHECK_U64(msg->t[NSIGHT_RX_N].tsc, 10000);
		CHECK_U64(msg->t[NSIGHT_RX_H].tsc, 10400);
		CHECK_U64(msg->t[NSIGHT_RX_A].tsc, 12000);
		CHECK_U64(msg->t[NSIGHT_RX_A].cpu, 1);
		CHECK_U64(msg->tid, 42);
		CHECK_U64(msg->flow.dport, 9000);
		CHECK(!strcmp(msg->comm, "server"));
		CHECK_U64(msg->total_ns, 2000);
	}
	nsight_analysis_fini(&a);
	free(m.data);
}

/* Lost events: a new sub-buffer record with their count. */
static void test_tdconv_missed(void)
{
	struct nsight_tracedat_info info;
	struct nsight_tdconv c;
	struct nsight_diag d = { 0 };
	struct fake si = { .names = { "vec" }, .vals = { 3 } };
	struct nsight_tdev ev = { .system = "irq", .name = "softirq_entry", .cpu = 0, .ts = 100,
				  .num = fake_num, .str = fake_str, .priv = &si };
	struct membuf m;

	memset(&info, 0, sizeof(info));
	m.f = open_memstream(&m.data, &m.len);
	REQUIRE(m.f);
	REQUIRE(!nsight_tdconv_init(&c, m.f, 1, NULL, &info, &d));
	CHECK(!nsight_tdconv_event(&c, &ev, &d));
	ev.ts = 200;
	ev.missed = 17;
	CHECK(!nsight_tdconv_event(&c, &ev, &d));
	ev.cpu = 3;
	CHECK(nsight_tdconv_event(&c, &ev, &d) < 0);
	CHECK_STR_HAS(d.msg, "CPU 3");
	REQUIRE(!nsight_tdconv_finish(&c, &d));
	nsight_tdconv_fini(&c);
	fclose(m.f);
	CHECK_U64(info.missed, 17);
	/* 2 SUBBUF, timekeeper, clock_sync, 2 softirq */
	CHECK_U64(info.records, 6);
	free(m.data);
}

static int convert_file(const char *path, const char *name, struct nsight_tracedat_info *info,
			struct nsight_diag *d, struct membuf *m)
{
	int fd = open(path, O_RDONLY), err;

	if (fd < 0)
		return -1;
	m->f = open_memstream(&m->data, &m->len);
	err = nsight_tracedat_convert(name, fd, m->f, info, d);
	fclose(m->f);
	close(fd);
	return err;
}

/*
 * Convert trace.dat @path (named @name) and analyse the stream: 0 with @a
 * (to nsight_analysis_fini) and @info, else the error, printed.
 */
static int analyse_file(const char *path, const char *name, struct nsight_tracedat_info *info,
			struct nsight_analysis *a)
{
	struct nsight_analysis_opts o = { .params = NSIGHT_TC_IN_FORCE, .lifetimes = true };
	struct nsight_diag d = { 0 };
	struct membuf m;
	FILE *f;
	int err;

	memset(a, 0, sizeof(*a));
	err = convert_file(path, name, info, &d, &m);
	if (!err) {
		f = mem_reader(m.data, m.len);
		err = f ? nsight_analysis_run(a, f, &o, &d) : -1;
		if (f)
			fclose(f);
	}
	if (err)
		printf("# %s\n", d.msg);
	free(m.data);
	return err;
}

/*
 * The recorded capture: a UDP echo over loopback, 20 round trips, with the
 * kernel's events only (no kprobes could be made where it was recorded).
 */
static void test_tracedat_file(void)
{
	struct nsight_tracedat_info info;
	struct nsight_analysis a;
	char missing[1024];

	REQUIRE(!analyse_file(ECHO_DAT, "echo.dat", &info, &a));
	CHECK_U64(info.nr_cpus, 2);
	CHECK_U64(info.events, 1357);
	CHECK_U64(info.kinds[NSIGHT_TD_SWITCH], 503);
	CHECK_U64(info.kinds[NSIGHT_TD_RX], 80);
	CHECK_U64(info.kinds[NSIGHT_TD_TX], 80);
	CHECK_U64(info.kinds[NSIGHT_TD_HANDOFF], 0);
	CHECK_U64(info.missed, 0);
	CHECK(!strcmp(info.buffer, "ntd"));
	nsight_tracedat_missing(&info, missing, sizeof(missing));
	CHECK_STR_HAS(missing, "no hand-off h");
	CHECK_STR_HAS(missing, "no packet identity");
	CHECK_U64(a.sum.hdr.nr_cpus, 2);
	/* Every mapped event is a record; plus 2 SUBBUF, the timekeeper and clock_sync. */
	CHECK_U64(a.sum.records + a.sum.subbufs, info.mapped + 4);
	/* No hand-off, no receive: no message is invented. */
	CHECK_U64(a.lt.n_complete, 0);
	nsight_analysis_fini(&a);
}

/*
 * A capture recorded in a Debian 6.12 guest with the script of 'nsightctl
 * trace-cmd-args' (kprobes included): 20 UDP round trips between
 * msgload's client (pid 193, receiving thread 194) on CPU 0 and its echo
 * server (pid 191) on CPU 1, over a veth pair (tests/data/README.tracecmd).
 */
static void test_tracedat_guest(void)
{
	struct nsight_tracedat_info info;
	struct nsight_analysis a;
	uint64_t rx[2] = { 0 }, tx[2] = { 0 };
	char missing[1024];
	size_t i;

	REQUIRE(!analyse_file(GUEST_DAT, "guest.dat", &info, &a));
	CHECK_U64(info.nr_cpus, 2);
	CHECK_U64(info.events, 3486);
	CHECK_U64(info.unmapped, 0);
	CHECK_U64(info.missed, 0);
	/* Both ends' sockets became readable 20 times; 40 receives, 40 sends. */
	CHECK_U64(info.kinds[NSIGHT_TD_HANDOFF], 40);
	CHECK_U64(info.kinds[NSIGHT_TD_SEND], 40);
	nsight_tracedat_missing(&info, missing, sizeof(missing));
	CHECK(!strstr(missing, "no hand-off h"));
	CHECK_STR_HAS(missing, "no packet identity");
	for (i = 0; i < a.lt.n; i++) {
		const struct nsight_msg *msg = &a.lt.msgs[i];
		bool server = msg->pid == 191;

		if (msg->reason != NSIGHT_MSG_COMPLETE)
			continue;
		if (msg->dir == NSIGHT_MSG_RX)
			rx[server]++;
		else
			tx[server]++;
	}
	/*
	 * Every echo the client received, though the server's socket is
	 * bound to the wildcard address and its datagrams leave with a
	 * source the capture cannot know; the server's first datagram
	 * waited for ARP and is not joined to its send (19 of 20).
	 */
	CHECK_U64(rx[0], 20);
	CHECK_U64(rx[1], 19);
	CHECK_U64(tx[0], 19);
	CHECK_U64(tx[1], 20);
	nsight_analysis_fini(&a);
}

/* The descriptors this process has open. */
static size_t open_fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	size_t n = 0;

	if (!dir)
		return 0;
	while (readdir(dir))
		n++;
	closedir(dir);
	return n;
}

/* Damaged files: the name and the byte in the error. */
static void test_tracedat_damaged(void)
{
	static const char *tmp = "build-asan/tests/damaged.dat";
	struct nsight_tracedat_info info;
	struct nsight_diag d = { 0 };
	struct membuf m;
	uint8_t buf[4096];
	FILE *in = fopen(ECHO_DAT, "rb");
	unsigned long long at = 0;
	size_t n, fds;
	FILE *f;

	REQUIRE(in);
	n = fread(buf, 1, sizeof(buf), in);
	fclose(in);
	REQUIRE(n == sizeof(buf));

	/* Not a trace.dat. */
	buf[3] = 'X';
	f = fopen(tmp, "wb");
	REQUIRE(f && fwrite(buf, 1, 64, f) == 64 && !fclose(f));
	CHECK(convert_file(tmp, "bad.dat", &info, &d, &m) < 0);
	CHECK_STR_HAS(d.msg, "bad.dat: byte 0:");
	free(m.data);
	buf[3] = 't';

	/* Big-endian. */
	buf[12] = 1;
	f = fopen(tmp, "wb");
	REQUIRE(f && fwrite(buf, 1, 64, f) == 64 && !fclose(f));
	CHECK(convert_file(tmp, "bad.dat", &info, &d, &m) < 0);
	CHECK_STR_HAS(d.msg, "bad.dat: byte 12:");
	free(m.data);
	buf[12] = 0;

	/* Cut inside the header. */
	f = fopen(tmp, "wb");
	REQUIRE(f && fwrite(buf, 1, 11, f) == 11 && !fclose(f));
	CHECK(convert_file(tmp, "cut.dat", &info, &d, &m) < 0);
	CHECK_STR_HAS(d.msg, "cut.dat: byte 11:");
	free(m.data);

	/*
	 * Cut after the first page: the byte where libtracecmd stopped, past
	 * the header and inside the file, and no descriptor left open.
	 */
	f = fopen(tmp, "wb");
	REQUIRE(f && fwrite(buf, 1, sizeof(buf), f) == sizeof(buf) && !fclose(f));
	fds = open_fds();
	CHECK(convert_file(tmp, "cut.dat", &info, &d, &m) < 0);
	CHECK_U64(open_fds(), fds);
	printf("# %s\n", d.msg);
	CHECK(sscanf(d.msg, "cut.dat: byte %llu:", &at) == 1);
	CHECK(at > 13 && at <= sizeof(buf));
	free(m.data);
	unlink(tmp);
}

KTAP_MAIN(KTAP_TEST(test_tdconv_udp_rx), KTAP_TEST(test_tdconv_missed),
	  KTAP_TEST(test_tracedat_file), KTAP_TEST(test_tracedat_guest),
	  KTAP_TEST(test_tracedat_damaged))
