/* SPDX-License-Identifier: MIT */
/*
 * pbench compare: which of two (or more) commands is faster, by how much, and how sure. The
 * contest and its reports are the library's (pbench_contest_*): this file parses the options
 * (each command is one argument, split into words as a shell would but without one), reads a
 * baseline, shows progress, picks the writers, and applies the regression gate.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pbench.h"
#include "cmds.h"
#include "help.h"

#define MAX_ENTRANTS CLI_RUN_MAX_SIDES
#define COMPARE_OUTPUTS (CLI_OUT_JSON | CLI_OUT_CSV | CLI_OUT_MARKDOWN | CLI_OUT_PLOT)

static void compare_usage(FILE *f)
{
	const struct pbench_contest_opts d = PBENCH_CONTEST_OPTS_INIT;

	fprintf(f, PB_HELP_COMPARE, PBENCH_STATS_DEFAULT_CONFIDENCE * 100, d.same_pct, d.max_time_s,
		d.max_rounds, PBENCH_CONTEST_MAX_ROUNDS, PBENCH_CONTEST_DEFAULT_MIN_ROUNDS,
		d.warmup_ms, PBENCH_CONTEST_DEFAULT_EVENTS, CLI_RUN_MEMORY_RUNS,
		PBENCH_CONTEST_DEFAULT_PROFILE_FDR * 100);
}

struct compare_opts {
	struct pbench_contest_opts co;
	const char *cmd[MAX_ENTRANTS];
	int ncmd;
	const char *name[MAX_ENTRANTS];
	int nname;
	struct cli_run run;		/* the options shared with stat */
	struct cli_out out;		/* --json, --export-json FILE, ... */
	int shell;
	int duet[CPU_SETSIZE];		/* --duet-cpus */
	const char *reference, *baseline;
	const char *occasions;		/* --occasions NAME: the history's series of the command */
	int fail_undecided;		/* --fail-if-undecided */
	double fail_pct;		/* < 0: no gate */
	double confidence_pct;		/* 0: the library's */
	struct cli_progress progress;	/* the progress line on stderr */
	struct cli_compare_profile prof;	/* --profile and its options (compare_profile.c) */
	/* what was built from the above, freed at the end */
	char **argv[MAX_ENTRANTS];	/* the sides */
	double *stored;
	size_t nstored;
	struct cli_scan scan;		/* -P, -L: each command at every point (scan.c) */
};

/* ---- options -------------------------------------------------------------------------------- */

enum { OPT_SHELL = 256, OPT_REFERENCE, OPT_DUET, OPT_DUET_CPUS, OPT_ORDER, OPT_CONFIDENCE,
       OPT_SAME, OPT_MAX_RUNS, OPT_MIN_RUNS, OPT_FULL, OPT_NO_CHECK, OPT_SHOW, OPT_SEED,
       OPT_BASELINE, OPT_FAIL, OPT_OCCASIONS, OPT_FAIL_UNDECIDED };

/* Options that take a number. 0, -1 after the message, 1 when c is not one of them. */
static int number_option(int c, const char *arg, struct compare_opts *o)
{
	struct pbench_contest_opts *co = &o->co;
	double v;

	switch (c) {
	case OPT_CONFIDENCE:
		return cli_number("--confidence", "confidence", arg, 50, 99.9999999, CLI_NUM_PCT,
				  &o->confidence_pct) ? -1 : 0;
	case OPT_SAME:
		return cli_number("--same", "equivalence margin", arg, 0, 50, CLI_NUM_PCT,
				  &co->same_pct) ? -1 : 0;
	case OPT_MAX_RUNS:
		return cli_long("--max-runs", "run count", arg, 2, PBENCH_CONTEST_MAX_ROUNDS,
				&co->max_rounds);
	case OPT_MIN_RUNS:
		return cli_long("--min-runs", "run count", arg, 2, PBENCH_CONTEST_MAX_ROUNDS,
				&co->min_rounds);
	case OPT_SEED:
		if (cli_number("--seed", "seed", arg, 1, 9007199254740992.0, CLI_NUM_INT, &v))
			return -1;
		co->seed = (uint64_t)v;
		return 0;
	case OPT_FAIL:
		return cli_number("--fail-if-slower", "percentage", arg, 0, 10000, CLI_NUM_PCT,
				  &o->fail_pct) ? -1 : 0;
	}
	return 1;
}

