/* SPDX-License-Identifier: MIT */
/*
 * The runs engine's helpers through the public API (pbench_runs_*): hyperfine's warm-up runs,
 * setup, prepare and cleanup in their order and number, a failing helper said and the cleanup
 * still run, a helper that is not a command refused before anything runs; and command lines
 * split into words as a shell splits them (pbench_command_split).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pbench.h"
#include "testutil.h"

/* The lines of a file, as one string ("SPRPR..."): the helpers' trace. */
static void trace(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;
	int c;

	cr_assert_not_null(f, "no trace at %s", path);
	while ((c = fgetc(f)) != EOF && n + 1 < len)
		if (c != '\n')
			out[n++] = (char)c;
	out[n] = '\0';
	fclose(f);
}

static char **sh_append(const char *path, const char *what, int status)
{
	char line[512];
	char **argv;

	snprintf(line, sizeof(line), "sh -c 'echo %s >> %s; exit %d'", what, path, status);
	cr_assert_eq(pbench_command_split(&argv, line), 0);
	return argv;
}

static struct pbench_runs_opts quick(void)
{
	struct pbench_runs_opts o = PBENCH_RUNS_OPTS_INIT;

	o.mode = PBENCH_RUNS_UNPREPARED;
	o.events = "task-clock";
	o.quiet = 1;
	return o;
}

/* Setup once, then each of 2 warm-up runs and 3 kept runs after a prepare, cleanup last; the
 * first warm-up run is the check (no run of its own: issue 37), the warm-up runs are not
 * kept. */
Test(runs, helpers_in_order_and_number)
{
	char path[] = "/tmp/pbench-runs-XXXXXX", got[64];
	char **setup, **prepare, **cleanup, **cmd;
	struct pbench_runs_opts o = quick();
	struct pbench_runs_set si = { .size = sizeof(si) };
	struct pbench_runs *r;
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	close(fd);
	setup = sh_append(path, "S", 0);
	prepare = sh_append(path, "P", 0);
	cleanup = sh_append(path, "C", 0);
	cmd = sh_append(path, "R", 0);
	o.argv = cmd;
	o.runs = 3;
	o.warmup_runs = 2;
	o.setup = setup;
	o.prerun = prepare;
	o.cleanup = cleanup;
	cr_assert_eq(pbench_runs_new(&r, &o), 0);
	/* copied: the caller's arrays may go */
	pbench_command_free(setup);
	pbench_command_free(prepare);
	pbench_command_free(cleanup);
	ASSERT_OK(pbench_runs_run(r));
	trace(path, got, sizeof(got));
	cr_assert_str_eq(got, "SPRPRPRPRPRC");
	cr_assert_eq(pbench_runs_set_info(r, 0, &si), 0);
	cr_assert_eq(si.done, 3, "%d runs kept", si.done);
	pbench_runs_free(r);
	pbench_command_free(cmd);
	unlink(path);
}

/* A prepare that fails ends the runs with its status in the error; the cleanup still runs. */
Test(runs, a_failing_prepare_is_said_and_cleaned_up)
{
	char path[] = "/tmp/pbench-runs-XXXXXX", got[64];
	char **prepare, **cleanup, *cmd[] = { "true", NULL };
	struct pbench_runs_opts o = quick();
	struct pbench_runs *r;
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	close(fd);
	prepare = sh_append(path, "P", 3);
	cleanup = sh_append(path, "C", 0);
	o.argv = cmd;
	o.runs = 3;
	o.prerun = prepare;
	o.cleanup = cleanup;
	cr_assert_eq(pbench_runs_new(&r, &o), 0);
	cr_assert_eq(pbench_runs_run(r), -ECANCELED);
	cr_assert_str_eq(pbench_strerror(-ECANCELED),
			 "the prepare command 'sh' exited with status 3");
	trace(path, got, sizeof(got));
	cr_assert_str_eq(got, "PC");
	pbench_runs_free(r);
	pbench_command_free(prepare);
	pbench_command_free(cleanup);
	unlink(path);
}

/* A command that fails in its check run (its first run) ends the runs at once, with its
 * status and the last line of its stderr, nothing kept; the cleanup still runs. With
 * PBENCH_RUNS_NO_CHECK it is timed, its runs counted as failed. */
