/* SPDX-License-Identifier: MIT */
/* Counting a child command from its exec: the handshake, inherit, and every way it can fail. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include "testutil.h"

/* The run's counts, one at a time, into k[0..n-1]: how many it has, or the error. */
static int child_counts(const struct pbench_child *ch, struct pbench_count *k, int n)
{
	int nr = pbench_child_nr_counts(ch), err = 0;

	for (int i = 0; i < n && i < nr && !err; i++) {
		k[i].size = sizeof(k[i]);
		err = pbench_child_count(ch, i, &k[i]);
	}
	return nr < 0 ? nr : err ? err : nr;
}

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
		cr_assert_eq(child_counts(ch, k, n), n);
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
	uint64_t tree_ns;

	run(argv, "task-clock,context-switches,page-faults", &res, k, 3);
	cr_assert_eq(res.exited, 1);
	cr_assert_eq(res.exit_status, 0);
	cr_assert_eq(k[0].status, PBENCH_EVENT_OK, "%s", pbench_event_status_name(k[0].status));
	cr_assert_gt(k[2].value, 100u, "three processes fault in more than 100 pages");
	/* Both loops ran in grandchildren: the count holds their CPU time, most of the tree's
	 * (wait4's, the shell waited for them), where the shell alone used a few ms of it. Not
	 * against the wall time, which a loaded machine stretches: the tree may get a quarter of
	 * a CPU there. */
	tree_ns = res.user_ns + res.system_ns;
	cr_log_info("task-clock %.1f ms, the tree's CPU time %.1f ms, wall %.1f ms",
		    (double)k[0].value / 1e6, (double)tree_ns / 1e6, (double)res.ns / 1e6);
	cr_assert_gt(k[0].value, tree_ns / 2, "task-clock %lu ns vs the tree's CPU time %lu ns "
		     "(wait4; wall %lu ns)", (unsigned long)k[0].value, (unsigned long)tree_ns,
		     (unsigned long)res.ns);
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
	cr_assert_eq(counts_read(c, k, 1), 1);
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

/* Why a command cannot start, said: each error its sentence, the #! line read from the file. */
Test(child, command_explain)
{
	char tmp[] = "/tmp/pbench-test-XXXXXX", buf[512], want[512];
	int fd = mkstemp(tmp);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "#!/no/such/interp -x\n", 21), 21);
	close(fd);
	chmod(tmp, 0755);
	cr_assert_eq(pbench_command_resolve(tmp, want, sizeof(want)), -PBENCH_EBAD_INTERP);
	cr_assert_eq(pbench_command_explain(tmp, -PBENCH_EBAD_INTERP, buf, sizeof(buf)), 1);
	snprintf(want, sizeof(want), "command '%s' cannot run: its interpreter '/no/such/interp' "
		 "(its #! line) is not found or not executable", tmp);
	cr_assert_str_eq(buf, want);
	unlink(tmp);	/* gone: the loader's sentence, no interpreter to name */
	cr_assert_eq(pbench_command_explain(tmp, -PBENCH_EBAD_INTERP, buf, sizeof(buf)), 1);
	snprintf(want, sizeof(want), "command '%s' cannot run: its interpreter or dynamic loader "
		 "is missing", tmp);
	cr_assert_str_eq(buf, want);
	cr_assert_eq(pbench_command_explain("xyz", -PBENCH_ENOT_FOUND, buf, sizeof(buf)), 1);
	cr_assert_str_eq(buf, "command 'xyz' not found");
	cr_assert_eq(pbench_command_explain("xyz", -PBENCH_ENOT_EXEC, buf, sizeof(buf)), 1);
	cr_assert_str_eq(buf, "command 'xyz' cannot be executed (not an executable file, or no "
			 "permission)");
	strcpy(buf, "untouched");
	cr_assert_eq(pbench_command_explain("xyz", -ENOMEM, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "untouched");
	cr_assert_eq(pbench_command_explain("xyz", -PBENCH_ENOT_FOUND, buf, 8), 1);
	cr_assert_str_eq(buf, "command");		/* cut to len */
	cr_assert_eq(pbench_command_explain(NULL, -PBENCH_ENOT_FOUND, buf, sizeof(buf)), -EINVAL);
}

