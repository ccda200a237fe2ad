/* SPDX-License-Identifier: MIT */
/* pbench/child.h - part of pbench.h (include <pbench.h>; the parts come in data-flow order,
 * each including the one before it). */
#ifndef PBENCH_H_CHILD
#define PBENCH_H_CHILD

#include "counters.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Child commands (child.c): count a command from its exec to its exit, as perf stat does
 */
struct pbench_child;

/* Where a command's stdout and stderr go (pbench_child_opts.quiet, pbench_runs_opts.quiet). */
enum pbench_child_output {
	PBENCH_CHILD_OUTPUT_PASS = 0,	/* pbench's own stdout and stderr */
	PBENCH_CHILD_OUTPUT_NULL = 1,	/* both to /dev/null */
	PBENCH_CHILD_OUTPUT_STDERR = 2,	/* both to pbench's stderr: its stdout carries a report */
};

struct pbench_child_opts {
	size_t size;
	const char *events;		/* comma-separated, may be NULL or "" for time only */
	unsigned counter_flags;		/* added to INHERIT|ENABLE_ON_EXEC */
	int quiet;			/* where the command's output goes: enum
					 * pbench_child_output (1: /dev/null) */
	double kill_grace_s;		/* from SIGTERM to SIGKILL when ending the command and
					 * what it left running; 0: 1 s */
	/* ncpus > 0: the command runs on these CPUs (its affinity, set between fork and exec;
	 * exec fails with the error when it cannot be); 0: it inherits the caller's.
	 * PBENCH_CHILD_PIN's cpu takes the place of a list. */
	const int *cpus;
	int ncpus;
	unsigned flags;			/* enum pbench_child_flags */
	int cpu;			/* PBENCH_CHILD_PIN: the CPU the command runs on */
	int stdout_fd;			/* > 0: the command's stdout goes to this descriptor
					 * (its stderr stays, or goes to /dev/null with quiet) */
	/*
	 * A set the caller holds open on its own thread (pid 0, cpu -1) with
	 * PBENCH_COUNTERS_INHERIT | PBENCH_COUNTERS_ENABLE_ON_EXEC, never enabled: the command
	 * inherits it and is counted in it from its exec; pbench_child_count() gives what it
	 * added during the run. No set is opened per run (events is ignored), and the command is
	 * started as posix_spawn does (vfork: no copy of the caller's page tables). While such a
	 * command runs no other may be started (-EBUSY): it would inherit the set too.
	 */
	struct pbench_counters *counters;
	/* Not NULL: the command's environment (NULL-terminated "NAME=value" strings) instead of
	 * the caller's. */
	char *const *envp;
	/* Not NULL: the file to exec, as pbench_command_resolve() found argv[0] (a caller that
	 * runs one command many times resolves it once: a PATH search is a stat and an access
	 * per directory); NULL: resolved at each start. */
	const char *path;
};

/* Time only, the caller's output, CPUs and environment: every field's default is its 0. */
#ifdef __cplusplus	/* see PBENCH_MEASURE_OPTS_INIT */
#define PBENCH_CHILD_OPTS_INIT \
	([] { struct pbench_child_opts pbench_o_ = {}; pbench_o_.size = sizeof(pbench_o_); \
	      return pbench_o_; }())
#else
#define PBENCH_CHILD_OPTS_INIT { .size = sizeof(struct pbench_child_opts) }
#endif

enum pbench_child_flags {
	/* The command, from its exec, runs on opts->cpu only (sched_setaffinity in the child:
	 * an error there is returned as exec's would be, -EINVAL for a CPU it may not use). */
	PBENCH_CHILD_PIN = 1 << 0,
};

