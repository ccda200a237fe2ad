/* SPDX-License-Identifier: MIT */
/*
 * Statistics of samples: the summary every result is reported with, Welford's online mean and
 * variance, Student's t distribution, Welch's t-test and the Mann-Whitney U test.
 *
 * Accuracy is checked against NIST StRD (the univariate summary datasets), against scipy and
 * mpmath (tests/data/gen_reference.py) and in tests/unit/test_stats.c.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "stats/samples.h"

#define DEFAULT_CI_LEVEL	0.95
#define LN_SQRT_2PI	0.918938533204672741780329736406	/* log(sqrt(2 pi)) */
#define LN_SQRT_PI	0.572364942924700087071713675677	/* log(sqrt(pi)) = lgamma(1/2) */
#define LARGE_DF	100	/* from here on, P(T > t) by an asymptotic expansion */

/* Gregg's threshold: a unimodal histogram has mvalue 2 (one rise, one fall), two modes ~4. */
#define MVALUE_BIMODAL	2.4
#define MVALUE_PER_BIN	15	/* samples per bin at least, on average */
#define MVALUE_MAX_BINS	66	/* Sturges: ceil(log2 n) + 1 <= 65 for a 64-bit n */

/* Does the caller's struct (its size field) reach field f? Structs grow at the end. */

/* Values the statistics can be computed on: finite, and 0 or normal. A subnormal value
 * (under DBL_MIN, 2.2e-308) has lost its precision, and its squares underflow: a stddev of 0
 * beside a spread of 100%. Such values are refused, not summarized wrong. */
static int all_finite(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]) || fpclassify(x[i]) == FP_SUBNORMAL)
			return 0;
	return 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The caller's options by the copy rule (zero: the default), or -EINVAL for a bad .size. */
static int copy_opts(const struct pbench_stats_opts *opts, struct pbench_stats_opts *o)
{
	int err;

	memset(o, 0, sizeof(*o));
	if (!opts)
		return 0;
	if ((err = pb_check_struct("pbench_stats_*", "opts", "pbench_stats_opts", opts, 0,
				   "PBENCH_STATS_OPTS_INIT")))
		return err;
	pb_copy_in(o, sizeof(*o), opts);
	return 0;
}

/* The options in effect: NULL or a zero field means the default. */
static int read_opts(const struct pbench_stats_opts *opts, double *level, int *rule)
{
	struct pbench_stats_opts o;
	int err = copy_opts(opts, &o);

	*level = DEFAULT_CI_LEVEL;
	*rule = PBENCH_OUTLIER_TUKEY;
	if (err || !opts)
		return err;
	if (o.ci_level != 0)
		*level = o.ci_level;
	*rule = o.outlier_rule;
	if (!(*level > 0 && *level < 1))
		return pb_fail(-EINVAL, "opts->ci_level is %g, not between 0 and 1", *level);
	if (*rule != PBENCH_OUTLIER_TUKEY && *rule != PBENCH_OUTLIER_3SIGMA)
		return pb_fail(-EINVAL, "opts->outlier_rule %d is not a PBENCH_OUTLIER_*", *rule);
	return 0;
}

/* ---- mean and variance ------------------------------------------------------------------- */

/*
 * sum(x[i] - shift), compensated (Neumaier's variant of Kahan's sum: the error of each addition
 * is kept whichever operand is larger), so that a long sum is as good as its inputs.
 */
static double sum_shifted(const double *x, size_t n, double shift)
{
	double s = 0, c = 0;

	for (size_t i = 0; i < n; i++) {
		double v = x[i] - shift, t = s + v;

		c += fabs(s) >= fabs(v) ? (s - t) + v : (v - t) + s;
		s = t;
	}
	return s + c;
}

static double sum_sq_dev(const double *x, size_t n, double mean)
{
	double s = 0, c = 0;

	for (size_t i = 0; i < n; i++) {
		double d = x[i] - mean, v = d * d, t = s + v;

		c += s >= v ? (s - t) + v : (v - t) + s;
		s = t;
	}
	return s + c;
}

/*
 * Mean and sum of squared deviations (m2) by the corrected two-pass algorithm (Chan, Golub,
 * LeVeque 1983), not by Welford's update: NIST's NumAcc3/NumAcc4 (values of 1e6 and 1e7 that
 * differ in the last digit) are where one-pass updates lose digits, because each update rounds
 * the running mean and the deviations are taken from a mean that is still moving (Welford keeps
 * 11-12 digits there, the textbook sum of squares none). Here the mean is a compensated sum
 * refined by the mean residual; in the hard case, samples within a factor of 2 of the mean,
 * x - mean is exact (Sterbenz), and subtracting (sum of residuals)^2 / n removes what is left
 * of the mean's rounding. On every NIST set m2 agrees with the exact m2 of the doubles given to
 * 13 digits or more.
 */
