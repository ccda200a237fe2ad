/* SPDX-License-Identifier: MIT */
/*
 * The runs module's own header (lib/src/runs/ only; tests/layers/run.sh fails an include of it
 * from another folder): the objects runs.h keeps opaque, a run, a set, a subject and the runs
 * object, and what only the module's files call. Other modules use runs.h's functions.
 */
#ifndef PBENCH_RUNS_INNER_H
#define PBENCH_RUNS_INNER_H

#include "runs/runs.h"

/* One run, as measured. */
struct pb_run {
	uint64_t ticks, ns;
	uint64_t setup_ns;		/* a command's fork and counter set-up, before the span */
	uint64_t exec_ns;		/* its release to exec, inside the span (0: unknown) */
	uint64_t result;		/* the workload's result, kept so its work cannot be dropped */
	int exited, exit_status, signaled, term_signal;
	int timed_out;			/* killed at the timeout: not a measurement */
	int left_behind;		/* processes the command left running, ended by pbench */
	/* A command's resource use by wait4: its own and its waited-for descendants', not what
	 * it left running, which pbench reaps after (getrusage's children would count them) */
	struct pb_rusage child_ru;
	int have_child_ru;
	int self_stopped;		/* pbench itself was stopped and continued during it
					 * (o.resumed): its time holds the stop */
	struct pbench_count *counts;	/* nr_events of them, in the set's array */
	int cpu;			/* the CPU probed */
	struct pbench_noise noise;	/* the thread's (workload) or the child's */
	uint64_t user_ns, system_ns;	/* CPU time by getrusage: the thread's or the child's
					 * and the descendants it waited for */
	int have_migrations;		/* the cpu-migrations event was counted */
	/* The context-switches event over the timed span (counted from the exec), when it was
	 * counted: noise's ctx_* are getrusage's, which also hold a command's switches before
	 * its exec and at its exit, outside the span (issue 37) */
	uint64_t span_switches;
	int have_span_switches;
	int rusage_outside;		/* getrusage's are a command's: the harness's switches
					 * outside the span in them (pb_runs_keep()) */
	struct pbench_cpu_noise cpu_noise;
	int have_cpu_noise;
	int outlier;			/* beyond the Tukey fences of its set */
	char *cause;			/* pbench_noise_cause_speed() for an outlier, else NULL */
	/* runs_speed.c: the reference loop right before and after (ns, NaN: not read), what
	 * reading it cost, and the factor against the invocation's best (NaN: unknown) */
	double ref_before_ns, ref_after_ns, speed_cost_ns, speed;
	/* the clock's reference (latency-bound) likewise, and its factor */
	double clk_before_ns, clk_after_ns, clock;
	/* the PMU's clock factor: the run's cycles over its task-clock against the best run's of
	 * the invocation (pb_runs_clock_pmu_of(); NaN: not both counted all the run long) */
	double clock_pmu;
	/* the CPUs both references were read on before and after (-1: not read), and the CPU the
	 * run ended on (a command's process, read before it was reaped; the workload's thread);
	 * -1: not known */
	int ref_before_cpu, ref_after_cpu, end_cpu;
	/* opts.interval_ms (runs_interval.c): the run's intervals, niv of them, their counts
	 * (nr a row), and pbench's ticks since the run's start at the last one's end */
	struct pb_interval *iv;
	struct pbench_count *iv_counts;
	int niv, iv_cap;
	uint64_t iv_end_ticks;
};

/* An interval of a run: its start since the run's start and its wall time (cumulative ns
 * differences, so that a run's add up to its ns), and whether the run's end cut it short. */
struct pb_interval {
	uint64_t start_ns, ns;
	int partial;
};

/* What a command's child opens: only the events the subject's own set could open. */
struct pb_child_plan {
	char *events;			/* comma-separated, or NULL: nothing to open */
	int *map;			/* child event k is event map[k] of the set */
	int nc;
	struct pbench_count *tmpl;	/* every event's status and reason from the set */
	struct pbench_count *tmp;	/* the child's counts, nc of them */
};

