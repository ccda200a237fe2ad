/* SPDX-License-Identifier: MIT */
/*
 * Internals of preparing a measurement, shared by prepare.c (the steps, the saved state and
 * its restore, the public calls), prepare_prio.c (the priority step) and prepare_step.c (what
 * both use). Never installed.
 */
#ifndef PBENCH_PREPARE_H
#define PBENCH_PREPARE_H

#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "pbench.h"

#define PB_NODE_BITS 1024		/* MAX_NUMNODES is at most 1 << 10 */

/* struct sched_attr of the sched_setattr(2) ABI (SCHED_ATTR_SIZE_VER1); glibc < 2.41 has
 * neither the struct nor the wrappers. */
struct pb_sched_attr {
	uint32_t size;
	uint32_t policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
	uint32_t util_min, util_max;
};
#define PB_SCHED_FLAG_RESET_ON_FORK 0x01

struct pbench_prepared {
	struct pbench_prepare_opts o;
	pid_t pid, tid;			/* who prepared: a forked copy restores itself instead */
	int cpu;
	char cpu_reason[256];

	/* Saved before the first change. */
	cpu_set_t saved_mask;
	struct pb_sched_attr saved_attr;
	int saved_mpol;
	unsigned long saved_nodes[PB_NODE_BITS / (8 * sizeof(unsigned long))];

	/* What is changed now: set before the change, cleared once restored. */
	volatile sig_atomic_t pinned, sched_changed, mpol_changed, locked;
	volatile sig_atomic_t signal;	/* the signal whose handler restored, or 0 */
	int handlers;			/* the signal handlers are installed */

	struct pbench_prepared_step steps[PBENCH_PREPARE_STEP_NR];
	char what[PBENCH_PREPARE_STEP_NR][320];	/* steps[i].what */
	struct pbench_prepared_priority prio;
	double warmup_done_ms;
	int warmup_stable;		/* the warm-up stopped because the speed stopped drifting */
	double warmup_drift_pct;	/* the last windows' spread (NaN: too short to tell) */
	double busy_ms;			/* time spent probing, counted as warm-up */
	double cpu_busy;		/* pbench_prepared_cpu_busy() */
	double rest_ratio;		/* of a FIFO run, to rest after it (see rest_pct) */
};

/* The work of the warm-up and of the priority probe's runs. */
struct pb_work {
	pbench_fn fn;
	void *ctx;
	uint64_t n;			/* calls of fn, or iterations of the xor loop, per run */
};

/* prepare_step.c: what every step shares. CLOCK_MONOTONIC_RAW in ms. */
double pb_now_ms(void);
/* Record the outcome of a step (PBENCH_PREPARE_STEP_*): its status, -errno or 0, and what
 * happened. */
void pb_outcome(struct pbench_prepared *p, int step, int status, int error,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* PBENCH_PREPARE_NOT_PERMITTED for -EPERM and -EACCES, else PBENCH_PREPARE_FAILED. */
int pb_step_status(int err);
/* sched_getattr(2) of a thread (0: the calling one); -errno on failure. */
int pb_sched_getattr(pid_t tid, struct pb_sched_attr *a);
/* One run of w, timed: returns its ms. */
double pb_work_run(const struct pb_work *w);
/* Sleep ms (nothing for ms <= 0); a signal ends it early. */
void pb_rest_ms(double ms);
/* Set w->n so that one run lasts about ms (one call at least). */
void pb_work_calibrate(struct pb_work *w, double ms);

/* AUTO's decision kept for this boot (prepare_cache.c): get fills p->prio's probe figures,
 * the mode and when (seconds since the epoch) and returns 1, or 0 when none is kept; put
 * keeps p's (0 or -errno). */
int pb_prio_cache_get(struct pbench_prepared *p, int *mode, double *when);
int pb_prio_cache_put(const struct pbench_prepared *p, int mode);

/* The priority step (prepare_prio.c): nice, SCHED_FIFO, or the probe that chooses. */
void pb_step_priority(struct pbench_prepared *p, struct pb_work *w);

/* Another process's thread named comm (NULL: this process's name) pinned to cpu alone: its
 * pid, or 0 (rival.c). */
pid_t pb_cpu_rival(int cpu, const char *comm);

#endif