static void mean_m2(const double *x, size_t n, double *mean, double *m2)
{
	double m = sum_shifted(x, n, 0) / (double)n, r, ss;

	if (!isfinite(m)) {	/* the sum overflowed (samples near DBL_MAX): running mean */
		m = 0;
		for (size_t i = 0; i < n; i++)
			m += (x[i] - m) / (double)(i + 1);
	}
	m += sum_shifted(x, n, m) / (double)n;
	*mean = m;
	if (!m2)
		return;
	r = sum_shifted(x, n, m);
	ss = sum_sq_dev(x, n, m);
	/* Deviations too large to square in a double (samples near 1e154 apart): no m2 to give,
	 * and NaN says so rather than a 0 that fmax would make of inf - inf. */
	*m2 = isfinite(ss) ? fmax(0, ss - r * r / (double)n) : NAN;
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

/* ---- Student's t distribution ------------------------------------------------------------ */

/*
 * lgamma(x) - ((x - 1/2) log x - x + log sqrt(2 pi)) for x >= 10: the Stirling series,
 * B_2k / (2k (2k - 1) x^(2k-1)); at x = 10 the last term kept is 3e-17.
 */
static double lgamma_corr(double x)
{
	static const double c[] = {
		1.0 / 12, -1.0 / 360, 1.0 / 1260, -1.0 / 1680, 1.0 / 1188, -691.0 / 360360,
		1.0 / 156, -3617.0 / 122400,
	};
	double r = 1 / x, r2 = r * r, s = 0;

	for (int i = (int)PB_ARRAY_SIZE(c) - 1; i >= 0; i--)
		s = s * r2 + c[i];
	return s * r;
}

/*
 * log B(a, b). lgamma(a) + lgamma(b) - lgamma(a + b) cancels catastrophically when a is large:
 * at df = 1e7, lgamma(5e6) ~ 7e7 and the answer is ~8, so 8 digits would be lost. Large
 * arguments go through Stirling's formula with the logs combined first (as R's lbeta does).
 */
static double lbeta(double a, double b)
{
	double p = fmin(a, b), q = fmax(a, b), corr;

	if (p >= 10) {
		corr = lgamma_corr(p) + lgamma_corr(q) - lgamma_corr(p + q);
		return -0.5 * log(q) + LN_SQRT_2PI + corr + (p - 0.5) * log(p / (p + q)) +
		       q * log1p(-p / (p + q));
	}
	if (q >= 10) {
		corr = lgamma_corr(q) - lgamma_corr(p + q);
		return lgamma(p) + corr + p - p * log(p + q) + (q - 0.5) * log1p(-p / (p + q));
	}
	return lgamma(p) + lgamma(q) - lgamma(p + q);
}

/* The continued fraction of I_x(a, b) (modified Lentz), good for x < (a + 1) / (a + b + 2). */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = 1 / (fabs(d) < tiny ? tiny : d);
	h = d;
	/* O(sqrt(max(a, b))) terms at worst; the callers' cases need far fewer. */
	for (int m = 1; m <= 10000; m++) {
		double m2 = 2.0 * m, aa, del;

		aa = m * (b - m) * x / ((a - 1 + m2) * (a + m2));
		d = 1 + aa * d;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2));
		d = 1 + aa * d;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-16)
			break;
	}
	return h;
}

/* log(x^a y^b / B(a, b)) with y = 1 - x: each log taken from whichever of x, y is small. */
static double ibeta_logfront(double a, double b, double x, double y)
{
	double lx = x > 0.5 ? log1p(-y) : log(x), ly = y > 0.5 ? log1p(-x) : log(y);

	return a * lx + b * ly - lbeta(a, b);
}

/*
 * The regularized incomplete beta function I_x(a, b). The caller passes y = 1 - x computed on
 * its own: for the t distribution x = df / (df + t^2) is near 1 exactly when y = t^2 / (df + t^2)
 * is small, and 1 - x would have lost y's digits.
 */
static double ibeta(double a, double b, double x, double y)
{
	if (x <= 0)
		return 0;
	if (y <= 0)
		return 1;
	if (x * (a + b + 2) < a + 1)
		return exp(ibeta_logfront(a, b, x, y)) * betacf(a, b, x) / a;
	return 1 - exp(ibeta_logfront(b, a, y, x)) * betacf(b, a, y) / b;
}

/*
 * P(T > t) for large df: DiDonato and Morris's asymptotic expansion of I_x(a, b) for large a and
 * small b (ACM TOMS 708, 1992, routine BGRAT), with b = 1/2, where the incomplete gamma ratio
 * Q(1/2, z) is erfc(sqrt z). The continued fraction cannot be used there: its first
 * denominators are 1 - (a + b) x / (a + 1) with x = df / (df + t^2), which cancels down to
 * about t^2 / df and costs log10(df) digits (4e-10 of P(T > 2) at df = 1e7). Here every term is
 * positive or small; against mpmath the relative error is below 2e-13 where it is used.
 */
