// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/records.h"
#include "pipeline/summary.h"

#define N_TYPES (UINT16_MAX + 1)

static int add_problem(struct nsight_summary *s, enum nsight_problem_kind kind, uint32_t cpu,
		       uint64_t a, uint64_t b, uint64_t c, struct nsight_diag *d)
{
	s->n_problems++;
	if (s->n_kept == NSIGHT_SUMMARY_MAX_PROBLEMS)
		return 0;
	if (!s->problems) {
		s->problems = calloc(NSIGHT_SUMMARY_MAX_PROBLEMS, sizeof(*s->problems));
		if (!s->problems)
			return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	}
	s->problems[s->n_kept++] = (struct nsight_problem){
		.kind = kind, .cpu = cpu, .a = a, .b = b, .c = c,
	};
	return 0;
}

/* The sequence number of a CPU's next sub-buffer, read or skipped. */
static int account_seq(struct nsight_summary *s, struct nsight_summary_cpu *c, uint64_t seq,
		       struct nsight_diag *d)
{
	if (c->subbufs == 0 && c->skipped_subbufs == 0) {
		c->seq_first = seq;
		if (seq != 0)
			return add_problem(s, NSIGHT_PROB_SEQ_START, c->cpu, seq, 0, 0, d);
	} else if (seq != c->seq_last + 1) {
		return add_problem(s, NSIGHT_PROB_SEQ_GAP, c->cpu, c->seq_last, seq, 0, d);
	}
	return 0;
}

static int account_subbuf(struct nsight_summary *s, struct nsight_summary_cpu *c,
			  const struct nsight_rec *rec, struct nsight_diag *d)
{
	struct nsight_rec_subbuf sb;
	int err = 0;

	memcpy(&sb, rec->data, sizeof(sb));
	err = account_seq(s, c, sb.seq, d);
	c->seq_last = sb.seq;
	c->subbufs++;
	c->subbuf_dropped += sb.dropped;
	return err;
}

/* A flight recorder's SKIP chunk: sub-buffers read and left out. */
static int account_skip(struct nsight_summary *s, const struct nsight_chunk *ch,
			struct nsight_diag *d)
{
	struct nsight_summary_cpu *c = &s->cpus[ch->cpu];
	struct nsight_stream_skip sk;
	int err;

	memcpy(&sk, ch->payload, sizeof(sk));
	if (sk.seq_last < sk.seq_first)
		return nsight_diag_set(d, NSIGHT_E_CHUNK,
				       "SKIP chunk at byte %" PRIu64 ": sub-buffers %" PRIu64 " to %" PRIu64 " go backwards",
				       ch->offset, (uint64_t)sk.seq_first, (uint64_t)sk.seq_last);
	err = account_seq(s, c, sk.seq_first, d);
	c->seq_last = sk.seq_last;
	c->skipped_subbufs += sk.seq_last - sk.seq_first + 1;
	c->skipped += sk.records;
	c->skipped_bytes += sk.bytes;
	c->subbuf_dropped += sk.dropped;
	return err;
}

static int walk_records(struct nsight_summary *s, const struct nsight_chunk *ch,
			const struct nsight_summary_hook *hook, struct nsight_diag *d)
{
	struct nsight_summary_cpu *c = &s->cpus[ch->cpu];
	struct nsight_tscguard_walk gw;
	struct nsight_rec_walker w;
	struct nsight_rec rec;
	bool bad;
	int ret, err;

	c->seen = true;
	c->record_bytes += ch->size;
	nsight_rec_walker_init_chunk(&w, ch->type, ch->payload, (size_t)ch->size, ch->cpu,
				     ch->payload_offset, &c->dec);
	err = nsight_tscguard_walk_init(&gw, &s->guard, &w, d);
	if (err)
		return err;
	while ((ret = nsight_tscguard_walk_next(&gw, &rec, &bad, d)) > 0) {
		uint64_t tsc = rec.hdr.tsc;

		if (c->records == 0 && c->subbufs == 0) {
			c->first_type = rec.hdr.type;
			if (rec.hdr.type != NSIGHT_REC_SUBBUF) {
				err = add_problem(s, NSIGHT_PROB_FIRST_REC, c->cpu, rec.hdr.type, 0, 0, d);
				if (err)
					return err;
			}
		}
		if (bad && !c->bad_tsc++)
			c->bad_tsc_at = rec.offset;
		if (!bad && (!s->have_tsc || tsc < s->tsc_first))
			s->tsc_first = tsc;
		if (!bad && (!s->have_tsc || tsc > s->tsc_last))
			s->tsc_last = tsc;
		s->have_tsc |= !bad;
		s->type_counts[rec.hdr.type]++;

		if (rec.hdr.type == NSIGHT_REC_SUBBUF) {
			err = account_subbuf(s, c, &rec, d);
			if (err)
				return err;
		} else {
			c->records++;
		}
		if (!bad && hook && hook->record) {
			err = hook->record(hook->ctx, &rec, d);
			if (err)
				return err;
		}
	}
	return ret;
}

