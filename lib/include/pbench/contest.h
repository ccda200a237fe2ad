/* SPDX-License-Identifier: MIT */
/* pbench/contest.h - part of pbench.h (include <pbench.h>; the parts come in data-flow order,
 * each including the one before it). */
#ifndef PBENCH_H_CONTEST
#define PBENCH_H_CONTEST

#include "jitter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Contests (contest*.c): which is faster, by how much, and how sure - pbench compare
 *
 * Two or more entrants (commands, built-in workloads, functions, or the stored times of a
 * baseline) run against each other, each compared with the reference (the first one added,
 * or opts.reference). By default in rounds: each round runs every entrant once, in a fresh
 * random order (randomized multiple interleaved trials), so that drift and heat fall on all
 * alike. Duet: two commands at the same time, each pinned to its own CPU, the CPUs swapped
 * every round, compared pair by pair, so that what disturbs the machine disturbs both.
 *
 * As the rounds come, a t-test on the log of the times: paired, each entrant's run with the
 * reference's of the same round (the rounds are blocks: a drift slower than a round cancels;
 * a duet's pairs likewise), or Welch's on all the times where there are no such pairs (stored
 * times, the sequential order, PBENCH_CONTEST_UNPAIRED). An entrant is faster or slower when
 * the difference is significant, with Pocock's stricter
 * boundary for looking as the rounds come (at round min_rounds, then each time the rounds
 * have grown by a fifth; pbench_stats_verdict(), PBENCH_VERDICT_SEQUENTIAL)
 * and Bonferroni's share of 1 - confidence for each comparison with the reference; the same
 * when the interval of the ratio lies within +-same_pct % (two one-sided tests,
 * pbench_stats_tost()). The contest stops when every entrant has a verdict, or when the
 * budget (max_time_s, max_rounds) is spent: the undecided ones then say how much more time
 * they would likely need. Before the runs, the output check: each command's exit status and a
 * hash of its stdout, equal to the reference's, or the contest is refused
 * (-PBENCH_EDIFFERENT): programs that do different work are not compared.
 */
enum pbench_contest_order {
	PBENCH_CONTEST_ORDER_INTERLEAVED = 0,	/* rounds, each in a fresh random order */
	PBENCH_CONTEST_ORDER_DUET,		/* two commands at once, CPUs swapped each round */
	PBENCH_CONTEST_ORDER_SEQUENTIAL,	/* all runs of one, then the next (for contrast:
						 * what two pbench stat would do); one look */
};

/* Why the rounds stopped. */
enum pbench_contest_stop {
	PBENCH_CONTEST_STOP_DECIDED = 0,	/* every entrant has its verdict */
	PBENCH_CONTEST_STOP_TIME,		/* max_time_s spent */
	PBENCH_CONTEST_STOP_MAX_ROUNDS,		/* max_rounds run */
	PBENCH_CONTEST_STOP_INTERRUPTED,	/* *stop was set */
};

enum pbench_contest_flags {
	PBENCH_CONTEST_SIGNALS = 1 << 0,	/* prepared: pbench_prepare()'s SIGINT, SIGHUP...
						 * handlers (PBENCH_PREPARE_SIGNALS) */
	PBENCH_CONTEST_NO_CHECK = 1 << 1,	/* compare even entrants whose output differs */
	PBENCH_CONTEST_FULL_BUDGET = 1 << 2,	/* spend the whole budget, test once at the end
						 * (a fixed-size experiment) */
	PBENCH_CONTEST_SHOW_OUTPUT = 1 << 3,	/* commands write to pbench's stdout and stderr
						 * (default: /dev/null) */
	PBENCH_CONTEST_UNPAIRED = 1 << 4,	/* interleaved: Welch on all the times, not the
						 * paired test on each round's (for contrast) */
	PBENCH_CONTEST_PRIORITY_CACHE = 1 << 5,	/* prepared: AUTO's choice of priority kept per
						 * boot and CPU (PBENCH_PREPARE_PRIORITY_CACHE) */
	PBENCH_CONTEST_REPROBE = 1 << 6,	/* with it: time both choices again and keep the
						 * new one (PBENCH_PREPARE_REPROBE) */
	PBENCH_CONTEST_COUNT_MEMORY = 1 << 7,	/* function entrants: after the rounds, more
						 * calls of each, untimed, their allocations
						 * counted one call at a time by the shim
						 * libpbench-mem.so (pbench_contest_mem) */
};

