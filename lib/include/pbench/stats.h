/* SPDX-License-Identifier: MIT */
/* pbench/stats.h - part of pbench.h (include <pbench.h>; the parts come in data-flow order,
 * each including the one before it). */
#ifndef PBENCH_H_STATS
#define PBENCH_H_STATS

#include "system.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Statistics (stats.c)
 *
 * Every function takes plain arrays of samples (any unit) and leaves them unchanged.
 */
enum pbench_outlier_rule {
	PBENCH_OUTLIER_TUKEY = 0,	/* mild beyond 1.5 IQR of the quartiles, severe beyond 3 */
	PBENCH_OUTLIER_3SIGMA,		/* beyond 3 standard deviations of the mean (all severe) */
};

struct pbench_stats_opts {
	size_t size;
	double ci_level;		/* confidence of intervals, in (0, 1); 0: 0.95 */
	int outlier_rule;		/* enum pbench_outlier_rule */
	unsigned flags;			/* enum pbench_stats_flags */
};

/* The defaults of opts NULL: 95% intervals, Tukey's fences, no flag. */
#ifdef __cplusplus	/* see PBENCH_MEASURE_OPTS_INIT */
#define PBENCH_STATS_OPTS_INIT \
	([] { struct pbench_stats_opts pbench_o_ = {}; pbench_o_.size = sizeof(pbench_o_); \
	      pbench_o_.ci_level = 0.95; pbench_o_.outlier_rule = PBENCH_OUTLIER_TUKEY; \
	      return pbench_o_; }())
#else
#define PBENCH_STATS_OPTS_INIT \
	{ .size = sizeof(struct pbench_stats_opts), .ci_level = 0.95, \
	  .outlier_rule = PBENCH_OUTLIER_TUKEY }
#endif

/* pbench's defaults where two are compared: the confidence of the verdicts and intervals, and
 * the margin within which the two are shown the same, +-% (two one-sided tests): those of
 * pbench_compare() (PBENCH_COMPARE_OPTS_INIT), of contests (pbench_contest_opts, pbench
 * compare) and of pbench analyze (pbench_samples_analyze()). */
#define PBENCH_STATS_DEFAULT_CONFIDENCE 0.999
#define PBENCH_STATS_DEFAULT_SAME_PCT 1.0

enum pbench_stats_flags {
	/* Welch's and the paired test on log(x): diff is the difference of the means of the
	 * logs, ratio = exp(diff) the ratio of the geometric means and its interval exp() of
	 * diff's, so never below 0. Times are skewed and compared by ratio: their logs are
	 * closer to normal. Every sample must be > 0 (-EINVAL). */
	PBENCH_STATS_LOG = 1 << 0,
};

/*
 * A figure that cannot be computed from the samples is NaN, never a number that looks
 * measured: stddev, sem, ci_lo, ci_hi and cv_pct for a single sample (or for deviations too
 * large to square in a double), cv_pct for a mean of 0, spread_pct for a single sample or a
 * min <= 0. Every
 * report prints NaN as "n/a" (JSON: null).
 */
struct pbench_summary {
	size_t size;
	size_t n;
	double min, max, mean, median;
	double q1, q3;			/* quartiles (linear interpolation, R type 7) */
	double stddev;			/* sample standard deviation (n - 1) */
	double sem;			/* standard error of the mean: stddev / sqrt(n) */
	double ci_lo, ci_hi;		/* confidence interval of the mean, Student's t; for
					 * positive samples where that reaches 0 or below, the
					 * interval of the log of the mean (never below 0) */
	double ci_level;		/* the confidence used */
	double cv_pct;			/* 100 * stddev / mean */
	double spread_pct;		/* 100 * (max - min) / min */
	double trimmed_mean;		/* mean without the min and the max ("gymnastics") */
	double mad;			/* median absolute deviation from the median (unscaled) */
	size_t outliers_low_mild, outliers_low_severe;
	size_t outliers_high_mild, outliers_high_severe;
	double mvalue;			/* Brendan Gregg's mvalue of the histogram */
	int bimodal;			/* 1 when mvalue says the samples have several modes */
};

