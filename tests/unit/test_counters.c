/* SPDX-License-Identifier: MIT */
/*
 * Counters on the live kernel: the software and msr events go through the same syscall,
 * groups and read format as hardware ones, so they test the whole perf_event path here.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

static double thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static struct pbench_counters *open_self(const char *events)
{
	struct pbench_counters *c;
	int err = pbench_counters_open(&c, events, NULL);

	cr_assert_eq(err, 0, "open '%s': %s", events, pbench_strerror(err));
	cr_assert_eq(pbench_counters_enable(c), 0);
	return c;
}

static void region(struct pbench_counters *c, void (*work)(void *), void *arg,
		   struct pbench_count *k, int n)
{
	for (int i = 0; i < n; i++)
		k[i].size = sizeof(k[i]);
	cr_assert_eq(pbench_counters_start(c), 0);
	work(arg);
	cr_assert_eq(pbench_counters_stop(c), 0);
	cr_assert_eq(counts_delta(c, k, n), n);
}

static void busy_ms(void *arg)
{
	struct pbench_clock_info ci = { .size = sizeof(ci) };
	uint64_t end;

	cr_assert_eq(pbench_clock_info(&ci), 0);
	end = pbench_ticks() + (uint64_t)(*(double *)arg * 1e-3 * (double)ci.hz);
	while (pbench_ticks() < end)
		;
}

/* Busy until this thread has run for *arg ms: the same CPU time however loaded the machine
 * is (make test runs two builds' tests at once). */
static void busy_cpu_ms(void *arg)
{
	double end = thread_cpu_ns() + *(double *)arg * 1e6;

	while (thread_cpu_ns() < end)
		;
}

/* task-clock and CLOCK_THREAD_CPUTIME_ID are two kernel views of the same CPU time. */
Test(counters, task_clock_matches_thread_cputime)
{
	struct pbench_counters *c = open_self("task-clock");
	struct pbench_count k[1];
	double ms = 20, t0, t1, best = 1;
	int tries;

	/* The thread's CPU time leaves out time the kernel accounts as steal or interrupts
	 * (rq->clock_task) while task-clock does not: on a VM whose host takes the vCPU that
	 * can part them by 15%. Short windows, many tries, the closest kept (three of 100 ms
	 * were 7.9% apart at best in a slow hour of this host). Each window is 20 ms of the
	 * thread's own CPU time, however loaded the machine: windows of 20 ms of wall time,
	 * of which those the thread got under half were not compared, left none to compare in
	 * 60 tries beside make test's CLI suites (their prepared runs hold a CPU as SCHED_FIFO). */
	for (tries = 0; tries < 60 && best > 0.02; tries++) {
		t0 = thread_cpu_ns();
		region(c, busy_cpu_ms, &ms, k, 1);
		t1 = thread_cpu_ns();
		cr_assert_eq(k[0].status, PBENCH_EVENT_OK);
		cr_assert_gt(k[0].value, 0u, "task-clock counted nothing in 20 ms of CPU time");
		best = fmin(best, fabs((double)k[0].value - (t1 - t0)) / (t1 - t0));
	}
	cr_assert_lt(best, 0.02, "task-clock vs thread cputime: %.2f%% apart at best",
		     best * 100);
	cr_log_info("task-clock vs thread cputime: %.3f%% apart, the closest of %d windows",
		    best * 100, tries);
	pbench_counters_free(c);
}

static void touch_pages(void *arg)
{
	size_t n = *(size_t *)arg, page = (size_t)sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	cr_assert_neq((void *)p, MAP_FAILED);
	for (size_t i = 0; i < n; i++)
		p[i * page] = 1;
	munmap((void *)p, n * page);
}

Test(counters, page_faults_at_least_pages_touched)
{
	struct pbench_counters *c = open_self("page-faults,minor-faults,major-faults");
	struct pbench_count k[3];
	size_t pages = 1000;

	region(c, touch_pages, &pages, k, 3);
	cr_assert_geq(k[0].value, pages, "page-faults %lu < %zu pages touched",
		      (unsigned long)k[0].value, pages);
	cr_assert_geq(k[1].value, pages, "minor-faults %lu < %zu", (unsigned long)k[1].value,
		      pages);
	cr_assert_eq(k[0].value, k[1].value + k[2].value, "faults = minor + major");
	cr_assert_eq(pbench_counters_nr_groups(c), 1, "three software events share one group");
	pbench_counters_free(c);
}

