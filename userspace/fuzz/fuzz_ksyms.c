// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the kernel symbol table (lib/capture/ksyms.c). The
 * input is /proc/kallsyms text: parsed, sorted and looked up at every
 * symbol's address and around it, with invariants checked; and the same
 * bytes as the payload of a KSYMS chunk (header + zlib stream).
 */
#include "fuzz_common.h"
#include "capture/ksyms.h"

static void lookup(const struct nsight_ksyms *ks, uint64_t addr)
{
	const struct nsight_ksym *s;
	uint64_t off = 0;

	s = nsight_ksyms_find(ks, addr, &off);
	if (!s)
		return;
	/* The symbol found starts at or below the address, @off before it. */
	if (s->addr > addr || addr - s->addr != off || s < ks->v || s >= ks->v + ks->n)
		abort();
	if (!memchr(nsight_ksym_name(ks, s), '\0', ks->strs_len - s->name))
		abort();
	fputs(nsight_ksym_name(ks, s), fuzz_null());
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nsight_diag d = { 0 };
	struct nsight_ksyms ks;
	size_t i;

	nsight_ksyms_init(&ks);
	if (!nsight_ksyms_parse(&ks, (const char *)data, size, "fuzz", &d)) {
		nsight_ksyms_sort(&ks);
		for (i = 1; i < ks.n; i++)
			if (ks.v[i - 1].addr > ks.v[i].addr)
				abort();
		for (i = 0; i < ks.n && i < 4096; i++) {
			lookup(&ks, ks.v[i].addr);
			lookup(&ks, ks.v[i].addr - 1);
			lookup(&ks, ks.v[i].addr + 1);
			lookup(&ks, ks.v[i].addr + NSIGHT_KSYM_MAX_SIZE);
		}
		lookup(&ks, 0);
		lookup(&ks, UINT64_MAX);
	}
	nsight_ksyms_fini(&ks);

	nsight_ksyms_init(&ks);
	if (!nsight_ksyms_load_chunk(&ks, data, size, 0, &d))
		nsight_ksyms_sort(&ks);
	nsight_ksyms_fini(&ks);
	return 0;
}
