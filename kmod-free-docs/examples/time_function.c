/* SPDX-License-Identifier: MIT */
/*
 * time_function.c - time one function with pbench_measure(): how long does summing 4096
 * integers take?
 *
 *   cc -O2 time_function.c $(pkg-config --cflags --libs pbench) -o time_function
 *   ./time_function
 *
 * pbench calls the function once untimed, warms it up, picks how many calls make one sample,
 * subtracts the cost of the calling loop, and takes samples until the standard error of the
 * mean is 1% of the mean or the time budget is spent. Exit status: 0 measured, 1 an error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <pbench.h>

#define N 4096

struct sum_ctx {
	uint32_t data[N];
	uint64_t sum;
};

/* The measured function: everything it needs comes through ctx, prepared beforehand. */
static void sum_array(void *p)
{
	struct sum_ctx *c = p;
	uint64_t s = 0;

	for (size_t i = 0; i < N; i++)
		s += c->data[i];
	/* The result is stored and marked as used: the compiler cannot drop the loop. */
	pbench_do_not_optimize(s);
	c->sum = s;
}

int main(void)
{
	struct pbench_measure_opts opts = PBENCH_MEASURE_OPTS_INIT;	/* size and defaults */
	const struct pbench_summary *s;
	struct pbench_result *r;
	struct sum_ctx *ctx;
	unsigned flags;
	int err;

	ctx = malloc(sizeof(*ctx));
	if (!ctx) {
		perror("time_function: malloc");
		return 1;
	}
	for (size_t i = 0; i < N; i++)
		ctx->data[i] = (uint32_t)(i * 2654435761u);

	/* Short, for an example that runs in the test suite; the defaults are a 1.2 s warm-up
	 * and a 10 s budget. */
	opts.warmup_ms = 100;
	opts.budget_ms = 500;
	err = pbench_measure(&r, sum_array, ctx, &opts);
	if (err) {
		fprintf(stderr, "time_function: %s\n", pbench_strerror(err));
		free(ctx);
		return 1;
	}

	s = pbench_result_summary(r);
	printf("sum of %d integers: %.1f ns +- %.1f ns per call (mean +- standard error)\n", N,
	       s->mean, s->sem);
	printf("  median %.1f ns, min %.1f ns, cv %.2f%%\n", s->median, s->min, s->cv_pct);
	printf("  %zu samples of %" PRIu64 " calls, stopped by: %s\n",
	       pbench_result_nr_samples(r), pbench_result_iterations(r),
	       pbench_stop_rule_name(pbench_result_stop_rule(r)));
	printf("  loop overhead subtracted: %.2f ns per call\n", pbench_result_overhead_ns(r));

	/* The flags say when a number should not be trusted as it stands. */
	flags = pbench_result_flags(r);
	if (flags & PBENCH_RESULT_UNOPTIMIZED)
		printf("  note: built without optimization (-O2 gives the numbers that matter)\n");
	if (flags & PBENCH_RESULT_SUSPICIOUS)
		printf("  note: suspiciously fast: was the work optimized away?\n");
	if (flags & PBENCH_RESULT_NOISY)
		printf("  note: context switches or migrations during some samples\n");

	pbench_result_free(r);
	free(ctx);
	return 0;
}
