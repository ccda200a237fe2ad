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
 * its spread, not its level). beyond_noise: only what exceeds the range four medians of
 * runs with no drift at all would span (their sampling spread, from the runs' own: the
 * median absolute deviation of the logs), taken off in quadrature. -1: out of memory. */
static double drift(const double *x, size_t n, int beyond_noise)
{
	double lo = INFINITY, hi = -INFINITY, *q, *all, sd, noise;
	size_t per = n / 4;

	if (n < 32)
		return 0;
	q = malloc((per + n) * sizeof(*q));
	if (!q)
		return -1;
	all = q + per;
	for (int k = 0; k < 4; k++) {
		double med;

		for (size_t i = 0; i < per; i++)
			q[i] = log(x[(size_t)k * per + i]);
		qsort(q, per, sizeof(*q), cmp_dbl);
		med = median_sorted(q, per);
		lo = fmin(lo, med);
		hi = fmax(hi, med);
	}
	for (size_t i = 0; i < n; i++)
		all[i] = log(x[i]);
	qsort(all, n, sizeof(*all), cmp_dbl);
	sd = median_sorted(all, n);
	for (size_t i = 0; i < n; i++)
		all[i] = fabs(all[i] - sd);
	qsort(all, n, sizeof(*all), cmp_dbl);
	sd = 1.4826 * median_sorted(all, n);
	free(q);
	/* the expected range of 4 normal values is 2.059 of their sd; a median's sd is
	 * 1.2533 sd / sqrt(runs) */
	noise = 2.059 * 1.2533 * sd / sqrt((double)per);
	if (!beyond_noise)
		return hi - lo;
	return hi - lo > noise ? sqrt((hi - lo) * (hi - lo) - noise * noise) : 0;
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
			 "told from not; one stored run cannot gate below %.1f%% here (the allowance "
			 "and this interval's half); for a sure gate compare the old and the new build "
			 "interleaved (pbench compare OLD NEW)", exp(est), iv, expm1(allow) * 100, pct,
			 expm1(allow + fmax(est - lo, hi - est)) * 100);
	else if (rc == 1)
		snprintf(why, len, "worse than the baseline by more than %g%% on %s: %.4gx its %s "
			 "%s%s", pct, what, exp(est), what, iv, aw);
	else if (rc == 0)
		snprintf(why, len, "not worse than the baseline by more than %g%% on %s: %.4gx its "
			 "%s %s%s", pct, what, exp(est), what, iv, aw);
	else
		snprintf(why, len, "undecided: %.4gx the baseline's %s %s, but values measured at "
			 "another moment move by +-%.1f%% here, so more than %g%% worse cannot be "
			 "told from not; one stored run cannot gate below %.1f%% here (the allowance "
			 "and this interval's half); for a sure gate compare the old and the new build "
			 "interleaved (pbench compare OLD NEW --metric %s)", exp(est), what, iv,
			 expm1(allow) * 100, pct, expm1(allow + fmax(est - lo, hi - est)) * 100, what);
}

/* The allowance for another moment that a history measured, in log units: the difference of
 * two occasions of one commit (the baseline's and today's) has sqrt(2) times the sd of one,
 * and its bound at confidence takes Student's t on the degrees of freedom the pooled sd has
 * (occasions less commits). 0 when not known. */
static double drift_allowance(const struct pb_gate_drift *d, double confidence)
{
	int df = d ? d->occasions - d->commits : 0;

	if (!d || !(d->sd >= 0) || !isfinite(d->sd) || df < 1)
		return 0;
	return pbench_stats_t_quantile(confidence, df) * sqrt(2) * d->sd;
}

/* The shift of now over base (sorted logs of each, Hodges-Lehmann) and the allowance: the
 * larger of the two sessions' drifts and floor_pct (floor_log, a history's, in log units,
 * instead when > 0). Into g; -ENOMEM. */
static int estimate_in(const double *base, size_t nb, const double *now, size_t nn,
		       double confidence, double floor_pct, double floor_log, int beyond_noise,
		       struct pb_gate_est *g)
{
	double *lb = sorted_logs(base, nb, &(size_t){ 0 }), *ln, db, dn;
	size_t mb = nb > GATE_MAX_SIDE ? GATE_MAX_SIDE : nb, mn = nn > GATE_MAX_SIDE ?
		GATE_MAX_SIDE : nn;
	int err;

	ln = sorted_logs(now, nn, &(size_t){ 0 });
	db = drift(base, nb, beyond_noise);
	dn = drift(now, nn, beyond_noise);
	err = !lb || !ln || db < 0 || dn < 0 ? -ENOMEM :
	      hodges_lehmann(lb, mb, ln, mn, confidence, &g->est, &g->lo, &g->hi);
	free(lb);
	free(ln);
	g->allow = fmax(floor_log > 0 ? floor_log : floor_pct > 0 ? log1p(floor_pct / 100) : 0,
			fmax(db, dn));
	return err;
}

