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
	static const char *const user[][2] = {
		{ "app > malloc [libc.so.6]", "Application processing: malloc and free" },
		{ "app > EVP_EncryptUpdate [libcrypto.so.3]", "Application processing: crypto" },
		{ "app > aeProcessEvents [redis-server]", "Application processing: event loop" },
		{ "app > tcp_connect [libfoo.so.1]",
		  "Application processing: tcp_connect [libfoo.so.1]" },
		{ "app > tcp_connect", "Application processing: socket layer" },
	};
	struct nsight_diag d = { 0 };
	struct nsight_cats c;
	size_t i;

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
	/*
	 * User space: by symbol and file ("symbol [file]"); a library's
	 * function no rule names keeps its own, never a kernel rule's.
	 */
	for (i = 0; i < sizeof(user) / sizeof(user[0]); i++)
		CHECK_CAT(&c, NSIGHT_KEY_FUNC, user[i][0], user[i][1]);
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

static void load_builtin(struct nsight_cats *c)
{
	struct nsight_diag d = { 0 };

	nsight_cats_init(c);
	if (nsight_cats_parse(c, nsight_categories_builtin, strlen(nsight_categories_builtin),
			      "builtin", &d))
		KTAP_FAIL("builtin: %s", d.msg);
}

/* A rule naming functions by what they do ("<outer>: what"). */
static bool names_what(const struct nsight_cat_rule *r)
{
	return r->kind == NSIGHT_KEY_FUNC && !strncmp(r->category, "<outer>: ", 9) &&
	       strcmp(r->category, "<outer>: <name>");
}

/* A rule for user-space functions: its pattern names a file ("\[libc.so*\]"). */
static bool names_user(const struct nsight_cat_rule *r)
{
	return names_what(r) && strstr(r->pattern, "\\[");
}

/* The symbols of one of tests/data's gzipped tables, sorted. */
struct symtab {
	char **v;
	size_t n, cap;
	size_t all;	/* the table's size before it was cut to what rules name */
};

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool symtab_load(struct symtab *t, const char *path)
{
	gzFile f = gzopen(path, "rb");
	char line[512];

	memset(t, 0, sizeof(*t));
	if (!f) {
		KTAP_FAIL("%s: cannot open", path);
		return false;
	}
	while (gzgets(f, line, sizeof(line))) {
		const char *of = strstr(line, " of ");

		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' && of)
			t->all = strtoul(of + 4, NULL, 10);	/* "...; N of M." */
		if (line[0] == '#' || !line[0])
			continue;
		if (t->n == t->cap) {
			size_t cap = t->cap ? t->cap * 2 : 1024;
			char **v = realloc(t->v, cap * sizeof(*v));

			if (!v)
				break;
			t->v = v;
			t->cap = cap;
		}
		t->v[t->n] = strdup(line);
		if (!t->v[t->n])
			break;
		t->n++;
	}
	gzclose(f);
	if (!t->all)
		t->all = t->n;
	qsort(t->v, t->n, sizeof(*t->v), str_cmp);
	return true;
}

