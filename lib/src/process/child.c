/* SPDX-License-Identifier: MIT */
/*
 * Counting a child command from its exec, with the handshake perf stat uses: fork, let the
 * child block on a pipe, open the counters on its pid with enable_on_exec and inherit, then
 * release it into exec. A second close-on-exec pipe carries exec's errno back, so a command
 * that cannot run is told apart from one that ran and failed.
 *
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
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "process/process.h"

#define DEFAULT_GRACE_S 1.0	/* from SIGTERM to SIGKILL */

/* A set of pids that grows as needed (a command may leave thousands of processes). A pid
 * reaped stays in the set, negated, so that it is counted once and never waited for again
 * (its number may be reused by then). */
struct pids {
	pid_t *v;
	int n, cap;
};

static int pids_find(const struct pids *p, pid_t pid)
{
	for (int i = 0; i < p->n; i++)
		if (p->v[i] == pid || p->v[i] == -pid)
			return i;
	return -1;
}

/* Append pid: 0, or -ENOMEM (the set stays as it was). */
static int pids_push(struct pids *p, pid_t pid)
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
static int pids_add(struct pids *p, pid_t pid)
{
	return pids_find(p, pid) >= 0 ? 0 : pids_push(p, pid);
}

static void pids_release(struct pids *p)
{
	free(p->v);
	*p = (struct pids){ 0 };
}

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
	struct pids kept;	/* children the caller had before the run */
};

/*
 * The commands under way, for callers that run two at once (pbench compare --duet): what one
 * run leaves behind is swept when it ends, and the other command, its group and the subreaper
 * flag are not part of that. The library is used from one thread at a time per process.
 */
#define MAX_LIVE 8
static struct pbench_child *live[MAX_LIVE];

static void live_add(struct pbench_child *ch)
{
	for (int i = 0; i < MAX_LIVE; i++)
		if (!live[i]) {
			live[i] = ch;
			return;
		}
}

static void live_remove(const struct pbench_child *ch)
{
	for (int i = 0; i < MAX_LIVE; i++)
		if (live[i] == ch)
			live[i] = NULL;
}

/* pid is another command under way, or in its process group. */
static int others(const struct pbench_child *ch, pid_t pid)
{
	pid_t pg = -1;

	for (int i = 0; i < MAX_LIVE; i++) {
		if (!live[i] || live[i] == ch || !live[i]->pgid)
			continue;
		if (pg == -1)
			pg = getpgid(pid);
		if (live[i]->pid == pid || live[i]->pgid == pg)
			return 1;
	}
	return 0;
}

static int live_nr(const struct pbench_child *except)
{
	int n = 0;

	for (int i = 0; i < MAX_LIVE; i++)
		n += live[i] && live[i] != except;
	return n;
}

int pbench_command_interp(const char *path, char *interp, size_t len)
{
	char buf[256];
	ssize_t n;
	size_t k;
	int fd;

	if (!path || !interp || !len)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 2 || buf[0] != '#' || buf[1] != '!')
		return 0;
	buf[n] = '\0';
	for (k = 2; buf[k] == ' ' || buf[k] == '\t'; k++)
		;
	n = (ssize_t)strcspn(buf + k, " \t\n");
	if (!n)
		return 0;
	snprintf(interp, len, "%.*s", (int)n, buf + k);
	return 1;
}

/* A script whose #! interpreter is missing: exec would say ENOENT, which reads as "no such
 * command" for a command that is right there. */
static int check_interp(const char *path)
{
	char interp[256];
	struct stat st;

	if (pbench_command_interp(path, interp, sizeof(interp)) != 1)
		return 0;
	if (stat(interp, &st) < 0 || S_ISDIR(st.st_mode) || access(interp, X_OK) < 0)
		return -PBENCH_EBAD_INTERP;
	return 0;
}

