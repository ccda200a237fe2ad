/* SPDX-License-Identifier: MIT */
/* pbench/measure.h - part of pbench.h (include <pbench.h>; the parts come in data-flow order,
 * each including the one before it). */
#ifndef PBENCH_H_MEASURE
#define PBENCH_H_MEASURE

#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Timing a function (measure.c)
 *
 * pbench_measure() calls fn(ctx) once untimed, warms up, picks an iteration count so that one
 * sample lasts at least the target, runs the iterations in an unrolled batch, subtracts the
 * measured cost of an empty batch, and samples until the standard error of the mean is below
 * the target (or the sample or time budget is spent). Times are per iteration, in ns.
 */

/* Keep the compiler from deleting work whose result is unused: pbench_do_not_optimize(x)
 * makes x look read (and memory written), pbench_clobber() makes all memory look written. */
#if defined(__GNUC__)
#define pbench_do_not_optimize(x) __asm__ volatile("" : : "r,m"(x) : "memory")
#define pbench_clobber() __asm__ volatile("" : : : "memory")
#endif

typedef void (*pbench_fn)(void *ctx);

enum pbench_stop_rule {
	PBENCH_STOP_SEM = 1,		/* the standard error reached the target */
	PBENCH_STOP_MAX_SAMPLES,	/* max_samples were taken */
	PBENCH_STOP_BUDGET,		/* the time budget was spent */
	PBENCH_STOP_SINGLE,		/* one call took longer than the budget: one sample */
	PBENCH_STOP_FIXED,		/* the region API: the caller decided */
};

enum pbench_result_flags {
	PBENCH_RESULT_SUSPICIOUS = 1 << 0,	/* faster than the timer resolves, or fewer
						 * instructions than iterations: optimized away? */
	PBENCH_RESULT_UNOPTIMIZED = 1 << 1,		/* the library or caller built without -O */
	PBENCH_RESULT_OVERHEAD_DOMINATES = 1 << 2,	/* the batch overhead is > half a sample */
	PBENCH_RESULT_NOISY = 1 << 3,			/* switches or migrations in samples */
	PBENCH_RESULT_CLAMPED = 1 << 4,			/* a sample was below the overhead: its time
						 * is reported as 0, never negative */
	PBENCH_RESULT_SETUP_PER_BATCH = 1 << 5,	/* setup ran once for batches of more than
						 * one call (see setup_each) */
};

struct pbench_measure_opts {
	size_t size;
	/* Around every batch of calls (each sample, and the first call, warm-up and
	 * calibration batches too), outside the timed region: once for the batch's many calls,
	 * not before each (a shuffled array is sorted after the first call of a sort). For set-up
	 * that every call needs, setup_each below; the result is flagged
	 * PBENCH_RESULT_SETUP_PER_BATCH (and the log says it) when a setup ran for batches of
	 * more than one call. */
	void (*setup)(void *ctx);
	void (*teardown)(void *ctx);
	double warmup_ms;		/* time-based warm-up (default
					 * PBENCH_MEASURE_DEFAULT_WARMUP_MS; 0: none) */
	double min_sample_ms;		/* a sample lasts at least this (default 1 ms, and at
					 * least 1000 timer resolutions) */
	double target_sem_pct;		/* stop when sem <= this % of the mean (default 1) */
	size_t min_samples;		/* default 10 */
	size_t max_samples;		/* default 100000 */
	double budget_ms;		/* time budget for sampling (default 10000) */
	uint64_t iterations;		/* fixed iterations per sample; 0: automatic */
	int keep_overhead;		/* 1: do not subtract the empty-batch overhead */
	const char *events;		/* counters per sample (NULL: none) */
	int built_optimized;		/* set by PBENCH_MEASURE_OPTS_INIT from __OPTIMIZE__ */
	/*
	 * Before and after each call, outside the timed region (Google Benchmark's
	 * PauseTiming/ResumeTiming): each call is then timed alone, between its own clock reads,
	 * and the sample is the sum of its calls' times. The overhead subtracted is the same
	 * per-call timing around an empty call (a pair of fenced clock reads, some tens of ns):
	 * for calls much shorter than that, time a batch whose setup prepares enough data for
	 * all its calls instead.
	 */
	void (*setup_each)(void *ctx);
	void (*teardown_each)(void *ctx);
	/*
	 * The machine code of fn, kept with the result (pbench_result_listing()) and shown
	 * under its warnings: 1 always; 0 (the default) when the result is flagged
	 * PBENCH_RESULT_SUSPICIOUS or PBENCH_RESULT_UNOPTIMIZED, so that the warning comes with
	 * the code it is about (a loop the compiler deleted is a `ret`); -1 never. objdump runs
	 * once, after the samples. In pbench_compare(), both functions'.
	 */
	int show_code;
	/*
	 * 1: count the allocations per call (pbench_result_mem): after the timed samples,
	 * min_samples (at least 2, at most the samples taken) batches of the same calls as a
	 * sample, untimed, each counting the calls of the thread that runs it to malloc,
	 * calloc, realloc, free and the aligned allocators (C++ new and delete through them),
	 * setup, teardown, setup_each and teardown_each excluded. Untimed, because counting
	 * costs some ns per allocation: the time figures stay those of counting off. It needs
	 * libpbench-mem.so as the process's allocator (link with -lpbench-mem before the C
	 * library, or LD_PRELOAD it); without, the result says "not counted" and why
	 * (pbench_result_mem_status), never 0.
	 */
	int count_memory;
};

