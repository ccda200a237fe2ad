/* SPDX-License-Identifier: MIT */
/*
 * Comparing two functions in this process, pbench_compare() (named compare_fns.c: the
 * `pbench compare` command runs commands against each other, a contest, lib/src/contest/):
 * the same iteration count for both, samples in balanced rounds of
 * four (a, b, b, a or b, a, a, b) so that a drift of the machine falls on both sides alike,
 * and Welch's t-test after each round, until the difference is significant, or bounded within
 * the threshold, or the budget is spent.
 *
 * Which of the two orders a round takes is a coin toss. A fixed a, b, b, a, a, b, b, a...
 * resonates with periodic noise: with 1 ms samples and a 250 Hz timer tick (4 ms, four
 * samples), the tick lands on the same position of every round, so always on the same side.
 * Measured here (KVM, AMD EPYC): the same function against itself came out "faster" or
 * "slower" at p < 0.001 in 9 runs of 10, each time with one side ~1% slower. A random
 * orientation per round keeps every round balanced and makes the tick fall on either side.
 *
 * The test is looked at once per round, not once per sample: every look is a chance of a
 * false "faster", and a round is the smallest unit in which the order is balanced.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "base/base.h"
#include "measure/measure.h"

#define DEFAULT_CONFIDENCE PBENCH_STATS_DEFAULT_CONFIDENCE
#define DEFAULT_SAME_PCT PBENCH_STATS_DEFAULT_SAME_PCT

static int compare_opts_resolve(const struct pbench_compare_opts *in,
				struct pbench_compare_opts *o)
{
	int err;

	memset(o, 0, sizeof(*o));
	if (in) {
		if ((err = pb_check_struct("pbench_compare", "opts", "pbench_compare_opts", in, 0,
					   "PBENCH_COMPARE_OPTS_INIT")))
			return err;
		pb_copy_in(o, sizeof(*o), in);
	}
	if (o->confidence == 0)
		o->confidence = DEFAULT_CONFIDENCE;
	if (o->same_threshold_pct == 0)
		o->same_threshold_pct = DEFAULT_SAME_PCT;
	if (!(o->confidence > 0 && o->confidence < 1))
		return pb_fail(-EINVAL, "pbench_compare(): opts->confidence is %g, not between 0 and "
			       "1 (0: the default, 0.999)", o->confidence);
	if (!(o->same_threshold_pct > 0 && isfinite(o->same_threshold_pct)))
		return pb_fail(-EINVAL, "pbench_compare(): opts->same_threshold_pct is %g, not a "
			       "percentage above 0 (0: the default, 1)", o->same_threshold_pct);
	return 0;
}

/* The iteration count both sides use: the larger of the two calibrations (the faster
 * function's), so that the samples of both last at least the target. */
static int common_count(const struct pb_timing *t, const pbench_fn *fns, void *const *ctxs,
			uint64_t slowest_first, uint64_t *n)
{
	uint64_t na, nb;
	int err;

	*n = t->o.iterations;
	if (*n && (err = pb_check_count(*n, (double)slowest_first)))
		return err;
	if ((double)slowest_first > t->budget_ticks) {
		/* One call does not fit the budget: no warm-up, one call per sample. */
		*n = *n ? *n : 1;
		return 0;
	}
	pb_warmup(t, fns, ctxs, 2);
	if (*n)
		return 0;
	err = pb_calibrate(t, fns[0], ctxs[0], &na);
	if (!err)
		err = pb_calibrate(t, fns[1], ctxs[1], &nb);
	if (err)
		return err;
	*n = na > nb ? na : nb;
	return 0;
}

int pb_compare_decide(double confidence, double same_threshold_pct,
		      const struct pbench_welch *w)
{
	/* The test is looked at after every round, and every look is another chance of a false
	 * difference: at p < 0.001 per look, 0.565% of 20000 simulated A/A comparisons said
	 * faster or slower (bench/bench_compare_stats.c). The sequential rule's stricter
	 * boundary brings the whole comparison back under 1 - confidence. */
	int v = pbench_stats_verdict(w, confidence, same_threshold_pct, PBENCH_VERDICT_SEQUENTIAL);

	return v == PBENCH_VERDICT_UNDECIDED ? 0 : v;
}