static int estimate(const double *base, size_t nb, const double *now, size_t nn,
		    double confidence, double floor_pct, int beyond_noise, struct pb_gate_est *g)
{
	return estimate_in(base, nb, now, nn, confidence, floor_pct, 0, beyond_noise, g);
}

static int check_args(const double *base, size_t nb, const double *now, size_t nn, double pct,
		      double confidence, const char *what, const char *why, size_t len)
{
	if (!base || !now || nb < 2 || nn < 2 || !(pct >= 0) || !isfinite(pct) ||
	    !(confidence > 0 && confidence < 1) || (!why && len))
		return pb_fail(-EINVAL, "%s(): two times a side, pct >= 0 and confidence in (0, 1)",
			       __func__);
	for (size_t i = 0; i < nb || i < nn; i++)
		if ((i < nb && !(base[i] > 0 && isfinite(base[i]))) ||
		    (i < nn && !(now[i] > 0 && isfinite(now[i]))))
			return pb_fail(-EINVAL, "%s(): a %s is not positive and finite", __func__,
				       what ? "value" : "time");
	return 0;
}

/* The rule: 1 slower than pct even with the allowance, 0 not even with it, 2 undecided. */
static int decide(const struct pb_gate_est *g, double pct, int higher_better)
{
	double limit = log1p(pct / 100);
	/* on the side that is worse: a higher time, a lower ipc */
	double worse_lo = higher_better ? -g->hi : g->lo, worse_hi = higher_better ? -g->lo : g->hi;

	return worse_lo - g->allow > limit ? 1 : worse_hi + g->allow <= limit ? 0 : 2;
}

int pb_stats_gate_on(const double *base, size_t nb, const double *now, size_t nn, double pct,
		     double confidence, const char *what, int higher_better, double floor_pct,
		     char *why, size_t len)
{
	struct pb_gate_est g = { 0 };
	int err, rc;

	if ((err = check_args(base, nb, now, nn, pct, confidence, what, why, len)))
		return err;
	if ((err = estimate(base, nb, now, nn, confidence, floor_pct, 0, &g)))
		return err;
	rc = decide(&g, pct, higher_better);
	gate_words(rc, pct, g.est, g.lo, g.hi, confidence, g.allow, what, why, len);
	return rc;
}

int pbench_stats_gate(const double *base, size_t nb, const double *now, size_t nn, double pct,
		      double confidence, char *sentence, size_t len)
{
	return pb_stats_gate_on(base, nb, now, nn, pct, confidence, NULL, 0,
				GATE_OCCASION_FLOOR_PCT, sentence, len);
}

/* ---- times adjusted by the speed readings ---------------------------------------------------- */

/* The median of the usable factors of x (NaN without). */
static double median_of(const double *f, size_t n)
{
	double *v = malloc((n ? n : 1) * sizeof(*v)), m = NAN;
	size_t k = 0;

	for (size_t i = 0; v && f && i < n; i++)
		if (f[i] > 0 && isfinite(f[i]))
			v[k++] = f[i];
	if (k) {
		qsort(v, k, sizeof(*v), cmp_dbl);
		m = median_sorted(v, k);
	}
	free(v);
	return m;
}

/* Each time with a reading, times its factor, in run order; how many. */
static size_t adjust(const double *t, const double *f, size_t n, double *out)
{
	size_t k = 0;

	for (size_t i = 0; f && i < n; i++)
		if (f[i] > 0 && isfinite(f[i]))
			out[k++] = t[i] * f[i];
	return k;
}

int pb_stats_gate_estimate(const double *base, const double *base_f, size_t nb,
			   const double *now, const double *now_f, size_t nn, double confidence,
			   double residual_pct, const struct pb_gate_drift *drift,
			   struct pb_gate_est *g)
{
	double known = drift_allowance(drift, confidence);
	double *ab = malloc((nb ? nb : 1) * sizeof(*ab)), *an = malloc((nn ? nn : 1) * sizeof(*an));
	size_t kb = ab ? adjust(base, base_f, nb, ab) : 0, kn = an ? adjust(now, now_f, nn, an) : 0;
	int err;

	memset(g, 0, sizeof(*g));
	g->host = median_of(now_f, nn) / median_of(base_f, nb);
	if (!ab || !an)
		err = -ENOMEM;
	else if (!base_f || !now_f || kb < 2 || kn < 2 || kb * 2 < nb || kn * 2 < nn)
		g->why_not = "the baseline's runs or today's have no speed readings";
	else if (kb < 32 && kn < 32)
		g->why_not = "too few runs with readings to measure the drift left (32 a side)";
	else
		g->adjusted = 1;
	/* a history's drift is of the times themselves: it bounds what is left once adjusted */
	err = !ab || !an ? -ENOMEM : g->adjusted ?
	      estimate_in(ab, kb, an, kn, confidence, residual_pct, known, 1, g) :
	      estimate_in(base, nb, now, nn, confidence, GATE_OCCASION_FLOOR_PCT, known, 0, g);
	if (known > 0) {
		g->occasions = drift->occasions;
		g->commits = drift->commits;
	}
	free(ab);
	free(an);
	return err;
}