/* Defaults, and whether the caller's translation unit was optimized. The time-based warm-up
 * of measuring, preparing (pbench_prepare_opts), sets of runs and contests, in ms: */
#define PBENCH_MEASURE_DEFAULT_WARMUP_MS 1200
#if defined(__OPTIMIZE__)
#define PBENCH_CALLER_OPTIMIZED 1
#else
#define PBENCH_CALLER_OPTIMIZED 0
#endif
#ifdef __cplusplus
/* C++ has designated initializers only from C++20, and -Wextra warns of the members they
 * leave out: the same defaults set on a value-initialized struct, in a lambda called at once
 * (C++11 and later, no warning under -Wall -Wextra -pedantic). */
#define PBENCH_MEASURE_OPTS_INIT \
	([] { struct pbench_measure_opts pbench_o_ = {}; pbench_o_.size = sizeof(pbench_o_); \
	      pbench_o_.warmup_ms = PBENCH_MEASURE_DEFAULT_WARMUP_MS; pbench_o_.min_sample_ms = 1; \
	      pbench_o_.target_sem_pct = 1; pbench_o_.min_samples = 10; \
	      pbench_o_.max_samples = 100000; pbench_o_.budget_ms = 10000; \
	      pbench_o_.built_optimized = PBENCH_CALLER_OPTIMIZED + 1; return pbench_o_; }())
#else
#define PBENCH_MEASURE_OPTS_INIT \
	{ .size = sizeof(struct pbench_measure_opts), \
	  .warmup_ms = PBENCH_MEASURE_DEFAULT_WARMUP_MS, .min_sample_ms = 1, .target_sem_pct = 1, \
	  .min_samples = 10, .max_samples = 100000, .budget_ms = 10000, \
	  .built_optimized = PBENCH_CALLER_OPTIMIZED + 1 }
#endif

/* What happened during one sample or run (deltas over it): pbench_result_noise(),
 * pbench_runs_noise(). */
struct pbench_noise {
	size_t size;
	uint64_t ctx_involuntary, ctx_voluntary;	/* getrusage RUSAGE_THREAD */
	uint64_t migrations;				/* cpu-migrations software event */
	uint64_t minor_faults, major_faults;
	double not_running_ns;				/* wall minus task-clock; NaN when
							 * task-clock cannot be counted */
};

struct pbench_sample {
	size_t size;
	uint64_t ticks;			/* the whole batch */
	uint64_t iterations;
	double ns_per_iter;		/* overhead subtracted unless keep_overhead; >= 0 */
};

struct pbench_result;

/* opts NULL: the defaults. Errors: -EINVAL (NULL fn, a zero or negative budget/target,
 * min_samples > max_samples, opts->size 0), -EOVERFLOW (an iteration or sample count that
 * would overflow), -ENOMEM, and the name errors of pbench_counters_open() for opts->events. */
PBENCH_API int pbench_measure(struct pbench_result **out, pbench_fn fn, void *ctx,
			      const struct pbench_measure_opts *opts);
