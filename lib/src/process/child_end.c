/* SPDX-License-Identifier: MIT */
/*
 * Nothing a command starts outlives its run. The child leads a process group of its own, and
 * while it runs pbench is a child subreaper, so that a process that leaves the group (a
 * daemon's setsid) and loses its parent is handed to pbench rather than to init. When the run
 * ends, or is ended, every process below pbench's children that are the command's (found in
 * /proc, whatever its group: timeout(1) puts its command in a group of its own) and the group
 * get SIGTERM, then SIGKILL after a grace period, taken off real time first so that none
 * waits for the CPU behind another (signal_tree()); every process handed over is reaped,
 * however many there are.
 *
 * The subreaper's scope: a child of pbench's process is the command's (handed over) unless it
 * is in pbench's own process group, or was a child before the run. A child the caller forks
 * meanwhile, on any thread (system(), popen(), posix_spawn()), stays in the caller's group
 * and is never signalled or reaped; a command's descendant cannot be in that group unless it
 * moves itself there.
 *
 * This file ends a command's tree: the /proc walk, the sweep, and the subreaper flag taken for
 * the run and put back after it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "process/process_inner.h"

static int pids_find(const struct pb_pids *p, pid_t pid)
{
	for (int i = 0; i < p->n; i++)
		if (p->v[i] == pid || p->v[i] == -pid)
			return i;
	return -1;
}

/* Append pid: 0, or -ENOMEM (the set stays as it was). */
static int pids_push(struct pb_pids *p, pid_t pid)
{
	if (p->n == p->cap) {
		int cap = p->cap ? 2 * p->cap : 64;
		pid_t *v = realloc(p->v, (size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->v = v;
		p->cap = cap;
	}
	p->v[p->n++] = pid;
	return 0;
}

/* Add pid unless it is in. */
static int pids_add(struct pb_pids *p, pid_t pid)
{
	return pids_find(p, pid) >= 0 ? 0 : pids_push(p, pid);
}

static void pids_release(struct pb_pids *p)
{
	free(p->v);
	*p = (struct pb_pids){ 0 };
}

void pb_child_reap(pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
}

/* The whole of a /proc file (NUL-terminated, malloc'd) into *buf: its length, or -1. path
 * is taken from dir (AT_FDCWD: as it is). */
static ssize_t read_all(int dir, const char *path, char **buf)
{
	size_t len = 0, cap = 4096;
	char *b = malloc(cap);
	int fd = openat(dir, path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (!b || fd < 0) {
		free(b);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	for (;;) {
		if (cap - len < 2) {
			char *nb = realloc(b, cap * 2);

			if (!nb)
				break;
			b = nb;
			cap *= 2;
		}
		n = read(fd, b + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	b[len] = '\0';
	*buf = b;
	return (ssize_t)len;
}

/* A thread that is real time (SCHED_FIFO, SCHED_RR) back to SCHED_OTHER; see signal_tree().
 * By thread id, just after it was listed in its process's task directory (no call takes a
 * descriptor): only a thread id reused within that instant, after the pid space wrapped,
 * could name another thread, and the change only ever lowers a priority. SCHED_DEADLINE
 * threads are left as they are (their bandwidth is bounded by admission control). */
static void off_real_time(pid_t tid)
{
	static const struct sched_param zero = { 0 };
	int pol = sched_getscheduler(tid) & ~SCHED_RESET_ON_FORK;

	if (pol == SCHED_FIFO || pol == SCHED_RR)
		sched_setscheduler(tid, SCHED_OTHER, &zero);
}

/* The children of each thread of a /proc task directory (tasks, opened; closed here) into
 * out (emptied first): live, never a recorded tree. With lower, each thread is taken off
 * real time first. */
static void task_children(int tasks, struct pb_pids *out, int lower)
{
	DIR *d = tasks >= 0 ? fdopendir(tasks) : NULL;
	struct dirent *e;

	out->n = 0;
	if (!d) {
		if (tasks >= 0)
			close(tasks);
		return;
	}
	while ((e = readdir(d))) {
		char path[300], *buf, *p, *end;

		if (e->d_name[0] == '.')
			continue;
		if (lower)
			off_real_time((pid_t)atoi(e->d_name));
		snprintf(path, sizeof(path), "%s/children", e->d_name);
		if (read_all(dirfd(d), path, &buf) < 0)
			continue;
		for (p = buf;; p = end) {
			long v = strtol(p, &end, 10);

			if (end == p || pids_push(out, (pid_t)v))	/* each child is listed once */
				break;
		}
		free(buf);
	}
	closedir(d);
}

/* This process's children now, from every thread's /proc children list, into out. */
static void list_children(struct pb_pids *out)
{
	task_children(open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC), out, 0);
}

/* A process's /proc directory, opened: it names that process and no other, however its pid
 * is reused once it has been reaped (reads through it fail then, and a signal sent through it
 * reaches nobody). -1 when the process is gone. */
static int proc_open(pid_t pid)
{
	char path[32];

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* The parent of the process whose /proc directory is dir; -1 once it has been reaped. */
static pid_t proc_parent(int dir)
{
	char buf[512], *p;
	int fd = openat(dir, "stat", O_RDONLY | O_CLOEXEC), ppid;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* the end of its name, which may hold anything */
	return p && sscanf(p + 1, " %*c %d", &ppid) == 1 ? ppid : -1;
}

/* sig to the process whose /proc directory is dir: pidfd_send_signal() takes one (Linux 5.1),
 * and reaches that process or none. Before 5.1, by pid, just after it was found alive. */
static void proc_signal(int dir, pid_t pid, int sig)
{
#ifdef SYS_pidfd_send_signal
	if (syscall(SYS_pidfd_send_signal, dir, sig, NULL, 0) == 0 || errno != ENOSYS)
		return;
#endif
	kill(pid, sig);
}

/* One process on the walk's path down the tree: its /proc directory (open while the walk is
 * below it), its children when it was visited, the next of them to visit. */
struct walk_level {
	pid_t pid;
	int dir;
	struct pb_pids kids;
	int next;
};

#define WALK_DEPTH 32	/* directories open at once; a process deeper is found in a later
			 * round, once the ones above it have ended and it is pbench's */

/* Visit pid if it is still a child of parent (whose /proc directory is parent_dir; -1: pbench
 * itself): its children listed, its threads taken off real time, then sig sent unless it is
 * in group (which the caller signals whole). Its parent is read through its own directory and
 * the parent is found alive after that: so pid was not reused by a process outside the tree
 * meanwhile, and the signal goes through the directory. 0, or -1 (not visited). */
static int visit(struct walk_level *l, pid_t pid, pid_t parent, int parent_dir, pid_t group,
		 int sig)
{
	l->dir = proc_open(pid);
	if (l->dir < 0)
		return -1;
	if (proc_parent(l->dir) != parent || (parent_dir >= 0 && proc_parent(parent_dir) < 0)) {
		close(l->dir);
		return -1;
	}
	l->pid = pid;
	l->next = 0;
	l->kids = (struct pb_pids){ 0 };
	task_children(openat(l->dir, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC), &l->kids, 1);
	if (getpgid(pid) != group)
		proc_signal(l->dir, pid, sig);
	return 0;
}

/*
 * sig to root, a child of pbench's that is the command's, and to every process below it, in
 * whatever process group or session: a process that left the command's group (timeout(1),
 * setsid) whose parent is alive is handed to pbench only once that parent has ended, and a
 * parent that cannot run never ends. Each thread of the tree that is real time is taken back
 * to SCHED_OTHER first. The tree is inherited a prepared run's SCHED_FIFO on one CPU, and a
 * SIGTERM or even a SIGKILL acts only when the process runs: one that spins at that priority
 * (one ignoring SIGTERM, or one pbench has not reached yet, forked since the last look) keeps
 * the others from running for ever, since FIFO tasks of one priority never share the CPU and
 * RT throttling gives its 5% to SCHED_OTHER tasks only. Taken off real time, each gets its turn,
 * so each can act on its SIGTERM in the grace period, and die on SIGKILL, wherever the spinner
 * is. That the run's priority holds no longer matters: the run has ended. Stopping the tree
 * first (SIGSTOP) would not do: a stopped process cannot act on SIGTERM, and a starved one
 * stops only when it runs. -1 when root could not be visited (no /proc, or it was reaped).
 */
static int signal_tree(pid_t root, pid_t group, int sig)
{
	struct walk_level path[WALK_DEPTH];
	int depth = 1;

	if (visit(&path[0], root, getpid(), -1, group, sig))
		return -1;
	while (depth > 0) {
		struct walk_level *l = &path[depth - 1];
		pid_t kid;

		if (l->next == l->kids.n) {
			close(l->dir);
			pids_release(&l->kids);
			depth--;
			continue;
		}
		kid = l->kids.v[l->next++];
		if (depth < WALK_DEPTH && !visit(&path[depth], kid, l->pid, l->dir, group, sig))
			depth++;
	}
	return 0;
}

static int has_children(void)
{
	siginfo_t si;

	return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0 || errno != ECHILD;
}

/* A child that is the caller's, not the command's: one it had before the run, one in its own
 * process group (forked by any of its threads meanwhile), or another command under way. */
static int kept(const struct pbench_child *ch, pid_t pid)
{
	if (pids_find(&ch->kept, pid) >= 0 || getpgid(pid) == getpgrp())
		return 1;
	return pb_child_live_other(ch, pid);
}

/* The sweep's state: every process of the command's seen so far (the command itself first
 * when it is being ended), and the children found by the last look. */
struct sweep {
	struct pbench_child *ch;
	struct pb_pids seen, kids;
};

/* Signal every child that is not the caller's own and everything below it (sig 0: look only),
 * then the command's group; how many children that was (the group's members and the processes
 * further down are not counted). */
static int signal_leftovers(struct sweep *w, int sig)
{
	int found = 0;

	if (has_children())
		list_children(&w->kids);
	else
		w->kids.n = 0;
	for (int i = 0; i < w->kids.n; i++) {
		pid_t pid = w->kids.v[i];

		if (kept(w->ch, pid))
			continue;
		if (sig && signal_tree(pid, w->ch->pgid, sig) < 0 && getpgid(pid) != w->ch->pgid)
			kill(pid, sig);	/* no /proc: pbench's child still, not reaped yet */
		found++;
		pids_add(&w->seen, pid);	/* short of memory: still ended, not counted */
	}
	kill(-w->ch->pgid, sig);
	return found;
}

/* Reap every process of the command's that has ended. */
static void reap_seen(struct sweep *w)
{
	for (int i = 0; i < w->seen.n; i++) {
		pid_t pid = w->seen.v[i];
		int r;

		if (pid <= 0)
			continue;
		do
			r = waitpid(pid, NULL, WNOHANG);
		while (r < 0 && errno == EINTR);
		if (r == pid || (r < 0 && errno == ECHILD))
			w->seen.v[i] = -pid;	/* reaped, or not ours to reap (any more) */
	}
}

/* Reap what has ended (a zombie handed over still counts as a member of the group), then
 * say whether anything is left. */
static int leftovers_remain(struct sweep *w)
{
	signal_leftovers(w, 0);
	reap_seen(w);
	return kill(-w->ch->pgid, 0) == 0 || signal_leftovers(w, 0) > 0;
}

/*
 * End what a run left behind: the command's process group, every process handed to pbench as
 * subreaper, and every process below those. SIGTERM first, SIGKILL after the grace period,
 * everything handed over reaped. The common case (nothing left) costs two system calls.
 */
void pb_child_end_leftovers(struct pbench_child *ch)
{
	struct sweep w = { .ch = ch };
	pid_t cmd = ch->pid;	/* the command itself, when it is being ended */
	uint64_t t0;
	int i;

	if (cmd)
		pids_add(&w.seen, cmd);
	if (!ch->pgid || !leftovers_remain(&w))
		goto out;
	signal_leftovers(&w, SIGTERM);
	t0 = pbench_ticks();
	while (pbench_ticks_to_ns_f(pbench_ticks() - t0) < ch->grace_s * 1e9) {
		struct timespec ts = { 0, 2000000 };

		if (!leftovers_remain(&w))
			goto out;
		nanosleep(&ts, NULL);
	}
	/* Go round until nothing is left: a process forked since the last round (or too deep
	 * for it) is found by the next. No round waits for a process to die: one killed may
	 * wait for the CPU behind one not found yet, which the next round finds. */
	for (;;) {
		struct timespec ts = { 0, 1000000 };

		signal_leftovers(&w, SIGKILL);
		reap_seen(&w);
		if (!leftovers_remain(&w))
			break;
		nanosleep(&ts, NULL);	/* killed, still dying */
	}
out:
	i = cmd ? pids_find(&w.seen, cmd) : -1;
	if (cmd && (i < 0 || w.seen.v[i] > 0))
		pb_child_reap(cmd, NULL);	/* not reaped by the rounds above */
	ch->pid = 0;
	ch->left += w.seen.n - (i >= 0);
	pids_release(&w.seen);
	pids_release(&w.kids);
	/* Put back by the last command under way (one run beside another started with the
	 * flag already set, by the first). */
	if (ch->subreaper && !pb_child_live_nr(ch) && !ch->was_subreaper)
		prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
	ch->subreaper = 0;
	ch->pgid = 0;
	pids_release(&ch->kept);
	pb_child_live_remove(ch);
	pb_watcher_lower();
}

/* Become subreaper for the run, and note the caller's own children so they are left alone.
 * A command started beside another one under way takes the flag as the first found it, so
 * that the last to end puts back what the caller had. */
static int base_was_subreaper;

void pb_child_watch_descendants(struct pbench_child *ch)
{
	if (has_children())
		list_children(&ch->kept);
	if (!pb_child_live_nr(NULL) &&
	    prctl(PR_GET_CHILD_SUBREAPER, &base_was_subreaper, 0, 0, 0) < 0)
		base_was_subreaper = 0;
	ch->was_subreaper = base_was_subreaper;
	ch->subreaper = ch->was_subreaper ||
			prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
	pb_child_live_add(ch);
}
