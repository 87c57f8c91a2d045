// SPDX-License-Identifier: MIT
/*
 * zstd-compressed streams as stdio FILEs (fopencookie), so that the
 * stream writer and every reader stay unaware of the compression.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "base/zstdio.h"

/* The magic number that starts every zstd frame, little-endian. */
static const unsigned char zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };

struct zreader {
	FILE *f;
	ZSTD_DCtx *dctx;	/* NULL: the stream is not compressed */
	unsigned char *in;
	size_t in_cap;
	ZSTD_inBuffer zin;
	size_t last;		/* ZSTD_decompressStream()'s last result */
	bool eof;
	unsigned char prefix[4];	/* bytes read to look for the magic */
	size_t prefix_len, prefix_pos;
};

static ssize_t zreader_read(void *cookie, char *buf, size_t size)
{
	struct zreader *z = cookie;
	ZSTD_outBuffer out = { buf, size, 0 };

	if (!z->dctx) {
		size_t n = 0;

		if (z->prefix_pos < z->prefix_len) {
			n = z->prefix_len - z->prefix_pos < size ? z->prefix_len - z->prefix_pos : size;
			memcpy(buf, z->prefix + z->prefix_pos, n);
			z->prefix_pos += n;
			return (ssize_t)n;
		}
		n = fread(buf, 1, size, z->f);
		if (!n && ferror(z->f))
			return -1;
		return (ssize_t)n;
	}
	while (out.pos < out.size) {
		if (z->zin.pos == z->zin.size && !z->eof) {
			z->zin.size = fread(z->in, 1, z->in_cap, z->f);
			z->zin.pos = 0;
			if (!z->zin.size) {
				if (ferror(z->f))
					return -1;
				z->eof = true;
			}
		}
		if (z->zin.pos == z->zin.size && z->eof) {
			/* A frame cut short is an error, not the stream's end. */
			if (z->last != 0 && !out.pos) {
				errno = EBADMSG;
				return -1;
			}
			break;
		}
		z->last = ZSTD_decompressStream(z->dctx, &out, &z->zin);
		if (ZSTD_isError(z->last)) {
			errno = EBADMSG;
			return -1;
		}
	}
	return (ssize_t)out.pos;
}

static int zreader_close(void *cookie)
{
	struct zreader *z = cookie;
	int ret = z->f == stdin ? 0 : fclose(z->f);

	ZSTD_freeDCtx(z->dctx);
	free(z->in);
	free(z);
	return ret;
}

FILE *nsight_zstd_open_read(FILE *f)
{
	static const cookie_io_functions_t io = { .read = zreader_read, .close = zreader_close };
	struct zreader *z;
	FILE *r;

	z = calloc(1, sizeof(*z));
	if (!z)
		return NULL;
	z->f = f;
	z->prefix_len = fread(z->prefix, 1, sizeof(z->prefix), f);
	if (z->prefix_len == sizeof(zstd_magic) && !memcmp(z->prefix, zstd_magic, sizeof(zstd_magic))) {
		z->in_cap = ZSTD_DStreamInSize();
		z->in = malloc(z->in_cap);
		z->dctx = ZSTD_createDCtx();
		if (!z->in || !z->dctx)
			goto fail;
		memcpy(z->in, z->prefix, z->prefix_len);
		z->zin = (ZSTD_inBuffer){ z->in, z->prefix_len, 0 };
		z->last = 1;
	} else if (!fseeko(f, 0, SEEK_SET)) {
		/* Seekable and not compressed: the file itself, as it was. */
		free(z);
		return f;
	}
	r = fopencookie(z, "rb", io);
	if (r)
		return r;
fail:
	ZSTD_freeDCtx(z->dctx);
	free(z->in);
	free(z);
	return NULL;
}

struct zwriter {
	FILE *f;
	bool own;		/* close @f with the cookie, else flush it */
	ZSTD_CCtx *cctx;
	unsigned char *out;
	size_t out_cap;
};

/* Compress @in (with @mode) and write what comes out. */
static int zwriter_push(struct zwriter *z, const void *buf, size_t size, ZSTD_EndDirective mode)
{
	ZSTD_inBuffer in = { buf, size, 0 };
	size_t left;

	do {
		ZSTD_outBuffer out = { z->out, z->out_cap, 0 };

		left = ZSTD_compressStream2(z->cctx, &out, &in, mode);
		if (ZSTD_isError(left)) {
			errno = EIO;
			return -1;
		}
		if (out.pos && fwrite(z->out, 1, out.pos, z->f) != out.pos)
			return -1;
	} while (mode == ZSTD_e_end ? left != 0 : in.pos < in.size);
	return 0;
}

static ssize_t zwriter_write(void *cookie, const char *buf, size_t size)
{
	struct zwriter *z = cookie;

	if (zwriter_push(z, buf, size, ZSTD_e_continue))
		return 0;	/* fopencookie: 0 is the error */
	return (ssize_t)size;
}

static int zwriter_close(void *cookie)
{
	struct zwriter *z = cookie;
	int ret = zwriter_push(z, NULL, 0, ZSTD_e_end);
	int saved = errno;

	if (z->own) {
		if (fclose(z->f) && !ret)
			ret = -1, saved = errno;
	} else if (fflush(z->f) && !ret) {
		ret = -1, saved = errno;
	}
	ZSTD_freeCCtx(z->cctx);
	free(z->out);
	free(z);
	errno = saved;
	return ret ? EOF : 0;
}

FILE *nsight_zstd_open_write(FILE *f, bool own, int level)
{
	static const cookie_io_functions_t io = { .write = zwriter_write, .close = zwriter_close };
	struct zwriter *z;
	FILE *w;

	z = calloc(1, sizeof(*z));
	if (!z)
		return NULL;
	z->f = f;
	z->own = own;
	z->out_cap = ZSTD_CStreamOutSize();
	z->out = malloc(z->out_cap);
	z->cctx = ZSTD_createCCtx();
	if (!z->out || !z->cctx ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_compressionLevel, level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_checksumFlag, 1)))
		goto fail;
	w = fopencookie(z, "wb", io);
	if (w)
		return w;
fail:
	ZSTD_freeCCtx(z->cctx);
	free(z->out);
	free(z);
	return NULL;
}
