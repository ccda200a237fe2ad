/* SPDX-License-Identifier: MIT */
/* pbench/runs.h - part of pbench.h (include <pbench.h>; the parts come in data-flow order,
 * each including the one before it). */
#ifndef PBENCH_H_RUNS
#define PBENCH_H_RUNS

#include "prepare.h"

#ifdef __cplusplus
extern "C" {
#endif

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

enum pbench_workload_kind {
	PBENCH_WORKLOAD_XOR = 0,	/* pbench_workload_xor(): register-only */
	PBENCH_WORKLOAD_MEMWALK,	/* pbench_walk_*: one cache miss a step */
	PBENCH_WORKLOAD_FN,		/* fn(ctx), once a run */
};

/* "unprepared", "prepared", "contrast" (enum pbench_runs_mode); "?" for another value. */
PBENCH_API const char *pbench_runs_mode_name(int mode);
/* "xor", "memwalk", "function" (enum pbench_workload_kind); "?" for another value. */
PBENCH_API const char *pbench_workload_kind_name(int kind);

/* Why a set stopped. */
enum pbench_runs_stop {
	PBENCH_RUNS_STOP_COUNT = 0,	/* the runs asked for */
	PBENCH_RUNS_STOP_TARGET,	/* the standard error reached target_sem_pct */
	PBENCH_RUNS_STOP_TIME,		/* max_time_s spent before the target */
	PBENCH_RUNS_STOP_MAX_RUNS,	/* runs spent before the target */
	PBENCH_RUNS_STOP_INTERRUPTED,	/* *stop was set */
};

#define PBENCH_RUNS_SEM_MIN_RUNS 10	/* a target is trusted after this many runs */
/* With a target and no count or budget of the caller's: the most runs per set (opts.runs) and
 * the time budget per set (opts.max_time_s, s) that pbench stat --target-sem takes. */
#define PBENCH_RUNS_SEM_DEFAULT_RUNS 1000
#define PBENCH_RUNS_SEM_DEFAULT_MAX_TIME_S 60.0
/* The most runs per set (opts.runs), and the most warm-up runs (opts.warmup_runs). */
#define PBENCH_RUNS_MAX_RUNS 1000000L

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
	const char *metric;		/* opts.metric: sem_pct is its SEM (mean_ns stays the
					 * time); NULL: the time's */
};

