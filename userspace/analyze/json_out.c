// SPDX-License-Identifier: MIT
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
