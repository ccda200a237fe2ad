/* SPDX-License-Identifier: MIT */
/*
 * The measure module (lib/src/measure/): the internals of timing a function, shared by
 * measure_batch.c (the batch), measure.c (one function), region.c (the region API),
 * measure_mem.c (memory per call) and compare_fns.c (two functions in ABBA order); and what
 * mem.c (the allocator shim) gives the modules above.
 * Never installed.
 */
#ifndef PBENCH_MEASURE_H
#define PBENCH_MEASURE_H

#include <sys/resource.h>

#include "stats/samples.h"
#include "../../shim/memshim.h"

/* Calls per loop trip of the timed batch: the loop's own increment and branch are paid once
 * per eight calls, and the empty batch subtracts what is left of them. */
#define PB_UNROLL 8
#define PB_OVERHEAD_BATCHES 9	/* empty batches (or regions) measured; the median is used */
#define PB_RESULT_CHUNK 256	/* samples allocated at first, then doubled */

/* Everything a run needs, resolved once from the caller's options and the clock. */
struct pb_timing {
	struct pbench_measure_opts o;	/* the caller's options over the defaults, checked */
	struct pbench_clock_info clk;
	double ticks_per_ns;
	double target_ticks;		/* a sample lasts at least this */
	double budget_ticks;		/* sampling stops before it would pass this */
	double warmup_ticks;
};

/* The result of pbench_measure, pbench_region_result and each side of pbench_compare. */
struct pbench_result {
	struct pbench_sample *samples;
	struct pbench_noise *noise;	/* per sample (pbench_result_noise()) */
	double *x;			/* ns per iteration as reported (>= 0), for the summary */
	double *net;			/* ns per iteration minus the overhead, not clamped */
	struct pbench_count *counts;	/* nr_events per sample */
	char **names;			/* owned copies: counts[].name points here */
	size_t nr, alloc;
	int nr_events;
	struct pbench_summary summary;
	uint64_t iterations;
	double overhead_ticks;		/* median empty batch (or empty region), whole */
	double overhead_sd_ticks;	/* its deviation (1.4826 MAD): the harness's noise */
	int keep_overhead;
	int stop_rule;
	unsigned flags;
	/* The instructions check: the first instructions event, and its per-iteration count
	 * minus the empty batch's, summed over the samples where it counted. */
	int instr_idx;
	double instr_sum;
	size_t instr_nr;
	/* The options it was measured with (callbacks and events cleared), for the reports;
	 * has_settings 0 for the region API, where the caller decided. */
	struct pbench_measure_opts settings;
	int has_settings;
	struct pbench_listing *listing;	/* the function's code (show_code), or NULL */
	/* Memory per call (count_memory): the counts of mem_nr batches of iterations calls,
	 * run after the timed samples and not timed themselves (measure_mem.c says why), when
	 * mem_status is PBENCH_MEM_COUNTED; else the reason (a static string). */
	struct pb_mem_counts *mem;
	size_t mem_nr, mem_alloc;
	int mem_status;
	const char *mem_reason;
};

/* Keep the options a result was measured with (pbench_measure and each side of compare). */
void pb_result_keep_settings(struct pbench_result *r, const struct pbench_measure_opts *o);

/* What happened to this thread around one sample: rusage for context switches and faults,
 * task-clock (time on a CPU) and cpu-migrations as software events. */
struct pb_probe {
	struct pbench_counters *sw;	/* NULL when the software events cannot be opened */
	int clock_ok, migr_ok, started;
	struct rusage ru;
	uint64_t t0;
	int cpu;
};

/* What a sampling loop drives: one function, its iteration count and where samples go. */
struct pb_sampling {
	const struct pb_timing *t;
	pbench_fn fn;
	void *ctx;
	uint64_t n;
	struct pbench_counters *events;	/* NULL: no counters */
	double *ovh_counts;		/* per event, the empty batch's count per iteration */
	struct pb_probe *probe;		/* NULL: no noise snapshot */
	struct pbench_result *res;	/* its mem_status says whether allocations are counted */
};

/* compare_fns.c: the verdict a Welch result supports at one look, or 0 for "keep sampling". */
#define PB_COMPARE_LOOK_FACTOR PB_VERDICT_LOOK_FACTOR
int pb_compare_decide(double confidence, double same_threshold_pct,
		      const struct pbench_welch *w);

