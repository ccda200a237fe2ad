/* SPDX-License-Identifier: MIT */
/* pbench/prepare.h - part of pbench.h (include <pbench.h>; the parts come in data-flow order,
 * each including the one before it). */
#ifndef PBENCH_H_PREPARE
#define PBENCH_H_PREPARE

#include "noise.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Preparing (prepare.c): one core, high priority, local locked memory, a warm-up; then undo
 *
 * pbench_prepare() prepares the calling thread for a measurement the way a careful engineer
 * does by hand, step by step (enum pbench_prepare_step, in the order they are done), and records
 * each step's outcome so that the caller can say what was done and what was not. A step that
 * is refused (no permission, not available) does not fail the call. Only attributes of the
 * calling thread (affinity, scheduling policy and nice value, memory policy) and of the
 * process (the memory lock) change; nothing system-wide. Threads and children created while
 * prepared inherit the thread's attributes (not the memory lock).
 *
 * pbench_prepared_restore() puts back every attribute a step changed, as it was saved before
 * the first change; pbench_prepared_free() does the same if it was not done. Call them from
 * the thread that prepared (only it can restore its memory policy). In a child forked while
 * prepared, they restore the child's calling thread instead, never the parent's.
 */
struct pbench_prepared;

/* The steps, in the order pbench_prepare() does them. */
enum pbench_prepare_step {
	PBENCH_PREPARE_STEP_PIN = 0,	/* sched_setaffinity to the one chosen CPU */
	PBENCH_PREPARE_STEP_NUMA,	/* memory policy MPOL_BIND to the CPU's NUMA node */
	PBENCH_PREPARE_STEP_MLOCK,	/* mlockall(MCL_CURRENT | MCL_FUTURE) */
	PBENCH_PREPARE_STEP_STACK,	/* touch the stack below the current frame (page it in) */
	PBENCH_PREPARE_STEP_PRIORITY,	/* nice -20 or SCHED_FIFO (enum pbench_priority_mode) */
	PBENCH_PREPARE_STEP_WARMUP,	/* time-based busy loop on the chosen CPU */
	PBENCH_PREPARE_STEP_NR
};

enum pbench_prepare_status {
	PBENCH_PREPARE_DONE = 0,	/* done (what says what exactly) */
	PBENCH_PREPARE_NOT_PERMITTED,	/* refused: privilege or a limit (error says which) */
	PBENCH_PREPARE_NOT_AVAILABLE,	/* this kernel/machine/build cannot do it */
	PBENCH_PREPARE_SKIPPED,		/* not asked for, or left as is (what says why) */
	PBENCH_PREPARE_FAILED,		/* tried and failed for another reason (error says why) */
};

/* The outcome of one step. */
struct pbench_prepared_step {
	size_t size;
	int step;			/* enum pbench_prepare_step */
	int status;			/* enum pbench_prepare_status */
	int error;			/* -errno of the refused call (-EPERM, -ENOMEM...); 0 if done */
	const char *what;		/* done: what was done; otherwise why not, and the fix
					 * (never NULL; owned by the prepared state, base.h) */
};

enum pbench_priority_mode {
	/* SCHED_FIFO where nothing takes time from a FIFO task. Where RT throttling or the
	 * fair server can (sched_rt_runtime_us != -1, or kernel >= 6.12), time runs of the
	 * warm-up work under both on the chosen CPU (about 1.1 s each) and keep FIFO only when
	 * its runs spread less than half as much as nice's (kmod-free-docs/prepared-runs.md
	 * says why). Without permission for SCHED_FIFO: the lowest nice allowed. */
	PBENCH_PRIORITY_AUTO = 0,
	PBENCH_PRIORITY_NONE,		/* leave the policy and nice value as they are */
	PBENCH_PRIORITY_NICE,		/* nice -20, or the lowest RLIMIT_NICE allows */
	PBENCH_PRIORITY_FIFO,		/* SCHED_FIFO at fifo_priority, or the highest RLIMIT_RTPRIO
					 * allows below it; not permitted: left as is (no nice) */
};

