/* SPDX-License-Identifier: MIT */
/*
 * A checker of Chrome trace-event JSON (what nsight-analyze --perfetto
 * writes), shared by tests/trace_check.c (a command, also run in the
 * guest) and tests/test_perfetto.c. Header-only, needs only json-c.
 *
 * The document: an object with a "traceEvents" array (or a bare array);
 * "displayTimeUnit", when present, "ms" or "ns". Every event, in file
 * order:
 *   - an object with "ph" (one known character), "pid" and "tid"
 *     (non-negative integers), "name" (a string; optional for E), "ts"
 *     (a finite non-negative number; not for M); every number in it,
 *     args included, finite;
 *   - M: a known metadata name, args.name a string (*_name) or
 *     args.sort_index an integer (*_sort_index);
 *   - B/E, per track (pid, tid): ts never goes back; every E closes an
 *     open B (with the same name when the E has one); none left open;
 *   - X: "dur" finite and non-negative; per track, starts in order and
 *     every slice either inside the one open before it or after it ends
 *     (no partial overlap);
 *   - b/e/n (async), s/t/f (flows): "cat" a string, "id" a string or an
 *     integer (or "id2" for async); b/e matched by (cat, id), nested:
 *     an e closes the innermost open b of its (cat, id) (same name when it
 *     has one), not before it began; none left open;
 *   - s/f: one s and one f per (cat, id), the same name, f not before s.
 * A flow end is "bound" when a B/E or X slice of its track encloses its
 * ts (what Perfetto attaches the arrow to); unbound ones are counted, not
 * violations (a real capture may have no context there).
 */
#ifndef NSIGHT_TRACE_CHECK_LIB_H
#define NSIGHT_TRACE_CHECK_LIB_H

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json.h>

#define TC_MAX_REPORTED	20

struct tc_counts {
	uint64_t events, meta, B, E, X, b, e, n, s, f, other;
	uint64_t tracks;	/* (pid, tid) with slices */
	uint64_t async;		/* distinct (cat, id) of b events */
	uint64_t flows;		/* matched s/f pairs */
	uint64_t unbound;	/* flow ends no slice encloses */
	uint64_t max_depth;	/* of B/E slices */
};

/* A finished B/E slice, for callers that look at the slices. */
struct tc_slice {
	int64_t pid, tid;
	const char *name, *parent;	/* parent: the enclosing slice's, NULL at the top */
	const char *cat;		/* NULL if none */
	struct json_object *args;	/* the B's, or NULL */
	double ts, end;
	size_t depth;			/* 0 at the top */
};

struct tc_result {
	uint64_t violations;
	struct tc_counts c;
	FILE *log;		/* violations are printed here ("# event N: ..."), or NULL */
	void (*on_slice)(void *arg, const struct tc_slice *s);
	void *arg;
};

/* A string-keyed hash map to an index. */
struct tc_map {
	char **keys;
	size_t *vals;
	size_t cap, n;
};

