/* SPDX-License-Identifier: MIT */
/* pbench/report.h - part of pbench.h (include <pbench.h>; the parts come in data-flow order,
 * each including the one before it). */
#ifndef PBENCH_H_REPORT
#define PBENCH_H_REPORT

#include "runs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Reports (format.c, report.c, report_json.c): numbers with no more digits than the
 * measurement supports
 */

/*
 * Format value ± err: the error rounded to 2 significant digits, the value to the same decimal
 * place, e.g. "12.345 ± 0.012". unit "ns" scales to ns/us/ms/s by the value ("1.2345 ± 0.0012
 * ms"); NULL or "" prints the bare numbers. err <= 0 or NaN: the value with 6 significant
 * digits. Returns the length written (snprintf semantics).
 */
PBENCH_API int pbench_format_value(char *buf, size_t len, double value, double err,
				   const char *unit);
/* A time in ns with an explicit number of significant digits and a scaled unit: "1.23 ms". */
PBENCH_API int pbench_format_ns(char *buf, size_t len, double ns, int digits);
/* The flags of pbench_format_parse(). */
enum pbench_format_parse_flags {
	PBENCH_FORMAT_PARSE_INT = 1 << 0,	/* a whole number only ("2.0" is one, "2.5" not) */
	PBENCH_FORMAT_PARSE_PCT = 1 << 1,	/* a trailing '%' is allowed (and not in *out) */
};
/*
 * A number as people write it (the inverse of the formatting above, and the one grammar of
 * pbench's options): [+-]digits[.digits][e[+-]digits], whole text, no spaces, no hex, no inf
 * or nan; "%" at the end with PBENCH_FORMAT_PARSE_PCT ("5%" is 5). 0 and *out, or, with *out
 * untouched: -EINVAL (NULL, empty, not of that form, not whole with PBENCH_FORMAT_PARSE_INT),
 * -ERANGE (out of a double's range).
 */
PBENCH_API int pbench_format_parse(const char *s, unsigned flags, double *out);

/* Any summary (pbench_stats_summary), as pbench analyze prints it: mean ± standard error,
 * the interval, median, min, trimmed mean, max, stddev and MAD at the precision the error
 * supports; unit as for pbench_format_value. Errors: -EINVAL, -EIO (write error). */
PBENCH_API int pbench_summary_write_text(const struct pbench_summary *s, FILE *f,
					 const char *label, const char *unit);

/*
 * The report of a result, as text a person reads at a glance, written to f: label (NULL:
 * none), samples × iterations; mean ± standard error per iteration in a scaled unit, and the
 * interval, median, min ("raw speed") and trimmed mean at the mean's precision; the overhead
 * per iteration and whether it was subtracted; the rule that stopped sampling; cv, spread and
 * the outliers (Tukey), with each outlier sample's noise snapshot in words (up to 10, the
 * farthest from the median; samples numbered from 0 as in pbench_result_sample()); each
 * event per iteration, or why it was not counted; a warning per result flag and for a
 * multimodal distribution. f is flushed. Errors: -EINVAL (NULL r or f), -EIO (writing to f
 * failed).
 */
PBENCH_API int pbench_result_write_text(const struct pbench_result *r, FILE *f,
					const char *label);

/*
 * The whole result as JSON (schema PBENCH_JSON_SCHEMA, schema/result.schema.json) on f, one
 * object: schema, pbench_version, host, clock, label (NULL: null), settings, events[] (each
 * event's status and reason, once), iterations, overhead_ns_per_iter, stop_rule, flags
 * (names), summary (ns per iteration), and samples[] each with ticks, iterations,
 * ns_per_iter, its noise snapshot and its counters by event name (null when not opened). Numbers that are not finite, and settings the
 * result does not keep, are null. f is flushed. Errors: -EINVAL (NULL r or f, a label that is
 * not UTF-8), -ENOMEM, -EIO (writing to f failed).
 */
PBENCH_API int pbench_result_write_json(const struct pbench_result *r, FILE *f,
					const char *label);

/*
 * A comparison as text: both sides (mean ± standard error, median, min), the ratio of the
 * means with its interval at the test's confidence, Welch's t, df and p, and the verdict in
 * words. Labels NULL: "a" and "b". Errors: -EINVAL (NULL c or f, c->size too small for both
 * summaries), -EIO.
 */
PBENCH_API int pbench_comparison_write_text(const struct pbench_comparison *c, FILE *f,
					    const char *label_a, const char *label_b);

/*
 * A comparison as JSON (schema PBENCH_JSON_SCHEMA, schema/comparison.schema.json): host,
 * clock, labels, verdict, pairs, ratio, ratio_lo, ratio_hi, welch
 * (t, df, p, diff_ns, diff_lo_ns, diff_hi_ns; null when no test could be run) and the two
 * summaries a and b. Errors as pbench_result_write_json().
 */
PBENCH_API int pbench_comparison_write_json(const struct pbench_comparison *c, FILE *f,
					    const char *label_a, const char *label_b);

/*
 * Plots (plot.c). One series of runs: times in ns in the order run, and per run whether it is
 * an outlier and why (cause[i], NULL or "" for none). name NULL: "series N"; color any SVG
 * colour ("#d95f02"), NULL for a default. outlier and cause may be NULL.
 */
struct pbench_plot_series {
	size_t size;			/* sizeof(struct pbench_plot_series) */
	const char *name;
	const char *color;
	const double *ns;
	size_t n;
	const unsigned char *outlier;
	const char *const *cause;
};
/* Start from this (a struct with .size 0 is refused): every other field 0 or NULL. */
#ifdef __cplusplus	/* see PBENCH_MEASURE_OPTS_INIT */
#define PBENCH_PLOT_SERIES_INIT \
	([] { struct pbench_plot_series pbench_o_ = {}; pbench_o_.size = sizeof(pbench_o_); \
	      return pbench_o_; }())
#else
#define PBENCH_PLOT_SERIES_INIT { .size = sizeof(struct pbench_plot_series) }
#endif

/*
 * The runs of s[0..nseries-1] (pointers: each struct of the caller's size) as a self-contained
 * SVG 1.1 on f: left, each run's time in run order, the series
 * one after the other, outliers ringed with "run N: <time>: <cause>" as their <title>
 * (tooltip); right, each series' histogram on the same time axis with its median. Titles, a
 * legend, a scaled time unit with round ticks; text escaped, font-family sans-serif, no
 * script. Up to 8 series. f is flushed. Errors: -EINVAL (NULL f or s, nseries outside 1..8, a
 * size too small, no runs at all, a time that is negative or not finite), -ENOMEM, -EIO.
 */
PBENCH_API int pbench_plot_runs_svg(const struct pbench_plot_series *const *s, int nseries,
				    FILE *f, const char *title);

#ifdef __cplusplus
}
#endif
#endif /* PBENCH_H_REPORT */
