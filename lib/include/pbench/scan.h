/* SPDX-License-Identifier: MIT */
/* pbench/scan.h - part of pbench.h (include <pbench.h>; the parts come in data-flow order,
 * each including the one before it).
 *
 * Parameter scans (issue 38): one or more parameters, each with its values (the points are
 * their cartesian product, the last parameter varying fastest), a command (or several, each a
 * "side" compared with the first at every point) or a function run at every point. The points
 * are the entrants of one contest (pbench_contest_*), so they run interleaved, in a fresh
 * random order each round: a machine that drifts during the scan spreads the drift over every
 * point instead of bending the curve. With one parameter, how the time grows with it is
 * fitted (pbench_stats_fit()). The writers: text, JSON (schema/scan.schema.json), CSV,
 * Markdown and an SVG of the time against the parameter.
 */
#ifndef PBENCH_H_SCAN
#define PBENCH_H_SCAN

#include "contest.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PBENCH_SCAN_MAX_PARAMS 4	/* parameters of one scan */
#define PBENCH_SCAN_MAX_POINTS 256	/* points of one scan (times its sides) */
#define PBENCH_SCAN_MAX_SIDES 8		/* commands compared at every point */

struct pbench_scan_opts {
	size_t size;
	/* How the points run (NULL: PBENCH_CONTEST_OPTS_INIT); the scan adds
	 * PBENCH_CONTEST_NO_CHECK and PBENCH_CONTEST_FULL_BUDGET (a fixed number of rounds:
	 * set min_rounds = max_rounds) and compares with nothing (reference 0). Its metric
	 * (or, without one, the first of its events when events is given) is each point's
	 * figure: its mean a run beside the time in every writer, a second panel of the SVG,
	 * fitted too; the time's fit stays the fit (pbench_scan_fit()). */
	const struct pbench_contest_opts *contest;
	/* Commands compared at every point (0: 1), named by side_names (NULL, or a NULL name:
	 * none; with several sides every one needs a name). */
	int nr_sides;
	const char *const *side_names;
	/* A function scanned (Google Benchmark's Range): called once a run with the point's
	 * value of the first parameter (its return is counted, not used). With fn, the points'
	 * entrants are made by pbench_scan_run() (one side, no pbench_scan_add()). */
	int (*fn)(void *arg, double value);
	void *arg;
	/* The parameter whose values are sizes in bytes (a working set): the text and the SVG
	 * then place cpu0's data caches (L1d, L2, the LLC; their sizes from sysfs) among the
	 * points, and say where the time per byte (or the figure's) breaks. NULL: none. */
	const char *bytes_param;
};
#ifdef __cplusplus	/* see PBENCH_MEASURE_OPTS_INIT */
#define PBENCH_SCAN_OPTS_INIT \
	([] { struct pbench_scan_opts pbench_o_ = {}; pbench_o_.size = sizeof(pbench_o_); \
	      return pbench_o_; }())
#else
#define PBENCH_SCAN_OPTS_INIT { .size = sizeof(struct pbench_scan_opts) }
#endif

struct pbench_scan;

/* Make a scan: its contest is made now (pbench_contest_new()'s errors: an event, a metric, a
 * CPU), -EINVAL for bad opts, -ENOMEM. */
PBENCH_API int pbench_scan_new(struct pbench_scan **out, const struct pbench_scan_opts *opts);
PBENCH_API void pbench_scan_free(struct pbench_scan *s);
/* Add parameter name (copied; {name} in a command is the CLI's) with its n values, before
 * any point is added: its index, or -EINVAL (NULL, empty, scanned twice, more than
 * PBENCH_SCAN_MAX_PARAMS, no values, a NaN), -E2BIG (more than PBENCH_SCAN_MAX_POINTS points). */
PBENCH_API int pbench_scan_add_param(struct pbench_scan *s, const char *name,
				     const double *values, size_t n);
/* The points (the product of the parameters' value counts; 0 before the first). */
PBENCH_API int pbench_scan_points(const struct pbench_scan *s);
/* The value of parameter k at point i (NaN outside). */
PBENCH_API double pbench_scan_value(const struct pbench_scan *s, int i, int k);
/* Parameter k's name (NULL outside). */
PBENCH_API const char *pbench_scan_param_name(const struct pbench_scan *s, int k);
/* Point i of side k, as an entrant: the points in order, each point's sides in order (point 0
 * side 0, point 0 side 1, ..., point 1 side 0 ...); e->name NULL: "n=1000" (with several
 * sides "NAME n=1000"). pbench_contest_add()'s errors, -EINVAL out of order or with fn. */
PBENCH_API int pbench_scan_add(struct pbench_scan *s, int i, int k,
			       const struct pbench_contest_entrant *e);
/* Run the points' rounds (every point added, or made from fn), then gather each point's
 * summary, the ratios to the first side and the fit: pbench_contest_run()'s errors (-EINTR:
 * stopped; what ran before is gathered when a round was complete). */
PBENCH_API int pbench_scan_run(struct pbench_scan *s);
/* The scan's contest (its info, its outcome), owned by the scan. */
PBENCH_API struct pbench_contest *pbench_scan_contest(const struct pbench_scan *s);

struct pbench_scan_point {
	size_t size;
	const char *name;		/* "n=1000,threads=4" (owned by the scan) */
	int measured;			/* 1: it has a summary (pbench_scan_summary()) */
	/* sides after the first: its time over the first side's at this point (geometric
	 * means, Welch on the logs, at the scan's confidence); NaN when not measured */
	double ratio, ratio_lo, ratio_hi;
};
/* Point i of side k after the run: -EINVAL outside, -ENODATA before the run. */
PBENCH_API int pbench_scan_point(const struct pbench_scan *s, int k, int i,
				 struct pbench_scan_point *out);
/* Its summary in ns: -ENODATA when it has no times. */
PBENCH_API int pbench_scan_summary(const struct pbench_scan *s, int k, int i,
				   struct pbench_summary *ns);
/* Side k's fit of the time against the one parameter: -ENODATA with several parameters or
 * before the run, pbench_stats_fit()'s errors. */
PBENCH_API int pbench_scan_fit(const struct pbench_scan *s, int k, struct pbench_fit *out);
/* Side k's fit in words, one paragraph ("grows as n: 12.1 ns x n + 1.02 ms (99.9% interval
 * of b ...); n log n is 10^4 times less likely"): the length, or pbench_scan_fit()'s errors. */
PBENCH_API int pbench_scan_fit_text(const struct pbench_scan *s, int k, char *buf, size_t len);
/* The report in format fmt (enum pbench_report_format: text, JSON, CSV, Markdown, SVG: the
 * time against the one parameter): -EINVAL for another fmt (SVG: with several parameters),
 * -ENODATA before the run, the write's error. */
PBENCH_API int pbench_scan_write(const struct pbench_scan *s, int fmt, FILE *f);

#ifdef __cplusplus
}
#endif
#endif /* PBENCH_H_SCAN */
