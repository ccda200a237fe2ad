/* SPDX-License-Identifier: MIT */
/*
 * bench_compare_stats: how often pbench_compare's decision rule calls a difference that is not
 * there, and how fast it finds one that is. All numbers are measured in this run.
 *
 * Targets (the issue):
 *   (a) A/A: two samples from the same distribution are called "same" (or left undecided),
 *       never "faster" or "slower", in at least 999 of 1000 trials.
 *   (b) A/B: a real 2% difference between two functions is detected, in the right direction,
 *       in under 5 s of wall time.
 * The program reports and always exits 0 when it could measure: the machines are shared,
 * noisy VMs, and a miss is for a human to read.
 *
 * (a) is simulated, because 1000 real comparisons would take an hour and the machine's noise
 * would not be the same distribution on both sides anyway. Each trial draws samples of "1 ms"
 * from one distribution for both sides (log-normal with a 1% coefficient of variation; one
 * sample in 200 is 5-50% slower, as when an interrupt or another task lands in it) and applies
 * pbench_compare's rule as lib/src/measure/compare.c has it: after each round of two pairs, once both
 * sides have min_samples, Welch's test (pbench_stats_welch) at 99.9%; p < 0.001 is
 * faster/slower, a 99.9% interval of the ratio within +-1% is "same"; the sampling budget
 * (10 s of simulated time, the default) ends it as undecided. The ABBA order does not matter
 * for independent draws and is not simulated.
 *
 * Looking after every round is sequential testing: each look is one more chance of a false
 * p < 0.001, so the rate over a trial is above 0.1%. The program measures it on many more
 * trials than the target's 1000 (whose count of 0, 1 or 2 is mostly luck), next to one
 * test at a fixed sample count, which should be near the nominal 0.1%.
 *
 * (b) runs pbench_compare for real on two xor loops whose iteration counts differ by 2%,
 * several times; (c), for reference and not a target, the same function against itself.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "measure/measure.h"

/* pbench_compare's defaults (lib/src/measure/compare.c, lib/src/measure/measure.c). */
#define CONFIDENCE 0.999
#define SAME_PCT 1.0
#define MIN_SAMPLES 10
#define BUDGET_MS 10000.0

/* The simulated machine. */
#define SAMPLE_MS 1.0
#define CV 0.01
#define OUTLIER_EVERY 200	/* one sample in this many is an outlier */
#define OUTLIER_LO 0.05		/* ... slower by 5% to 50% */
#define OUTLIER_HI 0.50

#define TRIALS 1000
#define SEED 0x9bdf2a6c31e5077dull
#define MANY_TRIALS 20000
#define MANY_SEED 0x2545f4914f6cdd1dull
#define FIXED_PAIRS 20		/* the single-look test */
#define MAX_PAIRS 20000		/* more than the budget allows (5000 pairs of 2 ms) */

/* (b) and (c) */
#define AB_RUNS 5
#define AB_ITERS 200000ull	/* ~55-110 us a call on the development VM */
#define AB_DIFF 1.02
#define AB_TARGET_S 5.0
#define AA_RUNS 3
#define AA_BUDGET_MS 3000.0

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ---- (a) the simulation ---------------------------------------------------------------- */

struct rng {
	uint64_t s;
	int have_spare;
	double spare;
};

