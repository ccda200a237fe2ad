/* SPDX-License-Identifier: MIT */
/*
 * Change points of a benchmark's history (issues 24 and 37): where the level of a series of
 * measurements moved, found so that neither noise nor one wild point cries wolf or hides a
 * step, with a false-alarm rate per series that does not grow with its length.
 *
 * The method: binary segmentation with a robust scan statistic and a permutation test of its
 * maximum.
 *
 *  - Scores: the points of a stretch [lo, hi) are made robust scores, Huber's psi of their
 *    distance to the stretch's median in units of its MAD (1.4826 MAD; the mean absolute
 *    deviation where more than half the points are equal), clipped at +-HUBER_C (3). A point
 *    however far counts as 3 robust standard deviations at most: it cannot inflate a side's
 *    variance past the test (issue 37's case: a -12% step after 15 points of 365, hidden by a
 *    single anomaly at point 10 from the Welch test this file used before), nor make a
 *    change by itself. Within +-3 the scores are the values, so a short level far from the
 *    rest (3 points of +20%) keeps most of the power a t-test has, which pure ranks lose.
 *  - Scan: the standardized CUSUM of the centred scores, Z_k = C_k sqrt(n / (k (n - k))) / sd,
 *    over every split k that leaves opts.min_segment points on each side; the split is where
 *    |Z_k| is largest.
 *  - Test: is that maximum larger than chance would make it anywhere in the stretch? Under
 *    "no change" the points are exchangeable, so the maximum of |Z_k| over random
 *    permutations of the same scores is its exact null (the scores' median and MAD do not
 *    depend on the order): p = (1 + b) / (1 + R), b of R permutations at least as large.
 *    R + 1 = 2 / opts.p (1999 for 0.001; at most PERM_MAX + 1), and the permutations stop
 *    once p can no longer come below opts.p (Besag and Clifford's sequential test: a
 *    stretch with no change stops after a few). A change so large that a distribution-free
 *    bound proves it (Serfling's inequality for sampling without replacement, summed over the
 *    splits: the scores are bounded) needs no permutation, and its p is that bound. The
 *    permutations are seeded by the stretch's bounds and values: the same series gives the same
 *    answer, and two series are not tested with the same draws.
 *  - Binary segmentation: a significant split cuts the stretch in two and each is scanned
 *    again, until no stretch has a significant split. Because the test is of the maximum
 *    over every split of the stretch, a stretch with no change gets a (false) change with
 *    probability opts.p whatever its length: a stationary series with probability opts.p
 *    (the first test decides; measured in bench/bench_changepoint.c), and a series with K
 *    true changes at most (K + 1) opts.p in expectation (one test a stationary stretch).
 *  - opts.min_rel: then the change of smallest |rel| below it goes and its neighbours are
 *    measured again, while one is below.
 *  - The step: rel is the Hodges-Lehmann estimate of the shift between the two sides (the
 *    median of every difference after - before), of the logarithms when every value is
 *    positive (a relative step, exp - 1), and its interval the distribution-free one of the
 *    Mann-Whitney test at confidence 1 - opts.p (Moses; the normal approximation of its
 *    critical value, with the ties' correction); NaN where the sides are too short for it.
 *    One outlier moves neither, where the means' ratio and Welch's interval moved by its size.
 *  - Segments: the caller starts a new segment where the machine changed; each is analyzed
 *    alone. With samples, the points' values are their samples' means and the tests are over
 *    the points (a point's runs are not independent draws of the level: a slow day moves all
 *    of them).
 *
 * opts.window is no longer used (it was the size of the windows of the previous method, and
 * stays a checked option of the ABI). An analysis scans every changed segment whole: adding
 * a point analyzes its segment again (the result is the same as the whole series at once).
 * Cost: O(n log n) a stretch for the scores, O(n) a permutation, a few permutations where there
 * is no change and up to 1999 where it is close; measured (bench/bench_changepoint.c, 2-core
 * KVM guest): 10,000 points drawn and analyzed in 4.5 ms stationary, 57 ms with 9 steps; one
 * add to 1,000 points ~1 ms; pbench_history_changes() over 10,000 stored records 0.2 s
 * (bench/bench_history.c, the store's read included).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "stats/changepoint.h"

#define MAX_WINDOW PBENCH_HISTORY_CHANGES_MAX_WINDOW
#define HUBER_C 3.0
#define PERM_MAX 19999

struct cp_ent {
	size_t index;
	double p;
};

struct cp_list {
	struct cp_ent *v;
	size_t n, cap;
};

struct seg {
	size_t start, end;	/* [start, end): end is the series' length while open */
	int dirty;		/* points appended since the last analysis */
	struct cp_list cps;	/* the change points, in order of index */
};