struct pb_subject {
	char **argv;			/* a command (copied), or NULL */
	char *path;			/* the file its argv[0] is, resolved once */
	int workload;			/* enum pbench_workload_kind when argv is NULL */
	uint64_t iterations;
	size_t walk_bytes;
	pbench_fn fn;
	void *ctx;
	struct pb_child_plan plan;
};

struct pb_set {
	int mode;			/* PBENCH_RUNS_UNPREPARED or PBENCH_RUNS_PREPARED */
	struct pb_subject *subject;
	struct pb_run *runs;
	struct pbench_count *counts;
	long cap;			/* runs allocated */
	int done, failed;
	int cpu;			/* the prepared CPU; -1 for unprepared runs */
	char cpu_reason[256];
	int policy, prio_value;		/* in force during the runs */
	const char *policy_name;
	int prepared;			/* 1: pbench_prepare() succeeded; what follows is valid */
	struct pbench_prepared_step steps[PBENCH_PREPARE_STEP_NR];	/* .what: step_what */
	char step_what[PBENCH_PREPARE_STEP_NR][320];	/* kept: the prepared state is freed */
	struct pbench_prepared_priority prio;
	double warmup_ms;
	int stop;			/* enum pbench_runs_stop */
	double sem_pct;			/* the SEM when it stopped (with a target) */
	double elapsed_s;		/* from the first run to the end of the last */
	int restore_err;		/* pbench_prepared_restore()'s */
	int restored_by;		/* the signal whose handler restored, or 0 */
	int rival_pid;			/* another pbench pinned to the prepared CPU, or 0 */
	struct pbench_walk *walk;	/* the memory walk's buffer, made for this set */
	struct pbench_prepared *prep;	/* while the prepared runs are under way */
	double rest_ms;			/* rested between runs in all (FIFO) */
	double rest_owed_ns;		/* the runs' time since the last rest (pb_runs_keep) */
	int rests_owed, rests_skipped;	/* rests owed, and those not taken: nothing else was
					 * runnable (pb_runs_keep) */
	/* pb_runs_analyze() */
	int measured;			/* the runs in the summary (pb_run_measured()) */
	int have_summary;
	struct pbench_summary s_ns, s_ticks;
	double fence_lo, fence_hi;	/* Tukey fences in ns; NaN for fewer than 2 runs */
	int outliers;
	double speed_typical;		/* the runs' median speed factor (runs_speed.c) */
	double clock_typical;		/* the same of the clock's factors (the PMU's with
					 * clock_source PMU) */
	int clock_source;		/* enum pbench_speed_source: the PMU's when some run has
					 * a PMU clock factor, then the clock blamed and said */
	double cpu_busy;		/* prepared: pbench_prepared_cpu_busy() (NaN: not known) */
	/* The command's own waiting (pb_runs_analyze()): a typical run's time off the CPU, its
	 * blocks and preemptions, when it blocks (medians; else NaN and 0). Each outlier's
	 * cause is then told beyond them (PBENCH_CAUSE_OWN_WAIT). */
	double own_wait_ns;
	uint64_t own_blocks, own_preempted;
	/* ... or, where the context-switches event was not counted in every run, a typical run's
	 * time off the CPU alone: whether it blocked within its span is not known (else NaN) */
	double wait_untold_ns;
	/* pb_runs_analyze(): a typical run within its timed span, the medians of the measured
	 * runs: its time not running (NaN: task-clock not counted), its blocks and preemptions
	 * within the span (getrusage's, less those outside the span where the context-switches
	 * event says so), and its context-switches event (NaN: not counted in every run) */
	struct pb_typical {
		double not_running_ns, voluntary, involuntary, migrations, major_faults;
		double switches;
		/* its CPU's interrupts and steal (the runs with the CPU's noise; NaN: none) */
		double irq_timer, irq_ipi, irq_other, irq_device, steal_ticks, steal_ns;
	} typ;
	/* With a metric (pbench_runs_opts.metric): each run's value (NaN: not made; cap of
	 * them, from pb_runs_keep()), their summary and Tukey fences, on which the outliers
	 * and the stop rule are then (fence_lo/hi stay the time's) */
	double *mv;
	int have_mv;
	struct pbench_summary s_mv;
	double mfence_lo, mfence_hi;
	/* opts.interval_ms: runs[done] is a run the stop cut short whose intervals were kept
	 * (the last one up to the stop): what run it was ("run", "check run", "warm-up run");
	 * NULL: none */
	const char *cut;
};

