/* SPDX-License-Identifier: MIT */
/*
 * The batch: n calls of a function between two clock reads, unrolled by PB_UNROLL, or each
 * call timed alone with setup_each/teardown_each around it. Below measure.c (the timed
 * samples, the empty batch of the overhead) and measure_mem.c (the counted batches), which
 * both time calls this way.
 */
#include "measure/measure.h"

/* noinline: one copy of the loop serves fn and the empty function alike, so the overhead
 * measured is the overhead paid. */
__attribute__((noinline)) uint64_t pb_batch(pbench_fn fn, void *ctx, uint64_t n)
{
	uint64_t blocks = n / PB_UNROLL, rest = n % PB_UNROLL, t0, t1;

	t0 = pbench_ticks_begin();
	while (blocks--) {
		fn(ctx);
		fn(ctx);
		fn(ctx);
		fn(ctx);
		fn(ctx);
		fn(ctx);
		fn(ctx);
		fn(ctx);
	}
	while (rest--)
		fn(ctx);
	t1 = pbench_ticks_end();
	return t1 - t0;
}

/* noinline for the same reason as pb_batch. */
__attribute__((noinline)) uint64_t pb_batch_each(pbench_fn fn, void *ctx, uint64_t n,
					      pbench_fn setup, pbench_fn teardown)
{
	uint64_t sum = 0;

	while (n--) {
		uint64_t t0, t1;

		/* What setup_each allocates is not the call's: the memory window pauses. */
		if (setup) {
			pb_mem_pause();
			setup(ctx);
			pb_mem_resume();
		}
		t0 = pbench_ticks_begin();
		fn(ctx);
		t1 = pbench_ticks_end();
		if (teardown) {
			pb_mem_pause();
			teardown(ctx);
			pb_mem_resume();
		}
		sum += t1 - t0;
	}
	return sum;
}

uint64_t pb_timed_batch(const struct pb_timing *t, pbench_fn fn, void *ctx, uint64_t n)
{
	if (t->o.setup_each || t->o.teardown_each)
		return pb_batch_each(fn, ctx, n, t->o.setup_each, t->o.teardown_each);
	return pb_batch(fn, ctx, n);
}
