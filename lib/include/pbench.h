/* SPDX-License-Identifier: MIT */
/*
 * pbench.h - the public interface of libpbench, a precision benchmarking library for Linux.
 *
 * Conventions:
 *  - Functions return 0 (or a count) on success and a negative error code on failure: -errno,
 *    or -PBENCH_E*. pbench_strerror() turns either into text. The library never prints and
 *    never exits; diagnostics go to the optional log callback (pbench_set_log()).
 *  - Structs a caller fills or receives carry `size` as their first member: set it to
 *    sizeof(struct ...) so the library can grow them without breaking old callers.
 *  - Times are in the clock's ticks (TSC ticks when the TSC is used) and in nanoseconds.
 */
#ifndef PBENCH_H
#define PBENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define PBENCH_API __attribute__((visibility("default")))
#else
#define PBENCH_API
#endif

#define PBENCH_VERSION_MAJOR 0
#define PBENCH_VERSION_MINOR 1
#define PBENCH_VERSION_PATCH 0
#define PBENCH_VERSION_STRING "0.1.0"

/* The version of the library actually linked (may differ from the header's). */
PBENCH_API const char *pbench_version(void);

/* ---------------------------------------------------------------------------------------------
 * Errors and diagnostics
 */

/* pbench's own error codes; functions return them negated. They start above any errno value. */
enum pbench_error {
	PBENCH_EUNKNOWN_EVENT = 10000,	/* an event name that neither libpfm4 nor sysfs knows */
	PBENCH_EBAD_EVENT_LIST,		/* empty or malformed event list ("a,,b", trailing comma) */
	PBENCH_EDUP_EVENT,		/* the same event listed twice */
	PBENCH_ENO_EVENTS,		/* no event of a request could be opened */
	PBENCH_ENOT_FOUND,		/* a command that is not found in PATH */
	PBENCH_ENOT_EXEC,		/* a command that exists but cannot be executed */
	PBENCH_EPFM,			/* libpfm4 failed to initialize or encode */
	PBENCH_EBUSY_REGION,		/* start/stop out of order */
	PBENCH_ENO_RDPMC,		/* user-space counter read not available for this event */
	PBENCH_EDIFFERENT,		/* compared functions do not compute the same thing */
	PBENCH_EBAD_INTERP,		/* a script's #! interpreter (or a binary's loader) is missing */
	PBENCH_ELAST
};

/* Text for a negative (or positive) error code: an errno or a PBENCH_E* value. */
PBENCH_API const char *pbench_strerror(int err);

enum pbench_log_level { PBENCH_LOG_ERROR, PBENCH_LOG_WARN, PBENCH_LOG_INFO, PBENCH_LOG_DEBUG };
typedef void (*pbench_log_fn)(int level, const char *msg, void *arg);

/* Route the library's diagnostics to fn (NULL: drop them). Not thread-safe against itself. */
PBENCH_API void pbench_set_log(pbench_log_fn fn, void *arg);

/* ---------------------------------------------------------------------------------------------
 * Clock (clock.c)
 *
 * pbench counts time in "ticks" of one clock chosen at load time: the TSC on x86-64 when it is
 * invariant (CPUID 0x80000007 EDX[8]), the generic timer's virtual counter CNTVCT_EL0 on arm64,
 * otherwise CLOCK_MONOTONIC_RAW in nanoseconds (one tick is then one ns). The environment variable PBENCH_CLOCK=monotonic_raw forces the latter. The tick readers are safe to call before anything else; the frequency is found
 * on the first call that needs it (pbench_clock_info, pbench_ticks_to_ns).
 */
enum pbench_clock_kind {
	PBENCH_CLOCK_TSC = 1,		/* invariant TSC, read with rdtsc */
	PBENCH_CLOCK_MONOTONIC_RAW,	/* clock_gettime(CLOCK_MONOTONIC_RAW) */
	PBENCH_CLOCK_CNTVCT,		/* arm64 generic timer, CNTVCT_EL0 read with ISBs */
};

enum pbench_freq_source {
	PBENCH_FREQ_PERF_PAGE = 1,	/* kernel's time_mult/time_shift in the perf mmap page */
	PBENCH_FREQ_CPUID,		/* CPUID leaf 0x15, or the hypervisor leaf 0x40000010 */
	PBENCH_FREQ_CALIBRATED,		/* measured against CLOCK_MONOTONIC_RAW */
	PBENCH_FREQ_NS,			/* the clock counts ns: no conversion needed */
	PBENCH_FREQ_CNTFRQ,		/* arm64: CNTFRQ_EL0, the frequency firmware set */
};

struct pbench_clock_info {
	size_t size;
	int kind;			/* enum pbench_clock_kind */
	int freq_source;		/* enum pbench_freq_source */
	int invariant_tsc;		/* 1 if CPUID reports an invariant TSC */
	uint64_t hz;			/* ticks per second */
	uint64_t mult;			/* ns = (ticks * mult) >> shift, in 128-bit arithmetic */
	uint32_t shift;
	double calib_agreement;		/* relative difference of the last two calibrations */
	int calib_rounds;		/* calibrations done (0 unless freq_source is CALIBRATED) */
	double resolution_ns;		/* smallest non-zero step between two consecutive reads */
	double read_cost_ns;		/* mean cost of one pbench_ticks() */
	double region_cost_ns;		/* mean cost of one pbench_ticks_begin()+pbench_ticks_end() */
};

/* Cheap read of the clock: no serialization. */
PBENCH_API uint64_t pbench_ticks(void);
/* Read that starts a timed region: earlier instructions finish first, later ones wait. */
PBENCH_API uint64_t pbench_ticks_begin(void);
/* Read that ends a timed region: the region's instructions finish before the clock is read. */
PBENCH_API uint64_t pbench_ticks_end(void);

/* Ticks to nanoseconds, exact to the truncated ns, no overflow for any 64-bit tick count. */
PBENCH_API uint64_t pbench_ticks_to_ns(uint64_t ticks);
/* Ticks to nanoseconds, with the fraction. */
PBENCH_API double pbench_ticks_to_ns_f(double ticks);

/*
 * Fill info (info->size must be set). The first call determines the frequency (perf page,
 * CPUID, or a calibration of 50-500 ms) and measures resolution and read cost; later calls
 * return the cached result. Errors: -EINVAL (bad size), -EIO (calibration did not converge).
 */
PBENCH_API int pbench_clock_info(struct pbench_clock_info *info);

/* Name of a clock kind / frequency source, e.g. "tsc", "calibrated". */
PBENCH_API const char *pbench_clock_kind_name(int kind);
PBENCH_API const char *pbench_freq_source_name(int source);

/* ---------------------------------------------------------------------------------------------
 * Events (events.c): names to perf_event_attr, via libpfm4 and sysfs PMU descriptions
 */

enum pbench_event_status {
	PBENCH_EVENT_OK = 0,		/* counted all the time it was enabled */
	PBENCH_EVENT_MULTIPLEXED,	/* counted part of the time: scaled value is an estimate */
	PBENCH_EVENT_NOT_COUNTED,	/* opened but never scheduled on a counter */
	PBENCH_EVENT_NOT_SUPPORTED,	/* this CPU/VM/kernel cannot count it */
	PBENCH_EVENT_NO_PERMISSION,	/* perf_event_paranoid, capabilities or seccomp forbid it */
};

PBENCH_API const char *pbench_event_status_name(int status);

enum pbench_event_kind {
	PBENCH_EVENT_HARDWARE = 1,	/* needs a hardware PMU (cycles, raw PMU events) */
	PBENCH_EVENT_SOFTWARE,		/* kernel software event (task-clock, page-faults...) */
	PBENCH_EVENT_PMU,		/* a sysfs PMU event such as msr/tsc/ */
	PBENCH_EVENT_OTHER,		/* tracepoint, breakpoint... */
};

/* "hardware", "software", "pmu" or "other". */
PBENCH_API const char *pbench_event_kind_name(int kind);

/* One entry of pbench_events_list(). */
struct pbench_event_desc {
	size_t size;
	char name[128];			/* the name to pass to pbench_counters_open() */
	char pmu[64];			/* "perf", "software", "msr", or a libpfm4 PMU name */
	char desc[256];
	int kind;			/* enum pbench_event_kind */
	int status;			/* enum pbench_event_status, from trying to open it now */
	int error;			/* -errno of the failed open, 0 when it opened */
	char reason[192];		/* why it does not open, with the fix where there is one */
	int user_read;			/* 1: a region's start/stop read it in user space */
	char read_reason[192];		/* if not, why ("" when user_read or not opened) */
};

enum pbench_list_flags {
	PBENCH_LIST_ALL = 1 << 0,	/* also every libpfm4 event of the detected hardware PMUs */
	PBENCH_LIST_NO_PROBE = 1 << 1,	/* do not try to open the events: status is not filled */
};

/*
 * List events: the generic perf names, the software events, the sysfs PMU events and, with
 * PBENCH_LIST_ALL, the libpfm4 events of the detected PMUs. *out is a malloc'ed array the
 * caller frees with free(). Returns the number of entries or a negative error.
 */
PBENCH_API int pbench_events_list(struct pbench_event_desc **out, unsigned flags);

/*
 * The known event name nearest to name (edit distance), for "did you mean" messages, or NULL.
 * The pointer stays valid until the next call from any thread.
 */
