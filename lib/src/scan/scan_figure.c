/* SPDX-License-Identifier: MIT */
/*
 * A scan's figure and caches (issue 38): each point's figure beside its time (the contest's
 * metric, or its first event when events were given: the mean a run over the point's runs,
 * with its interval, fitted as the time is), and, for a parameter in bytes, cpu0's data and
 * unified caches from sysfs (through the library's reader: a recorded tree works) placed
 * among the points, with where the cost per byte breaks, measured: the cost of one more
 * byte (the slope between two points: a start-up cost drops out) across a cache's size (from
 * the last point at or below it to the first above) over the slope just below it (the two
 * points before), with its interval from the points' standard errors at their confidence
 * (on the log scale); a break when that interval is above 1.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "scan/scan_inner.h"

#define FIG_MAX_RUNS 10000

/* pbench_stats_fit() of a scan's points at the scan's confidence; a parameter that takes 0 or
 * less is no model with its reason (the fields as with no points), not an error of the scan. */
int pb_scan_fit(const struct pbench_scan *s, const double *x, const double *y,
		const double *sem, size_t m, struct pbench_fit *fit)
{
	fit->size = sizeof(*fit);
	for (size_t i = 0; i < m; i++) {
		if (x[i] > 0)
			continue;
		int rc = pbench_stats_fit(x, y, sem, 0, s->confidence, fit);

		fit->reason = "the parameter takes a value of 0 or below: the curves (log n, n^k) "
			      "need every value above 0";
		return rc;
	}
	return pbench_stats_fit(x, y, sem, m, s->confidence, fit);
}

/* Point i's value of parameter k, with one parameter (the figure's fit and the caches are
 * of one): its list's i-th. */
static double val(const struct pbench_scan *s, int i, int k)
{
	return s->p[k].v[i % s->p[k].nv];
}

/* The figure's name: the contest's metric, or its first event when events were given. */
static const char *figure_name(const struct pbench_scan *s)
{
	const struct pbench_runs *r = pbench_contest_runs(s->c, 0);

	if (s->co.metric && *s->co.metric && strcasecmp(s->co.metric, "wall-time"))
		return s->co.metric;
	if (s->co.events && *s->co.events && r && pbench_runs_nr_events(r) > 0)
		return pbench_runs_event_name(r, 0);
	return NULL;
}

static void figure_side(struct pbench_scan *s, int k, double *v)
{
	struct pb_scan_side *sd = &s->side[k];
	double x[PBENCH_SCAN_MAX_POINTS], y[PBENCH_SCAN_MAX_POINTS], sem[PBENCH_SCAN_MAX_POINTS];
	size_t m = 0;

	for (int i = 0; i < s->npoints; i++) {
		const struct pbench_runs *r = pbench_contest_runs(s->c, i * s->nsides + k);
		int n = r ? pbench_runs_values(r, 0, s->figure, v, FIG_MAX_RUNS) : -ENOENT;
		size_t kept = 0;

		for (int j = 0; j < n && j < FIG_MAX_RUNS; j++)
			if (isfinite(v[j]))
				v[kept++] = v[j];
		sd->fig[i].size = sizeof(sd->fig[i]);
		sd->fig_have[i] = kept >= 2 && !pbench_stats_summary(v, kept, NULL, &sd->fig[i]);
		if (sd->fig_have[i] && s->np == 1) {
			x[m] = val(s, i, 0);
			y[m] = sd->fig[i].mean;
			sem[m++] = sd->fig[i].sem;
		}
	}
	sd->fig_fitted = s->np == 1 && !pb_scan_fit(s, x, y, sem, m, &sd->fig_fit);
}

void pb_scan_figure_collect(struct pbench_scan *s)
{
	struct pb_fail_saved saved;
	const char *name = figure_name(s);
	double *v;

	free(s->figure);
	s->figure = NULL;
	if (!name || !(s->figure = strdup(name)))
		return;
	if (!(v = malloc(FIG_MAX_RUNS * sizeof(*v)))) {
		free(s->figure);
		s->figure = NULL;
		return;
	}
	pb_fail_save(&saved);	/* a figure not made is "n/a", not the scan's error */
	for (int k = 0; k < s->nsides; k++)
		figure_side(s, k, v);
	pb_fail_restore(&saved);
	free(v);
}