/* Summarize n samples (n >= 1; opts NULL: 95% interval, Tukey fences). Welford's update for
 * mean and variance. Errors: -EINVAL (n 0, NULL, a NaN, infinite or subnormal sample: under
 * DBL_MIN its square underflows), -ENOMEM. */
PBENCH_API int pbench_stats_summary(const double *x, size_t n, const struct pbench_stats_opts *opts,
				    struct pbench_summary *s);

/* Online mean and variance (Welford), for samples that arrive one at a time. */
struct pbench_welford {
	size_t n;
	double mean, m2, min, max;
};
PBENCH_API void pbench_welford_add(struct pbench_welford *w, double x);
PBENCH_API double pbench_welford_variance(const struct pbench_welford *w);	/* n - 1 */
PBENCH_API double pbench_welford_sem(const struct pbench_welford *w);

/* Student's t distribution: two-sided quantile (the t with P(|T| <= t) = level) and CDF.
 * Computed (regularized incomplete beta), not a table; df may be fractional. */
PBENCH_API double pbench_stats_t_quantile(double level, double df);
PBENCH_API double pbench_stats_t_cdf(double t, double df);

/* Welch's unequal-variance t-test of a against b. */
struct pbench_welch {
	size_t size;
	double t;			/* (mean_a - mean_b) / sqrt(var_a/na + var_b/nb) */
	double df;			/* Welch-Satterthwaite degrees of freedom */
	double p;			/* two-sided p-value */
	double diff, diff_lo, diff_hi;	/* mean_a - mean_b and its confidence interval */
	double ratio, ratio_lo, ratio_hi; /* mean_a / mean_b and its interval (Fieller-free:
					 * diff interval divided by mean_b; for positive
					 * samples where that reaches 0 or below, the interval
					 * of the log ratio: never below 0); PBENCH_STATS_LOG:
					 * exp(diff) and exp() of diff's interval */
	double se;			/* the standard error of diff */
};
/* Errors: -EINVAL (fewer than 2 samples in either, NaN/inf, both without variance, a sample
 * <= 0 with PBENCH_STATS_LOG). */
PBENCH_API int pbench_stats_welch(const double *a, size_t na, const double *b, size_t nb,
				  const struct pbench_stats_opts *opts, struct pbench_welch *out);
/* Student's paired t-test of a[i] against b[i] (the same n), in Welch's shape: diff is the
 * mean of a[i] - b[i], df = n - 1, ratio mean_a / mean_b (or exp(diff) with PBENCH_STATS_LOG,
 * the geometric mean of the ratios a[i] / b[i]). Errors: -EINVAL (n < 2, NaN/inf, every
 * difference the same, a sample <= 0 with PBENCH_STATS_LOG), -ENOMEM. */
PBENCH_API int pbench_stats_paired(const double *a, const double *b, size_t n,
				   const struct pbench_stats_opts *opts, struct pbench_welch *out);

/*
 * Equivalence: Schuirmann's two one-sided tests on the diff of a test w (Welch or paired),
 * with its se and df: is diff above lo, and is it below hi? p_lo is the p of "diff <= lo",
 * p_hi of "diff >= hi", p the larger: the two are equivalent within (lo, hi) at level alpha
 * when p < alpha (the (1 - 2 alpha) interval of diff lies inside). For a ratio within +-x%
 * on the log scale: lo = -log(1 + x/100), hi = log(1 + x/100). Errors: -EINVAL (NULL, a w
 * without se, se not > 0, lo >= hi, NaN).
 */
struct pbench_tost {
	size_t size;
	double lo, hi;			/* the equivalence bounds on diff */
	double t_lo, t_hi;		/* (diff - lo) / se, (diff - hi) / se */
	double p_lo, p_hi;		/* one-sided p of "diff <= lo", of "diff >= hi" */
	double p;			/* the larger of the two */
};
PBENCH_API int pbench_stats_tost(const struct pbench_welch *w, double lo, double hi,
				 struct pbench_tost *out);

