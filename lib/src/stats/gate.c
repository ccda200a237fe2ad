/* SPDX-License-Identifier: MIT */
/*
 * The regression gate against a stored baseline (pbench compare --baseline FILE
 * --fail-if-slower PCT). A baseline was measured at another moment: on a shared machine (a VM,
 * other builds running) the same command's times then and now are not one distribution, and a
 * test that takes them as one (Welch's interval over both, 99.9%) calls the occasion's shift a
 * regression: measured here, the same command failed such a gate 3 times in 10. This gate
 * compares robust statistics (the Hodges-Lehmann shift of the log times, with its
 * distribution-free interval) and widens the threshold by an allowance for the shift between
 * occasions: the larger of what the two sessions show of it (how far their own quarters'
 * medians wander) and a floor measured on this kind of machine. It decides "regression" only
 * when even the allowance cannot explain the slowdown, "no regression" only when even the
 * allowance cannot make one, and says "undecided" otherwise. The strong gate is an interleaved
 * pbench compare of the old and the new build, which has no occasion between them.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "stats/samples.h"

/* The least allowance for the shift between two occasions of the same command, in percent:
 * on the 2-vCPU KVM guests pbench is developed on, with other builds running (load 10 to 12),
 * the same command (the xor workload, 22 ms a run) measured in 20 sessions over 10 minutes
 * took 1.03x to 1.14x its baseline's time in the first 9 and 0.59x to 0.65x in the last 11
 * (kmod-free-docs/compare.md, "A stored baseline"): slower by up to 14% with nothing changed. */
#define GATE_OCCASION_FLOOR_PCT 15.0

/* At most this many values a side enter the pairwise differences: beyond, evenly spaced
 * order statistics (the quantiles kept, the interval a little wider). */