static void sleep_10_times(void *arg)
{
	(void)arg;
	for (int i = 0; i < 10; i++)
		usleep(1000);
}

Test(counters, context_switches_at_least_sleeps)
{
	struct pbench_counters *c = open_self("context-switches,cpu-migrations,task-clock");
	struct pbench_count k[3];

	region(c, sleep_10_times, NULL, k, 3);
	cr_assert_geq(k[0].value, 10u, "context-switches %lu after 10 sleeps",
		      (unsigned long)k[0].value);
	pbench_counters_free(c);
}

/* msr/tsc/ counts TSC ticks while the thread runs: over a busy loop, the elapsed ticks. */
Test(counters, msr_tsc_matches_tsc_ticks)
{
	struct pbench_counters *c;
	struct pbench_count k[1] = { { .size = sizeof(k[0]) } };
	double best = 1;
	int err;

	if (access("/sys/bus/event_source/devices/msr/events/tsc", R_OK))
		cr_skip_test("no msr PMU with a tsc event on this kernel");
	err = pbench_counters_open(&c, "msr/tsc/", NULL);
	if (err == -PBENCH_ENO_EVENTS) {
		k[0].size = sizeof(k[0]);
		counts_read(c, k, 1);
		pbench_counters_free(c);
		cr_skip_test("msr/tsc/ does not open here: %s", k[0].reason);
	}
	cr_assert_eq(err, 0, "%s", pbench_strerror(err));
	cr_assert_eq(pbench_counters_enable(c), 0);
	/*
	 * A preemption inside the window takes ticks from the count and not from the clock: on a
	 * loaded 2-vCPU guest most 50 ms windows see one, and with three builds beside the test
	 * 30 of 10 ms all did. Short windows, many tries, the best kept.
	 */
	for (int tries = 0; tries < 150 && best > 0.02; tries++) {
		double ms = 2;
		uint64_t t0, t1;

		cr_assert_eq(pbench_counters_start(c), 0);
		t0 = pbench_ticks_begin();
		busy_ms(&ms);
		t1 = pbench_ticks_end();
		cr_assert_eq(pbench_counters_stop(c), 0);
		cr_assert_eq(counts_delta(c, k, 1), 1);
		cr_assert_eq(k[0].status, PBENCH_EVENT_OK);
		best = fmin(best, fabs((double)k[0].value - (double)(t1 - t0)) / (double)(t1 - t0));
	}
	cr_assert_lt(best, 0.02, "msr/tsc/ %lu vs %s ticks: %.2f%% apart",
		     (unsigned long)k[0].value, "measured", best * 100);
	pbench_counters_free(c);
}

/* No PMU here: the hardware events report why, and the software ones still count. */
Test(counters, hardware_not_supported_software_still_counts)
{
	struct pbench_counters *c;
	struct pbench_count k[4];
	double ms = 20;
	int err;

	if (pbench_cpu_has_pmu())
		cr_skip_test("this machine has a hardware PMU: cycles would count");
	err = pbench_counters_open(&c, "cycles,task-clock,instructions,page-faults", NULL);
	cr_assert_eq(err, 0, "%s", pbench_strerror(err));
	cr_assert_eq(pbench_counters_open_status(c, 0), PBENCH_EVENT_NOT_SUPPORTED);
	cr_assert_eq(pbench_counters_enable(c), 0);
	region(c, busy_cpu_ms, &ms, k, 4);
	for (int i = 0; i < 4; i += 2) {
		cr_assert_eq(k[i].status, PBENCH_EVENT_NOT_SUPPORTED, "%s", k[i].name);
		cr_assert_eq(k[i].error, -ENOENT, "%s error %d", k[i].name, k[i].error);
		cr_assert_not_null(strstr(k[i].reason, "ENOENT"), "reason: %s", k[i].reason);
		cr_assert_eq(k[i].value, 0u);
	}
	cr_assert_eq(k[1].status, PBENCH_EVENT_OK);
	cr_assert_gt(k[1].value, 10000000u, "task-clock %lu ns", (unsigned long)k[1].value);
	cr_assert_eq(k[3].status, PBENCH_EVENT_OK);
	pbench_counters_free(c);
}