/* Find cmd as execvp would; path gets the file to exec. */
int pbench_command_resolve(const char *cmd, char *path, size_t len)
{
	const char *dirs, *p;
	struct stat st;
	int saw_eacces = 0;

	if (!cmd || !*cmd)
		return -PBENCH_ENOT_FOUND;
	if (strchr(cmd, '/')) {
		if (stat(cmd, &st) < 0)
			return -PBENCH_ENOT_FOUND;
		if (S_ISDIR(st.st_mode) || access(cmd, X_OK) < 0)
			return -PBENCH_ENOT_EXEC;
		snprintf(path, len, "%s", cmd);
		return check_interp(path);
	}
	dirs = getenv("PATH");
	if (!dirs)
		dirs = "/usr/local/bin:/usr/bin:/bin";
	for (p = dirs;; p++) {
		const char *end = strchrnul(p, ':');
		int n = end == p ? snprintf(path, len, "./%s", cmd)
				 : snprintf(path, len, "%.*s/%s", (int)(end - p), p, cmd);

		if (n > 0 && (size_t)n < len && stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
			if (access(path, X_OK) == 0)
				return check_interp(path);
			saw_eacces = 1;
		}
		if (!*end)
			break;
		p = end;
	}
	return saw_eacces ? -PBENCH_ENOT_EXEC : -PBENCH_ENOT_FOUND;
}

int pbench_command_explain(const char *cmd, int err, char *buf, size_t len)
{
	char path[4096], interp[256];

	if (!cmd || !buf || !len)
		return -EINVAL;
	switch (-err) {
	case PBENCH_ENOT_FOUND:
		snprintf(buf, len, "command '%s' not found", cmd);
		return 1;
	case PBENCH_ENOT_EXEC:
		snprintf(buf, len, "command '%s' cannot be executed (not an executable file, or "
			 "no permission)", cmd);
		return 1;
	case PBENCH_EBAD_INTERP:
		/* the #! line read again: the file may have changed since err was found */
		if (pbench_command_resolve(cmd, path, sizeof(path)) == -PBENCH_EBAD_INTERP &&
		    pbench_command_interp(path, interp, sizeof(interp)) == 1)
			snprintf(buf, len, "command '%s' cannot run: its interpreter '%s' (its #! "
				 "line) is not found or not executable", cmd, interp);
		else
			snprintf(buf, len, "command '%s' cannot run: its interpreter or dynamic "
				 "loader is missing", cmd);
		return 1;
	}
	return 0;
}

int pbench_command_where(const char *cmd, char *buf, size_t len)
{
	char cwd[4096];
	struct stat st;

	if (!cmd || !buf || !len)
		return -EINVAL;
	if (cmd[0] == '/')
		snprintf(buf, len, "there is no file '%s': check the path", cmd);
	else if (strchr(cmd, '/'))
		snprintf(buf, len, "there is no file '%s' in %s (the current directory): check the "
			 "path", cmd, getcwd(cwd, sizeof(cwd)) ? cwd : "?");
	else if (stat(cmd, &st) == 0 && S_ISREG(st.st_mode))
		snprintf(buf, len, "'%s' is not in PATH; the file in the current directory is "
			 "'./%s'", cmd, cmd);
	else
		return 0;
	return 1;
}

static void reap(pid_t pid, int *status)
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
static void task_children(int tasks, struct pids *out, int lower)
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
static void list_children(struct pids *out)
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
	struct pids kids;
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
	l->kids = (struct pids){ 0 };
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
	return others(ch, pid);
}

/* The sweep's state: every process of the command's seen so far (the command itself first
 * when it is being ended), and the children found by the last look. */
