/* SPDX-License-Identifier: MIT */
/*
 * Synthetic workloads for the diagnosis tests: UDP requests to "server"
 * (pid 100, thread 101) on the application core Y = CPU 1, received on
 * X = CPU 0, one every 200 us, with a cause injected into some of them.
 *
 * Every message: on X (idle), the NIC irq "eth0" and then a NET_RX
 * softirq with the packet at n (GRO), protocol input at n + 200 and the
 * hand-off at h = n + 700. On Y the server sleeps in recv (the CPU idle
 * after it): it is switched in at h + 1000, copies at h + 1500 and returns
 * at a = h + 2000 (latency 2700 ns), processes for 3000 ns, enters its next
 * recv and sleeps again. The kinds change what happens on Y between h and
 * a (see enum scen_kind).
 */
#ifndef NSIGHT_TEST_SCENARIO_H
#define NSIGHT_TEST_SCENARIO_H

#include "synth_ctx.h"

#define SC_X		0
#define SC_Y		1
#define SC_GAP		200000ULL	/* between messages */
#define SC_BASE		100000ULL

enum scen_kind {
	SC_NORMAL,
	SC_HOG,		/* "stress" runs on Y from before h; the server waits 50 us */
	SC_NETRX,	/* a 40 us NET_RX softirq inside the server on Y */
	SC_NETRX_APP,	/* the same, and the server itself 8 us slower */
	SC_KWORKER,	/* kworker/1:1 runs vmstat_update for 30 us first */
	SC_FAULT,	/* a 30 us user page fault in the server */
	SC_IDLE_IRQ,	/* irq "mlx5_comp0" on the idle Y, then 40 us idle */
	SC_SMALL,	/* the server 500 ns slower */
	SC_DROP,	/* SC_HOG, and Y loses records within [h, a] */
	SC_NETRX_FN,	/* SC_NETRX, sampled every 5 us: nsight_slow_rcv()
			 * (SC_KSYMS) runs in it */
	SC_NETRX_PT,	/* SC_NETRX, its time noted in scen.marks (for a PT
			 * trace of slow_fn) */
	SC_NIC,		/* SC_NORMAL, but with scen_hw() the NIC stamped the
			 * packet 40 us before its interrupt (300 ns else) */
};

/* Kernel symbols of the sampled stacks of SC_NETRX_FN. */
#define SC_KSYMS							\
	"ffffffff81001000 T ip_rcv\n"					\
	"ffffffff81002000 T net_rx_action\n"				\
	"ffffffff81003000 T handle_softirqs\n"				\
	"ffffffff81004000 T irq_exit_rcu\n"				\
	"ffffffffc0001000 t nsight_slow_rcv\t[nsight_slowpath]\n"	\
	"ffffffffc0001100 t nsight_slow_pre\t[nsight_slowpath]\n"	\
	"ffffffff81010000 T net_rx_stub\n"				\
	"ffffffff81010010 T slow_fn\n"

/* nsight_slow_rcv < nsight_slow_pre < ip_rcv < net_rx_action < handle_softirqs. */
static const uint64_t sc_slow_stack[] = {
	0xffffffffc0001004ULL, 0xffffffffc0001120ULL, 0xffffffff81001040ULL,
	0xffffffff81002030ULL, 0xffffffff81003010ULL, 0xffffffff81004010ULL,
};

static const struct syn_task sc_server = { 101, 100, "server" };
static const struct syn_task sc_stress = { 500, 500, "stress" };
static const struct syn_task sc_kworker = { 50, 50, "kworker/1:1" };
static const struct syn_task sc_swapper0 = { 0, 0, "swapper/0" };
static const struct syn_task sc_swapper1 = { 0, 0, "swapper/1" };

