/* SPDX-License-Identifier: MIT */
/*
 * bench_stat_cost: where the time of one run of `pbench stat -- CMD` goes, all measured in
 * this run. bench_stat compares pbench's cost per run with perf stat's and hyperfine's; this
 * program takes pbench's apart.
 *
 * 1. The real thing: the wall time of `pbench stat --mode unprepared -r N -q -- true` for
 *    N = 50 and 500, the slope between them being the cost of one more run; once with the
 *    default events and once with the four of them this VM can count (the hardware events
 *    cycles and instructions fail here with ENOENT, every run).
 * 2. The steps of one run (cli/cmd_stat.c run_set and run_command, lib/src/process/), each
 *    timed alone through the library in this process, in blocks of STEP_REPS calls, the
 *    fastest of STEP_BLOCKS blocks kept (noise only adds time).
 * 3. One run replayed through the library the way run_set does it (noise probe, getrusage,
 *    child started with vfork and counted in a set held on this thread, wait, the counts,
 *    free, setitimer), then the same with one piece
 *    left out or swapped: the difference is what that piece costs in place, with whatever
 *    overlaps with the child's own running accounted for. The replay is also run pinned to
 *    one CPU with its memory locked, as prepared mode runs: there the child cannot run on the
 *    other CPU while pbench opens its counters or reads /proc.
 * The rest of pbench's slope beyond the replayed run is its per-run analysis and report.
 *
 * Steps 2 and 3 run with a set of the default events held open on this thread, as pbench
 * stat holds its own set (cmd_stat.c stat_run opens one to learn what can be counted). That
 * matters: the kernel turns the software events' static keys on at the first open of
 * cpu-migrations or page-faults and off again at the last close, patching its code each time
 * (~60 us per event here). With a set held, the per-run opens only count references. The
 * cost without one, what a library caller of pbench_child_start pays, is printed as well.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "bench_util.h"

#define STEP_REPS 200		/* calls of one step in a timed block */
#define STEP_BLOCKS 5		/* blocks per step; the fastest is kept */
#define N_SMALL 50		/* pbench stat -r 50 and -r 500: the slope between them */
#define N_BIG 500
#define ROUNDS 3		/* of the slope; the median is printed */
/* pbench stat's default events (cli/cmd_stat.c DEFAULT_EVENTS), and those of them that
 * open on a VM without a hardware PMU */
#define PB_EVENTS "task-clock,context-switches,cpu-migrations,page-faults,cycles,instructions"
#define SW_EVENTS "task-clock,context-switches,cpu-migrations,page-faults"


static char pbench_path[4096];

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ns per call of step(arg): the fastest of STEP_BLOCKS blocks of STEP_REPS calls; NaN when a
 * call fails. */
static double time_step(int (*step)(void *), void *arg)
{
	double best = INFINITY;

	for (int b = 0; b < STEP_BLOCKS; b++) {
		double t0 = now_ns();

		for (int i = 0; i < STEP_REPS; i++)
			if (step(arg))
				return NAN;
		best = fmin(best, (now_ns() - t0) / STEP_REPS);
	}
	return best;
}

/* ---- 1. pbench stat itself -------------------------------------------------------------- */

