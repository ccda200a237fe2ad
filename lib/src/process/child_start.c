/* SPDX-License-Identifier: MIT */
/*
 * Counting a child command from its exec, with the handshake perf stat uses: fork, let the
 * child block on a pipe, open the counters on its pid with enable_on_exec and inherit, then
 * release it into exec. A second close-on-exec pipe carries exec's errno back, so a command
 * that cannot run is told apart from one that ran and failed.
 * Without events to open on its pid (none asked, or counted in the caller's set) and no
 * caller's hook to run there (pb_child_start_hooked(): the profile's sampling events) it starts
 * with vfork, as posix_spawn does.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "base/base.h"
#include "process/process.h"
#include "process/process_inner.h"

#define DEFAULT_GRACE_S 1.0	/* from SIGTERM to SIGKILL */

/* In the child before exec: its parent's priority (not the watcher's), and death with the
 * thread that forked it, should pbench be killed (SIGKILL can be caught by nothing). A
 * parent already gone before the prctl: end now. */
static int child_setup(const struct pb_exec_plan *plan)
{
	if (plan->rt_policy >= 0 && sched_setscheduler(0, plan->rt_policy, &plan->rt_param) < 0)
		return -1;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != plan->parent) {
		errno = ESRCH;
		return -1;
	}
	return 0;
}

static int do_exec(const char *path, char *const argv[], const struct pb_exec_plan *plan)
{
	extern char **environ;

	return execve(path, argv, plan->envp ? plan->envp : environ);
}

/* Standard output and error where the plan says; in the child, before exec. */
static void redirect_output(const struct pb_exec_plan *plan)
{
	if (plan->quiet == PBENCH_CHILD_OUTPUT_STDERR) {
		dup2(2, 1);
	} else if (plan->quiet) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
			close(null);
		}
	}
	if (plan->stdout_fd > 0)
		dup2(plan->stdout_fd, 1);
	if (plan->stderr_fd > 0)
		dup2(plan->stderr_fd, 2);
}

/* The child, between fork and exec: only async-signal-safe calls. It waits on go for the
 * parent to open its counters, then execs; if exec (or pinning) fails, its errno goes up ex. */
static __attribute__((noreturn)) void child_exec(const char *path, char *const argv[],
						 const int go[2], const int ex[2],
						 const struct pb_exec_plan *plan)
{
	int exec_errno;
	char c;

	setpgid(0, 0);
	close(go[1]);
	close(ex[0]);
	redirect_output(plan);
	if (read(go[0], &c, 1) != 1)
		_exit(127);	/* the parent gave up before releasing us */
	if ((plan->pin && sched_setaffinity(0, sizeof(plan->cpus), &plan->cpus) < 0) ||
	    child_setup(plan) < 0)
		exec_errno = errno;
	else if (do_exec(path, argv, plan) < 0)
		exec_errno = errno;
	if (write(ex[1], &exec_errno, sizeof(exec_errno)) < 0)
		_exit(127);
	_exit(127);
}

/* What the child does before exec, decided before fork (between fork and exec only
 * async-signal-safe calls); the CPUs: a list (opts->cpus), or the one of PBENCH_CHILD_PIN,
 * else pbench's, inherited. -EINVAL for a CPU out of range. */
static int plan_exec(struct pb_exec_plan *plan, const struct pbench_child_opts *opts)
{
	memset(plan, 0, sizeof(*plan));
	plan->parent = getpid();
	plan->rt_policy = -1;	/* pb_watcher_raise() says */
	if (!opts)
		return 0;
	plan->quiet = opts->quiet;
	if (opts->stdout_fd > 0)
		plan->stdout_fd = opts->stdout_fd;
	plan->envp = opts->envp;
	CPU_ZERO(&plan->cpus);
	if (opts->ncpus > 0) {
		/* a list of CPUs (pbench stat --cpu LIST) */
		if (!opts->cpus)
			return -EINVAL;
		for (int i = 0; i < opts->ncpus; i++) {
			if (opts->cpus[i] < 0 || opts->cpus[i] >= CPU_SETSIZE)
				return -EINVAL;
			CPU_SET(opts->cpus[i], &plan->cpus);
		}
		plan->pin = 1;
	}
	if (opts->flags & PBENCH_CHILD_PIN) {
		if (opts->cpu < 0 || opts->cpu >= CPU_SETSIZE)
			return -EINVAL;
		CPU_ZERO(&plan->cpus);	/* one CPU: it takes the place of a list */
		plan->pin = 1;
		CPU_SET(opts->cpu, &plan->cpus);
	}
	return 0;
}