/* --shell: the line whole, for /bin/sh; split, the same line is words. */
Test(child, command_shell)
{
	char **v = NULL;

	cr_assert_eq(pbench_command_shell(&v, "echo 'a b' | wc"), 0);
	cr_assert_str_eq(v[0], "/bin/sh");
	cr_assert_str_eq(v[1], "-c");
	cr_assert_str_eq(v[2], "echo 'a b' | wc");
	cr_assert_null(v[3]);
	pbench_command_free(v);
	cr_assert_eq(pbench_command_shell(&v, NULL), -EINVAL);
	cr_assert_eq(pbench_command_split(&v, "echo 'a b'"), 0);
	cr_assert_str_eq(v[1], "a b");
	pbench_command_free(v);
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

/* The subreaper's scope (issue 25): a child the caller forks on another thread while a command
 * runs is the caller's, not one the command left. The command leaves a job, so its end goes
 * through the whole sweep (SIGTERM to what is left, reaping); system()'s shell must still
 * exit 7 and be reaped by system() itself (before: killed by SIGTERM, or reaped by pbench and
 * system() -1). */
static void *call_system(void *arg)
{
	*(int *)arg = system("sleep 0.5; exit 7");
	return NULL;
}

Test(child, a_child_the_caller_forks_meanwhile_is_left_alone)
{
	char *argv[] = { "sh", "-c", "sleep 30 & sleep 0.2", NULL };
	struct pbench_child_opts o = { .size = sizeof(o) };
	struct pbench_child_result res = { .size = sizeof(res) };
	struct pbench_child *ch;
	pthread_t t;
	int st = -2;

	cr_assert_eq(pbench_child_start(&ch, argv, &o), 0);
	cr_assert_eq(pthread_create(&t, NULL, call_system, &st), 0);
	cr_assert_eq(pbench_child_wait(ch, &res), 0);
	pbench_child_free(ch);
	pthread_join(t, NULL);
	cr_expect_eq(res.left_behind, 1, "the command's job: %d left", res.left_behind);
	cr_assert(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 7,
		  "system() returned %d (signal %d): its child was taken for the command's", st,
		  st != -1 && WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	assert_no_children();
}

/* ---- what pbench compare --duet needs: two commands at once ------------------------------- */

/* CLOCK_MONOTONIC_RAW, the clock pbench's ticks are calibrated against. */
static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Started one after the other, the first ends first: wait_any says so without waiting for
 * the other, and its time is its own (no longer than the test saw it run). Ending it leaves
 * the second running, though that one is a child pbench did not have when the first started;
 * the subreaper flag stays until the last one ends. The second ends when the test says so (a
 * line written to the FIFO it reads, 0.3 s after it started at the earliest), not by a sleep
 * the first must outlast: on a loaded machine the first's sleep 0.02 took 0.68 s, longer
 * than the second's 0.3 (pinned to a CPU a SCHED_FIFO task held). */
Test(child, two_at_once_each_reaped_when_it_ends, .timeout = 60)
{
	char dir[] = "/tmp/pbench-two-XXXXXX", fifo[64];
	char *quick[] = { "sleep", "0.02", NULL };
	char *slow[] = { "sh", "-c", "read x <\"$0\"", fifo, NULL };
	struct pbench_child_opts o = { .size = sizeof(o) };
	struct pbench_child_result res = { .size = sizeof(res) };
	struct pbench_child *ch[2];
	int sub = -1, fds = count_fds(), fd;
	uint64_t t0, t1;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/go", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	t0 = mono_ns();
	cr_assert_eq(pbench_child_start(&ch[0], quick, &o), 0);
	cr_assert_eq(pbench_child_start(&ch[1], slow, &o), 0);
	cr_assert_eq(pbench_child_wait_any(ch, 2, 0), 0);
	cr_assert_eq(pbench_child_wait(ch[0], &res), 0);
	t1 = mono_ns();
	cr_assert(res.exited && res.exit_status == 0);
	cr_assert_leq(res.ns, t1 - t0 + 1000000, "the quick one took %llu ns, the test saw it "
		      "for %llu ns", (unsigned long long)res.ns, (unsigned long long)(t1 - t0));
	cr_assert_eq(pbench_child_wait_any(ch, 2, 0.01), -ETIMEDOUT,
		     "ending the quick one ended the slow one too");
	cr_assert_eq(prctl(PR_GET_CHILD_SUBREAPER, &sub, 0, 0, 0), 0);
	cr_assert_eq(sub, 1, "the subreaper flag went before the last command ended");
	while (mono_ns() - t0 < 300000000)
		usleep(10000);
	fd = open(fifo, O_WRONLY);	/* once the slow one reads it */
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "go\n", 3), 3);
	close(fd);
	cr_assert_eq(pbench_child_wait_any(ch, 2, 0), 1);
	cr_assert_eq(pbench_child_wait(ch[1], &res), 0);
	cr_assert(res.exited && res.exit_status == 0, "the slow one was killed (signal %d)",
		  res.term_signal);
	cr_assert_geq(res.ns, 250000000);
	cr_assert_eq(pbench_child_wait_any(ch, 2, 0), -ECHILD);
	cr_assert_eq(prctl(PR_GET_CHILD_SUBREAPER, &sub, 0, 0, 0), 0);
	cr_assert_eq(sub, 0, "the subreaper flag was left set");
	pbench_child_free(ch[0]);
	pbench_child_free(ch[1]);
	unlink(fifo);
	rmdir(dir);
	cr_assert_eq(count_fds(), fds, "a descriptor leaked");
	assert_no_children();
}

