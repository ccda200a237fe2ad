/* SPDX-License-Identifier: MIT */
/*
 * Counting what the caller did not start (pbench_target_*, issue 39): a child process of the
 * test's, attached while it spins, its rows and counts; the whole machine per CPU where this
 * user may count CPUs; the checks before anything opens (a list that does not parse, a PID
 * that does not exist, a zombie, a CPU not online, a cgroup that does not exist); the getters'
 * ranges.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

static pid_t spinner(void)
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0)
		for (;;)
			;
	return pid;
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The CPU time pid has run, ns, by the kernel's own account (/proc/PID/schedstat's first
 * field: up to a tick behind for a task running elsewhere); -1 without it (a kernel without
 * CONFIG_SCHED_INFO). */
static long long ran_ns(pid_t pid)
{
	char path[64];
	long long ns = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &ns) != 1)
		ns = -1;
	fclose(f);
	return ns;
}

/* At least ms, then on (in steps of 10 ms, 5 s at most) until pid has run 10 ms of CPU time
 * since since_ns (an earlier ran_ns()): a loaded machine (SCHED_FIFO tasks on both CPUs) may give
 * a spinner nothing in a window of 100 ms, and then its count says nothing of the counting. */
static void nap_until_ran(pid_t pid, long ms, long long since_ns)
{
	nap_ms(ms);
	for (int i = 0; i < 500 && since_ns >= 0 && ran_ns(pid) - since_ns < 10000000; i++)
		nap_ms(10);
}