/* "48K" (sysfs's size): bytes, or -1. */
static double size_bytes(const char *t)
{
	char *end;
	double v = strtod(t, &end);

	if (end == t || v <= 0)
		return -1;
	return *end == 'K' ? v * 1024 : *end == 'M' ? v * 1048576 : *end == 'G' ? v * 1073741824 : v;
}

void pb_scan_caches_read(struct pbench_scan *s)
{
	int top = 0;

	s->ncache = 0;
	if (s->bytes_k < 0)
		return;
	pb_recorded_begin();	/* PBENCH_SYSFS_ROOT: a recorded machine's caches */
	for (int x = 0; x < 16 && s->ncache < PB_SCAN_MAX_CACHES; x++) {
		char path[128], type[32], size[32];
		long level;
		double b;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/type", x);
		if (pb_read_file(path, type, sizeof(type)) < 0)
			break;
		if (!strcmp(type, "Instruction"))
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", x);
		if (pb_read_long(path, &level) || level < 1 || level > 9)
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", x);
		if (pb_read_file(path, size, sizeof(size)) < 0 || (b = size_bytes(size)) <= 0)
			continue;
		struct pb_scan_cache *c = &s->cache[s->ncache++];

		c->level = (int)level;
		c->bytes = b;
		snprintf(c->name, sizeof(c->name), "L%d%s", c->level,
			 !strcmp(type, "Data") ? "d" : "");
		top = c->level > top ? c->level : top;
	}
	pb_recorded_end();
	for (int c = 0; c < s->ncache; c++)
		s->cache[c].llc = s->cache[c].level == top && top > 1;
}

const char *pb_scan_fmt_bytes(char *buf, size_t len, double b)
{
	if (b >= 1073741824 && fmod(b, 1073741824) == 0)
		snprintf(buf, len, "%.0f GiB", b / 1073741824);
	else if (b >= 1048576 && fmod(b, 1048576) == 0)
		snprintf(buf, len, "%.0f MiB", b / 1048576);
	else if (b >= 1024 && fmod(b, 1024) == 0)
		snprintf(buf, len, "%.0f KiB", b / 1024);
	else
		snprintf(buf, len, "%.0f B", b);
	return buf;
}

int pb_scan_cache_break(const struct pbench_scan *s, const struct pb_scan_side *sd, int c,
			int fig, int *i, int *j, double *r, double *lo, double *hi)
{
	const struct pbench_summary *sum = fig ? sd->fig : sd->sum;
	const int *have = fig ? sd->fig_have : sd->have;
	double size = s->cache[c].bytes, below = -INFINITY, above = INFINITY, before = -INFINITY;
	double s1, s2, v1, v2, z, rel;
	size_t n;
	int h = -1;

	*i = *j = -1;
	*r = *lo = *hi = NAN;
	for (int p = 0; p < s->npoints; p++) {	/* one parameter: the points' values */
		double v = val(s, p, s->bytes_k);

		if (!have[p] || v <= 0)
			continue;
		if (v <= size && v > below)
			below = v, *i = p;
		if (v > size && v < above)
			above = v, *j = p;
	}
	for (int p = 0; *i >= 0 && p < s->npoints; p++) {	/* the point before i */
		double v = val(s, p, s->bytes_k);

		if (have[p] && v < below && v > before)
			before = v, h = p;
	}
	if (*i < 0 || *j < 0 || h < 0 || !(sum[*i].sem > 0))
		return 0;
	/* the cost of one more byte: the slope below the cache (h to i) and across it (i to j) */
	s1 = (sum[*i].mean - sum[h].mean) / (below - before);
	s2 = (sum[*j].mean - sum[*i].mean) / (above - below);
	if (!(s1 > 0) || !(s2 > 0))	/* a slope in the noise: no ratio */
		return 0;
	v1 = (sum[*i].sem * sum[*i].sem + sum[h].sem * sum[h].sem) / ((below - before) *
								      (below - before));
	v2 = (sum[*j].sem * sum[*j].sem + sum[*i].sem * sum[*i].sem) / ((above - below) *
								       (above - below));
	/* At the scan's confidence (its fit's, 99.9% by default), not the points' own 95%: a scan
	 * judges two or three caches at once, and at 95% a program with no break showed one at L1d
	 * in make test under load (t_scan's compute-only program). Student's t on the fewest
	 * runs of the three points. */
	n = sum[h].n < sum[*i].n ? sum[h].n : sum[*i].n;
	n = sum[*j].n < n ? sum[*j].n : n;
	z = n >= 2 ? pbench_stats_t_quantile(s->confidence, (double)(n - 1)) : NAN;
	if (!(z > 0))
		return 0;
	*r = s2 / s1;
	rel = z * sqrt(v1 / (s1 * s1) + v2 / (s2 * s2 + 1e-300));
	*lo = *r * exp(-rel);
	*hi = *r * exp(rel);
	return *lo > 1;
}