struct pbench_runs_opts {
	size_t size;
	const char *events;		/* comma-separated (NULL: PBENCH_RUNS_DEFAULT_EVENTS, less
					 * those this machine cannot count: see
					 * pbench_runs_left_out()) */
	char *const *argv;		/* the command (NULL: the workload) */
	int workload;			/* enum pbench_workload_kind, when argv is NULL */
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
	int quiet;			/* where a command's output goes: enum
					 * pbench_child_output (1: /dev/null) */
	/* Set by the caller's signal handler: the run under way is ended (a command with its
	 * group), not kept, and no further run starts. */
	const volatile int *stop;
	void (*progress)(const struct pbench_runs_progress *p, void *arg);
	void *progress_arg;
	unsigned flags;			/* enum pbench_runs_flags */
	/* A command's CPUs when prepared (ncpus > 0): it runs on all of them, pbench itself on
	 * cpu (which must be one of them; -1: the first). For a command that uses several CPUs:
	 * pinned to one, its threads take turns. 0: the prepared CPU only. Copied. */
	const int *cpus;
	int ncpus;
	/* hyperfine's helpers (copied; found now, as argv is): runs before each set's, not
	 * kept; a command once before all the sets, one before each run (warm-up runs too),
	 * not timed, and one once after the sets, also when they were stopped or failed. A
	 * helper that fails ends the runs with its exit status in pbench_strerror()'s words of
	 * the error pbench_runs_run() returns. */
	long warmup_runs;
	char *const *setup;
	char *const *prerun;		/* hyperfine's --prepare, before each run: not prepared
					 * mode (pbench_prepare(), PBENCH_RUNS_PREPARED) */
	char *const *cleanup;
	/* Derived metrics to make (perf stat's -M): names or groups, comma-separated
	 * (pbench_metric_get()); their events are opened beside events, each metric's hardware
	 * events in one group. NULL: the metrics the events counted allow. Copied. */
	const char *metrics;
	/* > 0: each run of a command seen over time, as perf stat -I MS: every interval_ms
	 * milliseconds (at least PBENCH_RUNS_INTERVAL_MIN_MS; fractions allowed) pbench reads the
	 * command's counters while it runs and keeps each interval's counts and wall time
	 * (pbench_runs_interval()). 0: off. A command only: the built-in workloads and a
	 * function run on pbench's own thread, which cannot wake beside them. */
	double interval_ms;
	/* What the summary, the outliers and target_sem_pct are computed on (--metric): NULL,
	 * the wall time; else a counted event ("task-clock", "instructions:u") or a derived
	 * metric (pbench_metric_get(): "ipc"), whose events are opened beside events when
	 * they are not among them. pbench_runs_new() fails with -PBENCH_EUNKNOWN_EVENT for a
	 * name that is neither (the detail says "did you mean"), and with -EOPNOTSUPP
	 * when its events cannot be counted here (the detail says why). Copied. */
	const char *metric;
	/* Raised by the caller's SIGCONT handler (a count; NULL: none): a run during which it
	 * changed was stopped with its harness (SIGSTOP, SIGTSTP) and continued, and says so
	 * (its time holds the stop; it is no outlier of the machine's). */
	const volatile unsigned *resumed;
	/* The text writer's prose wrapped at this many columns (0: not wrapped), as every text
	 * writer wraps (output.h). */
	int text_width;
	/* Where the time goes (issue 36): > 0, every timed run of a command (not a warm-up run,
	 * not a failed check) is sampled over its whole process tree (perf_event_open, user
	 * and kernel where permitted), one profile a run, symbolized after the runs (never in
	 * the timed span): enum pbench_profile_mode. The figures: pbench_runs_profile_info(),
	 * pbench_runs_symbol(), pbench_runs_profile_dso(); the writers carry them. A command
	 * only. */
	int profile;
	double profile_freq;		/* samples a second (0: 4000, perf record's) */
	const char *profile_event;	/* NULL: cpu-clock (a timer: no PMU needed). Copied. */
	const char *debug_dirs;		/* colon-separated directories of debug files (by
					 * build-id: DIR/.build-id/xx/yyyy.debug), after
					 * /usr/lib/debug; NULL: none. Copied. */
	int profile_top;		/* the text's and Markdown's table: the top symbols by
					 * self (0: PBENCH_RUNS_DEFAULT_PROFILE_TOP); JSON and CSV have all */
};

#define PBENCH_RUNS_DEFAULT_PROFILE_TOP 15

/* How the call stacks of a profile are taken (pbench_runs_opts.profile). */
enum pbench_profile_mode {
	PBENCH_PROFILE_OFF = 0,
	/* the kernel's frame-pointer walk (perf record -g): cheap; a caller of code built
	 * without frame pointers is lost (its chain cut short) */
	PBENCH_PROFILE_FP = 1,
	/* the user registers and 8 KiB of the user stack copied a sample and unwound after the
	 * runs by DWARF CFI (perf's --call-graph dwarf): callers found without frame pointers */
	PBENCH_PROFILE_DWARF = 2,
};

/* "off", "fp", "dwarf" (as --call-graph says it); NULL for another value. */
PBENCH_API const char *pbench_profile_mode_name(int mode);

/* perf stat -I's least interval: shorter ones would be mostly pbench's own reads. */
#define PBENCH_RUNS_INTERVAL_MIN_MS 10

enum pbench_runs_flags {
	/* pbench_prepare() installs its handlers of SIGINT, SIGTERM, SIGHUP... (PREPARE_SIGNALS) */
	PBENCH_RUNS_SIGNALS = 1 << 0,
	/* pbench_prepare()'s PBENCH_PREPARE_PRIORITY_CACHE and _REPROBE: AUTO's priority
	 * decision kept for this boot, and probing again anyway */
	PBENCH_RUNS_PRIORITY_CACHE = 1 << 1,
	PBENCH_RUNS_REPROBE = 1 << 2,
	/* A command runs once before anything is timed or prepared (its check run, after the
	 * setup command and o.prerun), and one that exits non-zero or is killed there ends
	 * pbench_runs_run() at once with -PBENCH_ECMD_FAILED (its status and the last line of
	 * its stderr in pbench_strerror() of it). With this flag there is no check run: a command
	 * that fails is timed, its runs counted as failed (hyperfine's --ignore-failure). */
	PBENCH_RUNS_NO_CHECK = 1 << 6,
};

