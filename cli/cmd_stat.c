/* SPDX-License-Identifier: MIT */
/*
 * pbench stat: run a command (or the built-in workload) N times, each run timed in ticks and
 * ns and counted with the requested events, unprepared, prepared (one core, high priority,
 * warmed up) or both side by side, and print every run, the outliers with their causes and a
 * summary. The experiment and its reports are the library's (pbench_runs_*): this file parses
 * the options, shows progress, and picks the writers.
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <unistd.h>

#include "pbench.h"
#include "cmds.h"
#include "help.h"

#define STAT_OUTPUTS (CLI_OUT_JSON | CLI_OUT_CSV | CLI_OUT_MARKDOWN | CLI_OUT_PLOT)

static void stat_usage(FILE *f)
{
	const struct pbench_runs_opts d = PBENCH_RUNS_OPTS_INIT;

	fprintf(f, PB_HELP_STAT, PBENCH_RUNS_DEFAULT_EVENTS, PBENCH_RUNS_MAX_RUNS, (int)d.runs,
		PBENCH_RUNS_SEM_DEFAULT_RUNS, PBENCH_RUNS_SEM_MIN_RUNS,
		PBENCH_RUNS_SEM_DEFAULT_MAX_TIME_S, d.warmup_ms, CLI_RUN_MEMORY_RUNS,
		PBENCH_RUNS_DEFAULT_PROFILE_TOP, (unsigned long long)pbench_workload_default_iterations(PBENCH_WORKLOAD_XOR),
		(unsigned long long)pbench_workload_default_iterations(PBENCH_WORKLOAD_MEMWALK));
}

struct stat_opts {
	struct pbench_runs_opts ro;
	struct cli_out out;		/* --json, --export-json FILE, ... */
	struct cli_run run;		/* the options shared with compare */
	struct cli_progress progress;	/* the progress line on stderr */
	int head_first;			/* the text's head goes out before the command's output */
	struct cli_annotate ann;	/* --annotate FUNCTION,... (cli/annotate.c) */
	struct cli_profile prof;	/* --profile and its options (cli/profile.c) */
};

enum { OPT_TARGET_SEM = 256, OPT_ANNOTATE, OPT_IGNORE_FAILURE };

/* One option of `pbench stat` (getopt's c and optarg): 0, -1 after an error said, 1 when c is
 * not one of them. */
static int stat_option(int c, const char *arg, void *ctx)
{
	struct stat_opts *o = ctx;
	int taken = cli_run_option(&o->run, c, arg);

	if (taken)
		return taken < 0 ? -1 : 0;
	if ((taken = cli_profile_option(&o->prof, c, arg)) != 1)
		return taken;
	switch (c) {
	case 'r':
		return cli_long("-r", "run count", arg, 1, PBENCH_RUNS_MAX_RUNS, &o->ro.runs) ?
		       -1 : 0;
	case 'q':
		o->ro.quiet = 1;
		return 0;
	case OPT_IGNORE_FAILURE:
		o->ro.flags |= PBENCH_RUNS_NO_CHECK;
		return 0;
	case OPT_ANNOTATE:
		return cli_annotate_option(&o->ann, arg);
	case 'I':
		return cli_number("-I", "interval (ms)", arg, PBENCH_RUNS_INTERVAL_MIN_MS, 864e5,
				  0, &o->ro.interval_ms) ? -1 : 0;
	case OPT_TARGET_SEM:
		return cli_number("--target-sem", "target", arg, 0, 100,
				  CLI_NUM_POSITIVE | CLI_NUM_PCT, &o->ro.target_sem_pct) ? -1 : 0;
	}
	return 1;
}