void pb_scan_cache_words(const struct pbench_scan *s, const struct pb_scan_side *sd, int c,
			 int fig, char *out, size_t len)
{
	const struct pb_scan_cache *ca = &s->cache[c];
	const char *pn = s->p[s->bytes_k].name;
	char b[32];
	double r, lo, hi;
	int i, j, brk = pb_scan_cache_break(s, sd, c, fig, &i, &j, &r, &lo, &hi);

	pb_scan_fmt_bytes(b, sizeof(b), ca->bytes);
	if (i < 0 || j < 0) {
		snprintf(out, len, "%s%s %s: %s the scan's points (%s %.15g-%.15g)", ca->name,
			 ca->llc ? " (LLC)" : "", b, i < 0 ? "below" : "above", pn, s->p[s->bytes_k].v[0],
			 s->p[s->bytes_k].v[s->p[s->bytes_k].nv - 1]);
		return;
	}
	if (!isfinite(r)) {
		snprintf(out, len, "%s%s %s: the working set leaves it between %s=%.15g and "
			 "%s=%.15g; %s a byte more: n/a (a slope there is not above 0: the points "
			 "differ less than their noise)", ca->name, ca->llc ? " (LLC)" : "", b, pn,
			 val(s, i, s->bytes_k), pn, val(s, j, s->bytes_k), fig ? s->figure : "the time");
		return;
	}
	snprintf(out, len, "%s%s %s: the working set leaves it between %s=%.15g and %s=%.15g; "
		 "%s a byte more costs %.3gx what it did below (%.3g-%.3g, %.4g%%): %s", ca->name,
		 ca->llc ? " (LLC)" : "", b, pn, val(s, i, s->bytes_k), pn, val(s, j, s->bytes_k),
		 fig ? s->figure : "the time", r, lo, hi, 100 * s->confidence,
		 brk ? "a break" : "no break measured there");
}

void pb_scan_fig_fit_words(const struct pbench_scan *s, const struct pb_scan_side *sd, char *out,
			   size_t len)
{
	const struct pbench_fit *f = &sd->fig_fit;
	const char *m = pbench_fit_model_name(f->model), *ru = pbench_fit_model_name(f->runner_up);

	if (!sd->fig_fitted || f->model == PBENCH_FIT_MODEL_NONE) {
		snprintf(out, len, "fit of %s: n/a%s%s", s->figure, f->reason ? ": " : "",
			 f->reason ? f->reason : "");
		return;
	}
	char g[32], er[40];

	if (f->model == PBENCH_FIT_MODEL_NK)
		snprintf(g, sizeof(g), "n^%.3g", f->k);
	else
		snprintf(g, sizeof(g), "%s", m);
	if (!isfinite(f->evidence_ratio))
		snprintf(er, sizeof(er), "more than 10^300");
	else if (f->evidence_ratio >= 1000)
		snprintf(er, sizeof(er), "10^%d", (int)floor(log10(f->evidence_ratio)));
	else
		snprintf(er, sizeof(er), "%.3g", f->evidence_ratio);
	if (f->inconclusive)
		snprintf(out, len, "fit of %s: inconclusive between O(%s) and O(%s) (the likeliest "
			 "%.4g x %s + %.4g)", s->figure, m, ru, f->b, g, f->a);
	else if (f->model == PBENCH_FIT_MODEL_1)
		snprintf(out, len, "fit of %s: constant, %.4g (%.4g%% interval %.4g-%.4g)", s->figure,
			 f->a, 100 * f->confidence, f->a_lo, f->a_hi);
	else
		snprintf(out, len, "fit of %s: grows as O(%s): %.4g x %s + %.4g (%.4g%% interval "
			 "of b %.4g-%.4g); O(%s) is %s times less likely", s->figure, m, f->b, g, f->a,
			 100 * f->confidence, f->b_lo, f->b_hi, ru, er);
}