PBENCH_API const char *pbench_event_suggest(const char *name);

/* ---------------------------------------------------------------------------------------------
 * Counters (counters.c, mmap.c)
 *
 * A counter set is a list of events opened with perf_event_open on one target, in as few
 * groups as the kernel allows (each group read with one read()). Events that cannot be opened
 * stay in the set with their status and reason, so the caller can report them.
 */
struct pbench_counters;

enum pbench_counters_flags {
	PBENCH_COUNT_INHERIT = 1 << 0,		/* count the target's future children too */
	PBENCH_COUNT_ENABLE_ON_EXEC = 1 << 1,	/* start counting at the target's next exec */
	PBENCH_COUNT_USER_ONLY = 1 << 2,	/* exclude kernel and hypervisor */
	PBENCH_COUNT_START_ENABLED = 1 << 3,	/* enabled from open (default: disabled) */
	PBENCH_COUNT_NO_RDPMC = 1 << 4,		/* never use the user-space read path */
};

struct pbench_counters_opts {
	size_t size;
	pid_t pid;			/* 0: the calling thread; >0: that thread/process */
	int cpu;			/* -1: any CPU */
	unsigned flags;			/* enum pbench_counters_flags */
};

/* The value of one event, as read. */
struct pbench_count {
	size_t size;
	const char *name;		/* the name it was asked by; valid until the set is freed */
	int status;			/* enum pbench_event_status */
	int error;			/* -errno when it could not be opened, else 0 */
	const char *reason;		/* why it was not counted; "" when status is OK/MULTIPLEXED;
					 * the library's string, valid for the life of the process */
	uint64_t value;			/* raw count */
	uint64_t time_enabled;		/* ns the event was enabled */
	uint64_t time_running;		/* ns it was on a counter */
	double scaled;			/* value * enabled / running; equals value when not scaled */
	int is_scaled;			/* 1 when scaled differs from value (multiplexing) */
	int user_only;			/* 1: the kernel was excluded to get past
					 * perf_event_paranoid; the value is user space only */
};

/*
 * Open the comma-separated events for opts->pid (opts may be NULL: calling thread, any CPU,
 * disabled until pbench_counters_enable()). Name errors fail the whole call: -PBENCH_EUNKNOWN_EVENT
 * (see pbench_counters_last_error() for the name and a suggestion), -PBENCH_EBAD_EVENT_LIST,
 * -PBENCH_EDUP_EVENT. Events the machine cannot count do not fail the call; if none at all can
 * be opened, the call fails with -PBENCH_ENO_EVENTS and *out is still set so the caller can
 * report each event's reason (free it with pbench_counters_free()). -ESRCH: no such pid.
 */
PBENCH_API int pbench_counters_open(struct pbench_counters **out, const char *events,
				    const struct pbench_counters_opts *opts);
PBENCH_API void pbench_counters_free(struct pbench_counters *c);

/* Text of the last name error of pbench_counters_open in this thread, e.g.
 * "unknown event 'cylces' (did you mean 'cycles'?)". Empty string when none. */
PBENCH_API const char *pbench_counters_last_error(void);

/* Number of events in the set (opened or not), and how many kernel groups were opened. */
PBENCH_API int pbench_counters_nr(const struct pbench_counters *c);
PBENCH_API int pbench_counters_nr_groups(const struct pbench_counters *c);
/* Name of event i, and its status at open time (OK, NOT_SUPPORTED or NO_PERMISSION). */
PBENCH_API const char *pbench_counters_name(const struct pbench_counters *c, int i);
PBENCH_API int pbench_counters_open_status(const struct pbench_counters *c, int i);
/* 1 if event i is read in user space by start/stop (x86 rdpmc; arm64 PMEVCNTR<n>_EL0 or
 * PMCCNTR_EL0 through the perf page), 0 if by read(). After a start or stop it says what that
 * snapshot did; before, whether the kernel offers the user-space read at all. */
PBENCH_API int pbench_counters_uses_rdpmc(const struct pbench_counters *c, int i);
/* Why event i is read with read() rather than in user space ("" when it is read in user
 * space), e.g. "kernel.perf_user_access is 0 (...)" or "a software event: ...". The string is
 * valid until the set is freed or its next start/stop. */
PBENCH_API const char *pbench_counters_rdpmc_reason(const struct pbench_counters *c, int i);

/* Enable, disable and zero all groups (one ioctl per group). */
PBENCH_API int pbench_counters_enable(struct pbench_counters *c);
PBENCH_API int pbench_counters_disable(struct pbench_counters *c);
PBENCH_API int pbench_counters_reset(struct pbench_counters *c);

/*
 * Read the totals since enable (one read() per group) into counts[0..n-1], one per event in
 * order; events that were not opened get their status and a zero value. Returns the number of
 * events filled or a negative error. counts[i].size must be set.
 */
PBENCH_API int pbench_counters_read(struct pbench_counters *c, struct pbench_count *counts, int n);

/*
 * Counted region on enabled counters: start() and stop() take a snapshot each (rdpmc when every
 * opened event allows it: no syscall and no allocation; otherwise one read() per group), and
 * pbench_counters_delta() gives stop minus start with the same fields as a read.
 */
PBENCH_API int pbench_counters_start(struct pbench_counters *c);
PBENCH_API int pbench_counters_stop(struct pbench_counters *c);
PBENCH_API int pbench_counters_delta(const struct pbench_counters *c, struct pbench_count *counts,
				     int n);

/* Scale one count for multiplexing (fills scaled, is_scaled and status from the times). */
PBENCH_API void pbench_count_scale(struct pbench_count *count);

/* ---------------------------------------------------------------------------------------------
 * Child commands (child.c): count a command from its exec to its exit, as perf stat does
 */
struct pbench_child;

struct pbench_child_opts {
	size_t size;
	const char *events;		/* comma-separated, may be NULL or "" for time only */
	unsigned counter_flags;		/* added to INHERIT|ENABLE_ON_EXEC */
	int quiet;			/* child's stdout and stderr go to /dev/null */
	double kill_grace_s;		/* from SIGTERM to SIGKILL when ending the command and
					 * what it left running; 0: 1 s */
};

struct pbench_child_result {
	size_t size;
	int exited;			/* 1: exited normally, exit_status valid */
	int exit_status;
	int signaled;			/* 1: killed by term_signal */
	int term_signal;
	uint64_t ticks;			/* from releasing the child into exec to reaping it */
	uint64_t ns;
	/* The harness's own cost, measured for this run: */
	uint64_t setup_ticks;		/* fork, pipes and opening the counters: before the timed
					 * span, not in ticks */
	uint64_t exec_ticks;		/* from the release to exec's point of no return (the
					 * close-on-exec pipe seen closed): part of ticks; 0 when
					 * not known, as when pbench is pinned to one CPU (a
					 * prepared run) and sees exec only once the command
					 * blocks or ends */
	int left_behind;		/* processes the command left running when it ended
					 * (daemons, background jobs), ended by pbench */
};

/*
 * Find cmd as execvp would (a name with a '/' as given, else along PATH); path gets the file.
 * Errors: -PBENCH_ENOT_FOUND, -PBENCH_ENOT_EXEC (found but not executable, or a directory),
 * -PBENCH_EBAD_INTERP (a script whose #! interpreter is missing or not executable).
 * pbench_child_start does this itself; call it to refuse a bad command before anything else.
 */
PBENCH_API int pbench_command_resolve(const char *cmd, char *path, size_t len);
/* The #! interpreter of the file at path into interp: 1 when it has one, 0 when it does not
 * start with #!, -errno when it cannot be read. */
PBENCH_API int pbench_command_interp(const char *path, char *interp, size_t len);
/*
 * Resolve argv[0] in PATH, fork, open the counters on the child (enable_on_exec, inherit),
 * then let it exec. The command leads a process group of its own, and pbench is a child
 * subreaper (PR_SET_CHILD_SUBREAPER) until the run ends, so that nothing the command starts
 * outlives it: see pbench_child_wait(). While a command runs, orphans of the caller's other
 * children are handed to pbench too and are ended with the command's. Errors before anything
 * runs: -PBENCH_ENOT_FOUND, -PBENCH_ENOT_EXEC, -PBENCH_EBAD_INTERP, name errors of
 * pbench_counters_open, -errno of fork/pipe. If exec itself fails the child is reaped and
 * the exec errno is returned negated (ENOENT for a file that exists: -PBENCH_EBAD_INTERP).
 */
PBENCH_API int pbench_child_start(struct pbench_child **out, char *const argv[],
				  const struct pbench_child_opts *opts);
/*
 * Wait for the child to end and fill res; the counters stay readable until free. Then,
 * outside the timed span, whatever it left running (its process group, and processes it
 * started that were orphaned, daemons included) gets SIGTERM, SIGKILL after kill_grace_s, and
 * is reaped: res->left_behind says how many. A command that reads the terminal is given it
 * (as a shell's foreground job) and the terminal is taken back after.
 * -EINTR: a signal handler ran first; the child still runs: call again, or
 * pbench_child_free() to end it.
 */
PBENCH_API int pbench_child_wait(struct pbench_child *ch, struct pbench_child_result *res);
/* The same, giving up after timeout_s from the release (0: no limit) with -ETIMEDOUT; the
 * child still runs then (pbench_child_free() ends it). Polls a pidfd, so no signal is used. */