/* exec's (or the child's set-up's) errno as pbench's error. */
static int exec_error(int exec_errno, const char *path)
{
	/* ENOENT for a file that is there: its interpreter or loader is missing. */
	if (exec_errno == ENOENT)
		return access(path, F_OK) == 0 ? -PBENCH_EBAD_INTERP : -PBENCH_ENOT_FOUND;
	return exec_errno == EACCES || exec_errno == ENOEXEC ? -PBENCH_ENOT_EXEC : -exec_errno;
}

/* After the release: EOF on ex means exec succeeded and closed the pipe (its time is noted),
 * an int means exec failed with that errno, returned as pbench's error. ex is closed. */
static int exec_seen(struct pbench_child *ch, int ex, const char *path)
{
	int exec_errno;
	ssize_t n;

	do {
		n = read(ex, &exec_errno, sizeof(exec_errno));
	} while (n < 0 && errno == EINTR);
	ch->t_exec = n == 0 ? pbench_ticks() : 0;
	close(ex);
	if (n != (ssize_t)sizeof(exec_errno))
		return 0;
	return exec_error(exec_errno, path);
}

/* The command's counters, armed to start at its exec (and follow its children); none when no
 * event was asked or none can be counted here. */
static int open_counters(struct pbench_child *ch, const struct pbench_child_opts *opts)
{
	struct pbench_counters_opts copts = { .size = sizeof(copts), .cpu = -1, .pid = ch->pid };
	int err;

	if (!opts || !opts->events || !*opts->events)
		return 0;
	copts.flags = PBENCH_COUNTERS_INHERIT | PBENCH_COUNTERS_ENABLE_ON_EXEC |
		      (opts->counter_flags & ~PBENCH_COUNTERS_START_ENABLED);
	err = pbench_counters_open(&ch->counters, opts->events, &copts);
	return err == -PBENCH_ENO_EVENTS ? 0 : err;
}

/* The run's end in the caller's set: what the command added since the start snapshot. */
void pb_child_held_stop(struct pbench_child *ch)
{
	if (ch->held_state != 1)
		return;
	ch->held_err = pbench_counters_stop(ch->held);
	ch->held_state = 2;
}

/* Every signal the caller handles back to its default, in a vfork child before exec: a
 * handler run there would run on the caller's memory. As posix_spawn does. */
static void default_handlers(void)
{
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa;

		if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &sa) < 0 ||
		    sa.sa_handler == SIG_DFL || sa.sa_handler == SIG_IGN)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sigaction(sig, &sa, NULL);
	}
}

/*
 * Start without a handshake, as posix_spawn does: vfork shares pbench's memory with the child
 * until its exec (no copy of the page tables, pbench suspended meanwhile), so nothing can be
 * opened on the child's pid before exec; it is counted in the caller's set instead, which it
 * inherits at vfork and which starts counting at its exec. The child takes the clock itself,
 * just before execve: the timed span starts there. Only calls that are system calls in the
 * child, on its own frames below this one; every signal blocked from vfork until the
 * caller's handlers are gone. Returns 0 with ch running, or -errno of vfork, set-up or exec.
 */
