/* SPDX-License-Identifier: MIT */
/*
 * pbench stat: run a command (or the built-in workload) N times, each run timed in ticks and
 * ns and counted with the requested events, unprepared, prepared (one core, high priority,
 * warmed up) or both side by side, and print every run, the outliers with their causes and a
 * summary. The report itself is in stat_report.c.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include "pbench.h"
#include "cmds.h"
#include "stat.h"

#define DEFAULT_EVENTS "task-clock,context-switches,cpu-migrations,page-faults,cycles,instructions"
#define DEFAULT_RUNS 20
#define MAX_RUNS 1000000L
#define XOR_ITERATIONS 100000000ULL
#define WALK_STEPS 200000ULL		/* about 30 ms at the 150 ns a step measured here */
#define SEM_MAX_RUNS 1000		/* --target-sem without -r: the cap on runs per set */
#define DEFAULT_MAX_TIME_S 60.0
#define DEFAULT_WARMUP_MS 1200.0
#define MAX_WARMUP_MS 3600000.0

static void stat_usage(FILE *f)
{
	fprintf(f,
		"usage: pbench stat [-e EVENTS] [-r RUNS | --target-sem PCT [--max-time S]]\n"
		"                   [--mode unprepared|prepared|contrast] [--cpu N] [--warmup-ms MS]\n"
		"                   [--json[=FILE]] [--csv FILE] [--plot FILE.svg] [-q]\n"
		"                   [--timeout S] [--workload xor|memwalk] [--iterations N]\n"
		"                   [-- CMD ARGS...]\n"
		"\n"
		"Runs CMD (or, with no command, a built-in workload) RUNS times and prints each\n"
		"run's time in TSC ticks and ns with the counted events and what disturbed it, the\n"
		"outliers with their cause, then a summary. Events that cannot be counted here are\n"
		"shown with the reason, never as a number.\n"
		"\n"
		"Modes: 'prepared' pins pbench to one CPU, raises its priority, locks its memory and\n"
		"warms up before the runs, and undoes it all afterwards; a command inherits the CPU\n"
		"and the priority. 'unprepared' changes nothing. 'contrast' runs the unprepared set,\n"
		"then the prepared set, and shows them side by side.\n"
		"\n"
		"  -e, --events LIST      comma-separated events (default: %s)\n"
		"  -r, --runs N           runs per mode, 1 to %ld (default: %d; with --target-sem,\n"
		"                         the most runs, default %d)\n"
		"      --target-sem PCT   run until the standard error of the mean is at most PCT%%\n"
		"                         of the mean (at least %d runs), within --max-time\n"
		"      --max-time S       time budget per mode for --target-sem (default: %.0f)\n"
		"      --mode MODE        unprepared, prepared or contrast (default: prepared)\n"
		"      --cpu N            the CPU to prepare (default: an isolated or idle one)\n"
		"      --warmup-ms MS     warm-up before the prepared runs (default: %.0f)\n"
		"      --json[=FILE]      JSON (schema 1) to FILE, or to stdout instead of the text\n"
		"      --csv FILE         one line per run to FILE ('-': stdout, instead of the text)\n"
		"      --plot FILE.svg    each run's time in order and the distributions, as SVG\n"
		"      --timeout S        kill a run of the command after S seconds (default: none)\n"
		"  -q, --quiet            discard the command's output\n"
		"      --workload NAME    the built-in workload: 'xor' (a register-only loop, the\n"
		"                         default) or 'memwalk' (a random walk over 4x the last-level\n"
		"                         cache: one cache miss a step)\n"
		"      --iterations N     xor iterations (default: %llu) or memwalk steps (%llu)\n"
		"  -h, --help             this help\n"
		"\n"
		"On a terminal, a progress line on stderr (run i of N, the estimate so far, the time\n"
		"left) when nothing else writes there: the built-in workload, or a command with -q.\n"
		"NO_COLOR turns its colour off.\n"
		"'pbench list' shows the events that can be counted here.\n",
		DEFAULT_EVENTS, MAX_RUNS, DEFAULT_RUNS, SEM_MAX_RUNS, SEM_MIN_RUNS,
		DEFAULT_MAX_TIME_S, DEFAULT_WARMUP_MS, XOR_ITERATIONS, WALK_STEPS);
}

