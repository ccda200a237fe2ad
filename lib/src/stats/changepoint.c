/* SPDX-License-Identifier: MIT */
/*
 * Change points of a benchmark's history (issue 24): where the level of a series of
 * measurements moved, found so that noise does not cry wolf, and kept up to date as points
 * arrive one commit at a time.
 *
 * The method is E-Divisive means (Matteson and James, "A Nonparametric Approach for Multiple
 * Change Point Analysis of Multivariate Data", JASA 2014) as Hunter and Apache Otava adapted it
 * (Fleming et al., "Hunter: Using Change Point Detection to Hunt for Performance Regressions",
 * ICPE 2023; Otava's docs/MATH.md). Written here from those descriptions:
 *
 *  - Split: the series is cut into windows of opts.window points, one every window / 2
 *    points. In each window the split (tau, kappa) that maximizes the energy statistic Q
 *    (alpha = 1, over the points' values: with samples, their means) over each interval is
 *    the candidate; a t-test of the interval's two sides at tau decides whether it is a
 *    (weak) change, at 10 opts.p (at most 0.5; Otava's first pass), and the search goes on in
 *    the two halves, as E-Divisive's hierarchy does, until a candidate is not significant.
 *    The significance is a t-test, not a permutation test: deterministic and cheap (Hunter's
 *    change).
 *  - Merge: the weak changes of all windows, sorted, are tested again over the whole run
 *    between their neighbours; the weakest (largest p) goes while its p is not below
 *    opts.p, its neighbours are tested again, and then the smallest while its relative change
 *    is below opts.min_rel (Hunter's merge).
 *
 * The defaults (struct pb_cp_opts):
 *  - window 50, as Otava's compute_change_points: a change is first seen inside one window,
 *    between sides of ~25 points, where a 1% step under 1% noise gives t ~ sqrt(25 / 2) ~ 3.5,
 *    past the weak test's 2.8 (p 0.01) most of the time; with 30 (~15 a side, t ~ 2.7) it is
 *    a coin toss. Measured, one value a point, the step found within 5 points in 500 series
 *    of 200: window 30 45%, 50 67%, 100 79%; stationary series with a change 1.4%, 2.6%,
 *    2.8%. Longer windows see smaller steps but cost O(window^2) each, and a change is
 *    reported later (a window must reach past it).
 *  - p 0.001, Otava's: per test. The split tested is the most different one, so a stationary
 *    series gets a change more often than p: 2.5% of 200-point series with one value a point,
 *    0.5% with 10 samples (test_changepoint.c); 0.0001 makes it rarer at the cost of small
 *    steps.
 *  - min_rel 0: every significant change is reported, with its relative change and interval;
 *    how large a change matters is the caller's policy (the gate's threshold of issue 24).
 *  - min_segment 3: below, under "Outliers".
 *
 * What pbench adds or does differently:
 *  - The windows are on a fixed grid (start of the segment + j window / 2), not moved to the
 *    last change found as Otava's are: a window's candidates depend on its own points only, so
 *    a window that new points can no longer reach is searched once and kept. Adding a point
 *    searches again the at most two windows that reach the end of the series (O(window^2)
 *    each) and merges the segment's candidates again: O(k log k), k the candidates (tests of
 *    O(1) from prefix sums, a heap for the weakest), and k grows with the series where it
 *    changes (a few a change) and little where it does not. Nothing else is recomputed; the
 *    result is the same as analyzing the whole series at once (the unit test checks that).
 *    Analyzing n points at once is O(n window) (bench_changepoint.c: ~0.25 us a point, 2.5 ms
 *    for 10,000 points, 11 ms with their appends; an add to 10,000 points ~40 us, to 1,000
 *    ~11 us, the merge's k log k growing with the changes).
 *  - Samples: where every point carries its runs' samples, the t-tests are over the samples
 *    of the two sides (Welch), else over the points' values. The samples' test alone assumes
 *    that points differ only by their samples' noise: one outlier point's 10 samples, all far
 *    from the rest, make its side differ wherever it lies (every one of 100 series with 5
 *    one-point outliers of +20% had a false change, test_changepoint.c). So with samples a
 *    change must also be significant over the points' values (their samples' means): where
 *    the samples' model holds the points are precise and that test costs little power (a 1%
 *    step under 1% noise with 10 samples a point: t ~ 11 over 25 points a side); where it
 *    does not (an outlier, a slow day) the points tell.
 *  - Outliers: a level must last opts.min_segment points (default 3) on each side of a change,
 *    and the test is over the points (with samples too, above). A one-point excursion of any
 *    size x then never makes a change: a side of one point has no variance to test with, and
 *    a side of m points that holds it has its mean moved by x / m and its standard error
 *    grown by about as much, so t stays near 1. 3 and not 2: two points in a row at a new
 *    level (a bad hour of a runner) would be a level of 2, tested on their own noise; in a
 *    side of 3 they give t ~ 2 with 2 degrees of freedom, far from p 0.001. (A rule that
 *    also tested each change without each side's most extreme point changed no result of
 *    test_changepoint.c once the points' test was there, and was taken out.)
 *  - Segments: the caller starts a new segment where the machine changed; each is analyzed
 *    alone (no window, no test crosses a segment start).
 *  - The test is Welch's t (unequal variances: a one-point excursion inflates its side's
 *    variance, which Student's pooled test, Otava's, would not see) with Hsu's degrees of
 *    freedom, min(nx, ny) - 1, the conservative bound of Welch-Satterthwaite's: a short side
 *    whose few values happen to lie close together has a small variance, and
 *    Welch-Satterthwaite's df then follows the long side, which made levels of 3 to 6 points
 *    out of noise (a 10,000-point series with 20 steps had 42 change points; with Hsu's df
 *    21, bench_changepoint.c; stationary series of 200 points: 7% with a change, 2.5% with
 *    Hsu's df; the steps were found as often). The decisions test from prefix sums of the
 *    values (O(1) a test, p from pbench_stats_t_cdf()); the figures reported for a change are
 *    pbench_stats_welch() over the values of its two sides (t, the relative change and its
 *    interval at confidence 1 - opts.p, with Welch-Satterthwaite's df), p from its t with
 *    Hsu's df.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "stats/changepoint.h"

#define MAX_WINDOW PBENCH_HISTORY_CHANGES_MAX_WINDOW

struct idx_list {
	size_t *v;
	size_t n, cap;
};

struct seg {
	size_t start, end;	/* [start, end): end is the series' length while open */
	int closed;		/* a later segment started */
	int dirty;		/* points appended since the last analysis */
	double ref;		/* subtracted from values before the prefix sums (precision) */
	size_t done;		/* windows searched for good (no new point reaches them) */
	struct idx_list weak;	/* the candidates those windows found */
	struct idx_list tent;	/* those of the windows the next points still reach */
	struct idx_list cps;	/* the change points, after the merge */
};

