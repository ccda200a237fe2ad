/* SPDX-License-Identifier: MIT */
/*
 * Change points of a series of measurements (changepoint.c): where the level of a benchmark's
 * history moved, the statistical core of issue 24 (results over time). Private for now: the
 * public API, the store and the CLI come later. The method is E-Divisive means (Matteson and
 * James 2014) with a Welch t-test in place of the permutation test, over sliding windows and
 * with a merge of weak candidates, as Hunter/Apache Otava adapted it (Fleming et al. 2023;
 * Otava's docs/MATH.md); changepoint.c says what pbench does differently and why.
 */
#ifndef PBENCH_CHANGEPOINT_H
#define PBENCH_CHANGEPOINT_H

#include <stddef.h>

#include "pbench.h"

/* The options; a field left 0 takes its default. */
struct pb_cp_opts {
	double p;		/* significance threshold of a change, in (0, 0.5); 0: 0.001 */
	double min_rel;		/* smallest |mean_after / mean_before - 1| reported (0.02 is
				 * 2%); 0: any significant change */
	size_t window;		/* points in one window of the split step, >= 4 * min_segment
				 * and <= 1000; 0: 50 */
	size_t min_segment;	/* points each side of a change needs, >= 2; 0: 3 */
};

#define PB_CP_P_DEFAULT PBENCH_HISTORY_CHANGES_DEFAULT_P
#define PB_CP_WINDOW_DEFAULT PBENCH_HISTORY_CHANGES_DEFAULT_WINDOW
#define PB_CP_MIN_SEGMENT_DEFAULT PBENCH_HISTORY_CHANGES_DEFAULT_MIN_SEGMENT

/* One change point: the level moved at point index (the first point of the new level). */
struct pb_cp {
	size_t index;
	size_t before, after;		/* the points compared: [before, index) and [index, after) */
	size_t n_before, n_after;	/* the values the test used (samples, or points) */
	double p;			/* two-sided p of the two sides' values (samples, or points):
					 * Welch's t (pbench_stats_welch()) with Hsu's df,
					 * min(n_before, n_after) - 1 */
	double p_points;		/* the same over the points' values (= p without samples);
					 * a change needs both below opts.p */
	double mean_before, mean_after;	/* of those values */
	double rel;			/* mean_after / mean_before - 1 */
	double rel_lo, rel_hi;		/* its interval at confidence 1 - opts.p (Welch's, with
					 * Welch-Satterthwaite's df); NaN when both sides are
					 * constant */
	int direction;			/* +1: the level went up, -1: down */
};

/* A series with its change points, kept up to date as points are added. */
struct pb_cp_series;

/* flags of pb_cp_series_append() */
enum pb_cp_flags {
	/* This point starts a new segment (the machine changed): no change point is ever
	 * reported across it, and nothing before it is compared with anything after. */
	PB_CP_SEGMENT = 1 << 0,
};

/* A new empty series (opts NULL: the defaults). Errors: -EINVAL (an option out of range,
 * said through pb_fail()), -ENOMEM. */
int pb_cp_series_new(const struct pb_cp_opts *opts, struct pb_cp_series **out);
void pb_cp_series_free(struct pb_cp_series *s);

/*
 * Append one point without analyzing: its value, and the samples of its runs (NULL, 0: none).
 * Either every point of a series carries samples (then the tests are over the samples) or
 * none does. value NaN with samples: their mean. Errors: -EINVAL (a NaN or infinite value or
 * sample, samples on some points only), -ENOMEM; the series is unchanged then.
 */
int pb_cp_series_append(struct pb_cp_series *s, double value, const double *samples,
			size_t nsamples, unsigned flags);
/* Bring the change points up to date with the points appended: only the windows that the new
 * points reach are searched again. Errors: -ENOMEM. */
int pb_cp_series_analyze(struct pb_cp_series *s);
/* pb_cp_series_append() then pb_cp_series_analyze(). */
int pb_cp_series_add(struct pb_cp_series *s, double value, const double *samples,
		     size_t nsamples, unsigned flags);

size_t pb_cp_series_points(const struct pb_cp_series *s);
/* The change points found by the last pb_cp_series_analyze(), in order of index. */
size_t pb_cp_series_count(const struct pb_cp_series *s);
/* Change point i (< count) with its statistics, computed now from the points. Errors:
 * -EINVAL (i out of range). */
int pb_cp_series_get(const struct pb_cp_series *s, size_t i, struct pb_cp *out);

#endif