Test(targets, a_spinning_child_counted_while_it_runs_and_left_running)
{
	struct pbench_target_opts o = PBENCH_TARGET_OPTS_INIT;
	struct pbench_target_row row = { .size = sizeof(row) };
	struct pbench_count c = { .size = sizeof(c) };
	struct pbench_target *t;
	char list[32];
	pid_t pid = spinner();
	long long ran;
	int err;

	snprintf(list, sizeof(list), "%d", (int)pid);
	o.kind = PBENCH_TARGET_PIDS;
	o.list = list;
	err = pbench_target_new(&t, "task-clock,context-switches", &o);
	cr_assert_eq(err, 0, "%s", pbench_strerror(err));
	cr_assert_eq(pbench_target_nr_rows(t), 1);
	cr_assert_eq(pbench_target_nr_events(t), 2);
	cr_assert_str_eq(pbench_target_name(t, 0), "task-clock");
	cr_assert_null(pbench_target_name(t, 2));
	cr_assert_eq(pbench_target_row(t, 0, &row), 0);
	cr_assert_eq(row.pid, pid);
	cr_assert_eq(row.tid, pid);
	cr_assert_eq(row.cpu, -1);
	cr_assert_eq(pbench_target_alive(t), 1);
	cr_assert_eq(pbench_target_enable(t), 0);
	ran = ran_ns(pid);
	nap_until_ran(pid, 100, ran);
	cr_assert_eq(pbench_target_disable(t), 0);
	cr_assert_eq(pbench_target_read(t), 0);
	cr_assert_eq(pbench_target_get(t, 0, 0, &c), 0);
	/* it ran 10 ms at least since the count began, by the kernel's account (read after the
	 * enable: up to a tick behind, so 6 ms at least) */
	cr_assert_gt(c.value, 1000000, "task-clock %llu ns", (unsigned long long)c.value);
	cr_assert_eq(pbench_target_get(t, 1, 0, &c), -EINVAL);
	cr_assert_eq(pbench_target_row(t, 1, &row), -EINVAL);
	/* detached: the child still runs, and is ended by the test */
	pbench_target_free(t);
	cr_assert_eq(kill(pid, 0), 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

Test(targets, a_target_that_ends_keeps_its_counts)
{
	struct pbench_target_opts o = PBENCH_TARGET_OPTS_INIT;
	struct pbench_count c = { .size = sizeof(c) };
	struct pbench_target *t;
	char list[32];
	pid_t pid = spinner();
	long long ran;

	snprintf(list, sizeof(list), "%d", (int)pid);
	o.kind = PBENCH_TARGET_TIDS;
	o.list = list;
	cr_assert_eq(pbench_target_new(&t, "task-clock", &o), 0);
	cr_assert_eq(pbench_target_enable(t), 0);
	ran = ran_ns(pid);
	nap_until_ran(pid, 50, ran);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	cr_assert_eq(pbench_target_alive(t), 0);
	cr_assert_eq(pbench_target_read(t), 0);
	cr_assert_eq(pbench_target_get(t, 0, 0, &c), 0);
	cr_assert_gt(c.value, 0);
	pbench_target_free(t);
}

Test(targets, the_checks_before_anything_opens)
{
	struct pbench_target_opts o = PBENCH_TARGET_OPTS_INIT;
	struct pbench_target *t = (struct pbench_target *)1;
	char list[32];
	siginfo_t si;
	pid_t z;

	o.kind = PBENCH_TARGET_PIDS;
	o.list = "12,x";
	cr_assert_eq(pbench_target_check(&o), -EINVAL);
	cr_assert(strstr(pbench_strerror(-EINVAL), "not a list of PIDs"));
	o.list = "2147483646";
	cr_assert_eq(pbench_target_new(&t, "task-clock", &o), -ESRCH);
	cr_assert_null(t);
	cr_assert(strstr(pbench_strerror(-ESRCH), "no process 2147483646"));
	z = fork();
	cr_assert_geq(z, 0);
	if (z == 0)
		_exit(0);
	/* a zombie once it has exited, however long the machine took to run it: waited for,
	 * not reaped */
	cr_assert_eq(waitid(P_PID, (id_t)z, &si, WEXITED | WNOWAIT), 0);
	snprintf(list, sizeof(list), "%d", (int)z);
	o.list = list;
	cr_assert_eq(pbench_target_check(&o), -ESRCH);
	cr_assert(strstr(pbench_strerror(-ESRCH), "is a zombie"), "%s", pbench_strerror(-ESRCH));
	waitpid(z, NULL, 0);
	o.kind = PBENCH_TARGET_CPUS;
	o.list = "4095";
	cr_assert_eq(pbench_target_check(&o), -EINVAL);
	cr_assert(strstr(pbench_strerror(-EINVAL), "not online"));
	o.kind = PBENCH_TARGET_CGROUP;
	o.list = "pbench-no-such-cgroup";
	cr_assert_eq(pbench_target_check(&o), -ENOENT);
	o.kind = 9;
	cr_assert_eq(pbench_target_check(&o), -EINVAL);
	cr_assert_eq(pbench_target_check(NULL), -EINVAL);
}

Test(targets, every_online_cpu_a_row_with_its_topology)
{
	struct pbench_target_opts o = PBENCH_TARGET_OPTS_INIT;
	struct pbench_target_row row = { .size = sizeof(row) };
	struct pbench_count c = { .size = sizeof(c) };
	struct pbench_target *t;
	int err, n = (int)sysconf(_SC_NPROCESSORS_ONLN);

	o.kind = PBENCH_TARGET_CPUS;
	err = pbench_target_check(&o);
	if (err == -EACCES || err == -EPERM)
		cr_skip_test("this user may not count CPUs (perf_event_paranoid, CAP_PERFMON): %s",
			     pbench_strerror(err));
	cr_assert_eq(pbench_target_new(&t, "cpu-clock", &o), 0, "%s", pbench_strerror(err));
	cr_assert_eq(pbench_target_nr_rows(t), n);
	cr_assert_eq(pbench_target_alive(t), 1);
	cr_assert_eq(pbench_target_enable(t), 0);
	nap_ms(50);
	cr_assert_eq(pbench_target_disable(t), 0);
	cr_assert_eq(pbench_target_read(t), 0);
	for (int r = 0; r < n; r++) {
		cr_assert_eq(pbench_target_row(t, r, &row), 0);
		cr_assert_geq(row.cpu, 0);
		cr_assert_eq(row.pid, -1);
		cr_assert_geq(row.socket, 0, "CPU %d's socket", row.cpu);
		cr_assert_eq(pbench_target_get(t, r, 0, &c), 0);
		/* cpu-clock on a CPU counts the whole window, idle or not */
		cr_assert_gt(c.value, 40000000, "CPU %d: %llu ns", row.cpu,
			     (unsigned long long)c.value);
	}
	pbench_target_free(t);
}