/* Welch on what both sides have; 1 when w was filled, 0 when the samples do not allow it yet
 * (fewer than two, no variance at all), or a negative error. */
static int welch(struct pbench_result *const *res, size_t nr, double confidence,
		 struct pbench_welch *w)
{
	struct pbench_stats_opts so = { .size = sizeof(so), .ci_level = confidence };
	int err;

	if (nr < 2)
		return 0;
	w->size = sizeof(*w);
	err = pbench_stats_welch(res[0]->x, nr, res[1]->x, nr, &so, w);
	if (err == -EINVAL)
		return 0;
	return err ? err : 1;
}

/* Sample in balanced rounds until a verdict; *pairs gets the samples of each side. */
static int abba(const struct pb_timing *t, const struct pbench_compare_opts *o,
		struct pb_sampling *runs, struct pbench_welch *w, int *have_welch, size_t *pairs)
{
	size_t min = t->o.min_samples > 2 ? t->o.min_samples : 2;
	struct pbench_result *res[2] = { runs[0].res, runs[1].res };
	uint64_t s0 = pbench_ticks(), rng = s0 | 1;
	int verdict = 0, err, flip = 0;

	*pairs = 0;
	while (!verdict) {
		uint64_t l0 = pbench_ticks(), l1;
		int first;

		if (*pairs % 2 == 0) {
			/* xorshift64: a new round, a b b a or b a a b. */
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			flip = rng >> 63;
		}
		first = (int)(*pairs % 2) ^ flip;

		err = pb_run_sample(&runs[first]);
		if (!err)
			err = pb_run_sample(&runs[!first]);
		if (err)
			return err;
		++*pairs;
		l1 = pbench_ticks();
		if (*pairs % 2 == 0 && *pairs >= min) {
			err = welch(res, *pairs, o->confidence, w);
			if (err < 0)
				return err;
			*have_welch = err;
			if (err && (verdict = pb_compare_decide(o->confidence,
								 o->same_threshold_pct, w)))
				break;
		}
		if (*pairs >= t->o.max_samples ||
		    (double)(l1 - s0) + (double)(l1 - l0) > t->budget_ticks) {
			/* One last look with everything taken, then undecided. */
			err = welch(res, *pairs, o->confidence, w);
			if (err < 0)
				return err;
			*have_welch = err;
			verdict = err ? pb_compare_decide(o->confidence, o->same_threshold_pct,
							    w) : 0;
			if (!verdict)
				verdict = PBENCH_VERDICT_UNDECIDED;
		}
	}
	return verdict;
}

/* The details behind a comparison's pointers: one block, freed by pbench_comparison_release(). */
struct details {
	struct pbench_welch welch;
	struct pbench_summary a, b;
	struct pbench_listing *listing[2];
	struct pbench_mem_comparison mem_bytes, mem_allocs;
};

/* With count_memory: both sides on bytes and allocations per call, or why not. */
static int fill_mem(struct pbench_comparison *c, struct details *d,
		    const struct pbench_compare_opts *o, struct pbench_result *const *res)
{
	int err;

	c->mem_status = res[0]->mem_status;
	c->mem_reason = pbench_result_mem_reason(res[0]);
	if (c->mem_status != PBENCH_MEM_COUNTED)
		return 0;
	d->mem_bytes.size = sizeof(d->mem_bytes);
	d->mem_allocs.size = sizeof(d->mem_allocs);
	err = pbench_mem_compare(res[0], res[1], PBENCH_MEM_BYTES, o->confidence,
				 o->same_threshold_pct, &d->mem_bytes);
	if (!err)
		err = pbench_mem_compare(res[0], res[1], PBENCH_MEM_ALLOCS, o->confidence,
					 o->same_threshold_pct, &d->mem_allocs);
	if (err)
		return err;
	c->mem_bytes = &d->mem_bytes;
	c->mem_allocs = &d->mem_allocs;
	return 0;
}

/* The direction every ratio is shown in: b against a (Welch's test of b against a for the
 * interval, exact where inverting a/b's would not be), and the verdict said of b. */
static void b_against_a(struct pbench_comparison *c, const struct pbench_compare_opts *o,
			struct pbench_result *const *res, size_t pairs, int have_welch)
{
	struct pbench_stats_opts so = { .size = sizeof(so), .ci_level = o->confidence };
	struct pbench_welch wb = { .size = sizeof(wb) };

