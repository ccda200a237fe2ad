/* SPDX-License-Identifier: MIT */
/* What the library's JSON writers (report_json.c, jitter_report.c, runs_json.c) share. Never
 * installed. */
#ifndef PBENCH_JSONUTIL_H
#define PBENCH_JSONUTIL_H

#include <math.h>
#include <stdint.h>

#include <jansson.h>

#include "pbench.h"

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

/* The one shape of the clock in every document: what it is, its rate and where that came
 * from, and what reading it costs and resolves. null when it cannot be read. */
static inline json_t *pb_json_clock(void)
{
	struct pbench_clock_info ci = { .size = sizeof(ci) };

	if (pbench_clock_info(&ci))
		return json_null();
	return json_pack("{s:s, s:o, s:s, s:o, s:o, s:o}",
			 "kind", pbench_clock_kind_name(ci.kind), "hz", unum(ci.hz),
			 "freq_source", pbench_freq_source_name(ci.freq_source),
			 "read_cost_ns", num(ci.read_cost_ns),
			 "region_cost_ns", num(ci.region_cost_ns),
			 "resolution_ns", num(ci.resolution_ns));
}

/* The head of every document the library writes: schema, version, clock. */
static inline void pb_json_head(json_t *root, int *bad)
{
	SET(root, "schema", json_integer(PBENCH_JSON_SCHEMA));
	SET(root, "pbench_version", json_string(pbench_version()));
	SET(root, "clock", pb_json_clock());
}

#endif