static inline uint64_t tc_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static inline size_t *tc_map_get(struct tc_map *m, const char *key, bool add, bool *added)
{
	size_t i;

	if (add && (m->n + 1) * 2 > m->cap) {
		struct tc_map nm = { 0 };
		size_t j;

		nm.cap = m->cap ? m->cap * 2 : 64;
		nm.keys = calloc(nm.cap, sizeof(*nm.keys));
		nm.vals = calloc(nm.cap, sizeof(*nm.vals));
		if (!nm.keys || !nm.vals)
			abort();
		for (j = 0; j < m->cap; j++) {
			if (!m->keys[j])
				continue;
			for (i = tc_hash(m->keys[j]) & (nm.cap - 1); nm.keys[i]; i = (i + 1) & (nm.cap - 1))
				;
			nm.keys[i] = m->keys[j];
			nm.vals[i] = m->vals[j];
		}
		nm.n = m->n;
		free(m->keys);
		free(m->vals);
		*m = nm;
	}
	if (added)
		*added = false;
	if (!m->cap)
		return NULL;
	for (i = tc_hash(key) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (!strcmp(m->keys[i], key))
			return &m->vals[i];
	if (!add)
		return NULL;
	m->keys[i] = strdup(key);
	if (!m->keys[i])
		abort();
	m->n++;
	if (added)
		*added = true;
	return &m->vals[i];
}

static inline void tc_map_fini(struct tc_map *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

struct tc_open {
	double ts, end;		/* end: X only */
	const char *name;	/* owned by the event's json object */
	const char *cat;
	struct json_object *args;
};

struct tc_span {
	double lo, hi;
};

struct tc_track {
	int64_t pid, tid;
	struct tc_open *be;	/* open B slices */
	size_t n_be, cap_be;
	struct tc_open *x;	/* X slices that may still enclose */
	size_t n_x, cap_x;
	double last_be, last_x;
	bool any_be, any_x;
	/* Outermost slices, for binding flows: B/E ones and X ones, each in order. */
	struct tc_span *top[2];
	size_t n_top[2], cap_top[2];
};

struct tc_async {
	struct tc_open *open;
	size_t n, cap;
};

struct tc_flow {
	unsigned int n_s, n_f;
	double ts_s, ts_f;
	const char *name_s, *name_f;
	int64_t pid_s, tid_s, pid_f, tid_f;
	bool bp_e;
};

struct tc_state {
	struct tc_result *r;
	struct tc_map track_map, async_map, flow_map;
	struct tc_track *tracks;
	size_t n_tracks, cap_tracks;
	struct tc_async *async;
	size_t n_async, cap_async;
	struct tc_flow *flows;
	size_t n_flows, cap_flows;
};

#define TC_GROW(v, n, cap) do {						\
	if ((n) >= (cap)) {						\
		(cap) = (cap) ? (cap) * 2 : 16;				\
		(v) = realloc((v), (cap) * sizeof(*(v)));		\
		if (!(v))						\
			abort();					\
	}								\
} while (0)

static inline void tc_fail(struct tc_state *st, size_t idx, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline void tc_fail(struct tc_state *st, size_t idx, const char *fmt, ...)
{
	va_list ap;

	st->r->violations++;
	if (!st->r->log || st->r->violations > TC_MAX_REPORTED)
		return;
	if (idx == SIZE_MAX)
		fprintf(st->r->log, "# trace: ");
	else
		fprintf(st->r->log, "# event %zu: ", idx);
	va_start(ap, fmt);
	vfprintf(st->r->log, fmt, ap);
	va_end(ap);
	fputc('\n', st->r->log);
}

static inline bool tc_number(struct json_object *v, double *out)
{
	enum json_type t = json_object_get_type(v);

	if (t != json_type_int && t != json_type_double)
		return false;
	*out = json_object_get_double(v);
	return true;
}

/* Whether every number in @v is finite. */
static inline bool tc_all_finite(struct json_object *v)
{
	size_t i;

	switch (json_object_get_type(v)) {
	case json_type_double:
		return isfinite(json_object_get_double(v));
	case json_type_array:
		for (i = 0; i < json_object_array_length(v); i++)
			if (!tc_all_finite(json_object_array_get_idx(v, i)))
				return false;
		return true;
	case json_type_object: {
		json_object_object_foreach(v, k, val) {
			(void)k;
			if (!tc_all_finite(val))
				return false;
		}
		return true;
	}
	default:
		return true;
	}
}

static inline struct tc_track *tc_track(struct tc_state *st, int64_t pid, int64_t tid)
{
	char key[48];
	bool added;
	size_t *slot;

	snprintf(key, sizeof(key), "%" PRId64 ":%" PRId64, pid, tid);
	slot = tc_map_get(&st->track_map, key, true, &added);
	if (added) {
		TC_GROW(st->tracks, st->n_tracks, st->cap_tracks);
		memset(&st->tracks[st->n_tracks], 0, sizeof(st->tracks[0]));
		st->tracks[st->n_tracks].pid = pid;
		st->tracks[st->n_tracks].tid = tid;
		*slot = st->n_tracks++;
	}
	return &st->tracks[*slot];
}

/* The id of an async or flow event as a string, NULL if it has none usable. */
static inline const char *tc_id(struct json_object *ev, bool id2_ok, char *buf, size_t len)
{
	struct json_object *id, *x;

	if (json_object_object_get_ex(ev, "id", &id)) {
		if (json_object_is_type(id, json_type_string))
			snprintf(buf, len, "s:%s", json_object_get_string(id));
		else if (json_object_is_type(id, json_type_int))
			snprintf(buf, len, "i:%" PRId64, json_object_get_int64(id));
		else
			return NULL;
		return buf;
	}
	if (id2_ok && json_object_object_get_ex(ev, "id2", &id) &&
	    json_object_is_type(id, json_type_object)) {
		if (json_object_object_get_ex(id, "local", &x))
			snprintf(buf, len, "l:%s", json_object_get_string(x));
		else if (json_object_object_get_ex(id, "global", &x))
			snprintf(buf, len, "g:%s", json_object_get_string(x));
		else
			return NULL;
		return buf;
	}
	return NULL;
}

static inline void tc_top(struct tc_track *t, int x, double lo, double hi)
{
	TC_GROW(t->top[x], t->n_top[x], t->cap_top[x]);
	t->top[x][t->n_top[x]++] = (struct tc_span){ lo, hi };
}

static inline void tc_be(struct tc_state *st, size_t idx, struct json_object *ev, char ph,
			 const char *name, const char *cat, int64_t pid, int64_t tid, double ts)
{
	struct tc_track *t = tc_track(st, pid, tid);
	struct json_object *args = NULL;

	if (t->any_be && ts < t->last_be)
		tc_fail(st, idx, "%c at %.3f before the track's previous B/E at %.3f", ph, ts,
			t->last_be);
	t->any_be = true;
	t->last_be = ts;
	if (ph == 'B') {
		json_object_object_get_ex(ev, "args", &args);
		TC_GROW(t->be, t->n_be, t->cap_be);
		t->be[t->n_be++] = (struct tc_open){ .ts = ts, .name = name, .cat = cat, .args = args };
		if (t->n_be > st->r->c.max_depth)
			st->r->c.max_depth = t->n_be;
		return;
	}
	if (!t->n_be) {
		tc_fail(st, idx, "E with no open B on track %" PRId64 "/%" PRId64, pid, tid);
		return;
	}
	if (name && name[0] && strcmp(name, t->be[t->n_be - 1].name))
		tc_fail(st, idx, "E \"%s\" closes B \"%s\"", name, t->be[t->n_be - 1].name);
	t->n_be--;
	if (st->r->on_slice) {
		struct tc_slice s = {
			.pid = pid, .tid = tid, .name = t->be[t->n_be].name,
			.parent = t->n_be ? t->be[t->n_be - 1].name : NULL,
			.cat = t->be[t->n_be].cat, .args = t->be[t->n_be].args,
			.ts = t->be[t->n_be].ts, .end = ts, .depth = t->n_be,
		};
		st->r->on_slice(st->r->arg, &s);
	}
	if (!t->n_be)
		tc_top(t, 0, t->be[0].ts, ts);
}

static inline void tc_x(struct tc_state *st, size_t idx, struct json_object *ev, int64_t pid,
			int64_t tid, double ts)
{
	struct tc_track *t = tc_track(st, pid, tid);
	struct json_object *v;
	double dur, end;

	if (!json_object_object_get_ex(ev, "dur", &v) || !tc_number(v, &dur) || !isfinite(dur) ||
	    dur < 0) {
		tc_fail(st, idx, "X without a finite non-negative dur");
		return;
	}
	end = ts + dur;
	if (t->any_x && ts < t->last_x)
		tc_fail(st, idx, "X at %.3f starts before the track's previous X at %.3f", ts,
			t->last_x);
	t->any_x = true;
	t->last_x = ts;
	while (t->n_x && t->x[t->n_x - 1].end <= ts)
		t->n_x--;
	if (t->n_x && end > t->x[t->n_x - 1].end)
		tc_fail(st, idx, "X [%.3f, %.3f] overlaps X [%.3f, %.3f] partly", ts, end,
			t->x[t->n_x - 1].ts, t->x[t->n_x - 1].end);
	if (!t->n_x)
		tc_top(t, 1, ts, end);
	TC_GROW(t->x, t->n_x, t->cap_x);
	t->x[t->n_x++] = (struct tc_open){ .ts = ts, .end = end };
}

static inline void tc_async_ev(struct tc_state *st, size_t idx, struct json_object *ev, char ph,
			       const char *name, const char *cat, double ts)
{
	char id[160], key[512];
	struct tc_async *a;
	bool added;
	size_t *slot;

	if (!cat) {
		tc_fail(st, idx, "%c without a cat", ph);
		return;
	}
	if (!tc_id(ev, true, id, sizeof(id))) {
		tc_fail(st, idx, "%c without an id", ph);
		return;
	}
	if (ph == 'n')
		return;
	snprintf(key, sizeof(key), "%s\x1f%s", cat, id);
	slot = tc_map_get(&st->async_map, key, ph == 'b', &added);
	if (!slot) {
		tc_fail(st, idx, "e of %s %s with no b", cat, id + 2);
		return;
	}
	if (added) {
		TC_GROW(st->async, st->n_async, st->cap_async);
		memset(&st->async[st->n_async], 0, sizeof(st->async[0]));
		*slot = st->n_async++;
		st->r->c.async++;
	}
	a = &st->async[*slot];
	if (ph == 'b') {
		if (a->n && ts < a->open[a->n - 1].ts)
			tc_fail(st, idx, "b \"%s\" at %.3f before its parent \"%s\" began at %.3f",
				name, ts, a->open[a->n - 1].name, a->open[a->n - 1].ts);
		TC_GROW(a->open, a->n, a->cap);
		a->open[a->n++] = (struct tc_open){ .ts = ts, .name = name };
		return;
	}
	if (!a->n) {
		tc_fail(st, idx, "e of %s %s with no open b", cat, id + 2);
		return;
	}
	a->n--;
	if (name && name[0] && strcmp(name, a->open[a->n].name))
		tc_fail(st, idx, "e \"%s\" closes b \"%s\"", name, a->open[a->n].name);
	if (ts < a->open[a->n].ts)
		tc_fail(st, idx, "e \"%s\" at %.3f before its b at %.3f", a->open[a->n].name, ts,
			a->open[a->n].ts);
}

static inline void tc_flow_ev(struct tc_state *st, size_t idx, struct json_object *ev, char ph,
			      const char *name, const char *cat, int64_t pid, int64_t tid, double ts)
{
	char id[160], key[512];
	struct json_object *bp;
	struct tc_flow *fl;
	bool added;
	size_t *slot;

	if (!cat) {
		tc_fail(st, idx, "%c without a cat", ph);
		return;
	}
	if (!tc_id(ev, false, id, sizeof(id))) {
		tc_fail(st, idx, "%c without an id", ph);
		return;
	}
	if (ph == 't')
		return;
	snprintf(key, sizeof(key), "%s\x1f%s", cat, id);
	slot = tc_map_get(&st->flow_map, key, true, &added);
	if (added) {
		TC_GROW(st->flows, st->n_flows, st->cap_flows);
		memset(&st->flows[st->n_flows], 0, sizeof(st->flows[0]));
		*slot = st->n_flows++;
	}
	fl = &st->flows[*slot];
	if (ph == 's') {
		if (fl->n_s++)
			tc_fail(st, idx, "flow %s %s begins twice", cat, id + 2);
		fl->ts_s = ts;
		fl->name_s = name;
		fl->pid_s = pid;
		fl->tid_s = tid;
	} else {
		if (fl->n_f++)
			tc_fail(st, idx, "flow %s %s ends twice", cat, id + 2);
		fl->ts_f = ts;
		fl->name_f = name;
		fl->pid_f = pid;
		fl->tid_f = tid;
		fl->bp_e = json_object_object_get_ex(ev, "bp", &bp) &&
			   !strcmp(json_object_get_string(bp), "e");
	}
}

static inline bool tc_meta(struct tc_state *st, size_t idx, struct json_object *ev,
			   const char *name)
{
	static const char *const known[] = {
		"process_name", "process_labels", "process_sort_index", "process_uptime_seconds",
		"thread_name", "thread_sort_index", "num_cpus",
	};
	struct json_object *args, *v;
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(name, known[i]))
			break;
	if (i == sizeof(known) / sizeof(known[0])) {
		tc_fail(st, idx, "M of unknown name \"%s\"", name);
		return false;
	}
	if (!json_object_object_get_ex(ev, "args", &args) ||
	    !json_object_is_type(args, json_type_object)) {
		tc_fail(st, idx, "M \"%s\" without args", name);
		return false;
	}
	if (strstr(name, "_name") &&
	    (!json_object_object_get_ex(args, "name", &v) || !json_object_is_type(v, json_type_string))) {
		tc_fail(st, idx, "M \"%s\" without a string args.name", name);
		return false;
	}
	if (strstr(name, "_sort_index") &&
	    (!json_object_object_get_ex(args, "sort_index", &v) ||
	     !json_object_is_type(v, json_type_int))) {
		tc_fail(st, idx, "M \"%s\" without an integer args.sort_index", name);
		return false;
	}
	return true;
}

static inline bool tc_int_field(struct tc_state *st, size_t idx, struct json_object *ev,
				const char *field, int64_t *out)
{
	struct json_object *v;

	if (!json_object_object_get_ex(ev, field, &v) || !json_object_is_type(v, json_type_int)) {
		tc_fail(st, idx, "no integer \"%s\"", field);
		return false;
	}
	*out = json_object_get_int64(v);
	if (*out < 0) {
		tc_fail(st, idx, "negative \"%s\" %" PRId64, field, *out);
		return false;
	}
	return true;
}

static inline void tc_event(struct tc_state *st, size_t idx, struct json_object *ev)
{
	struct tc_counts *c = &st->r->c;
	struct json_object *v;
	const char *ph, *name = NULL, *cat = NULL;
	int64_t pid, tid;
	double ts = 0;

	c->events++;
	if (!json_object_is_type(ev, json_type_object)) {
		tc_fail(st, idx, "not an object");
		return;
	}
	if (!json_object_object_get_ex(ev, "ph", &v) || !json_object_is_type(v, json_type_string) ||
	    strlen(ph = json_object_get_string(v)) != 1 || !strchr("BEXiICbnestfPONDMRcSTp()", ph[0])) {
		tc_fail(st, idx, "no known \"ph\"");
		return;
	}
	if (json_object_object_get_ex(ev, "name", &v)) {
		if (!json_object_is_type(v, json_type_string)) {
			tc_fail(st, idx, "\"name\" is not a string");
			return;
		}
		name = json_object_get_string(v);
	} else if (ph[0] != 'E') {
		tc_fail(st, idx, "%c without a name", ph[0]);
		return;
	}
	if (json_object_object_get_ex(ev, "cat", &v)) {
		if (!json_object_is_type(v, json_type_string)) {
			tc_fail(st, idx, "\"cat\" is not a string");
			return;
		}
		cat = json_object_get_string(v);
	}
	if (!tc_int_field(st, idx, ev, "pid", &pid) || !tc_int_field(st, idx, ev, "tid", &tid))
		return;
	if (!tc_all_finite(ev)) {
		tc_fail(st, idx, "a number that is not finite");
		return;
	}
	if (ph[0] == 'M') {
		c->meta++;
		tc_meta(st, idx, ev, name);
		return;
	}
	if (!json_object_object_get_ex(ev, "ts", &v) || !tc_number(v, &ts)) {
		tc_fail(st, idx, "%c without a numeric ts", ph[0]);
		return;
	}
	if (ts < 0) {
		tc_fail(st, idx, "negative ts %.3f", ts);
		return;
	}
	switch (ph[0]) {
	case 'B':
	case 'E':
		ph[0] == 'B' ? c->B++ : c->E++;
		tc_be(st, idx, ev, ph[0], name, cat, pid, tid, ts);
		break;
	case 'X':
		c->X++;
		tc_x(st, idx, ev, pid, tid, ts);
		break;
	case 'b':
	case 'e':
	case 'n':
		ph[0] == 'b' ? c->b++ : ph[0] == 'e' ? c->e++ : c->n++;
		tc_async_ev(st, idx, ev, ph[0], name, cat, ts);
		break;
	case 's':
	case 't':
	case 'f':
		ph[0] == 's' ? c->s++ : ph[0] == 'f' ? c->f++ : c->other++;
		tc_flow_ev(st, idx, ev, ph[0], name, cat, pid, tid, ts);
		break;
	default:
		c->other++;
	}
}

/* Whether a slice of track (@pid, @tid) encloses @ts. */
static inline bool tc_bound(struct tc_state *st, int64_t pid, int64_t tid, double ts)
{
	char key[48];
	size_t *slot;
	const struct tc_track *t;
	int x;

	snprintf(key, sizeof(key), "%" PRId64 ":%" PRId64, pid, tid);
	slot = tc_map_get(&st->track_map, key, false, NULL);
	if (!slot)
		return false;
	t = &st->tracks[*slot];
	/* Outermost slices of each kind do not overlap: the last one from before @ts. */
	for (x = 0; x < 2; x++) {
		size_t lo = 0, hi = t->n_top[x];

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (t->top[x][mid].lo <= ts)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && t->top[x][lo - 1].hi >= ts)
			return true;
	}
	return false;
}

