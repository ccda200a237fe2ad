/* SPDX-License-Identifier: MIT */
/*
 * The figure decided on (pbench_runs_opts.metric, pbench_contest_opts.metric, --metric):
 * exact counts, whose spread is zero, judged at the first look (the same, or a degenerate
 * interval equal to the ratio) instead of dividing by zero or running to the budget; the
 * side that is worse per metric; the gate on a metric against a stored baseline; a baseline
 * without the metric; names that are neither an event nor a metric, and metrics this machine
 * cannot count. The counts are page faults of a function that maps and touches N pages (no
 * transparent huge pages), which the kernel counts exactly on any machine.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pbench.h"
#include "testutil.h"

/* N pages mapped, each touched once (a fault each), unmapped. By raw system calls and not
 * instrumented: under ASan the interceptors of mmap and munmap and the checks of each store
 * touch the sanitizer's shadow memory, whose faults vary from call to call. */
__attribute__((no_sanitize_address, no_sanitize("undefined")))
static void touch(void *ctx)
{
	size_t n = (size_t)(uintptr_t)ctx, page = (size_t)sysconf(_SC_PAGESIZE);
	long p = syscall(SYS_mmap, NULL, n * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == -1)
		return;
	syscall(SYS_madvise, p, n * page, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < n; i++)
		((volatile char *)p)[i * page] = 1;
	syscall(SYS_munmap, p, n * page);
}

static struct pbench_contest_opts opts(const char *metric)
{
	struct pbench_contest_opts o = PBENCH_CONTEST_OPTS_INIT;

	o.mode = PBENCH_RUNS_UNPREPARED;
	o.events = "task-clock";
	o.metric = metric;
	o.min_rounds = 4;
	o.max_rounds = 400;
	o.max_time_s = 20;
	return o;
}

static int add_touch(struct pbench_contest *c, const char *name, size_t pages)
{
	struct pbench_contest_entrant e = PBENCH_CONTEST_ENTRANT_INIT;

	e.name = name;
	e.workload = PBENCH_WORKLOAD_FN;
	e.fn = touch;
	e.ctx = (void *)(uintptr_t)pages;
	return pbench_contest_add(c, &e);
}

static struct pbench_contest_result result(const struct pbench_contest *c, int i)
{
	struct pbench_contest_result r = { .size = sizeof(r) };

	cr_assert_eq(pbench_contest_result(c, i, &r), 0);
	return r;
}

/* Identical counts on both sides: "same" at the first look the rule allows (min_rounds), the
 * ratio exactly 1 with a degenerate interval; not undecided at the budget. */
Test(target, identical_exact_counts_are_the_same_at_once)
{
	struct pbench_contest_opts o = opts("page-faults");
	struct pbench_contest *c;
	struct pbench_contest_result r;
	char text[512];

	ASSERT_OK(pbench_contest_new(&c, &o));
	cr_assert_eq(add_touch(c, "a", 64), 0);
	cr_assert_eq(add_touch(c, "b", 64), 1);
	ASSERT_OK(pbench_contest_run(c));
	r = result(c, 1);
	pbench_contest_verdict_text(c, 1, text, sizeof(text));
	cr_assert_eq(r.verdict, PBENCH_VERDICT_SAME, "%s", text);
	cr_expect_eq(r.decided_round, 4, "%s", text);
	cr_expect_eq(r.ratio, 1);
	cr_expect_eq(r.ratio_lo, 1);
	cr_expect_eq(r.ratio_hi, 1);
	cr_expect(strstr(text, "b and a have the same page-faults within 1%"), "%s", text);
	pbench_contest_free(c);
}

/* Constant but different counts (twice the pages): decided at the first look, the interval
 * the ratio itself, which is the pages' ratio to the few faults of the call around them; the
 * verdict names the metric and says that more faults are worse. */
Test(target, constant_different_counts_have_a_degenerate_interval)
{
	struct pbench_contest_opts o = opts("page-faults");
	struct pbench_contest *c;
	struct pbench_contest_result r;
	char text[512], why[768];

	ASSERT_OK(pbench_contest_new(&c, &o));
	cr_assert_eq(add_touch(c, "a", 64), 0);
	cr_assert_eq(add_touch(c, "b", 128), 1);
	ASSERT_OK(pbench_contest_run(c));
	r = result(c, 1);
	pbench_contest_verdict_text(c, 1, text, sizeof(text));
	cr_assert_eq(r.verdict, PBENCH_VERDICT_SLOWER, "%s", text);
	cr_expect_eq(r.decided_round, 4, "%s", text);
	cr_expect(r.ratio > 1.8 && r.ratio < 2.1 && r.ratio_lo == r.ratio &&
		  r.ratio_hi == r.ratio, "%g (%g-%g): %s", r.ratio, r.ratio_lo, r.ratio_hi, text);
	cr_expect(strstr(text, "b counts ") && strstr(text, "x the page-faults of a") &&
		  strstr(text, "higher: worse"), "%s", text);
	/* the gate on the metric: worse by far more than 10%, not by more than 500% */
	cr_expect_eq(pbench_contest_slower(c, 1, 10, why, sizeof(why)), 1, "%s", why);
	cr_expect(strstr(why, "worse by more than 10% on page-faults"), "%s", why);
	cr_expect_eq(pbench_contest_slower(c, 1, 500, why, sizeof(why)), 0, "%s", why);
	pbench_contest_free(c);
}

