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
#include <json-c/json.h>

void jo_add(struct json_object *o, const char *key, struct json_object *v, int *err);
void jo_add_null(struct json_object *o, const char *key, int *err);
void jo_add_u64(struct json_object *o, const char *key, uint64_t v, int *err);
void jo_add_i64(struct json_object *o, const char *key, int64_t v, int *err);
void jo_add_f(struct json_object *o, const char *key, double v, int *err);
void jo_add_str(struct json_object *o, const char *key, const char *v, int *err);
void jo_add_bool(struct json_object *o, const char *key, bool v, int *err);
void jo_push(struct json_object *arr, struct json_object *v, int *err);

#endif /* NSIGHT_JSON_OUT_H */