Test(runs, a_failing_command_is_said_before_any_timed_run)
{
	char path[] = "/tmp/pbench-runs-XXXXXX", got[64], line[512];
	char **cleanup, **cmd;
	struct pbench_runs_opts o = quick();
	struct pbench_runs_set si = { .size = sizeof(si) };
	struct pbench_runs *r;
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	close(fd);
	snprintf(line, sizeof(line), "sh -c 'echo R >> %s; echo one >&2; echo two >&2; exit 4'",
		 path);
	cr_assert_eq(pbench_command_split(&cmd, line), 0);
	cleanup = sh_append(path, "C", 0);
	o.argv = cmd;
	o.runs = 3;
	o.cleanup = cleanup;
	cr_assert_eq(pbench_runs_new(&r, &o), 0);
	cr_assert_eq(pbench_runs_run(r), -PBENCH_ECMD_FAILED);
	cr_assert_str_eq(pbench_strerror(-PBENCH_ECMD_FAILED), "'sh' failed before any timed run: "
			 "exit 4; the last line of its stderr: 'two'");
	cr_assert_eq(pbench_runs_set_info(r, 0, &si), 0);
	cr_assert_eq(si.done, 0, "%d runs kept", si.done);
	trace(path, got, sizeof(got));
	cr_assert_str_eq(got, "RC");
	pbench_runs_free(r);

	o.flags |= PBENCH_RUNS_NO_CHECK;
	cr_assert_eq(pbench_runs_new(&r, &o), 0);
	ASSERT_OK(pbench_runs_run(r));
	cr_assert_eq(pbench_runs_set_info(r, 0, &si), 0);
	cr_assert_eq(si.done, 3);
	cr_assert_eq(si.failed, 3);
	pbench_runs_free(r);
	pbench_command_free(cmd);
	pbench_command_free(cleanup);
	unlink(path);
}

/* A helper that is not a command is refused by pbench_runs_new, before anything runs. */
Test(runs, a_helper_that_is_not_a_command)
{
	char *cmd[] = { "true", NULL }, *nope[] = { "pbench-no-such-command", NULL };
	struct pbench_runs_opts o = quick();
	struct pbench_runs *r = (struct pbench_runs *)1;

	o.argv = cmd;
	o.cleanup = nope;
	cr_assert_eq(pbench_runs_new(&r, &o), -PBENCH_ENOT_FOUND);
	cr_assert_null(r);
	o.cleanup = NULL;
	o.warmup_runs = -1;
	cr_assert_eq(pbench_runs_new(&r, &o), -EINVAL);
}

static void split_is(const char *line, const char *const *want)
{
	char **v;
	int n = 0;

	cr_assert_eq(pbench_command_split(&v, line), 0, "%s", line);
	for (; want[n]; n++) {
		cr_assert_not_null(v[n], "%s: word %d missing", line, n);
		cr_assert_str_eq(v[n], want[n], "%s: word %d", line, n);
	}
	cr_assert_null(v[n], "%s: a word too many: %s", line, v[n]);
	pbench_command_free(v);
}

Test(command, split_as_a_shell_splits)
{
	char **v = (char **)1;

	split_is("gzip -c big.log", (const char *const[]){ "gzip", "-c", "big.log", NULL });
	split_is("  a\t b\n", (const char *const[]){ "a", "b", NULL });
	split_is("sh -c 'echo $HOME | wc'", (const char *const[]){ "sh", "-c", "echo $HOME | wc",
								    NULL });
	split_is("a\" b \\\"c\\$\"d", (const char *const[]){ "a b \"c$d", NULL });
	split_is("a\\ b 'it'\\''s'", (const char *const[]){ "a b", "it's", NULL });
	split_is("\"\\n\"", (const char *const[]){ "\\n", NULL });
	cr_assert_eq(pbench_command_split(&v, "echo 'a"), -EINVAL);
	cr_assert_null(v);
	cr_assert_eq(pbench_command_split(&v, "  "), -ENODATA);
	cr_assert_eq(pbench_command_split(&v, NULL), -EINVAL);
	cr_assert_eq(pbench_command_split(NULL, "a"), -EINVAL);
	pbench_command_free(NULL);
}

/* The defaults (events NULL) leave out what this machine cannot count, each with its reason;
 * an event named is never left out. Nothing runs: pbench_runs_new() opens the events. */