/* One option (getopt's c and optarg): 0, -1 after an error said, 1 when c is not one. */
static int compare_option(int c, const char *arg, void *ctx)
{
	static const char *const orders[] = { "interleaved", "duet", "sequential" };
	struct compare_opts *o = ctx;
	int err = cli_run_option(&o->run, c, arg), k;

	if (!err)
		err = cli_scan_option(&o->scan, c, arg);
	if (err)
		return err < 0 ? -1 : 0;
	if ((err = cli_compare_profile_option(&o->prof, c, arg)) != 1)
		return err;
	if ((err = number_option(c, arg, o)) <= 0)
		return err;
	switch (c) {
	case 'n':
		if (o->nname == MAX_ENTRANTS) {
			cli_error("too many names (-n): %d commands at most", MAX_ENTRANTS);
			return -1;
		}
		o->name[o->nname++] = arg;
		return 0;
	case OPT_SHELL:
		o->shell = 1;
		return 0;
	case OPT_REFERENCE:
		o->reference = arg;
		return 0;
	case OPT_DUET:
		o->co.order = PBENCH_CONTEST_ORDER_DUET;
		return 0;
	case OPT_DUET_CPUS:	/* one CPU is the same twice, which the contest refuses */
		if ((k = cli_cpus("compare", "--duet-cpus", arg, CLI_CPU_TWO, o->duet,
				  CPU_SETSIZE)) < 0)
			return -1;
		o->co.duet_cpus[0] = o->duet[0];
		o->co.duet_cpus[1] = o->duet[k - 1];
		return 0;
	case OPT_ORDER:
		if ((k = cli_choice("--order", arg, orders, 3)) < 0)
			return -1;
		o->co.order = k;
		return 0;
	case OPT_FULL:
		o->co.flags |= PBENCH_CONTEST_FULL_BUDGET;
		return 0;
	case OPT_NO_CHECK:
		o->co.flags |= PBENCH_CONTEST_NO_CHECK;
		return 0;
	case OPT_SHOW:
		o->co.flags |= PBENCH_CONTEST_SHOW_OUTPUT;
		return 0;
	case OPT_BASELINE:
		o->baseline = arg;
		return 0;
	case OPT_OCCASIONS:
		o->occasions = arg;
		return 0;
	case OPT_FAIL_UNDECIDED:
		o->fail_undecided = 1;
		return 0;
	}
	return 1;
}

static int parse_args(int argc, char **argv, struct compare_opts *o)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "shell", no_argument, NULL, OPT_SHELL },
		{ "reference", required_argument, NULL, OPT_REFERENCE },
		{ "duet", no_argument, NULL, OPT_DUET },
		{ "duet-cpus", required_argument, NULL, OPT_DUET_CPUS },
		{ "order", required_argument, NULL, OPT_ORDER },
		{ "confidence", required_argument, NULL, OPT_CONFIDENCE },
		{ "same", required_argument, NULL, OPT_SAME },
		{ "max-runs", required_argument, NULL, OPT_MAX_RUNS },
		{ "min-runs", required_argument, NULL, OPT_MIN_RUNS },
		{ "full-budget", no_argument, NULL, OPT_FULL },
		{ "no-check-output", no_argument, NULL, OPT_NO_CHECK },
		{ "show-output", no_argument, NULL, OPT_SHOW },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "baseline", required_argument, NULL, OPT_BASELINE },
		{ "fail-if-slower", required_argument, NULL, OPT_FAIL },
		{ "fail-if-undecided", no_argument, NULL, OPT_FAIL_UNDECIDED },
		{ "occasions", required_argument, NULL, OPT_OCCASIONS },
		CLI_RUN_OPTIONS,
		CLI_SCAN_OPTIONS,
		CLI_OUT_OPTIONS,
		CLI_COMPARE_PROFILE_OPTIONS,
		{ 0 },
	};
	int rc;

	cli_out_init(&o->out, "compare", COMPARE_OUTPUTS, 0);
	o->scan.argc = argc;
	o->scan.argv = argv;
	/* Options may follow the commands (each command is one argument); "--" ends them. */
	rc = cli_options(argc, argv, ":n:e:M:hP:L:D:", opts, &o->out, compare_usage, compare_option, o);
	if (rc)
		return rc;
	for (; optind < argc; optind++) {
		if (o->ncmd == MAX_ENTRANTS) {
			cli_error("too many commands: %d at most", MAX_ENTRANTS);
			return -1;
		}
		o->cmd[o->ncmd++] = argv[optind];
	}
	return 0;
}