PBENCH_API int pbench_child_wait_timeout(struct pbench_child *ch, struct pbench_child_result *res,
					 double timeout_s);
/* The child's counter set (NULL if no events were asked for). */
PBENCH_API struct pbench_counters *pbench_child_counters(struct pbench_child *ch);
/* End the child if still running, with everything it started (SIGTERM to its group and the
 * processes handed to pbench, SIGKILL after the grace period), reap them, close everything. */
PBENCH_API void pbench_child_free(struct pbench_child *ch);

/* ---------------------------------------------------------------------------------------------
 * Statistics (stats.c)
 *
 * Every function takes plain arrays of samples (any unit) and leaves them unchanged.
 */
enum pbench_outlier_rule {
	PBENCH_OUTLIERS_TUKEY = 0,	/* mild beyond 1.5 IQR of the quartiles, severe beyond 3 */
	PBENCH_OUTLIERS_3SIGMA,		/* beyond 3 standard deviations of the mean (all severe) */
};

struct pbench_stats_opts {
	size_t size;
	double ci_level;		/* confidence of intervals, in (0, 1); 0: 0.95 */
	int outlier_rule;		/* enum pbench_outlier_rule */
};

/*
 * A figure that cannot be computed from the samples is NaN, never a number that looks
 * measured: stddev, sem, ci_lo, ci_hi and cv_pct for a single sample (or for deviations too
 * large to square in a double), cv_pct for a mean of 0, spread_pct for a single sample or a
 * min <= 0. Every
 * report prints NaN as "n/a" (JSON: null).
 */
struct pbench_summary {
	size_t size;
	size_t n;
	double min, max, mean, median;
	double q1, q3;			/* quartiles (linear interpolation, R type 7) */
	double stddev;			/* sample standard deviation (n - 1) */
	double sem;			/* standard error of the mean: stddev / sqrt(n) */
	double ci_lo, ci_hi;		/* confidence interval of the mean, Student's t */
	double ci_level;		/* the confidence used */
	double cv_pct;			/* 100 * stddev / mean */
	double spread_pct;		/* 100 * (max - min) / min */
	double trimmed_mean;		/* mean without the min and the max ("gymnastics") */
	double mad;			/* median absolute deviation from the median (unscaled) */
	size_t outliers_low_mild, outliers_low_severe;
	size_t outliers_high_mild, outliers_high_severe;
	double mvalue;			/* Brendan Gregg's mvalue of the histogram */
	int bimodal;			/* 1 when mvalue says the samples have several modes */
};

/* Summarize n samples (n >= 1; opts NULL: 95% interval, Tukey fences). Welford's update for
 * mean and variance. Errors: -EINVAL (n 0, NULL, a NaN or infinite sample), -ENOMEM. */
PBENCH_API int pbench_stats_summary(const double *x, size_t n, const struct pbench_stats_opts *opts,
				    struct pbench_summary *s);

/* Online mean and variance (Welford), for samples that arrive one at a time. */
struct pbench_welford {
	size_t n;
	double mean, m2, min, max;
};
PBENCH_API void pbench_welford_add(struct pbench_welford *w, double x);
PBENCH_API double pbench_welford_variance(const struct pbench_welford *w);	/* n - 1 */
PBENCH_API double pbench_welford_sem(const struct pbench_welford *w);

/* Student's t distribution: two-sided quantile (the t with P(|T| <= t) = level) and CDF.
 * Computed (regularized incomplete beta), not a table; df may be fractional. */
PBENCH_API double pbench_stats_t_quantile(double level, double df);
PBENCH_API double pbench_stats_t_cdf(double t, double df);

/* Welch's unequal-variance t-test of a against b. */
struct pbench_welch {
	size_t size;
	double t;			/* (mean_a - mean_b) / sqrt(var_a/na + var_b/nb) */
	double df;			/* Welch-Satterthwaite degrees of freedom */
	double p;			/* two-sided p-value */
	double diff, diff_lo, diff_hi;	/* mean_a - mean_b and its confidence interval */
	double ratio, ratio_lo, ratio_hi; /* mean_a / mean_b and its interval (Fieller-free:
					 * diff interval divided by mean_b) */
};
/* Errors: -EINVAL (fewer than 2 samples in either, NaN/inf, both without variance). */
PBENCH_API int pbench_stats_welch(const double *a, size_t na, const double *b, size_t nb,
				  const struct pbench_stats_opts *opts, struct pbench_welch *out);

/* Mann-Whitney U test (normal approximation with tie and continuity correction). */
struct pbench_mann_whitney {
	size_t size;
	double u;			/* U of a */
	double z;
	double p;			/* two-sided p-value */
};
PBENCH_API int pbench_stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
					 struct pbench_mann_whitney *out);

/* ---------------------------------------------------------------------------------------------
 * Timing a function (measure.c)
 *
 * pbench_measure() calls fn(ctx) once untimed, warms up, picks an iteration count so that one
 * sample lasts at least the target, runs the iterations in an unrolled batch, subtracts the
 * measured cost of an empty batch, and samples until the standard error of the mean is below
 * the target (or the sample or time budget is spent). Times are per iteration, in ns.
 */

/* Keep the compiler from deleting work whose result is unused: pbench_do_not_optimize(x)
 * makes x look read (and memory written), pbench_clobber() makes all memory look written. */
#if defined(__GNUC__)
#define pbench_do_not_optimize(x) __asm__ volatile("" : : "r,m"(x) : "memory")
#define pbench_clobber() __asm__ volatile("" : : : "memory")
#endif

typedef void (*pbench_fn)(void *ctx);

enum pbench_stop_rule {
	PBENCH_STOP_SEM = 1,		/* the standard error reached the target */
	PBENCH_STOP_MAX_SAMPLES,	/* max_samples were taken */
	PBENCH_STOP_BUDGET,		/* the time budget was spent */
	PBENCH_STOP_SINGLE,		/* one call took longer than the budget: one sample */
	PBENCH_STOP_FIXED,		/* the region API: the caller decided */
};

enum pbench_result_flags {
	PBENCH_RESULT_SUSPICIOUS = 1 << 0,	/* faster than the timer resolves, or fewer
						 * instructions than iterations: optimized away? */
	PBENCH_RESULT_UNOPTIMIZED = 1 << 1,	/* the library or the caller built without -O */
	PBENCH_RESULT_OVERHEAD_DOMINATES = 1 << 2, /* the batch overhead is > half a sample */
	PBENCH_RESULT_NOISY = 1 << 3,		/* context switches or migrations in samples */
	PBENCH_RESULT_CLAMPED = 1 << 4,		/* a sample was below the overhead: its time
						 * is reported as 0, never negative */
};

struct pbench_measure_opts {
	size_t size;
	/* Around every batch of calls (each sample, and the first call, warm-up and
	 * calibration batches too), outside the timed region. */
	void (*setup)(void *ctx);
	void (*teardown)(void *ctx);
	double warmup_ms;		/* time-based warm-up (default 1200; 0: none) */
	double min_sample_ms;		/* a sample lasts at least this (default 1 ms, and at
					 * least 1000 timer resolutions) */
	double target_sem_pct;		/* stop when sem <= this % of the mean (default 1) */
	size_t min_samples;		/* default 10 */
	size_t max_samples;		/* default 100000 */
	double budget_ms;		/* time budget for sampling (default 10000) */
	uint64_t iterations;		/* fixed iterations per sample; 0: automatic */
	int keep_overhead;		/* 1: do not subtract the empty-batch overhead */
	const char *events;		/* counters per sample (NULL: none) */
	int built_optimized;		/* set by PBENCH_MEASURE_OPTS_INIT from __OPTIMIZE__ */
};

/* Defaults, and whether the caller's translation unit was optimized. */
#if defined(__OPTIMIZE__)
#define PBENCH_CALLER_OPTIMIZED 1
#else
#define PBENCH_CALLER_OPTIMIZED 0
#endif
#define PBENCH_MEASURE_OPTS_INIT \
	{ .size = sizeof(struct pbench_measure_opts), .warmup_ms = 1200, .min_sample_ms = 1, \
	  .target_sem_pct = 1, .min_samples = 10, .max_samples = 100000, .budget_ms = 10000, \
	  .built_optimized = PBENCH_CALLER_OPTIMIZED + 1 }

/* What happened during one sample (deltas over the sample). */
struct pbench_noise {
	uint64_t ctx_involuntary, ctx_voluntary;	/* getrusage RUSAGE_THREAD */
	uint64_t migrations;				/* cpu-migrations software event */
	uint64_t minor_faults, major_faults;
	double not_running_ns;				/* wall minus task-clock; NaN when
							 * task-clock cannot be counted */
};

struct pbench_sample {
	size_t size;
	uint64_t ticks;			/* the whole batch */
	uint64_t iterations;
	double ns_per_iter;		/* overhead subtracted unless keep_overhead; >= 0 */
	struct pbench_noise noise;
};

struct pbench_result;

/* opts NULL: the defaults. Errors: -EINVAL (NULL fn, a zero or negative budget/target,
 * min_samples > max_samples, opts->size 0), -EOVERFLOW (an iteration or sample count that
 * would overflow), -ENOMEM, and the name errors of pbench_counters_open() for opts->events. */
