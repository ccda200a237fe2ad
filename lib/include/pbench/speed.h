/* SPDX-License-Identifier: MIT */
/* pbench/speed.h - part of pbench.h (include <pbench.h>; the parts come in data-flow order,
 * each including the one before it). */
#ifndef PBENCH_H_SPEED
#define PBENCH_H_SPEED

#include "workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * The speed a thread gets (speed.c, speed_probe.c): what the kernel cannot see
 *
 * On a VM the host can give a vCPU's physical core to someone else (another guest, an SMT
 * sibling the guest cannot see); on bare metal the clock changes (turbo, thermal limits, a
 * power cap). Code then runs slower while the guest kernel sees nothing: no preemption, no
 * steal, task-clock equal to wall time. A reference loop of fixed register-only work, timed on
 * the same CPU right before and right after a run, measures it: the run's speed factor is the
 * loop's best time in the invocation over its time around the run (1: the best speed seen,
 * 0.5: half of it). It cannot see what slows memory-bound code only (shared caches, memory
 * bandwidth): kmod-free-docs/hidden-contention.md.
 */
struct pbench_speed;

#define PBENCH_SPEED_LOOP_NS 10000	/* one pass of the loop, as calibrated */
#define PBENCH_SPEED_REPS 3		/* passes per reading; the fastest one counts */
#define PBENCH_SPEED_VARIED 1.10	/* speeds that far apart (max/min) "varied" */

/*
 * The reference loop, calibrated on the calling thread's CPU: iterations for about
 * PBENCH_SPEED_LOOP_NS a pass (a few hundred microseconds of calibration). Errors: -EINVAL
 * (NULL out), -ENOMEM.
 */
PBENCH_API int pbench_speed_new(struct pbench_speed **out);
PBENCH_API void pbench_speed_free(struct pbench_speed *s);
/*
 * One reading on the calling thread's CPU: PBENCH_SPEED_REPS passes back to back, the fastest
 * in ns (*ns), kept for pbench_speed_best_ns(). cost_ns (may be NULL) gets the time the
 * whole reading took, which is the harness's cost. Errors: -EINVAL.
 */
PBENCH_API int pbench_speed_read(struct pbench_speed *s, double *ns, double *cost_ns);
/*
 * The best of a set of readings (ns): the fastest one that the next fastest confirms (within
 * 3%), because on a busy host the loop is sometimes much faster for a burst of tens of
 * microseconds that no run lasts; the fastest when none is confirmed. Readings that are not
 * finite and positive are left out; NaN for none.
 */
PBENCH_API double pbench_speed_best(const double *readings, size_t n);
/* pbench_speed_best() of every reading so far (NaN before the first), and the loop's
 * iterations. */
PBENCH_API double pbench_speed_best_ns(const struct pbench_speed *s);
PBENCH_API uint64_t pbench_speed_iterations(const struct pbench_speed *s);
/*
 * The speed factor of a span read before and after: best_ns over the mean of the two
 * readings (one alone when the other is not finite). 1: the best speed; 0.5: half of it.
 * NaN when best_ns or both readings are not finite and positive.
 */
PBENCH_API double pbench_speed_factor(double best_ns, double before_ns, double after_ns);
/*
 * The factors of n runs in the order they ran, from the readings right before and after each
 * (ns; NaN: none). On a busy host the loop is sometimes much slower or faster for a burst of
 * tens of microseconds that no run lasts: a reading whose neighbours in time (the readings just
 * before and just after it) agree with each other and both find it PBENCH_SPEED_VARIED apart,
 * on the same side, is such a burst and is left out, while a slow stretch covering a run slows
 * both of its readings. The best is pbench_speed_best() of the readings kept (*best_ns, may be NULL);
 * a reading faster than it is one no other reading confirmed, not trusted as the best and so
 * not as a run's speed either: it is left out too, and no factor is above 1. A run's factor is
 * pbench_speed_factor() of its kept readings (NaN: none kept). A run's before equal
 * to the last run's after is taken as that one reading, read once between them, and is in the
 * sequence once. Errors: -EINVAL, -ENOMEM.
 */
PBENCH_API int pbench_speed_factors(const double *before, const double *after, size_t n,
				    double *factors, double *best_ns);

/* What a summary's factors were read from. A clock's factors are the PMU's where the runs'
 * own counters allow it (cycles, the kernel's too, and task-clock, both counted all the run
 * long: the run's own cycles over its task-clock, its effective GHz, against the best run's of
 * the invocation), else the clock's reference loop read around each run. */
enum pbench_speed_source {
	PBENCH_SPEED_SOURCE_REFERENCE = 0,	/* a reference loop read before and after */
	PBENCH_SPEED_SOURCE_PMU,		/* the run's cycles over its task-clock */
};