Test(child, wait_any_times_out_and_the_children_still_run)
{
	char *argv[] = { "sleep", "30", NULL };
	struct pbench_child_opts o = { .size = sizeof(o) };
	struct pbench_child *ch[2] = { NULL, NULL };

	cr_assert_eq(pbench_child_start(&ch[1], argv, &o), 0);
	cr_assert_eq(pbench_child_wait_any(ch, 2, 0.05), -ETIMEDOUT);
	cr_assert_eq(pbench_child_wait_any(ch, 2, 0.01), -ETIMEDOUT, "it ended");
	cr_assert_eq(pbench_child_wait_any(ch, 0, 0), -EINVAL);
	pbench_child_free(ch[1]);
	assert_no_children();
}

/* Pinned: the command sees one CPU in its affinity, the one asked. Its stdout goes to the
 * descriptor given. Its own context switches come back from wait4 (sleep blocks once at
 * least). */
Test(child, pinned_with_stdout_to_a_descriptor)
{
	char *argv[] = { "sh", "-c", "grep Cpus_allowed_list /proc/self/status; sleep 0.01",
			 NULL };
	struct pbench_child_opts o = { .size = sizeof(o), .flags = PBENCH_CHILD_PIN };
	struct pbench_child_result res = { .size = sizeof(res) };
	struct pbench_child *ch;
	char buf[256] = "", want[64];
	int fd = memfd_create("test_child", MFD_CLOEXEC);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	ssize_t n;

	cr_assert_geq(fd, 0);
	o.stdout_fd = fd;
	o.cpu = (int)(ncpu > 1 ? ncpu - 1 : 0);
	cr_assert_eq(pbench_child_start(&ch, argv, &o), 0);
	cr_assert_eq(pbench_child_wait(ch, &res), 0);
	pbench_child_free(ch);
	cr_assert(res.exited && res.exit_status == 0);
	cr_assert_geq(res.ctx_voluntary, 1);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	cr_assert_gt(n, 0, "nothing reached the descriptor");
	snprintf(want, sizeof(want), "Cpus_allowed_list:\t%d\n", o.cpu);
	cr_assert_str_eq(buf, want);
	/* A CPU out of range is refused before anything starts. */
	o.cpu = CPU_SETSIZE;
	cr_assert_eq(pbench_child_start(&ch, argv, &o), -EINVAL);
	assert_no_children();
}

/* ---- counted in a set the caller holds on its own thread (opts.counters) ------------------ */