/* ---- what the options make ------------------------------------------------------------------ */

/* Combinations the options cannot make: said, EXIT_USAGE. */
static int check_args(struct compare_opts *o)
{
	int sides = o->run.workload >= 0 ? o->run.niters : o->ncmd;

	if (o->run.workload >= 0 && o->ncmd) {
		cli_error("--workload compares built-in workloads, one per --iterations, but "
			  "commands were given too: drop one or the other");
		return EXIT_USAGE;
	}
	if (o->run.workload < 0 && o->run.niters) {
		cli_error("--iterations sizes a built-in workload: give --workload xor (or "
			  "memwalk) too, or commands instead");
		return EXIT_USAGE;
	}
	if (sides + (o->baseline != NULL) < 2) {
		cli_error("%s: compare needs two commands (or one and --baseline FILE)",
			  sides ? "only one command" : "no command to compare");
		cli_hint("pbench compare 'CMD A' 'CMD B': each command one argument");
		return EXIT_USAGE;
	}
	if (sides + (o->baseline != NULL) > MAX_ENTRANTS) {
		cli_error("too many commands: %d at most", MAX_ENTRANTS);
		return EXIT_USAGE;
	}
	if (o->nname > sides) {
		cli_error("%d names (-n) for %d command%s: one name per command, in order",
			  o->nname, sides, sides == 1 ? "" : "s");
		return EXIT_USAGE;
	}
	if (o->baseline && o->reference) {
		cli_error("--baseline is the reference: drop --reference");
		return EXIT_USAGE;
	}
	if (o->run.memory_runs && (o->run.workload >= 0 || o->baseline)) {
		cli_error("--memory runs the commands again with the allocator shim: %s",
			  o->run.workload >= 0 ? "the built-in workloads are not commands" :
			  "a baseline's times cannot run again");
		return EXIT_USAGE;
	}
	if ((o->occasions || o->fail_undecided) && (!o->baseline || o->fail_pct < 0)) {
		cli_error("%s gates against a stored baseline: give --baseline FILE and "
			  "--fail-if-slower PCT too", o->occasions ? "--occasions" :
			  "--fail-if-undecided");
		return EXIT_USAGE;
	}
	if (o->occasions && !*o->occasions) {
		cli_error("--occasions: the series' NAME is empty");
		return EXIT_USAGE;
	}
	return cli_run_memory_csv(&o->run, &o->out) ? EXIT_USAGE : 0;
}

static const char *side_name(const struct compare_opts *o, int i)
{
	return i < o->nname ? o->name[i] : o->run.workload >= 0 ? NULL : o->cmd[i];
}

/* --reference: a name, or a number from 1; the index among the sides. */
static int find_reference(const struct compare_opts *o)
{
	int sides = o->run.workload >= 0 ? o->run.niters : o->ncmd, n = 0;
	const char *names[MAX_ENTRANTS];
	double v;

	if (!o->reference)
		return 0;
	for (int i = 0; i < sides; i++)
		if (side_name(o, i) && !strcmp(side_name(o, i), o->reference))
			return i;
		else if (side_name(o, i))
			names[n++] = side_name(o, i);
	if (!pbench_format_parse(o->reference, CLI_NUM_INT, &v) && v >= 1 && v <= sides)
		return (int)v - 1;
	cli_error("no command named '%s' for --reference%s: give a command's name (-n, or the "
		  "command as written) or its number, 1 to %d", o->reference,
		  cli_did_you_mean(o->reference, names, n, ""), sides);
	return -1;
}

