// SPDX-License-Identifier: MIT
/* Category rules: the CSV, its errors, matching and the built-in rules. */
#include <fnmatch.h>
#include <stdlib.h>
#include <zlib.h>

#include "diagnose/categories.h"
#include "diagnose/categories_builtin.h"
#include "test.h"

static const char *name(const struct nsight_cats *c, enum nsight_key_kind kind, const char *n)
{
	static char buf[160];

	return nsight_cats_name(c, kind, n, buf, sizeof(buf));
}

#define CHECK_CAT(c, kind, n, want) do {					\
	const char *_g = name((c), (kind), (n));				\
	if (strcmp(_g, (want)))							\
		KTAP_FAIL("%s:%s is \"%s\", expected \"%s\"",			\
			  nsight_key_kind_name(kind), (n), _g, (want));		\
} while (0)

static void test_builtin(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_cats c;

	nsight_cats_init(&c);
	REQUIRE(nsight_cats_parse(&c, nsight_categories_builtin, strlen(nsight_categories_builtin),
				  "builtin", &d) == 0);
	CHECK(c.n >= 18);
	CHECK_CAT(&c, NSIGHT_KEY_TASK, "ksoftirqd/3", "OS threads");
	CHECK_CAT(&c, NSIGHT_KEY_TASK, "kworker/u8:2", "OS threads");
	CHECK_CAT(&c, NSIGHT_KEY_TASK, "kthreadd", "OS threads");
	CHECK_CAT(&c, NSIGHT_KEY_TASK, "rcu_preempt", "OS threads");
	CHECK_CAT(&c, NSIGHT_KEY_TASK, "migration/1", "OS threads");
	CHECK_CAT(&c, NSIGHT_KEY_TASK, "nginx", "nginx interference");
	CHECK_CAT(&c, NSIGHT_KEY_SOFTIRQ, "NET_RX", "Receive processing");
	CHECK_CAT(&c, NSIGHT_KEY_SOFTIRQ, "NET_TX", "Transmit processing");
	CHECK_CAT(&c, NSIGHT_KEY_SOFTIRQ, "TIMER", "Timers");
	CHECK_CAT(&c, NSIGHT_KEY_SOFTIRQ, "HRTIMER", "Timers");
	CHECK_CAT(&c, NSIGHT_KEY_SOFTIRQ, "RCU", "Softirq RCU");
	CHECK_CAT(&c, NSIGHT_KEY_IRQ, "eth0-rx-0", "Interrupts");
	CHECK_CAT(&c, NSIGHT_KEY_WORK, "vmstat_update", "OS threads: vmstat_update");
	CHECK_CAT(&c, NSIGHT_KEY_FAULT, "user", "Page faults");
	CHECK_CAT(&c, NSIGHT_KEY_FAULT, "kernel", "Page faults");
	CHECK_CAT(&c, NSIGHT_KEY_IDLE, "softirq:NET_RX", "Idle after softirq:NET_RX");
	CHECK_CAT(&c, NSIGHT_KEY_HOL, "", "Head-of-line blocking");
	CHECK_CAT(&c, NSIGHT_KEY_APP, "", "Application processing");
	CHECK_CAT(&c, NSIGHT_KEY_UNKNOWN, "", "No records");
	nsight_cats_fini(&c);
}

static void test_user_first(void)
{
	static const char csv[] =
		"kind,pattern,category\n"
		"# a comment\n"
		"\n"
		"  task , stress* , CPU hog <name>  \r\n"
		"task,kworker/*,Kernel workers\n"
		"idle,irq:*,Wakeup after <name> (<name>)\n"
		"softirq,NET_?X,Net, both ways\n";
	struct nsight_diag d = { 0 };
	struct nsight_cats c;

	nsight_cats_init(&c);
	REQUIRE(nsight_cats_parse(&c, csv, strlen(csv), "mine.csv", &d) == 0);
	CHECK_U64(c.n, 4);
	REQUIRE(nsight_cats_parse(&c, nsight_categories_builtin, strlen(nsight_categories_builtin),
				  "builtin", &d) == 0);
	CHECK_CAT(&c, NSIGHT_KEY_TASK, "stress-ng", "CPU hog stress-ng");
	CHECK_CAT(&c, NSIGHT_KEY_TASK, "kworker/1:1", "Kernel workers");
	CHECK_CAT(&c, NSIGHT_KEY_TASK, "ksoftirqd/1", "OS threads");
	CHECK_CAT(&c, NSIGHT_KEY_IDLE, "irq:eth0", "Wakeup after irq:eth0 (irq:eth0)");
	CHECK_CAT(&c, NSIGHT_KEY_IDLE, "task:x", "Idle after task:x");
	/* The category is the rest of the line, commas included. */
	CHECK_CAT(&c, NSIGHT_KEY_SOFTIRQ, "NET_TX", "Net, both ways");
	CHECK_CAT(&c, NSIGHT_KEY_SOFTIRQ, "BLOCK", "Softirq BLOCK");
	nsight_cats_fini(&c);

	/* No rule: kind and name. */
	nsight_cats_init(&c);
	CHECK_CAT(&c, NSIGHT_KEY_TASK, "x", "task:x");
	CHECK_CAT(&c, NSIGHT_KEY_HOL, "", "hol");
	nsight_cats_fini(&c);
}