PBENCH_API void pbench_result_free(struct pbench_result *r);
PBENCH_API size_t pbench_result_nr_samples(const struct pbench_result *r);
PBENCH_API const struct pbench_sample *pbench_result_sample(const struct pbench_result *r,
							    size_t i);
/* What happened during sample i (out->size set by the caller, any size: base.h). 0, or
 * -EINVAL (NULL r or out, out->size 0, i out of range). */
PBENCH_API int pbench_result_noise(const struct pbench_result *r, size_t i,
				   struct pbench_noise *out);
/* Summary of ns per iteration over the samples. */
PBENCH_API const struct pbench_summary *pbench_result_summary(const struct pbench_result *r);
PBENCH_API uint64_t pbench_result_iterations(const struct pbench_result *r);
PBENCH_API double pbench_result_overhead_ns(const struct pbench_result *r); /* per iteration */
PBENCH_API int pbench_result_stop_rule(const struct pbench_result *r);
PBENCH_API unsigned pbench_result_flags(const struct pbench_result *r);
/* The events each sample counted (0 when none were asked for). */
PBENCH_API int pbench_result_nr_events(const struct pbench_result *r);
/*
 * Event e of sample i, copied into out (out->size set; an older, smaller struct gets its
 * part): value, time_enabled and time_running are raw over the whole sample; scaled is per
 * iteration, minus the empty batch's unless keep_overhead, never below 0. One at a time, as
 * libpfm4 hands out its events, so that struct pbench_count can grow. Errors: -EINVAL (NULL
 * r or out, out->size 0, i or e out of range).
 */
PBENCH_API int pbench_result_count(const struct pbench_result *r, size_t i, int e,
				   struct pbench_count *out);
/* Event e's count per call over the samples (pbench_result_count()'s scaled: the empty batch's
 * subtracted unless keep_overhead, as the time is): mean, +- the SEM in %, median, min, max,
 * cv; unit "" (also for task-clock: ns per call). Errors: -EINVAL. */
PBENCH_API int pbench_result_event_summary(const struct pbench_result *r, int e,
					   struct pbench_event_summary *out);
PBENCH_API const char *pbench_stop_rule_name(int rule);
/* The machine code of the measured function (see show_code), in the result's memory; NULL
 * when it was not asked for and no warning called for it (and for the region API). */
PBENCH_API const struct pbench_listing *pbench_result_listing(const struct pbench_result *r);

/* ---------------------------------------------------------------------------------------------
 * Memory per call (measure.c, mem.c): counted by the allocator shim libpbench-mem.so while a
 * sample runs, nothing outside the samples.
 */
enum pbench_mem_status {
	PBENCH_MEM_OFF = 0,		/* not asked for */
	PBENCH_MEM_COUNTED,
	PBENCH_MEM_NOT_INTERPOSED,	/* libpbench-mem.so is not the process's allocator */
	PBENCH_MEM_STATIC,		/* a command linked statically: nothing to preload into */
	PBENCH_MEM_SETUID,		/* a setuid or setgid command: the loader ignores LD_PRELOAD */
	PBENCH_MEM_NOT_LOADED,		/* a command that never loaded the shim */
};

/* The counts of one counted batch of iterations calls (as many as a timed sample has). */
struct pbench_mem {
	size_t size;
	uint64_t allocs;		/* successful allocations (a moving realloc is one) */
	uint64_t frees;			/* frees of non-NULL pointers (realloc's included) */
	uint64_t bytes;			/* bytes asked for by the allocations */
	int64_t peak_bytes;		/* the highest net growth of the heap during the
					 * batch, from its start, in the allocator's usable
					 * sizes (bytes plus its rounding); 0 when nothing grew */
};

/* What memory figure a summary or comparison is of. */
enum pbench_mem_kind {
	PBENCH_MEM_ALLOCS = 1,		/* allocations per call */
	PBENCH_MEM_FREES,		/* frees per call */
	PBENCH_MEM_BYTES,		/* bytes allocated per call */
	PBENCH_MEM_PEAK,		/* peak live bytes of a batch (not per call) */
};

/* Whether r's allocations were counted (enum pbench_mem_status), and why not in words
 * (NULL when counted or not asked for). */
PBENCH_API int pbench_result_mem_status(const struct pbench_result *r);
PBENCH_API const char *pbench_result_mem_reason(const struct pbench_result *r);
/* The counted batches (0 when not counted), and batch i's counts into out (out->size set; an
 * older, smaller struct gets its part). Errors: -EINVAL (NULL, size 0, i out of range),
 * -ENODATA (not counted). */