struct pb_cp_series {
	struct pb_cp_opts o;
	size_t n, cap;
	double *value;
	int has_samples;	/* of every point; -1 before the first */
	struct seg *seg;
	size_t nseg, segcap;
	/* scratch of a scan, n long */
	double *x, *e, *w;
	size_t scratch;
};

/* ---- storage ------------------------------------------------------------------------ */

static int resize(void *pp, size_t n, size_t size)
{
	void **p = pp, *q = realloc(*p, n * size);

	if (!q)
		return -ENOMEM;
	*p = q;
	return 0;
}

static int cp_push(struct cp_list *l, size_t index, double p)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;

		if (resize(&l->v, cap, sizeof(*l->v)))
			return -ENOMEM;
		l->cap = cap;
	}
	l->v[l->n++] = (struct cp_ent){ index, p };
	return 0;
}

/* Room for one more point and a new segment; the series unchanged on error. */
static int grow(struct pb_cp_series *s)
{
	if (s->n + 1 >= s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;

		if (resize(&s->value, cap, sizeof(double)))
			return -ENOMEM;
		s->cap = cap;
	}
	if (s->nseg == s->segcap) {
		size_t segcap = s->segcap ? 2 * s->segcap : 4;

		if (resize(&s->seg, segcap, sizeof(*s->seg)))
			return -ENOMEM;
		s->segcap = segcap;
	}
	return 0;
}

static int scratch(struct pb_cp_series *s, size_t n)
{
	if (n <= s->scratch)
		return 0;
	if (resize(&s->x, n, sizeof(double)) || resize(&s->e, n, sizeof(double)) ||
	    resize(&s->w, n + 1, sizeof(double)))
		return -ENOMEM;
	s->scratch = n;
	return 0;
}