struct scen {
	struct synth s;
	uint64_t t;		/* n of the next message */
	uint64_t entry;		/* the server's pending recv entry */
	uint64_t pkt;
	uint64_t last;
	struct nsight_flow sock, flow;
	const char *comm;	/* the server's comm */
	uint64_t jitter;	/* ns more the server takes in SC_NORMAL */
	uint64_t hog_ns;	/* SC_HOG: the server waits this long (50 us) */
	uint64_t small_ns;	/* SC_SMALL: the server this much slower (500 ns) */
	bool hog_softirq;	/* SC_HOG: a NET_RX softirq of 20 us inside the
				 * competitor's slice, 10 us after h
				 */
	bool app_irq;		/* SC_SMALL: a hard IRQ of 5 us inside the
				 * server's time, 2 us after it wakes
				 */
	unsigned int flood;	/* SC_NETRX: packets of a flow nobody reads
				 * (10.0.0.3:4000 > 10.0.0.2:9999, 100 bytes)
				 * the softirq on Y receives
				 */
	size_t rx_drops;	/* scen_batch: that many more datagrams
				 * after the batch, dropped by the full
				 * receive buffer (sock_drop, no hand-off)
				 */
	uint64_t marks[16];	/* SC_NETRX_PT: when the softirq began */
	size_t n_marks;
	bool holder_fn;		/* scen_lock_pair: lockholder's functions
				 * sampled, and stress preempting it for
				 * 7 us (scen_holder_fn()) */
	bool hw;		/* scen_hw(): packets carry hardware stamps */
	uint64_t nic_lead;	/* the next packet's stamp, ns before its IRQ */
};

/* realtime - PHC time of scen_hw()'s NIC clock. */
#define SC_PHC_OFFSET	(SYN_OFFS + SYN_MONO0 - 50000)

/* The NIC (ifindex 2, eth0) stamps what it receives; a PHC sample converts it. */
static inline void scen_hw(struct scen *sc)
{
	sc->hw = true;
	sc->s.phc[0] = (struct nsight_phc_sample){ .phc_index = 0, .ifindex = 2, .ifname = "eth0",
						   .sys_before_ns = SC_PHC_OFFSET + 1000000,
						   .phc_ns = 1000000,
						   .sys_after_ns = SC_PHC_OFFSET + 1000000,
						   .method = NSIGHT_PHC_PRECISE };
	sc->s.n_phc = 1;
}

static inline void scen_init(struct scen *sc, const char *comm)
{
	synth_init(&sc->s, 2);
	synth_queue(&sc->s);
	synth_tk(&sc->s, SC_X, SYN_TK_TSC);
	sc->t = SC_BASE;
	sc->pkt = 0x1000;
	sc->comm = comm;
	sc->jitter = 0;
	sc->hog_ns = 50000;
	sc->small_ns = 500;
	sc->hog_softirq = false;
	sc->app_irq = false;
	sc->flood = 0;
	sc->rx_drops = 0;
	sc->n_marks = 0;
	sc->holder_fn = false;
	sc->hw = false;
	sc->nic_lead = 300;
	sc->sock = flow4(NULL, 9000, NULL, 0, IPPROTO_UDP);
	sc->flow = flow4("10.0.0.1", 5000, "10.0.0.2", 9000, IPPROTO_UDP);
	/* X idles; Y too, after the server went to sleep in recv at 90. */
	synth_switch(&sc->s, SC_X, 100, (struct syn_task){ 900, 900, "bash" }, sc_swapper0);
	synth_idle(&sc->s, SC_X, 150, true);
	sc->entry = 90;
	synth_switch(&sc->s, SC_Y, 100, (struct syn_task){ 101, 100, comm }, sc_swapper1);
	synth_idle(&sc->s, SC_Y, 150, true);
}

