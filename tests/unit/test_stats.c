/* SPDX-License-Identifier: MIT */
/*
 * Statistics (lib/src/stats/stats.c) against certified and reference values.
 *
 * Where the expected values come from:
 *  [NIST]  NIST StRD univariate summary statistics datasets, tests/data/nist/NAME.dat (README.md
 *          there says where each file was taken from): certified mean and standard deviation.
 *  [REF]   tests/data/reference.json, written by tests/data/gen_reference.py with scipy 1.10.1
 *          and checked there against mpmath at 50 digits: Welch (scipy.stats.ttest_ind,
 *          equal_var=False), Mann-Whitney (scipy.stats.mannwhitneyu, asymptotic, continuity
 *          correction, two-sided), scipy.stats.t.ppf / cdf / sf, and the exact mean and standard
 *          deviation of each NIST dataset as IEEE doubles.
 *  [REF2]  tests/data/reference_compare.json, written by tests/data/gen_compare_reference.py
 *          (scipy 1.10.1, checked against mpmath): Welch on the logs, the paired test
 *          (scipy.stats.ttest_rel) and Schuirmann's two one-sided tests (TOST).
 *  [HAND]  small cases worked out by hand in the comment of each row.
 * Tests run from the top of the tree (make test does), where tests/data is.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define REFERENCE	"tests/data/reference.json"

/* Significant digits in common (log relative error, as NIST's assessments count them). */
static double lre(double got, double want)
{
	if (got == want)
		return 17;
	if (want == 0)
		return -log10(fabs(got));
	return -log10(fabs(got - want) / fabs(want));
}

static double rel_err(double got, double want)
{
	if (got == want)
		return 0;
	return fabs(got - want) / fmax(fabs(got), fabs(want));
}

static json_t *reference(void)
{
	json_error_t err;
	json_t *root = json_load_file(REFERENCE, 0, &err);

	cr_assert_not_null(root, "%s:%d: %s", REFERENCE, err.line, err.text);
	return root;
}

static double num(const json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	cr_assert(json_is_number(v), "reference: no number '%s'", key);
	return json_number_value(v);
}

/* A JSON array of numbers as a malloc'ed C array. */
static double *numbers(const json_t *arr, size_t *n)
{
	double *x;

	cr_assert(json_is_array(arr));
	*n = json_array_size(arr);
	x = malloc((*n ? *n : 1) * sizeof(*x));
	cr_assert_not_null(x);
	for (size_t i = 0; i < *n; i++)
		x[i] = json_number_value(json_array_get(arr, i));
	return x;
}

static struct pbench_summary summarize(const double *x, size_t n,
				       const struct pbench_stats_opts *opts)
{
	struct pbench_summary s = { .size = sizeof(s) };

	cr_assert_eq(pbench_stats_summary(x, n, opts, &s), 0);
	return s;
}

/* ---- NIST StRD --------------------------------------------------------------------------- */

struct nist_data {
	double mean, sd;	/* the certified values as the file states them */
	size_t n, count;	/* certified number of observations, values read */
	double *x;
};

static double after_colon(const char *line)
{
	return strtod(strrchr(line, ':') + 1, NULL);
}

/* The certified values and the data of tests/data/nist/NAME.dat. */
static struct nist_data nist_read(const char *name)
{
	struct nist_data d = { 0 };
	char path[256], line[256];
	int in_data = 0;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "tests/data/nist/%s.dat", name);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (in_data == 1) {		/* the dashes under "Data: Y" */
			in_data = 2;
		} else if (in_data == 2) {
			char *end;
			double v = strtod(line, &end);

			if (end == line)
				continue;
			if (d.count == cap) {
				cap = cap ? 2 * cap : 256;
				d.x = realloc(d.x, cap * sizeof(*d.x));
				cr_assert_not_null(d.x);
			}
			d.x[d.count++] = v;
		} else if (!strncmp(line, "Sample Mean", 11)) {
			d.mean = after_colon(line);
		} else if (!strncmp(line, "Sample Standard Deviation", 25)) {
			d.sd = after_colon(line);
		} else if (!strncmp(line, "Number of Observations", 22)) {
			d.n = (size_t)after_colon(line);
		} else if (!strncmp(line, "Data: Y", 7)) {
			in_data = 1;
		}
	}
	fclose(f);
	cr_assert_eq(d.count, d.n, "%s: %zu values, certified n %zu", name, d.count, d.n);
	return d;
}

/*
 * One row per dataset: NIST's certified mean and standard deviation [NIST] and the digits
 * required of each. The input is IEEE doubles: 10000000.1 is stored as 10000000.099999999627...,
 * so the exact standard deviation of NumAcc4 *as doubles* is 0.10000000055879354 [REF]: 8.25
 * digits of 0.1, the most any double-precision program can return (NumAcc3: 9.46). Those rows
 * ask for what the doubles allow, and every row must also reach 13 digits of the exact
 * statistics of the doubles [REF].
 */
static const struct nist_row {
	const char *name;
	double mean, sd;		/* certified [NIST] */
	double lre_mean, lre_sd;	/* digits required against the certified values */
	double welford_lre_sd;		/* digits Welford's update keeps of the batch sd */
} nist_rows[] = {
	{ "NumAcc1",  10000002,             1,                    15, 15,  15 },
	{ "NumAcc2",  1.2,                  0.1,                  15, 15,  14 },
	{ "NumAcc3",  1000000.2,            0.1,                  15, 9.4, 11 },
	{ "NumAcc4",  10000000.2,           0.1,                  15, 8.2, 11 },
	{ "Michelso", 299.852400000000,     0.0790105478190518,   15, 13,  12 },
	{ "Lew",      -177.435000000000,    277.332168044316,     15, 15,  15 },
	{ "Lottery",  518.958715596330,     291.699727470969,     15, 15,  15 },
	{ "Mavro",    2.00185600000000,     0.000429123454003053, 15, 13,  11.5 },
	{ "PiDigits", 4.53480000000000,     2.86733906028871,     15, 15,  14.5 },
};

static const json_t *nist_ref(const json_t *root, const char *name)
{
	const json_t *arr = json_object_get(root, "nist"), *v;
	size_t i;

	json_array_foreach(arr, i, v)
		if (!strcmp(json_string_value(json_object_get(v, "name")), name))
			return v;
	cr_assert_fail("reference: no nist entry '%s'", name);
	return NULL;
}

Test(nist, certified_mean_and_sd)
{
	json_t *root = reference();

	for (size_t i = 0; i < ARRAY_SIZE(nist_rows); i++) {
		const struct nist_row *r = &nist_rows[i];
		struct nist_data d = nist_read(r->name);
		const json_t *ref = nist_ref(root, r->name);
		struct pbench_summary s = summarize(d.x, d.count, NULL);

		/* The table and the file state the same certified values. */
		cr_assert_eq(d.mean, r->mean, "%s: file mean %.17g", r->name, d.mean);
		cr_assert_eq(d.sd, r->sd, "%s: file sd %.17g", r->name, d.sd);
		cr_assert_eq(s.n, d.n);
		cr_assert_geq(lre(s.mean, r->mean), r->lre_mean, "%s: mean %.17g, %.1f digits",
			      r->name, s.mean, lre(s.mean, r->mean));
		cr_assert_geq(lre(s.stddev, r->sd), r->lre_sd, "%s: sd %.17g, %.1f digits",
			      r->name, s.stddev, lre(s.stddev, r->sd));
		cr_assert_geq(lre(s.mean, num(ref, "mean_of_doubles")), 13, "%s", r->name);
		cr_assert_geq(lre(s.stddev, num(ref, "sd_of_doubles")), 13,
			      "%s: sd %.17g, exact for the doubles %.17g", r->name, s.stddev,
			      num(ref, "sd_of_doubles"));
		free(d.x);
	}
	json_decref(root);
}

/*
 * Welford's update against the batch summary: the one-pass update keeps 11-12 digits on
 * NumAcc3/4 and the noisier real sets (the rows' last column), where the textbook
 * sum-of-squares formula keeps 1 (NumAcc3) or returns NaN (NumAcc4).
 */
