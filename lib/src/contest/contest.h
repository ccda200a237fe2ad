/* SPDX-License-Identifier: MIT */
/*
 * Contests (pbench compare): the object and its analysis (contest.c), running it
 * (contest_exec.c: the check, setup, warm-up, interleaved and sequential rounds;
 * contest_duet.c: two commands at once), and its writers (contest_text.c, contest_json.c,
 * contest_plot.c). Each entrant that runs is a pbench_runs object of one set, run one run at a
 * time (pb_runs_one()), so its runs, counts, noise and summary are those of pbench stat.
 */
#ifndef PBENCH_CONTEST_H
#define PBENCH_CONTEST_H

#include "runs/runs.h"
#include "../../shim/memshim.h"

struct pb_look {
	long round;
	double elapsed_s, ratio, lo, hi;
};

struct pb_entrant {
	char *name;			/* the label: the name given, with " #k" (its place from
					 * 1) when another entrant was given the same */
	char *given;			/* the name as given (or the command line) */
	char *desc;			/* the command line, or the workload: for the reports */
	struct pbench_runs *r;		/* NULL: stored */
	char *stored_file;		/* stored: the file its times were read from, or NULL */
	struct pb_set *set;		/* r's only set (pb_runs_set(r, 0)) */
	double *x;			/* its times in ns (runs kept and not timed out) */
	size_t n, cap;
	/* With a metric (c->metric): its values, one per run kept where it was made, or a
	 * baseline's stored ones; the test is on them (and the pairs hold them) */
	double *mx;
	size_t mn, mcap;
	/* Paired with the reference's: its time and the reference's in the same round (a duet:
	 * at the same time), both measured. */
	double *pair_ref, *pair_own;
	size_t npairs, pair_cap;
	int live;			/* still run in the rounds (undecided, or the reference) */
	uint64_t (*digest)(void *ctx);
	void *ctx;
	/* against the reference, at the last look */
	int verdict;			/* 0 for the reference */
	int have_w;
	struct pbench_welch w;
	double p_same;
	long decided_round;
	double decided_s;
	double need_s;
	struct pb_look *looks;
	size_t nlooks, looks_cap;
	/* the output check */
	int checked;
	int exited, exit_status, signaled, term_signal;
	uint64_t bytes, hash;
	/* PBENCH_CONTEST_COUNT_MEMORY: a function's calls counted one by one after the rounds */
	pbench_fn fn;
	struct pb_mem_counts *mem;
	size_t nmem;
	int mem_status;
	const char *mem_reason;
	/* pb_contest_attach_memory(): a command's runs with the allocator shim preloaded */
	struct pbench_mem_run *cmd_mem;
	int nr_cmd_mem;
	/* A stored entrant read from a file (pbench_contest_entrant.stored_file): its runs, as
	 * the file holds them (a JSON array, one reference), and its subject's iterations */
	struct json_t *stored_runs;
	double stored_iterations;
	/* opts.profile: its symbols against the reference's (contest_profile.c), or NULL */
	struct pb_prof_diffs *pdiff;
	/* its own helper commands (pbench_contest_entrant's setup, prerun, cleanup), or NULL */
	char **setup, **prerun, **cleanup;
	/* its own stop (pbench_contest_entrant's target_sem_pct, max_time_s): how it left the
	 * rounds (enum pbench_contest_entrant_stop), the seconds its runs took */
	double target_sem_pct, max_time_s, spent_s;
	int own_stop;
};

struct pbench_contest {
	struct pbench_contest_opts o;	/* the caller's, completed with the defaults */
	char *events;
	char **setup, **prerun, **cleanup;	/* prerun: o.prerun, before each run */
	struct pb_entrant *e;
	int n, cap;
	long rounds;
	double elapsed_s;
	int stop;			/* enum pbench_contest_stop */
	int ran, checked;
	double look_level;		/* each look's test level */
	long next_look;			/* the round of the next look at the test */
	long last_look;			/* the round of the last one */
	uint64_t rng;
	int duet_cpus[2];
	/* o.metric: the figure decided on (NULL: the wall time), copied; the metrics asked
	 * with it; its unit and whether higher is better, from the first entrant that runs */
	char *metric, *target_metrics;
	const char *metric_unit;
	int higher_better;
};

/* contest_stored.c: a baseline file's set of runs (stat's document, or compare's entrant named
 * name, else its first that ran) and its subject; the subject and events of that set; one
 * run's value of an event (its scaled count, an event of other modifiers matching) or of a
 * derived metric made from its counts (NaN: not in this run). */
struct json_t;
struct json_t *pb_contest_baseline_runs(struct json_t *root, const char *name,
					struct json_t **subject);
void pb_contest_baseline_of(struct json_t *root, const char *name, struct json_t **subject,
			    struct json_t **events);
double pb_contest_run_value(struct json_t *run, const char *metric, double iterations);
/* Keep the runs of the baseline file path (set name) in n: 0, -EINVAL (not a regular file, or
 * not JSON), -ENODATA (no runs in it). */
int pb_contest_stored_load(struct pb_entrant *n, const char *path, const char *name);
void pb_contest_stored_free(struct pb_entrant *n);
/* The values of what (an event or a metric; NULL: the wall time in ns) over a stored
 * entrant's runs not timed out, malloc'ed (*n of them; *missing runs without it); NULL with
 * *n 0 when it has no runs kept or memory is short. */
double *pb_contest_stored_values(const struct pb_entrant *e, const char *what, size_t *n,
				 size_t *missing);