/* The shared options (cli_run) into the runs' options: what was not given keeps its default. */
static void apply_run(struct stat_opts *o)
{
	const struct cli_run *r = &o->run;

	o->ro.mode = r->mode >= 0 ? r->mode : o->ro.mode;
	o->ro.workload = r->workload >= 0 ? r->workload : o->ro.workload;
	o->ro.iterations = r->niters ? r->iters[0] : o->ro.iterations;
	o->ro.cpu = r->ncpus ? r->cpus[0] : o->ro.cpu;
	o->ro.cpus = r->ncpus > 1 ? r->cpus : NULL;
	o->ro.ncpus = r->ncpus > 1 ? r->ncpus : 0;
	o->ro.warmup_ms = r->warmup_ms >= 0 ? r->warmup_ms : o->ro.warmup_ms;
	o->ro.timeout_s = r->timeout_s > 0 ? r->timeout_s : o->ro.timeout_s;
	o->ro.max_time_s = r->max_time_s > 0 ? r->max_time_s : o->ro.max_time_s;
	o->ro.warmup_runs = r->warmup_runs >= 0 ? r->warmup_runs : o->ro.warmup_runs;
	o->ro.flags |= r->reprobe ? PBENCH_RUNS_REPROBE : 0;
	o->ro.events = r->events;
	o->ro.metrics = r->metrics;
	o->ro.metric = r->metric;
}

static int parse_args(int argc, char **argv, struct stat_opts *o)
{
	static const struct option opts[] = {
		{ "runs", required_argument, NULL, 'r' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "target-sem", required_argument, NULL, OPT_TARGET_SEM },
		{ "annotate", required_argument, NULL, OPT_ANNOTATE },
		{ "ignore-failure", no_argument, NULL, OPT_IGNORE_FAILURE },
		{ "interval", required_argument, NULL, 'I' },
		CLI_RUN_OPTIONS,
		CLI_PROFILE_OPTIONS,
		CLI_OUT_OPTIONS,
		{ 0 },
	};
	int rc;

	cli_out_init(&o->out, "stat", STAT_OUTPUTS, CLI_OUT_DASH);
	rc = cli_options(argc, argv, "+:e:I:M:r:qh", opts, &o->out, stat_usage, stat_option, o);
	if (rc)
		return rc;
	if (optind < argc)
		o->ro.argv = argv + optind;
	apply_run(o);
	return cli_profile_apply(&o->prof, &o->ro) ? -1 : 0;
}

/* ---- progress ----------------------------------------------------------------------------- */

/* "prepared: run 7 of 20, 27.3 ms ± 0.41%, 0.4 s left" (cli_progress()): with the command's
 * output on the terminal too, a run's line at most once a second. */
static void show_progress(const struct pbench_runs_progress *p, void *arg)
{
	char line[256];
	int done = !strcmp(p->phase, "done");

	if (!done)
		cli_runs_progress_text(p, line, sizeof(line));
	cli_progress(arg, done ? NULL : line, !(!strcmp(p->phase, "runs") && p->run) &&
		     strcmp(p->phase, "warm-up"));
}

/* ---- errors ------------------------------------------------------------------------------- */

/* Name errors and commands that cannot run are the user's to fix: exit 2 with the reason. */
static int start_error(int err, const struct stat_opts *o)
{
	const char *cmd = o->ro.argv ? o->ro.argv[0] : "";
	char why[4500];

	if (cli_event_error(err))
		return EXIT_USAGE;
	if (pbench_command_explain(cmd, err, why, sizeof(why)) == 1) {
		cli_error("%s", why);
		/* a bare --json took what was meant for a file; else, where to look for it */
		if (err != -PBENCH_EBAD_INTERP && !cli_out_hint(&o->out, cmd) &&
		    err == -PBENCH_ENOT_FOUND)
			cli_command_hint(cmd, "check the name, or give its path");
		return EXIT_USAGE;
	}
	cli_error("cannot start: %s", pbench_strerror(err));
	return EXIT_RUNTIME;
}

/* ---- reports ------------------------------------------------------------------------------ */

/* The runs and what the report's text already wrote. */
struct report {
	const struct pbench_runs *r;
	int head_first;
	const struct cli_annotate *ann;		/* --annotate's */
};

/* The report in each format asked for (cli_out_write): the library's writers; under the text
 * or the Markdown, the listing of --annotate (with its samples, or why there are none). */
static int write_report(void *arg, int fmt, FILE *f)
{
	const struct report *rep = arg;

	/* the text's head went out before the command's output */
	return cli_annotate_write(rep->ann, rep->r, fmt,
				  rep->head_first ? PBENCH_RUNS_WRITE_BODY : 0, f);
}