static double t_tail_large_df(double t, double df)
{
	const double a = 0.5 * df, b = 0.5, nu = a - 0.25;
	double lnx = -log1p(t * t / df), z = -nu * lnx;
	double q = erfc(sqrt(z)), r = exp(-z) * sqrt(z / M_PI);
	double v = 0.25 / (nu * nu), t2 = 0.25 * lnx * lnx;
	double c[31], d[31], j = q, sum = q, tn = 1, cn = 1, n2 = 0;

	/* sum = Q(b, z) + sum of d_n J_n, with J_n = e^-z z^b / Gamma(b) j_n of TOMS 708 */
	for (int n = 1; n <= 30; n++) {
		double bp2n = b + n2, s = 0, coef = b - n;

		j = (bp2n * (bp2n + 1) * j + (z + bp2n + 1) * tn * r) * v;
		n2 += 2;
		tn *= t2;
		cn /= n2 * (n2 + 1);
		c[n] = cn;
		for (int i = 1; i < n; i++, coef += b)
			s += coef * c[i] * d[n - i];
		d[n] = (b - 1) * cn + s / n;
		sum += d[n] * j;
		if (fabs(d[n] * j) <= 1e-17 * sum)
			break;
	}
	/* times Gamma(a + b) / (Gamma(a) nu^b), through lbeta for the same reason as above */
	return 0.5 * exp(LN_SQRT_PI - lbeta(a, b) - b * log(nu)) * sum;
}

/* log(1 + t^2 / df), also where t^2 overflows (the 1 is then far below rounding) */
static double log1p_t2(double t, double df)
{
	if (fabs(t) > 1e150)
		return 2 * log(fabs(t)) - log(df);
	return log1p(t * t / df);
}

static double t_logpdf(double t, double df)
{
	if (isinf(df))
		return -0.5 * t * t - LN_SQRT_2PI;
	return -0.5 * (df + 1) * log1p_t2(t, df) - 0.5 * log(df) - lbeta(0.5 * df, 0.5);
}

/* P(T > t) for t >= 0: I_x(df/2, 1/2) / 2 with x = df / (df + t^2). */
static double t_tail(double t, double df)
{
	double t2 = t * t;

	if (isinf(df))
		return 0.5 * erfc(t / M_SQRT2);
	if (isinf(t))
		return 0;
	if (t > 1e150)	/* t^2 overflows; the tail is pdf(t) t / df to within df / t^2 */
		return exp(t_logpdf(t, df) + log(t) - log(df));
	/* The fraction is exact enough once t^2 / df is not small; the expansion is not: its
	 * variable log(1 + t^2 / df) has to be small against df. */
	if (df >= LARGE_DF && t2 < df)
		return t_tail_large_df(t, df);
	return 0.5 * ibeta(0.5 * df, 0.5, df / (df + t2), t2 / (df + t2));
}

/* P(|T| <= t) for small t (below ~1.7, where the fraction needs no 1 - x: see t_quantile). */
static double t_central(double t, double df)
{
	double t2 = t * t;

	if (isinf(df))
		return erf(t / M_SQRT2);
	return ibeta(0.5, 0.5 * df, t2 / (df + t2), df / (df + t2));
}

double pbench_stats_t_cdf(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	return t < 0 ? t_tail(-t, df) : 1 - t_tail(t, df);
}

/*
 * The t > 0 with P(|T| <= t) = level. Newton's method on the log of the smaller of the two
 * probabilities, P(T > t) = (1 - level) / 2 or P(|T| <= t) = level: in the log it is close to
 * linear where it spans hundreds of orders of magnitude, and the smaller one keeps its relative
 * digits (t for level 1e-9 is 1e-9 times something: P(T > t) = 0.4999999995 would not tell it
 * to more than 7 digits). The iterate stays inside a bracket that every step narrows; a step
 * that would leave it bisects it instead.
 */
double pbench_stats_t_quantile(double level, double df)
{
	int central = level < 0.5;
	double goal = central ? level : (1 - level) / 2, lgoal = log(goal), lo = 0, hi = 1, t;

	if (!(level > 0 && level < 1) || !(df > 0))
		return NAN;
	while (central ? t_central(hi, df) < goal : t_tail(hi, df) > goal) {
		lo = hi;
		hi *= 2;
		if (isinf(hi))
			return INFINITY;
	}
	t = 0.5 * (lo + hi);
	for (int i = 0; i < 200; i++) {
		double p = central ? t_central(t, df) : t_tail(t, df), f = log(p) - lgoal, next;

		if (f == 0)
			break;
		if ((f > 0) != central)	/* t is below the answer */
			lo = t;
		else
			hi = t;
		/* d/dt log P(T > t) = -pdf(t) / P(T > t); d/dt log P(|T| <= t) = 2 pdf(t) / P */
		if (central)
			next = t - f * exp(log(p) - t_logpdf(t, df)) / 2;
		else
			next = t + f * exp(log(p) - t_logpdf(t, df));
		if (!(next > lo && next < hi))
			next = 0.5 * (lo + hi);
		if (fabs(next - t) <= 1e-15 * t || hi - lo <= 1e-15 * hi) {
			t = next;
			break;
		}
		t = next;
	}
	return t;
}

