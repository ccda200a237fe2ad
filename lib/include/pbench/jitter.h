/* SPDX-License-Identifier: MIT */
/* pbench/jitter.h - part of pbench.h (include <pbench.h>; the parts come in data-flow order,
 * each including the one before it). */
#ifndef PBENCH_H_JITTER
#define PBENCH_H_JITTER

#include "samples.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Jitter (jitter.c, jitter_explain.c, jitter_report.c, jitter_plot.c): how often each CPU is
 * interrupted, for how long, and by what
 *
 * One thread per CPU, pinned and named "pbench-jitter", spins reading the clock; a step
 * between two consecutive reads longer than the threshold is an interruption (a gap), kept
 * with its start and length in a buffer allocated and touched before the window (nothing is
 * allocated while spinning). Over the same window each thread takes its CPU's interrupts by
 * source, softirqs and steal (pbench_cpu_probe_*), its own involuntary context switches
 * (getrusage RUSAGE_THREAD) and, where the kernel's msr PMU has an smi event, the SMI count.
 * From those the result says which sources can account for the gaps counted.
 */
struct pbench_jitter;

enum pbench_jitter_flags {
	/* The probe thread prepares itself (pbench_prepare() on its CPU: priority AUTO,
	 * memory locked, NUMA-local, warmed up) before its window and restores after. One CPU
	 * only: the memory lock is the process's. */
	PBENCH_JITTER_PREPARED = 1 << 0,
};

struct pbench_jitter_opts {
	size_t size;			/* sizeof(struct pbench_jitter_opts) */
	const int *cpus;		/* the CPUs to probe; NULL or ncpus 0: every CPU the
					 * process may run on */
	int ncpus;
	double duration_s;		/* the window, > 0 (default 5 with PBENCH_JITTER_OPTS_INIT) */
	double threshold_ns;		/* a longer step is a gap; 0: 10x the minimum loop period
					 * measured before the window, and at least 1000 ns */
	unsigned flags;			/* enum pbench_jitter_flags */
	/* Polled about every millisecond while spinning: non-zero ends every window early
	 * (a SIGINT handler sets it); the result is then marked PBENCH_JITTER_CPU_STOPPED. */
	const volatile int *stop;
	/* The text writer's prose wrapped at this many columns (0: not wrapped), as every text
	 * writer wraps (output.h). */
	int text_width;
};

#ifdef __cplusplus	/* see PBENCH_MEASURE_OPTS_INIT */
#define PBENCH_JITTER_OPTS_INIT \
	([] { struct pbench_jitter_opts pbench_o_ = {}; pbench_o_.size = sizeof(pbench_o_); \
	      pbench_o_.duration_s = 5; return pbench_o_; }())
#else
#define PBENCH_JITTER_OPTS_INIT { .size = sizeof(struct pbench_jitter_opts), .duration_s = 5 }
#endif

/* The gap buffer holds this many gaps per second of window per CPU (16 bytes each); past it
 * gaps are still counted, timed and kept in the maximum, but not kept one by one. */
#define PBENCH_JITTER_MAX_RATE 100000

/* One interruption: when it started (ticks since the window's start) and how long it was. */
struct pbench_jitter_gap {
	uint64_t start_ticks;
	uint64_t ticks;
};

enum pbench_jitter_source_kind {
	PBENCH_JITTER_SOURCE_TIMER = 1,		/* LOC: the scheduler tick and hrtimers */
	PBENCH_JITTER_SOURCE_IPI,		/* RES, CAL, TLB, IWI: other CPUs' requests */
	PBENCH_JITTER_SOURCE_DEVICE,		/* a numbered device interrupt (name: the device) */
	PBENCH_JITTER_SOURCE_OTHER_IRQ,		/* NMI, PMI, MCE, THR, ... */
	PBENCH_JITTER_SOURCE_SOFTIRQ,		/* a softirq (TIMER, RCU, SCHED, NET_RX...) */
	PBENCH_JITTER_SOURCE_PREEMPTION,	/* the probe thread's involuntary switches */
	PBENCH_JITTER_SOURCE_STEAL,		/* time the hypervisor ran something else (ns) */
	PBENCH_JITTER_SOURCE_SMI,		/* system management interrupts (msr/smi/) */
};

/* One source of interruptions over the window (pbench_jitter_source()). The strings are
 * never NULL and owned by the jitter object (base.h). */
struct pbench_jitter_source {
	size_t size;
	int kind;			/* enum pbench_jitter_source_kind */
	const char *name;		/* "local timer interrupts", "virtio1-req.0 (IRQ 36)" */
	int available;			/* 0: could not be read; reason says why */
	uint64_t count;			/* events (steal: USER_HZ ticks) */
	double per_s;			/* count per second of window */
	double ns;			/* steal: the time stolen; NaN for the others */
	const char *reason;		/* why not available, "" otherwise */
};