PBENCH_API int pbench_measure(struct pbench_result **out, pbench_fn fn, void *ctx,
			      const struct pbench_measure_opts *opts);
PBENCH_API void pbench_result_free(struct pbench_result *r);
PBENCH_API size_t pbench_result_nr_samples(const struct pbench_result *r);
PBENCH_API const struct pbench_sample *pbench_result_sample(const struct pbench_result *r,
							    size_t i);
/* Summary of ns per iteration over the samples. */
PBENCH_API const struct pbench_summary *pbench_result_summary(const struct pbench_result *r);
PBENCH_API uint64_t pbench_result_iterations(const struct pbench_result *r);
PBENCH_API double pbench_result_overhead_ns(const struct pbench_result *r); /* per iteration */
PBENCH_API int pbench_result_stop_rule(const struct pbench_result *r);
PBENCH_API unsigned pbench_result_flags(const struct pbench_result *r);
/* The events each sample counted (0 when none were asked for). */
PBENCH_API int pbench_result_nr_events(const struct pbench_result *r);
/*
 * Event e of sample i, copied into out (out->size set; an older, smaller struct gets its
 * part): value, time_enabled and time_running are raw over the whole sample; scaled is per
 * iteration, minus the empty batch's unless keep_overhead, never below 0. One at a time, as
 * libpfm4 hands out its events, so that struct pbench_count can grow. Errors: -EINVAL (NULL
 * r or out, out->size 0, i or e out of range).
 */
PBENCH_API int pbench_result_count(const struct pbench_result *r, size_t i, int e,
				   struct pbench_count *out);
PBENCH_API const char *pbench_stop_rule_name(int rule);

/* The region API, for code that cannot be wrapped in a callback: each begin/end pair is one
 * sample of `iterations` iterations (1 if 0) added to the same kind of result. Use it from the
 * thread that created it. begin and end do not allocate (end doubles the sample arrays when
 * they are full, after the pair is read); the noise snapshot and counters cost a few syscalls
 * per pair, outside the timed part. */
struct pbench_region;
PBENCH_API int pbench_region_new(struct pbench_region **out, uint64_t iterations,
				 const char *events);
PBENCH_API void pbench_region_begin(struct pbench_region *r);
PBENCH_API void pbench_region_end(struct pbench_region *r);
/* The result so far (owned by the caller: pbench_result_free). */
PBENCH_API int pbench_region_result(struct pbench_region *r, struct pbench_result **out);
PBENCH_API void pbench_region_free(struct pbench_region *r);

/* Comparing two functions: the same iteration count (the larger of the two calibrations, so
 * every sample lasts at least the target), samples in rounds of ABBA or BAAB (a coin toss per
 * round, so that periodic noise such as the timer tick cannot favour a side), Welch's test
 * after each round. */
enum pbench_verdict {
	PBENCH_FASTER = 1,		/* a is faster than b (significant at the confidence) */
	PBENCH_SLOWER,			/* a is slower */
	PBENCH_SAME,			/* the difference is bounded within the threshold */
	PBENCH_UNDECIDED,		/* the budget ran out first */
};

struct pbench_compare_opts {
	size_t size;
	/* warm-up, sample length, budget, samples (NULL: the defaults). A pointer, so that the
	 * measure options can grow without moving the fields after them. */
	const struct pbench_measure_opts *measure;
	double confidence;		/* default 0.999 */
	double same_threshold_pct;	/* default 1: "same" when the CI of the ratio is within */
	/* Optional: return 0 when a and b compute the same thing (called once, before
	 * timing); non-zero refuses the comparison (-PBENCH_EDIFFERENT). */
	int (*check)(void *ctx_a, void *ctx_b);
};

struct pbench_comparison {
	size_t size;
	int verdict;			/* enum pbench_verdict */
	double ratio, ratio_lo, ratio_hi;	/* time of a / time of b, with its interval */
	struct pbench_welch welch;
	size_t pairs;			/* AB or BA pairs taken: the samples of each side */
	struct pbench_summary a, b;	/* ns per iteration */
	double confidence;		/* of the verdict and of the intervals */
	double same_threshold_pct;	/* "same": the ratio's interval lies within this of 1 */
};

PBENCH_API int pbench_compare(pbench_fn a, void *ctx_a, pbench_fn b, void *ctx_b,
			      const struct pbench_compare_opts *opts, struct pbench_comparison *out);
PBENCH_API const char *pbench_verdict_name(int verdict);

/* ---------------------------------------------------------------------------------------------
 * Reports (report.c): numbers with no more digits than the measurement supports
 */

/*
 * Format value ± err: the error rounded to 2 significant digits, the value to the same decimal
 * place, e.g. "12.345 ± 0.012". unit "ns" scales to ns/us/ms/s by the value ("1.2345 ± 0.0012
 * ms"); NULL or "" prints the bare numbers. err <= 0 or NaN: the value with 6 significant
 * digits. Returns the length written (snprintf semantics).
 */
PBENCH_API int pbench_format_value(char *buf, size_t len, double value, double err,
				   const char *unit);
/* A time in ns with an explicit number of significant digits and a scaled unit: "1.23 ms". */
PBENCH_API int pbench_format_ns(char *buf, size_t len, double ns, int digits);

/* Any summary (pbench_stats_summary), as pbench analyze prints it: mean ± standard error,
 * the interval, median, min, trimmed mean, max, stddev and MAD at the precision the error
 * supports; unit as for pbench_format_value. Errors: -EINVAL, -EIO (write error). */
PBENCH_API int pbench_summary_write_text(const struct pbench_summary *s, FILE *f,
					 const char *label, const char *unit);

/*
 * The report of a result, as text a person reads at a glance, written to f: label (NULL:
 * none), samples × iterations; mean ± standard error per iteration in a scaled unit, and the
 * interval, median, min ("raw speed") and trimmed mean at the mean's precision; the overhead
 * per iteration and whether it was subtracted; the rule that stopped sampling; cv, spread and
 * the outliers (Tukey), with each outlier sample's noise snapshot in words (up to 10, the
 * farthest from the median; samples numbered from 0 as in pbench_result_sample()); each
 * event per iteration, or why it was not counted; a warning per result flag and for a
 * multimodal distribution. f is flushed. Errors: -EINVAL (NULL r or f), -EIO (writing to f
 * failed).
 */
PBENCH_API int pbench_result_write_text(const struct pbench_result *r, FILE *f,
					const char *label);

/*
 * The whole result as JSON (schema 1) on f, one object: schema, pbench_version, label (NULL:
 * null), settings, clock, iterations, overhead_ns_per_iter, stop_rule, flags (names), summary
 * (ns per iteration), and samples[] each with ticks, iterations, ns_per_iter, its noise
 * snapshot and its counters by event name. Numbers that are not finite, and settings the
 * result does not keep, are null. f is flushed. Errors: -EINVAL (NULL r or f, a label that is
 * not UTF-8), -ENOMEM, -EIO (writing to f failed).
 */
PBENCH_API int pbench_result_write_json(const struct pbench_result *r, FILE *f,
					const char *label);

/*
 * A comparison as text: both sides (mean ± standard error, median, min), the ratio of the
 * means with its interval at the test's confidence, Welch's t, df and p, and the verdict in
 * words. Labels NULL: "a" and "b". Errors: -EINVAL (NULL c or f, c->size too small for both
 * summaries), -EIO.
 */
PBENCH_API int pbench_comparison_write_text(const struct pbench_comparison *c, FILE *f,
					    const char *label_a, const char *label_b);

/*
 * A comparison as JSON (schema 1): labels, verdict, pairs, ratio, ratio_lo, ratio_hi, welch
 * (t, df, p, diff_ns, diff_lo_ns, diff_hi_ns; null when no test could be run) and the two
 * summaries a and b. Errors as pbench_result_write_json().
 */
PBENCH_API int pbench_comparison_write_json(const struct pbench_comparison *c, FILE *f,
					    const char *label_a, const char *label_b);

/*
 * Plots (plot.c). One series of runs: times in ns in the order run, and per run whether it is
 * an outlier and why (cause[i], NULL or "" for none). name NULL: "series N"; color any SVG
 * colour ("#d95f02"), NULL for a default. outlier and cause may be NULL.
 */
struct pbench_plot_series {
	size_t size;			/* sizeof(struct pbench_plot_series) */
	const char *name;
	const char *color;
	const double *ns;
	size_t n;
	const unsigned char *outlier;
	const char *const *cause;
};

/*
 * The runs as a self-contained SVG 1.1 on f: left, each run's time in run order, the series
 * one after the other, outliers ringed with "run N: <time>: <cause>" as their <title>
 * (tooltip); right, each series' histogram on the same time axis with its median. Titles, a
 * legend, a scaled time unit with round ticks; text escaped, font-family sans-serif, no
 * script. Up to 8 series. f is flushed. Errors: -EINVAL (NULL f or s, nseries outside 1..8, a
 * size too small, no runs at all, a time that is negative or not finite), -ENOMEM, -EIO.
 */
PBENCH_API int pbench_plot_runs_svg(FILE *f, const char *title,
				    const struct pbench_plot_series *s, int nseries);

