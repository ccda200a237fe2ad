/* SPDX-License-Identifier: MIT */
/*
 * A command pbench started (child_start.c), waited for: its end seen (with a timeout, or the
 * first of several), what it cost (rusage, the CPU it ended on, its counts), the terminal it
 * was handed and taken back from, and its end (child_end.c) when freed. And the two ways the
 * library runs a helper command to its end: its status in words, its output kept.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "process/process.h"
#include "process/process_inner.h"

/*
 * A command in a process group of its own that reads the terminal is stopped (SIGTTIN, or
 * SIGTTOU when it sets the terminal up): give the terminal to its group, as a shell does for a
 * foreground job, and let it go on. Put back after the run.
 */
static int hand_terminal(struct pbench_child *ch, int status)
{
	sigset_t block, old;

	if (!WIFSTOPPED(status) || (WSTOPSIG(status) != SIGTTIN && WSTOPSIG(status) != SIGTTOU) ||
	    ch->tty_handed || !isatty(STDIN_FILENO) || tcgetpgrp(STDIN_FILENO) != getpgrp())
		return 0;
	sigemptyset(&block);
	sigaddset(&block, SIGTTOU);
	sigprocmask(SIG_BLOCK, &block, &old);
	ch->tty_handed = tcsetpgrp(STDIN_FILENO, ch->pgid) == 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ch->tty_handed;
}

static void take_terminal_back(struct pbench_child *ch)
{
	sigset_t block, old;

	if (!ch->tty_handed)
		return;
	sigemptyset(&block);
	sigaddset(&block, SIGTTOU);
	sigprocmask(SIG_BLOCK, &block, &old);
	tcsetpgrp(STDIN_FILENO, getpgrp());
	sigprocmask(SIG_SETMASK, &old, NULL);
	ch->tty_handed = 0;
}

/*
 * Release to exec, in ticks: when pbench saw the close-on-exec pipe close. That moment is right
 * only when pbench can run beside the command. Pinned to one CPU (a prepared run) a command of
 * the same priority runs until it blocks or ends before pbench sees anything, and the moment
 * would be most of the run: 0 (not known) then. The counters cannot tell either: a task's
 * time_enabled only advances while the task is on a CPU.
 */
static uint64_t exec_ticks(const struct pbench_child *ch)
{
	if (!ch->t_exec || ch->t_exec <= ch->t0 || ch->one_cpu)
		return 0;
	return ch->t_exec - ch->t0;
}

/* The CPU a process is on, or last ran on (field 39 of /proc/PID/stat, after the command's
 * name in parentheses, which may hold spaces and parentheses of its own); -1. */
static int cpu_of(pid_t pid)
{
	char path[64], buf[1024], *p;
	int field = 2;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (pb_read_file(path, buf, sizeof(buf)) < 0 || !(p = strrchr(buf, ')')))
		return -1;
	for (p++; *p && field < 39; p++)
		if (*p == ' ')
			field++;
	return field == 39 && *p >= '0' && *p <= '9' ? (int)strtol(p, NULL, 10) : -1;
}

/*
 * One wait for the command: 1 when it stopped (status says how, the stop taken), 0 when it
 * ended (reaped: status and ru; *t1 the ticks when pbench saw it end), -errno. The end is seen
 * first without reaping (waitid's WNOWAIT): the process is then a zombie that still says the
 * CPU it last ran on, read before wait4 reaps it, after *t1, outside the timed span.
 */
static int wait_ended(struct pbench_child *ch, int *status, struct rusage *ru, uint64_t *t1)
{
	siginfo_t si = { 0 };

	if (waitid(P_PID, (id_t)ch->pid, &si, WEXITED | WSTOPPED | WNOWAIT) < 0)
		return -errno;
	*t1 = pbench_ticks_end();
	if (si.si_code != CLD_STOPPED && si.si_code != CLD_TRAPPED)
		ch->last_cpu = cpu_of(ch->pid);
	if (wait4(ch->pid, status, WUNTRACED, ru) < 0)
		return -errno;
	return WIFSTOPPED(*status) ? 1 : 0;
}

int pb_child_last_cpu(const struct pbench_child *ch)
{
	return ch ? ch->last_cpu : -1;
}