/* ---- the summary ------------------------------------------------------------------------- */

/* Quantile p of sorted data by linear interpolation between order statistics (R's type 7). */
static double quantile7(const double *sorted, size_t n, double p)
{
	double h = (double)(n - 1) * p;
	size_t lo = (size_t)h;

	if (lo + 1 >= n)
		return sorted[n - 1];
	/* Weights rather than a + h (b - a): b - a overflows for samples of opposite sign near
	 * DBL_MAX, and a quantile between two finite samples is finite. */
	return sorted[lo] * (1 - (h - (double)lo)) + sorted[lo + 1] * (h - (double)lo);
}

/*
 * The spacing of integer samples (ticks, whole ns, a timer's 100 ns steps): the gcd of their
 * distances from the smallest. 0 when a sample is not an integer or the span is too wide.
 */
static uint64_t lattice_step(const double *sorted, size_t n)
{
	uint64_t g = 0;

	if (!(sorted[n - 1] - sorted[0] < 0x1p53) || fabs(sorted[0]) >= 0x1p53 ||
	    fabs(sorted[n - 1]) >= 0x1p53)
		return 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t d;

		if (sorted[i] != floor(sorted[i]))
			return 0;
		d = (uint64_t)(sorted[i] - sorted[0]);
		while (d) {
			uint64_t r = g % d;

			g = d;
			d = r;
		}
	}
	return g;
}

/*
 * Brendan Gregg's mvalue ("Frequency Trails: Modes and Modality",
 * https://www.brendangregg.com/FrequencyTrails/modes.html): the sum of the absolute differences
 * between adjacent bins of a histogram, with an empty bin added at each end, divided by the
 * largest bin. One mode rises once and falls once: 2; each further mode adds about 2.
 * BenchmarkDotNet's MathHelper.CalculateMValue computes the same sum.
 *
 * The bins: Sturges's ceil(log2 n) + 1 over [min, max], but no more than one per 15 samples.
 * With Sturges alone, normal samples come out "bimodal" (mvalue >= 2.4) in 66% of draws of 12,
 * 32% of 30 and 6% of 100: a bin of three samples next to one of six is already a "mode". With
 * 15 samples a bin it is at most 1.4% at any n, and two equal clusters 6 sd apart are found in
 * 95% of draws of 45 and in all draws from 100 (tests/data/mvalue_sim.py). Below 45 samples
 * there are fewer than 3 bins and the mvalue is 2: too few samples to see a shape. Integer
 * samples (ticks, whole ns, a timer's 100 ns steps) get bins of a whole number of their steps:
 * bins that alternately catch 1 and 2 possible values draw a comb of false modes.
 */
static double mvalue(const double *sorted, size_t n)
{
	double min = sorted[0], max = sorted[n - 1], width, sum = 0, prev = 0;
	size_t bins[MVALUE_MAX_BINS] = { 0 }, k = 1, top = 0;
	uint64_t step;

	while (k < MVALUE_MAX_BINS - 1 && ((size_t)1 << (k - 1)) < n)
		k++;
	if (k > n / MVALUE_PER_BIN)
		k = n >= MVALUE_PER_BIN ? n / MVALUE_PER_BIN : 1;
	if (!(max > min))
		k = 1;
	width = (max - min) / (double)k;
	step = k > 1 ? lattice_step(sorted, n) : 0;
	if (step) {	/* bins of a whole number of steps */
		double points = (max - min) / (double)step + 1;

		width = ceil(points / (double)k) * (double)step;
		k = (size_t)ceil(points / (width / (double)step));
	}
	for (size_t i = 0; i < n; i++) {
		size_t b = k == 1 ? 0 : (size_t)((sorted[i] - min) / width);

		bins[b < k ? b : k - 1]++;
	}
	for (size_t b = 0; b < k; b++) {
		sum += fabs((double)bins[b] - prev);
		prev = (double)bins[b];
		if (bins[b] > top)
			top = bins[b];
	}
	return (sum + prev) / (double)top;
}

static void count_outliers(const double *x, size_t n, int rule, struct pbench_summary *s)
{
	double lo_mild, lo_severe, hi_mild, hi_severe;

	if (rule == PBENCH_OUTLIER_3SIGMA) {
		lo_mild = lo_severe = s->mean - 3 * s->stddev;
		hi_mild = hi_severe = s->mean + 3 * s->stddev;
	} else {
		double iqr = s->q3 - s->q1;

		lo_mild = s->q1 - 1.5 * iqr;
		lo_severe = s->q1 - 3 * iqr;
		hi_mild = s->q3 + 1.5 * iqr;
		hi_severe = s->q3 + 3 * iqr;
	}
	for (size_t i = 0; i < n; i++) {
		if (x[i] < lo_severe)
			s->outliers_low_severe++;
		else if (x[i] < lo_mild)
			s->outliers_low_mild++;
		else if (x[i] > hi_severe)
			s->outliers_high_severe++;
		else if (x[i] > hi_mild)
			s->outliers_high_mild++;
	}
}