/* The speed factors of a set of runs, and what they explain of the times. */
struct pbench_speed_summary {
	size_t size;
	int n;				/* runs with a factor */
	double min, median, max;	/* their factors */
	double range;			/* max / min: 1 when the speed did not vary */
	int slow;			/* runs below max / PBENCH_SPEED_VARIED */
	double corr;			/* Pearson's r of the times against 1/factor: 1 when the
					 * speed explains them; NaN without times, below 3 runs,
					 * or with either constant */
	double spread_pct;		/* the times' (max - min) / min */
	double spread_at_one_speed_pct;	/* the same of time x factor: what the spread would
					 * be if the time scaled with the speed */
	int source;			/* enum pbench_speed_source: what the factors were read
					 * from (a clock's: pbench_runs_clock()) */
};
/*
 * Summarize n runs: their factors and their times in ns (ns may be NULL: corr and the
 * spreads are NaN). Runs whose factor (or time) is not finite are left out. Errors: -EINVAL,
 * -ENODATA (no run with a factor; out->n is 0).
 */
PBENCH_API int pbench_speed_summarize(const double *ns, const double *factors, size_t n,
				      struct pbench_speed_summary *out);
/*
 * In words, of the throughput reference's factors alone (the clock's not read), when they
 * varied (range >= PBENCH_SPEED_VARIED): "the core's issue throughput available to this
 * thread varied 1.88x (0.53x to 1.00x of its best, throughput reference; the clock not read),
 * 4 runs slow; time against 1/throughput r = 0.97: it explains the spread" (r >= 0.8; "part
 * of the spread" from 0.5, else "not what spread the runs"). Not the CPU's speed: that is the
 * clock's (pbench_speed_explain() with both). "" when they did not vary, or with no factor.
 * Returns the length (snprintf semantics); -EINVAL.
 */
PBENCH_API int pbench_speed_note(char *buf, size_t len, const struct pbench_speed_summary *s);

/*
 * The clock's reference (issue 27): the loop above is throughput-bound (one-cycle dependent
 * operations), so it measures the share of the core's issue slots this thread gets, which an
 * SMT sibling on the host halves while the clock is unchanged. The clock's reference is a
 * dependent chain of multiply-add (latency-bound: a 4-cycle step that a sibling does not
 * slow): one reading as pbench_speed_read() gives of the other, calibrated at its first call,
 * its readings kept apart (pbench_speed_best_clock_ns(): NaN before the first). No hardware
 * counters: where a run's own counters allow it, runs read the clock from the PMU instead
 * (pbench_runs_clock(): cycles over task-clock). Errors: -EINVAL.
 */
PBENCH_API int pbench_speed_read_clock(struct pbench_speed *s, double *ns, double *cost_ns);
PBENCH_API double pbench_speed_best_clock_ns(const struct pbench_speed *s);
/*
 * The runs to blame on the CPU's speed, from the summaries of the throughput's factors (thr)
 * and the clock's (clk, NULL or no run: not read, and thr's slow runs as before): the clock's
 * slow runs when it varied, or the throughput's when the command's own times follow it (time
 * against 1/throughput r >= 0.5) and they are more; a latency-bound command is not slow when
 * only the throughput fell. -EINVAL (thr NULL).
 */
PBENCH_API int pbench_speed_slow_runs(const struct pbench_speed_summary *thr,
				      const struct pbench_speed_summary *clk);
/*
 * Which slowed, in words: "the CPU's clock varied 1.33x (0.75x to 1.00x of its best,
 * latency-bound reference; "cycles over task-clock, the PMU's" when clk->source says so), 3
 * runs slow; time against 1/clock r = 0.99: ..." when the clock
 * did; else, when the throughput did, "the core's issue throughput available to this thread
 * fell to 0.53x (median; 0.44x to 1.00x of its best); the clock did not change (0.98x to
 * 1.00x): contention from a sibling sharing the core; time against 1/throughput r = -0.51:
 * not what spread the runs" (", 3 runs slow" when the command shows it); with the median
 * at its best and a few runs low, "... varied 0.58x to 1.00x of its best (median 0.99x); the
 * clock did not change (...): contention from a sibling sharing the core at times"; "" when neither
 * varied. The sibling is named only where the topology shows one (thread_siblings_list,
 * smt/active): a guest that sees one thread per core says "this guest sees one thread per core:
 * the host may run another guest's thread on this core's sibling", another machine "not a
 * sibling (one thread per core here): what took the core's issue slots is not known". clk
 * NULL or empty: pbench_speed_note(thr). Returns the length
 * (snprintf semantics); -EINVAL.
 */