/* The end of the document: what is left open, flows, counts. */
static inline void tc_finish(struct tc_state *st)
{
	struct tc_counts *c = &st->r->c;
	size_t i;

	for (i = 0; i < st->n_tracks; i++) {
		struct tc_track *t = &st->tracks[i];

		if (t->n_be)
			tc_fail(st, SIZE_MAX, "%zu B left open on track %" PRId64 "/%" PRId64
				" (innermost \"%s\")", t->n_be, t->pid, t->tid, t->be[t->n_be - 1].name);
		if (t->any_be || t->any_x)
			c->tracks++;
	}
	for (i = 0; i < st->n_async; i++)
		if (st->async[i].n)
			tc_fail(st, SIZE_MAX, "async \"%s\" left open", st->async[i].open[st->async[i].n - 1].name);
	for (i = 0; i < st->n_flows; i++) {
		const struct tc_flow *fl = &st->flows[i];

		if (fl->n_s != 1 || fl->n_f != 1) {
			tc_fail(st, SIZE_MAX, "flow \"%s\": %u s and %u f", fl->name_s ? fl->name_s :
				fl->name_f ? fl->name_f : "", fl->n_s, fl->n_f);
			continue;
		}
		if (strcmp(fl->name_s, fl->name_f))
			tc_fail(st, SIZE_MAX, "flow s \"%s\" ends as \"%s\"", fl->name_s, fl->name_f);
		if (fl->ts_f < fl->ts_s)
			tc_fail(st, SIZE_MAX, "flow \"%s\" ends at %.3f before it begins at %.3f",
				fl->name_s, fl->ts_f, fl->ts_s);
		c->flows++;
		if (!tc_bound(st, fl->pid_s, fl->tid_s, fl->ts_s) ||
		    !fl->bp_e || !tc_bound(st, fl->pid_f, fl->tid_f, fl->ts_f))
			c->unbound++;
	}
}