static int start_vfork(struct pbench_child *ch, const char *path, char *const argv[],
		       const struct pb_exec_plan *plan)
{
	volatile struct {
		uint64_t t0;	/* the child's clock just before execve */
		int err;	/* what stopped it before or at exec */
	} share = { 0, 0 };
	sigset_t all, old;
	pid_t pid;
	int err;

	if (ch->held) {
		err = pbench_counters_start(ch->held);
		if (err)
			return err;
		ch->held_state = 1;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ch->t_fork = pbench_ticks();
	pid = vfork();
	if (pid == 0) {
		setpgid(0, 0);
		redirect_output(plan);
		if ((plan->pin && sched_setaffinity(0, sizeof(plan->cpus), &plan->cpus) < 0) ||
		    child_setup(plan) < 0) {
			share.err = errno;
			_exit(127);
		}
		default_handlers();
		sigprocmask(SIG_SETMASK, &old, NULL);
		share.t0 = pbench_ticks_begin();
		do_exec(path, argv, plan);
		share.err = errno;
		_exit(127);
	}
	err = pid < 0 ? -errno : 0;
	ch->t_exec = pbench_ticks();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pb_child_held_stop(ch);
		return err;
	}
	ch->pid = pid;
	ch->pgid = pid;
	ch->t0 = share.t0;
	if (!share.err)
		return 0;
	err = exec_error(share.err, path);
	pb_child_reap(pid, NULL);
	ch->pid = 0;
	pb_child_held_stop(ch);
	return err;
}

/* What pbench_child_start() checks before it starts anything: the caller's options into *o
 * (the defaults where an older struct has no field), the exec plan, that no other child
 * holds counters, and the program's path (opts->path, else argv[0] looked up). 0 or the
 * error. */
static int start_check(char *const argv[], const struct pbench_child_opts *in,
		       struct pbench_child_opts *o, struct pb_exec_plan *plan, char *path,
		       size_t len)
{
	const struct pbench_child_opts *opts = in ? o : NULL;
	int err;

	if (in && (err = pb_check_struct("pbench_child_start", "opts", "pbench_child_opts", in,
					  0, "PBENCH_CHILD_OPTS_INIT")))
		return err;
	if (in)
		pb_copy_in(o, sizeof(*o), in);
	if (!argv || !argv[0] || plan_exec(plan, opts))
		return -EINVAL;
	if (pb_child_live_held() || (opts && opts->counters && pb_child_live_nr(NULL)))
		return -EBUSY;
	if (opts && opts->path)
		return snprintf(path, len, "%s", opts->path) < (int)len ? 0 : -ENAMETOOLONG;
	return pbench_command_resolve(argv[0], path, len);
}

/* At the start, before the watcher moves: pbench on one CPU (exec_ticks(), child.c). */
static int on_one_cpu(void)
{
	cpu_set_t cpus;

	return sched_getaffinity(0, sizeof(cpus), &cpus) == 0 && CPU_COUNT(&cpus) < 2;
}

/* A child for opts (NULL: the defaults), not started yet. */
static struct pbench_child *child_new(const struct pbench_child_opts *opts)
{
	struct pbench_child *ch = calloc(1, sizeof(*ch));

	if (!ch)
		return NULL;
	ch->last_cpu = -1;
	ch->grace_s = opts && opts->kill_grace_s > 0 ?
		      opts->kill_grace_s : DEFAULT_GRACE_S;
	ch->held = opts ? opts->counters : NULL;
	return ch;
}

/* What pb_child_start_hooked() runs on the child's pid before its release (NULL: nothing). */
struct start_hook {
	int (*fn)(pid_t pid, void *arg);
	void *arg;
};

/* The caller's hook, then its inherited set's start (opts.counters), just before the release:
 * 0 or the first error. */
static int before_release(struct pbench_child *ch, const struct start_hook *hook)
{
	int err = hook ? hook->fn(ch->pid, hook->arg) : 0;

	if (err || !ch->held)
		return err;
	err = pbench_counters_start(ch->held);
	if (!err)
		ch->held_state = 1;
	return err;
}

/* Start with the handshake (fork, the counters opened on the child's pid, the hook's events,
 * the release into exec). 0 with ch running; or the error, with the child reaped if there was
 * one (its group left for the caller's sweep). */