static void symtab_free(struct symtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

static bool symtab_has(const struct symtab *t, const char *sym)
{
	return t->n && bsearch(&sym, t->v, t->n, sizeof(*t->v), str_cmp);
}

/*
 * Matches every function rule of @c against @t: @match[i] set if rule i
 * matches a symbol, @wins[i] counts the symbols it is the first for.
 * Returns how many symbols a rule names by what they do.
 */
static size_t match_table(const struct nsight_cats *c, const size_t *pre, const struct symtab *t,
			  bool *match, size_t *wins)
{
	size_t s, i, named = 0;

	for (s = 0; s < t->n; s++) {
		bool first = true;

		for (i = 0; i < c->n; i++) {
			const struct nsight_cat_rule *r = &c->v[i];

			if (r->kind != NSIGHT_KEY_FUNC || (!first && match[i]) ||
			    strncmp(t->v[s], r->pattern, pre[i]) || fnmatch(r->pattern, t->v[s], 0))
				continue;
			match[i] = true;
			if (first) {
				wins[i]++;
				named += names_what(r);
				first = false;
			}
		}
	}
	return named;
}

static const char *const kernel_files[] = { "tests/data/ksyms-deb612.txt.gz",
					    "tests/data/ksyms-deb61.txt.gz" };
static const char user_file[] = "tests/data/usyms-deb12.txt.gz";

/*
 * The built-in kernel function rules against the real symbol tables of
 * both Debian kernels (tests/data/ksyms-*.txt.gz, from
 * scripts/ksyms-fixture.sh): every rule that names kernel functions by
 * what they do must match a function of one of them (none dead) and be
 * the first rule for at least one (none shadowed by an earlier rule).
 * How many match the functions of one kernel only is reported.
 */
static void test_kernel_symbols(void)
{
	struct nsight_cats c;
	size_t *pre, *wins, i, k, checked = 0, both = 0, only[2] = { 0 }, dead = 0, shadowed = 0;
	bool *match[2];

	load_builtin(&c);
	pre = calloc(c.n, sizeof(*pre));
	wins = calloc(c.n, sizeof(*wins));
	match[0] = calloc(c.n, sizeof(bool));
	match[1] = calloc(c.n, sizeof(bool));
	REQUIRE(pre && wins && match[0] && match[1]);
	for (i = 0; i < c.n; i++)
		pre[i] = literal_prefix(c.v[i].pattern);
	for (k = 0; k < 2; k++) {
		struct symtab t;
		size_t named;

		if (!symtab_load(&t, kernel_files[k]))
			continue;
		named = match_table(&c, pre, &t, match[k], wins);
		printf("# %s: %zu of the kernel's %zu functions named by a rule of what they do\n",
		       kernel_files[k], named, t.all);
		CHECK(t.n > 1000);
		symtab_free(&t);
	}
	for (i = 0; i < c.n; i++) {
		if (!names_what(&c.v[i]) || names_user(&c.v[i]))
			continue;
		checked++;
		if (match[0][i] && match[1][i])
			both++;
		else if (match[0][i] || match[1][i])
			only[match[0][i] ? 0 : 1]++;
		else if (dead++ < 20)
			KTAP_FAIL("func,%s,%s: matches no function of either kernel",
				  c.v[i].pattern, c.v[i].category);
		if ((match[0][i] || match[1][i]) && !wins[i] && shadowed++ < 20)
			KTAP_FAIL("func,%s,%s: shadowed, first for no function of either kernel",
				  c.v[i].pattern, c.v[i].category);
	}
	printf("# %zu kernel function rules: %zu match functions of both kernels, %zu of 6.12 only, %zu of 6.1 only; %zu dead, %zu shadowed\n",
	       checked, both, only[0], only[1], dead, shadowed);
	CHECK(checked >= 500);
	CHECK_U64(both + only[0] + only[1], checked);
	CHECK_U64(dead, 0);
	CHECK_U64(shadowed, 0);
	free(pre);
	free(wins);
	free(match[0]);
	free(match[1]);
	nsight_cats_fini(&c);
}

/* The first function rule for @sym, or NULL. */
static const struct nsight_cat_rule *first_rule(const struct nsight_cats *c, const size_t *pre,
						const char *sym)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->v[i].kind == NSIGHT_KEY_FUNC && !strncmp(sym, c->v[i].pattern, pre[i]) &&
		    !fnmatch(c->v[i].pattern, sym, 0))
			return &c->v[i];
	return NULL;
}

/*
 * The built-in user-space function rules against the function symbols of
 * Debian 12's server libraries and programs as nsight names them
 * (tests/data/usyms-deb12.txt.gz, from scripts/usyms-fixture.sh): each
 * must be the first rule for at least one, and no kernel rule may be the
 * first for one of them. How many each file has named is reported.
 */
static void test_user_symbols(void)
{
	struct { char name[64]; size_t n, named; } files[16];
	size_t *pre, *wins, i, s, nfiles = 0, checked = 0, dead = 0, kernel = 0;
	struct nsight_cats c;
	struct symtab t;
	bool *match;

	load_builtin(&c);
	pre = calloc(c.n, sizeof(*pre));
	wins = calloc(c.n, sizeof(*wins));
	match = calloc(c.n, sizeof(*match));
	REQUIRE(pre && wins && match);
	for (i = 0; i < c.n; i++)
		pre[i] = literal_prefix(c.v[i].pattern);
	if (symtab_load(&t, user_file)) {
		match_table(&c, pre, &t, match, wins);
		CHECK(t.n > 5000);
		for (s = 0; s < t.n; s++) {
			const struct nsight_cat_rule *r = first_rule(&c, pre, t.v[s]);
			const char *f = strrchr(t.v[s], '[');
			size_t k;

			f = f ? f : "";
			for (k = 0; k < nfiles && strcmp(files[k].name, f); k++)
				;
			if (k == nfiles && nfiles < 16) {
				memset(&files[k], 0, sizeof(files[k]));
				snprintf(files[nfiles++].name, sizeof(files[0].name), "%s", f);
			}
			if (k < nfiles) {
				files[k].n++;
				files[k].named += r && names_user(r);
			}
			if (r && names_what(r) && !names_user(r) && kernel++ < 20)
				KTAP_FAIL("%s: named by the kernel's func,%s", t.v[s], r->pattern);
		}
		for (i = 0; i < nfiles; i++)
			printf("# %s: %zu of %zu functions named by a rule of what they do\n",
			       files[i].name, files[i].named, files[i].n);
		symtab_free(&t);
	}
	for (i = 0; i < c.n; i++) {
		if (!names_user(&c.v[i]))
			continue;
		checked++;
		if (!wins[i] && dead++ < 20)
			KTAP_FAIL("func,%s,%s: %s", c.v[i].pattern, c.v[i].category,
				  match[i] ? "shadowed, first for no function" :
				  "matches no function");
	}
	printf("# %zu user-space function rules, %zu dead or shadowed\n", checked, dead);
	CHECK(checked >= 300);
	CHECK_U64(dead, 0);
	CHECK_U64(kernel, 0);
	free(pre);
	free(wins);
	free(match);
	nsight_cats_fini(&c);
}