Test(runs, defaults_not_countable_left_out)
{
	struct pbench_runs_opts o = quick();
	struct pbench_runs *r;
	const char *name = NULL, *reason = NULL;
	char *const argv[] = { "true", NULL };
	int n = 0;

	o.argv = argv;
	o.events = NULL;
	cr_assert_eq(pbench_runs_new(&r, &o), 0);
	while (!pbench_runs_left_out(r, n, &name, &reason)) {
		cr_expect(!strcmp(name, "cycles") || !strcmp(name, "instructions") ||
			  !strcmp(name, "branches") || !strcmp(name, "branch-misses"), "%s", name);
		cr_expect(reason && *reason, "%s left out without a reason", name);
		for (int e = 0; e < pbench_runs_nr_events(r); e++)
			cr_expect_str_neq(pbench_runs_event_name(r, e), name);
		n++;
	}
	cr_expect_eq(pbench_runs_left_out(r, n, NULL, NULL), -ENOENT);
	cr_expect_eq(pbench_runs_nr_events(r) + n, 8, "%d events and %d left out",
		     pbench_runs_nr_events(r), n);
	if (access("/sys/bus/event_source/devices/cpu", F_OK) &&
	    access("/sys/bus/event_source/devices/armv8_pmuv3_0", F_OK))
		cr_expect_eq(n, 4, "no hardware PMU here: cycles, instructions, branches and "
			     "branch-misses left out");
	pbench_runs_free(r);

	o.events = "task-clock,cycles";
	cr_assert_eq(pbench_runs_new(&r, &o), 0);
	cr_expect_eq(pbench_runs_left_out(r, 0, &name, &reason), -ENOENT);
	cr_expect_eq(pbench_runs_nr_events(r), 2);
	cr_expect_eq(pbench_runs_left_out(NULL, 0, NULL, NULL), -EINVAL);
	pbench_runs_free(r);
}

/* A caller's struct smaller than its size field is refused and said, never copied into (issue
 * 25: .size 4 once reached pb_copy_out() and a memcpy of a negative size). */
Test(runs, get_refuses_a_struct_under_its_size_field)
{
	char *argv[] = { "true", NULL };
	struct pbench_runs_opts o = quick();
	struct pbench_run run = { .size = 4 }, whole = { .size = sizeof(whole) };
	struct pbench_runs *r;
	int err;

	o.argv = argv;
	o.runs = 1;
	cr_assert_eq(pbench_runs_new(&r, &o), 0);
	ASSERT_OK(pbench_runs_run(r));
	cr_assert_eq(pbench_runs_get(r, 0, 0, &whole), 0);
	err = pbench_runs_get(r, 0, 0, &run);
	cr_expect_eq(err, -EINVAL);
	cr_expect(strstr(pbench_strerror(err), "pbench_runs_get(): out: .size is 4, smaller than"),
		  "%s", pbench_strerror(err));
	cr_expect_eq(run.size, 4, "the caller's struct is left alone");
	pbench_runs_free(r);
}

/* The names and defaults every caller asks the library for (issue 22: they were defined in
 * the CLI and twice in the library). */
Test(runs, mode_and_workload_names_and_defaults)
{
	cr_expect_str_eq(pbench_runs_mode_name(PBENCH_RUNS_UNPREPARED), "unprepared");
	cr_expect_str_eq(pbench_runs_mode_name(PBENCH_RUNS_CONTRAST), "contrast");
	cr_expect_str_eq(pbench_runs_mode_name(3), "?");
	cr_expect_str_eq(pbench_workload_kind_name(PBENCH_WORKLOAD_MEMWALK), "memwalk");
	cr_expect_str_eq(pbench_workload_kind_name(-1), "?");
	cr_expect_eq(pbench_workload_default_iterations(PBENCH_WORKLOAD_XOR), 100000000ULL);
	cr_expect_eq(pbench_workload_default_iterations(PBENCH_WORKLOAD_MEMWALK), 200000ULL);
	cr_expect_eq(pbench_workload_default_iterations(PBENCH_WORKLOAD_FN), 0);
}

/* Totals over the sets, the multi-CPU finding (none for one CPU's worth, none for a workload),
 * and memory runs refused for what is not a command. */