/* The packets of @n_pkts datagrams arriving together on X; their h. */
static inline void scen_rx(struct scen *sc, uint64_t n, size_t n_pkts, uint64_t *h, uint64_t *ids)
{
	size_t i;

	synth_irq(&sc->s, SC_X, n - 1500, 30, "eth0", true);
	synth_irq(&sc->s, SC_X, n - 1200, 30, NULL, false);
	synth_softirq(&sc->s, SC_X, n - 1000, SYN_NET_RX, true);
	for (i = 0; i < n_pkts; i++) {
		uint64_t t = n + i * 1000;

		ids[i] = ++sc->pkt;
		synth_pkt_hw(&sc->s, SC_X, t, NSIGHT_PKT_RX_GRO, ids[i], sc->flow, 0, 64, 0, 0,
			     sc->hw ? syn_mono(n - 1500 - sc->nic_lead) + SYN_OFFS - SC_PHC_OFFSET :
				      0);
		synth_pkt(&sc->s, SC_X, t + 200, NSIGHT_PKT_RX_RECEIVE, ids[i], sc->flow, 0, 64, 0);
		if (i + sc->rx_drops >= n_pkts)
			synth_sock_drop(&sc->s, SC_X, t + 700, 0x51, sc->sock, ids[i], -ENOMEM,
					4608, 4608);
		else
			synth_handoff(&sc->s, SC_X, t + 700, 0x51, sc->sock, ids[i], 0);
		h[i] = t + 700;
	}
	synth_softirq(&sc->s, SC_X, h[n_pkts - 1] + 300, SYN_NET_RX, false);
}

/* The server receives @pkt: copy at @a - 500, return at @a; then works @work ns. */
static inline void scen_recv(struct scen *sc, uint64_t a, uint64_t pkt, uint64_t work)
{
	struct syn_task me = { 101, 100, sc->comm };

	synth_copy(&sc->s, SC_Y, a - 500, pkt, me.tid, me.pid, 64);
	synth_recv(&sc->s, SC_Y, sc->entry, a, 0x51, sc->sock, 64, me.tid, me.pid, me.comm);
	sc->entry = a + work;
}

/* The server goes back to sleep after its pending recv entry. */
static inline void scen_sleep(struct scen *sc)
{
	struct syn_task me = { 101, 100, sc->comm };

	synth_switch(&sc->s, SC_Y, sc->entry + 100, me, sc_swapper1);
	synth_idle(&sc->s, SC_Y, sc->entry + 200, true);
	sc->last = sc->entry + 200;
}