struct sweep {
	struct pbench_child *ch;
	struct pids seen, kids;
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

/* What the child does between fork and exec, decided by the parent beforehand. */
struct exec_plan {
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

/*
 * The watcher: pbench's thread while its commands run. It sleeps in its wait and runs only to
 * read an interval's counts, to end a command at its timeout, to run a signal's handler and to
 * sweep; a command it cannot preempt makes all of these wait for the command's end (a 1 s
 * timeout that ran 3.4 s and was reported "exit 0", an "interval of 100 ms" of 3.4 s).
 *
 * Where it runs. A prepared run pins pbench and its command to one CPU. A command that raises
 * itself above pbench's priority there (chrt -f 99, a SCHED_FIFO server) keeps pbench's thread
 * off that CPU for as long as it runs: no timer helps, since a timer's expiry (a signal, a
 * poll's timeout, a timerfd) only makes pbench's thread runnable, and a runnable thread below
 * a FIFO spinner does not run (the fair server's 50 ms a second are for SCHED_OTHER tasks), and
 * nothing the kernel does by itself ends a process at a wall-clock time. So while commands run
 * the watcher may also run on the CPUs none of them runs on (any other CPU pbench's cpuset
 * allows): a real-time thread woken where a real-time task it cannot preempt runs (one pinned
 * there) is woken on the CPU of the lowest priority instead (the RT scheduler's wake-up
 * placement, select_task_rq_rt()), so it runs at once beside the command, and its wake-ups
 * (an interval's read) no longer preempt the command either. With no other CPU (one CPU, or a
 * command on all of pbench's), it stays.
 *
 * Its priority. A command inherits pbench's real-time priority (a prepared run under
 * SCHED_FIFO); where the watcher shares the command's CPU, a command that does not block would
 * keep it from running again. So pbench's thread takes the policy's highest priority while
 * commands run (they keep the one it had: each sets it back before exec): above every command
 * that did not raise itself, on the command's CPU or beside another real-time task on the
 * other CPU. Both are put back when the last command ends, each unless something else (a
 * prepared state's restore on a signal) changed it meanwhile.
 */
static struct {
	int raised;		/* pbench's thread is above its commands */
	pid_t tid;		/* that thread */
	int policy;		/* its policy before (with SCHED_RESET_ON_FORK) */
	struct sched_param param;	/* and priority */
	int top;		/* the priority it took */
	int moved;		/* pbench's thread is off the commands' CPUs */
	pid_t moved_tid;
	cpu_set_t before, after;	/* its affinity before the move, and the one it took */
	cpu_set_t cmds;		/* the CPUs of the commands under way */
} watcher;

static void watcher_raise(struct exec_plan *plan)
{
	struct sched_param sp;
	int pol;

	plan->rt_policy = -1;
	if (!watcher.raised) {
		pol = sched_getscheduler(0);
		if (pol < 0 || (pol != SCHED_FIFO && pol != SCHED_RR) || sched_getparam(0, &sp) ||
		    sp.sched_priority >= sched_get_priority_max(pol))
			return;	/* not real-time (or reset on fork): the command is not either */
		watcher.policy = pol;
		watcher.param = sp;
		sp.sched_priority = sched_get_priority_max(pol);
		if (sched_setscheduler(0, pol, &sp)) {
			sp.sched_priority = watcher.param.sched_priority + 1;
			if (sched_setscheduler(0, pol, &sp))
				return;	/* RLIMIT_RTPRIO: the timeout holds once the command blocks */
		}
		watcher.top = sp.sched_priority;
		watcher.tid = (pid_t)syscall(SYS_gettid);
		watcher.raised = 1;
	}
	plan->rt_policy = watcher.policy;
	plan->rt_param = watcher.param;
}

/* pbench's thread back on the CPUs it had, if it still has those the watcher took. */
static void watcher_unmove(void)
{
	cpu_set_t now;

	if (!watcher.moved)
		return;
	watcher.moved = 0;
	if (!sched_getaffinity(watcher.moved_tid, sizeof(now), &now) &&
	    CPU_EQUAL(&now, &watcher.after))
		sched_setaffinity(watcher.moved_tid, sizeof(watcher.before), &watcher.before);
}

/* Before a command starts: pbench's thread on its own CPUs again, which a command that is not
 * pinned inherits; the next watcher_move() finds the CPUs none of the commands runs on. */
static void watcher_start(void)
{
	watcher_unmove();
	if (!live_nr(NULL))
		CPU_ZERO(&watcher.cmds);
}

/* After a command started (it has its CPUs: the plan's, or pbench's own, inherited at the
 * fork): pbench's thread off every command's CPUs, onto the others, when there is one it may
 * use. Two commands side by side on two CPUs (a duet) leave it where it was. */
static void watcher_move(const struct exec_plan *plan)
{
	cpu_set_t mine, cmd, other;
	long n = sysconf(_SC_NPROCESSORS_CONF);

	if (watcher.moved || sched_getaffinity(0, sizeof(mine), &mine))
		return;
	cmd = plan->pin ? plan->cpus : mine;
	CPU_OR(&watcher.cmds, &watcher.cmds, &cmd);
	CPU_ZERO(&other);
	for (int c = 0; c < n && c < CPU_SETSIZE; c++)
		if (!CPU_ISSET(c, &watcher.cmds))
			CPU_SET(c, &other);
	CPU_AND(&cmd, &watcher.cmds, &mine);
	if (!CPU_COUNT(&cmd) || !CPU_COUNT(&other))
		return;	/* not on the commands' CPUs, or nowhere else to go */
	/* Its own CPUs and the others: never pinned to one CPU alone, which would make it
	 * another measurement there for a pbench prepared on that CPU (pbench_cpu_rival()).
	 * The kernel keeps those pbench's cpuset allows. */
	CPU_OR(&other, &other, &mine);
	if (sched_setaffinity(0, sizeof(other), &other) ||
	    sched_getaffinity(0, sizeof(watcher.after), &watcher.after))
		return;
	watcher.before = mine;
	watcher.moved_tid = (pid_t)syscall(SYS_gettid);
	watcher.moved = 1;
}

/* After the last command under way: the priority and the CPUs pbench had, each if it is still
 * the one the watcher took. */
static void watcher_lower(void)
{
	struct sched_param sp;

	if (live_nr(NULL))
		return;
	watcher_unmove();
	if (!watcher.raised)
		return;
	watcher.raised = 0;
	if (sched_getscheduler(watcher.tid) == watcher.policy &&
	    !sched_getparam(watcher.tid, &sp) && sp.sched_priority == watcher.top)
		sched_setscheduler(watcher.tid, watcher.policy, &watcher.param);
}

/* In the child before exec: its parent's priority (not the watcher's), and death with the
 * thread that forked it, should pbench be killed (SIGKILL can be caught by nothing). A
 * parent already gone before the prctl: end now. */
static int child_setup(const struct exec_plan *plan)
{
	if (plan->rt_policy >= 0 && sched_setscheduler(0, plan->rt_policy, &plan->rt_param) < 0)
		return -1;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != plan->parent) {
		errno = ESRCH;
		return -1;
	}
	return 0;
}

/*
 * End what a run left behind: the command's process group, every process handed to pbench as
 * subreaper, and every process below those. SIGTERM first, SIGKILL after the grace period,
 * everything handed over reaped. The common case (nothing left) costs two system calls.
 */
static void end_leftovers(struct pbench_child *ch)
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
		reap(cmd, NULL);	/* not reaped by the rounds above */
	ch->pid = 0;
	ch->left += w.seen.n - (i >= 0);
	pids_release(&w.seen);
	pids_release(&w.kids);
	/* Put back by the last command under way (one run beside another started with the
	 * flag already set, by the first). */
	if (ch->subreaper && !live_nr(ch) && !ch->was_subreaper)
		prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
	ch->subreaper = 0;
	ch->pgid = 0;
	pids_release(&ch->kept);
	live_remove(ch);
	watcher_lower();
}