Test(counters, all_unsupported_gives_no_events_with_reasons)
{
	struct pbench_counters *c;
	struct pbench_count k[2] = { { .size = sizeof(k[0]) }, { .size = sizeof(k[1]) } };
	int err;

	if (pbench_cpu_has_pmu())
		cr_skip_test("this machine has a hardware PMU");
	err = pbench_counters_open(&c, "cycles,instructions", NULL);
	cr_assert_eq(err, -PBENCH_ENO_EVENTS);
	cr_assert_not_null(c, "the set is returned so its reasons can be reported");
	cr_assert_eq(pbench_counters_nr_groups(c), 0);
	cr_assert_eq(counts_read(c, k, 2), 2);
	cr_assert_eq(k[1].status, PBENCH_EVENT_NOT_SUPPORTED);
	cr_assert_neq(k[1].reason[0], 0);
	pbench_counters_free(c);
}

Test(counters, read_totals_and_never_enabled)
{
	struct pbench_counters *c;
	struct pbench_count k[2] = { { .size = sizeof(k[0]) }, { .size = sizeof(k[1]) } };
	double ms = 10;

	cr_assert_eq(pbench_counters_open(&c, "task-clock,cpu-clock", NULL), 0);
	cr_assert_eq(counts_read(c, k, 2), 2);
	cr_assert_eq(k[0].status, PBENCH_EVENT_NOT_COUNTED, "disabled until enable");
	cr_assert_str_eq(k[0].reason, "never enabled");
	cr_assert_eq(pbench_counters_enable(c), 0);
	busy_cpu_ms(&ms);
	cr_assert_eq(pbench_counters_disable(c), 0);
	cr_assert_eq(counts_read(c, k, 2), 2);
	cr_assert_eq(k[0].status, PBENCH_EVENT_OK);
	cr_assert_gt(k[0].value, 5000000u);
	cr_assert_eq(k[0].time_enabled, k[0].time_running);
	cr_assert_eq(pbench_counters_reset(c), 0);
	cr_assert_eq(counts_read(c, k, 2), 2);
	cr_assert_lt(k[0].value, 1000000u, "reset zeroes the count (got %lu)",
		     (unsigned long)k[0].value);
	pbench_counters_free(c);
}

/*
 * One count at a time, into a struct of the caller's size (base.h's rule): an older, smaller
 * struct gets the prefix it knows and nothing past it; a newer, larger one gets all of ours,
 * the rest zeroed, and .size says how much was filled.
 */
Test(counters, get_fills_older_and_newer_structs)
{
	const size_t old = offsetof(struct pbench_count, time_enabled);
	struct { struct pbench_count k; unsigned char more[24]; } newer;
	union { struct pbench_count k; unsigned char b[sizeof(struct pbench_count)]; } older;
	struct pbench_counters *c;
	double ms = 5;

	cr_assert_eq(pbench_counters_open(&c, "task-clock", NULL), 0);
	cr_assert_eq(pbench_counters_enable(c), 0);
	busy_cpu_ms(&ms);
	cr_assert_eq(pbench_counters_read(c), 1);

	memset(&older, 0xa5, sizeof(older));
	older.k.size = old;
	cr_assert_eq(pbench_counters_get(c, 0, &older.k), 0);
	cr_assert_eq(older.k.size, old, "an older struct keeps its size");
	cr_assert_str_eq(older.k.name, "task-clock");
	cr_assert_eq(older.k.status, PBENCH_EVENT_OK);
	cr_assert_gt(older.k.value, 1000000u);
	for (size_t i = old; i < sizeof(older); i++)
		cr_assert_eq(older.b[i], 0xa5, "byte %zu past the older struct's size written", i);
	pbench_count_scale(&older.k);
	for (size_t i = old; i < sizeof(older); i++)
		cr_assert_eq(older.b[i], 0xa5, "byte %zu written by pbench_count_scale", i);

	memset(&newer, 0xa5, sizeof(newer));
	newer.k.size = sizeof(newer);
	cr_assert_eq(pbench_counters_get(c, 0, &newer.k), 0);
	cr_assert_eq(newer.k.size, sizeof(struct pbench_count), "size: what the library filled");
	cr_assert_eq(newer.k.status, PBENCH_EVENT_OK);
	cr_assert_eq(newer.k.time_enabled, newer.k.time_running);
	cr_assert_gt(newer.k.time_enabled, 1000000u);
	for (size_t i = 0; i < sizeof(newer.more); i++)
		cr_assert_eq(newer.more[i], 0, "byte %zu past the library's struct not zeroed", i);
	pbench_counters_free(c);
}

