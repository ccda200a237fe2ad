/* SPDX-License-Identifier: MIT */
/*
 * The stats module (lib/src/stats/), declared for the files of the library: the one rule of
 * every summary of runs and the look factor of the verdict (stats.c), the samples read back
 * from files (samples.c) and their analysis (measure/samples_report.c). Never installed.
 */
#ifndef PBENCH_SAMPLES_H
#define PBENCH_SAMPLES_H

#include "pbench.h"

struct sample_set {
	char *name;
	char *unit;		/* "ns", a label, or NULL */
	double *x;
	size_t n, cap;
	size_t left_out;	/* runs killed at the timeout, not in x (pb_run_measured()) */
	size_t failed;		/* runs in x that exited non-zero or were killed */
	int input;		/* which input (add_text/add_file call) it came from, from 0 */
	int gbench;		/* a benchmark of Google Benchmark's JSON: paired by name */
};

/* The first set against another (or a benchmark against its namesake in the other file): a
 * test when there is spread to judge by. */
struct pb_samples_cmp {
	int a, b;
	int tested;		/* 0: both constant, no test; -1: their units differ; -2: a side
				 * has one value (a repetition): no test, the ratio only */
	struct pbench_welch w;	/* a against b (the JSON's older ratio, verdict, welch_t) */
	struct pbench_welch wb;	/* b against a: the ratio shown, time of b / time of a */
	struct pbench_mann_whitney m;
};

struct pbench_samples {
	struct sample_set *v;
	int n;
	char *note;		/* what an input that holds no samples was (a comparison) */
	char *warning;		/* what the last input read warns of (pbench_samples_warning) */
	int inputs;		/* inputs read (each add_text/add_file that added sets) */
	int cpu_time;		/* Google Benchmark: cpu_time read, not real_time */
	char *unpaired;		/* benchmarks only in one of two files (pbench_samples_analyze) */
	/* pbench_samples_analyze() */
	int analyzed;		/* sets summarized (the sets read since are not) */
	double confidence, same_pct;
	struct pbench_summary *sums;
	struct pb_samples_cmp *cmps;
	int ncmp;
	int width;		/* pbench_samples_wrap_at() */
};

/*
 * The one rule of every summary of runs: pbench stat's and compare's, and pbench analyze's (and
 * a baseline's) of their JSON. A run killed at the timeout was cut short, not measured: it is
 * left out of the summary, its outlier fences and its counts, and the summary says so
 * (PB_RUN_LEFT_OUT). A run that failed (exit non-zero, a signal) ran to its end: it is kept,
 * and the failure is said beside the summary (and in pbench's exit status). As hyperfine
 * keeps failed runs with -i and perf stat -r keeps them.
 */
static inline int pb_run_measured(int timed_out)
{
	return !timed_out;
}
#define PB_RUN_LEFT_OUT "killed at the timeout: cut short, not measured"

/* How much stricter a sequential comparison's boundary is than one look's (Pocock): see
 * pbench_stats_verdict(). */
#define PB_VERDICT_LOOK_FACTOR 10

/* gate.c: pbench_stats_gate() on any positive figure: what names it in the words (NULL: the
 * time, pbench_stats_gate()'s words), higher_better makes a lower value the worse side, and
 * floor_pct is the least allowance for the shift between occasions (0 for exact counts,
 * which do not move with the machine's speed). */
int pb_stats_gate_on(const double *base, size_t nb, const double *now, size_t nn, double pct,
		     double confidence, const char *what, int higher_better, double floor_pct,
		     char *why, size_t len);

/* gate.c: the gate's estimate on times adjusted by each run's speed factor (base_f, now_f:
 * pbench_stats_gate_speed()'s), or on the times themselves with the floor when the readings
 * cannot serve (adjusted 0, why_not saying why), residual_pct the least allowance once
 * adjusted (pbench_stats_gate_speed()'s): the shift of now over base in logs with its
 * interval, the allowance for the occasion, and host, today's median factor over the
 * baseline's. */
struct pb_gate_est {
	double est, lo, hi, allow, host;
	int adjusted;
	const char *why_not;
};
int pb_stats_gate_estimate(const double *base, const double *base_f, size_t nb,
			   const double *now, const double *now_f, size_t nn, double confidence,
			   double residual_pct, struct pb_gate_est *g);
/* The gate's rule on an estimate (1 regression, 0 not, 2 undecided), and its sentence, phrase
 * saying what the times were adjusted by ("each run's clock reading: ..."). */
int pb_stats_gate_decide(const struct pb_gate_est *g, double pct);
void pb_stats_gate_words(const struct pb_gate_est *g, int rc, double pct, double confidence,
			 const char *phrase, char *why, size_t len);

#endif
