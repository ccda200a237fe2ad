/* SPDX-License-Identifier: MIT */
/* pbench/counters.h - part of pbench.h (include <pbench.h>; the parts come in data-flow order,
 * each including the one before it). */
#ifndef PBENCH_H_COUNTERS
#define PBENCH_H_COUNTERS

#include "events.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Counters (counters.c, mmap.c)
 *
 * A counter set is a list of events opened with perf_event_open on one target, in as few
 * groups as the kernel allows (each group read with one read()). Events that cannot be opened
 * stay in the set with their status and reason, so the caller can report them.
 */
struct pbench_counters;

enum pbench_counters_flags {
	PBENCH_COUNTERS_INHERIT = 1 << 0,		/* count the target's future children too */
	PBENCH_COUNTERS_ENABLE_ON_EXEC = 1 << 1,	/* count from the target's next exec */
	PBENCH_COUNTERS_USER_ONLY = 1 << 2,		/* exclude kernel and hypervisor */
	PBENCH_COUNTERS_START_ENABLED = 1 << 3,		/* enabled from open (default: disabled) */
	PBENCH_COUNTERS_NO_RDPMC = 1 << 4,		/* never use the user-space read path */
	PBENCH_COUNTERS_QUIET = 1 << 5,			/* no diagnostic (pbench_log) for an event
							 * that does not open: the caller reports
							 * its status itself */
	PBENCH_COUNTERS_CGROUP = 1 << 6,		/* opts->pid is a cgroup v2 directory's
							 * open fd and opts->cpu a CPU: the
							 * cgroup's tasks on that CPU */
};

struct pbench_counters_opts {
	size_t size;
	pid_t pid;			/* 0: the calling thread; >0: that thread/process */
	int cpu;			/* -1: any CPU */
	unsigned flags;			/* enum pbench_counters_flags */
};

/* The calling thread on any CPU, disabled until pbench_counters_enable() (what opts NULL
 * means): a zeroed struct would say CPU 0. */
#ifdef __cplusplus	/* see PBENCH_MEASURE_OPTS_INIT */
#define PBENCH_COUNTERS_OPTS_INIT \
	([] { struct pbench_counters_opts pbench_o_ = {}; pbench_o_.size = sizeof(pbench_o_); \
	      pbench_o_.cpu = -1; return pbench_o_; }())
#else
#define PBENCH_COUNTERS_OPTS_INIT { .size = sizeof(struct pbench_counters_opts), .cpu = -1 }
#endif

/* The value of one event, as read: handed out one at a time (pbench_counters_get(),
 * pbench_counters_delta(), pbench_child_count()), so that it can grow. */
struct pbench_count {
	size_t size;
	const char *name;		/* the name it was asked by; valid until the set is freed */
	int status;			/* enum pbench_event_status */
	int error;			/* -errno when it could not be opened, else 0 */
	const char *reason;		/* why it was not counted; "" when status is OK/MULTIPLEXED;
					 * the library's string, valid for the life of the process */
	uint64_t value;			/* raw count */
	uint64_t time_enabled;		/* ns the event was enabled */
	uint64_t time_running;		/* ns it was on a counter */
	double scaled;			/* value * enabled / running; equals value when not scaled */
	int is_scaled;			/* 1 when scaled differs from value (multiplexing) */
	int user_only;			/* 1: the kernel was excluded to get past
					 * perf_event_paranoid; the value is user space only */
};

/*
 * Open the comma-separated events for opts->pid (opts may be NULL: calling thread, any CPU,
 * disabled until pbench_counters_enable()). Name errors fail the whole call: -PBENCH_EUNKNOWN_EVENT
 * (pbench_strerror() of it gives the name and a suggestion), -PBENCH_EBAD_EVENT_LIST,
 * -PBENCH_EDUP_EVENT. Events the machine cannot count do not fail the call; if none at all can
 * be opened, the call fails with -PBENCH_ENO_EVENTS and *out is still set so the caller can
 * report each event's reason (free it with pbench_counters_free()). -ESRCH: no such pid;
 * -EINVAL: out NULL, opts' size.
 */