static uint64_t splitmix64(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in (0, 1). */
static double uniform(struct rng *r)
{
	return ((double)(splitmix64(r) >> 11) + 0.5) * 0x1.0p-53;
}

/* Standard normal, Box-Muller. */
static double normal(struct rng *r)
{
	double u, v;

	if (r->have_spare) {
		r->have_spare = 0;
		return r->spare;
	}
	u = sqrt(-2 * log(uniform(r)));
	v = 2 * M_PI * uniform(r);
	r->spare = u * sin(v);
	r->have_spare = 1;
	return u * cos(v);
}

/* One sample in ms: log-normal with mean SAMPLE_MS and the given cv, and the outliers. */
static double draw(struct rng *r)
{
	static double mu, sigma;
	double x;

	if (sigma == 0) {
		sigma = sqrt(log1p(CV * CV));
		mu = log(SAMPLE_MS) - sigma * sigma / 2;
	}
	x = exp(mu + sigma * normal(r));
	if (uniform(r) * OUTLIER_EVERY < 1)
		x *= 1 + OUTLIER_LO + (OUTLIER_HI - OUTLIER_LO) * uniform(r);
	return x;
}

static int look(const double *a, const double *b, size_t n)
{
	struct pbench_stats_opts so = { .size = sizeof(so), .ci_level = CONFIDENCE };
	struct pbench_welch w = { .size = sizeof(w) };

	if (pbench_stats_welch(a, n, b, n, &so, &w))
		return 0;
	return pb_compare_decide(CONFIDENCE, SAME_PCT, &w);	/* compare.c's own rule */
}

/* One A/A comparison under compare.c's abba() rule; *pairs gets the samples of each side. */
static int trial(struct rng *r, double *a, double *b, size_t *pairs)
{
	double elapsed = 0;
	int verdict = 0;
	size_t n = 0;

	while (!verdict) {
		double pair;

		a[n] = draw(r);
		b[n] = draw(r);
		pair = a[n] + b[n];
		elapsed += pair;
		n++;
		if (n % 2 == 0 && n >= MIN_SAMPLES)
			verdict = look(a, b, n);
		if (!verdict && (n >= MAX_PAIRS || elapsed + pair > BUDGET_MS)) {
			verdict = look(a, b, n);
			if (!verdict)
				verdict = PBENCH_VERDICT_UNDECIDED;
		}
	}
	*pairs = n;
	return verdict;
}

static int cmp_size(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	return (a > b) - (a < b);
}

/* Wilson's 95% interval of a binomial proportion k/n, in %. */
static void wilson(size_t k, size_t n, double *lo, double *hi)
{
	double z = 1.959964, p = (double)k / (double)n, d = 1 + z * z / (double)n;
	double c = p + z * z / (2 * (double)n);
	double h = z * sqrt(p * (1 - p) / (double)n + z * z / (4.0 * (double)n * (double)n));

	*lo = 100 * (c - h) / d;
	*hi = 100 * (c + h) / d;
}

static int simulate(void)
{
	double *a = malloc(MAX_PAIRS * sizeof(double)), *b = malloc(MAX_PAIRS * sizeof(double));
	size_t *pairs = malloc(TRIALS * sizeof(size_t));
	size_t count[PBENCH_VERDICT_UNDECIDED + 1] = { 0 };
	size_t false_many = 0, false_fixed = 0, n, wrong;
	struct rng r = { .s = SEED };
	double t0 = now_ns(), lo, hi, lo1, hi1;

	if (!a || !b || !pairs) {
		free(a);
		free(b);
		free(pairs);
		return -1;
	}
	for (int i = 0; i < TRIALS; i++)
		count[trial(&r, a, b, &pairs[i])]++;
	qsort(pairs, TRIALS, sizeof(*pairs), cmp_size);
	wrong = count[PBENCH_VERDICT_FASTER] + count[PBENCH_VERDICT_SLOWER];
	printf("(a) A/A, %d simulated comparisons (seed %#llx): faster %zu, slower %zu, same %zu, "
	       "undecided %zu\n", TRIALS, (unsigned long long)SEED, count[PBENCH_VERDICT_FASTER],
	       count[PBENCH_VERDICT_SLOWER], count[PBENCH_VERDICT_SAME],
	       count[PBENCH_VERDICT_UNDECIDED]);
	printf("    pairs taken: median %zu, 99th percentile %zu, max %zu\n", pairs[TRIALS / 2],
	       pairs[TRIALS * 99 / 100], pairs[TRIALS - 1]);
	printf("TARGET A/A: same or undecided in >= %d of %d: %zu -> %s\n", TRIALS - 1, TRIALS,
	       TRIALS - wrong, wrong <= 1 ? "ok" : "NOT MET");

	/* The rate behind that count, and what one look at a fixed sample count gives. */
	r = (struct rng){ .s = MANY_SEED };
	for (int i = 0; i < MANY_TRIALS; i++) {
		int v = trial(&r, a, b, &n);

		false_many += v == PBENCH_VERDICT_FASTER || v == PBENCH_VERDICT_SLOWER;
	}
	r = (struct rng){ .s = MANY_SEED ^ 1 };
	for (int i = 0; i < MANY_TRIALS; i++) {
		struct pbench_stats_opts so = { .size = sizeof(so), .ci_level = CONFIDENCE };
		struct pbench_welch w = { .size = sizeof(w) };

		for (int k = 0; k < FIXED_PAIRS; k++) {
			a[k] = draw(&r);
			b[k] = draw(&r);
		}
		if (!pbench_stats_welch(a, FIXED_PAIRS, b, FIXED_PAIRS, &so, &w) &&
		    w.p < 1 - CONFIDENCE)
			false_fixed++;
	}
	wilson(false_many, MANY_TRIALS, &lo, &hi);
	wilson(false_fixed, MANY_TRIALS, &lo1, &hi1);
	printf("    false difference over %d more trials: %zu = %.3f%% (95%% interval "
	       "%.3f-%.3f%%), looking after every round\n", MANY_TRIALS, false_many,
	       100.0 * (double)false_many / MANY_TRIALS, lo, hi);
	printf("    one Welch test at a fixed %d pairs, for scale: %zu = %.3f%% (95%% interval "
	       "%.3f-%.3f%%), nominal %.3f%%\n", FIXED_PAIRS, false_fixed,
	       100.0 * (double)false_fixed / MANY_TRIALS, lo1, hi1, 100 * (1 - CONFIDENCE));
	printf("    (simulation took %.1f s)\n", (now_ns() - t0) / 1e9);
	free(a);
	free(b);
	free(pairs);
	return 0;
}

/* ---- (b) and (c): real comparisons -------------------------------------------------------- */

struct spin {
	uint64_t n;
};

static void spin_fn(void *ctx)
{
	uint64_t r = pbench_workload_xor(((struct spin *)ctx)->n, 1);

	pbench_do_not_optimize(r);
}

/* One pbench_compare of a against b; prints a line. Returns the verdict, or a negative error;
 * *secs gets the wall time. */
static int compare_once(const char *label, struct spin *a, struct spin *b, double budget_ms,
			double *secs)
{
	struct pbench_compare_opts o = { .size = sizeof(o) };
	struct pbench_measure_opts mo;
	struct pbench_comparison c = { .size = sizeof(c) };
	char va[48], vb[48];
	double t0;
	int err;

	if (budget_ms > 0) {
		mo = (struct pbench_measure_opts)PBENCH_MEASURE_OPTS_INIT;
		mo.budget_ms = budget_ms;
		o.measure = &mo;
	}
	t0 = now_ns();
	err = pbench_compare(spin_fn, a, spin_fn, b, &o, &c);
	*secs = (now_ns() - t0) / 1e9;
	if (err) {
		printf("    %s: error: %s\n", label, pbench_strerror(err));
		return err;
	}
	pbench_format_value(va, sizeof(va), c.a->mean, c.a->sem, "ns");
	pbench_format_value(vb, sizeof(vb), c.b->mean, c.b->sem, "ns");
	printf("    %s: %-9s ratio a/b %.4f [%.4f, %.4f], %zu pairs, %.2f s  (a %s, b %s)\n", label,
	       pbench_verdict_name(c.verdict), c.ratio, c.ratio_lo, c.ratio_hi, c.pairs, *secs, va,
	       vb);
	pbench_comparison_release(&c);
	return c.verdict;
}

static void real_ab(void)
{
	struct spin a = { AB_ITERS }, b = { (uint64_t)llround((double)AB_ITERS * AB_DIFF) };
	int detected = 0;

	printf("\n(b) A/B, pbench_compare with its defaults: a = xor loop of %llu iterations, "
	       "b = %llu (%.0f%% more work, a/b = %.4f expected, a faster)\n",
	       (unsigned long long)a.n, (unsigned long long)b.n, 100 * (AB_DIFF - 1),
	       (double)a.n / (double)b.n);
	for (int i = 0; i < AB_RUNS; i++) {
		char label[16];
		double secs;
		int v;

		snprintf(label, sizeof(label), "run %d", i + 1);
		v = compare_once(label, &a, &b, 0, &secs);
		detected += v == PBENCH_VERDICT_FASTER && secs < AB_TARGET_S;
	}
	printf("TARGET A/B 2%%: detected as faster in under %.0f s: %d of %d runs -> %s\n",
	       AB_TARGET_S, detected, AB_RUNS, detected == AB_RUNS ? "ok" : "not met");
}

static void real_aa(void)
{
	struct spin a = { AB_ITERS }, b = { AB_ITERS };
	int same = 0;

	printf("\n(c) A/A for real, for reference (not a target: %d runs cannot measure a rate): "
	       "the same function twice, budget %.0f ms\n", AA_RUNS, AA_BUDGET_MS);
	for (int i = 0; i < AA_RUNS; i++) {
		char label[16];
		double secs;

		snprintf(label, sizeof(label), "run %d", i + 1);
		same += compare_once(label, &a, &b, AA_BUDGET_MS, &secs) == PBENCH_VERDICT_SAME;
	}
	printf("    same in %d of %d\n", same, AA_RUNS);
}

int main(void)
{
	printf("bench_compare_stats: pbench_compare's decision rule (Welch at %.1f%%, looked at "
	       "after each ABBA round with p < %g per look; same within %.0f%%; budget %.0f s)\n",
	       100 * CONFIDENCE, (1 - CONFIDENCE) / PB_COMPARE_LOOK_FACTOR, SAME_PCT,
	       BUDGET_MS / 1000);
	printf("simulated samples: %.0f ms log-normal, cv %.0f%%, 1 in %d slower by %.0f-%.0f%%; "
	       "min %d samples a side\n", SAMPLE_MS, 100 * CV, OUTLIER_EVERY, 100 * OUTLIER_LO,
	       100 * OUTLIER_HI, MIN_SAMPLES);
	if (simulate()) {
		fprintf(stderr, "bench_compare_stats: error: out of memory\n");
		return 1;
	}
	real_ab();
	real_aa();
	return 0;
}
