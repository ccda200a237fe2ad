/* SPDX-License-Identifier: MIT */
/*
 * How a cost grows with a parameter (issue 38): t = a + b g(n) fitted for every g of enum
 * pbench_fit_model, and the models compared.
 *
 * Why not as others do: Google Benchmark fits t = c g(n) through the origin, so a true 29n - 88
 * cannot be fitted (google/benchmark #296), and picks the smallest RMS, so noise on a constant
 * comes out as lgN (#272). Here every model has an intercept a, and a model with more
 * coefficients must earn them:
 *
 *  - Weighted least squares: point i's weight is 1/sem_i^2 (its own runs' standard error), so a
 *    precise point counts more than a noisy one. Without sems (or one <= 0), equal weights.
 *  - AICc, the small-sample Akaike criterion, with p the model's coefficients (O(1): 1;
 *    a + b g: 2; n^k: 3) and chi2 the weighted sum of squared residuals. With sems the
 *    variances are known, and the criterion is Burnham and Anderson's QAICc:
 *    chi2 / c + 2p + 2p(p + 1) / (n - p - 1), c the overdispersion, the smallest reduced
 *    chi-square of the models and at least 1 (the points may scatter more than their runs
 *    say, never less). Without sems, a Gaussian likelihood whose scale is estimated:
 *    n ln(chi2 / n) + 2p + 2p(p + 1) / (n - p - 1); from 4 or 5 points its ln of a tiny chi2
 *    is overconfident, which the known variances are not. The scale is not counted in p: it
 *    is common to every model, and counting it would leave 4 points unable to compare
 *    two-coefficient models. A model needs n - p - 1 >= 1: O(1) 3 points,
 *    a + b g 4, n^k 5; so no model is named from fewer than 4 points.
 *  - The evidence ratio of the best to the runner-up is exp((AICc_runner - AICc_best) / 2);
 *    below PBENCH_FIT_EVIDENCE (10) the fit is inconclusive between the two. n^k nests n, n^2
 *    and n^3 and all but matches the others, so it is compared apart: it is named only when it
 *    beats the best fixed model by that ratio; its k is given in any case. A growth is named
 *    only when its b is above 0 at the confidence, and O(1) is conclusive when the
 *    runner-up's is not (rank() says why).
 *  - Intervals: the covariance (J'WJ)^-1 times s2, and Student's t at the confidence with n - p
 *    degrees of freedom. The rule for s2 (Birge's ratio): with sems, the reduced chi-square
 *    chi2 / (n - p) when it is above 1 (the points scatter more than their runs say; below 1
 *    the sems are trusted), else 1; without sems, the reduced chi-square of the residuals.
 *  - How wide a range would tell the best from the runner-up: points laid out as now (the
 *    same smallest n, points per doubling and relative precision) on a wider range, their
 *    values the best model's curve; the runner-up fitted to them; the range is widened by
 *    doublings until its lack of fit (chi-square) plus its penalty minus the best's reaches
 *    2 ln(PBENCH_FIT_EVIDENCE).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "stats/samples.h"

#define DEFAULT_CONFIDENCE	0.999
#define K_MIN			0.05	/* the powers searched for n^k */
#define K_MAX			4.0
#define K_GRID			80
#define WIDEN_MAX		40	/* doublings of the range tried for range_needed */
#define WIDEN_POINTS_MAX	4000

struct onefit {
	int ok;
	double a, b, k, chi2, aicc;
	double var_a, var_b, var_k, s2;
};

static double g_of(int model, double k, double x)
{
	switch (model) {
	case PBENCH_FIT_MODEL_1:	return 0;
	case PBENCH_FIT_MODEL_LOGN:	return log2(x);
	case PBENCH_FIT_MODEL_N:	return x;
	case PBENCH_FIT_MODEL_NLOGN:	return x * log2(x);
	case PBENCH_FIT_MODEL_N2:	return x * x;
	case PBENCH_FIT_MODEL_N3:	return x * x * x;
	case PBENCH_FIT_MODEL_NK:	return pow(x, k);
	}
	return NAN;
}

const char *pbench_fit_model_name(int model)
{
	static const char *const names[] = { "none", "1", "log n", "n", "n log n", "n^2", "n^3",
					      "n^k" };

	return model >= 0 && model <= PBENCH_FIT_MODEL_NK ? names[model] : NULL;
}

double pbench_fit_eval(int model, double k, double a, double b, double x)
{
	double g = g_of(model, k, x);

	return model == PBENCH_FIT_MODEL_1 ? a : a + b * g;
}

