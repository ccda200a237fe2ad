/* SPDX-License-Identifier: MIT */
/*
 * The drift of the same code between occasions on this machine (pbench_history_drift()), for
 * the gate against a stored baseline: one stored run tells nothing of how far this command's
 * time moves from one occasion to the next here, but the history holds the occasions it was
 * measured on, with their commits and the machine's fingerprint. The points of one commit on
 * one machine differ only by the occasion (and by their own sampling error, which the gate's
 * interval already counts: so this is an upper bound of the drift, never less). A point's
 * level is the median of its runs where it kept them. On the public calls, so on any backend.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "history/history.h"

/* The series named name on the machine of fingerprint fp: the wall-clock time's metric
 * before another. Its id, or 0. */
static int64_t series_here(struct pbench_history *h, const char *name, const char *fp)
{
	int n = pbench_history_series_count(h);
	int64_t id = 0;
	int best = 0;

	for (int i = 0; i < n; i++) {
		struct pbench_history_series t = { .size = sizeof(t) };
		int rank;

		if (pbench_history_series_get(h, i, &t) || strcmp(t.name, name) ||
		    strcmp(t.fingerprint, fp))
			continue;
		rank = !strcmp(t.metric, "time_ns") || !strcmp(t.metric, "real_time_ns") ? 2 : 1;
		if (rank > best) {
			best = rank;
			id = t.id;
		}
	}
	return id;
}

struct pt {
	const char *rev;
	double y;
};

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A point's level, the log of: the median of its runs where it kept 3 or more (the gate's
 * statistic is a median's, and a slow run moves a mean), else its value. NaN: none. */
static double level(const struct pbench_history_record *r)
{
	double *x, m = NAN;
	size_t k = 0;

	if (r->n_runs >= 3 && r->run_values && (x = malloc(r->n_runs * sizeof(*x)))) {
		for (size_t i = 0; i < r->n_runs; i++)
			if (r->run_values[i] > 0 && isfinite(r->run_values[i]))
				x[k++] = r->run_values[i];
		if (k >= 3) {
			qsort(x, k, sizeof(*x), cmp_dbl);
			m = k % 2 ? x[k / 2] : 0.5 * (x[k / 2 - 1] + x[k / 2]);
		}
		free(x);
	}
	if (isnan(m))
		m = r->value;
	return m > 0 && isfinite(m) ? log(m) : NAN;
}

static int by_rev(const void *a, const void *b)
{
	return strcmp(((const struct pt *)a)->rev, ((const struct pt *)b)->rev);
}

/* The pooled sd of the logs around each commit's mean, over commits with 2 points or more. */
static void pool(struct pt *p, int n, struct pbench_history_drift *out)
{
	double ss = 0;

	if (n > 1)	/* p is NULL with no points: qsort's base must not be */
		qsort(p, (size_t)n, sizeof(*p), by_rev);
	for (int i = 0, j; i < n; i = j) {
		double m = 0;

		for (j = i; j < n && !strcmp(p[j].rev, p[i].rev); j++)
			m += p[j].y;
		if (j - i < 2)
			continue;
		m /= j - i;
		for (int k = i; k < j; k++)
			ss += (p[k].y - m) * (p[k].y - m);
		out->occasions += j - i;
		out->commits++;
	}
	out->sd = out->occasions > out->commits ?
		  sqrt(ss / (out->occasions - out->commits)) : NAN;
}

int pbench_history_drift(struct pbench_history *h, const char *name,
			 struct pbench_history_drift *out)
{
	struct pbench_history_drift d = { .size = sizeof(d), .sd = NAN };
	char fp[17];
	struct pt *p = NULL;
	int n, k = 0, err;

	if ((err = PB_CHECK_STRUCT(out, pbench_history_drift, 0, NULL)))
		return err;
	if (!h || !name)
		return pb_fail(-EINVAL, "%s(): %s is NULL", __func__, h ? "name" : "h");
	pb_history_fingerprint_here(fp);
	d.series_id = series_here(h, name, fp);
	if (!d.series_id) {
		pb_copy_out(out, &d, sizeof(d));
		return pb_fail(-ENOENT, "history: no series '%s' measured on this machine "
			       "(fingerprint %s)", name, fp);
	}
	n = pbench_history_points(h, d.series_id);
	if (n < 0)
		return n;
	if (n && !(p = calloc((size_t)n, sizeof(*p))))
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		struct pbench_history_record r = { .size = sizeof(r) };

		if (pbench_history_point_get(h, i, &r) || r.dirty || !r.rev || !*r.rev ||
		    isnan(p[k].y = level(&r)))
			continue;	/* a dirty tree is not the commit's code */
		p[k++].rev = r.rev;	/* the history's until the next points read */
	}
	pool(p, k, &d);
	free(p);
	pb_copy_out(out, &d, sizeof(d));
	if (!(d.occasions > d.commits))
		return pb_fail(-ENOENT, "history: '%s' has %d point%s on this machine, no commit "
			       "measured on 2 occasions (clean trees)", name, n, n == 1 ? "" : "s");
	return 0;
}
