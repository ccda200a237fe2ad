/* SPDX-License-Identifier: MIT */
/*
 * The change points of a stored series: its points (every machine's, oldest first) handed to
 * stats/changepoint.c, a new segment wherever the machine's fingerprint changes so that
 * nothing is compared across two machines, and each change given back with the commits it
 * lies between.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "stats/changepoint.h"
#include "history/history.h"

void pb_history_changes_free(struct pbench_history *h)
{
	for (size_t i = 0; i < 2 * h->nchanges; i++)
		free(h->change_strs[i]);
	free(h->change_strs);
	free(h->changes);
	for (int i = 0; i < 3; i++) {
		free(h->verdict_strs[i]);
		h->verdict_strs[i] = NULL;
	}
	h->change_strs = NULL;
	h->changes = NULL;
	h->nchanges = 0;
}

/* Whether every point has runs, all finite: then they are the samples of the tests. */
static int runs_usable(const struct pbench_history *h)
{
	for (size_t i = 0; i < h->npoints; i++) {
		const struct pbench_history_record *r = &h->points[i].rec;

		if (!r->n_runs)
			return 0;
		for (size_t k = 0; k < r->n_runs; k++)
			if (!isfinite(r->run_values[k]))
				return 0;
	}
	return h->npoints > 0;
}

/*
 * The power of two that brings the largest |value| (runs' too) to [1, 2): the statistics
 * square and sum the values, which overflows to inf past ~1e154 (30 points of 1e307 and 10 of
 * 1.7e308 were "no change") and underflows to 0 below ~1e-154 (a variance of 0, a p of 0).
 * Scaling by a power of two is exact; relative changes and p are the same, and the means are
 * scaled back (keep()). Returns the exponent: the values are multiplied by 2^-e.
 */
static int scale_exp(const struct pbench_history *h)
{
	double m = 0;

	for (size_t i = 0; i < h->npoints; i++) {
		const struct pbench_history_record *r = &h->points[i].rec;

		if (isfinite(r->value))
			m = fmax(m, fabs(r->value));
		for (size_t k = 0; k < r->n_runs; k++)
			if (isfinite(r->run_values[k]))
				m = fmax(m, fabs(r->run_values[k]));
	}
	return m > 0 ? ilogb(m) : 0;
}

/* The points into a change-point series, scaled by 2^-e; *segments counts the fingerprints'
 * stretches. */
static int feed(struct pbench_history *h, struct pb_cp_series *cs, int e, int *segments)
{
	int samples = runs_usable(h), rc = 0;
	double *runs = NULL;
	size_t cap = 0;

	*segments = h->npoints ? 1 : 0;
	for (size_t i = 0; i < h->npoints && !rc; i++) {
		const struct pbench_history_record *r = &h->points[i].rec;
		unsigned flags = 0;

		if (i && strcmp(r->fingerprint, h->points[i - 1].rec.fingerprint)) {
			flags = PB_CP_SEGMENT;
			(*segments)++;
		}
		if (samples && r->n_runs > cap) {
			double *nr = realloc(runs, r->n_runs * sizeof(*runs));

			if (!nr) {
				free(runs);
				return -ENOMEM;
			}
			runs = nr;
			cap = r->n_runs;
		}
		for (size_t k = 0; samples && k < r->n_runs; k++)
			runs[k] = ldexp(r->run_values[k], -e);
		rc = pb_cp_series_append(cs, samples ? NAN : ldexp(r->value, -e),
					 samples ? runs : NULL, samples ? r->n_runs : 0, flags);
		if (rc)
			rc = pb_fail(rc, "history: point %zu (record %lld): its value %g cannot be "
				     "analyzed", i, (long long)r->id, r->value);
	}
	free(runs);
	return rc ? rc : pb_cp_series_analyze(cs);
}