static int coefs(int model)
{
	return model == PBENCH_FIT_MODEL_1 ? 1 : model == PBENCH_FIT_MODEL_NK ? 3 : 2;
}

static double penalty(int p, size_t n)
{
	return 2.0 * p + 2.0 * p * (p + 1) / ((double)n - p - 1);
}

static double aicc(size_t n, double chi2, int p, double floor)
{
	double c = chi2 > floor ? chi2 : floor;

	return n * log(c / n) + 2.0 * p + 2.0 * p * (p + 1) / ((double)n - p - 1);
}

/* a + b g by weighted least squares (g fixed), centred sums; b 0 for O(1). */
static void wls_line(const double *g, const double *y, const double *w, size_t n, int constant,
		     struct onefit *f)
{
	double sw = 0, gm = 0, ym = 0, sgg = 0, sgy = 0;

	for (size_t i = 0; i < n; i++) {
		sw += w[i];
		gm += w[i] * (constant ? 0 : g[i]);
		ym += w[i] * y[i];
	}
	gm /= sw;
	ym /= sw;
	for (size_t i = 0; !constant && i < n; i++) {
		sgg += w[i] * (g[i] - gm) * (g[i] - gm);
		sgy += w[i] * (g[i] - gm) * (y[i] - ym);
	}
	f->b = constant || sgg <= 0 ? 0 : sgy / sgg;
	f->a = ym - f->b * gm;
	f->chi2 = 0;
	for (size_t i = 0; i < n; i++) {
		double r = y[i] - f->a - f->b * (constant ? 0 : g[i]);

		f->chi2 += w[i] * r * r;
	}
	f->var_b = constant || sgg <= 0 ? NAN : 1 / sgg;
	f->var_a = 1 / sw + (constant || sgg <= 0 ? 0 : gm * gm / sgg);
	f->var_k = NAN;
	f->k = NAN;
}

/* One fixed model through the points (g's values in gbuf). */
static void fit_fixed(int model, const double *x, const double *y, const double *w, size_t n,
		      double *gbuf, struct onefit *f)
{
	for (size_t i = 0; i < n; i++)
		gbuf[i] = g_of(model, 0, x[i]);
	wls_line(gbuf, y, w, n, model == PBENCH_FIT_MODEL_1, f);
	f->ok = 1;
}

/* chi2 of a + b (x/xs)^k at its best a and b. */
static double chi2_at_k(double k, const double *x, double xs, const double *y, const double *w,
			size_t n, double *gbuf, struct onefit *f)
{
	for (size_t i = 0; i < n; i++)
		gbuf[i] = pow(x[i] / xs, k);
	wls_line(gbuf, y, w, n, 0, f);
	return f->chi2;
}

/* The covariance of (a, b, k) of n^k from J'WJ at the fit (b scaled by xs^k: bs). */
static void nk_cov(const double *x, double xs, const double *w, size_t n, struct onefit *f,
		   double bs)
{
	double m[3][3] = { { 0 } }, det, c00, c11, c22;

	for (size_t i = 0; i < n; i++) {
		double u = pow(x[i] / xs, f->k), j[3] = { 1, u, bs * u * log(x[i] / xs) };

		for (int r = 0; r < 3; r++)
			for (int c = 0; c < 3; c++)
				m[r][c] += w[i] * j[r] * j[c];
	}
	c00 = m[1][1] * m[2][2] - m[1][2] * m[2][1];
	c11 = m[0][0] * m[2][2] - m[0][2] * m[2][0];
	c22 = m[0][0] * m[1][1] - m[0][1] * m[1][0];
	det = m[0][0] * c00 - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
	      m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
	if (!(fabs(det) > 0)) {
		f->var_a = f->var_b = f->var_k = NAN;
		return;
	}
	f->var_a = c00 / det;
	f->var_b = c11 / det * pow(xs, -2 * f->k);	/* b = bs / xs^k (k's share left out) */
	f->var_k = c22 / det;
}

/* n^k: k on a grid, then golden-section search around the best. */
static void fit_nk(const double *x, const double *y, const double *w, size_t n, double *gbuf,
		   struct onefit *f)
{
	double xs = 0, best = INFINITY, kb = 1, lo, hi, g = (sqrt(5) - 1) / 2, bs;

