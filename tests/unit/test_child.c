/* SPDX-License-Identifier: MIT */
/* Counting a child command from its exec: the handshake, inherit, and every way it can fail. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

static void run(char *const argv[], const char *events, struct pbench_child_result *res,
		struct pbench_count *k, int n)
{
	struct pbench_child_opts o = { .size = sizeof(o), .events = events, .quiet = 1 };
	struct pbench_child *ch;
	int err = pbench_child_start(&ch, argv, &o);

	cr_assert_eq(err, 0, "start %s: %s", argv[0], pbench_strerror(err));
	res->size = sizeof(*res);
	cr_assert_eq(pbench_child_wait(ch, res), 0);
	for (int i = 0; i < n; i++)
		k[i].size = sizeof(k[i]);
	if (n)
		cr_assert_eq(pbench_counters_read(pbench_child_counters(ch), k, n), n);
	pbench_child_free(ch);
}

Test(child, counts_from_exec_including_grandchildren)
{
	/* The shell forks two busy grandchildren; inherit must fold their time in. */
	char *argv[] = { "sh", "-c",
			 "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done & "
			 "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done & wait", NULL };
	struct pbench_child_result res;
	struct pbench_count k[3];

	run(argv, "task-clock,context-switches,page-faults", &res, k, 3);
	cr_assert_eq(res.exited, 1);
	cr_assert_eq(res.exit_status, 0);
	cr_assert_eq(k[0].status, PBENCH_EVENT_OK, "%s", pbench_event_status_name(k[0].status));
	cr_assert_gt(k[2].value, 100u, "three processes fault in more than 100 pages");
	/* Both loops ran in grandchildren: CPU time exceeds what the parent shell alone used,
	 * and on 2 CPUs can exceed the wall time. At minimum it is a large share of it. */
	cr_assert_gt(k[0].value, res.ns / 4, "task-clock %lu ns vs wall %lu ns",
		     (unsigned long)k[0].value, (unsigned long)res.ns);
	cr_assert_gt(res.ticks, 0u);
	assert_no_children();
}

/* A child that spins 30 ms before exec'ing true: counted from exec, the spin is left out;
 * counted from open, it is in. Both are run so the test tells the two apart. */
static uint64_t spin_then_exec(unsigned flags)
{
	struct pbench_counters_opts o = { .size = sizeof(o), .cpu = -1, .flags = flags };
	struct pbench_count k[1] = { { .size = sizeof(k[0]) } };
	struct pbench_counters *c;
	int go[2], status;
	pid_t pid;
	char ch;

	cr_assert_eq(pipe(go), 0);
	pid = fork();
	if (pid == 0) {
		struct timespec t;

		if (read(go[0], &ch, 1) != 1)
			_exit(1);
		/* 30 ms of its own CPU time, however long another task holds the CPU. */
		do
			clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
		while (t.tv_sec == 0 && t.tv_nsec < 30000000);
		execlp("true", "true", (char *)NULL);
		_exit(127);
	}
	o.pid = pid;
	cr_assert_eq(pbench_counters_open(&c, "task-clock", &o), 0);
	cr_assert_eq(write(go[1], "g", 1), 1);
	waitpid(pid, &status, 0);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_assert_eq(pbench_counters_read(c, k, 1), 1);
	pbench_counters_free(c);
	close(go[0]);
	close(go[1]);
	return k[0].value;
}

Test(child, enable_on_exec_leaves_out_the_time_before_exec)
{
	uint64_t from_exec = spin_then_exec(PBENCH_COUNTERS_INHERIT |
					    PBENCH_COUNTERS_ENABLE_ON_EXEC);
	uint64_t from_open = spin_then_exec(PBENCH_COUNTERS_INHERIT |
					    PBENCH_COUNTERS_START_ENABLED);

	cr_assert_gt(from_open, 25000000u, "counted from open: %lu ns", (unsigned long)from_open);
	cr_assert_lt(from_exec, 15000000u, "counted from exec: %lu ns", (unsigned long)from_exec);
	assert_no_children();
}

Test(child, exit_status_and_signal)
{
	char *fail3[] = { "sh", "-c", "exit 3", NULL };
	char *segv[] = { "sh", "-c", "kill -SEGV $$", NULL };
	struct pbench_child_result res;

	run(fail3, "task-clock", &res, NULL, 0);
	cr_assert_eq(res.exited, 1);
	cr_assert_eq(res.exit_status, 3);
	run(segv, NULL, &res, NULL, 0);
	cr_assert_eq(res.signaled, 1);
	cr_assert_eq(res.term_signal, SIGSEGV);
	assert_no_children();
}

Test(child, start_errors_leave_nothing_behind)
{
	char tmp[] = "/tmp/pbench-test-XXXXXX";
	int before = count_fds(), fd = mkstemp(tmp);
	struct pbench_child_opts o = { .size = sizeof(o), .events = "task-clock" };
	struct pbench_child_opts bad = { .size = sizeof(o), .events = "cylces" };
	struct pbench_child *ch = (void *)1;
	char *missing[] = { "pbench-no-such-command-xyz", NULL };
	char *noexec[] = { tmp, NULL };
	char *dir[] = { "/tmp", NULL };
	char *ok[] = { "true", NULL };

	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(pbench_child_start(&ch, missing, &o), -PBENCH_ENOT_FOUND);
	cr_assert_null(ch);
	cr_assert_eq(pbench_child_start(&ch, noexec, &o), -PBENCH_ENOT_EXEC);
	cr_assert_eq(pbench_child_start(&ch, dir, &o), -PBENCH_ENOT_EXEC);
	/* A name error is found after fork: the waiting child must be reaped. */
	cr_assert_eq(pbench_child_start(&ch, ok, &bad), -PBENCH_EUNKNOWN_EVENT);
	cr_assert_null(ch);
	unlink(tmp);
	assert_no_children();
	cr_assert_eq(count_fds(), before, "descriptors left open");
}

Test(child, exec_failure_is_reported)
{
	/* Executable bit set but not a valid binary nor a script: exec fails with ENOEXEC. */
	char tmp[] = "/tmp/pbench-test-XXXXXX";
	int fd = mkstemp(tmp);
	struct pbench_child_opts o = { .size = sizeof(o) };
	struct pbench_child *ch;
	char *argv[] = { tmp, NULL };

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "\x7f" "ELF garbage", 12), 12);
	close(fd);
	chmod(tmp, 0755);
	cr_assert_eq(pbench_child_start(&ch, argv, &o), -PBENCH_ENOT_EXEC);
	unlink(tmp);
	assert_no_children();
}

Test(child, free_kills_a_running_child)
{
	char *argv[] = { "sleep", "30", NULL };
	struct pbench_child_opts o = { .size = sizeof(o) };
	struct pbench_child *ch;

	cr_assert_eq(pbench_child_start(&ch, argv, &o), 0);
	pbench_child_free(ch);
	assert_no_children();
}