/* Between rounds, for a progress line. phase: "check" (the output check), "setup",
 * "preparing", "warm-up", "rounds" or "done". The ratio is the entrant's time over the
 * reference's, for the undecided entrant furthest from a verdict (NaN before the first look);
 * left_s the likely time to a verdict or the end of the budget (NaN: unknown). */
struct pbench_contest_progress {
	size_t size;
	const char *phase;
	long round;			/* rounds done */
	long max_rounds;
	double elapsed_s;		/* of the rounds */
	double max_time_s;
	int entrant;			/* whose ratio (-1: none yet) */
	double ratio, ratio_lo, ratio_hi;
	double left_s;
	const char *metric;		/* the ratio's figure (opts.metric); NULL: the time */
};

struct pbench_contest_opts {
	size_t size;
	const char *events;		/* comma-separated, counted on every run and compared
					 * (NULL: PBENCH_CONTEST_DEFAULT_EVENTS) */
	int mode;			/* PBENCH_RUNS_UNPREPARED or PBENCH_RUNS_PREPARED (one CPU
					 * prepared for all; a duet: the priority and the warm-up,
					 * each command pinned to its own CPU) */
	int order;			/* enum pbench_contest_order */
	int cpu;			/* prepared: the CPU (-1: pbench_cpu_pick()) */
	int duet_cpus[2];		/* duet: the two CPUs (-1, -1: the first two pbench may
					 * run on) */
	double warmup_ms;		/* prepared: the warm-up of pbench_prepare() */
	long warmup_runs;		/* runs of each entrant before the rounds, not kept */
	long min_rounds;		/* rounds before the first look (0:
					 * PBENCH_CONTEST_DEFAULT_MIN_ROUNDS) */
	long max_rounds;		/* the most rounds (with the sequential order: runs of
					 * each), at most PBENCH_CONTEST_MAX_ROUNDS (0, and
					 * PBENCH_CONTEST_OPTS_INIT:
					 * PBENCH_CONTEST_DEFAULT_MAX_ROUNDS) */
	double max_time_s;		/* the rounds' time budget (0: none but max_rounds) */
	double confidence;		/* of the verdicts and intervals (0:
					 * PBENCH_STATS_DEFAULT_CONFIDENCE, 0.999) */
	double same_pct;		/* > 0: shown equal within +-same_pct % also decides
					 * (PBENCH_CONTEST_OPTS_INIT:
					 * PBENCH_STATS_DEFAULT_SAME_PCT, pbench_compare()'s
					 * default; 0: no margin, only a difference decides) */
	int reference;			/* the entrant the others are compared with */
	double timeout_s;		/* > 0: a run of a command still going is ended after it */
	char *const *setup;		/* a command run once before everything (NULL: none) */
	char *const *prerun;		/* run before each run (a duet: each round), not timed:
					 * hyperfine's --prepare, not prepared mode */
	char *const *cleanup;		/* once after the rounds, also when they were stopped */
	uint64_t seed;			/* of the random orders (0: from the clock) */
	/* Set by the caller's signal handler: the runs under way are ended (commands with
	 * their groups), not kept, and no further run starts. */
	const volatile int *stop;
	void (*progress)(const struct pbench_contest_progress *p, void *arg);
	void *progress_arg;
	unsigned flags;			/* enum pbench_contest_flags */
	/* Derived metrics for every entrant that runs (pbench_runs_opts.metrics: names or
	 * groups, NULL: those the events allow); kept as given until the entrants are added. */
	const char *metrics;
	/* What the test, the verdicts and pbench_contest_slower() are on (--metric): NULL, the
	 * wall time; else a counted event or a derived metric, as pbench_runs_opts.metric
	 * (its events opened for every entrant; the same errors, from pbench_contest_new()).
	 * Stored values (pbench_contest_entrant.stored_ns) are then that metric's per run. */
	const char *metric;
	/* The drift of the command's time between occasions on this machine, for the gate
	 * against a stored baseline (pbench_contest_slower(), the headline): from a history of
	 * its earlier runs (pbench_history_drift()), the standard deviation of a log time
	 * between occasions of one commit, over occasions points of occasion_commits commits.
	 * The allowance for another moment is then t(confidence, occasions - commits) *
	 * sqrt(2) * occasion_sd instead of the fixed 10% (15% on times alone), and the
	 * sentences say from how many occasions. 0: not known. */
	double occasion_sd;
	int occasions;
	int occasion_commits;
	/* Raised by the caller's SIGCONT handler (a count; NULL: none), given to every
	 * entrant's runs (pbench_runs_opts.resumed): a run during which it changed says so. */
	const volatile unsigned *resumed;
	/* The text writer's prose wrapped at this many columns (0: not wrapped), as every text
	 * writer wraps (output.h). */
	int text_width;
	/* Where the time went, and which function got slower (issue 36): the profile options of
	 * pbench_runs_opts (the same meaning), given to every entrant's runs: every timed run of
	 * every entrant that runs a command is sampled, symbolized after the rounds. Then each
	 * challenger's symbols against the reference's (pbench_contest_profile_diff()). The
	 * strings are used when the entrants are added (copied by their runs). */
	int profile;			/* enum pbench_profile_mode (0: off) */
	double profile_freq;		/* samples a second (0: 4000) */
	const char *profile_event;	/* NULL: cpu-clock */
	const char *debug_dirs;		/* colon-separated directories of debug files, or NULL */
	int profile_top;		/* each entrant's runs' (pbench_runs_opts.profile_top) */
	/* The false discovery rate of the symbols flagged as changed, over all the symbols
	 * tested at once (Benjamini-Hochberg), in (0, 0.5] (0: PBENCH_CONTEST_DEFAULT_PROFILE_FDR) */
	double profile_fdr;
};