#define PB_RUNS_MAX_LEFT_OUT 8

/*
 * Where the speed was last read and where the last command ended (runs_speed.c), one for the
 * runs objects that share a reference loop (a contest's entrants, pb_runs_share_speed()): the
 * reading before a run is taken where the last command of any of them ended, so that where
 * pbench then starts the next command does not depend on whose it is (interleaved entrants
 * land alike); a reading after serves as the next one before when it is on the same CPU a
 * moment ago.
 */
#define PB_SPEED_LAST_CPUS 64
struct pb_speed_spot {
	int end_cpu;			/* the CPU the last command ended on (the check run's
					 * too); -1 */
	int cpu;			/* the last reading's CPU; -1: none */
	double ref_ns, clk_ns;		/* its two references */
	uint64_t at;			/* pbench_ticks() when it was taken; 0: none */
	/* The last reading on each CPU (0: none), which a reading after a run on that CPU
	 * stops early against (runs_speed.c): an unprepared command ends on either CPU. */
	double last_ref[PB_SPEED_LAST_CPUS], last_clk[PB_SPEED_LAST_CPUS];
};

struct pbench_runs {
	struct pbench_runs_opts o;	/* the caller's, completed with the defaults */
	int *cpus;			/* o.cpus, copied */
	char *events;			/* o.events, copied */
	struct pb_subject subject;
	char **setup, **prerun, **cleanup;	/* o's helpers, copied (prerun: o.prerun, the command
						 * before each run, not prepared mode) */
	struct pbench_counters *self;	/* names the events; counts the workload */
	int nr;				/* events per run */
	/* The default events (o.events NULL) this machine cannot count, left out of self:
	 * their names and reasons (pbench_runs_left_out()) */
	char *left_name[PB_RUNS_MAX_LEFT_OUT];
	const char *left_reason[PB_RUNS_MAX_LEFT_OUT];
	int nleft;
	struct pbench_clock_info ci;
	struct pb_set sets[2];
	int nsets;
	struct pbench_cpu_probe **probes;	/* one per CPU, made when a run first lands there */
	int nprobes;
	struct pbench_check *env;		/* checks of the target CPU, or NULL */
	int env_cpu;
	struct pbench_speed *speed;	/* the reference loop, made at the first run */
	int speed_borrowed;		/* speed is another subject's (pb_runs_share_speed()) */
	double speed_best_ns;		/* its best reading (pbench_speed_factors()) */
	double clock_best_ns;		/* the clock's reference's */
	double clock_pmu_best_ghz;	/* the best run's cycles over task-clock (NaN: none) */
	struct pb_speed_spot spot_own, *spot;	/* spot: &spot_own, or the sharer's */
	struct pbench_mem_run *mem;	/* pb_runs_attach_memory()'s copy, or NULL */
	int nr_mem;
	int interrupted;		/* *o.stop was seen */
	int ran;
	char *metrics;			/* o.metrics, copied */
	unsigned char *mshow;		/* pbench_metric_nr(): 1 the metric is the set's */
	int *mlist;			/* the shown metrics' indices, nmetrics of them */
	int nmetrics;
	int stderr_fd;			/* > 0: the command's stderr goes there (pb_runs_check) */
	int check_due;			/* the next run of a command is its check (runs_exec.c) */
	const char *run_kind;		/* the run under way when not a timed one: "check run"
					 * (pb_runs_check), "warm-up run"; NULL: a timed run */
	struct pbench_count *iv_sum;	/* opts.interval_ms: the run's counts up to its last
					 * interval, and the read now (nr each) */
	struct pbench_count *iv_now;
	int iv_pidfd;			/* the command's pidfd while it runs, or -1 */
	pid_t iv_pid;			/* whose */
	/* o.metric (runs_summary.c): the figure decided on, copied; the metrics asked with
	 * it; its event's index in self, or its index in the metric table (-1, -1: the wall
	 * time) */
	char *metric, *target_metrics;
	int target_e, target_m;
	struct pb_runs_prof *prof;	/* opts.profile (runs_profile.c), or NULL */
};