/*
 * One sample (n = 1) has no spread to estimate: stddev, sem and cv are 0 and the interval is the
 * point itself. Callers that report an interval should ask for two samples or more.
 */
static void fill_spread(struct pbench_summary *s, double m2, double level)
{
	double tq;

	s->ci_level = level;
	/* One sample, or deviations a double cannot square: no spread, no interval (NaN, "n/a"
	 * in every report), never a spread of 0. */
	s->stddev = s->sem = s->ci_lo = s->ci_hi = s->cv_pct = NAN;
	if (s->n < 2 || !isfinite(m2))
		return;
	s->stddev = sqrt(m2 / (double)(s->n - 1));
	s->sem = s->stddev / sqrt((double)s->n);
	tq = pbench_stats_t_quantile(level, (double)(s->n - 1));
	s->ci_lo = s->mean - tq * s->sem;
	s->ci_hi = s->mean + tq * s->sem;
	/* A mean of positive samples (times, counts) cannot be 0 or less: where Student's
	 * interval reaches there, the interval of its log (delta method, se/mean), which is
	 * positive and close to Student's where the spread is small. */
	if (s->min > 0 && s->ci_lo <= 0) {
		s->ci_lo = s->mean * exp(-tq * s->sem / s->mean);
		s->ci_hi = s->mean * exp(tq * s->sem / s->mean);
	}
	s->cv_pct = s->mean != 0 ? 100 * s->stddev / fabs(s->mean) : NAN;
}

int pbench_stats_summary(const double *x, size_t n, const struct pbench_stats_opts *opts,
			 struct pbench_summary *out)
{
	struct pbench_summary s = { 0 };
	double *sorted, level, m2;
	int rule, err;

	if ((err = PB_CHECK_STRUCT(out, pbench_summary, 0, NULL)))
		return err;
	if (!x || n == 0 || !all_finite(x, n))
		return pb_fail(-EINVAL, "%s(): %s", __func__, !x || !n ? "no values (x NULL or n "
			       "0)" : "a value of x is not a finite number, or is subnormal (under 2.2e-308)");
	err = read_opts(opts, &level, &rule);
	if (err)
		return err;
	if (n > SIZE_MAX / sizeof(*sorted))
		return -ENOMEM;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, x, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_double);

	s.size = out->size;
	s.n = n;
	s.min = sorted[0];
	s.max = sorted[n - 1];
	mean_m2(x, n, &s.mean, &m2);
	fill_spread(&s, m2, level);	/* after min: the interval of positive samples */
	s.median = quantile7(sorted, n, 0.5);
	s.q1 = quantile7(sorted, n, 0.25);
	s.q3 = quantile7(sorted, n, 0.75);
	/* (max - min) / min means nothing for min <= 0, nor for a single sample: n/a there */
	s.spread_pct = n > 1 && s.min > 0 ? 100 * (s.max - s.min) / s.min : NAN;
	s.trimmed_mean = s.mean;
	if (n >= 3)	/* "gymnastics": one min and one max dropped */
		mean_m2(sorted + 1, n - 2, &s.trimmed_mean, NULL);
	count_outliers(sorted, n, rule, &s);
	s.mvalue = mvalue(sorted, n);
	s.bimodal = s.mvalue >= MVALUE_BIMODAL;

	/* MAD last: it reuses the sorted copy for the absolute deviations. */
	for (size_t i = 0; i < n; i++)
		sorted[i] = fabs(sorted[i] - s.median);
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	s.mad = quantile7(sorted, n, 0.5);
	free(sorted);

	pb_copy_out(out, &s, sizeof(s));
	return 0;
}

/* ---- Welch's t-test, the paired test, TOST ------------------------------------------------ */

/* x, or with PBENCH_STATS_LOG its logs in a copy (*tmp, to free): NULL with -EINVAL in *err
 * for a sample that is not > 0, -ENOMEM. */
static const double *on_scale(const double *x, size_t n, unsigned flags, double **tmp, int *err)
{
	*tmp = NULL;
	if (!(flags & PBENCH_STATS_LOG))
		return x;
	*tmp = malloc((n ? n : 1) * sizeof(**tmp));
	if (!*tmp) {
		*err = -ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		if (!(x[i] > 0)) {
			free(*tmp);
			*tmp = NULL;
			*err = -EINVAL;
			return NULL;
		}
		(*tmp)[i] = log(x[i]);
	}
	return *tmp;
}

static unsigned opts_flags(const struct pbench_stats_opts *opts)
{
	struct pbench_stats_opts o;

	return copy_opts(opts, &o) ? 0 : o.flags;	/* a bad .size: read_opts() says */
}

static int all_positive(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(x[i] > 0))
			return 0;
	return 1;
}

