/* SPDX-License-Identifier: MIT */
/* What the library's JSON writers (report_json.c, jitter_report.c, runs_json.c) share. Never
 * installed. */
#ifndef PBENCH_JSONUTIL_H
#define PBENCH_JSONUTIL_H

#include <math.h>
#include <stdint.h>

#include <jansson.h>

/* Every json_object_set_new / json_array_append_new fails (and releases its value) when the
 * value is NULL, which is how an allocation failure anywhere surfaces: *bad remembers it. */
#define SET(o, k, v) (*bad |= json_object_set_new((o), (k), (v)))
#define APPEND(a, v) (*bad |= json_array_append_new((a), (v)))

/* jansson has no NaN or infinity: a number that is not finite is null. */
static inline json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* json_int_t is signed: 2^63 ticks is 97 years at 3 GHz, a count is far below. */
static inline json_t *unum(uint64_t v)
{
	return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

#endif