static int read_status(struct nsight_summary *s, const struct nsight_chunk *ch,
		       struct nsight_diag *d)
{
	size_t n = (size_t)(ch->size / sizeof(struct nsight_cpu_status)), i;

	if (s->have_status)
		return nsight_diag_set(d, NSIGHT_E_CHUNK,
				       "STATUS chunk at byte %" PRIu64 ": the stream has a STATUS chunk already",
				       ch->offset);
	s->have_status = true;
	for (i = 0; i < n; i++) {
		uint64_t off = ch->payload_offset + i * sizeof(struct nsight_cpu_status);
		struct nsight_cpu_status st;

		memcpy(&st, (const uint8_t *)ch->payload + i * sizeof(st), sizeof(st));
		if (st.cpu >= s->nr_cpus)
			return nsight_diag_set(d, NSIGHT_E_CHUNK,
					       "STATUS entry at byte %" PRIu64 ": cpu %" PRIu32 " is not below the stream's %" PRIu32 " cpus",
					       off, st.cpu, s->nr_cpus);
		if (s->cpus[st.cpu].have_status)
			return nsight_diag_set(d, NSIGHT_E_CHUNK,
					       "STATUS entry at byte %" PRIu64 ": cpu %" PRIu32 " is listed twice",
					       off, st.cpu);
		s->cpus[st.cpu].have_status = true;
		s->cpus[st.cpu].status = st;
	}
	return 0;
}

/* Compare each CPU with the kernel's counters and add up the totals. */
static int check_counters(struct nsight_summary *s, struct nsight_diag *d)
{
	uint32_t i;
	int err = 0;

	for (i = 0; i < s->nr_cpus && !err; i++) {
		struct nsight_summary_cpu *c = &s->cpus[i];
		const struct nsight_cpu_status *st = &c->status;
		uint64_t sum;

		if (s->have_status && c->seen && !c->have_status)
			err = add_problem(s, NSIGHT_PROB_NO_STATUS, i, 0, 0, 0, d);
		if (!err && c->have_status) {
			if (c->records + c->skipped != st->records_written)
				err = add_problem(s, NSIGHT_PROB_RECORDS, i, c->records + c->skipped,
						  st->records_written, 0, d);
			if (!err && (__builtin_add_overflow(st->records_written, st->records_dropped, &sum) ||
				     sum != st->hook_hits))
				err = add_problem(s, NSIGHT_PROB_HITS, i, st->hook_hits,
						  st->records_written, st->records_dropped, d);
			if (c->subbuf_dropped <= st->records_dropped)
				c->dropped_after = st->records_dropped - c->subbuf_dropped;
			else if (!err)
				err = add_problem(s, NSIGHT_PROB_DROPS, i, c->subbuf_dropped,
						  st->records_dropped, 0, d);
		}
		if (!err && c->bad_tsc)
			err = add_problem(s, NSIGHT_PROB_BAD_TSC, i, c->bad_tsc, c->bad_tsc_at, 0, d);
		if (!err && c->dec.nameless)
			err = add_problem(s, NSIGHT_PROB_NAMELESS, i, c->dec.nameless,
					  c->dec.nameless_at, 0, d);
		if (!err && c->dec.flowless)
			err = add_problem(s, NSIGHT_PROB_FLOWLESS, i, c->dec.flowless,
					  c->dec.flowless_at, 0, d);
		c->dropped = c->subbuf_dropped + c->dropped_after;
		s->bad_tsc += c->bad_tsc;
		s->records += c->records;
		s->record_bytes += c->record_bytes;
		s->subbufs += c->subbufs;
		s->skipped += c->skipped;
		s->skipped_subbufs += c->skipped_subbufs;
		s->dropped_subbuf += c->subbuf_dropped;
		s->dropped_after += c->dropped_after;
	}
	s->dropped = s->dropped_subbuf + s->dropped_after;
	return err;
}