Test(nist, welford_against_batch)
{
	for (size_t i = 0; i < ARRAY_SIZE(nist_rows); i++) {
		const struct nist_row *r = &nist_rows[i];
		struct nist_data d = nist_read(r->name);
		struct pbench_summary s = summarize(d.x, d.count, NULL);
		struct pbench_welford w = { 0 };

		for (size_t k = 0; k < d.count; k++)
			pbench_welford_add(&w, d.x[k]);
		cr_assert_eq(w.n, d.count);
		cr_assert_eq(w.min, s.min, "%s", r->name);
		cr_assert_eq(w.max, s.max, "%s", r->name);
		cr_assert_geq(lre(w.mean, s.mean), 14, "%s: mean %.17g", r->name, w.mean);
		cr_assert_geq(lre(sqrt(pbench_welford_variance(&w)), s.stddev), r->welford_lre_sd,
			      "%s: sd %.17g against %.17g (%.1f digits)", r->name,
			      sqrt(pbench_welford_variance(&w)), s.stddev,
			      lre(sqrt(pbench_welford_variance(&w)), s.stddev));
		cr_assert_geq(lre(pbench_welford_sem(&w), s.sem), r->welford_lre_sd, "%s", r->name);
		free(d.x);
	}
}

/* ---- Student's t ------------------------------------------------------------------------- */

/* [REF] scipy.stats.t.ppf((1 + level) / 2, df), polished to 1e-15 and checked with mpmath. */
Test(t_dist, quantile_against_scipy)
{
	json_t *root = reference();
	const json_t *v;
	size_t i;

	json_array_foreach(json_object_get(root, "t_quantile"), i, v) {
		double level = num(v, "level"), df = num(v, "df");
		double got = pbench_stats_t_quantile(level, df);

		cr_assert_leq(rel_err(got, num(v, "t")), 1e-10, "level %g df %g: %.17g, want %.17g",
			      level, df, got, num(v, "t"));
		/* scipy's own ppf stops at ~1e-8 relative (cdflib's tolerance) */
		cr_assert_leq(rel_err(got, num(v, "scipy_ppf")), 1e-8, "level %g df %g", level, df);
	}
	json_decref(root);
}

/* [REF] scipy.stats.t.cdf and t.sf; the lower tail P(T < -t) must keep its relative digits. */
Test(t_dist, cdf_against_scipy)
{
	json_t *root = reference();
	const json_t *v;
	size_t i;

	json_array_foreach(json_object_get(root, "t_cdf"), i, v) {
		double t = num(v, "t"), df = num(v, "df"), sf = num(v, "sf");
		double cdf = pbench_stats_t_cdf(t, df), tail = pbench_stats_t_cdf(-t, df);

		cr_assert_leq(rel_err(cdf, num(v, "cdf")), 1e-10,
			      "t %g df %g: cdf %.17g, want %.17g", t, df, cdf, num(v, "cdf"));
		if (sf < 1e-300)	/* underflow in both */
			cr_assert_leq(tail, 1e-300, "t %g df %g: tail %g", t, df, tail);
		else
			cr_assert_leq(rel_err(tail, sf), 1e-10,
				      "t %g df %g: tail %.17g, want %.17g", t, df, tail, sf);
	}
	json_decref(root);
}

/* [HAND] closed forms, with q = 1 - level (exact here) to stay clear of the pole: df 1 is
 * Cauchy, t = tan(pi level / 2) = 1 / tan(pi q / 2); df 2: t = level sqrt(2 / (1 - level^2));
 * df infinite: the normal, P(|Z| <= 1.959963984540054) = 0.95. */
Test(t_dist, closed_forms)
{
	static const double levels[] = { 0.1, 0.5, 0.9, 0.99, 0.999999, 1 - 1e-12 };

	for (size_t i = 0; i < ARRAY_SIZE(levels); i++) {
		double p = levels[i], q = 1 - p;

		cr_assert_leq(rel_err(pbench_stats_t_quantile(p, 1), 1 / tan(M_PI * q / 2)), 1e-11,
			      "df 1 level %.17g", p);
		cr_assert_leq(rel_err(pbench_stats_t_quantile(p, 2), p * sqrt(2 / (q * (1 + p)))),
			      1e-11, "df 2 level %.17g", p);
	}
	cr_assert_leq(rel_err(pbench_stats_t_quantile(0.95, INFINITY), 1.959963984540054), 1e-14);
	/* Cauchy: atan(-1) / pi + 1/2 */
	cr_assert_leq(rel_err(pbench_stats_t_cdf(-1, 1), 0.25), 1e-15);
	cr_assert_eq(pbench_stats_t_cdf(0, 3.5), 0.5);
	/* Cauchy again, where t^2 overflows: P(T < -t) = atan(1 / t) / pi = 1 / (pi t) */
	cr_assert_leq(rel_err(pbench_stats_t_cdf(-1e200, 1), 1 / (M_PI * 1e200)), 1e-13);
}

/* Fractional and extreme df: the quantile and the CDF invert each other, and the CDF is
 * symmetric. A broken incomplete beta or root finder fails these wherever it is off. */
Test(t_dist, round_trip)
{
	static const double dfs[] = { 0.3, 0.5, 1.5, 2.5, 7.25, 49.5, 1e3, 2.5e5, 1e7, 1e9 };
	static const double levels[] = { 1e-6, 0.2, 0.5, 0.8, 0.95, 0.9999, 1 - 1e-9 };

	for (size_t i = 0; i < ARRAY_SIZE(dfs); i++) {
		for (size_t j = 0; j < ARRAY_SIZE(levels); j++) {
			double t = pbench_stats_t_quantile(levels[j], dfs[i]);
			double tail = (1 - levels[j]) / 2;

			cr_assert(isfinite(t) && t > 0, "df %g level %g: %g", dfs[i], levels[j], t);
			cr_assert_leq(rel_err(pbench_stats_t_cdf(-t, dfs[i]), tail), 1e-12,
				      "df %g level %g: t %.17g", dfs[i], levels[j], t);
			cr_assert_leq(fabs(pbench_stats_t_cdf(t, dfs[i]) +
					   pbench_stats_t_cdf(-t, dfs[i]) - 1), 2 * DBL_EPSILON);
		}
	}
}

Test(t_dist, bad_input)
{
	static const double bad_levels[] = { 0, 1, -0.5, 1.5, NAN };

	for (size_t i = 0; i < ARRAY_SIZE(bad_levels); i++)
		cr_assert(isnan(pbench_stats_t_quantile(bad_levels[i], 10)), "level %g",
			  bad_levels[i]);
	cr_assert(isnan(pbench_stats_t_quantile(0.95, 0)));
	cr_assert(isnan(pbench_stats_t_quantile(0.95, -3)));
	cr_assert(isnan(pbench_stats_t_quantile(0.95, NAN)));
	cr_assert(isnan(pbench_stats_t_cdf(NAN, 3)));
	cr_assert(isnan(pbench_stats_t_cdf(1, 0)));
	cr_assert_eq(pbench_stats_t_cdf(INFINITY, 3), 1);
	cr_assert_eq(pbench_stats_t_cdf(-INFINITY, 3), 0);
}

/* ---- two-sample tests -------------------------------------------------------------------- */

/* [REF] every two_sample case: Welch's t, df, p and the interval of the difference. */
Test(welch, against_scipy)
{
	json_t *root = reference();
	const json_t *c;
	size_t i;

	json_array_foreach(json_object_get(root, "two_sample"), i, c) {
		const char *name = json_string_value(json_object_get(c, "name"));
		const json_t *ref = json_object_get(c, "welch");
		struct pbench_stats_opts opts = {
			.size = sizeof(opts), .ci_level = num(ref, "level"),
		};
		struct pbench_welch w = { .size = sizeof(w) };
		size_t na, nb;
		double *a = numbers(json_object_get(c, "a"), &na);
		double *b = numbers(json_object_get(c, "b"), &nb);
		double mb = summarize(b, nb, NULL).mean, ma = summarize(a, na, NULL).mean;

		cr_assert_eq(pbench_stats_welch(a, na, b, nb, &opts, &w), 0, "%s", name);
		/* what the issue asks: 1e-6 relative on t and df, absolute on p ... */
		cr_assert_leq(rel_err(w.t, num(ref, "t")), 1e-6, "%s: t %.17g", name, w.t);
		cr_assert_leq(rel_err(w.df, num(ref, "df")), 1e-6, "%s: df %.17g", name, w.df);
		cr_assert_leq(fabs(w.p - num(ref, "p")), 1e-6, "%s: p %.17g", name, w.p);
		/* ... and what the implementation holds: tiny p values keep their digits too */
		cr_assert_leq(rel_err(w.t, num(ref, "t")), 1e-12, "%s: t %.17g", name, w.t);
		cr_assert_leq(rel_err(w.df, num(ref, "df")), 1e-12, "%s: df %.17g", name, w.df);
		cr_assert_leq(rel_err(w.p, num(ref, "p")), 1e-10, "%s: p %.17g, want %.17g", name,
			      w.p, num(ref, "p"));
		cr_assert_leq(fabs(w.diff - num(ref, "diff")), 1e-12 * fabs(ma), "%s", name);
		cr_assert_leq(fabs(w.diff_lo - num(ref, "diff_lo")),
			      1e-9 * fabs(num(ref, "diff_hi") - num(ref, "diff_lo")), "%s", name);
		cr_assert_leq(fabs(w.diff_hi - num(ref, "diff_hi")),
			      1e-9 * fabs(num(ref, "diff_hi") - num(ref, "diff_lo")), "%s", name);
		cr_assert_leq(rel_err(w.ratio, ma / mb), 1e-15, "%s", name);
		cr_assert_leq(rel_err(w.ratio_lo, 1 + w.diff_lo / mb), 1e-15, "%s", name);
		cr_assert_leq(rel_err(w.ratio_hi, 1 + w.diff_hi / mb), 1e-15, "%s", name);
		cr_assert(w.ratio_lo <= w.ratio && w.ratio <= w.ratio_hi, "%s", name);
		free(a);
		free(b);
	}
	json_decref(root);
}

