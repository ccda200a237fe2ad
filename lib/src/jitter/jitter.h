/* SPDX-License-Identifier: MIT */
/*
 * Internals of the jitter probe, shared by jitter.c (the threads and the spin),
 * jitter_explain.c (figures, sources and the explanation), jitter_report.c (text and JSON)
 * and jitter_plot.c (SVG). Never installed.
 */
#ifndef PBENCH_JITTER_H
#define PBENCH_JITTER_H

#include <pthread.h>
#include <stdint.h>

#include "pbench.h"

/* One CPU's probe: what its thread measured, then the figures computed from it. */
struct pb_jitter_run {
	struct pbench_jitter *j;
	int cpu;
	pthread_t thread;
	int created;
	int err;			/* the thread's failure (-errno), 0 if it measured */
	char err_what[96];		/* what failed */

	/* the buffer, allocated and touched before the window */
	struct pbench_jitter_gap *gaps;
	size_t cap, n;

	/* from the spin */
	uint64_t start, end;		/* ticks of the window's first and last read */
	uint64_t loops, count, noise_ticks, max_ticks;
	uint64_t threshold_ticks;
	int stopped, migrated;
	double loop_min_ticks, loop_median_ticks;

	/* attribution over the window */
	struct pbench_cpu_noise noise;
	int noise_err;			/* pbench_cpu_probe_end's (or begin's) error */
	uint64_t nivcsw, nvcsw;
	/* The CPU's own counts over the window, every task on it (perf software events
	 * opened per CPU, pid -1: what pbench stat -a -A counts): cpu_sched_ok 0 with
	 * cpu_sched_reason when they could not be opened or read (issue 39). */
	int cpu_sched_ok;
	uint64_t cpu_cs, cpu_migrations;
	char cpu_sched_reason[160];
	/* The probe thread's time runnable but waiting while others ran on its CPU (the
	 * kernel's run_delay, /proc/thread-self/schedstat), ns over the window; NaN: not read.
	 * A thread that woke then took the CPU from them, not from the probe: not in nivcsw. */
	double wait_ns;
	int smi_ok;
	uint64_t smi;
	char smi_reason[160];
	pid_t other_pid;
	int policy, priority;
	int prepared;
	char prepared_what[400];

	/* the figures (jitter_explain.c): r's strings point into src[] and explained */
	struct pb_jitter_src {
		struct pbench_jitter_source s;	/* first: sorted as a source */
		char name[64];
		char reason[160];
	} src[PBENCH_JITTER_MAX_SOURCES];
	char explained[1024];
	struct pbench_jitter_cpu r;
};

/* Source k of the figures r (the r of a struct pb_jitter_run). */
static inline const struct pbench_jitter_source *pb_jitter_source_of(
	const struct pbench_jitter_cpu *r, int k)
{
	const struct pb_jitter_run *run =
		(const struct pb_jitter_run *)((const char *)r - offsetof(struct pb_jitter_run, r));

	return &run->src[k].s;
}

struct pbench_jitter {
	int n;
	struct pb_jitter_run *run;
	uint64_t hz;
	int clock_kind;
	double duration_s;		/* asked */
	double threshold_ns;		/* asked (0: derived) */
	unsigned flags;
	const volatile int *stop;

	/* the start gate: every thread ready, then all go (or abort) */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int ready, go, abort;
	int width;			/* opts.text_width */
};

/* jitter_explain.c: fill run->r from what the thread measured. */
void pb_jitter_figures(struct pb_jitter_run *run, uint64_t hz);

#endif
