/* SPDX-License-Identifier: MIT */
/*
 * Errors that say which argument and why (lib/src/base/log.c, issue 26): a struct left with .size 0
 * or too small, an unknown event through every call that takes event names, the detail in
 * pbench_strerror() and in the log callback, per thread; and the _INIT macros of the options
 * and results, with the defaults their comments state.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* What the log callback got during one call. */
static struct {
	int n, errors, pfm;
	char last[512];
} logged;

static void record(int level, const char *msg, void *arg)
{
	(void)arg;
	logged.n++;
	logged.errors += level == PBENCH_LOG_ERROR;
	logged.pfm += strstr(msg, "libpfm4") != NULL;
	snprintf(logged.last, sizeof(logged.last), "%s", msg);
}

static void logging(void)
{
	memset(&logged, 0, sizeof(logged));
	pbench_log_set(record, NULL);
}

/* On a machine with a PMU, libpfm4 lists its events, and tens of them do not resolve without
 * a unit mask: enumerating the names for a suggestion put one debug line per such name into
 * the log (33 for a typo, on a Zen 4). This machine has none: libpfm4 is made to take Zen 4's
 * table (as HACKING.md's hardware-name tests do), before its first use in this process. */
static void zen4(void)
{
	setenv("LIBPFM_FORCE_PMU", "amd64_fam19h_zen4", 1);
	logging();
}

static void fn(void *ctx)
{
	pbench_do_not_optimize(ctx);
}

#define expect_has(s, part) \
	cr_expect_not_null(strstr((s), (part)), "expected '%s' in '%s'", (part), (s))

Test(errors, size_zero_says_which_struct_and_the_fix, .init = logging)
{
	struct pbench_measure_opts o = { 0 };
	struct pbench_result *r = NULL;
	const char *msg;
	int err = pbench_measure(&r, fn, NULL, &o);

	cr_assert_eq(err, -EINVAL);
	msg = pbench_strerror(err);
	cr_expect_str_eq(msg, "invalid argument: pbench_measure(): opts: .size is 0 (set .size = "
			 "sizeof(struct pbench_measure_opts) or start from "
			 "PBENCH_MEASURE_OPTS_INIT)");
	cr_expect_eq(logged.errors, 1, "one error line in the log, got %d", logged.errors);
	expect_has(logged.last, "pbench_measure(): opts: .size is 0");
	/* Another code than the call's: the generic text. */
	cr_expect_str_eq(pbench_strerror(-ENOMEM), strerror(ENOMEM));
	cr_expect_str_eq(pbench_strerror(-PBENCH_EDUP_EVENT), "event listed twice");
}

Test(errors, output_struct_size_zero_and_too_small, .init = logging)
{
	struct pbench_comparison c = { 0 };
	struct pbench_summary s = { .size = 3 };
	struct pbench_count k[2] = { { .size = sizeof(k[0]) }, { .size = 16 } };
	struct pbench_counters *cs;
	double x[] = { 1, 2, 3 };
	int err;

	err = pbench_compare(fn, NULL, fn, NULL, NULL, &c);
	cr_assert_eq(err, -EINVAL);
	expect_has(pbench_strerror(err), "pbench_compare(): out: .size is 0 (set .size = "
		   "sizeof(struct pbench_comparison))");
	/* Under the size field itself: refused (copying out would underflow), and said. */
	err = pbench_stats_summary(x, 3, NULL, &s);
	cr_assert_eq(err, -EINVAL);
	expect_has(pbench_strerror(err), "pbench_stats_summary(): out: .size is 3, smaller than");
	/* Counts one at a time: before a read, and past the set's events. */
	cr_assert_eq(pbench_counters_open(&cs, "task-clock,page-faults", NULL), 0);
	err = pbench_counters_get(cs, 0, &k[0]);
	cr_assert_eq(err, -EAGAIN);
	expect_has(pbench_strerror(err), "pbench_counters_get(): nothing read yet");
	cr_assert_eq(pbench_counters_read(cs), 2);
	err = pbench_counters_get(cs, 2, &k[1]);
	cr_assert_eq(err, -EINVAL);
	expect_has(pbench_strerror(err), "pbench_counters_get(): i is 2, not an event of the set "
		   "(0 to 1)");
	pbench_counters_free(cs);
	err = pbench_plot_runs_svg(NULL, 1, stdout, "t");
	cr_assert_eq(err, -EINVAL);
	expect_has(pbench_strerror(err), "pbench_plot_runs_svg(): s is NULL");
}