#define PBENCH_CONTEST_DEFAULT_PROFILE_FDR 0.05

/* The events every entrant counts when opts.events is NULL (pbench compare's -e): the
 * software ones, which every machine counts. */
#define PBENCH_CONTEST_DEFAULT_EVENTS "task-clock,context-switches,cpu-migrations,page-faults"
#define PBENCH_CONTEST_DEFAULT_MIN_ROUNDS 10L	/* opts.min_rounds 0 */
#define PBENCH_CONTEST_DEFAULT_MAX_ROUNDS 10000L	/* opts.max_rounds 0, and the _INIT's */
#define PBENCH_CONTEST_MAX_ROUNDS 1000000L	/* the most of max_rounds and warmup_runs */

#ifdef __cplusplus	/* see PBENCH_MEASURE_OPTS_INIT */
#define PBENCH_CONTEST_OPTS_INIT \
	([] { struct pbench_contest_opts pbench_o_ = {}; pbench_o_.size = sizeof(pbench_o_); \
	      pbench_o_.mode = PBENCH_RUNS_PREPARED; pbench_o_.cpu = -1; \
	      pbench_o_.duet_cpus[0] = pbench_o_.duet_cpus[1] = -1; \
	      pbench_o_.warmup_ms = PBENCH_MEASURE_DEFAULT_WARMUP_MS; \
	      pbench_o_.max_rounds = PBENCH_CONTEST_DEFAULT_MAX_ROUNDS; pbench_o_.max_time_s = 60; \
	      pbench_o_.same_pct = PBENCH_STATS_DEFAULT_SAME_PCT; return pbench_o_; }())
#else
#define PBENCH_CONTEST_OPTS_INIT \
	{ .size = sizeof(struct pbench_contest_opts), .mode = PBENCH_RUNS_PREPARED, .cpu = -1, \
	  .duet_cpus = { -1, -1 }, .warmup_ms = PBENCH_MEASURE_DEFAULT_WARMUP_MS, \
	  .max_rounds = PBENCH_CONTEST_DEFAULT_MAX_ROUNDS, .max_time_s = 60, \
	  .same_pct = PBENCH_STATS_DEFAULT_SAME_PCT }
#endif

