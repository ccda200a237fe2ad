/* SPDX-License-Identifier: MIT */
/*
 * Sets of runs (runs.c and its writers runs_text.c, runs_json.c, runs_csv.c): what pbench stat
 * (and, later, pbench compare) measures. A subject is what one run runs (a command, a built-in
 * workload, a callback); a set is the runs of one subject in one mode (unprepared or prepared).
 * The sets of one object run one after the other; a contest (contest.c, pbench compare) runs
 * several objects' sets round by round, one run at a time (pb_runs_one()). This header is what
 * other modules call: the runs object, its sets and runs are opaque here (runs_inner.h, for
 * runs' own files), read through the accessors below.
 */
#ifndef PBENCH_RUNS_H
#define PBENCH_RUNS_H

#include "pbench.h"

/* A run's own resource use: getrusage deltas, or a command's from wait4 (pb_runs_keep()). */
struct pb_rusage {
	uint64_t nvcsw, nivcsw, minflt, majflt;
	uint64_t user_ns, system_ns;	/* CPU time, ru_utime and ru_stime */
};

/* The objects, opaque outside runs/ (runs_inner.h holds them): a runs object, one set of its
 * runs (a mode's), one run of a set. */
struct pbench_runs;
struct pb_set;
struct pb_run;

/* runs_access.c, for the contest: set s of r (0: the first, a contest entrant's only one); its
 * runs done and failed; run i of it (0 .. done - 1), and what that run ended as, copied out. */
struct pb_set *pb_runs_set(struct pbench_runs *r, int s);
int pb_runs_set_done(const struct pb_set *s);
int pb_runs_set_failed(const struct pb_set *s);
const struct pb_run *pb_runs_run_at(const struct pb_set *s, int i);
struct pb_run_status {
	uint64_t ns, ticks;
	int exited, exit_status, signaled, term_signal;
	int timed_out;			/* killed at the timeout: not a measurement */
	int cpu;			/* the CPU probed */
	const struct pbench_count *counts;	/* the run's, one per event of its object */
	double speed, clock;		/* its speed factors (runs_speed.c; NaN: unknown) */
	double not_running_ns;		/* its noise's time off the CPU */
};
struct pb_run_status pb_runs_status(const struct pb_run *run);
/* How set s ran: prepared (then its CPU and why, the warm-up and the restore's error) or
 * not, and the scheduling policy in force (policy_name NULL: not known). */
struct pb_set_how {
	int prepared, cpu;
	const char *cpu_reason, *policy_name;
	int prio_value, restore_err;
	double warmup_ms;
};
struct pb_set_how pb_runs_set_how(const struct pb_set *s);
/* The means over s's runs of their user and system CPU time (getrusage; NaN: none). */
void pb_runs_cpu_time(const struct pb_set *s, double *user_ns, double *system_ns);
/* The kernel keeps a process's CPU time exactly and splits it between user and system by the
 * scheduler tick's samples (cputime_adjust()): one that got none counts all of it as user's.
 * Under PB_SPLIT_SAMPLED_NS of CPU a run (a tick at the lowest CONFIG_HZ, 100) the text says
 * so, in these words. */
#define PB_SPLIT_SAMPLED_NS 10e6
#define PB_SPLIT_SAMPLED_WORDS "the kernel splits a process's time by the scheduler tick's " \
	"samples, and one with under a tick of CPU time gets none and counts all of it as user's"

/* Set s's time from its first run to the end of its last, when another object ran its runs
 * (pb_runs_one()), before pb_runs_analyze(). */
void pb_runs_set_elapsed(struct pb_set *s, double elapsed_s);
/* The prepared state is under way (pb_runs_prepare() to pb_runs_unprepare()). */
int pb_runs_set_preparing(const struct pb_set *s);
/* The memory walk of set s freed (pb_runs_make_walk()'s). */
void pb_runs_free_walk(struct pb_set *s);
/* r's command (NULL: a workload or a function), and its function (NULL: not one). */
char *const *pb_runs_argv(const struct pbench_runs *r);
pbench_fn pb_runs_fn(const struct pbench_runs *r);
/* The reference loop's best readings over r's runs (pbench_speed_factors(): each run's factor
 * is against them) and its iterations a reading (0: not calibrated). */
struct pb_speed_best {
	double thr_ns, clk_ns;
	double thr_iterations, clk_iterations;
};
struct pb_speed_best pb_runs_speed_best(const struct pbench_runs *r);
/* runs_exec.c, for a duet: r's next run in set s pinned on cpu, its CPU's noise probe begun
 * (the run as pb_runs_next()'s); after the run, the probe ended into the run. */
struct pb_run *pb_runs_next_on(struct pbench_runs *r, struct pb_set *s, int cpu);
void pb_runs_cpu_noise_end(struct pbench_runs *r, struct pb_run *run);