/* ---- order statistics ----------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of x[0, n), sorted in place. */
static double median_sorted(double *x, size_t n)
{
	qsort(x, n, sizeof(*x), cmp_double);
	return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* ---- the seeded generator of the permutations (splitmix64) ---------------------------- */

static uint64_t next64(uint64_t *st)
{
	uint64_t z = (*st += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, r) (Lemire's multiply; the bias, r / 2^64, is far below any p here). */
static size_t below(uint64_t *st, size_t r)
{
	return (size_t)(((unsigned __int128)next64(st) * r) >> 64);
}

/* ---- the scan ------------------------------------------------------------------------- */

struct scan {
	size_t tau;	/* the split, an index of the series; 0: none possible */
	double z;	/* its |Z| */
	double p;	/* of the maximum over the stretch */
};

/*
 * The largest |C_k| w_k over the splits k in [m, n - m] of the centred scores e[0, n), where
 * C_k is the sum of e[0, k) and w_k = sqrt(n / (k (n - k))): *at gets its k.
 */
static double scan_max(const double *e, const double *w, size_t n, size_t m, size_t *at)
{
	double c = 0, best = -1;

	for (size_t k = 1; k + m <= n; k++) {
		c += e[k - 1];
		if (k >= m && fabs(c) * w[k] > best) {
			best = fabs(c) * w[k];
			*at = k;
		}
	}
	return best;
}

/* Does a random permutation of e[0, n) (shuffled in place, as far as needed) reach t
 * somewhere: Fisher-Yates from the front, the scan alongside, stopping at the first split
 * that reaches it. */
static int perm_reaches(double *e, const double *w, size_t n, size_t m, double t, uint64_t *st)
{
	double c = 0;

	for (size_t k = 1; k + m <= n; k++) {
		size_t j = k - 1 + below(st, n - k + 1);
		double v = e[j];

		e[j] = e[k - 1];
		e[k - 1] = v;
		c += v;
		if (k >= m && fabs(c) * w[k] >= t)
			return 1;
	}
	return 0;
}

/*
 * Serfling's bound, summed over the splits, on the chance that a permutation reaches t:
 * P(|C_k| >= u) <= 2 exp(-2 u^2 / (j (1 - (j - 1) / n) r^2)) for the sum of j = min(k, n - k)
 * of n values drawn without replacement, r their range (C_k = -(the sum of the other side)).
 */
static double serfling(const double *w, size_t n, size_t m, double t, double r)
{
	double sum = 0;

	for (size_t k = m; k + m <= n; k++) {
		double j = (double)(k < n - k ? k : n - k), u = t / w[k];

		sum += 2 * exp(-2 * u * u / (j * (1 - (j - 1) / (double)n) * r * r));
		if (sum >= 1)
			return 1;
	}
	return sum;
}

/*
 * Where exactly the level moved, near the scan's split at (of [lo, hi)): the scores are
 * clipped, so the first points of a new level that lie a little toward the old one (2.5
 * robust sd of the new, against 3 for every point of the old: clipped alike) pull the
 * scan's split a point or two late. Each side's median is taken at the scan's split, and the
 * split moved to the one within REFINE points (leaving m a side) that puts each point with
 * the median it is closer to at least cost: the sum of |x - median| (one wild point weighs
 * its distance to both medians alike, so it moves the split by at most itself).
 */
#define REFINE 10
static size_t refine(struct pb_cp_series *s, size_t lo, size_t hi, size_t at, size_t m)
{
	size_t n = hi - lo, a = at > m + REFINE ? at - REFINE : m;
	size_t b = at + REFINE + m <= n ? at + REFINE : n - m, best = at;
	double ml, mr, c = 0, bc = 0;

	memcpy(s->x, s->value + lo, at * sizeof(double));
	ml = median_sorted(s->x, at);
	memcpy(s->x, s->value + lo + at, (n - at) * sizeof(double));
	mr = median_sorted(s->x, n - at);
	/* c: the cost of the split at k less that at at: walk down from at, then up */
	for (size_t k = at; k > a; k--) {
		double x = s->value[lo + k - 1];

		c += fabs(x - mr) - fabs(x - ml);
		if (c < bc) {
			bc = c;
			best = k - 1;
		}
	}
	c = 0;
	for (size_t k = at; k < b; k++) {
		double x = s->value[lo + k];

		c += fabs(x - ml) - fabs(x - mr);
		if (c < bc) {
			bc = c;
			best = k + 1;
		}
	}
	return best;
}

/* Robust scores of the values x[0, n) into e (centred); their range into *r. Returns 0 when
 * the values have no spread (no change can be told). */
static int scores(double *x, double *e, size_t n, double *r)
{
	double med, mad, sum = 0, lo = INFINITY, hi = -INFINITY;

	memcpy(e, x, n * sizeof(*e));
	med = median_sorted(e, n);
	for (size_t i = 0; i < n; i++)
		e[i] = fabs(x[i] - med);
	mad = 1.4826 * median_sorted(e, n);
	if (!(mad > 0)) {	/* more than half the points equal: the mean absolute deviation */
		for (size_t i = 0; i < n; i++)
			mad += e[i];
		mad = 1.2533 * mad / (double)n;
	}
	if (!(mad > 0) || !isfinite(mad))
		return 0;
	for (size_t i = 0; i < n; i++) {
		e[i] = fmax(-HUBER_C, fmin(HUBER_C, (x[i] - med) / mad));
		sum += e[i];
	}
	for (size_t i = 0; i < n; i++) {
		e[i] -= sum / (double)n;
		lo = fmin(lo, e[i]);
		hi = fmax(hi, e[i]);
	}
	*r = hi - lo;
	return *r > 0;
}

/* The best split of the points [lo, hi) and the p of the maximum (the head comment). */
static int scan(struct pb_cp_series *s, size_t lo, size_t hi, struct scan *out)
{
	size_t n = hi - lo, m = s->o.min_segment, at = 0, perms, b = 0, j;
	double t, r, var = 0, bound;
	uint64_t st;

	out->tau = 0;
	out->p = 1;
	out->z = 0;
	if (n < 2 * m)
		return 0;
	if (scratch(s, n))
		return -ENOMEM;
	memcpy(s->x, s->value + lo, n * sizeof(double));
	if (!scores(s->x, s->e, n, &r))
		return 0;
	for (size_t k = 1; k < n; k++)
		s->w[k] = sqrt((double)n / ((double)k * (double)(n - k)));
	for (size_t i = 0; i < n; i++)
		var += s->e[i] * s->e[i];
	t = scan_max(s->e, s->w, n, m, &at);
	out->tau = lo + refine(s, lo, hi, at, m);
	out->z = t / sqrt(var / (double)n);
	bound = serfling(s->w, n, m, t, r);
	if (bound <= s->o.p) {
		out->p = bound;
		return 0;
	}
	perms = (size_t)fmin(ceil(2 / s->o.p) - 1, PERM_MAX);
	st = 0x37c0ffeeull ^ ((uint64_t)lo << 32) ^ (uint64_t)hi;
	for (size_t i = 0; i < n; i++) {	/* and by its values: series differ in their draws */
		uint64_t bits;

		memcpy(&bits, &s->value[lo + i], sizeof(bits));
		st = (st ^ bits) * 0x100000001b3ull;
	}
	for (j = 1; j <= perms; j++) {
		/* t itself may be reached by a permutation only up to rounding: 1e-12 below */
		b += perm_reaches(s->e, s->w, n, m, t * (1 - 1e-12), &st);
		if ((double)(1 + b) > s->o.p * (double)(1 + perms))
			break;	/* cannot come below opts.p any more: p from the j so far */
	}
	out->p = fmin(1, (double)(1 + b) / (double)(1 + (j <= perms ? j : perms)));
	return 0;
}

/* ---- binary segmentation ------------------------------------------------------------- */

static int cmp_ent(const void *a, const void *b)
{
	size_t x = ((const struct cp_ent *)a)->index, y = ((const struct cp_ent *)b)->index;

	return (x > y) - (x < y);
}

/* Binary segmentation of [lo, hi): the stretches still to search on a stack of their own (a
 * series that peels a few points off at each split would be as deep as it is long). */
static int segment(struct pb_cp_series *s, struct seg *g, size_t lo, size_t hi)
{
	size_t *st = malloc(2 * 16 * sizeof(*st)), n = 0, cap = 16;
	int err = 0;

	if (!st)
		return -ENOMEM;
	st[n++] = lo;
	st[n++] = hi;
	while (n && !err) {
		struct scan sc;
		size_t b = st[--n], a = st[--n];

		if ((err = scan(s, a, b, &sc)) || !sc.tau || !(sc.p <= s->o.p))
			continue;
		if ((err = cp_push(&g->cps, sc.tau, sc.p)))
			break;
		if (n + 4 > 2 * cap) {
			size_t *ns = realloc(st, 4 * cap * sizeof(*st));

			if (!ns) {
				err = -ENOMEM;
				break;
			}
			st = ns;
			cap *= 2;
		}
		st[n++] = sc.tau;
		st[n++] = b;
		st[n++] = a;
		st[n++] = sc.tau;
	}
	free(st);
	return err;
}

static void step_of(const struct pb_cp_series *s, size_t a, size_t tau, size_t b, double level,
		    double *rel, double *lo, double *hi);

/* opts.min_rel: the change of smallest |rel| below it goes, while one is. */
static void prune(struct pb_cp_series *s, struct seg *g)
{
	while (s->o.min_rel > 0 && g->cps.n) {
		size_t worst = SIZE_MAX;
		double wr = INFINITY;

		for (size_t i = 0; i < g->cps.n; i++) {
			size_t a = i ? g->cps.v[i - 1].index : g->start;
			size_t b = i + 1 < g->cps.n ? g->cps.v[i + 1].index : g->end;
			double rel, l, h;

			step_of(s, a, g->cps.v[i].index, b, NAN, &rel, &l, &h);
			if (!isnan(rel) && !(fabs(rel) >= s->o.min_rel) && !(fabs(rel) >= wr)) {
				wr = fabs(rel);
				worst = i;
			}
		}
		if (worst == SIZE_MAX)
			return;
		memmove(g->cps.v + worst, g->cps.v + worst + 1,
			(g->cps.n - worst - 1) * sizeof(*g->cps.v));
		g->cps.n--;
	}
}

static int analyze_seg(struct pb_cp_series *s, struct seg *g)
{
	int err;

	g->cps.n = 0;
	if ((err = segment(s, g, g->start, g->end)))
		return err;
	if (g->cps.n > 1)
		qsort(g->cps.v, g->cps.n, sizeof(*g->cps.v), cmp_ent);
	prune(s, g);
	g->dirty = 0;
	return 0;
}

/* ---- the step: Hodges-Lehmann and its interval ------------------------------------------ */

/* How many of the differences y_j - x_i are <= d (x, y sorted ascending). */
static double count_le(const double *x, size_t nx, const double *y, size_t ny, double d)
{
	double c = 0;
	size_t i = 0;

	/* for y_j ascending, the x_i >= y_j - d start at a moving i */
	for (size_t j = 0; j < ny; j++) {
		while (i < nx && x[i] < y[j] - d)
			i++;
		c += (double)(nx - i);
	}
	return c;
}

/* The k-th smallest (1-based) of the differences y_j - x_i, by bisection on its value. */
static double kth_diff(const double *x, size_t nx, const double *y, size_t ny, double k)
{
	double lo = y[0] - x[nx - 1], hi = y[ny - 1] - x[0];

	if (count_le(x, nx, y, ny, lo) >= k)
		return lo;
	for (int it = 0; it < 200; it++) {	/* count(lo) < k <= count(hi) */
		double mid = lo + (hi - lo) / 2;

		if (mid <= lo || mid >= hi)
			break;
		if (count_le(x, nx, y, ny, mid) >= k)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* The two-sided standard normal quantile of level (P(|Z| <= z) = level). */
static double z_of(double level)
{
	double lo = 0, hi = 40;

	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (erfc(mid / M_SQRT2) > 1 - level)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

/*
 * The step between the points [a, tau) and [tau, b): the Hodges-Lehmann shift (of the logs
 * when every value is positive, as exp - 1; else over level, the median before, when not
 * NaN and positive), its Mann-Whitney interval at confidence 1 - opts.p into lo, hi (NaN when
 * the sides are too short for one).
 */
static void step_of(const struct pb_cp_series *s, size_t a, size_t tau, size_t b, double level,
		    double *rel, double *lo, double *hi)
{
	size_t nx = tau - a, ny = b - tau, nall = nx + ny;
	double *x = malloc(nall * sizeof(*x)), *y, nn, z, kl, sd, ties = 0, den = 1;
	int logs = 1;

	*rel = *lo = *hi = NAN;
	if (!x || !nx || !ny) {
		free(x);
		return;
	}
	y = x + nx;
	for (size_t i = 0; i < nall; i++)
		logs &= s->value[a + i] > 0;
	for (size_t i = 0; i < nall; i++)
		x[i] = logs ? log(s->value[a + i]) : s->value[a + i];
	qsort(x, nx, sizeof(*x), cmp_double);
	qsort(y, ny, sizeof(*y), cmp_double);
	if (!logs) {
		den = isnan(level) ? (nx % 2 ? x[nx / 2] : 0.5 * (x[nx / 2 - 1] + x[nx / 2])) : level;
		if (!(den > 0)) {
			free(x);
			return;
		}
	}
	nn = (double)nx * (double)ny;
	*rel = 0.5 * (kth_diff(x, nx, y, ny, floor((nn + 1) / 2)) +
		      kth_diff(x, nx, y, ny, ceil((nn + 1) / 2)));
	/* the ties' correction of the Mann-Whitney variance: sum of t^3 - t over tied groups */
	{
		double *all = malloc(nall * sizeof(*all));

		if (all) {
			memcpy(all, x, nall * sizeof(*all));
			qsort(all, nall, sizeof(*all), cmp_double);
			for (size_t i = 0, j; i < nall; i = j) {
				double t;

				for (j = i + 1; j < nall && all[j] == all[i]; j++)
					;
				t = (double)(j - i);
				ties += t * t * t - t;
			}
			free(all);
		}
	}
	z = z_of(1 - s->o.p);
	sd = sqrt(nn / 12 * ((double)nall + 1 - ties / ((double)nall * ((double)nall - 1))));
	kl = floor(nn / 2 - z * sd);	/* the Mann-Whitney critical count, normal approximation */
	if (kl >= 1) {
		*lo = kth_diff(x, nx, y, ny, kl);
		*hi = kth_diff(x, nx, y, ny, nn - kl + 1);
	}
	if (logs) {
		*rel = expm1(*rel);
		*lo = expm1(*lo);
		*hi = expm1(*hi);
	} else {
		*rel /= den;
		*lo /= den;
		*hi /= den;
	}
	free(x);
}

/* ---- the series -------------------------------------------------------------------------- */

static int check_opts(struct pb_cp_opts *o)
{
	if (!o->p)
		o->p = PB_CP_P_DEFAULT;
	if (!o->window)
		o->window = PB_CP_WINDOW_DEFAULT;
	if (!o->min_segment)
		o->min_segment = PB_CP_MIN_SEGMENT_DEFAULT;
	if (!(o->p > 0 && o->p < 0.5))
		return pb_fail(-EINVAL, "pb_cp_series_new(): opts->p is %g, not in (0, 0.5)", o->p);
	if (!(o->min_rel >= 0 && isfinite(o->min_rel)))
		return pb_fail(-EINVAL, "pb_cp_series_new(): opts->min_rel is %g, not >= 0",
			       o->min_rel);
	if (o->min_segment < 2 || o->min_segment > MAX_WINDOW / 4)
		return pb_fail(-EINVAL, "pb_cp_series_new(): opts->min_segment is %zu, not in [2, %d]",
			       o->min_segment, MAX_WINDOW / 4);
	if (o->window < 4 * o->min_segment || o->window > MAX_WINDOW)
		return pb_fail(-EINVAL, "pb_cp_series_new(): opts->window is %zu, not in [%zu, %d] "
			       "(4 opts->min_segment)", o->window, 4 * o->min_segment, MAX_WINDOW);
	return 0;
}

int pb_cp_series_new(const struct pb_cp_opts *opts, struct pb_cp_series **out)
{
	struct pb_cp_series *s;
	struct pb_cp_opts o = { 0 };
	int err;

	if (!out)
		return pb_fail(-EINVAL, "pb_cp_series_new(): out is NULL");
	*out = NULL;
	if (opts)
		o = *opts;
	if ((err = check_opts(&o)))
		return err;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->o = o;
	s->has_samples = -1;
	if (grow(s)) {
		pb_cp_series_free(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

void pb_cp_series_free(struct pb_cp_series *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nseg; i++)
		free(s->seg[i].cps.v);
	free(s->seg);
	free(s->value);
	free(s->x);
	free(s->e);
	free(s->w);
	free(s);
}

static int check_point(const struct pb_cp_series *s, double *value, const double *samples,
		       size_t ns)
{
	int with = ns > 0;
	long double sum = 0;

	if (ns && !samples)
		return pb_fail(-EINVAL, "pb_cp_series_append(): samples is NULL, nsamples %zu", ns);
	if (s->n && with != s->has_samples)
		return pb_fail(-EINVAL, "pb_cp_series_append(): point %zu %s samples, the points "
			       "before %s: every point or none", s->n, with ? "has" : "has no",
			       s->has_samples ? "do" : "do not");
	for (size_t i = 0; i < ns; i++) {
		if (!isfinite(samples[i]))
			return pb_fail(-EINVAL, "pb_cp_series_append(): samples[%zu] is %g", i,
				       samples[i]);
		sum += samples[i];
	}
	if (isnan(*value) && ns)
		*value = (double)(sum / ns);
	if (!isfinite(*value))
		return pb_fail(-EINVAL, "pb_cp_series_append(): value is %g", *value);
	return 0;
}

int pb_cp_series_append(struct pb_cp_series *s, double value, const double *samples,
			size_t nsamples, unsigned flags)
{
	size_t n;
	struct seg *g;
	int err;

	if (!s)
		return pb_fail(-EINVAL, "pb_cp_series_append(): s is NULL");
	if (flags & ~(unsigned)PB_CP_SEGMENT)
		return pb_fail(-EINVAL, "pb_cp_series_append(): flags %#x: unknown bits %#x", flags,
			       flags & ~(unsigned)PB_CP_SEGMENT);
	if ((err = check_point(s, &value, samples, nsamples)) || (err = grow(s)))
		return err;
	n = s->n;
	if (!n || (flags & PB_CP_SEGMENT)) {
		g = &s->seg[s->nseg++];
		memset(g, 0, sizeof(*g));
		g->start = n;
	}
	g = &s->seg[s->nseg - 1];
	s->has_samples = nsamples > 0;
	s->value[n] = value;
	s->n = n + 1;
	g->end = s->n;
	g->dirty = 1;
	return 0;
}

int pb_cp_series_analyze(struct pb_cp_series *s)
{
	int err;

	if (!s)
		return pb_fail(-EINVAL, "pb_cp_series_analyze(): s is NULL");
	for (size_t i = 0; i < s->nseg; i++)
		if (s->seg[i].dirty && (err = analyze_seg(s, &s->seg[i])))
			return err;
	return 0;
}

int pb_cp_series_add(struct pb_cp_series *s, double value, const double *samples,
		     size_t nsamples, unsigned flags)
{
	int err = pb_cp_series_append(s, value, samples, nsamples, flags);

	return err ? err : pb_cp_series_analyze(s);
}

size_t pb_cp_series_points(const struct pb_cp_series *s)
{
	return s ? s->n : 0;
}

size_t pb_cp_series_count(const struct pb_cp_series *s)
{
	size_t n = 0;

	for (size_t i = 0; s && i < s->nseg; i++)
		n += s->seg[i].cps.n;
	return n;
}

/* The figures of the change between [before, index) and [index, after). */
static void report(const struct pb_cp_series *s, struct pb_cp *c, double p)
{
	long double sx = 0, sy = 0;

	for (size_t i = c->before; i < c->index; i++)
		sx += s->value[i];
	for (size_t i = c->index; i < c->after; i++)
		sy += s->value[i];
	c->n_before = c->index - c->before;
	c->n_after = c->after - c->index;
	c->mean_before = (double)(sx / c->n_before);
	c->mean_after = (double)(sy / c->n_after);
	c->p = c->p_points = p;
	step_of(s, c->before, c->index, c->after, NAN, &c->rel, &c->rel_lo, &c->rel_hi);
	c->direction = c->rel > 0 || (isnan(c->rel) && c->mean_after > c->mean_before) ? 1 : -1;
}

int pb_cp_series_get(const struct pb_cp_series *s, size_t i, struct pb_cp *out)
{
	size_t k = i;

	if (!s || !out)
		return pb_fail(-EINVAL, "pb_cp_series_get(): %s is NULL", s ? "out" : "s");
	for (size_t j = 0; j < s->nseg; j++) {
		const struct seg *g = &s->seg[j];

		if (k >= g->cps.n) {
			k -= g->cps.n;
			continue;
		}
		memset(out, 0, sizeof(*out));
		out->index = g->cps.v[k].index;
		out->before = k ? g->cps.v[k - 1].index : g->start;
		out->after = k + 1 < g->cps.n ? g->cps.v[k + 1].index : g->end;
		report(s, out, g->cps.v[k].p);
		return 0;
	}
	return pb_fail(-EINVAL, "pb_cp_series_get(): i is %zu, the series has %zu change points",
		       i, pb_cp_series_count(s));
}