/* contest_profile.c (opts.profile, issue 36): the options checked; after the rounds, every
 * entrant's profiles symbolized and each challenger's symbols tested against the
 * reference's; an entrant's freed; challenger i's sampled value a run on each side, their
 * runs and the symbols tested (-ENOENT: none). */
int pb_contest_profile_check(const struct pbench_contest_opts *o);
int pb_contest_profile_analyze(struct pbench_contest *c);
void pb_contest_profile_free(struct pb_entrant *e);
int pb_contest_profile_sides(const struct pbench_contest *c, int i, double *a_run,
			     double *b_run, int *na, int *nb, size_t *tested);

/* contest_profile_report.c: what the text, Markdown and JSON say of it (nothing, NULL, when
 * opts.profile is off). */
void pb_contest_profile_text(const struct pbench_contest *c, FILE *f);
void pb_contest_profile_markdown(const struct pbench_contest *c, FILE *f);
struct json_t *pb_contest_profile_json(const struct pbench_contest *c, int *bad);

/* contest.c */
int pb_contest_append(double **x, size_t *n, size_t *cap, double v);
/* The test of every undecided challenger (after a round, or once at the end of a fixed
 * budget); 1 when every challenger has its verdict. */
int pb_contest_look(struct pbench_contest *c);
/* After a round: the look due then, if any (the looks grow apart); 1 when every challenger
 * has its verdict. */
int pb_contest_look_if_due(struct pbench_contest *c);
/* The level of each look's test, from the options and the number of entrants. */
void pb_contest_set_level(struct pbench_contest *c);
/* The undecided challenger furthest from a verdict, or -1. */
int pb_contest_laggard(const struct pbench_contest *c);
int pb_contest_is_duet(const struct pbench_contest *c);
/* The test is on pairs: a duet's, or the rounds' when the reference runs in them (for the
 * entrants that run too: stored times have no rounds). */
int pb_contest_paired(const struct pbench_contest *c);
int pb_contest_append_pair(struct pb_entrant *e, double ref, double own);
/* Entrant i's ratio in words, "1.23x faster", and its interval, "(99.9% interval
 * 1.21-1.25)", both as a speed-up when it is faster. */
void pb_contest_fmt_ratio(char *buf, size_t len, double r);
/* A function entrant's counted calls on one figure (enum pbench_mem_kind), one value a call,
 * malloc'ed into *out (e->nmem of them): 0, -ENODATA (not counted), -ENOMEM. */
int pb_contest_mem_figures(const struct pb_entrant *e, int kind, double **out);
int pb_contest_cmd_mem(const struct pbench_contest *c, int i, int kind,
		       struct pbench_mem_comparison *out);
int pb_contest_unbounded(double lo, double hi);
void pb_contest_ratio_words(const struct pbench_contest *c, int i, char *words, size_t wlen,
			    char *interval, size_t ilen);
double pb_contest_confidence(const struct pbench_contest *c);
/* contest_result.c: metric m of entrant i (k of the caller's size, sizeof(*k)), a stored
 * entrant's made from its file's counts: 0, -EINVAL (no runs), -ENODATA (no entrant runs). */
int pb_contest_metric(const struct pbench_contest *c, int i, int m,
		      struct pbench_metric_summary *k);

/* contest_stored.c: each run's speed factor, on one scale over the two occasions, for the
 * gate of entrant i against a stored reference (pbench_stats_gate_speed()): the
 * baseline's runs read from its file, i's from its runs; the clock's on each run's share on a
 * CPU, times the throughput beyond the clock to the power slope (the command's own, measured
 * within the sessions: slope_known; 0 unless its times follow it, r >= 0.5: follows). side:
 * the throughput beyond the clock today 10% below the baseline's (-1: a slowdown is not
 * called a regression) or above it (1: a speed-up is not called no regression), else 0. base_f NULL
 * or all NaN, why_not saying why: no readings. 0, -ENOMEM. */
struct pb_gate_factors {
	double *base_f, *now_f;
	double host_clk, host_thr;	/* today's over the baseline's: the clock, the
					 * throughput beyond the clock */
	double share;			/* the median task-clock share of today's runs */
	double slope;
	int slope_known, follows, side;
	const char *why_not;
};
int pb_contest_gate_factors(const struct pbench_contest *c, int i, struct pb_gate_factors *out);
void pb_contest_gate_factors_free(struct pb_gate_factors *f);

/* contest_duet.c: a duet's rounds. */
int pb_contest_duet(struct pbench_contest *c);

/* contest_round.c: what every round needs, below contest_exec.c and contest_duet.c. */
void pb_contest_progress(const struct pbench_contest *c, const char *phase);
int pb_contest_stopped(const struct pbench_contest *c);
int pb_contest_helper(struct pbench_contest *c, char **argv, const char *what);
/* Keep entrant i's last run's time (unless it timed out). */
int pb_contest_keep_time(struct pbench_contest *c, int i);
/* Rounds or time spent: 1 and c->stop set. */
int pb_contest_budget_spent(struct pbench_contest *c);

/*
 * A command entrant's runs counted by the allocator shim (pbench_mem_file_run(), after the
 * rounds; for a command known not countable, runs with only status and reason), kept with the
 * contest, copied: its text, Markdown and JSON then give each command's figures and each
 * against the reference's on bytes and allocations per run. -EINVAL, -ENOMEM.
 */
int pb_contest_attach_memory(struct pbench_contest *c, int i,
					    const struct pbench_mem_run *runs, int n);

#endif