/*
 * The ratio of two means of positive samples is positive: its interval is that of the log of
 * the ratio (delta method: the relative squared errors va/ma^2 and vb/mb^2 add, with their own
 * Welch-Satterthwaite degrees of freedom), exponentiated.
 */
static void log_ratio_interval(struct pbench_welch *w, double ma, double mb, double va,
			       double vb, size_t na, size_t nb, double level)
{
	double ra = va / (ma * ma), rb = vb / (mb * mb), s2 = ra + rb, df, tq;

	df = s2 * s2 / (ra * ra / (double)(na - 1) + rb * rb / (double)(nb - 1));
	tq = pbench_stats_t_quantile(level, df);
	w->ratio_lo = w->ratio * exp(-tq * sqrt(s2));
	w->ratio_hi = w->ratio * exp(tq * sqrt(s2));
}

/* t, p, the interval of diff at level and the ratio, from diff, its squared standard error
 * se2, df and the means (of the logs with PBENCH_STATS_LOG: the ratio is exp(diff) then). */
static void finish_test(struct pbench_welch *w, double se2, double level, double ma, double mb,
			unsigned flags)
{
	double tq = pbench_stats_t_quantile(level, w->df);

	w->se = sqrt(se2);
	w->t = w->diff / w->se;
	w->p = fmin(1, 2 * t_tail(fabs(w->t), w->df));
	w->diff_lo = w->diff - tq * w->se;
	w->diff_hi = w->diff + tq * w->se;
	if (flags & PBENCH_STATS_LOG) {
		w->ratio = exp(w->diff);
		w->ratio_lo = exp(w->diff_lo);
		w->ratio_hi = exp(w->diff_hi);
	} else if (mb != 0) {
		/* mean_a / mean_b = 1 + diff / mean_b: its interval follows from diff's (no
		 * Fieller). */
		double r1 = 1 + w->diff_lo / mb, r2 = 1 + w->diff_hi / mb;

		w->ratio = ma / mb;
		w->ratio_lo = fmin(r1, r2);
		w->ratio_hi = fmax(r1, r2);
	} else {
		w->ratio = w->ratio_lo = w->ratio_hi = NAN;
	}
}

static int welch_on(const double *a, size_t na, const double *b, size_t nb, double level,
		    unsigned flags, struct pbench_welch *w)
{
	double ma, mb, m2a, m2b, va, vb, se2, ra, rb;

	mean_m2(a, na, &ma, &m2a);
	mean_m2(b, nb, &mb, &m2b);
	va = m2a / (double)(na - 1) / (double)na;	/* squared standard errors */
	vb = m2b / (double)(nb - 1) / (double)nb;
	se2 = va + vb;
	if (!(se2 > 0))	/* two constant samples: no spread to judge a difference by */
		return -EINVAL;
	w->diff = ma - mb;
	/* Welch-Satterthwaite with the shares of se2, which cannot underflow as va^2 could. */
	ra = va / se2;
	rb = vb / se2;
	w->df = 1 / (ra * ra / (double)(na - 1) + rb * rb / (double)(nb - 1));
	finish_test(w, se2, level, ma, mb, flags);
	/* never below 0 for positive samples: then the interval of the log ratio */
	if (!(flags & PBENCH_STATS_LOG) && w->ratio_lo <= 0 && all_positive(a, na) &&
	    all_positive(b, nb))
		log_ratio_interval(w, ma, mb, va, vb, na, nb, level);
	return 0;
}


int pbench_stats_welch(const double *a, size_t na, const double *b, size_t nb,
		       const struct pbench_stats_opts *opts, struct pbench_welch *out)
{
	struct pbench_welch w = { .size = sizeof(w) };
	const double *xa, *xb;
	double level, *ta = NULL, *tb = NULL;
	unsigned flags = opts_flags(opts);
	int rule, err;

	if ((err = PB_CHECK_STRUCT(out, pbench_welch, 0, NULL)))
		return err;
	if (!a || !b || na < 2 || nb < 2)
		return pb_fail(-EINVAL, "%s(): a and b need 2 values each (na %zu, nb %zu)",
			       __func__, a ? na : 0, b ? nb : 0);
	if (!all_finite(a, na) || !all_finite(b, nb))
		return pb_fail(-EINVAL, "%s(): a value of %s is not a finite number, or is "
			       "subnormal (under 2.2e-308)", __func__,
			       all_finite(a, na) ? "b" : "a");
	err = read_opts(opts, &level, &rule);
	if (err)
		return err;
	xa = on_scale(a, na, flags, &ta, &err);
	xb = xa ? on_scale(b, nb, flags, &tb, &err) : NULL;
	if (xb)
		err = welch_on(xa, na, xb, nb, level, flags, &w);
	free(ta);
	free(tb);
	if (err)
		return err;
	pb_copy_out(out, &w, sizeof(w));
	return 0;
}