int pbench_child_wait(struct pbench_child *ch, struct pbench_child_result *res)
{
	struct pbench_child_result r = { .size = sizeof(r) };
	struct rusage ru = { 0 };
	int status;
	uint64_t t1 = 0;
	int err;

	if ((err = PB_CHECK_STRUCT(res, pbench_child_result, 0, NULL)))
		return err;
	if (!ch)
		return pb_fail(-EINVAL, "%s(): ch is NULL", __func__);
	if (!ch->pid)
		return -ECHILD;
	/* A signal handler that returns (the caller's Ctrl-C) ends the wait with -EINTR and
	 * leaves the child running: the caller decides to wait again or to free (kill) it. */
	for (;;) {
		if ((err = wait_ended(ch, &status, &ru, &t1)) < 0)
			return err;
		if (!err)
			break;
		if (hand_terminal(ch, status))
			kill(-ch->pgid, SIGCONT);
	}
	ch->pid = 0;
	take_terminal_back(ch);
	/* The run's counts read now, at its end: the command's process has ended, and what it
	 * left running (inherited counters sum every process of the tree, live ones too) adds
	 * up to this moment and no further. A command that keeps forking daemons (each forks
	 * and exits, each spinning a little) otherwise counted their time through the sweep's
	 * grace period: 310 ms of task-clock for a run of 1.1 ms. Its own set read once
	 * (pbench_child_count() hands it out); the caller's set's stop snapshot taken. */
	pb_child_held_stop(ch);
	if (ch->counters && !ch->held) {
		int got = pbench_counters_read(ch->counters);

		ch->read_err = got < 0 ? got : 0;
	}
	if (ch->on_end)
		ch->on_end(ch->on_end_arg);
	/* Outside the timed span: whatever the command left running is ended now. */
	pb_child_end_leftovers(ch);
	r.ticks = t1 - ch->t0;
	r.ns = pbench_ticks_to_ns(r.ticks);
	r.setup_ticks = ch->t0 - ch->t_fork;
	r.exec_ticks = exec_ticks(ch);
	r.left_behind = ch->left;
	r.ctx_voluntary = (uint64_t)ru.ru_nvcsw;
	r.ctx_involuntary = (uint64_t)ru.ru_nivcsw;
	r.minor_faults = (uint64_t)ru.ru_minflt;
	r.major_faults = (uint64_t)ru.ru_majflt;
	r.max_rss_kib = (uint64_t)ru.ru_maxrss;
	r.user_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000u +
		    (uint64_t)ru.ru_utime.tv_usec * 1000u;
	r.system_ns = (uint64_t)ru.ru_stime.tv_sec * 1000000000u +
		      (uint64_t)ru.ru_stime.tv_usec * 1000u;
	if (WIFEXITED(status)) {
		r.exited = 1;
		r.exit_status = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		r.signaled = 1;
		r.term_signal = WTERMSIG(status);
	}
	pb_copy_out(res, &r, sizeof(r));
	return 0;
}

void pb_child_on_end(struct pbench_child *ch, void (*fn)(void *), void *arg)
{
	ch->on_end = fn;
	ch->on_end_arg = arg;
}

uint64_t pb_child_t0(const struct pbench_child *ch)
{
	return ch->t0;
}

pid_t pb_child_pid(const struct pbench_child *ch)
{
	return ch->pid;
}

struct pbench_counters *pbench_child_counters(struct pbench_child *ch)
{
	return ch ? ch->counters : NULL;
}

int pbench_child_nr_counts(const struct pbench_child *ch)
{
	if (!ch)
		return pb_fail(-EINVAL, "%s(): ch is NULL", __func__);
	if (ch->held) {
		if (ch->held_state != 2)
			return -EAGAIN;
		return ch->held_err ? ch->held_err : pbench_counters_nr(ch->held);
	}
	if (!ch->counters)
		return 0;
	if (ch->pid)
		return -EAGAIN;
	return ch->read_err ? ch->read_err : pbench_counters_nr(ch->counters);
}

int pbench_child_count(const struct pbench_child *ch, int i, struct pbench_count *out)
{
	int nr = pbench_child_nr_counts(ch);

	if (nr < 0)
		return nr;
	if (i < 0 || i >= nr)
		return pb_fail(-EINVAL, "%s(): i is %d, not an event the run was counted with "
			       "(%d)", __func__, i, nr);
	return ch->held ? pbench_counters_delta(ch->held, i, out)
			: pbench_counters_get(ch->counters, i, out);
}