const char *stat_mode_name(int kind)
{
	static const char *const names[] = { "unprepared", "prepared", "contrast" };

	return kind >= 0 && kind <= MODE_CONTRAST ? names[kind] : "?";
}

static int edit_distance(const char *a, const char *b)
{
	int row[32], n = (int)strlen(b);

	if (n >= (int)(sizeof(row) / sizeof(row[0])))
		return 1000;
	for (int j = 0; j <= n; j++)
		row[j] = j;
	for (int i = 1; a[i - 1]; i++) {
		int diag = row[0];

		row[0] = i;
		for (int j = 1; j <= n; j++) {
			int up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[n];
}

static int parse_mode(const char *s)
{
	int best = 0, best_d = 1 << 30;

	for (int k = 0; k <= MODE_CONTRAST; k++) {
		int d = edit_distance(s, stat_mode_name(k));

		if (!d)
			return k;
		if (d < best_d) {
			best_d = d;
			best = k;
		}
	}
	cli_error("unknown mode '%s' for --mode: the modes are unprepared, prepared and "
		  "contrast (did you mean '%s'?)", s, stat_mode_name(best));
	return -1;
}

static int parse_cpu(const char *s, int *out)
{
	cpu_set_t set;
	char allowed[256] = "";
	double v;
	int ok;

	CPU_ZERO(&set);
	sched_getaffinity(0, sizeof(set), &set);
	pbench_cpus_allowed(allowed, sizeof(allowed));
	ok = !cli_parse_number(s, CLI_NUM_INT, &v) && v >= 0 && v < CPU_SETSIZE &&
	     CPU_ISSET((int)v, &set);
	if (!ok) {
		cli_error("invalid CPU '%s' for --cpu: pbench may run on CPUs %s", s,
			  allowed[0] ? allowed : "(unknown: sched_getaffinity failed)");
		return -1;
	}
	*out = (int)v;
	return 0;
}

static int parse_args(int argc, char **argv, struct stat_opts *o)
{
	enum { OPT_MODE = 256, OPT_CPU, OPT_WARMUP, OPT_PLOT, OPT_TIMEOUT, OPT_CSV, OPT_WORKLOAD,
	       OPT_TARGET_SEM, OPT_MAX_TIME };
	static const struct option opts[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "runs", required_argument, NULL, 'r' },
		{ "json", optional_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "warmup-ms", required_argument, NULL, OPT_WARMUP },
		{ "plot", required_argument, NULL, OPT_PLOT },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "csv", required_argument, NULL, OPT_CSV },
		{ "workload", required_argument, NULL, OPT_WORKLOAD },
		{ "target-sem", required_argument, NULL, OPT_TARGET_SEM },
		{ "max-time", required_argument, NULL, OPT_MAX_TIME },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	double v;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:e:r:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			o->events = optarg;
			break;
		case 'r':
			if (cli_long("-r", "run count", optarg, 1, MAX_RUNS, &o->runs))
				return -1;
			break;
		case 'j':
			o->json = optarg ? optarg : "-";
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'i':
			if (cli_number("--iterations", "iteration count", optarg, 1, 1e12,
				       CLI_NUM_INT, &v))
				return -1;
			o->iterations = (long long)v;
			break;
		case OPT_MODE:
			if ((o->mode = parse_mode(optarg)) < 0)
				return -1;
			break;
		case OPT_CPU:
			if (parse_cpu(optarg, &o->cpu))
				return -1;
			break;
		case OPT_WARMUP:
			if (cli_number("--warmup-ms", "warm-up", optarg, 0, MAX_WARMUP_MS, 0,
				       &o->warmup_ms))
				return -1;
			break;
		case OPT_PLOT:
			o->plot = optarg;
			break;
		case OPT_TIMEOUT:
			if (cli_number("--timeout", "timeout", optarg, 0, 86400, CLI_NUM_POSITIVE,
				       &o->timeout_s))
				return -1;
			break;
		case OPT_MAX_TIME:
			if (cli_number("--max-time", "time budget", optarg, 0, 86400,
				       CLI_NUM_POSITIVE, &o->max_time_s))
				return -1;
			break;
		case OPT_TARGET_SEM:
			if (cli_number("--target-sem", "target", optarg, 0, 100,
				       CLI_NUM_POSITIVE | CLI_NUM_PCT, &o->target_sem_pct))
				return -1;
			break;
		case OPT_CSV:
			o->csv = optarg;
			break;
		case OPT_WORKLOAD:
			if (!strcmp(optarg, "xor")) {
				o->workload = WL_XOR;
			} else if (!strcmp(optarg, "memwalk")) {
				o->workload = WL_WALK;
			} else {
				cli_error("unknown workload '%s' for --workload: the built-in workloads "
					  "are xor and memwalk", optarg);
				return -1;
			}
			o->workload_set = 1;
			break;
		case 'h':
			stat_usage(stdout);
			return 1;
		default:
			return cli_option_error(c, argv, "stat");
		}
	}
	if (optind < argc)
		o->cmd = argv + optind;
	return 0;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o = { .events = DEFAULT_EVENTS, .runs = 0, .iterations = 0,
			       .mode = MODE_PREPARED, .cpu = -1, .warmup_ms = DEFAULT_WARMUP_MS };
	struct cli_output out[STAT_NOUT];
	int rc;

	rc = parse_args(argc, argv, &o);
	if (rc)
		return rc < 0 ? EXIT_USAGE : EXIT_OK;
	if (o.json && o.csv && !strcmp(o.json, "-") && !strcmp(o.csv, "-")) {
		cli_error("--json and --csv cannot both write to stdout: give one of them a file");
		return EXIT_USAGE;
	}
	if (o.max_time_s > 0 && !(o.target_sem_pct > 0)) {
		cli_error("--max-time is the time budget of --target-sem: give --target-sem too, "
			  "or use -r for a fixed number of runs");
		return EXIT_USAGE;
	}
	if (o.cmd && o.workload_set) {
		cli_error("--workload picks a built-in workload, but a command was given: drop one "
			  "of them");
		return EXIT_USAGE;
	}
	if (!o.runs)
		o.runs = o.target_sem_pct > 0 ? SEM_MAX_RUNS : DEFAULT_RUNS;
	if (o.target_sem_pct > 0 && !(o.max_time_s > 0))
		o.max_time_s = DEFAULT_MAX_TIME_S;
	if (!o.iterations)
		o.iterations = o.workload == WL_WALK ? WALK_STEPS : XOR_ITERATIONS;
	if (o.workload == WL_WALK)
		o.walk_bytes = pbench_walk_default_bytes();
	o.color = cli_color(stderr);
	o.progress = isatty(STDERR_FILENO) && (!o.cmd || o.quiet);
	/* Opened before anything runs: a path that cannot be written is a usage error with
	 * nothing measured, and a report that was not written whole leaves the old file. */
	out[OUT_JSON] = (struct cli_output){ "--json", "the JSON", o.json };
	out[OUT_CSV] = (struct cli_output){ "--csv", "the CSV file", o.csv };
	out[OUT_PLOT] = (struct cli_output){ "--plot", "the plot", o.plot };
	o.out = out;
	rc = cli_outputs_open(out, STAT_NOUT);
	if (rc)
		return rc;
	cli_note_live("stat");
	rc = stat_measure(&o);
	return cli_outputs_close(out, STAT_NOUT, 1, rc);
}