/* The measure options over the defaults, checked (-EINVAL, its detail naming fn's argument
 * arg); then the clock and the derived lengths. */
int pb_timing_init(struct pb_timing *t, const struct pbench_measure_opts *opts, const char *fn,
		   const char *arg);

/* measure_batch.c: n calls of fn(ctx) unrolled by PB_UNROLL between pbench_ticks_begin and
 * _end: the ticks. */
uint64_t pb_batch(pbench_fn fn, void *ctx, uint64_t n);
/* Each call timed alone with setup before and teardown after (either may be NULL), outside
 * its clock reads: the sum of the calls' times. */
uint64_t pb_batch_each(pbench_fn fn, void *ctx, uint64_t n, pbench_fn setup,
		       pbench_fn teardown);
/* n calls timed as the options say: one batch (pb_batch), or each call alone with
 * setup_each/teardown_each around it, the calls' times summed. */
uint64_t pb_timed_batch(const struct pb_timing *t, pbench_fn fn, void *ctx, uint64_t n);
/* measure.c: pb_timed_batch with setup before and teardown after, outside the ticks. */
uint64_t pb_call_batch(const struct pb_timing *t, pbench_fn fn, void *ctx, uint64_t n);
/* Flag (and log) a setup that runs once for batches of more than one call. */
void pb_setup_per_batch(const struct pb_timing *t, struct pbench_result *r);

/* -EOVERFLOW when n iterations of at least ticks_per_iter would not fit in 64-bit ticks;
 * ticks_per_iter <= 0 estimates it from the empty batch (without calling anything). */
int pb_check_count(uint64_t n, double ticks_per_iter);

/* Warm up fns[0..nr-1] in turn, each with batches growing ten-fold up to the target length,
 * for the warm-up time. */
void pb_warmup(const struct pb_timing *t, const pbench_fn *fns, void *const *ctxs, int nr);

/* The iteration count: 1, x10 until a batch reaches 1/8 of the target, scaled to the target.
 * -EOVERFLOW rather than a wrapped count. */
int pb_calibrate(const struct pb_timing *t, pbench_fn fn, void *ctx, uint64_t *n);

/* Measure the empty batch of n iterations into res (overhead_ticks, overhead_sd_ticks) and,
 * with events, each event's count per iteration into ovh_counts. */
int pb_overhead(const struct pb_timing *t, struct pbench_result *res, uint64_t n,
		struct pbench_counters *events,
		double *ovh_counts);

/* Set res's overhead from the empty batches' ticks[0..n-1] (reordered). */
void pb_overhead_set(struct pbench_result *res, double *ticks, size_t n);

/* Take one sample of the run and append it to run->res. */
int pb_run_sample(struct pb_sampling *run);

/* Open the software events of the noise snapshot (never fails: without them, time not
 * running is NaN and a migration is seen only as a different CPU at the end). */
void pb_probe_open(struct pb_probe *p);
void pb_probe_close(struct pb_probe *p);
/* Around a sample, outside its timed region. */
void pb_probe_begin(struct pb_probe *p);
void pb_probe_end(struct pb_probe *p, struct pbench_noise *nz);

/* Open the caller's events on this thread, enabled; *nr gets their number. An event list of
 * which nothing can be counted is not an error: the set carries each event's reason. */
int pb_events_open(struct pbench_counters **out, const char *list, int *nr);
/* The first "instructions" event of the set, or -1. */
int pb_find_instructions(const struct pbench_counters *c);

struct pbench_result *pb_result_new(int nr_events, uint64_t iterations, int keep_overhead);
/* Copy the names of the events of c (the result outlives the set). */
int pb_result_set_names(struct pbench_result *r, const struct pbench_counters *c);
/* Room for want samples; grows the arrays by doubling (-ENOMEM, -EOVERFLOW). */
int pb_result_reserve(struct pbench_result *r, size_t want);
/* Append a sample of ticks (room reserved): ns per iteration, overhead subtracted unless
 * keep_overhead, never below 0. The caller fills its noise. */
