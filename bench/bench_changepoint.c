/* SPDX-License-Identifier: MIT */
/*
 * bench_changepoint: what finding the change points of a benchmark's history costs
 * (lib/src/stats/changepoint.c, issue 24), and how the cost grows with the series. All numbers
 * are measured in this run.
 *
 * Targets (the issue): the change points of a 10,000-point series, and adding points to a
 * 10,000-point series one at a time, each well under a second.
 *
 * The series: level 1000 with 1% Gaussian noise (seeded), a step every 500 points (+5% and
 * -5% in turn: 20 changes in 10,000 points), with one value a point and with 10 samples a
 * point. For n = 1k, 2k, 5k, 10k:
 *  (a) batch: every point appended, then one pb_cp_series_analyze();
 *  (b) incremental: a series of n points analyzed, then ADD more points one at a time with
 *      pb_cp_series_add() (each searches again the windows it reaches and merges the
 *      candidates again): the time of one add;
 *  (c) the whole series built a point at a time, analyzed after every point (what a CI
 *      that records each commit does over the series' life).
 * Each time is the fastest of REPS (noise only adds time). The ratio to n = 1k and the
 * exponent log(t / t_1k) / log(n / 1k) say how the cost grows: 1 is linear, 0 constant.
 * (a) is also given without the appends ("analyze"): the appends' cost is mostly the first
 * touch of the series' memory (~90 bytes a point of values and prefix sums, grown by
 * doubling), page faults that on this VM cost more as the series outgrows the heap's reuse.
 * The program reports and exits 0 when it could measure; a miss is for a human to read.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "stats/changepoint.h"

#define REPS 3
#define ADD 1000		/* points added one at a time in (b) */
#define STEP_EVERY 500
#define SAMPLES 10
#define TARGET_S 1.0

static const size_t sizes[] = { 1000, 2000, 5000, 10000 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

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

/* The values (ns == 0) or samples (ns each) of point i into x. */
static void point(struct rng *r, size_t i, size_t ns, double *x)
{
	double level = 1000 * ((i / STEP_EVERY) % 2 ? 1.05 : 1);

	for (size_t k = 0; k < (ns ? ns : 1); k++)
		x[k] = level * (1 + 0.01 * gauss(r));
}

static int append(struct pb_cp_series *s, struct rng *r, size_t i, size_t ns, int analyze)
{
	double x[SAMPLES];

	point(r, i, ns, x);
	return (analyze ? pb_cp_series_add : pb_cp_series_append)(s, ns ? NAN : x[0], ns ? x : NULL,
								  ns, 0);
}

/* (a), (b) and (c) for n points: seconds, the fastest of REPS; *analyze: of (a), the
 * analysis alone; *found: change points. */
static int measure(size_t n, size_t ns, double *batch, double *analyze, double *add,
		   double *whole, size_t *found)
{
	*batch = *analyze = *add = *whole = INFINITY;
	for (int rep = 0; rep < REPS; rep++) {
		struct rng r = { 42 };
		struct pb_cp_series *s;
		double t0, ta, t1, t2;

		if (pb_cp_series_new(NULL, &s))
			return -1;
		t0 = now_s();
		for (size_t i = 0; i < n; i++)
			if (append(s, &r, i, ns, 0))
				return -1;
		ta = now_s();
		if (pb_cp_series_analyze(s))
			return -1;
		t1 = now_s();
		*found = pb_cp_series_count(s);
		for (size_t i = n; i < n + ADD; i++)
			if (append(s, &r, i, ns, 1))
				return -1;
		t2 = now_s();
		pb_cp_series_free(s);
		*batch = fmin(*batch, t1 - t0);
		*analyze = fmin(*analyze, t1 - ta);
		*add = fmin(*add, (t2 - t1) / ADD);

		r.s = 42;
		if (pb_cp_series_new(NULL, &s))
			return -1;
		t0 = now_s();
		for (size_t i = 0; i < n; i++)
			if (append(s, &r, i, ns, 1))
				return -1;
		*whole = fmin(*whole, now_s() - t0);
		pb_cp_series_free(s);
	}
	return 0;
}

static double growth(double t, double t1, size_t n)
{
	return log(t / t1) / log((double)n / (double)sizes[0]);
}

static int run(size_t ns)
{
	double batch[NSIZES], analyze[NSIZES], add[NSIZES], whole[NSIZES];
	size_t found[NSIZES];

	printf("\n%s a point; a +-5%% step every %d points, 1%% noise; fastest of %d:\n",
	       ns ? "10 samples" : "one value", STEP_EVERY, REPS);
	printf("  %6s %7s | %10s %6s %5s %9s %5s | %12s %6s %5s | %11s %6s %5s\n", "n",
	       "changes", "(a) batch", "ratio", "exp", "analyze", "exp", "(b) one add", "ratio",
	       "exp", "(c) a point", "ratio", "exp");
	for (size_t k = 0; k < NSIZES; k++) {
		if (measure(sizes[k], ns, &batch[k], &analyze[k], &add[k], &whole[k], &found[k])) {
			printf("  n %zu: failed\n", sizes[k]);
			return -1;
		}
		printf("  %6zu %7zu | %8.2f ms %6.2f %5.2f %6.2f ms %5.2f | %9.1f us %6.2f %5.2f | "
		       "%8.1f ms %6.2f %5.2f\n", sizes[k], found[k], 1e3 * batch[k],
		       batch[k] / batch[0], k ? growth(batch[k], batch[0], sizes[k]) : 1,
		       1e3 * analyze[k], k ? growth(analyze[k], analyze[0], sizes[k]) : 1,
		       1e6 * add[k], add[k] / add[0],
		       k ? growth(add[k], add[0], sizes[k]) : 0, 1e3 * whole[k], whole[k] / whole[0],
		       k ? growth(whole[k], whole[0], sizes[k]) : 1);
	}
	printf("TARGET batch of 10,000 points < %.0f s: %.3f s -> %s\n", TARGET_S, batch[NSIZES - 1],
	       batch[NSIZES - 1] < TARGET_S ? "met" : "MISSED");
	printf("TARGET %d adds to a 10,000-point series < %.0f s: %.3f s -> %s\n", ADD, TARGET_S,
	       add[NSIZES - 1] * ADD, add[NSIZES - 1] * ADD < TARGET_S ? "met" : "MISSED");
	return 0;
}

int main(void)
{
	printf("bench_changepoint: the change points of a series (E-Divisive with Welch's test, "
	       "window 50, p 0.001), batch and incremental\n");
	printf("(a) append n points, analyze once; (b) then %d more, one pb_cp_series_add() each: "
	       "time of one; (c) n points, pb_cp_series_add() each\n", ADD);
	printf("exp: log(t / t_1k) / log(n / 1k), 1 linear, 0 constant\n");
	if (run(0) || run(SAMPLES))
		printf("bench_changepoint: not measured\n");
	return 0;
}
