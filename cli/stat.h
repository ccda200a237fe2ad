/* SPDX-License-Identifier: MIT */
/* pbench stat: what cmd_stat.c measures and stat_report.c prints (text and JSON). */
#ifndef PBENCH_CLI_STAT_H
#define PBENCH_CLI_STAT_H

#include <stdint.h>
#include <stdio.h>

#include "pbench.h"

enum stat_mode_kind { MODE_UNPREPARED = 0, MODE_PREPARED, MODE_CONTRAST };

struct stat_opts {
	const char *events;
	long runs;			/* per mode */
	const char *json;		/* NULL, "-" or a file name */
	int quiet;
	long long iterations;
	char **cmd;			/* NULL: the built-in workload */
	int mode;			/* enum stat_mode_kind */
	int cpu;			/* --cpu, or -1 */
	double warmup_ms;
	double timeout_s;		/* --timeout: a run of a command is killed after it; 0: none */
	const char *plot;		/* --plot FILE.svg, or NULL */
	FILE *plot_f;			/* opened before anything runs */
};

struct run {
	uint64_t ticks, ns;
	uint64_t result;		/* the workload's result, kept so its work cannot be dropped */
	int exited, exit_status, signaled, term_signal;
	int timed_out;			/* killed at --timeout: not a measurement */
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
	int restore_err;		/* pbench_prepared_restore()'s */
	int restored_by;		/* the signal whose handler restored, or 0 */
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
/* Summaries, fences, outliers and their causes. */
void stat_set_analyze(struct stat_set *s);
void stat_print_text(const struct stat_report *r);
/* EXIT_OK, or EXIT_RUNTIME after an error message. */
int stat_write_json(const struct stat_report *r);
/* The runs as an SVG on r->o->plot_f (not closed). EXIT_OK, or EXIT_RUNTIME after an error
 * message. */
int stat_write_plot(const struct stat_report *r);

#endif