	c->ratio_b_to_a = c->a->mean > 0 ? c->b->mean / c->a->mean : NAN;
	c->ratio_b_to_a_lo = c->ratio_b_to_a_hi = NAN;
	if (have_welch && !pbench_stats_welch(res[1]->x, pairs, res[0]->x, pairs, &so, &wb)) {
		c->ratio_b_to_a = wb.ratio;
		c->ratio_b_to_a_lo = wb.ratio_lo;
		c->ratio_b_to_a_hi = wb.ratio_hi;
	}
	c->verdict_b = c->verdict == PBENCH_VERDICT_FASTER ? PBENCH_VERDICT_SLOWER :
		       c->verdict == PBENCH_VERDICT_SLOWER ? PBENCH_VERDICT_FASTER : c->verdict;
}

static int fill(struct pbench_comparison *out, const struct pbench_compare_opts *o, int verdict,
		size_t pairs, struct pbench_result *const *res, const struct pbench_welch *w,
		int have_welch)
{
	struct pbench_comparison c = { .size = sizeof(c), .verdict = verdict, .pairs = pairs,
				       .confidence = o->confidence,
				       .same_threshold_pct = o->same_threshold_pct };
	struct details *d = calloc(1, sizeof(*d));
	size_t size = out->size;
	int err;

	if (!d)
		return -ENOMEM;
	d->a.size = sizeof(d->a);
	d->b.size = sizeof(d->b);
	err = pbench_stats_summary(res[0]->x, pairs, NULL, &d->a);
	if (!err)
		err = pbench_stats_summary(res[1]->x, pairs, NULL, &d->b);
	if (!err)
		err = fill_mem(&c, d, o, res);
	if (err) {
		free(d);
		return err;
	}
	c.ratio = d->b.mean > 0 ? d->a.mean / d->b.mean : NAN;
	c.ratio_lo = c.ratio_hi = NAN;	/* no interval without a test */
	if (have_welch) {
		d->welch = *w;
		c.welch = &d->welch;
		c.ratio = w->ratio;
		c.ratio_lo = w->ratio_lo;
		c.ratio_hi = w->ratio_hi;
	}
	c.a = &d->a;
	c.b = &d->b;
	b_against_a(&c, o, res, pairs, have_welch);
	c.priv = d;
	for (int i = 0; i < 2; i++) {
		d->listing[i] = res[i]->listing;	/* the block owns them now */
		res[i]->listing = NULL;
	}
	c.listing_a = d->listing[0];
	c.listing_b = d->listing[1];
	if (size < offsetof(struct pbench_comparison, priv) + sizeof(c.priv)) {
		/* an older caller's struct has no room for the details */
		pbench_listing_free(d->listing[0]);
		pbench_listing_free(d->listing[1]);
		free(d);
		c.welch = NULL;
		c.a = c.b = NULL;
		c.listing_a = c.listing_b = NULL;
		c.mem_bytes = c.mem_allocs = NULL;
	}
	pb_copy_out(out, &c, sizeof(c));
	return 0;
}

/* A comparison is usable only when the caller's struct reaches both summaries: 0, or -EINVAL
 * with the detail. fn: the public function. */
int pb_comparison_check(const struct pbench_comparison *c, const char *fn)
{
	int err = pb_check_struct(fn, "c", "pbench_comparison", c,
				  offsetof(struct pbench_comparison, b) + sizeof(c->b), NULL);

	if (!err && (!c->a || !c->b))
		err = pb_fail(-EINVAL, "%s(): c has no summaries (released, or not filled by "
			      "pbench_compare())", fn);
	return err;
}

void pbench_comparison_release(struct pbench_comparison *c)
{
	struct details *d;

	if (!c || c->size < offsetof(struct pbench_comparison, priv) + sizeof(c->priv))
		return;
	d = c->priv;
	if (d) {
		pbench_listing_free(d->listing[0]);
		pbench_listing_free(d->listing[1]);
	}
	free(c->priv);
	c->priv = NULL;
	c->welch = NULL;
	c->a = c->b = NULL;
	if (c->size >= offsetof(struct pbench_comparison, listing_b) + sizeof(c->listing_b))
		c->listing_a = c->listing_b = NULL;
	if (c->size >= offsetof(struct pbench_comparison, mem_allocs) + sizeof(c->mem_allocs))
		c->mem_bytes = c->mem_allocs = NULL;
}