/* What an entrant runs: a command, a built-in workload, a function, or nothing (a baseline's
 * stored times). */
struct pbench_contest_entrant {
	size_t size;
	const char *name;		/* in the verdicts (NULL: the command line, or the
					 * workload and its size); copied. Two entrants named
					 * alike are labelled "NAME #k", k their place from 1 */
	char *const *argv;		/* a command (copied), or NULL */
	int workload;			/* enum pbench_workload_kind when argv is NULL */
	uint64_t iterations;		/* xor iterations or memwalk steps (0: the default) */
	size_t walk_bytes;
	pbench_fn fn;			/* PBENCH_WORKLOAD_FN: called once a run */
	void *ctx;
	/* PBENCH_WORKLOAD_FN: what fn computed, called after one call before the runs and
	 * checked equal to the reference's (NULL: not checked) */
	uint64_t (*digest)(void *ctx);
	const double *stored_ns;	/* non-NULL: stored times in ns (copied), never run */
	size_t nr_stored;
	/* With stored_ns: the baseline file they were read from (pbench_contest_baseline_read()'s
	 * path and name; NULL: none). Its runs give the stored entrant's figures beside the live
	 * ones: its wall times with a metric, each event's counts and the derived metrics (the
	 * events' ratios to it, the table, every writer), and its runs' speed readings adjust the
	 * gate against it for the machine's speed (pbench_contest_slower(),
	 * pbench_stats_gate_speed()). A file without runs is left out. */
	const char *stored_file;
	const char *stored_set;
	/* Helper commands of this entrant alone (copied; NULL: none), besides the contest's
	 * (opts.setup, .prerun, .cleanup): setup once before the rounds, after the contest's;
	 * prerun before each of its runs, after the contest's; cleanup once after the rounds,
	 * before the contest's, also when they were stopped. A parameter scan's {NAME} in
	 * --setup, --prepare and --cleanup: one helper per point. */
	char *const *setup;
	char *const *prerun;
	char *const *cleanup;
	/* Its own stop (a parameter scan's points): it leaves the rounds (the others go on) once
	 * the standard error of its mean time is at most target_sem_pct % of the mean (from
	 * PBENCH_CONTEST_ENTRANT_SEM_MIN_RUNS runs kept), or once its runs have taken
	 * max_time_s seconds; 0: no such rule (the contest's budget only). */
	double target_sem_pct;
	double max_time_s;
};
#define PBENCH_CONTEST_ENTRANT_SEM_MIN_RUNS 3
/* How an entrant left the rounds (pbench_contest_entrant_stop()). */
enum pbench_contest_entrant_stop {
	PBENCH_CONTEST_ENTRANT_STOP_ROUNDS = 0,	/* with the others: the contest's stop */
	PBENCH_CONTEST_ENTRANT_STOP_SEM,		/* its target_sem_pct reached */
	PBENCH_CONTEST_ENTRANT_STOP_TIME,		/* its max_time_s spent */
};
/* Start from this (a struct with .size 0 is refused): every other field 0 or NULL. */
#ifdef __cplusplus	/* see PBENCH_MEASURE_OPTS_INIT */
#define PBENCH_CONTEST_ENTRANT_INIT \
	([] { struct pbench_contest_entrant pbench_o_ = {}; pbench_o_.size = sizeof(pbench_o_); \
	      return pbench_o_; }())
#else
#define PBENCH_CONTEST_ENTRANT_INIT { .size = sizeof(struct pbench_contest_entrant) }
#endif

struct pbench_contest;

/*
 * Check opts and open the events (names are checked now); no entrant yet, nothing runs.
 * Errors: -EINVAL (NULL, a size of 0, a value out of range, the duet CPUs the same or not
 * allowed, or given without the duet order), the name errors of pbench_counters_open(), the errors of
 * pbench_command_resolve() for the setup, prerun and cleanup commands, -ENOMEM; *out is NULL
 * then, and pbench_strerror() of the error says which in the words pbench compare prints
 * ("the duet's two CPUs are the same (2): a duet needs two").
 */
PBENCH_API int pbench_contest_new(struct pbench_contest **out,
				  const struct pbench_contest_opts *opts);