/* One message of @kind. */
static inline void scen_msg(struct scen *sc, enum scen_kind kind)
{
	struct syn_task me = { 101, 100, sc->comm };
	uint64_t n = sc->t, h, id, wake = 0, a = 0, work = 3000;
	unsigned int i;

	sc->nic_lead = kind == SC_NIC ? 40000 : 300;
	scen_rx(sc, n, 1, &h, &id);
	switch (kind) {
	case SC_NORMAL:
	case SC_SMALL:
	case SC_NIC:
		wake = h + 1000;
		a = kind == SC_SMALL ? h + 2000 + sc->small_ns : h + 2000 + sc->jitter;
		synth_idle(&sc->s, SC_Y, wake - 100, false);
		synth_switch(&sc->s, SC_Y, wake, sc_swapper1, me);
		if (kind == SC_SMALL && sc->app_irq) {
			synth_irq(&sc->s, SC_Y, wake + 2000, 41, "nvme0q1", true);
			synth_irq(&sc->s, SC_Y, wake + 7000, 41, NULL, false);
		}
		break;
	case SC_HOG:
	case SC_DROP:
		synth_idle(&sc->s, SC_Y, h - 3100, false);
		synth_switch(&sc->s, SC_Y, h - 3000, sc_swapper1, sc_stress);
		wake = h + sc->hog_ns;
		if (sc->hog_softirq) {
			synth_softirq(&sc->s, SC_Y, h + 10000, SYN_NET_RX, true);
			synth_softirq(&sc->s, SC_Y, h + 30000, SYN_NET_RX, false);
		}
		synth_switch(&sc->s, SC_Y, wake, sc_stress, me);
		a = wake + 1000;
		if (kind == SC_DROP)
			synth_subbuf(&sc->s, SC_Y, h + 20000, 3);
		break;
	case SC_NETRX:
	case SC_NETRX_APP:
	case SC_NETRX_FN:
	case SC_NETRX_PT:
		wake = h + 1000;
		synth_idle(&sc->s, SC_Y, wake - 100, false);
		synth_switch(&sc->s, SC_Y, wake, sc_swapper1, me);
		synth_softirq(&sc->s, SC_Y, wake + 200, SYN_NET_RX, true);
		if (kind == SC_NETRX_FN) {
			uint64_t t;

			for (t = wake + 5200; t < wake + 40200; t += 5000)
				synth_sample(&sc->s, SC_Y, t, 5000, sc_slow_stack, 6, 0);
		}
		if (kind == SC_NETRX_PT && sc->n_marks < 16)
			sc->marks[sc->n_marks++] = wake + 200;
		for (i = 0; i < sc->flood; i++)
			synth_pkt(&sc->s, SC_Y, wake + 1000 + i * 4000, NSIGHT_PKT_RX_RECEIVE,
				  0x100000 + ++sc->pkt, flow4("10.0.0.3", 4000, "10.0.0.2", 9999,
							      IPPROTO_UDP), 0, 100, 0);
		synth_softirq(&sc->s, SC_Y, wake + 40200, SYN_NET_RX, false);
		a = h + 42000 + (kind == SC_NETRX_APP ? 8000 : 0);
		break;
	case SC_KWORKER:
		synth_idle(&sc->s, SC_Y, h + 400, false);
		synth_switch(&sc->s, SC_Y, h + 500, sc_swapper1, sc_kworker);
		synth_work(&sc->s, SC_Y, h + 600, "vmstat_update", true);
		synth_work(&sc->s, SC_Y, h + 30600, NULL, false);
		wake = h + 31000;
		synth_switch(&sc->s, SC_Y, wake, sc_kworker, me);
		a = wake + 1000;
		break;
	case SC_FAULT:
		wake = h + 1000;
		synth_idle(&sc->s, SC_Y, wake - 100, false);
		synth_switch(&sc->s, SC_Y, wake, sc_swapper1, me);
		synth_fault(&sc->s, SC_Y, wake + 200, wake + 30200, me.tid, me.pid, true);
		a = h + 32000;
		break;
	case SC_IDLE_IRQ:
		synth_irq(&sc->s, SC_Y, h + 200, 40, "mlx5_comp0", true);
		synth_irq(&sc->s, SC_Y, h + 700, 40, NULL, false);
		wake = h + 40000;
		synth_idle(&sc->s, SC_Y, wake - 100, false);
		synth_switch(&sc->s, SC_Y, wake, sc_swapper1, me);
		a = wake + 1000;
		break;
	}
	scen_recv(sc, a, id, work);
	scen_sleep(sc);
	/* The next message comes after this one ended, whatever it took. */
	sc->t = sc->last + 10000 > sc->t + SC_GAP ? sc->last + 10000 : sc->t + SC_GAP;
}

/*
 * @k datagrams arriving together: the server takes them one after the
 * other, 20 us each; the i-th waits for the i - 1 before it.
 */
static inline void scen_batch(struct scen *sc, size_t k)
{
	struct syn_task me = { 101, 100, sc->comm };
	uint64_t h[8], ids[8], a;
	size_t i;

	if (k + sc->rx_drops > 8)
		abort();
	scen_rx(sc, sc->t, k + sc->rx_drops, h, ids);
	synth_idle(&sc->s, SC_Y, h[0] + 900, false);
	synth_switch(&sc->s, SC_Y, h[0] + 1000, sc_swapper1, me);
	a = h[0] + 2000;
	for (i = 0; i < k; i++) {
		scen_recv(sc, a, ids[i], 20000);
		a = sc->entry + 1000;
	}
	scen_sleep(sc);
	sc->t += SC_GAP;
}

/*
 * A queue: @k datagrams, one every @spacing ns (at least 3000), that the
 * server takes one after the other, @work ns each after its receive
 * returns. With @hog, "stress" holds Y from before the first's h to
 * h + 50000 and the server then runs (a = h + 51000): the others wait in
 * the socket meanwhile. Without, the server wakes at h + 1000 (a = h +
 * 2000). Each later receive returns 1000 ns after it is entered, or,
 * when the server entered it before the datagram came, as a lone one's
 * (it sleeps; woken at h + 1000, a = h + 2000).
 */