/* Exit 1 for a run cut short, failed runs, a state not restored, --strict: said in one line. */
static int verdict(const struct pbench_runs *r, const struct stat_opts *o, int interrupted)
{
	unsigned flags = (interrupted ? PBENCH_OUTCOME_INTERRUPTED : 0) |
			 (o->run.strict ? PBENCH_OUTCOME_STRICT : 0);
	char why[1024];
	int rc = EXIT_OK, kind;

	for (int k = 0; (kind = pbench_runs_outcome(r, o->ro.argv ? o->ro.argv[0] : "the workload",
						    flags, k, why, sizeof(why))) > 0; k++)
		rc = cli_outcome(kind, why) ? EXIT_RUNTIME : rc;
	return rc;
}

/* What r's runs left to warn about (pbench_runs_warning()), each said; name: the command's. */
static void warn_runs(const struct pbench_runs *r, const char *name)
{
	char why[1024];

	for (int k = 0; r && pbench_runs_warning(r, name, k, why, sizeof(why)) == 1; k++)
		cli_warn("%s", why);
}

/* No run done, but one cut short by a signal kept what -I measured of it (the check run of a
 * long command, say): the report shows it, as perf stat -I's lines would have. */
static int cut_short_intervals(const struct pbench_runs *r)
{
	for (int s = 0; s < pbench_runs_nr_sets(r); s++)
		if (pbench_runs_nr_intervals(r, s, 0) > 0)
			return 1;
	return 0;
}

/* Run and report: the library's handlers (PBENCH_RUNS_SIGNALS) restore a prepared state on
 * SIGINT/SIGTERM and hand the signal on to cli_stop's (main()), which stops the runs. */
static int measure(struct stat_opts *o)
{
	struct pbench_runs_totals t = { .size = sizeof(t) };
	struct pbench_runs *r;
	struct report rep;
	int err, rc = EXIT_OK;

	err = pbench_runs_new(&r, &o->ro);
	if (err)
		return start_error(err, o);
	if (o->head_first)
		pbench_runs_write_head(r, stdout);
	fflush(stdout);
	err = pbench_runs_run(r);
	if (err && err != -EINTR) {
		cli_error("%s", pbench_strerror(err));
		if (err == -PBENCH_ECMD_FAILED)
			cli_hint("--ignore-failure times it anyway (its runs then count as failed)");
		pbench_runs_free(r);
		return EXIT_RUNTIME;
	}
	warn_runs(r, o->ro.argv ? o->ro.argv[0] : "the workload");
	pbench_runs_totals(r, &t);
	/* --memory's runs come after the timed ones and before the report, which holds them;
	 * stopped (a signal), the runs done are kept and each one not done says so. */
	if (t.done && o->run.memory_runs && !err && !*cli_stop &&
	    (err = pbench_runs_count_memory(r, (int)o->run.memory_runs)) < 0) {
		cli_mem_error(err);
		rc = EXIT_RUNTIME;
	}
	err = err < 0 ? err : 0;
	if (t.done && !rc)	/* --annotate from --profile's samples */
		rc = cli_annotate_after(&o->ann, r, o->ro.argv, o->ro.profile);
	rep = (struct report){ r, o->head_first, &o->ann };
	if ((t.done || cut_short_intervals(r)) && !rc)
		rc = cli_out_write(&o->out, write_report, &rep);
	if (!rc)
		rc = cli_profile_write(&o->prof, r);	/* --export-folded, ... */
	err = verdict(r, o, err == -EINTR || *cli_stop);
	if (!rc && !err && o->run.record)	/* a whole measurement only */
		rc = cli_record(&o->run, write_report, &rep);
	pbench_runs_free(r);
	return rc ? rc : err;
}

/* --annotate without --profile: each function's code, read before the runs (objdump is not
 * run among them), and one more run of the command, sampled, before the measured ones (never
 * one of them); with --profile, after the runs from their samples (measure()). A function
 * that cannot be shown or sampled is not an error: the report says why. */