/* Which side is worse: a cost (the time, a count, misses) higher; ipc and GHz lower. */
Test(target, the_worse_side_per_metric)
{
	static const struct { const char *name; int higher; } rows[] = {
		{ "ipc", 1 }, { "ghz", 1 }, { "topdown-retiring", 1 }, { "cpi", 0 },
		{ "branch-miss-pct", 0 }, { "cpus-utilized", 0 }, { "faults-per-sec", 0 },
	};

	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		int found = 0;

		for (int i = 0; i < pbench_metric_nr(); i++) {
			struct pbench_metric_info m = { .size = sizeof(m) };

			cr_assert_eq(pbench_metric_get(i, &m), 0);
			if (strcmp(m.name, rows[k].name))
				continue;
			found = 1;
			cr_expect_eq(m.higher_is_better, rows[k].higher, "%s", m.name);
		}
		cr_expect(found, "%s", rows[k].name);
	}
}

/* A stored baseline on the metric: the gate fails on the worse side (twice the faults),
 * passes the same faults, and a count, which does not move with the machine's speed, gets no
 * allowance for another moment. */
Test(target, the_gate_on_a_metric_against_a_baseline)
{
	struct pbench_contest_opts o = opts("page-faults");
	struct pbench_contest_entrant s = PBENCH_CONTEST_ENTRANT_INIT;
	struct pbench_contest *c;
	double stored[8];
	char why[768];

	s.name = "baseline";
	for (int pass = 0; pass < 2; pass++) {
		struct pbench_runs_opts ro = PBENCH_RUNS_OPTS_INIT;
		struct pbench_runs *r;
		double v[8];

		/* the baseline: the same function's faults, measured now as its values */
		ro.mode = PBENCH_RUNS_UNPREPARED;
		ro.events = "task-clock";
		ro.metric = "page-faults";
		ro.workload = PBENCH_WORKLOAD_FN;
		ro.fn = touch;
		ro.ctx = (void *)(uintptr_t)64;
		ro.runs = 8;
		ro.warmup_ms = 0;
		cr_assert_eq(pbench_runs_new(&r, &ro), 0);
		cr_assert_eq(pbench_runs_run(r), 0);
		cr_assert_eq(pbench_runs_values(r, 0, "page-faults", v, 8), 8);
		pbench_runs_free(r);
		memcpy(stored, v, sizeof(v));
		s.stored_ns = stored;
		s.nr_stored = 8;
		cr_assert_eq(pbench_contest_new(&c, &o), 0);
		cr_assert_eq(pbench_contest_add(c, &s), 0);
		cr_assert_eq(add_touch(c, "now", pass ? 64 : 256), 1);
		ASSERT_OK(pbench_contest_run(c));
		cr_expect_eq(pbench_contest_slower(c, 1, 5, why, sizeof(why)), pass ? 0 : 1,
			     "pass %d: %s", pass, why);
		cr_expect(strstr(why, pass ? "not worse than the baseline by more than 5% on "
				 "page-faults" : "worse than the baseline by more than 5% on "
				 "page-faults"), "%s", why);
		pbench_contest_free(c);
	}
}

/* A baseline whose runs did not count the metric: a one-line error naming what they have; a
 * baseline that did: its values. */
