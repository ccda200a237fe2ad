/* SPDX-License-Identifier: MIT */
/*
 * A run over time (pbench_runs_opts.interval_ms, pbench stat -I) through the public API: a
 * command idle then busy shows task-clock low then high interval by interval; the intervals'
 * wall times add up to the run's time and their counts to its counts, exactly; a command
 * shorter than one interval has one partial interval; what is not an interval is refused.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pbench.h"
#include "testutil.h"

static struct pbench_runs_opts quick(char *const *argv, double ms)
{
	struct pbench_runs_opts o = PBENCH_RUNS_OPTS_INIT;

	o.mode = PBENCH_RUNS_UNPREPARED;
	o.events = "task-clock,context-switches";
	o.quiet = 1;
	o.runs = 1;
	o.argv = argv;
	o.interval_ms = ms;
	return o;
}

/* Run 0's intervals add up to the run: ns exactly, each event's raw value exactly; only the
 * last is partial. Returns the number of intervals. */
static int check_sums(const struct pbench_runs *r)
{
	struct pbench_run run = { .size = sizeof(run) };
	int n = pbench_runs_nr_intervals(r, 0, 0), ne = pbench_runs_nr_events(r);
	uint64_t ns = 0, end = 0;

	cr_assert_eq(pbench_runs_get(r, 0, 0, &run), 0);
	cr_assert_gt(n, 0, "no intervals");
	for (int k = 0; k < n; k++) {
		struct pbench_runs_interval iv = { .size = sizeof(iv) };

		cr_assert_eq(pbench_runs_interval(r, 0, 0, k, &iv), 0);
		cr_assert_eq(iv.start_ns, end, "interval %d starts at %llu, the last ended at %llu",
			     k, (unsigned long long)iv.start_ns, (unsigned long long)end);
		cr_assert_eq(iv.partial, k == n - 1, "interval %d of %d: partial %d", k, n,
			     iv.partial);
		ns += iv.ns;
		end = iv.start_ns + iv.ns;
	}
	cr_assert_eq(ns, run.ns, "the intervals' ns add up to %llu, the run's is %llu",
		     (unsigned long long)ns, (unsigned long long)run.ns);
	for (int e = 0; e < ne; e++) {
		struct pbench_count total = { .size = sizeof(total) };
		uint64_t sum = 0;

		cr_assert_eq(pbench_runs_count(r, 0, 0, e, &total), 0);
		for (int k = 0; k < n; k++) {
			struct pbench_count c = { .size = sizeof(c) };

			cr_assert_eq(pbench_runs_interval_count(r, 0, 0, k, e, &c), 0);
			cr_assert(c.status == PBENCH_EVENT_OK, "%s in interval %d: status %d (%s)",
				  c.name, k, c.status, c.reason);
			sum += c.value;
		}
		cr_assert_eq(sum, total.value, "%s: the intervals add up to %llu, the run counted "
			     "%llu", total.name, (unsigned long long)sum,
			     (unsigned long long)total.value);
	}
	return n;
}

/* Idle for 300 ms, then busy for 300 ms, in 100 ms intervals: task-clock low in the intervals
 * of the first part, high in those of the second. The busy part's share of a CPU depends on
 * the host (other work, a slowed vCPU): more than 20 ms of each 100 ms, against less than 20
 * in each idle one, with tries. A wake-up of pbench's thread late by more than an interval
 * makes its interval longer (the next ones keep the grid): too few intervals, or none wholly
 * inside the busy part, is a try that tells nothing, taken again too; the last try judged. */