struct pb_cp_series {
	struct pb_cp_opts o;
	double p_weak;
	size_t n, cap;
	double *value;
	int has_samples;	/* of every point; -1 before the first */
	size_t *off;		/* samples of point i: [off[i], off[i + 1]) */
	double *samples;
	size_t scap;
	/* prefix sums of the tested values (samples or values) minus their segment's ref: over
	 * points [0, i) */
	size_t *cn;
	long double *cs, *css;
	/* the same of the points' values (the samples' means where there are samples) */
	long double *ps, *pss;
	struct seg *seg;
	size_t nseg, segcap;
	/* the scratch of a window: its distances' 2-D prefix sums and its intervals */
	double *dsum;
	size_t *bound, *btau;
	double *bq;
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

static int list_push(struct idx_list *l, size_t x)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;

		if (resize(&l->v, cap, sizeof(*l->v)))
			return -ENOMEM;
		l->cap = cap;
	}
	l->v[l->n++] = x;
	return 0;
}

/* Room for one more point with ns samples and a new segment; the series unchanged on error. */
static int grow(struct pb_cp_series *s, size_t ns)
{
	size_t cap = s->cap;

	if (s->n + 1 >= cap) {
		cap = cap ? 2 * cap : 64;
		if (resize(&s->value, cap, sizeof(double)) || resize(&s->off, cap + 1, sizeof(size_t)) ||
		    resize(&s->cn, cap + 1, sizeof(size_t)) ||
		    resize(&s->cs, cap + 1, sizeof(long double)) ||
		    resize(&s->css, cap + 1, sizeof(long double)) ||
		    resize(&s->ps, cap + 1, sizeof(long double)) ||
		    resize(&s->pss, cap + 1, sizeof(long double)))
			return -ENOMEM;
		s->cap = cap;
	}
	if (ns && s->off[s->n] + ns > s->scap) {
		size_t scap = s->scap ? s->scap : 1024;

		while (scap < s->off[s->n] + ns)
			scap *= 2;
		if (resize(&s->samples, scap, sizeof(double)))
			return -ENOMEM;
		s->scap = scap;
	}
	if (s->nseg == s->segcap) {
		size_t segcap = s->segcap ? 2 * s->segcap : 4;

		if (resize(&s->seg, segcap, sizeof(*s->seg)))
			return -ENOMEM;
		s->segcap = segcap;
	}
	return 0;
}

