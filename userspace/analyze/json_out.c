// SPDX-License-Identifier: MIT
#include <string.h>

#include "base/version.h"
#include "json_out.h"

void jo_add(struct json_object *o, const char *key, struct json_object *v, int *err)
{
	if (!o || !v || json_object_object_add(o, key, v)) {
		json_object_put(v);
		*err = -1;
	}
}

void jo_add_null(struct json_object *o, const char *key, int *err)
{
	if (!o || json_object_object_add(o, key, NULL))
		*err = -1;
}

void jo_add_u64(struct json_object *o, const char *key, uint64_t v, int *err)
{
	jo_add(o, key, json_object_new_uint64(v), err);
}

void jo_add_i64(struct json_object *o, const char *key, int64_t v, int *err)
{
	jo_add(o, key, json_object_new_int64(v), err);
}

void jo_add_f(struct json_object *o, const char *key, double v, int *err)
{
	jo_add(o, key, json_object_new_double(v), err);
}

void jo_add_str(struct json_object *o, const char *key, const char *v, int *err)
{
	jo_add(o, key, json_object_new_string(v), err);
}

void jo_add_bool(struct json_object *o, const char *key, bool v, int *err)
{
	jo_add(o, key, json_object_new_boolean(v), err);
}

void jo_push(struct json_object *arr, struct json_object *v, int *err)
{
	if (!arr || !v || json_object_array_add(arr, v)) {
		json_object_put(v);
		*err = -1;
	}
}

static void js_indent(struct nsight_jstream *js, int depth)
{
	for (int i = 0; i < depth; i++)
		fputs("  ", js->f);
}

/* What comes before a member or element at the current depth. */
static void js_member(struct nsight_jstream *js, const char *key)
{
	if (js->depth) {
		if (js->any[js->depth])
			fputs(",\n", js->f);
		js->any[js->depth] = true;
		js_indent(js, js->depth);
	}
	if (key) {
		struct json_object *k = json_object_new_string(key);

		if (!k) {
			js->err = -1;
			return;
		}
		fputs(json_object_to_json_string_ext(k, NSIGHT_JSON_FLAGS), js->f);
		fputs(": ", js->f);
		json_object_put(k);
	}
}

void nsight_js_init(struct nsight_jstream *js, FILE *f)
{
	memset(js, 0, sizeof(*js));
	js->f = f;
}

void nsight_js_open(struct nsight_jstream *js, const char *key, bool array)
{
	if (js->depth == NSIGHT_JSON_DEPTH) {
		js->err = -1;
		return;
	}
	js_member(js, key);
	fputs(array ? "[\n" : "{\n", js->f);
	js->depth++;
	js->any[js->depth] = false;
	js->array[js->depth] = array;
}

void nsight_js_close(struct nsight_jstream *js)
{
	if (!js->depth) {
		js->err = -1;
		return;
	}
	if (js->any[js->depth])
		fputc('\n', js->f);
	js_indent(js, js->depth - 1);
	fputc(js->array[js->depth] ? ']' : '}', js->f);
	js->depth--;
}

void nsight_js_put(struct nsight_jstream *js, const char *key, struct json_object *v)
{
	const char *p;

	js_member(js, key);
	if (!v) {
		fputs("null", js->f);
		return;
	}
	/* JSON strings hold no raw newline: each one is the printer's, indent it. */
	for (p = json_object_to_json_string_ext(v, NSIGHT_JSON_FLAGS); *p; p++) {
		fputc(*p, js->f);
		if (*p == '\n')
			js_indent(js, js->depth);
	}
	json_object_put(v);
}

void nsight_js_put_members(struct nsight_jstream *js, struct json_object *o)
{
	if (!o) {
		js->err = -1;
		return;
	}
	json_object_object_foreach(o, key, val)
		nsight_js_put(js, key, json_object_get(val));
	json_object_put(o);
}

void nsight_jsink_put(struct nsight_jsink *s, const char *key, struct json_object *v)
{
	if (s->js) {
		if (!v)
			*s->err = -1;
		nsight_js_put(s->js, key, v);
	} else if (key)
		jo_add(s->tree, key, v, s->err);
	else
		jo_push(s->tree, v, s->err);
}

struct nsight_jsink nsight_jsink_open(struct nsight_jsink *s, const char *key, bool array)
{
	struct json_object *c;

	if (s->js) {
		nsight_js_open(s->js, key, array);
		return (struct nsight_jsink){ NULL, s->js, s->err };
	}
	c = array ? json_object_new_array() : json_object_new_object();
	/* Added now: what the parent gets after it comes after it, as in a stream. */
	nsight_jsink_put(s, key, json_object_get(c));
	if (*s->err) {
		json_object_put(c);
		c = NULL;
	}
	return (struct nsight_jsink){ c, NULL, s->err };
}

void nsight_jsink_close(struct nsight_jsink *s)
{
	if (s->js)
		nsight_js_close(s->js);
	else
		json_object_put(s->tree);
	s->tree = NULL;
}

void nsight_jsink_put_members(struct nsight_jsink *s, struct json_object *o)
{
	if (!o) {
		*s->err = -1;
		return;
	}
	if (s->js) {
		nsight_js_put_members(s->js, o);
		return;
	}
	json_object_object_foreach(o, key, val) {
		if (val)
			nsight_jsink_put(s, key, json_object_get(val));
		else
			jo_add_null(s->tree, key, s->err);
	}
	json_object_put(o);
}

int jo_put(struct json_object *o)
{
	if (!o) {
		fprintf(stderr, "nsight-analyze: out of memory\n");
		return NSIGHT_EXIT_FAIL;
	}
	fputs(json_object_to_json_string_ext(o, NSIGHT_JSON_FLAGS), stdout);
	fputc('\n', stdout);
	json_object_put(o);
	return NSIGHT_EXIT_OK;
}
