/* SPDX-License-Identifier: MIT */
/*
 * The samples object of the stats module (lib/src/stats/ only; tests/layers/run.sh fails an
 * include of it from another folder): samples read from files (samples.c), their sets and
 * their comparisons (samples_report.c). Other modules use samples.h's functions.
 */
#ifndef PBENCH_SAMPLES_INNER_H
#define PBENCH_SAMPLES_INNER_H

#include "stats/samples.h"

struct sample_set {
	char *name;
	char *unit;		/* "ns", a label, or NULL */
	double *x;
	size_t n, cap;
	size_t left_out;	/* runs killed at the timeout, not in x (pb_run_measured()) */
	size_t failed;		/* runs in x that exited non-zero or were killed */
	int input;		/* which input (add_text/add_file call) it came from, from 0 */
	int gbench;		/* a benchmark of Google Benchmark's JSON: paired by name */
	char *origin;		/* the input's name (a file's path as given, "stdin") */
	char *given_unit;	/* Google Benchmark: its rows' time_unit as in the file ("us"),
				 * "mixed" when they differ; NULL otherwise (times read in ns) */
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
};

#endif