/* perf stat's defaults: the software events, and the hardware events of its default metrics
 * (GHz, IPC, branch-miss %): four hardware events, which every PMU with two general counters
 * beside cycles and instructions counts at once. */
#define PBENCH_RUNS_DEFAULT_EVENTS \
	"task-clock, context-switches, cpu-migrations, page-faults, cycles, instructions, " \
	"branches, branch-misses"
#ifdef __cplusplus	/* see PBENCH_MEASURE_OPTS_INIT */
#define PBENCH_RUNS_OPTS_INIT \
	([] { struct pbench_runs_opts pbench_o_ = {}; pbench_o_.size = sizeof(pbench_o_); \
	      pbench_o_.mode = PBENCH_RUNS_PREPARED; pbench_o_.cpu = -1; \
	      pbench_o_.warmup_ms = PBENCH_MEASURE_DEFAULT_WARMUP_MS; pbench_o_.runs = 20; \
	      return pbench_o_; }())
#else
#define PBENCH_RUNS_OPTS_INIT \
	{ .size = sizeof(struct pbench_runs_opts), .mode = PBENCH_RUNS_PREPARED, .cpu = -1, \
	  .warmup_ms = PBENCH_MEASURE_DEFAULT_WARMUP_MS, .runs = 20 }
#endif

struct pbench_runs;

/*
 * Check what opts ask (the command is found, the event names are known, the values are in
 * range) and open what the runs need; nothing runs yet. Errors: -EINVAL (NULL out or opts, a
 * size of 0, a value out of range: pbench_strerror() of it says which), the errors of
 * pbench_command_resolve() and of pbench_counters_open() (name errors), -ENOMEM.
 */
PBENCH_API int pbench_runs_new(struct pbench_runs **out, const struct pbench_runs_opts *opts);
/*
 * What pbench_runs_new() refuses in opts before it opens anything: a value out of range,
 * nothing to run, and three combinations in the words of pbench stat: max_time_s without
 * target_sem_pct (the budget of the target), several CPUs (cpus, ncpus) and interval_ms for a
 * workload or a function, which run on one, pbench's own thread. 0, or -EINVAL, which
 * pbench_strerror() says as a sentence ("--max-time is the time budget of --target-sem: ...");
 * -EINVAL for a NULL opts or a size of 0.
 */
PBENCH_API int pbench_runs_check(const struct pbench_runs_opts *opts);
/*
 * Run the sets: unprepared, prepared, or one then the other; each stops by its rule or at
 * *stop. Then the summaries, fences and outliers' causes, and the checks of the CPU the
 * prepared runs used. Returns 0, -EINTR when *stop ended it (what was measured is kept and
 * reported), or an error that ended it (-PBENCH_ENOT_FOUND..., -errno of preparing,
 * -PBENCH_ECMD_FAILED): pbench_strerror() of it says what in the words pbench stat prints
 * ("'false' failed before any timed run: exit 1; its stderr was empty"). Call once.
 */
PBENCH_API int pbench_runs_run(struct pbench_runs *r);
PBENCH_API void pbench_runs_free(struct pbench_runs *r);

/* The sets, in the order run: 1, or 2 for the contrast; and the events per run. */
PBENCH_API int pbench_runs_nr_sets(const struct pbench_runs *r);
PBENCH_API int pbench_runs_nr_events(const struct pbench_runs *r);
PBENCH_API const char *pbench_runs_event_name(const struct pbench_runs *r, int e);
/*
 * The default events (opts.events NULL) this machine cannot count, left out of the runs'
 * events (cycles and instructions with no hardware PMU): the i-th one's name and why
 * (strings valid until r is freed; name or reason may be NULL). An event asked for by name
 * is never left out: it stays among the events with its status. 0; -ENOENT past the last
 * (none: i = 0 gives -ENOENT); -EINVAL.
 */
PBENCH_API int pbench_runs_left_out(const struct pbench_runs *r, int i, const char **name,
				    const char **reason);

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
	double speed_cost_ns_median;	/* reading the reference loop around a run, outside
					 * the timed span (NaN: not read) */
	/* The runs' CPU time, user and system (pbench_run's user_ns, system_ns): means over
	 * the runs not ended at the timeout, ns (NaN: no run) */
	double user_ns_mean, system_ns_mean;
	/* Whether the result is the command's own time (issue 27), for the prepared set */
	double cpu_busy;		/* pbench_prepared_cpu_busy() of its CPU, 0 to 1 (NaN: not
					 * measured, or unprepared) */
	double task_clock_share;	/* a typical run's task-clock over its wall time (median;
					 * NaN: task-clock not counted) */
	int unreliable;			/* prepared: 1 every CPU was busy (cpu_busy at least
					 * PBENCH_CPU_BUSY), 2 task-clock far below the wall time
					 * (task_clock_share under 0.6: it waited or was
					 * preempted); both may be set; 0 otherwise */
};
/* Set s (0 .. pbench_runs_nr_sets() - 1). Errors: -EINVAL. */
PBENCH_API int pbench_runs_set_info(const struct pbench_runs *r, int s,
				    struct pbench_runs_set *out);