/* Options read by the one copy rule are checked at the door: a .size of 0 is refused, said,
 * and nothing is opened or started. */
Test(errors, options_with_size_zero_are_refused, .init = logging)
{
	struct pbench_counters_opts co = { .size = 0, .cpu = -1 };
	struct pbench_child_opts ho = { .size = 0 };
	struct pbench_counters *cs = NULL;
	struct pbench_child *ch = NULL;
	char *argv[] = { "true", NULL };
	int err;

	err = pbench_counters_open(&cs, "task-clock", &co);
	cr_assert_eq(err, -EINVAL);
	cr_assert_null(cs);
	expect_has(pbench_strerror(err), "pbench_counters_open(): opts: .size is 0");
	err = pbench_child_start(&ch, argv, &ho);
	cr_assert_eq(err, -EINVAL);
	cr_assert_null(ch);
	expect_has(pbench_strerror(err), "pbench_child_start(): opts: .size is 0");
}

/* A constructor given no place for its object says so, as every one does, and writes nothing. */
Test(errors, out_null_is_refused_and_said, .init = logging)
{
	int err;

	err = pbench_counters_open(NULL, "task-clock", NULL);
	cr_assert_eq(err, -EINVAL);
	expect_has(pbench_strerror(err), "pbench_counters_open(): out is NULL");
	err = pbench_check(NULL, NULL, 0, PBENCH_CHECK_NO_WINDOW);
	cr_assert_eq(err, -EINVAL);
	expect_has(pbench_strerror(err), "pbench_check(): out is NULL");
	err = pbench_child_start(NULL, (char *[]){ "true", NULL }, NULL);
	cr_assert_eq(err, -EINVAL);
	expect_has(pbench_strerror(err), "pbench_child_start(): out is NULL");
}

Test(errors, a_value_out_of_range_names_the_field, .init = logging)
{
	struct pbench_measure_opts mo = PBENCH_MEASURE_OPTS_INIT;
	struct pbench_compare_opts co = PBENCH_COMPARE_OPTS_INIT;
	struct pbench_comparison c = PBENCH_COMPARISON_INIT;
	int err;

	co.confidence = 1.5;
	err = pbench_compare(fn, NULL, fn, NULL, &co, &c);
	cr_assert_eq(err, -EINVAL);
	expect_has(pbench_strerror(err), "pbench_compare(): opts->confidence is 1.5");
	co.confidence = 0.999;
	mo.budget_ms = -1;
	co.measure = &mo;
	err = pbench_compare(fn, NULL, fn, NULL, &co, &c);
	cr_assert_eq(err, -EINVAL);
	expect_has(pbench_strerror(err), "pbench_compare(): opts->measure->budget_ms is -1");
}

/* A call that passes its checks forgets an older detail: a later failure with the same code
 * and no detail of its own is not shown with the old one. */
Test(errors, a_later_call_forgets_the_detail, .init = logging)
{
	struct pbench_measure_opts o = { 0 };
	struct pbench_summary s = { .size = sizeof(s) };
	struct pbench_result *r;
	double x[] = { 1, 2 };

	cr_assert_eq(pbench_measure(&r, fn, NULL, &o), -EINVAL);
	cr_assert_neq(strcmp(pbench_strerror(-EINVAL), strerror(EINVAL)), 0);
	cr_assert_eq(pbench_stats_summary(x, 2, NULL, &s), 0);
	cr_expect_str_eq(pbench_strerror(-EINVAL), strerror(EINVAL));
}

static void *fail_in_thread(void *arg)
{
	struct pbench_summary s = { 0 };
	double x[] = { 1 };

	*(int *)arg = pbench_stats_summary(x, 1, NULL, &s);
	return NULL;
}

Test(errors, the_detail_is_per_thread, .init = logging)
{
	struct pbench_measure_opts o = { 0 };
	struct pbench_result *r;
	pthread_t t;
	int err, other = 0;

	err = pbench_measure(&r, fn, NULL, &o);
	cr_assert_eq(err, -EINVAL);
	cr_assert_eq(pthread_create(&t, NULL, fail_in_thread, &other), 0);
	pthread_join(t, NULL);
	cr_assert_eq(other, -EINVAL);
	expect_has(pbench_strerror(err), "pbench_measure(): opts");
}

/* ---- unknown events, through every call that takes names -------------------------------- */

