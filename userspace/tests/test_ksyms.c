// SPDX-License-Identifier: MIT
/* Kernel symbol snapshots: parsing kallsyms text, lookups, the KSYMS chunk. */
#include <zlib.h>

#include "capture/ksyms.h"
#include "test.h"

static const char text[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81001000 t ip_rcv_core\n"
	"ffffffff81001200 T ip_rcv\n"
	"ffffffff81001800 D some_data\n"
	"ffffffff81002000 T net_rx_action\n"
	"ffffffffc0001000 t nsight_slow_rcv\t[nsight_slowpath]\n"
	"ffffffffc0001100 t nsight_slow_pre\t[nsight_slowpath]\n"
	"ffffffffc0400000 t other_fn\t[other]\n";

static const char *name_at(const struct nsight_ksyms *ks, uint64_t addr, uint64_t *off)
{
	const struct nsight_ksym *s = nsight_ksyms_find(ks, addr, off);

	return s ? nsight_ksym_name(ks, s) : "(none)";
}

#define CHECK_NAME(ks, addr, want) do {						\
	const char *_g = name_at((ks), (addr), NULL);				\
	if (strcmp(_g, (want)))							\
		KTAP_FAIL("0x%llx is \"%s\", expected \"%s\"",			\
			  (unsigned long long)(addr), _g, (want));		\
} while (0)

static void test_lookup(void)
{
	struct nsight_ksyms ks;
	struct nsight_diag d = { 0 };
	uint64_t off = 0;

	nsight_ksyms_init(&ks);
	REQUIRE(nsight_ksyms_parse(&ks, text, sizeof(text) - 1, "kallsyms", &d) == 0);
	nsight_ksyms_sort(&ks);
	CHECK_U64(ks.n, 8);	/* the D symbol is not text */
	CHECK_NAME(&ks, 0xffffffff80ffffffULL, "(none)");
	/* Aliases: the first in file order. */
	CHECK_NAME(&ks, 0xffffffff81000010ULL, "_stext");
	CHECK_NAME(&ks, 0xffffffff81001234ULL, "ip_rcv");
	CHECK(strcmp(name_at(&ks, 0xffffffff81001234ULL, &off), "ip_rcv") == 0);
	CHECK_U64(off, 0x34);
	/* Data symbols do not end a function. */
	CHECK_NAME(&ks, 0xffffffff81001900ULL, "ip_rcv");
	CHECK_NAME(&ks, 0xffffffffc0001004ULL, "nsight_slow_rcv [nsight_slowpath]");
	CHECK_NAME(&ks, 0xffffffffc0001104ULL, "nsight_slow_pre [nsight_slowpath]");
	/* Past a module's last symbol by more than the limit: nobody's. */
	CHECK_NAME(&ks, 0xffffffffc0001100ULL + NSIGHT_KSYM_MAX_SIZE, "(none)");
	CHECK_NAME(&ks, 0xffffffffc0400010ULL, "other_fn [other]");
	CHECK_NAME(&ks, 0xffffffffc0400000ULL + NSIGHT_KSYM_MAX_SIZE, "(none)");
	CHECK(!ks.no_addrs);
	nsight_ksyms_fini(&ks);
}

static void test_bad_lines(void)
{
	static const struct {
		const char *text, *err;
	} cases[] = {
		{ "xyz T f\n", "kallsyms:1: expected" },
		{ "ffffffff81000000 T f\nffffffff81000000T g\n", "kallsyms:2: expected" },
		{ "ffffffff81000000 T \n", "kallsyms:1: empty symbol name" },
		{ "ffffffff81000000 t f\tmod\n", "kallsyms:1: module must be" },
		{ "1ffffffff81000000 t f\n", "kallsyms:1: address too long" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nsight_ksyms ks;
		struct nsight_diag d = { 0 };

		nsight_ksyms_init(&ks);
		CHECK(nsight_ksyms_parse(&ks, cases[i].text, strlen(cases[i].text), "kallsyms", &d) ==
		      -NSIGHT_E_FORMAT);
		CHECK_STR_HAS(d.msg, cases[i].err);
		nsight_ksyms_fini(&ks);
	}
}

/* kptr_restrict shows every address as 0: nothing can be looked up. */
static void test_hidden_addresses(void)
{
	static const char hidden[] = "0000000000000000 T _stext\n0000000000000000 t ip_rcv\n";
	struct nsight_ksyms ks;
	struct nsight_diag d = { 0 };

	nsight_ksyms_init(&ks);
	REQUIRE(nsight_ksyms_parse(&ks, hidden, sizeof(hidden) - 1, "kallsyms", &d) == 0);
	nsight_ksyms_sort(&ks);
	CHECK(ks.no_addrs);
	CHECK_NAME(&ks, 0, "(none)");
	nsight_ksyms_fini(&ks);
}

static size_t make_chunk(uint8_t *buf, size_t cap, const char *t, uint64_t claim)
{
	struct nsight_ksyms_hdr h = { .raw_size = claim };
	uLongf packed = (uLongf)(cap - sizeof(h));

	if (compress2(buf + sizeof(h), &packed, (const Bytef *)t, (uLong)strlen(t), 6) != Z_OK)
		abort();
	memcpy(buf, &h, sizeof(h));
	return sizeof(h) + packed;
}

static void test_chunk(void)
{
	uint8_t buf[4096];
	struct nsight_ksyms ks;
	struct nsight_diag d = { 0 };
	size_t n;

	n = make_chunk(buf, sizeof(buf), text, sizeof(text) - 1);
	nsight_ksyms_init(&ks);
	REQUIRE(nsight_ksyms_load_chunk(&ks, buf, n, 100, &d) == 0);
	nsight_ksyms_sort(&ks);
	CHECK_U64(ks.n, 8);
	CHECK_NAME(&ks, 0xffffffff81002001ULL, "net_rx_action");
	nsight_ksyms_fini(&ks);

	/* The header lies about the size; the payload is cut; no header. */
	n = make_chunk(buf, sizeof(buf), text, sizeof(text) + 5);
	nsight_ksyms_init(&ks);
	CHECK(nsight_ksyms_load_chunk(&ks, buf, n, 100, &d) == -NSIGHT_E_CHUNK);
	CHECK_STR_HAS(d.msg, "KSYMS chunk at byte 100: the compressed text does not inflate");
	n = make_chunk(buf, sizeof(buf), text, sizeof(text) - 1);
	CHECK(nsight_ksyms_load_chunk(&ks, buf, n - 4, 100, &d) == -NSIGHT_E_CHUNK);
	CHECK(nsight_ksyms_load_chunk(&ks, buf, 8, 100, &d) == -NSIGHT_E_CHUNK);
	CHECK_STR_HAS(d.msg, "its header needs 16");
	nsight_ksyms_fini(&ks);
}

KTAP_MAIN(
	KTAP_TEST(test_lookup),
	KTAP_TEST(test_bad_lines),
	KTAP_TEST(test_hidden_addresses),
	KTAP_TEST(test_chunk),
)