/* What set s's unreliable flags mean, in words ("" when none): "every CPU this process may use
 * was busy with other work (CPU 1, the least busy, 100% over the 200 ms before the runs): ..."
 * and "task-clock 41.9 ms against 84.5 ms of wall time (a typical run: 0.50 of it): the
 * command waited or was preempted for the rest". Returns the length (snprintf semantics);
 * -EINVAL. */
PBENCH_API int pbench_runs_caution(const struct pbench_runs *r, int s, char *buf, size_t len);
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
	double speed;			/* the core's issue throughput available to pbench's
					 * thread around the run (the throughput reference, not
					 * the CPU's clock): pbench_speed_factor() against the
					 * invocation's best reading (NaN: unknown) */
	double ref_before_ns, ref_after_ns;	/* the reference loop's readings (NaN: none) */
	/* CPU time in user space and in the kernel, ns, by getrusage (as hyperfine's "User" and
	 * "System"): a command's and the descendants it waited for, or the workload thread's;
	 * in the kernel's accounting granularity (often a tick for short runs) */
	uint64_t user_ns, system_ns;
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

/* The speed factors of set s's runs and what they explain of its times (runs ended at the
 * timeout left out). Errors: -EINVAL, -ENODATA (no run with a factor). */
PBENCH_API int pbench_runs_speed(const struct pbench_runs *r, int s,
				 struct pbench_speed_summary *out);
/* The same of the CPU's clock: the PMU's where the runs' own counters allow it (each run's
 * cycles over its task-clock against the best run's of the invocation: cycles, not cycles:u,
 * and task-clock both counted all the run long; out->source PBENCH_SPEED_SOURCE_PMU), else
 * the clock's (latency-bound) reference read with the throughput's (pbench_speed_read_clock()).
 * pbench_speed_explain() and pbench_speed_slow_runs() take both. Errors as
 * pbench_runs_speed(). */
PBENCH_API int pbench_runs_clock(const struct pbench_runs *r, int s,
				 struct pbench_speed_summary *out);
/* For a verdict, over every set's runs: when the clock varied (PBENCH_SPEED_VARIED), "the CPU's
 * clock varied 1.33x during the runs (0.75x to 1.00x of its best, latency-bound reference; in
 * the prepared runs 1.33x, time against 1/clock r = 0.97: it explains the spread)" (each set
 * whose clock varied); else when the throughput reference's factors did, "the core's issue
 * throughput available to this thread varied 1.88x during the runs (0.53x to 1.00x of its
 * best; the clock did not change; in the prepared runs ...)" (not the CPU's speed: issue 27);
 * else "". Returns the length (snprintf semantics); -EINVAL. */
PBENCH_API int pbench_runs_speed_note(const struct pbench_runs *r, char *buf, size_t len);

/* Reports. Text: what pbench stat prints. JSON (schema PBENCH_JSON_SCHEMA): the modes with
 * every run, the contrast, the checks of the CPU. CSV: one line per run. Markdown: a table
 * with a row per mode (mean ± standard deviation, median, min, max in one unit, CV, spread,
 * outliers) and the contrast's verdict. SVG: each run in order and the distributions.
 * Errors: -EINVAL, -ENOMEM, -EIO (writing to f failed). */
PBENCH_API int pbench_runs_write_text(const struct pbench_runs *r, FILE *f);
/* The report in format fmt (enum pbench_report_format): the writer of that name (JSON
 * without a listing). Its errors, or -EINVAL for another fmt. */
PBENCH_API int pbench_runs_write(const struct pbench_runs *r, int fmt, FILE *f);
PBENCH_API int pbench_runs_write_json(const struct pbench_runs *r, FILE *f);
/* The same document with the machine code of a function of the command (pbench stat
 * --annotate) as its "annotate" (null when l is NULL, as pbench_runs_write_json writes it). */