struct pbench_child_result {
	size_t size;
	int exited;			/* 1: exited normally, exit_status valid */
	int exit_status;
	int signaled;			/* 1: killed by term_signal */
	int term_signal;
	uint64_t ticks;			/* from releasing the child into exec to reaping it */
	uint64_t ns;
	/* The harness's own cost, measured for this run: */
	uint64_t setup_ticks;		/* fork, pipes and opening the counters (with
					 * opts.counters: vfork, the child's set-up and the read
					 * of the set): before the timed span, not in ticks */
	uint64_t exec_ticks;		/* from the release to exec's point of no return (the
					 * close-on-exec pipe seen closed, or vfork's return to
					 * pbench with opts.counters): part of ticks; 0 when
					 * not known, as when pbench is pinned to one CPU (a
					 * prepared run) and sees exec only once the command
					 * blocks or ends */
	int left_behind;		/* processes the command left running when it ended
					 * (daemons, background jobs), ended by pbench */
	/* The command's own resource use (wait4), with the descendants it waited for: */
	uint64_t ctx_voluntary, ctx_involuntary;
	uint64_t minor_faults, major_faults;
	/* The largest resident set of the command and the descendants it waited for, KiB
	 * (ru_maxrss). The kernel carries the resident set pbench had at the start across the
	 * command's exec: a figure not above that is a bound, not the command's own. */
	uint64_t max_rss_kib;
	/* CPU time in user space and in the kernel of the command and the descendants it
	 * waited for (wait4's ru_utime and ru_stime, in the kernel's tick or finer), ns. */
	uint64_t user_ns, system_ns;
};

/*
 * Find cmd as execvp would (a name with a '/' as given, else along PATH); path gets the file.
 * Errors: -PBENCH_ENOT_FOUND, -PBENCH_ENOT_EXEC (found but not executable, or a directory),
 * -PBENCH_EBAD_INTERP (a script whose #! interpreter is missing or not executable).
 * pbench_child_start does this itself; call it to refuse a bad command before anything else.
 */
PBENCH_API int pbench_command_resolve(const char *cmd, char *path, size_t len);
/*
 * A command line as argv (NULL-terminated, for pbench_runs_opts.argv and the like): its words
 * as a POSIX shell splits them, quotes and backslashes honoured, nothing expanded and no shell
 * run ("gzip -c 'my file'" is gzip, -c, my file). Free it with pbench_command_free(). Errors:
 * -EINVAL (a quote not closed, or line NULL), -ENODATA (no word), -ENOMEM.
 */
PBENCH_API int pbench_command_split(char ***argv, const char *line);
/* The command line run by the shell instead: argv is /bin/sh, -c, line (pbench compare --shell).
 * Free it with pbench_command_free(). Errors: -EINVAL (argv or line NULL), -ENOMEM. */
PBENCH_API int pbench_command_shell(char ***argv, const char *line);
PBENCH_API void pbench_command_free(char **argv);
/* The #! interpreter of the file at path into interp: 1 when it has one, 0 when it does not
 * start with #!, -errno when it cannot be read. */
PBENCH_API int pbench_command_interp(const char *path, char *interp, size_t len);
/*
 * Why cmd could not start, a sentence for people, from err (as pbench_command_resolve(),
 * pbench_child_start() or a set of runs returned it): "command 'x' not found", "command 'x'
 * cannot be executed (not an executable file, or no permission)", "command 'x' cannot run:
 * its interpreter '/usr/bin/foo' (its #! line) is not found or not executable" (the #! line
 * read again), or "... its interpreter or dynamic loader is missing". Returns 1 when err is
 * one of these (the command, as given, is the caller's to fix; buf holds the sentence, cut to
 * len), 0 when err is another error (buf untouched), -EINVAL (cmd or buf NULL, len 0).
 */