PBENCH_API int pbench_counters_open(struct pbench_counters **out, const char *events,
				    const struct pbench_counters_opts *opts);
PBENCH_API void pbench_counters_free(struct pbench_counters *c);

/* Number of events in the set (opened or not), and how many kernel groups were opened. */
PBENCH_API int pbench_counters_nr(const struct pbench_counters *c);
PBENCH_API int pbench_counters_nr_groups(const struct pbench_counters *c);
/* Name of event i, and its status at open time (OK, NOT_SUPPORTED or NO_PERMISSION). */
PBENCH_API const char *pbench_counters_name(const struct pbench_counters *c, int i);
PBENCH_API int pbench_counters_open_status(const struct pbench_counters *c, int i);
/* 1 if event i is read in user space by start/stop (x86 rdpmc; arm64 PMEVCNTR<n>_EL0 or
 * PMCCNTR_EL0 through the perf page), 0 if by read(). After a start or stop it says what that
 * snapshot did; before, whether the kernel offers the user-space read at all. */
PBENCH_API int pbench_counters_uses_rdpmc(const struct pbench_counters *c, int i);
/* Why event i is read with read() rather than in user space ("" when it is read in user
 * space), e.g. "kernel.perf_user_access is 0 (...)" or "a software event: ...". The string is
 * valid until the set is freed or its next start/stop. */
PBENCH_API const char *pbench_counters_rdpmc_reason(const struct pbench_counters *c, int i);

/* Enable, disable and zero all groups (one ioctl per group). */
PBENCH_API int pbench_counters_enable(struct pbench_counters *c);
PBENCH_API int pbench_counters_disable(struct pbench_counters *c);
PBENCH_API int pbench_counters_reset(struct pbench_counters *c);

/*
 * Read the totals since enable (one read() per group) and keep them in the set, for
 * pbench_counters_get(). Returns the number of events in the set or a negative error.
 */
PBENCH_API int pbench_counters_read(struct pbench_counters *c);
/*
 * Event i (0 to pbench_counters_nr() - 1) of the last pbench_counters_read() into *out, as
 * every versioned struct is filled (see base.h: out->size set by the caller, any size). An
 * event that was not opened gets its status and reason and a zero value. 0, or -EINVAL (c or
 * out, or i out of range), -EAGAIN before the first read.
 */
PBENCH_API int pbench_counters_get(const struct pbench_counters *c, int i,
				   struct pbench_count *out);
/*
 * Counted region on enabled counters: start() and stop() take a snapshot each (rdpmc when every
 * opened event allows it: no syscall and no allocation; otherwise one read() per group), and
 * pbench_counters_delta() gives event i's stop minus start, with the same fields and errors as
 * pbench_counters_get() (-PBENCH_EBUSY_REGION before a stop).
 */
PBENCH_API int pbench_counters_start(struct pbench_counters *c);
PBENCH_API int pbench_counters_stop(struct pbench_counters *c);
PBENCH_API int pbench_counters_delta(const struct pbench_counters *c, int i,
				     struct pbench_count *out);

/* Scale one count for multiplexing (fills scaled, is_scaled and status from the times); a
 * struct too old to have is_scaled is left as it is. */
PBENCH_API void pbench_count_scale(struct pbench_count *count);


/* One event over a set of runs (pbench_runs_event_summary(): the runs ended at the timeout
 * left out) or over a function's samples (pbench_result_event_summary(): its count per call), on
 * the scaled values: an event that shared a counter is an estimate (multiplexed > 0, running_pct
 * its mean share). An event not counted in some runs is summarized on the others and says
 * how many counted; never a 0 for "not counted". */