static void check_error(const char *csv, size_t len, const char *want)
{
	struct nsight_diag d = { 0 };
	struct nsight_cats c;

	nsight_cats_init(&c);
	CHECK_U64(nsight_cats_parse(&c, csv, len, "bad.csv", &d), -NSIGHT_E_FORMAT);
	if (strcmp(d.msg, want))
		KTAP_FAIL("error \"%s\", expected \"%s\"", d.msg, want);
	nsight_cats_fini(&c);
}

static void test_errors(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_cats c;

	check_error("bogus,x,y\n", 10,
		    "bad.csv:1: unknown kind 'bogus' (task, irq, softirq, work, fault, idle, func, hol, app, blocked, tcp or unknown)");
	check_error("task,x\n", 7, "bad.csv:1: expected kind,pattern,category");
	check_error("# c\n\ntask,,X\n", 13, "bad.csv:3: empty pattern");
	check_error("task,a,b\ntask,x,  \n", 19, "bad.csv:2: empty category");
	/* The header is only allowed first. */
	check_error("task,a,b\nkind,pattern,category\n", 31,
		    "bad.csv:2: unknown kind 'kind' (task, irq, softirq, work, fault, idle, func, hol, app, blocked, tcp or unknown)");
	check_error("task,a,b\ntask,b\0,c\n", 20, "bad.csv:2: NUL byte");
	check_error("verylongkindnamethatgoesonandon,a,b", 35,
		    "bad.csv:1: unknown kind 'verylongkindnamethatgoesonandon' (task, irq, softirq, work, fault, idle, func, hol, app, blocked, tcp or unknown)");

	/* An empty text has no rules; a missing file is an I/O error. */
	nsight_cats_init(&c);
	CHECK_U64(nsight_cats_parse(&c, "", 0, "empty.csv", &d), 0);
	CHECK_U64(c.n, 0);
	CHECK_U64(nsight_cats_load(&c, "/nonexistent/cats.csv", &d), -NSIGHT_E_IO);
	CHECK_STR_HAS(d.msg, "/nonexistent/cats.csv: ");
	nsight_cats_fini(&c);
}

static void test_expand_limits(void)
{
	struct nsight_diag d = { 0 };
	struct nsight_cats c;
	char small[8];
	static const char csv[] = "task,*,<name> and <name> and <name>\n";

	nsight_cats_init(&c);
	REQUIRE(nsight_cats_parse(&c, csv, strlen(csv), "t.csv", &d) == 0);
	CHECK_CAT(&c, NSIGHT_KEY_TASK, "abc", "abc and abc and abc");
	CHECK(!strcmp(nsight_cats_name(&c, NSIGHT_KEY_TASK, "abcdef", small, sizeof(small)), "abcdef "));
	nsight_cats_fini(&c);
}

/* Functions: matched by symbol, named after the context they ran in. */
static void test_functions(void)
{
	static const char rules[] = "func,ip_*,IP input in <outer>\n";
	struct nsight_diag d = { 0 };
	struct nsight_cats c;

	nsight_cats_init(&c);
	REQUIRE(nsight_cats_parse(&c, rules, sizeof(rules) - 1, "user", &d) == 0);
	REQUIRE(nsight_cats_parse(&c, nsight_categories_builtin, strlen(nsight_categories_builtin),
				  "builtin", &d) == 0);
	CHECK_CAT(&c, NSIGHT_KEY_FUNC, "softirq:NET_RX > nsight_slow_rcv [nsight_slowpath]",
		  "Receive processing: nsight_slow_rcv [nsight_slowpath]");
	CHECK_CAT(&c, NSIGHT_KEY_FUNC, "softirq:NET_RX > ip_rcv", "IP input in Receive processing");
	CHECK_CAT(&c, NSIGHT_KEY_FUNC, "app > tcp_recvmsg", "Application processing: socket layer");
	CHECK_CAT(&c, NSIGHT_KEY_FUNC, "softirq:NET_RX > kmem_cache_alloc_node",
		  "Receive processing: memory allocation");
	CHECK_CAT(&c, NSIGHT_KEY_FUNC, "softirq:NET_RX > e1000_clean_rx_irq [e1000e]",
		  "Receive processing: network drivers");
	CHECK_CAT(&c, NSIGHT_KEY_FUNC, "task:stress > native_queued_spin_lock_slowpath",
		  "stress interference: kernel locks");
	CHECK_CAT(&c, NSIGHT_KEY_FUNC, "app > dequeue_signal", "Application processing: signals");
	CHECK_CAT(&c, NSIGHT_KEY_FUNC, "app > sched_clock_cpu", "Application processing: clock reads");
	/* A function no rule names keeps its own. */
	CHECK_CAT(&c, NSIGHT_KEY_FUNC, "app > my_own_fn", "Application processing: my_own_fn");
	CHECK_CAT(&c, NSIGHT_KEY_FUNC, "work:vmstat_update > refresh_cpu_vm_stats",
		  "OS threads: vmstat_update: refresh_cpu_vm_stats");
	/* The last separator counts: a comm may hold one. */
	CHECK_CAT(&c, NSIGHT_KEY_FUNC, "task:a > b > schedule", "a > b interference: scheduling");
	/* No outer context: the category alone. */
	CHECK_CAT(&c, NSIGHT_KEY_FUNC, "schedule", ": scheduling");
	nsight_cats_fini(&c);
}