/* [REF] every two_sample case: U of a exactly, z and p. */
Test(mann_whitney, against_scipy)
{
	json_t *root = reference();
	const json_t *c;
	size_t i;

	json_array_foreach(json_object_get(root, "two_sample"), i, c) {
		const char *name = json_string_value(json_object_get(c, "name"));
		const json_t *ref = json_object_get(c, "mwu");
		struct pbench_mann_whitney m = { .size = sizeof(m) };
		size_t na, nb;
		double *a = numbers(json_object_get(c, "a"), &na);
		double *b = numbers(json_object_get(c, "b"), &nb);

		cr_assert_eq(pbench_stats_mann_whitney(a, na, b, nb, &m), 0, "%s", name);
		cr_assert_eq(m.u, num(ref, "u"), "%s: U %.17g", name, m.u);
		if (!strcmp(name, "n2")) {
			/* 2 against 2 without ties: scipy's default (method "auto") is exact, 2/3
			 * where the reference's asymptotic p is 0.6985 (mann_whitney/exact) */
			cr_assert(isnan(m.z), "%s: z %g", name, m.z);
			cr_assert_leq(fabs(m.p - 2.0 / 3), 1e-15, "%s: p %.17g", name, m.p);
			free(a);
			free(b);
			continue;
		}
		cr_assert_leq(fabs(m.p - num(ref, "p")), 1e-6, "%s: p %.17g", name, m.p);
		cr_assert_leq(rel_err(m.p, num(ref, "p")), 1e-12, "%s: p %.17g, want %.17g", name,
			      m.p, num(ref, "p"));
		cr_assert_leq(fabs(m.z - num(ref, "z")), 1e-12 * fmax(1, fabs(m.z)), "%s", name);
		free(a);
		free(b);
	}
	json_decref(root);
}

/* [HAND] a = {1, 2}, b = {3, 4}: ranks 1 2 | 3 4, U = 3 - 3 = 0. No ties and 2 values a side:
 * the exact p (scipy's default), 2 P(U <= 0) = 2 / C(4, 2) = 1/3; with a tie, {1, 3} against
 * {3, 4}, the normal approximation: U = 0.5, mean 2, var 4 / 12 (5 - 6 / 12), z = (0.5 - 2 +
 * 0.5) / sqrt(1.5), p = erfc(|z| / sqrt 2). */
Test(mann_whitney, hand_checked)
{
	struct pbench_mann_whitney m = { .size = sizeof(m) };
	double a[] = { 1, 2 }, b[] = { 3, 4 }, tied[] = { 1, 3 };

	cr_assert_eq(pbench_stats_mann_whitney(a, 2, b, 2, &m), 0);
	cr_assert_eq(m.u, 0);
	cr_assert(isnan(m.z));
	cr_assert_leq(fabs(m.p - 1.0 / 3), 1e-15, "p %.17g", m.p);
	cr_assert_eq(pbench_stats_mann_whitney(b, 2, a, 2, &m), 0);
	cr_assert_eq(m.u, 4);	/* U of a + U of b = na nb */
	cr_assert_eq(pbench_stats_mann_whitney(tied, 2, b, 2, &m), 0);
	cr_assert_eq(m.u, 0.5);
	cr_assert_leq(rel_err(m.z, -1 / sqrt(1.5)), 1e-15);
	cr_assert_leq(rel_err(m.p, erfc(1 / sqrt(1.5) / M_SQRT2)), 1e-15);
}

/*
 * [GBENCH] the p-values of Google Benchmark's tools/gbench/report.py tests on its Inputs
 * test3_run0/1.json (tests/data/gbench/), scipy's mannwhitneyu by default: BM_Two's cpu_time
 * exact 0.6666666666666666 (not 0.6985), short's cpu_time exact 0.2 (not 0.1489), short's
 * real_time with a tie the normal approximation, 0.7670968684102772. [ENUM] the exact
 * distribution enumerated over every C(18, 6) and C(63, 3) placement of ranks (Python,
 * itertools.combinations; seed 27): 6 against 12, and 3 against 60.
 */
Test(mann_whitney, exact)
{
	static const double two_a[] = { 90, 86 }, two_b[] = { 89, 72 };
	static const double cpu_a[] = { 80, 77 }, cpu_b[] = { 75, 66.6, 1 };
	static const double real_a[] = { 8, 8 }, real_b[] = { 7, 4.54, 800 };
	static const double six[] = { 16.484972, 17.013695, 19.57047, 11.964031, 10.653692,
				       18.242574 };
	static const double twelve[] = { 15.330667, 15.723747, 20.148658, 13.833348, 21.096814,
					 16.911695, 12.713372, 21.178124, 17.729985, 12.787321,
					 20.385794, 19.748151 };
	static const double three[] = { 107.401693, 106.575282, 109.927052 };
	double sixty[60];
	struct {
		const double *a, *b;
		size_t na, nb;
		double u, p;
		int exact;
	} rows[] = {
		{ two_a, two_b, 2, 2, 3, 0.6666666666666666, 1 },
		{ cpu_a, cpu_b, 2, 3, 6, 0.2, 1 },
		{ real_a, real_b, 2, 3, 4, 0.7670968684102772, 0 },
		{ six, twelve, 6, 12, 25, 0.3354880413703943, 1 },
		{ three, sixty, 3, 60, 171, 0.0026692855883760167, 1 },
	};
	/* the 60: uniform on 95..108 from Python's random after the 6, the 12 and the 3 above
	 * (seed 27), kept in the file as numbers */
	static const double sixty_v[60] = {
		95.157346, 107.667603, 103.355725, 98.288206, 102.961772, 99.39182, 103.454086,
		104.155212, 101.815038, 96.283599, 100.095232, 98.926467, 104.742344, 107.105949,
		105.083493, 101.896293, 97.212369, 104.198011, 98.445747, 107.964851, 97.247821,
		107.587097, 95.195636, 105.136242, 99.502647, 102.46299, 100.405556, 99.00291,
		100.689905, 105.605411, 99.585181, 99.692131, 105.158651, 97.31021, 99.646154,
		101.713931, 101.725577, 97.209423, 104.937594, 101.358767, 96.188821, 99.398774,
		95.743591, 99.468613, 96.486051, 98.306571, 102.226738, 103.96403, 98.897652,
		101.024903, 101.671848, 102.616051, 106.790295, 97.8158, 105.053789, 102.205527,
		106.628914, 103.906445, 95.050562, 95.747467 };

	memcpy(sixty, sixty_v, sizeof(sixty));
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pbench_mann_whitney m = { .size = sizeof(m) };

		cr_assert_eq(pbench_stats_mann_whitney(rows[i].a, rows[i].na, rows[i].b, rows[i].nb,
						       &m), 0, "row %zu", i);
		cr_assert_eq(m.u, rows[i].u, "row %zu: U %g", i, m.u);
		cr_assert_eq(isnan(m.z), rows[i].exact, "row %zu: z %g", i, m.z);
		cr_assert_leq(fabs(m.p - rows[i].p), 1e-12 * rows[i].p, "row %zu: p %.17g, want "
			      "%.17g", i, m.p, rows[i].p);
	}
}