/* Become subreaper for the run, and note the caller's own children so they are left alone.
 * A command started beside another one under way takes the flag as the first found it, so
 * that the last to end puts back what the caller had. */
static int base_was_subreaper;

static void watch_descendants(struct pbench_child *ch)
{
	if (has_children())
		list_children(&ch->kept);
	if (!live_nr(NULL) && prctl(PR_GET_CHILD_SUBREAPER, &base_was_subreaper, 0, 0, 0) < 0)
		base_was_subreaper = 0;
	ch->was_subreaper = base_was_subreaper;
	ch->subreaper = ch->was_subreaper ||
			prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
	live_add(ch);
}

static int do_exec(const char *path, char *const argv[], const struct exec_plan *plan)
{
	extern char **environ;

	return execve(path, argv, plan->envp ? plan->envp : environ);
}

/* Standard output and error where the plan says; in the child, before exec. */
static void redirect_output(const struct exec_plan *plan)
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
						 const struct exec_plan *plan)
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
static int plan_exec(struct exec_plan *plan, const struct pbench_child_opts *opts)
{
	memset(plan, 0, sizeof(*plan));
	plan->parent = getpid();
	plan->rt_policy = -1;	/* watcher_raise() says */
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

/* A command counted in the caller's inherited set is under way: another started now would
 * inherit the set and be counted with it. */
static int held_live(void)
{
	for (int i = 0; i < MAX_LIVE; i++)
		if (live[i] && live[i]->held)
			return 1;
	return 0;
}

/* The run's end in the caller's set: what the command added since the start snapshot. */
static void held_stop(struct pbench_child *ch)
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
		       const struct exec_plan *plan)
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
		held_stop(ch);
		return err;
	}
	ch->pid = pid;
	ch->pgid = pid;
	ch->t0 = share.t0;
	if (!share.err)
		return 0;
	err = exec_error(share.err, path);
	reap(pid, NULL);
	ch->pid = 0;
	held_stop(ch);
	return err;
}