struct pbench_event_summary {
	size_t size;
	const char *name;		/* as asked (valid until r is freed) */
	const char *unit;		/* "ns" for task-clock and cpu-clock, else "" (a count) */
	int status;			/* enum pbench_event_status: OK (every run counted, none
					 * scaled), MULTIPLEXED (some scaled), NOT_COUNTED (no run
					 * counted it), or why it could not be opened */
	const char *reason;		/* why not counted or opened ("" when counted) */
	int runs;			/* runs in the summary */
	int counted;			/* of them, those in which it counted */
	int multiplexed;		/* of them, those scaled (the value an estimate) */
	double running_pct;		/* mean share of the enabled time it was on a counter */
	int user_only;			/* the kernel's share left out (perf_event_paranoid) */
	/* over the counted runs (NaN with none; sem_pct, stddev and cv_pct NaN below 2):
	 * sem_pct is the standard error of the mean in % of the mean, perf stat's "+- x%" */
	double mean, sem_pct, median, min, max, stddev, cv_pct;
};

/* ---------------------------------------------------------------------------------------------
 * Derived metrics (metrics.c): perf stat's "# 1.23 insn per cycle", each made from one run's
 * counts of events counted in one group (the same time window), then summarized over the
 * runs (pbench_runs_metric()). kmod-free-docs/metrics.md has every one.
 */
struct pbench_metric_info {
	size_t size;
	/* The strings: never NULL, the library's, valid for the life of the process. */
	const char *name;		/* "ipc": what -M and pbench_runs_opts.metrics take */
	const char *group;		/* "default", "cycles", "branches", "cache", "stalls",
					 * "topdown", "per-iteration": -M takes a group too */
	const char *label;		/* perf stat's words after the value: "insn per cycle" */
	const char *formula;		/* "instructions / cycles" */
	const char *unit;		/* "", "%", "GHz", "CPUs", "/sec", "MPKI", "slots" */
	const char *trust;		/* one line: when to trust it */
	const char *events;		/* the events it opens on this CPU, comma-separated: the
					 * generic perf events, or the libpfm4 events of this CPU's
					 * PMU; "" when the PMU has none for it */
	const char *reason;		/* why it cannot be made here, or NULL: no events for it,
					 * or (events named) an Arm PMU that does not implement
					 * one of them or has no slots a cycle for topdown */
	int available;			/* pbench_metric_probe(): 1 its events open here, 0 not;
					 * -1 from pbench_metric_get() (not tried) */
	int higher_is_better;		/* 1: a higher value is better (ipc, ghz,
					 * topdown-retiring); 0: a lower one (the time, counts,
					 * misses, stalls): the side a gate fails on */
};
/* The metrics pbench knows (their number), and the i-th one as this CPU makes it (which events;
 * nothing opened). 0, -ENOENT past the last, -EINVAL (out or its size). */
PBENCH_API int pbench_metric_nr(void);
PBENCH_API int pbench_metric_get(int i, struct pbench_metric_info *out);
/* The same, with available and reason from opening its events on the calling thread (closed
 * again at once). */
PBENCH_API int pbench_metric_probe(int i, struct pbench_metric_info *out);
/* pbench list --metrics: a line per metric, whether it can be made here and why not, its
 * formula and events. Errors: -EINVAL, -EIO. */
PBENCH_API int pbench_metric_list_write_text(FILE *f);

/* ---------------------------------------------------------------------------------------------
 * Targets (targets.c): counting what the caller did not start, as perf stat's -p, -t, -a, -C
 * and -G do. A target is rows of counter sets: one per thread of the processes (their children
 * from the open on inherited), per thread, per CPU (everything that runs on it), or per online
 * CPU for a cgroup v2's tasks. Nothing is stopped or traced: the counters are opened on the
 * running tasks, disabled until pbench_target_enable().
 */
struct pbench_target;

enum pbench_target_kind {
	PBENCH_TARGET_PIDS = 0,		/* list: "PID[,PID...]", every thread of each */
	PBENCH_TARGET_TIDS = 1,		/* list: "TID[,TID...]", those threads only */
	PBENCH_TARGET_CPUS = 2,		/* list: a cpulist ("0-3,6"), NULL or "": every online
					 * CPU (the whole machine) */
	PBENCH_TARGET_CGROUP = 3,	/* list: a cgroup v2 directory, under /sys/fs/cgroup or
					 * absolute; counted on every online CPU */
};