/* Add an entrant: its index (from 0), or -PBENCH_ENOT_FOUND, -PBENCH_ENOT_EXEC,
 * -PBENCH_EBAD_INTERP (the command), -EINVAL (nothing to run, fewer than 2 stored times; in a
 * duet, an entrant that is not a command or a third one: pbench_strerror() of the error says
 * which), -EALREADY (after the run), -ENOMEM. */
PBENCH_API int pbench_contest_add(struct pbench_contest *c,
				  const struct pbench_contest_entrant *e);
/*
 * Run: the setup, the output check, preparing, the warm-up runs, the rounds until the verdicts
 * or the budget, the cleanup. Returns 0, -EINTR when *stop ended it (what was measured is
 * kept and reported), -PBENCH_EDIFFERENT (the output check: nothing was measured), -EINVAL
 * (fewer than two entrants, a duet of other than two commands, a reference out of range), or
 * the error that ended it (a helper command's exit status, a check run's failure with the last
 * line of its stderr: -PBENCH_ECMD_FAILED); pbench_strerror() of the error says what, until
 * the thread's next call into the library. Call once.
 */
PBENCH_API int pbench_contest_run(struct pbench_contest *c);
PBENCH_API void pbench_contest_free(struct pbench_contest *c);

struct pbench_contest_info {
	size_t size;
	int order;			/* enum pbench_contest_order */
	int mode;			/* PBENCH_RUNS_UNPREPARED or _PREPARED */
	int nr_entrants;
	int reference;
	long rounds;			/* rounds run (with the sequential order: the most runs
					 * of one entrant) */
	double elapsed_s;		/* the rounds' wall time */
	int stop;			/* enum pbench_contest_stop */
	double confidence;
	double look_confidence;		/* the level of each look's test and interval: the
					 * confidence's share per comparison, made stricter for
					 * the many looks */
	double same_pct;		/* 0: not asked */
	int checked;			/* 1: the output check ran on every command */
	uint64_t seed;
	int duet_cpus[2];		/* the duet's CPUs (-1 otherwise) */
	int nr_events;
};
PBENCH_API int pbench_contest_info(const struct pbench_contest *c, struct pbench_contest_info *out);

/* Entrant i against the reference (for the reference itself: verdict 0, ratio 1). */
struct pbench_contest_result {
	size_t size;
	const char *name;		/* its label (pbench_contest_entrant's name) */
	int stored;			/* a baseline's stored times, not run */
	long runs;			/* measured runs kept (timed-out ones are not times) */
	int failed;			/* runs that exited non-zero or were killed */
	int verdict;			/* enum pbench_verdict: FASTER means this entrant is */
	double ratio;			/* its time over the reference's: geometric means (a duet:
					 * of the pairs' ratios); NaN before two runs each */
	double ratio_lo, ratio_hi;	/* the interval at look_confidence (NaN: no test) */
	double p;			/* of the difference */
	double p_same;			/* the equivalence test's (NaN without same_pct) */
	long decided_round;		/* the round of the verdict (0: none) */
	double decided_s;		/* the rounds' time then */
	double need_s;			/* undecided: the likely more time to decide at the
					 * difference seen (INFINITY: none seen; NaN: unknown) */
	int nr_looks;			/* looks at the test: pbench_contest_look() */
	/* The output check: the status and stdout of its one run (commands only) */
	int checked;
	int check_exited, check_exit_status, check_signaled, check_term_signal;
	uint64_t check_stdout_bytes, check_stdout_hash;	/* FNV-1a, 64 bits */
};
PBENCH_API int pbench_contest_result(const struct pbench_contest *c, int i,
				     struct pbench_contest_result *out);
/* The verdict of entrant i in words, the line a person acts on: "b is 1.23x faster than a
 * (99.9% interval 1.21-1.25), decided after 34 rounds in 4.2 s", or why it is undecided. On a
 * metric (opts.metric) the ratio b over a and which side is worse: "b retires 1.0100x the
 * instructions:u of a (99.9% interval 1.0100-1.0100), higher: worse, decided after 3 rounds
 * in 0.2 s". The verdict's enum stays PBENCH_VERDICT_FASTER for a lower value, _SLOWER for a
 * higher one. */