void pbench_child_free(struct pbench_child *ch)
{
	if (!ch)
		return;
	/* A command still running ends with its group: TERM, the grace period, KILL. */
	pb_child_end_leftovers(ch);
	take_terminal_back(ch);
	pb_child_held_stop(ch);	/* the caller's set ready for its next command */
	pbench_counters_free(ch->counters);
	free(ch);
}

/* pidfd_open(2), Linux 5.3: a descriptor that polls readable when the process ends. */
int pb_pidfd_open(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

/* Wait until the child ends or ms pass without a pidfd (a kernel before 5.3): look every
 * 10 ms. 1 ended, 0 not yet, -errno (-EINTR: a handler ran). */
static int poll_exit(pid_t pid, int ms)
{
	for (;;) {
		struct timespec ts = { 0, 10000000 };
		siginfo_t si = { 0 };

		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
			return -errno;
		if (si.si_pid)
			return 1;
		if (ms <= 0)
			return 0;
		if (nanosleep(&ts, NULL) < 0)
			return -errno;
		ms -= 10;
	}
}

/* Past timeout_s (> 0) since the release. A command seen ended only then ran past its
 * timeout whatever its status: pbench's thread could not run before (a command above its
 * priority on the one CPU both may use), and its end came late or on its own. */
int pb_child_past(const struct pbench_child *ch, double timeout_s)
{
	return timeout_s > 0 && pbench_ticks_to_ns_f(pbench_ticks() - ch->t0) > timeout_s * 1e9;
}

int pbench_child_wait_timeout(struct pbench_child *ch, double timeout_s,
			      struct pbench_child_result *res)
{
	struct pollfd pfd = { .events = POLLIN };
	double left_ms;
	int n, err;

	if ((err = PB_CHECK_STRUCT(res, pbench_child_result, 0, NULL)))
		return err;
	if (!ch)
		return pb_fail(-EINVAL, "%s(): ch is NULL", __func__);
	if (!(timeout_s >= 0) || !isfinite(timeout_s))
		return pb_fail(-EINVAL, "%s(): timeout_s is %g, not a time of 0 or more", __func__,
			       timeout_s);
	if (!ch->pid)
		return -ECHILD;
	if (timeout_s == 0)
		return pbench_child_wait(ch, res);
	/* From the release, whatever waits came before (a signal may have ended one). */
	left_ms = timeout_s * 1e3 - pbench_ticks_to_ns_f(pbench_ticks() - ch->t0) / 1e6;
	left_ms = left_ms < 0 ? 0 : left_ms > 1e9 ? 1e9 : ceil(left_ms);
	pfd.fd = pb_pidfd_open(ch->pid);
	if (pfd.fd >= 0) {
		n = poll(&pfd, 1, (int)left_ms);
		if (n < 0)
			n = -errno;
		close(pfd.fd);
	} else {
		n = poll_exit(ch->pid, (int)left_ms);
	}
	if (n < 0)
		return n;	/* -EINTR: a handler ran; the child still runs */
	if (n == 0 || pb_child_past(ch, timeout_s))
		return -ETIMEDOUT;
	return pbench_child_wait(ch, res);
}

/* Each child's pidfd, or -1 where there is none (the caller polls those with waitid). */
static int open_pidfds(struct pbench_child *const *ch, int n, struct pollfd *pfd, int *live_n)
{
	int missing = 0;

	*live_n = 0;
	for (int i = 0; i < n; i++) {
		pfd[i].fd = -1;
		pfd[i].events = POLLIN;
		pfd[i].revents = 0;
		if (!ch[i] || !ch[i]->pid)
			continue;
		++*live_n;
		pfd[i].fd = pb_pidfd_open(ch[i]->pid);
		missing |= pfd[i].fd < 0;
	}
	return missing;
}

/* One that has ended (not reaped), or -1. */
static int ended_one(struct pbench_child *const *ch, int n)
{
	for (int i = 0; i < n; i++) {
		siginfo_t si = { 0 };

		if (!ch[i] || !ch[i]->pid)
			continue;
		/* ECHILD: reaped behind pbench's back; pbench_child_wait() will say so. */
		if (waitid(P_PID, (id_t)ch[i]->pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0 ?
		    errno == ECHILD : si.si_pid != 0)
			return i;
	}
	return -1;
}

int pbench_child_wait_any(struct pbench_child *const *ch, int n, double timeout_s)
{
	struct pollfd pfd[PB_CHILD_MAX_LIVE];
	uint64_t t0 = pbench_ticks();
	int live_n, missing, r = -ETIMEDOUT;

	if (!ch || n < 1 || n > PB_CHILD_MAX_LIVE || !(timeout_s >= 0) || !isfinite(timeout_s))
		return -EINVAL;
	missing = open_pidfds(ch, n, pfd, &live_n);
	if (!live_n)
		return -ECHILD;
	for (;;) {
		double left_ms = timeout_s > 0 ? timeout_s * 1e3 -
				 pbench_ticks_to_ns_f(pbench_ticks() - t0) / 1e6 : -1;
		/* Without a pidfd for each (a kernel before 5.3): look every millisecond. */
		int ms = missing ? 1 : left_ms < 0 ? -1 : (int)ceil(fmin(left_ms, 1e9));
		int k;

		if ((k = ended_one(ch, n)) >= 0) {
			r = k;
			break;
		}
		if (timeout_s > 0 && left_ms <= 0)
			break;
		if (poll(pfd, (nfds_t)n, ms) < 0) {
			r = -errno;	/* -EINTR: a handler ran; the children still run */
			break;
		}
	}
	for (int i = 0; i < n; i++)
		if (pfd[i].fd >= 0)
			close(pfd[i].fd);
	return r;
}

int pb_child_helper(char *const *argv, int quiet, const volatile int *stop, const char *what)
{
	struct pbench_child_opts o = { .size = sizeof(o), .quiet = quiet };
	struct pbench_child_result res = { .size = sizeof(res) };
	struct pbench_child *ch;
	int err;

	if (!argv)
		return 0;
	err = pbench_child_start(&ch, argv, &o);
	if (err) {
		return pb_fail_msg(err, "cannot run the %s command '%s': %s", what, argv[0],
				   pbench_strerror(err));
	}
	do
		err = pbench_child_wait(ch, &res);
	while (err == -EINTR && !(stop && *stop));
	pbench_child_free(ch);	/* ends it, with its group, when it was stopped */
	if (err == -EINTR)
		return 1;
	if (err)
		return pb_fail_msg(err, "the %s command '%s': %s", what, argv[0],
				   pbench_strerror(err));
	if (res.exited && res.exit_status == 0)
		return 0;
	if (res.signaled)
		return pb_fail_msg(-ECANCELED, "the %s command '%s' was killed by signal %d", what,
				   argv[0], res.term_signal);
	return pb_fail_msg(-ECANCELED, "the %s command '%s' exited with status %d", what, argv[0],
			   res.exit_status);
}

int pb_child_output(char *const argv[], double timeout_s, size_t max, char **out,
		    struct pbench_child_result *res)
{
	struct pbench_child_opts co = { .size = sizeof(co), .quiet = PBENCH_CHILD_OUTPUT_NULL };
	struct pbench_child *ch;
	off_t len;
	int fd, err;

	*out = NULL;
	fd = memfd_create("pbench-output", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	co.stdout_fd = fd;
	err = pbench_child_start(&ch, argv, &co);
	if (!err) {
		err = timeout_s > 0 ? pbench_child_wait_timeout(ch, timeout_s, res) :
		      pbench_child_wait(ch, res);
		pbench_child_free(ch);
	}
	len = err ? 0 : lseek(fd, 0, SEEK_END);
	if (!err && len < 0)
		err = -errno;
	else if (!err && (uint64_t)len > max)
		err = -EFBIG;
	else if (!err && !(*out = malloc((size_t)len + 1)))
		err = -ENOMEM;
	else if (!err && pread(fd, *out, (size_t)len, 0) != len)
		err = -EIO;
	if (err) {
		free(*out);
		*out = NULL;
	} else {
		(*out)[len] = '\0';
	}
	close(fd);
	return err;
}