PBENCH_API size_t pbench_result_mem_nr_batches(const struct pbench_result *r);
PBENCH_API int pbench_result_mem(const struct pbench_result *r, size_t i, struct pbench_mem *out);
/*
 * The summary over the batches of one figure (enum pbench_mem_kind), per call (the peak per
 * batch). *exact (may be NULL) is 1 when every batch counted the same: the figure is then
 * exactly out->mean per call, not an estimate. Errors: -EINVAL (NULL, a bad kind),
 * -ENODATA (not counted), and those of pbench_stats_summary().
 */
PBENCH_API int pbench_result_mem_summary(const struct pbench_result *r, int kind,
					 struct pbench_summary *out, int *exact);

/* Two results compared on one memory figure (seed 004's memoryCompare): "b allocates 2.0x
 * the bytes of a per call". */
struct pbench_mem_comparison {
	size_t size;
	int kind;			/* enum pbench_mem_kind */
	/* PBENCH_VERDICT_FASTER: a allocates less than b; _SLOWER: more; _SAME: within
	 * same_threshold_pct; _UNDECIDED: the samples do not tell. */
	int verdict;
	double a, b;			/* mean per call (the peak: per batch) */
	int a_exact, b_exact;		/* 1: that side counted the same in every batch */
	/* b / a with its interval at the confidence; when both are exact the interval is the
	 * ratio itself; NaN when a is 0 (b allocates, a does not: say so, not "infx"). */
	double ratio, ratio_lo, ratio_hi;
	double p;			/* Welch's p-value; NaN when both are exact */
	double confidence;
};
/* Errors: -EINVAL (NULL, a bad kind, out->size 0), -ENODATA (either side not counted). */
PBENCH_API int pbench_mem_compare(const struct pbench_result *a, const struct pbench_result *b,
				  int kind, double confidence, double same_threshold_pct,
				  struct pbench_mem_comparison *out);
/* ---------------------------------------------------------------------------------------------
 * Memory of a command (mem_command.c): the allocator shim libpbench-mem.so preloaded into it
 * counts the allocations of the last image of the process started (a wrapper such as env that
 * execs the program under the same pid is not counted; when the last image never loaded the
 * shim the run is not counted), not those of the processes it forks; they are counted apart
 * as "others", each process once.
 */
/* Whether the command at path (a #! script: its interpreter) can be counted: a value of enum
 * pbench_mem_status: PBENCH_MEM_COUNTED, PBENCH_MEM_STATIC (no dynamic
 * loader), PBENCH_MEM_SETUID (the loader ignores LD_PRELOAD), PBENCH_MEM_NOT_LOADED (not an
 * ELF file), with *reason in words (NULL when countable). Errors: -EINVAL, -errno of open. */
PBENCH_API int pbench_mem_command_status(const char *path, const char **reason);
/* The shared record a command's shim counts into (a memfd), and the shim's path. Errors:
 * -ENOENT (libpbench-mem.so not found: next to the binary, in ../lib, in the library's
 * install directory, or PBENCH_MEM_SHIM), -ENOMEM, -errno of memfd_create or mmap. */
struct pbench_mem_file;
PBENCH_API int pbench_mem_file_new(struct pbench_mem_file **out);
PBENCH_API const char *pbench_mem_file_shim(const struct pbench_mem_file *f);
/* envp (NULL: this process's environment) with LD_PRELOAD (the shim first, the user's
 * after it) and PBENCH_MEM_FILE set, for the command's exec; owned by f until the next call
 * or pbench_mem_file_free(). Errors: -EINVAL, -ENOMEM. */
PBENCH_API int pbench_mem_file_env(struct pbench_mem_file *f, char *const *envp,
				   char *const **out);
/* Zero the record: before each run. */
PBENCH_API void pbench_mem_file_reset(struct pbench_mem_file *f);
/* After a run: the counts of the command's process into out (out->size set), *others (may be
 * NULL) the processes that loaded the shim and were not counted. Returns PBENCH_MEM_COUNTED
 * (the counts of the command's last image), PBENCH_MEM_NOT_LOADED when no process loaded the
 * shim or the command's last exec'd image did not, PBENCH_MEM_NOT_INTERPOSED when that image
 * has its own malloc (out untouched then); -EINVAL. */
