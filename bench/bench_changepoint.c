/* SPDX-License-Identifier: MIT */
/*
 * bench_changepoint: how well and at what cost the change points of a benchmark's history are
 * found (lib/src/stats/changepoint.c; issues 24 and 37). Every series is drawn here from a
 * seeded generator (splitmix64, Box-Muller), so the run is reproducible; every number printed
 * is measured in this run.
 *
 *  (1) false alarms: stationary series (level 1000, 1% Gaussian noise) of 100, 1,000 and
 *      10,000 points, and of 1,000 points where 2% of the points are outliers (x1.5): the
 *      fraction with any change reported. The method's rate is opts.p per series (0.001),
 *      whatever the length.
 *  (2) detection: 200 points, a step of d (1%, 2%, 5%, 10%, down) at 100, 1% noise; and the
 *      same with one point of 10x the level at 50 (inside the first side): how often a change
 *      is found within +-5 points of the step, the mean |location error| of those, and how
 *      often a change is reported farther away (false). Then the case (a): 365 points,
 *      -12% after 15, a 10x point at 10.
 *  (3) coverage of the step's interval (confidence 1 - opts.p): a +5% step at 100 of 200, 1%
 *      noise, at opts.p 0.05, 0.01 and 0.001: of the series where the change is found at the
 *      step exactly, the fraction whose interval holds the true +5%; and of those whose sides
 *      are the truth's (no false change beside: at p 0.05 one stretch in 20 gets one, and
 *      a false split cuts its side where that side's level strayed, which biases the step).
 *  (4) the long series: 10,000 points, 1% noise, a step every 1,000 alternately +10%
 *      and -10% (9 changes): reported, false (farther than 10 points from a step), and the
 *      estimate of each step against the truth; over 20 seeds.
 *  (5) cost: one analysis of 10,000 points (stationary, and with the 9 steps), the fastest of
 *      3; one add to a series of 1,000 points.
 * Usage: bench_changepoint [quick]  (quick: a tenth of the series, for a smoke run)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stats/changepoint.h"

static int scale = 1;	/* 10: quick */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct rng {
	uint64_t s;
};

static double uniform(struct rng *r)	/* splitmix64, in (0, 1) */
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(struct rng *r)
{
	return sqrt(-2 * log(uniform(r))) * cos(2 * M_PI * uniform(r));
}

/* A series: level 1000, relative steps (cumulative) at step_at[], 1% noise, points at
 * spike_at[] multiplied by spike, a fraction wild of the points multiplied by 1.5. */
struct shape {
	size_t n;
	size_t step_at[16];
	double step_rel[16];
	size_t nsteps;
	size_t spike_at;	/* 0: none */
	double spike;
	double wild;
};

#define MAX_CP 256

/* The change points of shape t with seed: count, and up to MAX_CP of them into cp. */
static size_t run(const struct shape *t, const struct pb_cp_opts *o, uint64_t seed,
		  struct pb_cp *cp)
{
	struct rng r = { 0 };
	struct pb_cp_series *s;
	size_t n;

	/* the seed's own stream: splitmix64 of the seed (seeds in a row, as states, would be
	 * one stream shifted by a draw) */
	r.s = seed;
	r.s = (uint64_t)(uniform(&r) * 18446744073709551616.0);
	if (pb_cp_series_new(o, &s))
		exit(1);
	for (size_t i = 0; i < t->n; i++) {
		double lv = 1000, x;

		for (size_t k = 0; k < t->nsteps; k++)
			if (i >= t->step_at[k])
				lv *= 1 + t->step_rel[k];
		x = lv * (1 + 0.01 * gauss(&r));
		if (t->spike_at && i == t->spike_at)
			x = 1000 * t->spike;
		if (t->wild > 0 && uniform(&r) < t->wild)
			x *= 1.5;
		if (pb_cp_series_append(s, x, NULL, 0, 0))
			exit(1);
	}
	if (pb_cp_series_analyze(s))
		exit(1);
	n = pb_cp_series_count(s);
	for (size_t i = 0; i < n && i < MAX_CP; i++)
		if (pb_cp_series_get(s, i, &cp[i]))
			exit(1);
	pb_cp_series_free(s);
	return n;
}

/* The true relative step at change k of t (the level after / before - 1). */
static double true_rel(const struct shape *t, size_t k)
{
	return t->step_rel[k];
}

