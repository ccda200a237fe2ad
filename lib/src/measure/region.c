/* SPDX-License-Identifier: MIT */
/*
 * The region API: timing code that cannot be wrapped in a callback. Each begin/end pair is
 * one sample of a fixed iteration count, with the same clock reads, counters and noise
 * snapshot as pbench_measure(), in the same kind of result.
 *
 * begin() and end() never allocate while the preallocated samples last; end() doubles the
 * arrays when they are full, after the pair's clock and counters have been read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "counters/counts.h"
#include "measure/measure.h"

struct pbench_region {
	struct pb_timing t;		/* the defaults: resolution for the flags */
	struct pbench_result *res;	/* always has room for the next sample */
	struct pbench_counters *events;
	struct pb_probe probe;
	uint64_t t0;
	int inside;			/* between begin and end */
	int cerr;			/* the counters' start failed for this pair */
	int err;			/* first error; pbench_region_result returns it */
};

/* The cost of an empty begin/end pair, measured as the regions are: its median is what a
 * region of nothing reads. */
static void region_overhead(struct pbench_result *res)
{
	double ticks[PB_OVERHEAD_BATCHES];

	for (int i = -2; i < PB_OVERHEAD_BATCHES; i++) {
		uint64_t t0 = pbench_ticks_begin(), t1 = pbench_ticks_end();

		if (i >= 0)
			ticks[i] = (double)(t1 - t0);
	}
	pb_overhead_set(res, ticks, PB_OVERHEAD_BATCHES);
}

int pbench_region_new(struct pbench_region **out, uint64_t iterations, const char *events)
{
	struct pbench_region *r;
	int err, nr_events = 0;

	if (!out)
		return -EINVAL;
	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	err = pb_timing_init(&r->t, NULL, __func__, "opts");
	if (err)
		goto out_free_region;
	if (events) {
		err = pb_events_open(&r->events, events, &nr_events);
		if (err)
			goto out_free_region;
	}
	r->res = pb_result_new(nr_events, iterations ? iterations : 1, 0);
	if (!r->res) {
		err = -ENOMEM;
		goto out_free_counters;
	}
	if (events) {
		r->res->instr_idx = pb_find_instructions(r->events);
		err = pb_result_set_names(r->res, r->events);
		if (err)
			goto out_free_result;
	}
	/* The first chunk now: begin and end never allocate until it is full. */
	err = pb_result_reserve(r->res, PB_RESULT_CHUNK);
	if (err)
		goto out_free_result;
	region_overhead(r->res);
	pb_probe_open(&r->probe);
	*out = r;
	return 0;

out_free_result:
	pbench_result_free(r->res);
out_free_counters:
	pbench_counters_free(r->events);
out_free_region:
	free(r);
	return err;
}

void pbench_region_begin(struct pbench_region *r)
{
	if (!r)
		return;
	if (r->inside) {
		if (!r->err)
			r->err = -PBENCH_EBUSY_REGION;
		return;
	}
	r->inside = 1;
	pb_probe_begin(&r->probe);
	r->cerr = r->events ? pbench_counters_start(r->events) : 0;
	r->t0 = pbench_ticks_begin();
}

void pbench_region_end(struct pbench_region *r)
{
	uint64_t t1 = pbench_ticks_end();
	struct pbench_result *res;
	struct pbench_noise noise;
	struct pbench_count *k;
	struct pbench_sample *s;
	int err;

	if (!r)
		return;
	if (!r->inside) {
		if (!r->err)
			r->err = -PBENCH_EBUSY_REGION;
		return;
	}
	r->inside = 0;
	res = r->res;
	err = r->cerr;
	if (r->events && !err)
		err = pbench_counters_stop(r->events);
	pb_probe_end(&r->probe, &noise);
	if (r->err)
		return;
	k = res->nr_events ? &res->counts[res->nr * (size_t)res->nr_events] : NULL;
	for (int e = 0; !err && e < res->nr_events; e++)
		k[e].size = sizeof(k[e]);
	if (r->events && !err && (err = pb_counters_delta(r->events, k, res->nr_events)) > 0)
		err = 0;
	if (err) {
		r->err = err;
		return;
	}
	s = pb_result_push(res, t1 - r->t0);
	res->noise[s - res->samples] = noise;
	if (r->events)
		pb_counts_per_iter(res, k, NULL);
	/* Room for the next pair, here rather than in begin: a chunk at a time. */
	r->err = pb_result_reserve(res, res->nr + 1);
}

static struct pbench_result *result_dup(const struct pbench_result *src,
				       const struct pbench_counters *events)
{
	struct pbench_result *r = pb_result_new(src->nr_events, src->iterations,
						src->keep_overhead);

	if (!r)
		return NULL;
	if ((events && pb_result_set_names(r, events)) || pb_result_reserve(r, src->nr ? src->nr : 1)) {
		pbench_result_free(r);
		return NULL;
	}
	r->overhead_ticks = src->overhead_ticks;
	r->overhead_sd_ticks = src->overhead_sd_ticks;
	r->instr_idx = src->instr_idx;
	r->instr_sum = src->instr_sum;
	r->instr_nr = src->instr_nr;
	r->nr = src->nr;
	memcpy(r->samples, src->samples, src->nr * sizeof(*r->samples));
	memcpy(r->noise, src->noise, src->nr * sizeof(*r->noise));
	memcpy(r->x, src->x, src->nr * sizeof(*r->x));
	memcpy(r->net, src->net, src->nr * sizeof(*r->net));
	if (src->nr_events)
		memcpy(r->counts, src->counts,
		       src->nr * (size_t)src->nr_events * sizeof(*r->counts));
	for (size_t i = 0; i < src->nr * (size_t)src->nr_events; i++)
		r->counts[i].name = r->names[i % (size_t)src->nr_events];
	return r;
}

int pbench_region_result(struct pbench_result **out, struct pbench_region *r)
{
	struct pbench_result *res;
	int err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!r)
		return -EINVAL;
	if (r->err)
		return r->err;
	if (r->inside)
		return -PBENCH_EBUSY_REGION;
	res = result_dup(r->res, r->events);
	if (!res)
		return -ENOMEM;
	res->stop_rule = PBENCH_STOP_FIXED;
	err = pb_result_finish(res, &r->t);
	if (err) {
		pbench_result_free(res);
		return err;
	}
	*out = res;
	return 0;
}

void pbench_region_free(struct pbench_region *r)
{
	if (!r)
		return;
	pb_probe_close(&r->probe);
	pbench_result_free(r->res);
	pbench_counters_free(r->events);
	free(r);
}
