// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <string.h>

#include "records.h"

static const struct {
	const char *name;
	size_t size;
} rec_types[__NSIGHT_REC_MAX] = {
	[NSIGHT_REC_SUBBUF]	  = { "subbuf", sizeof(struct nsight_rec_subbuf) },
	[NSIGHT_REC_SCHED_SWITCH] = { "sched_switch", sizeof(struct nsight_rec_sched_switch) },
	[NSIGHT_REC_HANDOFF]	  = { "handoff", sizeof(struct nsight_rec_handoff) },
	[NSIGHT_REC_TIMEKEEPER]	  = { "timekeeper", sizeof(struct nsight_rec_timekeeper) },
	[NSIGHT_REC_CLOCK_SYNC]	  = { "clock_sync", sizeof(struct nsight_rec_clock_sync) },
	[NSIGHT_REC_PKT]	  = { "pkt", sizeof(struct nsight_rec_pkt) },
	[NSIGHT_REC_APP_COPY]	  = { "app_copy", sizeof(struct nsight_rec_app_copy) },
	[NSIGHT_REC_APP_RECV]	  = { "app_recv", sizeof(struct nsight_rec_app) },
	[NSIGHT_REC_APP_SEND]	  = { "app_send", sizeof(struct nsight_rec_app) },
	[NSIGHT_REC_WAKING]	  = { "waking", sizeof(struct nsight_rec_waking) },
	[NSIGHT_REC_IRQ]	  = { "irq", sizeof(struct nsight_rec_irq) },
	[NSIGHT_REC_SOFTIRQ]	  = { "softirq", sizeof(struct nsight_rec_softirq) },
	[NSIGHT_REC_IDLE]	  = { "idle", sizeof(struct nsight_rec_idle) },
	[NSIGHT_REC_FAULT]	  = { "fault", sizeof(struct nsight_rec_fault) },
	[NSIGHT_REC_WORK]	  = { "work", sizeof(struct nsight_rec_work) },
	[NSIGHT_REC_NAPI]	  = { "napi", sizeof(struct nsight_rec_napi) },
	[NSIGHT_REC_SAMPLE]	  = { "sample", sizeof(struct nsight_rec_sample) },
	[NSIGHT_REC_PT]		  = { "pt", sizeof(struct nsight_rec_pt) },
	[NSIGHT_REC_MARK]	  = { "mark", sizeof(struct nsight_rec_mark) },
	[NSIGHT_REC_APP_RECV_START] = { "app_recv_start", sizeof(struct nsight_rec_app_start) },
	[NSIGHT_REC_PKT_STAGE]	  = { "pkt_stage", sizeof(struct nsight_rec_pkt_stage) },
	[NSIGHT_REC_SOCK_DROP]	  = { "sock_drop", sizeof(struct nsight_rec_sock_drop) },
};

bool nsight_rec_type_known(unsigned int type)
{
	return type > NSIGHT_REC_INVALID && type < __NSIGHT_REC_MAX;
}

const char *nsight_rec_type_name(unsigned int type)
{
	return nsight_rec_type_known(type) ? rec_types[type].name : NULL;
}

size_t nsight_rec_min_size(unsigned int type)
{
	return nsight_rec_type_known(type) ? rec_types[type].size : 0;
}

bool nsight_rec_size_valid(uint32_t size)
{
	return size >= sizeof(struct nsight_rec_hdr) && size % NSIGHT_REC_ALIGN == 0;
}

void nsight_rec_walker_init(struct nsight_rec_walker *w, const void *buf,
			    size_t len, uint32_t cpu, uint64_t base_offset)
{
	w->buf = buf;
	w->len = len;
	w->pos = 0;
	w->cpu = cpu;
	w->base_offset = base_offset;
}

int nsight_rec_walker_next(struct nsight_rec_walker *w, struct nsight_rec *rec,
			   struct nsight_diag *d)
{
	size_t left = w->len - w->pos;
	uint64_t off = w->base_offset + w->pos;
	struct nsight_rec_hdr h;

	if (left == 0)
		return 0;
	if (left < sizeof(h))
		return nsight_diag_set(d, NSIGHT_E_RECORD,
				       "record at byte %" PRIu64 " (cpu %" PRIu32 "): header needs %zu bytes, %zu left",
				       off, w->cpu, sizeof(h), left);
	memcpy(&h, w->buf + w->pos, sizeof(h));
	if (h.size < sizeof(h))
		return nsight_diag_set(d, NSIGHT_E_RECORD,
				       "record at byte %" PRIu64 " (cpu %" PRIu32 "): size %u is smaller than the %zu-byte header",
				       off, w->cpu, h.size, sizeof(h));
	if (h.size % NSIGHT_REC_ALIGN)
		return nsight_diag_set(d, NSIGHT_E_RECORD,
				       "record at byte %" PRIu64 " (cpu %" PRIu32 "): size %u is not a multiple of %d",
				       off, w->cpu, h.size, NSIGHT_REC_ALIGN);
	if (h.size > left)
		return nsight_diag_set(d, NSIGHT_E_RECORD,
				       "record at byte %" PRIu64 " (cpu %" PRIu32 "): size %u runs past the end of its chunk (%zu bytes left)",
				       off, w->cpu, h.size, left);
	if (h.cpu != w->cpu)
		return nsight_diag_set(d, NSIGHT_E_RECORD,
				       "record at byte %" PRIu64 ": written on cpu %" PRIu32 " but found in the buffer of cpu %" PRIu32,
				       off, h.cpu, w->cpu);
	if (h.type == NSIGHT_REC_INVALID)
		return nsight_diag_set(d, NSIGHT_E_RECORD,
				       "record at byte %" PRIu64 " (cpu %" PRIu32 "): invalid record type 0",
				       off, w->cpu);
	if (nsight_rec_type_known(h.type) && h.size < nsight_rec_min_size(h.type))
		return nsight_diag_set(d, NSIGHT_E_RECORD,
				       "record at byte %" PRIu64 " (cpu %" PRIu32 "): %s record of %u bytes, needs at least %zu",
				       off, w->cpu, nsight_rec_type_name(h.type), h.size,
				       nsight_rec_min_size(h.type));

	rec->hdr = h;
	rec->data = w->buf + w->pos;
	rec->offset = off;
	w->pos += h.size;
	return 1;
}

size_t nsight_records_whole_prefix(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t pos = 0;

	while (len - pos >= sizeof(struct nsight_rec_hdr)) {
		struct nsight_rec_hdr h;

		memcpy(&h, p + pos, sizeof(h));
		if (!nsight_rec_size_valid(h.size) || h.size > len - pos)
			break;
		pos += h.size;
	}
	return pos;
}