PBENCH_API int pbench_runs_write_json_annotated(const struct pbench_runs *r,
						const struct pbench_listing *l, FILE *f);
/* The same document with the listings of n functions (pbench stat --annotate A,B): all of them
 * in "annotations", in order, each with "asked": names[i] (names NULL or names[i] NULL: its
 * symbol), a NULL listing as null; the first also as "annotate", as
 * pbench_runs_write_json_annotated() writes one. n 0: "annotations" [] and "annotate" null.
 * -EINVAL (r or f NULL, n < 0, l NULL with n > 0), -ENOMEM, or the write's error. */
PBENCH_API int pbench_runs_write_json_listings(const struct pbench_runs *r,
					       const struct pbench_listing *const *l,
					       const char *const *names, int n, FILE *f);
/* pbench_runs_write_annotated()'s flags. */
enum pbench_runs_write_flags {
	PBENCH_RUNS_WRITE_BODY = 1 << 0,	/* the text without its head, written before the
						 * runs (pbench_runs_write_head()) */
};
/*
 * The report in format fmt with the listing l of a function of the command (pbench stat
 * --annotate; NULL: none): the JSON with it (pbench_runs_write_json_annotated()), the text and
 * the Markdown with it after them (the text's headed "--annotate NAME:", name the function
 * as it was asked for, NULL: the listing's symbol), the CSV and the plot as pbench_runs_write() writes them. flags: enum
 * pbench_runs_write_flags. Errors as the writers', -EINVAL for another fmt.
 */
PBENCH_API int pbench_runs_write_annotated(const struct pbench_runs *r,
					   const struct pbench_listing *l, const char *name,
					   int fmt, unsigned flags, FILE *f);
/* The runs of r's command, n more, untimed, counted by the allocator shim (each as
 * pbench_mem_file_run() does; output discarded, stopped by opts' stop) and kept with the
 * runs: the text and Markdown end with their section (each figure exactly when every run
 * counted the same, else the mean with its standard error), the JSON has them as "memory"
 * (null without). What pbench stat --memory does after the timed runs. 0, 1 when stopped
 * (the runs not done say so), or -EINVAL (not a command, n < 1), -ENOENT (no shim:
 * PBENCH_MEM_SHIM names it), -ENOMEM, pbench_mem_file_run()'s. */
PBENCH_API int pbench_runs_count_memory(struct pbench_runs *r, int n);

/* Totals over every set of r, once they ran. */
struct pbench_runs_totals {
	size_t size;
	int done;			/* runs measured */
	int failed;			/* runs that exited non-zero or were killed */
	int restore_err;		/* a prepared set's pbench_prepared_restore() error, or 0 */
	int left_behind_runs;		/* runs after which the command left processes running */
	int left_behind;		/* those processes, ended by pbench */
};
/* 0, or -EINVAL (r NULL, out's size). */
PBENCH_API int pbench_runs_totals(const struct pbench_runs *r, struct pbench_runs_totals *out);

/* A command that used more CPUs' worth of time in a run (task-clock, children included, over
 * the wall time) than it was given: prepared runs pin it to one CPU (or to opts' cpus), where
 * its threads and processes take turns, and it measures something else. */
struct pbench_runs_multi_cpu {
	size_t size;
	double cpus_used;		/* task-clock / wall time of that run */
	int mode;			/* its set's, enum pbench_runs_mode */
	int run;			/* its number in the set, from 1 */
	double task_clock_ns, wall_ns;
	int cpus_given;			/* opts' ncpus when more than 1, else 1 */
	int cpus_needed;		/* cpus_used rounded up */
};
/* The run that used the most CPUs' worth of time, when that is more than 1.1 CPUs (the
 * counters' own skew never reaches 10%) and more than cpus_given: 1 and *out filled; 0 when
 * none did, task-clock was not counted or r's subject is not a command (out untouched);
 * -EINVAL. In the JSON as "multi_cpu". */
PBENCH_API int pbench_runs_multi_cpu(const struct pbench_runs *r,
				     struct pbench_runs_multi_cpu *out);
/*
 * What the runs left to warn about, in words, one at a time: k from 0 until it returns 0.
 * They are, in this order: processes the command left behind (ended by pbench), another
 * pbench pinned to a prepared set's CPU, and the multi-CPU finding with how to fix it. name is
 * the command as the reader knows it (its argv[0], or a contest entrant's name). 1 with the
 * warning in buf (cut to len), 0 past the last, -EINVAL.
 */