Test(target, a_baseline_needs_the_metric)
{
	char path[] = "/tmp/pbench-test-target-XXXXXX", why[1024], warn[256];
	static const char doc[] = "{\"schema\": 1, \"mode\": \"unprepared\", \"subject\": "
		"{\"kind\": \"command\", \"name\": \"true\", \"argv\": [\"true\"], "
		"\"iterations\": null, \"bytes\": null}, \"modes\": [{\"mode\": \"unprepared\", "
		"\"runs\": [{\"ns\": 1e6, \"counters\": {\"task-clock\": {\"scaled\": 5e5}, "
		"\"page-faults\": {\"scaled\": 48}}}, {\"ns\": 1.1e6, \"counters\": {\"task-clock\":"
		" {\"scaled\": 6e5}, \"page-faults\": {\"scaled\": 49}}}]}]}";
	double *v = NULL;
	size_t n = 0;
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, doc, strlen(doc)), (ssize_t)strlen(doc));
	close(fd);
	cr_expect_eq(said_in(pbench_contest_baseline_read(path, NULL, "instructions:u", &v, &n,
							  warn, sizeof(warn)), why, sizeof(why)),
		     -ENOMSG);
	cr_expect(strstr(why, "has no per-run values of 'instructions:u'") &&
		  strstr(why, "task-clock, page-faults") && !strchr(why, '\n'), "%s", why);
	cr_expect_null(v);
	cr_expect_eq(said_in(pbench_contest_baseline_read(path, NULL, "page-faults", &v, &n,
							  warn, sizeof(warn)), why, sizeof(why)),
		     0, "%s", why);
	cr_expect(n == 2 && v[0] == 48 && v[1] == 49);
	free(v);
	v = NULL;
	/* a derived metric made from the runs' counts: faults per second of task-clock */
	cr_expect_eq(said_in(pbench_contest_baseline_read(path, NULL, "faults-per-sec", &v, &n,
							  warn, sizeof(warn)), why, sizeof(why)),
		     0, "%s", why);
	cr_expect(n == 2 && fabs(v[0] - 48 / 5e-4) < 1e-6, "%g", n ? v[0] : NAN);
	free(v);
	unlink(path);
}

/* Names: an unknown one says "did you mean"; one this machine cannot count says why, before
 * anything runs; "wall-time" is the default. */
Test(target, names_and_what_cannot_be_counted)
{
	struct pbench_runs_opts ro = PBENCH_RUNS_OPTS_INIT;
	struct pbench_contest_opts o = opts("ipcc");
	struct pbench_contest *c = NULL;
	struct pbench_runs *r = NULL;
	int err;

	ro.mode = PBENCH_RUNS_UNPREPARED;
	ro.workload = PBENCH_WORKLOAD_XOR;
	ro.iterations = 1000;
	ro.runs = 2;
	ro.metric = "ipcc";
	cr_expect_eq(pbench_runs_new(&r, &ro), -PBENCH_EUNKNOWN_EVENT);
	cr_expect(strstr(pbench_strerror(-PBENCH_EUNKNOWN_EVENT), "unknown metric 'ipcc'") &&
		  strstr(pbench_strerror(-PBENCH_EUNKNOWN_EVENT), "did you mean 'ipc'"), "%s",
		  pbench_strerror(-PBENCH_EUNKNOWN_EVENT));
	cr_expect_eq(pbench_contest_new(&c, &o), -PBENCH_EUNKNOWN_EVENT);
	cr_expect(strstr(pbench_strerror(-PBENCH_EUNKNOWN_EVENT), "did you mean 'ipc'"), "%s",
		  pbench_strerror(-PBENCH_EUNKNOWN_EVENT));
	pbench_contest_free(c);
	ro.metric = "wall-time";
	cr_expect_eq(pbench_runs_new(&r, &ro), 0);
	pbench_runs_free(r);
	r = NULL;
	ro.metric = "insn-per-iter";
	ro.events = "task-clock";
	err = pbench_runs_new(&r, &ro);
	if (!err) {
		pbench_runs_free(r);
		cr_skip_test("this machine counts instructions:u (a hardware PMU): the error of a "
			     "metric that cannot be counted is not seen here");
	}
	cr_expect_eq(err, -EOPNOTSUPP);
	cr_expect(strstr(pbench_strerror(err), "the metric 'insn-per-iter' cannot be counted "
			 "here: instructions:u"), "%s", pbench_strerror(err));
}

/* stat on a metric: the summary, outliers and the target SEM are the metric's; exact counts
 * reach any target at the least runs. */
Test(target, runs_stop_at_the_target_on_exact_counts)
{
	struct pbench_runs_opts ro = PBENCH_RUNS_OPTS_INIT;
	struct pbench_runs_set si = { .size = sizeof(si) };
	struct pbench_runs *r;

	ro.mode = PBENCH_RUNS_UNPREPARED;
	ro.events = "task-clock";
	ro.metric = "page-faults";
	ro.workload = PBENCH_WORKLOAD_FN;
	ro.fn = touch;
	ro.ctx = (void *)(uintptr_t)32;
	ro.runs = 200;
	ro.target_sem_pct = 0.01;
	ro.max_time_s = 20;
	ro.warmup_ms = 0;
	cr_assert_eq(pbench_runs_new(&r, &ro), 0, "%s", pbench_strerror(-1));
	cr_assert_eq(pbench_runs_run(r), 0);
	cr_assert_eq(pbench_runs_set_info(r, 0, &si), 0);
	cr_expect_eq(si.stop, PBENCH_RUNS_STOP_TARGET);
	cr_expect_eq(si.done, PBENCH_RUNS_SEM_MIN_RUNS, "%d runs", si.done);
	cr_expect_eq(si.sem_pct, 0);
	pbench_runs_free(r);
}