/* The change points found, their means scaled back by 2^e. */
static int keep(struct pbench_history *h, const struct pb_cp_series *cs, int e)
{
	size_t n = pb_cp_series_count(cs);

	h->changes = calloc(n ? n : 1, sizeof(*h->changes));
	h->change_strs = calloc(2 * (n ? n : 1), sizeof(char *));
	if (!h->changes || !h->change_strs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct pbench_history_change *c = &h->changes[i];
		const struct pbench_history_record *a, *b;
		struct pb_cp cp;
		int rc = pb_cp_series_get(cs, i, &cp);

		if (rc)
			return rc;
		a = &h->points[cp.index - 1].rec;
		b = &h->points[cp.index].rec;
		h->nchanges = i + 1;
		c->size = sizeof(*c);
		c->index = (int)cp.index;
		c->id_before = a->id;
		c->id_after = b->id;
		c->rev_before = h->change_strs[2 * i] = strdup(a->rev);
		c->rev_after = h->change_strs[2 * i + 1] = strdup(b->rev);
		if (!c->rev_before || !c->rev_after)
			return -ENOMEM;
		c->time_ns = b->time_ns;
		c->mean_before = ldexp(cp.mean_before, e);
		c->mean_after = ldexp(cp.mean_after, e);
		c->rel = cp.rel;
		c->rel_lo = cp.rel_lo;
		c->rel_hi = cp.rel_hi;
		if (!(cp.mean_before > 0))	/* against 0 or a negative level: no relative size */
			c->rel = c->rel_lo = c->rel_hi = NAN;
		c->p = cp.p;
		c->direction = cp.direction;
	}
	return 0;
}

static const struct pbench_history_changes_opts changes_defaults = PBENCH_HISTORY_CHANGES_OPTS_INIT;

int pbench_history_changes(struct pbench_history *h, int64_t series_id,
			   const struct pbench_history_changes_opts *opts,
			   int *segments)
{
	struct pbench_history_changes_opts o = changes_defaults;
	struct pb_cp_series *cs = NULL;
	struct pb_cp_opts co;
	int rc, n, seg = 0, e;

	if (!h)
		return pb_fail(-EINVAL, "%s(): h is NULL", __func__);
	if (opts && (rc = PB_CHECK_STRUCT(opts, pbench_history_changes_opts, 0,
					  "PBENCH_HISTORY_CHANGES_OPTS_INIT")))
		return rc;
	if (opts)
		pb_copy_in(&o, sizeof(o), opts);
	pb_history_changes_free(h);
	n = pb_history_read_points(h, "s.name = (SELECT name FROM series WHERE id = $1) AND "
				   "s.metric = (SELECT metric FROM series WHERE id = $1)",
				   &PB_HV_I(series_id), 1);
	if (n <= 0)
		return n < 0 ? n : pb_fail(-ENOENT, "%s(): no series %lld in the history",
					   __func__, (long long)series_id);
	co = (struct pb_cp_opts){ .p = o.p, .min_rel = o.min_rel, .window = o.window,
				  .min_segment = o.min_segment };
	rc = pb_cp_series_new(&co, &cs);
	e = scale_exp(h);
	if (!rc)
		rc = feed(h, cs, e, &seg);
	if (!rc)
		rc = keep(h, cs, e);
	pb_cp_series_free(cs);
	if (rc) {
		pb_history_changes_free(h);
		return rc;
	}
	if (segments)
		*segments = seg;
	return (int)h->nchanges;
}

int pbench_history_change_get(struct pbench_history *h, int i,
			      struct pbench_history_change *out)
{
	int rc = PB_CHECK_STRUCT(out, pbench_history_change, 0, NULL);

	if (rc)
		return rc;
	if (!h || i < 0 || (size_t)i >= h->nchanges)
		return pb_fail(-EINVAL, "%s(): change %d of %zu (call pbench_history_changes() "
			       "first)", __func__, i, h ? h->nchanges : 0);
	pb_copy_out(out, &h->changes[i], sizeof(h->changes[i]));
	return 0;
}