Test(welch, bad_input_and_edges)
{
	struct pbench_welch w = { .size = sizeof(w) };
	struct pbench_stats_opts bad = { .size = sizeof(bad), .ci_level = 1 };
	double flat[] = { 3, 3, 3 }, flat2[] = { 5, 5 }, x[] = { 1, 2, 3 }, nan[] = { 1, NAN };
	double zero_mean[] = { -1, 1, 0 };

	cr_assert_eq(pbench_stats_welch(flat, 3, flat2, 2, NULL, &w), -EINVAL, "no variance");
	cr_assert_eq(pbench_stats_welch(x, 1, x, 3, NULL, &w), -EINVAL, "one sample");
	cr_assert_eq(pbench_stats_welch(x, 3, nan, 2, NULL, &w), -EINVAL, "NaN");
	cr_assert_eq(pbench_stats_welch(NULL, 3, x, 3, NULL, &w), -EINVAL);
	cr_assert_eq(pbench_stats_welch(x, 3, x, 3, &bad, &w), -EINVAL, "level 1");
	cr_assert_eq(pbench_stats_welch(x, 3, x, 3, NULL, NULL), -EINVAL);
	/* One side without variance is a fair comparison: df is the other side's n - 1. */
	cr_assert_eq(pbench_stats_welch(flat, 3, x, 3, NULL, &w), 0);
	cr_assert_eq(w.df, 2);
	cr_assert_eq(w.diff, 1);
	/* mean_b = 0: no ratio to give */
	cr_assert_eq(pbench_stats_welch(x, 3, zero_mean, 3, NULL, &w), 0);
	cr_assert(isnan(w.ratio) && isnan(w.ratio_lo) && isnan(w.ratio_hi));
}

/* ---- on the log scale, paired, equivalence [REF2] ----------------------------------------- */

#define REFERENCE_COMPARE "tests/data/reference_compare.json"

static json_t *reference_compare(void)
{
	json_error_t err;
	json_t *root = json_load_file(REFERENCE_COMPARE, 0, &err);

	cr_assert_not_null(root, "%s:%d: %s", REFERENCE_COMPARE, err.line, err.text);
	return root;
}

/* t, df, p, diff, se and the interval of one test against its reference row. */
static void assert_test(const struct pbench_welch *w, const json_t *ref, const char *name)
{
	double width = num(ref, "diff_hi") - num(ref, "diff_lo");

	cr_assert_leq(rel_err(w->t, num(ref, "t")), 1e-9, "%s: t %.17g", name, w->t);
	cr_assert_leq(rel_err(w->df, num(ref, "df")), 1e-9, "%s: df %.17g", name, w->df);
	cr_assert_leq(rel_err(w->p, num(ref, "p")), 1e-7, "%s: p %.17g, want %.17g", name, w->p,
		      num(ref, "p"));
	cr_assert_leq(rel_err(w->se, num(ref, "se")), 1e-9, "%s: se %.17g", name, w->se);
	cr_assert_leq(fabs(w->diff - num(ref, "diff")), 1e-9 * width, "%s", name);
	cr_assert_leq(fabs(w->diff_lo - num(ref, "diff_lo")), 1e-7 * width, "%s", name);
	cr_assert_leq(fabs(w->diff_hi - num(ref, "diff_hi")), 1e-7 * width, "%s", name);
	if (!json_object_get(ref, "ratio"))
		return;
	cr_assert_leq(rel_err(w->ratio, num(ref, "ratio")), 1e-9, "%s: ratio %.17g", name,
		      w->ratio);
	cr_assert_leq(rel_err(w->ratio_lo, num(ref, "ratio_lo")), 1e-7, "%s: ratio_lo", name);
	cr_assert_leq(rel_err(w->ratio_hi, num(ref, "ratio_hi")), 1e-7, "%s: ratio_hi", name);
	cr_assert(w->ratio_lo > 0 && w->ratio_lo <= w->ratio && w->ratio <= w->ratio_hi, "%s",
		  name);
}

/* [REF2] scipy.stats.ttest_ind(log a, log b, equal_var=False), 99.9% intervals. */
Test(welch, log_scale_against_scipy)
{
	json_t *root = reference_compare();
	const json_t *c;
	size_t i;

	json_array_foreach(json_object_get(root, "log_welch"), i, c) {
		const char *name = json_string_value(json_object_get(c, "name"));
		struct pbench_stats_opts opts = { .size = sizeof(opts),
						  .ci_level = num(c, "level"),
						  .flags = PBENCH_STATS_LOG };
		struct pbench_welch w = { .size = sizeof(w) };
		size_t na, nb;
		double *a = numbers(json_object_get(c, "a"), &na);
		double *b = numbers(json_object_get(c, "b"), &nb);

		cr_assert_eq(pbench_stats_welch(a, na, b, nb, &opts, &w), 0, "%s", name);
		assert_test(&w, c, name);
		free(a);
		free(b);
	}
	json_decref(root);
}

/* [REF2] scipy.stats.ttest_rel, on the values and on their logs. */
Test(paired, against_scipy)
{
	json_t *root = reference_compare();
	const json_t *c;
	size_t i;

	json_array_foreach(json_object_get(root, "paired"), i, c) {
		const char *name = json_string_value(json_object_get(c, "name"));
		int log_scale = json_is_true(json_object_get(c, "log"));
		struct pbench_stats_opts opts = { .size = sizeof(opts),
						  .ci_level = num(c, "level"),
						  .flags = log_scale ? PBENCH_STATS_LOG : 0 };
		struct pbench_welch w = { .size = sizeof(w) };
		size_t na, nb;
		double *a = numbers(json_object_get(c, "a"), &na);
		double *b = numbers(json_object_get(c, "b"), &nb);

		cr_assert_eq(na, nb);
		cr_assert_eq(pbench_stats_paired(a, b, na, &opts, &w), 0, "%s", name);
		assert_test(&w, c, name);
		free(a);
		free(b);
	}
	json_decref(root);
}

/* [REF2] Schuirmann's TOST on the log Welch (or paired) test of a case: scipy's t.sf / t.cdf
 * of (diff - lo) / se and (diff - hi) / se. */
Test(tost, against_scipy)
{
	json_t *root = reference_compare();
	const json_t *c, *cases[2] = { json_object_get(root, "log_welch"),
				       json_object_get(root, "paired") };
	size_t i;

	json_array_foreach(json_object_get(root, "tost"), i, c) {
		const char *name = json_string_value(json_object_get(c, "case"));
		struct pbench_stats_opts opts = { .size = sizeof(opts), .flags = PBENCH_STATS_LOG };
		struct pbench_welch w = { .size = sizeof(w) };
		struct pbench_tost t = { .size = sizeof(t) };
		const json_t *ref = NULL, *k;
		size_t j, na, nb;
		double *a, *b;

		for (int s = 0; s < 2 && !ref; s++)
			json_array_foreach(cases[s], j, k)
				if (!strcmp(json_string_value(json_object_get(k, "name")), name) &&
				    (!s || json_is_true(json_object_get(k, "log"))))
					ref = k;
		cr_assert_not_null(ref, "no case '%s'", name);
		a = numbers(json_object_get(ref, "a"), &na);
		b = numbers(json_object_get(ref, "b"), &nb);
		if (json_object_get(ref, "log"))
			cr_assert_eq(pbench_stats_paired(a, b, na, &opts, &w), 0, "%s", name);
		else
			cr_assert_eq(pbench_stats_welch(a, na, b, nb, &opts, &w), 0, "%s", name);
		cr_assert_eq(pbench_stats_tost(&w, num(c, "lo"), num(c, "hi"), &t), 0, "%s", name);
		cr_assert_leq(rel_err(t.t_lo, num(c, "t_lo")), 1e-9, "%s: t_lo %.17g", name, t.t_lo);
		cr_assert_leq(rel_err(t.t_hi, num(c, "t_hi")), 1e-9, "%s: t_hi %.17g", name, t.t_hi);
		cr_assert_leq(rel_err(t.p_lo, num(c, "p_lo")), 1e-7, "%s: p_lo %.17g, want %.17g",
			      name, t.p_lo, num(c, "p_lo"));
		cr_assert_leq(rel_err(t.p_hi, num(c, "p_hi")), 1e-7, "%s: p_hi %.17g, want %.17g",
			      name, t.p_hi, num(c, "p_hi"));
		cr_assert_eq(t.p, fmax(t.p_lo, t.p_hi), "%s", name);
		free(a);
		free(b);
	}
	json_decref(root);
}

/* [HAND] a = {2, 4, 9}, b = {1, 2, 3} on the log scale: the logs of the ratios are log 2,
 * log 2, log 3, so the geometric mean ratio is (2 * 2 * 3)^(1/3) = 12^(1/3). Without the flag
 * the ratio is of the means, 5 / 2. A sample of 0 has no log. */