PBENCH_API int pbench_speed_explain(char *buf, size_t len, const struct pbench_speed_summary *thr,
				    const struct pbench_speed_summary *clk);

/* A CPU's speed over a while (pbench check's speed.stability): the reference loop in slices. */
struct pbench_cpu_speed {
	size_t size;
	int cpu;
	double seconds;			/* measured */
	int slices;			/* of slice_ms each, with 50 passes or more */
	double slice_ms;
	uint64_t iterations;		/* a pass of the loop, calibrated on the CPU */
	double best_ns;			/* the fastest slice's median pass */
	double min, median, max;	/* the slices' speed: best_ns over the slice's median pass
					 * (max is 1) */
	double range;			/* max / min */
	int changes;			/* slices whose speed is PBENCH_SPEED_VARIED apart from the
					 * slice's before */
	double slow_ms;			/* time in slices below max / PBENCH_SPEED_VARIED */
	/* What the kernel saw meanwhile */
	uint64_t ctx_involuntary;	/* the probe's thread preempted */
	double not_running_ns;		/* wall time minus the thread's CPU time */
	int have_irqs;
	uint64_t irqs;			/* interrupts on the CPU (/proc/interrupts) */
	double steal_ns;		/* the CPU's steal (/proc/stat); NaN: not known */
	/* What the slices' medians do not show: bursts shorter than half a slice. The passes'
	 * mean (those up to twice the median, so not the ones an interrupt or a preemption
	 * hit) over the median, summed over the slices, less 1, in %: the time such bursts
	 * add to work that runs through them. */
	double burst_pct;
};
/*
 * Probe cpu's speed for seconds (0 < seconds <= 60) from a thread pbench starts there (normal
 * policy, signals blocked) and joins: nothing of the caller's changes. A slice the thread
 * hardly ran in (other work on the CPU) is left out, and the probe ends at twice its time.
 * Errors: -EINVAL (a NULL or sizeless out, seconds out of range, a negative cpu), -errno of
 * starting the thread (-EINVAL: a CPU this process may not use), -ENOMEM, -EBUSY (fewer than
 * two slices measured: the CPU is busy with other work).
 */
PBENCH_API int pbench_cpu_speed_probe(int cpu, double seconds, struct pbench_cpu_speed *out);

/* What slows a CPU down while another spins (pbench check's speed.colocation). */
enum pbench_cpu_sharing_kind {
	PBENCH_CPU_SHARING_NONE = 0,	/* no slowdown */
	PBENCH_CPU_SHARING_PREEMPTION,	/* as fast while running, less time running: the two took
					 * turns on one CPU, and the kernel saw it */
	PBENCH_CPU_SHARING_CORE,	/* slower while running, nothing the kernel saw: one
					 * physical core (SMT hidden by the hypervisor) */
	PBENCH_CPU_SHARING_HOST,	/* as fast while running, less work per wall second, yet
					 * running all along by the kernel: the host takes turns
					 * between the two vCPUs on one physical CPU */
};

struct pbench_cpu_sharing {
	size_t size;
	int cpu, other;
	int kind;			/* enum pbench_cpu_sharing_kind */
	int pairs;			/* phases alone, then with other spinning */
	double phase_ms;
	double alone_ns, spun_ns;	/* the loop's median pass, alone and with other spinning */
	double slowdown;		/* while running: median of the pairs' spun / alone pass */
	double wall_slowdown;		/* passes per wall second alone over with other spinning
					 * (median of the pairs) */
	double running_share;		/* share of the spun phases' wall time the probe ran, by
					 * the kernel (its thread's CPU time) */
	uint64_t ctx_involuntary;	/* the probe preempted during the spun phases */
	double alone_range;		/* the alone phases' median passes, slowest over fastest:
					 * the speed this thread got changing during the probe (from
					 * PBENCH_SPEED_VARIED the answer is uncertain) */
};
/*
 * The co-location probe: the reference loop on cpu, alone, then while a thread pbench starts
 * on other spins, in 8 pairs of alternating phases over seconds (0 < seconds <= 60); a kind
 * other than NONE needs 6 pairs of 8 to show it. other may be cpu itself (the two then take
 * turns: PREEMPTION, about 2x). Both threads are ended and joined
 * before it returns. Errors as pbench_cpu_speed_probe(); -ETIMEDOUT when the spinner never
 * got to run (other held by a real-time task).
 */
PBENCH_API int pbench_cpu_sharing_probe(int cpu, int other, double seconds,
					struct pbench_cpu_sharing *out);
PBENCH_API const char *pbench_cpu_sharing_kind_name(int kind);

#ifdef __cplusplus
}
#endif
#endif /* PBENCH_H_SPEED */
