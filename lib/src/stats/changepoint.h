/* SPDX-License-Identifier: MIT */
/*
 * Change points of a series of measurements (changepoint.c): where the level of a benchmark's
 * history moved, the statistical core of issue 24 (results over time). Private for now: the
 * public API is the history's (pbench_history_changes()). The method (issue 37): binary
 * segmentation with the standardized CUSUM of robust (Huber) scores, each split tested by a
 * permutation test of the scan's maximum (a false change in a stationary series with
 * probability p, whatever its length), the step as a Hodges-Lehmann shift with its
 * Mann-Whitney interval; changepoint.c says why.
 */
#ifndef PBENCH_CHANGEPOINT_H
#define PBENCH_CHANGEPOINT_H

#include <stddef.h>

#include "pbench.h"

/* The options; a field left 0 takes its default. */
struct pb_cp_opts {
	double p;		/* significance threshold of a change, in (0, 0.5), the chance
				 * of a false change in a stationary series; 0: 0.001 */
	double min_rel;		/* smallest |mean_after / mean_before - 1| reported (0.02 is
				 * 2%); 0: any significant change */
	size_t window;		/* checked (>= 4 * min_segment, <= 1000; 0: 50) and unused:
				 * the windows of the method before issue 37 */
	size_t min_segment;	/* points each side of a change needs, >= 2; 0: 3 */
};

#define PB_CP_P_DEFAULT PBENCH_HISTORY_CHANGES_DEFAULT_P
#define PB_CP_WINDOW_DEFAULT PBENCH_HISTORY_CHANGES_DEFAULT_WINDOW
#define PB_CP_MIN_SEGMENT_DEFAULT PBENCH_HISTORY_CHANGES_DEFAULT_MIN_SEGMENT

/* One change point: the level moved at point index (the first point of the new level). */
struct pb_cp {
	size_t index;
	size_t before, after;		/* the points compared: [before, index) and [index, after) */
	size_t n_before, n_after;	/* the points of each side */
	double p;			/* of the permutation test of the scan that split the
					 * stretch it was found in, over every split of it (a bound
					 * where one proves it smaller); <= opts.p */
	double p_points;		/* the same (the tests are over the points) */
	double mean_before, mean_after;	/* of the points' values */
	double rel;			/* the step: the Hodges-Lehmann shift of the sides' logs,
					 * exp - 1 (of the values over the median before when some
					 * are not positive) */
	double rel_lo, rel_hi;		/* its Mann-Whitney interval at confidence 1 - opts.p; NaN
					 * when the sides are too short for one */
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
/* Bring the change points up to date with the points appended: the segments that have new
 * points are analyzed again, whole. Errors: -ENOMEM. */
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
