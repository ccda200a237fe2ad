/* SPDX-License-Identifier: MIT */
/*
 * Memory per call of a measured function: batches of the same calls as a timed sample, counted
 * by the allocator shim (mem.c) and summarized per call, and two results compared on them
 * with the statistics time is compared with (Welch at the confidence, the verdict rule of
 * pbench_stats_verdict). Counts are integers: when every batch has the same, the figure is
 * exact, and is said so rather than given an interval of width 0.
 *
 * Why batches of their own, after the timed samples, rather than counting inside them: with
 * counting on, each allocation also asks the allocator for its block's usable size (for the
 * peak) and adds to the counts, some ns per malloc and free (bench/bench_mem.c measured a
 * malloc(16) and free at 12 ns without, 20 ns with). Inside the timed samples that would
 * change the time of an allocating function by far more than its error. The counted
 * batches are untimed, so the time figures are those of counting off.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "base/base.h"
#include "measure/measure.h"

size_t pb_mem_batches(const struct pbench_result *r, const struct pb_timing *t)
{
	size_t k = t->o.min_samples > 2 ? t->o.min_samples : 2;

	if (r->mem_status != PBENCH_MEM_COUNTED)
		return 0;
	/* As many as the samples at least taken, never more than were taken: a call longer
	 * than the budget is counted once. */
	return k < r->nr ? k : r->nr;
}

int pb_mem_batch(struct pbench_result *r, const struct pb_timing *t, pbench_fn fn, void *ctx)
{
	struct pb_mem_counts *m;

	if (r->mem_nr == r->mem_alloc) {
		size_t want = r->mem_alloc ? 2 * r->mem_alloc : 16;

		m = realloc(r->mem, want * sizeof(*m));
		if (!m)
			return -ENOMEM;
		r->mem = m;
		r->mem_alloc = want;
	}
	if (t->o.setup)
		t->o.setup(ctx);
	/* The window holds the calls only: setup and teardown are not the function's. */
	pb_mem_begin(&r->mem[r->mem_nr]);
	pb_timed_batch(t, fn, ctx, r->iterations);
	pb_mem_end();
	if (t->o.teardown)
		t->o.teardown(ctx);
	r->mem_nr++;
	return 0;
}

int pbench_result_mem_status(const struct pbench_result *r)
{
	return r ? r->mem_status : PBENCH_MEM_OFF;
}

const char *pbench_result_mem_reason(const struct pbench_result *r)
{
	return r && r->mem_status != PBENCH_MEM_COUNTED ? r->mem_reason : NULL;
}

size_t pbench_result_mem_nr_batches(const struct pbench_result *r)
{
	return r && r->mem_status == PBENCH_MEM_COUNTED ? r->mem_nr : 0;
}

int pbench_result_mem(const struct pbench_result *r, size_t i, struct pbench_mem *out)
{
	struct pbench_mem m = { .size = sizeof(m) };
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_mem, 0, NULL)))
		return err;
	if (!r)
		return pb_fail(-EINVAL, "%s(): r is NULL", __func__);
	if (r->mem_status != PBENCH_MEM_COUNTED)
		return -ENODATA;
	if (i >= r->mem_nr)
		return -EINVAL;
	m.allocs = r->mem[i].allocs;
	m.frees = r->mem[i].frees;
	m.bytes = r->mem[i].bytes;
	m.peak_bytes = r->mem[i].peak;
	pb_copy_out(out, &m, sizeof(m));
	return 0;
}

static double figure(const struct pbench_result *r, size_t i, int kind)
{
	const struct pb_mem_counts *c = &r->mem[i];
	double n = (double)r->iterations;

	switch (kind) {
	case PBENCH_MEM_ALLOCS:
		return (double)c->allocs / n;
	case PBENCH_MEM_FREES:
		return (double)c->frees / n;
	case PBENCH_MEM_BYTES:
		return (double)c->bytes / n;
	}
	return (double)c->peak;
}

/* The figure of every sample (allocated: the caller frees), and whether they are all equal. */
static int figures(const struct pbench_result *r, int kind, double **out, int *exact)
{
	double *x;

	if (!r || kind < PBENCH_MEM_ALLOCS || kind > PBENCH_MEM_PEAK)
		return -EINVAL;
	if (r->mem_status != PBENCH_MEM_COUNTED || !r->mem_nr)
		return -ENODATA;
	x = malloc(r->mem_nr * sizeof(*x));
	if (!x)
		return -ENOMEM;
	*exact = 1;
	for (size_t i = 0; i < r->mem_nr; i++) {
		x[i] = figure(r, i, kind);
		if (x[i] != x[0])
			*exact = 0;
	}
	*out = x;
	return 0;
}

int pbench_result_mem_summary(const struct pbench_result *r, int kind, struct pbench_summary *out,
			      int *exact)
{
	int err, ex;
	double *x;

	if (!out)
		return -EINVAL;
	err = figures(r, kind, &x, &ex);
	if (err)
		return err;
	err = pbench_stats_summary(x, r->mem_nr, NULL, out);
	free(x);
	if (exact)
		*exact = ex;
	return err;
}

int pbench_mem_compare(const struct pbench_result *a, const struct pbench_result *b, int kind,
		       double confidence, double same_threshold_pct,
		       struct pbench_mem_comparison *out)
{
	double *xa = NULL, *xb = NULL;
	int err, exact;

	if ((err = PB_CHECK_STRUCT(out, pbench_mem_comparison, 0, NULL)))
		return err;
	err = figures(a, kind, &xa, &exact);
	if (!err)
		err = figures(b, kind, &xb, &exact);
	if (!err)
		err = pb_mem_compare_x(xa, a->mem_nr, xb, b->mem_nr, kind, confidence,
				       same_threshold_pct, out);
	free(xb);
	free(xa);
	return err;
}
