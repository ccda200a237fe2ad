/* SPDX-License-Identifier: MIT */
/*
 * Known noise for the jitter probe's proofs (tests/unit/test_jitter.c, bench/bench_jitter.c):
 * a SCHED_FIFO thread pinned to the probe's CPU wakes at a fixed rate (clock_nanosleep with
 * TIMER_ABSTIME on CLOCK_MONOTONIC) and spins a fixed number of clock ticks each time, taking
 * the CPU from the probe. It records when each spin started and ended (pbench_ticks()), so
 * every injection can be looked for among the gaps the probe found.
 *
 * And the probe's side: pbench_jitter_run() on that CPU from a thread at a lower SCHED_FIFO
 * priority (the probe threads inherit it), so that normal tasks of a busy machine do not
 * preempt the probe and hide injections inside their own gaps.
 */
#ifndef PBENCH_TEST_INJECT_H
#define PBENCH_TEST_INJECT_H

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pbench.h"

#define INJECT_FIFO_PRIO 20		/* the injector; the probe runs at INJECT_PROBE_PRIO */
#define INJECT_PROBE_PRIO 10

struct inject {
	int cpu;
	double rate_hz;			/* wakes per second */
	double spin_ns;			/* spun per wake */
	double max_s;			/* room for this long; it injects until inject_stop() */
	/* out */
	size_t cap, n;			/* wakes recorded */
	uint64_t *wake, *done;		/* ticks at the start and the end of each spin */
	size_t late;			/* wakes more than a period late (skipped, not caught up) */
	int err;			/* -errno of pinning or of SCHED_FIFO */
	uint64_t spin_ticks;
	volatile int stop;
	volatile int started;
	pthread_t thread;
};

static void ts_add(struct timespec *t, long ns)
{
	t->tv_nsec += ns;
	while (t->tv_nsec >= 1000000000L) {
		t->tv_nsec -= 1000000000L;
		t->tv_sec++;
	}
}

static long ts_diff(const struct timespec *a, const struct timespec *b)
{
	return (long)(a->tv_sec - b->tv_sec) * 1000000000L + (a->tv_nsec - b->tv_nsec);
}

static void *inject_thread(void *arg)
{
	struct inject *in = arg;
	struct sched_param sp = { .sched_priority = INJECT_FIFO_PRIO };
	long period = (long)(1e9 / in->rate_hz);
	struct timespec next, now;
	cpu_set_t one;

	/* Created pinned and FIFO already; made sure of here. */
	CPU_ZERO(&one);
	CPU_SET(in->cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) || sched_setscheduler(0, SCHED_FIFO, &sp)) {
		in->err = -errno;
		in->started = 1;
		return NULL;
	}
	in->started = 1;
	clock_gettime(CLOCK_MONOTONIC, &next);
	/* Start off the round ms: not in step with the tick by construction. */
	ts_add(&next, period / 2 + 137000);
	for (size_t k = 0; k < in->cap && !in->stop; k++) {
		uint64_t t0, t;

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		t0 = t = pbench_ticks();
		while (t - t0 < in->spin_ticks)
			t = pbench_ticks();
		in->wake[k] = t0;
		in->done[k] = t;
		in->n = k + 1;
		ts_add(&next, period);
		/* Held off the CPU (a higher-priority task): skip ahead, no burst to catch up. */
		clock_gettime(CLOCK_MONOTONIC, &now);
		while (ts_diff(&now, &next) > 0) {
			ts_add(&next, period);
			in->late++;
		}
	}
	return NULL;
}

/* Start injecting on cpu; 0 or a negative error. inject_stop() ends it and gives its
 * error (-EPERM without the right to SCHED_FIFO). */