enum pbench_prepare_flags {
	/* Restore on every signal that asks to stop or would end the process: SIGINT, SIGTERM,
	 * SIGHUP, SIGQUIT, and while they have their default action SIGUSR1, SIGUSR2, SIGALRM,
	 * SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGIO, SIGPWR, SIGSTKFLT, SIGRTMIN-SIGRTMAX (a
	 * handler of the caller's for those is left alone: a profiler's ticks, say); not
	 * SIGPIPE nor a fault's. Handlers (installed unless the signal is ignored)
	 * restore with raw system calls, put the previous handlers back and raise the signal
	 * again, so it does what it did before (end the process, or call the caller's handler).
	 * One prepared object at a time may hold them. The memory policy is restored by the
	 * handler only when the signal arrives on the prepared thread (otherwise by a later
	 * pbench_prepared_restore()). The previous handler does not get the original siginfo. */
	PBENCH_PREPARE_SIGNALS = 1 << 0,
	PBENCH_PREPARE_NO_PIN = 1 << 1,	/* skip a step (reported as skipped) */
	PBENCH_PREPARE_NO_NUMA = 1 << 2,
	PBENCH_PREPARE_NO_MLOCK = 1 << 3,
	PBENCH_PREPARE_NO_STACK = 1 << 4,
	/* AUTO: keep the probe's decision for this boot and CPU in the user's cache directory
	 * ($XDG_CACHE_HOME/pbench/priority, else ~/.cache/pbench/priority) and, later, use it
	 * instead of probing again (said in the step's outcome, with the probe's figures). */
	PBENCH_PREPARE_PRIORITY_CACHE = 1 << 5,
	PBENCH_PREPARE_REPROBE = 1 << 6,	/* probe even if a decision is kept */
	/* Warm up for the whole warmup_ms, rather than until the speed of the work stops
	 * drifting (at most warmup_ms). */
	PBENCH_PREPARE_FIXED_WARMUP = 1 << 7,
};

struct pbench_prepare_opts {
	size_t size;
	int cpu;			/* -1: pbench_cpu_pick() (the CPU `pbench check` reports);
					 * else that CPU, which must be in the thread's affinity */
	int priority;			/* enum pbench_priority_mode */
	int fifo_priority;		/* SCHED_FIFO priority, 1-99 (0: 50) */
	double warmup_ms;		/* time-based warm-up (default
					 * PBENCH_MEASURE_DEFAULT_WARMUP_MS; 0: none) */
	/* Work for the warm-up and for AUTO's probe (NULL: the built-in xor loop). Called
	 * repeatedly, on the chosen CPU. */
	pbench_fn warmup_fn;
	void *warmup_ctx;
	size_t stack_kib;		/* stack to touch (0: 256), at most what the stack has */
	unsigned flags;			/* enum pbench_prepare_flags */
};

/* Use this, not zero-initialization: cpu 0 would be CPU 0, warmup_ms 0 no warm-up. */
#ifdef __cplusplus	/* see PBENCH_MEASURE_OPTS_INIT */
#define PBENCH_PREPARE_OPTS_INIT \
	([] { struct pbench_prepare_opts pbench_o_ = {}; pbench_o_.size = sizeof(pbench_o_); \
	      pbench_o_.cpu = -1; pbench_o_.priority = PBENCH_PRIORITY_AUTO; \
	      pbench_o_.warmup_ms = PBENCH_MEASURE_DEFAULT_WARMUP_MS; return pbench_o_; }())
#else
#define PBENCH_PREPARE_OPTS_INIT \
	{ .size = sizeof(struct pbench_prepare_opts), .cpu = -1, .priority = PBENCH_PRIORITY_AUTO, \
	  .warmup_ms = PBENCH_MEASURE_DEFAULT_WARMUP_MS }
#endif

/*
 * Prepare the calling thread (opts NULL: the defaults). Takes the time of the CPU pick
 * (200 ms) when no CPU is named, of AUTO's probe (about 2.3 s, counted as warm-up) and of
 * the rest of the warm-up. Errors (nothing is changed, *out is NULL): -EINVAL (NULL out,
 * opts->size 0, a CPU not present or not in the affinity mask, cpu < -1, an unknown priority
 * mode or flag, fifo_priority outside 0-99, a negative or non-finite warmup_ms, stack_kib
 * over 1 GiB), -EBUSY (PBENCH_PREPARE_SIGNALS while another prepared object holds the
 * handlers), -ENOMEM, the errors of pbench_cpu_pick(), -errno of reading the thread's
 * attributes. -EINTR: a handled signal arrived during the call with PBENCH_PREPARE_SIGNALS
 * and a handler of the caller's that returned; everything was restored.
 */
PBENCH_API int pbench_prepare(struct pbench_prepared **out,
			      const struct pbench_prepare_opts *opts);
/* Put back every attribute a step changed, in reverse order. Idempotent: later calls do
 * nothing and return 0. Returns 0 or the first -errno (the rest is still restored). Also
 * uninstalls the signal handlers (a handler the caller installed since is left alone). */
PBENCH_API int pbench_prepared_restore(struct pbench_prepared *p);
/* Restore if not done, and free. NULL is fine. */
PBENCH_API void pbench_prepared_free(struct pbench_prepared *p);

/* The CPU prepared for, and why it was chosen ("CPU 1 as asked", or pbench_cpu_pick()'s
 * reason). p NULL: -EINVAL, and NULL for the reason (pbench_strerror() says which call). */