Test(counters, region_order_is_checked)
{
	struct pbench_counters *c = open_self("task-clock");
	struct pbench_count k[1] = { { .size = sizeof(k[0]) } };

	cr_assert_eq(pbench_counters_stop(c), -PBENCH_EBUSY_REGION);
	cr_assert_eq(pbench_counters_delta(c, 0, &k[0]), -PBENCH_EBUSY_REGION);
	cr_assert_eq(pbench_counters_start(c), 0);
	cr_assert_eq(pbench_counters_start(c), -PBENCH_EBUSY_REGION);
	cr_assert_eq(pbench_counters_stop(c), 0);
	k[0].size = 0;
	cr_assert_eq(pbench_counters_delta(c, 0, &k[0]), -EINVAL, "size must be set");
	k[0].size = sizeof(k[0]);
	cr_assert_eq(pbench_counters_delta(c, 1, &k[0]), -EINVAL, "one event: i 1 is out");
	cr_assert_eq(pbench_counters_delta(c, -1, &k[0]), -EINVAL, "i -1 is out");
	cr_assert_eq(pbench_counters_delta(c, 0, &k[0]), 0);
	pbench_counters_free(c);
}

/* Multiplexing arithmetic, on values a multiplexed hardware counter would report. */
Test(counters, scale_table)
{
	static const struct {
		uint64_t value, enabled, running;
		int status;
		double scaled;
	} rows[] = {
		{ 1000, 500, 500, PBENCH_EVENT_OK, 1000 },		/* ran all the time */
		{ 1000, 1000, 250, PBENCH_EVENT_MULTIPLEXED, 4000 },	/* ran a quarter */
		{ 3, 3, 2, PBENCH_EVENT_MULTIPLEXED, 4.5 },
		{ 0, 1000, 0, PBENCH_EVENT_NOT_COUNTED, 0 },		/* never on a counter */
		{ 0, 0, 0, PBENCH_EVENT_NOT_COUNTED, 0 },		/* never enabled */
		/* 2^60 events at 1/3 running: the double keeps the magnitude. */
		{ UINT64_C(1) << 60, 3, 1, PBENCH_EVENT_MULTIPLEXED, 3.0 * (double)(UINT64_C(1) << 60) },
	};

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct pbench_count k = { .size = sizeof(k), .status = PBENCH_EVENT_OK,
					  .value = rows[i].value, .time_enabled = rows[i].enabled,
					  .time_running = rows[i].running };

		pbench_count_scale(&k);
		cr_assert_eq(k.status, rows[i].status, "row %zu", i);
		cr_assert_float_eq(k.scaled, rows[i].scaled, rows[i].scaled * 1e-12 + 1e-9,
				   "row %zu: %g", i, k.scaled);
		cr_assert_eq(k.is_scaled, rows[i].status == PBENCH_EVENT_MULTIPLEXED, "row %zu", i);
	}
}

