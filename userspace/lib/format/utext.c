// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format/utext.h"

static uint64_t pad8(uint64_t n)
{
	return (n + 7) & ~7ULL;
}

static int bad(struct nsight_diag *d, const struct nsight_chunk *ch, const char *what,
	       uint64_t v)
{
	return nsight_diag_set(d, NSIGHT_E_CHUNK, "UTEXT chunk at byte %" PRIu64 ": %s (%" PRIu64 ")",
			       ch->offset, what, v);
}

int nsight_utext_parse(const struct nsight_chunk *ch, struct nsight_utext *u,
		       struct nsight_diag *d)
{
	const uint8_t *p = ch->payload;
	uint64_t need, code;
	uint32_t hs, i;

	memset(u, 0, sizeof(*u));
	if (ch->size < sizeof(u->hdr))
		return bad(d, ch, "size below its header's", ch->size);
	memcpy(&hs, p, sizeof(hs));
	if (hs < sizeof(u->hdr) || hs % 8 || hs > ch->size)
		return bad(d, ch, "header size not a multiple of 8 from its own to the chunk's", hs);
	memcpy(&u->hdr, p, sizeof(u->hdr));
	if (u->hdr.code_len > ch->size)
		return bad(d, ch, "code longer than the chunk", u->hdr.code_len);
	code = pad8(u->hdr.code_len);
	need = (uint64_t)hs + code + (uint64_t)u->hdr.n_syms * sizeof(struct nsight_usym) +
	       u->hdr.strs_len;
	if (need != ch->size)
		return bad(d, ch, "header, code, symbols and names do not add up to the chunk's size",
			   need);
	if (!memchr(u->hdr.path, 0, sizeof(u->hdr.path)))
		return bad(d, ch, "path not NUL-terminated", sizeof(u->hdr.path));
	if (u->hdr.strs_len && p[ch->size - 1])
		return bad(d, ch, "names not NUL-terminated", u->hdr.strs_len);
	u->code = p + hs;
	u->syms = u->code + code;
	u->strs = (const char *)u->syms + (size_t)u->hdr.n_syms * sizeof(struct nsight_usym);
	for (i = 0; i < u->hdr.n_syms; i++) {
		struct nsight_usym s;

		nsight_utext_sym(u, i, &s);
		if (s.name >= u->hdr.strs_len)
			return nsight_diag_set(d, NSIGHT_E_CHUNK,
					       "UTEXT chunk at byte %" PRIu64 ": symbol %" PRIu32 " at byte %" PRIu64 " names byte %" PRIu32 " of %" PRIu32 " bytes of names",
					       ch->offset, i,
					       ch->payload_offset + (uint64_t)(u->syms - p) +
					       (uint64_t)i * sizeof(s), s.name, u->hdr.strs_len);
	}
	return 0;
}

void nsight_utext_sym(const struct nsight_utext *u, uint32_t i, struct nsight_usym *s)
{
	memcpy(s, u->syms + (size_t)i * sizeof(*s), sizeof(*s));
}

void *nsight_utext_build(const struct nsight_utext_hdr *h, const void *code, uint64_t code_len,
			 const struct nsight_usym *syms, uint32_t n_syms, const char *strs,
			 uint32_t strs_len, size_t *size)
{
	struct nsight_utext_hdr x = *h;
	uint64_t padded = pad8(code_len);
	size_t n = sizeof(x) + padded + (size_t)n_syms * sizeof(*syms) + strs_len;
	uint8_t *buf = calloc(1, n);

	if (!buf)
		return NULL;
	x.hdr_size = sizeof(x);
	x.code_len = code_len;
	x.n_syms = n_syms;
	x.strs_len = strs_len;
	x.pad = 0;
	memcpy(buf, &x, sizeof(x));
	if (code_len)
		memcpy(buf + sizeof(x), code, code_len);
	if (n_syms)
		memcpy(buf + sizeof(x) + padded, syms, (size_t)n_syms * sizeof(*syms));
	if (strs_len)
		memcpy(buf + n - strs_len, strs, strs_len);
	*size = n;
	return buf;
}