int nsight_summarize(struct nsight_stream_reader *r, struct nsight_summary *s,
		     struct nsight_diag *d)
{
	return nsight_summarize_hooked(r, s, NULL, d);
}

int nsight_summarize_hooked(struct nsight_stream_reader *r, struct nsight_summary *s,
			    const struct nsight_summary_hook *hook, struct nsight_diag *d)
{
	struct nsight_chunk ch;
	uint32_t i;
	int ret;

	memset(s, 0, sizeof(*s));
	s->hdr = r->hdr;
	nsight_tscguard_init(&s->guard, s->hdr.tsc_hz);
	s->nr_cpus = r->hdr.nr_cpus;
	s->cpus = calloc(s->nr_cpus ? s->nr_cpus : 1, sizeof(*s->cpus));
	s->type_counts = calloc(N_TYPES, sizeof(*s->type_counts));
	if (!s->cpus || !s->type_counts)
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	for (i = 0; i < s->nr_cpus; i++) {
		s->cpus[i].cpu = i;
		nsight_cdec_init(&s->cpus[i].dec);
	}

	while ((ret = nsight_stream_read_chunk(r, &ch)) > 0) {
		if (nsight_chunk_has_records(ch.type) && hook && hook->records)
			ret = hook->records(hook->ctx, &ch, d);
		if (ret < 0)
			return ret;
		if (nsight_chunk_has_records(ch.type))
			ret = walk_records(s, &ch, hook, d);
		else if (ch.type == NSIGHT_CHUNK_STATUS)
			ret = read_status(s, &ch, d);
		else if (ch.type == NSIGHT_CHUNK_SKIP)
			ret = account_skip(s, &ch, d);
		else if (hook && hook->chunk)
			ret = hook->chunk(hook->ctx, &ch, d);
		if (ch.type == NSIGHT_CHUNK_TRIGGER)
			s->triggers++;
		if (ret < 0)
			return ret;
	}
	if (ret == -NSIGHT_E_TRUNCATED && hook && hook->cut_ok) {
		s->cut = true;
		s->cut_at = r->offset;
		snprintf(s->cut_msg, sizeof(s->cut_msg), "%s", r->diag.msg);
		ret = add_problem(s, NSIGHT_PROB_CUT, NSIGHT_CHUNK_NO_CPU, r->offset, 0, 0, d);
		if (ret < 0)
			return ret;
	} else if (ret < 0) {
		*d = r->diag;
		return ret;
	}
	s->stream_bytes = r->offset;
	s->chunks = r->chunks;
	s->skipped_chunks = r->skipped_chunks;
	nsight_tscguard_fini(&s->guard);
	return check_counters(s, d);
}

void nsight_summary_fini(struct nsight_summary *s)
{
	for (uint32_t i = 0; s->cpus && i < s->nr_cpus; i++)
		nsight_cdec_fini(&s->cpus[i].dec);
	free(s->cpus);
	free(s->type_counts);
	free(s->problems);
	nsight_tscguard_fini(&s->guard);
	s->cpus = NULL;
	s->type_counts = NULL;
	s->problems = NULL;
}