Test(paired, hand_checked_and_bad_input)
{
	struct pbench_stats_opts lg = { .size = sizeof(lg), .flags = PBENCH_STATS_LOG };
	struct pbench_welch w = { .size = sizeof(w) };
	double a[] = { 2, 4, 9 }, b[] = { 1, 2, 3 }, zero[] = { 0, 1, 2 }, c[] = { 3, 4, 5 };

	cr_assert_eq(pbench_stats_paired(a, b, 3, &lg, &w), 0);
	cr_assert_leq(rel_err(w.ratio, cbrt(12)), 1e-15);
	cr_assert_eq(w.df, 2);
	cr_assert_eq(pbench_stats_paired(a, b, 3, NULL, &w), 0);
	cr_assert_leq(rel_err(w.ratio, 2.5), 1e-15);
	cr_assert_leq(rel_err(w.diff, 3), 1e-15);
	cr_assert_eq(pbench_stats_paired(a, zero, 3, &lg, &w), -EINVAL, "log of 0");
	cr_assert_eq(pbench_stats_welch(a, 3, zero, 3, &lg, &w), -EINVAL, "log of 0");
	cr_assert_eq(pbench_stats_paired(c, b, 3, NULL, &w), -EINVAL, "every pair 2 apart");
	cr_assert_eq(pbench_stats_paired(a, b, 1, NULL, &w), -EINVAL, "one pair");
}

Test(tost, bad_input_and_edges)
{
	struct pbench_welch w = { .size = sizeof(w), .diff = 0, .se = 1, .df = 10 };
	struct pbench_welch old = { .size = offsetof(struct pbench_welch, se), .diff = 0,
				    .df = 10 };
	struct pbench_tost t = { .size = sizeof(t) };

	/* diff 0, bounds +-2 se: both one-sided p are P(T > 2) at df 10, so p is that */
	cr_assert_eq(pbench_stats_tost(&w, -2, 2, &t), 0);
	cr_assert_leq(rel_err(t.p_lo, t.p_hi), 1e-15);
	cr_assert_leq(rel_err(t.p, 1 - pbench_stats_t_cdf(2, 10)), 1e-12);
	cr_assert_eq(pbench_stats_tost(&w, 2, -2, &t), -EINVAL, "bounds reversed");
	cr_assert_eq(pbench_stats_tost(&w, NAN, 2, &t), -EINVAL);
	cr_assert_eq(pbench_stats_tost(&old, -2, 2, &t), -EINVAL, "a struct without se");
	w.se = 0;
	cr_assert_eq(pbench_stats_tost(&w, -2, 2, &t), -EINVAL, "no standard error");
	cr_assert_eq(pbench_stats_tost(NULL, -2, 2, &t), -EINVAL);
}

Test(mann_whitney, bad_input)
{
	struct pbench_mann_whitney m = { .size = sizeof(m) };
	double x[] = { 1, 2 }, same[] = { 4, 4, 4 }, inf[] = { 1, INFINITY };

	cr_assert_eq(pbench_stats_mann_whitney(x, 0, x, 2, &m), -EINVAL, "empty");
	cr_assert_eq(pbench_stats_mann_whitney(x, 2, inf, 2, &m), -EINVAL, "infinite");
	cr_assert_eq(pbench_stats_mann_whitney(same, 3, same, 2, &m), -EINVAL, "all tied");
	cr_assert_eq(pbench_stats_mann_whitney(x, 2, NULL, 2, &m), -EINVAL);
	cr_assert_eq(pbench_stats_mann_whitney(x, 2, x, 2, NULL), -EINVAL);
}

/* ---- the summary on small cases [HAND] --------------------------------------------------- */

/* 1..10. R type 7: h = 9p, so q1 = x[2] + 0.25 = 3.25, median 5.5, q3 = x[6] + 0.75 = 7.75;
 * |x - 5.5| = 0.5 0.5 1.5 1.5 ... 4.5 4.5: MAD 2.5; without 1 and 10 the mean stays 5.5;
 * sd = sqrt(82.5 / 9); the 95% interval is scipy.stats.t.interval(0.95, 9, 5.5, sem). */
Test(summary, one_to_ten)
{
	double x[] = { 7, 3, 10, 1, 5, 9, 2, 8, 4, 6 };	/* unsorted on purpose */
	struct pbench_summary s = summarize(x, 10, NULL);

	cr_assert_eq(s.n, 10);
	cr_assert_eq(s.min, 1);
	cr_assert_eq(s.max, 10);
	cr_assert_eq(s.mean, 5.5);
	cr_assert_eq(s.median, 5.5);
	cr_assert_eq(s.q1, 3.25);
	cr_assert_eq(s.q3, 7.75);
	cr_assert_eq(s.mad, 2.5);
	cr_assert_eq(s.trimmed_mean, 5.5);
	cr_assert_leq(rel_err(s.stddev, sqrt(82.5 / 9)), 1e-15);
	cr_assert_leq(rel_err(s.sem, 0.9574271077563381), 1e-15);
	cr_assert_eq(s.ci_level, 0.95);
	cr_assert_leq(rel_err(s.ci_lo, 3.3341494103866087), 1e-9);
	cr_assert_leq(rel_err(s.ci_hi, 7.665850589613392), 1e-9);
	cr_assert_leq(rel_err(s.cv_pct, 55.04818825631803), 1e-14);
	cr_assert_eq(s.spread_pct, 900);
	cr_assert_eq(s.outliers_low_mild + s.outliers_low_severe, 0);
	cr_assert_eq(s.outliers_high_mild + s.outliers_high_severe, 0);
	cr_assert_eq(x[0], 7, "the input is left unchanged");
}