/* ---- the test ------------------------------------------------------------------------ */

/* The count, sum and sum of squares of the tested values of some points (minus ref). */
struct mom {
	double n;
	long double s, ss;
};

static void mom_range(const struct pb_cp_series *s, size_t a, size_t b, struct mom *m)
{
	m->n = (double)(s->cn[b] - s->cn[a]);
	m->s = s->cs[b] - s->cs[a];
	m->ss = s->css[b] - s->css[a];
}

/* The same of the points' values. */
static void mom_points(const struct pb_cp_series *s, size_t a, size_t b, struct mom *m)
{
	m->n = (double)(b - a);
	m->s = s->ps[b] - s->ps[a];
	m->ss = s->pss[b] - s->pss[a];
}

static double mom_mean(const struct mom *m)
{
	return (double)(m->s / m->n);
}

static double mom_var(const struct mom *m)
{
	long double v = (m->ss - m->s * m->s / m->n) / (m->n - 1);

	return v > 0 ? (double)v : 0;
}

/* The two-sided p of Welch's t for sides of nx and ny values, with Hsu's degrees of freedom
 * (min(nx, ny) - 1: the head comment says why). */
static double hsu_p(double t, double nx, double ny)
{
	return fmin(1, 2 * pbench_stats_t_cdf(-fabs(t), fmin(nx, ny) - 1));
}

/* Welch's two-sided p of x against y from their moments (Hsu's df); 1 when a side has fewer
 * than 2 values, 0 for two constant sides that differ. */
static double welch_p(const struct mom *x, const struct mom *y)
{
	double va, vb, se2, diff;

	if (x->n < 2 || y->n < 2)
		return 1;
	va = mom_var(x) / x->n;
	vb = mom_var(y) / y->n;
	se2 = va + vb;
	diff = mom_mean(y) - mom_mean(x);
	if (!(se2 > 0))
		return diff != 0 ? 0 : 1;
	return hsu_p(diff / sqrt(se2), x->n, y->n);
}

/*
 * Welch's p of the points [lo, tau) against [tau, hi): over the tested values; with samples,
 * the larger of that and the p over the points' values, so that points that differ more than
 * their samples say (an outlier, a slow day) cannot make a change by their samples alone.
 */
static double side_p(const struct pb_cp_series *s, size_t lo, size_t tau, size_t hi)
{
	double p = 0;

	for (int points = 0; points <= (s->has_samples == 1); points++) {
		struct mom x, y;

		if (points) {
			mom_points(s, lo, tau, &x);
			mom_points(s, tau, hi, &y);
		} else {
			mom_range(s, lo, tau, &x);
			mom_range(s, tau, hi, &y);
		}
		p = fmax(p, welch_p(&x, &y));
	}
	return p;
}

/*
 * How significant a change at tau is, between the points [lo, tau) and [tau, hi): side_p(),
 * or 1 when a side is shorter than min_segment. *rel: mean after / mean before - 1.
 */