static struct pbench_counters *held_set(const char *events)
{
	struct pbench_counters_opts o = { .size = sizeof(o), .cpu = -1,
					  .flags = PBENCH_COUNTERS_INHERIT |
						   PBENCH_COUNTERS_ENABLE_ON_EXEC };
	struct pbench_counters *c;

	ASSERT_OK(pbench_counters_open(&c, events, &o));
	return c;
}

static void run_held(struct pbench_counters *c, char *const argv[], struct pbench_count *k,
		     int n, struct pbench_child_result *res)
{
	struct pbench_child_opts o = { .size = sizeof(o), .quiet = 1, .counters = c };
	struct pbench_child *ch;

	cr_assert_eq(pbench_child_start(&ch, argv, &o), 0);
	cr_assert_null(pbench_child_counters(ch), "no set of its own");
	cr_assert_eq(pbench_child_nr_counts(ch), -EAGAIN, "nothing to read before the wait");
	cr_assert_eq(pbench_child_count(ch, 0, k), -EAGAIN, "nothing to read before the wait");
	res->size = sizeof(*res);
	cr_assert_eq(pbench_child_wait(ch, res), 0);
	for (int i = 0; i < n; i++)
		k[i].size = sizeof(k[i]);
	cr_assert_eq(child_counts(ch, k, n), n);
	cr_assert_eq(pbench_child_count(ch, n, k), -EINVAL, "i %d is past the events", n);
	pbench_child_free(ch);
}

/* Every run counted, and only that run: the kernel lost an inherited set after two children
 * until the set got its non-inherited anchor (the third run counted 0 then). */
Test(child, held_set_counts_every_run_and_only_it)
{
	struct pbench_counters *c = held_set("task-clock,page-faults");
	char *busy[] = { "sh", "-c", "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done", NULL };
	char *quick[] = { "true", NULL };
	struct pbench_child_result res;
	struct pbench_count k[2];
	uint64_t quick_max = 0, busy_min = UINT64_MAX;

	for (int i = 0; i < 12; i++) {
		run_held(c, i % 3 == 2 ? busy : quick, k, 2, &res);
		cr_assert_eq(res.exited, 1);
		cr_assert_eq(k[0].status, PBENCH_EVENT_OK, "run %d: %s (%s)", i,
			     pbench_event_status_name(k[0].status), k[0].reason);
		cr_assert_gt(k[1].value, 10u, "run %d: %lu page faults", i,
			     (unsigned long)k[1].value);
		cr_assert_leq(k[0].value, res.ns + 1000000, "run %d: no more CPU than its wall", i);
		if (i % 3 == 2)
			busy_min = k[0].value < busy_min ? k[0].value : busy_min;
		else
			quick_max = k[0].value > quick_max ? k[0].value : quick_max;
	}
	/* The busy runs' own time, not a total since the set opened: each is several times
	 * a run of true, and a run of true after them is not. */
	cr_assert_gt(busy_min, 3 * quick_max, "busy %lu ns, quick up to %lu ns",
		     (unsigned long)busy_min, (unsigned long)quick_max);
	pbench_counters_free(c);
	assert_no_children();
}

Test(child, held_set_counts_grandchildren)
{
	struct pbench_counters *c = held_set("task-clock");
	char *argv[] = { "sh", "-c",
			 "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done & "
			 "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done & wait", NULL };
	struct pbench_child_result res;
	struct pbench_count k[1];
	struct rusage r0, r1;
	double cpu_ns;

	/* Against the CPU time the kernel's accounting gives the command's tree (the shell
	 * waits for both loops: its children's time is in ours once it is reaped), not the wall
	 * time, which a loaded machine stretches: without the grandchildren the set would hold
	 * only the shell's own few ms of the loops' hundreds. */
	getrusage(RUSAGE_CHILDREN, &r0);
	run_held(c, argv, k, 1, &res);
	getrusage(RUSAGE_CHILDREN, &r1);
	cpu_ns = ((double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) +
		  (double)(r1.ru_stime.tv_sec - r0.ru_stime.tv_sec)) * 1e9 +
		 ((double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) +
		  (double)(r1.ru_stime.tv_usec - r0.ru_stime.tv_usec)) * 1e3;
	cr_assert_gt((double)k[0].value, cpu_ns / 2, "task-clock %lu ns vs the tree's CPU time "
		     "%.0f ns (getrusage; wall %lu ns)", (unsigned long)k[0].value, cpu_ns,
		     (unsigned long)res.ns);
	pbench_counters_free(c);
	assert_no_children();
}