int pb_stats_gate_decide(const struct pb_gate_est *g, double pct)
{
	return decide(g, pct, 0);
}

/* What was adjusted, in words: "times adjusted by " and the caller's phrase, or why not. */
static void adjusted_words(char *buf, size_t len, const struct pb_gate_est *g,
			   const char *phrase)
{
	if (g->adjusted)
		snprintf(buf, len, "times adjusted by %s", phrase ? phrase : "each run's speed");
	else
		snprintf(buf, len, "times not adjusted for the machine's speed: %s",
			 g->why_not ? g->why_not : "no readings");
}

/* Where the allowance came from: "measured from 12 occasions of 3 commits of this command on
 * this machine (the history)", or the fixed one said. */
static void source_words(char *buf, size_t len, const struct pb_gate_est *g)
{
	if (g->occasions)
		snprintf(buf, len, " (measured from %d occasions of %d commit%s of this command on "
			 "this machine, the history's)", g->occasions, g->commits,
			 g->commits == 1 ? "" : "s");
	else
		snprintf(buf, len, " (a fixed allowance: no history of this command's occasions on "
			 "this machine)");
}

/* The least slowdown this gate can fail on: the allowance and the interval's lower half,
 * "one stored run cannot gate below N%" said with where the allowance came from. */
static void floor_words(char *buf, size_t len, const struct pb_gate_est *g)
{
	double n = expm1(g->allow + (g->est - g->lo)) * 100;

	if (g->occasions)
		snprintf(buf, len, "; with the allowance this history measured, this gate cannot "
			 "fail a slowdown under %.1f%% (the allowance and this interval's lower "
			 "half)", n);
	else
		snprintf(buf, len, "; one stored run cannot gate below %.1f%% here (the allowance "
			 "and this interval's lower half): a history of this command's occasions on "
			 "this machine measures the allowance instead (pbench compare --occasions "
			 "NAME, with earlier runs kept by --record NAME)", n);
}

int pb_stats_gate_floor_pct(const struct pb_gate_est *g)
{
	return (int)ceil(expm1(g->allow + (g->est - g->lo)) * 100);
}

void pb_stats_gate_words(const struct pb_gate_est *g, int rc, double pct, double confidence,
			 const char *phrase, char *why, size_t len)
{
	char adj[600], iv[96], aw[400] = "", src[160], fl[400];

	snprintf(iv, sizeof(iv), "(%.1f%% interval %.4g-%.4g)", confidence * 100, exp(g->lo),
		 exp(g->hi));
	adjusted_words(adj, sizeof(adj), g, phrase);
	source_words(src, sizeof(src), g);
	floor_words(fl, sizeof(fl), g);
	snprintf(aw, sizeof(aw), "%s +-%.1f%% that times measured at another moment move by%s%s",
		 rc == 1 ? "beyond the" : "even with the", expm1(g->allow) * 100,
		 g->adjusted ? " once adjusted" : "", src);
	if (rc == 1 || rc == 0)
		snprintf(why, len, "%sslower than the baseline by more than %g%%: %.3fx its time %s, "
			 "%s (%s)", rc ? "" : "not ", pct, exp(g->est), iv, aw, adj);
	else
		snprintf(why, len, "undecided: %.3fx the baseline's time %s, but times measured at "
			 "another moment move by +-%.1f%% here%s%s, so more than %g%% slower cannot "
			 "be told from not (%s)%s; for a sure gate compare the old and the new build "
			 "interleaved (pbench compare OLD NEW)", exp(g->est), iv,
			 expm1(g->allow) * 100, g->adjusted ? " once adjusted" : "", src, pct, adj,
			 fl);
}

int pbench_stats_gate_speed(const double *base, const double *base_f, size_t nb,
			    const double *now, const double *now_f, size_t nn, double pct,
			    double confidence, double residual_pct, const char *reading,
			    char *sentence, size_t len)
{
	char *why = sentence;

	struct pb_gate_est g;
	char r[160];
	int err, rc;

	if ((err = check_args(base, nb, now, nn, pct, confidence, NULL, why, len)))
		return err;
	if (!(residual_pct >= 0) || !isfinite(residual_pct))
		return pb_fail(-EINVAL, "%s(): residual_pct is %g, not a percentage >= 0", __func__,
			       residual_pct);
	if ((err = pb_stats_gate_estimate(base, base_f, nb, now, now_f, nn, confidence,
					  residual_pct, NULL, &g)))
		return err;
	rc = decide(&g, pct, 0);
	snprintf(r, sizeof(r), "each run's %s reading: today's host ran at %.2fx of the "
		 "baseline's speed", reading ? reading : "speed", g.host);
	pb_stats_gate_words(&g, rc, pct, confidence, r, why, len);
	return rc;
}