/* The length of @p before its first wildcard: no name without it can match. */
static size_t literal_prefix(const char *p)
{
	return strcspn(p, "*?[\\");
}

/*
 * The built-in function rules against the real symbol tables of both
 * Debian kernels (tests/data/ksyms-*.txt.gz, from scripts/ksyms-fixture.sh):
 * every rule that names kernel functions ("<outer>: what") must be the
 * first to match at least one function of one of them: none is dead or
 * shadowed by an earlier rule.
 */
static void test_kernel_symbols(void)
{
	static const char *const files[] = { "tests/data/ksyms-deb612.txt.gz",
					     "tests/data/ksyms-deb61.txt.gz" };
	struct nsight_diag d = { 0 };
	struct nsight_cats c;
	size_t *pre, *wins, i, k, checked = 0, dead = 0;
	char line[512];

	nsight_cats_init(&c);
	REQUIRE(nsight_cats_parse(&c, nsight_categories_builtin, strlen(nsight_categories_builtin),
				  "builtin", &d) == 0);
	pre = calloc(c.n, sizeof(*pre));
	wins = calloc(c.n, sizeof(*wins));
	REQUIRE(pre && wins);
	for (i = 0; i < c.n; i++)
		pre[i] = literal_prefix(c.v[i].pattern);
	for (k = 0; k < 2; k++) {
		gzFile f = gzopen(files[k], "rb");
		size_t n = 0, named = 0, all = 0;

		if (!f) {
			KTAP_FAIL("%s: cannot open", files[k]);
			continue;
		}
		while (gzgets(f, line, sizeof(line))) {
			const char *of = strstr(line, " of ");

			line[strcspn(line, "\n")] = '\0';
			if (line[0] == '#' && of)
				all = strtoul(of + 4, NULL, 10);	/* "...; N of M." */
			if (line[0] == '#' || !line[0])
				continue;
			n++;
			for (i = 0; i < c.n; i++) {
				const struct nsight_cat_rule *r = &c.v[i];

				if (r->kind != NSIGHT_KEY_FUNC || strncmp(line, r->pattern, pre[i]) ||
				    fnmatch(r->pattern, line, 0))
					continue;
				wins[i]++;
				named += !!strncmp(r->category, "<outer>: <name>", 16);
				break;
			}
		}
		gzclose(f);
		printf("# %s: %zu of the kernel's %zu functions named by a rule of what they do\n",
		       files[k], named, all);
		CHECK(n > 1000);
	}
	for (i = 0; i < c.n; i++) {
		if (c.v[i].kind != NSIGHT_KEY_FUNC || strncmp(c.v[i].category, "<outer>: ", 9) ||
		    !strcmp(c.v[i].category, "<outer>: <name>"))
			continue;
		checked++;
		if (!wins[i] && dead++ < 20)
			KTAP_FAIL("func,%s,%s: first for no function of either kernel",
				  c.v[i].pattern, c.v[i].category);
	}
	printf("# %zu function rules, %zu dead or shadowed\n", checked, dead);
	CHECK(checked >= 500);
	CHECK_U64(dead, 0);
	free(pre);
	free(wins);
	nsight_cats_fini(&c);
}

KTAP_MAIN(
	KTAP_TEST(test_kernel_symbols),
	KTAP_TEST(test_functions),
	KTAP_TEST(test_builtin),
	KTAP_TEST(test_user_first),
	KTAP_TEST(test_errors),
	KTAP_TEST(test_expand_limits),
)