static void false_alarms(void)
{
	static const struct { size_t n; int series; double wild; } rows[] = {
		{ 100, 5000, 0 }, { 1000, 1000, 0 }, { 10000, 200, 0 }, { 1000, 1000, 0.02 },
	};

	printf("\n(1) false alarms: stationary series, 1%% noise, p 0.001 (the method's rate: 0.1%% "
	       "a series, any length)\n");
	printf("  %6s %8s %8s | %16s %9s\n", "points", "outliers", "series", "with a change", "changes");
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		struct shape t = { .n = rows[k].n, .wild = rows[k].wild };
		int series = rows[k].series / scale, any = 0;
		size_t total = 0;
		struct pb_cp cp[MAX_CP];

		for (int seed = 1; seed <= series; seed++) {
			size_t n = run(&t, NULL, 1000000 + (uint64_t)seed, cp);

			any += n > 0;
			total += n;
		}
		printf("  %6zu %7.0f%% %8d | %6d (%5.2f%%) %9zu\n", t.n, 100 * t.wild, series, any,
		       100.0 * any / series, total);
	}
}

/* Of series of shape t: found within +-tol of step 0 (in its direction), the mean |error|,
 * series with a change farther than far from every step. */
static void detect(const struct shape *t, int series, size_t tol, const char *what)
{
	int found = 0, extra = 0;
	double err = 0;
	struct pb_cp cp[MAX_CP];

	for (int seed = 1; seed <= series; seed++) {
		size_t n = run(t, NULL, 2000000 + (uint64_t)seed, cp), best = SIZE_MAX;
		int other = 0;

		for (size_t i = 0; i < n && i < MAX_CP; i++) {
			size_t at = t->step_at[0], d = cp[i].index > at ? cp[i].index - at :
							      at - cp[i].index;

			if (d <= tol && cp[i].direction == (t->step_rel[0] > 0 ? 1 : -1))
				best = best < d ? best : d;
			else if (d > tol)
				other = 1;
		}
		if (best != SIZE_MAX) {
			found++;
			err += (double)best;
		}
		extra += other;
	}
	printf("  %-34s %4d of %4d (%5.1f%%)  |error| %5.2f  farther %3d\n", what, found,
	       series, 100.0 * found / series, found ? err / found : NAN, extra);
}

static void detection(void)
{
	static const double d[] = { 0.01, 0.02, 0.05, 0.10 };
	int series = 200 / scale;
	char what[96];

	printf("\n(2) detection: 200 points, a step down at 100, 1%% noise, p 0.001; found: within "
	       "+-5 points, in its direction; farther: series with a change farther than that\n");
	for (int spike = 0; spike < 2; spike++)
		for (size_t k = 0; k < sizeof(d) / sizeof(d[0]); k++) {
			struct shape t = { .n = 200, .step_at = { 100 }, .step_rel = { -d[k] },
					   .nsteps = 1, .spike_at = spike ? 50 : 0, .spike = 10 };

			snprintf(what, sizeof(what), "-%.0f%%%s", 100 * d[k],
				 spike ? ", a 10x point at 50" : "");
			detect(&t, series, 5, what);
		}
	{
		struct shape t = { .n = 365, .step_at = { 15 }, .step_rel = { -0.12 }, .nsteps = 1,
				   .spike_at = 10, .spike = 10 };

		detect(&t, series, 1, "issue (a): 365 pts, -12% at 15, 10x at 10");
		t.spike = 0.1;
		detect(&t, series, 1, "  the same with a 0.1x point at 10");
	}
}

static void coverage(void)
{
	static const double ps[] = { 0.05, 0.01, 0.001 };
	struct shape t = { .n = 200, .step_at = { 100 }, .step_rel = { 0.05 }, .nsteps = 1 };
	int series = 2000 / scale;

	printf("\n(3) coverage of the step's interval: +5%% at 100 of 200, 1%% noise, %d series\n",
	       series);
	for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
		struct pb_cp_opts o = { .p = ps[k] };
		int exact = 0, held = 0, nan = 0, whole = 0, wheld = 0;
		double width = 0;
		struct pb_cp cp[MAX_CP];

		for (int seed = 1; seed <= series; seed++) {
			size_t n = run(&t, &o, 3000000 + (uint64_t)seed, cp);

			for (size_t i = 0; i < n && i < MAX_CP; i++) {
				if (cp[i].index != 100)
					continue;
				exact++;
				if (isnan(cp[i].rel_lo)) {
					nan++;
					continue;
				}
				held += cp[i].rel_lo <= 0.05 && 0.05 <= cp[i].rel_hi;
				width += cp[i].rel_hi - cp[i].rel_lo;
				if (cp[i].before == 0 && cp[i].after == 200) {
					whole++;
					wheld += cp[i].rel_lo <= 0.05 && 0.05 <= cp[i].rel_hi;
				}
			}
		}
		printf("  confidence %5.1f%%: at the step exactly in %4d, interval holds +5%% in %4d "
		       "(%5.1f%%), mean width %.2f%%%s;\n    of those with no false change beside "
		       "(sides 0..100..200), %4d: holds in %4d (%5.1f%%)\n", 100 * (1 - ps[k]), exact,
		       held, exact ? 100.0 * held / exact : NAN,
		       exact ? 100 * width / (exact - nan) : NAN, nan ? " (some NaN)" : "", whole,
		       wheld, whole ? 100.0 * wheld / whole : NAN);
	}
}

