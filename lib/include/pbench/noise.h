/* SPDX-License-Identifier: MIT */
/* pbench/noise.h - part of pbench.h (include <pbench.h>; the parts come in data-flow order,
 * each including the one before it). */
#ifndef PBENCH_H_NOISE
#define PBENCH_H_NOISE

#include "measure.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Noise attribution (noise.c): what happened on a CPU during a run, and why a run was slow
 *
 * A probe takes, for one CPU, the deltas over a run of what the kernel counts per CPU: the
 * interrupts delivered to it by source (/proc/interrupts), softirqs (/proc/softirqs) and
 * stolen time (/proc/stat). The task's own noise (context switches, migrations, faults, time
 * not running) is struct pbench_noise above. pbench_noise_cause() turns both into one line.
 * The files are read through PBENCH_PROCFS_ROOT like every /proc read.
 */
struct pbench_cpu_probe;

#define PBENCH_NOISE_TOP 3

/* One row of /proc/interrupts or /proc/softirqs and its count over the run. Not versioned
 * (no size): it never grows. The strings are the library's, valid for the life of the
 * process; NULL in an unused entry (count 0). */
struct pbench_noise_source {
	const char *label;		/* "36", "NET_RX" */
	const char *name;		/* the device ("nvme0q1"), or the label again */
	uint64_t count;
};

enum pbench_cpu_noise_flags {
	PBENCH_CPU_NOISE_NO_IRQ = 1 << 0,	/* /proc/interrupts unreadable, or no column for
						 * the CPU: the irq_ fields are 0, not known */
	PBENCH_CPU_NOISE_NO_SOFTIRQ = 1 << 1,	/* likewise /proc/softirqs */
	PBENCH_CPU_NOISE_NO_STEAL = 1 << 2,	/* no steal for the CPU in /proc/stat: NaN */
	PBENCH_CPU_NOISE_BACKWARDS = 1 << 3,	/* a count went down during the run (not a
						 * kernel's file?): that row is taken as 0 */
	PBENCH_CPU_NOISE_CUT = 1 << 4,		/* a file outgrew the probe's buffer at end:
						 * rows past the cut are missing */
};

/* What happened on one CPU during a run: deltas between begin and end. */
struct pbench_cpu_noise {
	size_t size;
	int cpu;
	unsigned flags;			/* enum pbench_cpu_noise_flags */
	/* Interrupts delivered to the CPU. irq_total = timer + ipi + other + device. */
	uint64_t irq_total;
	uint64_t irq_timer;		/* LOC, the local timer: scheduler tick and hrtimers */
	uint64_t irq_ipi;		/* inter-processor: RES, CAL, TLB, IWI (arm64: IPIn) */
	uint64_t irq_other;		/* the other per-CPU rows: NMI, PMI, MCE, THR, ... */
	uint64_t irq_device;		/* the numbered IRQs of devices */
	struct pbench_noise_source irq_top[PBENCH_NOISE_TOP];	  /* devices, busiest first;
								   * count 0: unused */
	uint64_t softirq_total;
	struct pbench_noise_source softirq_top[PBENCH_NOISE_TOP]; /* TIMER, NET_RX, RCU, ... */
	uint64_t steal_ticks;		/* /proc/stat steal, in USER_HZ ticks (10 ms at 100) */
	double steal_ns;		/* the same in ns; NaN with PBENCH_CPU_NOISE_NO_STEAL */
	/* irq_ipi by kind (RES, CAL, TLB, IWI; arm64's IPIn), busiest first; count 0: unused */
	struct pbench_noise_source ipi_top[PBENCH_NOISE_TOP];
};

/* A probe for cpu (>= 0; it need not be the caller's). Errors: -EINVAL, -ENOMEM. */
PBENCH_API int pbench_cpu_probe_new(struct pbench_cpu_probe **out, int cpu);
PBENCH_API void pbench_cpu_probe_free(struct pbench_cpu_probe *p);
/*
 * Take the counts before a run. Nothing is allocated or read between begin and end; end reads
 * the files again without allocating. A probe can be begun again after end. Returns 0 if any
 * of the three files gave the CPU's counts, else the error of /proc/interrupts (-ENOENT when
 * it has no column for the CPU, or -errno); -ENOMEM.
 */
PBENCH_API int pbench_cpu_probe_begin(struct pbench_cpu_probe *p);
/*
 * Fill out (out->size set by the caller) with the deltas since begin; what could not be read
 * is 0 (steal_ns NaN) and flagged. Returns 0 if anything was measured, else the first read
 * error (out is still filled); -PBENCH_EBUSY_REGION without a begin; -EINVAL.
 */
PBENCH_API int pbench_cpu_probe_end(struct pbench_cpu_probe *p, struct pbench_cpu_noise *out);