PBENCH_API int pbench_runs_warning(const struct pbench_runs *r, const char *name, int k,
				   char *buf, size_t len);
/*
 * What the end of a measurement says, in words, one finding at a time (k from 0 until 0 is
 * returned), each with its kind: what `pbench stat` and `pbench compare` print when they are
 * done and whether they then exit 1. The kind says how a reader should take the sentence in
 * buf (cut to len).
 */
enum pbench_outcome_kind {
	PBENCH_OUTCOME_NOTE = 1,	/* a plain line: the gate passed or was undecided */
	PBENCH_OUTCOME_WARNING,		/* the measurement stands, with this to know */
	PBENCH_OUTCOME_ERROR,		/* the measurement failed: a run failed, a state was not
					 * restored, it was interrupted, --strict refused it */
	PBENCH_OUTCOME_REGRESSION,	/* the gate failed: "regression: ...", a plain line */
	PBENCH_OUTCOME_UNDECIDED,	/* the gate could not decide, and the caller asked that to
					 * fail (PBENCH_OUTCOME_FAIL_UNDECIDED): "undecided: ..." */
};
enum pbench_outcome_flags {
	PBENCH_OUTCOME_INTERRUPTED = 1 << 0,	/* the caller's stop ended it (-EINTR) */
	PBENCH_OUTCOME_STRICT = 1 << 1,		/* a prepared set whose CPU was busy is an error */
	PBENCH_OUTCOME_PREPARED = 1 << 2,	/* pbench_jitter_outcome(): a prepared probe was
						 * asked for too */
	PBENCH_OUTCOME_FAIL_UNDECIDED = 1 << 3,	/* pbench_contest_outcome(): a gate against a
						 * stored baseline that cannot decide is said as
						 * PBENCH_OUTCOME_UNDECIDED, not a note, so a
						 * CI gate that cannot decide never passes */
};
/*
 * The runs' outcome, the first that applies: "interrupted after D of N runs"; else "F of D runs
 * of 'NAME' failed (see the status column)"; else the prepared state not fully restored; else,
 * with PBENCH_OUTCOME_STRICT, "--strict: the prepared result is unreliable: ..." for each
 * prepared set whose CPU was busy (pbench_runs_caution()). All PBENCH_OUTCOME_ERROR (the
 * warnings are pbench_runs_warning()'s). name: as for pbench_runs_warning(). Returns the kind
 * with the sentence in buf, 0 past the last, -EINVAL.
 */
PBENCH_API int pbench_runs_outcome(const struct pbench_runs *r, const char *name, unsigned flags,
				   int k, char *buf, size_t len);
PBENCH_API int pbench_runs_write_csv(const struct pbench_runs *r, FILE *f);
PBENCH_API int pbench_runs_write_markdown(const struct pbench_runs *r, FILE *f);
/* The text in two parts, for a caller whose command writes to the same stream: the head
 * (what runs, how many, the clock: before pbench_runs_run() the runs as asked, after it as
 * done), then, after the runs, the body (everything pbench_runs_write_text() prints after
 * its head). Errors as pbench_runs_write_text(). */
PBENCH_API int pbench_runs_write_head(const struct pbench_runs *r, FILE *f);
PBENCH_API int pbench_runs_write_body(const struct pbench_runs *r, FILE *f);
PBENCH_API int pbench_runs_plot_svg(const struct pbench_runs *r, FILE *f);


/* ---- per-event summaries and derived metrics over a set's runs (runs_summary.c) ---------- */

/* Event e over the runs of set s in its summary (struct pbench_event_summary, counters.h). */
/* Errors: -EINVAL (r, s, e or out). */
PBENCH_API int pbench_runs_event_summary(const struct pbench_runs *r, int s, int e,
					 struct pbench_event_summary *out);

/* A derived metric over the runs of set s: made in each run from that run's counts, then
 * summarized; "n/a" (reason set, runs 0) when it cannot be made. */