PBENCH_API int pbench_mem_file_read(const struct pbench_mem_file *f, struct pbench_mem *out,
				    unsigned *others);
PBENCH_API void pbench_mem_file_free(struct pbench_mem_file *f);

/* One run of a command with the shim preloaded, untimed (pbench stat --memory): its counts
 * when status is PBENCH_MEM_COUNTED (else 0, not counted), the processes it started that
 * loaded the shim and were not counted, and its peak resident set from wait4. */
struct pbench_mem_run {
	size_t size;
	int status;			/* enum pbench_mem_status */
	int exit_status;		/* -1 when killed by term_signal */
	int term_signal;
	unsigned others;
	uint64_t allocs, frees, bytes;
	int64_t peak_bytes;
	uint64_t max_rss_kib;		/* wait4 ru_maxrss, KiB: the largest of the command
					 * and of the children it waited for */
	/* pbench's own peak RSS when it started the command, KiB: the kernel carries the
	 * starting process's peak into the command's ru_maxrss across exec, so max_rss_kib
	 * is the command's own only when above this. */
	uint64_t rss_floor_kib;
	const char *reason;		/* why not counted (a static string); NULL if counted */
};
/* Run argv (found in PATH) once with f's environment and wait for it (the child API: its own
 * process group, what it leaves running ended); quiet: its stdout and stderr to /dev/null.
 * Errors: -EINVAL, -ENOMEM, pbench_child_start()'s and pbench_child_wait()'s. */
PBENCH_API int pbench_mem_file_run(struct pbench_mem_file *f, char *const argv[], int quiet,
				   struct pbench_mem_run *out);
/* One memory comparison as text, two lines: both sides ("exactly N" where exact) per the
 * unit per ("call", "run"), then "b allocates 2.0x the bytes of a per call" with its interval
 * (or that one side allocates and the other not). -EINVAL, -EIO. */
PBENCH_API int pbench_mem_comparison_write_text(const struct pbench_mem_comparison *m, FILE *f,
						const char *label_a, const char *label_b,
						const char *per);

PBENCH_API const char *pbench_mem_status_name(int status);
PBENCH_API const char *pbench_mem_kind_name(int kind);

/* The region API, for code that cannot be wrapped in a callback: each begin/end pair is one
 * sample of `iterations` iterations (1 if 0) added to the same kind of result. Use it from the
 * thread that created it. begin and end do not allocate (end doubles the sample arrays when
 * they are full, after the pair is read); the noise snapshot and counters cost a few syscalls
 * per pair, outside the timed part. */
struct pbench_region;
PBENCH_API int pbench_region_new(struct pbench_region **out, uint64_t iterations,
				 const char *events);
PBENCH_API void pbench_region_begin(struct pbench_region *r);
PBENCH_API void pbench_region_end(struct pbench_region *r);
/* The result so far (owned by the caller: pbench_result_free). */
PBENCH_API int pbench_region_result(struct pbench_result **out, struct pbench_region *r);
PBENCH_API void pbench_region_free(struct pbench_region *r);

/* Comparing two functions: the same iteration count (the larger of the two calibrations, so
 * every sample lasts at least the target), samples in rounds of ABBA or BAAB (a coin toss per
 * round, so that periodic noise such as the timer tick cannot favour a side), Welch's test
 * after each round. The result is said of b against a, the one direction of every ratio in
 * pbench (ratio_b_to_a = time of b / time of a: 1.117 is "b is 1.117x slower than a", and
 * verdict_b); ratio and verdict, a against b, are kept as they were for existing callers. */
struct pbench_compare_opts {
	size_t size;
	/* warm-up, sample length, budget, samples (NULL: the defaults). A pointer, so that the
	 * measure options can grow without moving the fields after them. */
	const struct pbench_measure_opts *measure;
	double confidence;		/* default PBENCH_STATS_DEFAULT_CONFIDENCE (0.999) */
	double same_threshold_pct;	/* default PBENCH_STATS_DEFAULT_SAME_PCT (1): "same" when
					 * the CI of the ratio is within */
	/* Optional: return 0 when a and b compute the same thing (called once, before
	 * timing); non-zero refuses the comparison (-PBENCH_EDIFFERENT). */
	int (*check)(void *ctx_a, void *ctx_b);
};

