/* SPDX-License-Identifier: MIT */
/*
 * The memory walk: one cycle through every line (no short loop a cache could hold), and each
 * step a miss over a buffer past the last-level cache (a sequential or cached walk would not
 * be many times slower per step than one that fits in L1).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>

#include "pbench.h"
#include "testutil.h"

Test(walk, visits_every_line_once_in_one_cycle)
{
	struct pbench_walk *w;
	size_t n = (1 << 20) / 64;
	unsigned char *seen = calloc(n, 1);
	uint64_t idx = 0;

	cr_assert(seen);
	cr_assert_eq(pbench_walk_new(&w, 1 << 20, 42), 0);
	cr_assert_eq(pbench_walk_bytes(w), (size_t)1 << 20);
	for (size_t i = 0; i < n; i++) {
		idx = pbench_walk_run(w, 1);
		cr_assert_lt(idx, n);
		cr_assert_eq(seen[idx], 0, "line %lu reached twice after %zu steps",
			     (unsigned long)idx, i + 1);
		seen[idx] = 1;
	}
	/* n steps from line 0 come back to it, and not before. */
	cr_assert_eq(idx, 0);
	free(seen);
	pbench_walk_free(w);
}

Test(walk, different_seeds_walk_differently)
{
	struct pbench_walk *a, *b;
	int same = 0;

	cr_assert_eq(pbench_walk_new(&a, 1 << 16, 1), 0);
	cr_assert_eq(pbench_walk_new(&b, 1 << 16, 2), 0);
	for (int i = 0; i < 100; i++)
		same += pbench_walk_run(a, 1) == pbench_walk_run(b, 1);
	cr_assert_lt(same, 10);
	pbench_walk_free(a);
	pbench_walk_free(b);
}

static double ns_per_step(size_t bytes, uint64_t steps)
{
	struct pbench_walk *w;
	double best = 1e30;

	cr_assert_eq(pbench_walk_new(&w, bytes, 7), 0);
	pbench_walk_run(w, steps);	/* warm: caches, TLB */
	for (int rep = 0; rep < 5; rep++) {
		uint64_t t0 = pbench_ticks_begin(), r = pbench_walk_run(w, steps);
		double ns = pbench_ticks_to_ns_f(pbench_ticks_end() - t0);

		pbench_do_not_optimize(&r);
		if (ns / (double)steps < best)
			best = ns / (double)steps;
	}
	pbench_walk_free(w);
	return best;
}

Test(walk, misses_the_caches_past_the_last_level)
{
	size_t big = pbench_walk_default_bytes();
	double small = ns_per_step(16 << 10, 1 << 20), large = ns_per_step(big, 1 << 20);

	cr_log_info("memory walk: %.2f ns a step over 16 KiB, %.1f ns over %zu MiB (%.0fx)\n",
		    small, large, big >> 20, large / small);
	cr_assert_geq(big, (size_t)64 << 20);
	cr_assert_gt(large / small, 10.0, "%.2f ns vs %.2f ns a step: the walk does not miss",
		     large, small);
}

Test(walk, bad_sizes)
{
	struct pbench_walk *w = (void *)1;

	cr_assert_eq(pbench_walk_new(NULL, 1 << 20, 0), -EINVAL);
	cr_assert_eq(pbench_walk_new(&w, 64, 0), -EINVAL);
	cr_assert_null(w);
	cr_assert_eq(pbench_walk_bytes(NULL), 0);
	pbench_walk_free(NULL);
}