static void expect_named(int err, const char *how)
{
	const char *msg = pbench_strerror(err);

	cr_expect_eq(err, -PBENCH_EUNKNOWN_EVENT, "%s: %d", how, err);
	/* With only Zen 4's table, libpfm4 knows no "cycles": no suggestion, the way to the
	 * list instead (test_counters.c has the suggestions). */
	cr_expect_str_eq(msg, "unknown event 'cylces' (see 'pbench list')", "%s", how);
	/* the whole message: the last line the log got, word for word */
	cr_expect_str_eq(logged.last, msg, "%s", how);
	cr_expect_leq(logged.pfm, 1, "%s: %d lines of libpfm4 in the log, at most 1", how,
		      logged.pfm);
	logged.pfm = 0;
}

Test(errors, unknown_event_named_in_every_path, .init = zen4)
{
	struct pbench_measure_opts mo = PBENCH_MEASURE_OPTS_INIT;
	struct pbench_runs_opts ro = PBENCH_RUNS_OPTS_INIT;
	struct pbench_contest_opts to = PBENCH_CONTEST_OPTS_INIT;
	struct pbench_counters *cs = NULL;
	struct pbench_result *r = NULL;
	struct pbench_runs *runs = NULL;
	struct pbench_contest *c = NULL;

	expect_named(pbench_counters_open(&cs, "cylces", NULL), "counters");
	mo.events = "cylces";
	mo.warmup_ms = 0;
	mo.budget_ms = 10;
	expect_named(pbench_measure(&r, fn, NULL, &mo), "measure");
	ro.events = "cylces";
	ro.mode = PBENCH_RUNS_UNPREPARED;
	expect_named(pbench_runs_new(&runs, &ro), "runs");
	/* pbench compare's way: a contest, said the same, and not made. */
	to.events = "cylces";
	to.mode = PBENCH_RUNS_UNPREPARED;
	expect_named(pbench_contest_new(&c, &to), "contest");
	cr_expect_null(c);
	cr_expect_null(cs);
	cr_expect_null(r);
	cr_expect_null(runs);
}

/* ---- the _INIT macros -------------------------------------------------------------------- */

Test(errors, init_macros_set_size_and_the_stated_defaults)
{
	struct pbench_compare_opts co = PBENCH_COMPARE_OPTS_INIT;
	struct pbench_comparison c = PBENCH_COMPARISON_INIT;
	struct pbench_counters_opts ko = PBENCH_COUNTERS_OPTS_INIT;
	struct pbench_child_opts ho = PBENCH_CHILD_OPTS_INIT;
	struct pbench_listing_opts lo = PBENCH_LISTING_OPTS_INIT;
	struct pbench_stats_opts so = PBENCH_STATS_OPTS_INIT;
	struct pbench_contest_opts to = PBENCH_CONTEST_OPTS_INIT;
	struct pbench_contest_entrant te = PBENCH_CONTEST_ENTRANT_INIT;
	struct pbench_history_record hr = PBENCH_HISTORY_RECORD_INIT;
	struct pbench_plot_series ps = PBENCH_PLOT_SERIES_INIT;

	/* measure.h: "default 0.999", "default 1", measure NULL: the measurement's defaults. */
	cr_expect_eq(co.size, sizeof(co));
	cr_expect_eq(co.confidence, 0.999);
	cr_expect_eq(co.same_threshold_pct, 1);
	cr_expect_null(co.measure);
	cr_expect_null(co.check);
	cr_expect_eq(c.size, sizeof(c));
	cr_expect_null(c.priv);
	/* counters.h: pid 0 the calling thread, cpu -1 any CPU, disabled (no flag). */
	cr_expect_eq(ko.size, sizeof(ko));
	cr_expect_eq(ko.pid, 0);
	cr_expect_eq(ko.cpu, -1);
	cr_expect_eq(ko.flags, 0u);
	cr_expect_eq(ho.size, sizeof(ho));
	cr_expect_null(ho.events);
	cr_expect_eq(ho.ncpus, 0);
	cr_expect_eq(lo.size, sizeof(lo));
	cr_expect_null(lo.addr);
	/* stats.h: "0: 0.95", Tukey. */
	cr_expect_eq(so.size, sizeof(so));
	cr_expect_eq(so.ci_level, 0.95);
	cr_expect_eq(so.outlier_rule, PBENCH_OUTLIER_TUKEY);
	cr_expect_eq(to.size, sizeof(to));
	cr_expect_eq(to.cpu, -1);
	cr_expect_eq(to.duet_cpus[0], -1);
	cr_expect_eq(to.duet_cpus[1], -1);
	cr_expect_eq(to.max_rounds, PBENCH_CONTEST_DEFAULT_MAX_ROUNDS);
	cr_expect_eq(to.same_pct, PBENCH_STATS_DEFAULT_SAME_PCT);
	cr_expect_eq(to.warmup_ms, PBENCH_MEASURE_DEFAULT_WARMUP_MS);
	/* the input structs: their size, everything else 0 */
	cr_expect_eq(te.size, sizeof(te));
	cr_expect_null(te.argv);
	cr_expect_null(te.stored_ns);
	cr_expect_eq(hr.size, sizeof(hr));
	cr_expect_null(hr.name);
	cr_expect_eq(hr.n_runs, 0u);
	cr_expect_eq(ps.size, sizeof(ps));
	cr_expect_null(ps.ns);
	cr_expect_eq(ps.n, 0u);
}