#define GATE_MAX_SIDE 1000

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_sorted(const double *x, size_t n)
{
	return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* The logs of x, sorted, thinned to GATE_MAX_SIDE order statistics; NULL: out of memory. */
static double *sorted_logs(const double *x, size_t n, size_t *out_n)
{
	double *l = malloc(n * sizeof(*l));
	size_t m = n > GATE_MAX_SIDE ? GATE_MAX_SIDE : n;

	if (!l)
		return NULL;
	for (size_t i = 0; i < n; i++)
		l[i] = log(x[i]);
	qsort(l, n, sizeof(*l), cmp_dbl);
	for (size_t i = 0; m < n && i < m; i++)
		l[i] = l[(size_t)((double)i * (double)(n - 1) / (double)(m - 1) + 0.5)];
	*out_n = m;
	return l;
}

/* How far the medians of a session's four quarters (in run order) lie apart, in log units:
 * the drift this session shows; 0 under 32 runs (a quarter's median of fewer than 8 runs is
 * its spread, not its level). -1: out of memory. */
static double drift(const double *x, size_t n)
{
	double lo = INFINITY, hi = -INFINITY, *q;
	size_t per = n / 4;

	if (n < 32)
		return 0;
	q = malloc(per * sizeof(*q));
	if (!q)
		return -1;
	for (int k = 0; k < 4; k++) {
		double med;

		for (size_t i = 0; i < per; i++)
			q[i] = log(x[(size_t)k * per + i]);
		qsort(q, per, sizeof(*q), cmp_dbl);
		med = median_sorted(q, per);
		lo = fmin(lo, med);
		hi = fmax(hi, med);
	}
	free(q);
	return hi - lo;
}

/* The Hodges-Lehmann shift of b over a (sorted logs) and its distribution-free interval at
 * confidence (the order statistics of the pairwise differences that the Mann-Whitney
 * critical value names). -ENOMEM. */
static int hodges_lehmann(const double *a, size_t na, const double *b, size_t nb,
			  double confidence, double *est, double *lo, double *hi)
{
	size_t n = na * nb, k = 0;
	double *d = malloc(n * sizeof(*d)), z, c;

	if (!d)
		return -ENOMEM;
	for (size_t i = 0; i < nb; i++)
		for (size_t j = 0; j < na; j++)
			d[i * na + j] = b[i] - a[j];
	qsort(d, n, sizeof(*d), cmp_dbl);
	z = pbench_stats_t_quantile(confidence, 1e9);	/* the normal's */
	c = (double)n / 2 - z * sqrt((double)n * (double)(na + nb + 1) / 12);
	if (c >= 1)
		k = (size_t)floor(c);
	*est = median_sorted(d, n);
	*lo = d[k];
	*hi = d[n - 1 - k];
	free(d);
	return 0;
}

/* The allowance in words: "beyond the +-15.0% that times measured at another moment move by". */
static void allowance_words(char *buf, size_t len, double allow, const char *what, int beyond)
{
	if (!(allow > 0))
		snprintf(buf, len, "%s", beyond ? "" : ", with no allowance for another moment (a "
			 "count does not move with the machine's speed)");
	else
		snprintf(buf, len, beyond ? ", beyond the +-%.1f%% that %s measured at another "
			 "moment move by" : ", even with +-%.1f%% for %s measured at another moment",
			 expm1(allow) * 100, what ? "values" : "times");
}

static void gate_words(int rc, double pct, double est, double lo, double hi, double confidence,
		       double allow, const char *what, char *why, size_t len)
{
	char aw[160], iv[96];

	snprintf(iv, sizeof(iv), "(%.1f%% interval %.4g-%.4g)", confidence * 100, exp(lo), exp(hi));
	allowance_words(aw, sizeof(aw), allow, what, rc == 1);
	if (!what && rc == 1)
		snprintf(why, len, "slower than the baseline by more than %g%%: %.4gx its time "
			 "%s%s", pct, exp(est), iv, aw);
	else if (!what && rc == 0)
		snprintf(why, len, "not slower than the baseline by more than %g%%: %.4gx its time "
			 "%s%s", pct, exp(est), iv, aw);
	else if (!what)
		snprintf(why, len, "undecided: %.4gx the baseline's time %s, but times measured at "
			 "another moment move by +-%.1f%% here, so more than %g%% slower cannot be "
			 "told from not; for a sure gate compare the old and the new build interleaved "
			 "(pbench compare OLD NEW)", exp(est), iv, expm1(allow) * 100, pct);
	else if (rc == 1)
		snprintf(why, len, "worse than the baseline by more than %g%% on %s: %.4gx its %s "
			 "%s%s", pct, what, exp(est), what, iv, aw);
	else if (rc == 0)
		snprintf(why, len, "not worse than the baseline by more than %g%% on %s: %.4gx its "
			 "%s %s%s", pct, what, exp(est), what, iv, aw);
	else
		snprintf(why, len, "undecided: %.4gx the baseline's %s %s, but values measured at "
			 "another moment move by +-%.1f%% here, so more than %g%% worse cannot be "
			 "told from not; for a sure gate compare the old and the new build "
			 "interleaved (pbench compare OLD NEW --metric %s)", exp(est), what, iv,
			 expm1(allow) * 100, pct, what);
}

int pb_stats_gate_on(const double *base, size_t nb, const double *now, size_t nn, double pct,
		     double confidence, const char *what, int higher_better, double floor_pct,
		     char *why, size_t len)
{
	double *lb = NULL, *ln = NULL, est, lo, hi, allow, db, dn, limit = log1p(pct / 100);
	double worse_lo, worse_hi;
	size_t mb, mn;
	int err, rc;

	if (!base || !now || nb < 2 || nn < 2 || !(pct >= 0) || !isfinite(pct) ||
	    !(confidence > 0 && confidence < 1) || (!why && len))
		return pb_fail(-EINVAL, "%s(): two times a side, pct >= 0 and confidence in (0, 1)",
			       __func__);
	for (size_t i = 0; i < nb || i < nn; i++)
		if ((i < nb && !(base[i] > 0 && isfinite(base[i]))) ||
		    (i < nn && !(now[i] > 0 && isfinite(now[i]))))
			return pb_fail(-EINVAL, "%s(): a %s is not positive and finite", __func__,
				       what ? "value" : "time");
	lb = sorted_logs(base, nb, &mb);
	ln = sorted_logs(now, nn, &mn);
	db = drift(base, nb);
	dn = drift(now, nn);
	err = !lb || !ln || db < 0 || dn < 0 ? -ENOMEM :
	      hodges_lehmann(lb, mb, ln, mn, confidence, &est, &lo, &hi);
	free(lb);
	free(ln);
	if (err)
		return err;
	allow = fmax(floor_pct > 0 ? log1p(floor_pct / 100) : 0, fmax(db, dn));
	/* on the side that is worse: a higher time, a lower ipc */
	worse_lo = higher_better ? -hi : lo;
	worse_hi = higher_better ? -lo : hi;
	rc = worse_lo - allow > limit ? 1 : worse_hi + allow <= limit ? 0 : 2;
	gate_words(rc, pct, est, lo, hi, confidence, allow, what, why, len);
	return rc;
}

int pbench_stats_gate(const double *base, size_t nb, const double *now, size_t nn, double pct,
		      double confidence, char *why, size_t len)
{
	return pb_stats_gate_on(base, nb, now, nn, pct, confidence, NULL, 0,
				GATE_OCCASION_FLOOR_PCT, why, len);
}
