/* SPDX-License-Identifier: MIT */
/*
 * bench_clock: what a timed region costs with pbench's tick readers, next to the same fences
 * written inline and to clock_gettime, all measured in this run.
 *
 * Target (the issue): a ticks-only region, pbench_ticks_begin()+pbench_ticks_end(), costs at
 * most 1.2x a bare inline "lfence;rdtsc;lfence" + "rdtscp;lfence" pair. The program reports
 * and always exits 0: the machines are shared, noisy VMs, and a miss is for a human to read.
 *
 * Method: the four variants run in blocks of BLOCK regions, interleaved round after round
 * (ABCD, BCDA, ...), so a slow period of the host (a noisy neighbour, a frequency change) hits
 * every variant alike instead of one of them. Each block is timed as a whole with
 * CLOCK_MONOTONIC_RAW: its cost of ~30 ns is spread over BLOCK regions, and it is the same
 * outer clock for every variant. The loop around the regions (a compare, an add) is included
 * in every row alike and is not subtracted: it is about one cycle next to tens.
 *
 * Per variant we report the minimum and the median of the per-block costs, and judge the
 * target on the minimum. Noise only ever adds time (an interrupt, a preemption, the host's
 * SMT sibling), so the fastest block is the closest to what the instructions themselves cost,
 * which is what the 1.2x target is about; with interleaving, both minima come from the same
 * conditions. The median is printed alongside so a reader can see how far noise moves it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"

#define BLOCK 1000		/* regions per timed block */
#define ROUNDS 3000		/* blocks per variant */
#define WARMUP_NS 300000000ull	/* interleaved rounds run and discarded first */
#define TARGET 1.2

#if defined(__x86_64__) || defined(__i386__)
#define HAVE_RDTSC 1
#endif

/* Keeps the readings alive: the compiler must produce every value summed into it. */
static volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#ifdef HAVE_RDTSC
/* The same instructions as pbench_ticks_begin/end in lib/src/counters/clock.c, inline and unbranched. */
static inline __attribute__((always_inline)) uint64_t bare_begin(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
	return (uint64_t)hi << 32 | lo;
}

static inline __attribute__((always_inline)) uint64_t bare_end(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi) : : "rcx", "memory");
	return (uint64_t)hi << 32 | lo;
}
#endif

/* Each block function runs n regions and returns its elapsed ns. */
static uint64_t block_region(int n)
{
	uint64_t s = 0, t0 = now_ns();

	for (int i = 0; i < n; i++) {
		uint64_t a = pbench_ticks_begin();

		s += pbench_ticks_end() - a;
	}
	t0 = now_ns() - t0;
	sink += s;
	return t0;
}

#ifdef HAVE_RDTSC
static uint64_t block_bare(int n)
{
	uint64_t s = 0, t0 = now_ns();

	for (int i = 0; i < n; i++) {
		uint64_t a = bare_begin();

		s += bare_end() - a;
	}
	t0 = now_ns() - t0;
	sink += s;
	return t0;
}
#endif

static uint64_t block_gettime(int n)
{
	uint64_t s = 0, t0 = now_ns();

	for (int i = 0; i < n; i++) {
		struct timespec a, b;

		clock_gettime(CLOCK_MONOTONIC_RAW, &a);
		clock_gettime(CLOCK_MONOTONIC_RAW, &b);
		s += (uint64_t)(b.tv_nsec - a.tv_nsec);
	}
	t0 = now_ns() - t0;
	sink += s;
	return t0;
}

static uint64_t block_ticks(int n)
{
	uint64_t s = 0, t0 = now_ns();

	for (int i = 0; i < n; i++)
		s += pbench_ticks();
	t0 = now_ns() - t0;
	sink += s;
	return t0;
}

struct variant {
	const char *name;
	const char *unit;
	uint64_t (*block)(int n);
	double *ns;		/* per-block ns per region, ROUNDS of them */
	struct pbench_summary sum;
};

