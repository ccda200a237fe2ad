/* SPDX-License-Identifier: MIT */
/*
 * The stats module (lib/src/stats/), declared for the files of the library: the one rule of
 * every summary of runs and the look factor of the verdict (stats.c), the samples read back
 * from files (samples.c, an object opaque outside stats/: samples_inner.h) and their analysis
 * (samples_report.c), the gate (gate.c). Never installed.
 */
#ifndef PBENCH_SAMPLES_H
#define PBENCH_SAMPLES_H

#include "pbench.h"

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

/* samples.c: pbench_samples_add_file() with its failure in why (wlen bytes), for a reader
 * that says it in words of its own (samples_baseline.c); and a failure err said whole
 * (pb_fail_msg()) in the words why holds ("": err as it is), returned. */
int pb_samples_add_file(struct pbench_samples *s, const char *path, const char *unit,
			char *why, size_t wlen);
int pb_samples_said(int err, const char *why);

/* samples_report.c, for the text of pbench_samples_write_text() (measure/samples_text.c, on
 * measure's pbench_summary_write_text()): the sets analyzed (0: not analyzed, or s NULL), set
 * i's runs left out (PB_RUN_LEFT_OUT), and the comparisons' text after the summaries, wrapped
 * at width columns (0: not). */
int pb_samples_analyzed(const struct pbench_samples *s);
size_t pb_samples_left_out(const struct pbench_samples *s, int i);
void pb_samples_write_comparisons(const struct pbench_samples *s, int width, FILE *f);

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
	int occasions, commits;	/* the allowance measured from a history's occasions (0: the
				 * fixed one, pb_gate_drift) */
};
/* The drift of one command's time between occasions on this machine, from a history
 * (pbench_history_drift()): sd the standard deviation of a log time between occasions of one
 * commit (0: not known), over occasions points of commits commits. */
struct pb_gate_drift {
	double sd;
	int occasions, commits;
};
int pb_stats_gate_estimate(const double *base, const double *base_f, size_t nb,
			   const double *now, const double *now_f, size_t nn, double confidence,
			   double residual_pct, const struct pb_gate_drift *drift,
			   struct pb_gate_est *g);
/* The gate's rule on an estimate (1 regression, 0 not, 2 undecided), and its sentence, phrase
 * saying what the times were adjusted by ("each run's clock reading: ..."). */
int pb_stats_gate_decide(const struct pb_gate_est *g, double pct);
/* The least slowdown, in whole percent rounded up, that the gate of g can fail on (its
 * allowance and its interval's lower half): "cannot gate below N%". */
int pb_stats_gate_floor_pct(const struct pb_gate_est *g);
void pb_stats_gate_words(const struct pb_gate_est *g, int rc, double pct, double confidence,
			 const char *phrase, char *why, size_t len);

#endif