static void long_series(void)
{
	struct shape t = { .n = 10000, .nsteps = 9 };
	int series = 20 / scale ? 20 / scale : 1, reported = 0, wrong = 0, missed = 0;
	int seeds_false = 0, held = 0, est = 0;

	for (size_t k = 0; k < 9; k++) {
		t.step_at[k] = 1000 * (k + 1);
		t.step_rel[k] = k % 2 ? -0.10 / 1.10 : 0.10;	/* 1000, 1100, 1000, ... */
	}
	printf("\n(4) 10,000 points, 1%% noise, +10%% and -9.09%% in turn every 1,000 (9 changes), "
	       "p 0.001, %d seeds\n", series);
	for (int seed = 1; seed <= series; seed++) {
		struct pb_cp cp[MAX_CP];
		size_t n = run(&t, NULL, 4000000 + (uint64_t)seed, cp), hit = 0;
		int f = 0;

		for (size_t i = 0; i < n && i < MAX_CP; i++) {
			int near = 0;

			for (size_t k = 0; k < 9; k++)
				if (cp[i].index + 10 >= t.step_at[k] && cp[i].index <= t.step_at[k] + 10) {
					near = 1;
					hit++;
					est++;
					held += cp[i].rel_lo <= true_rel(&t, k) &&
						true_rel(&t, k) <= cp[i].rel_hi;
				}
			f += !near;
		}
		reported += (int)n;
		wrong += f;
		seeds_false += f > 0;
		missed += 9 - (int)(hit < 9 ? hit : 9);
		if (seed == 1)
			for (size_t i = 0; i < n && i < MAX_CP; i++)
				printf("  seed 1: at %5zu  %+6.2f%% [%+6.2f%%, %+6.2f%%]  p %.2g\n",
				       cp[i].index, 100 * cp[i].rel, 100 * cp[i].rel_lo,
				       100 * cp[i].rel_hi, cp[i].p);
	}
	printf("  reported %d (%d true steps), false %d (in %d of %d series), missed %d; the "
	       "interval held the true step in %d of %d\n", reported, 9 * series, wrong,
	       seeds_false, series, missed, held, est);
}

static void cost(void)
{
	struct shape flat = { .n = 10000 }, steps = { .n = 10000, .nsteps = 9 };
	double best[2] = { INFINITY, INFINITY }, add = INFINITY;
	struct pb_cp cp[MAX_CP];

	for (size_t k = 0; k < 9; k++) {
		steps.step_at[k] = 1000 * (k + 1);
		steps.step_rel[k] = k % 2 ? -0.10 / 1.10 : 0.10;
	}
	for (int rep = 0; rep < 3; rep++) {
		struct pb_cp_series *s;
		struct rng r = { 77 };
		double t0 = now_s();

		run(&flat, NULL, 5, cp);
		best[0] = fmin(best[0], now_s() - t0);
		t0 = now_s();
		run(&steps, NULL, 5, cp);
		best[1] = fmin(best[1], now_s() - t0);
		if (pb_cp_series_new(NULL, &s))
			exit(1);
		for (size_t i = 0; i < 1000; i++)
			pb_cp_series_append(s, 1000 * (1 + 0.01 * gauss(&r)), NULL, 0, 0);
		pb_cp_series_analyze(s);
		t0 = now_s();
		for (int i = 0; i < 10; i++)
			pb_cp_series_add(s, 1000 * (1 + 0.01 * gauss(&r)), NULL, 0, 0);
		add = fmin(add, (now_s() - t0) / 10);
		pb_cp_series_free(s);
	}
	printf("\n(5) cost, fastest of 3: 10,000 points drawn and analyzed: stationary %.1f ms, "
	       "with 9 steps %.1f ms; one add to 1,000 points %.2f ms\n", 1e3 * best[0],
	       1e3 * best[1], 1e3 * add);
	printf("TARGET 10,000 points < 1 s: %s\n", fmax(best[0], best[1]) < 1 ? "met" : "MISSED");
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "quick"))
		scale = 10;
	printf("bench_changepoint: binary segmentation, Huber scores' CUSUM, permutation test of "
	       "its maximum (defaults: p 0.001, min_segment 3)%s\n", scale > 1 ? "; quick" : "");
	if (argc > 1 && !strcmp(argv[1], "cost")) {
		cost();
		return 0;
	}
	false_alarms();
	detection();
	coverage();
	long_series();
	cost();
	return 0;
}