static inline void scen_queue(struct scen *sc, size_t k, uint64_t spacing, uint64_t work,
			      bool hog)
{
	struct syn_task me = { 101, 100, sc->comm };
	uint64_t h[8], ids[8], a;
	size_t i;

	if (k > 8 || spacing < 3000)
		abort();
	for (i = 0; i < k; i++)
		scen_rx(sc, sc->t + i * spacing, 1, &h[i], &ids[i]);
	if (hog) {
		synth_idle(&sc->s, SC_Y, h[0] - 3100, false);
		synth_switch(&sc->s, SC_Y, h[0] - 3000, sc_swapper1, sc_stress);
		synth_switch(&sc->s, SC_Y, h[0] + 50000, sc_stress, me);
		a = h[0] + 51000;
	} else {
		synth_idle(&sc->s, SC_Y, h[0] + 900, false);
		synth_switch(&sc->s, SC_Y, h[0] + 1000, sc_swapper1, me);
		a = h[0] + 2000;
	}
	for (i = 0; i < k; i++) {
		scen_recv(sc, a, ids[i], work);
		if (i + 1 < k && sc->entry < h[i + 1]) {
			scen_sleep(sc);
			synth_idle(&sc->s, SC_Y, h[i + 1] + 900, false);
			synth_switch(&sc->s, SC_Y, h[i + 1] + 1000, sc_swapper1, me);
			a = h[i + 1] + 2000;
		} else {
			a = sc->entry + 1000;
		}
	}
	scen_sleep(sc);
	sc->t += SC_GAP;
}

/* Every message @kind but each @every-th (from @first), @slow. */
static inline void scen_run(struct scen *sc, size_t n, enum scen_kind slow, size_t every,
			    size_t first)
{
	size_t i;

	for (i = 0; i < n; i++)
		scen_msg(sc, every && i % every == first ? slow : SC_NORMAL);
}

/*
 * @n requests 2.7 to 4.7 us long (jitter), the @every-th from @first on
 * slowed by the kinds of @slow in turn; a batch of three in place of the
 * @batch-th (none if @batch >= @n).
 */
static inline void scen_mixed(struct scen *sc, size_t n, const enum scen_kind *slow,
			      size_t n_slow, size_t every, size_t first, size_t batch)
{
	size_t i;

	for (i = 0; i < n; i++) {
		sc->jitter = (i * 7919) % 2000;
		if (i == batch)
			scen_batch(sc, 3);
		else
			scen_msg(sc, i % every == first ? slow[(i / every) % n_slow] : SC_NORMAL);
	}
	sc->jitter = 0;
	sc->hog_ns = 50000;
	sc->small_ns = 500;
	sc->hog_softirq = false;
	sc->app_irq = false;
}

/* ---------------------------------------------------------------------- */
/* With sched_waking records and sleep states: blocking chains              */

static const struct syn_task sc_holder = { 102, 100, "lockholder" };

/* The server asleep (TASK_INTERRUPTIBLE) in its pending receive. */
static inline void scen_sleep_st(struct scen *sc)
{
	struct syn_task me = { 101, 100, sc->comm };

	synth_switch_st(&sc->s, SC_Y, sc->entry + 100, me, sc_swapper1, 1, 0);
	synth_idle(&sc->s, SC_Y, sc->entry + 200, true);
	sc->last = sc->entry + 200;
}

/* A message woken as usual: the interrupt wakes the server at h + 100. */
static inline void scen_woken(struct scen *sc)
{
	struct syn_task me = { 101, 100, sc->comm };
	uint64_t h, id;

	scen_rx(sc, sc->t, 1, &h, &id);
	synth_waking(&sc->s, SC_X, h + 100, me, SC_Y, 0);
	synth_idle(&sc->s, SC_Y, h + 900, false);
	synth_switch(&sc->s, SC_Y, h + 1000, sc_swapper1, me);
	scen_recv(sc, h + 2000, id, 3000);
	scen_sleep_st(sc);
	sc->t += SC_GAP;
}

/*
 * Two requests: the server takes the first (a1) and blocks on the mutex
 * at a1 + 300 while lockholder runs on X from h1 + 500. The second
 * arrives at n2 = a1 + 5000 (h2 = n2 + 700) and waits: lockholder
 * releases the mutex and wakes the server at W = a1 + 40000; the server
 * runs at W + 1000, enters its receive at W + 3000 and has the second at
 * a2 = W + 4000 (latency 39000 ns, blocked 34300 ns from h2 to W).
 */
