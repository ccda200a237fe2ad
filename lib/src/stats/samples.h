/* SPDX-License-Identifier: MIT */
/* The samples read back from files (samples.c) and their analysis (samples_report.c). */
#ifndef PBENCH_SAMPLES_H
#define PBENCH_SAMPLES_H

#include "internal.h"

struct sample_set {
	char *name;
	char *unit;		/* "ns", a label, or NULL */
	double *x;
	size_t n, cap;
	size_t left_out;	/* runs killed at the timeout, not in x (pb_run_measured()) */
	size_t failed;		/* runs in x that exited non-zero or were killed */
};

/* The first set against another: a test when there is spread to judge by. */
struct pb_samples_cmp {
	int a, b;
	int tested;		/* 0: both constant, no test; -1: their units differ */
	struct pbench_welch w;
	struct pbench_mann_whitney m;
};

struct pbench_samples {
	struct sample_set *v;
	int n;
	char *note;		/* what an input that holds no samples was (a comparison) */
	char *warning;		/* what the last input read warns of (pbench_samples_warning) */
	/* pbench_samples_analyze() */
	int analyzed;		/* sets summarized (the sets read since are not) */
	double confidence, same_pct;
	struct pbench_summary *sums;
	struct pb_samples_cmp *cmps;
	int ncmp;
	int width;		/* pbench_samples_wrap_at() */
};

#endif