/* The defaults above, spelled out: start from this (a struct with .size 0 is refused). */
#ifdef __cplusplus	/* see PBENCH_MEASURE_OPTS_INIT */
#define PBENCH_COMPARE_OPTS_INIT \
	([] { struct pbench_compare_opts pbench_o_ = {}; pbench_o_.size = sizeof(pbench_o_); \
	      pbench_o_.confidence = PBENCH_STATS_DEFAULT_CONFIDENCE; \
	      pbench_o_.same_threshold_pct = PBENCH_STATS_DEFAULT_SAME_PCT; return pbench_o_; }())
#else
#define PBENCH_COMPARE_OPTS_INIT \
	{ .size = sizeof(struct pbench_compare_opts), \
	  .confidence = PBENCH_STATS_DEFAULT_CONFIDENCE, \
	  .same_threshold_pct = PBENCH_STATS_DEFAULT_SAME_PCT }
#endif

struct pbench_comparison {
	size_t size;
	int verdict;			/* enum pbench_verdict, of a against b (kept as it was:
					 * new code reads verdict_b) */
	double ratio, ratio_lo, ratio_hi;	/* time of a / time of b, with its interval (the
						 * inverse of ratio_b_to_a, kept as it was) */
	size_t pairs;			/* AB or BA pairs taken: the samples of each side */
	double confidence;		/* of the verdict and of the intervals */
	double same_threshold_pct;	/* "same": the ratio's interval lies within this of 1 */
	/* The details, in the library's memory until pbench_comparison_release(): the test
	 * (NULL when none could be run) and both sides' summaries in ns per iteration.
	 * Pointers, so that the structs they point to can grow without moving anything here. */
	const struct pbench_welch *welch;
	const struct pbench_summary *a, *b;
	void *priv;			/* the library's block behind them; NULL if not its own */
	/* The machine code of a and b (show_code of the measure options), or NULL; in the
	 * same block. */
	const struct pbench_listing *listing_a, *listing_b;
	/* With measure->count_memory: a and b compared on bytes and on allocations per call
	 * (in the same block, released with it); NULL when not asked for or not counted (the
	 * reason: mem_status and mem_reason). */
	const struct pbench_mem_comparison *mem_bytes, *mem_allocs;
	int mem_status;			/* enum pbench_mem_status (the worse side's) */
	const char *mem_reason;		/* NULL when counted or not asked for */
	/*
	 * b against a, the one direction of every ratio pbench shows (pbench compare's, each
	 * entrant against the reference; pbench analyze's, each set against the first; the
	 * memory comparisons'; kmod-free-docs/statistics.md): time of b / time of a with its
	 * interval at confidence (Welch's test of b against a), so that 1.117 reads "b is
	 * 1.117x slower than a"; and b's verdict (PBENCH_VERDICT_SLOWER then), the same
	 * decision as verdict said of b. NaN and 0 in a struct pbench_compare() did not fill.
	 */
	double ratio_b_to_a, ratio_b_to_a_lo, ratio_b_to_a_hi;
	int verdict_b;
};

/* An empty comparison for pbench_compare() to fill: its size set, the rest 0 (priv NULL, so
 * pbench_comparison_release() on it is safe). */
#ifdef __cplusplus	/* see PBENCH_MEASURE_OPTS_INIT */
#define PBENCH_COMPARISON_INIT \
	([] { struct pbench_comparison pbench_o_ = {}; pbench_o_.size = sizeof(pbench_o_); \
	      return pbench_o_; }())
#else
#define PBENCH_COMPARISON_INIT { .size = sizeof(struct pbench_comparison) }
#endif

PBENCH_API int pbench_compare(pbench_fn a, void *ctx_a, pbench_fn b, void *ctx_b,
			      const struct pbench_compare_opts *opts, struct pbench_comparison *out);
PBENCH_API const char *pbench_verdict_name(int verdict);
/* Free what pbench_compare() put behind c's pointers (and clear them); the struct itself is
 * the caller's. Safe on a comparison the library did not fill (priv NULL). */
PBENCH_API void pbench_comparison_release(struct pbench_comparison *c);

#ifdef __cplusplus
}
#endif
#endif /* PBENCH_H_MEASURE */