PBENCH_API int pbench_contest_verdict_text(const struct pbench_contest *c, int i, char *buf,
					   size_t len);
/* Its summary in ns (stored entrants too); -ENODATA without times. */
/* How entrant i left the rounds: enum pbench_contest_entrant_stop, or -EINVAL. */
PBENCH_API int pbench_contest_entrant_stop(const struct pbench_contest *c, int i);
PBENCH_API int pbench_contest_summary(const struct pbench_contest *c, int i,
				      struct pbench_summary *ns);
/* Its runs as a set of runs (one set: pbench_runs_get(), _count(), _noise(), _set_info());
 * the contest's, valid until pbench_contest_free(). NULL for a stored entrant. */
PBENCH_API const struct pbench_runs *pbench_contest_runs(const struct pbench_contest *c, int i);

/* Look k at entrant i's test (0 .. nr_looks - 1): the interval narrowing as the rounds come. */
struct pbench_contest_look {
	size_t size;
	long round;
	double elapsed_s;
	double ratio, ratio_lo, ratio_hi;
};
PBENCH_API int pbench_contest_look(const struct pbench_contest *c, int i, int k,
				   struct pbench_contest_look *out);

/* Event e of entrant i against the reference: the mean a run, the ratio of the means with the
 * interval (on the log scale when every count is > 0), the worst status over the runs. A
 * stored entrant given with its file (stored_file) has its file's runs' counts of the event
 * (status not_counted, with the reason, when some did not count it); one without: -EINVAL. */
struct pbench_contest_event {
	size_t size;
	const char *name;
	int status;			/* enum pbench_event_status */
	const char *reason;		/* why not counted ("" when counted) */
	double mean;			/* a run (NaN: not counted) */
	double ratio, ratio_lo, ratio_hi;	/* against the reference (NaN: n/a) */
	double p;
};
PBENCH_API const char *pbench_contest_event_name(const struct pbench_contest *c, int e);
PBENCH_API int pbench_contest_event(const struct pbench_contest *c, int i, int e,
				    struct pbench_contest_event *out);

/*
 * The regression gate: 1 when entrant i is significantly slower than the reference by more
 * than pct % (the lower end of its interval above 1 + pct/100), 0 when not, with one line
 * saying which in line (an output, len bytes). Against a stored reference (a baseline measured at another moment),
 * pbench_stats_gate()'s rule instead, which also returns 2: undecided. -EINVAL for the
 * reference itself or a bad pct. On a metric (opts.metric): 1 when it is worse by more than
 * pct % on the metric's worse side (higher, or lower for ipc, ghz, topdown-retiring); against
 * a baseline the allowance for another moment only for a metric in time (ns, /sec, GHz, CPUs).
 */
PBENCH_API int pbench_contest_slower(const struct pbench_contest *c, int i, double pct,
				     char *line, size_t len);
/*
 * The contest's outcome, one finding at a time as pbench_runs_outcome() (enum
 * pbench_outcome_kind): for each entrant in turn its warnings (pbench_runs_warning(), with its
 * name), "F of R runs of 'NAME' failed (exited non-zero or were killed): its times are of
 * failures", the prepared state not fully restored, and with PBENCH_OUTCOME_STRICT the
 * unreliable prepared result; then with PBENCH_OUTCOME_INTERRUPTED "interrupted after N
 * rounds" and nothing more; then, when fail_pct >= 0, the gate of pbench_contest_slower() for
 * each entrant against the reference: "regression: ..." (PBENCH_OUTCOME_REGRESSION), "no
 * regression: ..." or a baseline's "undecided: ..." (PBENCH_OUTCOME_NOTE; with
 * PBENCH_OUTCOME_FAIL_UNDECIDED, PBENCH_OUTCOME_UNDECIDED: a failure). Returns the kind
 * with the sentence in buf (cut to len), 0 past the last, -EINVAL.
 */
PBENCH_API int pbench_contest_outcome(const struct pbench_contest *c, unsigned flags,
				      double fail_pct, int k, char *buf, size_t len);