#define PBENCH_JITTER_MAX_SOURCES 16

enum pbench_jitter_cpu_flags {
	PBENCH_JITTER_CPU_STOPPED = 1 << 0,	/* the window was cut short by opts->stop */
	PBENCH_JITTER_CPU_TRUNCATED = 1 << 1,	/* the buffer filled: quantiles, histogram
						 * and gaps are of the first ngaps only */
	PBENCH_JITTER_CPU_SHARED = 1 << 2,	/* another pbench jitter spun on this CPU
						 * (other_pid) */
	PBENCH_JITTER_CPU_PREPARED = 1 << 3,	/* the thread was prepared (prepared says how) */
	PBENCH_JITTER_CPU_MIGRATED = 1 << 4,	/* the thread ran elsewhere during the window
						 * (the CPU went offline?): not this CPU's figures */
};

/* The figures of one CPU. Times in ns are converted from ticks with pbench_ticks_to_ns_f. */
struct pbench_jitter_cpu {
	size_t size;
	int cpu;
	unsigned flags;			/* enum pbench_jitter_cpu_flags */
	double duration_s;		/* the window as spun */
	uint64_t start_ticks;		/* the window's first clock read (pbench_ticks()) */
	uint64_t end_ticks;		/* its last */
	uint64_t loops;			/* clock reads in the window */
	double loop_min_ns;		/* loop period, from 512 timed batches before the window */
	double loop_median_ns;
	double threshold_ns;		/* as used (derived or given) */
	uint64_t interruptions;		/* gaps over the threshold */
	double interruptions_per_s;
	double noise_ns;		/* sum of the gaps */
	double noise_pct;		/* of the window */
	double max_gap_ns;
	double p50_ns, p90_ns, p99_ns, p999_ns;	/* of the gaps' lengths; NaN with no gap */
	size_t ngaps;			/* gaps kept one by one (< interruptions when TRUNCATED) */
	uint64_t ctx_involuntary;	/* the probe thread's, over the window */
	uint64_t ctx_voluntary;
	int policy;			/* SCHED_OTHER, SCHED_FIFO... in force during the window */
	int priority;			/* FIFO/RR priority, or the nice value */
	pid_t other_pid;		/* with PBENCH_JITTER_CPU_SHARED: the other process */
	int nsources;			/* sources, busiest first: pbench_jitter_source() */
	/* The texts: never NULL, owned by the jitter object (base.h). */
	const char *explained;		/* which sources account for the gaps, and the fixes */
	const char *prepared;		/* with PBENCH_JITTER_CPU_PREPARED: what was done */
};

/* One bin of a gap-length histogram: gaps with lo_ns <= length < hi_ns. */
struct pbench_jitter_bin {
	double lo_ns, hi_ns;
	uint64_t count;
};

/*
 * Probe the CPUs (opts NULL: the defaults). Blocks for the window plus about 20 ms per CPU
 * of set-up (and, with PBENCH_JITTER_PREPARED, the preparation's 2-3 s). Errors, with
 * nothing left changed: -EINVAL (NULL out, opts->size 0, a CPU not in the process's
 * affinity (not allowed or not online), a CPU twice, a duration not > 0 or not finite, a
 * negative or non-finite threshold, PBENCH_JITTER_PREPARED with more than one CPU, an
 * unknown flag), -E2BIG (the gap buffers for this duration do not fit: see
 * pbench_jitter_max_duration_s()), -ENOMEM, -errno of creating a thread, the errors of
 * pbench_prepare() with PBENCH_JITTER_PREPARED.
 */
PBENCH_API int pbench_jitter_run(struct pbench_jitter **out, const struct pbench_jitter_opts *opts);
PBENCH_API void pbench_jitter_free(struct pbench_jitter *j);

/* The longest window whose gap buffers fit for ncpus CPUs: together at most a quarter of the
 * machine's memory (1 GiB when it cannot be read). */
PBENCH_API double pbench_jitter_max_duration_s(int ncpus);
/*
 * What pbench_jitter_run() would refuse in opts before anything spins, said by
 * pbench_strerror() of the error in the words of pbench jitter: PBENCH_JITTER_PREPARED with
 * more than one CPU (-EINVAL), a window whose gap buffers do not fit for the CPUs asked, or
 * for every CPU of the process's affinity when none is (-E2BIG). 0 when neither; -EINVAL for
 * a NULL opts. The CPUs themselves are checked by the run.
 */
PBENCH_API int pbench_jitter_check(const struct pbench_jitter_opts *opts);

/* Number of CPUs probed; the figures of the i-th (out->size set by the caller); -EINVAL for
 * an index out of range or a size of 0. */
PBENCH_API int pbench_jitter_nr(const struct pbench_jitter *j);
PBENCH_API int pbench_jitter_cpu(const struct pbench_jitter *j, int i,
				 struct pbench_jitter_cpu *out);