PBENCH_API int pbench_prepared_cpu(const struct pbench_prepared *p);
PBENCH_API const char *pbench_prepared_cpu_reason(const struct pbench_prepared *p);
/*
 * How busy the prepared CPU was with other work over the 200 ms window pbench_cpu_pick()
 * read before choosing it (/proc/stat, with its SMT siblings'), 0 to 1: the least busy of
 * every candidate, so from PBENCH_CPU_BUSY every CPU this process may use was busy and the
 * prepared runs share theirs. NaN when not measured (a CPU asked for, recorded trees) or p
 * NULL.
 */
#define PBENCH_CPU_BUSY 0.5
PBENCH_API double pbench_prepared_cpu_busy(const struct pbench_prepared *p);
/* The outcome of a step (enum pbench_prepare_step), or NULL for a step number out of range
 * (or p NULL). */
PBENCH_API const struct pbench_prepared_step *pbench_prepared_step(const struct pbench_prepared *p,
								  int step);

/* The priority in force after preparing, and what AUTO measured. */
struct pbench_prepared_priority {
	size_t size;
	int mode;			/* PBENCH_PRIORITY_NONE (unchanged), _NICE or
				 * _FIFO: AUTO resolved */
	int policy;			/* SCHED_OTHER, SCHED_FIFO... as in <sched.h> */
	const char *policy_name;	/* "SCHED_OTHER", "SCHED_FIFO"... */
	int value;			/* the SCHED_FIFO/RR priority, or the nice value */
	int probed;			/* 1: AUTO timed both choices */
	double nice_spread_pct;		/* (max - min) / min of the runs at the lowest nice, in %;
					 * NaN when not timed */
	double fifo_spread_pct;		/* the same under SCHED_FIFO */
	int nice_runs, fifo_runs;	/* runs timed under each */
	double run_ms;			/* the length of one probe run (the first one) */
	/* Under SCHED_FIFO where the fair server (kernel 6.12+) or RT throttling can take the
	 * CPU back: the rest to take after each run, in % of the run (twice the server's
	 * runtime over the rest of its period: 10.5% for 50 ms per 1000 ms), so that the normal
	 * tasks waiting for the CPU get their share between runs and the server never has to
	 * preempt one. 0: no rest needed (not FIFO, or nothing can preempt it). */
	double rest_pct;
	int cached;			/* 1: AUTO's decision was the one kept for this boot (the
					 * spreads and runs are that probe's) */
	double cached_age_s;		/* how long ago that probe ran */
};

/* Fill out (out->size must be set; a smaller, older struct gets its part). -EINVAL: size 0,
 * p NULL. */
PBENCH_API int pbench_prepared_priority(const struct pbench_prepared *p,
					struct pbench_prepared_priority *out);
/*
 * The rest to take after a run of run_ns on the prepared thread (rest_pct of it, see struct
 * pbench_prepared_priority; 0 when none is needed), and taking it: pbench_prepared_rest() sleeps
 * that long (clock_nanosleep; a signal ends it early) and returns the ns slept. The prepared
 * warm-up rests the same way under FIFO. What the rests buy is measured by bench/bench_fifo_rest
 * (kmod-free-docs/prepared-runs.md).
 */
PBENCH_API double pbench_prepared_rest_ns(const struct pbench_prepared *p, double run_ns);
PBENCH_API double pbench_prepared_rest(const struct pbench_prepared *p, double run_ns);
/* Milliseconds of warm-up done (AUTO's probe included), 0 when none was asked; NaN for p
 * NULL. */
PBENCH_API double pbench_prepared_warmup_ms(const struct pbench_prepared *p);
/* The signal (SIGINT, SIGTERM, SIGHUP...) whose handler restored the state, 0 if none did;
 * -EINVAL for p NULL. */
PBENCH_API int pbench_prepared_signal(const struct pbench_prepared *p);

/* "pin", "numa", "mlock", "stack", "priority", "warmup". */
PBENCH_API const char *pbench_prepare_step_name(int step);
/* "done", "not permitted", "not available", "skipped", "failed". */
PBENCH_API const char *pbench_prepare_status_name(int status);
/* "auto", "none", "nice", "fifo". */
PBENCH_API const char *pbench_priority_mode_name(int mode);
/* "SCHED_OTHER", "SCHED_FIFO", "SCHED_RR", "SCHED_BATCH", "SCHED_IDLE", "SCHED_DEADLINE",
 * "SCHED_EXT" for a policy of sched_getscheduler(), "?" for any other. */
PBENCH_API const char *pbench_sched_policy_name(int policy);

#ifdef __cplusplus
}
#endif
#endif /* PBENCH_H_PREPARE */
