// SPDX-License-Identifier: MIT
/* Nearest-rank percentiles and the per-application latency figures. */
#include "lifetime/latency.h"
#include "test.h"

static void test_percentile_known(void)
{
	int64_t v[1000];
	size_t i;

	for (i = 0; i < 1000; i++)
		v[i] = (int64_t)i + 1;
	CHECK_U64(nsight_percentile(v, 1000, 50000), 500);
	CHECK_U64(nsight_percentile(v, 1000, 90000), 900);
	CHECK_U64(nsight_percentile(v, 1000, 99000), 990);
	CHECK_U64(nsight_percentile(v, 1000, 99900), 999);
	CHECK_U64(nsight_percentile(v, 1000, 100000), 1000);
	CHECK_U64(nsight_percentile(v, 1000, 0), 1);
	/* rank = ceil(p * n): 10 values, p50 is the 5th, p90 the 9th, p99 the 10th. */
	CHECK_U64(nsight_percentile(v, 10, 50000), 5);
	CHECK_U64(nsight_percentile(v, 10, 90000), 9);
	CHECK_U64(nsight_percentile(v, 10, 91000), 10);
	CHECK_U64(nsight_percentile(v, 10, 99000), 10);
	CHECK_U64(nsight_percentile(v, 10, 99900), 10);
	CHECK_U64(nsight_percentile(v, 1, 50000), 1);
	CHECK_U64(nsight_percentile(v, 1, 99900), 1);
	CHECK_U64(nsight_percentile(v, 3, 50000), 2);
	CHECK_U64(nsight_percentile(v, 2, 50000), 1);
	CHECK_U64(nsight_percentile(v, 2, 50001), 2);
}

static void add(struct nsight_lifetimes *lt, const char *comm, uint32_t pid, uint8_t dir,
		uint8_t reason, int64_t total)
{
	struct nsight_msg *m = &lt->msgs[lt->n++];

	memset(m, 0, sizeof(*m));
	snprintf(m->comm, sizeof(m->comm), "%s", comm);
	m->pid = pid;
	m->dir = dir;
	m->reason = reason;
	m->total_ns = total;
}

static void test_groups(void)
{
	struct nsight_msg msgs[300];
	struct nsight_lifetimes lt = { .msgs = msgs };
	struct nsight_latency l;
	const struct nsight_lat_group *g;
	int i;

	/* "srv" 7 rx: 200 values 1000..200000 in a scrambled order. */
	for (i = 0; i < 200; i++)
		add(&lt, "srv", 7, NSIGHT_MSG_RX, NSIGHT_MSG_COMPLETE, 1000 * (1 + (i * 77) % 200));
	add(&lt, "srv", 7, NSIGHT_MSG_RX, NSIGHT_MSG_NO_HANDOFF, 0);
	add(&lt, "srv", 7, NSIGHT_MSG_RX, NSIGHT_MSG_DROPS, 0);
	add(&lt, "srv", 7, NSIGHT_MSG_RX, NSIGHT_MSG_DROPS, 0);
	/* The same comm, another process; and its TX. */
	add(&lt, "srv", 8, NSIGHT_MSG_RX, NSIGHT_MSG_COMPLETE, 42);
	add(&lt, "srv", 7, NSIGHT_MSG_TX, NSIGHT_MSG_COMPLETE, 5);
	add(&lt, "srv", 7, NSIGHT_MSG_TX, NSIGHT_MSG_COMPLETE, 3);
	/* Only incomplete. */
	add(&lt, "cli", 9, NSIGHT_MSG_TX, NSIGHT_MSG_NO_XMIT, 0);

	REQUIRE(nsight_latency_build(&l, &lt, NULL) == 0);
	REQUIRE(l.n == 4);
	g = &l.groups[0];
	CHECK(!strcmp(g->comm, "cli"));
	CHECK_U64(g->count, 0);
	CHECK_U64(g->incomplete, 1);
	CHECK_U64(g->by_reason[NSIGHT_MSG_NO_XMIT], 1);

	g = &l.groups[1];
	CHECK(!strcmp(g->comm, "srv") && g->pid == 7 && g->dir == NSIGHT_MSG_RX);
	CHECK_U64(g->count, 200);
	CHECK_U64(g->pct[0], 100000);	/* rank 100 */
	CHECK_U64(g->pct[1], 180000);	/* rank 180 */
	CHECK_U64(g->pct[2], 198000);	/* rank 198 */
	CHECK_U64(g->pct[3], 200000);	/* rank ceil(199.8) = 200 */
	CHECK_U64(g->max, 200000);
	CHECK_U64(g->incomplete, 3);
	CHECK_U64(g->by_reason[NSIGHT_MSG_DROPS], 2);
	CHECK_U64(g->by_reason[NSIGHT_MSG_NO_HANDOFF], 1);

	g = &l.groups[2];
	CHECK(g->pid == 7 && g->dir == NSIGHT_MSG_TX);
	CHECK_U64(g->count, 2);
	CHECK_U64(g->pct[0], 3);
	CHECK_U64(g->pct[3], 5);
	CHECK_U64(g->max, 5);

	g = &l.groups[3];
	CHECK(g->pid == 8);
	CHECK_U64(g->count, 1);
	CHECK_U64(g->pct[0], 42);
	CHECK_U64(g->pct[3], 42);
	nsight_latency_fini(&l);

	lt.n = 0;
	REQUIRE(nsight_latency_build(&l, &lt, NULL) == 0);
	CHECK_U64(l.n, 0);
	nsight_latency_fini(&l);
}

KTAP_MAIN(
	KTAP_TEST(test_percentile_known),
	KTAP_TEST(test_groups),
)