static int start_fork(struct pbench_child *ch, const char *path, char *const argv[],
		      struct pb_exec_plan *plan, const struct pbench_child_opts *opts,
		      const struct start_hook *hook)
{
	int go[2], ex[2], err;
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(ex, O_CLOEXEC) < 0) {
		err = -errno;
		goto out_close_go;
	}
	pb_child_watch_descendants(ch);
	pb_watcher_raise(plan);
	ch->t_fork = pbench_ticks();
	pid = fork();
	if (pid < 0) {
		err = -errno;
		goto out_close_ex;
	}
	if (pid == 0)
		child_exec(path, argv, go, ex, plan);
	close(go[0]);
	close(ex[1]);
	setpgid(pid, pid);	/* as the child does: whichever runs first */
	ch->pid = pid;
	ch->pgid = pid;
	err = open_counters(ch, opts);
	if (!err)
		err = before_release(ch, hook);
	if (err)
		goto out_kill;
	ch->t0 = pbench_ticks_begin();
	if (write(go[1], "g", 1) != 1) {
		err = -errno;
		goto out_kill;
	}
	close(go[1]);
	err = exec_seen(ch, ex[0], path);	/* closes ex[0] */
	if (!err)
		return 0;
	goto out_reap;

out_kill:
	close(go[1]);	/* the child reads EOF and exits 127 */
	close(ex[0]);
out_reap:
	pb_child_reap(pid, NULL);
	ch->pid = 0;
	pb_child_held_stop(ch);
	return err;
out_close_ex:
	close(ex[0]);
	close(ex[1]);
out_close_go:
	close(go[0]);
	close(go[1]);
	return err;
}

static int child_start(struct pbench_child **out, char *const argv[],
		       const struct pbench_child_opts *in, int stderr_fd,
		       const struct start_hook *hook, int stay)
{
	struct pbench_child_opts o = PBENCH_CHILD_OPTS_INIT;	/* every default is 0 */
	const struct pbench_child_opts *opts = in ? &o : NULL;
	struct pbench_child *ch;
	struct pb_exec_plan plan;
	char path[4096];
	int err;

	if (!out)
		return pb_fail(-EINVAL, "pbench_child_start(): out is NULL");
	*out = NULL;
	err = start_check(argv, in, &o, &plan, path, sizeof(path));
	if (err)
		return err;
	plan.stderr_fd = stderr_fd;
	ch = child_new(opts);
	if (!ch)
		return -ENOMEM;
	pb_watcher_start();
	/* Nothing to open on the child's pid: no handshake needed. */
	if (!hook && (ch->held || !opts || !opts->events || !*opts->events)) {
		pb_child_watch_descendants(ch);
		pb_watcher_raise(&plan);
		err = start_vfork(ch, path, argv, &plan);
		if (err)
			ch->pgid = 0;	/* reaped where exec failed: nothing to sweep */
	} else {
		err = start_fork(ch, path, argv, &plan, opts, hook);
	}
	if (err) {
		pb_child_end_leftovers(ch);	/* puts the subreaper flag back */
		pbench_counters_free(ch->counters);
		free(ch);
		return err;
	}
	ch->one_cpu = on_one_cpu();
	if (!stay || !pb_watcher_above())
		pb_watcher_move(&plan);
	*out = ch;
	return 0;
}

int pbench_child_start(struct pbench_child **out, char *const argv[],
		       const struct pbench_child_opts *in)
{
	return child_start(out, argv, in, -1, NULL, 0);
}

int pb_child_start_stderr(struct pbench_child **out, char *const argv[],
			  const struct pbench_child_opts *in, int stderr_fd, int stay)
{
	return child_start(out, argv, in, stderr_fd, NULL, stay);
}

int pb_child_start_hooked(struct pbench_child **out, char *const argv[],
			  const struct pbench_child_opts *in, int stderr_fd,
			  int (*before_exec)(pid_t pid, void *arg), void *arg)
{
	struct start_hook hook = { before_exec, arg };

	if (!before_exec)
		return pb_fail(-EINVAL, "%s(): before_exec is NULL", __func__);
	return child_start(out, argv, in, stderr_fd, &hook, 0);
}