/* ---------------------------------------------------------------------------------------------
 * Samples from files (samples.c): what pbench analyze summarizes
 *
 * Text is one number per line (blank lines and # comments skipped; unit "ns", "us", "ms" or
 * "s" makes them times in ns, anything else is kept as a label), or JSON: pbench stat's in
 * every mode (a contrast gives two sets, "NAME (unprepared)" and "NAME (prepared)"; runs
 * killed at --timeout are skipped), the library's result (samples[].ns_per_iter), hyperfine's
 * (--export-json: one set per command) and Google Benchmark's (one set per run_name; the
 * aggregates are skipped). A pbench comparison keeps summaries, not samples: it adds no set
 * and pbench_samples_note() says what it holds.
 */
struct pbench_samples;

PBENCH_API int pbench_samples_new(struct pbench_samples **out);
/*
 * Read the sets in text (len bytes; name labels them, as a file name would). Returns the
 * number of sets added (0 for a comparison), or -EINVAL (not a number, not valid JSON, a
 * format this does not know: why says where and why), -EILSEQ (a NUL byte), -ENODATA (no
 * samples), -ENOMEM. why may be NULL.
 */
PBENCH_API int pbench_samples_add_text(struct pbench_samples *s, const char *text, size_t len,
				       const char *name, const char *unit, char *why,
				       size_t wlen);
PBENCH_API int pbench_samples_nr(const struct pbench_samples *s);
PBENCH_API const char *pbench_samples_name(const struct pbench_samples *s, int i);
/* "ns" for times, the label given for plain numbers, or NULL. */
PBENCH_API const char *pbench_samples_unit(const struct pbench_samples *s, int i);
/* The values of set i and their number, in the order read. */
PBENCH_API const double *pbench_samples_values(const struct pbench_samples *s, int i,
					       size_t *n);
/* What the last input that held no samples was, or NULL. */
PBENCH_API const char *pbench_samples_note(const struct pbench_samples *s);
PBENCH_API void pbench_samples_free(struct pbench_samples *s);

/* ---------------------------------------------------------------------------------------------
 * Output files (output.c): a report written whole, or not at all
 *
 * What a path given for output becomes:
 * - "-": stdout, flushed at the end and never closed;
 * - a regular file, or a path that does not exist yet: an unnamed temporary file in the same
 *   directory (symlinks followed to the file they name), renamed over the path only when
 *   pbench_output_close() commits. Until then, and after any failure, an old file is exactly
 *   as it was and nothing new appears in the directory. The old file's mode (and, for root,
 *   owner) is kept; a file that is not writable is refused, as a shell's '>' would;
 * - anything else (a device such as /dev/null, a FIFO, a terminal, or a symlink to one):
 *   written directly, never truncated, never removed.
 * Descriptors are close-on-exec, so a measured command never inherits them.
 */
struct pbench_output;

/*
 * Open path for output: the checks a write would fail are made now (the directory exists and
 * is writable, the path is not a directory), so a caller can refuse a bad path before it
 * measures anything. Errors: -EINVAL (NULL or empty path), -EISDIR, -ENOMEM, -ELOOP, and the
 * open's -errno (-ENOENT: no such directory, -EACCES...).
 */
PBENCH_API int pbench_output_open(struct pbench_output **out, const char *path);
/* The stream to write the report to. */
PBENCH_API FILE *pbench_output_file(struct pbench_output *o);
/*
 * Finish and free o. commit 1: flush and, for a regular file, put it in place; returns 0, or
 * the -errno of the write or rename that failed (the old file then stays as it was). commit 0:
 * discard what was written (a regular file's target is left untouched); returns 0.
 */
PBENCH_API int pbench_output_close(struct pbench_output *o, int commit);

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

/* One row of /proc/interrupts or /proc/softirqs and its count over the run. */
struct pbench_noise_source {
	char label[16];			/* "36", "NET_RX" */
	char name[48];			/* the device ("nvme0q1"), or the label again */
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
};

/*
 * One line saying why a run took excess_ns more (or less) than usual, from the numbers only:
 * "+50.2 ms: 48 ms not running, preempted 3 times; 2 device interrupts (nvme0q1), 12 timer
 * interrupts". The parts, each only when non-zero: time not running (when at least 1% of the
 * excess), preempted / blocked / migrated counts, major faults; interrupts on the CPU by
 * source (device names, busiest first); steal. The time clauses go by size (steal first when
 * larger than the time not running); interrupts, whose cost is not measured, come after the
 * scheduler's part. Softirqs are not named. A slower run that task-clock says was on the CPU
 * all along (not running under a tenth of the excess, no preemption, major fault or steal)
 * ends with "on the CPU all along by task-clock: slowed by what the kernel cannot see (the
 * hypervisor, an SMT sibling, the clock speed) or by the work itself". task or cpu may be
 * NULL. With nothing recorded: "+X: no noise recorded". Times have 2 significant digits (the excess 3, steal as many as
 * its tick count). Returns the length the whole line needs (snprintf semantics);
 * -EINVAL for a non-finite excess or a NULL buf with len > 0.
 */
PBENCH_API int pbench_noise_cause(char *buf, size_t len, double excess_ns,
				  const struct pbench_noise *task,
				  const struct pbench_cpu_noise *cpu, unsigned flags);

/* ---------------------------------------------------------------------------------------------
 * Preparing (prepare.c): one core, high priority, local locked memory, a warm-up; then undo
 *
 * pbench_prepare() prepares the calling thread for a measurement the way a careful engineer
 * does by hand, step by step (enum pbench_prep_step, in the order they are done), and records
 * each step's outcome so that the caller can say what was done and what was not. A step that
 * is refused (no permission, not available) does not fail the call. Only attributes of the
 * calling thread (affinity, scheduling policy and nice value, memory policy) and of the
 * process (the memory lock) change; nothing system-wide. Threads and children created while
 * prepared inherit the thread's attributes (not the memory lock).
 *
 * pbench_prepared_restore() puts back every attribute a step changed, as it was saved before
 * the first change; pbench_prepared_free() does the same if it was not done. Call them from
 * the thread that prepared (only it can restore its memory policy). In a child forked while
 * prepared, they restore the child's calling thread instead, never the parent's.
 */
struct pbench_prepared;

/* The steps, in the order pbench_prepare() does them. */
enum pbench_prep_step {
	PBENCH_PREP_PIN = 0,		/* sched_setaffinity to the one chosen CPU */
	PBENCH_PREP_NUMA,		/* memory policy MPOL_BIND to the CPU's NUMA node */
	PBENCH_PREP_MLOCK,		/* mlockall(MCL_CURRENT | MCL_FUTURE) */
	PBENCH_PREP_STACK,		/* touch the stack below the current frame (page it in) */
	PBENCH_PREP_PRIORITY,		/* nice -20 or SCHED_FIFO (enum pbench_prio_mode) */
	PBENCH_PREP_WARMUP,		/* time-based busy loop on the chosen CPU */
	PBENCH_PREP_NR_STEPS
};

enum pbench_step_status {
	PBENCH_STEP_DONE = 0,		/* done (what says what exactly) */
	PBENCH_STEP_NOT_PERMITTED,	/* refused: privilege or a resource limit (error says which) */
	PBENCH_STEP_NOT_AVAILABLE,	/* this kernel/machine/build cannot do it */
	PBENCH_STEP_SKIPPED,		/* not asked for, or left as is on purpose (what says why) */
	PBENCH_STEP_FAILED,		/* tried and failed for another reason (error says why) */
};

/* The outcome of one step. */
struct pbench_prep_outcome {
	size_t size;
	int step;			/* enum pbench_prep_step */
	int status;			/* enum pbench_step_status */
	int error;			/* -errno of the refused call (-EPERM, -ENOMEM...); 0 if done */
	char what[320];			/* done: what was done; otherwise why not, and the fix */
};

enum pbench_prio_mode {
	/* SCHED_FIFO where nothing takes time from a FIFO task. Where RT throttling or the
	 * fair server can (sched_rt_runtime_us != -1, or kernel >= 6.12), time both choices on
	 * the chosen CPU - runs of ~20 ms of the warm-up work for 1.1 s (and 10 runs at least)
	 * at the lowest nice, then as long under SCHED_FIFO, as the fair server only steps in
	 * after a FIFO task has kept a normal task waiting ~950 ms - and keep FIFO only when its
	 * runs spread less than half as much as nice's (its failure is a whole 50 ms gap, so
	 * near-equal spreads go to nice). Without permission for SCHED_FIFO: the lowest nice
	 * allowed. */
	PBENCH_PRIO_AUTO = 0,
	PBENCH_PRIO_NONE,		/* leave the policy and nice value as they are */
	PBENCH_PRIO_NICE,		/* SCHED_OTHER at nice -20, or the lowest RLIMIT_NICE allows */
	PBENCH_PRIO_FIFO,		/* SCHED_FIFO at fifo_priority, or the highest RLIMIT_RTPRIO
					 * allows below it; not permitted: left as is (no nice) */
};