const char *nsight_problem_kind_name(enum nsight_problem_kind kind)
{
	switch (kind) {
	case NSIGHT_PROB_RECORDS:	return "records";
	case NSIGHT_PROB_HITS:		return "hook_hits";
	case NSIGHT_PROB_DROPS:		return "drops";
	case NSIGHT_PROB_NO_STATUS:	return "no_status";
	case NSIGHT_PROB_SEQ_START:	return "seq_start";
	case NSIGHT_PROB_SEQ_GAP:	return "seq_gap";
	case NSIGHT_PROB_FIRST_REC:	return "first_record";
	case NSIGHT_PROB_CUT:		return "cut";
	case NSIGHT_PROB_BAD_TSC:	return "bad_tsc";
	case NSIGHT_PROB_NAMELESS:	return "nameless";
	case NSIGHT_PROB_FLOWLESS:	return "flowless";
	}
	return "unknown";
}

void nsight_problem_format(const struct nsight_problem *p, char *buf, size_t len)
{
	const char *name;
	char tname[32];

	switch (p->kind) {
	case NSIGHT_PROB_RECORDS:
		snprintf(buf, len, "cpu %" PRIu32 ": stream holds %" PRIu64 " records, kernel wrote %" PRIu64,
			 p->cpu, p->a, p->b);
		break;
	case NSIGHT_PROB_HITS:
		snprintf(buf, len, "cpu %" PRIu32 ": kernel counted %" PRIu64 " hook hits but %" PRIu64
			 " written + %" PRIu64 " dropped", p->cpu, p->a, p->b, p->c);
		break;
	case NSIGHT_PROB_DROPS:
		snprintf(buf, len, "cpu %" PRIu32 ": sub-buffer headers report %" PRIu64
			 " dropped records, kernel counted %" PRIu64, p->cpu, p->a, p->b);
		break;
	case NSIGHT_PROB_NO_STATUS:
		snprintf(buf, len, "cpu %" PRIu32 ": has records but no entry in the STATUS chunk", p->cpu);
		break;
	case NSIGHT_PROB_SEQ_START:
		snprintf(buf, len, "cpu %" PRIu32 ": first sub-buffer has seq %" PRIu64 ", not 0",
			 p->cpu, p->a);
		break;
	case NSIGHT_PROB_SEQ_GAP:
		snprintf(buf, len, "cpu %" PRIu32 ": sub-buffer seq %" PRIu64 " follows %" PRIu64
			 " (expected %" PRIu64 ")", p->cpu, p->b, p->a, p->a + 1);
		break;
	case NSIGHT_PROB_FIRST_REC:
		name = nsight_rec_type_name((unsigned int)p->a);
		if (!name) {
			snprintf(tname, sizeof(tname), "unknown(%" PRIu64 ")", p->a);
			name = tname;
		}
		snprintf(buf, len, "cpu %" PRIu32 ": first record is %s, not a sub-buffer header",
			 p->cpu, name);
		break;
	case NSIGHT_PROB_CUT:
		snprintf(buf, len, "the stream is cut short at byte %" PRIu64
			 ": only the chunks before it were read", p->a);
		break;
	case NSIGHT_PROB_BAD_TSC:
		snprintf(buf, len, "cpu %" PRIu32 ": %" PRIu64 " record%s with a TSC far out of its neighbours' order, left out of the analysis (the first at byte %" PRIu64 ")",
			 p->cpu, p->a, p->a == 1 ? "" : "s", p->b);
		break;
	case NSIGHT_PROB_NAMELESS:
		snprintf(buf, len, "cpu %" PRIu32 ": %" PRIu64 " task%s given by tid with no thread record naming %s before (the first at byte %" PRIu64 "): shown without a name",
			 p->cpu, p->a, p->a == 1 ? "" : "s", p->a == 1 ? "it" : "them", p->b);
		break;
	case NSIGHT_PROB_FLOWLESS:
		snprintf(buf, len, "cpu %" PRIu32 ": %" PRIu64 " record%s giving a socket by id with no sock record giving its flow before (the first at byte %" PRIu64 "): shown without a flow",
			 p->cpu, p->a, p->a == 1 ? "" : "s", p->b);
		break;
	default:
		snprintf(buf, len, "cpu %" PRIu32 ": problem %d", p->cpu, (int)p->kind);
		break;
	}
}

double nsight_summary_span_seconds(const struct nsight_summary *s)
{
	if (!s->have_tsc || !s->hdr.tsc_hz)
		return -1.0;
	return (double)(s->tsc_last - s->tsc_first) / (double)s->hdr.tsc_hz;
}