/* What pbench_child_start() checks before it starts anything: the caller's options into *o
 * (the defaults where an older struct has no field), the exec plan, that no other child
 * holds counters, and the program's path (opts->path, else argv[0] looked up). 0 or the
 * error. */
static int start_check(char *const argv[], const struct pbench_child_opts *in,
		       struct pbench_child_opts *o, struct exec_plan *plan, char *path,
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
	if (held_live() || (opts && opts->counters && live_nr(NULL)))
		return -EBUSY;
	if (opts && opts->path)
		return snprintf(path, len, "%s", opts->path) < (int)len ? 0 : -ENAMETOOLONG;
	return pbench_command_resolve(argv[0], path, len);
}

/* At the start, before the watcher moves: pbench on one CPU (exec_ticks()). */
static int on_one_cpu(void)
{
	cpu_set_t cpus;

	return sched_getaffinity(0, sizeof(cpus), &cpus) == 0 && CPU_COUNT(&cpus) < 2;
}

static int child_start(struct pbench_child **out, char *const argv[],
		       const struct pbench_child_opts *in, int stderr_fd)
{
	struct pbench_child_opts o = PBENCH_CHILD_OPTS_INIT;	/* every default is 0 */
	const struct pbench_child_opts *opts = in ? &o : NULL;
	struct pbench_counters *held;
	struct pbench_child *ch;
	struct exec_plan plan;
	int go[2], ex[2], err, status;
	char path[4096];
	pid_t pid;

	*out = NULL;
	err = start_check(argv, in, &o, &plan, path, sizeof(path));
	if (err)
		return err;
	plan.stderr_fd = stderr_fd;
	held = opts ? opts->counters : NULL;
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return -ENOMEM;
	ch->last_cpu = -1;
	ch->grace_s = opts && opts->kill_grace_s > 0 ?
		      opts->kill_grace_s : DEFAULT_GRACE_S;
	ch->held = held;
	watcher_start();
	/* Nothing to open on the child's pid: no handshake needed. */
	if (held || !opts || !opts->events || !*opts->events) {
		watch_descendants(ch);
		watcher_raise(&plan);
		err = start_vfork(ch, path, argv, &plan);
		if (!err) {
			ch->one_cpu = on_one_cpu();
			watcher_move(&plan);
			*out = ch;
			return 0;
		}
		goto out_free;
	}
	if (pipe2(go, O_CLOEXEC) < 0) {
		err = -errno;
		goto out_free;
	}
	if (pipe2(ex, O_CLOEXEC) < 0) {
		err = -errno;
		goto out_close_go;
	}
	watch_descendants(ch);
	watcher_raise(&plan);
	ch->t_fork = pbench_ticks();
	pid = fork();
	if (pid < 0) {
		err = -errno;
		goto out_close_ex;
	}
	if (pid == 0)
		child_exec(path, argv, go, ex, &plan);
	close(go[0]);
	close(ex[1]);
	setpgid(pid, pid);	/* as the child does: whichever runs first */
	ch->pid = pid;
	ch->pgid = pid;
	err = open_counters(ch, opts);
	if (err)
		goto out_kill;
	ch->t0 = pbench_ticks_begin();
	if (write(go[1], "g", 1) != 1) {
		err = -errno;
		goto out_kill;
	}
	close(go[1]);
	err = exec_seen(ch, ex[0], path);	/* closes ex[0] */
	if (!err) {
		ch->one_cpu = on_one_cpu();
		watcher_move(&plan);
		*out = ch;
		return 0;
	}
	goto out_reap;

out_kill:
	close(go[1]);	/* the child reads EOF and exits 127 */
	close(ex[0]);
out_reap:
	reap(pid, &status);
	ch->pid = 0;
	end_leftovers(ch);
	pbench_counters_free(ch->counters);
	free(ch);
	return err;
out_close_ex:
	close(ex[0]);
	close(ex[1]);
out_close_go:
	close(go[0]);
	close(go[1]);
out_free:
	ch->pgid = 0;
	end_leftovers(ch);	/* puts the subreaper flag back */
	free(ch);
	return err;
}