/*
 * What a baseline (pbench_samples_baseline()'s file at path, its set name or NULL) was
 * measured as, against this contest, before it runs: a mask of the differences, each said in
 * diffs (an output, len bytes, "; " between them): PBENCH_BASELINE_DIFF_MODE (prepared against
 * unprepared), _COMMAND (another command, workload or iteration count), _EVENTS (other
 * events), _MACHINE (another hostname, kernel, arch, CPU model or number of CPUs online); 0
 * when all agree, or what the file does not say. -EINVAL: no contest, path or diffs, or the
 * file is not JSON.
 */
enum pbench_baseline_diff {
	PBENCH_BASELINE_DIFF_MODE = 1 << 0,
	PBENCH_BASELINE_DIFF_COMMAND = 1 << 1,
	PBENCH_BASELINE_DIFF_EVENTS = 1 << 2,
	PBENCH_BASELINE_DIFF_MACHINE = 1 << 3,
};
/*
 * A baseline's values on a metric (pbench_contest_opts.metric; NULL or "wall-time": the
 * times, pbench_samples_baseline() itself): each run's count of that event, or the derived
 * metric made from its events' counts as a live run's is, from the JSON of pbench stat (its
 * prepared mode when it has both) or pbench compare (the entrant named name, else its first
 * that ran). Into *out (malloc'd; the caller frees it) and *n, for
 * pbench_contest_entrant.stored_ns, and warn (warnlen bytes) as pbench_samples_baseline()'s:
 * the outputs, after the inputs. Errors as pbench_samples_baseline()'s, pbench_strerror() of
 * the error saying which in a line: -ENOMSG also for a file whose runs lack the metric (the
 * line names the events they have) or whose runs failed.
 */
PBENCH_API int pbench_contest_baseline_read(const char *path, const char *name,
					    const char *metric, double **out, size_t *n,
					    char *warn, size_t warnlen);
PBENCH_API int pbench_contest_baseline_check(const struct pbench_contest *c, const char *path,
					     const char *name, char *diffs, size_t len);

/* Reports. Text: the verdicts first, each entrant's summary, the events, why it stopped.
 * JSON (schema 2): the same with every run and every look (pbench_samples reads its times
 * back, one set per entrant). Markdown: a table. CSV: one line per run. SVG: the
 * distributions and the interval narrowing round by round. Errors: -EINVAL, -ENOMEM, -EIO. */
PBENCH_API int pbench_contest_write_text(const struct pbench_contest *c, FILE *f);
/* The report in format fmt (enum pbench_report_format): the writer of that name. Its errors,
 * or -EINVAL for another fmt. */
PBENCH_API int pbench_contest_write(const struct pbench_contest *c, int fmt, FILE *f);
PBENCH_API int pbench_contest_write_json(const struct pbench_contest *c, FILE *f);
PBENCH_API int pbench_contest_write_markdown(const struct pbench_contest *c, FILE *f);
PBENCH_API int pbench_contest_write_csv(const struct pbench_contest *c, FILE *f);
PBENCH_API int pbench_contest_plot_svg(const struct pbench_contest *c, FILE *f);

PBENCH_API const char *pbench_contest_order_name(int order);
PBENCH_API const char *pbench_contest_stop_name(int stop);

/*
 * With PBENCH_CONTEST_COUNT_MEMORY: function entrant i against the reference on one memory
 * figure per call (enum pbench_mem_kind), as pbench_mem_compare() does: a the reference, b
 * entrant i. Returns 0, or -ENODATA when either was not counted (not a function, not asked
 * for, or the allocator not interposed: pbench_contest_mem_status says why), -EINVAL.
 */
PBENCH_API int pbench_contest_mem(const struct pbench_contest *c, int i, int kind,
				  struct pbench_mem_comparison *out);
/* Whether entrant i's allocations were counted (enum pbench_mem_status), and why not. */
PBENCH_API int pbench_contest_mem_status(const struct pbench_contest *c, int i,
					 const char **reason);