Test(interval, idle_then_busy)
{
	char *const argv[] = { "sh", "-c", "sleep 0.3; timeout 0.3 sh -c 'while :; do :; done';"
			       " exit 0", NULL };
	double idle_max = 0, busy_min = INFINITY;
	int tries, n = 0, nidle = 0, nbusy = 0;

	for (tries = 1; tries <= 3; tries++) {
		struct pbench_runs_opts o = quick(argv, 100);
		struct pbench_runs *r;

		idle_max = 0;
		busy_min = INFINITY;
		nidle = nbusy = 0;
		ASSERT_OK(pbench_runs_new(&r, &o));
		ASSERT_OK(pbench_runs_run(r));
		n = check_sums(r);
		for (int k = 0; k < n; k++) {
			struct pbench_runs_interval iv = { .size = sizeof(iv) };
			struct pbench_count tc = { .size = sizeof(tc) };
			double t0, t1;

			pbench_runs_interval(r, 0, 0, k, &iv);
			pbench_runs_interval_count(r, 0, 0, k, 0, &tc);
			t0 = (double)iv.start_ns / 1e6;
			t1 = t0 + (double)iv.ns / 1e6;
			cr_log_info("interval %d: %.1f to %.1f ms, task-clock %.2f ms", k, t0, t1,
				    tc.scaled / 1e6);
			if (t1 <= 280) {
				idle_max = fmax(idle_max, tc.scaled / 1e6);
				nidle++;
			} else if (t0 >= 330 && t1 <= 580 && !iv.partial) {
				busy_min = fmin(busy_min, tc.scaled / 1e6);
				nbusy++;
			}
		}
		pbench_runs_free(r);
		if (n >= 6 && nidle >= 2 && nbusy >= 1 && idle_max < 20 && busy_min > 20)
			break;
		cr_log_warn("try %d: %d intervals, %d idle up to %.2f ms of task-clock, %d busy "
			    "from %.2f ms", tries, n, nidle, idle_max, nbusy, busy_min);
	}
	cr_assert_geq(n, 6, "%d intervals of 100 ms in a 600 ms run", n);
	cr_assert(nidle >= 2 && nbusy >= 1, "%d idle and %d busy intervals", nidle, nbusy);
	cr_assert(idle_max < 20 && busy_min > 20, "task-clock was not low then high in 3 tries: "
		  "idle intervals up to %.2f ms, busy ones from %.2f ms", idle_max, busy_min);
	TEST_RETRIED("interval/idle_then_busy", tries);
}

/* A command that ends before the first interval's end: one interval, partial, the run. */
Test(interval, shorter_than_one_interval)
{
	char *const argv[] = { "true", NULL };
	struct pbench_runs_opts o = quick(argv, 1000);
	struct pbench_runs_interval iv = { .size = sizeof(iv) };
	struct pbench_runs *r;

	cr_assert_eq(pbench_runs_new(&r, &o), 0);
	ASSERT_OK(pbench_runs_run(r));
	cr_assert_eq(check_sums(r), 1);
	cr_assert_eq(pbench_runs_interval(r, 0, 0, 0, &iv), 0);
	cr_assert_eq(iv.partial, 1);
	cr_assert_eq(iv.start_ns, 0);
	cr_assert_eq(pbench_runs_interval(r, 0, 0, 1, &iv), -EINVAL);
	pbench_runs_free(r);
}

/* Off by default: no intervals, and the run as before. */
Test(interval, off_by_default)
{
	char *const argv[] = { "true", NULL };
	struct pbench_runs_opts o = quick(argv, 0);
	struct pbench_runs_interval iv = { .size = sizeof(iv) };
	struct pbench_runs *r;

	cr_assert_eq(pbench_runs_new(&r, &o), 0);
	cr_assert_eq(pbench_runs_run(r), 0);
	cr_assert_eq(pbench_runs_nr_intervals(r, 0, 0), 0);
	cr_assert_eq(pbench_runs_interval(r, 0, 0, 0, &iv), -EINVAL);
	cr_assert_eq(pbench_runs_nr_intervals(r, 0, 1), -EINVAL);
	pbench_runs_free(r);
}

/* Below perf's 10 ms, not a number, or for the built-in workload: refused, saying why. */
Test(interval, refused)
{
	char *const argv[] = { "true", NULL };
	const double bad[] = { 9.99, -1, NAN, INFINITY };
	struct pbench_runs *r;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct pbench_runs_opts o = quick(argv, bad[i]);

		cr_assert_eq(pbench_runs_new(&r, &o), -EINVAL, "interval_ms %g", bad[i]);
		cr_assert(strstr(pbench_strerror(-EINVAL), "interval_ms"), "%s",
			  pbench_strerror(-EINVAL));
	}
	{
		struct pbench_runs_opts o = quick(NULL, 100);

		cr_assert_eq(pbench_runs_new(&r, &o), -EINVAL);
		cr_assert(strstr(pbench_strerror(-EINVAL), "command"), "%s",
			  pbench_strerror(-EINVAL));
	}
	{
		struct pbench_runs_opts o = quick(argv, PBENCH_RUNS_INTERVAL_MIN_MS);

		cr_assert_eq(pbench_runs_new(&r, &o), 0);
		pbench_runs_free(r);
	}
}
