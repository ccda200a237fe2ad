/* SPDX-License-Identifier: MIT */
/*
 * The insides of the process module, for its own files only: a command under way (struct
 * pbench_child), what it runs with, and the calls its files make to each other. Other modules
 * use process/process.h and the public pbench_child_*() calls.
 */
#ifndef PBENCH_PROCESS_PROCESS_INNER_H
#define PBENCH_PROCESS_PROCESS_INNER_H

#include <sched.h>
#include <stdint.h>
#include <sys/types.h>

#include "pbench.h"

/* A set of pids that grows as needed (a command may leave thousands of processes). A pid
 * reaped stays in the set, negated, so that it is counted once and never waited for again
 * (its number may be reused by then). */
struct pb_pids {
	pid_t *v;
	int n, cap;
};

struct pbench_child {
	pid_t pid;		/* 0 once reaped */
	pid_t pgid;		/* the command's process group (its pid) */
	struct pbench_counters *counters;
	struct pbench_counters *held;	/* the caller's inherited set (opts.counters) */
	int held_state;			/* 1: its start snapshot taken; 2: the run's delta is in */
	int held_err;			/* the stop snapshot's error */
	int read_err;			/* the error of the read of its own set at the wait */
	uint64_t t_fork, t0, t_exec;	/* before fork, the release, exec seen done */
	double grace_s;
	int was_subreaper;	/* PR_GET_CHILD_SUBREAPER before the run, put back after */
	int subreaper;		/* pbench made itself subreaper for this run */
	int tty_handed;		/* the terminal was given to the command's group */
	int left;		/* processes the run left behind, ended by pbench */
	int last_cpu;		/* the CPU its process ended on, read before the reaping; -1 */
	int one_cpu;		/* pbench was on one CPU when it started (exec_ticks()) */
	void (*on_end)(void *);	/* pb_child_on_end(): at the reaping, before the sweep */
	void *on_end_arg;
	struct pb_pids kept;	/* children the caller had before the run */
};

/* child_start.c: what the child does between fork and exec, decided by the parent beforehand. */
struct pb_exec_plan {
	int quiet;
	int stdout_fd;		/* > 0: stdout goes there */
	int stderr_fd;		/* > 0: stderr goes there (pb_child_start_stderr()) */
	int pin;		/* sched_setaffinity to cpus */
	cpu_set_t cpus;
	char *const *envp;	/* NULL: pbench's environment */
	pid_t parent;		/* pbench: the command dies with the thread that forked it */
	int rt_policy;		/* >= 0: the real-time priority the command takes (watcher's) */
	struct sched_param rt_param;
};

/* child_watcher.c: the commands under way, at most PB_CHILD_MAX_LIVE at once (more are not
 * kept apart by the sweep): ch added and removed; whether pid is another one than ch, or in
 * its process group; how many there are but except (NULL: all); whether one is counted in the
 * caller's inherited set (another started now would inherit it too). */
#define PB_CHILD_MAX_LIVE 8
void pb_child_live_add(struct pbench_child *ch);
void pb_child_live_remove(const struct pbench_child *ch);
int pb_child_live_other(const struct pbench_child *ch, pid_t pid);
int pb_child_live_nr(const struct pbench_child *except);
int pb_child_live_held(void);
/* child_watcher.c: pbench's thread while commands run. Raised above the command the plan
 * starts (plan's rt_policy and rt_param: the priority the command takes back before exec);
 * back on its own CPUs before a command starts; off the commands' CPUs after one started
 * (unless the caller sleeps until its end and pb_watcher_above() says a wake-up there runs at
 * once); its priority and CPUs put back when the last command ended. */
void pb_watcher_raise(struct pb_exec_plan *plan);
void pb_watcher_start(void);
void pb_watcher_move(const struct pb_exec_plan *plan);
int pb_watcher_above(void);
void pb_watcher_lower(void);

/* child_end.c: pid reaped (status may be NULL), through EINTR; the end of everything ch's run
 * left behind, the command too while it runs (its group, what was handed to pbench as
 * subreaper, what is below those), and ch taken off the commands under way; before a start,
 * pbench made subreaper for the run and the caller's own children noted, to be left alone. */
void pb_child_reap(pid_t pid, int *status);
void pb_child_end_leftovers(struct pbench_child *ch);
void pb_child_watch_descendants(struct pbench_child *ch);

/* child_start.c: the run's end in the caller's inherited set (opts.counters): what the
 * command added since the start snapshot, taken once. */
void pb_child_held_stop(struct pbench_child *ch);

#endif