static int run_pbench(const char *events, int n, double *wall)
{
	char r[16];
	char *argv[] = { pbench_path, "stat", "--mode", "unprepared", "-e", (char *)events, "-r",
			 r, "-q", "--", "true", NULL };
	double t0 = now_ns();
	int status;
	pid_t pid;

	snprintf(r, sizeof(r), "%d", n);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
			_exit(126);
		execv(pbench_path, argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	*wall = now_ns() - t0;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Cost of one more run: the median over ROUNDS of (wall(N_BIG) - wall(N_SMALL)) / (N_BIG -
 * N_SMALL); lo and hi the rounds' extremes. NaN when pbench failed. */
static double pbench_slope(const char *events, double *lo, double *hi)
{
	double sl[ROUNDS];

	for (int r = 0; r < ROUNDS; r++) {
		double small, big;

		if (run_pbench(events, N_SMALL, &small) || run_pbench(events, N_BIG, &big))
			return NAN;
		sl[r] = (big - small) / (N_BIG - N_SMALL);
	}
	qsort(sl, ROUNDS, sizeof(sl[0]), cmp_double);
	*lo = sl[0];
	*hi = sl[ROUNDS - 1];
	return sl[ROUNDS / 2];
}

/* ---- 2. the steps ------------------------------------------------------------------------- */

static int step_resolve(void *arg)
{
	char path[4096];

	(void)arg;
	return pbench_command_resolve("true", path, sizeof(path));
}

static int step_probe(void *arg)
{
	struct pbench_cpu_noise n = { .size = sizeof(n) };
	struct pbench_cpu_probe *p = arg;

	return pbench_cpu_probe_begin(p) || pbench_cpu_probe_end(p, &n);
}

/* Opened on this process the way child.c opens them on the child: inherit, enable on exec
 * (this process never execs, so they never count). */
static int step_counters(void *arg)
{
	struct pbench_counters_opts o = { .size = sizeof(o), .pid = getpid(), .cpu = -1,
					  .flags = PBENCH_COUNTERS_INHERIT |
						   PBENCH_COUNTERS_ENABLE_ON_EXEC };
	struct pbench_counters *c;
	int err = pbench_counters_open(&c, arg, &o);

	if (err && err != -PBENCH_ENO_EVENTS)
		return err;
	pbench_counters_free(c);
	return 0;
}

static int step_misc(void *arg)
{
	struct itimerval it = { 0 };
	struct rusage ru;

	(void)arg;
	getrusage(RUSAGE_CHILDREN, &ru);
	getrusage(RUSAGE_CHILDREN, &ru);
	setitimer(ITIMER_REAL, &it, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	return sched_getcpu() < 0;
}

/* The CPU's speed read once (the reference loop's three passes): pbench stat reads it before
 * and after every run. */
static int step_speed(void *arg)
{
	double ns;

	return pbench_speed_read(arg, &ns, NULL);
}

static int step_fork(void *arg)
{
	int status;
	pid_t pid = fork();

	(void)arg;
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execlp("true", "true", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	return 0;
}

static int step_spawn(void *arg)
{
	(void)arg;
	return bench_spawn_true();
}

/* One command started, waited for, its counts read and freed: with a set of its own per run
 * (events; NULL or "": none), or counted in a set held on this thread (held), which the child
 * inherits as run_command's does now. */
static int child_run(const char *events, struct pbench_counters *held)
{
	static struct pbench_count k[8];
	char *argv[] = { "true", NULL };
	struct pbench_child_opts co = { .size = sizeof(co), .events = events, .quiet = 1,
					.counters = held };
	struct pbench_child_result res = { .size = sizeof(res) };
	struct pbench_child *ch;
	int err = pbench_child_start(&ch, argv, &co);

	if (err)
		return err;
	err = pbench_child_wait(ch, &res);
	for (size_t i = 0; i < PB_ARRAY_SIZE(k); i++)
		k[i].size = sizeof(k[i]);
	if (!err)
		err = pbench_child_nr_counts(ch);
	for (int i = 0, nr = err; err >= 0 && i < nr && i < (int)PB_ARRAY_SIZE(k); i++)
		err = pbench_child_count(ch, i, &k[i]);
	pbench_child_free(ch);
	return err < 0 ? err : 0;
}

static int step_child(void *events)
{
	return child_run(events, NULL);
}

static int step_child_held(void *held)
{
	return child_run(NULL, held);
}

/* A set of the default events on this thread that children inherit, as pbench stat holds. */
static struct pbench_counters *open_held(void)
{
	struct pbench_counters_opts o = { .size = sizeof(o), .cpu = -1,
					  .flags = PBENCH_COUNTERS_INHERIT |
						   PBENCH_COUNTERS_ENABLE_ON_EXEC };
	struct pbench_counters *c;

	return pbench_counters_open(&c, PB_EVENTS, &o) == 0 ? c : NULL;
}

/* ---- 3. one run replayed ------------------------------------------------------------------ */

struct replay {
	const char *events;		/* a set opened per run on the child (the handshake) */
	struct pbench_counters *held;	/* else counted in this held set */
	struct pbench_cpu_probe *probe;	/* NULL: no noise probe */
	int spawn;			/* posix_spawn + wait instead of the child path */
};

static int step_replay(void *arg)
{
	struct replay *rp = arg;
	int err;

	if (rp->probe && pbench_cpu_probe_begin(rp->probe))
		return -1;
	err = rp->spawn ? step_spawn(NULL) : rp->held ? step_child_held(rp->held) :
	      step_child((void *)rp->events);
	if (!err)
		err = step_misc(NULL);
	if (rp->probe) {
		struct pbench_cpu_noise n = { .size = sizeof(n) };

		pbench_cpu_probe_end(rp->probe, &n);
	}
	return err;
}

/* The full replay in a child pinned to cpu with its memory locked, as prepared mode runs; the
 * ns come back through a pipe. */
static double replay_prepared(int cpu)
{
	int fd[2], status;
	double ns = NAN;
	pid_t pid;

	if (pipe(fd))
		return NAN;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct replay rp = { .events = PB_EVENTS };
		cpu_set_t set;

		close(fd[0]);
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		rp.held = open_held();	/* on this process's thread: a set is not shared */
		if (rp.held && !sched_setaffinity(0, sizeof(set), &set) &&
		    !mlockall(MCL_CURRENT | MCL_FUTURE) && !pbench_cpu_probe_new(&rp.probe, cpu))
			ns = time_step(step_replay, &rp);
		if (write(fd[1], &ns, sizeof(ns)) != (ssize_t)sizeof(ns))
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	if (pid < 0 || read(fd[0], &ns, sizeof(ns)) != (ssize_t)sizeof(ns))
		ns = NAN;
	close(fd[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	return ns;
}

/* ---- report ------------------------------------------------------------------------------- */

static void line(const char *what, double ns)
{
	if (isfinite(ns))
		printf("  %-86s %8.1f us\n", what, ns / 1e3);
	else
		printf("  %-86s %8s\n", what, "failed");
}

static void delta(const char *what, double with, double without)
{
	if (isfinite(with) && isfinite(without))
		printf("  %-86s %+8.1f us\n", what, (with - without) / 1e3);
}

static int find_pbench(void)
{
	return bench_sibling(pbench_path, sizeof(pbench_path), "../pbench");
}

int main(void)
{
	struct pbench_counters_opts hold_opts = { .size = sizeof(hold_opts), .cpu = -1 };
	struct pbench_counters *hold = NULL;
	struct pbench_cpu_probe *probe = NULL;
	struct pbench_speed *speed;
	struct replay full = { .events = PB_EVENTS }, perchild, noprobe, spawn;
	double lo, hi, lo2, hi2, slope, slope_sw, r_full, r_per, r_noprobe, r_spawn, r_prep;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int cpu = sched_getcpu();

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("bench_stat_cost: where the time of one run of 'pbench stat -- true' goes, in this "
	       "run\n");
	if (find_pbench()) {
		printf("bench_stat_cost: not measured: no pbench in the parent directory of this "
		       "program (make bench builds it)\n");
		return 0;
	}
	if (pbench_cpu_probe_new(&probe, cpu < 0 ? 0 : cpu))
		probe = NULL;
	full.probe = probe;
	perchild = full;
	noprobe = full;
	noprobe.probe = NULL;
	spawn = noprobe;
	spawn.spawn = 1;

	printf("\n1. pbench stat --mode unprepared -r N -q -- true: one more run costs (wall(%d) - "
	       "wall(%d)) / %d, median of %d rounds\n", N_BIG, N_SMALL, N_BIG - N_SMALL, ROUNDS);
	slope = pbench_slope(PB_EVENTS, &lo, &hi);
	slope_sw = pbench_slope(SW_EVENTS, &lo2, &hi2);
	printf("  %-86s %8.1f us (%.1f to %.1f)\n", "default events (-e " PB_EVENTS ")",
	       slope / 1e3, lo / 1e3, hi / 1e3);
	printf("  %-86s %8.1f us (%.1f to %.1f)\n", "-e " SW_EVENTS " (what this VM can count)",
	       slope_sw / 1e3, lo2 / 1e3, hi2 / 1e3);

	/* As pbench stat holds its own set (see the top of this file). */
	pbench_counters_open(&hold, PB_EVENTS, &hold_opts);
	printf("\n2. each step alone, fastest of %d blocks of %d calls; a set of the default "
	       "events held open, as pbench stat holds one\n", STEP_BLOCKS, STEP_REPS);
	line("pbench_command_resolve(\"true\"): PATH search, stat + access per directory",
	     time_step(step_resolve, NULL));
	line("noise probe begin + end: /proc/stat, /proc/softirqs twice, /proc/interrupts when moved (kept open)",
	     probe ? time_step(step_probe, probe) : NAN);
	line("counters open + close: the default events (cycles and instructions fail here)",
	     time_step(step_counters, PB_EVENTS));
	line("counters open + close: " SW_EVENTS, time_step(step_counters, SW_EVENTS));
	line("counters open + close: task-clock", time_step(step_counters, "task-clock"));
	pbench_counters_free(hold);
	line("counters open + close: the default events, no other set held (static keys flip)",
	     time_step(step_counters, PB_EVENTS));
	line("counters open + close: the four software events, no other set held",
	     time_step(step_counters, SW_EVENTS));
	pbench_counters_open(&hold, PB_EVENTS, &hold_opts);
	line("getrusage x2, setitimer x2 (--timeout off), sched_getcpu",
	     time_step(step_misc, NULL));
	if (!pbench_speed_new(&speed)) {
		line("the throughput reference read once: fastest of three passes",
		     time_step(step_speed, speed));
		pbench_speed_free(speed);
	}
	line("fork + exec + wait of true (pbench's way: fork)", time_step(step_fork, NULL));
	line("posix_spawn + wait of true (clone with CLONE_VFORK: hyperfine's way)",
	     time_step(step_spawn, NULL));
	line("pbench_child_start + wait + free, no events (resolve, vfork)",
	     time_step(step_child, ""));
	line("pbench_child_start + wait + read + free, a set of the default events per run "
	     "(handshake)", time_step(step_child, PB_EVENTS));
	full.held = noprobe.held = open_held();
	line("pbench_child_start + wait + counts + free, counted in a held set (vfork)",
	     full.held ? time_step(step_child_held, full.held) : NAN);

	printf("\n3. one run replayed as run_set does it (probe, child counted in the held set, "
	       "wait, counts, free, getrusage, setitimer), and without each piece\n");
	r_full = time_step(step_replay, &full);
	r_per = time_step(step_replay, &perchild);
	r_noprobe = time_step(step_replay, &noprobe);
	pbench_counters_free(full.held);	/* posix_spawn's child inherits nothing */
	r_spawn = time_step(step_replay, &spawn);
	r_prep = replay_prepared(ncpu > 1 ? (int)ncpu - 1 : 0);
	line("one run, the default events", r_full);
	line("  pinned to one CPU, memory locked (as prepared)", r_prep);
	line("one run, a set opened per run on the child after fork (the handshake, until "
	     "now)", r_per);
	line("one run, no noise probe", r_noprobe);
	line("one run, no probe, posix_spawn + wait instead of the child path (no counters)",
	     r_spawn);
	printf("\n  what each piece costs in place:\n");
	delta("a set per run on the child, fork and the handshake, over the held set and vfork",
	      r_per, r_full);
	delta("the noise probe (/proc/interrupts only when the total moved)", r_full, r_noprobe);
	delta("the child path (vfork, inherited counters) over posix_spawn", r_noprobe, r_spawn);
	delta("pinning to one CPU (the child and pbench take turns)", r_prep, r_full);
	delta("pbench's slope beyond the replayed run: per-run analysis and report", slope,
	      r_full);
	pbench_counters_free(hold);
	pbench_cpu_probe_free(probe);
	return 0;
}