#define SC_LOCK_FUTEX	0x55d0c0de0040ULL

/* One-frame stacks of slow_fn and net_rx_stub (SC_KSYMS). */
static const uint64_t sc_slow_fn[] = { 0xffffffff81010014ULL };
static const uint64_t sc_rx_stub[] = { 0xffffffff81010004ULL };

/*
 * What lockholder runs on X while the server sleeps on the mutex, from
 * a1 + 200 (its futex_wait()) to the wakeup at a1 + 40000, in samples
 * every 5 us: in the second request's softirq net_rx_stub (a1 + 4000 to
 * + 5900); slow_fn from the softirq's end to + 21000 (three samples,
 * 15000 ns); user code to + 24000 (3000 ns; its segment began at + 21000);
 * nothing seen to + 25000, when stress preempts it (stress's own sample of
 * slow_fn at + 31000) until + 32000; net_rx_stub from there to the wakeup
 * (8000 ns). Waited 39800 ns, lockholder on a CPU 32800 of them, 27900 ns
 * with evidence.
 */
static inline void scen_holder_fn(struct scen *sc, uint64_t a1)
{
	static const uint64_t user_ip = 0x401000;	/* not in the record */
	uint64_t t;

	synth_sample_of(&sc->s, SC_X, a1 + 5900, 5000, sc_rx_stub, 1, 0, sc_holder);
	for (t = a1 + 11000; t <= a1 + 21000; t += 5000)
		synth_sample_of(&sc->s, SC_X, t, 5000, sc_slow_fn, 1, 0, sc_holder);
	synth_sample_of(&sc->s, SC_X, a1 + 24000, 5000, &user_ip, 0, NSIGHT_SAMPLE_USER, sc_holder);
	synth_switch_st(&sc->s, SC_X, a1 + 25000, sc_holder, sc_stress, 0, NSIGHT_SWITCH_PREEMPT);
	synth_sample_of(&sc->s, SC_X, a1 + 31000, 5000, sc_slow_fn, 1, 0, sc_stress);
	synth_switch_st(&sc->s, SC_X, a1 + 32000, sc_stress, sc_holder, 0, NSIGHT_SWITCH_PREEMPT);
	synth_sample_of(&sc->s, SC_X, a1 + 37000, 5000, sc_rx_stub, 1, 0, sc_holder);
	synth_sample_of(&sc->s, SC_X, a1 + 40000, 5000, sc_rx_stub, 1, 0, sc_holder);
}

static inline void scen_lock_pair(struct scen *sc)
{
	struct syn_task me = { 101, 100, sc->comm };
	uint64_t h1, id1, h2, id2, a1, w;

	scen_rx(sc, sc->t, 1, &h1, &id1);
	synth_waking(&sc->s, SC_X, h1 + 100, me, SC_Y, 0);
	synth_idle(&sc->s, SC_Y, h1 + 900, false);
	synth_switch(&sc->s, SC_Y, h1 + 1000, sc_swapper1, me);
	a1 = h1 + 2000;
	scen_recv(sc, a1, id1, 0);
	/* The server sleeps on the mutex (a futex of its process)... */
	synth_futex(&sc->s, SC_Y, a1 + 200, me, NSIGHT_FUTEX_WAIT, SC_LOCK_FUTEX);
	synth_switch_st(&sc->s, SC_Y, a1 + 300, me, sc_swapper1, 1, 0);
	synth_idle(&sc->s, SC_Y, a1 + 400, true);
	/* X: lockholder runs; the second request's irq and softirq nest in it. */
	synth_idle(&sc->s, SC_X, h1 + 400, false);
	synth_switch(&sc->s, SC_X, h1 + 500, sc_swapper0, sc_holder);
	scen_rx(sc, a1 + 5000, 1, &h2, &id2);
	w = a1 + 40000;
	if (sc->holder_fn)
		scen_holder_fn(sc, a1);
	/* ...that lockholder unlocks: 39800 ns from futex_wait() to the wakeup. */
	synth_futex(&sc->s, SC_X, w - 100, sc_holder, NSIGHT_FUTEX_WAKE, SC_LOCK_FUTEX);
	synth_waking(&sc->s, SC_X, w, me, SC_Y, sc_holder.tid);
	synth_switch_st(&sc->s, SC_X, w + 500, sc_holder, sc_swapper0, 1, 0);
	synth_idle(&sc->s, SC_X, w + 600, true);
	synth_idle(&sc->s, SC_Y, w + 900, false);
	synth_switch(&sc->s, SC_Y, w + 1000, sc_swapper1, me);
	/* The server took the mutex on its return and releases it: held 1000 ns. */
	synth_futex(&sc->s, SC_Y, w + 2000, me, NSIGHT_FUTEX_WAKE, SC_LOCK_FUTEX);
	sc->entry = w + 3000;
	scen_recv(sc, w + 4000, id2, 3000);
	scen_sleep_st(sc);
	sc->t += SC_GAP;
}