enum pbench_prepare_flags {
	/* Restore on SIGINT and SIGTERM: handlers (installed unless the signal is ignored)
	 * restore with raw system calls, put the previous handlers back and raise the signal
	 * again, so it does what it did before (end the process, or call the caller's handler).
	 * One prepared object at a time may hold them. The memory policy is restored by the
	 * handler only when the signal arrives on the prepared thread (otherwise by a later
	 * pbench_prepared_restore()). The previous handler does not get the original siginfo. */
	PBENCH_PREPARE_SIGNALS = 1 << 0,
	PBENCH_PREPARE_NO_PIN = 1 << 1,		/* skip a step (reported as skipped) */
	PBENCH_PREPARE_NO_NUMA = 1 << 2,
	PBENCH_PREPARE_NO_MLOCK = 1 << 3,
	PBENCH_PREPARE_NO_STACK = 1 << 4,
};

struct pbench_prepare_opts {
	size_t size;
	int cpu;			/* -1: pbench_cpu_pick() (the CPU `pbench check` reports);
					 * else that CPU, which must be in the thread's affinity */
	int priority;			/* enum pbench_prio_mode */
	int fifo_priority;		/* SCHED_FIFO priority, 1-99 (0: 50) */
	double warmup_ms;		/* time-based warm-up (default 1200; 0: none) */
	/* Work for the warm-up and for AUTO's probe (NULL: the built-in xor loop). Called
	 * repeatedly, on the chosen CPU. */
	pbench_fn warmup_fn;
	void *warmup_ctx;
	size_t stack_kib;		/* stack to touch (0: 256), at most what the stack has */
	unsigned flags;			/* enum pbench_prepare_flags */
};

/* Use this, not zero-initialization: cpu 0 would be CPU 0, warmup_ms 0 no warm-up. */
#define PBENCH_PREPARE_OPTS_INIT \
	{ .size = sizeof(struct pbench_prepare_opts), .cpu = -1, .priority = PBENCH_PRIO_AUTO, \
	  .warmup_ms = 1200 }

/*
 * Prepare the calling thread (opts NULL: the defaults). Takes the time of the CPU pick
 * (200 ms) when no CPU is named, of AUTO's probe (about 2.3 s, counted as warm-up) and of
 * the rest of the warm-up. Errors (nothing is changed, *out is NULL): -EINVAL (NULL out,
 * opts->size 0, a CPU not present or not in the affinity mask, cpu < -1, an unknown priority
 * mode or flag, fifo_priority outside 0-99, a negative or non-finite warmup_ms, stack_kib
 * over 1 GiB), -EBUSY (PBENCH_PREPARE_SIGNALS while another prepared object holds the
 * handlers), -ENOMEM, the errors of pbench_cpu_pick(), -errno of reading the thread's
 * attributes. -EINTR: SIGINT or SIGTERM arrived during the call with PBENCH_PREPARE_SIGNALS
 * and a handler of the caller's that returned; everything was restored.
 */
PBENCH_API int pbench_prepare(struct pbench_prepared **out,
			      const struct pbench_prepare_opts *opts);
/* Put back every attribute a step changed, in reverse order. Idempotent: later calls do
 * nothing and return 0. Returns 0 or the first -errno (the rest is still restored). Also
 * uninstalls the signal handlers (a handler the caller installed since is left alone). */
PBENCH_API int pbench_prepared_restore(struct pbench_prepared *p);
/* Restore if not done, and free. NULL is fine. */
PBENCH_API void pbench_prepared_free(struct pbench_prepared *p);

/* The CPU prepared for, and why it was chosen ("CPU 1 as asked", or pbench_cpu_pick()'s
 * reason). */
PBENCH_API int pbench_prepared_cpu(const struct pbench_prepared *p);
PBENCH_API const char *pbench_prepared_cpu_reason(const struct pbench_prepared *p);
/* The outcome of a step (enum pbench_prep_step), or NULL for a step number out of range. */
PBENCH_API const struct pbench_prep_outcome *pbench_prepared_step(const struct pbench_prepared *p,
								  int step);

/* The priority in force after preparing, and what AUTO measured. */
struct pbench_prep_priority {
	size_t size;
	int mode;			/* PBENCH_PRIO_NONE (unchanged), _NICE or _FIFO: AUTO resolved */
	int policy;			/* SCHED_OTHER, SCHED_FIFO... as in <sched.h> */
	const char *policy_name;	/* "SCHED_OTHER", "SCHED_FIFO"... */
	int value;			/* the SCHED_FIFO/RR priority, or the nice value */
	int probed;			/* 1: AUTO timed both choices */
	double nice_spread_pct;		/* (max - min) / min of the runs at the lowest nice, in %;
					 * NaN when not timed */
	double fifo_spread_pct;		/* the same under SCHED_FIFO */
	int nice_runs, fifo_runs;	/* runs timed under each */
	double run_ms;			/* the length of one probe run (the first one) */
	/* Under SCHED_FIFO where the fair server (kernel 6.12+) or RT throttling can take the
	 * CPU back: the rest to take after each run, in % of the run (twice the server's
	 * runtime over the rest of its period: 10.5% for 50 ms per 1000 ms), so that the normal
	 * tasks waiting for the CPU get their share between runs and the server never has to
	 * preempt one. 0: no rest needed (not FIFO, or nothing can preempt it). */
	double rest_pct;
};

/* Fill out (out->size must be set; a smaller, older struct gets its part). -EINVAL: size 0. */
PBENCH_API int pbench_prepared_priority(const struct pbench_prepared *p,
					struct pbench_prep_priority *out);
/*
 * The rest to take after a run of run_ns on the prepared thread (rest_pct of it, see struct
 * pbench_prep_priority; 0 when none is needed), and taking it: pbench_prepared_rest() sleeps
 * that long (clock_nanosleep; a signal ends it early) and returns the ns slept. Measured on
 * the development VM by bench/bench_fifo_rest (a pinned SCHED_FIFO 27 ms loop sharing its CPU
 * with a busy normal task, 40 runs): 185-191% spread without rests (the fair server's 50 ms),
 * 1.1-4.3% with them; for 54 ms runs the gaps became rare, not gone. The prepared warm-up
 * rests the same way under FIFO.
 */
PBENCH_API double pbench_prepared_rest_ns(const struct pbench_prepared *p, double run_ns);
PBENCH_API double pbench_prepared_rest(const struct pbench_prepared *p, double run_ns);
/* Milliseconds of warm-up done (AUTO's probe included), 0 when none was asked. */
PBENCH_API double pbench_prepared_warmup_ms(const struct pbench_prepared *p);
/* The signal (SIGINT/SIGTERM) whose handler restored the state, 0 if none did. */
PBENCH_API int pbench_prepared_signal(const struct pbench_prepared *p);

/* "pin", "numa", "mlock", "stack", "priority", "warmup". */
PBENCH_API const char *pbench_prep_step_name(int step);
/* "done", "not permitted", "not available", "skipped", "failed". */
PBENCH_API const char *pbench_step_status_name(int status);
/* "auto", "none", "nice", "fifo". */
PBENCH_API const char *pbench_prio_mode_name(int mode);
/* "SCHED_OTHER", "SCHED_FIFO", "SCHED_RR", "SCHED_BATCH", "SCHED_IDLE", "SCHED_DEADLINE",
 * "SCHED_EXT" for a policy of sched_getscheduler(), "?" for any other. */
PBENCH_API const char *pbench_sched_policy_name(int policy);

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
};

#define PBENCH_JITTER_OPTS_INIT { .size = sizeof(struct pbench_jitter_opts), .duration_s = 5 }

/* The gap buffer holds this many gaps per second of window per CPU (16 bytes each); past it
 * gaps are still counted, timed and kept in the maximum, but not kept one by one. */
#define PBENCH_JITTER_MAX_RATE 100000

/* One interruption: when it started (ticks since the window's start) and how long it was. */
struct pbench_jitter_gap {
	uint64_t start_ticks;
	uint64_t ticks;
};

enum pbench_jitter_source_kind {
	PBENCH_JSRC_TIMER = 1,		/* LOC: the scheduler tick and hrtimers */
	PBENCH_JSRC_IPI,		/* RES, CAL, TLB, IWI: other CPUs' requests */
	PBENCH_JSRC_DEVICE,		/* a numbered device interrupt (name: the device) */
	PBENCH_JSRC_OTHER_IRQ,		/* NMI, PMI, MCE, THR, ... */
	PBENCH_JSRC_SOFTIRQ,		/* a softirq (TIMER, RCU, SCHED, NET_RX...) */
	PBENCH_JSRC_PREEMPTION,		/* the probe thread's involuntary context switches */
	PBENCH_JSRC_STEAL,		/* time the hypervisor ran something else (ns) */
	PBENCH_JSRC_SMI,		/* system management interrupts (msr/smi/) */
};