int pbench_stats_paired(const double *a, const double *b, size_t n,
			const struct pbench_stats_opts *opts, struct pbench_welch *out)
{
	struct pbench_welch w = { .size = sizeof(w) };
	double level, ma, mb, md, m2d, *d, *ta = NULL, *tb = NULL;
	const double *xa, *xb;
	unsigned flags = opts_flags(opts);
	int rule, err;

	if ((err = PB_CHECK_STRUCT(out, pbench_welch, 0, NULL)))
		return err;
	if (!a || !b || n < 2)
		return pb_fail(-EINVAL, "%s(): a and b need 2 pairs (n %zu)", __func__, n);
	if (!all_finite(a, n) || !all_finite(b, n))
		return pb_fail(-EINVAL, "%s(): a value of %s is not a finite number, or is "
			       "subnormal (under 2.2e-308)", __func__,
			       all_finite(a, n) ? "b" : "a");
	err = read_opts(opts, &level, &rule);
	if (err)
		return err;
	d = malloc(n * sizeof(*d));
	if (!d)
		return -ENOMEM;
	xa = on_scale(a, n, flags, &ta, &err);
	xb = xa ? on_scale(b, n, flags, &tb, &err) : NULL;
	if (xb) {
		for (size_t i = 0; i < n; i++)
			d[i] = xa[i] - xb[i];
		mean_m2(xa, n, &ma, NULL);
		mean_m2(xb, n, &mb, NULL);
		mean_m2(d, n, &md, &m2d);
		err = m2d > 0 ? 0 : -EINVAL;	/* every pair the same distance apart */
		if (!err) {
			w.diff = md;
			w.df = (double)(n - 1);
			finish_test(&w, m2d / (double)(n - 1) / (double)n, level, ma, mb, flags);
		}
	}
	free(ta);
	free(tb);
	free(d);
	if (err)
		return err;
	pb_copy_out(out, &w, sizeof(w));
	return 0;
}

/*
 * Two one-sided tests (Schuirmann 1987) on a test's diff, its standard error and df: H0 diff
 * <= lo is rejected when t_lo = (diff - lo) / se is large, H0 diff >= hi when t_hi = (diff -
 * hi) / se is small; equivalence at alpha needs both, so p is the larger of the two. This is
 * statsmodels' ttost_ind(usevar='unequal') on a Welch test.
 */
int pbench_stats_tost(const struct pbench_welch *w, double lo, double hi, struct pbench_tost *out)
{
	struct pbench_tost t = { .size = sizeof(t) };
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_tost, 0, NULL)) ||
	    (err = pb_check_struct(__func__, "w", "pbench_welch", w,
				   offsetof(struct pbench_welch, se) + sizeof(w->se), NULL)))
		return err;
	if (!(w->se > 0) || !isfinite(w->se) || !(w->df > 0) || !isfinite(w->diff))
		return pb_fail(-EINVAL, "%s(): w holds no test (se %g, df %g)", __func__, w->se,
			       w->df);
	if (!(lo < hi) || !isfinite(lo) || !isfinite(hi))
		return pb_fail(-EINVAL, "%s(): the bounds lo %g and hi %g are not finite with lo < "
			       "hi", __func__, lo, hi);
	t.lo = lo;
	t.hi = hi;
	t.t_lo = (w->diff - lo) / w->se;
	t.t_hi = (w->diff - hi) / w->se;
	t.p_lo = pbench_stats_t_cdf(-t.t_lo, w->df);	/* P(T >= t_lo) */
	t.p_hi = pbench_stats_t_cdf(t.t_hi, w->df);	/* P(T <= t_hi) */
	t.p = fmax(t.p_lo, t.p_hi);
	pb_copy_out(out, &t, sizeof(t));
	return 0;
}

/* ---- Mann-Whitney U ---------------------------------------------------------------------- */

struct ranked {
	double v;
	int from_a;
};

static int cmp_ranked(const void *a, const void *b)
{
	return cmp_double(&((const struct ranked *)a)->v, &((const struct ranked *)b)->v);
}

/* The exact two-sided p of U (no ties) with samples of m and n values, m <= n: the null
 * distribution of U is the Gaussian binomial [m+n choose m]_q's coefficients over C(m+n, m),
 * built as the product over i = 1..m of (1 - q^(n+i)) / (1 - q^i), each step scaled by
 * i / (n+i) so that the coefficients stay probabilities; p = 2 P(U >= max(u, mn - u)), at most
 * 1. NaN when out of memory. */
static double mwu_exact_p(double u, size_t m, size_t n)
{
	size_t top = m * n, hi = (size_t)fmax(u, (double)top - u);
	double *f = calloc(top + 1, sizeof(*f)), sf = 0;

	if (!f)
		return NAN;
	f[0] = 1;
	for (size_t i = 1; i <= m; i++) {
		size_t step = n + i;	/* the terms past i n cancel in the division */

		for (size_t k = i * n; k >= step; k--)
			f[k] -= f[k - step];
		for (size_t k = i; k <= i * n; k++)
			f[k] += f[k - i];
		for (size_t k = 0; k <= i * n; k++)
			f[k] *= (double)i / (double)step;
	}
	for (size_t k = hi; k <= top; k++)
		sf += f[k];
	free(f);
	return fmin(1, 2 * sf);
}