PBENCH_API int pbench_command_explain(const char *cmd, int err, char *buf, size_t len);
/*
 * Resolve argv[0] in PATH, fork, open the counters on the child (enable_on_exec, inherit),
 * then let it exec; with opts.counters, vfork and exec at once (the set is inherited). The
 * command leads a process group of its own, and pbench is a child subreaper
 * (PR_SET_CHILD_SUBREAPER) until the run ends, so that nothing the command starts outlives
 * it: see pbench_child_wait(). Only the command's processes are ended: a child of the
 * caller's process in the caller's own process group (what fork(), system(), popen() and
 * posix_spawn() make, on any thread, during the run too), or one it had before the run, is
 * never signalled or reaped; an orphan handed over meanwhile that is in neither is taken for
 * the command's. The command dies (SIGKILL, PR_SET_PDEATHSIG) if the thread that started it
 * dies first: pbench killed, or a caller's thread that ends while its command runs. Until the
 * last command ends, the calling thread waits off the commands' CPUs when another CPU is
 * allowed (a prepared run pins both to one: a command that raises itself above the caller's
 * priority there would keep it from running), and under a real-time policy (a prepared run's
 * SCHED_FIFO, which the command inherits) at the policy's highest priority, so that a timeout
 * or a signal's handler runs on time; both are put back after. Errors before anything
 * runs: -EINVAL (out, argv or argv[0] NULL, opts of a bad size), -PBENCH_ENOT_FOUND,
 * -PBENCH_ENOT_EXEC, -PBENCH_EBAD_INTERP, name errors of pbench_counters_open, -errno of
 * fork/pipe. If exec itself fails the child is reaped and the exec errno is returned negated
 * (ENOENT for a file that exists: -PBENCH_EBAD_INTERP).
 */
PBENCH_API int pbench_child_start(struct pbench_child **out, char *const argv[],
				  const struct pbench_child_opts *opts);
/*
 * Wait for the child to end and fill res; the counters stay readable until free. Then,
 * outside the timed span, whatever it left running (its process group, processes it started
 * that were orphaned, daemons included, and every process below those, in any group) gets
 * SIGTERM, SIGKILL after kill_grace_s (each thread of them that is real time taken back to
 * SCHED_OTHER first, so that none starves another), and is reaped: res->left_behind says
 * how many. A command that reads the terminal is given it
 * (as a shell's foreground job) and the terminal is taken back after.
 * -EINTR: a signal handler ran first; the child still runs: call again, or
 * pbench_child_free() to end it.
 */
PBENCH_API int pbench_child_wait(struct pbench_child *ch, struct pbench_child_result *res);
/* The same, giving up after timeout_s from the release (0: no limit) with -ETIMEDOUT; the
 * child still runs then (pbench_child_free() ends it), or ended only past timeout_s (the
 * caller's thread could not run before). Polls a pidfd, so no signal is used. */
PBENCH_API int pbench_child_wait_timeout(struct pbench_child *ch, double timeout_s,
					 struct pbench_child_result *res);
/*
 * Wait until one of n children (at most 8; NULL entries and those already waited for are
 * skipped) has ended, without reaping it: its index, after which pbench_child_wait() on it
 * returns at once. -ETIMEDOUT after timeout_s (0: no limit), -EINTR when a signal handler ran
 * (the children still run), -ECHILD when none is left to wait for, -EINVAL. For commands run
 * side by side (pbench compare --duet): each is reaped as soon as it ends, so neither's time
 * includes the other's. Commands started while others run leave those and their process
 * groups alone when their own leftovers are ended.
 */
PBENCH_API int pbench_child_wait_any(struct pbench_child *const *ch, int n, double timeout_s);
/* The child's counter set (NULL if no events were asked for, or with opts.counters). */
PBENCH_API struct pbench_counters *pbench_child_counters(struct pbench_child *ch);
/*
 * The run's counts after pbench_child_wait(), whichever way it was counted: its own set (read
 * once at the wait), or what it added to the caller's set (opts.counters; each event's time
 * enabled and running are the command's own then too). pbench_child_nr_counts() is the number
 * of events, 0 when the command was not counted, or a negative error (-EAGAIN before the
 * wait, the error of the read); pbench_child_count() fills *out with event i of them, as
 * pbench_counters_get() does (any out->size, see base.h): 0 or a negative error.
 */
PBENCH_API int pbench_child_nr_counts(const struct pbench_child *ch);
PBENCH_API int pbench_child_count(const struct pbench_child *ch, int i, struct pbench_count *out);
/* End the child if still running, with everything it started (SIGTERM to its group and the
 * processes handed to pbench, SIGKILL after the grace period), reap them, close everything. */
PBENCH_API void pbench_child_free(struct pbench_child *ch);

#ifdef __cplusplus
}
#endif
#endif /* PBENCH_H_CHILD */
