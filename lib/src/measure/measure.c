/* SPDX-License-Identifier: MIT */
/*
 * Timing a function: calibrate, warm up, sample until the standard error is small enough.
 *
 * A sample is one batch of n calls of fn(ctx), unrolled by PB_UNROLL, between
 * pbench_ticks_begin() and pbench_ticks_end(). n is found once (1, x10 until a batch reaches an
 * eighth of the target length, then scaled to the target) and kept for the whole run, so every
 * sample measures the same thing. The same batch with an empty function, timed the same way,
 * is the harness overhead: call, loop control and the clock reads, subtracted per iteration.
 * Counters and the noise snapshot (rusage, task-clock, cpu-migrations) are read around the
 * batch, never inside it.
 *
 * The pieces are shared (measure.h) with the region API (region.c) and with comparing two
 * functions (compare_fns.c); the batch itself is measure_batch.c's.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>

#include "base/base.h"
#include "counters/counts.h"
#include "measure/measure.h"

/* Defaults: PBENCH_MEASURE_OPTS_INIT without the caller's optimization, which is unknown. */
static const struct pbench_measure_opts defaults = {
	.size = sizeof(struct pbench_measure_opts), .warmup_ms = 1200, .min_sample_ms = 1,
	.target_sem_pct = 1, .min_samples = 10, .max_samples = 100000, .budget_ms = 10000,
};

/* fn and arg name the public function and its argument in an error's detail. */
static int opts_resolve(const struct pbench_measure_opts *in, struct pbench_measure_opts *o,
			const char *fn, const char *arg)
{
	int err;

	*o = defaults;
	if (in) {
		if ((err = pb_check_struct(fn, arg, "pbench_measure_opts", in, 0,
					   "PBENCH_MEASURE_OPTS_INIT")))
			return err;
		/* An older, smaller struct keeps the defaults of the fields it does not have
		 * (pb_copy_in). */
		pb_copy_in(o, sizeof(*o), in);
	}
	/* Written so that NaN fails too. */
	if (!(o->budget_ms > 0 && isfinite(o->budget_ms)))
		return pb_fail(-EINVAL, "%s(): %s->budget_ms is %g, not a time above 0", fn, arg,
			       o->budget_ms);
	if (!(o->target_sem_pct > 0 && isfinite(o->target_sem_pct)))
		return pb_fail(-EINVAL, "%s(): %s->target_sem_pct is %g, not a percentage above 0",
			       fn, arg, o->target_sem_pct);
	if (!(o->min_sample_ms >= 0 && isfinite(o->min_sample_ms)))
		return pb_fail(-EINVAL, "%s(): %s->min_sample_ms is %g, not a time of 0 or more",
			       fn, arg, o->min_sample_ms);
	if (!(o->warmup_ms >= 0 && isfinite(o->warmup_ms)))
		return pb_fail(-EINVAL, "%s(): %s->warmup_ms is %g, not a time of 0 or more", fn,
			       arg, o->warmup_ms);
	if (o->max_samples == 0 || o->min_samples > o->max_samples)
		return pb_fail(-EINVAL, "%s(): %s: min_samples %zu and max_samples %zu (max_samples "
			       "must be at least 1 and min_samples)", fn, arg, o->min_samples,
			       o->max_samples);
	return 0;
}

int pb_timing_init(struct pb_timing *t, const struct pbench_measure_opts *opts, const char *fn,
		   const char *arg)
{
	double target_ns;
	int err;

	memset(t, 0, sizeof(*t));
	err = opts_resolve(opts, &t->o, fn, arg);
	if (err)
		return err;
	t->clk.size = sizeof(t->clk);
	err = pbench_clock_info(&t->clk);
	if (err)
		return err;
	t->ticks_per_ns = (double)t->clk.hz / 1e9;
	/* Long enough that the clock's granularity is at most 0.1% of a sample. */
	target_ns = fmax(t->o.min_sample_ms * 1e6, 1000 * t->clk.resolution_ns);
	t->target_ticks = target_ns * t->ticks_per_ns;
	t->budget_ticks = t->o.budget_ms * 1e6 * t->ticks_per_ns;
	t->warmup_ticks = t->o.warmup_ms * 1e6 * t->ticks_per_ns;
	return 0;
}