/*
 * The one verdict rule of pbench, for a Welch test w at confidence: faster or slower
 * (PBENCH_VERDICT_FASTER, PBENCH_VERDICT_SLOWER: a's mean below or above b's) when
 * p < 1 - confidence, PBENCH_VERDICT_SAME when the ratio's interval lies within same_pct % of 1,
 * PBENCH_VERDICT_UNDECIDED
 * otherwise (enum pbench_verdict, pbench/measure.h). PBENCH_VERDICT_SEQUENTIAL: the test is
 * looked at after every round of a comparison that stops when it is sure; each look is
 * another chance of a false difference, so the boundary is ten times stricter (Pocock's
 * constant boundary; bench/bench_compare_stats.c measures the false-difference rate). NULL w
 * or a NaN p: PBENCH_VERDICT_UNDECIDED.
 */
enum pbench_verdict {
	PBENCH_VERDICT_FASTER = 1,	/* a is faster than b (significant at the confidence) */
	PBENCH_VERDICT_SLOWER,		/* a is slower */
	PBENCH_VERDICT_SAME,		/* the difference is bounded within the threshold */
	PBENCH_VERDICT_UNDECIDED,	/* neither, when the samples or the budget ran out */
};

enum pbench_verdict_flags { PBENCH_VERDICT_SEQUENTIAL = 1 << 0 };
PBENCH_API int pbench_stats_verdict(const struct pbench_welch *w, double confidence,
				    double same_pct, unsigned flags);

/*
 * The regression gate against a baseline measured at another moment (pbench compare
 * --baseline): base[nb] then, now[nn] today, times in run order. The shift of now over base
 * is the Hodges-Lehmann estimate on the log times with its distribution-free interval at
 * confidence; the threshold 1 + pct/100 is widened by an allowance for the shift between two
 * occasions of the same command (the larger of how far each session's quarters' medians lie
 * apart and a floor measured on a shared 2-vCPU VM, 15%). Returns 1 (slower by more than pct
 * even allowing for the occasion), 0 (not, even allowing for it), 2 (undecided), with one
 * sentence saying it in sentence (an output, len bytes; NULL with len 0: none); -EINVAL (fewer than 2 times a side, a time not positive and
 * finite, pct < 0, confidence outside (0, 1)), -ENOMEM.
 */
PBENCH_API int pbench_stats_gate(const double *base, size_t nb, const double *now, size_t nn,
				 double pct, double confidence, char *sentence, size_t len);
/*
 * pbench_stats_gate() on times adjusted for the machine's speed: each run's time times the
 * speed its time was measured at (base_f[nb], now_f[nn]: factors on one scale over both
 * occasions, 1 = full speed; NaN or <= 0: no reading, the run left out), so that a host that
 * slowed the vCPU between the baseline and today is not taken for a regression. The
 * allowance for the occasion is then measured from the adjusted times: the drift they still
 * show within each session (how far the medians of its quarters lie apart beyond what their
 * sampling spread gives, 32 runs or more), and at least residual_pct, the shift between
 * occasions that the readings do not explain on the machine (PBENCH_STATS_GATE_RESIDUAL_PCT:
 * measured on a shared 2-vCPU VM; 0 says the machine has none, a quiet dedicated one), in
 * place of the 15% floor for times alone. Without readings for half of either side's runs,
 * or with fewer than 32 runs with readings on both sides, pbench_stats_gate()'s rule on the
 * times themselves, and the sentence says why. reading names the reading in the sentence
 * ("clock"; NULL: "speed"). Returns and errors as pbench_stats_gate(), -EINVAL also for a
 * residual_pct below 0.
 */
#define PBENCH_STATS_GATE_RESIDUAL_PCT 10.0
PBENCH_API int pbench_stats_gate_speed(const double *base, const double *base_f, size_t nb,
				       const double *now, const double *now_f, size_t nn,
				       double pct, double confidence, double residual_pct,
				       const char *reading, char *sentence, size_t len);

/* Mann-Whitney U test, two-sided, as scipy.stats.mannwhitneyu's default (method "auto"): the
 * exact distribution of U when a sample has 8 values or fewer and no two values are equal
 * (z is then NaN), else the normal approximation with tie and continuity correction. */
struct pbench_mann_whitney {
	size_t size;
	double u;			/* U of a */
	double z;			/* NaN when p is exact */
	double p;			/* two-sided p-value */
};
PBENCH_API int pbench_stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
					 struct pbench_mann_whitney *out);