struct pbench_target_opts {
	size_t size;
	int kind;			/* enum pbench_target_kind */
	const char *list;		/* what kind names (above) */
	unsigned counter_flags;		/* enum pbench_counters_flags added to each set's
					 * (PBENCH_COUNTERS_USER_ONLY, ...) */
};
#ifdef __cplusplus
#define PBENCH_TARGET_OPTS_INIT \
	([] { struct pbench_target_opts pbench_o_ = {}; pbench_o_.size = sizeof(pbench_o_); \
	      return pbench_o_; }())
#else
#define PBENCH_TARGET_OPTS_INIT { .size = sizeof(struct pbench_target_opts) }
#endif

/* One row of a target: a thread (cpu -1) or a CPU (pid and tid -1). */
struct pbench_target_row {
	size_t size;
	int cpu;			/* the CPU, or -1 for a thread's row */
	pid_t pid;			/* the process given, or -1 */
	pid_t tid;			/* the thread, or -1 */
	const char *comm;		/* the thread's name at the open ("" for a CPU); valid
					 * for the life of the process */
	int core, socket, node;		/* the CPU's core_id, physical_package_id and NUMA node
					 * (sysfs); -1 unknown or a thread's row */
	int die;			/* the CPU's die_id (sysfs), -1 as above */
};

/*
 * Whether opts' target can be counted, before anything is opened: 0, or an error whose
 * pbench_strerror() is one sentence naming the setting to change: -ESRCH (no such process or
 * thread, or a zombie), -EACCES/-EPERM (another user's process; perf_event_paranoid above 0
 * for CPUs or a cgroup without CAP_PERFMON), -EINVAL (a list that does not parse, a CPU not
 * online, opts' size or kind), -ENOENT (no such cgroup directory).
 */
PBENCH_API int pbench_target_check(const struct pbench_target_opts *opts);
/* Check (above), then open the comma-separated events (as pbench_counters_open()) on each row
 * of the target, disabled. Events a row cannot count stay with their status and reason. */
PBENCH_API int pbench_target_new(struct pbench_target **out, const char *events,
				  const struct pbench_target_opts *opts);
PBENCH_API void pbench_target_free(struct pbench_target *t);
/* Enable, disable, zero and read every row's set (pbench_counters_enable() and the rest); a
 * thread that ended keeps what it counted. 0 or the first error. One window a target: on the
 * Linux 6.18 of the development VM a group's members (context-switches under cpu-clock) stop
 * counting once their group was disabled and enabled again (raw perf_event_open calls do the
 * same), so a second window opens a new target, as perf stat -r and pbench stat do. */
PBENCH_API int pbench_target_enable(struct pbench_target *t);
PBENCH_API int pbench_target_disable(struct pbench_target *t);
PBENCH_API int pbench_target_reset(struct pbench_target *t);
PBENCH_API int pbench_target_read(struct pbench_target *t);
/* The rows, the events in each (the same list in every row), row r's description, and event i
 * of row r as the last pbench_target_read() left it (pbench_counters_get()'s fields). */
PBENCH_API int pbench_target_nr_rows(const struct pbench_target *t);
PBENCH_API int pbench_target_nr_events(const struct pbench_target *t);
/* Event i's name as asked (NULL out of range); valid until t is freed. */
PBENCH_API const char *pbench_target_name(const struct pbench_target *t, int i);
PBENCH_API int pbench_target_row(const struct pbench_target *t, int r,
				 struct pbench_target_row *out);
PBENCH_API int pbench_target_get(const struct pbench_target *t, int r, int i,
				 struct pbench_count *out);
/* How many of the processes or threads given still run (not ended, not a zombie); 1 for CPUs
 * and a cgroup. */
PBENCH_API int pbench_target_alive(const struct pbench_target *t);

#ifdef __cplusplus
}
#endif
#endif /* PBENCH_H_COUNTERS */