/* runs_profile.c: opts.profile (issue 36). The profiles' store and the event's name checked
 * (pbench_runs_new(); nothing when off: -ENOMEM, the event's error), freed; profiling: the
 * run under way is a timed one of a profiled command; a run started under a profile
 * (pb_profile_start() with copts; pb_fail_msg() says why not), kept as run i of set once
 * waited for; after all the runs, the profiles symbolized and their figures made; the
 * writers' parts (nothing when off). */
struct pb_profile;
int pb_runs_profile_init(struct pbench_runs *r);
void pb_runs_profile_free(struct pbench_runs *r);
int pb_runs_profiling(const struct pbench_runs *r);
int pb_runs_profile_start(struct pbench_runs *r, const struct pbench_child_opts *copts,
			  struct pb_profile **p, struct pbench_child **ch);
void pb_runs_profile_keep(struct pbench_runs *r, const struct pb_set *set, int i,
			  struct pb_profile *p);
void pb_runs_profile_analyze(struct pbench_runs *r);
int pb_runs_profile_text(const struct pbench_runs *r, int s, FILE *f);
int pb_runs_profile_csv(const struct pbench_runs *r, int s, FILE *f);
int pb_runs_profile_markdown(const struct pbench_runs *r, int s, FILE *f);
#ifdef JANSSON_H
json_t *pb_runs_profile_json(const struct pbench_runs *r, int s);
#endif
/* Set s's stack table, for the exports (runs_profile_export.c): NULL when it has none. */
struct pb_stacks;
const struct pb_stacks *pb_runs_profile_stacks(const struct pbench_runs *r, int s);

/* runs_interval.c: opts.interval_ms. The wait for a command under way (as
 * pbench_child_wait_timeout() with o.timeout_s, its results and errors) that wakes at each
 * interval's end to read its counters (r->self, the set it inherits) into run's intervals;
 * the last, partial interval once the run's counts are in (pb_runs_command_finish()); an
 * interval's memory freed. -ENOMEM from the first: no intervals. */
int pb_runs_intervals_init(struct pbench_runs *r);
int pb_runs_wait_intervals(struct pbench_runs *r, struct pbench_child *ch, struct pb_run *run,
			   struct pbench_child_result *res);
void pb_runs_intervals_end(struct pbench_runs *r, struct pb_run *run);
/* runs_interval.c: a run the stop cut short (ch still running): its last interval up to now,
 * and its counts so far as the run's (their names and statuses for the report). */
void pb_runs_intervals_stop(struct pbench_runs *r, struct pb_run *run, struct pbench_child *ch);
void pb_runs_intervals_free(struct pb_run *run);
void pb_runs_intervals_release(struct pbench_runs *r);	/* the pidfd closed */
/* runs_interval_report.c: the intervals' text after set s's runs (nothing without them), and
 * their SVG (pbench_runs_plot_svg() with intervals). */
int pb_runs_intervals_text(const struct pbench_runs *r, const struct pb_set *s, FILE *f);
int pb_runs_intervals_svg(const struct pbench_runs *r, FILE *f);
/* Each run's intervals of every set as a GitHub table a run (pbench_runs_write_markdown()). */
int pb_runs_intervals_markdown(const struct pbench_runs *r, FILE *f);