/* ---- the batch -------------------------------------------------------------------------- */

/* The empty batch calls this through a pointer the compiler cannot see through, so it pays
 * for a real indirect call, as the measured function does. */
__attribute__((noinline)) static void empty_fn(void *ctx)
{
	__asm__ volatile("" : : "r"(ctx) : "memory");
}

static void (*volatile empty_ptr)(void *) = empty_fn;

/* The empty function, timed as fn is: in one batch, or call by call. */
static uint64_t empty_batch(const struct pb_timing *t, uint64_t n)
{
	if (t->o.setup_each || t->o.teardown_each)
		return pb_batch_each(empty_ptr, NULL, n, NULL, NULL);
	return pb_batch(empty_ptr, NULL, n);
}

uint64_t pb_call_batch(const struct pb_timing *t, pbench_fn fn, void *ctx, uint64_t n)
{
	uint64_t ticks;

	if (t->o.setup)
		t->o.setup(ctx);
	ticks = pb_timed_batch(t, fn, ctx, n);
	if (t->o.teardown)
		t->o.teardown(ctx);
	return ticks;
}

int pb_check_count(uint64_t n, double ticks_per_iter)
{
	if (ticks_per_iter <= 0) {
		uint64_t best = UINT64_MAX;

		for (int i = 0; i < 3; i++) {
			uint64_t t = pb_batch(empty_ptr, NULL, 1000);

			best = t < best ? t : best;
		}
		ticks_per_iter = (double)best / 1000;
	}
	/* 2^64 ticks is 200 years at 3 GHz: a count past it is a caller's mistake. */
	return (double)n * ticks_per_iter >= 0x1p64 ? -EOVERFLOW : 0;
}

void pb_warmup(const struct pb_timing *t, const pbench_fn *fns, void *const *ctxs, int nr)
{
	uint64_t n[2] = { 1, 1 }, start = pbench_ticks();

	if (nr > 2)
		nr = 2;
	while ((double)(pbench_ticks() - start) < t->warmup_ticks) {
		for (int i = 0; i < nr; i++) {
			uint64_t ticks = pb_call_batch(t, fns[i], ctxs[i], n[i]);

			if ((double)ticks < t->target_ticks / 8 && n[i] <= UINT64_MAX / 10)
				n[i] *= 10;
		}
	}
}