/* One source of interruptions over the window. */
struct pbench_jitter_source {
	int kind;			/* enum pbench_jitter_source_kind */
	char name[64];			/* "local timer interrupts", "virtio1-req.0 (IRQ 36)" */
	int available;			/* 0: could not be read; reason says why */
	uint64_t count;			/* events (steal: USER_HZ ticks) */
	double per_s;			/* count per second of window */
	double ns;			/* steal: the time stolen; NaN for the others */
	char reason[160];		/* why not available, "" otherwise */
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
	int nsources;
	struct pbench_jitter_source sources[PBENCH_JITTER_MAX_SOURCES];	/* busiest first */
	char explained[1024];		/* which sources account for the gaps, and the fixes */
	char prepared[400];		/* with PBENCH_JITTER_CPU_PREPARED: what was done */
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

/* Number of CPUs probed; the figures of the i-th (out->size set by the caller); -EINVAL for
 * an index out of range or a size of 0. */
PBENCH_API int pbench_jitter_nr(const struct pbench_jitter *j);
PBENCH_API int pbench_jitter_cpu(const struct pbench_jitter *j, int i,
				 struct pbench_jitter_cpu *out);
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
PBENCH_API int pbench_jitter_write_text(const struct pbench_jitter *j,
					const struct pbench_jitter *prepared, FILE *f);
/*
 * The report as JSON (schema 1): pbench_version, threshold_ns, duration_s, clock, cpus[]
 * each with cpu, loop_ns {min, median}, interruptions, interruptions_per_s, noise_ns,
 * noise_pct, max_gap_ns, quantiles_ns {p50, p90, p99, p999}, histogram [{lo_ns, hi_ns,
 * count}], sources [{kind, name, count, per_s, ns, available, reason}], explained, and the
 * flags; quietest_cpu; with prepared, "prepared" {cpus[]} and "difference". Errors as
 * pbench_jitter_write_text(), and -ENOMEM.
 */
PBENCH_API int pbench_jitter_write_json(const struct pbench_jitter *j,
					const struct pbench_jitter *prepared, FILE *f);
/*
 * Per CPU, the gap-length histogram (log scale) and a timeline of the gaps (when, how long)
 * as a self-contained SVG 1.1 on f, one row per CPU (at most 64). Errors: -EINVAL, -ENOMEM,
 * -EIO.
 */
PBENCH_API int pbench_jitter_plot_svg(const struct pbench_jitter *j, FILE *f, const char *title);

/* "timer", "ipi", "device", "other_irq", "softirq", "preemption", "steal", "smi". */
PBENCH_API const char *pbench_jitter_source_kind_name(int kind);

/* ---------------------------------------------------------------------------------------------
 * Machine checks (env.c and env_*.c): is this machine fit to measure on, and how to fix it
 */
enum pbench_check_status {
	PBENCH_CHECK_OK = 0,		/* as it should be for measuring */
	PBENCH_CHECK_INFO,		/* worth knowing, nothing to fix */
	PBENCH_CHECK_WARN,		/* adds noise; fix it if you can */
	PBENCH_CHECK_BAD,		/* makes measurements unreliable */
	PBENCH_CHECK_UNKNOWN,		/* could not be determined (value says what was looked for) */
};

/* One finding. */
struct pbench_check {
	size_t size;
	const char *id;			/* stable JSON id, e.g. "cpufreq.governor" */
	const char *group;		/* "frequency", "topology", "isolation", "interrupts",
					 * "scheduler", "memory", "timer", "counters",
					 * "virtualization" */
	int status;			/* enum pbench_check_status */
	int cpu;			/* the target CPU it is about, -1 for the whole machine */
	char value[256];		/* what was found */
	char expected[128];		/* what measuring wants ("" when nothing specific) */
	char why[512];			/* why it matters (warn and bad) */
	char fix[512];			/* the command that fixes it (warn and bad) */
};

struct pbench_env;

enum pbench_env_flags {
	/* Skip the checks that measure over a window (steal time, CPU load): no waiting. */
	PBENCH_ENV_NO_WINDOW = 1 << 0,
	/* The live machine even where PBENCH_SYSFS_ROOT / PBENCH_PROCFS_ROOT are set: the
	 * checks that go with a live measurement. */
	PBENCH_ENV_LIVE = 1 << 1,
};

/*
 * Run every check for the target CPUs (cpus == NULL or ncpus == 0: the CPU that
 * pbench_cpu_pick() chooses). Reads /sys and /proc through PBENCH_SYSFS_ROOT and
 * PBENCH_PROCFS_ROOT (unless PBENCH_ENV_LIVE); facts from syscalls and instructions are only
 * used when neither is set. These two variables change nothing else in the library.
 * Errors: -EINVAL (a CPU that is not present), -ENOMEM.
 */
PBENCH_API int pbench_env_check(struct pbench_env **out, const int *cpus, int ncpus,
				unsigned flags);
PBENCH_API void pbench_env_free(struct pbench_env *env);
PBENCH_API int pbench_env_nr(const struct pbench_env *env);
PBENCH_API const struct pbench_check *pbench_env_get(const struct pbench_env *env, int i);
/* The target CPUs, in order, and how many. */
PBENCH_API int pbench_env_cpus(const struct pbench_env *env, const int **cpus);
/* Why the target CPU was chosen (when the caller did not name it), else "". */
PBENCH_API const char *pbench_env_pick_reason(const struct pbench_env *env);

PBENCH_API const char *pbench_check_status_name(int status);

/*
 * The CPU a prepared measurement should run on: an isolated CPU if there is one, otherwise
 * the least busy online CPU other than CPU 0 whose SMT siblings are idle. why (may be NULL)
 * gets the reason in words. Returns the CPU number or a negative error.
 */
PBENCH_API int pbench_cpu_pick(char *why, size_t len);

/*
 * Parse a CPU list such as "0-3,5" (the kernel's cpulist format) into cpus[0..max-1], in
 * order, without duplicates. Returns the count, or -EINVAL (malformed, descending range) or
 * -ERANGE (a CPU >= limit, or more than max CPUs).
 */
PBENCH_API int pbench_cpulist_parse(const char *list, int *cpus, int max, int limit);

/*
 * Another measurement on cpu: the pid of another process with a thread named like this
 * process and pinned to cpu alone (a second prepared pbench stat, the same benchmark started
 * twice), or 0. Both would measure each other; call it after pbench_prepare() and after the
 * runs to say so.
 */
PBENCH_API int pbench_cpu_rival(int cpu);

/* The CPUs this process may run on (its affinity), as a list such as "0-3,6": what a --cpu
 * may name. "unknown" and -errno when the affinity cannot be read. */
PBENCH_API int pbench_cpus_allowed(char *buf, size_t len);

/* Present CPUs (/sys/devices/system/cpu/present), as "0-N": the range --cpu accepts. */
PBENCH_API int pbench_cpus_present(char *buf, size_t len);

/* ---------------------------------------------------------------------------------------------
 * Built-in workloads (workload.c)
 */

/* The xor loop: r ^= i ^ seed for i in [0, iterations). Returns r so it cannot be deleted. */
PBENCH_API uint64_t pbench_workload_xor(uint64_t iterations, uint64_t seed);

/*
 * The memory walk: a single random cycle through every 64-byte line of a buffer, each line
 * holding the address of the next, so that each step is one dependent load the prefetchers
 * cannot predict: over a buffer several times the last-level cache, one cache miss a step.
 * pbench_walk_new() builds it over bytes (rounded down to whole lines, at least 2; seed 0
 * picks a fixed one) and writes every line, so the buffer is faulted in before anything is
 * timed: -EINVAL (NULL out, fewer than 2 lines, more than 2^32) or -ENOMEM. Memory comes from
 * the calling thread's policy: make it after pbench_prepare() to have it on the prepared
 * CPU's node and locked.
 */
struct pbench_walk;
PBENCH_API int pbench_walk_new(struct pbench_walk **out, size_t bytes, uint64_t seed);
/* Take steps along the cycle, going on from where the last call stopped. Returns the index
 * of the line reached, so the loads cannot be dropped. */
PBENCH_API uint64_t pbench_walk_run(struct pbench_walk *w, uint64_t steps);
PBENCH_API size_t pbench_walk_bytes(const struct pbench_walk *w);
PBENCH_API void pbench_walk_free(struct pbench_walk *w);
/* Four times the largest cache CPU 0 reports in sysfs, and at least 64 MiB. */
PBENCH_API size_t pbench_walk_default_bytes(void);

/* ---------------------------------------------------------------------------------------------
 * Sets of runs (runs.c): the experiment of pbench stat, in the library
 *
 * A command (or a built-in workload, or a function) run N times, or until the standard error of
 * the mean reaches a target within a time budget, each run timed in ticks and ns, counted with
 * the events, with the noise it saw: unprepared, prepared (pbench_prepare() around the runs, a
 * command inheriting the CPU and the priority) or both, the contrast. Then per set the summary,
 * the Tukey fences and each outlier's cause, the harness's own cost per run, and for the
 * contrast the ratios of spread and CV with a verdict; and every report of it (text, JSON,
 * CSV, SVG). A command runs in its own process group; what it leaves running is ended after
 * each run (pbench_child_start()).
 */
enum pbench_runs_mode {
	PBENCH_RUNS_UNPREPARED = 0,	/* nothing changed: the machine as it is */
	PBENCH_RUNS_PREPARED,		/* pinned, priority, memory, warm-up; restored after */
	PBENCH_RUNS_CONTRAST,		/* the unprepared set, then the prepared one */
};

enum pbench_runs_workload {
	PBENCH_WORKLOAD_XOR = 0,	/* pbench_workload_xor(): register-only */
	PBENCH_WORKLOAD_MEMWALK,	/* pbench_walk_*: one cache miss a step */
	PBENCH_WORKLOAD_FN,		/* fn(ctx), once a run */
};

/* Why a set stopped. */
enum pbench_runs_stop {
	PBENCH_RUNS_STOP_COUNT = 0,	/* the runs asked for */
	PBENCH_RUNS_STOP_TARGET,	/* the standard error reached target_sem_pct */
	PBENCH_RUNS_STOP_TIME,		/* max_time_s spent before the target */
	PBENCH_RUNS_STOP_MAX_RUNS,	/* runs spent before the target */
	PBENCH_RUNS_STOP_INTERRUPTED,	/* *stop was set */
};

#define PBENCH_RUNS_SEM_MIN_RUNS 10	/* a target is trusted after this many runs */

/* Between runs, for a progress line: the set, the run about to start (from 0), the estimate
 * so far (NaN before two runs), and the time left by the stop rule (NaN: unknown). phase is
 * "runs", "preparing" while pbench_prepare() works (run and the estimate then mean nothing)
 * and "done" when the set has ended. */
struct pbench_runs_progress {
	size_t size;
	int mode;			/* PBENCH_RUNS_UNPREPARED or _PREPARED */
	const char *phase;		/* "runs" or "preparing" */
	int run;
	long runs;			/* the count asked for, or the cap with a target */
	double target_sem_pct;		/* 0: a fixed count */
	double mean_ns, sem_pct;
	double left_s;
};

struct pbench_runs_opts {
	size_t size;
	const char *events;		/* comma-separated (NULL: PBENCH_RUNS_DEFAULT_EVENTS) */
	char *const *argv;		/* the command (NULL: the workload) */
	int workload;			/* enum pbench_runs_workload, when argv is NULL */
	uint64_t iterations;		/* xor iterations or memwalk steps (0: 1e8 or 2e5) */
	size_t walk_bytes;		/* memwalk's buffer (0: pbench_walk_default_bytes()) */
	pbench_fn fn;			/* PBENCH_WORKLOAD_FN: called once a run */
	void *ctx;
	int mode;			/* enum pbench_runs_mode */
	int cpu;			/* the CPU to prepare, -1: pbench_cpu_pick() */
	double warmup_ms;		/* the prepared warm-up (0: none) */
	long runs;			/* per set; with target_sem_pct, the most */
	double target_sem_pct;		/* > 0: run until the SEM is this % of the mean */
	double max_time_s;		/* the time budget per set with a target */
	double timeout_s;		/* > 0: a run of a command still going is ended after it */
	int quiet;			/* a command's stdout and stderr go to /dev/null */
	/* Set by the caller's signal handler: the run under way is ended (a command with its
	 * group), not kept, and no further run starts. */
	const volatile int *stop;
	void (*progress)(const struct pbench_runs_progress *p, void *arg);
	void *progress_arg;
	unsigned flags;			/* enum pbench_runs_flags */
};

enum pbench_runs_flags {
	/* pbench_prepare() installs its SIGINT/SIGTERM handlers (PBENCH_PREPARE_SIGNALS) */
	PBENCH_RUNS_SIGNALS = 1 << 0,
};

#define PBENCH_RUNS_DEFAULT_EVENTS \
	"task-clock,context-switches,cpu-migrations,page-faults,cycles,instructions"
#define PBENCH_RUNS_OPTS_INIT \
	{ .size = sizeof(struct pbench_runs_opts), .mode = PBENCH_RUNS_PREPARED, .cpu = -1, \
	  .warmup_ms = 1200, .runs = 20 }

struct pbench_runs;

/*
 * Check what opts ask (the command is found, the event names are known, the values are in
 * range) and open what the runs need; nothing runs yet. Errors: -EINVAL (NULL out or opts, a
 * size of 0, a value out of range: pbench_runs_error() says which), the errors of
 * pbench_command_resolve() and of pbench_counters_open() (name errors), -ENOMEM.
 */
PBENCH_API int pbench_runs_new(struct pbench_runs **out, const struct pbench_runs_opts *opts);
/*
 * Run the sets: unprepared, prepared, or one then the other; each stops by its rule or at
 * *stop. Then the summaries, fences and outliers' causes, and the checks of the CPU the
 * prepared runs used. Returns 0, -EINTR when *stop ended it (what was measured is kept and
 * reported), or an error that ended it (-PBENCH_ENOT_FOUND..., -errno of preparing):
 * pbench_runs_error() says what. Call once.
 */
PBENCH_API int pbench_runs_run(struct pbench_runs *r);
/* The last failure in words ("" if none). */
PBENCH_API const char *pbench_runs_error(const struct pbench_runs *r);
PBENCH_API void pbench_runs_free(struct pbench_runs *r);

/* The sets, in the order run: 1, or 2 for the contrast; and the events per run. */
PBENCH_API int pbench_runs_nr_sets(const struct pbench_runs *r);
PBENCH_API int pbench_runs_nr_events(const struct pbench_runs *r);
PBENCH_API const char *pbench_runs_event_name(const struct pbench_runs *r, int e);

struct pbench_runs_set {
	size_t size;
	int mode;			/* PBENCH_RUNS_UNPREPARED or _PREPARED */
	int prepared;			/* prepared set: pbench_prepare() succeeded */
	int done;			/* runs measured */
	int failed;			/* runs that exited non-zero or were killed */
	int outliers;
	int stop;			/* enum pbench_runs_stop */
	double sem_pct;			/* with a target: the SEM when it stopped */
	double elapsed_s;
	int cpu;			/* prepared: the CPU; -1 unprepared */
	const char *cpu_reason;		/* why that CPU ("" unprepared) */
	int policy, prio_value;		/* in force during the runs */
	const char *policy_name;
	double warmup_ms;
	double rest_ms;			/* rested between FIFO runs in all */
	int restore_err;		/* prepared: pbench_prepared_restore()'s */
	int restored_by;		/* the signal whose handler restored first, or 0 */
	int rival_pid;			/* prepared: another pbench pinned to the CPU when the
					 * runs began or ended (pbench_cpu_rival()), or 0 */
	double fence_lo_ns, fence_hi_ns;	/* Tukey's; NaN below 2 runs */
	double setup_ns_median;		/* a command's harness costs (NaN: not known) */
	double exec_ns_median;
};
/* Set s (0 .. pbench_runs_nr_sets() - 1). Errors: -EINVAL. */
PBENCH_API int pbench_runs_set_info(const struct pbench_runs *r, int s,
				    struct pbench_runs_set *out);
/* Its summary in ns and in ticks (either may be NULL); -ENODATA without runs. */
PBENCH_API int pbench_runs_summary(const struct pbench_runs *r, int s, struct pbench_summary *ns,
				   struct pbench_summary *ticks);

struct pbench_run {
	size_t size;
	uint64_t ticks, ns;
	uint64_t setup_ns;		/* a command's fork and set-up before the span (0: n/a) */
	uint64_t exec_ns;		/* its release to exec inside it (0: not known) */
	int exited, exit_status;
	int signaled, term_signal;
	int timed_out;			/* ended at timeout_s: not a measurement */
	int left_behind;		/* processes the command left, ended by pbench */
	int cpu;			/* the CPU its noise was read on */
	int outlier;			/* beyond its set's Tukey fences */
	const char *cause;		/* the outlier's cause in words, NULL otherwise */
};
/* Run i of set s. Errors: -EINVAL. */
PBENCH_API int pbench_runs_get(const struct pbench_runs *r, int s, int i, struct pbench_run *out);
/* Event e of that run (status and reason as pbench_counters_read() gives them). */
PBENCH_API int pbench_runs_count(const struct pbench_runs *r, int s, int i, int e,
				 struct pbench_count *out);
/* Its noise: the task's, and the CPU's (cpu NULL to skip; -ENODATA for cpu when it could not
 * be read). */
PBENCH_API int pbench_runs_noise(const struct pbench_runs *r, int s, int i,
				 struct pbench_noise *task, struct pbench_cpu_noise *cpu);

/* The contrast: spread and CV ratios (unprepared / prepared, NaN when the prepared one is 0)
 * and the verdict in words. -ENODATA when there is no contrast (one set, or fewer than two
 * runs in either). */
PBENCH_API int pbench_runs_contrast(const struct pbench_runs *r, double *spread_ratio,
				    double *cv_ratio, char *verdict, size_t len);

/* Reports. Text: what pbench stat prints. JSON (schema 1): the modes with every run, the
 * contrast, the checks of the CPU. CSV: one line per run. SVG: each run in order and the
 * distributions. Errors: -EINVAL, -ENOMEM, -EIO (writing to f failed). */
PBENCH_API int pbench_runs_write_text(const struct pbench_runs *r, FILE *f);
PBENCH_API int pbench_runs_write_json(const struct pbench_runs *r, FILE *f);
PBENCH_API int pbench_runs_write_csv(const struct pbench_runs *r, FILE *f);
PBENCH_API int pbench_runs_plot_svg(const struct pbench_runs *r, FILE *f);

/* ---------------------------------------------------------------------------------------------
 * System facts the counters path needs (sysfs.c). Like every read outside pbench_env_check()
 * (and pbench_cpus_present()), these read the live machine: PBENCH_SYSFS_ROOT and
 * PBENCH_PROCFS_ROOT are for the checks only.
 */

/* kernel.perf_event_paranoid, or a negative error if it cannot be read. */
PBENCH_API int pbench_perf_paranoid(int *value);
/* 1 when a hardware CPU PMU is registered (event_source/devices/cpu*), else 0. */
PBENCH_API int pbench_has_cpu_pmu(void);

#ifdef __cplusplus
}
#endif
#endif /* PBENCH_H */