/* ci_level 0.99 over the same data: scipy.stats.t.interval(0.99, 9, 5.5, sem). */
Test(summary, ci_level_option)
{
	double x[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	struct pbench_stats_opts opts = { .size = sizeof(opts), .ci_level = 0.99 };
	struct pbench_summary s = summarize(x, 10, &opts);

	cr_assert_eq(s.ci_level, 0.99);
	cr_assert_leq(rel_err(s.ci_lo, 2.388519354409619), 1e-9);
	cr_assert_leq(rel_err(s.ci_hi, 8.611480645590381), 1e-9);
}

/*
 * Outlier rows. Tukey: fences at q1 - 1.5 IQR, q1 - 3 IQR, q3 + 1.5 IQR, q3 + 3 IQR, a severe
 * one is not counted as mild too. 3-sigma: beyond mean +- 3 sd, all severe.
 */
static const struct outlier_row {
	const char *what;
	double x[24];
	size_t n;
	int rule;
	size_t low_mild, low_severe, high_mild, high_severe;
} outlier_rows[] = {
	/* q1 = 1 + 0.75 (1..2) = 1.75, q3 = 7 + 0.25 = 7.25, IQR 5.5: mild below -6.5 or above
	 * 15.5, severe below -14.75 or above 23.75. */
	{ "one of each", { -20, -8, 1, 2, 3, 4, 5, 6, 7, 8, 20, 40 }, 12, PBENCH_OUTLIER_TUKEY,
	  1, 1, 1, 1 },
	/* on a fence is not beyond it: 15.5 stays in */
	{ "on the mild fence", { -20, -8, 1, 2, 3, 4, 5, 6, 7, 8, 15.5, 40 }, 12,
	  PBENCH_OUTLIER_TUKEY, 1, 1, 0, 1 },
	/* 1..20 and 100: q1 6, q3 16, severe above 46; mean 14.76, sd 20.36, 3 sd above 75.85 */
	{ "1..20 and 100, Tukey", { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
	  19, 20, 100 }, 21, PBENCH_OUTLIER_TUKEY, 0, 0, 0, 1 },
	{ "1..20 and 100, 3-sigma", { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
	  18, 19, 20, 100 }, 21, PBENCH_OUTLIER_3SIGMA, 0, 0, 0, 1 },
	/* -100 and 1..20: mean 5.24, sd 24.8, 3 sd below -69.1 */
	{ "-100 and 1..20, 3-sigma", { -100, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
	  17, 18, 19, 20 }, 21, PBENCH_OUTLIER_3SIGMA, 0, 1, 0, 0 },
	/* mean 5.67 and sd 14.4 of the first row: -20 and 40 are within 3 sd (-37.5 .. 48.9) */
	{ "one of each, 3-sigma", { -20, -8, 1, 2, 3, 4, 5, 6, 7, 8, 20, 40 }, 12,
	  PBENCH_OUTLIER_3SIGMA, 0, 0, 0, 0 },
};

Test(summary, outliers)
{
	for (size_t i = 0; i < ARRAY_SIZE(outlier_rows); i++) {
		const struct outlier_row *r = &outlier_rows[i];
		struct pbench_stats_opts opts = { .size = sizeof(opts), .outlier_rule = r->rule };
		struct pbench_summary s = summarize(r->x, r->n, &opts);

		cr_assert_eq(s.outliers_low_mild, r->low_mild, "%s", r->what);
		cr_assert_eq(s.outliers_low_severe, r->low_severe, "%s", r->what);
		cr_assert_eq(s.outliers_high_mild, r->high_mild, "%s", r->what);
		cr_assert_eq(s.outliers_high_severe, r->high_severe, "%s", r->what);
	}
}

/* One sample: no spread and no interval, NaN (see fill_spread in stats.c). Two: q1 and
 * q3 interpolate a quarter of the way, the interval is 2 +- t(0.975, 1) * 1 with
 * t(0.975, 1) = tan(0.475 pi), and the trimmed mean is the mean (nothing left to trim). */
Test(summary, n_one_and_two)
{
	double one[] = { 42 }, two[] = { 3, 1 };
	struct pbench_summary s = summarize(one, 1, NULL);

	cr_assert(s.n == 1 && s.min == 42 && s.max == 42 && s.mean == 42 && s.median == 42);
	cr_assert(s.q1 == 42 && s.q3 == 42 && s.mad == 0 && s.trimmed_mean == 42);
	/* One sample has no spread and no interval: not computable, NaN, not 0. */
	cr_assert(isnan(s.stddev) && isnan(s.sem) && isnan(s.ci_lo) && isnan(s.ci_hi) &&
		  isnan(s.cv_pct));
	cr_assert_eq(s.mvalue, 2);
	cr_assert_eq(s.bimodal, 0);

	s = summarize(two, 2, NULL);
	cr_assert(s.mean == 2 && s.median == 2 && s.q1 == 1.5 && s.q3 == 2.5);
	cr_assert(s.mad == 1 && s.trimmed_mean == 2 && s.spread_pct == 200);
	cr_assert_leq(rel_err(s.stddev, M_SQRT2), 1e-15);
	cr_assert_leq(rel_err(s.sem, 1), 1e-15);
	/* Student's interval, 2 -+ t(0.975, 1) = 2 -+ tan(0.475 pi), would reach -10.7: a mean
	 * of positive samples cannot, so the interval is the log's, 2 exp(-+t sem / mean). */
	cr_assert_leq(rel_err(s.ci_lo, 2 * exp(-tan(0.475 * M_PI) / 2)), 1e-12);
	cr_assert_leq(rel_err(s.ci_hi, 2 * exp(tan(0.475 * M_PI) / 2)), 1e-12);
	cr_assert(s.ci_lo > 0);
	/* The same spread one unit higher up stays clear of 0: Student's, symmetric. */
	s = summarize((double[]){ 1001, 1003 }, 2, NULL);
	cr_assert_leq(rel_err(s.ci_hi - 1002, tan(0.475 * M_PI)), 1e-12);
	cr_assert_leq(rel_err(1002 - s.ci_lo, tan(0.475 * M_PI)), 1e-12);
	/* Samples at or below 0 are not a positive quantity: Student's, below 0 as it comes. */
	s = summarize((double[]){ 3, -1 }, 2, NULL);
	cr_assert_leq(rel_err(1 - s.ci_lo, tan(0.475 * M_PI) * 2), 1e-12);
}

Test(welch, ratio_of_positive_samples_never_below_zero)
{
	/* a is wide against b: mean_a / mean_b = 0.6, its linear interval reaches below 0; the
	 * log ratio's is positive, around 0.6 on a log scale (lo * hi = ratio^2). */
	double a[] = { 1, 59, 2, 58, 3, 57 }, b[] = { 50, 51, 49, 50, 52, 48 };
	struct pbench_welch w = { .size = sizeof(w) };
	double ma = 30, mb = 50;

	cr_assert_eq(pbench_stats_welch(a, 6, b, 6, NULL, &w), 0);
	cr_assert_leq(rel_err(w.ratio, ma / mb), 1e-15);
	cr_assert(1 + w.diff_lo / mb < 0, "the linear interval would reach below 0");
	cr_assert(w.ratio_lo > 0 && w.ratio_lo < w.ratio && w.ratio < w.ratio_hi);
	cr_assert_leq(rel_err(w.ratio_lo * w.ratio_hi, w.ratio * w.ratio), 1e-12);
	/* delta method: s^2 = var(a)/(6 ma^2) + var(b)/(6 mb^2), var(a) = 941.6, var(b) = 2 */
	{
		double ra = 941.6 / 6 / (ma * ma), rb = 2.0 / 6 / (mb * mb), s2 = ra + rb;
		double df = s2 * s2 / (ra * ra / 5 + rb * rb / 5);
		double t = pbench_stats_t_quantile(0.95, df);

		cr_assert_leq(rel_err(w.ratio_hi, w.ratio * exp(t * sqrt(s2))), 1e-12);
	}
}

/*
 * Gregg's mvalue on histograms worked out by hand. The rows give (value, count) pairs; the bins
 * are min(Sturges, n / 15) over [min, max] (see mvalue() in stats.c for why), whole steps wide
 * when every value is an integer.
 */
static const struct mvalue_row {
	const char *what;
	struct { double v; size_t count; } piles[6];
	double mvalue;
	int bimodal;
} mvalue_rows[] = {
	/* n 75, 5 bins of 2 over [0.5, 10.5]: 40 0 0 0 35 -> 0,40,0,0,0,35,0: 150 / 40 */
	{ "two piles", { { 0.5, 40 }, { 10.5, 35 } }, 3.75, 1 },
	/* n 75, 5 bins of 0.96 over [0.1, 4.9]: 10 15 25 15 10 -> (10+5+10+10+5+10) / 25 */
	{ "one hump", { { 0.1, 10 }, { 1.5, 15 }, { 2.5, 25 }, { 3.5, 15 }, { 4.9, 10 } }, 2, 0 },
	/* n 90: integers 0, 10, 20 (step 10): 3 points, 6 bins -> a bin per point: 30 30 30,
	 * no empty bin between them, one flat mode: (30 + 30) / 30 */
	{ "three integer piles, step 10", { { 0, 30 }, { 10, 30 }, { 20, 30 } }, 2, 0 },
	/* n 90: integers 0, 1, 10, 11, 20 (step 1): 21 points, 6 bins of 4:
	 * {0..3} 30, {4..7} 0, {8..11} 30, {12..15} 0, {16..19} 0, {20..23} 30: 180 / 30 */
	{ "three integer piles, step 1", { { 0, 15 }, { 1, 15 }, { 10, 15 }, { 11, 15 },
	  { 20, 30 } }, 6, 1 },
	/* n 90, ticks 100 101 102: one bin per tick, 30 45 15 -> (30+15+30+15) / 45. Bins of 1/3
	 * tick would give 30 0 0 45 0 15 and "mvalue 4" for a plain single-mode distribution. */
	{ "three tick values", { { 100, 30 }, { 101, 45 }, { 102, 15 } }, 2, 0 },
	/* n 44: two bins at most, whatever the shape */
	{ "too few samples", { { 0, 22 }, { 100, 22 } }, 2, 0 },
	/* all equal: one bin */
	{ "constant", { { 5, 40 } }, 2, 0 },
};

Test(summary, mvalue_hand_checked)
{
	for (size_t i = 0; i < ARRAY_SIZE(mvalue_rows); i++) {
		const struct mvalue_row *r = &mvalue_rows[i];
		double x[100];
		size_t n = 0;
		struct pbench_summary s;

		for (size_t p = 0; p < ARRAY_SIZE(r->piles); p++)
			for (size_t c = 0; c < r->piles[p].count; c++)
				x[n++] = r->piles[p].v;
		s = summarize(x, n, NULL);
		cr_assert_leq(fabs(s.mvalue - r->mvalue), 1e-15, "%s: %g", r->what, s.mvalue);
		cr_assert_eq(s.bimodal, r->bimodal, "%s", r->what);
	}
}

/* Deterministic normal variates: xorshift64 and the sum of 12 uniforms (Irwin-Hall). */
static double normal(uint64_t *state)
{
	double sum = 0;

	for (int i = 0; i < 12; i++) {
		*state ^= *state << 13;
		*state ^= *state >> 7;
		*state ^= *state << 17;
		sum += (double)(*state >> 11) / 9007199254740992.0;
	}
	return sum - 6;
}

/* Two clusters of timings 10% apart against one cluster of the same spread. */
Test(summary, bimodal_clusters)
{
	static const size_t sizes[] = { 60, 100, 400, 2000 };
	uint64_t state = 88172645463325252ull;

	for (size_t k = 0; k < ARRAY_SIZE(sizes); k++) {
		size_t n = sizes[k];
		double *one = malloc(n * sizeof(*one)), *two = malloc(n * sizeof(*two));
		struct pbench_summary s;

		cr_assert(one && two);
		for (size_t i = 0; i < n; i++) {
			one[i] = 1e6 + 5e3 * normal(&state);
			two[i] = (i % 2 ? 1.1e6 : 1e6) + 5e3 * normal(&state);
		}
		s = summarize(one, n, NULL);
		cr_assert(!s.bimodal && s.mvalue < 2.4, "one cluster, n %zu: mvalue %g", n,
			  s.mvalue);
		s = summarize(two, n, NULL);
		cr_assert(s.bimodal && s.mvalue >= 3.5, "two clusters, n %zu: mvalue %g", n,
			  s.mvalue);
		free(one);
		free(two);
	}
}

Test(summary, bad_input)
{
	struct pbench_summary s = { .size = sizeof(s) }, zero = { 0 };
	struct pbench_stats_opts level = { .size = sizeof(level), .ci_level = 1.5 };
	struct pbench_stats_opts rule = { .size = sizeof(rule), .outlier_rule = 7 };
	double x[] = { 1, 2, 3 }, with_nan[] = { 1, NAN, 3 }, with_inf[] = { 1, 2, -INFINITY };

	cr_assert_eq(pbench_stats_summary(with_nan, 3, NULL, &s), -EINVAL, "NaN");
	cr_assert_eq(pbench_stats_summary(with_inf, 3, NULL, &s), -EINVAL, "-inf");
	cr_assert_eq(pbench_stats_summary(x, 0, NULL, &s), -EINVAL, "n 0");
	cr_assert_eq(pbench_stats_summary(NULL, 3, NULL, &s), -EINVAL);
	cr_assert_eq(pbench_stats_summary(x, 3, NULL, NULL), -EINVAL);
	cr_assert_eq(pbench_stats_summary(x, 3, NULL, &zero), -EINVAL, "size 0");
	cr_assert_eq(pbench_stats_summary(x, 3, &level, &s), -EINVAL, "ci_level 1.5");
	cr_assert_eq(pbench_stats_summary(x, 3, &rule, &s), -EINVAL, "outlier rule 7");
}

/* A caller built against an older, shorter struct: nothing past its size is written. */
Test(summary, shorter_struct)
{
	double x[] = { 1, 2, 3, 4 };
	struct pbench_summary s;

	memset(&s, 0xa5, sizeof(s));
	s.size = offsetof(struct pbench_summary, median);
	cr_assert_eq(pbench_stats_summary(x, 4, NULL, &s), 0);
	cr_assert_eq(s.size, offsetof(struct pbench_summary, median));
	cr_assert(s.n == 4 && s.min == 1 && s.max == 4 && s.mean == 2.5);
	for (size_t i = offsetof(struct pbench_summary, median); i < sizeof(s); i++)
		cr_assert_eq(((unsigned char *)&s)[i], 0xa5, "byte %zu written", i);
}

/* Samples whose deviations a double cannot square (1e300 among ones): the spread is n/a (NaN),
 * never the 0 that inf - inf used to become; the median and quartiles stay finite even for
 * samples of opposite sign near DBL_MAX. */
Test(summary, extreme_values)
{
	double x[] = { 1, 1, 1, 1e300 }, y[] = { -1.7e308, 1.7e308 };
	struct pbench_summary s = summarize(x, 4, NULL);

	cr_assert(isnan(s.stddev) && isnan(s.sem) && isnan(s.cv_pct) && isnan(s.ci_lo));
	cr_assert_eq(s.median, 1);
	cr_assert_eq(s.mad, 0);
	cr_assert(isfinite(s.spread_pct) && s.spread_pct > 1e300);
	s = summarize(y, 2, NULL);
	cr_assert(isfinite(s.median) && isfinite(s.q1) && isfinite(s.q3), "median %g q1 %g q3 %g",
		  s.median, s.q1, s.q3);
	cr_assert(isnan(s.spread_pct), "min <= 0: spread n/a, got %g", s.spread_pct);
}

/* The one verdict rule (pbench_stats_verdict): one look at p < 0.001 is a difference, a
 * sequential look needs p < 0.0001; an interval of the ratio within 1% of 1 is "same". */
Test(verdict, one_rule)
{
	struct pbench_welch w = { .size = sizeof(w), .p = 0.0005, .diff = -1, .ratio_lo = 0.9,
				  .ratio_hi = 0.95 };

	cr_assert_eq(pbench_stats_verdict(&w, 0.999, 1, 0), PBENCH_VERDICT_FASTER);
	cr_assert_eq(pbench_stats_verdict(&w, 0.999, 1, PBENCH_VERDICT_SEQUENTIAL),
		     PBENCH_VERDICT_UNDECIDED,
		     "one look's p is not enough when every round is looked at");
	w.diff = 1;
	cr_assert_eq(pbench_stats_verdict(&w, 0.999, 1, 0), PBENCH_VERDICT_SLOWER);
	w.p = 0.5;
	w.ratio_lo = 0.995;
	w.ratio_hi = 1.004;
	cr_assert_eq(pbench_stats_verdict(&w, 0.999, 1, 0), PBENCH_VERDICT_SAME);
	cr_assert_eq(pbench_stats_verdict(&w, 0.999, 0.1, 0), PBENCH_VERDICT_UNDECIDED);
	w.p = NAN;
	cr_assert_eq(pbench_stats_verdict(&w, 0.999, 1, 0), PBENCH_VERDICT_UNDECIDED);
	cr_assert_eq(pbench_stats_verdict(NULL, 0.999, 1, 0), PBENCH_VERDICT_UNDECIDED);
}

/* Subnormal values lose their precision and their squares underflow (a stddev of 0 beside a
 * spread of 100%): refused and said, not summarized wrong (issue 25). */
Test(stats, subnormal_values_are_refused)
{
	const double x[] = { 5e-324, 1e-323, 5e-324 }, y[] = { 1, 2, 3 };
	struct pbench_summary s = { .size = sizeof(s) };
	int err = pbench_stats_summary(x, 3, NULL, &s);

	cr_expect_eq(err, -EINVAL);
	cr_expect(strstr(pbench_strerror(err), "subnormal"), "%s", pbench_strerror(err));
	cr_expect_eq(pbench_stats_summary(y, 3, NULL, &s), 0);
}

/* The times of a file of tests/data/gen_aa.py (one integer a line, # comments). */
static double *stored_times(const char *name, size_t *n)
{
	char path[256], line[128];
	double *x = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "tests/data/%s", name);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s: %s (run from the top of the tree)", path, strerror(errno));
	*n = 0;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			x = realloc(x, cap * sizeof(*x));
			cr_assert_not_null(x);
		}
		x[(*n)++] = strtod(line, NULL);
	}
	fclose(f);
	cr_assert_gt(*n, 1, "%s: no samples", path);
	return x;
}