/* A command started while one counted in a held set runs would inherit the set: refused. */
Test(child, held_set_runs_alone)
{
	struct pbench_counters *c = held_set("task-clock");
	struct pbench_child_opts held = { .size = sizeof(held), .counters = c };
	struct pbench_child_opts plain = { .size = sizeof(plain) };
	struct pbench_child_result res = { .size = sizeof(res) };
	char *argv[] = { "sleep", "5", NULL };
	struct pbench_child *a, *b;

	cr_assert_eq(pbench_child_start(&a, argv, &held), 0);
	cr_assert_eq(pbench_child_start(&b, argv, &plain), -EBUSY);
	cr_assert_eq(pbench_child_start(&b, argv, &held), -EBUSY);
	pbench_child_free(a);
	cr_assert_eq(pbench_child_start(&a, argv, &plain), 0);
	cr_assert_eq(pbench_child_start(&b, argv, &held), -EBUSY);
	pbench_child_free(a);
	/* The set is ready again after a command freed unwaited. */
	argv[0] = "true";
	argv[1] = NULL;
	cr_assert_eq(pbench_child_start(&a, argv, &held), 0);
	cr_assert_eq(pbench_child_wait(a, &res), 0);
	pbench_child_free(a);
	pbench_counters_free(c);
	assert_no_children();
}

static int exit_code(char *const argv[], struct pbench_counters *c, char *const envp[])
{
	struct pbench_child_opts o = { .size = sizeof(o), .counters = c, .envp = envp,
				       .events = c ? NULL : "task-clock" };
	struct pbench_child_result res = { .size = sizeof(res) };
	struct pbench_child *ch;

	cr_assert_eq(pbench_child_start(&ch, argv, &o), 0);
	cr_assert_eq(pbench_child_wait(ch, &res), 0);
	pbench_child_free(ch);
	cr_assert_eq(res.exited, 1);
	return res.exit_status;
}

/* opts.envp, on both ways of starting (a handshake for a set of its own, vfork for a held
 * one): the command sees that environment and no other. */
Test(child, environment_given)
{
	struct pbench_counters *c = held_set("task-clock");
	char *argv[] = { "/bin/sh", "-c", "test \"$PB_TEST_VAR\" = yes && test -z \"$HOME\"",
			 NULL };
	char *env[] = { "PB_TEST_VAR=yes", NULL };

	setenv("HOME", "/root", 1);
	cr_assert_eq(exit_code(argv, c, env), 0);
	cr_assert_eq(exit_code(argv, NULL, env), 0);
	cr_assert_eq(exit_code(argv, c, NULL), 1, "the caller's own environment");
	cr_assert_eq(exit_code(argv, NULL, NULL), 1);
	pbench_counters_free(c);
	assert_no_children();
}

/* opts.path: the file exec'd, resolved once by the caller; the command keeps its argv[0]. */
Test(child, path_given_is_exec_d_with_argv_as_given)
{
	char *argv[] = { "pbench-no-such-name", "-c", "test \"$0\" = pbench-no-such-name", NULL };
	struct pbench_child_opts o = { .size = sizeof(o), .path = "/bin/sh" };
	struct pbench_child_result res = { .size = sizeof(res) };
	struct pbench_child *ch;

	cr_assert_eq(pbench_child_start(&ch, argv, &o), 0, "not looked up in PATH");
	cr_assert_eq(pbench_child_wait(ch, &res), 0);
	pbench_child_free(ch);
	cr_assert(res.exited && res.exit_status == 0, "argv[0] as given: exit %d",
		  res.exit_status);
	o.path = NULL;
	cr_assert_eq(pbench_child_start(&ch, argv, &o), -PBENCH_ENOT_FOUND);
	assert_no_children();
}