int pb_calibrate(const struct pb_timing *t, pbench_fn fn, void *ctx, uint64_t *out)
{
	uint64_t n = 1, ticks;
	double scaled;

	for (;;) {
		ticks = pb_call_batch(t, fn, ctx, n);
		if ((double)ticks >= t->target_ticks / 8) {
			/* A preemption in one batch must not fix the count for the whole run: the
			 * fastest of three decides (unless the batch is long enough that a
			 * preemption hardly moves it, and another two would cost seconds). */
			for (int i = 0; i < 2 && (double)ticks < 8 * t->target_ticks; i++) {
				uint64_t again = pb_call_batch(t, fn, ctx, n);

				ticks = again < ticks ? again : ticks;
			}
			if ((double)ticks >= t->target_ticks / 8)
				break;
		}
		if (n > UINT64_MAX / 10)
			return -EOVERFLOW;
		n *= 10;
	}
	/* ceil: a sample is at least the target. The clock reads alone make ticks > 0. */
	scaled = ceil((double)n * t->target_ticks / (double)(ticks ? ticks : 1));
	if (scaled >= 0x1p64)
		return -EOVERFLOW;
	*out = scaled < 1 ? 1 : (uint64_t)scaled;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of v[0..n-1], n >= 1 (sorts v). */
static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void pb_overhead_set(struct pbench_result *res, double *ticks, size_t n)
{
	double med = median_of(ticks, n);

	/* Median and MAD: an interrupt in one empty batch must not be subtracted from every
	 * sample, nor make the harness look noisier than it is. */
	for (size_t i = 0; i < n; i++)
		ticks[i] = fabs(ticks[i] - med);
	res->overhead_ticks = med;
	res->overhead_sd_ticks = 1.4826 * median_of(ticks, n);
}

int pb_overhead(const struct pb_timing *t, struct pbench_result *res, uint64_t n,
		struct pbench_counters *events, double *ovh_counts)
{
	int nr_events = events ? pbench_counters_nr(events) : 0;
	double ticks[PB_OVERHEAD_BATCHES], *per_event = NULL;
	struct pbench_count *counts = NULL;
	int err = 0;

	if (nr_events) {
		per_event = calloc((size_t)nr_events * PB_OVERHEAD_BATCHES, sizeof(*per_event));
		counts = calloc((size_t)nr_events, sizeof(*counts));
		if (!per_event || !counts) {
			err = -ENOMEM;
			goto out_free;
		}
		for (int e = 0; e < nr_events; e++)
			counts[e].size = sizeof(counts[e]);
	}
	/* Two batches unrecorded: the empty function's first calls page in and warm its code. */
	empty_batch(t, n);
	empty_batch(t, n);
	for (int i = 0; i < PB_OVERHEAD_BATCHES; i++) {
		if (nr_events && (err = pbench_counters_start(events)))
			goto out_free;
		ticks[i] = (double)empty_batch(t, n);
		if (!nr_events)
			continue;
		err = pbench_counters_stop(events);
		if (!err)
			err = pb_counters_delta(events, counts, nr_events);
		if (err < 0)
			goto out_free;
		err = 0;
		for (int e = 0; e < nr_events; e++)
			per_event[e * PB_OVERHEAD_BATCHES + i] =
				counts[e].status == PBENCH_EVENT_OK ||
				counts[e].status == PBENCH_EVENT_MULTIPLEXED ?
				counts[e].scaled / (double)n : NAN;
	}
	pb_overhead_set(res, ticks, PB_OVERHEAD_BATCHES);
	for (int e = 0; e < nr_events; e++)
		ovh_counts[e] = median_of(per_event + e * PB_OVERHEAD_BATCHES, PB_OVERHEAD_BATCHES);
out_free:
	free(counts);
	free(per_event);
	return err;
}

/* ---- the noise snapshot ----------------------------------------------------------------- */

void pb_probe_open(struct pb_probe *p)
{
	int err;

	memset(p, 0, sizeof(*p));
	err = pbench_counters_open(&p->sw, "task-clock,cpu-migrations", NULL);
	if (!err)
		err = pbench_counters_enable(p->sw);
	if (err) {
		pb_log(PBENCH_LOG_WARN, "noise: no task-clock/cpu-migrations (%s): time not "
		       "running is unknown, migrations are seen only as a changed CPU",
		       pbench_strerror(err));
		pbench_counters_free(p->sw);
		p->sw = NULL;
		return;
	}
	p->clock_ok = pbench_counters_open_status(p->sw, 0) == PBENCH_EVENT_OK;
	p->migr_ok = pbench_counters_open_status(p->sw, 1) == PBENCH_EVENT_OK;
}

void pb_probe_close(struct pb_probe *p)
{
	pbench_counters_free(p->sw);
	p->sw = NULL;
}

void pb_probe_begin(struct pb_probe *p)
{
	getrusage(RUSAGE_THREAD, &p->ru);
	p->cpu = sched_getcpu();
	p->started = p->sw && !pbench_counters_start(p->sw);
	/* Inside the counters' window: wall time is then never more than task-clock saw, and
	 * "not running" is never made of the counter reads themselves. */
	p->t0 = pbench_ticks();
}

void pb_probe_end(struct pb_probe *p, struct pbench_noise *nz)
{
	uint64_t t1 = pbench_ticks();
	struct pbench_count k[2] = { { .size = sizeof(k[0]) }, { .size = sizeof(k[1]) } };
	int counted = p->started && !pbench_counters_stop(p->sw) &&
		      pb_counters_delta(p->sw, k, 2) == 2;
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	nz->size = sizeof(*nz);
	nz->ctx_involuntary = (uint64_t)(ru.ru_nivcsw - p->ru.ru_nivcsw);
	nz->ctx_voluntary = (uint64_t)(ru.ru_nvcsw - p->ru.ru_nvcsw);
	nz->minor_faults = (uint64_t)(ru.ru_minflt - p->ru.ru_minflt);
	nz->major_faults = (uint64_t)(ru.ru_majflt - p->ru.ru_majflt);
	if (counted && p->migr_ok && k[1].status == PBENCH_EVENT_OK)
		nz->migrations = k[1].value;
	else
		nz->migrations = sched_getcpu() != p->cpu;	/* at least */
	if (counted && p->clock_ok && k[0].status == PBENCH_EVENT_OK) {
		double wall = pbench_ticks_to_ns_f((double)(t1 - p->t0));

		nz->not_running_ns = fmax(0, wall - (double)k[0].value);
	} else {
		nz->not_running_ns = NAN;	/* unknown, not zero */
	}
}

/* ---- results ---------------------------------------------------------------------------- */

struct pbench_result *pb_result_new(int nr_events, uint64_t iterations, int keep_overhead)
{
	struct pbench_result *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->nr_events = nr_events;
	r->iterations = iterations;
	r->keep_overhead = keep_overhead;
	r->instr_idx = -1;
	r->summary.size = sizeof(r->summary);
	return r;
}

int pb_result_set_names(struct pbench_result *r, const struct pbench_counters *c)
{
	size_t ptrs = (size_t)r->nr_events * sizeof(char *), len = ptrs;
	char *p;

	for (int e = 0; e < r->nr_events; e++)
		len += strlen(pbench_counters_name(c, e)) + 1;
	/* One block: the pointers, then the strings. */
	r->names = malloc(len ? len : 1);
	if (!r->names)
		return -ENOMEM;
	p = (char *)r->names + ptrs;
	for (int e = 0; e < r->nr_events; e++) {
		r->names[e] = p;
		p = stpcpy(p, pbench_counters_name(c, e)) + 1;
	}
	return 0;
}

void pbench_result_free(struct pbench_result *r)
{
	if (!r)
		return;
	pbench_listing_free(r->listing);
	free(r->names);
	free(r->counts);
	free(r->net);
	free(r->x);
	free(r->samples);
	free(r->noise);
	free(r->mem);
	free(r);
}

static int grow(void **p, size_t nmemb, size_t size)
{
	void *np;

	if (!nmemb || !size || nmemb > SIZE_MAX / size)
		return -EOVERFLOW;
	np = realloc(*p, nmemb * size);
	if (!np)
		return -ENOMEM;
	*p = np;
	return 0;
}

int pb_result_reserve(struct pbench_result *r, size_t want)
{
	int err;

	if (want <= r->alloc)
		return 0;
	/* Doubling: a region's end() reallocates log2(samples) times in all. */
	if (r->alloc > SIZE_MAX / 2)
		return -EOVERFLOW;
	if (want < r->alloc * 2)
		want = r->alloc * 2;
	if (want < PB_RESULT_CHUNK)
		want = PB_RESULT_CHUNK;
	if ((err = grow((void **)&r->samples, want, sizeof(*r->samples))) ||
	    (err = grow((void **)&r->noise, want, sizeof(*r->noise))) ||
	    (err = grow((void **)&r->x, want, sizeof(*r->x))) ||
	    (err = grow((void **)&r->net, want, sizeof(*r->net))))
		return err;
	if (r->nr_events) {
		if (want > SIZE_MAX / (size_t)r->nr_events)
			return -EOVERFLOW;
		err = grow((void **)&r->counts, want * (size_t)r->nr_events, sizeof(*r->counts));
		if (err)
			return err;
	}
	r->alloc = want;
	return 0;
}

/* Append a sample of ticks for r->iterations iterations (room reserved by the caller). */
struct pbench_sample *pb_result_push(struct pbench_result *r, uint64_t ticks)
{
	struct pbench_sample *s = &r->samples[r->nr];
	double n = (double)r->iterations;
	double net = pbench_ticks_to_ns_f((double)ticks - r->overhead_ticks) / n;

	memset(s, 0, sizeof(*s));
	s->size = sizeof(*s);
	s->ticks = ticks;
	s->iterations = r->iterations;
	/* Never below zero: a batch faster than the median empty batch is noise, reported as
	 * 0 and flagged (PBENCH_RESULT_CLAMPED). */
	s->ns_per_iter = r->keep_overhead ? pbench_ticks_to_ns_f((double)ticks) / n : fmax(0, net);
	r->net[r->nr] = net;
	r->x[r->nr] = s->ns_per_iter;
	r->nr++;
	return s;
}

/* Counts of the last sample per iteration, minus the empty batch's unless keep_overhead. */
void pb_counts_per_iter(struct pbench_result *r, struct pbench_count *k,
			const double *ovh_counts)
{
	double n = (double)r->iterations;

	for (int e = 0; e < r->nr_events; e++) {
		double v, ovh = ovh_counts ? ovh_counts[e] : NAN;

		k[e].name = r->names[e];
		if (k[e].status != PBENCH_EVENT_OK && k[e].status != PBENCH_EVENT_MULTIPLEXED) {
			k[e].scaled = 0;
			continue;
		}
		v = k[e].scaled / n;
		if (!r->keep_overhead && !isnan(ovh))
			v -= ovh;
		if (e == r->instr_idx && !isnan(ovh)) {
			r->instr_sum += k[e].scaled / n - ovh;
			r->instr_nr++;
		}
		k[e].scaled = fmax(0, v);
	}
}

int pb_run_sample(struct pb_sampling *run)
{
	const struct pb_timing *t = run->t;
	struct pbench_result *r = run->res;
	struct pbench_noise noise = { 0 };
	struct pbench_count *k = NULL;
	struct pbench_sample *s;
	int err, cerr = 0;
	uint64_t ticks;

	err = pb_result_reserve(r, r->nr + 1);
	if (err)
		return err;
	if (run->events)
		k = &r->counts[r->nr * (size_t)r->nr_events];
	if (t->o.setup)
		t->o.setup(run->ctx);
	if (run->probe)
		pb_probe_begin(run->probe);
	if (run->events)
		cerr = pbench_counters_start(run->events);
	ticks = pb_timed_batch(t, run->fn, run->ctx, run->n);
	if (run->events && !cerr)
		cerr = pbench_counters_stop(run->events);
	if (run->probe)
		pb_probe_end(run->probe, &noise);
	if (t->o.teardown)
		t->o.teardown(run->ctx);
	if (cerr)
		return cerr;
	if (run->events) {
		for (int e = 0; e < r->nr_events; e++)
			k[e].size = sizeof(k[e]);
		err = pb_counters_delta(run->events, k, r->nr_events);
		if (err < 0)
			return err;
	}
	s = pb_result_push(r, ticks);
	r->noise[s - r->samples] = noise;
	if (run->events)
		pb_counts_per_iter(r, k, run->ovh_counts);
	return 0;
}

void pb_result_mem_open(struct pbench_result *r, const struct pb_timing *t)
{
	if (t->o.count_memory)
		r->mem_status = pb_mem_open(&r->mem_reason);
}

void pb_result_keep_settings(struct pbench_result *r, const struct pbench_measure_opts *o)
{
	r->settings = *o;
	r->settings.setup = r->settings.teardown = NULL;
	r->settings.setup_each = r->settings.teardown_each = NULL;
	r->settings.events = NULL;	/* the names are kept in r->names */
	r->has_settings = 1;
}

int pb_result_finish(struct pbench_result *r, const struct pb_timing *t)
{
	double *net, median_net, floor_ns, ovh_ns;
	int err;

	if (!r->nr)
		return 0;
	err = pbench_stats_summary(r->x, r->nr, NULL, &r->summary);
	if (err)
		return err;
#ifndef __OPTIMIZE__
	r->flags |= PBENCH_RESULT_UNOPTIMIZED;
#endif
	if (t->o.built_optimized == 1)
		r->flags |= PBENCH_RESULT_UNOPTIMIZED;
	net = malloc(r->nr * sizeof(*net));
	if (!net)
		return -ENOMEM;
	memcpy(net, r->net, r->nr * sizeof(*net));
	median_net = median_of(net, r->nr);
	ovh_ns = pbench_ticks_to_ns_f(r->overhead_ticks) / (double)r->iterations;
	/* What the harness cannot tell from nothing: the timer's step or three deviations of
	 * the empty batch, spread over the iterations; and, per iteration, the cost of the
	 * empty call itself, which is known only to about its own size (on an AMD EPYC the
	 * same empty batch runs at 1.1 or 1.9 ns a call depending on the branch predictors'
	 * state). Work below that may as well have been optimized away. */
	floor_ns = fmax(t->clk.resolution_ns, 3 * pbench_ticks_to_ns_f(r->overhead_sd_ticks));
	if (median_net < fmax(floor_ns / (double)r->iterations, ovh_ns))
		r->flags |= PBENCH_RESULT_SUSPICIOUS;
	/* Counting noise only adds instructions, so a body of one instruction stays above
	 * 0.5; an empty body (the call alone, subtracted) stays below. */
	if (r->instr_nr && r->instr_sum / (double)r->instr_nr < 0.5)
		r->flags |= PBENCH_RESULT_SUSPICIOUS;
	if (ovh_ns > 0.5 * (median_net + ovh_ns))	/* the median sample, overhead included */
		r->flags |= PBENCH_RESULT_OVERHEAD_DOMINATES;
	for (size_t i = 0; i < r->nr; i++) {
		const struct pbench_noise *nz = &r->noise[i];

		if (nz->ctx_involuntary || nz->migrations)
			r->flags |= PBENCH_RESULT_NOISY;
		if (r->net[i] < 0 && !r->keep_overhead)
			r->flags |= PBENCH_RESULT_CLAMPED;
	}
	free(net);
	return 0;
}

/* The code is looked at after sampling, never during it: objdump is a child process. */
int pb_result_look(struct pbench_result *r, pbench_fn fn, const struct pbench_measure_opts *o)
{
	struct pbench_listing_opts lo = { .size = sizeof(lo), .addr = (const void *)(uintptr_t)fn };
	unsigned why = PBENCH_RESULT_SUSPICIOUS | PBENCH_RESULT_UNOPTIMIZED;

	if (r->listing || o->show_code < 0 || (o->show_code == 0 && !(r->flags & why)))
		return 0;
	return pbench_listing_new(&r->listing, &lo);
}

/* ---- pbench_measure --------------------------------------------------------------------- */

/* The first instructions event of the set, for the "fewer instructions than iterations"
 * check; -1 when none was asked for. */
int pb_find_instructions(const struct pbench_counters *c)
{
	for (int e = 0; e < pbench_counters_nr(c); e++) {
		const char *name = pbench_counters_name(c, e);

		if (!strncmp(name, "instructions", 12) || !strncasecmp(name, "inst_retired", 12))
			return e;
	}
	return -1;
}

/* Open the caller's events on this thread and enable them; *nr gets their number. */
int pb_events_open(struct pbench_counters **out, const char *list, int *nr)
{
	int err = pbench_counters_open(out, list, NULL);

	/* Nothing countable is not an error here: the set still carries each event's status
	 * and reason, and the samples report them. */
	if (err && err != -PBENCH_ENO_EVENTS)
		return err;
	err = pbench_counters_enable(*out);
	if (err) {
		pbench_counters_free(*out);
		*out = NULL;
		return err;
	}
	*nr = pbench_counters_nr(*out);
	return 0;
}

/* Which rule, if any, stops sampling after the sample just taken. */
static int stop_rule(const struct pb_timing *t, const struct pbench_result *r,
		     const struct pbench_welford *w, double elapsed, double last)
{
	size_t min = t->o.min_samples > 2 ? t->o.min_samples : 2;

	if (r->nr == 1 && r->iterations == 1 && (double)r->samples[0].ticks > t->budget_ticks)
		return PBENCH_STOP_SINGLE;
	if (r->nr >= min && w->mean > 0 &&
	    pbench_welford_sem(w) <= t->o.target_sem_pct / 100 * w->mean)
		return PBENCH_STOP_SEM;
	if (r->nr >= t->o.max_samples)
		return PBENCH_STOP_MAX_SAMPLES;
	/* Stop before a sample that would end past the budget, not after it. */
	if (elapsed + last > t->budget_ticks)
		return PBENCH_STOP_BUDGET;
	return 0;
}

/* The iteration count, after the first call took first_ticks: fixed (and checked against
 * that call's length) or calibrated; *single when one call is longer than the budget. */
static int pick_count(const struct pb_timing *t, pbench_fn fn, void *ctx, uint64_t first_ticks,
		      uint64_t *n, int *single)
{
	int err;

	*n = t->o.iterations;
	if (*n && (err = pb_check_count(*n, (double)first_ticks)))
		return err;
	/* No room for more than one sample: no warm-up, no calibration. */
	*single = (double)first_ticks > t->budget_ticks;
	if (*single) {
		*n = *n ? *n : 1;
		return 0;
	}
	pb_warmup(t, &fn, &ctx, 1);
	return *n ? 0 : pb_calibrate(t, fn, ctx, n);
}

/* A setup that runs once for many calls prepares only the first of them: flag it, say it. */
void pb_setup_per_batch(const struct pb_timing *t, struct pbench_result *r)
{
	if (!t->o.setup || r->iterations < 2)
		return;
	r->flags |= PBENCH_RESULT_SETUP_PER_BATCH;
	pb_log(PBENCH_LOG_WARN, "setup runs once per batch of %llu calls, not before each call: "
	       "what it prepares (a shuffled array before a sort) is changed by the first call "
	       "and measured as the others find it; for set-up before every call use "
	       "setup_each (outside the timed region)", (unsigned long long)r->iterations);
}

/* Samples until a stop rule says enough (the rule kept in the result). */
static int sample_until_stop(struct pb_sampling *run, int single)
{
	struct pbench_result *r = run->res;
	struct pbench_welford w = { 0 };
	uint64_t s0 = pbench_ticks();
	int rule = 0;

	while (!rule) {
		uint64_t l0 = pbench_ticks(), l1;
		int err = pb_run_sample(run);

		if (err)
			return err;
		l1 = pbench_ticks();
		pbench_welford_add(&w, r->x[r->nr - 1]);
		rule = single ? PBENCH_STOP_SINGLE :
			stop_rule(run->t, r, &w, (double)(l1 - s0), (double)(l1 - l0));
	}
	r->stop_rule = rule;
	return 0;
}

/* The events of t's options, opened and enabled, with a count of the empty batch's for each
 * (all NULL and 0 without events). */
static int measure_events(const struct pb_timing *t, struct pbench_counters **events, int *nr,
			  double **ovh_counts)
{
	int err;

	*events = NULL;
	*ovh_counts = NULL;
	*nr = 0;
	if (!t->o.events)
		return 0;
	err = pb_events_open(events, t->o.events, nr);
	if (err)
		return err;
	*ovh_counts = calloc((size_t)*nr, sizeof(**ovh_counts));
	if (*ovh_counts)
		return 0;
	pbench_counters_free(*events);
	*events = NULL;
	return -ENOMEM;
}

/* After the samples: the settings kept, the allocations counted (count_memory), the summary
 * and the look at the code. */
static int measure_end(struct pbench_result *r, const struct pb_timing *t, pbench_fn fn,
		       void *ctx)
{
	int err = 0;

	pb_result_keep_settings(r, &t->o);
	for (size_t i = 0; i < pb_mem_batches(r, t) && !err; i++)
		err = pb_mem_batch(r, t, fn, ctx);
	if (!err)
		err = pb_result_finish(r, t);
	return err ? err : pb_result_look(r, fn, &t->o);
}

int pbench_measure(struct pbench_result **out, pbench_fn fn, void *ctx,
		   const struct pbench_measure_opts *opts)
{
	struct pbench_counters *events;
	struct pbench_result *r = NULL;
	double *ovh_counts;
	uint64_t n, first;
	struct pb_probe probe;
	int err, nr_events, single = 0;
	struct pb_timing t;
	struct pb_sampling run;

	pb_fail_clear();
	if (!out)
		return pb_fail(-EINVAL, "%s(): out is NULL", __func__);
	*out = NULL;
	if (!fn)
		return pb_fail(-EINVAL, "%s(): fn is NULL", __func__);
	err = pb_timing_init(&t, opts, __func__, "opts");
	if (err)
		return err;
	/* Before anything is called: a fixed count whose empty batch alone overflows. */
	if (t.o.iterations && (err = pb_check_count(t.o.iterations, 0)))
		return err;
	if ((err = measure_events(&t, &events, &nr_events, &ovh_counts)))
		return err;
	pb_probe_open(&probe);

	/* The first call is never a sample (first-call effects), but its length tells whether
	 * the budget leaves room for more than one. */
	first = pb_call_batch(&t, fn, ctx, 1);
	err = pick_count(&t, fn, ctx, first, &n, &single);
	if (err)
		goto out_close_probe;
	r = pb_result_new(nr_events, n, t.o.keep_overhead);
	if (!r) {
		err = -ENOMEM;
		goto out_close_probe;
	}
	if (events) {
		r->instr_idx = pb_find_instructions(events);
		err = pb_result_set_names(r, events);
		if (err)
			goto out_free_result;
	}
	pb_result_mem_open(r, &t);
	err = pb_overhead(&t, r, n, events, ovh_counts);
	if (err)
		goto out_free_result;
	pb_setup_per_batch(&t, r);

	run = (struct pb_sampling){ .t = &t, .fn = fn, .ctx = ctx, .n = n, .events = events,
			       .ovh_counts = ovh_counts, .probe = &probe, .res = r };
	err = sample_until_stop(&run, single);
	if (!err)
		err = measure_end(r, &t, fn, ctx);
	if (err)
		goto out_free_result;
	*out = r;
	r = NULL;
out_free_result:
	pbench_result_free(r);
out_close_probe:
	pb_probe_close(&probe);
	free(ovh_counts);
	pbench_counters_free(events);
	return err;
}

/* ---- reading a result ------------------------------------------------------------------- */

size_t pbench_result_nr_samples(const struct pbench_result *r)
{
	return r ? r->nr : 0;
}

const struct pbench_sample *pbench_result_sample(const struct pbench_result *r, size_t i)
{
	return r && i < r->nr ? &r->samples[i] : NULL;
}

int pbench_result_noise(const struct pbench_result *r, size_t i, struct pbench_noise *out)
{
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_noise, 0, NULL)))
		return err;
	if (!r || i >= r->nr)
		return pb_fail(-EINVAL, "%s(): no sample %zu in r", __func__, i);
	pb_copy_out(out, &r->noise[i], sizeof(r->noise[i]));
	return 0;
}