/* ---------------------------------------------------------------------------------------------
 * How a cost grows with a parameter (complexity.c, issue 38)
 *
 * t = a + b g(n), with an intercept (a start-up cost that a fit through the origin gets wrong),
 * g one of the models below, by weighted least squares: each point's weight 1/sem^2 from its own
 * runs. The models are compared by AICc; the fit names the best only when the runner-up is at
 * least PBENCH_FIT_EVIDENCE times less likely, else it is inconclusive between the two.
 */
enum pbench_fit_model {
	PBENCH_FIT_MODEL_NONE = 0,		/* no model: too few points (reason says) */
	PBENCH_FIT_MODEL_1,			/* constant: t = a (b is 0) */
	PBENCH_FIT_MODEL_LOGN,		/* g = log2 n */
	PBENCH_FIT_MODEL_N,			/* g = n */
	PBENCH_FIT_MODEL_NLOGN,		/* g = n log2 n */
	PBENCH_FIT_MODEL_N2,			/* g = n^2 */
	PBENCH_FIT_MODEL_N3,			/* g = n^3 */
	PBENCH_FIT_MODEL_NK,			/* g = n^k, k fitted (named only when it beats every other
					 * model by PBENCH_FIT_EVIDENCE) */
};

/* The evidence ratio (runner-up's likelihood over the best's, inverted) below which a fit is
 * inconclusive between its two best models. */
#define PBENCH_FIT_EVIDENCE 10.0

struct pbench_fit {
	size_t size;
	size_t n;			/* the points fitted */
	int model;			/* enum pbench_fit_model: the best by AICc */
	int runner_up;			/* the second best (PBENCH_FIT_MODEL_NONE: none) */
	int inconclusive;		/* 1: runner_up is less than PBENCH_FIT_EVIDENCE times less
					 * likely than model: the range cannot tell them apart */
	double confidence;		/* of the intervals */
	double a, a_lo, a_hi;		/* the intercept and its interval (y's unit) */
	double b, b_lo, b_hi;		/* the cost per unit of g and its interval */
	double k, k_lo, k_hi;		/* the power of the n^k fit and its interval (whatever
					 * model won: how the points grow; NaN below 5 points) */
	double aicc;			/* of model (with sems: QAICc, complexity.c) */
	double runner_a, runner_b;	/* the runner-up's fit, to draw it */
	double runner_k;		/* its power (PBENCH_FIT_MODEL_NK), else NaN */
	double evidence_ratio;		/* exp((AICc runner_up - AICc model) / 2); inf: none */
	double residual_pct;		/* root mean square of the weighted residuals, % of the
					 * weighted mean of y */
	double chi2_red;		/* the reduced chi-square with weights 1/sem^2 (NaN
					 * without sem): above 1, the points scatter more than
					 * their own runs say */
	double range_needed;		/* inconclusive: the largest n (the smallest kept, the
					 * same points per doubling and precision) at which
					 * model would be PBENCH_FIT_EVIDENCE times likelier than
					 * runner_up, if the data follow model; NaN: not within
					 * 2^40 times the range, or conclusive */
	const char *reason;		/* model NONE: why (a static string), else NULL */
};

/* Fit y[i] (a time or any figure, sem[i] its standard error, sem NULL or a sem[i] <= 0: equal
 * weights) against x[i] > 0 for every model, at confidence in (0, 1) (0: 0.999). Fewer than 4
 * points is no model (PBENCH_FIT_MODEL_NONE, reason set): a two-coefficient model's AICc needs 4.
 * Errors: -EINVAL (NULL, NaN or infinite values, x <= 0, confidence outside (0, 1)). */
PBENCH_API int pbench_stats_fit(const double *x, const double *y, const double *sem, size_t n,
				double confidence, struct pbench_fit *out);
/* The model's g in words: "1", "log n", "n", "n log n", "n^2", "n^3", "n^k"; NULL if unknown. */
PBENCH_API const char *pbench_fit_model_name(int model);
/* a + b g(x) of a model (k: its power for PBENCH_FIT_MODEL_NK); NaN for an unknown model. */
PBENCH_API double pbench_fit_eval(int model, double k, double a, double b, double x);

#ifdef __cplusplus
}
#endif
#endif /* PBENCH_H_STATS */