struct pbench_sample *pb_result_push(struct pbench_result *r, uint64_t ticks);
/* The last sample's counts k[] per iteration, minus ovh_counts (may be NULL) unless
 * keep_overhead: in k[].scaled; value and the times stay raw over the whole sample. */
void pb_counts_per_iter(struct pbench_result *r, struct pbench_count *k,
			const double *ovh_counts);
/* The summary and the flags, once sampling is over. */
int pb_result_finish(struct pbench_result *r, const struct pb_timing *t);

/* Keep the machine code of fn in r when show_code asks for it, or the flags call for it
 * (-ENOMEM; a code that cannot be shown is a listing with its reason). */
int pb_result_look(struct pbench_result *r, pbench_fn fn, const struct pbench_measure_opts *o);
/* With count_memory: find the shim for r (its status and reason set). */
void pb_result_mem_open(struct pbench_result *r, const struct pb_timing *t);
/* measure_mem.c: how many counted batches r gets once its samples are taken (0 when its
 * memory is not counted), and one more such batch of fn (setup and teardown around it,
 * outside the window). -ENOMEM. */
size_t pb_mem_batches(const struct pbench_result *r, const struct pb_timing *t);
int pb_mem_batch(struct pbench_result *r, const struct pb_timing *t, pbench_fn fn, void *ctx);

/* compare_fns.c: a comparison's writers check it with this (fn: the writer). */
int pb_comparison_check(const struct pbench_comparison *c, const char *fn);

/* mem.c: the allocator shim (lib/shim/memshim.h), looked up once. pb_mem_open returns an enum
 * pbench_mem_status (PBENCH_MEM_COUNTED, or why not in *reason, and logged). Then begin
 * zeroes c and counts this thread's allocations into it until end; pause and resume leave
 * out what runs between them (setup_each), and do nothing when no window is open. */
struct pb_mem_counts;
int pb_mem_open(const char **reason);
void pb_mem_begin(struct pb_mem_counts *c);
void pb_mem_end(void);
void pb_mem_pause(void);
void pb_mem_resume(void);
/* Two sets of one memory figure compared (pbench_mem_compare's rule): exact when every value
 * of a side is the same, Welch otherwise. -EINVAL, and pbench_stats_summary's errors. */
int pb_mem_compare_x(const double *xa, size_t na, const double *xb, size_t nb, int kind,
		     double confidence, double same_threshold_pct,
		     struct pbench_mem_comparison *out);

/* mem_command.c: the runs of commands counted by the allocator shim (pbench_runs_count_memory()
 * and pbench_contest_count_memory() are the public calls). */
/* The n runs as text: each figure exactly when every run counted the same, else the mean
 * with its standard error; "not counted" and runs[].reason when the shim was not loaded (a
 * caller that did not run a command it knew not countable fills status and reason alone).
 * -EINVAL, -ENOMEM, -EIO. */
int pb_mem_runs_write_text(const struct pbench_mem_run *runs, int n, FILE *f);
/*
 * n counted runs of each of ncmd commands (argv[i]), in alternation, into runs[i][0..n-1]: a
 * command that cannot be counted (static, setuid, not found) is not run, its runs get only its
 * status and reason. quiet: their output to /dev/null. Stops when *stop (may be NULL) is set,
 * between runs or during one (a signal handler that sets it ends the run under way, with what
 * it started): 1 then, every run not done or not finished saying so in its reason. 0, or
 * -ENOENT (the shim is not found: PBENCH_MEM_SHIM names it), -EINVAL, -ENOMEM,
 * pbench_mem_file_run()'s.
 */
int pb_mem_runs_count(char *const *const argv[], int ncmd, int n, int quiet,
				     const volatile int *stop, struct pbench_mem_run *const runs[]);
/* The same as a Markdown section (a heading and a table), after pbench_runs_write_markdown's. */
int pb_mem_runs_write_markdown(const struct pbench_mem_run *runs, int n, FILE *f);
/* Two commands' counted runs compared on one figure per run, as pbench_mem_compare() does
 * per call. Errors: -EINVAL, -ENODATA (a run not counted), -ENOMEM. */
int pb_mem_runs_compare(const struct pbench_mem_run *a, int na,
				       const struct pbench_mem_run *b, int nb, int kind,
				       double confidence, double same_threshold_pct,
				       struct pbench_mem_comparison *out);

#endif
