// SPDX-License-Identifier: MIT
/*
 * json_out.h's stream: a tree written piece by piece (containers opened
 * down to some depth, the subtrees below put whole) gives the bytes
 * json-c gives for the whole tree; the sink puts the same members in the
 * same order into a tree.
 */
#include "analyze/json_out.h"
#include "test.h"

/* A tree with nesting, empty containers, escapes and a newline in a string. */
static struct json_object *sample(void)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	struct json_object *in = json_object_new_object(), *deep = json_object_new_array();
	int err = 0;

	jo_add_str(o, "name", "a \"quoted\"/path\nwith a newline", &err);
	jo_add_u64(o, "n", 18446744073709551615ULL, &err);
	jo_add_f(o, "share", 0.25, &err);
	jo_add(o, "empty_object", json_object_new_object(), &err);
	jo_add(o, "empty_array", json_object_new_array(), &err);
	jo_push(deep, json_object_new_int(1), &err);
	jo_push(deep, json_object_new_array(), &err);
	jo_add(in, "deep", deep, &err);
	jo_add_bool(in, "ok", true, &err);
	jo_add_null(in, "none", &err);
	for (int i = 0; i < 3; i++) {
		struct json_object *e = json_object_new_object();

		jo_add_i64(e, "id", i - 1, &err);
		jo_add(e, "inner", json_object_get(in), &err);
		jo_push(a, e, &err);
	}
	jo_add(o, "list", a, &err);
	jo_add(o, "in", in, &err);
	CHECK(!err);
	return o;
}

/* @v written to @js, containers opened down to @depth levels below this one. */
static void stream(struct nsight_jstream *js, const char *key, struct json_object *v, int depth)
{
	enum json_type t = json_object_get_type(v);
	size_t i;

	if (depth <= 0 || (t != json_type_object && t != json_type_array)) {
		nsight_js_put(js, key, json_object_get(v));
		return;
	}
	nsight_js_open(js, key, t == json_type_array);
	if (t == json_type_array) {
		for (i = 0; i < json_object_array_length(v); i++)
			stream(js, NULL, json_object_array_get_idx(v, i), depth - 1);
	} else {
		json_object_object_foreach(v, k, val)
			stream(js, k, val, depth - 1);
	}
	nsight_js_close(js);
}

static void test_stream_bytes(void)
{
	struct json_object *o = sample();
	const char *want = json_object_to_json_string_ext(o, NSIGHT_JSON_FLAGS);

	for (int depth = 1; depth <= 5; depth++) {
		struct nsight_jstream js;
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		REQUIRE(f);
		nsight_js_init(&js, f);
		stream(&js, NULL, o, depth);
		fclose(f);
		CHECK(!js.err && js.depth == 0);
		if (strcmp(buf, want))
			KTAP_FAIL("depth %d: streamed\n%s\nwanted\n%s", depth, buf, want);
		free(buf);
	}
	json_object_put(o);
}

/* The sink into a tree: members in order, containers added when opened. */
static void test_sink_tree(void)
{
	struct json_object *o = json_object_new_object(), *m = json_object_new_object();
	int err = 0;
	struct nsight_jsink s = nsight_jsink_tree(o, &err), arr;

	nsight_jsink_put(&s, "first", json_object_new_int(1));
	arr = nsight_jsink_open(&s, "list", true);
	nsight_jsink_put(&arr, NULL, json_object_new_int(2));
	nsight_jsink_put(&arr, NULL, json_object_new_int(3));
	nsight_jsink_close(&arr);
	jo_add_str(m, "a", "x", &err);
	jo_add_str(m, "b", "y", &err);
	jo_add_null(m, "c", &err);
	nsight_jsink_put_members(&s, m);
	CHECK(!err);
	CHECK_STR_HAS(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
		      "{\"first\":1,\"list\":[2,3],\"a\":\"x\",\"b\":\"y\",\"c\":null}");
	/* A NULL value is an error, in a tree as in a stream. */
	nsight_jsink_put(&s, "bad", NULL);
	CHECK(err);
	json_object_put(o);
}

KTAP_MAIN(
	KTAP_TEST(test_stream_bytes),
	KTAP_TEST(test_sink_tree),
)
