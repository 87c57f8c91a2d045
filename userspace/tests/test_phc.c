// SPDX-License-Identifier: MIT
/*
 * PHC enumeration (ctl/phc.c) on a fake sysfs and /dev tree with a fake
 * reading function, the real ioctls on a file that is no PHC, and the PHC
 * chunk in a whole dump.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl/dump.h"
#include "ctl/phc.h"
#include "test.h"

struct tree {
	char root[64];
	char sys[96];
	char dev[96];
};

static int mkdirs(const char *path)
{
	char buf[512];
	char *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0700) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(buf, 0700) && errno != EEXIST ? -1 : 0;
}

static int put_file(const char *dir, const char *name, const char *content)
{
	char path[512];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	ok = write(fd, content, strlen(content)) == (ssize_t)strlen(content);
	close(fd);
	return ok ? 0 : -1;
}

/* <sys>/class/ptp/ptpN, with device/net/<ifname> for each of @nics (NULL: no device). */
static int add_clock(const struct tree *t, const char *name, const char *const *nics)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/class/ptp/%s", t->sys, name);
	if (mkdirs(path))
		return -1;
	for (; nics && *nics; nics++) {
		snprintf(path, sizeof(path), "%s/class/ptp/%s/device/net/%s", t->sys, name, *nics);
		if (mkdirs(path))
			return -1;
	}
	return 0;
}

/*
 * The fake tree:
 *   ptp0   NIC enp1s0f0 (ifindex 5), reads "precise"
 *   ptp1   no device, reads "extended"
 *   ptp2   NICs b0 and a0 (a0 is 7, b0 unknown), reads "extended"
 *   ptp3   NIC eth3, no /dev/ptp3
 *   ptp4   NIC eth4, reading fails
 *   ptp10  NIC eth10, reads "precise" (sorted after ptp4)
 *   ptp11  NIC eth11, returns no readings
 *   ptpx, ptp, foo: not clocks
 */