/* What the macros say is what NULL options do: the same figures from both. */
Test(errors, stats_opts_init_is_the_null_default)
{
	struct pbench_stats_opts so = PBENCH_STATS_OPTS_INIT;
	struct pbench_summary a = { .size = sizeof(a) }, b = { .size = sizeof(b) };
	double x[] = { 1, 2, 3, 4, 50 };

	cr_assert_eq(pbench_stats_summary(x, 5, NULL, &a), 0);
	cr_assert_eq(pbench_stats_summary(x, 5, &so, &b), 0);
	cr_expect_eq(a.ci_lo, b.ci_lo);
	cr_expect_eq(a.ci_hi, b.ci_hi);
	cr_expect_eq(a.outliers_high_severe, b.outliers_high_severe);
	cr_expect_eq(a.outliers_high_severe, 1u, "50 is beyond Tukey's outer fence");
}

/* ---- one way to fail: the message of a failure is pbench_strerror()'s, whole -------------- */

/* The runs' failures, as pbench stat prints them: the check run's with the last line of the
 * command's stderr, a helper's exit status. A cleanup that fails after them (it runs whatever
 * failed before) does not take their place; alone, its own failure is the one said. */
Test(errors, runs_failures_said_whole_by_strerror, .init = logging)
{
	char *fail[] = { "sh", "-c", "echo no >&2; exit 3", NULL }, *t[] = { "true", NULL };
	char *f[] = { "false", NULL };
	struct pbench_runs_opts o = PBENCH_RUNS_OPTS_INIT;
	struct pbench_runs *r;
	int err;

	o.mode = PBENCH_RUNS_UNPREPARED;
	o.events = "task-clock";
	o.runs = 2;
	o.argv = fail;
	o.cleanup = f;
	ASSERT_OK(pbench_runs_new(&r, &o));
	err = pbench_runs_run(r);
	cr_assert_eq(err, -PBENCH_ECMD_FAILED, "%s", pbench_strerror(err));
	cr_expect_str_eq(pbench_strerror(err), "'sh' failed before any timed run: exit 3; the last "
			 "line of its stderr: 'no'");
	pbench_runs_free(r);
	o.argv = t;
	ASSERT_OK(pbench_runs_new(&r, &o));
	err = pbench_runs_run(r);
	cr_assert_eq(err, -ECANCELED, "%s", pbench_strerror(err));
	cr_expect_str_eq(pbench_strerror(err), "the cleanup command 'false' exited with status 1");
	pbench_runs_free(r);
	o.cleanup = NULL;
	o.setup = f;
	ASSERT_OK(pbench_runs_new(&r, &o));
	err = pbench_runs_run(r);
	cr_assert_eq(err, -ECANCELED);
	cr_expect_str_eq(pbench_strerror(err), "the setup command 'false' exited with status 1");
	cr_expect_eq(pbench_runs_run(r), -EALREADY);
	expect_has(pbench_strerror(-EALREADY), "pbench_runs_run(): the runs ran already");
	pbench_runs_free(r);
	o.setup = NULL;
	o.runs = 0;
	err = pbench_runs_check(&o);
	cr_assert_eq(err, -EINVAL);
	cr_expect_str_eq(pbench_strerror(err), "opts->runs is 0 and opts->warmup_runs 0: 1 to "
			 "1000000 runs, and 0 to 1000000 warm-up runs");
	/* pbench_runs_new() says the same refusal after the code's words, as it always did */
	cr_assert_eq(pbench_runs_new(&r, &o), -EINVAL);
	cr_expect_str_eq(pbench_strerror(-EINVAL), "invalid argument: opts->runs is 0 and "
			 "opts->warmup_runs 0: 1 to 1000000 runs, and 0 to 1000000 warm-up runs");
	cr_expect_null(r);
}