/* After the samples of both sides: memory in untimed batches of the same count, in
 * alternation as the samples were; then each side's summary, and its code as pbench_measure
 * keeps it: asked for, or called for by a side that looks optimized away or unoptimized (the
 * flags are worked out for that only). */
static int compare_end(const struct pb_timing *t, struct pbench_result *const *res,
		       const pbench_fn *fns, void *const *ctxs)
{
	int err = 0;

	for (size_t i = 0; i < pb_mem_batches(res[0], t) && !err; i++) {
		err = pb_mem_batch(res[0], t, fns[0], ctxs[0]);
		if (!err)
			err = pb_mem_batch(res[1], t, fns[1], ctxs[1]);
	}
	for (int i = 0; i < 2 && !err; i++) {
		err = pb_result_finish(res[i], t);
		if (!err)
			err = pb_result_look(res[i], fns[i], &t->o);
	}
	return err;
}

int pbench_compare(pbench_fn a, void *ctx_a, pbench_fn b, void *ctx_b,
		   const struct pbench_compare_opts *opts, struct pbench_comparison *out)
{
	struct pbench_result *res[2] = { NULL, NULL };
	struct pbench_welch w = { .size = sizeof(w) };
	pbench_fn fns[2] = { a, b };
	void *ctxs[2] = { ctx_a, ctx_b };
	struct pbench_compare_opts o;
	uint64_t n, first_a, first_b;
	int err, verdict, have_welch = 0;
	struct pb_sampling runs[2];
	struct pb_timing t;
	size_t pairs;

	pb_fail_clear();
	if (!a || !b)
		return pb_fail(-EINVAL, "%s(): %s is NULL", __func__, !a ? "a" : "b");
	if ((err = PB_CHECK_STRUCT(out, pbench_comparison, 0, NULL)))
		return err;
	err = compare_opts_resolve(opts, &o);
	if (err)
		return err;
	/* No measure options: the measurement defaults, so callers set only what they need. */
	err = pb_timing_init(&t, o.measure, __func__, "opts->measure");
	if (err)
		return err;
	if (t.o.iterations && (err = pb_check_count(t.o.iterations, 0)))
		return err;
	/* Before anything is timed: two functions that disagree are not compared. */
	if (o.check && o.check(ctx_a, ctx_b))
		return pb_fail(-PBENCH_EDIFFERENT, "the compared functions give different results: "
			       "opts->check returned non-zero before anything was timed");

	first_a = pb_call_batch(&t, a, ctx_a, 1);
	first_b = pb_call_batch(&t, b, ctx_b, 1);
	err = common_count(&t, fns, ctxs, first_a > first_b ? first_a : first_b, &n);
	if (err)
		return err;
	for (int i = 0; i < 2; i++) {
		res[i] = pb_result_new(0, n, t.o.keep_overhead);
		if (!res[i]) {
			err = -ENOMEM;
			goto out_free_results;
		}
		pb_result_keep_settings(res[i], &t.o);
		pb_result_mem_open(res[i], &t);
		runs[i] = (struct pb_sampling){ .t = &t, .fn = fns[i], .ctx = ctxs[i], .n = n,
					   .res = res[i] };
	}
	/* One empty batch serves both: the same count, the same loop. */
	err = pb_overhead(&t, res[0], n, NULL, NULL);
	if (err)
		goto out_free_results;
	res[1]->overhead_ticks = res[0]->overhead_ticks;
	res[1]->overhead_sd_ticks = res[0]->overhead_sd_ticks;
	pb_setup_per_batch(&t, res[0]);	/* said once: both sides have the same batch */
	res[1]->flags |= res[0]->flags & PBENCH_RESULT_SETUP_PER_BATCH;

	verdict = abba(&t, &o, runs, &w, &have_welch, &pairs);
	if (verdict < 0) {
		err = verdict;
		goto out_free_results;
	}
	err = compare_end(&t, res, fns, ctxs);
	if (!err)
		err = fill(out, &o, verdict, pairs, res, &w, have_welch);
out_free_results:
	pbench_result_free(res[1]);
	pbench_result_free(res[0]);
	return err;
}