static int tree_make(struct tree *t)
{
	static const char *const nic0[] = { "enp1s0f0", NULL };
	static const char *const nic2[] = { "b0", "a0", NULL };
	static const char *const nic3[] = { "eth3", NULL };
	static const char *const nic4[] = { "eth4", NULL };
	static const char *const nic10[] = { "eth10", NULL };
	static const char *const nic11[] = { "eth11", NULL };
	char path[512];

	snprintf(t->root, sizeof(t->root), "/tmp/nsight-phc-test-XXXXXX");
	if (!mkdtemp(t->root))
		return -1;
	snprintf(t->sys, sizeof(t->sys), "%s/sys", t->root);
	snprintf(t->dev, sizeof(t->dev), "%s/dev", t->root);
	if (mkdirs(t->dev) ||
	    add_clock(t, "ptp0", nic0) || add_clock(t, "ptp1", NULL) ||
	    add_clock(t, "ptp2", nic2) || add_clock(t, "ptp3", nic3) ||
	    add_clock(t, "ptp4", nic4) || add_clock(t, "ptp10", nic10) ||
	    add_clock(t, "ptp11", nic11) ||
	    add_clock(t, "ptpx", nic0) || add_clock(t, "ptp", nic0) || add_clock(t, "foo", nic0))
		return -1;
	/* A dotfile in a net directory is no NIC. */
	snprintf(path, sizeof(path), "%s/class/ptp/ptp0/device/net", t->sys);
	if (put_file(path, ".hidden", "x"))
		return -1;
	if (put_file(t->dev, "ptp0", "precise") || put_file(t->dev, "ptp1", "extended") ||
	    put_file(t->dev, "ptp2", "extended") || put_file(t->dev, "ptp4", "fail") ||
	    put_file(t->dev, "ptp10", "precise") || put_file(t->dev, "ptp11", "none"))
		return -1;
	return 0;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void tree_remove(struct tree *t)
{
	nftw(t->root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static unsigned int fake_ifindex(const char *name)
{
	if (!strcmp(name, "enp1s0f0"))
		return 5;
	if (!strcmp(name, "a0"))
		return 7;
	if (!strcmp(name, "eth10"))
		return 10;
	return 0;
}

/* Reads what the fake /dev file says it is. Times: 1000 * clock + i. */
static int fake_sample(int fd, struct nsight_phc_sample *out, size_t max, char *why, size_t whylen)
{
	char what[16] = "";
	ssize_t n = pread(fd, what, sizeof(what) - 1, 0);
	int i;

	if (n < 0)
		return -errno;
	if (!strcmp(what, "precise")) {
		out[0].method = NSIGHT_PHC_PRECISE;
		out[0].sys_before_ns = 5000;
		out[0].sys_after_ns = 5000;
		out[0].phc_ns = 42;
		return 1;
	}
	if (!strcmp(what, "extended")) {
		for (i = 0; i < NSIGHT_PHC_EXTENDED_SAMPLES && (size_t)i < max; i++) {
			out[i].method = NSIGHT_PHC_EXTENDED;
			out[i].sys_before_ns = 100 * i;
			out[i].phc_ns = 100 * i + 10;
			out[i].sys_after_ns = 100 * i + 20;
		}
		return i;
	}
	if (!strcmp(what, "none"))
		return 0;
	snprintf(why, whylen, "fake failure");
	return -EOPNOTSUPP;
}

struct warnings {
	char text[4096];
	int n;
};

static void collect_warning(void *ctx, const char *msg)
{
	struct warnings *w = ctx;
	size_t len = strlen(w->text);

	snprintf(w->text + len, sizeof(w->text) - len, "%s\n", msg);
	w->n++;
}

static void test_enumerate_fake_tree(void)
{
	struct warnings warns = { .n = 0 };
	struct nsight_phc_opts o = {
		.sample = fake_sample, .ifindex = fake_ifindex,
		.warn = collect_warning, .warn_ctx = &warns,
	};
	struct nsight_diag d = { 0 };
	struct nsight_phc_set set;
	const struct nsight_phc_sample *s;
	struct tree t;
	size_t i;

	REQUIRE(tree_make(&t) == 0);
	o.sysfs = t.sys;
	o.dev = t.dev;
	CHECK_U64(nsight_phc_collect(&o, &set, &d), 0);
	tree_remove(&t);

	/* ptp0: 1, ptp1: 5, ptp2: 5 for a0 and 5 for b0, ptp10: 1. */
	CHECK_U64(set.clocks, 4);
	CHECK_U64(set.skipped, 3);
	REQUIRE(set.n == 17);
	s = set.samples;

	CHECK_U64(s[0].phc_index, 0);
	CHECK(!strcmp(s[0].ifname, "enp1s0f0"));
	CHECK_U64(s[0].ifindex, 5);
	CHECK_U64(s[0].method, NSIGHT_PHC_PRECISE);
	CHECK_U64(s[0].sys_before_ns, 5000);
	CHECK_U64(s[0].sys_after_ns, 5000);
	CHECK_U64(s[0].phc_ns, 42);

	for (i = 1; i <= 5; i++) {
		CHECK_U64(s[i].phc_index, 1);
		CHECK(!strcmp(s[i].ifname, ""));
		CHECK_U64(s[i].ifindex, 0);
		CHECK_U64(s[i].method, NSIGHT_PHC_EXTENDED);
		CHECK_U64(s[i].sys_before_ns, 100 * (i - 1));
		CHECK_U64(s[i].phc_ns, 100 * (i - 1) + 10);
		CHECK_U64(s[i].sys_after_ns, 100 * (i - 1) + 20);
	}
	/* Two NICs on one clock: the same readings for each, NICs by name. */
	for (i = 6; i <= 10; i++) {
		CHECK_U64(s[i].phc_index, 2);
		CHECK(!strcmp(s[i].ifname, "a0"));
		CHECK_U64(s[i].ifindex, 7);
		CHECK_U64(s[i].phc_ns, s[i + 5].phc_ns);
	}
	for (i = 11; i <= 15; i++) {
		CHECK_U64(s[i].phc_index, 2);
		CHECK(!strcmp(s[i].ifname, "b0"));
		CHECK_U64(s[i].ifindex, 0);	/* not in this namespace */
	}
	CHECK_U64(s[16].phc_index, 10);
	CHECK(!strcmp(s[16].ifname, "eth10"));
	CHECK_U64(s[16].ifindex, 10);
	for (i = 0; i < set.n; i++) {
		CHECK_U64(s[i].pad, 0);
		CHECK(memchr(s[i].ifname, '\0', sizeof(s[i].ifname)) != NULL);
	}

	CHECK_U64(warns.n, 3);
	CHECK_STR_HAS(warns.text, "skipping PHC ptp3 (eth3): cannot open ");
	CHECK_STR_HAS(warns.text, "/dev/ptp3: No such file or directory\n");
	CHECK_STR_HAS(warns.text, "skipping PHC ptp4 (eth4): cannot read it against CLOCK_REALTIME: fake failure\n");
	CHECK_STR_HAS(warns.text, "skipping PHC ptp11 (eth11): cannot read it against CLOCK_REALTIME: no readings\n");
	nsight_phc_set_free(&set);
}

static void test_enumerate_no_ptp(void)
{
	struct warnings warns = { .n = 0 };
	struct nsight_phc_opts o = {
		.sysfs = "/nonexistent-sysfs", .dev = "/nonexistent-dev",
		.sample = fake_sample, .warn = collect_warning, .warn_ctx = &warns,
	};
	struct nsight_diag d = { 0 };
	struct nsight_phc_set set;
	struct tree t;
	char path[512];

	/* No class/ptp at all: nothing, quietly. */
	CHECK_U64(nsight_phc_collect(&o, &set, &d), 0);
	CHECK_U64(set.n, 0);
	CHECK_U64(set.clocks, 0);
	CHECK_U64(warns.n, 0);
	nsight_phc_set_free(&set);

	/* class/ptp exists but is empty. */
	snprintf(t.root, sizeof(t.root), "/tmp/nsight-phc-test-XXXXXX");
	REQUIRE(mkdtemp(t.root));
	snprintf(path, sizeof(path), "%s/class/ptp", t.root);
	REQUIRE(mkdirs(path) == 0);
	o.sysfs = t.root;
	CHECK_U64(nsight_phc_collect(&o, &set, &d), 0);
	CHECK_U64(set.n, 0);
	CHECK_U64(warns.n, 0);
	nsight_phc_set_free(&set);

	/* class/ptp unreadable as a directory: a warning, still no error. */
	REQUIRE(rmdir(path) == 0);
	snprintf(path, sizeof(path), "%s/class", t.root);
	REQUIRE(put_file(path, "ptp", "not a directory") == 0);
	CHECK_U64(nsight_phc_collect(&o, &set, &d), 0);
	CHECK_U64(set.n, 0);
	CHECK_U64(warns.n, 1);
	CHECK_STR_HAS(warns.text, "no PHC samples: cannot read ");
	CHECK_STR_HAS(warns.text, "/class/ptp: Not a directory");
	nsight_phc_set_free(&set);
	tree_remove(&t);
}

/* The real ioctls on something that is no PHC: both fail, a reason is given. */
static void test_ioctl_not_a_phc(void)
{
	struct nsight_phc_sample s[NSIGHT_PHC_MAX_PER_CLOCK];
	char why[256] = "";
	int fd = open("/dev/null", O_RDONLY);

	REQUIRE(fd >= 0);
	CHECK_U64(nsight_phc_sample_ioctl(fd, s, NSIGHT_PHC_MAX_PER_CLOCK, why, sizeof(why)), -ENOTTY);
	CHECK_STR_HAS(why, "PTP_SYS_OFFSET_PRECISE: ");
	CHECK_STR_HAS(why, "; PTP_SYS_OFFSET_EXTENDED: ");
	CHECK_U64(nsight_phc_sample_ioctl(fd, s, 0, why, sizeof(why)), -EINVAL);
	close(fd);
}

/* ---------------------------------------------------------------------- */
/* In a dump                                                                */

static int fake_status(void *ctx, struct nsight_status *st, struct nsight_diag *d)
{
	(void)ctx;
	(void)d;
	memset(st, 0, sizeof(*st));
	st->nr_cpus = 1;
	st->tsc_hz = 1000000000;
	return 0;
}

/* Dump an empty capture with @phc; the chunk types in order into @types. */
static int dump_types(const struct nsight_phc_opts *phc, uint32_t *types, size_t max,
		      size_t *n, struct nsight_dump_result *res, struct nsight_phc_sample *first)
{
	struct nsight_status before, after;
	struct nsight_stream_writer w;
	struct nsight_stream_reader r;
	struct nsight_diag d = { 0 };
	struct nsight_chunk c;
	struct membuf m;
	char dir[64], sub[96];
	struct nsight_dump_opts o = { .phc = phc };
	int ret;
	FILE *f;

	*n = 0;
	snprintf(dir, sizeof(dir), "/tmp/nsight-phc-dump-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(sub, sizeof(sub), "%s/nsight", dir);
	mkdir(sub, 0700);
	o.debugfs = dir;
	fake_status(NULL, &before, &d);

	membuf_open(&m, &w);
	ret = nsight_dump(&w, &o, &before, fake_status, NULL, &after, res, &d);
	membuf_close(&m);
	rmdir(sub);
	rmdir(dir);
	if (ret) {
		printf("# nsight_dump: %s\n", d.msg);
		free(m.data);
		return ret;
	}

	f = mem_reader(m.data, m.len);
	if (!f) {
		free(m.data);
		return -1;
	}
	ret = nsight_stream_reader_init(&r, f);
	while (!ret && (ret = nsight_stream_read_chunk(&r, &c)) > 0) {
		ret = 0;
		if (c.type == NSIGHT_CHUNK_PHC && first && nsight_phc_chunk_count(&c))
			nsight_phc_chunk_get(&c, 0, first);
		if (*n < max)
			types[(*n)++] = c.type;
	}
	if (ret)
		printf("# reading the dump: %s\n", r.diag.msg);
	nsight_stream_reader_fini(&r);
	fclose(f);
	free(m.data);
	nsight_status_free(&after);
	return ret;
}

static void test_dump_phc_chunk(void)
{
	struct warnings warns = { .n = 0 };
	struct nsight_phc_opts o = {
		.sample = fake_sample, .ifindex = fake_ifindex,
		.warn = collect_warning, .warn_ctx = &warns,
	};
	struct nsight_dump_result res;
	struct nsight_phc_sample first;
	uint32_t types[8];
	struct tree t;
	size_t n;

	REQUIRE(tree_make(&t) == 0);
	o.sysfs = t.sys;
	o.dev = t.dev;
	CHECK_U64(dump_types(&o, types, 8, &n, &res, &first), 0);
	tree_remove(&t);
	/* PHC before STATUS; warnings for the bad clocks, the dump still fine. */
	REQUIRE(n == 2);
	CHECK_U64(types[0], NSIGHT_CHUNK_PHC);
	CHECK_U64(types[1], NSIGHT_CHUNK_STATUS);
	CHECK_U64(res.phc_clocks, 4);
	CHECK_U64(res.phc_samples, 17);
	CHECK_U64(res.phc_skipped, 3);
	CHECK_U64(warns.n, 3);
	CHECK(!strcmp(first.ifname, "enp1s0f0"));
	CHECK_U64(first.method, NSIGHT_PHC_PRECISE);
	nsight_dump_result_free(&res);
}

static void test_dump_without_phc(void)
{
	struct warnings warns = { .n = 0 };
	struct nsight_phc_opts o = {
		.sysfs = "/nonexistent-sysfs", .sample = fake_sample,
		.warn = collect_warning, .warn_ctx = &warns,
	};
	struct nsight_dump_result res;
	uint32_t types[8];
	struct tree t;
	size_t n;

	/* No PHC at all: no chunk. */
	CHECK_U64(dump_types(&o, types, 8, &n, &res, NULL), 0);
	REQUIRE(n == 1);
	CHECK_U64(types[0], NSIGHT_CHUNK_STATUS);
	CHECK_U64(res.phc_clocks, 0);
	nsight_dump_result_free(&res);

	/* PHC sampling off (nsightctl dump --no-phc). */
	CHECK_U64(dump_types(NULL, types, 8, &n, &res, NULL), 0);
	REQUIRE(n == 1);
	CHECK_U64(types[0], NSIGHT_CHUNK_STATUS);
	nsight_dump_result_free(&res);

	/* Clocks that all fail: warnings only, no chunk, no error. */
	REQUIRE(tree_make(&t) == 0);
	o.sysfs = t.sys;
	o.dev = "/nonexistent-dev";
	CHECK_U64(dump_types(&o, types, 8, &n, &res, NULL), 0);
	tree_remove(&t);
	REQUIRE(n == 1);
	CHECK_U64(types[0], NSIGHT_CHUNK_STATUS);
	CHECK_U64(res.phc_skipped, 7);
	CHECK_U64(warns.n, 7);
	CHECK_STR_HAS(warns.text, "skipping PHC ptp1: cannot open /nonexistent-dev/ptp1");
	CHECK_STR_HAS(warns.text, "skipping PHC ptp2 (a0, ...): cannot open");
	nsight_dump_result_free(&res);
}

KTAP_MAIN(
	KTAP_TEST(test_enumerate_fake_tree),
	KTAP_TEST(test_enumerate_no_ptp),
	KTAP_TEST(test_ioctl_not_a_phc),
	KTAP_TEST(test_dump_phc_chunk),
	KTAP_TEST(test_dump_without_phc),
)
