// SPDX-License-Identifier: MIT
/*
 * gen_scenario KIND FILE: write one of the diagnosis tests' synthetic
 * captures (tests/scenario.h) to FILE, for checks of nsight-analyze's
 * outputs outside the unit tests (scripts/check-html.sh). KIND is hog,
 * idleirq, kworker or clean: 40 UDP requests, every 8th with that cause
 * (clean: none); or mixed: 200 requests taking 2.7 to 4.7 us, every 10th
 * slowed by one of five causes in turn, and a batch of three; or lock: 40
 * requests, every 8th a pair where the second waits on a mutex held by
 * "lockholder" (with sched_waking records); or requests: a two-stage
 * server marking 20 requests, every 10th behind a hog on its worker's CPU,
 * and a few malformed ones (scen_twostage()).
 */
#include "scenario.h"

static void mixed(struct scen *sc)
{
	static const enum scen_kind slow[] = { SC_HOG, SC_KWORKER, SC_IDLE_IRQ, SC_FAULT, SC_NETRX };

	scen_mixed(sc, 200, slow, 5, 10, 4, 105);
}

/* As mixed, with lost records in some, in RECORDS chunks of 1 KiB. */
static void chunked(struct scen *sc)
{
	static const enum scen_kind slow[] = { SC_HOG, SC_KWORKER, SC_DROP, SC_FAULT, SC_NETRX,
					       SC_IDLE_IRQ };

	sc->s.chunk_max = 1024;
	scen_mixed(sc, 200, slow, 6, 5, 2, 105);
}

int main(int argc, char **argv)
{
	struct scen sc;

	if (argc != 3) {
		fprintf(stderr, "usage: gen_scenario hog|idleirq|kworker|mixed|chunked|clean|lock|requests FILE\n");
		return 2;
	}
	scen_init(&sc, "server");
	if (!strcmp(argv[1], "hog")) {
		scen_run(&sc, 40, SC_HOG, 8, 7);
	} else if (!strcmp(argv[1], "idleirq")) {
		scen_run(&sc, 40, SC_IDLE_IRQ, 8, 7);
	} else if (!strcmp(argv[1], "kworker")) {
		scen_run(&sc, 40, SC_KWORKER, 8, 7);
	} else if (!strcmp(argv[1], "mixed")) {
		mixed(&sc);
	} else if (!strcmp(argv[1], "chunked")) {
		chunked(&sc);
	} else if (!strcmp(argv[1], "lock")) {
		scen_lock_run(&sc, 40);
	} else if (!strcmp(argv[1], "requests")) {
		synth_free(&sc.s);
		scen_init(&sc, "twostage");
		scen_twostage(&sc, 20);
	} else if (!strcmp(argv[1], "clean")) {
		scen_run(&sc, 40, SC_NORMAL, 0, 0);
	} else {
		fprintf(stderr, "gen_scenario: unknown kind '%s'\n", argv[1]);
		synth_free(&sc.s);
		return 2;
	}
	if (scen_save(&sc, argv[2])) {
		fprintf(stderr, "gen_scenario: cannot write %s\n", argv[2]);
		return 1;
	}
	return 0;
}
