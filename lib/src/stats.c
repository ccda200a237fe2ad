/* SPDX-License-Identifier: MIT */
/* Summary statistics of a set of samples (the first part of the statistics concept). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int pbench_stats_summary(const double *x, size_t n, const struct pbench_stats_opts *opts,
			 struct pbench_summary *s)
{
	double *sorted, mean = 0, m2 = 0;
	size_t size;

	(void)opts;
	if (!x || !s || s->size == 0 || n == 0)
		return -EINVAL;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, x, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	/* Welford: no catastrophic cancellation when the spread is small against the mean. */
	for (size_t i = 0; i < n; i++) {
		double d = x[i] - mean;

		mean += d / (double)(i + 1);
		m2 += d * (x[i] - mean);
	}
	size = s->size;
	memset(s, 0, size < sizeof(*s) ? size : sizeof(*s));
	s->size = size;
	s->n = n;
	s->min = sorted[0];
	s->max = sorted[n - 1];
	s->mean = mean;
	s->median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	s->stddev = n > 1 ? sqrt(m2 / (double)(n - 1)) : 0;
	s->cv_pct = mean != 0 ? 100 * s->stddev / fabs(mean) : 0;
	s->spread_pct = s->min > 0 ? 100 * (s->max - s->min) / s->min : 0;
	free(sorted);
	return 0;
}

void pbench_welford_add(struct pbench_welford *w, double x)
{
	double d = x - w->mean;

	if (w->n == 0 || x < w->min)
		w->min = x;
	if (w->n == 0 || x > w->max)
		w->max = x;
	w->n++;
	w->mean += d / (double)w->n;
	w->m2 += d * (x - w->mean);
}

double pbench_welford_variance(const struct pbench_welford *w)
{
	return w->n > 1 ? w->m2 / (double)(w->n - 1) : 0;
}

double pbench_welford_sem(const struct pbench_welford *w)
{
	return w->n > 1 ? sqrt(pbench_welford_variance(w) / (double)w->n) : 0;
}

/* Being written: the t distribution, Welch and Mann-Whitney. */
double pbench_stats_t_quantile(double level, double df)
{
	(void)level;
	(void)df;
	return NAN;
}

double pbench_stats_t_cdf(double t, double df)
{
	(void)t;
	(void)df;
	return NAN;
}

int pbench_stats_welch(const double *a, size_t na, const double *b, size_t nb,
		       const struct pbench_stats_opts *opts, struct pbench_welch *out)
{
	(void)a; (void)na; (void)b; (void)nb; (void)opts; (void)out;
	return -ENOSYS;
}

int pbench_stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
			      struct pbench_mann_whitney *out)
{
	(void)a; (void)na; (void)b; (void)nb; (void)out;
	return -ENOSYS;
}