/* @n requests, every 8th (from the 7th) a lock pair: for 40, 5 slow of 45. */
static inline void scen_lock_run(struct scen *sc, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (i % 8 == 7)
			scen_lock_pair(sc);
		else
			scen_woken(sc);
	}
}

/*
 * "stress" runs on Y from before h; the interrupt wakes the server at
 * h + 100 but stress keeps Y until h + 30000 (preempted then): the server
 * was runnable, not running, for 29900 ns, and ran 1000 ns.
 */
static inline void scen_preempted(struct scen *sc)
{
	struct syn_task me = { 101, 100, sc->comm };
	uint64_t h, id;

	scen_rx(sc, sc->t, 1, &h, &id);
	synth_idle(&sc->s, SC_Y, h - 3100, false);
	synth_switch(&sc->s, SC_Y, h - 3000, sc_swapper1, sc_stress);
	synth_waking(&sc->s, SC_X, h + 100, me, SC_Y, 0);
	synth_switch_st(&sc->s, SC_Y, h + 30000, sc_stress, me, 0, NSIGHT_SWITCH_PREEMPT);
	scen_recv(sc, h + 31000, id, 3000);
	scen_sleep_st(sc);
	sc->t += SC_GAP;
}

/* ---------------------------------------------------------------------- */
/* A two-stage server with request marks (nsight_request.h)                 */

/*
 * "twostage" (tid 101) receives each request on Y (a message 2.7 us from
 * the NIC), marks it begun 100 ns after its receive and hands it off
 * 500 ns after it; the worker "ts-work" (tid 103) on X, woken 100 ns
 * before the hand-off, takes it up and answers it in sc_work_ns(i): its
 * response (a datagram back to the client) leaves SC_ANSWER ns before the
 * end mark, or, from a late server (sc_late(i)), 20 ns after it. With
 * @hog, "stress" holds X from before the hand-off for SC_HOG_RUN ns more
 * of the worker's time.
 */
static const struct syn_task sc_recvr = { 101, 100, "twostage" };
static const struct syn_task sc_worker = { 103, 100, "ts-work" };

#define SC_HOG_RUN	40100
#define SC_ANSWER	1000

/* Every 10th request from the 5th is answered after its end mark. */
static inline bool sc_late(size_t i)
{
	return i % 10 == 4;
}

/* The worker sends a response at @t on X. */
static inline void scen_answer(struct scen *sc, uint64_t t)
{
	struct nsight_flow f = flow4("10.0.0.2", 9000, "10.0.0.1", 5000, IPPROTO_UDP);
	uint64_t id = ++sc->pkt;

	synth_app(&sc->s, NSIGHT_REC_APP_SEND, SC_X, t, 0x51, f, 64, 0, sc_worker.tid,
		  sc_worker.pid, sc_worker.comm);
	synth_pkt(&sc->s, SC_X, t + 10, NSIGHT_PKT_TX_QUEUE, id, f, 0, 64, 0);
	synth_pkt(&sc->s, SC_X, t + 20, NSIGHT_PKT_TX_XMIT, id, f, 0, 64, 0);
}

