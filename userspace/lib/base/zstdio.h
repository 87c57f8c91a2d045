/* SPDX-License-Identifier: MIT */
/*
 * zstd-compressed dump streams (nsightctl dump/record --compress) as stdio
 * FILEs: the stream writer writes, and every reader reads, through them
 * unaware of the compression.
 */
#ifndef NSIGHT_ZSTDIO_H
#define NSIGHT_ZSTDIO_H

#include <stdbool.h>
#include <stdio.h>

/* Compression level of --compress: fast, about 4x on captures. */
#define NSIGHT_ZSTD_LEVEL	3

/*
 * A FILE that reads @f decompressed when it starts with a zstd frame, or
 * @f itself when it does not and is seekable (rewound to its start); a
 * pipe that is not compressed is read through a FILE that gives back the
 * bytes looked at first. A corrupt or cut compressed stream is a read
 * error (errno EBADMSG). Closing the returned FILE closes @f unless it is
 * stdin. Returns NULL when out of memory.
 */
FILE *nsight_zstd_open_read(FILE *f);

/*
 * A FILE whose writes go to @f zstd-compressed (@level, with a checksum
 * per frame). Closing it ends the frame, then closes @f if @own, else
 * flushes it; a failure of either is its close's error. Returns NULL when
 * out of memory.
 */
FILE *nsight_zstd_open_write(FILE *f, bool own, int level);

#endif /* NSIGHT_ZSTDIO_H */