/* The verdict rule on stored samples (tests/data/gen_aa.py, fixed seeds), as pbench compare
 * uses it (the logs of the times, 99.9%, one look and the sequential boundary) and as pbench
 * analyze does (the times): an A/A pair is never different, 3% apart is found each way
 * round, 400 against 400 of a narrow spread are the same within 1%. */
Test(verdict, stored_aa_ab_same)
{
	static const struct {
		const char *a, *b;
		double same_pct;
		int want;
	} rows[] = {
		{ "aa-a.txt", "aa-b.txt", 1, PBENCH_VERDICT_UNDECIDED },
		{ "aa-b.txt", "aa-a.txt", 1, PBENCH_VERDICT_UNDECIDED },
		{ "aa-a.txt", "ab-b.txt", 1, PBENCH_VERDICT_FASTER },
		{ "ab-b.txt", "aa-a.txt", 1, PBENCH_VERDICT_SLOWER },
		{ "aa-same-a.txt", "aa-same-b.txt", 1, PBENCH_VERDICT_SAME },
		{ "aa-same-a.txt", "aa-same-b.txt", 0, PBENCH_VERDICT_UNDECIDED },
	};

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		size_t na, nb;
		double *a = stored_times(rows[i].a, &na), *b = stored_times(rows[i].b, &nb);

		for (unsigned flags = 0; flags < 4; flags++) {
			int log_scale = flags & 1;
			unsigned vflags = flags & 2 ? PBENCH_VERDICT_SEQUENTIAL : 0;
			struct pbench_stats_opts o = { .size = sizeof(o), .ci_level = 0.999,
						       .flags = log_scale ? PBENCH_STATS_LOG : 0 };
			struct pbench_welch w = { .size = sizeof(w) };
			int v;

			cr_assert_eq(pbench_stats_welch(a, na, b, nb, &o, &w), 0);
			v = pbench_stats_verdict(&w, 0.999, rows[i].same_pct, vflags);
			cr_expect_eq(v, rows[i].want, "%s against %s (%s, %s, same within %g%%): "
				     "verdict %s, want %s (p %.3g, ratio %.4f [%.4f, %.4f])",
				     rows[i].a, rows[i].b, log_scale ? "logs" : "times",
				     vflags ? "sequential" : "one look", rows[i].same_pct,
				     pbench_verdict_name(v), pbench_verdict_name(rows[i].want),
				     w.p, w.ratio, w.ratio_lo, w.ratio_hi);
		}
		free(a);
		free(b);
	}
}

