/* SPDX-License-Identifier: MIT */
/* pbench stat: what cmd_stat.c measures and stat_report.c prints (text and JSON). */
#ifndef PBENCH_CLI_STAT_H
#define PBENCH_CLI_STAT_H

#include <stdint.h>
#include <stdio.h>

#include "pbench.h"
#include "cmds.h"

enum stat_mode_kind { MODE_UNPREPARED = 0, MODE_PREPARED, MODE_CONTRAST };
enum stat_workload { WL_XOR = 0, WL_WALK };
/* Why a set stopped. */
enum stat_stop { STOP_RUNS = 0, STOP_TARGET, STOP_BUDGET, STOP_MAX_RUNS };
#define SEM_MIN_RUNS 10		/* --target-sem: the fewest runs its estimate is trusted at */
/* The outputs of pbench stat, in the order they are written. */
enum stat_output { OUT_JSON = 0, OUT_CSV, OUT_PLOT, STAT_NOUT };

struct stat_opts {
	const char *events;
	long runs;			/* per mode */
	const char *json;		/* NULL, "-" or a file name (out[OUT_JSON].path) */
	const char *csv;		/* likewise, out[OUT_CSV].path */
	const char *plot;		/* likewise, out[OUT_PLOT].path */
	struct cli_output *out;		/* STAT_NOUT of them, opened before anything runs */
	int quiet;
	long long iterations;		/* of the workload: xor iterations or walk steps */
	int workload;			/* enum stat_workload */
	int workload_set;		/* --workload was given */
	size_t walk_bytes;		/* the memory walk's buffer */
	char **cmd;			/* NULL: the built-in workload */
	int mode;			/* enum stat_mode_kind */
	int cpu;			/* --cpu, or -1 */
	double warmup_ms;
	double timeout_s;		/* --timeout: a run of a command is killed after it; 0: none */
	double target_sem_pct;		/* --target-sem: 0, or stop at this SEM (% of the mean) */
	double max_time_s;		/* --max-time: the time budget per set with --target-sem */
	int progress;			/* the progress line on stderr */
	int color;			/* NO_COLOR unset and stderr a terminal */
};

struct run {
	uint64_t ticks, ns;
	uint64_t setup_ns;		/* a command's fork and counter set-up, before the timed span */
	uint64_t exec_ns;		/* its release to exec done, inside the timed span (0: unknown) */
	uint64_t result;		/* the workload's result, kept so its work cannot be dropped */
	int exited, exit_status, signaled, term_signal;
	int timed_out;			/* killed at --timeout: not a measurement */
	int left_behind;		/* processes the command left running, ended by pbench */
	struct pbench_count *counts;	/* nr_events of them */
	int cpu;			/* the CPU probed (see run_set in cmd_stat.c) */
	struct pbench_noise noise;	/* the thread's (workload) or the child's */
	int have_migrations;		/* the cpu-migrations event was counted */
	struct pbench_cpu_noise cpu_noise;
	int have_cpu_noise;
	int outlier;			/* beyond the Tukey fences of its mode */
	char cause[256];		/* pbench_noise_cause() for an outlier, else "" */
};

/* One set of runs: unprepared or prepared. */
struct stat_set {
	int kind;			/* MODE_UNPREPARED or MODE_PREPARED */
	struct run *runs;
	struct pbench_count *counts;
	int done, failed;
	int cpu;			/* the prepared CPU; -1 for unprepared runs */
	char cpu_reason[256];
	int policy, prio_value;		/* in force during the runs */
	const char *policy_name;
	int prepared;			/* 1: pbench_prepare() succeeded; what follows is valid */
	struct pbench_prep_outcome steps[PBENCH_PREP_NR_STEPS];
	struct pbench_prep_priority prio;
	double warmup_ms;
	int stop;			/* enum stat_stop */
	double sem_pct;			/* the SEM when it stopped (with --target-sem) */
	double elapsed_s;		/* from the first run to the end of the last */
	int restore_err;		/* pbench_prepared_restore()'s */
	int restored_by;		/* the signal whose handler restored, or 0 */
	struct pbench_walk *walk;	/* the memory walk's buffer, made for this set */
	struct pbench_prepared *prep;	/* while the prepared runs are under way */
	double rest_ms;			/* rested between runs in all (FIFO: see rest_pct) */
	/* Filled by stat_set_analyze() */
	int have_summary;
	struct pbench_summary s_ns, s_ticks;
	double fence_lo, fence_hi;	/* Tukey fences in ns */
	int outliers;
};

struct stat_report {
	const struct stat_opts *o;
	const struct pbench_clock_info *ci;
	struct stat_set *sets[2];	/* in the order run; NULL when not */
	int nsets;
	int nr;				/* events per run */
	struct pbench_env *env;		/* checks of the target CPU, or NULL */
	int env_cpu;
};

const char *stat_mode_name(int kind);
/* "built-in workload 'xor' (100000000 iterations)" */
void stat_workload_desc(const struct stat_opts *o, char *buf, size_t len);
/* The set of that kind in the report, or NULL. */
const struct stat_set *stat_set_of(const struct stat_report *rep, int kind);
/* Ratios of spreads and CVs (unprepared / prepared) and a verdict: 0 when there is no
 * contrast to make. */
int stat_contrast_of(const struct stat_report *rep, double *spread_ratio, double *cv_ratio,
		     char *verdict, size_t len);
/* The median of a command's per-run harness costs over a set (run field setup_ns or exec_ns,
 * by offset); NaN when none is known. */
double stat_median_field(const struct stat_set *s, size_t off);
/* Summaries, fences, outliers and their causes. */
void stat_set_analyze(struct stat_set *s);
void stat_print_text(const struct stat_report *r);
/* The JSON on f. EXIT_OK, or EXIT_RUNTIME after an error message. */
int stat_write_json(const struct stat_report *r, FILE *f);
/* Measure and report (stat_run.c); each output of o->out that was written whole is marked
 * so (the caller puts it in place). */
int stat_measure(const struct stat_opts *o);
/* One row per run to f. EXIT_OK, or EXIT_RUNTIME after an error message. */
int stat_write_csv(const struct stat_report *r, FILE *f);
/* The runs as an SVG on f. EXIT_OK, or EXIT_RUNTIME after an error message. */
int stat_write_plot(const struct stat_report *r, FILE *f);

#endif