static double cp_score(const struct pb_cp_series *s, const struct seg *g, size_t lo, size_t tau,
		       size_t hi, double *rel)
{
	struct mom x, y;
	double mx, my;

	*rel = NAN;
	if (tau - lo < s->o.min_segment || hi - tau < s->o.min_segment)
		return 1;
	mom_range(s, lo, tau, &x);
	mom_range(s, tau, hi, &y);
	mx = mom_mean(&x) + g->ref;
	my = mom_mean(&y) + g->ref;
	*rel = mx != 0 ? my / mx - 1 : NAN;
	return side_p(s, lo, tau, hi);
}

/* ---- split: E-Divisive in one window ---------------------------------------------------- */

/* The sum of |v_i - v_j| over i in [a, b), j in [c, d) of the window (d: its prefix sums). */
static double rect(const double *d, size_t stride, size_t a, size_t b, size_t c, size_t e)
{
	return d[b * stride + e] - d[a * stride + e] - d[b * stride + c] + d[a * stride + c];
}

/*
 * The best split of the window's interval [lo, hi): the tau and kappa (sides [lo, tau) and
 * [tau, kappa), each at least m points) that maximize Matteson and James's
 * Q = nx ny / (nx + ny) (2 / (nx ny) sum|X - Y| - sum|X - X'| / C(nx, 2) - sum|Y - Y'| / C(ny, 2)).
 * *q = -INFINITY when the interval is too short for one.
 */
static size_t best_split(const double *d, size_t stride, size_t lo, size_t hi, size_t m,
			 double *q)
{
	size_t best = 0;

	*q = -INFINITY;
	for (size_t tau = lo + m; tau + m <= hi; tau++) {
		double nx = (double)(tau - lo);
		double wx = rect(d, stride, lo, tau, lo, tau) / (nx * (nx - 1));

		for (size_t kappa = tau + m; kappa <= hi; kappa++) {
			double ny = (double)(kappa - tau);
			double e = 2 * rect(d, stride, lo, tau, tau, kappa) / (nx * ny) - wx -
				   rect(d, stride, tau, kappa, tau, kappa) / (ny * (ny - 1));
			double qq = nx * ny / (nx + ny) * e;

			if (qq > *q) {
				*q = qq;
				best = tau;
			}
		}
	}
	return best;
}

/* The 2-D prefix sums of the window's distances |v_i - v_j|, i, j in [0, len). */
static void distance_sums(const double *v, size_t len, double *d)
{
	size_t stride = len + 1;

	memset(d, 0, stride * sizeof(*d));
	for (size_t i = 0; i < len; i++) {
		double row = 0;

		d[(i + 1) * stride] = 0;
		for (size_t j = 0; j < len; j++) {
			row += fabs(v[i] - v[j]);
			d[(i + 1) * stride + j + 1] = d[i * stride + j + 1] + row;
		}
	}
}

/* E-Divisive over the points [a, b) (of one segment): the weak changes found go into out. */
static int window_search(struct pb_cp_series *s, size_t a, size_t b, struct idx_list *out)
{
	size_t len = b - a, m = s->o.min_segment, nb = 2, stride = len + 1;
	size_t *bound = s->bound, *btau = s->btau;
	double *bq = s->bq;

	if (len < 2 * m)
		return 0;
	distance_sums(s->value + a, len, s->dsum);
	bound[0] = 0;
	bound[1] = len;
	btau[0] = best_split(s->dsum, stride, 0, len, m, &bq[0]);
	for (;;) {
		size_t k = 0, tau;

		for (size_t i = 1; i + 1 < nb; i++)	/* the interval of the largest Q */
			if (bq[i] > bq[k])
				k = i;
		if (bq[k] == -INFINITY)
			break;
		tau = btau[k];
		if (!(side_p(s, a + bound[k], a + tau, a + bound[k + 1]) < s->p_weak))
			break;
		if (list_push(out, a + tau))
			return -ENOMEM;
		/* interval k becomes [bound[k], tau) and [tau, bound[k + 1]) */
		memmove(bound + k + 2, bound + k + 1, (nb - k - 1) * sizeof(*bound));
		memmove(btau + k + 2, btau + k + 1, (nb - k - 2) * sizeof(*btau));
		memmove(bq + k + 2, bq + k + 1, (nb - k - 2) * sizeof(*bq));
		bound[k + 1] = tau;
		nb++;
		btau[k] = best_split(s->dsum, stride, bound[k], tau, m, &bq[k]);
		btau[k + 1] = best_split(s->dsum, stride, tau, bound[k + 2], m, &bq[k + 1]);
	}
	return 0;
}