Test(runs, totals_and_multi_cpu)
{
	struct pbench_runs_opts o = quick();
	struct pbench_runs_totals t = { .size = sizeof(t) };
	struct pbench_runs_multi_cpu m = { .size = sizeof(m) };
	struct pbench_runs *r;
	char *const argv[] = { "sh", "-c", "exit 3", NULL };

	o.argv = argv;
	o.events = "task-clock";
	o.flags = PBENCH_RUNS_NO_CHECK;	/* timed although it fails */
	o.runs = 3;
	cr_assert_eq(pbench_runs_new(&r, &o), 0);
	cr_assert_eq(pbench_runs_run(r), 0);
	cr_assert_eq(pbench_runs_totals(r, &t), 0);
	cr_expect_eq(t.done, 3);
	cr_expect_eq(t.failed, 3, "exit 3 is a failed run: %d", t.failed);
	cr_expect_eq(t.left_behind, 0);
	cr_expect_eq(pbench_runs_multi_cpu(r, &m), 0, "sh used %g CPUs", m.cpus_used);
	cr_expect_eq(pbench_runs_count_memory(r, 0), -EINVAL);
	pbench_runs_free(r);

	o.argv = NULL;
	o.iterations = 1000;
	cr_assert_eq(pbench_runs_new(&r, &o), 0);
	cr_assert_eq(pbench_runs_run(r), 0);
	cr_expect_eq(pbench_runs_multi_cpu(r, &m), 0);
	cr_expect_eq(pbench_runs_count_memory(r, 1), -EINVAL, "a workload is not a command");
	cr_expect_eq(pbench_runs_totals(NULL, &t), -EINVAL);
	pbench_runs_free(r);
}

/* The warnings in words, one at a time: a command that leaves a process behind is said with
 * the name given; nothing after the last; bad arguments refused. (The multi-CPU one: t_stat's
 * "multi-CPU command", which needs two CPUs free.) */
Test(runs, warnings_one_at_a_time)
{
	struct pbench_runs_opts o = quick();
	struct pbench_runs *r;
	char *const argv[] = { "sh", "-c", "sleep 30 & :", NULL };
	char why[1024];
	int k;

	o.argv = argv;
	o.events = "task-clock";
	o.runs = 2;
	cr_assert_eq(pbench_runs_new(&r, &o), 0);
	cr_assert_eq(pbench_runs_run(r), 0);
	cr_assert_eq(pbench_runs_warning(r, "my-job", 0, why, sizeof(why)), 1);
	cr_expect(strstr(why, "'my-job' left 2 processes running after 2 runs"), "saw: %s", why);
	/* then, at most, the multi-CPU one: sh and its sleep may both run at once */
	k = pbench_runs_warning(r, "my-job", 1, why, sizeof(why));
	cr_expect(k == 0 || (k == 1 && strstr(why, "'my-job' used ")), "saw: %s", why);
	cr_expect_eq(pbench_runs_warning(r, "my-job", 1 + k, why, sizeof(why)), 0, "saw: %s", why);
	cr_expect_str_empty(why);
	cr_expect_eq(pbench_runs_warning(r, NULL, 0, why, sizeof(why)), -EINVAL);
	cr_expect_eq(pbench_runs_warning(r, "x", -1, why, sizeof(why)), -EINVAL);
	cr_expect_eq(pbench_runs_warning(NULL, "x", 0, why, sizeof(why)), -EINVAL);
	pbench_runs_free(r);
}

/* The outcome in words, one at a time: failed runs with the name given, else an interruption
 * first and alone; nothing after the last; bad arguments refused. */
Test(runs, outcome_one_at_a_time)
{
	struct pbench_runs_opts o = quick();
	struct pbench_runs *r;
	char *const argv[] = { "sh", "-c", "exit 3", NULL };
	char why[1024];

	o.argv = argv;
	o.flags = PBENCH_RUNS_NO_CHECK;
	o.runs = 3;
	cr_assert_eq(pbench_runs_new(&r, &o), 0);
	cr_assert_eq(pbench_runs_run(r), 0);
	cr_assert_eq(pbench_runs_outcome(r, "my-job", 0, 0, why, sizeof(why)),
		     PBENCH_OUTCOME_ERROR);
	cr_expect_str_eq(why, "3 of 3 runs of 'my-job' failed (see the status column)");
	cr_expect_eq(pbench_runs_outcome(r, "my-job", PBENCH_OUTCOME_STRICT, 1, why, sizeof(why)),
		     0, "saw: %s", why);
	cr_expect_str_empty(why);
	cr_assert_eq(pbench_runs_outcome(r, "my-job", PBENCH_OUTCOME_INTERRUPTED, 0, why,
					 sizeof(why)), PBENCH_OUTCOME_ERROR);
	cr_expect_str_eq(why, "interrupted after 3 of 3 runs");
	cr_expect_eq(pbench_runs_outcome(r, "my-job", PBENCH_OUTCOME_INTERRUPTED, 1, why,
					 sizeof(why)), 0, "saw: %s", why);
	cr_expect_eq(pbench_runs_outcome(r, NULL, 0, 0, why, sizeof(why)), -EINVAL);
	cr_expect_eq(pbench_runs_outcome(r, "x", 0, -1, why, sizeof(why)), -EINVAL);
	cr_expect_eq(pbench_runs_outcome(NULL, "x", 0, 0, why, sizeof(why)), -EINVAL);
	pbench_runs_free(r);

	o.argv = NULL;		/* the workload: nothing to say */
	o.iterations = 1000;
	cr_assert_eq(pbench_runs_new(&r, &o), 0);
	cr_assert_eq(pbench_runs_run(r), 0);
	cr_expect_eq(pbench_runs_outcome(r, "the workload", PBENCH_OUTCOME_STRICT, 0, why,
					 sizeof(why)), 0, "saw: %s", why);
	pbench_runs_free(r);
}