/* runs_profile.c, for the contest (opts.profile): r's profiles symbolized and their figures
 * made, after every run (pb_runs_one()'s); set s's stack table then (NULL: no profile). */
struct pb_stacks;
void pb_runs_profile_analyze(struct pbench_runs *r);
const struct pb_stacks *pb_runs_profile_table(const struct pbench_runs *r, int s);
/* runs_profile.c: a profile's runs, samples, lost, throttled, cut, kernel, per_run, status and
 * caveats into its JSON object j (a set's, a contest entrant's); *bad set on a failure. */
struct json_t;
void pb_runs_profile_info_json(struct json_t *j, const struct pbench_profile_info *in, int *bad);

/* runs_summary.c: the figure decided on (pbench_runs_opts.metric), once the events are open
 * (before, its name is pb_metric_target_request()'s, counters.h): r->target_e/_m, or
 * -EOPNOTSUPP with why it cannot be counted here. Its name (NULL: the wall time), unit ("ns",
 * "" for a count, the metric's), whether higher is better, and one run's value (NaN: not
 * counted). */
int pb_runs_target_find(struct pbench_runs *r);
const char *pb_runs_target_name(const struct pbench_runs *r);
const char *pb_runs_target_unit(const struct pbench_runs *r);
int pb_runs_target_higher(const struct pbench_runs *r);
double pb_runs_run_value(const struct pbench_runs *r, const struct pb_run *run);
/* runs_summary.c: the metrics a set shows (after its events are open). -ENOMEM. */
int pb_runs_pick_metrics(struct pbench_runs *r, const unsigned char *asked);
/* The index of the event named name in r (-1). */
int pb_runs_event_index(const struct pbench_runs *r, const char *name);

/* runs_exec.c: a run of a set on its own, so that another object (the contest) can run
 * several subjects' sets round by round; preparing apart from the runs. */
int pb_runs_one(struct pbench_runs *r, struct pb_set *set, int stdout_fd);
int pb_runs_check(struct pbench_runs *r, struct pb_set *set, int stdout_fd, const char *name);
void pb_runs_keep(struct pbench_runs *r, struct pb_set *set, struct pb_run *run,
		  const struct pb_rusage *u);
void pb_runs_forget(struct pbench_runs *r, struct pb_set *set);
int pb_runs_command_start(struct pbench_runs *r, int prepared, int cpu, int stdout_fd,
			  int alone, struct pbench_child **ch);
int pb_runs_command_finish(struct pbench_runs *r, struct pbench_child *ch,
			   const struct pbench_child_result *res, struct pb_run *run);
void pb_runs_command_timed_out(struct pbench_runs *r, struct pbench_child *ch,
			       struct pb_run *run, uint64_t t0);
void pb_runs_current_priority(struct pb_set *set);
int pb_runs_make_walk(struct pbench_runs *r, struct pb_set *set);
int pb_runs_prepare(struct pbench_runs *r, struct pb_set *set, unsigned extra);
void pb_runs_unprepare(struct pbench_runs *r, struct pb_set *set);
void pb_runs_share_prepared(struct pb_set *dst, const struct pb_set *src);

/* runs_json.c, for the contest's JSON */
struct json_t;
struct json_t *pb_runs_set_json(const struct pbench_runs *r, int s);
struct json_t *pb_runs_subject_json(const struct pbench_runs *r);
/* {"warmup_runs", "setup", "prepare", "cleanup"}: the helpers' argv, or null. */
struct json_t *pb_json_helpers(long warmup_runs, char *const *setup, char *const *prepare,
			       char *const *cleanup);

/* runs.c: a set's summary, outliers and speed, once its runs are done. */
void pb_runs_analyze(struct pb_set *set);

/* runs_speed.c: every run's factors, of both references, on one scale over the objects rs
 * (a contest's entrants, that take turns on the same CPUs); r reading from's reference loop
 * (made now if it was not yet), so that their factors are on one scale: 0 or -ENOMEM. */
void pb_runs_speed_factors_of(struct pbench_runs *const *rs, int nr);
int pb_runs_share_speed(struct pbench_runs *r, struct pbench_runs *from);

/* runs_findings.c: finding k of a list said in order (pbench_runs_outcome(),
 * pbench_contest_outcome()): each pb_outcome_say() counts one and formats into buf the one
 * whose turn it is, whose kind found then is. Returns found (0 while not yet). */
struct pb_outcome {
	int k, found;
	char *buf;
	size_t len;
};
int pb_outcome_say(struct pb_outcome *o, int kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* PBENCH_OUTCOME_STRICT's error for each prepared set of r whose CPU was busy. */
void pb_outcome_strict(struct pb_outcome *o, const struct pbench_runs *r);

#endif