/* ---- merge ------------------------------------------------------------------------------- */

/*
 * Hunter's merge, in O(k log k) for k candidates: they are a doubly linked list in index order
 * (a removal relinks its neighbours, which are scored again), and two heaps say which goes
 * next, the largest p (the first index of equal ones) and the smallest |relative change|;
 * an entry whose candidate was removed or scored again since it was pushed is skipped.
 */
struct cand {
	size_t index, prev, next;	/* prev, next: SIZE_MAX at the ends */
	double score, rel;
	unsigned ver;
	int gone;
};

struct hent {
	double key;		/* score (largest first) or |rel| (smallest first) */
	size_t i;		/* the candidate */
	unsigned ver;
};

struct heap {
	struct hent *v;
	size_t n;
	int max;		/* largest key first */
};

/* Does a come out of h before b: the key, then the lower candidate (the first index). */
static int before(const struct heap *h, const struct hent *a, const struct hent *b)
{
	if (a->key != b->key)
		return h->max ? a->key > b->key : a->key < b->key;
	return a->i < b->i;
}

static void heap_push(struct heap *h, struct hent e)
{
	size_t i = h->n++;

	while (i && before(h, &e, &h->v[(i - 1) / 2])) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = e;
}

static void heap_pop(struct heap *h)
{
	struct hent e = h->v[--h->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && before(h, &h->v[c + 1], &h->v[c]))
			c++;
		if (!before(h, &h->v[c], &e))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = e;
}

/* The top of h that is still current, or NULL. */
static const struct hent *heap_top(struct heap *h, const struct cand *c)
{
	while (h->n && (c[h->v[0].i].gone || c[h->v[0].i].ver != h->v[0].ver))
		heap_pop(h);
	return h->n ? &h->v[0] : NULL;
}

/* Score candidate i between its neighbours (or the segment's ends) and push it. */
static void rescore(const struct pb_cp_series *s, const struct seg *g, struct cand *c, size_t i,
		    struct heap *hp, struct heap *hr)
{
	size_t lo = c[i].prev == SIZE_MAX ? g->start : c[c[i].prev].index;
	size_t hi = c[i].next == SIZE_MAX ? g->end : c[c[i].next].index;

	c[i].score = cp_score(s, g, lo, c[i].index, hi, &c[i].rel);
	c[i].ver++;
	heap_push(hp, (struct hent){ c[i].score, i, c[i].ver });
	if (s->o.min_rel > 0 && fabs(c[i].rel) < s->o.min_rel)
		heap_push(hr, (struct hent){ fabs(c[i].rel), i, c[i].ver });
}

/* Which candidate goes next: the largest p not below opts.p, then the smallest relative
 * change below opts.min_rel; SIZE_MAX when none. */
static size_t weakest(const struct pb_cp_series *s, const struct cand *c, struct heap *hp,
		      struct heap *hr)
{
	const struct hent *e = heap_top(hp, c);