struct pbench_metric_summary {
	size_t size;
	/* strings: the library's (pbench_metric_info's), valid until r is freed */
	const char *name, *group, *label, *formula, *unit;
	const char *events;		/* the events it was made from */
	const char *reason;		/* NULL when made in some run; else why not ("n/a: ...") */
	int runs;			/* runs it was made in */
	int apart;			/* of them, runs whose events were multiplexed apart (not
					 * all counted in the same window): the value is made from
					 * estimates of different windows */
	double mean, sem_pct, median, min, max, stddev, cv_pct;	/* as an event's */
};
/* The metrics a set has: those asked for (opts.metrics) and those its events allow. */
PBENCH_API int pbench_runs_nr_metrics(const struct pbench_runs *r);
/* Errors: -EINVAL. */
PBENCH_API int pbench_runs_metric(const struct pbench_runs *r, int s, int m,
				  struct pbench_metric_summary *out);
/*
 * The per-run values of an event (its scaled count; ns for task-clock) or of a metric named
 * name, over every run of set s in order (as pbench_runs_get()'s i): NaN for a run where it
 * was not counted or cannot be made, or that timed out. Fills out[0 .. n-1] when out is not
 * NULL and returns the number of runs. What a judge on a counter takes as its figure.
 * Errors: -EINVAL, -ENOENT (no such event or metric in r).
 */
PBENCH_API int pbench_runs_values(const struct pbench_runs *r, int s, const char *name,
				  double *out, int n);

/* ---- a run over time: its intervals (opts.interval_ms; runs_interval.c) ------------------- */

/*
 * pbench_runs_write_text() prints them after each set's table of runs (per run, perf stat -I's
 * lines: one an interval, an event a column), the JSON has each run's "intervals", the CSV a
 * line per interval after its run's, and pbench_runs_plot_svg() draws each event's rate over
 * the run's time instead of the runs.
 *
 * Interval k of a run, from 0: where it starts and how long it lasted, as pbench's clock saw
 * it. Intervals end every interval_ms from the run's start (later when pbench woke late: ns
 * says how long each was); the last one ends with the run and is partial (a run that ended at
 * the timeout has only its whole intervals). The ns of a run's intervals add up to its ns
 * exactly.
 */
struct pbench_runs_interval {
	size_t size;
	uint64_t start_ns;		/* since the run's start (the command's exec), ns */
	uint64_t ns;			/* its wall time, ns */
	int partial;			/* 1: the last, cut short by the run's end */
};
/* How many intervals run i of set s has: 0 without opts.interval_ms; -EINVAL (no such run).
 * i may also be the set's count of runs done when a signal (opts.stop) cut the next run short
 * (or the check run, or a warm-up run, i 0): the intervals the report shows of it, which
 * pbench_runs_interval() does not hand out. */
PBENCH_API int pbench_runs_nr_intervals(const struct pbench_runs *r, int s, int i);
/* Interval k of run i of set s. Errors: -EINVAL (no such run or interval, out's size). */
PBENCH_API int pbench_runs_interval(const struct pbench_runs *r, int s, int i, int k,
				    struct pbench_runs_interval *out);
/*
 * Event e (pbench_runs_event_name()) in that interval: its count in the interval (value,
 * time_enabled and time_running are the interval's deltas; scaled by its own running share).
 * An event never opened has its status as in the run; one that was not on a counter in the
 * interval is PBENCH_EVENT_NOT_COUNTED with the reason, never a 0. An interval where the
 * command was on no CPU at all (it slept: time_enabled 0, since the kernel counts a task's
 * events only while it runs) counts 0, status OK. Errors: -EINVAL.
 */
PBENCH_API int pbench_runs_interval_count(const struct pbench_runs *r, int s, int i, int k,
					  int e, struct pbench_count *out);

/* ---- the profile (opts.profile, issue 36) ------------------------------------------------- */

/* What set s's profile holds: its event and rate, its samples over the runs, what could not
 * be seen. Strings valid until r is freed. */
struct pbench_profile_info {
	size_t size;
	int mode;			/* enum pbench_profile_mode */
	const char *event;		/* "cpu-clock" */
	const char *unit;		/* "ns" (cpu-clock, task-clock: a sample's period is its
					 * time) or "events" (another event: its count) */
	double freq;			/* samples a second asked */
	int runs;			/* runs profiled */
	uint64_t samples;		/* kept, over the runs */
	uint64_t lost;			/* records the kernel could not write, over the runs */
	uint64_t throttled;		/* throttle records, over the runs */
	uint64_t cut;			/* samples whose chain may be cut short */
	double per_run, per_run_lo, per_run_hi;	/* the sampled value of a run (unit), its mean
					 * and interval (NaN below 2 runs) */
	int kernel;			/* 1: the kernel was sampled */
	const char *caveats;		/* what the profile could not see, a line each ("\n"
					 * ended), or "" (lost, throttled, the kernel hidden and
					 * the setting that hides it, chains cut short) */
	int nr_symbols, nr_dsos;
	const char *status;		/* NULL, or why there is no profile at all (the sampling
					 * refused, the symbolizer not built) */
};
/* 0; -ENOENT when opts.profile was off; -EINVAL. */
PBENCH_API int pbench_runs_profile_info(const struct pbench_runs *r, int s,
					struct pbench_profile_info *out);