const struct pbench_summary *pbench_result_summary(const struct pbench_result *r)
{
	return r && r->nr ? &r->summary : NULL;
}

uint64_t pbench_result_iterations(const struct pbench_result *r)
{
	return r ? r->iterations : 0;
}

double pbench_result_overhead_ns(const struct pbench_result *r)
{
	if (!r || !r->iterations)
		return 0;
	return pbench_ticks_to_ns_f(r->overhead_ticks) / (double)r->iterations;
}

int pbench_result_stop_rule(const struct pbench_result *r)
{
	return r ? r->stop_rule : 0;
}

const struct pbench_listing *pbench_result_listing(const struct pbench_result *r)
{
	return r ? r->listing : NULL;
}

unsigned pbench_result_flags(const struct pbench_result *r)
{
	return r ? r->flags : 0;
}

int pbench_result_nr_events(const struct pbench_result *r)
{
	return r ? r->nr_events : 0;
}

int pbench_result_count(const struct pbench_result *r, size_t i, int e, struct pbench_count *out)
{
	int err;

	if ((err = PB_CHECK_STRUCT(out, pbench_count, 0, NULL)))
		return err;
	if (!r || i >= r->nr || e < 0 || e >= r->nr_events)
		return pb_fail(-EINVAL, "%s(): no sample %zu or event %d in the result", __func__,
			       i, e);
	pb_copy_out(out, &r->counts[i * (size_t)r->nr_events + (size_t)e], sizeof(*out));
	return 0;
}