int pbench_child_start(struct pbench_child **out, char *const argv[],
		       const struct pbench_child_opts *in)
{
	return child_start(out, argv, in, -1);
}

int pb_child_start_stderr(struct pbench_child **out, char *const argv[],
			  const struct pbench_child_opts *in, int stderr_fd)
{
	return child_start(out, argv, in, stderr_fd);
}

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
	held_stop(ch);
	if (ch->counters && !ch->held) {
		int got = pbench_counters_read(ch->counters);

		ch->read_err = got < 0 ? got : 0;
	}
	if (ch->on_end)
		ch->on_end(ch->on_end_arg);
	/* Outside the timed span: whatever the command left running is ended now. */
	end_leftovers(ch);
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
	end_leftovers(ch);
	take_terminal_back(ch);
	held_stop(ch);	/* the caller's set ready for its next command */
	pbench_counters_free(ch->counters);
	free(ch);
}

/* pidfd_open(2), Linux 5.3: a descriptor that polls readable when the process ends. */
static int open_pidfd(pid_t pid)
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
	pfd.fd = open_pidfd(ch->pid);
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
		pfd[i].fd = open_pidfd(ch[i]->pid);
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
	struct pollfd pfd[MAX_LIVE];
	uint64_t t0 = pbench_ticks();
	int live_n, missing, r = -ETIMEDOUT;

	if (!ch || n < 1 || n > MAX_LIVE || !(timeout_s >= 0) || !isfinite(timeout_s))
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

int pb_command_copy(char *const *argv, char ***out, const char *what, char *why, size_t len)
{
	char path[4096];
	int err;

	*out = NULL;
	if (!argv)
		return 0;
	if (!argv[0]) {
		snprintf(why, len, "the %s command is empty", what);
		return -EINVAL;
	}
	err = pbench_command_resolve(argv[0], path, sizeof(path));
	if (err) {
		snprintf(why, len, "the %s command '%s': %s", what, argv[0], pbench_strerror(err));
		return err;
	}
	*out = pb_argv_dup(argv);
	if (!*out)
		snprintf(why, len, "out of memory");
	return *out ? 0 : -ENOMEM;
}

int pb_child_helper(char *const *argv, int quiet, const volatile int *stop, const char *what,
		    char *why, size_t len)
{
	struct pbench_child_opts o = { .size = sizeof(o), .quiet = quiet };
	struct pbench_child_result res = { .size = sizeof(res) };
	struct pbench_child *ch;
	int err;

	if (!argv)
		return 0;
	err = pbench_child_start(&ch, argv, &o);
	if (err) {
		snprintf(why, len, "cannot run the %s command '%s': %s", what, argv[0],
			 pbench_strerror(err));
		return err;
	}
	do
		err = pbench_child_wait(ch, &res);
	while (err == -EINTR && !(stop && *stop));
	pbench_child_free(ch);	/* ends it, with its group, when it was stopped */
	if (err == -EINTR)
		return 1;
	if (err) {
		snprintf(why, len, "the %s command '%s': %s", what, argv[0], pbench_strerror(err));
		return err;
	}
	if (res.exited && res.exit_status == 0)
		return 0;
	if (res.signaled)
		snprintf(why, len, "the %s command '%s' was killed by signal %d", what, argv[0],
			 res.term_signal);
	else
		snprintf(why, len, "the %s command '%s' exited with status %d", what, argv[0],
			 res.exit_status);
	return -ECANCELED;
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