	if (e && !(e->key < s->o.p))
		return e->i;
	e = heap_top(hr, c);
	return e ? e->i : SIZE_MAX;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* The candidates of segment g's windows, sorted, each once (windows overlap), into g->cps. */
static int candidates(struct seg *g)
{
	struct idx_list *c = &g->cps;
	size_t n = 0;

	c->n = 0;
	for (size_t i = 0; i < g->weak.n + g->tent.n; i++)
		if (list_push(c, i < g->weak.n ? g->weak.v[i] : g->tent.v[i - g->weak.n]))
			return -ENOMEM;
	if (!c->n)
		return 0;
	qsort(c->v, c->n, sizeof(*c->v), cmp_size);
	for (size_t i = 0; i < c->n; i++)
		if (!n || c->v[i] != c->v[n - 1])
			c->v[n++] = c->v[i];
	c->n = n;
	return 0;
}

/* Hunter's merge of segment g's candidates into its change points. */
static int merge(struct pb_cp_series *s, struct seg *g)
{
	size_t n, k, m = 0;
	struct cand *c;
	struct heap hp = { .max = 1 }, hr = { .max = 0 };

	if (candidates(g))
		return -ENOMEM;
	if (!(n = g->cps.n))
		return 0;
	c = calloc(n, sizeof(*c));
	hp.v = malloc(3 * n * sizeof(*hp.v));	/* n, then 2 a removal */
	hr.v = malloc(3 * n * sizeof(*hr.v));
	if (!c || !hp.v || !hr.v) {
		free(c);
		free(hp.v);
		free(hr.v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		c[i].index = g->cps.v[i];
		c[i].prev = i ? i - 1 : SIZE_MAX;
		c[i].next = i + 1 < n ? i + 1 : SIZE_MAX;
	}
	for (size_t i = 0; i < n; i++)
		rescore(s, g, c, i, &hp, &hr);
	while ((k = weakest(s, c, &hp, &hr)) != SIZE_MAX) {
		c[k].gone = 1;
		if (c[k].prev != SIZE_MAX)
			c[c[k].prev].next = c[k].next;
		if (c[k].next != SIZE_MAX)
			c[c[k].next].prev = c[k].prev;
		if (c[k].prev != SIZE_MAX)
			rescore(s, g, c, c[k].prev, &hp, &hr);
		if (c[k].next != SIZE_MAX)
			rescore(s, g, c, c[k].next, &hp, &hr);
	}
	for (size_t i = 0; i < n; i++)
		if (!c[i].gone)
			g->cps.v[m++] = c[i].index;
	g->cps.n = m;
	free(c);
	free(hp.v);
	free(hr.v);
	return 0;
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
			       "(4 opts->min_segment: two sides in half a window)", o->window,
			       4 * o->min_segment, MAX_WINDOW);
	return 0;
}

int pb_cp_series_new(const struct pb_cp_opts *opts, struct pb_cp_series **out)
{
	struct pb_cp_series *s;
	struct pb_cp_opts o = { 0 };
	size_t w;
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
	s->p_weak = fmin(10 * o.p, 0.5);
	s->has_samples = -1;
	w = o.window;
	s->dsum = malloc((w + 1) * (w + 1) * sizeof(*s->dsum));
	s->bound = malloc((w + 2) * sizeof(*s->bound));
	s->btau = malloc((w + 2) * sizeof(*s->btau));
	s->bq = malloc((w + 2) * sizeof(*s->bq));
	if (!s->dsum || !s->bound || !s->btau || !s->bq || grow(s, 0)) {
		pb_cp_series_free(s);
		return -ENOMEM;
	}
	s->off[0] = s->cn[0] = 0;
	s->cs[0] = s->css[0] = s->ps[0] = s->pss[0] = 0;
	*out = s;
	return 0;
}

void pb_cp_series_free(struct pb_cp_series *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nseg; i++) {
		free(s->seg[i].weak.v);
		free(s->seg[i].tent.v);
		free(s->seg[i].cps.v);
	}
	free(s->seg);
	free(s->value);
	free(s->off);
	free(s->samples);
	free(s->cn);
	free(s->cs);
	free(s->css);
	free(s->ps);
	free(s->pss);
	free(s->dsum);
	free(s->bound);
	free(s->btau);
	free(s->bq);
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
	const double *u = nsamples ? samples : &value;
	size_t n, nu = nsamples ? nsamples : 1;
	long double sum = 0, sq = 0;
	struct seg *g;
	int err;