Test(counters, name_errors)
{
	static const struct {
		const char *events;
		int err;
		const char *msg;
	} rows[] = {
		{ "cylces", -PBENCH_EUNKNOWN_EVENT, "did you mean 'cycles'" },
		{ "task-clok", -PBENCH_EUNKNOWN_EVENT, "did you mean 'task-clock'" },
		{ "qqqqqqqqqqqqqqqq", -PBENCH_EUNKNOWN_EVENT, "see 'pbench list'" },
		{ "", -PBENCH_EBAD_EVENT_LIST, "empty event list" },
		{ ",", -PBENCH_EBAD_EVENT_LIST, "empty name" },
		{ "task-clock,,page-faults", -PBENCH_EBAD_EVENT_LIST, "empty name" },
		{ "task-clock,", -PBENCH_EBAD_EVENT_LIST, "empty name" },
		{ "msr/tsc", -PBENCH_EBAD_EVENT_LIST, "unbalanced" },
		{ "task-clock,task-clock", -PBENCH_EDUP_EVENT, "listed twice" },
		{ "cs,context-switches", -PBENCH_EDUP_EVENT, "same event as 'cs'" },
		{ "nosuchpmu/event=1/", -PBENCH_EUNKNOWN_EVENT, "unknown event" },
		{ "msr/nosuchterm/", -PBENCH_EUNKNOWN_EVENT, "unknown event" },
		/* the braces of a group, as perf's parser refuses them */
		{ "{task-clock,page-faults", -PBENCH_EBAD_EVENT_LIST,
		  "the group opened at '{task-clock' is not closed (end its last event with '}')" },
		{ "task-clock}", -PBENCH_EBAD_EVENT_LIST,
		  "the '}' of 'task-clock}' closes no group" },
		{ "{task-clock},page-faults}", -PBENCH_EBAD_EVENT_LIST,
		  "the '}' of 'page-faults}' closes no group" },
		{ "{}", -PBENCH_EBAD_EVENT_LIST, "'{}' is an empty group" },
		{ "task-clock,{},page-faults", -PBENCH_EBAD_EVENT_LIST, "'{}' is an empty group" },
		{ "{{task-clock,page-faults}}", -PBENCH_EBAD_EVENT_LIST,
		  "a group inside a group at '{{task-clock'" },
		{ "{task-clock,{page-faults}}", -PBENCH_EBAD_EVENT_LIST,
		  "'{page-faults}}' opens a group inside the group '{task-clock' opened" },
		{ "{task-clock}}", -PBENCH_EBAD_EVENT_LIST, "closes a group twice" },
		{ "{,task-clock}", -PBENCH_EBAD_EVENT_LIST, "'{' is a brace without an event" },
		{ "task-clock,}", -PBENCH_EBAD_EVENT_LIST, "'}' is a brace without an event" },
		{ "{task-clock,page-faults},{cs", -PBENCH_EBAD_EVENT_LIST, "opened at '{cs' is not" },
		{ "task-clock,TASK-CLOCK", -PBENCH_EDUP_EVENT, "'TASK-CLOCK' is listed twice" },
	};
	int before = count_fds();

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct pbench_counters *c = (void *)1;
		int err = pbench_counters_open(&c, rows[i].events, NULL);

		cr_assert_eq(err, rows[i].err, "'%s': got %d (%s)", rows[i].events, err,
			     pbench_strerror(err));
		cr_assert_null(c, "'%s': no set on a name error", rows[i].events);
		cr_assert_not_null(strstr(pbench_strerror(err), rows[i].msg),
				   "'%s': message '%s' lacks '%s'", rows[i].events,
				   pbench_strerror(err), rows[i].msg);
	}
	cr_assert_eq(count_fds(), before, "a failed open leaves no descriptor behind");
}

Test(counters, free_closes_every_descriptor)
{
	int before = count_fds();
	struct pbench_counters *c;
	/* msr/tsc/ where this kernel has it (x86): arm64 has no msr PMU to name. */
	const char *events = access("/sys/bus/event_source/devices/msr/events/tsc", R_OK) ?
			     "task-clock,page-faults,cycles" : "task-clock,page-faults,cycles,msr/tsc/";
	int err = pbench_counters_open(&c, events, NULL);

	cr_assert_eq(err, 0, "%s: %s", events, pbench_strerror(err));
	cr_assert_gt(count_fds(), before);
	pbench_counters_free(c);
	cr_assert_eq(count_fds(), before);
}