/* The writer that takes a format writes what the writer of that name does, byte for byte,
 * and refuses a format that is none. */
Test(runs, write_by_format_is_the_named_writer)
{
	struct pbench_runs_opts o = quick();
	struct pbench_runs *r;
	char *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	FILE *fa, *fb;

	o.iterations = 1000;
	o.runs = 2;
	cr_assert_eq(pbench_runs_new(&r, &o), 0);
	cr_assert_eq(pbench_runs_run(r), 0);
	for (int fmt = PBENCH_REPORT_FORMAT_JSON; fmt <= PBENCH_REPORT_FORMAT_TEXT; fmt++) {
		fa = open_memstream(&a, &na);
		fb = open_memstream(&b, &nb);
		cr_assert_eq(pbench_runs_write(r, fmt, fa), 0, "format %d", fmt);
		cr_assert_eq(fmt == PBENCH_REPORT_FORMAT_JSON ? pbench_runs_write_json(r, fb) :
			     fmt == PBENCH_REPORT_FORMAT_CSV ? pbench_runs_write_csv(r, fb) :
			     fmt == PBENCH_REPORT_FORMAT_MARKDOWN ? pbench_runs_write_markdown(r, fb) :
			     fmt == PBENCH_REPORT_FORMAT_SVG ? pbench_runs_plot_svg(r, fb) :
			     pbench_runs_write_text(r, fb), 0);
		fclose(fa);
		fclose(fb);
		cr_expect(na > 0 && na == nb && !memcmp(a, b, na), "format %d: %zu against %zu bytes",
			  fmt, na, nb);
		free(a);
		free(b);
	}
	cr_expect_eq(pbench_runs_write(r, PBENCH_REPORT_FORMAT_TEXT + 1, stdout), -EINVAL);
	cr_expect_eq(pbench_runs_write(r, -1, stdout), -EINVAL);
	pbench_runs_free(r);
}

/* What pbench_runs_new() refuses is said before anything opens: a value out of range, and
 * the two combinations stat refuses, in its words; the defaults pass. */
Test(runs, check_says_what_is_refused)
{
	struct pbench_runs_opts o = quick();
	struct pbench_runs *r;
	char *const argv[] = { "true", NULL };
	int cpus[] = { 0, 1 };
	char why[512];

	cr_expect_eq(said_in(pbench_runs_check(&o), why, sizeof(why)), 0, "%s", why);
	cr_expect_str_empty(why);
	o.runs = 0;
	cr_expect_eq(said_in(pbench_runs_check(&o), why, sizeof(why)), -EINVAL);
	cr_expect(strstr(why, "opts->runs is 0"), "%s", why);
	o = quick();
	o.max_time_s = 5;
	cr_expect_eq(said_in(pbench_runs_check(&o), why, sizeof(why)), -EINVAL);
	cr_expect_str_eq(why, "--max-time is the time budget of --target-sem: give --target-sem "
			 "too, or use -r for a fixed number of runs");
	cr_expect_eq(pbench_runs_new(&r, &o), -EINVAL, "refused by pbench_runs_new() too");
	cr_expect(strstr(pbench_strerror(-EINVAL), "--target-sem"), "%s",
		  pbench_strerror(-EINVAL));
	o.target_sem_pct = 1;
	cr_expect_eq(said_in(pbench_runs_check(&o), why, sizeof(why)), 0, "%s", why);
	o = quick();
	o.cpus = cpus;
	o.ncpus = 2;
	cr_expect_eq(said_in(pbench_runs_check(&o), why, sizeof(why)), -EINVAL);
	cr_expect(strstr(why, "the built-in workload runs on one"), "%s", why);
	o.argv = argv;
	cr_expect_eq(said_in(pbench_runs_check(&o), why, sizeof(why)), 0, "%s", why);
	cr_expect_eq(said_in(pbench_runs_check(NULL), why, sizeof(why)), -EINVAL);
}