	if (!s)
		return pb_fail(-EINVAL, "pb_cp_series_append(): s is NULL");
	if (flags & ~(unsigned)PB_CP_SEGMENT)
		return pb_fail(-EINVAL, "pb_cp_series_append(): flags %#x: unknown bits %#x", flags,
			       flags & ~(unsigned)PB_CP_SEGMENT);
	if ((err = check_point(s, &value, samples, nsamples)) || (err = grow(s, nsamples)))
		return err;
	n = s->n;
	if (!n || (flags & PB_CP_SEGMENT)) {
		if (n) {
			s->seg[s->nseg - 1].closed = 1;
			s->seg[s->nseg - 1].dirty = 1;
		}
		g = &s->seg[s->nseg++];
		memset(g, 0, sizeof(*g));
		g->start = n;
		g->ref = value;
	}
	g = &s->seg[s->nseg - 1];
	s->has_samples = nsamples > 0;
	s->value[n] = value;
	if (nsamples)
		memcpy(s->samples + s->off[n], samples, nsamples * sizeof(*samples));
	s->off[n + 1] = s->off[n] + nsamples;
	for (size_t i = 0; i < nu; i++) {
		long double d = (long double)u[i] - g->ref;

		sum += d;
		sq += d * d;
	}
	s->cn[n + 1] = s->cn[n] + nu;
	s->cs[n + 1] = s->cs[n] + sum;
	s->css[n + 1] = s->css[n] + sq;
	s->ps[n + 1] = s->ps[n] + ((long double)value - g->ref);
	s->pss[n + 1] = s->pss[n] + ((long double)value - g->ref) * ((long double)value - g->ref);
	s->n = n + 1;
	g->end = s->n;
	g->dirty = 1;
	return 0;
}

/* Search segment g's windows that changed, then merge its candidates. */
static int analyze_seg(struct pb_cp_series *s, struct seg *g)
{
	size_t w = s->o.window, step = w / 2, a;
	int err;

	while ((a = g->start + g->done * step) < g->end) {
		if (!g->closed && a + w > g->end)
			break;	/* new points still reach this one */
		if ((err = window_search(s, a, a + w < g->end ? a + w : g->end, &g->weak)))
			return err;
		g->done++;
	}
	g->tent.n = 0;
	for (size_t j = g->done; (a = g->start + j * step) < g->end; j++)
		if ((err = window_search(s, a, g->end, &g->tent)))
			return err;
	if ((err = merge(s, g)))
		return err;
	g->dirty = 0;
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

/* The figures of the change between [before, index) and [index, after) of segment g. */
static void report(const struct pb_cp_series *s, const struct seg *g, struct pb_cp *c)
{
	struct pbench_stats_opts so = PBENCH_STATS_OPTS_INIT;
	struct pbench_welch w = { .size = sizeof(w) };
	const double *x = s->value + c->before, *y = s->value + c->index;
	struct mom mx, my;

	mom_range(s, c->before, c->index, &mx);
	mom_range(s, c->index, c->after, &my);
	c->n_before = (size_t)mx.n;
	c->n_after = (size_t)my.n;
	c->mean_before = mom_mean(&mx) + g->ref;
	c->mean_after = mom_mean(&my) + g->ref;
	c->direction = c->mean_after > c->mean_before ? 1 : -1;
	if (s->has_samples == 1) {
		x = s->samples + s->off[c->before];
		y = s->samples + s->off[c->index];
	}
	so.ci_level = 1 - s->o.p;
	c->p_points = NAN;
	if (s->has_samples == 1) {
		struct mom px, py;

		mom_points(s, c->before, c->index, &px);
		mom_points(s, c->index, c->after, &py);
		c->p_points = pbench_stats_welch(s->value + c->index, c->after - c->index,
						 s->value + c->before, c->index - c->before, &so, &w)
				      ? welch_p(&px, &py) : hsu_p(w.t, px.n, py.n);
	}
	if (pbench_stats_welch(y, c->n_after, x, c->n_before, &so, &w) == 0) {
		c->p = hsu_p(w.t, mx.n, my.n);
		c->rel = w.ratio - 1;
		c->rel_lo = w.ratio_lo - 1;
		c->rel_hi = w.ratio_hi - 1;
	} else {	/* both sides constant: no spread to give an interval */
		c->p = welch_p(&mx, &my);
		c->rel = c->mean_before != 0 ? c->mean_after / c->mean_before - 1 : NAN;
		c->rel_lo = c->rel_hi = NAN;
	}
	if (s->has_samples != 1)
		c->p_points = c->p;
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
		out->index = g->cps.v[k];
		out->before = k ? g->cps.v[k - 1] : g->start;
		out->after = k + 1 < g->cps.n ? g->cps.v[k + 1] : g->end;
		report(s, g, out);
		return 0;
	}
	return pb_fail(-EINVAL, "pb_cp_series_get(): i is %zu, the series has %zu change points",
		       i, pb_cp_series_count(s));
}
