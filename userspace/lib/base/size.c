// SPDX-License-Identifier: MIT
#include "base/size.h"

int nsight_parse_size(const char *s, uint64_t *out)
{
	uint64_t v = 0, mult = 1;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	switch (*p) {
	case '\0':
		break;
	case 'k': case 'K':
		mult = 1ULL << 10;
		p++;
		break;
	case 'm': case 'M':
		mult = 1ULL << 20;
		p++;
		break;
	case 'g': case 'G':
		mult = 1ULL << 30;
		p++;
		break;
	default:
		return -1;
	}
	if (*p || v > UINT64_MAX / mult)
		return -1;
	*out = v * mult;
	return 0;
}