static struct variant variants[] = {
	{ "(a) pbench_ticks_begin+end", "region", block_region },
#ifdef HAVE_RDTSC
	{ "(b) bare lfence;rdtsc;lfence+rdtscp;lfence", "region", block_bare },
#endif
	{ "(c) 2x clock_gettime(MONOTONIC_RAW)", "region", block_gettime },
	{ "(d) pbench_ticks() alone", "read", block_ticks },
};

#define NR_VARIANTS ((int)PB_ARRAY_SIZE(variants))

/* One round: every variant once, starting with variant `first` so none always goes first. */
static void run_round(int first, int round)
{
	for (int k = 0; k < NR_VARIANTS; k++) {
		struct variant *v = &variants[(first + k) % NR_VARIANTS];
		uint64_t ns = v->block(BLOCK);

		if (round >= 0)
			v->ns[round] = (double)ns / BLOCK;
	}
}

static int print_clock_info(void)
{
	struct pbench_clock_info ci = { .size = sizeof(ci) };
	int err = pbench_clock_info(&ci);

	if (err) {
		fprintf(stderr, "bench_clock: error: pbench_clock_info: %s\n",
			pbench_strerror(err));
		return err;
	}
	printf("clock: %s, %.3f MHz (%s), resolution %.2f ns, invariant tsc %s\n",
	       pbench_clock_kind_name(ci.kind), (double)ci.hz / 1e6,
	       pbench_freq_source_name(ci.freq_source), ci.resolution_ns,
	       ci.invariant_tsc ? "yes" : "no");
	if (ci.freq_source == PBENCH_FREQ_CALIBRATED)
		printf("calibration: %d rounds, last two differ by %.1e (relative)\n", ci.calib_rounds,
		       ci.calib_agreement);
	printf("library's own estimate at init: read %.2f ns, region %.2f ns\n",
	       ci.read_cost_ns, ci.region_cost_ns);
	return 0;
}

static void print_target(void)
{
#ifdef HAVE_RDTSC
	double rmin = variants[0].sum.min / variants[1].sum.min;
	double rmed = variants[0].sum.median / variants[1].sum.median;

	printf("TARGET (a)/(b) <= %.1f: %.3f (min), %.3f (median) -> %s\n", TARGET, rmin, rmed,
	       rmin <= TARGET ? "ok" : "over target");
#else
	printf("TARGET (a)/(b) <= %.1f: not measured (no rdtsc on this architecture)\n", TARGET);
#endif
}

int main(void)
{
	uint64_t t_end;
	int round;

	printf("bench_clock: cost of a timed region, %d variants interleaved, %d blocks x %d\n",
	       NR_VARIANTS, ROUNDS, BLOCK);
	/* First: the library finds its frequency and measures itself before we time anything. */
	if (print_clock_info())
		return 1;
	for (int k = 0; k < NR_VARIANTS; k++) {
		variants[k].ns = calloc(ROUNDS, sizeof(double));
		if (!variants[k].ns) {
			fprintf(stderr, "bench_clock: error: out of memory\n");
			return 1;
		}
	}
	/* Time-based warm-up: caches, branch predictors and the vDSO page settle first. */
	t_end = now_ns() + WARMUP_NS;
	for (round = 0; now_ns() < t_end; round++)
		run_round(round % NR_VARIANTS, -1);
	for (round = 0; round < ROUNDS; round++)
		run_round(round % NR_VARIANTS, round);

	printf("%-44s %10s %10s\n", "", "min ns", "median ns");
	for (int k = 0; k < NR_VARIANTS; k++) {
		struct variant *v = &variants[k];
		int err;

		v->sum.size = sizeof(v->sum);
		err = pbench_stats_summary(v->ns, ROUNDS, NULL, &v->sum);
		if (err) {
			fprintf(stderr, "bench_clock: error: summary: %s\n", pbench_strerror(err));
			return 1;
		}
		printf("%-44s %10.2f %10.2f  per %s\n", v->name, v->sum.min, v->sum.median, v->unit);
	}
	print_target();
	for (int k = 0; k < NR_VARIANTS; k++)
		free(variants[k].ns);
	return 0;
}
