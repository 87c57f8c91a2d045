// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: a --categories file (lib/diagnose/categories.c): parsed
 * after nothing and before the built-in rules, then asked for the category
 * of a few names of every kind.
 */
#include "diagnose/categories.h"
#include "diagnose/categories_builtin.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {
		"", "stress", "ip_rcv", "NET_RX", "kworker/1:1", "user", "swapper/0 > net_rx_action",
		"vmstat_update", "mlx5_comp0", "<outer>", "*",
	};
	struct nsight_diag d = { 0 };
	struct nsight_cats c;
	char buf[256];
	size_t i;
	int k;

	nsight_cats_init(&c);
	if (!nsight_cats_parse(&c, (const char *)data, size, "fuzz", &d) &&
	    !nsight_cats_parse(&c, nsight_categories_builtin, strlen(nsight_categories_builtin),
			       nsight_categories_builtin_name, &d))
		for (k = 0; k < __NSIGHT_KEY_KINDS; k++)
			for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
				fputs(nsight_cats_name(&c, (enum nsight_key_kind)k, names[i], buf,
						       sizeof(buf)), fuzz_null());
	nsight_cats_fini(&c);
	return 0;
}