/* runs_exec.c: set's next run, its slot cleared (pb_runs_keep() keeps it), and r's noise probe
 * of a CPU, made when a run first lands there (NULL: none). */
struct pb_run *pb_runs_next(struct pbench_runs *r, struct pb_set *set);
struct pbench_cpu_probe *pb_runs_probe(struct pbench_runs *r, int cpu);

/* runs.c, for runs_exec.c and the writers */
void pb_runs_subject_desc(const struct pbench_runs *r, char *buf, size_t len);
const struct pb_set *pb_runs_set_of(const struct pbench_runs *r, int mode);
double pb_runs_median_field(const struct pb_set *s, size_t off);
double pb_runs_mean_field(const struct pb_set *s, size_t off);
#define PB_RUNS_VERDICT_LEN 640	/* the contrast's verdict, with the speed's note */
int pb_runs_contrast(const struct pbench_runs *r, double *spread_ratio, double *cv_ratio,
		     char *verdict, size_t len);

/* runs.c: what makes a set's result not the command's own time (PB_UNRELIABLE_*), and the
 * median over its runs of task-clock over wall time (NaN: task-clock not counted). */
enum { PB_UNRELIABLE_BUSY = 1, PB_UNRELIABLE_WAITED = 2 };
#define PB_WAITED_SHARE 0.6	/* task-clock under this share of the wall time: waited */
int pb_runs_unreliable(const struct pb_set *set);

double pb_runs_task_clock_share(const struct pb_set *set);

/* runs_speed.c: the reference loop read right before and right after a run (the first call
 * calibrates it), on cpu (>= 0: pbench's thread moved there for the reading and its affinity
 * put back right after; -1: where the thread is), the factors against the invocation's best once the runs are done, and a
 * set's summary of them (-ENODATA without a factor). */
void pb_runs_speed_before(struct pbench_runs *r, struct pb_run *run, int cpu);
void pb_runs_speed_after(struct pbench_runs *r, struct pb_run *run, int cpu);
void pb_runs_speed_factors(struct pbench_runs *r);
int pb_runs_speed_summary(const struct pb_set *s, struct pbench_speed_summary *out);
int pb_runs_clock_summary(const struct pb_set *s, struct pbench_speed_summary *out);
/* pb_runs_clock_summary() is the clock blamed and said: the PMU's where the set has it, else
 * the reference loop's. One source's alone (enum pbench_speed_source), for the JSON. */
int pb_runs_clock_summary_from(const struct pb_set *s, int source,
			       struct pbench_speed_summary *out);
/* Every run's PMU clock factor (cycles, the kernel's too, over task-clock, both counted all
 * the run long, against the best of them all over rs) and each set's clock_source and
 * clock_typical; part of pb_runs_speed_factors_of(), after the references' factors. */
void pb_runs_clock_pmu_of(struct pbench_runs *const *rs, int nr);
/* The factor to blame run i's time on, and the set's typical one: the clock's, or the
 * throughput's when the command's times follow it (pbench_speed_slow_runs()'s rule); 1 when
 * it is the clock's. */
int pb_runs_blame_factor(const struct pb_set *s, int i, double *factor, double *typical);
double pb_runs_speed_cost(const struct pb_set *s);
/* Append "; <pbench_runs_speed_note()>" to a verdict when the speed varied. */
void pb_runs_speed_verdict(const struct pbench_runs *r, char *verdict, size_t len);

/* A command's runs counted by the allocator shim (pb_mem_runs_count(), after the timed
 * runs) kept with the runs, copied: the text and Markdown end with their section
 * (pb_mem_runs_write_text()/_markdown()'s), the JSON has them as "memory" (null
 * without). -EINVAL, -ENOMEM. */
int pb_runs_attach_memory(struct pbench_runs *r, const struct pbench_mem_run *runs,
					 int n);

#endif