static inline int inject_start(struct inject *in)
{
	struct pbench_clock_info ci = { .size = sizeof(ci) };
	int err = pbench_clock_info(&ci);

	if (err)
		return err;
	in->spin_ticks = (uint64_t)ceil(in->spin_ns * (double)ci.hz / 1e9);
	in->cap = (size_t)(in->rate_hz * in->max_s) + 1;
	in->n = in->late = 0;
	in->err = 0;
	in->stop = 0;
	in->wake = calloc(in->cap, sizeof(uint64_t));
	in->done = calloc(in->cap, sizeof(uint64_t));
	if (!in->wake || !in->done)
		return -ENOMEM;
	/* Started on its CPU at its priority: a busy CPU elsewhere cannot keep it from
	 * starting. Returns once it runs there. */
	{
		struct sched_param sp = { .sched_priority = INJECT_FIFO_PRIO };
		pthread_attr_t attr;
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(in->cpu, &one);
		pthread_attr_init(&attr);
		pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		pthread_attr_setschedparam(&attr, &sp);
		err = pthread_create(&in->thread, &attr, inject_thread, in);
		pthread_attr_destroy(&attr);
	}
	if (err)
		return -err;
	for (int ms = 0; !in->started && ms < 5000; ms++)
		usleep(1000);
	return 0;
}

static inline int inject_stop(struct inject *in)
{
	in->stop = 1;
	pthread_join(in->thread, NULL);
	return in->err;
}

static inline void inject_free(struct inject *in)
{
	free(in->wake);
	free(in->done);
	in->wake = in->done = NULL;
}

/* Run the probe on cpu for duration_s with the calling thread (and so the probe thread) at
 * SCHED_FIFO INJECT_PROBE_PRIO, restored after. 0 or -errno. */
static inline int probe_fifo(struct pbench_jitter **out, int cpu, double duration_s)
{
	struct pbench_jitter_opts o = PBENCH_JITTER_OPTS_INIT;
	struct sched_param sp = { .sched_priority = INJECT_PROBE_PRIO }, old_sp;
	int old = sched_getscheduler(0), err;

	sched_getparam(0, &old_sp);
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		return -errno;
	o.cpus = &cpu;
	o.ncpus = 1;
	o.duration_s = duration_s;
	err = pbench_jitter_run(out, &o);
	sched_setscheduler(0, old, &old_sp);
	return err;
}

/* What the probe found of the injections inside its window. */
struct inject_match {
	size_t injected;		/* spins wholly inside the window */
	size_t contained;		/* of them, inside a gap the probe recorded */
	size_t gaps;			/* distinct gaps holding at least one */
	size_t single;			/* gaps holding exactly one */
	double single_ns;		/* their mean length */
};

static inline void inject_match(const struct pbench_jitter *j, const struct inject *in,
				struct inject_match *m)
{
	struct pbench_jitter_cpu c = { .size = sizeof(c) };
	const struct pbench_jitter_gap *g;
	long ng = pbench_jitter_gaps(j, 0, &g), at = 0, last = -1, hits = 0;
	double sum = 0;

	memset(m, 0, sizeof(*m));
	pbench_jitter_cpu(j, 0, &c);
	for (size_t k = 0; k < in->n; k++) {
		uint64_t w = in->wake[k], d = in->done[k];

		if (w < c.start_ticks || d > c.end_ticks)
			continue;
		m->injected++;
		while (at < ng && c.start_ticks + g[at].start_ticks + g[at].ticks < d)
			at++;
		if (at >= ng || c.start_ticks + g[at].start_ticks > w)
			continue;
		m->contained++;
		if (at != last) {
			if (last >= 0 && hits == 1) {
				m->single++;
				sum += pbench_ticks_to_ns_f((double)g[last].ticks);
			}
			m->gaps++;
			last = at;
			hits = 0;
		}
		hits++;
	}
	if (last >= 0 && hits == 1) {
		m->single++;
		sum += pbench_ticks_to_ns_f((double)g[last].ticks);
	}
	m->single_ns = m->single ? sum / (double)m->single : NAN;
}

#endif