/* ---- the baseline --------------------------------------------------------------------------- */

/* The stored times (the library's pbench_samples_baseline()): EXIT_USAGE after the message
 * when the file is not a baseline. */
static int read_baseline(struct compare_opts *o)
{
	char warn[256];
	int err = pbench_contest_baseline_read(o->baseline, side_name(o, 0), o->co.metric,
					       &o->stored, &o->nstored, warn, sizeof(warn));

	if (*warn)
		cli_warn("the baseline %s", warn);
	if (err)
		cli_error("%s", pbench_strerror(err));
	if (err == -EINVAL)
		cli_hint("a baseline is the JSON of pbench compare or pbench stat (--json=FILE)");
	return err ? EXIT_USAGE : 0;
}

/* What the baseline was measured as: another mode is refused (its times are another
 * quantity); another command, events or machine are said. */
static int check_baseline(const struct compare_opts *o, const struct pbench_contest *c)
{
	char why[1024];
	int d = pbench_contest_baseline_check(c, o->baseline, side_name(o, 0), why, sizeof(why));

	if (d & PBENCH_BASELINE_DIFF_MODE) {
		cli_error("the baseline '%s' is not comparable: %s", o->baseline, why);
		cli_hint("give --mode as the baseline was measured, or measure a new baseline");
		return EXIT_USAGE;
	}
	if (d > 0)
		cli_warn("the baseline '%s' differs: %s", o->baseline, why);
	return 0;
}

/* ---- the contest ---------------------------------------------------------------------------- */

/* A name error, a command that cannot run, an option the machine cannot do (a duet on one
 * CPU): the user's to fix, exit 2; anything else, 1. */
static int start_error(int err, const struct compare_opts *o)
{
	char **const *cmds = o->run.argv, path[4096];

	if (cli_event_error(err))
		return EXIT_USAGE;
	switch (-err) {
	case PBENCH_ENOT_FOUND:
	case PBENCH_ENOT_EXEC:
	case PBENCH_EBAD_INTERP:
	case EINVAL:
		cli_error("%s", pbench_strerror(err));
		/* the hint for the first command not found, a side's or a helper's */
		for (int i = 0; err == -PBENCH_ENOT_FOUND && i < o->ncmd + 3; i++) {
			char **a = i < o->ncmd ? o->argv[i] : cmds[i - o->ncmd];

			if (a && pbench_command_resolve(a[0], path, sizeof(path)) == err) {
				cli_command_hint(a[0], "check the name, or give its path");
				break;
			}
		}
		return EXIT_USAGE;
	}
	cli_error("cannot start: %s", pbench_strerror(err));
	return EXIT_RUNTIME;
}

static int add_sides(struct compare_opts *o, struct pbench_contest *c)
{
	int sides = o->run.workload >= 0 ? o->run.niters : o->ncmd, err = 0;

	if (o->stored) {
		struct pbench_contest_entrant s = PBENCH_CONTEST_ENTRANT_INIT;

		s.name = "baseline";
		s.stored_ns = o->stored;
		s.nr_stored = o->nstored;
		s.stored_file = o->baseline;
		s.stored_set = side_name(o, 0);
		err = pbench_contest_add(c, &s);
	}
	for (int i = 0; i < sides && err >= 0; i++) {
		struct pbench_contest_entrant e = PBENCH_CONTEST_ENTRANT_INIT;

		e.name = side_name(o, i);
		e.argv = o->argv[i];
		e.workload = o->run.workload;
		if (o->run.workload >= 0)
			e.iterations = o->run.iters[i];
		err = pbench_contest_add(c, &e);
	}
	return err < 0 ? err : 0;
}

/* The argv of every command line (the sides, setup, prepare, cleanup): 0 or the exit code. */
static int make_argvs(struct compare_opts *o)
{
	int rc = 0;

	for (int i = 0; i < o->ncmd && !rc; i++)
		rc = cli_command_argv(o->cmd[i], o->shell, "command", &o->argv[i]);
	if (!rc)
		rc = cli_run_helpers(&o->run, o->shell, 0);
	o->co.setup = o->run.argv[0];
	o->co.prerun = o->run.argv[1];
	o->co.cleanup = o->run.argv[2];
	return rc;
}

