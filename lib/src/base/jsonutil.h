/* SPDX-License-Identifier: MIT */
/* What the library's JSON writers (report_json.c, jitter_report.c, runs_json.c,
 * samples_report.c, check_report.c, events_report.c) share. Never installed. */
#ifndef PBENCH_JSONUTIL_H
#define PBENCH_JSONUTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

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

static inline json_t *pb_json_str_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

/* The machine that wrote the document (pbench_host_info()), and when: UTC, ISO 8601. */
static inline json_t *pb_json_host(void)
{
	struct pbench_host h = { .size = sizeof(h) };
	char date[32] = "";
	time_t t;
	struct tm tm;

	if (pbench_host_info(&h))
		return json_null();
	t = (time_t)h.time_s;
	if (gmtime_r(&t, &tm))
		strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "hostname", pb_json_str_or_null(h.hostname),
			 "kernel", pb_json_str_or_null(h.kernel),
			 "arch", pb_json_str_or_null(h.arch),
			 "cpu_model", pb_json_str_or_null(h.cpu_model),
			 "cpus_online", h.cpus_online > 0 ? json_integer(h.cpus_online) : json_null(),
			 "cpus_allowed", h.cpus_allowed > 0 ? json_integer(h.cpus_allowed)
							    : json_null(),
			 "date", pb_json_str_or_null(date));
}

/* The head of every document the library writes: schema (PBENCH_JSON_SCHEMA), version, the
 * host that wrote it, and the clock of what was measured here (not of an analysis of files
 * measured elsewhere, nor of the findings of a check). */
static inline void pb_json_head(json_t *root, int measured, int *bad)
{
	SET(root, "schema", json_integer(PBENCH_JSON_SCHEMA));
	SET(root, "pbench_version", json_string(pbench_version()));
	SET(root, "host", pb_json_host());
	if (measured)
		SET(root, "clock", pb_json_clock());
}

/* json.c: a summary's figures, the ones in its unit named with suffix ("_ns" for times,
 * "" for plain numbers). */
json_t *pb_json_summary(const struct pbench_summary *s, const char *suffix, int *bad);
/* One memory figure (the schema's memory_figure): exact (the same in every batch or run), the
 * mean, the summary. */
json_t *pb_json_mem_figure(const struct pbench_summary *s, int exact, int *bad);
/* Write root (indented, in order, a newline) and release it: -ENOMEM when bad (nothing is
 * written), -EIO when writing failed. */
int pb_json_dump(json_t *root, int bad, FILE *f);
/* mem_command.c: a command's runs counted by the preloaded allocator shim (pbench stat's and
 * compare's "memory"); null for none. */
json_t *pb_mem_runs_json(const struct pbench_mem_run *runs, int n, int *bad);
/* One memory figure over n runs or calls (the schema's memory_figure). */
json_t *pb_mem_figure_json(const double *x, int n, int *bad);
/* report_json.c: a and b compared on one memory figure (the schema's memory_comparison). */
json_t *pb_mem_comparison_json(const struct pbench_mem_comparison *m, int *bad);

#endif
