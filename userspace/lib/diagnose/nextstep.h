/* SPDX-License-Identifier: MIT */
/*
 * A next step per cause of the diagnosis: the evidence (the key that
 * weighs most in the cause, the core it ran on, in how many tail messages)
 * and what a user would try for that kind of cause (move a competitor off
 * the core, TCP_NODELAY, steer receive processing elsewhere, ...).
 */
#ifndef NSIGHT_NEXTSTEP_H
#define NSIGHT_NEXTSTEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/keys.h"
#include "diagnose/diagnose.h"

struct nsight_next_step {
	uint32_t key;		/* the cause's key with the most deviation */
	uint32_t cpu;		/* the core it lay on in most tail messages */
	bool has_cpu;
	uint64_t messages;	/* tail messages with the cause */
	char advice[192];	/* what to try, one sentence */
};

/*
 * The next step for cause @cause of @g (its anomalies' keys in @keys; the
 * core from each tail message's, so a diagnosis from windows has it too).
 * Returns false when the cause has no reported anomaly.
 */
bool nsight_next_step(const struct nsight_dx_group *g, uint32_t cause,
		      const struct nsight_keys *keys, struct nsight_next_step *out);

#endif /* NSIGHT_NEXTSTEP_H */
