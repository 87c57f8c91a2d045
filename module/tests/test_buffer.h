/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit helpers: a relay channel of the test's own (in its own debugfs
 * directory, beside the module's), for the suites that check what a write
 * path puts into a CPU's buffer.
 */
#ifndef _NSIGHT_TEST_BUFFER_H
#define _NSIGHT_TEST_BUFFER_H

#include <kunit/test.h>
#include <linux/debugfs.h>
#include <linux/relay.h>
#include <linux/slab.h>
#include "../buffer.h"

static inline void nsight_test_remove_dir(void *dir)
{
	debugfs_remove(dir);
}

static inline void nsight_test_close(void *b)
{
	nsight_buffer_close(b);
}

/*
 * A minimal test channel; it and its directory go when @test ends, even if
 * an assertion fails halfway (actions run last-added first).
 */
static inline struct nsight_buffer *nsight_test_open(struct kunit *test)
{
	struct nsight_buffer *b;
	struct dentry *dir;
	int ret;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	dir = debugfs_create_dir("nsight-kunit", NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(dir));
	ret = kunit_add_action_or_reset(test, nsight_test_remove_dir, dir);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, nsight_buffer_open(b, dir, NSIGHT_BUFFER_MIN), 0);
	ret = kunit_add_action_or_reset(test, nsight_test_close, b);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return b;
}

/* Sub-buffer @i (modulo their number) of one CPU's buffer @rb. */
static inline struct nsight_crec_subbuf *
nsight_test_subbuf(struct rchan_buf *rb, size_t subbuf_size, size_t i)
{
	return rb->start + (i % rb->chan->n_subbufs) * subbuf_size;
}

#endif /* _NSIGHT_TEST_BUFFER_H */