static int build(struct compare_opts *o, struct pbench_contest **c)
{
	int err;

	*c = NULL;
	err = pbench_contest_new(c, &o->co);
	if (!err)
		err = add_sides(o, *c);
	if (err) {
		err = start_error(err, o);
		pbench_contest_free(*c);
		*c = NULL;
	}
	return err;
}

/* ---- progress ------------------------------------------------------------------------------- */

/* "round 12: b/a 1.012 (0.990-1.030), 3.1 s left" (cli_progress()). */
static void show_progress(const struct pbench_contest_progress *p, void *arg)
{
	char line[256];

	cli_progress(arg, strcmp(p->phase, "done") &&
		     !cli_contest_progress_text(p, line, sizeof(line)) ? line : NULL, 1);
}

/* ---- reports -------------------------------------------------------------------------------- */

/* The contest in each format asked for (cli_out_write): the library's writers. */
static int write_report(void *c, int fmt, FILE *f)
{
	return pbench_contest_write(c, fmt, f);
}

/* Exit 1 for failed runs, a state not restored, an interruption, or the gate; each said. */
static int outcome(const struct pbench_contest *c, const struct compare_opts *o, int stopped)
{
	unsigned flags = (stopped ? PBENCH_OUTCOME_INTERRUPTED : 0) |
			 (o->run.strict ? PBENCH_OUTCOME_STRICT : 0) |
			 (o->fail_undecided ? PBENCH_OUTCOME_FAIL_UNDECIDED : 0);
	char why[2048];
	int rc = EXIT_OK, kind;

	for (int k = 0; (kind = pbench_contest_outcome(c, flags, o->fail_pct, k, why,
						       sizeof(why))) > 0; k++)
		rc = cli_outcome(kind, why) ? EXIT_RUNTIME : rc;
	return rc;
}

/* Build, run and report. The library's handlers (PBENCH_CONTEST_SIGNALS) restore a prepared
 * state on SIGINT/SIGTERM and hand the signal on to cli_stop's (main()), which stops the
 * rounds. */
static int measure(struct compare_opts *o)
{
	struct pbench_contest_info ci = { .size = sizeof(ci) };
	struct pbench_contest *c;
	char why[640];
	int err, rc;

	rc = build(o, &c);
	if (!rc && o->baseline)
		rc = check_baseline(o, c);
	if (rc) {
		pbench_contest_free(c);
		return rc;
	}
	fflush(stdout);
	err = pbench_contest_run(c);
	/* its words before pbench_contest_info(), a call of its own that leaves none */
	snprintf(why, sizeof(why), "%s", pbench_strerror(err));
	pbench_contest_info(c, &ci);
	if ((err && err != -EINTR) || (err == -EINTR && !ci.rounds)) {
		cli_error("%s", err == -EINTR ? "interrupted before the first round" : why);
		if (err == -PBENCH_EDIFFERENT || err == -PBENCH_ECMD_FAILED)
			cli_hint("--no-check-output %s", err == -PBENCH_EDIFFERENT ?
				 "compares them anyway (their times then measure different work)" :
				 "times it anyway (its runs then count as failed)");
		pbench_contest_free(c);
		return EXIT_RUNTIME;
	}
	/* --memory's runs come after the rounds and before the reports, which hold them;
	 * stopped (a signal), the runs done are kept and each one not done says so. */
	rc = o->run.memory_runs && err != -EINTR && !*cli_stop ?
	     pbench_contest_count_memory(c, (int)o->run.memory_runs) : 0;
	if (rc < 0)
		cli_mem_error(rc);
	rc = rc < 0 ? EXIT_RUNTIME : cli_out_write(&o->out, write_report, c);
	if (!rc)	/* --flamegraph */
		rc = cli_compare_profile_write(&o->prof, c, o->co.reference);
	err = outcome(c, o, err == -EINTR || *cli_stop);
	if (!rc && (!err || o->fail_pct >= 0) && !*cli_stop && o->run.record)
		rc = cli_record(&o->run, write_report, c);
	pbench_contest_free(c);
	return rc ? rc : err;
}