/* Source k (0 to nsources - 1 of pbench_jitter_cpu(), busiest first) of the i-th CPU into
 * out (out->size set by the caller, any size: base.h). 0, or -EINVAL for an index out of
 * range, a NULL or a size of 0. */
PBENCH_API int pbench_jitter_source(const struct pbench_jitter *j, int i, int k,
				    struct pbench_jitter_source *out);
/* The i-th CPU's gaps in the order they happened; returns how many (ngaps) or -EINVAL. */
PBENCH_API long pbench_jitter_gaps(const struct pbench_jitter *j, int i,
				   const struct pbench_jitter_gap **gaps);
/* The clock's ticks per second the gaps are in. */
PBENCH_API uint64_t pbench_jitter_hz(const struct pbench_jitter *j);
/*
 * The i-th CPU's gap lengths in a log-scale histogram: bins from a power of two of ns at or
 * below the threshold to one above the longest gap, two per octave (edges 2^k and
 * 1.5 * 2^k), empty bins between included. Returns the number of bins (bins[0..max-1] are
 * filled up to max) or -EINVAL; 0 when there was no gap.
 */
PBENCH_API int pbench_jitter_histogram(const struct pbench_jitter *j, int i,
				       struct pbench_jitter_bin *bins, int max);
/* The CPU with the least noise time per second (ties: fewer interruptions), or -1. */
PBENCH_API int pbench_jitter_quietest(const struct pbench_jitter *j);

/*
 * The report as text, a table with one row per CPU (interruptions and per second, noise time
 * and %, loop period, gap quantiles and maximum, the top sources), each CPU's explanation, and
 * the quietest CPU. With prepared (a PBENCH_JITTER_PREPARED run of the same CPU, else NULL),
 * both rows and the difference. Errors: -EINVAL, -EIO.
 */
/* The explanations (what each CPU's time went to, its sources, the warnings, the comparison
 * and the verdict) are wrapped at j's opts.text_width; the table stays as it is. */
PBENCH_API int pbench_jitter_write_text(const struct pbench_jitter *j,
					const struct pbench_jitter *prepared, FILE *f);
/*
 * The report as JSON (schema PBENCH_JSON_SCHEMA, schema/jitter.schema.json): pbench_version,
 * host, threshold_ns, duration_s, clock, cpus[]
 * each with cpu, loop_ns {min, median}, interruptions, interruptions_per_s, noise_ns,
 * noise_pct, max_gap_ns, quantiles_ns {p50, p90, p99, p999}, histogram [{lo_ns, hi_ns,
 * count}], sources [{kind, name, count, per_s, ns, available, reason}], explained, and the
 * flags; quietest_cpu; "prepared" {cpus[]} and "difference" (null without prepared). Errors as
 * pbench_jitter_write_text(), and -ENOMEM.
 */
PBENCH_API int pbench_jitter_write_json(const struct pbench_jitter *j,
					const struct pbench_jitter *prepared, FILE *f);
/*
 * Per CPU, the gap-length histogram (log scale) and a timeline of the gaps (when, how long:
 * cells of time by length, shaded by how many gaps began there) as a self-contained SVG 1.1
 * on f, one row per CPU (at most 64). Errors: -EINVAL, -ENOMEM, -EIO.
 */
PBENCH_API int pbench_jitter_plot_svg(const struct pbench_jitter *j, FILE *f, const char *title);
/* The report in format fmt (enum pbench_report_format): the text or the JSON (with prepared,
 * as those writers take it), or the plot of j titled "pbench jitter". Their errors, or
 * -EINVAL for another fmt. */
PBENCH_API int pbench_jitter_write(const struct pbench_jitter *j,
				   const struct pbench_jitter *prepared, int fmt, FILE *f);
/*
 * The probe's outcome, one finding at a time as pbench_runs_outcome() (enum
 * pbench_outcome_kind): with PBENCH_OUTCOME_INTERRUPTED, "interrupted: M of D s measured" (M
 * what the last probe done spun, prepared's when given; D the window asked), with " (the
 * prepared run was not done)" when PBENCH_OUTCOME_PREPARED asked for one and prepared is
 * NULL: PBENCH_OUTCOME_ERROR. Returns the kind with the sentence in buf (cut to len), 0 past
 * the last, -EINVAL.
 */
PBENCH_API int pbench_jitter_outcome(const struct pbench_jitter *j,
				     const struct pbench_jitter *prepared, unsigned flags, int k,
				     char *buf, size_t len);

/* "timer", "ipi", "device", "other_irq", "softirq", "preemption", "steal", "smi". */
PBENCH_API const char *pbench_jitter_source_kind_name(int kind);

#ifdef __cplusplus
}
#endif
#endif /* PBENCH_H_JITTER */
