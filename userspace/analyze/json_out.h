/* SPDX-License-Identifier: MIT */
/*
 * Building json-c objects for --json output. Every helper takes ownership
 * of the value it adds, and sets *err (never clears it) when json-c fails,
 * so a report is assembled without checking each step and fails once.
 */
#ifndef NSIGHT_JSON_OUT_H
#define NSIGHT_JSON_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>

void jo_add(struct json_object *o, const char *key, struct json_object *v, int *err);
void jo_add_null(struct json_object *o, const char *key, int *err);
void jo_add_u64(struct json_object *o, const char *key, uint64_t v, int *err);
void jo_add_i64(struct json_object *o, const char *key, int64_t v, int *err);
void jo_add_f(struct json_object *o, const char *key, double v, int *err);
void jo_add_str(struct json_object *o, const char *key, const char *v, int *err);
void jo_add_bool(struct json_object *o, const char *key, bool v, int *err);
void jo_push(struct json_object *arr, struct json_object *v, int *err);
/*
 * @o (owned; NULL: out of memory, said on stderr) printed whole on stdout
 * with NSIGHT_JSON_FLAGS and a newline; an exit status.
 */
int jo_put(struct json_object *o);

/*
 * A report written as it is built: the members of the top object and the
 * elements of the large arrays (messages, chains, critical paths) printed
 * one at a time and freed, each small value still a json-c object. The
 * bytes are those json_object_to_json_string_ext() gives for the whole
 * tree with NSIGHT_JSON_FLAGS (each value printed alone, its lines
 * indented to its depth), so a report is the same either way, and its
 * peak memory is its largest element's rather than the whole tree's.
 */
#define NSIGHT_JSON_FLAGS (JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | \
			   JSON_C_TO_STRING_NOSLASHESCAPE)
#define NSIGHT_JSON_DEPTH 32

struct nsight_jstream {
	FILE *f;
	int depth;			/* containers open */
	bool any[NSIGHT_JSON_DEPTH + 1];	/* a member written at each depth */
	bool array[NSIGHT_JSON_DEPTH + 1];
	int err;			/* json-c failed, or too deep */
};

void nsight_js_init(struct nsight_jstream *js, FILE *f);
/* A container as member @key of the open object (NULL: in an array, or the top). */
void nsight_js_open(struct nsight_jstream *js, const char *key, bool array);
void nsight_js_close(struct nsight_jstream *js);
/* @v (owned; NULL: JSON null) as member @key or array element (@key NULL). */
void nsight_js_put(struct nsight_jstream *js, const char *key, struct json_object *v);
/* Each member of the object @o (owned) as a member of the open object. */
void nsight_js_put_members(struct nsight_jstream *js, struct json_object *o);

/*
 * Where a builder puts what it makes: into a json-c tree (the container
 * @tree), or straight to a stream (@js). Builders written against it give
 * both the --json report (streamed) and the trees others need (a line per
 * window, the tests and fuzzers).
 */
struct nsight_jsink {
	struct json_object *tree;
	struct nsight_jstream *js;
	int *err;
};

static inline struct nsight_jsink nsight_jsink_tree(struct json_object *o, int *err)
{
	return (struct nsight_jsink){ o, NULL, err };
}

/* @v (owned; NULL: out of memory, an error) as member @key, or element (@key NULL) of an array. */
void nsight_jsink_put(struct nsight_jsink *s, const char *key, struct json_object *v);
/* A container opened as member @key (NULL in an array): put to the sink returned. */
struct nsight_jsink nsight_jsink_open(struct nsight_jsink *s, const char *key, bool array);
void nsight_jsink_close(struct nsight_jsink *s);
/* Each member of the object @o (owned) as a member of @s. */
void nsight_jsink_put_members(struct nsight_jsink *s, struct json_object *o);

#endif /* NSIGHT_JSON_OUT_H */
