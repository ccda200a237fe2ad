/* SPDX-License-Identifier: MIT */
/*
 * bench_mem: what counting memory per call (count_memory, the allocator shim) does to the time
 * figures. The same function is measured with counting off and on, in alternating rounds of
 * one run (off, on, on, off, ...: a slow stretch of the host falls on both), each measurement
 * giving its median ns per call, and the ratio of on over off is given with its 99.9%
 * interval (Welch on the rounds' medians; the columns are their means).
 *
 * Three functions: one that allocates nothing, one that mallocs and frees three blocks of 100
 * bytes a call, and one that mallocs and frees one block of 16 bytes (the cheapest
 * allocation glibc has). pbench counts in untimed batches after the timed samples, so the
 * ratios should be 1 within their interval. A second part times the allocating functions
 * with the counting window open during the timed samples (a setup opens it, a teardown
 * closes it): there each allocation also asks the allocator its block's usable size and adds
 * to the counts, which is why pbench does not count inside the samples. With counting off,
 * each allocation pays one load and a branch of the shim over the C library's malloc, in
 * both columns alike.
 *
 * The program links the shim (-lpbench-mem, the Makefile) and reports; it exits 0 when it
 * could measure, 1 when it could not (the shim not interposed: the reason is printed).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <pbench.h>

#include "measure/measure.h"
#include "../shim/memshim.h"

#define ROUNDS 8

static void *(*volatile do_malloc)(size_t) = malloc;

__attribute__((noinline)) static void none(void *ctx)
{
	uint64_t x = (uint64_t)(uintptr_t)ctx;

	for (int i = 0; i < 40; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	pbench_do_not_optimize(x);
}

__attribute__((noinline)) static void three(void *ctx)
{
	void *p[3];

	(void)ctx;
	for (int i = 0; i < 3; i++)
		p[i] = do_malloc(100);
	pbench_do_not_optimize(p[0]);
	for (int i = 0; i < 3; i++)
		free(p[i]);
}

__attribute__((noinline)) static void one(void *ctx)
{
	(void)ctx;
	free(do_malloc(16));
}

/* The window of the library's counted batches, opened by setup and closed by teardown, so
 * that the timed batch runs inside it: what counting inside the timed samples would cost. */
static struct pb_mem_counts window;

static void window_open(void *ctx)
{
	(void)ctx;
	pb_mem_begin(&window);
}

static void window_close(void *ctx)
{
	(void)ctx;
	pb_mem_end();
}

static int measure(pbench_fn fn, int count, double *mean, const char **reason)
{
	struct pbench_measure_opts o = PBENCH_MEASURE_OPTS_INIT;

	if (count == 2) {
		o.setup = window_open;
		o.teardown = window_close;
		count = 1;
	}
	struct pbench_result *r;
	int err;

	o.warmup_ms = 50;
	o.budget_ms = 250;
	o.count_memory = count;
	err = pbench_measure(&r, fn, NULL, &o);
	if (err)
		return err;
	*mean = pbench_result_summary(r)->median;	/* a preemption moves the mean */
	if (count && pbench_result_mem_status(r) != PBENCH_MEM_COUNTED) {
		*reason = pbench_result_mem_reason(r);
		err = 1;
	}
	pbench_result_free(r);
	return err;
}

static int bench(const char *name, pbench_fn fn, int mode)
{
	struct pbench_stats_opts so = { .size = sizeof(so), .ci_level = 0.999 };
	struct pbench_welch w = { .size = sizeof(w) };
	double off[ROUNDS], on[ROUNDS], moff = 0, mon = 0;
	int on_mode = mode;
	const char *reason = NULL;
	int err;

	for (int i = 0; i < ROUNDS; i++) {
		int first = i % 4 == 0 || i % 4 == 3;	/* off on, on off, ... */

		for (int k = 0; k < 2; k++) {
			int count = k ^ !first;

			err = measure(fn, count ? on_mode : 0, count ? &on[i] : &off[i], &reason);
			if (err) {
				fprintf(stderr, "bench_mem: %s\n", reason ? reason :
					pbench_strerror(err));
				return 1;
			}
		}
		moff += off[i] / ROUNDS;
		mon += on[i] / ROUNDS;
	}
	err = pbench_stats_welch(on, ROUNDS, off, ROUNDS, &so, &w);
	if (err) {
		printf("  %-34s off %8.2f ns  on %8.2f ns  ratio %.3f (no interval: %s)\n", name,
		       moff, mon, mon / moff, pbench_strerror(err));
		return 0;
	}
	printf("  %-34s off %8.2f ns  on %8.2f ns  ratio %.3f (99.9%% interval %.3f .. %.3f)\n",
	       name, moff, mon, w.ratio, w.ratio_lo, w.ratio_hi);
	return 0;
}

int main(void)
{
	printf("bench_mem: time per call with memory counting off and on (count_memory), "
	       "%d alternating rounds of each, ratio on/off\n", ROUNDS);
	if (bench("no allocation", none, 1) || bench("3 x malloc(100) + free", three, 1) ||
	    bench("1 x malloc(16) + free", one, 1))
		return 1;
	printf("the same, with the counting window open during the timed samples (what counting "
	       "inside them would cost; pbench counts in untimed batches instead):\n");
	if (bench("3 x malloc(100) + free", three, 2) || bench("1 x malloc(16) + free", one, 2))
		return 1;
	return 0;
}