/*
 * tests/data/categories-golden.txt: real symbols of the three tables and
 * the category each must get ("symbol<TAB>what", named in "app" as
 * "Application processing: what"), so that a rule edit that moves one to
 * another category fails here.
 */
static void test_golden(void)
{
	static const char path[] = "tests/data/categories-golden.txt";
	struct symtab tabs[3];
	struct nsight_cats c;
	size_t n = 0, wrong = 0, k;
	char line[512];
	FILE *f;

	load_builtin(&c);
	for (k = 0; k < 3; k++)
		symtab_load(&tabs[k], k < 2 ? kernel_files[k] : user_file);
	f = fopen(path, "r");
	if (!f)
		KTAP_FAIL("%s: cannot open", path);
	while (f && fgets(line, sizeof(line), f)) {
		char *tab = strchr(line, '\t'), key[600], want[600];
		const char *got;

		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || !line[0])
			continue;
		if (!tab) {
			KTAP_FAIL("%s: no tab in \"%s\"", path, line);
			continue;
		}
		*tab++ = '\0';
		n++;
		if (!symtab_has(&tabs[0], line) && !symtab_has(&tabs[1], line) &&
		    !symtab_has(&tabs[2], line))
			KTAP_FAIL("%s: %s is in no symbol table", path, line);
		snprintf(key, sizeof(key), "app > %s", line);
		snprintf(want, sizeof(want), "Application processing: %s", tab);
		got = name(&c, NSIGHT_KEY_FUNC, key);
		if (strcmp(got, want) && wrong++ < 20)
			KTAP_FAIL("%s is \"%s\", expected \"%s\"", line, got, want);
	}
	if (f)
		fclose(f);
	printf("# %zu golden symbols, %zu in another category\n", n, wrong);
	CHECK(n >= 300);
	CHECK_U64(wrong, 0);
	for (k = 0; k < 3; k++)
		symtab_free(&tabs[k]);
	nsight_cats_fini(&c);
}

/* @cat ("what" of "<outer>: what") in @v[0..n), else added; false if out of room. */
static bool add_unique(const char **v, size_t *n, size_t cap, const char *cat)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp(v[i], cat))
			return true;
	if (*n == cap)
		return false;
	v[(*n)++] = cat;
	return true;
}

/*
 * Documentation/nsight.rst's table "Function categories" has one row for
 * each category the built-in function rules give, and none more.
 */
static void test_doc_table(void)
{
	static const char path[] = "../Documentation/nsight.rst";
	const char *cats[256];
	size_t ncats = 0, nrows = 0, i, k;
	struct nsight_cats c;
	char line[1024], *saved[256];
	bool in_table = false;
	FILE *f;

	load_builtin(&c);
	for (i = 0; i < c.n; i++)
		if (names_what(&c.v[i]))
			CHECK(add_unique(cats, &ncats, 256, c.v[i].category + 9));
	f = fopen(path, "r");
	if (!f) {
		KTAP_FAIL("%s: cannot open", path);
		nsight_cats_fini(&c);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line, ".. list-table:: Function categories")) {
			in_table = true;
			continue;
		}
		if (in_table && line[0] && line[0] != ' ')
			break;
		if (in_table && !strncmp(line, "   * - ", 7) && strcmp(line + 7, "Category") &&
		    nrows < 256 && (saved[nrows] = strdup(line + 7)))
			nrows++;
	}
	fclose(f);
	for (i = 0; i < ncats; i++) {
		for (k = 0; k < nrows && strcmp(saved[k], cats[i]); k++)
			;
		if (k == nrows)
			KTAP_FAIL("%s: no row for the category \"%s\"", path, cats[i]);
	}
	for (k = 0; k < nrows; k++) {
		for (i = 0; i < ncats && strcmp(saved[k], cats[i]); i++)
			;
		if (i == ncats)
			KTAP_FAIL("%s: a row for \"%s\", no rule's category", path, saved[k]);
	}
	printf("# %zu categories, %zu rows in nsight.rst\n", ncats, nrows);
	CHECK_U64(nrows, ncats);
	CHECK(ncats >= 60);
	for (k = 0; k < nrows; k++)
		free(saved[k]);
	nsight_cats_fini(&c);
}

KTAP_MAIN(
	KTAP_TEST(test_kernel_symbols),
	KTAP_TEST(test_user_symbols),
	KTAP_TEST(test_golden),
	KTAP_TEST(test_doc_table),
	KTAP_TEST(test_functions),
	KTAP_TEST(test_builtin),
	KTAP_TEST(test_user_first),
	KTAP_TEST(test_errors),
	KTAP_TEST(test_expand_limits),
)
