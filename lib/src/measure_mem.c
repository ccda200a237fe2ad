/* SPDX-License-Identifier: MIT */
/*
 * Memory per call of a measured function: the counts each sample's window got from the
 * allocator shim (mem.c, measure.c), summarized per call, and two results compared on them
 * with the statistics time is compared with (Welch at the confidence, the verdict rule of
 * pbench_stats_verdict). Counts are integers: when every sample has the same, the figure is
 * exact, and is said so rather than given an interval of width 0.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "measure.h"

int pbench_result_mem_status(const struct pbench_result *r)
{
	return r ? r->mem_status : PBENCH_MEM_OFF;
}

const char *pbench_result_mem_reason(const struct pbench_result *r)
{
	return r && r->mem_status != PBENCH_MEM_COUNTED ? r->mem_reason : NULL;
}

int pbench_result_mem(const struct pbench_result *r, size_t i, struct pbench_mem *out)
{
	struct pbench_mem m = { .size = sizeof(m) };

	if (!r || !out || !out->size || i >= r->nr)
		return -EINVAL;
	if (r->mem_status != PBENCH_MEM_COUNTED)
		return -ENODATA;
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
	if (r->mem_status != PBENCH_MEM_COUNTED || !r->nr)
		return -ENODATA;
	x = malloc(r->nr * sizeof(*x));
	if (!x)
		return -ENOMEM;
	*exact = 1;
	for (size_t i = 0; i < r->nr; i++) {
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
	err = pbench_stats_summary(x, r->nr, NULL, out);
	free(x);
	if (exact)
		*exact = ex;
	return err;
}

/* Both sides exact: the ratio is known, the verdict is a comparison of two numbers. */
static void compare_exact(struct pbench_mem_comparison *c, double same_pct)
{
	c->ratio_lo = c->ratio_hi = c->ratio;
	c->p = NAN;
	if (c->a == c->b || (c->a > 0 && fabs(c->ratio - 1) * 100 <= same_pct))
		c->verdict = PBENCH_VERDICT_SAME;
	else
		c->verdict = c->a < c->b ? PBENCH_VERDICT_FASTER : PBENCH_VERDICT_SLOWER;
}

static int compare_welch(struct pbench_mem_comparison *c, const double *xa, size_t na,
			 const double *xb, size_t nb, double same_pct)
{
	struct pbench_stats_opts so = { .size = sizeof(so), .ci_level = c->confidence };
	struct pbench_welch w = { .size = sizeof(w) };
	int err = pbench_stats_welch(xa, na, xb, nb, &so, &w);

	if (err == -EINVAL) {		/* fewer than two samples a side */
		c->verdict = PBENCH_VERDICT_UNDECIDED;
		c->ratio_lo = c->ratio_hi = c->p = NAN;
		return 0;
	}
	if (err)
		return err;
	c->p = w.p;
	c->verdict = pbench_stats_verdict(&w, c->confidence, same_pct, 0);
	/* Welch's ratio is a / b; ours is b / a: the interval of b - a over a. */
	if (c->a > 0) {
		c->ratio_lo = 1 - w.diff_hi / c->a;
		c->ratio_hi = 1 - w.diff_lo / c->a;
		if (c->ratio_lo < 0)
			c->ratio_lo = 0;
	} else {
		c->ratio_lo = c->ratio_hi = NAN;
	}
	return 0;
}

int pbench_mem_compare(const struct pbench_result *a, const struct pbench_result *b, int kind,
		       double confidence, double same_threshold_pct,
		       struct pbench_mem_comparison *out)
{
	struct pbench_mem_comparison c = { .size = sizeof(c), .kind = kind,
					   .confidence = confidence };
	struct pbench_summary sa = { .size = sizeof(sa) }, sb = { .size = sizeof(sb) };
	double *xa = NULL, *xb = NULL;
	int err;

	if (!out || !out->size || !(confidence > 0 && confidence < 1) ||
	    !(same_threshold_pct >= 0))
		return -EINVAL;
	err = figures(a, kind, &xa, &c.a_exact);
	if (!err)
		err = figures(b, kind, &xb, &c.b_exact);
	if (!err)
		err = pbench_stats_summary(xa, a->nr, NULL, &sa);
	if (!err)
		err = pbench_stats_summary(xb, b->nr, NULL, &sb);
	if (err)
		goto out_free;
	c.a = sa.mean;
	c.b = sb.mean;
	c.ratio = c.a > 0 ? c.b / c.a : NAN;
	if (c.a_exact && c.b_exact)
		compare_exact(&c, same_threshold_pct);
	else
		err = compare_welch(&c, xa, a->nr, xb, b->nr, same_threshold_pct);
	if (!err)
		pb_copy_out(out, &c, sizeof(c));
out_free:
	free(xb);
	free(xa);
	return err;
}