static inline uint64_t sc_work_ns(size_t i)
{
	return 5000 + (i * 7919) % 2000;
}

/* A message to the receiver; its receive returns at the result. */
static inline uint64_t scen_message(struct scen *sc)
{
	uint64_t n = sc->t;

	scen_msg(sc, SC_NORMAL);
	return n + 2700;
}

/* Request @i: begun, handed off, taken up by the worker and ended. */
static inline void scen_request(struct scen *sc, size_t i, bool hog)
{
	uint64_t a = scen_message(sc), r, e;

	synth_request(&sc->s, SC_Y, a + 100, sc_recvr, NSIGHT_REQ_BEGIN, i);
	synth_waking(&sc->s, SC_Y, a + 400, sc_worker, SC_X, sc_recvr.tid);
	synth_request(&sc->s, SC_Y, a + 500, sc_recvr, NSIGHT_REQ_HANDOFF, i);
	if (hog) {
		synth_idle(&sc->s, SC_X, a + 150, false);
		synth_switch(&sc->s, SC_X, a + 200, sc_swapper0, sc_stress);
		synth_switch(&sc->s, SC_X, a + 500 + SC_HOG_RUN, sc_stress, sc_worker);
		r = a + 500 + SC_HOG_RUN + 100;
	} else {
		synth_idle(&sc->s, SC_X, a + 500, false);
		synth_switch(&sc->s, SC_X, a + 600, sc_swapper0, sc_worker);
		r = a + 700;
	}
	synth_request(&sc->s, SC_X, r, sc_worker, NSIGHT_REQ_RESUME, i);
	e = r + sc_work_ns(i);
	if (!sc_late(i))
		scen_answer(sc, e - SC_ANSWER);
	synth_request(&sc->s, SC_X, e, sc_worker, NSIGHT_REQ_END, i);
	if (sc_late(i))
		scen_answer(sc, e + 20);
	synth_switch_st(&sc->s, SC_X, e + 100, sc_worker, sc_swapper0, 1, 0);
	synth_idle(&sc->s, SC_X, e + 200, true);
}

/*
 * @n requests, every 10th (from the 10th) behind stress; then one handed
 * off and never taken up (id 1000), one taken up without a hand-off
 * (4000), one begun by a thread that received nothing (3000), an end with
 * no begin (2000) and a mark with op 9 (5000).
 */
static inline void scen_twostage(struct scen *sc, size_t n)
{
	const struct syn_task stranger = { 104, 100, "ts-other" };
	uint64_t a;
	size_t i;

	for (i = 0; i < n; i++)
		scen_request(sc, i, i % 10 == 9);
	a = scen_message(sc);
	synth_request(&sc->s, SC_Y, a + 100, sc_recvr, NSIGHT_REQ_BEGIN, 1000);
	synth_request(&sc->s, SC_Y, a + 500, sc_recvr, NSIGHT_REQ_HANDOFF, 1000);
	a = scen_message(sc);
	synth_request(&sc->s, SC_Y, a + 100, sc_recvr, NSIGHT_REQ_BEGIN, 4000);
	synth_request(&sc->s, SC_Y, a + 200, sc_recvr, NSIGHT_REQ_RESUME, 4000);
	synth_request(&sc->s, SC_Y, a + 300, sc_recvr, NSIGHT_REQ_END, 4000);
	a = sc->t;
	synth_request(&sc->s, SC_X, a, stranger, NSIGHT_REQ_BEGIN, 3000);
	synth_request(&sc->s, SC_X, a + 100, stranger, NSIGHT_REQ_END, 3000);
	synth_request(&sc->s, SC_X, a + 200, stranger, NSIGHT_REQ_END, 2000);
	synth_request(&sc->s, SC_X, a + 300, stranger, 9, 5000);
}

static inline int scen_save(struct scen *sc, const char *path)
{
	int ret;

	synth_flush(&sc->s);
	ret = synth_save(&sc->s, path);
	synth_free(&sc->s);
	return ret;
}

#endif /* NSIGHT_TEST_SCENARIO_H */