static inline void tc_state_fini(struct tc_state *st)
{
	size_t i;

	for (i = 0; i < st->n_tracks; i++) {
		free(st->tracks[i].be);
		free(st->tracks[i].x);
		free(st->tracks[i].top[0]);
		free(st->tracks[i].top[1]);
	}
	for (i = 0; i < st->n_async; i++)
		free(st->async[i].open);
	free(st->tracks);
	free(st->async);
	free(st->flows);
	tc_map_fini(&st->track_map);
	tc_map_fini(&st->async_map);
	tc_map_fini(&st->flow_map);
}

/* Check the parsed document @root; returns the number of violations. */
static inline uint64_t tc_check_json(struct json_object *root, struct tc_result *r)
{
	struct tc_state st = { .r = r };
	struct json_object *evs = root, *v;
	size_t i, n;

	r->violations = 0;
	memset(&r->c, 0, sizeof(r->c));
	if (json_object_is_type(root, json_type_object)) {
		if (!json_object_object_get_ex(root, "traceEvents", &evs)) {
			tc_fail(&st, SIZE_MAX, "no \"traceEvents\"");
			return r->violations;
		}
		if (json_object_object_get_ex(root, "displayTimeUnit", &v) &&
		    (!json_object_is_type(v, json_type_string) ||
		     (strcmp(json_object_get_string(v), "ns") && strcmp(json_object_get_string(v), "ms"))))
			tc_fail(&st, SIZE_MAX, "\"displayTimeUnit\" is neither \"ns\" nor \"ms\"");
	}
	if (!json_object_is_type(evs, json_type_array)) {
		tc_fail(&st, SIZE_MAX, "the events are not an array");
		return r->violations;
	}
	n = json_object_array_length(evs);
	for (i = 0; i < n; i++)
		tc_event(&st, i, json_object_array_get_idx(evs, i));
	tc_finish(&st);
	tc_state_fini(&st);
	return r->violations;
}