/* One symbol of a profile (a function, matched by its DSO and name; inlined functions their
 * own), its figures per run in the profile's unit: self (samples in it) and total (in it or
 * what it called, a stack counted once however deep it recurs), the mean over the runs with
 * its interval (the runs' 95% Student t interval, as every summary's; NaN below 2 runs), and
 * the share of all the runs' sampled value. An address no symbol names is name "[unknown]" of
 * its DSO, with why. */
struct pbench_profile_symbol {
	size_t size;
	const char *name, *dso;
	const char *file;		/* the source of its hottest address (NULL: no line info) */
	unsigned line;
	int kernel, unknown;
	const char *why;		/* unknown: why not named */
	double self, self_lo, self_hi;
	double total, total_lo, total_hi;
	double self_pct, total_pct;
	uint64_t self_samples, total_samples;
};
/* Symbol i of set s, by self highest first (i < info.nr_symbols). 0, -ENOENT (no profile, i
 * past the last), -EINVAL. */
PBENCH_API int pbench_runs_profile_symbol(const struct pbench_runs *r, int s, int i,
					  struct pbench_profile_symbol *out);
/* DSO i of set s (by self highest first, i < info.nr_dsos): name, self (the self of its
 * symbols) and self_pct; total as self. 0, -ENOENT, -EINVAL. */
PBENCH_API int pbench_runs_profile_dso(const struct pbench_runs *r, int s, int i,
				       struct pbench_profile_symbol *out);
/* Set s's stacks in FlameGraph's folded format (inferno, speedscope read it): a line a unique
 * stack, "command;root;...;leaf SAMPLES" over all its runs; inlined frames end "_[i]", the
 * kernel's "_[k]". 0, -ENOENT (no profile), the write's error. */
PBENCH_API int pbench_runs_write_folded(const struct pbench_runs *r, int s, FILE *f);
/* Set s's profile as a flame graph, an SVG drawn by pbench (FlameGraph's layout: the callers
 * at the bottom, names in the wide frames and as tooltips with the DSO, the time and share):
 * the stacks of its mean run (each stack's value summed over the runs, divided by their
 * count), so a frame's width is its total share of the table. Titled by the command, the
 * runs, samples, event and call graph. 0, -ENOENT (no profile), -ENOMEM, -EINVAL, the write's
 * error. */
PBENCH_API int pbench_runs_write_flamegraph(const struct pbench_runs *r, int s, FILE *f);
/* Set s's profile as pprof's profile.proto, gzipped (`go tool pprof`, Pyroscope, Parca): the
 * stacks of all its runs summed (samples count, and the value: cpu nanoseconds for cpu-clock
 * and task-clock, else the event's count), the period (ns between samples, or an event's mean
 * count a sample), the duration (the runs' timed spans summed), the time (the runs' start),
 * comments (the command, the runs and samples, the caveats). 0, -ENOENT (no profile),
 * -ENOTSUP (built without protobuf-c: PPROF=0), -ENOMEM, -EINVAL, the write's error. */
PBENCH_API int pbench_runs_write_pprof(const struct pbench_runs *r, int s, FILE *f);
/* Set s's profile marked on listing l (pbench_listing_new() of a function of any file the
 * command ran: its program, a shared library), as pbench_listing_sample() marks a sampled
 * run's, from the same samples instead of one more run: each sample whose leaf (where the
 * thread was) is in l's file counts for the line of its instruction, every sample of the
 * profile towards the total. A listing whose code is not shown, or a file the profile has no
 * sample in, says why (pbench_listing_samples_reason()). What pbench stat --profile
 * --annotate does. 0, -ENOENT (no profile), -EINVAL, -ENOMEM. */
PBENCH_API int pbench_runs_profile_annotate(const struct pbench_runs *r, int s,
					    struct pbench_listing *l);

#ifdef __cplusplus
}
#endif
#endif /* PBENCH_H_RUNS */