	for (size_t i = 0; i < n; i++)
		xs = x[i] > xs ? x[i] : xs;
	for (int i = 0; i <= K_GRID; i++) {
		double k = K_MIN + (K_MAX - K_MIN) * i / K_GRID, c = chi2_at_k(k, x, xs, y, w, n,
									  gbuf, f);
		if (c < best) {
			best = c;
			kb = k;
		}
	}
	lo = fmax(K_MIN, kb - (K_MAX - K_MIN) / K_GRID);
	hi = fmin(K_MAX, kb + (K_MAX - K_MIN) / K_GRID);
	for (int it = 0; it < 60; it++) {
		double k1 = hi - g * (hi - lo), k2 = lo + g * (hi - lo);

		if (chi2_at_k(k1, x, xs, y, w, n, gbuf, f) < chi2_at_k(k2, x, xs, y, w, n, gbuf, f))
			hi = k2;
		else
			lo = k1;
	}
	chi2_at_k((lo + hi) / 2, x, xs, y, w, n, gbuf, f);
	f->k = (lo + hi) / 2;
	bs = f->b;
	f->b = bs / pow(xs, f->k);
	nk_cov(x, xs, w, n, f, bs);
	f->ok = 1;
}

struct fitin {
	const double *x, *y, *w;
	size_t n;
	int have_sem;
	double floor;		/* the smallest chi2 counted: an exact fit's ln(0) */
};

/* s2 (the rule in the top comment), the AICc. */
static void finish_one(const struct fitin *in, int model, struct onefit *f)
{
	int p = coefs(model);
	double red = in->n > (size_t)p ? f->chi2 / (in->n - p) : NAN;

	f->s2 = in->have_sem ? (red > 1 ? red : 1) : red;
	f->aicc = aicc(in->n, f->chi2, p, in->floor);
}

/* With sems, the likelihood's variances are known: QAICc = chi2 / c + 2p + 2p(p + 1) /
 * (n - p - 1), c the overdispersion (the smallest reduced chi-square of the models, at least
 * 1), one for every model. */
static void known_variance(const struct fitin *in, struct onefit *fits)
{
	double c = INFINITY;

	for (int m = PBENCH_FIT_MODEL_1; m <= PBENCH_FIT_MODEL_NK; m++)
		if (fits[m].ok && in->n > (size_t)coefs(m))
			c = fmin(c, fits[m].chi2 / (in->n - coefs(m)));
	c = c > 1 ? c : 1;
	for (int m = PBENCH_FIT_MODEL_1; m <= PBENCH_FIT_MODEL_NK; m++)
		if (fits[m].ok)
			fits[m].aicc = fits[m].chi2 / c + penalty(coefs(m), in->n);
}

static double t_half(double var, double s2, double tq)
{
	return isfinite(var) && var >= 0 ? tq * sqrt(var * s2) : NAN;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The relative precision of a point: the median of sqrt(s2 / w_i) / |model(x_i)|. */
static double rel_precision(const struct fitin *in, int model, const struct onefit *f,
			    double *buf)
{
	size_t m = 0;

	for (size_t i = 0; i < in->n; i++) {
		double v = fabs(pbench_fit_eval(model, f->k, f->a, f->b, in->x[i]));

		if (v > 0)
			buf[m++] = sqrt(f->s2 / in->w[i]) / v;
	}
	if (!m)
		return NAN;
	qsort(buf, m, sizeof(*buf), cmp_dbl);
	return m % 2 ? buf[m / 2] : (buf[m / 2 - 1] + buf[m / 2]) / 2;
}

/* range_needed: the top comment says how. NaN when not within 2^WIDEN_MAX of the range. */
static double range_needed(const struct fitin *in, int model, const struct onefit *f, int runner)
{
	double xmin = INFINITY, xmax = 0, ppd, rel, found = NAN, *buf;

	for (size_t i = 0; i < in->n; i++) {
		xmin = fmin(xmin, in->x[i]);
		xmax = fmax(xmax, in->x[i]);
	}
	if (!(xmax > xmin) || model == PBENCH_FIT_MODEL_NK || runner == PBENCH_FIT_MODEL_NK)
		return NAN;
	buf = malloc(4 * WIDEN_POINTS_MAX * sizeof(*buf));
	if (!buf)
		return NAN;
	ppd = (in->n - 1) / log2(xmax / xmin);
	rel = rel_precision(in, model, f, buf);
	for (int m = 1; m <= WIDEN_MAX && isfinite(rel) && rel > 0 && isnan(found); m++) {
		double top = xmax * ldexp(1, m), span = log2(top / xmin), need = ceil(ppd * span) + 1;
		size_t np = need > WIDEN_POINTS_MAX ? WIDEN_POINTS_MAX : need < in->n ? in->n : need;
		double *x = buf, *y = buf + np, *w = buf + 2 * np, *g = buf + 3 * np;
		struct onefit r = { 0 };

		for (size_t i = 0; i < np; i++) {
			double s;

			x[i] = xmin * exp2(span * i / (np - 1));
			y[i] = pbench_fit_eval(model, f->k, f->a, f->b, x[i]);
			s = rel * fabs(y[i]);
			w[i] = s > 0 ? 1 / (s * s) : 1;
		}
		fit_fixed(runner, x, y, w, np, g, &r);
		if (r.chi2 + penalty(coefs(runner), np) - penalty(coefs(model), np) >=
		    2 * log(PBENCH_FIT_EVIDENCE))
			found = top;
	}
	free(buf);
	return found;
}

static void init_result(struct pbench_fit *r, size_t size, size_t n, double confidence)
{
	memset(r, 0, sizeof(*r));
	r->size = size;
	r->n = n;
	r->confidence = confidence;
	r->a = r->a_lo = r->a_hi = r->b = r->b_lo = r->b_hi = NAN;
	r->k = r->k_lo = r->k_hi = r->aicc = r->runner_a = r->runner_b = r->runner_k = NAN;
	r->evidence_ratio = r->residual_pct = r->chi2_red = r->range_needed = NAN;
}

static int check_args(const double *x, const double *y, const double *sem, size_t n,
		      double confidence)
{
	if (!x || !y)
		return pb_fail(-EINVAL, "pbench_stats_fit(): x or y is NULL");
	if (!(confidence > 0 && confidence < 1))
		return pb_fail(-EINVAL, "pbench_stats_fit(): confidence is %g, not in (0, 1)",
			       confidence);
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]) || !(x[i] > 0))
			return pb_fail(-EINVAL, "pbench_stats_fit(): x[%zu] is %g, not a finite "
				       "number above 0", i, x[i]);
		if (!isfinite(y[i]) || (sem && isnan(sem[i])) || (sem && isinf(sem[i])))
			return pb_fail(-EINVAL, "pbench_stats_fit(): y[%zu] or sem[%zu] is not a "
				       "finite number", i, i);
	}
	return 0;
}

