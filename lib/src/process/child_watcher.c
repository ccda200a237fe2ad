/* SPDX-License-Identifier: MIT */
/*
 * The commands under way (a caller may run two at once: pbench compare --duet) and the
 * watcher, pbench's thread while they run: its priority above theirs, its CPUs beside theirs,
 * each put back when the last one ends. Below the start and the end of a command, which both
 * use them.
 */
#include <sched.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/base.h"
#include "process/process_inner.h"

/*
 * The commands under way, for callers that run two at once (pbench compare --duet): what one
 * run leaves behind is swept when it ends, and the other command, its group and the subreaper
 * flag are not part of that. The library is used from one thread at a time per process.
 */
static struct pbench_child *live[PB_CHILD_MAX_LIVE];

void pb_child_live_add(struct pbench_child *ch)
{
	for (int i = 0; i < PB_CHILD_MAX_LIVE; i++)
		if (!live[i]) {
			live[i] = ch;
			return;
		}
}

void pb_child_live_remove(const struct pbench_child *ch)
{
	for (int i = 0; i < PB_CHILD_MAX_LIVE; i++)
		if (live[i] == ch)
			live[i] = NULL;
}

/* pid is another command under way, or in its process group. */
int pb_child_live_other(const struct pbench_child *ch, pid_t pid)
{
	pid_t pg = -1;

	for (int i = 0; i < PB_CHILD_MAX_LIVE; i++) {
		if (!live[i] || live[i] == ch || !live[i]->pgid)
			continue;
		if (pg == -1)
			pg = getpgid(pid);
		if (live[i]->pid == pid || live[i]->pgid == pg)
			return 1;
	}
	return 0;
}

int pb_child_live_nr(const struct pbench_child *except)
{
	int n = 0;

	for (int i = 0; i < PB_CHILD_MAX_LIVE; i++)
		n += live[i] && live[i] != except;
	return n;
}

/* A command counted in the caller's inherited set is under way: another started now would
 * inherit the set and be counted with it. */
int pb_child_live_held(void)
{
	for (int i = 0; i < PB_CHILD_MAX_LIVE; i++)
		if (live[i] && live[i]->held)
			return 1;
	return 0;
}

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
 * Staying. The move has a price: woken where the command ended (a real-time command pinned
 * there), the thread is placed on another CPU, and put back on its own after, two wake-ups
 * of an idle CPU a run (120 us a run on the development VM, 18% of a run of `true`, 1.05x
 * hyperfine's time at 10 ms: bench/bench_harness). A caller that only sleeps until the
 * command ends (no timeout, no intervals, no profile to drain: pb_child_start_stderr()'s
 * stay) has nothing to do meanwhile but its signal handlers, and those run at once on the
 * command's CPU while pbench's thread is above the command there (raised, or not real-time:
 * the fair scheduler preempts a command for a woken thread soon): it stays. What it gives up:
 * a command that raises itself to pbench's priority or above (chrt -f 99) and never blocks
 * holds off a Ctrl-C until it ends, as it would hold off any other task of that CPU.
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

void pb_watcher_raise(struct pb_exec_plan *plan)
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
 * pinned inherits; the next pb_watcher_move() finds the CPUs none of the commands runs on. */
void pb_watcher_start(void)
{
	watcher_unmove();
	if (!pb_child_live_nr(NULL))
		CPU_ZERO(&watcher.cmds);
}

/* Whether a wake-up of pbench's thread on its commands' CPUs runs at once: it was raised above
 * them, or it is not real-time (the fair scheduler's wake-up preemption; a real-time command
 * started from a thread of the fair class is not one pbench starts). */
int pb_watcher_above(void)
{
	int pol = sched_getscheduler(0);

	return watcher.raised || (pol != SCHED_FIFO && pol != SCHED_RR);
}

/* After a command started (it has its CPUs: the plan's, or pbench's own, inherited at the
 * fork): pbench's thread off every command's CPUs, onto the others, when there is one it may
 * use. Two commands side by side on two CPUs (a duet) leave it where it was. */
void pb_watcher_move(const struct pb_exec_plan *plan)
{
	/* The CPUs the kernel was configured for do not change while it runs: read once
	 * (glibc reads /sys/devices/system/cpu/possible at each call, ~3 us a run). */
	static long n;
	cpu_set_t mine, cmd, other;

	if (!n)
		n = sysconf(_SC_NPROCESSORS_CONF);

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
void pb_watcher_lower(void)
{
	struct sched_param sp;

	if (pb_child_live_nr(NULL))
		return;
	watcher_unmove();
	if (!watcher.raised)
		return;
	watcher.raised = 0;
	if (sched_getscheduler(watcher.tid) == watcher.policy &&
	    !sched_getparam(watcher.tid, &sp) && sp.sched_priority == watcher.top)
		sched_setscheduler(watcher.tid, watcher.policy, &watcher.param);
}