/*
 * Parse @len bytes at @buf (strict UTF-8) and check them. Returns the
 * number of violations (a document that does not parse is one), with
 * *@root the document when @root is not NULL (the caller puts it).
 */
static inline uint64_t tc_check_buf(const char *buf, size_t len, struct tc_result *r,
				    struct json_object **root)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *doc = NULL;
	enum json_tokener_error jerr;

	if (root)
		*root = NULL;
	if (!tok)
		abort();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	doc = json_tokener_parse_ex(tok, buf, (int)len);
	jerr = json_tokener_get_error(tok);
	if (doc && jerr == json_tokener_success && tok->char_offset < (int)len) {
		size_t k;

		for (k = (size_t)tok->char_offset; k < len; k++)
			if (!strchr(" \t\r\n", buf[k]))
				break;
		if (k < len)
			jerr = json_tokener_error_parse_unexpected;
	}
	if (!doc || jerr != json_tokener_success) {
		r->violations = 1;
		memset(&r->c, 0, sizeof(r->c));
		if (r->log)
			fprintf(r->log, "# trace: not JSON: %s at byte %d\n",
				json_tokener_error_desc(jerr == json_tokener_success ?
							json_tokener_continue : jerr),
				tok->char_offset);
		json_object_put(doc);
		json_tokener_free(tok);
		return 1;
	}
	json_tokener_free(tok);
	tc_check_json(doc, r);
	if (root)
		*root = doc;
	else
		json_object_put(doc);
	return r->violations;
}

static inline void tc_print_counts(FILE *f, const struct tc_counts *c)
{
	fprintf(f, "# events %" PRIu64 ": M %" PRIu64 " B %" PRIu64 " E %" PRIu64 " X %" PRIu64
		" b %" PRIu64 " e %" PRIu64 " s %" PRIu64 " f %" PRIu64 " other %" PRIu64 "\n",
		c->events, c->meta, c->B, c->E, c->X, c->b, c->e, c->s, c->f, c->other + c->n);
	fprintf(f, "# tracks %" PRIu64 " async %" PRIu64 " flows %" PRIu64 " unbound %" PRIu64
		" max_depth %" PRIu64 "\n", c->tracks, c->async, c->flows, c->unbound, c->max_depth);
}

#endif /* NSIGHT_TRACE_CHECK_LIB_H */