/* The best and the second best fixed model by AICc, then n^k against the best. */
/* Is model's b above 0 at the confidence (its interval's low end)? */
static int grows(const struct onefit *f, int model, size_t n, double confidence)
{
	double h;

	if (model == PBENCH_FIT_MODEL_1 || !f->ok || n <= (size_t)coefs(model))
		return 0;
	h = t_half(f->var_b, f->s2, pbench_stats_t_quantile(confidence, n - coefs(model)));
	return f->b - h > 0;
}

/*
 * The best model: by AICc among O(1) and the models whose b is above 0 at the confidence (a
 * growth not told from the noise, or a decrease, is not named: O(1) is then). The runner-up:
 * the best of the other fixed models by AICc. n^k: named when it grows and beats the best by
 * PBENCH_FIT_EVIDENCE. O(1) is nested in every model (b = 0), and AICc can favour the simpler
 * of two nested models by about exp(1) at most, never 10: O(1) is conclusive when the
 * runner-up's b is not above 0 (no growth seen over this range), else by the ratio; and never
 * when the runner-up is PBENCH_FIT_EVIDENCE times likelier by AICc while its b, at the
 * confidence, cannot be told from 0 (the scatter of the points hides what AICc sees).
 */
static void rank(const struct onefit *fits, size_t n, struct pbench_fit *r)
{
	const struct onefit *nk = &fits[PBENCH_FIT_MODEL_NK];
	int best = PBENCH_FIT_MODEL_1, second = 0;

	for (int m = PBENCH_FIT_MODEL_LOGN; m <= PBENCH_FIT_MODEL_N3; m++)
		if (fits[m].aicc < fits[best].aicc && grows(&fits[m], m, n, r->confidence))
			best = m;
	for (int m = PBENCH_FIT_MODEL_1; m <= PBENCH_FIT_MODEL_N3; m++)
		if (m != best && (!second || fits[m].aicc < fits[second].aicc))
			second = m;
	r->model = best;
	r->runner_up = second;
	r->evidence_ratio = exp((fits[second].aicc - fits[best].aicc) / 2);
	if (nk->ok && grows(nk, PBENCH_FIT_MODEL_NK, n, r->confidence) &&
	    exp((fits[best].aicc - nk->aicc) / 2) >= PBENCH_FIT_EVIDENCE) {
		r->evidence_ratio = exp((fits[best].aicc - nk->aicc) / 2);
		r->runner_up = best;
		r->model = PBENCH_FIT_MODEL_NK;
	}
	r->inconclusive = r->evidence_ratio < PBENCH_FIT_EVIDENCE;
	if (r->model == PBENCH_FIT_MODEL_1)
		r->inconclusive = (r->inconclusive && grows(&fits[second], second, n, r->confidence)) ||
				  r->evidence_ratio < 1 / PBENCH_FIT_EVIDENCE;
}