/* Another process, by pid: a child spinning for a while. */
Test(counters, count_other_pid)
{
	struct pbench_counters_opts o = { .size = sizeof(o), .cpu = -1,
					  .flags = PBENCH_COUNTERS_START_ENABLED };
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
		_exit(0);
	}
	o.pid = pid;
	cr_assert_eq(pbench_counters_open(&c, "task-clock", &o), 0);
	cr_assert_eq(write(go[1], "g", 1), 1);
	waitpid(pid, &status, 0);
	cr_assert_eq(counts_read(c, k, 1), 1);
	cr_assert_gt(k[0].value, 20000000u, "child's task-clock %lu ns", (unsigned long)k[0].value);
	pbench_counters_free(c);
	close(go[0]);
	close(go[1]);

	o.pid = pid;	/* reaped: no such process any more */
	cr_assert_eq(pbench_counters_open(&c, "task-clock", &o), -ESRCH);
	cr_assert_null(c);
}

Test(counters, sysfs_and_software_events_share_a_group)
{
	struct pbench_counters *c;

	if (access("/sys/bus/event_source/devices/msr/events/tsc", R_OK))
		cr_skip_test("no msr PMU with a tsc event on this kernel");
	cr_assert_eq(pbench_counters_open(&c, "task-clock,msr/tsc/,context-switches,page-faults",
					  NULL), 0);
	cr_assert_eq(pbench_counters_nr_groups(c), 1);
	cr_assert_eq(pbench_counters_nr(c), 4);
	cr_assert_str_eq(pbench_counters_name(c, 1), "msr/tsc/");
	cr_assert_eq(pbench_counters_uses_rdpmc(c, 0), 0, "software events are read with read()");
	pbench_counters_free(c);
}

/* As an unprivileged user under perf_event_paranoid >= 2: events that make sense in user
 * space fall back to it and say so; events that only happen in the kernel are refused with
 * the reason rather than counted as 0. Runs in a child that drops root. */
Test(counters, paranoid_fallback_is_reported)
{
	int paranoid = -1, status;
	pid_t pid;

	if (geteuid() != 0)
		cr_skip_test("needs root to drop to an unprivileged user");
	if (pbench_counters_paranoid(&paranoid) || paranoid < 2)
		cr_skip_test("kernel.perf_event_paranoid is %d: nothing is refused", paranoid);
	pid = fork();
	if (pid == 0) {
		struct pbench_count k[2] = { { .size = sizeof(k[0]) }, { .size = sizeof(k[1]) } };
		struct pbench_counters *c;

		if (setgid(65534) || setuid(65534))
			_exit(10);
		if (pbench_counters_open(&c, "task-clock,context-switches", NULL))
			_exit(11);
		if (counts_read(c, k, 2) != 2)
			_exit(12);
		if (!k[0].user_only || pbench_counters_open_status(c, 0) != PBENCH_EVENT_OK)
			_exit(13);	/* task-clock: user space only, and flagged */
		if (k[1].status != PBENCH_EVENT_NO_PERMISSION || k[1].error != -EACCES ||
		    !strstr(k[1].reason, "perf_event_paranoid is"))
			_exit(14);	/* context-switches: refused, with the fix */
		pbench_counters_free(c);
		_exit(0);
	}
	cr_assert_gt(pid, 0);
	waitpid(pid, &status, 0);
	cr_assert(WIFEXITED(status), "child died");
	cr_assert_eq(WEXITSTATUS(status), 0, "check %d failed in the unprivileged child",
		     WEXITSTATUS(status));
}

/* 10,000 open/close cycles of a set (a counted and an uncountable event, so that both the
 * opened descriptors and the failed opens are exercised): not one descriptor more after. */
Test(counters, no_descriptor_leak_over_10000_cycles, .timeout = 120)
{
	int before = count_fds();

	for (int i = 0; i < 10000; i++) {
		struct pbench_counters *c;
		int err = pbench_counters_open(&c, "task-clock,cycles", NULL);

		cr_assert(err == 0 || err == -PBENCH_ENO_EVENTS, "cycle %d: %s", i,
			  pbench_strerror(err));
		pbench_counters_free(c);
	}
	cr_assert_eq(count_fds(), before, "%d descriptors before, %d after", before, count_fds());
}