/* n more runs of every entrant, each a command, in alternation, untimed, counted by the
 * allocator shim (each as pbench_mem_file_run() does; output discarded unless
 * PBENCH_CONTEST_SHOW_OUTPUT, stopped by opts' stop; a command known not countable is not
 * run and says why) and kept with the contest: its text, Markdown and JSON then give each
 * command's figures and each against the reference's on bytes and allocations per run. What
 * pbench compare --memory does after the rounds. 0, 1 when stopped (the runs not done say
 * so), -EINVAL (an entrant not a command, n < 1), -ENOENT (no shim), -ENOMEM,
 * pbench_mem_file_run()'s. */
PBENCH_API int pbench_contest_count_memory(struct pbench_contest *c, int n);

/* ---- which function got slower (opts.profile, issue 36) ------------------------------------ */

/* One symbol of challenger i against the reference: matched by its DSO's file name and its
 * name (as perf diff matches them: two builds of a program compare), its self value a run
 * (samples whose leaf it is, a sample counting its period: ns for cpu-clock and task-clock,
 * else the event's count) in each, and the verdict's test of entrant i's runs against the
 * reference's (the interleaved order: each round's two runs paired, pbench_stats_paired();
 * else, or when their counts differ, Welch's), at the contest's confidence, corrected for the many symbols tested at once by
 * Benjamini-Hochberg (q, flagged at opts.profile_fdr). Strings valid until c is freed. */
struct pbench_profile_diff {
	size_t size;
	const char *name;		/* the function, or "[unknown]" of its DSO */
	const char *dso;		/* the DSO's file name ("shares", "libc.so.6",
					 * "[kernel.kallsyms]") */
	double a_ns, b_ns;		/* self a run, the reference's (a) and entrant i's (b) mean */
	double ratio, ratio_lo, ratio_hi;	/* b / a and its interval (NaN: only in one) */
	double diff_ns, diff_lo, diff_hi;	/* b - a a run and its interval */
	double p;			/* the test's two-sided p (NaN: not tested: fewer than 20
					 * samples over both sides' runs, or no variance) */
	double q;			/* Benjamini-Hochberg's adjusted p (NaN: not tested) */
	int flagged;			/* 1: q <= opts.profile_fdr: changed */
	int only;			/* 0: sampled in both, 1: only in the reference, 2: only
					 * in entrant i */
	double share_pct;		/* diff_ns over the whole difference a run (b's sampled
					 * value a run - a's), percent (NaN: that is 0) */
	uint64_t a_samples, b_samples;	/* its self samples over each side's runs */
	/* The confidence of the intervals: the contest's; for a flagged symbol the level of the
	 * false coverage rate over the flagged (Benjamini-Yekutieli: 1 - fdr x flagged /
	 * tested), at which its interval never holds no change (diff 0, ratio 1). */
	double level;
};
/* How many symbols challenger i has against the reference (those of both, matched): >= 0,
 * -ENOENT (no profile: opts.profile off, i the reference or stored, no run profiled),
 * -EINVAL. */
PBENCH_API int pbench_contest_profile_diff_nr(const struct pbench_contest *c, int i);
/* Symbol k of challenger i (k < pbench_contest_profile_diff_nr()): the flagged first, then by
 * the size of the difference a run. 0, -ENOENT (k past the last, no profile), -EINVAL. */
PBENCH_API int pbench_contest_profile_diff(const struct pbench_contest *c, int i, int k,
					   struct pbench_profile_diff *out);
/* Entrant i's profile (every run of it profiled): what pbench_runs_profile_info() says of its
 * runs' only set. 0, -ENOENT (no profile), -EINVAL. */
PBENCH_API int pbench_contest_profile_info(const struct pbench_contest *c, int i,
					   struct pbench_profile_info *out);
/* The differential flame graph of challenger i against the reference, an SVG: the widths its
 * mean run's stacks, each frame coloured by its symbol's change (red slower, blue faster,
 * deeper the larger), only the flagged coloured, the rest grey (a symbol in one side only:
 * grey, the text says it). 0, -ENOENT (no profile), -EINVAL, the write's error. */
PBENCH_API int pbench_contest_write_flamegraph(const struct pbench_contest *c, int i, FILE *f);

#ifdef __cplusplus
}
#endif
#endif /* PBENCH_H_CONTEST */