/* A contest's failures, as pbench compare prints them; the contest is not made when
 * pbench_contest_new() fails, and the error says why all the same. */
Test(errors, contest_failures_said_whole_by_strerror, .init = logging)
{
	char *t[] = { "true", NULL }, *f[] = { "false", NULL };
	struct pbench_contest_opts o = PBENCH_CONTEST_OPTS_INIT;
	struct pbench_contest_entrant e = PBENCH_CONTEST_ENTRANT_INIT;
	struct pbench_contest *c = (struct pbench_contest *)&o;
	int err;

	o.mode = PBENCH_RUNS_UNPREPARED;
	o.events = "task-clock";
	o.max_rounds = 4;
	o.duet_cpus[0] = 0;
	err = pbench_contest_new(&c, &o);
	cr_assert_eq(err, -EINVAL);
	cr_expect_null(c, "nothing made, nothing to free");
	cr_expect_str_eq(pbench_strerror(err), "--duet-cpus picks the CPUs of a duet: give --duet "
			 "too");
	o.duet_cpus[0] = -1;
	o.cleanup = f;
	ASSERT_OK(pbench_contest_new(&c, &o));
	err = pbench_contest_run(c);
	cr_assert_eq(err, -EINVAL);
	cr_expect_str_eq(pbench_strerror(err), "a contest needs two entrants, one of them run at "
			 "least (0, 0 run)");
	e.argv = t;
	cr_assert_eq(pbench_contest_add(c, &e), 0);
	e.argv = f;
	cr_assert_eq(pbench_contest_add(c, &e), 1);
	err = pbench_contest_run(c);
	cr_assert_eq(err, -PBENCH_ECMD_FAILED, "%s", pbench_strerror(err));
	cr_expect_str_eq(pbench_strerror(err), "'false' failed before any timed run: exit 1; its "
			 "stderr was empty");
	pbench_contest_free(c);
}

/* The readers' and the checks' reasons: in pbench_strerror(), as pbench analyze, jitter and
 * compare print them. */
Test(errors, reasons_said_by_strerror, .init = logging)
{
	struct pbench_jitter_opts jo = PBENCH_JITTER_OPTS_INIT;
	struct pbench_samples *s;
	double *x = NULL;
	size_t n = 1;
	char warn[64] = "x";
	int err;

	cr_assert_eq(pbench_samples_new(&s), 0);
	err = pbench_samples_analyze(s, 0.999, 1);
	cr_assert_eq(err, -ENODATA, "%d %s", err, pbench_strerror(err));
	cr_expect_str_eq(pbench_strerror(err), "no samples to analyze");
	err = pbench_samples_add_text(s, "1\nx\n", 4, "in.txt", NULL);
	cr_assert_eq(err, -EINVAL);
	cr_expect_str_eq(pbench_strerror(err), "in.txt:2: 'x' is not a number");
	err = pbench_samples_add_file(s, "/nonexistent/in.txt", NULL);
	cr_assert_eq(err, -ENOENT);
	cr_expect_str_eq(pbench_strerror(err), "cannot open '/nonexistent/in.txt': No such file "
			 "or directory");
	pbench_samples_free(s);
	err = pbench_contest_baseline_read("/nonexistent/b.json", NULL, NULL, &x, &n, warn,
					   sizeof(warn));
	cr_assert_eq(err, -EIO);
	cr_expect_str_eq(pbench_strerror(err), "cannot read the baseline: cannot open "
			 "'/nonexistent/b.json': No such file or directory");
	cr_expect_null(x);
	cr_expect_eq(n, 0u);
	cr_expect_str_eq(warn, "");
	err = pbench_contest_baseline_read("/nonexistent/b.json", NULL, "instructions:u", &x, &n,
					   warn, sizeof(warn));
	cr_assert_eq(err, -EINVAL);
	expect_has(pbench_strerror(err), "the baseline '/nonexistent/b.json' is not pbench's JSON");
	jo.cpus = (int[]){ 0, 1 };
	jo.ncpus = 2;
	jo.flags = PBENCH_JITTER_PREPARED;
	err = pbench_jitter_check(&jo);
	cr_assert_eq(err, -EINVAL);
	cr_expect_str_eq(pbench_strerror(err), "--compare-prepared probes one CPU: give --cpu one "
			 "CPU, or none to use the one a prepared run would pick");
	cr_expect_eq(pbench_jitter_check(NULL), -EINVAL);
	expect_has(pbench_strerror(-EINVAL), "pbench_jitter_check(): opts is NULL");
}