static int annotate(struct stat_opts *o)
{
	return cli_annotate_before(&o->ann, o->ro.argv, o->ro.timeout_s, o->ro.profile, cli_stop);
}

static int stat_main(int argc, char **argv, struct stat_opts *o);

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o = { .ro = PBENCH_RUNS_OPTS_INIT,
			       .run = { .cmd = "stat", .modes = 3,
					.max_warmup = PBENCH_RUNS_MAX_RUNS, .max_time = 86400 } };
	int rc = stat_main(argc, argv, &o);

	cli_run_release(&o.run);
	cli_profile_release(&o.prof);
	cli_annotate_release(&o.ann);
	return rc;
}

static int stat_main(int argc, char **argv, struct stat_opts *o)
{
	long runs = o->ro.runs;		/* without -r: PBENCH_RUNS_OPTS_INIT's */
	int rc, err;

	cli_run_init(&o->run);
	o->ro.runs = 0;	/* ro.events NULL: the library's defaults, less what cannot count */
	rc = parse_args(argc, argv, o);
	if (rc)
		return rc < 0 ? EXIT_USAGE : EXIT_OK;
	if (!o->ro.runs)
		o->ro.runs = o->ro.target_sem_pct > 0 ? PBENCH_RUNS_SEM_DEFAULT_RUNS : runs;
	/* --max-time without --target-sem, a CPU list or -I for the workload: the library's words */
	if ((err = pbench_runs_check(&o->ro))) {
		cli_error("%s", pbench_strerror(err));
		return EXIT_USAGE;
	}
	if (o->ro.argv && o->run.workload >= 0) {
		cli_error("--workload picks a built-in workload, but a command was given: drop one "
			  "of them");
		return EXIT_USAGE;
	}
	if (o->run.memory_runs && !o->ro.argv) {
		cli_error("--memory counts a command's allocations: give the command (-- CMD "
			  "ARGS...); for a function, the library's count_memory");
		return EXIT_USAGE;
	}
	if (cli_run_memory_csv(&o->run, &o->out))
		return EXIT_USAGE;
	if (o->ann.n && !o->ro.argv) {
		cli_error("--annotate shows a function of the command's program: give the command "
			  "after --");
		return EXIT_USAGE;
	}
	rc = cli_run_helpers(&o->run, 0, 1);
	if (rc)
		return rc;
	o->ro.setup = o->run.argv[0];
	o->ro.prerun = o->run.argv[1];
	o->ro.cleanup = o->run.argv[2];
	if (o->ro.target_sem_pct > 0 && !(o->ro.max_time_s > 0))
		o->ro.max_time_s = PBENCH_RUNS_SEM_DEFAULT_MAX_TIME_S;
	/* A report on stdout keeps it: the command's output goes to stderr instead. */
	if (o->ro.argv && !o->ro.quiet && !cli_out_text(&o->out))
		o->ro.quiet = PBENCH_CHILD_OUTPUT_STDERR;
	/* A command's output on stdout: pbench's head first, its report after. */
	o->head_first = o->ro.argv && !o->ro.quiet && cli_out_text(&o->out);
	o->progress = (struct cli_progress){ "stat", cli_term_color(stderr),
					     o->ro.argv && o->ro.quiet != PBENCH_CHILD_OUTPUT_NULL };
	if (isatty(STDERR_FILENO)) {
		o->ro.progress = show_progress;
		o->ro.progress_arg = &o->progress;
	}
	o->ro.stop = cli_stop;
	o->ro.resumed = cli_stop_resumed();
	o->ro.text_width = cli_term_width(stdout);
	o->ro.flags |= PBENCH_RUNS_SIGNALS | PBENCH_RUNS_PRIORITY_CACHE;
	/* Opened before anything runs: a path that cannot be written is a usage error with
	 * nothing measured, and a report that was not written whole leaves the old file. */
	rc = cli_record_check(&o->run);
	if (!rc)
		rc = cli_out_open(&o->out);
	if (rc)
		return rc;
	rc = annotate(o);
	if (rc)
		return cli_out_close(&o->out, 1, rc);
	return cli_out_close(&o->out, 1, measure(o));
}