/* ---- the baseline gate (pbench_stats_gate) ------------------------------------------------ */

/* The times of tests/data/gate/NAME (gen_gate.py: one a line, # comments), read with the
 * library's own reader. */
static double *gate_times(const char *name, size_t *n)
{
	struct pbench_samples *s;
	char path[256], why[256] = "";
	const double *x;
	double *out;

	snprintf(path, sizeof(path), "tests/data/gate/%s", name);
	cr_assert_eq(pbench_samples_new(&s), 0);
	cr_assert_eq(said_in(pbench_samples_add_file(s, path, "ns"), why, sizeof(why)), 1, "%s",
		     why);
	x = pbench_samples_values(s, 0, n);
	out = malloc(*n * sizeof(*out));
	cr_assert_not_null(out);
	memcpy(out, x, *n * sizeof(*out));
	pbench_samples_free(s);
	return out;
}

/*
 * [GATE] The same quiet command (1% spread) measured at another moment, 3% slower: the gate
 * before issue 27 (Welch's 99.9% interval on the log times; regression when its lower end
 * passes 1.02) failed it, as the assertion on Welch shows; the gate allowing for the shift
 * between occasions says undecided, and exit 0. 30% more work is a regression no occasion
 * explains; 20% less is no regression.
 */
Test(gate, an_occasion_shift_is_not_a_regression)
{
	struct pbench_stats_opts o = { .size = sizeof(o), .ci_level = 0.999 };
	struct pbench_welch w = { .size = sizeof(w) };
	static const struct {
		const char *file;
		int want;
		const char *words;
	} rows[] = {
		{ "same-3pct.txt", 2, "undecided: 1.02" },
		{ "slower-30pct.txt", 1, "slower than the baseline by more than 2%: 1.3" },
		{ "faster-20pct.txt", 0, "not slower than the baseline by more than 2%: 0.79" },
	};
	size_t nb, nn;
	double *base = gate_times("baseline.txt", &nb), *lb = malloc(nb * sizeof(*lb)), *ln;
	char why[512];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		double *now = gate_times(rows[i].file, &nn);

		cr_assert_eq(pbench_stats_gate(base, nb, now, nn, 2, 0.999, why, sizeof(why)),
			     rows[i].want, "%s: %s", rows[i].file, why);
		cr_expect_not_null(strstr(why, rows[i].words), "%s: %s", rows[i].file, why);
		if (i == 0) {	/* what the old gate saw: the same command "slower by 2%" */
			ln = malloc(nn * sizeof(*ln));
			for (size_t k = 0; k < nb; k++)
				lb[k] = log(base[k]);
			for (size_t k = 0; k < nn; k++)
				ln[k] = log(now[k]);
			cr_assert_eq(pbench_stats_welch(ln, nn, lb, nb, &o, &w), 0);
			cr_expect_gt(exp(w.diff_lo), 1.02, "Welch's lower end %g", exp(w.diff_lo));
			free(ln);
		}
		free(now);
	}
	cr_expect_eq(pbench_stats_gate(base, 1, base, nb, 2, 0.999, why, sizeof(why)), -EINVAL);
	cr_expect_eq(pbench_stats_gate(base, nb, base, nb, -1, 0.999, why, sizeof(why)), -EINVAL);
	cr_expect_eq(pbench_stats_gate(base, nb, base, nb, 2, 1, why, sizeof(why)), -EINVAL);
	free(lb);
	free(base);
}

/*
 * [GATE-SPEED] Times adjusted by each run's speed reading (pbench_stats_gate_speed(); the
 * sessions of tests/data/gate/gen_gate.py, seed 2027: 200 runs, 1% spreads, the clock factor
 * of each run beside its time). Today's host at 0.6x (times 1.67x, nothing else changed): the
 * gate on the times alone fails the build; on the adjusted times it is no regression on a
 * machine with no residual shift between occasions, and undecided, never a regression, with
 * the residual measured on the shared VM (PBENCH_STATS_GATE_RESIDUAL_PCT). 5% more work at
 * the same speed: the times alone leave it undecided (15% for the occasion), the adjusted
 * ones detect it where the noise allows (no residual). A baseline measured while the host ran
 * at 0.6x, against 5% more work today at full speed: the times alone call it 0.63x, no
 * regression; adjusted, the regression. Without readings: the old rule, said.
 */
Test(gate, times_adjusted_by_the_speed_readings)
{
	static const struct {
		const char *base, *now;
		double residual;
		int old, want;
		const char *words;
	} rows[] = {
		{ "speed-base", "speed-same-at-0.6", 0, 1, 0, "not slower than the baseline by more "
		  "than 2%: 1.0" },
		{ "speed-base", "speed-same-at-0.6", PBENCH_STATS_GATE_RESIDUAL_PCT, 1, 2,
		  "undecided: 1.0" },
		{ "speed-base", "speed-more-5pct", 0, 2, 1, "slower than the baseline by more than "
		  "2%: 1.05" },
		{ "speed-base-at-0.6", "speed-more-5pct", 0, 0, 1, "slower than the baseline by more "
		  "than 2%: 1.05" },
	};
	char why[1024], name[128];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		size_t nb, nn, k;
		double *base = gate_times((snprintf(name, sizeof(name), "%s.txt", rows[i].base), name),
					  &nb);
		double *bf = gate_times((snprintf(name, sizeof(name), "%s.speed.txt", rows[i].base),
					name), &k);
		double *now = gate_times((snprintf(name, sizeof(name), "%s.txt", rows[i].now), name),
					 &nn);
		double *nf = gate_times((snprintf(name, sizeof(name), "%s.speed.txt", rows[i].now),
					name), &k);

		cr_expect_eq(pbench_stats_gate(base, nb, now, nn, 2, 0.999, why, sizeof(why)),
			     rows[i].old, "%s, times alone: %s", rows[i].now, why);
		cr_expect_eq(pbench_stats_gate_speed(base, bf, nb, now, nf, nn, 2, 0.999,
						     rows[i].residual, "clock", why, sizeof(why)),
			     rows[i].want, "%s: %s", rows[i].now, why);
		cr_expect_not_null(strstr(why, rows[i].words), "%s: %s", rows[i].now, why);
		cr_expect_not_null(strstr(why, "times adjusted by each run's clock reading: today's "
					  "host ran at "), "%s", why);
		if (i == 0)	/* the host's speed today over the baseline's, in the words */
			cr_expect_not_null(strstr(why, "ran at 0.60x of the baseline's speed"), "%s",
					   why);
		if (i == 0) {	/* no readings: the times alone, and the words say why */
			for (k = 0; k < nb; k++)
				bf[k] = NAN;
			cr_expect_eq(pbench_stats_gate_speed(base, bf, nb, now, nf, nn, 2, 0.999, 0,
							     "clock", why, sizeof(why)), 1, "%s", why);
			cr_expect_not_null(strstr(why, "times not adjusted for the machine's speed"),
					   "%s", why);
			cr_expect_eq(pbench_stats_gate_speed(base, NULL, nb, now, NULL, nn, 2, 0.999,
							     0, NULL, why, sizeof(why)), 1, "%s", why);
			cr_expect_eq(pbench_stats_gate_speed(base, bf, 1, now, nf, nn, 2, 0.999, 0,
							     NULL, why, sizeof(why)), -EINVAL);
			cr_expect_eq(pbench_stats_gate_speed(base, bf, nb, now, nf, nn, 2, 0.999, -1,
							     NULL, why, sizeof(why)), -EINVAL);
		}
		free(base);
		free(bf);
		free(now);
		free(nf);
	}
}