/* The command's largest resident set: dd reading 64 MiB at once holds a 64 MiB buffer. */
Test(child, max_rss_of_the_command)
{
	char *argv[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=64M", "count=1", NULL };
	struct pbench_child_opts o = { .size = sizeof(o), .quiet = 1 };
	struct pbench_child_result res = { .size = sizeof(res) };
	struct pbench_child *ch;

	cr_assert_eq(pbench_child_start(&ch, argv, &o), 0);
	cr_assert_eq(pbench_child_wait(ch, &res), 0);
	pbench_child_free(ch);
	cr_assert(res.exited && res.exit_status == 0);
	cr_assert_geq(res.max_rss_kib, 64u * 1024, "%lu KiB", (unsigned long)res.max_rss_kib);
	assert_no_children();
}

/* ---- ending a command reaches every process below it, in any group ------------------------ */

/* The processes of the tree a test starts (they write their pids to a file), for the alarm
 * that ends them should pbench not return: a test that fails must not leave a spinner. */
static pid_t tree_pid[8];
static volatile sig_atomic_t tree_n, tree_alarm;

static void tree_kill(int sig)
{
	(void)sig;
	tree_alarm = 1;
	for (int i = 0; i < tree_n; i++)
		kill(tree_pid[i], SIGKILL);
}

/* The pids written to path, once there are want of them (5 s at most): how many. */
static int tree_read(const char *path, int want)
{
	for (int tries = 0; tries < 500; tries++) {
		FILE *f = fopen(path, "r");
		int pid, n = 0;

		while (f && n < (int)ARRAY_SIZE(tree_pid) && fscanf(f, "%d", &pid) == 1)
			tree_pid[n++] = pid;
		if (f)
			fclose(f);
		tree_n = n;
		if (n >= want)
			return n;
		usleep(10000);
	}
	return tree_n;
}

/* A script of one line into dir/name: its path (static). */
static const char *tree_script(const char *dir, const char *name, const char *text)
{
	static char path[2][512];
	static int k;
	char *p = path[k++ % 2];
	FILE *f;

	snprintf(p, sizeof(path[0]), "%s/%s", dir, name);
	f = fopen(p, "w");
	cr_assert_not_null(f);
	fprintf(f, "%s\n", text);
	fclose(f);
	return p;
}

/*
 * Start sh SCRIPT PIDFILE, wait until its processes have started (it never ends by itself;
 * 0.1 s from its start at least: the one spinner spins no longer than needed), then end it with
 * pbench_child_free() under a 10 s alarm: the seconds that took. Then no process of the tree
 * (want pids, each written to PIDFILE by its process) is left, and pbench has no child.
 */
static double tree_end(const char *script, const char *pids, int want, double grace_s)
{
	char *argv[] = { "sh", (char *)script, (char *)pids, NULL };
	struct pbench_child_opts o = { .size = sizeof(o), .quiet = 1, .kill_grace_s = grace_s };
	struct pbench_child_result res = { .size = sizeof(res) };
	struct pbench_child *ch;
	struct timespec t0, t1;
	int err, n;

	tree_n = 0;
	tree_alarm = 0;
	cr_assert_eq(pbench_child_start(&ch, argv, &o), 0);
	n = tree_read(pids, want);	/* every process of it started (the spinner spins) */
	err = pbench_child_wait_timeout(ch, 0.1, &res);
	signal(SIGALRM, tree_kill);
	alarm(10);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pbench_child_free(ch);	/* ended whatever happened, so that no failure leaves it */
	clock_gettime(CLOCK_MONOTONIC, &t1);
	alarm(0);
	cr_assert_eq(err, -ETIMEDOUT, "the command ended by itself: %s", pbench_strerror(err));
	cr_assert_eq(n, want, "the tree wrote %d of its %d pids", n, want);
	cr_assert_not(tree_alarm, "pbench_child_free() did not return in 10 s: a process of the "
		      "tree was never ended (the alarm killed them)");
	for (int i = 0; i < tree_n; i++)
		cr_assert(kill(tree_pid[i], 0) < 0 && errno == ESRCH,
			  "process %d of the tree was left", tree_pid[i]);
	assert_no_children();
	return (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
}

/*
 * A descendant in a group and session of its own (setsid) whose parent, the command, ignores
 * SIGTERM and so stays alive: it gets the SIGTERM too, in the grace period (before: never; it
 * was handed to pbench only once SIGKILL had ended its parent, and killed then). Another one,
 * which ignores SIGTERM, is killed after the grace period, with the command.
 */
Test(child, a_descendant_in_its_own_group_gets_sigterm_then_sigkill, .timeout = 30)
{
	char dir[] = "/tmp/pbench-tree-XXXXXX", pids[600], mark[640], buf[16] = "";
	const char *handles, *ignores, *cmd;
	char text[1024];
	double took;
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(pids, sizeof(pids), "%s/pids", dir);
	handles = tree_script(dir, "handles", "trap 'echo term >\"$1.term\"; exit 0' TERM; "
			      "echo $$ >>\"$1\"; while :; do sleep 0.05; done");
	ignores = tree_script(dir, "ignores", "trap '' TERM; echo $$ >>\"$1\"; "
			      "while :; do sleep 0.05; done");
	snprintf(text, sizeof(text), "setsid sh %s \"$1\" & setsid sh %s \"$1\" & "
		 "trap '' TERM; echo $$ >>\"$1\"; wait", handles, ignores);
	cmd = tree_script(dir, "cmd", text);
	snprintf(mark, sizeof(mark), "%s.term", pids);
	took = tree_end(cmd, pids, 3, 1.5);
	f = fopen(mark, "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	cr_expect_str_eq(buf, "term\n", "the descendant in its own group got no SIGTERM");
	cr_expect_geq(took, 1.4, "%.2f s: SIGKILL came before the 1.5 s grace period", took);
	unlink(mark);
	unlink(pids);
	unlink(cmd);
	unlink(handles);
	unlink(ignores);
	rmdir(dir);
}

/*
 * What a prepared run's --timeout met (pbench stat --mode prepared --timeout 2 -- sh -c
 * 'timeout 30 sh -c "while :; do :; done"'): the command and what it starts are SCHED_FIFO on
 * one CPU; timeout(1) puts its command in a group of its own, and that one spins, so that the
 * command and timeout, at its priority, never run again. Ending the command must reach the
 * spinner (a grandchild in another group whose parent is alive); before, pbench waited for
 * the killed command for ever. Needs SCHED_FIFO (root, or CAP_SYS_NICE).
 */
Test(child, a_starved_descendant_in_another_group_is_ended, .timeout = 30)
{
	char dir[] = "/tmp/pbench-tree-XXXXXX", pids[600];
	struct sched_param sp = { .sched_priority = 10 }, old_sp;
	int old_pol = sched_getscheduler(0), cpu = sched_getcpu();
	const char *cmd, *spin;
	cpu_set_t old_cpus, one;
	char text[1024];
	double took;

	cr_assert_eq(sched_getaffinity(0, sizeof(old_cpus), &old_cpus), 0);
	cr_assert_eq(sched_getparam(0, &old_sp), 0);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	cr_assert_eq(sched_setaffinity(0, sizeof(one), &one), 0);
	if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
		int e = errno;

		sched_setaffinity(0, sizeof(old_cpus), &old_cpus);
		cr_skip_test("SCHED_FIFO refused (%s): needs root or CAP_SYS_NICE", strerror(e));
	}
	cr_assert_not_null(mkdtemp(dir));
	snprintf(pids, sizeof(pids), "%s/pids", dir);
	spin = tree_script(dir, "spin", "echo $$ $PPID >>\"$1\"; while :; do :; done");
	snprintf(text, sizeof(text), "echo $$ >>\"$1\"; timeout 30 sh %s \"$1\"; true", spin);
	cmd = tree_script(dir, "cmd", text);
	took = tree_end(cmd, pids, 3, 1.0);
	sched_setscheduler(0, old_pol, &old_sp);
	sched_setaffinity(0, sizeof(old_cpus), &old_cpus);
	cr_log_info("the FIFO tree ended in %.3f s", took);
	unlink(pids);
	unlink(cmd);
	unlink(spin);
	rmdir(dir);
}