/* scipy.stats.mannwhitneyu's method="auto" (its default, scipy 1.7 on: _mwu_choose_method):
 * the exact distribution when one sample has 8 values or fewer and no two values are equal,
 * the normal approximation otherwise. Exact up to this many pairs (the table's doubles). */
#define MWU_EXACT_MAX_PAIRS 1000000

/*
 * U of a with mid-ranks for ties, and its normal approximation: mean na nb / 2, variance
 * na nb / 12 ((N + 1) - sum(t^3 - t) / (N (N - 1))) for tie groups of size t, and a continuity
 * correction of 0.5 toward the mean. This is scipy.stats.mannwhitneyu(a, b,
 * method="asymptotic", use_continuity=True, alternative="two-sided") and R's
 * wilcox.test(a, b, exact=FALSE, correct=TRUE): same U, same p. With 8 values or fewer on a
 * side and no ties, the exact p instead (z NaN), as scipy's default method="auto" and Google
 * Benchmark's compare.py decide: 2 against 2 values wholly apart is p 1/3, not 0.22.
 */
int pbench_stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
			      struct pbench_mann_whitney *out)
{
	struct pbench_mann_whitney r = { 0 };
	struct ranked *all;
	double rank_a = 0, ties = 0, mu, var, dev, N;
	size_t n = na + nb;
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_mann_whitney, 0, NULL)))
		return err;
	if (!a || !b || na == 0 || nb == 0 || n < na)
		return pb_fail(-EINVAL, "%s(): a and b need a value each (na %zu, nb %zu)",
			       __func__, a ? na : 0, b ? nb : 0);
	if (!all_finite(a, na) || !all_finite(b, nb))
		return pb_fail(-EINVAL, "%s(): a value of %s is not a finite number, or is "
			       "subnormal (under 2.2e-308)", __func__,
			       all_finite(a, na) ? "b" : "a");
	if (n > SIZE_MAX / sizeof(*all))
		return -ENOMEM;
	all = malloc(n * sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (size_t i = 0; i < na; i++)
		all[i] = (struct ranked){ a[i], 1 };
	for (size_t i = 0; i < nb; i++)
		all[na + i] = (struct ranked){ b[i], 0 };
	qsort(all, n, sizeof(*all), cmp_ranked);
	for (size_t i = 0, j; i < n; i = j) {
		double mid, t;

		for (j = i + 1; j < n && all[j].v == all[i].v; j++)
			;
		mid = 0.5 * (double)(i + 1 + j);	/* ranks i+1 .. j, averaged */
		t = (double)(j - i);
		ties += t * t * t - t;
		for (size_t k = i; k < j; k++)
			if (all[k].from_a)
				rank_a += mid;
	}
	free(all);

	N = (double)n;
	mu = 0.5 * (double)na * (double)nb;
	var = (double)na * (double)nb / 12 * ((N + 1) - ties / (N * (N - 1)));
	if (!(var > 0))	/* every value equal: nothing to rank */
		return -EINVAL;
	r.size = out->size;
	r.u = rank_a - 0.5 * (double)na * (double)(na + 1);
	dev = r.u - mu;
	dev = dev > 0 ? fmax(0, dev - 0.5) : fmin(0, dev + 0.5);
	r.z = dev / sqrt(var);
	r.p = fmin(1, erfc(fabs(r.z) / M_SQRT2));
	if (!ties && (na <= 8 || nb <= 8) && (double)na * (double)nb <= MWU_EXACT_MAX_PAIRS) {
		r.p = mwu_exact_p(r.u, na < nb ? na : nb, na < nb ? nb : na);
		r.z = NAN;	/* no z: the p is the exact distribution's */
		if (isnan(r.p))
			return -ENOMEM;
	}
	pb_copy_out(out, &r, sizeof(r));
	return 0;
}

/* ---- the verdict -------------------------------------------------------------------------- */

int pbench_stats_verdict(const struct pbench_welch *w, double confidence, double same_pct,
			 unsigned flags)
{
	double alpha = 1 - confidence, thr = same_pct / 100;

	if (!w || !(confidence > 0 && confidence < 1) || isnan(w->p))
		return PBENCH_VERDICT_UNDECIDED;
	if (flags & PBENCH_VERDICT_SEQUENTIAL)
		alpha /= PB_VERDICT_LOOK_FACTOR;
	if (w->p < alpha)
		return w->diff < 0 ? PBENCH_VERDICT_FASTER : PBENCH_VERDICT_SLOWER;
	if (w->ratio_lo >= 1 - thr && w->ratio_hi <= 1 + thr)
		return PBENCH_VERDICT_SAME;
	return PBENCH_VERDICT_UNDECIDED;
}