static void release(struct compare_opts *o)
{
	for (int i = 0; i < MAX_ENTRANTS; i++)
		pbench_command_free(o->argv[i]);
	free(o->stored);
	cli_run_release(&o->run);
	cli_compare_profile_release(&o->prof);
}

/* The shared options (cli_run) into the contest's: what was not given keeps its default. */
static void apply_run(struct compare_opts *o)
{
	const struct cli_run *r = &o->run;

	o->co.mode = r->mode >= 0 ? r->mode : o->co.mode;
	o->co.cpu = r->ncpus ? r->cpus[0] : o->co.cpu;
	o->co.warmup_ms = r->warmup_ms >= 0 ? r->warmup_ms : o->co.warmup_ms;
	o->co.timeout_s = r->timeout_s > 0 ? r->timeout_s : o->co.timeout_s;
	o->co.max_time_s = r->max_time_s > 0 ? r->max_time_s : o->co.max_time_s;
	o->co.warmup_runs = r->warmup_runs >= 0 ? r->warmup_runs : o->co.warmup_runs;
	o->co.flags |= r->reprobe ? PBENCH_CONTEST_REPROBE : 0;
	o->co.metric = r->metric;
}

static int prepare_run(struct compare_opts *o)
{
	int rc = check_args(o), ref;
	char level[48];

	if (rc)
		return rc;
	if ((ref = find_reference(o)) < 0)
		return EXIT_USAGE;
	o->co.reference = o->baseline ? 0 : ref;
	/* the double nearest to the decimal asked (99.9 -> 0.999, where 99.9 / 100 is not) */
	snprintf(level, sizeof(level), "%.15ge-2", o->confidence_pct);
	o->co.confidence = o->confidence_pct > 0 ? strtod(level, NULL) : 0;
	o->co.events = o->run.events;	/* NULL: PBENCH_CONTEST_DEFAULT_EVENTS */
	o->co.metrics = o->run.metrics;
	apply_run(o);
	rc = cli_compare_profile_apply(&o->prof, &o->co);
	if (!rc)
		rc = make_argvs(o);
	if (!rc && o->baseline)
		rc = read_baseline(o);
	if (!rc && o->occasions)
		rc = cli_history_drift(&o->run, o->occasions, &o->co.occasion_sd, &o->co.occasions,
				       &o->co.occasion_commits);
	if (rc)
		return rc;
	o->progress = (struct cli_progress){ "compare", cli_term_color(stderr), 0 };
	if (isatty(STDERR_FILENO) && !(o->co.flags & PBENCH_CONTEST_SHOW_OUTPUT)) {
		o->co.progress = show_progress;
		o->co.progress_arg = &o->progress;
	}
	o->co.stop = cli_stop;
	o->co.resumed = cli_stop_resumed();
	o->co.text_width = cli_term_width(stdout);
	o->co.flags |= PBENCH_CONTEST_SIGNALS | PBENCH_CONTEST_PRIORITY_CACHE;
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_opts o = { .co = PBENCH_CONTEST_OPTS_INIT, .fail_pct = -1,
				  .run = { .cmd = "compare", .modes = 2, .cpu_flags = CLI_CPU_ONE,
					   .max_warmup = PBENCH_CONTEST_MAX_ROUNDS,
					   .max_time = 604800, .sides = 1 } };
	int rc;

	cli_run_init(&o.run);
	rc = parse_args(argc, argv, &o);
	if (rc) {
		release(&o);
		return rc < 0 ? EXIT_USAGE : EXIT_OK;
	}
	rc = prepare_run(&o);
	if (!rc)
		rc = cli_record_check(&o.run);
	/* Opened before anything runs: a path that cannot be written is a usage error with
	 * nothing measured, and a report not written whole leaves the old file. */
	if (!rc && o.scan.np)	/* -P, -L: each command at every point (scan.c) */
		rc = cli_scan_compare(&o.scan, &o.co, o.argv, o.ncmd, o.name, o.cmd, &o.run, &o.out);
	else if (!rc && !(rc = cli_out_open(&o.out)))
		rc = cli_out_close(&o.out, 1, measure(&o));
	release(&o);
	return rc;
}
