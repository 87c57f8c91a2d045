/* SPDX-License-Identifier: MIT */
/* NSIGHT_CMD_GET_STATUS: the reply, its parser and its printers. */
#ifndef NSIGHTCTL_STATUS_H
#define NSIGHTCTL_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <netlink/msg.h>
#include <json-c/json.h>

#include "base/diag.h"
#include "format/filter.h"
#include "nl.h"

struct nsight_status_cpu {
	uint32_t id;
	bool online;
	uint64_t hook_hits;
	uint64_t records_written;
	uint64_t records_dropped;
	uint64_t buffer_used;
	uint64_t subbufs_produced;
	uint64_t subbufs_consumed;
};

struct nsight_status {
	bool enabled;
	uint32_t sources;
	uint32_t buffer_size;
	uint32_t subbuf_size;
	uint32_t n_subbufs;
	uint32_t nr_cpus;
	uint64_t tsc_hz;
	uint64_t hook_hits;
	uint64_t records_written;
	uint64_t records_dropped;
	bool have_probes_missed;	/* older modules do not send it */
	uint64_t probes_missed;
	uint32_t sample_period;		/* ns; 0 if the module did not say */
	bool have_pt_state;
	uint32_t pt_state;		/* enum nsight_pt_state */
	struct nsight_filter filter;	/* empty if the reply has none */
	size_t n_cpus;			/* entries in @cpus, sorted by id */
	struct nsight_status_cpu *cpus;
};

/* The name of an enum nsight_pt_state, "unknown" for others. */
const char *nsight_pt_state_name(uint32_t state);

/*
 * Parse a GET_STATUS reply. Pure: no socket involved, so tests feed it
 * messages built with nlmsg_alloc() and nla_put*(). Every attribute the
 * uapi lists is mandatory except NSIGHT_A_FILTER (absent: no filter),
 * NSIGHT_A_SAMPLE_PERIOD, NSIGHT_A_PT_STATE and NSIGHT_A_PROBES_MISSED;
 * wrong lengths, CPU ids not below nr_cpus, duplicate CPU ids and malformed
 * filter entries are rejected; unknown attributes are ignored.
 * Returns 0, or -EINVAL / -ENOMEM with @d filled; @st needs
 * nsight_status_free() either way.
 */
int nsight_status_parse(struct nl_msg *msg, struct nsight_status *st,
			struct nsight_diag *d);
void nsight_status_free(struct nsight_status *st);

/* Send GET_STATUS and parse the reply into @st. */
int nsight_status_get(struct nsight_nl *nl, struct nsight_status *st,
		      struct nsight_diag *d);

void nsight_status_print_text(FILE *f, const struct nsight_status *st);
/* A new json-c object (the caller puts it), NULL if out of memory. */
struct json_object *nsight_status_to_json(const struct nsight_status *st);

#endif /* NSIGHTCTL_STATUS_H */