enum pbench_cause_flags {
	PBENCH_CAUSE_FIFO = 1 << 0,	/* the run was SCHED_FIFO: a preemption with ~50 ms
					 * (45-55) not running is named the fair server's */
	/* task's not_running_ns and ctx_voluntary are beyond a typical run's: the time a
	 * command spends blocked on its own (a sleep, I/O it waits for) is in every run and is
	 * not noise, so the caller took the typical run's out; worded "X off the CPU beyond a
	 * typical run's waiting", "blocked N times more than a typical run". The unseen
	 * clause then says "off the CPU no longer than a typical run's waiting" (not "on the
	 * CPU all along"). */
	PBENCH_CAUSE_OWN_WAIT = 1 << 1,
	/* pbench_noise_cause_speed()'s factors are the clock's (pb_clock_loop, latency-bound):
	 * worded "the clock ran at 0.54x its best"; without, the throughput reference's,
	 * worded "the core's issue throughput available to this thread was 0.54x its best"
	 * (issue 27: that is not the CPU's speed). */
	PBENCH_CAUSE_CLOCK = 1 << 2,
	/* With PBENCH_CAUSE_CLOCK: the clock's factors are the PMU's, the run's own cycles over
	 * its task-clock (pbench_runs_clock()), worded "(cycles over task-clock, the PMU's, over
	 * the run)" instead of "(latency-bound reference before/after)". */
	PBENCH_CAUSE_CLOCK_PMU = 1 << 3,
	/* task's counts and time not running (and cpu's interrupts and steal, as pbench's runs
	 * pass them) are what the run had within its timed span beyond a typical run of its
	 * set (the medians; each 0 when not beyond): the clauses are said after "beyond a
	 * typical run, ", and a slower run whose extra time task-clock
	 * says was on the CPU (not running beyond the typical under a tenth of the excess, no
	 * major fault, no steal its ticks prove to be a tenth of it) is said so ("on the CPU for the extra time by task-clock: it
	 * rose 1.63 ms of the +1.64 ms") instead of its preemptions and blocks, which cost it
	 * under a tenth (issue 37). With PBENCH_CAUSE_OWN_WAIT too, each clause says it is
	 * beyond ("preempted once more than a typical run"). */
	PBENCH_CAUSE_TYPICAL = 1 << 4,
};

/*
 * One line saying why a run took excess_ns more (or less) than usual, from the numbers only:
 * "+50.2 ms: 48 ms not running, preempted 3 times; 2 device interrupts (nvme0q1), 12 timer
 * interrupts". The parts, each only when non-zero: time not running (when at least 1% of the
 * excess), preempted / blocked / migrated counts, major faults; interrupts on the CPU by
 * source (device names, busiest first); steal. The time clauses go by size (steal first when
 * larger than the time not running); interrupts, whose cost is not measured, come after the
 * scheduler's part. Softirqs are not named. A slower run that task-clock says was on the CPU
 * all along (not running under a tenth of the excess, no preemption or major fault, and no
 * steal its ticks prove to be a tenth of the excess) ends with "on the CPU all along by task-clock: slowed by what the kernel cannot see (the
 * hypervisor, an SMT sibling, the clock speed) or by the work itself". task or cpu may be
 * NULL. With nothing recorded: "+X: no noise recorded". Times have 2 significant digits (the
 * excess 3). Steal is counted in whole ticks (10 ms at USER_HZ 100), so a count of n ticks is
 * more than n - 1 and less than n + 1 of them: from 10 ticks on it is said as a time with as
 * many digits as n has, under 10 as the range ("up to 20 ms stolen by the hypervisor
 * (/proc/stat counts steal in 10 ms ticks: 1 moved)"). Returns the length the whole line needs (snprintf semantics);
 * -EINVAL for a non-finite excess or a NULL buf with len > 0.
 */
PBENCH_API int pbench_noise_cause(char *buf, size_t len, double excess_ns,
				  const struct pbench_noise *task,
				  const struct pbench_cpu_noise *cpu, unsigned flags);
/*
 * pbench_noise_cause() with the speed references read around the run (pbench_speed_factor(): speed
 * for this run, typical for a typical run of its set, its median; run_ns the run's time).
 * When the speed explains at least half of the excess (the run would have taken
 * run_ns * speed / typical at the typical speed), the line says so first: "+22.9 ms: the
 * core's issue throughput available to this thread was 0.54x its best (throughput reference
 * before/after); nothing the kernel saw: host contention on a VM, or the clock" (the last
 * clause when the kernel saw no preemption, steal, major fault, nor time not running), then
 * the kernel's clauses; a run faster by its speed likewise ("-5.1 ms: ... was 1.00x its best
 * (throughput reference before/after; 0.57x in a typical run)"); with PBENCH_CAUSE_CLOCK in
 * flags the factors are the clock's: "the clock ran at 0.54x its best (latency-bound
 * reference before/after)". Otherwise the line of pbench_noise_cause(), whose "on the CPU
 * all along" clause then gives the factor and says it explains under half.
 * speed or typical NaN: exactly pbench_noise_cause(). Returns and errors as it does.
 */
PBENCH_API int pbench_noise_cause_speed(char *buf, size_t len, double excess_ns, double run_ns,
					double speed, double typical,
					const struct pbench_noise *task,
					const struct pbench_cpu_noise *cpu, unsigned flags);

#ifdef __cplusplus
}
#endif
#endif /* PBENCH_H_NOISE */