static void fill_result(const struct fitin *in, const struct onefit *fits, struct pbench_fit *r)
{
	const struct onefit *f = &fits[r->model], *ru = &fits[r->runner_up];
	int p = coefs(r->model);
	double tq = pbench_stats_t_quantile(r->confidence, in->n - p), sw = 0, sr = 0, sy = 0;

	r->a = f->a;
	r->a_lo = f->a - t_half(f->var_a, f->s2, tq);
	r->a_hi = f->a + t_half(f->var_a, f->s2, tq);
	r->b = f->b;
	r->b_lo = r->model == PBENCH_FIT_MODEL_1 ? 0 : f->b - t_half(f->var_b, f->s2, tq);
	r->b_hi = r->model == PBENCH_FIT_MODEL_1 ? 0 : f->b + t_half(f->var_b, f->s2, tq);
	r->aicc = f->aicc;
	r->runner_a = ru->a;
	r->runner_b = ru->b;
	r->runner_k = r->runner_up == PBENCH_FIT_MODEL_NK ? ru->k : NAN;
	if (fits[PBENCH_FIT_MODEL_NK].ok) {
		const struct onefit *k = &fits[PBENCH_FIT_MODEL_NK];
		double tk = pbench_stats_t_quantile(r->confidence, in->n - 3);

		r->k = k->k;
		r->k_lo = k->k - t_half(k->var_k, k->s2, tk);
		r->k_hi = k->k + t_half(k->var_k, k->s2, tk);
	}
	r->chi2_red = in->have_sem ? f->chi2 / (in->n - p) : NAN;
	for (size_t i = 0; i < in->n; i++) {
		sw += in->w[i];
		sy += in->w[i] * in->y[i];
	}
	sr = f->chi2;
	r->residual_pct = sy != 0 ? 100 * sqrt(sr / sw) / fabs(sy / sw) : NAN;
	if (r->inconclusive)
		r->range_needed = range_needed(in, r->model, f, r->runner_up);
}

int pbench_stats_fit(const double *x, const double *y, const double *sem, size_t n,
		     double confidence, struct pbench_fit *out)
{
	struct onefit fits[PBENCH_FIT_MODEL_NK + 1] = { { 0 } };
	struct pbench_fit r;
	struct fitin in = { .x = x, .y = y, .n = n, .have_sem = sem != NULL };
	double *w, *g, sy2 = 0;
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_fit, 0, NULL)))
		return err;
	if (confidence == 0)
		confidence = DEFAULT_CONFIDENCE;
	if ((err = check_args(x, y, sem, n, confidence)))
		return err;
	init_result(&r, out->size, n, confidence);
	if (n < 4) {
		r.reason = n < 3 ? "fewer than 3 points: no growth can be told from them"
				 : "3 points: comparing two-coefficient models by AICc needs 4";
		pb_copy_out(out, &r, sizeof(r));
		return 0;
	}
	w = malloc(2 * n * sizeof(*w));
	if (!w)
		return -ENOMEM;
	g = w + n;
	for (size_t i = 0; sem && i < n; i++)
		in.have_sem &= sem[i] > 0;
	for (size_t i = 0; i < n; i++) {
		w[i] = in.have_sem ? 1 / (sem[i] * sem[i]) : 1;
		sy2 += w[i] * y[i] * y[i];
	}
	in.w = w;
	in.floor = sy2 > 0 ? sy2 * 1e-24 : 1e-300;
	for (int m = PBENCH_FIT_MODEL_1; m <= PBENCH_FIT_MODEL_N3; m++) {
		fit_fixed(m, x, y, w, n, g, &fits[m]);
		finish_one(&in, m, &fits[m]);
	}
	if (n >= 5) {
		fit_nk(x, y, w, n, g, &fits[PBENCH_FIT_MODEL_NK]);
		finish_one(&in, PBENCH_FIT_MODEL_NK, &fits[PBENCH_FIT_MODEL_NK]);
	}
	if (in.have_sem)
		known_variance(&in, fits);
	rank(fits, n, &r);
	fill_result(&in, fits, &r);
	free(w);
	pb_copy_out(out, &r, sizeof(r));
	return 0;
}
